/* ctr-calib.c — the calibration driver: the methods that apply to the
 * beam, combined into one answer (ctr-calib.h). */
#include "calib/ctr-calib-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The entropy cross-check's candidates: ± this many columns. */
#define ENTROPY_HALF_RANGE 3.0

const char *
ctr_calib_method_name (CtrCalibMethod m)
{
  switch (m)
    {
    case CTR_CALIB_MIRROR:
      return "mirror";
    case CTR_CALIB_VO:
      return "vo";
    case CTR_CALIB_CONJUGATE:
      return "conjugate";
    case CTR_CALIB_ENTROPY:
      return "entropy";
    default:
      return "unknown";
    }
}

guint
ctr_calib_pick_rows (guint n_rows, guint max, guint *rows)
{
  const guint n = MIN (n_rows, max);
  for (guint i = 0; i < n; i++)
    rows[i] = n_rows <= max ? i : (guint) (((2 * i + 1) * (guint64) n_rows) / (2 * n));
  return n;
}

void
ctr_calib_row_sinogram (const CtrProjections *p, double row, float *dst)
{
  const guint r0 = (guint) floor (row), r1 = MIN (r0 + 1, p->n_rows - 1);
  const double t = row - r0;
  for (guint k = 0; k < p->n_views; k++)
    {
      const float *v = ctr_projections_view (p, k);
      for (guint j = 0; j < p->n_cols; j++)
        dst[(gsize) k * p->n_cols + j] =
          (float) ((1 - t) * v[(gsize) r0 * p->n_cols + j] + t * v[(gsize) r1 * p->n_cols + j]);
    }
}

double
ctr_calib_central_row (const CtrGeometry *g)
{
  if (g->n_rows < 2)
    return 0.0;
  const double mid = (g->n_rows - 1) / 2.0;
  const double dv = ctr_geometry_row_v (g, mid + 1) - ctr_geometry_row_v (g, mid);
  return CLAMP (mid - ctr_geometry_row_v (g, mid) / dv, 0.0, g->n_rows - 1.0);
}

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

gboolean
ctr_calib_median_step (const CtrGeometry *g, double *step, GError **error)
{
  *step = 0.0;
  if (g->n_views < 2)
    return TRUE;
  g_autofree double *a = ctr_memory_try_new (g->n_views, sizeof (double), FALSE, "the sorted view angles", error);
  if (a == NULL)
    return FALSE;
  memcpy (a, g->angles, sizeof (double) * g->n_views);
  qsort (a, g->n_views, sizeof *a, cmp_double);
  guint m = 0;
  for (guint k = 1; k < g->n_views; k++)
    if (a[k] - a[k - 1] > 0)
      a[m++] = a[k] - a[k - 1];
  if (m == 0)
    return TRUE;
  qsort (a, m, sizeof *a, cmp_double);
  *step = a[m / 2];
  return TRUE;
}

void
ctr_calib_search_range (const CtrGeometry *g, const CtrCalibOptions *opt, double *lo, double *hi)
{
  const double mid = (g->n_cols - 1) / 2.0;
  double half = opt != NULL && opt->search_cols > 0 ? opt->search_cols : g->n_cols / 4.0;
  half = MAX (half, 2.0);
  *lo = MAX (0.0, mid - half);
  *hi = MIN (g->n_cols - 1.0, mid + half);
}

void
ctr_calib_fail (CtrCalibEstimate *out, CtrCalibMethod method, const char *format, ...)
{
  *out = (CtrCalibEstimate) { .method = method, .centre_col = NAN, .sigma_col = NAN, .slope = NAN, .sigma_slope = NAN };
  va_list ap;
  va_start (ap, format);
  g_vsnprintf (out->note, sizeof out->note, format, ap);
  va_end (ap);
}

double
ctr_calib_wrap (double a)
{
  a = fmod (a, 2 * G_PI);
  if (a > G_PI)
    a -= 2 * G_PI;
  else if (a <= -G_PI)
    a += 2 * G_PI;
  return a;
}

const char *
ctr_calib_disagreement (const CtrCalibResult *r)
{
  return r->disagree ? "the methods disagree by more than their uncertainty: check the result" : NULL;
}

double
ctr_calib_stated_centre (const CtrGeometry *g)
{
  return (g->n_cols - 1) / 2.0 - g->offset_u / g->pitch_u;
}

static gboolean
check_input (const CtrGeometry *g, const CtrProjections *p, GError **error)
{
  if (g->vectors != NULL || ctr_geometry_is_helical (g))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "calibration needs a circular scan described by its "
                   "offsets: a geometry given as %s has no single detector offset to calibrate",
                   g->vectors != NULL ? "per-view vectors" : "a helix");
      return FALSE;
    }
  if (!ctr_geometry_validate (g, error))
    return FALSE;
  if (p->kind != CTR_PROJ_LINE_INTEGRALS || p->n_views != g->n_views || p->n_rows != g->n_rows
      || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "calibration needs line integrals of %u views × %u rows × "
                   "%u columns, got %s of %u × %u × %u", g->n_views, g->n_rows, g->n_cols,
                   p->kind == CTR_PROJ_LINE_INTEGRALS ? "line integrals" : "counts", p->n_views, p->n_rows, p->n_cols);
      return FALSE;
    }
  if (g->n_cols < 8)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "calibration needs at least 8 detector columns, got %u",
                   g->n_cols);
      return FALSE;
    }
  return TRUE;
}

/* The combined answer of the estimates that succeeded. */
static void
combine (const CtrGeometry *g, CtrCalibResult *r)
{
  double wsum = 0, wc = 0, sum = 0, lo = INFINITY, hi = -INFINITY;
  guint n = 0;
  gboolean all_sigma = TRUE;
  for (guint i = 0; i < r->n_estimates; i++)
    {
      const CtrCalibEstimate *e = &r->estimates[i];
      if (!e->ok || e->cross_check)
        continue;
      n++;
      sum += e->centre_col;
      lo = MIN (lo, e->centre_col);
      hi = MAX (hi, e->centre_col);
      if (isfinite (e->sigma_col) && e->sigma_col > 0)
        {
          wsum += 1 / (e->sigma_col * e->sigma_col);
          wc += e->centre_col / (e->sigma_col * e->sigma_col);
        }
      else
        all_sigma = FALSE;
    }
  r->centre_col = all_sigma ? wc / wsum : sum / n;
  r->sigma_col = all_sigma ? sqrt (1 / wsum) : NAN;
  if (n > 1)
    r->sigma_col = isfinite (r->sigma_col) ? MAX (r->sigma_col, 0.5 * (hi - lo)) : 0.5 * (hi - lo);
  r->disagree = FALSE;
  for (guint i = 0; i < r->n_estimates; i++)
    for (guint j = i + 1; j < r->n_estimates; j++)
      {
        const CtrCalibEstimate *a = &r->estimates[i], *b = &r->estimates[j];
        if (!a->ok || !b->ok || a->cross_check || b->cross_check)
          continue;
        const double d = fabs (a->centre_col - b->centre_col);
        const double s = hypot (isfinite (a->sigma_col) ? a->sigma_col : 0, isfinite (b->sigma_col) ? b->sigma_col : 0);
        if (d > 0.25 && d > 2 * s)
          r->disagree = TRUE;
      }
  for (guint i = 0; i < r->n_estimates; i++)
    {
      const CtrCalibEstimate *e = &r->estimates[i];
      const double s = hypot (isfinite (e->sigma_col) ? e->sigma_col : 0, isfinite (r->sigma_col) ? r->sigma_col : 0);
      const double d = fabs (e->centre_col - r->centre_col);
      if (e->ok && e->cross_check && d > 0.5 && d > 2 * s)
        r->disagree = TRUE;
    }
  const CtrCalibEstimate *m = &r->estimates[0];
  if (m->method == CTR_CALIB_MIRROR && m->ok && isfinite (m->slope))
    {
      const double k = g->pitch_u / g->pitch_v_mm * (g->rows_increase_with_v ? 1.0 : -1.0);
      r->tilt_rad = atan (m->slope * k);
      r->sigma_tilt_rad = m->sigma_slope * fabs (k) / (1 + pow (m->slope * k, 2));
    }
  r->offset_u = ((g->n_cols - 1) / 2.0 - r->centre_col) * g->pitch_u;
  r->sigma_offset_u = r->sigma_col * g->pitch_u;
}

gboolean
ctr_calibrate (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt, CtrCalibResult *result,
               GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && result != NULL, FALSE);
  *result = (CtrCalibResult) { .centre_col = NAN, .sigma_col = NAN, .offset_u = NAN, .sigma_offset_u = NAN,
                               .tilt_rad = NAN, .sigma_tilt_rad = NAN };
  if (!check_input (g, p, error))
    return FALSE;
  result->stated_centre_col = ctr_calib_stated_centre (g);
  if (g->beam == CTR_BEAM_PARALLEL)
    {
      result->n_estimates = 2;
      if (!ctr_calib_mirror (g, p, opt, &result->estimates[0], cancellable, error)
          || !ctr_calib_vo (g, p, opt, &result->estimates[1], cancellable, error))
        return FALSE;
    }
  else
    {
      result->n_estimates = 1;
      if (!ctr_calib_conjugate (g, p, opt, &result->estimates[0], cancellable, error))
        return FALSE;
    }
  guint ok = 0, no_views = 0;
  for (guint i = 0; i < result->n_estimates; i++)
    {
      ok += result->estimates[i].ok;
      no_views += result->estimates[i].used == 0;   /* refused before looking at the data */
    }
  if (ok == 0)
    {
      GString *why = g_string_new (NULL);
      for (guint i = 0; i < result->n_estimates; i++)
        g_string_append_printf (why, "%s%s: %s", i > 0 ? "; " : "", ctr_calib_method_name (result->estimates[i].method),
                                result->estimates[i].note);
      const char *what = g->beam == CTR_BEAM_PARALLEL ? "the axis" : "the central ray";
      if (no_views == result->n_estimates && g->beam == CTR_BEAM_PARALLEL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "too few views for a 180° pair: no method could "
                     "find %s (%s)", what, why->str);
      else if (no_views == result->n_estimates)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "too few views: no ray has a measured conjugate, "
                     "so no method could find %s (%s)", what, why->str);
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "no method could find %s in these projections (%s)",
                     what, why->str);
      g_string_free (why, TRUE);
      return FALSE;
    }
  combine (g, result);
  if (opt != NULL && opt->no_cross_check)
    return TRUE;
  CtrCalibEstimate *x = &result->estimates[result->n_estimates];
  if (!ctr_calib_entropy (g, p, result->centre_col, ENTROPY_HALF_RANGE, x, cancellable, error))
    return FALSE;
  result->n_estimates++;
  combine (g, result);
  return TRUE;
}
