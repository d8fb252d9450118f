/* test-helical.c — helical cone-beam CT: the geometry (rays, coverage,
 * validation), the projector pair with a moving source and a flying focal
 * spot (adjointness, agreement with exact line integrals), the rebinning
 * (360LI, 180LI) against the direct axial projection of an analytic phantom,
 * and the plan's two routes (rebinned FBP, the slab's iterative method).
 *
 * Phantom and truth: ctr-phantom3d.h (exact chords of ellipsoids), never a
 * voxelised volume, except where the projector itself is tested.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "solve/ctr-report-planes.h"
#include "analytic/ctr-fdk.h"
#include "data/ctr-helix.h"
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-cone-op.h"
#include "analytic/ctr-rebin-helical.h"

#define MU 0.02

/* A clinical-like helix, scaled down: SOD 300, SDD 600, curved detector of
 * @cols columns covering a 64 mm radius, @rows rows of 1 mm at the
 * isocentre, @per_turn views per turn, @turns turns, pitch @pitch, the source
 * starting at z = @z0 and rising. */
static CtrGeometry *
make_helix (guint per_turn, guint turns, guint rows, guint cols, double pitch, double z0)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, per_turn * turns);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 300.0;
  g->sdd_mm = 600.0;
  g->n_rows = rows;
  g->n_cols = cols;
  g->pitch_u = 2.0 * asin (64.0 / 300.0) / cols;
  g->pitch_v_mm = 1.0 * 600.0 / 300.0;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / per_turn);
  ctr_geometry_set_source_z (g, z0, pitch * rows * 1.0 / per_turn, NULL);
  return g;
}

/* Ellipsoids that change along z within a few mm (so z interpolation
 * matters), inside a 50 mm radius. */
static CtrPhantom3d *
make_phantom (void)
{
  CtrPhantom3d *ph = ctr_phantom3d_new (6);
  ph->s[0] = (CtrSolid) { CTR_SOLID_ELLIPSOID, 0, 0, 0, 45, 38, 30, 0.1, MU };
  ph->s[1] = (CtrSolid) { CTR_SOLID_ELLIPSOID, 12, 8, 2, 10, 6, 4, 0.5, 0.5 * MU };
  ph->s[2] = (CtrSolid) { CTR_SOLID_ELLIPSOID, -15, -10, -1, 8, 8, 3, 0, -0.4 * MU };
  ph->s[3] = (CtrSolid) { CTR_SOLID_ELLIPSOID, -5, 20, 3, 4, 9, 6, -0.3, 0.8 * MU };
  ph->s[4] = (CtrSolid) { CTR_SOLID_CYLINDER, 20, -15, 0, 5, 5, 2.5, 0, 0.6 * MU };
  ph->s[5] = (CtrSolid) { CTR_SOLID_ELLIPSOID, 0, -25, -3, 12, 4, 5, 0.2, 0.3 * MU };
  return ph;
}

static double
dot (const float *a, const float *b, gsize n)
{
  double s = 0.0;
  for (gsize i = 0; i < n; i++)
    s += (double) a[i] * b[i];
  return s;
}

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */

static void
test_geometry (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (100, 3, 8, 64, 1.0, -10.0);
  g_assert_true (ctr_geometry_validate (g, &error));
  g_assert_true (ctr_geometry_is_helical (g));
  g_assert_true (ctr_helix_applies (g));
  g_assert_cmpfloat_with_epsilon (ctr_geometry_slice_width_mm (g), 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (ctr_helix_feed_mm (g), 8.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (ctr_helix_pitch (g), 1.0, 1e-9);
  g_autofree char *d = ctr_geometry_describe (g);
  g_assert_nonnull (strstr (d, "helical, table feed 8 mm per rotation (pitch 1)"));

  /* The central ray (u = v = 0 between the two middle rows, offset 0) of
   * every view meets the axis at the source's z; a ray of row v meets it at
   * z + v·R·cos γ / SDD. */
  for (guint k = 0; k < g->n_views; k += 37)
    {
      double o[3], dir[3];
      ctr_cone_ray (g, k, (g->n_cols - 1) * 0.5, (g->n_rows - 1) * 0.5, o, dir);
      const double t = -(o[0] * dir[0] + o[1] * dir[1]) / (dir[0] * dir[0] + dir[1] * dir[1]);
      g_assert_cmpfloat (hypot (o[0] + t * dir[0], o[1] + t * dir[1]), <, 1e-9);
      g_assert_cmpfloat_with_epsilon (o[2] + t * dir[2], g->source_z_mm[k], 1e-9);
      const double gamma = ctr_geometry_col_u (g, 5), v = ctr_geometry_row_v (g, 7);
      g_assert_cmpfloat_with_epsilon (ctr_helix_ray_z (g, k, 7, 5),
                                      g->source_z_mm[k] + v * 300.0 * cos (gamma) / 600.0, 1e-9);
    }

  /* Coverage: 360° needs every line seen below and above; the conjugate
   * rays widen it by about half a feed at each end. */
  double lo, hi, lo2, hi2;
  g_assert_true (ctr_helix_z_coverage (g, FALSE, &lo, &hi));
  g_assert_true (ctr_helix_z_coverage (g, TRUE, &lo2, &hi2));
  g_test_message ("coverage 360: %.3f … %.3f; 180: %.3f … %.3f", lo, hi, lo2, hi2);
  /* First turn ends at z0 + 8 (less a view), the detector reaches ±3.5 mm
   * (cos γ ≥ 0.977 at the edge): 360° from about −2 − 3.4 + 8 … */
  g_assert_cmpfloat (fabs (lo - (-10.0 + 8.0 - 0.08 - 3.5 * cos (asin (64.0 / 300.0)))), <, 0.1);
  g_assert_cmpfloat (fabs (hi - (-10.0 + 16.0 + 3.5 * cos (asin (64.0 / 300.0)))), <, 0.1);
  g_assert_cmpfloat (lo2, <, lo - 3.0);
  g_assert_cmpfloat (hi2, >, hi + 3.0);
  CtrGrid grid = ctr_grid_default (g, 0, 0);
  g_assert_cmpfloat (ctr_grid_z (&grid, 0), >=, lo - 1e-9);
  g_assert_cmpfloat (ctr_grid_z (&grid, grid.nz - 1), <=, hi + 1e-9);
  g_assert_cmpfloat_with_epsilon (grid.dz, 1.0, 1e-12);

  /* The table coordinate and a grid in it. */
  g->table_reversed = TRUE;
  g_assert_true (ctr_helix_grid (g, 32, 2.0, -3.0, 1.0, 0.5, &grid, &error));
  g_assert_cmpuint (grid.nz, ==, 9);
  g_assert_cmpfloat_with_epsilon (ctr_grid_z (&grid, 0), -1.0, 1e-12);   /* table 1 */
  g_assert_cmpfloat_with_epsilon (ctr_grid_z (&grid, 8), 3.0, 1e-12);    /* table −3 */
  g_assert_false (ctr_helix_grid (g, 32, 2.0, 1.0, -3.0, 0.5, &grid, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* Copies keep the motion; validation refuses what does not make sense. */
  g->focal_shift = g_new0 (double, 3 * g->n_views);
  g_autoptr (CtrGeometry) c = ctr_geometry_copy (g);
  g_assert_true (c->source_z_mm != g->source_z_mm && c->source_z_mm[5] == g->source_z_mm[5]);
  g_assert_nonnull (c->focal_shift);
  c->focal_shift[3 * 4 + 2] = 200.0;   /* radial shift beyond SOD/2 */
  g_assert_false (ctr_geometry_validate (c, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  c->focal_shift[3 * 4 + 2] = 0.0;
  c->angles[10] = c->angles[9];        /* a helix must progress */
  g_assert_false (ctr_geometry_validate (c, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  c->angles[10] = c->angles[11];
  c->beam = CTR_BEAM_FAN;               /* a source z is cone beam only */
  g_assert_false (ctr_geometry_validate (c, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  /* FDK refuses a helix. */
  g_autoptr (CtrGeometry) flat = make_helix (20, 2, 4, 16, 1.0, 0.0);
  flat->shape = CTR_DETECTOR_FLAT;
  flat->pitch_u = 2.0;
  g_assert_false (ctr_fdk_check_geometry (flat, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
}

/* Per-view vectors are the general form of a flat helix: the vectors of a
 * flat helical geometry with a flying focal spot give the same rays; a
 * geometry with both vectors and helical fields is refused; a view subset
 * keeps each view's source z and focal-spot shift. */
static void
test_vectors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (40, 2, 4, 16, 1.0, -3.0);
  g->shape = CTR_DETECTOR_FLAT;
  g->pitch_u = 6.0;
  g->offset_v_mm = 0.4;
  g->focal_shift = g_new0 (double, 3 * g->n_views);
  for (guint k = 0; k < g->n_views; k++)
    {
      g->focal_shift[3 * k] = (k % 2 ? 1 : -1) * 1e-3;
      g->focal_shift[3 * k + 1] = (k % 2 ? -1 : 1) * 0.3;
      g->focal_shift[3 * k + 2] = 0.5;
    }
  g_assert_true (ctr_geometry_validate (g, &error));
  g_autoptr (CtrGeometry) v = ctr_geometry_to_vectors (g, &error);
  g_assert_no_error (error);
  g_assert_null (v->source_z_mm);
  for (guint k = 0; k < g->n_views; k += 7)
    for (double col = -0.5; col <= g->n_cols; col += 5.25)
      for (double row = -0.5; row <= g->n_rows; row += 1.75)
        {
          double o1[3], d1[3], o2[3], d2[3];
          ctr_cone_ray (g, k, col, row, o1, d1);
          ctr_cone_ray (v, k, col, row, o2, d2);
          for (int i = 0; i < 3; i++)
            {
              g_assert_cmpfloat (fabs (o1[i] - o2[i]), <, 1e-9);
              g_assert_cmpfloat (fabs (d1[i] - d2[i]), <, 1e-12);
            }
        }

  g_autoptr (CtrGeometry) both = ctr_geometry_copy (v);
  both->source_z_mm = g_memdup2 (g->source_z_mm, sizeof (double) * g->n_views);
  g_assert_false (ctr_geometry_validate (both, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_assert_nonnull (strstr (error->message, "not both"));
  g_clear_error (&error);

  g_autoptr (CtrGeometry) sub = ctr_geometry_select_views (g, 5, 10, NULL);
  g_assert_cmpuint (sub->n_views, ==, 10);
  for (guint k = 0; k < 10; k++)
    {
      g_assert_cmpfloat (sub->source_z_mm[k], ==, g->source_z_mm[5 + k]);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat (sub->focal_shift[3 * k + i], ==, g->focal_shift[3 * (5 + k) + i]);
    }
  g_assert_true (ctr_geometry_validate (sub, &error));
}

/* ------------------------------------------------------------------------ */
/* Projector                                                                 */

/* An alternating flying focal spot: ±angle, ±z, a small radial move. */
static void
add_focal_spot (CtrGeometry *g, double dbeta, double dz, double drho)
{
  g->focal_shift = g_new0 (double, 3 * g->n_views);
  for (guint k = 0; k < g->n_views; k++)
    {
      const double s = k % 2 ? 1.0 : -1.0;
      g->focal_shift[3 * k] = s * dbeta;
      g->focal_shift[3 * k + 1] = s * dz;
      g->focal_shift[3 * k + 2] = s * drho;
    }
}

static void
test_projector_adjoint (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (12, 2, 4, 20, 1.3, -6.0);
  add_focal_spot (g, 0.01, 0.3, 0.5);
  CtrGrid grid = ctr_grid_square (20, 6.0, 10, 1.5);
  grid.cz = 0.5;
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize nvox = ctr_grid_size (&grid), per_view = (gsize) g->n_rows * g->n_cols;
  const gsize nproj = per_view * g->n_views;
  g_autofree float *x = g_new (float, nvox), *y = g_new (float, nproj);
  g_autofree float *ax = g_new (float, nproj), *aty = g_new0 (float, nvox);
  g_autoptr (GRand) rnd = g_rand_new_with_seed (11);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  for (gsize i = 0; i < nproj; i++)
    y[i] = (float) g_rand_double (rnd);
  ctr_cone_projector_forward (cp, x, ax);
  ctr_cone_projector_adjoint (cp, y, aty);
  double l = dot (ax, y, nproj), r = dot (x, aty, nvox);
  g_test_message ("helical projector: <Ax,y> %.9e  <x,ATy> %.9e  rel %.2e", l, r, fabs (l - r) / l);
  g_assert_cmpfloat (l, >, 0.0);
  g_assert_cmpfloat (fabs (l - r), <, 1e-5 * fabs (l));

  /* The masked operator (the slab's): rays left out are rows of zeros, and
   * forward and adjoint stay a matched pair. */
  guint8 *mask = g_new (guint8, nproj);
  for (gsize i = 0; i < nproj; i++)
    mask[i] = g_rand_int_range (rnd, 0, 3) != 0;
  g_autoptr (CtrConeProjector) cp2 = ctr_cone_projector_new (g, &grid, &error);
  g_autoptr (CtrOperator) op = ctr_cone_op_new_masked (g_steal_pointer (&cp2), mask, &error);
  g_assert_no_error (error);
  g_assert_true (op->klass->forward (op, CTR_SUBSET_ALL, x, ax, &error));
  g_assert_true (op->klass->adjoint (op, CTR_SUBSET_ALL, y, aty, &error));
  for (gsize i = 0; i < nproj; i++)
    if (mask[i] == 0)
      g_assert_cmpfloat (ax[i], ==, 0.0f);
  l = dot (ax, y, nproj);
  r = dot (x, aty, nvox);
  g_test_message ("masked operator: <Ax,y> %.9e  <x,ATy> %.9e  rel %.2e", l, r, fabs (l - r) / l);
  g_assert_cmpfloat (fabs (l - r), <, 1e-5 * fabs (l));
  /* Column sums of the masked operator = the adjoint of ones on the kept rays. */
  g_autofree float *cs = g_new (float, nvox), *ones = g_new (float, nproj);
  for (gsize i = 0; i < nproj; i++)
    ones[i] = mask[i] ? 1.0f : 0.0f;
  g_assert_true (op->klass->column_sums (op, CTR_SUBSET_ALL, cs, &error));
  g_assert_true (op->klass->adjoint (op, CTR_SUBSET_ALL, ones, aty, &error));
  for (gsize i = 0; i < nvox; i++)
    g_assert_cmpfloat (fabs (cs[i] - aty[i]), <=, 1e-4 * (1.0 + fabs (aty[i])));
}

/* The Joseph projection of the voxelised phantom ≈ its exact line integrals
 * along the helix, flying focal spot included. */
static void
test_projector_exact (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (24, 2, 8, 64, 1.0, -8.0);
  add_focal_spot (g, 0.004, 0.5, 1.0);
  g_autoptr (CtrPhantom3d) ph = make_phantom ();
  CtrGrid grid = ctr_grid_square (104, 1.0, 80, 1.0);
  g_autoptr (CtrVolume) vol = ctr_phantom3d_rasterize (ph, &grid, 2, &error);
  g_assert_no_error (error);
  g_autoptr (CtrProjections) exact = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize n = (gsize) g->n_views * g->n_rows * g->n_cols;
  g_autofree float *fp = g_new (float, n);
  ctr_cone_projector_forward (cp, vol->data, fp);
  double se = 0, ss = 0;
  for (gsize i = 0; i < n; i++)
    {
      se += (fp[i] - exact->data[i]) * (double) (fp[i] - exact->data[i]);
      ss += exact->data[i] * (double) exact->data[i];
    }
  /* The same data taken as a circular orbit (no source z) miss badly. */
  g_autoptr (CtrGeometry) circ = ctr_geometry_copy (g);
  g_clear_pointer (&circ->source_z_mm, g_free);
  g_autoptr (CtrConeProjector) cpc = ctr_cone_projector_new (circ, &grid, &error);
  ctr_cone_projector_forward (cpc, vol->data, fp);
  double sec = 0;
  for (gsize i = 0; i < n; i++)
    sec += (fp[i] - exact->data[i]) * (double) (fp[i] - exact->data[i]);
  g_test_message ("helical forward vs exact: relative L2 %.4f (as a circular orbit: %.4f)", sqrt (se / ss),
                  sqrt (sec / ss));
  g_assert_cmpfloat (sqrt (se / ss), <, 0.03);
  g_assert_cmpfloat (sqrt (sec / ss), >, 5 * sqrt (se / ss));
}

/* ------------------------------------------------------------------------ */
/* Rebinning                                                                 */

/* The axial fan sinogram of the phantom at @z (exact), on @fan's views and
 * columns: a one-row cone geometry whose every source sits at z. */
static CtrProjections *
axial_truth (const CtrPhantom3d *ph, const CtrGeometry *fan, double z)
{
  g_autoptr (CtrGeometry) ax = ctr_geometry_copy (fan);
  ax->beam = CTR_BEAM_CONE;
  ax->n_rows = 1;
  ax->pitch_v_mm = 1.0;
  ctr_geometry_set_source_z (ax, z, 0.0, NULL);
  g_autoptr (GError) error = NULL;
  CtrProjections *p = ctr_phantom3d_project (ph, ax, 1, &error);
  g_assert_no_error (error);
  return p;
}

/* RMS difference between slice @s of @fan_p and @truth, relative to the
 * truth's RMS. */
static double
sino_error (const CtrProjections *fan_p, guint s, const CtrProjections *truth)
{
  double se = 0, ss = 0;
  for (guint v = 0; v < truth->n_views; v++)
    for (guint j = 0; j < truth->n_cols; j++)
      {
        const double a = ctr_projections_view (fan_p, v)[(gsize) s * fan_p->n_cols + j];
        const double b = ctr_projections_view (truth, v)[j];
        se += (a - b) * (a - b);
        ss += b * b;
      }
  return sqrt (se / ss);
}

static double
rebin_error (const CtrGeometry *g, const CtrProjections *p, CtrRebinMode mode, const CtrPhantom3d *ph,
             const double *z, guint nz, CtrProjections **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrRebinPlan) r = ctr_rebin_plan_new (g, mode, z, nz, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_rebin_plan_n_extrapolated (r), ==, 0);
  const CtrGeometry *fan = ctr_rebin_plan_get_geometry (r);
  g_assert_cmpint (fan->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpuint (fan->n_rows, ==, nz);
  g_autoptr (CtrProjections) fp = ctr_rebin_run (r, p, NULL, &error);
  g_assert_no_error (error);
  double worst = 0;
  for (guint s = 0; s < nz; s++)
    {
      g_autoptr (CtrProjections) truth = axial_truth (ph, fan, z[s]);
      worst = MAX (worst, sino_error (fp, s, truth));
    }
  if (out != NULL)
    *out = g_steal_pointer (&fp);
  return worst;
}

static void
test_rebin_vs_axial (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (180, 4, 8, 96, 1.0, -16.0);
  g_autoptr (CtrPhantom3d) ph = make_phantom ();
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  const double z[] = { -4.0, -1.5, 0.0, 2.25, 5.0 };
  const guint nz = G_N_ELEMENTS (z);

  /* The same rays placed at the wrong z (rows flipped) and the nearest
   * slice of the helix without interpolation set the scale of the error. */
  const double e180 = rebin_error (g, p, CTR_REBIN_180LI, ph, z, nz, NULL);
  const double e360 = rebin_error (g, p, CTR_REBIN_360LI, ph, z, nz, NULL);
  g_autoptr (CtrGeometry) flipped = ctr_geometry_copy (g);
  flipped->rows_increase_with_v = FALSE;
  const double eflip = rebin_error (flipped, p, CTR_REBIN_180LI, ph, z, nz, NULL);
  g_test_message ("rebinned vs direct axial sinogram, worst of %u slices (relative RMS): 180LI %.4f, "
                  "360LI %.4f, rows flipped %.4f", nz, e180, e360, eflip);
  g_assert_cmpfloat (e180, <, 0.02);
  g_assert_cmpfloat (e360, <, 0.03);
  g_assert_cmpfloat (e180, <, e360);          /* half the z distance to the nearest ray */
  g_assert_cmpfloat (eflip, >, 4.0 * e360);

  /* A flying focal spot, along z (a quarter of a row): its rays add z
   * samples, so rebinned with its shifts it does at least as well as
   * without one; angular (half a column): each view's columns are
   * interpolated onto the nominal fan angles, which costs some accuracy on
   * these sharp edges but much less than ignoring the shift. */
  for (guint kind = 0; kind < 2; kind++)
    {
      g_autoptr (CtrGeometry) gf = ctr_geometry_copy (g);
      add_focal_spot (gf, kind == 0 ? 0.5 * g->pitch_u : 0.0, kind == 1 ? 0.25 : 0.0, 0.0);
      g_autoptr (CtrProjections) pf = ctr_phantom3d_project (ph, gf, 1, &error);
      g_assert_no_error (error);
      const double effs = rebin_error (gf, pf, CTR_REBIN_180LI, ph, z, nz, NULL);
      const double eignored = rebin_error (g, pf, CTR_REBIN_180LI, ph, z, nz, NULL);
      g_test_message ("flying focal spot %s: 180LI %.4f, its shifts ignored %.4f", kind == 0 ? "angular" : "in z",
                      effs, eignored);
      if (kind == 1)
        {
          g_assert_cmpfloat (effs, <, 1.05 * e180);
          g_assert_cmpfloat (eignored, >, 1.3 * effs);
        }
      else
        {
          g_assert_cmpfloat (effs, <, 2.0 * e180);
          g_assert_cmpfloat (effs, <, 0.85 * eignored);
        }
    }

  /* Out of range: slices beyond the coverage are counted. */
  const double far[] = { -40.0, 0.0 };
  g_autoptr (CtrRebinPlan) r = ctr_rebin_plan_new (g, CTR_REBIN_360LI, far, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_rebin_plan_n_extrapolated (r), ==, 1);
  /* Refusals. */
  const double bad[] = { 1.0, 0.5 };
  g_assert_null (ctr_rebin_plan_new (g, CTR_REBIN_180LI, bad, 2, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_autoptr (CtrGeometry) short_scan = make_helix (180, 1, 8, 96, 1.0, 0.0);
  short_scan->n_views = 120;   /* 240° */
  g_assert_null (ctr_rebin_plan_new (short_scan, CTR_REBIN_360LI, z, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_clear_error (&error);
}

/* ------------------------------------------------------------------------ */
/* The plan                                                                  */

static double
image_rmse (const CtrVolume *a, const CtrVolume *b, double radius)
{
  CtrQuality q;
  g_assert_true (ctr_quality_compute (a, b, radius, &q, NULL));
  return q.rmse;
}

static void
test_plan_routes (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (180, 4, 8, 96, 1.0, -16.0);
  g_autoptr (CtrPhantom3d) ph = make_phantom ();
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid;
  g_assert_true (ctr_helix_grid (g, 64, 1.5, -2.0, 2.0, 2.0, &grid, &error));
  g_autoptr (CtrVolume) truth = ctr_phantom3d_rasterize (ph, &grid, 3, &error);
  g_assert_no_error (error);
  CtrReconOptions o;

  /* Rebinned FBP: the slices at their z, near the phantom. */
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  o.window = CTR_FILTER_HANN;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_assert_no_error (error);
  const char *const *notes = ctr_recon_plan_get_notes (plan);
  g_assert_nonnull (strstr (notes[0], "rebinned (180li"));
  g_autoptr (CtrVolume) fbp = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ctr_grid_equal (&fbp->grid, &grid));
  const double e_fbp = image_rmse (fbp, truth, 45.0);

  /* The slab's SIRT and the same on the 360LI-rebinned stack, on a helix of
   * pitch 1.5 (gaps of half a row width between turns): the slab models
   * every ray, so it ends closer to the phantom. */
  g_autoptr (CtrGeometry) g2 = make_helix (120, 4, 8, 64, 1.5, -24.0);
  g_autoptr (CtrProjections) p2 = ctr_phantom3d_project (ph, g2, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid2;
  g_assert_true (ctr_helix_grid (g2, 48, 2.0, -2.0, 2.0, 1.0, &grid2, &error));
  g_autoptr (CtrVolume) truth2 = ctr_phantom3d_rasterize (ph, &grid2, 3, &error);
  ctr_recon_options_init (&o, CTR_METHOD_SART);
  o.iterations = 5;
  o.rebin = CTR_REBIN_NONE;
  g_autoptr (CtrReconPlan) slab = ctr_recon_plan_new (g2, &grid2, &o, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (ctr_recon_plan_get_notes (slab)[0], "helical iterative"));
  g_test_timer_start ();
  g_autoptr (CtrVolume) it = ctr_recon_plan_execute (slab, p2, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const double t_slab = g_test_timer_elapsed ();
  g_assert_true (ctr_grid_equal (&it->grid, &grid2));
  const double e_slab = image_rmse (it, truth2, 45.0);
  o.rebin = CTR_REBIN_360LI;
  o.matrix = CTR_MATRIX_CSR;
  g_autoptr (CtrReconPlan) rb = ctr_recon_plan_new (g2, &grid2, &o, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) it2 = ctr_recon_plan_execute (rb, p2, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const double e_rebin = image_rmse (it2, truth2, 45.0);
  g_test_message ("RMSE vs the phantom: rebinned FBP (Hann) %.5f; pitch 1.5, SART: 360LI-rebinned %.5f, "
                  "slab %.5f /mm (%.1f s)", e_fbp, e_rebin, e_slab, t_slab);
  g_assert_cmpfloat (e_fbp, <, 0.1 * MU);
  g_assert_cmpfloat (e_slab, <, 0.1 * MU);
  g_assert_cmpfloat (e_slab, <, e_rebin);

  /* Refusals. */
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  g_assert_null (ctr_recon_plan_new (g, &grid, &o, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  o.rebin = CTR_REBIN_NONE;
  g_assert_null (ctr_recon_plan_new (g, &grid, &o, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "rebin"));
  g_clear_error (&error);
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.rebin = CTR_REBIN_NONE;
  CtrGrid away;
  g_assert_true (ctr_helix_grid (g, 64, 1.5, 80.0, 82.0, 1.0, &away, &error));
  g_assert_null (ctr_recon_plan_new (g, &away, &o, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "outside the scanned z range"));
}

/* Dead detector pixels (mask 0) holding a value nobody filled: the helical
 * rebinning fills them along their rows itself, so its FBP equals that of
 * the same data filled beforehand. */
static void
test_rebin_dead_pixels (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (120, 3, 8, 96, 1.0, -12.0);
  g_autoptr (CtrPhantom3d) ph = make_phantom ();
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  const gsize plane = (gsize) g->n_rows * g->n_cols;
  p->mask = g_new (guint8, plane);
  memset (p->mask, 1, plane);
  for (guint r = 0; r < g->n_rows; r++)
    p->mask[(gsize) r * g->n_cols + 55] = 0;
  g_autoptr (CtrProjections) filled = ctr_projections_filled (p, &error);
  g_assert_no_error (error);
  for (guint v = 0; v < g->n_views; v++)
    for (guint r = 0; r < g->n_rows; r++)
      ctr_projections_view (p, v)[(gsize) r * g->n_cols + 55] = 1000.0f;
  CtrGrid grid = ctr_grid_square (64, 1.6, 3, 2.0);
  g_autoptr (CtrVolume) a = ctr_rebin_fbp (g, p, &grid, CTR_REBIN_180LI, CTR_FILTER_HANN, 1.0, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) b = ctr_rebin_fbp (g, filled, &grid, CTR_REBIN_180LI, CTR_FILTER_HANN, 1.0, NULL, &error);
  g_assert_no_error (error);
  double same = 0.0;
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    {
      g_assert_true (isfinite (a->data[i]));
      same = MAX (same, fabs (a->data[i] - b->data[i]));
    }
  g_test_message ("dead column holding 1000: max |stale − prefilled| %.2e", same);
  g_assert_cmpfloat (same, <, 1e-6 * MU);
}

/* Reports of the three planes (CTR_REPORT_PLANES) through the rebinned
 * stack's run: each plane at its true place in the helical grid (the stack
 * runs centred at z 0), and the last report's planes the result's voxels. */
typedef struct {
  guint n;
  CtrVolume *planes[3];   /* the last report's (copies) */
} PlaneReports;

static void
on_planes (const CtrIterStats *s, gpointer data)
{
  PlaneReports *r = data;
  r->n++;
  for (guint k = 0; k < 3; k++)
    {
      g_clear_pointer (&r->planes[k], ctr_volume_unref);
      g_assert_nonnull (s->planes[k]);
      r->planes[k] = ctr_volume_copy (s->planes[k]);
    }
}

static void
test_plane_reports (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_helix (120, 4, 8, 64, 1.5, -24.0);
  g_autoptr (CtrPhantom3d) ph = make_phantom ();
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid;
  g_assert_true (ctr_helix_grid (g, 32, 2.0, 2.0, 6.0, 1.0, &grid, &error));
  g_assert_cmpfloat (fabs (grid.cz), >, 0.1);   /* not at z 0: the shift is seen */
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 2;
  o.rebin = CTR_REBIN_360LI;
  o.backend = "cpu";
  o.report_image = CTR_REPORT_PLANES;
  o.report_x = 5;
  o.report_y = 9;
  o.report_slice = 2;
  PlaneReports r = { 0 };
  g_autoptr (CtrVolume) v = ctr_reconstruct (g, p, &grid, &o, NULL, on_planes, &r, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r.n, ==, 2);
  g_assert_cmpfloat (fabs (r.planes[0]->grid.cz - ctr_grid_z (&grid, 2)), <, 1e-9);
  g_assert_cmpfloat (fabs (r.planes[1]->grid.cz - grid.cz), <, 1e-9);
  g_assert_cmpfloat (fabs (r.planes[2]->grid.cz - grid.cz), <, 1e-9);
  g_autoptr (CtrVolume) back = ctr_volume_new (&grid, &error);
  guint at[3];
  g_assert_true (ctr_report_planes_paste ((const CtrVolume *const *) r.planes, back, at));
  g_assert_true (at[0] == 5 && at[1] == 9 && at[2] == 2);
  for (guint z = 0; z < grid.nz; z++)
    for (guint y = 0; y < grid.ny; y++)
      for (guint x = 0; x < grid.nx; x++)
        {
          const gsize i = x + grid.nx * (y + (gsize) grid.ny * z);
          if (x == 5 || y == 9 || z == 2)
            g_assert_cmpfloat (back->data[i], ==, v->data[i]);
        }
  for (guint k = 0; k < 3; k++)
    g_clear_pointer (&r.planes[k], ctr_volume_unref);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/helical/geometry", test_geometry);
  g_test_add_func ("/ctr/core/helical/vectors", test_vectors);
  g_test_add_func ("/ctr/core/helical/projector/adjoint", test_projector_adjoint);
  g_test_add_func ("/ctr/core/helical/projector/exact", test_projector_exact);
  g_test_add_func ("/ctr/core/helical/rebin/vs-axial", test_rebin_vs_axial);
  g_test_add_func ("/ctr/core/helical/rebin/dead-pixels", test_rebin_dead_pixels);
  g_test_add_func ("/ctr/core/helical/plan", test_plan_routes);
  g_test_add_func ("/ctr/core/helical/plane-reports", test_plane_reports);
  return g_test_run ();
}
