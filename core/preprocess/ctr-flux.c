/* ctr-flux.c — flux normalisation from an air region (see ctr-flux.h). */
#include "preprocess/ctr-flux.h"
#include "preprocess/ctr-median.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

#define AIR_FLOOR 0.002   /* line-integral units: 0.2 % of transmission */
#define AIR_SIGMAS 6.0
#define AIR_MARGIN 2

/* The outermost seed columns of view @v, all rows, into @buf; returns the count. */
static gsize
seed_pixels (const CtrProjections *p, guint v, guint k, float *buf)
{
  const float *s = ctr_projections_view (p, v);
  gsize n = 0;
  for (guint r = 0; r < p->n_rows; r++)
    for (guint j = 0; j < k; j++)
      {
        buf[n++] = s[(gsize) r * p->n_cols + j];
        buf[n++] = s[(gsize) r * p->n_cols + p->n_cols - 1 - j];
      }
  return n;
}

gboolean
ctr_flux_find_air (const CtrProjections *p, guint ranges[4], guint *n_ranges, GError **error)
{
  const guint V = p->n_views, R = p->n_rows, C = p->n_cols;
  if (C < 8)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "flux: %u detector columns are too few to find air beside the object; state “columns”", C);
      return FALSE;
    }
  const guint k = MAX (3, C / 64);
  const gsize per_view = (gsize) 2 * k * R, per_view_d2 = (gsize) 2 * (k - 2) * R;
  g_autofree float *buf = g_try_new (float, per_view);
  g_autofree float *d2 = g_try_new (float, per_view_d2 * V);
  g_autofree double *base = g_try_new (double, V);
  g_autofree double *excess = g_try_new0 (double, C);   /* per column: the largest row-mean excess over views */
  if (buf == NULL || d2 == NULL || base == NULL || excess == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "flux: no memory for the air search");
      return FALSE;
    }
  gsize nd = 0;
  for (guint v = 0; v < V; v++)
    {
      base[v] = ctr_median_select (buf, seed_pixels (p, v, k, buf));
      /* the noise: second differences along the seed columns (a smooth shadow cancels) */
      const float *s = ctr_projections_view (p, v);
      for (guint r = 0; r < R; r++)
        for (guint j = 0; j + 2 < k; j++)
          {
            const float *a = s + (gsize) r * C + j, *b = s + (gsize) r * C + C - 3 - j;
            d2[nd++] = fabsf (a[0] - 2 * a[1] + a[2]);
            d2[nd++] = fabsf (b[0] - 2 * b[1] + b[2]);
          }
    }
  /* σ of one pixel: a second difference has variance 6σ²; a row mean σ/√R */
  const double sigma = 1.4826 * ctr_median_select (d2, nd) / sqrt (6.0) / sqrt (R);
  const double limit = AIR_SIGMAS * sigma + AIR_FLOOR;
  for (guint v = 0; v < V; v++)
    {
      const float *s = ctr_projections_view (p, v);
      for (guint c = 0; c < C; c++)
        {
          double m = 0;
          for (guint r = 0; r < R; r++)
            m += s[(gsize) r * C + c];
          excess[c] = MAX (excess[c], m / R - base[v]);
        }
    }
  guint left = 0, right = C;   /* air: [0, left) and [right, C) */
  while (left < C && excess[left] <= limit)
    left++;
  while (right > left && excess[right - 1] <= limit)
    right--;
  *n_ranges = 0;
  if (left >= k + AIR_MARGIN && left < C)
    {
      ranges[0] = 0;
      ranges[1] = left - 1 - AIR_MARGIN;
      *n_ranges = 1;
    }
  if (right + AIR_MARGIN + k <= C && left < C)
    {
      ranges[2 * *n_ranges] = right + AIR_MARGIN;
      ranges[2 * *n_ranges + 1] = C - 1;
      (*n_ranges)++;
    }
  if (*n_ranges == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   left >= C ? "flux: every column looks like air (no object, or a constant sinogram); state “columns”"
                             : "flux: no air found at either edge of the detector (the object's shadow reaches "
                               "both edges in some view, more than %.3g above the edge level); state “columns”",
                   limit);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_flux_normalise (CtrProjections *p, const guint *ranges, guint n_ranges, double *factors, GError **error)
{
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "flux: the data are counts; convert them to line integrals first");
      return FALSE;
    }
  if (n_ranges == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "flux: no air columns given");
      return FALSE;
    }
  for (guint i = 0; i < n_ranges; i++)
    if (ranges[2 * i] > ranges[2 * i + 1] || ranges[2 * i + 1] >= p->n_cols)
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "flux: air columns %u to %u are not within the detector's columns 0 to %u",
                     ranges[2 * i], ranges[2 * i + 1], p->n_cols - 1);
        return FALSE;
      }
  const guint V = p->n_views, R = p->n_rows, C = p->n_cols;
  g_autofree double *f = g_try_new (double, V);
  if (f == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "flux: no memory for %u factors", V);
      return FALSE;
    }
  for (guint v = 0; v < V; v++)
    {
      const float *s = ctr_projections_view (p, v);
      double sum = 0;
      gsize n = 0;
      for (guint i = 0; i < n_ranges; i++)
        for (guint r = 0; r < R; r++)
          for (guint c = ranges[2 * i]; c <= ranges[2 * i + 1]; c++)
            if (p->mask == NULL || p->mask[(gsize) r * C + c])
              {
                sum += exp (-(double) s[(gsize) r * C + c]);
                n++;
              }
      f[v] = n > 0 ? sum / (double) n : NAN;
      if (!(f[v] > 0) || !isfinite (f[v]) || !isfinite (log (f[v])))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       n == 0 ? "flux: view %u has no valid pixel in the air columns"
                              : "flux: view %u's air transmission is not a positive finite number", v);
          return FALSE;
        }
    }
  const gsize plane = (gsize) R * C;
  for (guint v = 0; v < V; v++)
    {
      float *s = ctr_projections_view (p, v);
      const double add = log (f[v]);
      for (gsize i = 0; i < plane; i++)
        s[i] = (float) (s[i] + add);
    }
  if (factors != NULL)
    memcpy (factors, f, V * sizeof (double));
  return TRUE;
}
