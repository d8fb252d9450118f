/* ctr-py-array.c — numpy arrays over core's buffers, without copies: the
 * array's base is a capsule holding a reference on the CtrVolume or
 * CtrProjections, dropped when the last view of it goes. */
#include <math.h>
#include <string.h>

#include "ctr-py.h"

static void
volume_capsule_free (PyObject *capsule)
{
  ctr_volume_unref (PyCapsule_GetPointer (capsule, "ctrecon.volume"));
}

static void
projections_capsule_free (PyObject *capsule)
{
  ctr_projections_unref (PyCapsule_GetPointer (capsule, "ctrecon.projections"));
}

/* A C-contiguous float32 array of @nd dimensions @dims over @data, owned by
 * @capsule (stolen). */
static PyObject *
wrap (float *data, int nd, npy_intp *dims, PyObject *capsule)
{
  if (capsule == NULL)
    return NULL;
  PyObject *a = PyArray_SimpleNewFromData (nd, dims, NPY_FLOAT32, data);
  if (a == NULL)
    {
      Py_DECREF (capsule);
      return NULL;
    }
  if (PyArray_SetBaseObject ((PyArrayObject *) a, capsule) < 0)  /* steals capsule, also on failure */
    {
      Py_DECREF (a);
      return NULL;
    }
  return a;
}

PyObject *
ctr_py_array_from_volume (CtrVolume *v)
{
  npy_intp dims[3] = { v->grid.nz, v->grid.ny, v->grid.nx };
  ctr_volume_ref (v);
  PyObject *capsule = PyCapsule_New (v, "ctrecon.volume", volume_capsule_free);
  if (capsule == NULL)
    ctr_volume_unref (v);
  return wrap (v->data, 3, dims, capsule);
}

PyObject *
ctr_py_array_from_projections (CtrProjections *p)
{
  npy_intp dims[3] = { p->n_views, p->n_rows, p->n_cols };
  ctr_projections_ref (p);
  PyObject *capsule = PyCapsule_New (p, "ctrecon.projections", projections_capsule_free);
  if (capsule == NULL)
    ctr_projections_unref (p);
  return wrap (p->data, 3, dims, capsule);
}

PyObject *
ctr_py_array_from_doubles (const double *x, npy_intp n)
{
  PyObject *a = PyArray_SimpleNew (1, &n, NPY_FLOAT64);
  if (a != NULL && n > 0)
    memcpy (PyArray_DATA ((PyArrayObject *) a), x, n * sizeof (double));
  return a;
}

PyObject *
ctr_py_grid_dict (const CtrGrid *g)
{
  return Py_BuildValue ("{sIsIsIsdsdsdsdsdsd}", "nx", g->nx, "ny", g->ny, "nz", g->nz, "dx_mm", g->dx, "dy_mm", g->dy,
                        "dz_mm", g->dz, "cx_mm", g->cx, "cy_mm", g->cy, "cz_mm", g->cz);
}

CtrVolume *
ctr_py_volume_from_array (PyObject *obj, double pixel_mm, const char *fn, const char *what)
{
  PyArrayObject *a = ctr_py_float32_array (obj, 2, 3, NPY_ARRAY_C_CONTIGUOUS);
  if (a == NULL)
    return NULL;
  const int nd = PyArray_NDIM (a);
  const npy_intp *dims = PyArray_DIMS (a);
  CtrGrid grid = { (guint) dims[nd - 1], (guint) dims[nd - 2], nd == 3 ? (guint) dims[0] : 1,
                   pixel_mm, pixel_mm, pixel_mm, 0, 0, 0 };
  GError *error = NULL;
  CtrVolume *v = ctr_volume_new (&grid, &error);
  if (v == NULL)
    {
      Py_DECREF (a);
      return (CtrVolume *) ctr_py_raise (error);
    }
  memcpy (v->data, PyArray_DATA (a), ctr_grid_size (&grid) * sizeof (float));
  Py_DECREF (a);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    if (!isfinite (v->data[i]))
      {
        ctr_volume_unref (v);
        PyErr_Format (ctr_py_invalid_argument (), "%s: the %s contains NaN or infinite values", fn, what);
        return NULL;
      }
  return v;
}

PyArrayObject *
ctr_py_float32_array (PyObject *obj, int min_nd, int max_nd, int requirements)
{
  PyObject *src = obj;
  /* DLPack (PyTorch, CuPy, JAX ... on the CPU): numpy.from_dlpack views the
   * producer's memory without a copy; a device the CPU cannot read is
   * refused there with the producer's message. */
  if (!PyArray_Check (obj) && PyObject_HasAttrString (obj, "__dlpack__"))
    {
      PyObject *np = PyImport_ImportModule ("numpy");
      src = np != NULL ? PyObject_CallMethod (np, "from_dlpack", "O", obj) : NULL;
      Py_XDECREF (np);
      if (src == NULL)
        return NULL;
    }
  else
    Py_INCREF (src);
  PyArrayObject *a = (PyArrayObject *) PyArray_FROMANY (src, NPY_FLOAT32, min_nd, max_nd,
                                                        requirements | NPY_ARRAY_FORCECAST);
  Py_DECREF (src);
  return a;
}
