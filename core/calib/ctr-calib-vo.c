/* ctr-calib-vo.c — the centre of rotation of a parallel-beam scan by the
 * Fourier metric of the 360° sinogram made from the 180° one (Vo et al.
 * 2014; ctr-calib.h). */
#include "calib/ctr-calib-private.h"
#include "calib/ctr-calib-curve.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-fft-lock.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VO_MAX_ROWS 16
#define VO_BUDGET 3000000  /* samples of the 360° sinograms per candidate (rows × 2·views × columns) */
#define VO_RADIUS 6.0      /* r of the double-wedge mask */
#define VO_DROP 20         /* at most this many lowest angular frequencies left out */
#define VO_FINE_STEP 0.05  /* columns of c */

typedef struct {
  guint nh, n, l, lc;       /* views of 180°, columns, padded length, its bins */
  float *mask;              /* [2nh][n/2+1] weights of the r2c half spectrum */
  float *pad;               /* [l] */
  fftwf_complex *spec;      /* [nh][lc] spectra of the padded flipped rows */
  fftwf_complex *tmp;       /* [lc] */
  double *phase;            /* [2·lc] cos, sin of the shift being tried */
  float *mat;               /* [2nh][n] the 360° sinogram */
  fftwf_complex *mspec;     /* [2nh][n/2+1] */
  fftwf_plan row_fwd, row_inv, mat_fwd;
} Vo;

static void
vo_clear (Vo *w)
{
  ctr_fft_planner_lock ();
  if (w->row_fwd != NULL)
    fftwf_destroy_plan (w->row_fwd);
  if (w->row_inv != NULL)
    fftwf_destroy_plan (w->row_inv);
  if (w->mat_fwd != NULL)
    fftwf_destroy_plan (w->mat_fwd);
  ctr_fft_planner_unlock ();
  g_free (w->mask);
  fftwf_free (w->pad);
  fftwf_free (w->spec);
  fftwf_free (w->tmp);
  g_free (w->phase);
  fftwf_free (w->mat);
  fftwf_free (w->mspec);
}

/* The double-wedge mask of Vo et al. 2014 on the r2c half spectrum of a
 * [nrow][n] sinogram, with the weights that make a sum over the half equal
 * the sum over the whole spectrum (2 for the columns whose mirror is not
 * stored). */
static void
vo_mask (Vo *w)
{
  const guint nrow = 2 * w->nh, ncc = w->n / 2 + 1;
  const double dv = (nrow - 1.0) / (nrow * 2.0 * G_PI);
  const int drop = MIN (VO_DROP, (int) ceil (0.05 * nrow));
  for (guint i = 0; i < nrow; i++)
    {
      const int fy = i <= nrow / 2 ? (int) i : (int) i - (int) nrow;
      const long pos = lround (abs (fy) * dv * w->n / VO_RADIUS);
      for (guint fx = 0; fx < ncc; fx++)
        {
          float m = (long) fx <= pos && abs (fy) > drop && fx > 1 ? 1.0f : 0.0f;
          if (m > 0 && !(w->n % 2 == 0 && fx == w->n / 2))
            m = 2.0f;
          w->mask[(gsize) i * ncc + fx] = m;
        }
    }
}

static gboolean
vo_init (Vo *w, guint nh, guint n, GError **error)
{
  *w = (Vo) { .nh = nh, .n = n, .l = 3 * n };
  w->lc = w->l / 2 + 1;
  const guint ncc = n / 2 + 1;
  w->mask = g_try_new (float, (gsize) 2 * nh * ncc);
  w->pad = fftwf_malloc (sizeof (float) * w->l);
  w->spec = fftwf_malloc (sizeof (fftwf_complex) * (gsize) nh * w->lc);
  w->tmp = fftwf_malloc (sizeof (fftwf_complex) * w->lc);
  w->phase = g_try_new (double, 2 * (gsize) w->lc);
  w->mat = fftwf_malloc (sizeof (float) * (gsize) 2 * nh * n);
  w->mspec = fftwf_malloc (sizeof (fftwf_complex) * (gsize) 2 * nh * ncc);
  if (w->mask == NULL || w->pad == NULL || w->spec == NULL || w->tmp == NULL || w->phase == NULL || w->mat == NULL
      || w->mspec == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "the 360° sinogram (%u × %u) does not fit in memory",
                   2 * nh, n);
      return FALSE;
    }
  vo_mask (w);
  ctr_fft_planner_lock ();
  w->row_fwd = fftwf_plan_dft_r2c_1d ((int) w->l, w->pad, w->tmp, FFTW_ESTIMATE);
  w->row_inv = fftwf_plan_dft_c2r_1d ((int) w->l, w->tmp, w->pad, FFTW_ESTIMATE);
  w->mat_fwd = fftwf_plan_dft_r2c_2d ((int) (2 * nh), (int) n, w->mat, w->mspec, FFTW_ESTIMATE);
  ctr_fft_planner_unlock ();
  return TRUE;
}

/* Loads one detector row: the 180° sinogram into the top half of the
 * matrix and the spectra of its flipped rows, padded with their end values
 * (n on each side) so that a Fourier shift does not wrap the open beam. */
static void
vo_load (Vo *w, const CtrProjections *p, const guint *views, guint row)
{
  const guint n = w->n;
  for (guint k = 0; k < w->nh; k++)
    {
      const float *src = ctr_projections_view (p, views[k]) + (gsize) row * n;
      float *top = w->mat + (gsize) k * n;
      for (guint j = 0; j < n; j++)
        top[j] = src[j];
      for (guint j = 0; j < w->l; j++)
        {
          const guint s = j < n ? 0 : j >= 2 * n ? n - 1 : j - n;
          w->pad[j] = src[n - 1 - s];
        }
      /* into the planned buffer: a row of @spec may lack FFTW's alignment */
      fftwf_execute_dft_r2c (w->row_fwd, w->pad, w->tmp);
      memcpy (w->spec + (gsize) k * w->lc, w->tmp, sizeof (fftwf_complex) * w->lc);
    }
}

/* The metric of shift @s (columns): the flipped rows moved to F(j − s),
 * stacked under the sinogram, the mean masked modulus of the 2-D FFT. */
static double
vo_metric (Vo *w, double s)
{
  const guint n = w->n, ncc = n / 2 + 1, nrow = 2 * w->nh;
  for (guint f = 0; f < w->lc; f++)
    {
      const double ph = -2 * G_PI * f * s / w->l;
      w->phase[2 * f] = cos (ph);
      w->phase[2 * f + 1] = sin (ph);
    }
  for (guint k = 0; k < w->nh; k++)
    {
      const fftwf_complex *x = w->spec + (gsize) k * w->lc;
      for (guint f = 0; f < w->lc; f++)
        {
          const double c = w->phase[2 * f], sn = w->phase[2 * f + 1];
          w->tmp[f][0] = (float) (x[f][0] * c - x[f][1] * sn);
          w->tmp[f][1] = (float) (x[f][0] * sn + x[f][1] * c);
        }
      fftwf_execute_dft_c2r (w->row_inv, w->tmp, w->pad);
      float *bottom = w->mat + (gsize) (w->nh + k) * n;
      for (guint j = 0; j < n; j++)
        bottom[j] = w->pad[n + j] / (float) w->l;
    }
  fftwf_execute_dft_r2c (w->mat_fwd, w->mat, w->mspec);
  double sum = 0;
  for (gsize i = 0; i < (gsize) nrow * ncc; i++)
    if (w->mask[i] > 0)
      {
        const double re = w->mspec[i][0], im = w->mspec[i][1];
        sum += w->mask[i] * sqrt (re * re + im * im);
      }
  return sum / ((double) nrow * n);
}

typedef struct {
  guint *views;
  guint nh;
  char why[160];
} Half;

/* The views of the first 180° in angle order, evenly spaced; @h->why says
 * why not (empty when they are).  FALSE with CTR_ERROR_OUT_OF_MEMORY when
 * the views' tables cannot be allocated. */
static gboolean
half_scan (const CtrGeometry *g, Half *h, GError **error)
{
  h->why[0] = '\0';
  double step;
  if (!ctr_calib_median_step (g, &step, error))
    return FALSE;
  g_autofree double *a = ctr_memory_try_new (g->n_views, sizeof (double), FALSE, "the views' angles", error);
  if (a == NULL || (h->views = ctr_memory_try_new (g->n_views, sizeof (guint), FALSE, "the views' order by angle",
                                                   error)) == NULL)
    return FALSE;
  for (guint k = 0; k < g->n_views; k++)
    h->views[k] = k;
  for (guint k = 0; k < g->n_views; k++)
    a[k] = g->angles[k];
  /* insertion sort of the view indices by angle (views are nearly sorted) */
  for (guint k = 1; k < g->n_views; k++)
    for (guint j = k; j > 0 && a[h->views[j - 1]] > a[h->views[j]]; j--)
      {
        const guint t = h->views[j];
        h->views[j] = h->views[j - 1];
        h->views[j - 1] = t;
      }
  const double a0 = a[h->views[0]];
  h->nh = 0;
  while (h->nh < g->n_views && a[h->views[h->nh]] - a0 < G_PI - 0.5 * step)
    h->nh++;
  if (!(step > 0) || fabs (h->nh * step - G_PI) > 0.5 * step || h->nh < 8)
    {
      g_snprintf (h->why, sizeof h->why, "the views do not fill 180° in even steps (%u views of %.3g° from the first)",
                  h->nh, step * 180 / G_PI);
      return TRUE;
    }
  for (guint k = 1; k < h->nh; k++)
    if (fabs (a[h->views[k]] - a[h->views[k - 1]] - step) > 0.1 * step)
      {
        g_snprintf (h->why, sizeof h->why, "the view angles are not evenly spaced over the first 180°");
        return TRUE;
      }
  return TRUE;
}

/* Fills block @b (row) of @curve with the metric at each candidate centre. */
static void
vo_fill (Vo *w, CtrCalibCurve *curve, guint b)
{
  for (guint i = 0; i < curve->n_points; i++)
    {
      const double c = curve->x0 + i * curve->dx;
      curve->num[(gsize) b * curve->n_points + i] = vo_metric (w, 2 * c - (w->n - 1.0));
    }
}

/* Every row of @curve: FALSE when cancelled (@error set). */
static gboolean
vo_search (Vo *w, const CtrProjections *p, const Half *h, const guint *rows, CtrCalibCurve *curve,
           GCancellable *cancellable, GError **error)
{
  for (guint r = 0; r < curve->n_blocks; r++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      vo_load (w, p, h->views, rows[r]);
      vo_fill (w, curve, r);
    }
  return TRUE;
}

/* A curve of @n_rows blocks, candidates @step apart over @centre ± @half. */
static CtrCalibCurve *
around (guint n_rows, double centre, double half, double step, GError **error)
{
  return ctr_calib_curve_new (n_rows, (guint) lround (2 * half / step) + 1, centre - half, step, FALSE, error);
}

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

typedef struct {
  double centre;      /* the best candidate, full-resolution columns */
  double step;        /* its candidates' spacing, full-resolution columns */
  gboolean edge;      /* the best is the first or the last candidate */
  double quality;     /* 1 − min / median of the curve */
  CtrCalibEstimate curve;  /* the coarse curve at full-resolution columns (curve_* only) */
} Coarse;

/* The coarse search over [@lo, @hi]: whole shifts of a sinogram binned to
 * at most 256 columns and 256 views of the half scan (columns averaged in
 * groups of fb, every fv-th view), at most about 160 candidates.  FALSE
 * when cancelled or out of memory. */
static gboolean
vo_coarse (const CtrProjections *p, const Half *h, const guint *rows, guint n_rows, double lo, double hi,
           Coarse *res, GCancellable *cancellable, GError **error)
{
  const guint n = p->n_cols, fb = (n + 255) / 256, fv = MAX (1u, h->nh / 256);
  const guint nb = n / fb, nvb = h->nh / fv;
  g_autoptr (CtrProjections) bp = ctr_projections_new (nvb, n_rows, nb, CTR_PROJ_LINE_INTEGRALS, error);
  if (bp == NULL)
    return FALSE;
  for (guint k = 0; k < nvb; k++)
    for (guint r = 0; r < n_rows; r++)
      {
        const float *src = ctr_projections_view (p, h->views[k * fv]) + (gsize) rows[r] * n;
        float *dst = ctr_projections_view (bp, k) + (gsize) r * nb;
        for (guint j = 0; j < nb; j++)
          {
            double sum = 0;
            for (guint i = 0; i < fb; i++)
              sum += src[j * fb + i];
            dst[j] = (float) (sum / fb);
          }
      }
  Half hb = { .views = ctr_memory_try_new (nvb, sizeof (guint), FALSE, "the coarse search's views", error),
              .nh = nvb };
  g_autofree guint *rb = hb.views == NULL ? NULL : ctr_memory_try_new (n_rows, sizeof (guint), FALSE,
                                                                       "the coarse search's rows", error);
  if (rb == NULL)
    {
      g_free (hb.views);
      return FALSE;
    }
  for (guint k = 0; k < nvb; k++)
    hb.views[k] = k;
  for (guint r = 0; r < n_rows; r++)
    rb[r] = r;
  /* binned column b covers columns b·fb … b·fb + fb − 1: its middle is b·fb + (fb − 1)/2 */
  const double off = (fb - 1) / 2.0, blo = (lo - off) / fb, bhi = (hi - off) / fb;
  const double step = 0.5 * MAX (1.0, ceil (2 * (bhi - blo) / 160));
  const double x0 = ceil (blo / step) * step;
  const guint np = (guint) floor ((bhi - x0) / step) + 1;
  g_autoptr (CtrCalibCurve) cc = ctr_calib_curve_new (n_rows, np, x0, step, FALSE, error);
  Vo w;
  gboolean ok = cc != NULL && vo_init (&w, nvb, nb, error);
  if (cc != NULL)
    {
      ok = ok && vo_search (&w, bp, &hb, rb, cc, cancellable, error);
      vo_clear (&w);
    }
  g_free (hb.views);
  if (!ok)
    return FALSE;
  const int k = ctr_calib_curve_argmin (cc, -1);
  g_autofree double *v = ctr_memory_try_new (np, sizeof (double), FALSE, "the coarse search's costs", error);
  if (v == NULL)
    return FALSE;
  for (guint i = 0; i < np; i++)
    v[i] = ctr_calib_curve_value (cc, -1, i);
  qsort (v, np, sizeof *v, cmp_double);
  res->centre = k >= 0 ? (x0 + k * step) * fb + off : NAN;
  res->step = step * fb;
  res->edge = k <= 0 || k >= (int) np - 1;
  res->quality = v[np / 2] > 0 ? CLAMP (1.0 - v[0] / v[np / 2], 0.0, 1.0) : 0.0;
  ctr_calib_curve_export (cc, fb, off, &res->curve);
  return TRUE;
}

static void
keep_curve (const Coarse *co, CtrCalibEstimate *out)
{
  out->curve_n = co->curve.curve_n;
  out->curve_x0 = co->curve.curve_x0;
  out->curve_dx = co->curve.curve_dx;
  memcpy (out->curve_y, co->curve.curve_y, sizeof (double) * co->curve.curve_n);
}

gboolean
ctr_calib_vo (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
              CtrCalibEstimate *out, GCancellable *cancellable, GError **error)
{
  *out = (CtrCalibEstimate) { .method = CTR_CALIB_VO, .centre_col = NAN, .sigma_col = NAN, .slope = NAN,
                              .sigma_slope = NAN };
  Half h = { 0 };
  if (!half_scan (g, &h, error))
    {
      g_free (h.views);
      return FALSE;
    }
  if (h.why[0] != '\0')
    {
      ctr_calib_fail (out, CTR_CALIB_VO, "%s", h.why);
      g_free (h.views);
      return TRUE;
    }
  /* rows: up to 16, fewer where the 360° sinograms are large */
  guint rows[VO_MAX_ROWS];
  const guint max_rows = (guint) CLAMP (VO_BUDGET / (2.0 * h.nh * g->n_cols), 1.0, (double) VO_MAX_ROWS);
  const guint n_rows = ctr_calib_pick_rows (p->n_rows, max_rows, rows);
  double lo, hi;
  ctr_calib_search_range (g, opt, &lo, &hi);
  /* coarse (binned), then half columns around the best where the coarse
   * step was wider, then 0.05 column over ± 1 column, at full resolution */
  Coarse co = { 0 };   /* its curve_n stays 0 until the coarse search ends */
  Vo w;
  if (!vo_coarse (p, &h, rows, n_rows, lo, hi, &co, cancellable, error) || !vo_init (&w, h.nh, g->n_cols, error))
    {
      g_free (h.views);
      return FALSE;
    }
  g_autoptr (CtrCalibCurve) mc = NULL, fc = NULL;
  gboolean failed = FALSE;
  double c0 = co.edge ? NAN : co.centre;
  if (isfinite (c0) && co.step > 0.5)
    {
      mc = around (n_rows, c0, 1.5 * co.step, 0.5, error);
      failed = mc == NULL || !vo_search (&w, p, &h, rows, mc, cancellable, error);
      const int k1 = failed ? -1 : ctr_calib_curve_argmin (mc, -1);
      c0 = k1 >= 0 ? mc->x0 + k1 * mc->dx : NAN;
    }
  if (!failed && isfinite (c0))
    {
      fc = around (n_rows, c0, 1.0, VO_FINE_STEP, error);
      failed = fc == NULL || !vo_search (&w, p, &h, rows, fc, cancellable, error);
    }
  vo_clear (&w);
  g_free (h.views);
  if (failed)
    return FALSE;
  const double c = fc != NULL ? ctr_calib_curve_minimum (fc, -1) : NAN;
  if (!isfinite (c))
    {
      ctr_calib_fail (out, CTR_CALIB_VO, "the smallest metric lies at the edge of the search (columns %.1f to %.1f)",
                      lo, hi);
      out->used = n_rows;
      keep_curve (&co, out);
      return TRUE;
    }
  keep_curve (&co, out);
  out->used = n_rows;
  out->ok = TRUE;
  out->centre_col = c;
  out->sigma_col = ctr_calib_curve_jackknife (fc);
  out->quality = co.quality;
  if (n_rows < 2)
    g_snprintf (out->note, sizeof out->note, "one detector row: the uncertainty is unknown");
  return TRUE;
}
