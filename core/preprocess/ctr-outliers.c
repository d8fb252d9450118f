/* ctr-outliers.c — median-based outlier (zinger) removal (see ctr-outliers.h). */
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-median.h"
#include "base/ctr-error.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static gboolean
check_args (const CtrProjections *p, double threshold, int size, GError **error)
{
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "outlier removal works on line integrals, not counts");
      return FALSE;
    }
  if (!(threshold > 0) || !isfinite (threshold))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "outliers: the threshold must be a positive number of standard deviations, got %g", threshold);
      return FALSE;
    }
  if (size < 3 || size % 2 == 0 || (guint) size > p->n_views || (guint) size > p->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "outliers: the size must be odd, at least 3 and at most the views (%u) and columns (%u), got %d",
                   p->n_views, p->n_cols, size);
      return FALSE;
    }
  return TRUE;
}

/* med[v][c]: the median of the size × size neighbourhood of sinogram @s
 * [view][col] (stride @stride between views), edges replicated. */
static void
neighbourhood_medians (const float *s, gsize stride, guint V, guint C, int size, float *med)
{
  const int h = size / 2;
  float win[size * size];
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      {
        gsize n = 0;
        for (int dv = -h; dv <= h; dv++)
          {
            const guint vv = (guint) CLAMP ((int) v + dv, 0, (int) V - 1);
            for (int dc = -h; dc <= h; dc++)
              win[n++] = s[vv * stride + (guint) CLAMP ((int) c + dc, 0, (int) C - 1)];
          }
        med[(gsize) v * C + c] = ctr_median_select (win, n);
      }
}

/* One detector row: returns the pixels replaced. */
static guint64
filter_row (CtrProjections *p, guint row, double threshold, int size, float *med, float *res)
{
  const guint V = p->n_views, C = p->n_cols;
  const gsize stride = (gsize) p->n_rows * C;
  float *s = p->data + (gsize) row * C;
  neighbourhood_medians (s, stride, V, C, size, med);
  const gsize n = (gsize) V * C;
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      res[(gsize) v * C + c] = s[v * stride + c] - med[(gsize) v * C + c];
  const float centre = ctr_median_select (res, n);
  for (gsize i = 0; i < n; i++)
    res[i] = fabsf (res[i] - centre);
  const double sigma = 1.4826 * (double) ctr_median_select (res, n);
  const guint8 *mask = p->mask != NULL ? p->mask + (gsize) row * C : NULL;
  guint64 changed = 0;
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      {
        float *x = &s[v * stride + c];
        const float m = med[(gsize) v * C + c];
        const double r = fabs ((double) *x - m);
        if ((mask == NULL || mask[c]) && r > threshold * sigma && r > 0)
          {
            *x = m;
            changed++;
          }
      }
  return changed;
}

gboolean
ctr_outliers_remove (CtrProjections *p, double threshold, int size, guint64 *n_changed, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (n_changed != NULL)
    *n_changed = 0;
  if (!check_args (p, threshold, size, error))
    return FALSE;

  const gsize n = (gsize) p->n_views * p->n_cols;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  float *scratch = g_try_new (float, 2 * n * (gsize) threads);
  if (scratch == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "outliers: cannot allocate %" G_GSIZE_FORMAT " bytes of scratch",
                   2 * n * (gsize) threads * sizeof (float));
      return FALSE;
    }
  guint64 changed = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:changed) num_threads(threads)
  for (guint row = 0; row < p->n_rows; row++)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num ();
#endif
      float *med = scratch + 2 * n * (gsize) t;
      changed += filter_row (p, row, threshold, size, med, med + n);
    }
  g_free (scratch);
  if (n_changed != NULL)
    *n_changed = changed;
  return TRUE;
}
