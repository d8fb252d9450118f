/* ctr-py-geometry.c — ctrecon.Geometry: a scan geometry (core's CtrGeometry,
 * data/ctr-geometry.h) made from what users hold — a geometry.json path, a
 * dict of its keys, a Dataset, an ASTRA proj_geom, an RTK geometry XML —
 * through core's own readers and checks (io/ctr-dataset.h,
 * io/ctr-geometry-import.h), so the messages are the CLI's.  Read back as
 * FORMAT.md's geometry.json keys (to_dict) and as per-view vectors. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ctr-py.h"
#include "data/ctr-geometry-vectors.h"
#include "io/ctr-geometry-import.h"
#include "io/ctr-geometry-json.h"

typedef struct {
  PyObject_HEAD
  CtrGeometry *g;
} CtrPyGeometry;

static void
geometry_dealloc (CtrPyGeometry *self)
{
  g_clear_pointer (&self->g, ctr_geometry_free);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

/* json.dumps's default=: numpy arrays and numpy scalars as lists and numbers. */
static PyObject *
json_default (PyObject *self, PyObject *obj)
{
  if (PyObject_HasAttrString (obj, "tolist"))
    return PyObject_CallMethod (obj, "tolist", NULL);
  PyErr_Format (PyExc_TypeError, "Geometry: a value of type %s is not a number, text, list or array",
                Py_TYPE (obj)->tp_name);
  return NULL;
}

static PyMethodDef json_default_def = { "_json_default", json_default, METH_O, NULL };

PyObject *
ctr_py_dict_to_json (PyObject *obj, const char *what)
{
  if (!PyDict_Check (obj))
    {
      PyErr_Format (PyExc_TypeError, "%s: expected a dict, got %s", what, Py_TYPE (obj)->tp_name);
      return NULL;
    }
  PyObject *json = PyImport_ImportModule ("json");
  PyObject *def = json != NULL ? PyCFunction_New (&json_default_def, NULL) : NULL;
  PyObject *dumps = json != NULL ? PyObject_GetAttrString (json, "dumps") : NULL;
  PyObject *args = def != NULL && dumps != NULL ? PyTuple_Pack (1, obj) : NULL;
  PyObject *kw = args != NULL ? Py_BuildValue ("{sOsO}", "default", def, "allow_nan", Py_False) : NULL;
  PyObject *text = kw != NULL ? PyObject_Call (dumps, args, kw) : NULL;
  PyObject *bytes = text != NULL ? PyUnicode_AsUTF8String (text) : NULL;
  if (bytes == NULL && PyErr_ExceptionMatches (PyExc_ValueError))  /* NaN or infinity */
    {
      PyErr_Clear ();
      PyErr_Format (ctr_py_invalid_argument (), "%s: every number must be finite", what);
    }
  Py_XDECREF (json), Py_XDECREF (def), Py_XDECREF (dumps), Py_XDECREF (args), Py_XDECREF (kw), Py_XDECREF (text);
  return bytes;
}

/* Reads a whole file named by @path_obj (str, bytes or os.PathLike) without the GIL. */
static gboolean
read_text (PyObject *path_obj, char **text, gsize *length, char **path)
{
  PyObject *fs = NULL;
  if (!PyUnicode_FSConverter (path_obj, &fs))
    return FALSE;
  *path = g_strdup (PyBytes_AS_STRING (fs));
  Py_DECREF (fs);
  GError *local = NULL;
  gboolean ok;
  Py_BEGIN_ALLOW_THREADS
  ok = g_file_get_contents (*path, text, length, &local);
  Py_END_ALLOW_THREADS
  if (!ok)
    {
      GError *error = g_error_new (CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", *path, local->message);
      g_error_free (local);
      g_clear_pointer (path, g_free);
      ctr_py_raise (error);
    }
  return ok;
}

static gboolean
is_path (PyObject *o)
{
  return PyUnicode_Check (o) || PyBytes_Check (o) || PyObject_HasAttrString (o, "__fspath__");
}

/* A new Geometry object of @type owning @g (NULL: the Python exception of @error). */
static PyObject *
wrap (PyTypeObject *type, CtrGeometry *g, GError *error)
{
  if (g == NULL)
    return ctr_py_raise (error);
  CtrPyGeometry *obj = (CtrPyGeometry *) type->tp_alloc (type, 0);
  if (obj == NULL)
    {
      ctr_geometry_free (g);
      return NULL;
    }
  obj->g = g;
  return (PyObject *) obj;
}

/* The geometry of @source: a Geometry, a Dataset, a dict of geometry.json
 * keys or a path of a geometry.json.  NULL with a Python exception. */
static CtrGeometry *
geometry_from (PyObject *source)
{
  GError *error = NULL;
  CtrGeometry *g = NULL;
  /* copies that fail raise OutOfMemory (ctr_geometry_copy aborted) */
  if (PyObject_TypeCheck (source, &CtrPyGeometryType))
    g = ctr_geometry_try_copy (((CtrPyGeometry *) source)->g, &error);
  else if (PyObject_TypeCheck (source, &CtrPyDatasetType))
    g = ctr_geometry_try_copy (((CtrPyDataset *) source)->dataset->geometry, &error);
  else if (PyDict_Check (source))
    {
      PyObject *json = ctr_py_dict_to_json (source, "Geometry");
      if (json == NULL)
        return NULL;
      g = ctr_dataset_parse_geometry (PyBytes_AS_STRING (json), PyBytes_GET_SIZE (json), &error);
      Py_DECREF (json);
    }
  else if (is_path (source))
    {
      PyObject *fs = NULL;
      if (!PyUnicode_FSConverter (source, &fs))
        return NULL;
      g_autofree char *path = g_strdup (PyBytes_AS_STRING (fs));
      Py_DECREF (fs);
      Py_BEGIN_ALLOW_THREADS
      g = ctr_dataset_read_geometry (path, &error);
      Py_END_ALLOW_THREADS
    }
  else
    {
      PyErr_Format (PyExc_TypeError,
                    "Geometry: expected a geometry.json path, a dict of its keys, a Dataset or a Geometry, got %s",
                    Py_TYPE (source)->tp_name);
      return NULL;
    }
  if (g == NULL)
    ctr_py_raise (error);
  return g;
}

static int
geometry_init (CtrPyGeometry *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "source", NULL };
  PyObject *source = NULL;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O:Geometry", kwlist, &source))
    return -1;
  CtrGeometry *g = geometry_from (source);
  if (g == NULL)
    return -1;
  g_clear_pointer (&self->g, ctr_geometry_free);
  self->g = g;
  return 0;
}

static gboolean
ready (CtrPyGeometry *self)
{
  if (self->g == NULL)
    PyErr_SetString (PyExc_RuntimeError, "Geometry: not initialised");
  return self->g != NULL;
}

const CtrGeometry *
ctr_py_geometry_of (PyObject *obj)
{
  if (PyObject_TypeCheck (obj, &CtrPyGeometryType))
    return ready ((CtrPyGeometry *) obj) ? ((CtrPyGeometry *) obj)->g : NULL;
  if (PyObject_TypeCheck (obj, &CtrPyDatasetType))
    return ((CtrPyDataset *) obj)->dataset->geometry;
  PyErr_Format (PyExc_TypeError, "expected a ctrecon.Dataset or ctrecon.Geometry, got %s", Py_TYPE (obj)->tp_name);
  return NULL;
}

static PyObject *
from_astra (PyTypeObject *type, PyObject *proj_geom)
{
  PyObject *json = ctr_py_dict_to_json (proj_geom, "Geometry.from_astra");
  if (json == NULL)
    return NULL;
  GError *error = NULL;
  CtrGeometry *g = ctr_geometry_import_astra (PyBytes_AS_STRING (json), PyBytes_GET_SIZE (json), &error);
  Py_DECREF (json);
  return wrap (type, g, error);
}

static PyObject *
from_rtk (PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "xml", "cols", "rows", "spacing", "origin", NULL };
  PyObject *xml = NULL, *origin = Py_None;
  unsigned int cols = 0, rows = 0;
  double su = 0, sv = 0, ou = NAN, ov = NAN;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OII(dd)|O:Geometry.from_rtk", kwlist, &xml, &cols, &rows, &su,
                                    &sv, &origin))
    return NULL;
  if (origin != Py_None && !PyArg_ParseTuple (origin, "dd:Geometry.from_rtk origin", &ou, &ov))
    return NULL;
  if (cols == 0 || rows == 0 || !(su > 0) || !(sv > 0) || !isfinite (su) || !isfinite (sv))
    {
      PyErr_SetString (ctr_py_invalid_argument (),
                       "Geometry.from_rtk: cols and rows must be positive and spacing two positive pitches (mm)");
      return NULL;
    }
  g_autofree char *text = NULL, *path = NULL;
  gsize length = 0;
  /* The XML's text itself, or a file holding it. */
  Py_ssize_t n = 0;
  const char *s = PyUnicode_Check (xml) ? PyUnicode_AsUTF8AndSize (xml, &n) : NULL;
  if (s != NULL && memchr (s, '<', (size_t) n) != NULL)
    text = g_strndup (s, (gsize) n), length = (gsize) n;
  else if (PyErr_Occurred () || !read_text (xml, &text, &length, &path))
    return NULL;
  const CtrRtkDetector det = { cols, rows, su, sv, ou, ov };
  GError *error = NULL;
  CtrGeometry *g = ctr_geometry_import_rtk (text, (gssize) length, &det, &error);
  return wrap (type, g, error);
}

static PyObject *
to_json (CtrPyGeometry *self, PyObject *unused)
{
  if (!ready (self))
    return NULL;
  JsonObject *o = ctr_geometry_to_json_object (self->g);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, o);
  g_autofree char *text = json_to_string (node, TRUE);
  json_node_unref (node);
  return PyUnicode_FromString (text);
}

static PyObject *
to_dict (CtrPyGeometry *self, PyObject *unused)
{
  PyObject *text = to_json (self, NULL);
  PyObject *json = text != NULL ? PyImport_ImportModule ("json") : NULL;
  PyObject *d = json != NULL ? PyObject_CallMethod (json, "loads", "O", text) : NULL;
  Py_XDECREF (json);
  Py_XDECREF (text);
  return d;
}

static PyObject *
get_vectors (CtrPyGeometry *self, void *closure)
{
  if (!ready (self))
    return NULL;
  GError *error = NULL;
  g_autoptr (CtrGeometry) v = ctr_geometry_has_vectors (self->g) ? NULL : ctr_geometry_to_vectors (self->g, &error);
  const CtrGeometry *src = v != NULL ? v : self->g;
  if (!ctr_geometry_has_vectors (src))
    return ctr_py_raise (error);
  npy_intp dims[2] = { src->n_views, CTR_GEOMETRY_VECTOR_LEN };
  PyObject *a = PyArray_SimpleNew (2, dims, NPY_FLOAT64);
  if (a != NULL)
    memcpy (PyArray_DATA ((PyArrayObject *) a), src->vectors,
            (gsize) src->n_views * CTR_GEOMETRY_VECTOR_LEN * sizeof (double));
  return a;
}

static PyObject *
get_angles (CtrPyGeometry *self, void *closure)
{
  return ready (self) ? ctr_py_array_from_doubles (self->g->angles, self->g->n_views) : NULL;
}

static PyObject *
get_beam (CtrPyGeometry *self, void *closure)
{
  static const char *const beams[] = { "parallel", "fan", "cone" };
  return ready (self) ? PyUnicode_FromString (beams[self->g->beam]) : NULL;
}

static PyObject *
get_data_shape (CtrPyGeometry *self, void *closure)
{
  return ready (self) ? Py_BuildValue ("(III)", self->g->n_views, self->g->n_rows, self->g->n_cols) : NULL;
}

static PyObject *
get_helical (CtrPyGeometry *self, void *closure)
{
  return ready (self) ? PyBool_FromLong (ctr_helix_applies (self->g)) : NULL;
}

static PyObject *
geometry_repr (CtrPyGeometry *self)
{
  if (self->g == NULL)
    return PyUnicode_FromString ("<ctrecon.Geometry (not initialised)>");
  g_autofree char *what = ctr_geometry_describe (self->g);
  return PyUnicode_FromFormat ("<ctrecon.Geometry: %s%s>", what,
                               ctr_geometry_has_vectors (self->g) ? " (per-view vectors)" : "");
}

static PyMethodDef geometry_methods[] = {
  { "from_astra", (PyCFunction) from_astra, METH_O | METH_CLASS,
    "Geometry.from_astra(proj_geom) -> Geometry\n\n"
    "An ASTRA projection geometry (the dict astra.create_proj_geom returns: 'parallel', 'parallel_vec', "
    "'fanflat', 'fanflat_vec', 'cone', 'cone_vec'; numpy arrays allowed) in our frame "
    "(io/ctr-geometry-import.h: ASTRA's frame is FORMAT.md's; angles in rad, distances in ASTRA's unit taken "
    "as mm).  'parallel_vec' (Vectors n_views x 6: ray, detector centre, column step) becomes a parallel "
    "beam with angle atan2(u_y, u_x), pitch |u| and offset d.u/|u|; vectors with rays not across the "
    "detector row, or a pitch or offset that changes between views, raise Unsupported.  ASTRA stores "
    "cone-beam projections as [row][view][col]: transpose them to [view][row][col].  Raises FormatError (a "
    "missing or mistyped key, named), Unsupported (parallel3d, ...), InvalidGeometry." },
  { "from_rtk", (PyCFunction) (void (*) (void)) from_rtk, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
    "Geometry.from_rtk(xml, cols, rows, spacing, origin=None) -> Geometry\n\n"
    "An RTK ThreeDCircularProjectionGeometry (xml: the XML text or a path of the file) as a cone-beam geometry "
    "with per-view vectors (IEC 61217 to FORMAT.md, io/ctr-geometry-import.h).  The XML holds no detector: "
    "cols and rows of the projection images, spacing (u, v) in mm, origin (u, v) in mm of pixel (0, 0) "
    "(None: centred).  Raises FileError, FormatError, Unsupported (a cylindrical detector), InvalidGeometry, "
    "InvalidArgument." },
  { "to_dict", (PyCFunction) to_dict, METH_NOARGS,
    "to_dict() -> dict: the geometry as geometry.json's keys (FORMAT.md: type, detector_shape, views, "
    "detector_cols, detector_rows, sod_mm, sdd_mm, pitches, offsets, angles_rad, vectors or the helical "
    "keys).  Geometry(d) of it gives this geometry back." },
  { "to_json", (PyCFunction) to_json, METH_NOARGS, "to_json() -> str: to_dict() as JSON text." },
  { NULL }
};

static PyGetSetDef geometry_getset[] = {
  { "beam", (getter) get_beam, NULL, "str: 'parallel', 'fan' or 'cone' (a helical scan is a cone beam).", NULL },
  { "data_shape", (getter) get_data_shape, NULL,
    "(n_views, n_rows, n_cols): the projections' shape, [view][row][col].", NULL },
  { "angles", (getter) get_angles, NULL, "float64 [n_views]: the view angles β, radians (a copy).", NULL },
  { "helical", (getter) get_helical, NULL, "bool: the source moves along z during the scan.", NULL },
  { "vectors", (getter) get_vectors, NULL,
    "float64 [n_views][12], mm: per view the source S, the detector centre D, the steps u and v from one "
    "column and one row to the next (data/ctr-geometry-vectors.h, ASTRA's cone_vec order); computed for a "
    "circular geometry.  Raises Unsupported where no vectors describe the scan (a helical scan).", NULL },
  { NULL }
};

PyTypeObject CtrPyGeometryType = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "ctrecon.Geometry",
  .tp_basicsize = sizeof (CtrPyGeometry),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "Geometry(source)\n\n"
            "A scan geometry in FORMAT.md's convention.  source: the path of a geometry.json (only its geometry "
            "is read), a dict of its keys (numpy arrays allowed), a Dataset or a Geometry; the engine's own "
            "reader and checks, so the messages are the CLI's.  Also Geometry.from_astra and "
            "Geometry.from_rtk.  Operator(geometry, size, pixel_size) projects on it.  Raises FileError, "
            "FormatError, InvalidGeometry.",
  .tp_new = PyType_GenericNew,
  .tp_init = (initproc) geometry_init,
  .tp_dealloc = (destructor) geometry_dealloc,
  .tp_repr = (reprfunc) geometry_repr,
  .tp_methods = geometry_methods,
  .tp_getset = geometry_getset,
};
