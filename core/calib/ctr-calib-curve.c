/* ctr-calib-curve.c — cost curves over candidate centres, their minimum and
 * its jackknife uncertainty. */
#include "calib/ctr-calib-curve.h"
#include "base/ctr-error.h"

#include <math.h>

CtrCalibCurve *
ctr_calib_curve_new (guint n_blocks, guint n_points, double x0, double dx, gboolean weighted, GError **error)
{
  g_return_val_if_fail (n_blocks > 0 && n_points > 0, NULL);
  const gsize n = (gsize) n_blocks * n_points;
  CtrCalibCurve *c = g_new0 (CtrCalibCurve, 1);
  c->n_blocks = n_blocks;
  c->n_points = n_points;
  c->x0 = x0;
  c->dx = dx;
  c->num = g_try_new0 (double, n);
  c->den = weighted ? g_try_new0 (double, n) : NULL;
  if (c->num == NULL || (weighted && c->den == NULL))
    {
      ctr_calib_curve_free (c);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "a calibration curve of %zu points does not fit in memory",
                   n);
      return NULL;
    }
  return c;
}

void
ctr_calib_curve_free (CtrCalibCurve *c)
{
  if (c == NULL)
    return;
  g_free (c->num);
  g_free (c->den);
  g_free (c);
}

double
ctr_calib_curve_value (const CtrCalibCurve *c, int skip, guint i)
{
  double num = 0, den = 0;
  for (guint b = 0; b < c->n_blocks; b++)
    if ((int) b != skip)
      {
        num += c->num[(gsize) b * c->n_points + i];
        if (c->den != NULL)
          den += c->den[(gsize) b * c->n_points + i];
      }
  if (c->den == NULL)
    return num;
  return den > 0 ? num / den : NAN;
}

int
ctr_calib_curve_argmin (const CtrCalibCurve *c, int skip)
{
  int best = -1;
  double best_v = INFINITY;
  for (guint i = 0; i < c->n_points; i++)
    {
      const double v = ctr_calib_curve_value (c, skip, i);
      if (isfinite (v) && v < best_v)
        {
          best_v = v;
          best = (int) i;
        }
    }
  return best;
}

double
ctr_calib_curve_minimum (const CtrCalibCurve *c, int skip)
{
  const int k = ctr_calib_curve_argmin (c, skip);
  if (k <= 0 || k >= (int) c->n_points - 1)
    return NAN;
  const double ym = ctr_calib_curve_value (c, skip, (guint) k - 1);
  const double y0 = ctr_calib_curve_value (c, skip, (guint) k);
  const double yp = ctr_calib_curve_value (c, skip, (guint) k + 1);
  double d = 0;
  const double curv = ym - 2 * y0 + yp;
  if (isfinite (ym) && isfinite (yp) && curv > 0)
    d = CLAMP (0.5 * (ym - yp) / curv, -0.5, 0.5);
  return c->x0 + (k + d) * c->dx;
}

double
ctr_calib_curve_jackknife (const CtrCalibCurve *c)
{
  const guint nb = c->n_blocks;
  if (nb < 2)
    return NAN;
  /* the leave-one-out minima's mean and squared deviations in one pass
   * (Welford): no table of the blocks */
  double mean = 0, ss = 0;
  for (guint b = 0; b < nb; b++)
    {
      const double x = ctr_calib_curve_minimum (c, (int) b);
      const double d = x - mean;
      mean += d / (b + 1);
      ss += d * (x - mean);
    }
  return isfinite (ss) ? sqrt ((nb - 1.0) / nb * ss) : NAN;
}

double
ctr_calib_curve_block_minimum (const CtrCalibCurve *c, guint b, double *depth)
{
  CtrCalibCurve one = { 1, c->n_points, c->x0, c->dx, c->num + (gsize) b * c->n_points,
                        c->den != NULL ? c->den + (gsize) b * c->n_points : NULL };
  const int k = ctr_calib_curve_argmin (&one, -1);
  if (depth != NULL)
    *depth = k >= 0 ? -ctr_calib_curve_value (&one, -1, (guint) k) : 0.0;
  return ctr_calib_curve_minimum (&one, -1);
}

void
ctr_calib_curve_export (const CtrCalibCurve *c, double scale, double offset, CtrCalibEstimate *out)
{
  g_return_if_fail (c != NULL && out != NULL);
  const guint k = (c->n_points + CTR_CALIB_CURVE_MAX - 1) / CTR_CALIB_CURVE_MAX;
  out->curve_n = (c->n_points + k - 1) / k;
  out->curve_x0 = scale * c->x0 + offset;
  out->curve_dx = scale * c->dx * k;
  for (guint i = 0; i < out->curve_n; i++)
    out->curve_y[i] = ctr_calib_curve_value (c, -1, i * k);
}
