/* ctr-py-reference.c — the reference image of a Dataset made from arrays:
 * the array on the grid reconstruct(size=NX) would use for the scan (so
 * that the default reconstruction of the dataset lands on it), with what
 * the caller states of that grid (the keys of Dataset.reference_grid). */
#include <math.h>

#include "ctr-py.h"

/* Applies @dict's keys to @grid; the sizes must be the array's. */
static gboolean
apply_grid_dict (PyObject *dict, CtrGrid *grid)
{
  if (!PyDict_Check (dict))
    {
      PyErr_SetString (PyExc_TypeError, "Dataset: reference_grid must be a dict (the keys of reference_grid)");
      return FALSE;
    }
  const char *const sizes[] = { "nx", "ny", "nz" };
  const guint have[] = { grid->nx, grid->ny, grid->nz };
  const char *const lengths[] = { "dx_mm", "dy_mm", "dz_mm", "cx_mm", "cy_mm", "cz_mm" };
  double *const to[] = { &grid->dx, &grid->dy, &grid->dz, &grid->cx, &grid->cy, &grid->cz };
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next (dict, &pos, &key, &value))
    {
      const char *k = PyUnicode_Check (key) ? PyUnicode_AsUTF8 (key) : NULL;
      if (k == NULL)
        {
          PyErr_Clear ();
          PyErr_SetString (ctr_py_invalid_argument (), "Dataset: reference_grid's keys must be strings");
          return FALSE;
        }
      gboolean known = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (sizes) && !known; i++)
        if (g_str_equal (k, sizes[i]))
          {
            known = TRUE;
            const long n = PyLong_AsLong (value);
            if (PyErr_Occurred () || n != (long) have[i])
              {
                PyErr_Clear ();
                PyErr_Format (ctr_py_invalid_argument (), "Dataset: reference_grid's %s must be the reference "
                              "array's (%u)", k, have[i]);
                return FALSE;
              }
          }
      for (guint i = 0; i < G_N_ELEMENTS (lengths) && !known; i++)
        if (g_str_equal (k, lengths[i]))
          {
            known = TRUE;
            const double x = PyFloat_AsDouble (value);
            if (PyErr_Occurred () || !isfinite (x) || (i < 3 && !(x > 0)))
              {
                PyErr_Clear ();
                PyErr_Format (ctr_py_invalid_argument (), "Dataset: reference_grid's %s must be a %s number (mm)",
                              k, i < 3 ? "positive" : "finite");
                return FALSE;
              }
            *to[i] = x;
          }
      if (!known)
        {
          PyErr_Format (ctr_py_invalid_argument (), "Dataset: reference_grid has no key '%s' (nx, ny, nz, dx_mm, "
                        "dy_mm, dz_mm, cx_mm, cy_mm, cz_mm)", k);
          return FALSE;
        }
    }
  return TRUE;
}

CtrVolume *
ctr_py_reference_from (const CtrGeometry *g, PyObject *array, PyObject *grid_dict)
{
  CtrVolume *v = ctr_py_volume_from_array (array, 1.0, "Dataset", "reference");
  if (v == NULL)
    return NULL;
  /* The default grid at the array's width: pixel, z spacing, centre. */
  GError *error = NULL;
  CtrGridRequest request = { .size = v->grid.nx };
  CtrGrid scan;
  if (!ctr_grid_for_scan (g, NULL, &request, &scan, &error))
    {
      ctr_volume_unref (v);
      return (CtrVolume *) ctr_py_raise (error);
    }
  v->grid.dx = scan.dx, v->grid.dy = scan.dy, v->grid.dz = scan.dz;
  v->grid.cx = scan.cx, v->grid.cy = scan.cy, v->grid.cz = scan.cz;
  if (grid_dict != NULL && grid_dict != Py_None && !apply_grid_dict (grid_dict, &v->grid))
    {
      ctr_volume_unref (v);
      return NULL;
    }
  if (!ctr_grid_validate (&v->grid, &error))
    {
      ctr_volume_unref (v);
      return (CtrVolume *) ctr_py_raise (error);
    }
  ctr_volume_set_unit (v, "1/mm");
  return v;
}
