/* test-calib.c — the centre of rotation and the detector offset found from
 * the projections (core/calib/ctr-calib.h) on exact simulated scans with a
 * stated offset, the sign of the offset checked by reconstruction, and bad
 * input refused.
 *
 * Tolerances: exact (noiseless) line integrals of the analytic head, so
 * every method must land within 0.1 column of the simulated axis or central
 * ray (measured: see the g_test_message lines of each case); the reported
 * uncertainty must be finite and below 0.2 column.  The entropy
 * cross-check within 0.25 column (measured +0.21 on the parallel head,
 * +0.22 on the flat fan: a bias of the criterion on these noiseless
 * phantoms, not of the geometry: the sign test reconstructs as well with
 * the calibrated offset as with the true one).
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "analytic/ctr-fbp.h"

#define COL_TOL 0.1

static CtrProjections *
head_scan (const CtrGeometry *g, double radius_mm)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_head (radius_mm);
  CtrProjections *p = ctr_phantom_project (ph, g, 2, NULL);
  g_assert_nonnull (p);
  return p;
}

static CtrGeometry *
parallel (guint views, double range, guint cols, double offset_mm)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_PARALLEL, views);
  g->n_cols = cols;
  g->pitch_u = 1.0;
  g->offset_u = offset_mm;
  ctr_geometry_set_uniform_angles (g, 0.3, range / views);
  return g;
}

static CtrGeometry *
fan (CtrDetectorShape shape, guint views, guint cols, double offset_cols)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, views);
  g->shape = shape;
  g->sod_mm = 300;
  g->sdd_mm = 600;
  g->n_cols = cols;
  g->pitch_u = shape == CTR_DETECTOR_CURVED ? 2 * asin (64.0 / 300) / cols : 1.6;
  g->offset_u = offset_cols * g->pitch_u;
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / views);
  return g;
}

/* The curve kept for a plot (ctr-calib.h): at most CTR_CALIB_CURVE_MAX
 * finite samples spanning the estimate, least within one and a half of its
 * steps of it (the estimate comes from a finer search). */
static void
check_curve (const CtrCalibEstimate *e)
{
  g_assert_cmpuint (e->curve_n, >, 4);
  g_assert_cmpuint (e->curve_n, <=, CTR_CALIB_CURVE_MAX);
  g_assert_cmpfloat (e->curve_dx, >, 0);
  guint k = 0;
  for (guint i = 0; i < e->curve_n; i++)
    {
      g_assert_true (isfinite (e->curve_y[i]));
      if (e->curve_y[i] < e->curve_y[k])
        k = i;
    }
  const double x = e->curve_x0 + k * e->curve_dx;
  g_test_message ("%s curve: %u points from %.3f step %.3f, least at %.3f", ctr_calib_method_name (e->method),
                  e->curve_n, e->curve_x0, e->curve_dx, x);
  g_assert_cmpfloat (e->curve_x0, <, e->centre_col);
  g_assert_cmpfloat (e->curve_x0 + (e->curve_n - 1) * e->curve_dx, >, e->centre_col);
  g_assert_cmpfloat (fabs (x - e->centre_col), <=, 1.5 * e->curve_dx);
}

/* @sigma_known: FALSE where the method has one block only (Vo on one row). */
static void
check_estimate (const CtrCalibEstimate *e, double want, gboolean sigma_known)
{
  g_test_message ("%s: %.4f ± %.4f (quality %.3f), want %.4f", ctr_calib_method_name (e->method), e->centre_col,
                  e->sigma_col, e->quality, want);
  g_assert_true (e->ok);
  g_assert_cmpfloat (fabs (e->centre_col - want), <=, COL_TOL);
  if (sigma_known)
    g_assert_cmpfloat (e->sigma_col, <, 0.2);
  else
    g_assert_true (isnan (e->sigma_col) && e->note[0] != 0);
  g_assert_cmpfloat (e->quality, >, 0.2);
  check_curve (e);
}

/* A parallel scan over 360° whose axis sits at column 61.13: both methods,
 * and the combined offset with FORMAT.md's sign. */
static void
test_parallel (void)
{
  const double offset = 2.37;
  g_autoptr (CtrGeometry) g = parallel (360, 2 * G_PI, 128, offset);
  g_autoptr (CtrProjections) p = head_scan (g, 40);
  const double want = 63.5 - offset;
  g->offset_u = 0;   /* what the user's file says: nothing */
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_calibrate (g, p, NULL, &r, NULL, &error));
  g_assert_no_error (error);

  check_estimate (&r.estimates[0], want, TRUE);
  check_estimate (&r.estimates[1], want, FALSE);
  g_assert_false (r.disagree);
  g_assert_cmpfloat (fabs (r.offset_u - offset), <=, COL_TOL);
  /* the entropy cross-check, outside the answer, within a quarter column */
  g_assert_cmpuint (r.n_estimates, ==, 3);
  const CtrCalibEstimate *x = &r.estimates[2];
  g_test_message ("entropy: %.4f (quality %.3f)", x->centre_col, x->quality);
  g_assert_true (x->cross_check && x->ok);
  g_assert_cmpfloat (fabs (x->centre_col - want), <=, 0.25);
  check_curve (x);
  g_assert_cmpfloat (fabs (r.stated_centre_col - 63.5), <=, 1e-12);
}

/* A 180° scan with both end views (the first and the last are a pair), the
 * axis right of the middle; several rows, so the jackknife works on rows. */
static void
test_parallel_half (void)
{
  g_autoptr (CtrGeometry) g = parallel (91, G_PI * 91 / 90, 96, -3.6);
  g->n_rows = 3;
  g_autoptr (CtrProjections) p = head_scan (g, 30);
  g->offset_u = 0;
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = TRUE };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  g_assert_cmpuint (r.n_estimates, ==, 2);
  g_assert_cmpuint (r.estimates[0].used, ==, 1);   /* one view pair */
  check_estimate (&r.estimates[0], 47.5 + 3.6, TRUE);
  check_estimate (&r.estimates[1], 47.5 + 3.6, TRUE);
}

/* A tilted detector: the axis's column moves by −0.04 column per row over
 * 8 rows (each row projected with its own offset); the tilt is measured
 * from the rows, the centre at the middle. */
static void
test_tilt (void)
{
  const guint rows = 8;
  const double per_row = 0.04;
  g_autoptr (CtrGeometry) g = parallel (180, 2 * G_PI, 96, 0);
  g->n_rows = rows;
  g_autoptr (CtrProjections) p = ctr_projections_new (180, rows, 96, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (guint r = 0; r < rows; r++)
    {
      g_autoptr (CtrGeometry) one = parallel (180, 2 * G_PI, 96, 1.5 + per_row * (r - 3.5));
      g_autoptr (CtrProjections) q = head_scan (one, 30);
      for (guint k = 0; k < 180; k++)
        memcpy (ctr_projections_view (p, k) + (gsize) r * 96, ctr_projections_view (q, k), 96 * sizeof (float));
    }
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = TRUE };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  const CtrCalibEstimate *m = &r.estimates[0];
  g_test_message ("slope %.5f ± %.5f column/row, tilt %.4f° ± %.4f°", m->slope, m->sigma_slope,
                  r.tilt_rad * 180 / G_PI, r.sigma_tilt_rad * 180 / G_PI);
  g_assert_cmpfloat (fabs (m->slope + per_row), <=, 0.005);
  g_assert_cmpfloat (fabs (r.tilt_rad - atan (-per_row)), <=, 0.005);
  g_assert_cmpfloat (fabs (m->centre_col - (47.5 - 1.5)), <=, COL_TOL);
  /* the untilted scan of test_parallel_half reads no tilt */
  g_autoptr (CtrGeometry) h = parallel (180, 2 * G_PI, 96, 1.5);
  h->n_rows = 4;
  g_autoptr (CtrProjections) hp = head_scan (h, 30);
  g_assert_true (ctr_calibrate (h, hp, &opt, &r, NULL, &error));
  g_assert_cmpfloat (fabs (r.estimates[0].slope), <=, 0.002);
}

static void
check_fan (CtrDetectorShape shape, double offset_cols, gboolean cross_check)
{
  g_autoptr (CtrGeometry) g = fan (shape, 360, 160, offset_cols);
  g_autoptr (CtrProjections) p = head_scan (g, 50);
  const double offset = g->offset_u;
  g->offset_u = 0;
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = !cross_check };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.n_estimates, ==, cross_check ? 2 : 1);
  check_estimate (&r.estimates[0], 79.5 - offset_cols, TRUE);
  if (cross_check)
    {
      g_test_message ("entropy: %.4f", r.estimates[1].centre_col);
      g_assert_true (r.estimates[1].ok && fabs (r.estimates[1].centre_col - (79.5 - offset_cols)) <= 0.25);
    }
  g_assert_false (r.disagree);
  g_assert_cmpfloat (fabs (r.offset_u - offset), <=, COL_TOL * g->pitch_u);
}

/* A short scan (180° plus the fan plus 10°): the rays whose conjugate was
 * not measured are left out, the others still find the central ray. */
static void
test_fan_short (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT, 240, 160, -2.2);
  const double range = G_PI + 2 * ctr_geometry_half_fan_angle (g) + 10 * G_PI / 180;
  ctr_geometry_set_uniform_angles (g, 0.1, range / 240);
  g_autoptr (CtrProjections) p = head_scan (g, 50);
  g->offset_u = 0;
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = TRUE };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  g_assert_no_error (error);
  check_estimate (&r.estimates[0], 79.5 + 2.2, TRUE);
  g_assert_cmpuint (r.estimates[0].used, <, 240 * 160);
}

static void
test_fan_flat (void)
{
  check_fan (CTR_DETECTOR_FLAT, 2.4, TRUE);
}

static void
test_fan_curved (void)
{
  check_fan (CTR_DETECTOR_CURVED, -1.7, FALSE);
}

/* A flat-panel cone beam with offsets in u and v: the central row (v = 0,
 * between two rows) of an extruded head. */
static void
test_cone (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT, 180, 96, 1.8);
  g->beam = CTR_BEAM_CONE;
  g->pitch_u = 2.4;
  g->offset_u = 1.8 * g->pitch_u;
  g->n_rows = 8;
  g->pitch_v_mm = 2.0;
  g->offset_v_mm = 1.3;
  g_autoptr (CtrPhantom) ph2 = ctr_phantom_new_head (45);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_extruded (ph2, 40);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, NULL);
  g_assert_nonnull (p);
  g->offset_u = 0;
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = TRUE };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  g_assert_no_error (error);
  check_estimate (&r.estimates[0], 47.5 - 1.8, TRUE);
}

/* The sign: the calibrated geometry reconstructs the phantom closer than
 * the one with the offset negated, and as close as the true geometry. */
static void
test_sign_by_reconstruction (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT, 360, 160, 4.3);
  g_autoptr (CtrProjections) p = head_scan (g, 50);
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_head (50);
  const CtrGrid grid = ctr_grid_square (96, 1.0, 1, 1.0);
  g_autoptr (CtrVolume) truth = ctr_phantom_rasterize (ph, &grid, 2, NULL);
  const double true_offset = g->offset_u;
  g->offset_u = 0;
  CtrCalibResult r;
  g_autoptr (GError) error = NULL;
  const CtrCalibOptions opt = { .no_cross_check = TRUE };
  g_assert_true (ctr_calibrate (g, p, &opt, &r, NULL, &error));
  double rmse[3];
  const double offsets[3] = { r.offset_u, -r.offset_u, true_offset };
  for (guint i = 0; i < 3; i++)
    {
      g->offset_u = offsets[i];
      g_autoptr (CtrVolume) img = ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
      g_assert_no_error (error);
      rmse[i] = ctr_metrics_rmse (img->data, truth->data, ctr_grid_slice_size (&grid), NULL);
    }
  g_test_message ("RMSE calibrated %.5f, offset negated %.5f, true %.5f", rmse[0], rmse[1], rmse[2]);
  g_assert_cmpfloat (rmse[0], <, 0.5 * rmse[1]);
  g_assert_cmpfloat (rmse[0], <=, 1.05 * rmse[2]);
}

static void
test_bad_input (void)
{
  g_autoptr (GError) error = NULL;
  CtrCalibResult r;
  /* 90° of parallel views: no pair 180° apart, no 180° sinogram */
  g_autoptr (CtrGeometry) g = parallel (45, G_PI / 2, 64, 0);
  g_autoptr (CtrProjections) p = head_scan (g, 20);
  g_assert_false (ctr_calibrate (g, p, NULL, &r, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "180°"));
  g_clear_error (&error);
  /* a fan beam over 90°: no ray has a conjugate */
  g_autoptr (CtrGeometry) f = fan (CTR_DETECTOR_FLAT, 30, 64, 0);
  ctr_geometry_set_uniform_angles (f, 0, G_PI / 2 / 30);
  g_autoptr (CtrProjections) fp = head_scan (f, 20);
  g_assert_false (ctr_calibrate (f, fp, NULL, &r, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  /* projections of another shape, and counts */
  g_autoptr (CtrGeometry) big = parallel (360, 2 * G_PI, 65, 0);
  g_assert_false (ctr_calibrate (big, p, NULL, &r, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  p->kind = CTR_PROJ_COUNTS;
  g_assert_false (ctr_calibrate (g, p, NULL, &r, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  p->kind = CTR_PROJ_LINE_INTEGRALS;
  /* per-view vectors: no single offset */
  g_autoptr (CtrGeometry) v = fan (CTR_DETECTOR_FLAT, 30, 64, 0);
  v->vectors = g_new0 (double, (gsize) CTR_GEOMETRY_VECTOR_LEN * v->n_views);
  g_assert_false (ctr_calibrate (v, fp, NULL, &r, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/calib/parallel", test_parallel);
  g_test_add_func ("/calib/parallel-half", test_parallel_half);
  g_test_add_func ("/calib/tilt", test_tilt);
  g_test_add_func ("/calib/fan-flat", test_fan_flat);
  g_test_add_func ("/calib/fan-short", test_fan_short);
  g_test_add_func ("/calib/fan-curved", test_fan_curved);
  g_test_add_func ("/calib/cone", test_cone);
  g_test_add_func ("/calib/sign-by-reconstruction", test_sign_by_reconstruction);
  g_test_add_func ("/calib/bad-input", test_bad_input);
  return g_test_run ();
}
