/* ctr-py-operator.c — ctrecon.Operator: the system matrix A of a dataset's
 * geometry on an image grid, as the engine's plan chooses it for an
 * iterative run (plan/ctr-recon-plan.h, ctr_recon_plan_get_operator): the
 * stored SCSR or CSR matrix or the rows on the fly (matrix, as the CLI's
 * --matrix), on the backend asked for or the CPU with a note; cone beam the
 * matched Joseph pair (sysmat/ctr-cone-op.h), a helical scan's on the CPU.
 * forward(x) = A x and adjoint(y) = Aᵀ y on numpy arrays in the natural
 * layouts (sysmat/ctr-operator-natural.h); float32 C-contiguous inputs are
 * read in place.  .notes are the plan's notes. */
#include "ctr-py.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-operator-natural.h"

typedef struct {
  PyObject_HEAD
  CtrOperator *op;
  PyObject *notes;      /* list of str */
  const char *backend;  /* the backend that runs, static */
  GMutex lock;  /* an operator's scratch memory serves one product at a time */
} CtrPyOperator;

static void
operator_dealloc (CtrPyOperator *self)
{
  g_clear_pointer (&self->op, ctr_operator_unref);
  Py_CLEAR (self->notes);
  g_mutex_clear (&self->lock);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

/* The options of @name (NULL: the default) by the parameter table's
 * @param ("ray-model", "matrix": its names and message, the CLI's). */
static gboolean
choice (CtrReconOptions *o, const char *param, const char *name)
{
  GError *error = NULL;
  if (name != NULL && !ctr_param_parse (ctr_param_find_for (param, o->method), o, name, &error))
    return ctr_py_raise (error) != NULL;
  return TRUE;
}

/* A helical scan's operator: the cone pair on the CPU over the grid (the
 * plan's helical route acts on rebinned slices or a slab, not on the
 * scan's rays), with the notes the plan would give it. */
static CtrOperator *
helical_operator (const CtrGeometry *g, const CtrGrid *grid, char ***notes, GError **error)
{
  CtrConeProjector *cp = ctr_cone_projector_new (g, grid, error);
  CtrOperator *op = cp != NULL ? ctr_cone_op_new (cp, error) : NULL;
  if (op != NULL)
    {
      char *lines[] = { op->description ? op->description : (char *) op->klass->name, "backend: cpu", NULL };
      *notes = g_strdupv (lines);
    }
  return op;
}

/* Makes the operator of @o on @g and @grid without the GIL: a plan's, or
 * a helical scan's own; fills @self or sets the exception. */
static gboolean
make_operator (CtrPyOperator *self, const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o)
{
  GError *error = NULL;
  CtrReconPlan *plan = NULL;
  CtrOperator *op = NULL;
  char **helical_notes = NULL;
  Py_BEGIN_ALLOW_THREADS
  if (ctr_helix_applies (g))
    op = helical_operator (g, grid, &helical_notes, &error);
  else if ((plan = ctr_recon_plan_new (g, grid, o, NULL, &error)) != NULL
           && (op = ctr_recon_plan_get_operator (plan)) == NULL)
    g_set_error (&error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "Operator: the engine's plan for this scan has no "
                 "operator on its rays");
  Py_END_ALLOW_THREADS
  PyObject *notes = NULL;
  if (op == NULL)
    ctr_py_raise (error);
  else if (plan != NULL)
    notes = ctr_py_plan_notes (plan);
  else
    {
      notes = PyList_New (0);
      for (char **n = helical_notes; notes != NULL && *n != NULL; n++)
        {
          PyObject *line = PyUnicode_FromString (*n);
          if (line == NULL || PyList_Append (notes, line) < 0)
            Py_CLEAR (notes);
          Py_XDECREF (line);
        }
    }
  g_strfreev (helical_notes);
  const gboolean ok = notes != NULL && (plan == NULL || ctr_py_warn_fallback (plan, o->backend, "Operator") == 0);
  if (ok)
    {
      g_clear_pointer (&self->op, ctr_operator_unref);
      Py_XSETREF (self->notes, notes);
      self->op = g_steal_pointer (&op);
      self->backend = plan != NULL ? ctr_recon_plan_get_backend (plan) : "cpu";
    }
  else
    Py_XDECREF (notes);
  g_clear_pointer (&op, ctr_operator_unref);
  g_clear_pointer (&plan, ctr_recon_plan_unref);
  return ok;
}

static int
operator_init (CtrPyOperator *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "scan", "size", "pixel_size", "ray_model", "matrix", "backend", "z_range", NULL };
  PyObject *scan = NULL, *size = NULL, *z_range = NULL;
  double pixel_mm = 0;
  const char *model_name = NULL, *matrix = NULL, *backend = NULL;
  /* The system matrix of an iterative run: SIRT's options (the area model
   * by default; every product is on all rays, so the subsets do not matter). */
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|Odzzz$O:Operator", kwlist, &scan, &size, &pixel_mm, &model_name,
                                    &matrix, &backend, &z_range)
      || !choice (&o, "ray-model", model_name) || !choice (&o, "matrix", matrix)
      || !ctr_py_backend_name (backend, &o.backend))
    return -1;
  const CtrGeometry *g = ctr_py_geometry_of (scan);
  if (g == NULL)
    return -1;
  /* A Dataset's reference decides the default grid, as in reconstruct();
   * a helical scan's slices are the CLI's default (the range 180LI
   * rebinning samples fully: `reconstruct --dry-run`'s grid) or z_range. */
  const CtrVolume *ref = PyObject_TypeCheck (scan, &CtrPyDatasetType) ? ((CtrPyDataset *) scan)->dataset->reference
                                                                      : NULL;
  CtrGrid grid;
  if (!ctr_py_grid_choose (g, NULL, size, pixel_mm, z_range, &ref, &grid))
    return -1;
  return make_operator (self, g, &grid, &o) ? 0 : -1;
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
  GError *error = NULL;
  gboolean ok = FALSE;
  if (out != NULL)
    {
      const float *x = PyArray_DATA (in);
      float *o = PyArray_DATA (out);
      Py_BEGIN_ALLOW_THREADS
      g_mutex_lock (&self->lock);
      ok = forward ? ctr_operator_forward_natural (op, x, o, &error) : ctr_operator_adjoint_natural (op, x, o, &error);
      g_mutex_unlock (&self->lock);
      Py_END_ALLOW_THREADS
      if (!ok)
        ctr_py_raise (error);
    }
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
get_notes (CtrPyOperator *self, void *closure)
{
  return ready (self) ? PyList_GetSlice (self->notes, 0, PY_SSIZE_T_MAX) : NULL;
}

static PyObject *
get_backend (CtrPyOperator *self, void *closure)
{
  return ready (self) ? PyUnicode_FromString (self->backend) : NULL;
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
  { "description", (getter) get_description, NULL, "str: the engine's operator and its matrix (\"cpu-scsr: SCSR "
    "(cuART §3): D4 …\", \"cpu-fly: …\", \"cpu-csr\", \"cpu-cone\", \"cuda-scsr\", …).", NULL },
  { "notes", (getter) get_notes, NULL, "list of str (a copy): what the engine's plan decided and why, the lines "
    "`ctrecon-cli reconstruct` prints: the matrix chosen (\"matrix: auto → …\" with both estimates), the memory "
    "estimate, the operator (symmetry found, views stored, matrix size; or no stored matrix), the backend "
    "(\"backend: cpu\") and every fall-back with its reason.", NULL },
  { "backend", (getter) get_backend, NULL, "str: the backend the products run on (\"cpu\", \"cuda\", …).",
    NULL },
  { NULL }
};

PyTypeObject CtrPyOperatorType = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "ctrecon.Operator",
  .tp_basicsize = sizeof (CtrPyOperator),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,  /* the package adds as_linear_operator */
  .tp_doc = "Operator(scan, size=None, pixel_size=0, ray_model=None, matrix=None, backend=None, *, "
            "z_range=None)\n\n"
            "The system matrix A of a scan's geometry (scan: a Dataset or a Geometry) on the grid reconstruct() "
            "would use with the same size and pixel_size (a Dataset's reference's grid, else the field of view "
            "at the detector's resolution).  A helical scan's slices are those `ctrecon-cli reconstruct` gives "
            "it by default (its --dry-run grid: table positions on multiples of the nominal slice width over "
            "the z range the scan samples fully, the conjugate rays counted as 180LI rebinning counts them; a "
            "Dataset's reference's slices when they are given), or z_range=(FIRST, LAST, STEP): slices at "
            "FIRST, FIRST+STEP, ... up to LAST, mm in the scan's table coordinate (the CLI's --z-range; the "
            "text \"FIRST:LAST:STEP\" is taken too).  A bad z_range raises InvalidArgument with the CLI's "
            "message, as does z_range on a scan that is not helical, and size=(NX, NY, NZ) on a helical scan "
            "(with or without z_range: its slices come from z_range); a helical scan "
            "that samples no z range fully raises InvalidGeometry without z_range.  A helical operator is the "
            "cone-beam pair on the scan's own rays (no rebinning; the CPU).  "
            "The operator keeps its own copy of the geometry.  "
            "The operator is the one the engine's plan gives an iterative run (SIRT's options) with the "
            "same ray_model, matrix and backend, so A is the matrix `ctrecon-cli reconstruct` iterates on.  "
            "ray_model: 'area' (default, as the iterative methods), 'joseph', 'siddon' (the parameter "
            "table's names).  matrix (fan and parallel beam; the CLI's --matrix): 'auto' (default: stored "
            "when the run fits in memory, else on the fly), 'scsr' (the symmetry-compressed matrix, cuART "
            "§3), 'csr', 'none' (rows on the fly at every product, least memory); stored or not, the "
            "products agree to float rounding.  Cone beam: the matched Joseph pair (matrix unused).  "
            "backend: 'best' (default), 'cpu', 'cuda', 'cusparse'; one that cannot run here, or has no "
            "operator for the scan, leaves the products to the CPU with a note in .notes and a "
            "RuntimeWarning, as the CLI does.  Unknown names raise InvalidArgument (a ValueError) with "
            "the CLI's message.  .notes: the plan's notes (matrix, symmetry, memory, backend, "
            "fall-backs).  One product at a time per Operator (others wait).",
  .tp_new = operator_new,
  .tp_init = (initproc) operator_init,
  .tp_dealloc = (destructor) operator_dealloc,
  .tp_methods = operator_methods,
  .tp_getset = operator_getset,
};
