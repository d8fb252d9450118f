/* ctr-py-grid.c — the image grid of reconstruct() and Operator(): the
 * rule every entry point shares (ctr_grid_for_scan, data/ctr-grid.h) with
 * the CLI's --size and --pixel-size on top. */
#include <math.h>

#include "ctr-py.h"

/* One edge of --size: a whole number in 1 .. 65536 (the CLI's range). */
static gboolean
size_edge (PyObject *x, guint *out)
{
  const long v = PyIndex_Check (x) ? PyLong_AsLong (x) : -1;
  if (PyErr_Occurred ())
    PyErr_Clear ();
  if (v < 1 || v > 65536)
    {
      PyErr_SetString (ctr_py_invalid_argument (),
                       "size takes N or (NX, NY, NZ): whole numbers from 1 to 65536");
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

/* @size: None, N (N × N pixels) or (NX, NY, NZ); *@three when the latter. */
static gboolean
parse_size (PyObject *size, guint n[3], gboolean *three)
{
  *three = FALSE;
  if (size == NULL || size == Py_None)
    return TRUE;
  if (PyIndex_Check (size) || !PySequence_Check (size) || PySequence_Size (size) != 3)
    return size_edge (size, &n[0]);
  *three = TRUE;
  for (Py_ssize_t i = 0; i < 3; i++)
    {
      PyObject *x = PySequence_GetItem (size, i);
      const gboolean ok = x != NULL && size_edge (x, &n[i]);
      Py_XDECREF (x);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* The grid: @size and @pixel_mm (0: default) through ctr_grid_for_scan, the
 * rule the CLI and the window share, then NX × NY × NZ as the CLI's --size;
 * *@ref loses a reference that does not hold a helical grid's slices (as the
 * CLI's). */
gboolean
ctr_py_grid_choose (const CtrGeometry *g, gboolean direct_rays_only, PyObject *size, double pixel_mm,
                    const CtrVolume **ref, CtrGrid *grid)
{
  guint n[3] = { 0, 0, 0 };
  gboolean three;
  if (!parse_size (size, n, &three))
    return FALSE;
  if (!(pixel_mm >= 0) || !isfinite (pixel_mm))
    {
      PyErr_SetString (ctr_py_invalid_argument (), "pixel_size must be positive (mm)");
      return FALSE;
    }
  GError *error = NULL;
  CtrGridRequest request = { .size = n[0], .pixel_mm = pixel_mm, .direct_rays_only = direct_rays_only };
  if (!ctr_grid_for_scan (g, *ref != NULL ? &(*ref)->grid : NULL, &request, grid, &error))
    {
      ctr_py_raise (error);
      return FALSE;
    }
  if (ctr_helix_applies (g) && *ref != NULL && !ctr_reference_covers (*ref, grid, NULL))
    *ref = NULL;
  if (three)
    {
      grid->ny = n[1];
      grid->nz = n[2];
    }
  return TRUE;
}

