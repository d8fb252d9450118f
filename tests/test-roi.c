/* test-roi.c — ROI statistics in HU (core/quality/ctr-roi.h) on constructed images
 * whose answers are known in closed form.  The comparison with numpy on real
 * images is tests/cli/test_roi.py. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"

static CtrVolume *
image (guint n, double pixel, double (*f) (double x, double y, guint ix, guint iy))
{
  CtrGrid grid = ctr_grid_square (n, pixel, 1, 1);
  CtrVolume *v = ctr_volume_new (&grid, NULL);
  for (guint iy = 0; iy < n; iy++)
    for (guint ix = 0; ix < n; ix++)
      v->data[(gsize) iy * n + ix] = (float) f (ctr_grid_x (&grid, ix), ctr_grid_y (&grid, iy), ix, iy);
  return v;
}

static double water (double x, double y, guint ix, guint iy) { return CTR_MU_WATER_PER_MM; }
static double plane (double x, double y, guint ix, guint iy) { return 0.02 + 1e-4 * x - 2e-4 * y; }
static double plane_checker (double x, double y, guint ix, guint iy)
{ return plane (x, y, ix, iy) + ((ix + iy) % 2 ? 1e-3 : -1e-3); }
static double left_right (double x, double y, guint ix, guint iy) { return x < 0 ? 0.0192 : 0.0211; }

static void
test_mask (void)
{
  CtrGrid grid = ctr_grid_square (400, 0.25, 1, 1);
  gsize n = 0;
  g_autofree guint8 *m = ctr_roi_mask (&grid, &(CtrRoi) { CTR_ROI_CIRCLE, 10, -5, 20, 0, 0 }, &n, NULL);
  /* Pixel-centre count of a disc: π r² within the perimeter (in pixels). */
  double area = G_PI * 80 * 80, perimeter = 2 * G_PI * 80;
  g_assert_cmpfloat (fabs ((double) n - area), <, perimeter);
  /* The pixel at the centre (x = 10, y = -5) is inside, one beyond 20 mm is not. */
  double fx = (10 - grid.cx) / grid.dx + (grid.nx - 1) * 0.5, fy = (grid.ny - 1) * 0.5 - (-5 - grid.cy) / grid.dy;
  g_assert_cmpint (m[(gsize) floor (fy) * grid.nx + (gsize) floor (fx)], ==, 1);
  g_assert_cmpint (m[(gsize) floor (fy) * grid.nx + (gsize) floor (fx + 85)], ==, 0);
  /* Rectangle 10 × 4 mm on 0.25 mm pixels centred between pixels: 40 × 16. */
  g_free (g_steal_pointer (&m));
  m = ctr_roi_mask (&grid, &(CtrRoi) { CTR_ROI_RECTANGLE, 0, 0, 0, 10, 4 }, &n, NULL);
  g_assert_cmpuint (n, ==, 40 * 16);
}

static void
test_stats (void)
{
  g_autoptr (CtrVolume) w = image (64, 1.0, water);
  CtrRoiStats st;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_roi_stats (w, 0, &(CtrRoi) { CTR_ROI_CIRCLE, 0, 0, 10, 0, 0 }, CTR_MU_WATER_PER_MM, &st, &error));
  g_assert_cmpfloat (fabs (st.mean_hu), <, 1e-3);
  g_assert_cmpfloat (st.sd_hu, <, 1e-3);

  /* Two halves: 0 HU and about +99 HU; CNR against a noisy background. */
  g_autoptr (CtrVolume) lr = image (64, 1.0, left_right);
  CtrRoiStats a, b;
  g_assert_true (ctr_roi_stats (lr, 0, &(CtrRoi) { CTR_ROI_RECTANGLE, 15, 0, 0, 20, 40 }, 0.0192, &a, &error));
  g_assert_true (ctr_roi_stats (lr, 0, &(CtrRoi) { CTR_ROI_RECTANGLE, -15, 0, 0, 20, 40 }, 0.0192, &b, &error));
  g_assert_cmpfloat (fabs (a.mean_hu - 1000 * (0.0211 - 0.0192) / 0.0192), <, 1e-2);
  g_assert_cmpfloat (fabs (b.mean_hu), <, 1e-2);
  g_assert_true (isnan (ctr_roi_cnr (&a, &b)));   /* background without noise */
  b.sd_hu = 10;
  g_assert_cmpfloat (fabs (ctr_roi_cnr (&a, &b) - (a.mean_hu - b.mean_hu) / 10), <, 1e-9);

  /* A circle straddling both halves: sample SD of a two-valued set. */
  CtrRoiStats c;
  g_assert_true (ctr_roi_stats (lr, 0, &(CtrRoi) { CTR_ROI_CIRCLE, 0, 0, 12, 0, 0 }, 0.0192, &c, &error));
  double frac = 0.5;   /* symmetric about x = 0 on an even grid */
  double d_hu = 1000 * (0.0211 - 0.0192) / 0.0192;
  double sd = d_hu * sqrt (frac * (1 - frac) * c.n_pixels / (c.n_pixels - 1.0));
  g_assert_cmpfloat (fabs (c.sd_hu - sd), <, 1e-3);
}

static void
test_noise_sd (void)
{
  /* A plane has no noise; a checkerboard of ±a on it has a·sqrt(n/(n − 3)). */
  g_autoptr (CtrVolume) p = image (64, 0.5, plane);
  g_autoptr (CtrVolume) pc = image (64, 0.5, plane_checker);
  CtrRoi roi = ctr_roi_rectangle (0, 0, 10, 10);   /* 20 × 20 pixels, symmetric */
  double sd, sd_c;
  CtrRoiStats raw;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_roi_noise_sd (p, 0, &roi, 0.02, &sd, &error));
  g_assert_true (ctr_roi_noise_sd (pc, 0, &roi, 0.02, &sd_c, &error));
  g_assert_true (ctr_roi_stats (p, 0, &roi, 0.02, &raw, &error));
  g_assert_cmpfloat (sd, <, 1e-3);
  g_assert_cmpfloat (raw.sd_hu, >, 10);   /* the plain SD sees the shading */
  double want = 1000 * 1e-3 / 0.02 * sqrt (400.0 / 397.0);
  g_assert_cmpfloat (fabs (sd_c - want), <, 1e-3 * want);
}

static void
test_calibration_and_errors (void)
{
  g_autoptr (CtrVolume) lr = image (64, 1.0, left_right);
  double mu = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_roi_water_calibration (lr, 0, &(CtrRoi) { CTR_ROI_CIRCLE, 16, 0, 8, 0, 0 }, &mu, &error));
  g_assert_cmpfloat (fabs (mu - 0.0211), <, 1e-7);

  CtrRoiStats st;
  const CtrRoi bad[] = {
    { CTR_ROI_CIRCLE, 0, 0, 0, 0, 0 },
    { CTR_ROI_RECTANGLE, 0, 0, 0, -1, 3 },
    { CTR_ROI_CIRCLE, NAN, 0, 3, 0, 0 },
    { CTR_ROI_CIRCLE, 500, 500, 3, 0, 0 },   /* outside the image */
    { CTR_ROI_CIRCLE, 0, 0, 0.3, 0, 0 },     /* no pixel centre inside */
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (ctr_roi_stats (lr, 0, &bad[i], 0.0192, &st, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  CtrRoi ok = ctr_roi_circle (0, 0, 5);
  g_assert_false (ctr_roi_stats (lr, 1, &ok, 0.0192, &st, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_roi_stats (lr, 0, &ok, 0, &st, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* A one-pixel-wide strip cannot hold a plane. */
  double sd;
  g_assert_false (ctr_roi_noise_sd (lr, 0, &(CtrRoi) { CTR_ROI_RECTANGLE, 0.5, 0, 0, 0.5, 20 }, 0.0192, &sd, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* The text form the CLI and the window read: both shapes, spaces, and every
 * malformed or degenerate form refused without touching the output. */
static void
test_parse (void)
{
  CtrRoi r = ctr_roi_circle (1, 2, 3);
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_roi_parse ("circle:-40,20.5,6", &r, &error));
  g_assert_no_error (error);
  g_assert_cmpint (r.shape, ==, CTR_ROI_CIRCLE);
  g_assert_cmpfloat (r.x_mm, ==, -40);
  g_assert_cmpfloat (r.y_mm, ==, 20.5);
  g_assert_cmpfloat (r.radius_mm, ==, 6);
  g_assert_true (ctr_roi_parse ("rect: 40, -5, 15, 10", &r, &error));
  g_assert_cmpint (r.shape, ==, CTR_ROI_RECTANGLE);
  g_assert_cmpfloat (r.width_mm, ==, 15);
  g_assert_cmpfloat (r.height_mm, ==, 10);
  const char *bad[] = { "", "circle", "circle:1,2", "circle:1,2,0", "circle:1,2,-3", "rect:1,2,3",
                        "rect:1,2,3,x", "square:1,2,3", "circle:1,2,nan", "circle:1,,3", NULL };
  for (guint i = 0; bad[i] != NULL; i++)
    {
      CtrRoi before = r;
      g_assert_false (ctr_roi_parse (bad[i], &r, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (error->message, "circle:X,Y,R"));
      g_assert_true (memcmp (&before, &r, sizeof r) == 0);
      g_clear_error (&error);
    }
  g_assert_false (ctr_roi_parse (NULL, &r, &error));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/roi/parse", test_parse);
  g_test_add_func ("/ctr/core/roi/mask", test_mask);
  g_test_add_func ("/ctr/core/roi/stats", test_stats);
  g_test_add_func ("/ctr/core/roi/noise-sd", test_noise_sd);
  g_test_add_func ("/ctr/core/roi/calibration-errors", test_calibration_and_errors);
  return g_test_run ();
}
