/* ctr-py-grid.c — the image grid of reconstruct() and Operator(): the
 * rule every entry point shares (ctr_grid_for_scan, data/ctr-grid.h) with
 * the CLI's --size, --pixel-size and --z-range on top. */
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

/* The text of @z_range for ctr_grid_parse_z_range: a str as it is, any
 * other sequence its items' str() joined by ':' (so (10, 20.5, 1) is
 * "10:20.5:1" and a bad item shows in the CLI's message).  NULL with an
 * exception. */
static char *
z_range_text (PyObject *z_range)
{
  if (PyUnicode_Check (z_range))
    {
      const char *s = PyUnicode_AsUTF8 (z_range);
      return s != NULL ? g_strdup (s) : NULL;
    }
  if (!PySequence_Check (z_range))
    {
      PyErr_SetString (ctr_py_invalid_argument (), "z_range takes (FIRST, LAST, STEP) in mm or the CLI's "
                                                   "\"FIRST:LAST:STEP\" (or None)");
      return NULL;
    }
  PyObject *colon = PyUnicode_FromString (":");
  PyObject *items = PySequence_List (z_range);
  PyObject *strs = items != NULL ? PyList_New (0) : NULL;
  for (Py_ssize_t i = 0; strs != NULL && i < PyList_GET_SIZE (items); i++)
    {
      PyObject *s = PyObject_Str (PyList_GET_ITEM (items, i));
      if (s == NULL || PyList_Append (strs, s) < 0)
        Py_CLEAR (strs);
      Py_XDECREF (s);
    }
  PyObject *joined = strs != NULL && colon != NULL ? PyUnicode_Join (colon, strs) : NULL;
  const char *s = joined != NULL ? PyUnicode_AsUTF8 (joined) : NULL;
  char *text = s != NULL ? g_strdup (s) : NULL;
  Py_XDECREF (joined);
  Py_XDECREF (strs);
  Py_XDECREF (items);
  Py_XDECREF (colon);
  return text;
}

/* @z_range (not None) into @request. */
static gboolean
z_range_request (PyObject *z_range, CtrGridRequest *request)
{
  g_autofree char *text = z_range_text (z_range);
  if (text == NULL)
    return FALSE;
  GError *error = NULL;
  double r[3];
  if (!ctr_grid_parse_z_range (text, r, &error))
    return ctr_py_raise (error) != NULL;
  request->z_range = TRUE;
  request->z_first = r[0], request->z_last = r[1], request->z_step = r[2];
  return TRUE;
}

/* The grid: @size and @pixel_mm (0: default), and @z_range, through
 * ctr_grid_for_scan, the rule the CLI and the window share, then NX × NY ×
 * NZ as the CLI's --size; *@ref loses a reference that does not hold a
 * helical grid's slices (as the CLI's). */
gboolean
ctr_py_grid_choose (const CtrGeometry *g, const CtrRebinMode *rebin, PyObject *size, double pixel_mm,
                    PyObject *z_range, const CtrVolume **ref, CtrGrid *grid)
{
  guint n[3] = { 0, 0, 0 };
  gboolean three;
  if (z_range == Py_None)
    z_range = NULL;
  if (!parse_size (size, n, &three))
    return FALSE;
  GError *error = NULL;
  if (!ctr_grid_check_options (g, z_range != NULL, rebin != NULL, three, &error))
    return ctr_py_raise (error) != NULL;
  if (!(pixel_mm >= 0) || !isfinite (pixel_mm))
    {
      PyErr_SetString (ctr_py_invalid_argument (), "pixel_size must be positive (mm)");
      return FALSE;
    }
  CtrGridRequest request = { .size = n[0], .pixel_mm = pixel_mm,
                             .direct_rays_only = rebin != NULL && *rebin != CTR_REBIN_180LI };
  if (z_range != NULL && !z_range_request (z_range, &request))
    return FALSE;
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
