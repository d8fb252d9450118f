/* ctr-nps.c — the noise power spectrum (see ctr-nps.h). */
#include "quality/ctr-nps.h"
#include "base/ctr-error.h"
#include "base/ctr-fft-lock.h"
#include "base/ctr-memory.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>

void
ctr_nps_free (CtrNps *nps)
{
  if (nps == NULL)
    return;
  g_free (nps->nps2d);
  g_free (nps->radial_f);
  g_free (nps->radial_nps);
  g_free (nps);
}

/* Walks the n × n squares wholly inside @mask, row by row from its
 * bounding box; writes the first @cap corners (x0, y0) to @out (NULL:
 * none) and returns how many there are. */
static guint64
tile_walk (const guint8 *mask, guint nx, guint ny, guint n, guint *out, guint64 cap)
{
  if (n == 0 || n > nx || n > ny)
    return 0;
  guint x_lo = nx, x_hi = 0, y_lo = ny, y_hi = 0;
  for (guint y = 0; y < ny; y++)
    for (guint x = 0; x < nx; x++)
      if (mask[(gsize) y * nx + x])
        {
          x_lo = MIN (x_lo, x), x_hi = MAX (x_hi, x);
          y_lo = MIN (y_lo, y), y_hi = MAX (y_hi, y);
        }
  if (x_lo > x_hi)
    return 0;
  guint64 count = 0;
  for (guint y0 = y_lo; y0 + n <= y_hi + 1; y0 += n)
    for (guint x0 = x_lo; x0 + n <= x_hi + 1; x0 += n)
      {
        gboolean inside = TRUE;
        for (guint y = y0; y < y0 + n && inside; y++)
          for (guint x = x0; x < x0 + n && inside; x++)
            inside = mask[(gsize) y * nx + x] != 0;
        if (inside && out != NULL && count < cap)
          out[2 * count] = x0, out[2 * count + 1] = y0;
        count += inside;
      }
  return count;
}

guint64
ctr_nps_tile_count (const guint8 *mask, guint nx, guint ny, guint n)
{
  g_return_val_if_fail (mask != NULL, 0);
  return tile_walk (mask, nx, ny, n, NULL, 0);
}

guint *
ctr_nps_tile (const guint8 *mask, guint nx, guint ny, guint n, guint *count, GError **error)
{
  g_return_val_if_fail (mask != NULL && count != NULL, NULL);
  *count = 0;
  /* counted first, then allocated at once (a grown array aborted where
   * the corners of a large ROI did not fit) */
  const guint64 c = tile_walk (mask, nx, ny, n, NULL, 0);
  if (c == 0)
    return NULL;
  g_autofree char *what = g_strdup_printf ("the corners of %" G_GUINT64_FORMAT " NPS squares of %u × %u pixels",
                                           c, n, n);
  guint *out = c > G_MAXUINT / 2 ? NULL : ctr_memory_try_new (2 * (gsize) c, sizeof (guint), FALSE, what, error);
  if (out == NULL)
    {
      if (c > G_MAXUINT / 2)
        ctr_memory_set_error (error, ctr_memory_mul (2 * c, sizeof (guint)), what);
      return NULL;
    }
  tile_walk (mask, nx, ny, n, out, c);
  *count = (guint) c;
  return out;
}

/* Copies the ROI at (x0, y0) into @buf (complex, imaginary 0) less its trend. */
static gboolean
detrended_roi (const float *img, guint nx, guint x0, guint y0, guint n, CtrNpsDetrend detrend,
               fftwf_complex *buf)
{
  double sum = 0, sx = 0, sy = 0, sxx = 0;
  double h = (n - 1) * 0.5;
  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      {
        double v = img[(gsize) (y0 + y) * nx + x0 + x];
        if (!isfinite (v))
          return FALSE;
        sum += v, sx += v * (x - h), sy += v * (y - h);
      }
  for (guint x = 0; x < n; x++)
    sxx += (x - h) * (x - h);
  double a = sum / ((double) n * n), b = 0, c = 0;
  if (detrend == CTR_NPS_DETREND_PLANE)
    {
      /* Centred coordinates on a full square: 1, x and y are orthogonal, so
       * the least-squares plane's slopes are the projections. */
      b = sx / (sxx * n);
      c = sy / (sxx * n);
    }
  for (guint y = 0; y < n; y++)
    for (guint x = 0; x < n; x++)
      {
        double v = img[(gsize) (y0 + y) * nx + x0 + x];
        buf[(gsize) y * n + x][0] = (float) (v - a - b * (x - h) - c * (y - h));
        buf[(gsize) y * n + x][1] = 0;
      }
  return TRUE;
}

/* Radial average, noise magnitude, f_peak and f_avg from nps->nps2d; FALSE
 * with CTR_ERROR_OUT_OF_MEMORY when the radial arrays cannot be had. */
static gboolean
summarise (CtrNps *nps, GError **error)
{
  guint n = nps->n, half = n / 2;
  double df = 1.0 / (n * nps->pixel_mm);
  g_autofree char *what = g_strdup_printf ("the radial noise power spectrum of %u frequencies", half + 1);
  nps->n_radial = half + 1;
  g_autofree guint *hits = NULL;
  if ((nps->radial_f = ctr_memory_try_new (half + 1, sizeof (double), TRUE, what, error)) == NULL
      || (nps->radial_nps = ctr_memory_try_new (half + 1, sizeof (double), TRUE, what, error)) == NULL
      || (hits = ctr_memory_try_new (half + 1, sizeof (guint), TRUE, what, error)) == NULL)
    return FALSE;
  double total = 0;
  for (guint iy = 0; iy < n; iy++)
    for (guint ix = 0; ix < n; ix++)
      {
        double v = nps->nps2d[(gsize) iy * n + ix];
        total += v;
        double jx = (double) ix - half, jy = (double) iy - half;
        guint k = (guint) floor (sqrt (jx * jx + jy * jy) + 0.5);
        if (k <= half && k > 0)
          nps->radial_nps[k] += v, hits[k]++;
      }
  double num = 0, den = 0, peak = -1;
  for (guint k = half + 1; k-- > 0;)
    {
      nps->radial_f[k] = k * df;
      /* Zero frequency: the detrending removed it, so ring 1's value stands for it. */
      nps->radial_nps[k] = k == 0 ? nps->radial_nps[1] : hits[k] ? nps->radial_nps[k] / hits[k] : 0;
      num += nps->radial_f[k] * nps->radial_nps[k];
      den += nps->radial_nps[k];
      if (nps->radial_nps[k] > peak)
        peak = nps->radial_nps[k], nps->f_peak = nps->radial_f[k];
    }
  nps->f_avg = den > 0 ? num / den : NAN;
  nps->variance = total * df * df;
  nps->noise_sd = sqrt (nps->variance);
  return TRUE;
}

static gboolean
check_args (const float *const *slices, guint n_slices, guint nx, guint ny, double pixel_mm,
            const guint *corners, guint n_corners, guint n, double scale, GError **error)
{
  if (slices == NULL || n_slices == 0 || corners == NULL || n_corners == 0 || n < 4
      || !(isfinite (pixel_mm) && pixel_mm > 0) || !(isfinite (scale) && scale > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "noise power spectrum: need at least one image and one ROI of at least 4 × 4 "
                   "pixels, a positive pixel size and scale (%u images, %u ROIs of %u pixels, "
                   "pixel %g mm, scale %g)", n_slices, n_corners, n, pixel_mm, scale);
      return FALSE;
    }
  for (guint r = 0; r < n_corners; r++)
    if ((guint64) corners[2 * r] + n > nx || (guint64) corners[2 * r + 1] + n > ny)
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "noise power spectrum: the %u × %u ROI at column %u, row %u is not inside "
                     "the %u × %u image", n, n, corners[2 * r], corners[2 * r + 1], nx, ny);
        return FALSE;
      }
  return TRUE;
}

CtrNps *
ctr_nps_compute (const float *const *slices, guint n_slices, guint nx, guint ny,
                 double pixel_mm, const guint *corners, guint n_corners, guint n,
                 CtrNpsDetrend detrend, double scale, GError **error)
{
  if (!check_args (slices, n_slices, nx, ny, pixel_mm, corners, n_corners, n, scale, error))
    return NULL;
  gsize nn = (gsize) n * n;
  /* Two complex FFT buffers, the accumulator, the result's 2-D spectrum and
   * its radial profile: estimated before any of them is allocated. */
  guint64 need = ctr_memory_add (ctr_memory_mul (nn, 2 * sizeof (fftwf_complex) + 2 * sizeof (double)),
                                 ctr_memory_mul ((guint64) n / 2 + 1, 2 * sizeof (double) + sizeof (guint)));
  if (!ctr_memory_check (need, "the noise power spectrum's ROI buffers", error))
    return NULL;
  fftwf_complex *in = fftwf_malloc (sizeof (fftwf_complex) * nn);
  fftwf_complex *out = fftwf_malloc (sizeof (fftwf_complex) * nn);
  double *acc = g_try_new0 (double, nn);
  if (in == NULL || out == NULL || acc == NULL)
    {
      fftwf_free (in), fftwf_free (out), g_free (acc);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "noise power spectrum: no memory for a %u × %u ROI", n, n);
      return NULL;
    }
  ctr_fft_planner_lock ();
  fftwf_plan plan = fftwf_plan_dft_2d ((int) n, (int) n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
  ctr_fft_planner_unlock ();
  gboolean ok = TRUE;
  for (guint s = 0; s < n_slices && ok; s++)
    for (guint r = 0; r < n_corners && ok; r++)
      {
        ok = detrended_roi (slices[s], nx, corners[2 * r], corners[2 * r + 1], n, detrend, in);
        if (!ok)
          break;
        fftwf_execute_dft (plan, in, out);
        for (gsize i = 0; i < nn; i++)
          acc[i] += (double) out[i][0] * out[i][0] + (double) out[i][1] * out[i][1];
      }
  ctr_fft_planner_lock ();
  fftwf_destroy_plan (plan);
  ctr_fft_planner_unlock ();
  fftwf_free (in), fftwf_free (out);
  if (!ok)
    {
      g_free (acc);
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "noise power spectrum: an ROI holds a NaN or infinite pixel");
      return NULL;
    }
  double *nps2d = ctr_memory_try_new (nn, sizeof (double), FALSE, "the noise power spectrum", error);
  if (nps2d == NULL)
    {
      g_free (acc);
      return NULL;
    }
  CtrNps *nps = g_new0 (CtrNps, 1);
  nps->n = n, nps->pixel_mm = pixel_mm, nps->n_rois = n_slices * n_corners;
  nps->nps2d = nps2d;
  double norm = scale * pixel_mm * pixel_mm / ((double) nn * nps->n_rois);
  guint half = n / 2;
  for (guint ky = 0; ky < n; ky++)
    for (guint kx = 0; kx < n; kx++)
      nps->nps2d[(gsize) ((ky + half) % n) * n + (kx + half) % n] = norm * acc[(gsize) ky * n + kx];
  g_free (acc);
  if (!summarise (nps, error))
    {
      ctr_nps_free (nps);
      return NULL;
    }
  return nps;
}

CtrNps *
ctr_nps_difference (const float *a, const float *b, guint nx, guint ny, double pixel_mm,
                    const guint *corners, guint n_corners, guint n, CtrNpsDetrend detrend,
                    GError **error)
{
  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  gsize size = (gsize) nx * ny;
  float *d = ctr_memory_try_new (size, sizeof (float), FALSE,
                                 "the noise power spectrum's difference image", error);
  if (d == NULL)
    return NULL;
  for (gsize i = 0; i < size; i++)
    d[i] = a[i] - b[i];
  const float *slices[1] = { d };
  CtrNps *nps = ctr_nps_compute (slices, 1, nx, ny, pixel_mm, corners, n_corners, n, detrend, 0.5, error);
  g_free (d);
  return nps;
}

double
ctr_nps_radial_at (const CtrNps *nps, double f)
{
  g_return_val_if_fail (nps != NULL && nps->n_radial > 0, NAN);
  double df = 1.0 / (nps->n * nps->pixel_mm);
  double t = f / df;
  if (!(t > 0))
    return nps->radial_nps[0];
  if (t >= nps->n_radial - 1)
    return nps->radial_nps[nps->n_radial - 1];
  guint k = (guint) t;
  double w = t - k;
  return (1 - w) * nps->radial_nps[k] + w * nps->radial_nps[k + 1];
}
