/* ctr-py-operator.c — ctrecon.Operator: the system matrix A of a dataset's
 * geometry on an image grid, as core's operator interface
 * (sysmat/ctr-operator.h): fan and parallel beam the on-the-fly projector
 * pair (sysmat/ctr-fly-op.h, equal to the stored CSR/SCSR matrices to float
 * rounding), cone beam the matched Joseph pair (sysmat/ctr-cone-op.h).
 * forward(x) = A x and adjoint(y) = Aᵀ y on numpy arrays in the natural
 * layouts; float32 C-contiguous inputs are read in place. */
#include "ctr-py.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-cone-projector.h"
#include "plan/ctr-backend.h"

typedef struct {
  PyObject_HEAD
  CtrOperator *op;
  GMutex lock;  /* an operator's scratch memory serves one product at a time */
} CtrPyOperator;

static void
operator_dealloc (CtrPyOperator *self)
{
  g_clear_pointer (&self->op, ctr_operator_unref);
  g_mutex_clear (&self->lock);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

/* The ray model by the parameter table's "ray-model" (its names and
 * message); @name NULL: the reconstruction default. */
static gboolean
ray_model (const char *name, CtrRayModel *out)
{
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  GError *error = NULL;
  if (name != NULL && !ctr_param_parse (ctr_param_find_for ("ray-model", CTR_METHOD_SIRT), &o, name, &error))
    return ctr_py_raise (error) != NULL;
  *out = o.ray_model;
  return TRUE;
}

/* The products run on the CPU: "best" and "cpu" are that; a GPU backend
 * named explicitly is refused, with BackendUnavailable (the engine's reason)
 * where it cannot run here, else Unsupported.  @name NULL: "best". */
static gboolean
check_backend (const char *name)
{
  if (name == NULL || g_str_equal (name, "best") || g_str_equal (name, "cpu"))
    return TRUE;
  GError *error = NULL;
  if (ctr_backend_by_name (name, &error) == NULL)
    return ctr_py_raise (error) != NULL;
  error = g_error_new (CTR_ERROR, CTR_ERROR_UNSUPPORTED, "Operator: the products run on the CPU in this version "
                       "(backend 'best' or 'cpu'); backend '%s' serves reconstruct()", name);
  return ctr_py_raise (error) != NULL;
}

static CtrOperator *
make_operator (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, GError **error)
{
  if (g->beam != CTR_BEAM_CONE)
    return ctr_fly_op_new (g, grid, model, NULL, error);
  CtrConeProjector *cp = ctr_cone_projector_new (g, grid, error);
  return cp != NULL ? ctr_cone_op_new (cp, error) : NULL;
}

static int
operator_init (CtrPyOperator *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "scan", "size", "pixel_size", "ray_model", "backend", NULL };
  PyObject *scan = NULL, *size = NULL;
  double pixel_mm = 0;
  const char *model_name = NULL, *backend = NULL;
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|Odzz:Operator", kwlist, &scan, &size, &pixel_mm, &model_name,
                                    &backend)
      || !check_backend (backend))
    return -1;
  const CtrGeometry *g = ctr_py_geometry_of (scan);
  if (g == NULL)
    return -1;
  /* A Dataset's reference decides the default grid, as in reconstruct(). */
  const CtrVolume *ref = PyObject_TypeCheck (scan, &CtrPyDatasetType) ? ((CtrPyDataset *) scan)->dataset->reference
                                                                      : NULL;
  CtrGrid grid;
  CtrRayModel model = CTR_RAY_MODEL_AREA;
  if (!ray_model (model_name, &model) || !ctr_py_grid_choose (g, TRUE, size, pixel_mm, &ref, &grid))
    return -1;
  GError *error = NULL;
  CtrOperator *op;
  Py_BEGIN_ALLOW_THREADS
  op = make_operator (g, &grid, model, &error);
  Py_END_ALLOW_THREADS
  if (op == NULL)
    {
      ctr_py_raise (error);
      return -1;
    }
  g_clear_pointer (&self->op, ctr_operator_unref);
  self->op = op;
  return 0;
}

static PyObject *
operator_new (PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
  CtrPyOperator *self = (CtrPyOperator *) type->tp_alloc (type, 0);
  if (self != NULL)
    g_mutex_init (&self->lock);
  return (PyObject *) self;
}

static gboolean
ready (CtrPyOperator *self)
{
  if (self->op == NULL)
    PyErr_SetString (PyExc_RuntimeError, "Operator: not initialised");
  return self->op != NULL;
}

/* @obj as float32 C order of @shape (3-D, or 2-D when shape[0] is 1): the
 * array itself when it is one already. */
static PyArrayObject *
take_array (PyObject *obj, const npy_intp shape[3], const char *what)
{
  PyArrayObject *a = ctr_py_float32_array (obj, 2, 3, NPY_ARRAY_IN_ARRAY);
  if (a == NULL)
    return NULL;
  const int nd = PyArray_NDIM (a);
  const npy_intp *dims = PyArray_DIMS (a);
  const gboolean ok = nd == 3 ? dims[0] == shape[0] && dims[1] == shape[1] && dims[2] == shape[2]
                              : shape[0] == 1 && dims[0] == shape[1] && dims[1] == shape[2];
  if (!ok)
    {
      PyErr_Format (PyExc_ValueError, "%s: expected an array of shape (%zd, %zd, %zd)", what, (Py_ssize_t) shape[0],
                    (Py_ssize_t) shape[1], (Py_ssize_t) shape[2]);
      Py_DECREF (a);
      return NULL;
    }
  return a;
}

static void
image_shape (const CtrOperator *op, npy_intp s[3])
{
  s[0] = op->grid.nz, s[1] = op->grid.ny, s[2] = op->grid.nx;
}

static void
data_shape (const CtrOperator *op, npy_intp s[3])
{
  s[0] = op->geometry->n_views, s[1] = op->geometry->n_rows, s[2] = op->geometry->n_cols;
}

/* Native data @Y → natural [view][row][col] @out: the fan/parallel stack's
 * native order is [slice][view][col] with slice z the detector row
 * ctr_geometry_slice_row (sysmat/ctr-fly-op.h); cone beam's is natural. */
static void
data_to_natural (const CtrOperator *op, const float *Y, float *out)
{
  const CtrGeometry *g = op->geometry;
  if (g->beam == CTR_BEAM_CONE)
    {
      memcpy (out, Y, op->data_size * sizeof (float));
      return;
    }
  for (guint z = 0; z < op->n_slices; z++)
    {
      const guint row = ctr_geometry_slice_row (g, z);
      for (guint v = 0; v < g->n_views; v++)
        memcpy (out + ((gsize) v * g->n_rows + row) * g->n_cols, Y + ((gsize) z * g->n_views + v) * g->n_cols,
                g->n_cols * sizeof (float));
    }
}

/* One product: forward (image → data) or adjoint (data → image). */
static PyObject *
product (CtrPyOperator *self, PyObject *arg, gboolean forward)
{
  if (!ready (self))
    return NULL;
  CtrOperator *op = self->op;
  npy_intp in_shape[3], out_shape[3];
  (forward ? image_shape : data_shape) (op, in_shape);
  (forward ? data_shape : image_shape) (op, out_shape);
  PyArrayObject *in = take_array (arg, in_shape, forward ? "forward" : "adjoint");
  if (in == NULL)
    return NULL;
  PyArrayObject *out = (PyArrayObject *) PyArray_SimpleNew (3, out_shape, NPY_FLOAT32);
  float *a = g_try_new (float, op->image_size), *y = g_try_new0 (float, op->data_size);
  GError *error = NULL;
  gboolean ok = FALSE;
  if (out != NULL && (a == NULL || y == NULL))
    PyErr_NoMemory ();
  else if (out != NULL)
    {
      const float *x = PyArray_DATA (in);
      float *o = PyArray_DATA (out);
      Py_BEGIN_ALLOW_THREADS
      g_mutex_lock (&self->lock);
      if (forward)
        {
          op->klass->image_to_native (op, x, a);
          ok = op->klass->forward (op, CTR_SUBSET_ALL, a, y, &error);
          if (ok)
            data_to_natural (op, y, o);
        }
      else
        {
          op->klass->data_gather (op, x, y);
          ok = op->klass->adjoint (op, CTR_SUBSET_ALL, y, a, &error);
          if (ok && op->klass->reduce != NULL)
            op->klass->reduce (op, a);
          if (ok)
            op->klass->image_from_native (op, a, o);
        }
      g_mutex_unlock (&self->lock);
      Py_END_ALLOW_THREADS
      if (!ok)
        ctr_py_raise (error);
    }
  g_free (a);
  g_free (y);
  Py_DECREF (in);
  if (!ok)
    Py_CLEAR (out);
  return (PyObject *) out;
}

static PyObject *
operator_forward (CtrPyOperator *self, PyObject *x)
{
  return product (self, x, TRUE);
}

static PyObject *
operator_adjoint (CtrPyOperator *self, PyObject *y)
{
  return product (self, y, FALSE);
}

static PyObject *
get_shape (CtrPyOperator *self, void *closure)
{
  if (!ready (self))
    return NULL;
  const CtrGeometry *g = self->op->geometry;
  return Py_BuildValue ("((III)(III))", g->n_views, g->n_rows, g->n_cols, self->op->grid.nz, self->op->grid.ny,
                        self->op->grid.nx);
}

static PyObject *
get_grid (CtrPyOperator *self, void *closure)
{
  return ready (self) ? ctr_py_grid_dict (&self->op->grid) : NULL;
}

static PyObject *
get_description (CtrPyOperator *self, void *closure)
{
  if (!ready (self))
    return NULL;
  return PyUnicode_FromFormat ("%s%s%s", self->op->klass->name, self->op->description ? ": " : "",
                               self->op->description ? self->op->description : "");
}

static PyMethodDef operator_methods[] = {
  { "forward", (PyCFunction) operator_forward, METH_O,
    "forward(x) -> y = A x.  x: the image, float32-convertible [z][y][x] (C order; a 2-D [y][x] for one "
    "slice), in 1/mm; a C-contiguous float32 array is read in place.  y: new float32 [view][row][col] line "
    "integrals (x's unit × mm).  The GIL is released.  ValueError for a wrong shape." },
  { "adjoint", (PyCFunction) operator_adjoint, METH_O,
    "adjoint(y) -> x = Aᵀ y, the exact transpose of forward (⟨A x, y⟩ = ⟨x, Aᵀ y⟩ to float rounding).  "
    "y: [view][row][col]; x: new float32 [z][y][x].  The GIL is released." },
  { NULL }
};

static PyGetSetDef operator_getset[] = {
  { "shape", (getter) get_shape, NULL,
    "((n_views, n_rows, n_cols), (nz, ny, nx)): the data's and the image's shapes (A maps the second to the "
    "first).", NULL },
  { "grid", (getter) get_grid, NULL, "dict: the image grid (nx, ny, nz, dx_mm, ..., cx_mm, ...).", NULL },
  { "description", (getter) get_description, NULL, "str: the engine's operator (\"cpu-fly\", \"cpu-cone\").",
    NULL },
  { NULL }
};

PyTypeObject CtrPyOperatorType = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "ctrecon.Operator",
  .tp_basicsize = sizeof (CtrPyOperator),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,  /* the package adds as_linear_operator */
  .tp_doc = "Operator(scan, size=None, pixel_size=0, ray_model=None, backend=None)\n\n"
            "The system matrix A of a scan's geometry (scan: a Dataset or a Geometry) on the grid reconstruct() "
            "would use with the same size and pixel_size (a Dataset's reference's grid, else the field of view "
            "at the detector's resolution).  The operator keeps its own copy of the geometry.  "
            "Fan and parallel beam: the on-the-fly projector pair of ray_model ('area', default as the "
            "iterative methods; 'joseph', 'siddon'; the parameter table's names); cone beam: the matched "
            "Joseph pair.  The products run on the CPU: backend None, 'best' or 'cpu'; a GPU backend named "
            "raises BackendUnavailable where it cannot run (the engine's reason), else Unsupported; an "
            "unknown name InvalidArgument.  One product at a time per Operator (others wait).",
  .tp_new = operator_new,
  .tp_init = (initproc) operator_init,
  .tp_dealloc = (destructor) operator_dealloc,
  .tp_methods = operator_methods,
  .tp_getset = operator_getset,
};
