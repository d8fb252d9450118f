/* test-fbp.c — FBP scaling, geometry variants, orientation and accuracy, all
 * on analytic phantoms made here (exact line integrals, ctr-phantom.c). */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-filter.h"
#include "analytic/ctr-atanf.h"
#include "analytic/ctr-row-interp.h"

#define MU 0.02
#define DISC_R 60.0
#define IMG_N 128
#define IMG_PX 1.0

static CtrGeometry *
make_parallel (guint n_views, double range)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_PARALLEL, n_views);
  g->n_cols = 384;
  g->pitch_u = 0.4;  /* ±76.8 mm */
  ctr_geometry_set_uniform_angles (g, 0.0, range / n_views);
  return g;
}

static CtrGeometry *
make_fan (CtrDetectorShape shape, guint n_views, double range)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, n_views);
  g->shape = shape;
  g->sod_mm = 500.0;
  g->sdd_mm = 1000.0;
  g->n_cols = 384;
  /* 0.8 mm at the detector, 0.4 mm at the isocentre; field of view ≈ Ø 152 mm */
  g->pitch_u = shape == CTR_DETECTOR_CURVED ? 0.0008 : 0.8;
  ctr_geometry_set_uniform_angles (g, 0.0, range / n_views);
  return g;
}

static CtrVolume *
reconstruct (const CtrPhantom *ph, const CtrGeometry *g, const CtrGrid *grid,
             CtrFilterWindow window, double cutoff)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 4, &error);
  g_assert_no_error (error);
  CtrVolume *v = ctr_fbp_run (g, p, grid, window, cutoff, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (v);
  return v;
}

/* Mean (and standard deviation) over the pixels within @frac of the disc's
 * radius, every slice. */
static double
disc_stats (const CtrVolume *v, double x0, double y0, double r, double frac, double *std)
{
  const CtrGrid *gr = &v->grid;
  double s = 0.0, s2 = 0.0;
  guint n = 0;
  for (guint iz = 0; iz < gr->nz; iz++)
    for (guint iy = 0; iy < gr->ny; iy++)
      for (guint ix = 0; ix < gr->nx; ix++)
        if (hypot (ctr_grid_x (gr, ix) - x0, ctr_grid_y (gr, iy) - y0) < frac * r)
          {
            double val = ctr_volume_slice (v, iz)[iy * gr->nx + ix];
            s += val;
            s2 += val * val;
            n++;
          }
  g_assert_cmpuint (n, >, 0);
  if (std != NULL)
    *std = sqrt (MAX (s2 / n - (s / n) * (s / n), 0.0));
  return s / n;
}

/* Reconstructs a centred uniform disc and checks its mean (inner 70 %). */
static double
check_disc_sized (const CtrGeometry *g, const char *what, double disc_r, double px)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (0.0, 0.0, disc_r, MU);
  CtrGrid grid = ctr_grid_square (IMG_N, px, g->n_rows, 1.0);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrVolume) v = reconstruct (ph, g, &grid, CTR_FILTER_RAM_LAK, 1.0);
  double secs = (g_get_monotonic_time () - t0) * 1e-6;
  g_assert_cmpstr (v->unit, ==, "1/mm");
  double sd;
  double m = disc_stats (v, 0.0, 0.0, disc_r, 0.7, &sd);
  double err = m / MU - 1.0;
  g_test_message ("disc %-38s mean error %+.3f %%, std %.3f %% of mu  (%.2f s incl. projection)",
                  what, 100.0 * err, 100.0 * sd / MU, secs);
  g_assert_cmpfloat (fabs (err), <, 0.02);
  g_assert_cmpfloat (sd, <, 0.001 * MU);   /* flat: weights right across the field */
  /* outside the disc the image is near zero */
  double out = 0.0;
  guint n = 0;
  for (guint iy = 0; iy < grid.ny; iy++)
    for (guint ix = 0; ix < grid.nx; ix++)
      {
        double r = hypot (ctr_grid_x (&grid, ix), ctr_grid_y (&grid, iy));
        if (r > disc_r + 3 * px && r < disc_r + 6 * px)
          {
            out += v->data[iy * grid.nx + ix];
            n++;
          }
      }
  g_assert_cmpfloat (fabs (out / n), <, 0.02 * MU);
  return err;
}

static double
check_disc (const CtrGeometry *g, const char *what)
{
  return check_disc_sized (g, what, DISC_R, IMG_PX);
}

static void
test_disc_parallel (void)
{
  g_autoptr (CtrGeometry) g180 = make_parallel (360, G_PI);
  check_disc (g180, "parallel 360 views / 180°");
  g_autoptr (CtrGeometry) g360 = make_parallel (360, 2 * G_PI);
  check_disc (g360, "parallel 360 views / 360°");
}

static void
test_disc_fan_flat (void)
{
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_FLAT, 720, 2 * G_PI);
  check_disc (g, "flat fan 720 views / 360°");
}

static void
test_disc_fan_curved (void)
{
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_CURVED, 720, 2 * G_PI);
  check_disc (g, "curved fan 720 views / 360°");
}

/* A wide fan (±20°: SOD 130 mm, SDD 260 mm) makes the fan-specific weights
 * (cos γ, (γ/sin γ)², 1/L², 1/U²) matter: a mistake in any shows as a
 * non-flat disc. */
static void
test_disc_wide_fan (void)
{
  for (int curved = 0; curved <= 1; curved++)
    for (int full = 0; full <= 1; full++)
      {
        g_autoptr (CtrGeometry) g = make_fan (curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT, 8, 1.0);
        g->sod_mm = 130.0;
        g->sdd_mm = 260.0;
        g->pitch_u = curved ? 0.0018 : 0.0018 * 260.0;
        double range = full ? 2 * G_PI : G_PI + 2.0 * ctr_geometry_half_fan_angle (g) + 0.05;
        g->n_views = (guint) ceil (range / (0.5 * G_PI / 180.0));
        g->angles = g_renew (double, g->angles, g->n_views);
        ctr_geometry_set_uniform_angles (g, 0.3, range / g->n_views);
        g_autofree char *what = g_strdup_printf ("%s fan ±%.0f°, %s", curved ? "curved" : "flat",
                                                 ctr_geometry_half_fan_angle (g) * 180 / G_PI,
                                                 full ? "360°" : "short scan");
        check_disc_sized (g, what, 35.0, 0.75);
      }
}

/* Short scan π + 2·half-fan + 4°, Parker weights. */
static void
test_disc_short_scan (void)
{
  for (int curved = 0; curved <= 1; curved++)
    {
      g_autoptr (CtrGeometry) g = make_fan (curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT, 8, 1.0);
      double range = G_PI + 2.0 * ctr_geometry_half_fan_angle (g) + 4.0 * G_PI / 180.0;
      guint nv = (guint) ceil (range / (0.5 * G_PI / 180.0));
      g_autoptr (CtrGeometry) s = make_fan (g->shape, nv, range);
      check_disc (s, curved ? "curved fan short scan (Parker)" : "flat fan short scan (Parker)");
    }
}

/* A detector shifted by 5.3 columns along u. */
static void
test_disc_offset (void)
{
  for (int curved = 0; curved <= 1; curved++)
    {
      g_autoptr (CtrGeometry) g = make_fan (curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT,
                                            720, 2 * G_PI);
      g->offset_u = 5.3 * g->pitch_u;
      check_disc (g, curved ? "curved fan, offset +5.3 columns" : "flat fan, offset +5.3 columns");
      g->offset_u = -5.3 * g->pitch_u;
      g->n_rows = 2;   /* also: several slices */
      check_disc (g, curved ? "curved fan, offset -5.3 columns" : "flat fan, offset -5.3 columns");
    }
}

/* Clockwise acquisition: angles that decrease, full and short scan. */
static void
test_disc_decreasing (void)
{
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_CURVED, 720, -2 * G_PI);
  check_disc (g, "curved fan, decreasing angles");
  double range = G_PI + 2.0 * ctr_geometry_half_fan_angle (g) + 4.0 * G_PI / 180.0;
  guint nv = (guint) ceil (range / (0.5 * G_PI / 180.0));
  g_autoptr (CtrGeometry) s = make_fan (CTR_DETECTOR_FLAT, nv, -range);
  for (guint k = 0; k < nv; k++)
    s->angles[k] += 1.0;  /* start anywhere */
  check_disc (s, "flat fan short scan, decreasing");
  g_autoptr (CtrGeometry) p = make_parallel (360, -G_PI);
  check_disc (p, "parallel, decreasing");
}

/* Non-uniform, shuffled angles over 360°. */
static void
test_disc_irregular (void)
{
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_CURVED, 720, 2 * G_PI);
  GRand *rand = g_rand_new_with_seed (7);
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] += g_rand_double_range (rand, -0.3, 0.3) * 2 * G_PI / 720;
  for (guint k = g->n_views - 1; k > 0; k--)
    {
      guint j = g_rand_int_range (rand, 0, k + 1);
      double t = g->angles[k];
      g->angles[k] = g->angles[j];
      g->angles[j] = t;
    }
  g_rand_free (rand);
  check_disc (g, "curved fan, jittered shuffled angles");
}

/* Centroid of the positive part of the image, in mm. */
static void
centroid (const CtrVolume *v, double *x, double *y)
{
  const CtrGrid *gr = &v->grid;
  double s = 0, sx = 0, sy = 0;
  float mx = 0;
  for (gsize i = 0; i < ctr_grid_slice_size (gr); i++)
    mx = MAX (mx, v->data[i]);
  for (guint iy = 0; iy < gr->ny; iy++)
    for (guint ix = 0; ix < gr->nx; ix++)
      {
        float val = v->data[iy * gr->nx + ix];
        if (val < 0.5f * mx)
          continue;
        s += val;
        sx += val * ctr_grid_x (gr, ix);
        sy += val * ctr_grid_y (gr, iy);
      }
  *x = sx / s;
  *y = sy / s;
}

/* Off-centre disc (x = 30, y = -20): the image shows it there (row 0 = +y,
 * column 0 = -x), for every geometry. */
static void
test_disc_position (void)
{
  const double x0 = 30.0, y0 = -20.0, r = 25.0;
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (x0, y0, r, MU);
  CtrGrid grid = ctr_grid_square (IMG_N, IMG_PX, 1, 1.0);
  const double short_range = G_PI + 2 * 0.154 + 4 * G_PI / 180;  /* half fan ≈ 0.1536 rad */
  const guint short_views = (guint) ceil (short_range / (0.5 * G_PI / 180));
  CtrGeometry *gs[] = {
    make_parallel (360, G_PI),
    make_fan (CTR_DETECTOR_FLAT, 720, 2 * G_PI),
    make_fan (CTR_DETECTOR_CURVED, 720, 2 * G_PI),
    make_fan (CTR_DETECTOR_CURVED, 720, -2 * G_PI),
    make_fan (CTR_DETECTOR_FLAT, 720, 2 * G_PI),
    make_fan (CTR_DETECTOR_CURVED, short_views, short_range),
    make_fan (CTR_DETECTOR_FLAT, short_views, -short_range),
  };
  gs[4]->offset_u = 3.0 * gs[4]->pitch_u;
  for (guint k = 0; k < short_views; k++)
    gs[6]->angles[k] += 2.0;   /* a clockwise short scan starting at 2 rad */
  for (guint i = 0; i < G_N_ELEMENTS (gs); i++)
    {
      g_autoptr (CtrVolume) v = reconstruct (ph, gs[i], &grid, CTR_FILTER_HANN, 1.0);
      double cx, cy;
      centroid (v, &cx, &cy);
      double sd;
      double m = disc_stats (v, x0, y0, r, 0.7, &sd);
      g_test_message ("off-centre disc, geometry %u: centroid (%.3f, %.3f) mm, mean error %+.3f %%, "
                      "std %.3f %%", i, cx, cy, 100 * (m / MU - 1), 100 * sd / MU);
      g_assert_cmpfloat (sd, <, 0.001 * MU);
      g_assert_cmpfloat (fabs (cx - x0), <, 0.5 * IMG_PX);
      g_assert_cmpfloat (fabs (cy - y0), <, 0.5 * IMG_PX);
      g_assert_cmpfloat (fabs (m / MU - 1), <, 0.02);
      /* the pixel at (x0, y0) is in row (n-1)/2 - y0, column (n-1)/2 + x0 */
      guint row = (guint) lround ((IMG_N - 1) * 0.5 - y0 / IMG_PX);
      guint col = (guint) lround ((IMG_N - 1) * 0.5 + x0 / IMG_PX);
      g_assert_cmpfloat (fabs (v->data[row * IMG_N + col] / MU - 1), <, 0.05);
      g_assert_cmpfloat (fabs (v->data[(IMG_N - 1 - row) * IMG_N + (IMG_N - 1 - col)]), <, 0.05 * MU);
      ctr_geometry_free (gs[i]);
    }
}

static double
rmse (const float *a, const float *b, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
  return sqrt (s / n);
}

/* Shepp-Logan against its exact image, per window; flipped images must be
 * far worse (orientation). */
static void
shepp_logan_case (const CtrGeometry *g, const char *what, const double bound[2])
{
  const guint n = 256;
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (90.0, 0.02);
  CtrGrid grid = ctr_grid_square (n, 0.75, 1, 1.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrVolume) truth = ctr_phantom_rasterize (ph, &grid, 4, &error);
  g_assert_no_error (error);
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 4, &error);
  g_assert_no_error (error);
  const CtrFilterWindow windows[2] = { CTR_FILTER_RAM_LAK, CTR_FILTER_HANN };
  for (guint w = 0; w < 2; w++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (CtrVolume) v = ctr_fbp_run (g, p, &grid, windows[w], 1.0, NULL, &error);
      double secs = (g_get_monotonic_time () - t0) * 1e-6;
      g_assert_no_error (error);
      double e = rmse (v->data, truth->data, (gsize) n * n);
      g_autofree float *mirror = g_new (float, (gsize) n * n);
      g_autofree float *flip = g_new (float, (gsize) n * n);
      for (guint iy = 0; iy < n; iy++)
        for (guint ix = 0; ix < n; ix++)
          {
            mirror[iy * n + ix] = v->data[iy * n + (n - 1 - ix)];
            flip[iy * n + ix] = v->data[(n - 1 - iy) * n + ix];
          }
      double em = rmse (mirror, truth->data, (gsize) n * n);
      double ef = rmse (flip, truth->data, (gsize) n * n);
      g_test_message ("Shepp-Logan %-22s %-8s RMSE %.6f /mm (mirrored x %.6f, flipped y %.6f); FBP %.3f s",
                      what, windows[w] == CTR_FILTER_HANN ? "hann" : "ram-lak", e, em, ef, secs);
      g_assert_cmpfloat (e, <, bound[w]);
      g_assert_cmpfloat (em, >, 1.5 * e);
      g_assert_cmpfloat (ef, >, 3.0 * e);
    }
}

static void
test_shepp_logan_parallel (void)
{
  g_autoptr (CtrGeometry) g = make_parallel (360, G_PI);
  g->n_cols = 512;
  g->pitch_u = 0.375;
  const double bound[2] = { 0.0006, 0.0006 };  /* 3 % of the skull value */
  shepp_logan_case (g, "parallel 360 × 512", bound);
}

static void
test_shepp_logan_fan (void)
{
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_CURVED, 720, 2 * G_PI);
  g->n_cols = 512;
  g->pitch_u = 0.00075;
  const double bound[2] = { 0.0006, 0.0006 };  /* 3 % of the skull value */
  shepp_logan_case (g, "curved fan 720 × 512", bound);
}

/* Short scan (Parker) of a flat detector, clockwise, with a detector offset. */
static void
test_shepp_logan_short_scan (void)
{
  g_autoptr (CtrGeometry) g0 = make_fan (CTR_DETECTOR_FLAT, 8, 1.0);
  g0->n_cols = 512;
  g0->pitch_u = 0.75;
  double range = G_PI + 2.0 * ctr_geometry_half_fan_angle (g0) + 6.0 * G_PI / 180.0;
  guint nv = (guint) ceil (range / (0.5 * G_PI / 180.0));
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_FLAT, nv, -range);
  g->n_cols = 512;
  g->pitch_u = 0.75;
  g->offset_u = 2.5 * g->pitch_u;
  const double bound[2] = { 0.0006, 0.0006 };  /* 3 % of the skull value */
  shepp_logan_case (g, "flat fan short scan", bound);
}

/* Parker weights: w(β, γ) + w(β + π - 2γ, -γ) = 1 over the scan, in [0, 1]. */
static void
test_parker (void)
{
  const double delta = 0.2;
  for (double gam = -0.19; gam <= 0.19; gam += 0.01)
    for (double b = 0.0; b <= G_PI + 2 * delta; b += 0.01)
      {
        double w = ctr_parker_weight (b, gam, delta);
        g_assert_cmpfloat (w, >=, 0.0);
        g_assert_cmpfloat (w, <=, 1.0);
        double bc = b + G_PI - 2 * gam;
        if (bc > G_PI + 2 * delta)
          bc -= 2 * G_PI;
        double wc = ctr_parker_weight (bc, -gam, delta);
        g_assert_cmpfloat_with_epsilon (w + wc, 1.0, 1e-12);
      }
  g_assert_cmpfloat (ctr_parker_weight (-0.1, 0.0, delta), ==, 0.0);
  g_assert_cmpfloat (ctr_parker_weight (G_PI + 2 * delta + 0.1, 0.0, delta), ==, 0.0);
  g_assert_cmpfloat (ctr_parker_weight (G_PI_2, 0.0, delta), ==, 1.0);
}

/* The filter: a constant row far from the edges filters to ≈ 0 (no DC
 * offset), the response to an impulse is τ·h (K&S Eq. 61). */
static void
test_filter_kernel (void)
{
  const guint n = 64;
  const double tau = 0.5;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrRampFilter) f = ctr_ramp_filter_new (n, tau, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
  g_assert_no_error (error);
  float row[64] = { 0 };
  row[20] = 1.0f;
  g_assert_true (ctr_ramp_filter_apply (f, row, 1, &error));
  for (guint i = 0; i < n; i++)
    {
      int k = (int) i - 20;
      double h = k == 0 ? 1 / (4 * tau * tau) : k % 2 == 0 ? 0 : -1 / (k * k * G_PI * G_PI * tau * tau);
      g_assert_cmpfloat_with_epsilon (row[i], tau * h, 1e-5);
    }
  /* windows reduce the impulse's peak; all of them keep it positive */
  for (CtrFilterWindow w = CTR_FILTER_SHEPP_LOGAN; w < CTR_N_FILTERS; w++)
    {
      g_autoptr (CtrRampFilter) fw = ctr_ramp_filter_new (n, tau, w, 0.8, NULL, &error);
      g_assert_no_error (error);
      float r2[64] = { 0 };
      r2[20] = 1.0f;
      g_assert_true (ctr_ramp_filter_apply (fw, r2, 1, &error));
      g_assert_cmpfloat (r2[20], <, tau / (4 * tau * tau));
      g_assert_cmpfloat (r2[20], >, 0.0);
    }
}

static void
test_invalid (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_FLAT, 16, 2 * G_PI);
  g_autoptr (CtrProjections) p = ctr_projections_new (16, 1, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1.0);

  g_assert_null (ctr_fbp_run (g, p, &grid, CTR_FILTER_HANN, 0.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ctr_fbp_run (g, p, &grid, CTR_FILTER_HANN, 1.5, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ctr_fbp_run (g, p, &grid, CTR_N_FILTERS, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  CtrGrid two = ctr_grid_square (32, 1.0, 2, 1.0);
  g_assert_null (ctr_fbp_run (g, p, &two, CTR_FILTER_HANN, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_autoptr (CtrProjections) wrong = ctr_projections_new (15, 1, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
  g_assert_null (ctr_fbp_run (g, wrong, &grid, CTR_FILTER_HANN, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) cone = ctr_geometry_copy (g);
  cone->beam = CTR_BEAM_CONE;
  g_assert_null (ctr_fbp_run (cone, p, &grid, CTR_FILTER_HANN, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) bad = ctr_geometry_copy (g);
  bad->sdd_mm = 100.0;
  g_assert_null (ctr_fbp_run (bad, p, &grid, CTR_FILTER_HANN, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  g_assert_null (ctr_ramp_filter_new (16, 1.0, CTR_FILTER_HANN, 0.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ctr_ramp_filter_new (16, -1.0, CTR_FILTER_HANN, 1.0, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static void
test_cancel (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_FLAT, 16, 2 * G_PI);
  g_autoptr (CtrProjections) p = ctr_projections_new (16, 1, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1.0);
  g_autoptr (GCancellable) c = g_cancellable_new ();
  g_cancellable_cancel (c);
  g_assert_null (ctr_fbp_run (g, p, &grid, CTR_FILTER_HANN, 1.0, c, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_unit_pixels (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_parallel (16, G_PI);
  g->pixel_size_known = FALSE;
  g_autoptr (CtrProjections) p = ctr_projections_new (16, 1, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1.0);
  g_autoptr (CtrVolume) v = ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (v->unit, ==, "1/pixel");
}

/* The row interpolation kernels (ctr-row-interp.h) against their contract
 * in double: random pixel rows with columns spread 0.2-3 apart per pixel
 * (so some chunks take the scalar fall-back), some outside the detector or
 * NaN, the last column exactly; with and without weights. */
static void
test_row_interp (void)
{
  const char *kinds[] = { "generic", "avx2", "avx512" };
  const guint nc = 300, n = 237;
  float *q = g_new0 (float, nc + CTR_ROW_INTERP_PAD);
  float *col = g_new (float, n), *w = g_new (float, n), *out = g_new (float, n);
  double *want = g_new (double, n);
  for (guint q_ = 0; q_ < G_N_ELEMENTS (kinds); q_++)
    {
      g_setenv ("CTR_FBP_SIMD", kinds[q_], TRUE);
      const char *name = NULL;
      CtrRowInterp fn = ctr_row_interp_select (&name);
      g_unsetenv ("CTR_FBP_SIMD");
      if (strcmp (name, kinds[q_]) != 0)
        {
          g_test_message ("%s: not on this CPU (got %s)", kinds[q_], name);
          continue;
        }
      GRand *rng = g_rand_new_with_seed (11 + q_);
      for (guint i = 0; i < nc; i++)
        q[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
      double maxd = 0.0;
      guint touched = 0;
      for (guint t = 0; t < 3000; t++)
        {
          const double step = g_rand_double_range (rng, 0.2, 3.0) * (t % 2 ? 1 : -1);
          double c = g_rand_double_range (rng, -80.0, nc + 80.0);
          const gboolean weighted = t % 3 != 0;
          for (guint i = 0; i < n; i++, c += step)
            {
              col[i] = (float) c;
              if (g_rand_int_range (rng, 0, 50) == 0)
                col[i] = NAN;
              else if (g_rand_int_range (rng, 0, 50) == 0)
                col[i] = (float) (nc - 1);
              w[i] = (float) g_rand_double_range (rng, 0.5, 2.0);
              out[i] = 10.0f;
              want[i] = 10.0;
              const float ci = col[i];
              if (!(ci >= 0.0f && ci <= (float) (nc - 1)))
                continue;
              const guint i0 = (guint) ci;
              const double f = (double) ci - i0;
              const double v = i0 + 1 < nc ? q[i0] + f * ((double) q[i0 + 1] - q[i0]) : q[i0];
              want[i] += (weighted ? w[i] : 1.0) * v;
              touched++;
            }
          fn (out, col, weighted ? w : NULL, n, q, nc);
          for (guint i = 0; i < n; i++)
            maxd = MAX (maxd, fabs (out[i] - want[i]));
        }
      g_test_message ("%s: %u pixels interpolated, max |kernel - contract| %.3e (values ~10)", name, touched, maxd);
      g_assert_cmpuint (touched, >, 100000);
      g_assert_cmpfloat (maxd, <, 4e-6);   /* 4 ulp of 10 */
      g_rand_free (rng);
    }
  g_free (q);
  g_free (col);
  g_free (w);
  g_free (out);
  g_free (want);
}

/* Columns that spread wider than the kernels' register window (an image
 * coarser than the detector, as the 256² preview of 736 columns): the
 * SIMD kernels gather, and their values are the scalar loop's bit for bit
 * (the same rounded product and sum), weights or none, with columns outside
 * the detector, NaN and the last column. */
static void
test_row_interp_wide (void)
{
  const char *kinds[] = { "avx2", "avx512" };
  const guint nc = 736, n = 256;
  float *q = g_new0 (float, nc + CTR_ROW_INTERP_PAD);
  float *col = g_new (float, n), *w = g_new (float, n), *out = g_new (float, n), *ref = g_new (float, n);
  g_setenv ("CTR_FBP_SIMD", "generic", TRUE);
  CtrRowInterp scalar = ctr_row_interp_select (NULL);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_setenv ("CTR_FBP_SIMD", kinds[k], TRUE);
      const char *name = NULL;
      CtrRowInterp fn = ctr_row_interp_select (&name);
      if (strcmp (name, kinds[k]) != 0)
        {
          g_test_message ("%s: not on this CPU (got %s)", kinds[k], name);
          continue;
        }
      GRand *rng = g_rand_new_with_seed (31 + k);
      for (guint i = 0; i < nc; i++)
        q[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
      guint differ = 0, wide = 0;
      for (guint t = 0; t < 2000; t++)
        {
          const double step = g_rand_double_range (rng, 2.2, 4.0) * (t % 2 ? 1 : -1);
          double c = g_rand_double_range (rng, -100.0, nc + 100.0);
          for (guint i = 0; i < n; i++, c += step)
            {
              col[i] = (float) c;
              if (g_rand_int_range (rng, 0, 40) == 0)
                col[i] = NAN;
              else if (g_rand_int_range (rng, 0, 40) == 0)
                col[i] = (float) (nc - 1);
              w[i] = (float) g_rand_double_range (rng, 1e-6, 3e-6);
              out[i] = ref[i] = (float) g_rand_double_range (rng, -0.1, 0.1);
            }
          const float *wt = t % 3 ? w : NULL;
          scalar (ref, col, wt, n, q, nc);
          fn (out, col, wt, n, q, nc);
          /* the chunks of the kernel's width whose columns on the detector
           * spread wider than its window (15 or 31 samples) */
          const guint width = k == 0 ? 8 : 16;
          for (guint i = 0; i < n; i += width)
            {
              gint lo = G_MAXINT, hi = G_MININT;
              for (guint j = i; j < MIN (n, i + width); j++)
                if (col[j] >= 0.0f && col[j] <= (float) (nc - 1))
                  {
                    lo = MIN (lo, (gint) col[j]);
                    hi = MAX (hi, (gint) col[j]);
                  }
              if (hi < lo || hi - lo <= (gint) (2 * width - 2))
                continue;
              wide++;
              differ += memcmp (out + i, ref + i, MIN (width, n - i) * sizeof (float)) != 0;
            }
        }
      g_test_message ("%s: %u of %u wide chunks differ from the scalar loop", name, differ, wide);
      g_assert_cmpuint (wide, >, 20000);
      g_assert_cmpuint (differ, ==, 0);
      g_rand_free (rng);
    }
  g_unsetenv ("CTR_FBP_SIMD");
  g_free (q);
  g_free (col);
  g_free (w);
  g_free (out);
  g_free (ref);
}

/* FBP through the SIMD interpolation equals FBP through the scalar loop:
 * parallel, flat and curved fan beam. */
static void
test_row_interp_matches_scalar (void)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (70.0, MU);
  CtrGeometry *gs[] = { make_parallel (180, G_PI), make_fan (CTR_DETECTOR_FLAT, 240, 2 * G_PI),
                        make_fan (CTR_DETECTOR_CURVED, 240, 2 * G_PI) };
  const char *what[] = { "parallel", "flat fan", "curved fan" };
  for (guint k = 0; k < G_N_ELEMENTS (gs); k++)
    {
      CtrGrid grid = ctr_grid_square (IMG_N, IMG_PX, 1, 1.0);
      g_setenv ("CTR_FBP_SIMD", "generic", TRUE);
      g_autoptr (CtrVolume) ref = reconstruct (ph, gs[k], &grid, CTR_FILTER_HANN, 1.0);
      g_unsetenv ("CTR_FBP_SIMD");
      const char *name = NULL;
      ctr_row_interp_select (&name);
      g_autoptr (CtrVolume) v = reconstruct (ph, gs[k], &grid, CTR_FILTER_HANN, 1.0);
      double maxd = 0.0, maxv = 0.0;
      for (gsize i = 0; i < ctr_grid_size (&grid); i++)
        {
          maxd = MAX (maxd, fabs (v->data[i] - ref->data[i]));
          maxv = MAX (maxv, fabs (ref->data[i]));
        }
      g_test_message ("%s: %s vs scalar max |diff| %.3e of max %.3e", what[k], name, maxd, maxv);
      g_assert_cmpfloat (maxv, >, 0.5 * MU);
      g_assert_cmpfloat (maxd, <, 1e-5 * maxv);
      ctr_geometry_free (gs[k]);
    }
}

/* ctr_atanf (the fan back-projection's γ') against atan in double: every
 * reduction branch (|t| below tan π/8, up to tan 3π/8, beyond), both signs,
 * 0 and ±inf. */
static void
test_atanf (void)
{
  double maxe = 0.0, at = 0.0;
  for (gint i = -200000; i <= 200000; i++)
    {
      /* linear steps in [-4, 4], then logarithmic out to ±1e8 */
      const double lin = i * 2e-5;
      const double t = fabs (lin) <= 4.0 ? lin : copysign (4.0 * pow (10.0, (fabs (lin) - 4.0) * 2.0), lin);
      const float tf = (float) t;
      const double e = fabs ((double) ctr_atanf (tf) - atan ((double) tf));
      if (e > maxe)
        {
          maxe = e;
          at = tf;
        }
    }
  g_test_message ("ctr_atanf: max |error| %.3e rad at t = %.6g", maxe, at);
  g_assert_cmpfloat (maxe, <, 2e-7);
  g_assert_cmpfloat (ctr_atanf (0.0f), ==, 0.0f);
  g_assert_cmpfloat (fabs (ctr_atanf (INFINITY) - G_PI_2), <, 1e-7);
  g_assert_cmpfloat (fabs (ctr_atanf (-INFINITY) + G_PI_2), <, 1e-7);
  g_assert_cmpfloat (ctr_atanf (-0.3f), ==, -ctr_atanf (0.3f));
}

/* Dead detector columns (mask 0) holding a value nobody filled (a
 * preprocessing step that skips dead pixels, or a caller writing into the
 * buffer): FBP fills them along the row itself, so the image equals that of
 * the same data with the columns filled beforehand, and stays close to the
 * image without dead pixels. */
static void
test_dead_columns_filled (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_fan (CTR_DETECTOR_FLAT, 360, 2 * G_PI);
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (0.0, 0.0, DISC_R, MU);
  CtrGrid grid = ctr_grid_square (IMG_N, IMG_PX, g->n_rows, 1.0);
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 4, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) clean = ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
  g_assert_no_error (error);
  const guint dead[] = { 150, 200, 201 };
  p->mask = g_new (guint8, g->n_cols);
  memset (p->mask, 1, g->n_cols);
  for (guint k = 0; k < G_N_ELEMENTS (dead); k++)
    p->mask[dead[k]] = 0;
  g_autoptr (CtrProjections) filled = ctr_projections_copy (p, &error);
  g_assert_no_error (error);
  for (guint v = 0; v < g->n_views; v++)
    {
      ctr_projections_fill_row (ctr_projections_view (filled, v), p->mask, g->n_cols);
      for (guint k = 0; k < G_N_ELEMENTS (dead); k++)
        ctr_projections_view (p, v)[dead[k]] = 1000.0f;
    }
  g_autoptr (CtrVolume) a = ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) b = ctr_fbp_run (g, filled, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
  g_assert_no_error (error);
  double same = 0.0, near = 0.0;
  for (gsize i = 0; i < (gsize) grid.nx * grid.ny; i++)
    {
      g_assert_true (isfinite (a->data[i]));
      same = MAX (same, fabs (a->data[i] - b->data[i]));
      if (hypot (ctr_grid_x (&grid, i % grid.nx), ctr_grid_y (&grid, i / grid.nx)) < 0.9 * DISC_R)
        near = MAX (near, fabs (a->data[i] - clean->data[i]));
    }
  g_test_message ("dead columns holding 1000: max |stale − prefilled| %.2e, inside the disc max |− clean| "
                  "%.2f %% of mu", same, 100.0 * near / MU);
  g_assert_cmpfloat (same, <, 1e-6 * MU);
  g_assert_cmpfloat (near, <, 0.05 * MU);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/fbp/filter/kernel", test_filter_kernel);
  g_test_add_func ("/ctr/core/fbp/atanf", test_atanf);
  g_test_add_func ("/ctr/core/fbp/row-interp", test_row_interp);
  g_test_add_func ("/ctr/core/fbp/row-interp-matches-scalar", test_row_interp_matches_scalar);
  g_test_add_func ("/ctr/core/fbp/row-interp-wide", test_row_interp_wide);
  g_test_add_func ("/ctr/core/fbp/parker", test_parker);
  g_test_add_func ("/ctr/core/fbp/disc/parallel", test_disc_parallel);
  g_test_add_func ("/ctr/core/fbp/disc/fan-flat", test_disc_fan_flat);
  g_test_add_func ("/ctr/core/fbp/disc/fan-curved", test_disc_fan_curved);
  g_test_add_func ("/ctr/core/fbp/disc/short-scan", test_disc_short_scan);
  g_test_add_func ("/ctr/core/fbp/disc/wide-fan", test_disc_wide_fan);
  g_test_add_func ("/ctr/core/fbp/disc/offset", test_disc_offset);
  g_test_add_func ("/ctr/core/fbp/disc/decreasing", test_disc_decreasing);
  g_test_add_func ("/ctr/core/fbp/disc/irregular", test_disc_irregular);
  g_test_add_func ("/ctr/core/fbp/disc/position", test_disc_position);
  g_test_add_func ("/ctr/core/fbp/shepp-logan/parallel", test_shepp_logan_parallel);
  g_test_add_func ("/ctr/core/fbp/shepp-logan/fan-curved", test_shepp_logan_fan);
  g_test_add_func ("/ctr/core/fbp/shepp-logan/short-scan", test_shepp_logan_short_scan);
  g_test_add_func ("/ctr/core/fbp/dead-columns-filled", test_dead_columns_filled);
  g_test_add_func ("/ctr/core/fbp/invalid", test_invalid);
  g_test_add_func ("/ctr/core/fbp/cancel", test_cancel);
  g_test_add_func ("/ctr/core/fbp/unit", test_unit_pixels);
  return g_test_run ();
}
