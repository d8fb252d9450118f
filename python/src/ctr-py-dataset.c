/* ctr-py-dataset.c — ctrecon.load() and the Dataset it returns: a
 * CtrDataset (io/ctr-dataset.h) whose arrays are numpy views of core's
 * buffers. */
#include <math.h>
#include <string.h>

#include "ctr-py.h"

static void
dataset_dealloc (CtrPyDataset *self)
{
  g_clear_pointer (&self->dataset, ctr_dataset_free);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

static PyObject *
strv_list (char **v)
{
  PyObject *list = PyList_New (0);
  for (guint i = 0; list != NULL && v != NULL && v[i] != NULL; i++)
    {
      PyObject *s = PyUnicode_DecodeFSDefault (v[i]);
      if (s == NULL || PyList_Append (list, s) < 0)
        Py_CLEAR (list);
      Py_XDECREF (s);
    }
  return list;
}

/* A double array of @n values as float64 numpy, or None when @x is NULL. */
static PyObject *
doubles_or_none (const double *x, npy_intp n)
{
  if (x == NULL)
    Py_RETURN_NONE;
  return ctr_py_array_from_doubles (x, n);
}

static int
set_item (PyObject *dict, const char *key, PyObject *value)
{
  if (value == NULL)
    return -1;
  int rc = PyDict_SetItemString (dict, key, value);
  Py_DECREF (value);
  return rc;
}

static PyObject *
geometry_dict (const CtrGeometry *g)
{
  static const char *const beams[] = { "parallel", "fan", "cone" };
  const gboolean curved = g->shape == CTR_DETECTOR_CURVED;
  PyObject *d = Py_BuildValue (
      "{sssssIsIsIsdsdsdsssdsdsOsOsO}", "beam", beams[g->beam], "detector_shape", curved ? "curved" : "flat",
      "n_views", g->n_views, "n_rows", g->n_rows, "n_cols", g->n_cols, "sod_mm", g->sod_mm, "sdd_mm", g->sdd_mm,
      "pitch_u", g->pitch_u, "pitch_u_unit", curved ? "rad" : "mm", "pitch_v_mm", g->pitch_v_mm, "offset_u",
      g->offset_u, "rows_increase_with_v", g->rows_increase_with_v ? Py_True : Py_False, "pixel_size_known",
      g->pixel_size_known ? Py_True : Py_False, "table_reversed", g->table_reversed ? Py_True : Py_False);
  if (d == NULL)
    return NULL;
  if (set_item (d, "offset_v_mm", PyFloat_FromDouble (g->offset_v_mm)) < 0
      || set_item (d, "angles", ctr_py_array_from_doubles (g->angles, g->n_views)) < 0
      || set_item (d, "source_z_mm", doubles_or_none (g->source_z_mm, g->n_views)) < 0
      || set_item (d, "focal_shift", doubles_or_none (g->focal_shift, g->n_views)) < 0
      || set_item (d, "helical", PyBool_FromLong (ctr_helix_applies (g))) < 0)
    {
      Py_DECREF (d);
      return NULL;
    }
  PyObject *vectors = doubles_or_none (g->vectors, (npy_intp) g->n_views * CTR_GEOMETRY_VECTOR_LEN);
  if (vectors != NULL && vectors != Py_None)
    {
      npy_intp dims[2] = { g->n_views, CTR_GEOMETRY_VECTOR_LEN };
      PyArray_Dims shape = { dims, 2 };
      PyObject *v2 = PyArray_Newshape ((PyArrayObject *) vectors, &shape, NPY_CORDER);
      Py_SETREF (vectors, v2);
    }
  if (set_item (d, "vectors", vectors) < 0)
    {
      Py_DECREF (d);
      return NULL;
    }
  return d;
}

static PyObject *
get_geometry (CtrPyDataset *self, void *closure)
{
  return geometry_dict (self->dataset->geometry);
}

static PyObject *
get_projections (CtrPyDataset *self, void *closure)
{
  return ctr_py_array_from_projections (self->dataset->projections);
}

static PyObject *
get_reference (CtrPyDataset *self, void *closure)
{
  if (self->dataset->reference == NULL)
    Py_RETURN_NONE;
  return ctr_py_array_from_volume (self->dataset->reference);
}

static PyObject *
get_reference_grid (CtrPyDataset *self, void *closure)
{
  if (self->dataset->reference == NULL)
    Py_RETURN_NONE;
  return ctr_py_grid_dict (&self->dataset->reference->grid);
}

static PyObject *
get_name (CtrPyDataset *self, void *closure)
{
  return PyUnicode_FromString (self->dataset->name ? self->dataset->name : "");
}

static PyObject *
get_path (CtrPyDataset *self, void *closure)
{
  if (self->dataset->path == NULL)
    Py_RETURN_NONE;
  return PyUnicode_DecodeFSDefault (self->dataset->path);
}

static PyObject *
get_variant (CtrPyDataset *self, void *closure)
{
  if (self->dataset->variant == NULL)
    Py_RETURN_NONE;
  return PyUnicode_FromString (self->dataset->variant);
}

static PyObject *
get_variants (CtrPyDataset *self, void *closure)
{
  return strv_list (self->dataset->variants);
}

static PyObject *
get_warnings (CtrPyDataset *self, void *closure)
{
  return strv_list (self->dataset->warnings);
}

static PyObject *
get_mu_water (CtrPyDataset *self, void *closure)
{
  if (self->dataset->mu_water <= 0)
    Py_RETURN_NONE;
  return PyFloat_FromDouble (self->dataset->mu_water);
}

static PyObject *
dataset_repr (CtrPyDataset *self)
{
  /* PyUnicode_FromFormat takes ASCII formats only: the text is built here. */
  const CtrGeometry *g = self->dataset->geometry;
  g_autofree char *text = g_strdup_printf ("<ctrecon.Dataset '%s': %u views × %u rows × %u columns%s>",
                                           self->dataset->name ? self->dataset->name : "", g->n_views, g->n_rows,
                                           g->n_cols, self->dataset->reference ? ", with a reference" : "");
  return PyUnicode_DecodeUTF8 (text, strlen (text), "replace");
}

static PyGetSetDef dataset_getset[] = {
  { "geometry", (getter) get_geometry, NULL,
    "dict: the scan's geometry as the loader understood it (a new dict each time): beam ('parallel', 'fan', "
    "'cone'), detector_shape ('flat', 'curved'), n_views, n_rows, n_cols, sod_mm, sdd_mm, pitch_u (mm, or rad "
    "for a curved detector: pitch_u_unit), pitch_v_mm, offset_u, offset_v_mm, angles (float64 [n_views], "
    "radians), source_z_mm (float64 [n_views] for helical scans, else None), focal_shift, vectors (float64 "
    "[n_views][12], mm, or None), helical, table_reversed, rows_increase_with_v, pixel_size_known.", NULL },
  { "projections", (getter) get_projections, NULL,
    "numpy.ndarray float32 [view][row][col], C order: line integrals (dimensionless, -ln I/I0) after the "
    "loader's flat/dark correction.  A view of the dataset's own buffer (no copy): writing to it changes "
    "what reconstruct() of this dataset sees.", NULL },
  { "reference", (getter) get_reference, NULL,
    "numpy.ndarray float32 [z][y][x] (C order, 1/mm; 1/pixel when the pixel size is unknown) of the "
    "reference image the dataset names, on its own grid (reference_grid); None when it names none.  Row 0 "
    "is +y, column 0 is -x.", NULL },
  { "reference_grid", (getter) get_reference_grid, NULL,
    "dict (nx, ny, nz, dx_mm, dy_mm, dz_mm, cx_mm, cy_mm, cz_mm) of the reference, or None.", NULL },
  { "name", (getter) get_name, NULL, "str: the dataset's \"name\", or its file's name.", NULL },
  { "path", (getter) get_path, NULL, "str: the absolute path of the file loaded.", NULL },
  { "variant", (getter) get_variant, NULL, "str or None: the variant loaded (None: \"projections\").", NULL },
  { "variants", (getter) get_variants, NULL, "list of str: the names of the file's \"variants\".", NULL },
  { "warnings", (getter) get_warnings, NULL, "list of str: what the loader noticed (as the CLI prints).", NULL },
  { "mu_water", (getter) get_mu_water, NULL, "float (1/mm) the data state for HU, or None.", NULL },
  { NULL }
};

/* Dataset(geometry, projections, *, name="arrays", i0=None, mu_water=None,
 * reference=None, reference_grid=None): a scan held in memory, for
 * reconstruct() and the study tools. */
static PyObject *
dataset_new (PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "geometry", "projections", "name", "i0", "mu_water", "reference", "reference_grid", NULL };
  PyObject *geo = NULL, *proj = NULL, *i0_obj = Py_None, *mu_obj = Py_None, *ref_obj = Py_None, *grid_obj = Py_None;
  const char *name = "arrays";
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OO|$sOOOO:Dataset", kwlist, &geo, &proj, &name, &i0_obj, &mu_obj,
                                    &ref_obj, &grid_obj))
    return NULL;
  const double i0 = i0_obj == Py_None ? 0 : PyFloat_AsDouble (i0_obj);
  const double mu = mu_obj == Py_None ? 0 : PyFloat_AsDouble (mu_obj);
  if (PyErr_Occurred ())
    return NULL;
  if ((i0_obj != Py_None && !(isfinite (i0) && i0 > 0)) || (mu_obj != Py_None && !(isfinite (mu) && mu > 0)))
    {
      PyErr_SetString (ctr_py_invalid_argument (),
                       "Dataset: i0 (photons per detector bin) and mu_water (1/mm) must be positive when given");
      return NULL;
    }
  const CtrGeometry *g = ctr_py_geometry_of (geo);
  if (g == NULL)
    return NULL;
  PyArrayObject *a = ctr_py_float32_array (proj, 3, 3, NPY_ARRAY_C_CONTIGUOUS);
  if (a == NULL)
    return NULL;
  const npy_intp *dims = PyArray_DIMS (a);
  if (dims[0] != g->n_views || dims[1] != g->n_rows || dims[2] != g->n_cols)
    {
      PyErr_Format (ctr_py_invalid_argument (),
                    "Dataset: the geometry's projections are %u views x %u rows x %u columns [view][row][col], "
                    "the array is (%zd, %zd, %zd)", g->n_views, g->n_rows, g->n_cols, (Py_ssize_t) dims[0],
                    (Py_ssize_t) dims[1], (Py_ssize_t) dims[2]);
      Py_DECREF (a);
      return NULL;
    }
  GError *error = NULL;
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
  if (p != NULL)
    {
      memcpy (p->data, PyArray_DATA (a), (gsize) g->n_views * g->n_rows * g->n_cols * sizeof (float));
      p->i0 = i0;
    }
  Py_DECREF (a);
  if (p == NULL || !ctr_projections_check_finite (p, &error))
    {
      if (p != NULL)
        ctr_projections_unref (p);
      return ctr_py_raise (error);
    }
  if (ref_obj == Py_None && grid_obj != Py_None)
    {
      ctr_projections_unref (p);
      PyErr_SetString (ctr_py_invalid_argument (), "Dataset: reference_grid without a reference");
      return NULL;
    }
  CtrVolume *ref = ref_obj != Py_None ? ctr_py_reference_from (g, ref_obj, grid_obj) : NULL;
  if (ref_obj != Py_None && ref == NULL)
    {
      ctr_projections_unref (p);
      return NULL;
    }
  CtrDataset *d = g_new0 (CtrDataset, 1);
  d->name = g_strdup (name);
  d->projections = p;
  d->reference = ref;
  d->mu_water = mu;
  if ((d->geometry = ctr_geometry_try_copy (g, &error)) == NULL)
    {
      ctr_dataset_free (d);   /* the projections and reference with it */
      return ctr_py_raise (error);
    }
  CtrPyDataset *obj = (CtrPyDataset *) type->tp_alloc (type, 0);
  if (obj == NULL)
    {
      ctr_dataset_free (d);
      return NULL;
    }
  obj->dataset = d;
  return (PyObject *) obj;
}

PyObject *
ctr_py_dataset_wrap (CtrDataset *d)
{
  if (d == NULL)
    return NULL;
  CtrPyDataset *obj = PyObject_New (CtrPyDataset, &CtrPyDatasetType);
  if (obj == NULL)
    {
      ctr_dataset_free (d);
      return NULL;
    }
  obj->dataset = d;
  return (PyObject *) obj;
}

PyTypeObject CtrPyDatasetType = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "ctrecon.Dataset",
  .tp_basicsize = sizeof (CtrPyDataset),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "Dataset(geometry, projections, *, name='arrays', i0=None, mu_water=None, reference=None, "
            "reference_grid=None)\n\n"
            "A scan: geometry, projections, reference.  ctrecon.load() reads one from files; this constructor "
            "makes one from arrays: geometry a Geometry (or a Dataset), projections line integrals "
            "(-ln I/I0, any real dtype, copied as float32) of shape geometry.data_shape [view][row][col], i0 "
            "the open-beam photons per detector bin (what simulate_dose needs), mu_water in 1/mm.  reference: "
            "the reference image (float32-convertible [z][y][x] or [y][x], 1/mm, row 0 = +y, column 0 = -x; "
            "copied) that reconstruct()'s metrics and the study tools compare with; it lies on the grid "
            "reconstruct(size=NX) would use for this geometry (NX the array's width: its pixel, z spacing and "
            "centre), and reference_grid (a dict with any of Dataset.reference_grid's keys: dx_mm ... cz_mm; "
            "nx, ny, nz must be the array's) states otherwise.  Raises InvalidArgument (a shape that differs, "
            "NaN or infinite values, a bad reference_grid), TypeError.",
  .tp_new = dataset_new,
  .tp_dealloc = (destructor) dataset_dealloc,
  .tp_repr = (reprfunc) dataset_repr,
  .tp_getset = dataset_getset,
};

PyObject *
ctr_py_load (PyObject *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "path", "variant", "preprocess", NULL };
  PyObject *path_obj = NULL, *pre_obj = Py_None;
  const char *variant = NULL;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O&|z$O:load", kwlist, PyUnicode_FSConverter, &path_obj, &variant,
                                    &pre_obj))
    return NULL;
  g_autofree char *path = g_strdup (PyBytes_AS_STRING (path_obj));
  Py_DECREF (path_obj);  /* (PyUnicode_FSConverter refuses embedded NULs) */
  CtrPipeline *pl = NULL;
  if (ctr_py_pipeline_from (pre_obj, &pl) < 0)
    return NULL;

  GError *error = NULL;
  CtrDataset *d;
  Py_BEGIN_ALLOW_THREADS
  d = ctr_dataset_load_preprocessed (path, variant, pl, NULL, &error);
  Py_END_ALLOW_THREADS
  if (pl != NULL)
    ctr_pipeline_free (pl);
  if (d == NULL)
    return ctr_py_raise (error);
  return ctr_py_dataset_wrap (d);
}
