/* ctr-filter.c — row-wise ramp filtering by FFT convolution with the discrete
 * spatial-domain Ram-Lak kernel.
 *
 * Kak & Slaney, "Principles of Computerized Tomographic Imaging" (1988),
 * §3.3.2, Eq. (61):
 *
 *   h(nτ) = 1/(4τ²)          n = 0
 *         = 0                n even
 *         = -1/(n²π²τ²)      n odd
 *
 * and Eq. (62)/(63): Q(nτ) = τ · Σ_k h(nτ - kτ) P(kτ), evaluated by FFT after
 * zero padding both sequences to M >= 2N (a power of two), so the circular
 * convolution equals the linear one for every output sample (lags up to
 * ±(N-1) fit without wrap-around).  Using the transform of the discrete kernel
 * rather than a sampled |ω| gives the right DC term (K&S Fig. 3.13/3.14: the
 * naive ramp's missing DC shifts the image).
 *
 * The equiangular fan multiplies the kernel by (γ/sin γ)² before the transform
 * (K&S Eq. 118, with the factor ½ left to the caller's redundancy weights);
 * ctr_ramp_filter_new() takes that as @kernel_scale.
 *
 * Windows multiply the kernel's spectrum; with f in cycles per sample
 * (Nyquist = ½) and fc = cutoff · ½:
 *   Shepp-Logan  sinc(f / (2 fc)) = sin(π f/(2 fc)) / (π f/(2 fc))
 *   cosine       cos(π f / (2 fc))
 *   Hamming      0.54 + 0.46 cos(π f / fc)
 *   Hann         0.5 + 0.5 cos(π f / fc)
 * and every window (Ram-Lak included) is zero above fc.
 *
 * Threading: FFTW's planner is not thread-safe, so plans are made (and
 * destroyed) under one process-wide mutex (ctr_fft_planner_lock: Debian's
 * libfftw3f_omp makes fftwf_make_planner_thread_safe a no-op, its
 * fftwf_threads_register_planner_hooks is a bare `ret`), with FFTW_ESTIMATE (no measurement, no
 * planner-time surprises).  Execution with the new-array interface
 * (fftwf_execute_dft_r2c/c2r) is thread-safe; every OpenMP thread owns its
 * buffers, one fftwf_malloc block cut in aligned parts (the plan was made on
 * fftwf_malloc'd arrays, so the new-array calls need that alignment).
 */
#include "analytic/ctr-filter.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

const char *const ctr_filter_window_names[CTR_N_FILTERS + 1] = {
  [CTR_FILTER_RAM_LAK] = "ram-lak",
  [CTR_FILTER_SHEPP_LOGAN] = "shepp-logan",
  [CTR_FILTER_COSINE] = "cosine",
  [CTR_FILTER_HAMMING] = "hamming",
  [CTR_FILTER_HANN] = "hann",
  [CTR_N_FILTERS] = NULL,
};

const char *
ctr_filter_window_name (CtrFilterWindow w)
{
  g_return_val_if_fail (w < CTR_N_FILTERS, NULL);
  return ctr_filter_window_names[w];
}

gboolean
ctr_filter_window_from_name (const char *name, CtrFilterWindow *out, GError **error)
{
  for (guint w = 0; w < CTR_N_FILTERS; w++)
    if (name != NULL && g_ascii_strcasecmp (name, ctr_filter_window_names[w]) == 0)
      {
        *out = w;
        return TRUE;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "unknown filter window '%s' (choose ram-lak, shepp-logan, cosine, hamming or hann)",
               name ? name : "");
  return FALSE;
}

struct _CtrRampFilter
{
  guint n;             /* samples per row */
  guint m;             /* padded length (power of two >= 2n) */
  fftwf_plan fwd;      /* r2c, m real -> m/2+1 complex */
  fftwf_plan inv;      /* c2r */
  fftwf_complex *h;    /* m/2+1: τ · window · FFT(kernel) / m */
};

static guint
next_pow2 (guint64 x)
{
  guint64 m = 1;
  while (m < x)
    m <<= 1;
  return (guint) m;
}

/* Window value at f (cycles per sample), fc = cutoff frequency. */
static double
window_value (CtrFilterWindow window, double f, double fc)
{
  if (f > fc)
    return 0.0;
  switch (window)
    {
    case CTR_FILTER_SHEPP_LOGAN:
      {
        double x = G_PI * f / (2.0 * fc);
        return x == 0.0 ? 1.0 : sin (x) / x;
      }
    case CTR_FILTER_COSINE:
      return cos (G_PI * f / (2.0 * fc));
    case CTR_FILTER_HAMMING:
      return 0.54 + 0.46 * cos (G_PI * f / fc);
    case CTR_FILTER_HANN:
      return 0.5 + 0.5 * cos (G_PI * f / fc);
    case CTR_FILTER_RAM_LAK:
    case CTR_N_FILTERS:
    default:
      return 1.0;
    }
}

CtrRampFilter *
ctr_ramp_filter_new (guint n, double spacing, CtrFilterWindow window,
                     double cutoff, const double *kernel_scale, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (n == 0 || n > (G_MAXUINT32 >> 2))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "ramp filter: %u samples per row is out of range", n);
      return NULL;
    }
  if (!(isfinite (spacing) && spacing > 0.0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "ramp filter: sample spacing must be positive, got %g", spacing);
      return NULL;
    }
  if ((int) window < 0 || window >= CTR_N_FILTERS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "ramp filter: unknown window %d", (int) window);
      return NULL;
    }
  if (!(cutoff > 0.0 && cutoff <= 1.0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "ramp filter: cut-off must be in (0, 1] of Nyquist, got %g", cutoff);
      return NULL;
    }

  const guint m = next_pow2 (2 * (guint64) n);
  const guint nc = m / 2 + 1;
  const double tau = spacing;

  float *kr = fftwf_malloc (sizeof (float) * m);
  fftwf_complex *kc = fftwf_malloc (sizeof (fftwf_complex) * nc);
  if (kr == NULL || kc == NULL)
    {
      fftwf_free (kr);
      fftwf_free (kc);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "ramp filter: cannot allocate %u samples", m);
      return NULL;
    }

  CtrRampFilter *f = g_new0 (CtrRampFilter, 1);
  f->n = n;
  f->m = m;

  ctr_fft_planner_lock ();
  f->fwd = fftwf_plan_dft_r2c_1d ((int) m, kr, kc, FFTW_ESTIMATE);
  f->inv = fftwf_plan_dft_c2r_1d ((int) m, kc, kr, FFTW_ESTIMATE);
  ctr_fft_planner_unlock ();
  if (f->fwd == NULL || f->inv == NULL)
    {
      fftwf_free (kr);
      fftwf_free (kc);
      ctr_ramp_filter_free (f);
      g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED,
                   "ramp filter: FFTW could not plan a transform of %u samples", m);
      return NULL;
    }

  /* Spatial kernel (K&S Eq. 61) at lags -(n-1)..n-1, stored circularly.
   * Computed in double, transformed in float: the kernel's spectrum is
   * smooth and float keeps 1e-7 relative accuracy, far below the data's. */
  memset (kr, 0, sizeof (float) * m);
  for (gint64 k = -(gint64) (n - 1); k <= (gint64) (n - 1); k++)
    {
      double h;
      if (k == 0)
        h = 1.0 / (4.0 * tau * tau);
      else if (k % 2 == 0)
        h = 0.0;
      else
        h = -1.0 / ((double) k * (double) k * G_PI * G_PI * tau * tau);
      if (kernel_scale != NULL)
        h *= kernel_scale[k + (n - 1)];
      kr[k >= 0 ? k : (gint64) m + k] = (float) h;
    }
  fftwf_execute_dft_r2c (f->fwd, kr, kc);

  /* Fold window, the convolution's τ (K&S Eq. 62) and FFTW's unnormalised
   * inverse (1/m) into the stored spectrum. */
  f->h = fftwf_malloc (sizeof (fftwf_complex) * nc);
  if (f->h == NULL)
    {
      fftwf_free (kr);
      fftwf_free (kc);
      ctr_ramp_filter_free (f);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "ramp filter: cannot allocate %u samples", nc);
      return NULL;
    }
  const double fc = 0.5 * cutoff;
  for (guint i = 0; i < nc; i++)
    {
      double freq = (double) i / m;  /* cycles per sample, 0 .. ½ */
      double s = window_value (window, freq, fc) * tau / m;
      f->h[i][0] = (float) (kc[i][0] * s);
      f->h[i][1] = (float) (kc[i][1] * s);
    }

  fftwf_free (kr);
  fftwf_free (kc);
  return f;
}

void
ctr_ramp_filter_free (CtrRampFilter *f)
{
  if (f == NULL)
    return;
  ctr_fft_planner_lock ();
  if (f->fwd != NULL)
    fftwf_destroy_plan (f->fwd);
  if (f->inv != NULL)
    fftwf_destroy_plan (f->inv);
  ctr_fft_planner_unlock ();
  fftwf_free (f->h);
  g_free (f);
}

/* One row: zero-pad, transform, multiply by the stored spectrum, back. */
static void
filter_row (const CtrRampFilter *f, float *row, float *buf, fftwf_complex *spec)
{
  const guint n = f->n, m = f->m, nc = m / 2 + 1;
  const fftwf_complex *h = f->h;

  memcpy (buf, row, sizeof (float) * n);
  memset (buf + n, 0, sizeof (float) * (m - n));
  fftwf_execute_dft_r2c (f->fwd, buf, spec);
  for (guint i = 0; i < nc; i++)
    {
      float re = spec[i][0] * h[i][0] - spec[i][1] * h[i][1];
      float im = spec[i][0] * h[i][1] + spec[i][1] * h[i][0];
      spec[i][0] = re;
      spec[i][1] = im;
    }
  fftwf_execute_dft_c2r (f->inv, spec, buf);
  memcpy (row, buf, sizeof (float) * n);
}

gboolean
ctr_ramp_filter_apply (CtrRampFilter *f, float *rows, guint n_rows, GError **error)
{
  g_return_val_if_fail (f != NULL, FALSE);
  g_return_val_if_fail (rows != NULL || n_rows == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_rows == 0)
    return TRUE;

  /* Every thread's spectrum and padded row, allocated here where a failure
   * can be reported (in the region it could only abort): m/2 + 1 complex
   * values and m floats a thread, each part rounded up to 64 bytes so all
   * keep fftwf_malloc's alignment (the plan's). */
  int threads = 1;
#ifdef _OPENMP
  threads = (int) MIN ((guint) omp_get_max_threads (), n_rows);
#endif
  const gsize spec_floats = (2 * (gsize) (f->m / 2 + 1) + 15) / 16 * 16;
  const gsize per = spec_floats + ((gsize) f->m + 15) / 16 * 16;
  const guint64 bytes = ctr_memory_mul (ctr_memory_mul (per, sizeof (float)), (guint64) threads);
  float *scratch = bytes <= G_MAXSIZE ? fftwf_malloc ((gsize) bytes) : NULL;
  if (scratch == NULL)
    {
      g_autofree char *what = g_strdup_printf ("the ramp filter's padded rows of %u samples × %d threads",
                                               f->m, threads);
      ctr_memory_set_error (error, bytes, what);
      return FALSE;
    }

#pragma omp parallel num_threads(threads)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num ();
#endif
    float *mine = scratch + per * (gsize) t;
    fftwf_complex *spec = (fftwf_complex *) mine;
    float *buf = mine + spec_floats;
#pragma omp for schedule(static)
    for (gint64 r = 0; r < (gint64) n_rows; r++)
      filter_row (f, rows + (gsize) r * f->n, buf, spec);
  }
  fftwf_free (scratch);
  return TRUE;
}
