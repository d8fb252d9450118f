/* ctr-stripes.c — large and dead stripe removal, Vo, Atwood & Drakopoulos
 * 2018, algorithms 4-6 (see ctr-stripes.h). */
#include "preprocess/ctr-stripes.h"
#include "preprocess/ctr-median.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-sorted-sinogram.h"
#include "base/ctr-error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef CtrSortedSample Sample;

/* One thread's scratch for one row sinogram of V views × C columns. */
typedef struct {
  float *x;        /* [V][C] the row's sinogram */
  Sample *sorted;  /* [C][V] each column sorted along the views */
  float *smooth;   /* [V][C] the sorted image's median across columns */
  float *prof, *tmp, *win; /* [C] */
  guint8 *mask, *found; /* [C] */
} Scratch;

static int
cmp_float (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

/* Mirrored index for any @j (the pattern d c b a | a b c d | d c b a …),
 * n ≥ 1: the views' window may be longer than the views. */
static inline guint
reflect (int j, guint n)
{
  const int period = 2 * (int) n;
  j %= period;
  if (j < 0)
    j += period;
  return j < (int) n ? (guint) j : (guint) (period - 1 - j);
}

/* Algorithm 4: the stripes of profile @f [C] flagged 1 in @mask (others 0).
 * @tmp [C]: scratch.  Returns the noise level. */
static double
detect (const float *f, guint C, double snr, float *tmp, guint8 *mask)
{
  memcpy (tmp, f, C * sizeof (float));
  qsort (tmp, C, sizeof (float), cmp_float);
  memset (mask, 0, C);
  const guint drop = (guint) (0.25 * C);
  if (C < 2 * drop + 3)
    return 0;
  /* least squares line through the sorted profile's middle half */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const guint lo = drop, hi = C - drop - 1;   /* [lo, hi) */
  const double n = hi - lo;
  for (guint k = lo; k < hi; k++)
    {
      sx += k;
      sy += tmp[k];
      sxx += (double) k * k;
      sxy += (double) k * tmp[k];
    }
  const double den = n * sxx - sx * sx;
  const double slope = den != 0 ? (n * sxy - sx * sy) / den : 0;
  const double icpt = (sy - slope * sx) / n;
  const double y_end = icpt + slope * (C - 1);
  const double noise = MAX (fabs (y_end - icpt), 1e-6);
  if (fabs (tmp[C - 1] - y_end) / noise >= snr)
    for (guint c = 0; c < C; c++)
      mask[c] |= f[c] > y_end + 0.5 * snr * noise;
  if (fabs (icpt - tmp[0]) / noise >= snr)
    for (guint c = 0; c < C; c++)
      mask[c] |= f[c] <= icpt - 0.5 * snr * noise;
  return noise;
}

/* @mask widened by one column on each side (in place; @tmp [C] scratch). */
static void
dilate (guint8 *mask, guint C, guint8 *tmp)
{
  memcpy (tmp, mask, C);
  for (guint c = 0; c < C; c++)
    mask[c] = tmp[c] || (c > 0 && tmp[c - 1]) || (c + 1 < C && tmp[c + 1]);
}

/* The value of stripe column @c at rank @v of the sorted image: linear
 * interpolation across columns between the nearest columns on each side
 * that are no stripe (@s->mask 0); the median-smoothed value when there is
 * none on either side.  A median across a wide stripe's neighbourhood is
 * shifted by the stripe itself, where the object's profile slopes; the
 * interpolation is not. */
static float
stripe_value (Scratch *s, guint V, guint C, guint c, guint v)
{
  int a = (int) c, b = (int) c;
  while (a >= 0 && s->mask[a])
    a--;
  while (b < (int) C && s->mask[b])
    b++;
  if (a < 0 || b >= (int) C)
    return s->smooth[(gsize) v * C + c];
  const float ya = s->sorted[(gsize) a * V + v].value, yb = s->sorted[(gsize) b * V + v].value;
  const float w = (float) ((int) c - a) / (float) (b - a);
  return (1 - w) * ya + w * yb;
}

/* @s->prof: each column's stripe strength, the mean of its sorted values
 * less the mean of the smoothed ones, over the views between the lowest and
 * highest 5 % (the paper's drop ratio 0.1). */
static void
strength (Scratch *s, guint V, guint C)
{
  const guint drop = (guint) (0.05 * V);
  for (guint c = 0; c < C; c++)
    {
      double d = 0;
      for (guint v = drop; v < V - drop; v++)
        d += (double) s->sorted[(gsize) c * V + v].value - s->smooth[(gsize) v * C + c];
      s->prof[c] = (float) (d / (V - 2 * drop));
    }
}

/* Algorithm 5 on the row sinogram @s->x; detected columns or'ed into
 * @s->found. */
static void
large_row (Scratch *s, guint V, guint C, int size, double snr, gboolean normalise)
{
  float *x = s->x;
  ctr_sorted_sinogram (x, C, V, C, size, s->sorted, s->smooth, s->win);
  guint8 *keep = s->mask + C, *dil = s->mask + 2 * C;
  strength (s, V, C);
  const double noise = detect (s->prof, C, snr, s->tmp, s->mask);
  dilate (s->mask, C, dil);
  /* a detected column stays a stripe only when it still stands out from the
   * interpolation across it: the median's shift beside a wide stripe made
   * its neighbours look striped */
  const guint drop = (guint) (0.05 * V);
  for (guint c = 0; c < C; c++)
    {
      double d = 0;
      for (guint v = drop; s->mask[c] && v < V - drop; v++)
        d += (double) s->sorted[(gsize) c * V + v].value - stripe_value (s, V, C, c, v);
      keep[c] = s->mask[c] && fabs (d / (V - 2 * drop)) > 0.5 * snr * noise;
    }
  memcpy (s->mask, keep, C);
  for (guint c = 0; c < C; c++)
    s->found[c] |= s->mask[c];
  dilate (s->mask, C, dil);
  for (guint c = 0; c < C; c++)
    {
      if (s->mask[c])
        for (guint v = 0; v < V; v++)
          x[(gsize) s->sorted[(gsize) c * V + v].view * C + c] = stripe_value (s, V, C, c, v);
      else if (normalise)
        for (guint v = 0; v < V; v++)
          x[(gsize) v * C + c] -= s->prof[c];
    }
}

/* Algorithm 6 on the row sinogram @s->x (then algorithm 5 when @residual). */
static void
dead_row (Scratch *s, guint V, guint C, int size, double snr, gboolean residual, gboolean normalise)
{
  float *x = s->x;
  /* each column's fluctuation about its moving mean of 10 views */
  for (guint c = 0; c < C; c++)
    {
      double d = 0;
      for (guint v = 0; v < V; v++)
        {
          double m = 0;
          for (int k = -5; k < 5; k++)
            m += x[(gsize) reflect ((int) v + k, V) * C + c];
          d += fabs (x[(gsize) v * C + c] - m / 10);
        }
      s->tmp[c] = (float) d;
    }
  const int h = size / 2;
  for (guint c = 0; c < C; c++)
    {
      for (int k = -h; k <= h; k++)
        s->win[k + h] = s->tmp[ctr_sorted_mirror ((int) c + k, C)];
      const float bck = ctr_median_select (s->win, (gsize) size);
      s->prof[c] = bck != 0 ? s->tmp[c] / bck : 1.0f;
    }
  guint8 *dil = s->mask + C;
  detect (s->prof, C, snr, s->tmp, s->mask);
  for (guint c = 0; c < C; c++)
    s->found[c] |= s->mask[c];
  dilate (s->mask, C, dil);
  for (guint c = 0; c < MIN (2u, C); c++)
    s->mask[c] = s->mask[C - 1 - c] = 0;
  for (guint c = 0; c < C; c++)
    {
      if (!s->mask[c])
        continue;
      guint a = c, b = c;
      while (s->mask[a])
        a--;
      while (s->mask[b])
        b++;
      const float w = (float) (c - a) / (float) (b - a);
      for (guint v = 0; v < V; v++)
        x[(gsize) v * C + c] = (1 - w) * x[(gsize) v * C + a] + w * x[(gsize) v * C + b];
    }
  if (residual)
    large_row (s, V, C, size, CTR_STRIPES_DEFAULT_SNR_LARGE, normalise);
}

static gboolean
check_args (CtrProjections *p, int size, double snr, GError **error)
{
  if (!ctr_rings_check_size (p, size, error))
    return FALSE;
  if (!(snr > 0) || !isfinite (snr))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "rings: the snr must be a positive number, got %g",
                   snr);
      return FALSE;
    }
  return TRUE;
}

/* Runs large_row (dead < 0) or dead_row (dead = residual) on every row. */
static gboolean
run_rows (CtrProjections *p, int size, double snr, int dead, gboolean normalise, guint64 *n_stripes, guint *n_columns,
          double *rms_change, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (n_stripes != NULL)
    *n_stripes = 0;
  if (n_columns != NULL)
    *n_columns = 0;
  if (rms_change != NULL)
    *rms_change = 0;
  if (!check_args (p, size, snr, error))
    return FALSE;
  const gsize V = p->n_views, C = p->n_cols, R = p->n_rows;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  const gsize raw = V * C * (2 * sizeof (float) + sizeof (Sample)) + (C + (gsize) size) * 3 * sizeof (float) + 4 * C + 64;
  const gsize per = (raw + 7) / 8 * 8;
  guint8 *scratch = g_try_malloc (per * (gsize) threads);
  guint8 *found = g_try_malloc0 (R * C);
  if (scratch == NULL || found == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "rings: cannot allocate %" G_GSIZE_FORMAT " bytes of scratch", per * (gsize) threads);
      g_free (scratch);
      g_free (found);
      return FALSE;
    }
  const gsize stride = R * C;
  guint64 n = 0;
  double sq = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:n, sq) num_threads(threads)
  for (gsize row = 0; row < R; row++)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num ();
#endif
      guint8 *m = scratch + per * (gsize) t;
      Scratch s;
      s.sorted = (Sample *) m;
      s.x = (float *) (s.sorted + V * C);
      s.smooth = s.x + V * C;
      s.prof = s.smooth + V * C;
      s.tmp = s.prof + C + size;
      s.win = s.tmp + C + size;
      s.mask = (guint8 *) (s.win + C + size);
      s.found = found + row * C;
      float *d = p->data + row * C;
      for (gsize v = 0; v < V; v++)
        memcpy (s.x + v * C, d + v * stride, C * sizeof (float));
      if (dead < 0)
        large_row (&s, V, C, size, snr, normalise);
      else
        dead_row (&s, V, C, size, snr, dead, normalise);
      for (gsize v = 0; v < V; v++)
        for (gsize c = 0; c < C; c++)
          {
            const double e = (double) s.x[v * C + c] - d[v * stride + c];
            sq += e * e;
            d[v * stride + c] = s.x[v * C + c];
          }
      for (gsize c = 0; c < C; c++)
        n += s.found[c];
    }
  g_free (scratch);
  guint columns = 0;
  for (gsize c = 0; c < C; c++)
    {
      guint rows = 0;
      for (gsize row = 0; row < R; row++)
        rows += found[row * C + c];
      columns += 2 * rows >= R && rows > 0;
    }
  g_free (found);
  if (n_stripes != NULL)
    *n_stripes = n;
  if (n_columns != NULL)
    *n_columns = columns;
  if (rms_change != NULL)
    *rms_change = sqrt (sq / ((double) V * C * R));
  return TRUE;
}

gboolean
ctr_stripes_remove_large (CtrProjections *p, int size, double snr, gboolean normalise, guint64 *n_stripes,
                          guint *n_columns, double *rms_change, GError **error)
{
  return run_rows (p, size, snr, -1, normalise, n_stripes, n_columns, rms_change, error);
}

gboolean
ctr_stripes_remove_dead (CtrProjections *p, int size, double snr, gboolean residual, gboolean normalise,
                         guint64 *n_stripes, guint *n_columns, double *rms_change, GError **error)
{
  return run_rows (p, size, snr, residual ? 1 : 0, normalise, n_stripes, n_columns, rms_change, error);
}
