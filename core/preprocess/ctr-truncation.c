/* ctr-truncation.c — water-cylinder extrapolation of truncated rows,
 * Hsieh et al. 2004 (see ctr-truncation.h). */
#include "preprocess/ctr-truncation.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "preprocess/ctr-median.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define TRUNCATED_ABOVE 0.01

/* The outward extension of one row end: @in[0] is the edge column, @in[k]
 * the k-th column inwards (@step apart, index stride @stride); writes
 * @out[k·ostride], k = 0 .. @width−1, the k+1-th column outwards.  Returns
 * whether the edge was cut off. */
static gboolean
extend_end (const float *in, int stride, guint fit, double pitch, double mu, double stretch, guint width,
            float *out, int ostride)
{
  /* least squares p = a + b·t over t = −k·pitch, k = 0 .. fit−1 */
  double st = 0, sp = 0, stt = 0, stp = 0;
  for (guint k = 0; k < fit; k++)
    {
      const double t = -(double) k * pitch, v = in[(int) k * stride];
      st += t;
      sp += v;
      stt += t * t;
      stp += t * v;
    }
  const double den = fit * stt - st * st;
  const double b = den > 0 ? (fit * stp - st * sp) / den : 0;
  const double pe = in[0];   /* the edge sample itself: the row stays continuous */
  if (!(pe > 0))
    {
      for (guint k = 0; k < width; k++)
        out[(int) k * ostride] = 0;
      return FALSE;
    }
  const double d = MAX (0.0, -b * pe / (4 * mu * mu));
  const double half = pe / (2 * mu);
  const double r2 = d * d + half * half;
  for (guint k = 0; k < width; k++)
    {
      const double t = (k + 1) * pitch / stretch + d;
      double v = 2 * mu * sqrt (MAX (0.0, r2 - t * t));
      const double x = (k + 1.0) / width;   /* (0, 1]: position in the extension */
      if (x > 0.5)
        {
          const double c = cos (G_PI * (x - 0.5));   /* cos² from 1 at x = ½ to 0 at x = 1 */
          v *= c * c;
        }
      out[(int) k * ostride] = (float) v;
    }
  return pe > TRUNCATED_ABOVE;
}

/* Row @in (@C columns) into @out (@C + 2·@w), both ends extended with the
 * cylinders stretched along the row by @stretch; *@ext gets the extension's
 * sum (both ends).  Returns the ends cut off. */
static guint
extend_row (const float *in, guint C, guint w, guint fit, double pitch, double mu, double stretch, float *out,
            double *ext)
{
  memcpy (out + w, in, C * sizeof (float));
  guint cut = extend_end (in + C - 1, -1, fit, pitch, mu, stretch, w, out + w + C, 1)
              + extend_end (in, 1, fit, pitch, mu, stretch, w, out + w - 1, -1);
  double sum = 0;
  for (guint k = 0; k < w; k++)
    sum += (double) out[k] + out[w + C + k];
  *ext = sum;
  return cut;
}

/* Mass consistency: in parallel beam every view's row integrates to the
 * same total attenuation.  The total of each row is the median of the
 * measured sums of the views not cut off at either end (@whole[vr]) when
 * there are any, else the median over the views of measured + extended
 * sums; each view's
 * extensions are then stretched (or shrunk) along the row by
 * (total − measured)/extended, within [1/10, 10].  @meas, @ext: [view][row]
 * sums from the first pass; @scratch: @threads × views floats. */
static void
stretch_to_mass (const CtrProjections *p, guint w, guint fit, double pitch, double mu, const double *meas,
                 const double *ext, const guint8 *whole, float *data, float *scratch, int threads)
{
  const guint V = p->n_views, R = p->n_rows, C = p->n_cols, NC = C + 2 * w;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (guint r = 0; r < R; r++)
    {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num ();
#endif
      float *tot = scratch + (gsize) t * V;
      guint n = 0;
      for (guint v = 0; v < V; v++)
        if (whole[(gsize) v * R + r])
          tot[n++] = (float) meas[(gsize) v * R + r];
      if (n == 0)
        for (guint v = 0; v < V; v++)
          tot[n++] = (float) (meas[(gsize) v * R + r] + ext[(gsize) v * R + r]);
      const double total = ctr_median_select (tot, n);
      for (guint v = 0; v < V; v++)
        {
          const gsize vr = (gsize) v * R + r;
          if (!(ext[vr] > 0))
            continue;
          const double stretch = CLAMP ((total - meas[vr]) / ext[vr], 0.1, 10.0);
          double unused;
          extend_row (p->data + vr * C, C, w, fit, pitch, mu, stretch, data + vr * NC, &unused);
        }
    }
}

/* A [row][col] plane widened by @w columns at each end, the edge value repeated. */
static float *
widen_plane (const float *src, guint rows, guint cols, guint w)
{
  const guint nc = cols + 2 * w;
  float *dst = g_try_new (float, (gsize) rows * nc);
  if (dst == NULL)
    return NULL;
  for (guint r = 0; r < rows; r++)
    {
      const float *s = src + (gsize) r * cols;
      float *o = dst + (gsize) r * nc;
      for (guint c = 0; c < nc; c++)
        o[c] = c < w ? s[0] : c >= w + cols ? s[cols - 1] : s[c - w];
    }
  return dst;
}

static guint8 *
widen_mask (const guint8 *src, guint rows, guint cols, guint w)
{
  const guint nc = cols + 2 * w;
  guint8 *dst = g_try_new (guint8, (gsize) rows * nc);
  if (dst == NULL)
    return NULL;
  memset (dst, 1, (gsize) rows * nc);
  for (guint r = 0; r < rows; r++)
    memcpy (dst + (gsize) r * nc + w, src + (gsize) r * cols, cols);
  return dst;
}

gboolean
ctr_truncation_extend (CtrProjections *p, CtrGeometry *g, guint width, guint fit, double mu_per_mm,
                       gboolean consistent, guint64 *n_truncated, GError **error)
{
  const guint V = p->n_views, R = p->n_rows, C = p->n_cols;
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "truncation: the data are counts; convert them to line integrals first");
      return FALSE;
    }
  if (width == 0)
    width = MAX (16, C / 2);
  if (g == NULL || g->n_cols != C || g->n_views != V || g->n_rows != R)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "truncation: needs the data's geometry (%u views, %u rows, %u columns)", V, R, C);
      return FALSE;
    }
  if (width > CTR_TRUNCATION_MAX_WIDTH || fit < 2 || fit > C || !(mu_per_mm > 0) || !isfinite (mu_per_mm))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "truncation: width %u (1 to %u), fit %u (2 to the detector's %u columns) or mu_per_mm %g "
                   "(a positive number) out of range", width, CTR_TRUNCATION_MAX_WIDTH, fit, C, mu_per_mm);
      return FALSE;
    }
  const double pitch = ctr_geometry_pitch_at_iso_mm (g);
  const guint NC = C + 2 * width;
  const gsize n = (gsize) V * R * NC;
  g_autofree float *data = g_try_new (float, n);
  g_autofree double *meas = g_try_new (double, (gsize) V * R), *ext = g_try_new (double, (gsize) V * R);
  g_autofree guint8 *whole = g_try_new (guint8, (gsize) V * R);
  g_autofree float *flat = p->flat != NULL ? widen_plane (p->flat, R, C, width) : NULL;
  g_autofree float *dark = p->dark != NULL ? widen_plane (p->dark, R, C, width) : NULL;
  g_autofree guint8 *mask = p->mask != NULL ? widen_mask (p->mask, R, C, width) : NULL;
  if (data == NULL || meas == NULL || ext == NULL || whole == NULL || (p->flat != NULL && flat == NULL) || (p->dark != NULL && dark == NULL)
      || (p->mask != NULL && mask == NULL))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "truncation: no memory for %u views × %u rows × %u columns (%.1f MiB)", V, R, NC,
                   n * 4.0 / 1048576.0);
      return FALSE;
    }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  /* the consistency pass's totals of a row over the views, one a thread */
  g_autofree char *what = g_strdup_printf ("truncation: the totals of %u views × %d threads", V, threads);
  g_autofree float *totals = consistent ? ctr_memory_try_new ((gsize) threads * V, sizeof (float), FALSE, what, error)
                                        : NULL;
  if (consistent && totals == NULL)
    return FALSE;
  guint64 cut = 0;
#pragma omp parallel for reduction(+ : cut) schedule(static)
  for (gsize vr = 0; vr < (gsize) V * R; vr++)
    {
      const float *in = p->data + vr * C;
      double m = 0;
      for (guint c = 0; c < C; c++)
        m += in[c];
      meas[vr] = m;
      const guint ends = extend_row (in, C, width, fit, pitch, mu_per_mm, 1.0, data + vr * NC, &ext[vr]);
      whole[vr] = ends == 0;
      cut += ends;
    }
  if (consistent)
    stretch_to_mass (p, width, fit, pitch, mu_per_mm, meas, ext, whole, data, totals, threads);
  g_free (p->data);
  p->data = g_steal_pointer (&data);
  ctr_projections_take_planes (p, g_steal_pointer (&flat), g_steal_pointer (&dark), g_steal_pointer (&mask));
  p->n_cols = NC;
  g->n_cols = NC;
  if (n_truncated != NULL)
    *n_truncated = cut;
  return TRUE;
}
