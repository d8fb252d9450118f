/* test-metrics.c — RMSE, PSNR, SSIM, Pearson, disc mask, profiles, quality.
 *
 * Values here are computed by hand; the agreement with scikit-image on real
 * images is tested by tests/oracles/metrics_vs_skimage.py.
 */
#include <math.h>

#include "ctrecon.h"
#include "ctr-test-memory.h"

static CtrVolume *
new_image (guint nx, guint ny, double pixel_mm)
{
  CtrGrid g = { nx, ny, 1, pixel_mm, pixel_mm, pixel_mm, 0, 0, 0 };
  g_autoptr (GError) error = NULL;
  CtrVolume *v = ctr_volume_new (&g, &error);
  g_assert_no_error (error);
  return v;
}

/* A smooth, non-trivial test image with a deterministic pseudo-random texture. */
static void
fill_pattern (float *p, guint nx, guint ny, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  for (guint y = 0; y < ny; y++)
    for (guint x = 0; x < nx; x++)
      p[y * nx + x] = (float) (0.5 + 0.3 * sin (x * 0.21) * cos (y * 0.13)
                               + 0.05 * g_rand_double (rand));
  g_rand_free (rand);
}

static void
test_rmse_psnr (void)
{
  const float img[4] = { 1, 2, 3, 4 };
  const float ref[4] = { 1, 2, 3, 6 };
  /* MSE = 4/4 = 1 */
  g_assert_cmpfloat_with_epsilon (ctr_metrics_rmse (img, ref, 4, NULL), 1.0, 1e-12);
  /* PSNR = 10 log10(10² / 1) = 20 dB */
  g_assert_cmpfloat_with_epsilon (ctr_metrics_psnr (img, ref, 4, 10.0, NULL), 20.0, 1e-12);

  const float img2[4] = { 0, 0, 0, 0 };
  const float ref2[4] = { 1, -1, 3, -3 };
  /* MSE = (1 + 1 + 9 + 9)/4 = 5 */
  g_assert_cmpfloat_with_epsilon (ctr_metrics_rmse (img2, ref2, 4, NULL), sqrt (5.0), 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_metrics_psnr (img2, ref2, 4, 6.0, NULL),
                                  10.0 * log10 (36.0 / 5.0), 1e-12);

  /* Identical images: RMSE 0, PSNR +inf. */
  g_assert_cmpfloat (ctr_metrics_rmse (img, img, 4, NULL), ==, 0.0);
  g_assert_true (isinf (ctr_metrics_psnr (img, img, 4, 1.0, NULL)));
}

static void
test_rmse_mask (void)
{
  const float img[4] = { 1, 2, 3, 4 };
  const float ref[4] = { 1, 2, 5, 100 };
  const guint8 mask[4] = { 1, 1, 1, 0 };
  /* over the first three: MSE = 4/3 */
  g_assert_cmpfloat_with_epsilon (ctr_metrics_rmse (img, ref, 4, mask), sqrt (4.0 / 3.0), 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_metrics_psnr (img, ref, 4, 2.0, mask),
                                  10.0 * log10 (4.0 / (4.0 / 3.0)), 1e-12);
  const guint8 none[4] = { 0, 0, 0, 0 };
  g_assert_true (isnan (ctr_metrics_rmse (img, ref, 4, none)));
}

static void
test_pearson (void)
{
  const float a[5] = { 1, 2, 3, 4, 5 };
  const float b[5] = { 12, 14, 16, 18, 20 };     /* 2a + 10 */
  const float c[5] = { 5, 4, 3, 2, 1 };
  g_assert_cmpfloat_with_epsilon (ctr_metrics_pearson (a, b, 5, NULL), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_metrics_pearson (a, c, 5, NULL), -1.0, 1e-12);
  /* a = (1,2,3), d = (1,3,2): cov = 0.5·(…) → r = 0.5 */
  const float d[3] = { 1, 3, 2 };
  g_assert_cmpfloat_with_epsilon (ctr_metrics_pearson (a, d, 3, NULL), 0.5, 1e-12);
  const guint8 mask[5] = { 1, 1, 1, 0, 0 };
  const float e[5] = { 1, 3, 2, -50, 70 };
  g_assert_cmpfloat_with_epsilon (ctr_metrics_pearson (a, e, 5, mask), 0.5, 1e-12);
}

static void
test_ssim_identity (void)
{
  const guint n = 64;
  g_autofree float *x = g_new (float, n * n);
  fill_pattern (x, n, n, 1);
  g_assert_cmpfloat_with_epsilon (ctr_metrics_ssim (x, x, n, n, 1.0), 1.0, 1e-12);
}

static void
test_ssim_symmetric (void)
{
  const guint nx = 48, ny = 37;
  g_autofree float *x = g_new (float, nx * ny);
  g_autofree float *y = g_new (float, nx * ny);
  fill_pattern (x, nx, ny, 1);
  fill_pattern (y, nx, ny, 2);
  double s1 = ctr_metrics_ssim (x, y, nx, ny, 1.0);
  double s2 = ctr_metrics_ssim (y, x, nx, ny, 1.0);
  g_assert_cmpfloat (s1, <, 1.0);
  g_assert_cmpfloat (s1, >, 0.0);
  g_assert_cmpfloat_with_epsilon (s1, s2, 1e-12);
}

static void
test_ssim_noise (void)
{
  const guint n = 96;
  g_autofree float *x = g_new (float, n * n);
  g_autofree float *y = g_new (float, n * n);
  fill_pattern (x, n, n, 1);
  GRand *rand = g_rand_new_with_seed (7);
  double prev = 1.0;
  for (int level = 1; level <= 4; level++)
    {
      double sigma = 0.02 * level;
      for (guint i = 0; i < n * n; i++)
        {
          /* Box–Muller */
          double u1 = g_rand_double_range (rand, 1e-12, 1.0), u2 = g_rand_double (rand);
          y[i] = x[i] + (float) (sigma * sqrt (-2 * log (u1)) * cos (2 * G_PI * u2));
        }
      double s = ctr_metrics_ssim (y, x, n, n, 1.0);
      g_assert_cmpfloat (s, <, prev);
      prev = s;
    }
  g_rand_free (rand);
  g_assert_cmpfloat (prev, <, 0.9);
}

static void
test_ssim_constant (void)
{
  /* Two constant images c1, c2: every window has σ = 0, so
   * SSIM = (2 c1 c2 + C1) / (c1² + c2² + C1), C1 = (0.01 L)². */
  const guint nx = 20, ny = 15;
  const double c1 = 0.3, c2 = 0.5, L = 2.0;
  g_autofree float *a = g_new (float, nx * ny);
  g_autofree float *b = g_new (float, nx * ny);
  for (guint i = 0; i < nx * ny; i++)
    {
      a[i] = (float) c1;
      b[i] = (float) c2;
    }
  double C1 = (0.01 * L) * (0.01 * L);
  double fc1 = (float) c1, fc2 = (float) c2;
  double expect = (2 * fc1 * fc2 + C1) / (fc1 * fc1 + fc2 * fc2 + C1);
  g_assert_cmpfloat_with_epsilon (ctr_metrics_ssim (a, b, nx, ny, L), expect, 1e-9);
  /* too small for the 11 × 11 window */
  g_assert_true (isnan (ctr_metrics_ssim (a, b, 10, 15, L)));
  g_assert_true (isnan (ctr_metrics_ssim (a, b, 15, 10, L)));
}

/* SSIM straight from Wang et al. 2004 (Eq. 13): every output pixel's 11 × 11
 * window summed in two dimensions, moments about the reference's mean. */
static double
ssim_direct (const float *x, const float *y, guint nx, guint ny, double range)
{
  double w[CTR_SSIM_TAPS], c1, c2, off = 0.0, total = 0.0;
  const int r = CTR_SSIM_TAPS / 2;
  g_assert_true (ctr_metrics_ssim_window (nx, ny, range, w, &c1, &c2));
  for (gsize i = 0; i < (gsize) nx * ny; i++)
    off += y[i];
  off /= (double) nx * ny;
  for (guint oy = r; oy + r < ny; oy++)
    for (guint ox = r; ox + r < nx; ox++)
      {
        double m[5] = { 0 };
        for (int j = -r; j <= r; j++)
          for (int i = -r; i <= r; i++)
            {
              const gsize q = (gsize) (oy + j) * nx + ox + i;
              const double wk = w[j + r] * w[i + r], a = x[q] - off, b = y[q] - off;
              m[0] += wk * a;
              m[1] += wk * b;
              m[2] += wk * a * a;
              m[3] += wk * b * b;
              m[4] += wk * a * b;
            }
        const double ux = m[0] + off, uy = m[1] + off;
        const double vx = MAX (m[2] - m[0] * m[0], 0.0), vy = MAX (m[3] - m[1] * m[1], 0.0);
        const double vxy = m[4] - m[0] * m[1];
        total += (2 * ux * uy + c1) * (2 * vxy + c2) / ((ux * ux + uy * uy + c1) * (vx + vy + c2));
      }
  return total / ((double) (nx - 2 * r) * (ny - 2 * r));
}

/* A wide image's SSIM is made a band of rows at a time (2048 columns: 41
 * output rows a band, here 41, 41 and 28): the same number as the direct sum
 * over every window, and a change in the last band's rows moves it. */
static void
test_ssim_bands (void)
{
  const guint nx = 2048, ny = 120;
  g_autofree float *x = g_new (float, (gsize) nx * ny);
  g_autofree float *y = g_new (float, (gsize) nx * ny);
  fill_pattern (x, nx, ny, 5);
  fill_pattern (y, nx, ny, 6);
  const double s = ctr_metrics_ssim (x, y, nx, ny, 1.0), d = ssim_direct (x, y, nx, ny, 1.0);
  g_test_message ("SSIM of 2048 × 120 in bands %.15f, direct %.15f", s, d);
  g_assert_cmpfloat_with_epsilon (s, d, 1e-12);
  for (guint q = (ny - 8) * nx; q < (ny - 4) * nx; q++)
    x[q] = 0.f;
  const double s2 = ctr_metrics_ssim (x, y, nx, ny, 1.0);
  g_assert_cmpfloat (s2, <, s - 1e-3);
  g_assert_cmpfloat_with_epsilon (s2, ssim_direct (x, y, nx, ny, 1.0), 1e-12);
}

/* SSIM of a 2048² image (its five moment planes, 159 MiB whole) in 24 MiB
 * of address space above the two images: a reconstruction's live SSIM
 * against its reference must not need more than the run's own memory plan
 * counts (PWLS at 2048² peaked 273 MiB above its estimate).  Before the
 * planes were made a band at a time it failed here with
 * CTR_ERROR_OUT_OF_MEMORY. */
static void
test_ssim_memory (void)
{
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  const guint n = 2048;
  g_autofree float *x = g_new (float, (gsize) n * n);
  g_autofree float *y = g_new (float, (gsize) n * n);
  g_autoptr (GError) error = NULL;
  double small, ssim = NAN;
  fill_pattern (x, n, n, 7);
  fill_pattern (y, n, n, 8);
  /* the threads' stacks reserved before the limit */
  g_assert_true (ctr_metrics_ssim_full (x, y, 64, 64, 1.0, &small, NULL));
  test_limit_room (24u << 20);
  g_assert_true (ctr_metrics_ssim_full (x, y, n, n, 1.0, &ssim, &error));
  g_assert_no_error (error);
  g_assert_true (isfinite (ssim) && ssim > 0.5 && ssim < 1.0);
}

/* What ctr_quality_work_bytes counts (the memory plan's share for the
 * metrics, issue 36) covers what ctr_quality_compute allocates: a 2048²
 * slice with a disc mask computes within that many bytes of address space
 * above its two volumes (and 1 MiB for the allocator's rounding), and
 * fails with CTR_ERROR_OUT_OF_MEMORY within half of it (the limit bites). */
static void
test_quality_work_bytes (void)
{
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  for (guint half = 0; half < 2; half++)
    {
      g_autofree char *path = g_strdup_printf ("/ctr/core/metrics/quality/work-bytes/subprocess/%u", half);
      g_test_trap_subprocess (path, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
    }
}

static void
quality_work_bytes_case (gconstpointer half)
{
  const CtrGrid g = ctr_grid_square (2048, 0.1, 1, 1.0);
  const double radius = 100.0;
  g_autoptr (CtrVolume) img = ctr_volume_new (&g, NULL);
  g_autoptr (CtrVolume) ref = ctr_volume_new (&g, NULL);
  fill_pattern (img->data, g.nx, g.ny, 7);
  fill_pattern (ref->data, g.nx, g.ny, 8);
  const guint64 work = ctr_quality_work_bytes (&g, radius);
  g_assert_cmpuint (work, >, (guint64) g.nx * g.ny * 5);  /* the mask and the masked slice at least */
  /* the threads' stacks reserved before the limit */
  const CtrGrid small_grid = ctr_grid_square (64, 0.1, 1, 1.0);
  g_autoptr (CtrVolume) si = ctr_volume_new (&small_grid, NULL);
  g_autoptr (CtrVolume) sr = ctr_volume_new (&small_grid, NULL);
  fill_pattern (si->data, 64, 64, 7);
  fill_pattern (sr->data, 64, 64, 8);
  CtrQuality q;
  g_assert_true (ctr_quality_compute (si, sr, 3.0, &q, NULL));
  g_autoptr (GError) error = NULL;
  if (GPOINTER_TO_INT (half))
    {
      test_limit_room (work / 2);
      g_assert_false (ctr_quality_compute (img, ref, radius, &q, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      return;
    }
  test_limit_room (work + (1u << 20));
  g_assert_true (ctr_quality_compute (img, ref, radius, &q, &error));
  g_assert_no_error (error);
  g_assert_true (q.ssim > 0.5 && q.ssim < 1.0 && q.rmse > 0);
}

static void
test_ssim_border_crop (void)
{
  /* The mean runs over the pixels at least 5 from the border, but their
   * 11 × 11 windows reach the border: the corner pixel (0, 0) lies in the
   * window of the first output pixel (5, 5) and so does count. */
  const guint n = 40;
  g_autofree float *x = g_new (float, n * n);
  g_autofree float *y = g_new (float, n * n);
  fill_pattern (x, n, n, 3);
  fill_pattern (y, n, n, 4);
  double s0 = ctr_metrics_ssim (x, y, n, n, 1.0);
  y[0] += 0.5f;
  g_assert_cmpfloat (ctr_metrics_ssim (x, y, n, n, 1.0), !=, s0);
  /* An 11 × 11 image has exactly one output pixel. */
  g_assert_true (isfinite (ctr_metrics_ssim (x, y, 11, 11, 1.0)));
}

static void
test_disc_mask (void)
{
  const guint n = 256;
  const double pixel = 0.95703125;
  CtrGrid g = ctr_grid_square (n, pixel, 1, 0);
  for (double r = 20.0; r <= 122.5; r += 25.625)
    {
      g_autofree guint8 *mask = ctr_metrics_disc_mask (&g, r, NULL);
      gsize count = 0;
      for (gsize i = 0; i < (gsize) n * n; i++)
        count += mask[i];
      double expect = G_PI * r * r / (pixel * pixel);
      /* the lattice-point error of a circle of R pixels is O(R^(2/3)) */
      double rp = r / pixel;
      g_assert_cmpfloat (fabs (count - expect), <, 2.0 * pow (rp, 2.0 / 3.0) + 4.0);
    }
  /* The head-fan-lowdose protocol: r <= 128 px from (127.5, 127.5). */
  g_autofree guint8 *mask = ctr_metrics_disc_mask (&g, 122.5, NULL);
  gsize count = 0;
  for (guint iy = 0; iy < n; iy++)
    for (guint ix = 0; ix < n; ix++)
      {
        double dx = ix - 127.5, dy = iy - 127.5;
        guint8 inside = dx * dx + dy * dy <= 128.0 * 128.0;
        g_assert_cmpuint (mask[iy * n + ix], ==, inside);
        count += inside;
      }
  g_assert_cmpuint (mask[0], ==, 0);
  g_assert_cmpuint (mask[128 * n + 128], ==, 1);
  g_assert_cmpuint (count, >, 51000);
}

static void
test_profile_ramp (void)
{
  /* f(x, y) = 2 + 0.5 x − 0.25 y (mm) sampled at pixel centres: bilinear
   * interpolation reproduces a linear function exactly. */
  const guint nx = 41, ny = 31;
  const double pixel = 0.8;
  g_autoptr (CtrVolume) v = new_image (nx, ny, pixel);
  v->grid.cx = 1.5;
  v->grid.cy = -2.0;
  for (guint iy = 0; iy < ny; iy++)
    for (guint ix = 0; ix < nx; ix++)
      v->data[iy * nx + ix] = (float) (2 + 0.5 * ctr_grid_x (&v->grid, ix)
                                       - 0.25 * ctr_grid_y (&v->grid, iy));
  const double x0 = -10.3, y0 = -9.1, x1 = 14.2, y1 = 7.7;
  const guint ns = 57;
  float out[57];
  double s[57];
  ctr_profile_sample (v, 0, x0, y0, x1, y1, ns, out, s);
  const double len = hypot (x1 - x0, y1 - y0);
  for (guint k = 0; k < ns; k++)
    {
      double t = (double) k / (ns - 1);
      double x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
      g_assert_cmpfloat_with_epsilon (out[k], 2 + 0.5 * x - 0.25 * y, 2e-5);
      g_assert_cmpfloat_with_epsilon (s[k], t * len, 1e-12);
    }
  /* Orientation: row 0 is +y, column 0 is −x — the top-left pixel centre. */
  ctr_profile_sample (v, 0, ctr_grid_x (&v->grid, 0), ctr_grid_y (&v->grid, 0),
                      ctr_grid_x (&v->grid, nx - 1), ctr_grid_y (&v->grid, ny - 1), 2, out, NULL);
  g_assert_cmpfloat (out[0], ==, v->data[0]);
  g_assert_cmpfloat (out[1], ==, v->data[nx * ny - 1]);
  /* Far outside the grid: 0. */
  ctr_profile_sample (v, 0, 100, 100, 200, 200, 2, out, NULL);
  g_assert_cmpfloat (out[0], ==, 0.0f);
  g_assert_cmpfloat (out[1], ==, 0.0f);
}

static void
test_profile_edge (void)
{
  /* A vertical step edge between columns 15 and 16 (0 left, 1 right), i.e.
   * at x = cx + (15.5 − (nx−1)/2)·dx.  A horizontal profile across it rises
   * linearly from the centre of column 15 to that of column 16 and is 0.5 at
   * the edge. */
  const guint nx = 32, ny = 20;
  const double pixel = 0.5;
  g_autoptr (CtrVolume) v = new_image (nx, ny, pixel);
  for (guint iy = 0; iy < ny; iy++)
    for (guint ix = 0; ix < nx; ix++)
      v->data[iy * nx + ix] = ix >= 16 ? 1.0f : 0.0f;
  const double edge = ctr_grid_x (&v->grid, 15.5);
  g_assert_cmpfloat_with_epsilon (edge, 0.0, 1e-12);
  const guint ns = 41;
  float out[41];
  double s[41];
  /* symmetric about the edge, odd count: the middle sample is on the edge */
  ctr_profile_sample (v, 0, edge - 4.0, 1.1, edge + 4.0, 1.1, ns, out, s);
  g_assert_cmpfloat_with_epsilon (out[ns / 2], 0.5, 1e-6);
  g_assert_cmpfloat_with_epsilon (s[ns / 2], 4.0, 1e-12);
  /* monotone, 0 and 1 at the ends, and symmetric: out[k] + out[n−1−k] = 1 */
  for (guint k = 0; k < ns; k++)
    {
      if (k > 0)
        g_assert_cmpfloat (out[k], >=, out[k - 1]);
      g_assert_cmpfloat_with_epsilon (out[k] + out[ns - 1 - k], 1.0, 1e-6);
    }
  g_assert_cmpfloat (out[0], ==, 0.0f);
  g_assert_cmpfloat (out[ns - 1], ==, 1.0f);
  /* the half-value crossing, found by linear interpolation between samples */
  double cross = NAN;
  for (guint k = 1; k < ns; k++)
    if (out[k - 1] < 0.5 && out[k] >= 0.5)
      {
        double f = (0.5 - out[k - 1]) / (out[k] - out[k - 1]);
        cross = s[k - 1] + f * (s[k] - s[k - 1]);
        break;
      }
  g_assert_cmpfloat_with_epsilon (cross, 4.0, 1e-6);
}

static void
test_quality (void)
{
  const guint n = 64;
  g_autoptr (CtrVolume) ref = new_image (n, n, 1.0);
  g_autoptr (CtrVolume) img = new_image (n, n, 1.0);
  fill_pattern (ref->data, n, n, 5);
  fill_pattern (img->data, n, n, 6);

  CtrQuality q;
  g_assert_true (ctr_quality_compute (img, ref, 0, &q, NULL));
  float lo, hi;
  ctr_volume_range (ref, &lo, &hi);
  double range = (double) hi - lo;
  g_assert_cmpfloat_with_epsilon (q.rmse, ctr_metrics_rmse (img->data, ref->data, n * n, NULL), 1e-15);
  g_assert_cmpfloat_with_epsilon (q.psnr, ctr_metrics_psnr (img->data, ref->data, n * n, range, NULL), 1e-12);
  g_assert_cmpfloat_with_epsilon (q.ssim, ctr_metrics_ssim (img->data, ref->data, n, n, range), 1e-15);

  /* Masked protocol: img := 0 outside the disc, RMSE inside, SSIM on the
   * whole masked image.  Garbage outside the disc must not matter. */
  const double r = 25.0;
  g_autofree guint8 *mask = ctr_metrics_disc_mask (&img->grid, r, NULL);
  g_autoptr (CtrVolume) masked = ctr_volume_copy (img);
  for (gsize i = 0; i < n * n; i++)
    if (!mask[i])
      {
        masked->data[i] = 0.0f;
        img->data[i] = 1000.0f;
      }
  g_assert_true (ctr_quality_compute (img, ref, r, &q, NULL));
  g_assert_cmpfloat_with_epsilon (q.rmse, ctr_metrics_rmse (masked->data, ref->data, n * n, mask), 1e-15);
  g_assert_cmpfloat_with_epsilon (q.ssim, ctr_metrics_ssim (masked->data, ref->data, n, n, range), 1e-15);

  /* Identical: RMSE 0, SSIM 1. */
  g_assert_true (ctr_quality_compute (ref, ref, 0, &q, NULL));
  g_assert_cmpfloat (q.rmse, ==, 0.0);
  g_assert_cmpfloat_with_epsilon (q.ssim, 1.0, 1e-12);
}

/* A reference and an image of two n × n slices of 1 mm, patterns of seeds
 * @seed + z and @seed + 10 + z; *@range: the reference's data range. */
static void
two_slices (guint n, guint seed, CtrVolume **ref, CtrVolume **img, double *range)
{
  CtrGrid g = ctr_grid_square (n, 1.0, 2, 1.0);
  *ref = ctr_volume_new (&g, NULL);
  *img = ctr_volume_new (&g, NULL);
  for (guint z = 0; z < 2; z++)
    {
      fill_pattern (ctr_volume_slice (*ref, z), n, n, seed + z);
      fill_pattern (ctr_volume_slice (*img, z), n, n, seed + 10 + z);
    }
  float lo, hi;
  ctr_volume_range (*ref, &lo, &hi);
  *range = (double) hi - lo;
}

static void
test_quality_slices (void)
{
  /* Two slices: the result is the mean of the per-slice values (data range
   * from the whole reference). */
  const guint n = 32;
  g_autoptr (CtrVolume) ref = NULL;
  g_autoptr (CtrVolume) img = NULL;
  double range, rmse = 0, ssim = 0;
  two_slices (n, 10, &ref, &img, &range);
  for (guint z = 0; z < 2; z++)
    {
      rmse += ctr_metrics_rmse (ctr_volume_slice (img, z), ctr_volume_slice (ref, z), n * n, NULL) / 2;
      ssim += ctr_metrics_ssim (ctr_volume_slice (img, z), ctr_volume_slice (ref, z), n, n, range) / 2;
    }
  CtrQuality q;
  g_assert_true (ctr_quality_compute (img, ref, 0, &q, NULL));
  g_assert_cmpfloat_with_epsilon (q.rmse, rmse, 1e-15);
  g_assert_cmpfloat_with_epsilon (q.ssim, ssim, 1e-15);
}

/* ctr_quality_from_slices (the metrics from a device's per-slice sums) =
 * ctr_quality_compute, in the disc and over every pixel; NaN where a
 * metric is undefined (an empty disc, a slice under SSIM's window). */
static void
test_quality_from_slices (void)
{
  const guint n = 32;
  g_autoptr (CtrVolume) ref = NULL;
  g_autoptr (CtrVolume) img = NULL;
  double range;
  two_slices (n, 30, &ref, &img, &range);
  const CtrGrid g = ref->grid;
  const double radii[] = { 12.0, 0.0 };
  for (guint k = 0; k < G_N_ELEMENTS (radii); k++)
    {
      g_autofree guint8 *mask = ctr_metrics_disc_mask (&g, radii[k] > 0 ? radii[k] : 1e9, NULL);
      g_autofree float *masked = g_new (float, n * n);
      double ssd[2], ssim_sum[2];
      for (guint z = 0; z < 2; z++)
        {
          const float *a = ctr_volume_slice (img, z), *b = ctr_volume_slice (ref, z);
          ssd[z] = 0;
          for (gsize i = 0; i < n * n; i++)
            {
              masked[i] = mask[i] ? a[i] : 0.f;
              ssd[z] += mask[i] ? ((double) a[i] - b[i]) * ((double) a[i] - b[i]) : 0.0;
            }
          ssim_sum[z] = ctr_metrics_ssim (masked, b, n, n, range) * (n - 10) * (n - 10);
        }
      CtrQuality q, s;
      g_assert_true (ctr_quality_compute (img, ref, radii[k], &q, NULL));
      ctr_quality_from_slices (&g, radii[k], ssd, ssim_sum, range, &s);
      g_assert_cmpfloat_with_epsilon (s.rmse, q.rmse, 1e-15);
      g_assert_cmpfloat_with_epsilon (s.psnr, q.psnr, 1e-12);
      g_assert_cmpfloat_with_epsilon (s.ssim, q.ssim, 1e-14);
    }
  /* no pixel centre within 0.1 mm of the centre (it lies between four) */
  const double ssd[2] = { 1, 1 }, ssim_sum[2] = { 0, 0 };
  CtrQuality s;
  ctr_quality_from_slices (&g, 0.1, ssd, ssim_sum, range, &s);
  g_assert_true (isnan (s.rmse) && isnan (s.psnr));
  CtrGrid small = ctr_grid_square (8, 1.0, 2, 1.0);
  ctr_quality_from_slices (&small, 0, ssd, ssim_sum, range, &s);
  g_assert_true (isfinite (s.rmse) && isnan (s.ssim));
}

static void
test_quality_grids (void)
{
  g_autoptr (CtrVolume) a = new_image (32, 32, 1.0);
  g_autoptr (CtrVolume) b = new_image (32, 33, 1.0);
  g_autoptr (CtrVolume) c = new_image (32, 32, 0.5);
  g_autoptr (CtrVolume) d = new_image (32, 32, 1.0);
  d->grid.cx = 3.0;
  CtrQuality q = { 0 };
  g_assert_false (ctr_quality_compute (a, b, 0, &q, NULL));
  g_assert_false (ctr_quality_compute (a, c, 0, &q, NULL));
  g_assert_false (ctr_quality_compute (a, d, 10, &q, NULL));
  g_assert_true (ctr_quality_compute (a, a, 0, &q, NULL));
}

static void
test_ssim_speed (void)
{
  const guint n = 512;
  g_autofree float *x = g_new (float, n * n);
  g_autofree float *y = g_new (float, n * n);
  fill_pattern (x, n, n, 1);
  fill_pattern (y, n, n, 2);
  double best = G_MAXDOUBLE, s = 0;
  for (int rep = 0; rep < 5; rep++)
    {
      gint64 t0 = g_get_monotonic_time ();
      s = ctr_metrics_ssim (x, y, n, n, 1.0);
      best = MIN (best, (g_get_monotonic_time () - t0) / 1000.0);
    }
  g_test_message ("SSIM 512 x 512: %.2f ms (best of 5), value %.6f", best, s);
  g_assert_true (isfinite (s));
  /* generous: the target is well under 50 ms; a loaded CI machine gets slack */
  g_assert_cmpfloat (best, <, 500.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/metrics/rmse-psnr", test_rmse_psnr);
  g_test_add_func ("/ctr/core/metrics/quality-from-slices", test_quality_from_slices);
  g_test_add_func ("/ctr/core/metrics/rmse-mask", test_rmse_mask);
  g_test_add_func ("/ctr/core/metrics/pearson", test_pearson);
  g_test_add_func ("/ctr/core/metrics/ssim/identity", test_ssim_identity);
  g_test_add_func ("/ctr/core/metrics/ssim/symmetric", test_ssim_symmetric);
  g_test_add_func ("/ctr/core/metrics/ssim/noise", test_ssim_noise);
  g_test_add_func ("/ctr/core/metrics/ssim/constant", test_ssim_constant);
  g_test_add_func ("/ctr/core/metrics/ssim/border", test_ssim_border_crop);
  g_test_add_func ("/ctr/core/metrics/ssim/bands", test_ssim_bands);
  g_test_add_func ("/ctr/core/metrics/ssim/memory", test_ssim_memory);
  g_test_add_func ("/ctr/core/metrics/quality/work-bytes", test_quality_work_bytes);
  g_test_add_data_func ("/ctr/core/metrics/quality/work-bytes/subprocess/0", GINT_TO_POINTER (0),
                        quality_work_bytes_case);
  g_test_add_data_func ("/ctr/core/metrics/quality/work-bytes/subprocess/1", GINT_TO_POINTER (1),
                        quality_work_bytes_case);
  g_test_add_func ("/ctr/core/metrics/ssim/speed", test_ssim_speed);
  g_test_add_func ("/ctr/core/metrics/disc-mask", test_disc_mask);
  g_test_add_func ("/ctr/core/metrics/profile/ramp", test_profile_ramp);
  g_test_add_func ("/ctr/core/metrics/profile/edge", test_profile_edge);
  g_test_add_func ("/ctr/core/metrics/quality/protocol", test_quality);
  g_test_add_func ("/ctr/core/metrics/quality/slices", test_quality_slices);
  g_test_add_func ("/ctr/core/metrics/quality/grids", test_quality_grids);
  return g_test_run ();
}
