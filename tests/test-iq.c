/* test-iq.c — task-based image quality (core/quality/ctr-nps.h, ctr-ttf.h,
 * ctr-detectability.h) on constructed images whose answers are known in
 * closed form: the NPS of white and of filtered noise, the TTF of a disc
 * blurred by a known Gaussian, d′_NPW for white noise against the same
 * quantity computed in the image domain (Parseval).  The comparison with
 * numpy is tests/cli/test_iq.py. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"

#define PIX 0.5   /* mm */

/* @n_img images side×side of white Gaussian noise of SD @sd (seeded). */
static float **
white_noise (guint n_img, guint side, double sd, guint64 seed)
{
  float **img = g_new (float *, n_img);
  for (guint s = 0; s < n_img; s++)
    {
      CtrRng rng;
      ctr_rng_init (&rng, seed, s);
      img[s] = g_new (float, (gsize) side * side);
      for (gsize i = 0; i < (gsize) side * side; i++)
        img[s][i] = (float) (sd * ctr_rng_normal (&rng));
    }
  return img;
}

static void
free_images (float **img, guint n)
{
  for (guint s = 0; s < n; s++)
    g_free (img[s]);
  g_free (img);
}

/* All n×n squares tiling a side×side image. */
static guint *
full_tiling (guint side, guint n, guint *count)
{
  g_autofree guint8 *mask = g_malloc ((gsize) side * side);
  memset (mask, 1, (gsize) side * side);
  return ctr_nps_tile (mask, side, side, n, count, NULL);
}

static void
test_white (void)
{
  const guint side = 256, n = 64, n_img = 32;
  const double sd = 10;
  float **img = white_noise (n_img, side, sd, 7);
  guint count;
  g_autofree guint *corners = full_tiling (side, n, &count);
  g_assert_cmpuint (count, ==, 16);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrNps) nps = ctr_nps_compute ((const float *const *) img, n_img, side, side, PIX, corners, count,
                                            n, CTR_NPS_DETREND_MEAN, 1.0, &error);
  g_assert_no_error (error);
  double flat = sd * sd * PIX * PIX, worst = 0;
  for (guint k = 2; k < nps->n_radial; k++)
    worst = MAX (worst, fabs (nps->radial_nps[k] / flat - 1));
  g_test_message ("white noise: NPS flat at σ²·dx² = %g within %.2f %% (radial bins 2…%u), variance %g (σ² = %g)",
                  flat, 100 * worst, nps->n_radial - 1, nps->variance, sd * sd);
  g_assert_cmpfloat (worst, <, 0.03);
  g_assert_cmpfloat (fabs (nps->variance / (sd * sd) - 1), <, 0.02);
  g_assert_cmpfloat (fabs (nps->noise_sd / sd - 1), <, 0.01);
  /* Flat up to Nyquist (1 cycle/mm): f_avg half of it. */
  g_assert_cmpfloat (fabs (nps->f_avg - 0.5), <, 0.02);
  /* The difference of two realisations, halved, gives the same level. */
  g_autoptr (CtrNps) diff = ctr_nps_difference (img[0], img[1], side, side, PIX, corners, count, n,
                                                CTR_NPS_DETREND_PLANE, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (diff->variance / (sd * sd) - 1), <, 0.05);
  free_images (img, n_img);
}

/* Separable [¼ ½ ¼] circular filter: H(f) = (½ + ½ cos 2π f dx) per axis. */
static void
test_filtered (void)
{
  const guint side = 256, n = 64, n_img = 48;
  const double sd = 10;
  float **img = white_noise (n_img, side, sd, 12);
  g_autofree float *tmp = g_new (float, (gsize) side * side);
  for (guint s = 0; s < n_img; s++)
    {
      float *a = img[s];
      for (guint y = 0; y < side; y++)
        for (guint x = 0; x < side; x++)
          tmp[y * side + x] = 0.25f * a[y * side + (x + side - 1) % side] + 0.5f * a[y * side + x]
                              + 0.25f * a[y * side + (x + 1) % side];
      for (guint y = 0; y < side; y++)
        for (guint x = 0; x < side; x++)
          a[y * side + x] = 0.25f * tmp[((y + side - 1) % side) * side + x] + 0.5f * tmp[y * side + x]
                            + 0.25f * tmp[((y + 1) % side) * side + x];
    }
  guint count;
  g_autofree guint *corners = full_tiling (side, n, &count);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrNps) nps = ctr_nps_compute ((const float *const *) img, n_img, side, side, PIX, corners, count,
                                            n, CTR_NPS_DETREND_MEAN, 1.0, &error);
  g_assert_no_error (error);
  /* The analytic |H|²σ²dx² on the same 2-D grid, ring-averaged the same way. */
  guint half = n / 2;
  g_autofree double *ring = g_new0 (double, half + 1);
  g_autofree guint *hits = g_new0 (guint, half + 1);
  double expected_var = 0;
  for (guint iy = 0; iy < n; iy++)
    for (guint ix = 0; ix < n; ix++)
      {
        double jx = (double) ix - half, jy = (double) iy - half;
        double hx = 0.5 + 0.5 * cos (2 * G_PI * jx / n), hy = 0.5 + 0.5 * cos (2 * G_PI * jy / n);
        double v = hx * hx * hy * hy * sd * sd * PIX * PIX;
        expected_var += v / (n * PIX * n * PIX);
        guint k = (guint) floor (sqrt (jx * jx + jy * jy) + 0.5);
        if (k <= half)
          ring[k] += v, hits[k]++;
      }
  double worst = 0, peak = sd * sd * PIX * PIX;
  for (guint k = 2; k <= half; k++)
    {
      double e = ring[k] / hits[k];
      if (e > 0.1 * peak)
        worst = MAX (worst, fabs (nps->radial_nps[k] / e - 1));
    }
  g_test_message ("filtered noise: radial NPS within %.2f %% of |H|²σ²dx² (bins above 10 %% of the peak; the ROI truncation leaks power outwards); "
                  "variance %g, analytic %g", 100 * worst, nps->variance, expected_var);
  g_assert_cmpfloat (worst, <, 0.05);
  g_assert_cmpfloat (fabs (nps->variance / expected_var - 1), <, 0.02);
  /* A low-pass: the average frequency well below the white noise's half-Nyquist. */
  g_assert_cmpfloat (nps->f_avg, <, 0.35);
  free_images (img, n_img);
}

/* The value at distance d from the centre of a unit disc of radius R blurred
 * by a Gaussian of SD s (all in pixels): ∫ φ((x−d)/s)/s · erf(√(R²−x²)/(√2 s)) dx. */
static double
blurred_disc (double d, double R, double s)
{
  double lo = MAX (-R, d - 9 * s), hi = MIN (R, d + 9 * s);
  if (lo >= hi)
    return 0;
  const int m = 600;
  double h = (hi - lo) / m, sum = 0;
  for (int i = 0; i <= m; i++)
    {
      double x = lo + i * h, u = (x - d) / s;
      double g = exp (-0.5 * u * u) / (sqrt (2 * G_PI) * s) * erf (sqrt (MAX (0.0, R * R - x * x)) / (G_SQRT2 * s));
      sum += g * (i == 0 || i == m ? 1 : (i % 2 ? 4 : 2));
    }
  return sum * h / 3;
}

static float *
disc_image (guint side, double cx, double cy, double R, double s, double contrast, double background)
{
  float *img = g_new (float, (gsize) side * side);
  for (guint y = 0; y < side; y++)
    for (guint x = 0; x < side; x++)
      img[y * side + x] = (float) (background + contrast * blurred_disc (hypot (x - cx, y - cy), R, s));
  return img;
}

static void
test_ttf (void)
{
  const guint side = 96;
  const double sigmas[] = { 0.5, 1.0, 1.5 };  /* pixels */
  for (guint i = 0; i < G_N_ELEMENTS (sigmas); i++)
    {
      double s = sigmas[i], cx = 47.3, cy = 48.6, R = 16;
      g_autofree float *img = disc_image (side, cx, cy, R, s, i == 1 ? -80 : 120, 40);
      g_autoptr (GError) error = NULL;
      const float *one[1] = { img };
      g_autoptr (CtrTtf) t = ctr_ttf_insert (one, 1, side, side, PIX, 47, 49, R, &error);
      g_assert_no_error (error);
      double s_mm = s * PIX;
      double f50 = sqrt (log (2.0) / 2) / (G_PI * s_mm), f10 = sqrt (log (10.0) / 2) / (G_PI * s_mm);
      double worst = 0;
      for (guint k = 0; k < t->n_freq; k++)
        if (t->f[k] <= f10)
          worst = MAX (worst, fabs (t->ttf[k] - exp (-2 * G_PI * G_PI * s_mm * s_mm * t->f[k] * t->f[k])));
      g_test_message ("TTF, Gaussian σ %.1f px: centre (%.3f, %.3f) for (%.1f, %.1f); f50 %.4f (%.4f, %+.2f %%), "
                      "f10 %.4f (%.4f, %+.2f %%); |TTF − MTF| ≤ %.4f up to f10", s, t->cx_px, t->cy_px, cx, cy,
                      t->f50, f50, 100 * (t->f50 / f50 - 1), t->f10, f10,
                      isnan (f10) ? NAN : 100 * (t->f10 / f10 - 1), worst);
      g_assert_cmpfloat (hypot (t->cx_px - cx, t->cy_px - cy), <, 0.05);
      g_assert_cmpfloat (fabs (t->f50 / f50 - 1), <, 0.03);
      g_assert_cmpfloat (fabs (t->contrast - (i == 1 ? -80 : 120)), <, 1);
      if (f10 < 1 / (2 * PIX))
        g_assert_cmpfloat (fabs (t->f10 / f10 - 1), <, 0.05);
    }
}

/* A noisy insert: 100 HU over noise of SD 12 HU (CNR 8 per slice), 32 slices averaged. */
static void
test_ttf_noisy (void)
{
  const guint side = 96, n_img = 32;
  double s = 1.2, R = 10, cx = 48.2, cy = 47.7;
  g_autofree float *disc = disc_image (side, cx, cy, R, s, 100, 0);
  float **img = white_noise (n_img, side, 12, 5);
  for (guint k = 0; k < n_img; k++)
    for (gsize i = 0; i < (gsize) side * side; i++)
      img[k][i] += disc[i];
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrTtf) one = ctr_ttf_insert ((const float *const *) img, 1, side, side, PIX, 48, 48, R, &error);
  g_assert_no_error (error);
  g_autoptr (CtrTtf) all = ctr_ttf_insert ((const float *const *) img, n_img, side, side, PIX, 48, 48, R, &error);
  g_assert_no_error (error);
  double f50 = sqrt (log (2.0) / 2) / (G_PI * s * PIX);
  g_test_message ("noisy insert (CNR 8): f50 %.4f from 1 slice (%+.1f %%), %.4f from %u (%+.2f %%), true %.4f; "
                  "centre off by %.3f px", one->f50, 100 * (one->f50 / f50 - 1), all->f50, n_img,
                  100 * (all->f50 / f50 - 1), f50, hypot (all->cx_px - cx, all->cy_px - cy));
  g_assert_cmpfloat (fabs (all->f50 / f50 - 1), <, 0.05);
  g_assert_cmpfloat (hypot (all->cx_px - cx, all->cy_px - cy), <, 0.1);
  free_images (img, n_img);
}

/* Noise realisations of a faint insert (+30 HU over SD 12 HU: CNR 2.5 per
 * image): @n_img images of the blurred disc plus noise seeded @seed. */
static float **
faint_insert (guint n_img, guint side, const float *disc, guint64 seed)
{
  float **img = white_noise (n_img, side, 12, seed);
  for (guint k = 0; k < n_img; k++)
    for (gsize i = 0; i < (gsize) side * side; i++)
      img[k][i] += disc[i];
  return img;
}

static double
spread (const double *v, guint n)
{
  double m = 0, ss = 0;
  for (guint i = 0; i < n; i++)
    m += v[i] / n;
  for (guint i = 0; i < n; i++)
    ss += (v[i] - m) * (v[i] - m);
  return sqrt (ss / (n - 1));
}

/* The TTF pooled over N realisations: across 24 independent repeats (fixed
 * seeds) its f50 varies far less than one image's, and it stays near the
 * Gaussian's; pooled over N copies of one image it is that image's TTF
 * bit for bit, with either centring. */
static void
test_ttf_pooled (void)
{
  enum { N = 16, REPEATS = 24 };
  const guint side = 96;
  double s = 1.2, R = 10, cx = 48.2, cy = 47.7;
  g_autofree float *disc = disc_image (side, cx, cy, R, s, 30, 0);
  const double f50 = sqrt (log (2.0) / 2) / (G_PI * s * PIX);
  double single[REPEATS], pooled[REPEATS], each[REPEATS], cnr1 = 0, cnrN = 0;
  for (guint r = 0; r < REPEATS; r++)
    {
      float **img = faint_insert (N, side, disc, 100 + r);
      const float *const *im = (const float *const *) img;
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrTtf) one = ctr_ttf_pooled (im, 1, side, side, PIX, 48, 48, R, CTR_TTF_CENTRE_COMMON, &error);
      g_assert_no_error (error);
      g_autoptr (CtrTtf) all = ctr_ttf_pooled (im, N, side, side, PIX, 48, 48, R, CTR_TTF_CENTRE_COMMON, &error);
      g_assert_no_error (error);
      g_autoptr (CtrTtf) own = ctr_ttf_pooled (im, N, side, side, PIX, 48, 48, R, CTR_TTF_CENTRE_EACH, &error);
      g_assert_no_error (error);
      single[r] = one->f50, pooled[r] = all->f50, each[r] = own->f50;
      cnr1 += one->cnr / REPEATS, cnrN += all->cnr / REPEATS;
      g_assert_cmpuint (all->n_images, ==, N);
      g_assert_cmpfloat (one->cnr, ==, one->cnr_single);
      /* The pooled CNR is the single image's × √N for independent noise. */
      g_assert_cmpfloat (fabs (all->cnr / (all->cnr_single * sqrt (N)) - 1), <, 0.25);
      if (r == 0)
        {
          /* N copies of image 0: bit for bit image 0's TTF. */
          const float *copies[N];
          for (guint k = 0; k < N; k++)
            copies[k] = img[0];
          for (int c = 0; c < 2; c++)
            {
              CtrTtfCentre centre = c ? CTR_TTF_CENTRE_EACH : CTR_TTF_CENTRE_COMMON;
              g_autoptr (CtrTtf) a = ctr_ttf_pooled (copies, 1, side, side, PIX, 48, 48, R, centre, &error);
              g_autoptr (CtrTtf) b = ctr_ttf_pooled (copies, N, side, side, PIX, 48, 48, R, centre, &error);
              g_assert_no_error (error);
              g_assert_cmpuint (a->n_esf, ==, b->n_esf);
              g_assert_cmpmem (a->esf, a->n_esf * sizeof (double), b->esf, b->n_esf * sizeof (double));
              g_assert_cmpmem (a->ttf, a->n_freq * sizeof (double), b->ttf, b->n_freq * sizeof (double));
              g_assert_cmpfloat (a->f50, ==, b->f50);
              g_assert_cmpfloat (a->f10, ==, b->f10);
              g_assert_cmpfloat (a->contrast, ==, b->contrast);
              g_assert_cmpfloat (a->cnr, ==, b->cnr);
              g_assert_cmpfloat (a->cx_px, ==, b->cx_px);
            }
        }
      free_images (img, N);
    }
  double sd1 = spread (single, REPEATS), sdN = spread (pooled, REPEATS), sdE = spread (each, REPEATS);
  double m1 = 0, mN = 0, mE = 0, lo = INFINITY, hi = -INFINITY;
  for (guint r = 0; r < REPEATS; r++)
    {
      m1 += single[r] / REPEATS, mN += pooled[r] / REPEATS, mE += each[r] / REPEATS;
      lo = MIN (lo, single[r]), hi = MAX (hi, single[r]);
    }
  g_test_message ("faint insert, %u repeats (true f50 %.4f): one image CNR %.2f, f50 %.4f ± %.4f (%.4f … %.4f); "
                  "pooled over %u CNR %.2f, f50 %.4f ± %.4f (common centre), %.4f ± %.4f (each centre)",
                  REPEATS, f50, cnr1, m1, sd1, lo, hi, N, cnrN, mN, sdN, mE, sdE);
  g_assert_cmpfloat (sdN, <, 0.5 * sd1);
  g_assert_cmpfloat (sdE, <, 0.5 * sd1);
  g_assert_cmpfloat (fabs (mN / f50 - 1), <, 0.05);
}

static double white_nps (gconstpointer data, double f) { return *(const double *) data; }
static double gauss_ttf (gconstpointer data, double f)
{
  double s = *(const double *) data;
  return exp (-2 * G_PI * G_PI * s * s * f * f);
}

static void
test_dprime (void)
{
  /* White NPS, Gaussian TTF (σ 0.5 mm), a 5 mm disc of 20 HU. */
  double n0 = 100 * PIX * PIX, s = 0.5, D = 5, C = 20;
  CtrTask task = { D, C, 0 };
  CtrDprime d;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_dprime (&task, gauss_ttf, &s, white_nps, &n0, 1 / (2 * PIX), NULL, &d, &error));
  /* For white noise d′²_NPW = ∫∫ (W·TTF)² df / N0 = ∫∫ s(x)² dx / N0 (Parseval),
   * s the disc blurred by the Gaussian: 2π ∫ (C·P(r))² r dr in the image domain. */
  const int m = 4000;
  double r_max = D / 2 + 10 * s, h = r_max / m, sum = 0;
  for (int i = 0; i <= m; i++)
    {
      double r = i * h, p = C * blurred_disc (r, D / 2, s);
      sum += p * p * r * (i == 0 || i == m ? 1 : (i % 2 ? 4 : 2));
    }
  double oracle = sqrt (2 * G_PI * sum * h / 3 / n0);
  g_test_message ("d′_NPW %.5f, image-domain oracle %.5f (%+.3f %%); d′_NPWE %.5f", d.npw, oracle,
                  100 * (d.npw / oracle - 1), d.npwe);
  g_assert_cmpfloat (fabs (d.npw / oracle - 1), <, 0.01);
  /* NPWE ≤ NPW: the eye filter can only lose (Cauchy–Schwarz, white noise). */
  g_assert_cmpfloat (d.npwe, <=, d.npw * (1 + 1e-9));
  /* d′ is linear in the contrast and goes as 1/σ_noise. */
  CtrTask twice = { D, 2 * C, 0 };
  double n4 = 4 * n0;
  CtrDprime d2;
  g_assert_true (ctr_dprime (&twice, gauss_ttf, &s, white_nps, &n4, 1 / (2 * PIX), NULL, &d2, &error));
  g_assert_cmpfloat (fabs (d2.npw / d.npw - 1), <, 1e-9);
  /* The designer profile with n = 1: 2π∫(1 − r²/a²) J₀(kr) r dr = 4π J₂(ka)/k², k = 2πf, a = D/2. */
  CtrTask designer = { D, C, 1 };
  for (double f = 0.05; f < 1; f += 0.3)
    {
      double k = 2 * G_PI * f, closed = C * 4 * G_PI * jn (2, k * D / 2) / (k * k);
      g_assert_cmpfloat (fabs (ctr_task_function (&designer, f) - closed), <, 1e-6 * fabs (ctr_task_function (&designer, 0)));
    }
  g_assert_cmpfloat (fabs (ctr_task_function (&designer, 0) / (C * G_PI * D * D / 8) - 1), <, 1e-6);
  CtrEyeFilter eye = ctr_eye_filter_default ();
  double f_peak = 4 * 180 / (G_PI * eye.viewing_distance_mm);
  g_assert_cmpfloat (fabs (ctr_eye_filter (&eye, f_peak) - 1), <, 1e-12);
  g_assert_cmpfloat (ctr_eye_filter (&eye, 1.1 * f_peak), <, 1);
  g_assert_cmpfloat (ctr_eye_filter (&eye, 0.9 * f_peak), <, 1);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  float img[64 * 64] = { 0 };
  const float *slices[1] = { img };
  guint corners[2] = { 40, 0 };
  g_assert_null (ctr_nps_compute (slices, 1, 64, 64, PIX, corners, 1, 32, CTR_NPS_DETREND_MEAN, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  corners[0] = 0;
  img[5] = NAN;
  g_assert_null (ctr_nps_compute (slices, 1, 64, 64, PIX, corners, 1, 32, CTR_NPS_DETREND_MEAN, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  img[5] = 0;
  /* A flat image has no insert; an insert too near the edge is refused. */
  g_assert_null (ctr_ttf_insert (slices, 1, 64, 64, PIX, 32, 32, 8, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_assert_null (ctr_ttf_insert (slices, 1, 64, 64, PIX, 10, 32, 8, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A disc of radius 8 pixels given as 14: its edge is not where it was said to be. */
  g_autofree float *disc = disc_image (64, 32, 32, 8, 1, 100, 0);
  const float *disc_one[1] = { disc };
  g_assert_null (ctr_ttf_insert (disc_one, 1, 64, 64, PIX, 32, 32, 14, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_autoptr (CtrTtf) right = ctr_ttf_insert (disc_one, 1, 64, 64, PIX, 32, 32, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (right->radius_px - 8), <, 0.1);
  CtrTask parsed;
  g_assert_true (ctr_task_parse ("designer:6,-15,2", &parsed, NULL));
  g_assert_cmpfloat (parsed.diameter_mm, ==, 6);
  g_assert_cmpfloat (parsed.contrast, ==, -15);
  g_assert_cmpfloat (parsed.designer_n, ==, 2);
  const char *bad_tasks[] = { "disc:5", "disc:5,0", "disc:-5,10", "disc:5,10,1", "designer:5,10", "ring:5,10", "disc:5,x" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_tasks); i++)
    {
      g_assert_false (ctr_task_parse (bad_tasks[i], &parsed, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  CtrTask bad = { 0, 10, 0 };
  CtrDprime d;
  double one = 1;
  g_assert_false (ctr_dprime (&bad, white_nps, &one, white_nps, &one, 1, NULL, &d, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/iq/nps-white", test_white);
  g_test_add_func ("/iq/nps-filtered", test_filtered);
  g_test_add_func ("/iq/ttf-gaussian", test_ttf);
  g_test_add_func ("/iq/ttf-noisy", test_ttf_noisy);
  g_test_add_func ("/iq/ttf-pooled", test_ttf_pooled);
  g_test_add_func ("/iq/dprime-npw", test_dprime);
  g_test_add_func ("/iq/errors", test_errors);
  return g_test_run ();
}
