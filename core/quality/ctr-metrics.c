/* ctr-metrics.c — image quality against a reference, and line profiles.
 *
 * SSIM follows Wang, Bovik, Sheikh & Simoncelli 2004 (IEEE TIP 13(4) 600-612,
 * Eq. 13 with the Gaussian window of §III.B) in the exact form of
 * scikit-image 0.19.3 structural_similarity(gaussian_weights=True, sigma=1.5,
 * use_sample_covariance=False, data_range=R):
 *
 *   w(k) = exp(-k²/(2σ²)) / Σ exp(...),  k = -5..5   (scipy gaussian_filter1d,
 *          radius int(3.5·1.5 + 0.5) = 5, separable: rows then columns)
 *   μx = w∗x, μy = w∗y, σx² = w∗x² − μx², σy² = w∗y² − μy², σxy = w∗xy − μxμy
 *   S = (2μxμy + C1)(2σxy + C2) / ((μx² + μy² + C1)(σx² + σy² + C2)),
 *   C1 = (0.01·R)², C2 = (0.03·R)²,  SSIM = mean of S over the pixels at
 *   least 5 from every border.
 *
 * scikit-image filters the whole image with mode 'reflect' and then crops
 * 5 pixels; every pixel that survives the crop has its whole 11×11 window
 * inside the image, so the border mode never enters the result and we filter
 * only the interior.  We compute in double; scikit-image works in the input's
 * float type (float32 for float32 images), so the two differ by float32
 * rounding, far below the 1e-4 the tests allow.
 */
#include "quality/ctr-metrics.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define SSIM_SIGMA 1.5
#define SSIM_RADIUS 5                   /* int (3.5 * 1.5 + 0.5) */
#define SSIM_TAPS CTR_SSIM_TAPS
G_STATIC_ASSERT (SSIM_TAPS == 2 * SSIM_RADIUS + 1);
/* SSIM's moment planes are made a band of rows at a time (see
 * ctr_metrics_ssim_full): at most this many bytes a band ... */
#define SSIM_BAND_BYTES ((gsize) 4 << 20)
/* ... and never fewer output rows than this (a very wide image). */
#define SSIM_BAND_MIN_ROWS 16
#define SSIM_K1 0.01
#define SSIM_K2 0.03

/* Mean of (img − ref)² over @mask (all when NULL); NaN when no pixel counts. */
static double
mean_squared_error (const float *img, const float *ref, gsize n, const guint8 *mask)
{
  double sum = 0.0;
  gsize count = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (mask != NULL && !mask[i])
        continue;
      double d = (double) img[i] - (double) ref[i];
      sum += d * d;
      count++;
    }
  return count > 0 ? sum / (double) count : NAN;
}

double
ctr_metrics_rmse (const float *img, const float *ref, gsize n, const guint8 *mask)
{
  g_return_val_if_fail (n == 0 || (img != NULL && ref != NULL), NAN);
  return sqrt (mean_squared_error (img, ref, n, mask));
}

double
ctr_metrics_psnr (const float *img, const float *ref, gsize n, double data_range,
                  const guint8 *mask)
{
  g_return_val_if_fail (n == 0 || (img != NULL && ref != NULL), NAN);
  double mse = mean_squared_error (img, ref, n, mask);
  /* mse == 0 gives +inf, as scikit-image does. */
  return 10.0 * log10 (data_range * data_range / mse);
}

double
ctr_metrics_pearson (const float *a, const float *b, gsize n, const guint8 *mask)
{
  g_return_val_if_fail (n == 0 || (a != NULL && b != NULL), NAN);
  /* Two passes (means, then centred sums): no cancellation for data with a
   * large offset, such as attenuation images. */
  double sa = 0.0, sb = 0.0;
  gsize count = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (mask != NULL && !mask[i])
        continue;
      sa += a[i];
      sb += b[i];
      count++;
    }
  if (count == 0)
    return NAN;
  double ma = sa / (double) count, mb = sb / (double) count;
  double saa = 0.0, sbb = 0.0, sab = 0.0;
  for (gsize i = 0; i < n; i++)
    {
      if (mask != NULL && !mask[i])
        continue;
      double da = a[i] - ma, db = b[i] - mb;
      saa += da * da;
      sbb += db * db;
      sab += da * db;
    }
  /* A constant image has no correlation: 0/0 = NaN. */
  return sab / sqrt (saa * sbb);
}

static void
ssim_kernel (double w[SSIM_TAPS])
{
  double sum = 0.0;
  for (int k = -SSIM_RADIUS; k <= SSIM_RADIUS; k++)
    {
      w[k + SSIM_RADIUS] = exp (-0.5 * k * k / (SSIM_SIGMA * SSIM_SIGMA));
      sum += w[k + SSIM_RADIUS];
    }
  for (int k = 0; k < SSIM_TAPS; k++)
    w[k] /= sum;
}

/* The horizontal pass of SSIM's five moments about @off over image rows
 * [@y0, @y0 + @rows), into @h (five planes of @plane doubles, row r at
 * r·onx); @scratch holds each thread's source rows. */
static void
ssim_rows_horizontal (const float *img, const float *ref, guint nx, double off, const double w[SSIM_TAPS],
                      gsize y0, gsize rows, double *h, gsize plane, double *scratch, gsize per_thread, guint T)
{
  const gsize onx = nx - 2 * SSIM_RADIUS;
#pragma omp parallel num_threads(T)
  {
    double *src = scratch + per_thread * (gsize) omp_get_thread_num ();
#pragma omp for schedule(static)
    for (gsize r = 0; r < rows; r++)
      {
        const float *a = img + (y0 + r) * nx;
        const float *b = ref + (y0 + r) * nx;
        for (gsize x = 0; x < nx; x++)
          {
            const double va = a[x] - off, vb = b[x] - off;
            src[x] = va;
            src[nx + x] = vb;
            src[2 * nx + x] = va * va;
            src[3 * nx + x] = vb * vb;
            src[4 * nx + x] = va * vb;
          }
        for (int c = 0; c < 5; c++)
          {
            const double *restrict sc = src + (gsize) c * nx;
            double *restrict out = h + c * plane + r * onx;
            for (gsize ox = 0; ox < onx; ox++)
              out[ox] = 0.0;
            for (int k = 0; k < SSIM_TAPS; k++)
              for (gsize ox = 0; ox < onx; ox++)
                out[ox] += w[k] * sc[ox + k];
          }
      }
  }
}

/* The vertical pass and the SSIM map of output rows [@oy0, @oy1) from the
 * band @h whose first row is image row @oy0: one sum per output row into
 * @row_sum (summed in order afterwards, so the result does not depend on
 * the thread count). */
static void
ssim_rows_vertical (const double *h, gsize plane, gsize onx, gsize oy0, gsize oy1, const double w[SSIM_TAPS],
                    double c1, double c2, double off, double *row_sum, double *scratch, gsize per_thread, guint T)
{
  const gsize nx = onx + 2 * SSIM_RADIUS;
#pragma omp parallel num_threads(T)
  {
    double *m = scratch + per_thread * (gsize) omp_get_thread_num () + nx * 5;
#pragma omp for schedule(static)
    for (gsize oy = oy0; oy < oy1; oy++)
      {
        for (int c = 0; c < 5; c++)
          {
            double *restrict mc = m + (gsize) c * onx;
            for (gsize ox = 0; ox < onx; ox++)
              mc[ox] = 0.0;
            for (int k = 0; k < SSIM_TAPS; k++)
              {
                const double *restrict hk = h + c * plane + (oy - oy0 + k) * onx;
                for (gsize ox = 0; ox < onx; ox++)
                  mc[ox] += w[k] * hk[ox];
              }
          }
        double acc = 0.0;
        for (gsize ox = 0; ox < onx; ox++)
          {
            const double sx = m[ox], sy = m[onx + ox];   /* means about off */
            /* Variances are >= 0; rounding must not make them negative. */
            double vx = MAX (m[2 * onx + ox] - sx * sx, 0.0), vy = MAX (m[3 * onx + ox] - sy * sy, 0.0);
            double vxy = m[4 * onx + ox] - sx * sy;
            const double ux = sx + off, uy = sy + off;
            double a1 = 2 * ux * uy + c1, a2 = 2 * vxy + c2;
            double b1 = ux * ux + uy * uy + c1, b2 = vx + vy + c2;
            acc += (a1 * a2) / (b1 * b2);
          }
        row_sum[oy] = acc;
      }
  }
}

/* The doubles of ctr_metrics_ssim_full's buffers for an @nx × @ny image
 * (both at least SSIM_TAPS) and @T threads, allocated up front: the band's
 * five planes, the row sums, and each thread's source rows (5 nx) and
 * window sums (5 onx); *@band output rows a band, *@plane doubles a plane,
 * *@per_thread a thread's. */
static guint64
ssim_buffers (guint nx, guint ny, guint T, gsize *band, gsize *plane, gsize *per_thread)
{
  const gsize onx = nx - 2 * SSIM_RADIUS, ony = ny - 2 * SSIM_RADIUS;
  *band = MAX ((gsize) SSIM_BAND_MIN_ROWS, SSIM_BAND_BYTES / (5 * sizeof (double) * onx) > 2 * SSIM_RADIUS
                                             ? SSIM_BAND_BYTES / (5 * sizeof (double) * onx) - 2 * SSIM_RADIUS
                                             : 0);
  *plane = (MIN (*band, ony) + 2 * SSIM_RADIUS) * onx;
  *per_thread = (gsize) nx * 5 + onx * 5;
  return ctr_memory_add (ctr_memory_add (ctr_memory_mul (*plane, 5), ony), ctr_memory_mul (T, *per_thread));
}

guint64
ctr_quality_work_bytes (const CtrGrid *grid, double radius_mm)
{
  g_return_val_if_fail (grid != NULL, 0);
  guint64 bytes = 0;
  if (radius_mm > 0)  /* the disc mask and the masked slice */
    bytes = ctr_memory_mul (ctr_grid_slice_size (grid), sizeof (guint8) + sizeof (float));
  if (grid->nx >= SSIM_TAPS && grid->ny >= SSIM_TAPS)
    {
      gsize band, plane, per_thread;
      const guint T = (guint) MAX (1, omp_get_max_threads ());
      bytes = ctr_memory_add (bytes, ctr_memory_mul (ssim_buffers (grid->nx, grid->ny, T, &band, &plane, &per_thread),
                                                     sizeof (double)));
    }
  return bytes;
}

gboolean
ctr_metrics_ssim_full (const float *img, const float *ref, guint nx, guint ny, double data_range,
                       double *ssim, GError **error)
{
  g_return_val_if_fail (img != NULL && ref != NULL && ssim != NULL, FALSE);
  *ssim = NAN;
  double w[SSIM_TAPS], c1, c2;
  if (!ctr_metrics_ssim_window (nx, ny, data_range, w, &c1, &c2))
    return TRUE;  /* undefined: no window, or C1 = C2 = 0 */

  /* Output (cropped) region: columns and rows SSIM_RADIUS .. n − 1 − SSIM_RADIUS. */
  const gsize onx = nx - 2 * SSIM_RADIUS, ony = ny - 2 * SSIM_RADIUS;

  /* The moments are taken about the reference's mean @off, not about 0:
   * σ² = E[(x−off)²] − (E[x]−off)² is the same number, but without the
   * cancellation that makes E[x²] − E[x]² of an image with a large offset
   * and little contrast come out negative (and SSIM above 1). */
  double off = 0.0;
  for (gsize i = 0; i < (gsize) nx * ny; i++)
    off += ref[i];
  off /= (double) nx * ny;

  /* Horizontal pass, only for the output columns: five planes (x, y, x²,
   * y², xy) of a band's rows × onx, plane by plane so that the passes run
   * along contiguous rows (vectorised over the output columns; each output
   * still sums its taps in order, so the result is that of the plain loop).
   * A band of output rows needs its rows and SSIM_RADIUS more on each side:
   * bands of SSIM_BAND_BYTES at most (at least SSIM_BAND_MIN_ROWS output
   * rows) keep the work space of a 2048² image near 4 MiB instead of 159
   * MiB of whole planes; every output row is summed as before, so the
   * result does not depend on the band's height. */
  gsize band, plane, per_thread;
  const guint T = (guint) MAX (1, omp_get_max_threads ());
  const guint64 n_doubles = ssim_buffers (nx, ny, T, &band, &plane, &per_thread);
  g_autofree char *what = g_strdup_printf ("the SSIM buffers of %u × %u pixels", nx, ny);
  g_autofree double *buf = ctr_memory_try_new (n_doubles, sizeof (double), FALSE, what, error);
  if (buf == NULL)
    return FALSE;
  double *h = buf, *row_sum = buf + plane * 5, *scratch = row_sum + ony;

  for (gsize oy0 = 0; oy0 < ony; oy0 += band)
    {
      const gsize oy1 = MIN (ony, oy0 + band), rows = oy1 - oy0 + 2 * SSIM_RADIUS;
      ssim_rows_horizontal (img, ref, nx, off, w, oy0, rows, h, plane, scratch, per_thread, T);
      ssim_rows_vertical (h, plane, onx, oy0, oy1, w, c1, c2, off, row_sum, scratch, per_thread, T);
    }

  double total = 0.0;
  for (gsize oy = 0; oy < ony; oy++)
    total += row_sum[oy];
  /* Each local S lies in [-1, 1] (Cauchy-Schwarz); only rounding can move
   * the mean past the bounds, and an SSIM above 1 is never reported. */
  *ssim = CLAMP (total / ((double) onx * (double) ony), -1.0, 1.0);
  return TRUE;
}

double
ctr_metrics_ssim (const float *img, const float *ref, guint nx, guint ny, double data_range)
{
  double ssim = NAN;
  ctr_metrics_ssim_full (img, ref, nx, ny, data_range, &ssim, NULL);
  return ssim;
}

/* Pixel centres exactly on the circle count as inside; the tiny relative
 * tolerance keeps that true when the radius was computed in mm from a
 * whole number of pixels (e.g. 128 × 0.95703125 = 122.5 mm). */
static inline gboolean
in_disc (const CtrGrid *grid, double radius_mm, guint ix, guint iy)
{
  const double r2 = radius_mm * radius_mm * (1.0 + 1e-12);
  const double x = ctr_grid_x (grid, ix) - grid->cx, y = ctr_grid_y (grid, iy) - grid->cy;
  return x * x + y * y <= r2;
}

guint8 *
ctr_metrics_disc_mask (const CtrGrid *grid, double radius_mm, GError **error)
{
  g_return_val_if_fail (grid != NULL, NULL);
  g_autofree char *what = g_strdup_printf ("the disc mask of %u × %u pixels", grid->nx, grid->ny);
  guint8 *mask = ctr_memory_try_new (ctr_grid_slice_size (grid), 1, TRUE, what, error);
  if (mask == NULL)
    return NULL;
  for (guint iy = 0; iy < grid->ny; iy++)
    for (guint ix = 0; ix < grid->nx; ix++)
      mask[(gsize) iy * grid->nx + ix] = in_disc (grid, radius_mm, ix, iy);
  return mask;
}

gboolean
ctr_quality_sum_slices (const CtrVolume *img, const CtrVolume *ref, double radius_mm,
                        double data_range, CtrQuality *sums, GError **error)
{
  g_return_val_if_fail (img != NULL && ref != NULL && sums != NULL, FALSE);
  if (!ctr_grid_equal (&img->grid, &ref->grid))
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                           "the image and the reference are not on the same grid");
      return FALSE;
    }

  const CtrGrid *g = &ref->grid;
  const gsize n = ctr_grid_slice_size (g);
  g_autofree guint8 *mask = NULL;
  g_autofree float *masked = NULL;
  if (radius_mm > 0)
    {
      g_autofree char *what = g_strdup_printf ("the masked slice of %u × %u pixels", g->nx, g->ny);
      if ((mask = ctr_metrics_disc_mask (g, radius_mm, error)) == NULL
          || (masked = ctr_memory_try_new (n, sizeof (float), FALSE, what, error)) == NULL)
        return FALSE;
    }

  sums->rmse = sums->psnr = sums->ssim = 0.0;
  for (guint z = 0; z < g->nz; z++)
    {
      const float *a = ctr_volume_slice (img, z);
      const float *b = ctr_volume_slice (ref, z);
      if (mask != NULL)
        {
          for (gsize i = 0; i < n; i++)
            masked[i] = mask[i] ? a[i] : 0.0f;
          a = masked;
        }
      sums->rmse += ctr_metrics_rmse (a, b, n, mask);
      sums->psnr += ctr_metrics_psnr (a, b, n, data_range, mask);
      double ssim;
      if (!ctr_metrics_ssim_full (a, b, g->nx, g->ny, data_range, &ssim, error))
        return FALSE;
      sums->ssim += ssim;
    }
  return TRUE;
}

gboolean
ctr_quality_compute (const CtrVolume *img, const CtrVolume *ref, double radius_mm,
                     CtrQuality *out, GError **error)
{
  g_return_val_if_fail (img != NULL && ref != NULL && out != NULL, FALSE);
  /* One data range for the whole reference volume (for one slice, the
   * protocol's reference.max() − reference.min()). */
  float lo, hi;
  ctr_volume_range (ref, &lo, &hi);
  CtrQuality sums;
  if (!ctr_quality_sum_slices (img, ref, radius_mm, (double) hi - (double) lo, &sums, error))
    return FALSE;
  const guint nz = ref->grid.nz;
  out->rmse = sums.rmse / nz;
  out->psnr = sums.psnr / nz;
  out->ssim = sums.ssim / nz;
  return TRUE;
}

gboolean
ctr_metrics_ssim_window (guint nx, guint ny, double data_range, double w[CTR_SSIM_TAPS], double *c1, double *c2)
{
  ssim_kernel (w);
  *c1 = *c2 = 0.0;
  if (nx < SSIM_TAPS || ny < SSIM_TAPS || !(data_range > 0) || !isfinite (data_range))
    return FALSE;
  *c1 = (SSIM_K1 * data_range) * (SSIM_K1 * data_range);
  *c2 = (SSIM_K2 * data_range) * (SSIM_K2 * data_range);
  return TRUE;
}

void
ctr_quality_from_slices (const CtrGrid *grid, double radius_mm, const double *ssd, const double *ssim_sum,
                         double data_range, CtrQuality *out)
{
  g_return_if_fail (grid != NULL && ssd != NULL && ssim_sum != NULL && out != NULL);
  gsize count = ctr_grid_slice_size (grid);
  if (radius_mm > 0)
    {
      count = 0;
      for (guint iy = 0; iy < grid->ny; iy++)
        for (guint ix = 0; ix < grid->nx; ix++)
          count += in_disc (grid, radius_mm, ix, iy);
    }
  double w[SSIM_TAPS], c1, c2;
  const gboolean ssim_defined = ctr_metrics_ssim_window (grid->nx, grid->ny, data_range, w, &c1, &c2);
  const double n_map = ssim_defined ? (double) (grid->nx - 2 * SSIM_RADIUS) * (grid->ny - 2 * SSIM_RADIUS) : 0.0;
  CtrQuality sums = { 0.0, 0.0, 0.0 };
  for (guint z = 0; z < grid->nz; z++)
    {
      const double mse = count > 0 ? ssd[z] / (double) count : NAN;
      sums.rmse += sqrt (mse);
      /* mse == 0 gives +inf, as ctr_metrics_psnr */
      sums.psnr += 10.0 * log10 (data_range * data_range / mse);
      sums.ssim += ssim_defined ? CLAMP (ssim_sum[z] / n_map, -1.0, 1.0) : NAN;
    }
  out->rmse = sums.rmse / grid->nz;
  out->psnr = sums.psnr / grid->nz;
  out->ssim = sums.ssim / grid->nz;
}

void
ctr_profile_sample (const CtrVolume *v, guint z, double x0, double y0,
                    double x1, double y1, guint n, float *out, double *out_s)
{
  g_return_if_fail (v != NULL && out != NULL && n >= 2);
  g_return_if_fail (z < v->grid.nz);

  const CtrGrid *g = &v->grid;
  const float *img = ctr_volume_slice (v, z);
  const double length = hypot (x1 - x0, y1 - y0);
  for (guint k = 0; k < n; k++)
    {
      double t = (double) k / (double) (n - 1);
      double x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
      /* mm → continuous index (inverse of ctr_grid_x / ctr_grid_y) */
      double fx = (x - g->cx) / g->dx + (g->nx - 1) * 0.5;
      double fy = (g->ny - 1) * 0.5 - (y - g->cy) / g->dy;
      out[k] = (float) ctr_image_sample_bilinear (img, g->nx, g->ny, fx, fy);
      if (out_s != NULL)
        out_s[k] = t * length;
    }
}
