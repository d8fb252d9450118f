/* ctr-beamhard-water.c — beam-hardening coefficients from a water-cylinder
 * scan (see ctr-beamhard-water.h). */
#include "preprocess/ctr-beamhard-water.h"
#include "preprocess/ctr-beamhard.h"
#include "base/ctr-error.h"

#include <math.h>

#define EDGE_FRACTION 0.02
#define MIN_WATER_MM 5.0
#define MAX_WIDTH_SPREAD 0.03

/* The shadow of one line ([col] @v, @n columns) above @t: its edges in
 * columns, interpolated; FALSE when nothing or the border is above @t. */
static gboolean
shadow (const float *v, const guint8 *mask, guint n, double t, double *lo, double *hi)
{
  guint a = 0, b = n;
  while (a < n && !(v[a] > t && (mask == NULL || mask[a])))
    a++;
  while (b > a && !(v[b - 1] > t && (mask == NULL || mask[b - 1])))
    b--;
  if (a == n || a == 0 || b == n)
    return FALSE;
  *lo = a - (v[a] - t) / (v[a] - v[a - 1]);
  *hi = (b - 1) + (v[b - 1] - t) / (v[b - 1] - v[b]);
  return TRUE;
}

gboolean
ctr_beamhard_fit_water_scan (const CtrGeometry *g, const CtrProjections *p, double mu, int degree,
                             double *coefficients, CtrWaterFit *fit, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && degree >= 1 && degree <= CTR_BEAMHARD_MAX_DEGREE, FALSE);
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the water-scan calibration needs a parallel-beam scan (this one is fan or cone beam)");
      return FALSE;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "the water scan must be line integrals, not counts");
      return FALSE;
    }
  const guint nv = p->n_views, nr = p->n_rows, nc = p->n_cols;
  const gsize lines = (gsize) nv * nr;
  double p_max = 0;
  for (gsize i = 0; i < lines * nc; i++)
    if (isfinite (p->data[i]))
      p_max = MAX (p_max, p->data[i]);
  if (!(p_max >= mu * MIN_WATER_MM))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "no water in the scan: its largest line integral %.3g is below that of %g mm of water (%.3g)",
                   p_max, MIN_WATER_MM, mu * MIN_WATER_MM);
      return FALSE;
    }
  g_autofree double *centre = g_try_new (double, lines);
  if (centre == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "no memory for %zu projected centres", lines);
      return FALSE;
    }
  /* the projected centre of every line, the half-widths' mean and spread */
  const double t = EDGE_FRACTION * p_max;
  double sw = 0, sww = 0;
  for (gsize l = 0; l < lines; l++)
    {
      const guint8 *mask = p->mask != NULL ? p->mask + (l % nr) * nc : NULL;
      double lo, hi;
      if (!shadow (p->data + l * nc, mask, nc, t, &lo, &hi))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "view %zu, row %zu: the water's shadow %s",
                       l / nr + 1, l % nr + 1, "is missing or touches the detector's border (truncated)");
          return FALSE;
        }
      centre[l] = 0.5 * (lo + hi);
      const double w = 0.5 * (hi - lo) * g->pitch_u;
      sw += w;
      sww += w * w;
    }
  const double w_mean = sw / lines;
  const double spread = sqrt (MAX (0.0, sww / lines - w_mean * w_mean)) / w_mean;
  /* the threshold cuts the shadow where the chord is t/μ: the edge lies δ further out */
  const double chord_t = t / mu, r = w_mean + chord_t * chord_t / (8 * w_mean);
  if (!(spread <= MAX_WIDTH_SPREAD))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "not one water cylinder: the shadow's width varies by %.1f %% over the views (at most %g %%)",
                   100 * spread, 100 * MAX_WIDTH_SPREAD);
      return FALSE;
    }
  /* least squares through the origin in x = p/p_max */
  const int d = degree;
  double ata[CTR_BEAMHARD_MAX_DEGREE * CTR_BEAMHARD_MAX_DEGREE] = { 0 }, atb[CTR_BEAMHARD_MAX_DEGREE] = { 0 };
  guint64 used = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      double ss = 0, worst = 0;
      for (gsize l = 0; l < lines; l++)
        for (guint c = 0; c < nc; c++)
          {
            const double du = (c - centre[l]) * g->pitch_u, x = p->data[l * nc + c] / p_max;
            if (fabs (du) >= r || (p->mask != NULL && !p->mask[(l % nr) * nc + c]) || !isfinite (x))
              continue;
            const double y = mu * 2 * sqrt (r * r - du * du);
            double pw[CTR_BEAMHARD_MAX_DEGREE];
            for (int n = 0; n < d; n++)
              pw[n] = n == 0 ? x : pw[n - 1] * x;
            if (pass == 0)
              {
                used++;
                for (int a = 0; a < d; a++)
                  {
                    atb[a] += pw[a] * y;
                    for (int b = 0; b < d; b++)
                      ata[a * d + b] += pw[a] * pw[b];
                  }
                continue;
              }
            double f = 0;
            for (int n = 0; n < d; n++)
              f += coefficients[n] * pow (p_max, n + 1) * pw[n];
            ss += (f - y) * (f - y);
            worst = MAX (worst, fabs (f - y));
          }
      if (pass == 0)
        {
          if (used < (guint64) d || !ctr_beamhard_solve (ata, atb, d))
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                           "the water-scan fit of degree %d is singular (%" G_GUINT64_FORMAT " rays)", d, used);
              return FALSE;
            }
          for (int n = 0; n < d; n++)
            coefficients[n] = atb[n] / pow (p_max, n + 1);
        }
      else if (fit != NULL)
        *fit = (CtrWaterFit) { .radius_mm = r, .width_spread = spread, .rms_residual = sqrt (ss / used),
                               .max_residual = worst, .p_max = p_max, .n_rays = used };
    }
  return TRUE;
}
