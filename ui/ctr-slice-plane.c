/* ctr-slice-plane.c — the plane a slice view shows and its grey mapping.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Row 0 of a stored slice is +y and is drawn at the top (FORMAT.md), so the
 * axial plane needs no flip and no copy; coronal and sagittal planes are
 * copied with the highest z at the top.
 */
#define G_LOG_DOMAIN "ctr-slice-plane"

#include <math.h>
#include <string.h>

#include "ctr-slice-plane.h"
#include "base/ctr-memory.h"

guint
ctr_slice_plane_count (const CtrVolume *v, CtrSliceOrientation o)
{
  if (v == NULL)
    return 0;
  if (v->grid.nz == 1 || o == CTR_SLICE_AXIAL)
    return v->grid.nz;
  return o == CTR_SLICE_CORONAL ? v->grid.ny : v->grid.nx;
}

void
ctr_slice_plane_clear (CtrSlicePlane *plane)
{
  g_clear_pointer (&plane->copy, g_free);
  plane->data = NULL;
}

/*   axial    — slice z of the volume as stored (no copy);
 *   coronal  — y fixed: x right, z up (row 0 = highest z);
 *   sagittal — x fixed: y right, z up. */
/* The copy of @plane's grid (set), held as its data; NULL with
 * CTR_ERROR_OUT_OF_MEMORY. */
static float *
try_plane (CtrSlicePlane *plane, GError **error)
{
  g_autofree char *what = g_strdup_printf ("the shown plane of %u × %u pixels", plane->grid.nx, plane->grid.ny);
  float *p = ctr_memory_try_new (ctr_grid_slice_size (&plane->grid), sizeof (float), FALSE, what, error);
  plane->data = plane->copy = p;
  return p;
}

gboolean
ctr_slice_plane_extract (CtrSlicePlane       *plane,
                         const CtrVolume     *v,
                         CtrSliceOrientation  o,
                         guint                index,
                         GError             **error)
{
  const CtrGrid *g = &v->grid;

  ctr_slice_plane_clear (plane);
  if (o == CTR_SLICE_AXIAL || g->nz == 1)
    {
      plane->grid = *g;
      plane->grid.nz = 1;
      plane->index = MIN (index, g->nz - 1);
      plane->data = ctr_volume_slice (v, plane->index);
      return TRUE;
    }
  if (o == CTR_SLICE_CORONAL)
    {
      guint y = MIN (index, g->ny - 1);
      plane->index = y;
      plane->grid = (CtrGrid) { .nx = g->nx, .ny = g->nz, .nz = 1, .dx = g->dx, .dy = g->dz, .dz = 1,
                                .cx = g->cx, .cy = g->cz };
      float *p = try_plane (plane, error);
      if (p == NULL)
        return FALSE;
      for (guint r = 0; r < g->nz; r++)
        memcpy (p + (gsize) r * g->nx, ctr_volume_slice (v, g->nz - 1 - r) + (gsize) y * g->nx,
                g->nx * sizeof (float));
    }
  else
    {
      guint x = MIN (index, g->nx - 1);
      plane->index = x;
      plane->grid = (CtrGrid) { .nx = g->ny, .ny = g->nz, .nz = 1, .dx = g->dy, .dy = g->dz, .dz = 1,
                                .cx = g->cy, .cy = g->cz };
      float *p = try_plane (plane, error);
      if (p == NULL)
        return FALSE;
      for (guint r = 0; r < g->nz; r++)
        {
          const float *src = ctr_volume_slice (v, g->nz - 1 - r);
          /* horizontal axis: y growing to the right (row ny-1 .. 0 of the slice) */
          for (guint c = 0; c < g->ny; c++)
            p[(gsize) r * g->ny + c] = src[(gsize) (g->ny - 1 - c) * g->nx + x];
        }
    }
  return TRUE;
}

double
ctr_slice_plane_position (const CtrGrid *g, CtrSliceOrientation o, guint index)
{
  return o == CTR_SLICE_CORONAL ? ctr_grid_y (g, index) : o == CTR_SLICE_SAGITTAL ? ctr_grid_x (g, index)
                                                                                  : ctr_grid_z (g, index);
}

guint
ctr_slice_plane_index_at (const CtrGrid *g, CtrSliceOrientation o, double mm)
{
  double f;
  guint n;

  /* the inverses of ctr_grid_x/y/z (rows run towards −y) */
  if (o == CTR_SLICE_CORONAL)
    f = (g->ny - 1) * 0.5 - (mm - g->cy) / g->dy, n = g->ny;
  else if (o == CTR_SLICE_SAGITTAL)
    f = (mm - g->cx) / g->dx + (g->nx - 1) * 0.5, n = g->nx;
  else
    f = (g->nz > 1 ? (mm - g->cz) / g->dz : 0) + (g->nz - 1) * 0.5, n = g->nz;
  if (!(f > 0))
    return 0;
  return MIN ((guint) floor (f + 0.5), n - 1);
}

/* The automatic window: the 0.1st to 99.9th percentile of the finite values,
 * i.e. min/max made robust against a handful of hot pixels (reconstruction
 * corners, dead detector rays) that would otherwise grey out the whole slice.
 * Found with a histogram (two passes, O(n), no sort): the exact min and max,
 * then 16384 bins between them; the percentiles are bin edges, i.e. within
 * 1/16384 of the range of the exact values — invisible on an 8-bit display —
 * and the main thread no longer sorts every slice it shows. */
#define AUTO_WINDOW_TAIL 0.001
#define AUTO_WINDOW_BINS 16384
/* A volume's window is found from about this many of its values, or one
 * slice's when a slice holds more: whole rows (x), every k-th row through
 * the volume, so that memory is read in runs — about a millisecond on the
 * main thread whatever the volume's size; a 2-D image is read whole. */
#define AUTO_WINDOW_SAMPLES ((gsize) 1 << 18)

/* Visits the values of rows 0, step, 2·step, … (below n_rows) of
 * @row_len values each. */
#define FOR_SAMPLES(i)                                                    \
  for (gsize r_ = 0; r_ < n_rows; r_ += step)                             \
    for (gsize i = r_ * row_len, e_ = i + row_len; i < e_; i++)

/* The percentiles of the sampled rows of s. */
static void
robust_range (const float *s, gsize row_len, gsize n_rows, gsize step, double *lo, double *hi)
{
  double mn = INFINITY, mx = -INFINITY;
  gsize m = 0;

  FOR_SAMPLES (i)
    if (isfinite (s[i]))
      {
        mn = MIN (mn, s[i]);
        mx = MAX (mx, s[i]);
        m++;
      }
  if (m == 0)
    {
      *lo = *hi = 0.0;
      return;
    }
  if (!(mx > mn))
    {
      *lo = mn;
      *hi = mx;
      return;
    }

  g_autofree guint32 *hist = g_new0 (guint32, AUTO_WINDOW_BINS);
  double scale = AUTO_WINDOW_BINS / (mx - mn);
  FOR_SAMPLES (i)
    if (isfinite (s[i]))
      hist[MIN ((gsize) ((s[i] - mn) * scale), AUTO_WINDOW_BINS - 1)]++;

  gsize lo_count = (gsize) (AUTO_WINDOW_TAIL * (m - 1)), hi_count = (gsize) ((1.0 - AUTO_WINDOW_TAIL) * (m - 1) + 0.5);
  gsize acc = 0;
  guint b_lo = 0, b_hi = AUTO_WINDOW_BINS - 1;
  gboolean have_lo = FALSE;
  for (guint b = 0; b < AUTO_WINDOW_BINS; b++)
    {
      acc += hist[b];
      if (!have_lo && acc > lo_count)
        {
          b_lo = b;
          have_lo = TRUE;
        }
      if (acc > hi_count)
        {
          b_hi = b;
          break;
        }
    }
  *lo = mn + b_lo / scale;
  *hi = mn + (b_hi + 1) / scale;
}

void
ctr_slice_plane_robust_range (const CtrSlicePlane *plane, double *lo, double *hi)
{
  robust_range (plane->data, ctr_grid_slice_size (&plane->grid), 1, 1, lo, hi);
}

void
ctr_slice_plane_volume_range (const CtrVolume *v, double *lo, double *hi)
{
  gsize n = ctr_grid_size (&v->grid);
  gsize samples = MAX (AUTO_WINDOW_SAMPLES, ctr_grid_slice_size (&v->grid));

  robust_range (v->data, v->grid.nx, (gsize) v->grid.ny * v->grid.nz, MAX ((n + samples - 1) / samples, 1), lo,
                hi);
}

GdkTexture *
ctr_slice_plane_texture (const CtrSlicePlane *plane, double lo, double hi, GError **error)
{
  const CtrGrid *g = &plane->grid;
  gsize stride = (gsize) g->nx * 3;
  if (plane->data == NULL)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "the shown plane could not be made");
      return NULL;
    }
  g_autofree char *what = g_strdup_printf ("the picture of %u × %u pixels", g->nx, g->ny);
  guint8 *pixels = ctr_memory_try_new (stride, g->ny, FALSE, what, error);
  if (pixels == NULL)
    return NULL;
  double scale = 255.0 / (hi - lo);

  for (guint y = 0; y < g->ny; y++)
    {
      const float *row = plane->data + (gsize) y * g->nx;
      guint8 *out = pixels + (gsize) y * stride;

      for (guint x = 0; x < g->nx; x++)
        {
          double t = (row[x] - lo) * scale;
          guint8 grey;

          if (!(t > 0.0))          /* also catches NaN */
            grey = 0;
          else if (t >= 255.0)
            grey = 255;
          else
            grey = (guint8) (t + 0.5);
          out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = grey;
        }
    }

  g_autoptr(GBytes) bytes = g_bytes_new_take (pixels, stride * g->ny);
  return gdk_memory_texture_new (g->nx, g->ny, GDK_MEMORY_R8G8B8, bytes, stride);
}

double
ctr_slice_view_to_hu (double mu)
{
  return ctr_hu_from_mu (mu, CTR_SLICE_VIEW_MU_WATER);
}
