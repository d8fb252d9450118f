/* test-geometry.c — FORMAT.md conventions and validation of CtrGeometry. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "data/ctr-ray-cylinder.h"

static CtrGeometry *
fan (CtrDetectorShape shape)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 8);
  g->shape = shape;
  g->sod_mm = 500;
  g->sdd_mm = 1000;
  g->n_cols = 101;
  g->pitch_u = shape == CTR_DETECTOR_CURVED ? 0.002 : 2.0;
  ctr_geometry_set_uniform_angles (g, 0, G_PI / 4);
  return g;
}

static void
test_validate_errors (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT);
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_geometry_validate (g, &error));


  g_autoptr (CtrGeometry) z = ctr_geometry_copy (g);
  z->n_views = 0;
  g_assert_false (ctr_geometry_validate (z, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_assert_nonnull (strstr (error->message, "zero views"));
  g_clear_error (&error);

  g_autoptr (CtrGeometry) neg = ctr_geometry_copy (g);
  neg->sod_mm = -5;
  g_assert_false (ctr_geometry_validate (neg, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) close = ctr_geometry_copy (g);
  close->sdd_mm = 400;
  g_assert_false (ctr_geometry_validate (close, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) nan_angle = ctr_geometry_copy (g);
  nan_angle->angles[3] = NAN;
  g_assert_false (ctr_geometry_validate (nan_angle, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  g_autoptr (CtrGeometry) pitch = ctr_geometry_copy (g);
  pitch->pitch_u = 0;
  g_assert_false (ctr_geometry_validate (pitch, &error));
  g_clear_error (&error);

  g_autoptr (CtrGeometry) wide = fan (CTR_DETECTOR_CURVED);
  wide->pitch_u = 0.05;  /* 101 × 0.05 rad > π */
  g_assert_false (ctr_geometry_validate (wide, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
}

static void
test_columns (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT);
  g->offset_u = 0.7;
  /* FORMAT.md: u_j = (j - (cols-1)/2) pitch + offset */
  g_assert_cmpfloat_with_epsilon (ctr_geometry_col_u (g, 50), 0.7, 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_col_u (g, 0), -100 + 0.7, 1e-12);
  for (double c = -3; c < 105; c += 0.37)
    g_assert_cmpfloat_with_epsilon (ctr_geometry_u_col (g, ctr_geometry_col_u (g, c)), c, 1e-9);

  g->n_rows = 4;
  g->pitch_v_mm = 2;
  g_assert_cmpfloat_with_epsilon (ctr_geometry_row_v (g, 0), -3.0, 1e-12);
  g_assert_cmpuint (ctr_geometry_slice_row (g, 0), ==, 0);
  g->rows_increase_with_v = FALSE;
  g_assert_cmpfloat_with_epsilon (ctr_geometry_row_v (g, 0), 3.0, 1e-12);
  g_assert_cmpuint (ctr_geometry_slice_row (g, 0), ==, 3);  /* slice 0 = lowest z */
}

static void
test_rays (void)
{
  /* Fan, beta = 0: source at (0, -R), central ray along +y, u along +x. */
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT);
  double o[2], d[2];
  ctr_geometry_ray (g, 0, 50, o, d);
  g_assert_cmpfloat_with_epsilon (o[0], 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (o[1], -500, 1e-9);
  g_assert_cmpfloat_with_epsilon (d[0], 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (d[1], 1, 1e-12);
  /* Column 100 (u = +100 mm at SDD 1000): the ray heads towards +x. */
  ctr_geometry_ray (g, 0, 100, o, d);
  g_assert_cmpfloat_with_epsilon (d[0] / d[1], 0.1, 1e-12);
  /* beta = pi/2 (view 2): source at (R, 0), ray along -x, u along +y. */
  ctr_geometry_ray (g, 2, 100, o, d);
  g_assert_cmpfloat_with_epsilon (o[0], 500, 1e-9);
  g_assert_cmpfloat_with_epsilon (o[1], 0, 1e-9);
  g_assert_cmpfloat (d[0], <, 0);
  g_assert_cmpfloat_with_epsilon (d[1] / -d[0], 0.1, 1e-12);

  /* Curved: u is the angle from the central ray. */
  g_autoptr (CtrGeometry) c = fan (CTR_DETECTOR_CURVED);
  ctr_geometry_ray (c, 0, 100, o, d);
  g_assert_cmpfloat_with_epsilon (atan2 (d[0], d[1]), 0.1, 1e-12);

  /* Parallel: rays along (-sin b, cos b), u along (cos b, sin b). */
  g_autoptr (CtrGeometry) p = ctr_geometry_new (CTR_BEAM_PARALLEL, 4);
  p->n_cols = 11;
  p->pitch_u = 1;
  ctr_geometry_set_uniform_angles (p, 0, G_PI / 4);
  ctr_geometry_ray (p, 2, 10, o, d);   /* beta = pi/2, u = +5 */
  g_assert_cmpfloat_with_epsilon (o[0], 0, 1e-12);
  g_assert_cmpfloat_with_epsilon (o[1], 5, 1e-12);
  g_assert_cmpfloat_with_epsilon (d[0], -1, 1e-12);
  g_assert_cmpfloat_with_epsilon (d[1], 0, 1e-12);
}

static void
test_field_of_view (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT);
  /* edge u = 101 mm at SDD 1000 → R sin(atan(0.101)) */
  g_assert_cmpfloat_with_epsilon (ctr_geometry_fov_radius_mm (g), 500 * sin (atan (0.101)), 1e-9);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_pitch_at_iso_mm (g), 1.0, 1e-12);
  g_autoptr (CtrGeometry) c = fan (CTR_DETECTOR_CURVED);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_fov_radius_mm (c), 500 * sin (0.101), 1e-9);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_angular_range (c), 2 * G_PI, 1e-12);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  CtrGrid grid = ctr_grid_default (g, 0, 0);
  g_assert_cmpfloat_with_epsilon (grid.dx, 1.0, 1e-12);
  g_assert_cmpfloat (grid.nx * grid.dx, >=, 2 * ctr_geometry_fov_radius_mm (g) - 1e-9);
  CtrGrid sized = ctr_grid_default (g, 64, 0);
  g_assert_cmpuint (sized.nx, ==, 64);
  g_assert_cmpfloat_with_epsilon (sized.dx * 64, 2 * ctr_geometry_fov_radius_mm (g), 1e-9);
}

/* The grid rule with a reference (ctr_grid_for_scan): a request whose size
 * and pixel are each left out or the reference's own keeps the reference's
 * grid, for a fan as for a helical scan; "--size 256" on a 256² reference
 * of 0.957 mm is 0.957 mm pixels, not the detector's 1 mm at the isocentre
 * (issue 31: the RMSE was measured across different pixels). */
static void
test_grid_reference (void)
{
  g_autoptr (CtrGeometry) g = fan (CTR_DETECTOR_FLAT);
  const CtrGrid ref = { .nx = 256, .ny = 256, .nz = 1, .dx = 0.95703125, .dy = 0.95703125, .dz = 1 };
  const struct { guint size; double pixel_mm; gboolean keeps; } cases[] = {
    { 0, 0, TRUE }, { 256, 0, TRUE }, { 0, 0.95703125, TRUE }, { 256, 0.95703125, TRUE },
    { 200, 0, FALSE }, { 0, 1.0, FALSE }, { 256, 1.0, FALSE }, { 200, 0.95703125, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const CtrGridRequest r = { .size = cases[i].size, .pixel_mm = cases[i].pixel_mm };
      CtrGrid grid;
      g_assert_true (ctr_grid_for_scan (g, &ref, &r, &grid, NULL));
      const CtrGrid want = cases[i].keeps ? ref : ctr_grid_default (g, r.size, r.pixel_mm);
      g_assert_cmpuint (grid.nx, ==, want.nx);
      g_assert_cmpfloat_with_epsilon (grid.dx, want.dx, 1e-12);
      g_assert_cmpuint (grid.nz, ==, g->n_rows);
    }
  /* without a reference the request alone decides */
  const CtrGridRequest sized = { .size = 256 };
  CtrGrid grid;
  g_assert_true (ctr_grid_for_scan (g, NULL, &sized, &grid, NULL));
  g_assert_cmpfloat_with_epsilon (grid.dx, ctr_grid_default (g, 256, 0).dx, 1e-12);
}

/* Limited angle: complete data need 180° (parallel) or 180° + the fan
 * angle (fan: a short scan); less is said, in degrees. */
static CtrGeometry *
arc (CtrBeam beam, guint views, double step_deg)
{
  CtrGeometry *g = beam == CTR_BEAM_PARALLEL ? ctr_geometry_new (CTR_BEAM_PARALLEL, views) : NULL;

  if (g == NULL)
    {
      g = ctr_geometry_new (CTR_BEAM_FAN, views);
      g->shape = CTR_DETECTOR_CURVED;
      g->sod_mm = 500;
      g->sdd_mm = 1000;
      g->pitch_u = 0.002;   /* 101 columns: half fan 0.101 rad, fan 11.57° */
    }
  else
    g->pitch_u = 1;
  g->n_cols = 101;
  ctr_geometry_set_uniform_angles (g, 0, step_deg * G_PI / 180);
  return g;
}

static void
test_coverage (void)
{
  g_autoptr (CtrGeometry) full = fan (CTR_DETECTOR_CURVED);
  g_autoptr (CtrGeometry) twenty = arc (CTR_BEAM_FAN, 10, 2.0);
  g_autoptr (CtrGeometry) half = arc (CTR_BEAM_FAN, 90, 2.0);
  g_autoptr (CtrGeometry) shortscan = arc (CTR_BEAM_FAN, 97, 2.0);
  g_autoptr (CtrGeometry) par180 = arc (CTR_BEAM_PARALLEL, 90, 2.0);
  g_autoptr (CtrGeometry) par90 = arc (CTR_BEAM_PARALLEL, 45, 2.0);
  g_autofree char *n_twenty = ctr_geometry_coverage_note (twenty);
  g_autofree char *n_half = ctr_geometry_coverage_note (half);
  g_autofree char *n_par90 = ctr_geometry_coverage_note (par90);
  char *none[3] = { ctr_geometry_coverage_note (full), ctr_geometry_coverage_note (shortscan),
                               ctr_geometry_coverage_note (par180) };

  g_assert_null (none[0]);                     /* 360° */
  g_assert_null (none[1]);                     /* 194° ≥ 180° + 11.57° */
  g_assert_null (none[2]);                     /* parallel 180° */
  g_assert_nonnull (strstr (n_twenty, "cover 20.0° of the 191.6° (180° + the 11.6° fan)"));
  g_assert_nonnull (strstr (n_half, "cover 180.0° of the 191.6°"));   /* parallel's need, not a fan's */
  g_assert_nonnull (strstr (n_par90, "cover 90.0° of the 180°"));
  for (guint i = 0; i < 3; i++)
    g_free (none[i]);
}

/* ctr_geometry_cylinder_path against the chord computed here from the
 * source and the detector point (FORMAT.md, view 0: source (0, −SOD),
 * flat detector on y = SDD − SOD): fan flat and curved, cone flat off the
 * middle row (the 3-D length), parallel beam; a ray that misses gives 0. */
static void
test_cylinder_path (void)
{
  const double r = 60, centre[2] = { 0, 0 }, off[2] = { 15, 0 };
  g_autoptr (CtrGeometry) flat = fan (CTR_DETECTOR_FLAT);
  g_autoptr (CtrGeometry) curved = fan (CTR_DETECTOR_CURVED);
  /* column 60: u = 20 mm (flat), γ = 0.02 rad (curved) */
  const double df = 500 * 20 / hypot (20, 1000), dc = 500 * sin (0.02);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_cylinder_path (flat, 0, 60, 0, centre, r), 2 * sqrt (r * r - df * df), 1e-9);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_cylinder_path (curved, 0, 60, 0, centre, r), 2 * sqrt (r * r - dc * dc), 1e-9);
  /* the central ray passes 15 mm from the shifted centre */
  g_assert_cmpfloat_with_epsilon (ctr_geometry_cylinder_path (flat, 0, 50, 0, off, r), 2 * sqrt (r * r - 225), 1e-9);
  g_assert_cmpfloat (ctr_geometry_cylinder_path (flat, 0, 100, 0, centre, 10), ==, 0);

  g_autoptr (CtrGeometry) cone = fan (CTR_DETECTOR_FLAT);
  cone->beam = CTR_BEAM_CONE;
  cone->n_rows = 5;
  cone->pitch_v_mm = 10;
  /* row 4: v = ±20 mm; the ray's length per mm of its trace */
  const double stretch = sqrt (20 * 20 + 1000 * 1000 + 20 * 20) / hypot (20, 1000);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_cylinder_path (cone, 0, 60, 4, centre, r),
                                  2 * sqrt (r * r - df * df) * stretch, 1e-9);

  g_autoptr (CtrGeometry) par = ctr_geometry_new (CTR_BEAM_PARALLEL, 4);
  par->n_cols = 101;
  par->pitch_u = 1;
  ctr_geometry_set_uniform_angles (par, 0, G_PI / 4);
  for (guint v = 0; v < 4; v++)
    g_assert_cmpfloat_with_epsilon (ctr_geometry_cylinder_path (par, v, 80, 0, centre, 50),
                                    2 * sqrt (50 * 50 - 30 * 30), 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/geometry/validate", test_validate_errors);
  g_test_add_func ("/ctr/core/geometry/columns-rows", test_columns);
  g_test_add_func ("/ctr/core/geometry/rays", test_rays);
  g_test_add_func ("/ctr/core/geometry/field-of-view", test_field_of_view);
  g_test_add_func ("/ctr/core/geometry/coverage", test_coverage);
  g_test_add_func ("/ctr/core/geometry/grid-reference", test_grid_reference);
  g_test_add_func ("/ctr/core/geometry/cylinder-path", test_cylinder_path);
  return g_test_run ();
}
