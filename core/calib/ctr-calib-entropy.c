/* ctr-calib-entropy.c — the cross-check: FBP images of a few slices for
 * candidate centres around the estimate, the one whose image has the least
 * histogram entropy (ctr-calib.h). */
#include "calib/ctr-calib-private.h"
#include "calib/ctr-calib-curve.h"
#include "analytic/ctr-fbp.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ENTROPY_SLICES 4
#define ENTROPY_BINS 256
#define ENTROPY_STEP 0.25    /* columns between candidates */
#define ENTROPY_MAX_PIXELS 256
#define ENTROPY_MAX_COLS 512
#define ENTROPY_MAX_VIEWS 720

typedef struct {
  CtrGeometry *g;          /* one row per slice used; fan for a cone beam */
  CtrProjections *p;
  CtrGrid grid;
  double lo[ENTROPY_SLICES], hi[ENTROPY_SLICES];   /* histogram range per slice */
  double radius_px;        /* the disc of pixels counted */
  guint fb;                /* detector columns averaged into one */
} Entropy;

static int
cmp_var (const void *a, const void *b, gpointer data)
{
  const double *v = data;
  const double x = v[*(const guint *) a], y = v[*(const guint *) b];
  return (x < y) - (x > y);   /* largest first */
}

/* The rows with the most structure (the largest variance of their
 * sinogram), up to ENTROPY_SLICES, into @rows (their count @n); a cone
 * beam's central row.  FALSE with CTR_ERROR_OUT_OF_MEMORY when the rows'
 * variances and order cannot be allocated. */
static gboolean
pick_rows (const CtrGeometry *g, const CtrProjections *p, double *rows, guint *n, GError **error)
{
  if (g->beam == CTR_BEAM_CONE)
    {
      rows[0] = ctr_calib_central_row (g);
      *n = 1;
      return TRUE;
    }
  g_autofree char *what = g_strdup_printf ("the variances of %u detector rows", p->n_rows);
  g_autofree double *var = ctr_memory_try_new (p->n_rows, sizeof (double), TRUE, what, error);
  g_autofree guint *idx = var == NULL ? NULL : ctr_memory_try_new (p->n_rows, sizeof (guint), FALSE, what, error);
  if (idx == NULL)
    return FALSE;
  for (guint r = 0; r < p->n_rows; r++)
    {
      double s = 0, s2 = 0;
      for (guint k = 0; k < p->n_views; k++)
        for (guint j = 0; j < p->n_cols; j++)
          {
            const double v = ctr_projections_view (p, k)[(gsize) r * p->n_cols + j];
            s += v;
            s2 += v * v;
          }
      const double n = (double) p->n_views * p->n_cols;
      var[r] = s2 / n - (s / n) * (s / n);
      idx[r] = r;
    }
  g_autofree char *order = g_strdup_printf ("the order of %u detector rows by variance", p->n_rows);
  if (!ctr_sort_stable (idx, p->n_rows, sizeof (guint), cmp_var, var, order, error))
    return FALSE;
  *n = MIN (ENTROPY_SLICES, p->n_rows);
  for (guint i = 0; i < *n; i++)
    rows[i] = idx[i];
  return TRUE;
}

/* Puts u = 0 at full-resolution column @c of the binned detector. */
static void
set_centre (Entropy *w, double c)
{
  const double cb = (c - (w->fb - 1) / 2.0) / w->fb;
  w->g->offset_u = ((w->g->n_cols - 1) / 2.0 - cb) * w->g->pitch_u;
}

static gboolean
entropy_init (Entropy *w, const CtrGeometry *g, const CtrProjections *p, double centre, GError **error)
{
  double rows[ENTROPY_SLICES];
  guint nr = 0;
  if (!pick_rows (g, p, rows, &nr, error))
    return FALSE;
  /* at most ENTROPY_MAX_COLS columns (averaged in groups of fb) and
   * ENTROPY_MAX_VIEWS views (every fv-th): a check, not the answer */
  const guint fb = (g->n_cols + ENTROPY_MAX_COLS - 1) / ENTROPY_MAX_COLS;
  const guint fv = (g->n_views + ENTROPY_MAX_VIEWS - 1) / ENTROPY_MAX_VIEWS;
  const guint nb = g->n_cols / fb, nv = g->n_views / fv;
  w->fb = fb;
  if ((w->g = ctr_geometry_try_copy (g, error)) == NULL)
    return FALSE;
  if (w->g->beam == CTR_BEAM_CONE)
    w->g->beam = CTR_BEAM_FAN;   /* the central row, in the plane of the orbit */
  g_clear_pointer (&w->g->source_z_mm, g_free);
  g_clear_pointer (&w->g->focal_shift, g_free);
  w->g->n_rows = nr;
  w->g->offset_v_mm = 0;
  w->g->rows_increase_with_v = TRUE;
  w->g->n_cols = nb;
  w->g->pitch_u = g->pitch_u * fb;
  w->g->n_views = nv;
  for (guint k = 0; k < nv; k++)
    w->g->angles[k] = g->angles[k * fv];
  w->p = ctr_projections_new (nv, nr, nb, CTR_PROJ_LINE_INTEGRALS, error);
  if (w->p == NULL)
    return FALSE;
  g_autofree float *sino = ctr_memory_try_new ((gsize) g->n_views * g->n_cols, sizeof (float), FALSE,
                                               "the sinogram of one detector row", error);
  if (sino == NULL)
    return FALSE;
  for (guint r = 0; r < nr; r++)
    {
      ctr_calib_row_sinogram (p, rows[r], sino);
      for (guint k = 0; k < nv; k++)
        {
          const float *src = sino + (gsize) k * fv * g->n_cols;
          float *dst = ctr_projections_view (w->p, k) + (gsize) r * nb;
          for (guint j = 0; j < nb; j++)
            {
              double sum = 0;
              for (guint i = 0; i < fb; i++)
                sum += src[j * fb + i];
              dst[j] = (float) (sum / fb);
            }
        }
    }
  set_centre (w, centre);
  const double radius = ctr_geometry_fov_radius_mm (w->g);
  const double pitch = ctr_geometry_pitch_at_iso_mm (w->g);
  const guint n = (guint) MIN (ENTROPY_MAX_PIXELS, MAX (16.0, ceil (2 * radius / pitch)));
  w->grid = ctr_grid_square (n, 2 * radius / n, nr, 1.0);
  w->radius_px = 0.9 * n / 2.0;
  return TRUE;
}

static void
entropy_clear (Entropy *w)
{
  if (w->g != NULL)
    ctr_geometry_free (w->g);
  if (w->p != NULL)
    ctr_projections_unref (w->p);
}

/* The histogram entropy (nats) of the disc of slice @z of @img between @lo
 * and @hi (values beyond fall into the end bins). */
static double
slice_entropy (const Entropy *w, const CtrVolume *img, guint z, double lo, double hi)
{
  double hist[ENTROPY_BINS] = { 0 }, total = 0;
  const guint n = w->grid.nx;
  const float *s = img->data + (gsize) z * n * n;
  const double mid = (n - 1) / 2.0;
  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      if (hypot (x - mid, y - mid) <= w->radius_px)
        {
          const double t = (s[(gsize) y * n + x] - lo) / (hi - lo);
          hist[CLAMP ((int) floor (t * ENTROPY_BINS), 0, ENTROPY_BINS - 1)] += 1;
          total += 1;
        }
  double e = 0;
  for (guint b = 0; b < ENTROPY_BINS; b++)
    if (hist[b] > 0)
      e -= hist[b] / total * log (hist[b] / total);
  return e;
}

static int
cmp_float_asc (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* The histogram range of each slice: its 0.5 % and 99.5 % quantiles in
 * the disc, widened by a quarter of their distance on each side.  FALSE
 * with CTR_ERROR_OUT_OF_MEMORY when the slice's copy does not fit. */
static gboolean
set_ranges (Entropy *w, const CtrVolume *img, GError **error)
{
  const guint n = w->grid.nx;
  const double mid = (n - 1) / 2.0;
  g_autofree float *v = ctr_memory_try_new ((gsize) n * n, sizeof (float), FALSE, "the entropy's copy of one slice",
                                            error);
  if (v == NULL)
    return FALSE;
  for (guint z = 0; z < w->grid.nz; z++)
    {
      gsize m = 0;
      const float *s = img->data + (gsize) z * n * n;
      for (guint y = 0; y < n; y++)
        for (guint x = 0; x < n; x++)
          if (hypot (x - mid, y - mid) <= w->radius_px)
            v[m++] = s[(gsize) y * n + x];
      qsort (v, m, sizeof (float), cmp_float_asc);
      const double a = v[(gsize) (0.005 * (m - 1))], b = v[(gsize) (0.995 * (m - 1))];
      const double pad = 0.25 * MAX (b - a, 1e-12);
      w->lo[z] = a - pad;
      w->hi[z] = b + pad;
    }
  return TRUE;
}

gboolean
ctr_calib_entropy (const CtrGeometry *g, const CtrProjections *p, double centre, double half_range,
                   CtrCalibEstimate *out, GCancellable *cancellable, GError **error)
{
  *out = (CtrCalibEstimate) { .method = CTR_CALIB_ENTROPY, .cross_check = TRUE, .centre_col = NAN,
                              .sigma_col = NAN, .slope = NAN, .sigma_slope = NAN };
  Entropy w = { 0 };
  const guint n_points = (guint) lround (2 * half_range / ENTROPY_STEP) + 1;
  g_autoptr (CtrCalibCurve) curve = NULL;
  if (!entropy_init (&w, g, p, centre, error)
      || (curve = ctr_calib_curve_new (w.grid.nz, n_points, centre - half_range, ENTROPY_STEP, FALSE, error)) == NULL)
    {
      entropy_clear (&w);
      return FALSE;
    }
  for (guint i = 0; i < n_points; i++)
    {
      /* the middle candidate first: it sets the histogram ranges */
      const guint c = (i + n_points / 2) % n_points;
      set_centre (&w, curve->x0 + c * curve->dx);
      g_autoptr (CtrVolume) img = ctr_fbp_run (w.g, w.p, &w.grid, CTR_FILTER_RAM_LAK, 1.0, cancellable, error);
      if (img == NULL || (i == 0 && !set_ranges (&w, img, error)))
        {
          entropy_clear (&w);
          return FALSE;
        }
      for (guint z = 0; z < w.grid.nz; z++)
        curve->num[(gsize) z * n_points + c] = slice_entropy (&w, img, z, w.lo[z], w.hi[z]);
    }
  out->used = w.grid.nz;
  entropy_clear (&w);
  const double x = ctr_calib_curve_minimum (curve, -1);
  if (!isfinite (x))
    {
      ctr_calib_fail (out, CTR_CALIB_ENTROPY, "the least entropy lies at the edge of the candidates (columns %.2f to "
                      "%.2f)", centre - half_range, centre + half_range);
      out->cross_check = TRUE;
      ctr_calib_curve_export (curve, 1.0, 0.0, out);
      return TRUE;
    }
  const int k = ctr_calib_curve_argmin (curve, -1);
  double top = ctr_calib_curve_value (curve, -1, 0);
  for (guint i = 1; i < n_points; i++)
    top = MAX (top, ctr_calib_curve_value (curve, -1, i));
  out->ok = TRUE;
  out->centre_col = x;
  out->sigma_col = ctr_calib_curve_jackknife (curve);
  ctr_calib_curve_export (curve, 1.0, 0.0, out);
  out->quality = top > 0 ? CLAMP ((top - ctr_calib_curve_value (curve, -1, (guint) k)) / top, 0.0, 1.0) : 0.0;
  if (w.grid.nz < 2)
    g_snprintf (out->note, sizeof out->note, "one slice: the uncertainty is unknown");
  return TRUE;
}
