/* ctr-calib-mirror.c — the centre of rotation of a parallel-beam scan from
 * the views 180° apart, registered by cross-correlation (ctr-calib.h). */
#include "calib/ctr-calib-private.h"
#include "calib/ctr-calib-curve.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-fft-lock.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>

#define MIRROR_MAX_ROWS 64
#define MIRROR_UPSAMPLE 16
#define MIRROR_MAX_BLOCKS 8

typedef struct {
  double angle;
  guint view;
} Angle;

static int
cmp_angle (const void *a, const void *b)
{
  const double x = ((const Angle *) a)->angle, y = ((const Angle *) b)->angle;
  return (x > y) - (x < y);
}

/* The pairs of views 180° apart (within @tol): @pairs gets 2 view indices
 * per pair (first < second); returns how many.  @a: scratch of n_views. */
static guint
find_pairs (const CtrGeometry *g, double tol, Angle *a, guint *pairs)
{
  const guint n = g->n_views;
  for (guint k = 0; k < n; k++)
    {
      double t = fmod (g->angles[k], 2 * G_PI);
      a[k] = (Angle) { t < 0 ? t + 2 * G_PI : t, k };
    }
  qsort (a, n, sizeof *a, cmp_angle);
  guint count = 0;
  for (guint k = 0; k < n; k++)
    {
      const double target = g->angles[k] + G_PI;
      double t = fmod (target, 2 * G_PI);
      t = t < 0 ? t + 2 * G_PI : t;
      /* the first sorted angle >= t, and its neighbour below (cyclically) */
      guint lo = 0, hi = n;
      while (lo < hi)
        {
          const guint mid = (lo + hi) / 2;
          if (a[mid].angle < t)
            lo = mid + 1;
          else
            hi = mid;
        }
      const guint cand[2] = { lo % n, (lo + n - 1) % n };
      for (guint c = 0; c < 2; c++)
        {
          const guint m = a[cand[c]].view;
          if (m > k && fabs (ctr_calib_wrap (g->angles[m] - target)) <= tol)
            {
              pairs[2 * count] = k;
              pairs[2 * count + 1] = m;
              count++;
              break;
            }
        }
    }
  return count;
}

static guint
next_pow2 (guint n)
{
  guint m = 1;
  while (m < n)
    m <<= 1;
  return m;
}

/* The derivative (central differences, 0 at both ends) of the profile
 * @src (@n samples, @flip: read backwards) into @dst (@m samples, zero
 * beyond @n); returns Σ dst².  Registering derivatives leaves out the
 * constant background (an open beam that is not 0), whose overlap with the
 * shifted profile would pull the peak towards zero shift; the same filter
 * on both profiles keeps the peak where it was. */
static double
prepare (const float *src, guint n, gboolean flip, float *dst, guint m)
{
  double e = 0;
  for (guint j = 0; j < m; j++)
    {
      double v = 0;
      if (j >= 1 && j + 1 < n)
        v = flip ? 0.5 * ((double) src[n - 2 - j] - src[n - j]) : 0.5 * ((double) src[j + 1] - src[j - 1]);
      dst[j] = (float) v;
      e += v * v;
    }
  return e;
}

typedef struct {
  guint n, m, nc;          /* columns, FFT length, its complex bins */
  fftwf_plan fwd, inv;     /* r2c of m; c2r of m·U */
  float *ra, *rb, *up;
  fftwf_complex *fa, *fb, *cu;
} Mirror;

static void
mirror_clear (Mirror *w)
{
  ctr_fft_planner_lock ();
  if (w->fwd != NULL)
    fftwf_destroy_plan (w->fwd);
  if (w->inv != NULL)
    fftwf_destroy_plan (w->inv);
  ctr_fft_planner_unlock ();
  fftwf_free (w->ra);
  fftwf_free (w->rb);
  fftwf_free (w->up);
  fftwf_free (w->fa);
  fftwf_free (w->fb);
  fftwf_free (w->cu);
}

static gboolean
mirror_init (Mirror *w, guint n, GError **error)
{
  *w = (Mirror) { 0 };
  w->n = n;
  w->m = next_pow2 (2 * n);
  w->nc = w->m / 2 + 1;
  const guint mu = w->m * MIRROR_UPSAMPLE;
  w->ra = fftwf_malloc (sizeof (float) * w->m);
  w->rb = fftwf_malloc (sizeof (float) * w->m);
  w->up = fftwf_malloc (sizeof (float) * mu);
  w->fa = fftwf_malloc (sizeof (fftwf_complex) * w->nc);
  w->fb = fftwf_malloc (sizeof (fftwf_complex) * w->nc);
  w->cu = fftwf_malloc (sizeof (fftwf_complex) * (mu / 2 + 1));
  if (w->ra == NULL || w->rb == NULL || w->up == NULL || w->fa == NULL || w->fb == NULL || w->cu == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "the registration buffers (%u samples) do not fit", mu);
      return FALSE;
    }
  ctr_fft_planner_lock ();
  w->fwd = fftwf_plan_dft_r2c_1d ((int) w->m, w->ra, w->fa, FFTW_ESTIMATE);
  w->inv = fftwf_plan_dft_c2r_1d ((int) mu, w->cu, w->up, FFTW_ESTIMATE);
  ctr_fft_planner_unlock ();
  return TRUE;
}

/* Adds the cross-power spectrum of view rows @a and flipped @b to @x
 * (2·nc doubles) and their energies to @e. */
static void
mirror_add (Mirror *w, const float *a, const float *b, double *x, double e[2])
{
  e[0] += prepare (a, w->n, FALSE, w->ra, w->m);
  e[1] += prepare (b, w->n, TRUE, w->rb, w->m);
  fftwf_execute_dft_r2c (w->fwd, w->ra, w->fa);
  fftwf_execute_dft_r2c (w->fwd, w->rb, w->fb);
  for (guint f = 0; f < w->nc; f++)
    {
      const double ar = w->fa[f][0], ai = w->fa[f][1], br = w->fb[f][0], bi = w->fb[f][1];
      x[2 * f] += ar * br + ai * bi;      /* A · conj(B) */
      x[2 * f + 1] += ai * br - ar * bi;
    }
}

/* The correlation r(s) = Σ_j A(j + s) B(j) of spectrum @x at every lag
 * s = i/U into the curve's block @b (cost −r at centre c = (s + n − 1)/2). */
static void
mirror_curve (Mirror *w, const double *x, CtrCalibCurve *curve, guint b)
{
  const guint mu = w->m * MIRROR_UPSAMPLE;
  for (guint f = 0; f < mu / 2 + 1; f++)
    {
      const double s = f < w->nc ? (f == w->nc - 1 ? 0.5 : 1.0) : 0.0;
      w->cu[f][0] = (float) (f < w->nc ? s * x[2 * f] : 0.0);
      w->cu[f][1] = (float) (f < w->nc ? s * x[2 * f + 1] : 0.0);
    }
  fftwf_execute_dft_c2r (w->inv, w->cu, w->up);
  for (guint i = 0; i < curve->n_points; i++)
    {
      const double c = curve->x0 + i * curve->dx;
      const long lag = lround ((2 * c - (w->n - 1.0)) * MIRROR_UPSAMPLE);
      const guint idx = (guint) ((lag % (long) mu + (long) mu) % (long) mu);
      const double r = w->up[idx] / (double) w->m;
      curve->num[(gsize) b * curve->n_points + i] = -r;
    }
}

/* The slope of the centre column per row from each row block's own
 * minimum (ctr-calib.h), weighted by the block's correlation peak. */
static void
row_slope (const CtrCalibCurve *curve, const guint *rows, guint n_rows, CtrCalibEstimate *out)
{
  const guint nb = curve->n_blocks;
  double sw = 0, sx = 0, sy = 0, x[MIRROR_MAX_BLOCKS], y[MIRROR_MAX_BLOCKS], w[MIRROR_MAX_BLOCKS];
  guint used = 0;
  for (guint b = 0; b < nb; b++)
    {
      double row = 0, count = 0;
      for (guint ri = 0; ri < n_rows; ri++)
        if (ri * nb / n_rows == b)
          {
            row += rows[ri];
            count++;
          }
      y[b] = ctr_calib_curve_block_minimum (curve, b, &w[b]);
      x[b] = row / MAX (count, 1.0);
      if (!isfinite (y[b]) || !(w[b] > 0))
        w[b] = 0;
      else
        used++;
      sw += w[b];
      sx += w[b] * x[b];
      sy += w[b] * (isfinite (y[b]) ? y[b] : 0);
    }
  if (used < 3)
    return;
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0;
  for (guint b = 0; b < nb; b++)
    if (w[b] > 0)
      {
        sxx += w[b] * (x[b] - mx) * (x[b] - mx);
        sxy += w[b] * (x[b] - mx) * (y[b] - my);
      }
  if (!(sxx > 0))
    return;
  const double slope = sxy / sxx;
  double rss = 0;
  for (guint b = 0; b < nb; b++)
    if (w[b] > 0)
      rss += w[b] * pow (y[b] - my - slope * (x[b] - mx), 2);
  out->slope = slope;
  out->sigma_slope = sqrt (rss / (used - 2) / sxx);
}

/* The correlation of every view pair at once (@whole, −r) for a plot: 1 − r
 * normalised by the energies @e (ctr-calib.h's curve). */
static void
export_curve (const CtrCalibCurve *whole, const double e[2], CtrCalibEstimate *out)
{
  const double norm = e[0] > 0 && e[1] > 0 ? sqrt (e[0] * e[1]) : 1.0;
  ctr_calib_curve_export (whole, 1.0, 0.0, out);
  for (guint i = 0; i < out->curve_n; i++)
    out->curve_y[i] = 1.0 + out->curve_y[i] / norm;
}

/* The slope from the 2-D registration of the pairs (ctr_calib_tilt_fit),
 * started from the rows' own slope in @out, in its place: the rows' slope
 * is biased towards 0 by structure along z.  Kept, with a note, when the
 * 2-D registration finds no minimum. */
static void
two_d_slope (const CtrGeometry *g, const CtrProjections *p, const guint *pairs, guint n_pairs, CtrCalibEstimate *out)
{
  const double k = g->pitch_v_mm / g->pitch_u * (g->rows_increase_with_v ? 1.0 : -1.0);   /* columns per row per tan t */
  const double tilt0 = isfinite (out->slope) ? atan (out->slope / k) : NAN;
  double t, sigma_t, centre;
  if (!ctr_calib_tilt_fit (g, p, pairs, n_pairs, out->centre_col, tilt0, &t, &sigma_t, &centre))
    {
      if (isfinite (out->slope))
        g_snprintf (out->note, sizeof out->note, "the tilt comes from the centre per row block (the 2-D registration "
                    "found no minimum): structure along z biases it towards 0");
      return;
    }
  out->slope = tan (t) * k;
  out->sigma_slope = sigma_t * fabs (k) * (1 + tan (t) * tan (t));
}

gboolean
ctr_calib_mirror (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                  CtrCalibEstimate *out, GCancellable *cancellable, GError **error)
{
  *out = (CtrCalibEstimate) { .method = CTR_CALIB_MIRROR, .centre_col = NAN, .sigma_col = NAN, .slope = NAN,
                              .sigma_slope = NAN };
  const guint n = g->n_cols;
  double step;
  if (!ctr_calib_median_step (g, &step, error))
    return FALSE;
  g_autofree guint *pairs = ctr_memory_try_new (g->n_views, 2 * sizeof (guint), FALSE, "the opposite views' pairs",
                                                error);
  if (pairs == NULL)
    return FALSE;
  g_autofree Angle *sorted = ctr_memory_try_new (g->n_views, sizeof (Angle), FALSE, "the views' sorted angles",
                                                 error);
  if (sorted == NULL)
    return FALSE;
  const guint n_pairs = find_pairs (g, MAX (0.05 * step, 1e-9), sorted, pairs);
  g_clear_pointer (&sorted, g_free);
  if (n_pairs == 0)
    {
      ctr_calib_fail (out, CTR_CALIB_MIRROR, "no two views are 180° apart (within 5 %% of the %.3g° step)",
                      step * 180 / G_PI);
      return TRUE;
    }
  guint rows[MIRROR_MAX_ROWS];
  const guint n_rows = ctr_calib_pick_rows (p->n_rows, MIRROR_MAX_ROWS, rows);
  const gboolean by_rows = n_rows >= 2;
  const guint nb = MIN (MIRROR_MAX_BLOCKS, by_rows ? n_rows : n_pairs);

  double lo, hi;
  ctr_calib_search_range (g, opt, &lo, &hi);
  const double dx = 0.5 / MIRROR_UPSAMPLE;
  const double x0 = ceil (lo / dx) * dx;
  const guint n_points = (guint) floor ((hi - x0) / dx) + 1;
  g_autoptr (CtrCalibCurve) curve = ctr_calib_curve_new (nb, n_points, x0, dx, FALSE, error);
  if (curve == NULL)
    return FALSE;

  Mirror w;
  if (!mirror_init (&w, n, error))
    {
      mirror_clear (&w);
      return FALSE;
    }
  g_autofree double *x = ctr_memory_try_new (2 * (gsize) w.nc * nb, sizeof (double), TRUE,
                                             "the mirror's correlation spectra", error);
  g_autofree double *total = x == NULL ? NULL
                             : ctr_memory_try_new (2 * (gsize) w.nc, sizeof (double), TRUE,
                                                   "the mirror's correlation spectra", error);
  if (total == NULL)
    {
      mirror_clear (&w);
      return FALSE;
    }
  double e[2] = { 0, 0 };
  for (guint ri = 0; ri < n_rows; ri++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          mirror_clear (&w);
          return FALSE;
        }
      for (guint q = 0; q < n_pairs; q++)
        {
          const guint b = by_rows ? ri * nb / n_rows : q * nb / n_pairs;
          const float *a = ctr_projections_view (p, pairs[2 * q]) + (gsize) rows[ri] * n;
          const float *c = ctr_projections_view (p, pairs[2 * q + 1]) + (gsize) rows[ri] * n;
          mirror_add (&w, a, c, x + 2 * (gsize) w.nc * b, e);
        }
    }
  for (guint b = 0; b < nb; b++)
    mirror_curve (&w, x + 2 * (gsize) w.nc * b, curve, b);
  /* the whole correlation, for the quality */
  for (guint b = 0; b < nb; b++)
    for (guint f = 0; f < 2 * w.nc; f++)
      total[f] += x[2 * (gsize) w.nc * b + f];
  g_autofree double *r = ctr_memory_try_new (n_points, sizeof (double), FALSE, "the mirror's whole correlation "
                                             "curve", error);
  if (r == NULL)
    {
      mirror_clear (&w);
      return FALSE;
    }
  CtrCalibCurve whole = { 1, n_points, x0, dx, r, NULL };
  mirror_curve (&w, total, &whole, 0);   /* r[i] = −correlation */
  mirror_clear (&w);

  out->used = n_pairs;
  const double c = ctr_calib_curve_minimum (curve, -1);
  if (!isfinite (c))
    {
      ctr_calib_fail (out, CTR_CALIB_MIRROR, "the best registration lies at the edge of the search (columns %.1f to "
                      "%.1f)", lo, hi);
      out->used = n_pairs;
      export_curve (&whole, e, out);
      return TRUE;
    }
  const int k = ctr_calib_curve_argmin (curve, -1);
  out->ok = TRUE;
  out->centre_col = c;
  out->sigma_col = ctr_calib_curve_jackknife (curve);
  out->quality = e[0] > 0 && e[1] > 0 ? CLAMP (-r[k] / sqrt (e[0] * e[1]), 0.0, 1.0) : 0.0;
  export_curve (&whole, e, out);
  if (by_rows)
    row_slope (curve, rows, n_rows, out);
  if (by_rows && p->n_rows >= 3)
    two_d_slope (g, p, pairs, n_pairs, out);
  if (n_pairs == 1 && !by_rows)
    g_snprintf (out->note, sizeof out->note, "one view pair and one row: the uncertainty is unknown");
  return TRUE;
}
