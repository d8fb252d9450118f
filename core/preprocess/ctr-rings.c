/* ctr-rings.c — sorting-based stripe removal, Vo, Atwood & Drakopoulos 2018
 * (see ctr-rings.h). */
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-median.h"
#include "preprocess/ctr-sorted-sinogram.h"
#include "base/ctr-error.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef CtrSortedSample Sample;

/* One detector row.  @sorted [col][view] samples, @smooth [view][col],
 * @colchange [col]: scratch.  Returns the stripes found, flagged 1 in
 * @flag [col]; adds Σ change² to *@sq; *@change: the largest |change| over
 * the row's range before. */
static guint64
filter_row (CtrProjections *p, guint row, int size, Sample *sorted, float *smooth, double *colchange,
            double *sq, guint8 *flag, double *change)
{
  const guint V = p->n_views, C = p->n_cols;
  const gsize stride = (gsize) p->n_rows * C;
  float *s = p->data + (gsize) row * C;
  float win[size];
  ctr_sorted_sinogram (s, stride, V, C, size, sorted, smooth, win);
  double lo = INFINITY, hi = -INFINITY, worst = 0;
  for (guint c = 0; c < C; c++)
    {
      double sum = 0;
      /* sorted along the views: the column's extremes are its ends */
      lo = MIN (lo, sorted[(gsize) c * V].value);
      hi = MAX (hi, sorted[(gsize) c * V + V - 1].value);
      for (guint v = 0; v < V; v++)
        {
          const Sample *x = &sorted[(gsize) c * V + v];
          const double d = (double) smooth[(gsize) v * C + c] - x->value;
          sum += d;
          *sq += d * d;
          s[x->view * stride + c] = smooth[(gsize) v * C + c];
        }
      colchange[c] = sum / V;
      /* what is not the column's constant offset (a stripe's) */
      for (guint v = 0; v < V; v++)
        worst = MAX (worst, fabs ((double) smooth[(gsize) v * C + c] - sorted[(gsize) c * V + v].value
                                  - colchange[c]));
    }
  *change = hi > lo ? worst / (hi - lo) : 0;
  return ctr_rings_flag_stripes (colchange, C, flag);
}

guint64
ctr_rings_flag_stripes (const double *colchange, guint C, guint8 *flag)
{
  /* columns whose mean change (a stripe's offset, signed) lies more than 5
   * robust SDs (MAD) from the row's median column */
  float tmp[C];
  for (guint c = 0; c < C; c++)
    tmp[c] = (float) colchange[c];
  const double centre = ctr_median_select (tmp, C);
  for (guint c = 0; c < C; c++)
    tmp[c] = (float) fabs (colchange[c] - centre);
  const double sigma = 1.4826 * ctr_median_select (tmp, C);
  guint64 found = 0;
  for (guint c = 0; c < C; c++)
    {
      flag[c] = fabs (colchange[c] - centre) > 5 * sigma && fabs (colchange[c] - centre) > 1e-6;
      found += flag[c];
    }
  return found;
}

guint
ctr_rings_count_columns (const guint8 *flags, guint n_rows, guint C)
{
  guint columns = 0;
  for (gsize c = 0; c < C; c++)
    {
      guint rows = 0;
      for (guint row = 0; row < n_rows; row++)
        rows += flags[(gsize) row * C + c];
      columns += 2 * rows >= n_rows && rows > 0;
    }
  return columns;
}

gboolean
ctr_rings_check_size (const CtrProjections *p, int size, GError **error)
{
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "ring removal works on line integrals, not counts");
      return FALSE;
    }
  if (size < 3 || size % 2 == 0 || (guint) size > p->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "rings: the size must be odd, at least 3 and at most the columns (%u), got %d", p->n_cols, size);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_rings_remove (CtrProjections *p, int size, guint64 *n_stripes, guint *n_columns, double *rms_change,
                  double *row_change, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (n_stripes != NULL)
    *n_stripes = 0;
  if (rms_change != NULL)
    *rms_change = 0;
  if (n_columns != NULL)
    *n_columns = 0;
  if (!ctr_rings_check_size (p, size, error))
    return FALSE;
  const gsize V = p->n_views, C = p->n_cols;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  /* per thread: the column changes (doubles first, aligned), the sorted
   * columns, the smoothed image; rounded up to 8 bytes */
  const gsize per = (V * C * (sizeof (Sample) + sizeof (float)) + C * sizeof (double) + 7) / 8 * 8;
  guint8 *scratch = g_try_malloc (per * (gsize) threads);
  guint8 *flags = g_try_malloc0 ((gsize) p->n_rows * C);
  if (scratch == NULL || flags == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "rings: cannot allocate %" G_GSIZE_FORMAT " bytes of scratch", per * (gsize) threads);
      g_free (scratch);
      g_free (flags);
      return FALSE;
    }
  guint64 found = 0;
  double sq = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:found, sq) num_threads(threads)
  for (guint row = 0; row < p->n_rows; row++)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num ();
#endif
      guint8 *mine = scratch + per * (gsize) t;
      double *colchange = (double *) mine;
      Sample *sorted = (Sample *) (colchange + C);
      float *smooth = (float *) (sorted + V * C);
      double change;
      found += filter_row (p, row, size, sorted, smooth, colchange, &sq, flags + (gsize) row * C, &change);
      if (row_change != NULL)
        row_change[row] = change;
    }
  g_free (scratch);
  const guint columns = ctr_rings_count_columns (flags, p->n_rows, (guint) C);
  g_free (flags);
  if (n_columns != NULL)
    *n_columns = columns;
  if (n_stripes != NULL)
    *n_stripes = found;
  if (rms_change != NULL)
    *rms_change = sqrt (sq / ((double) V * C * p->n_rows));
  return TRUE;
}
