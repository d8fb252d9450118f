/* test-fdk.c — FDK on analytic 3-D phantoms (exact cone-beam line integrals,
 * ctr-phantom3d.c): cylinder scaling, 3-D Shepp-Logan accuracy, short scan
 * with Parker weights, detector offsets and a shifted grid, the z-mirror
 * shortcut, the projection matrix, routing and errors. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sim/ctr-phantom3d.h"
#include "analytic/ctr-fdk.h"
#include "analytic/ctr-fdk-zrun.h"

#define MU 0.02

/* Circular orbit, flat panel: SOD 1000 mm, SDD 1536 mm (the head-cone-small
 * set-up), @cols × @rows of @pitch mm, @views over @range. */
static CtrGeometry *
make_cone (guint views, double range, guint cols, guint rows, double pitch)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->shape = CTR_DETECTOR_FLAT;
  g->sod_mm = 1000.0;
  g->sdd_mm = 1536.0;
  g->n_cols = cols;
  g->n_rows = rows;
  g->pitch_u = pitch;
  g->pitch_v_mm = pitch;
  ctr_geometry_set_uniform_angles (g, 0.3, range / views);
  return g;
}

static CtrVolume *
fdk (const CtrPhantom3d *ph, const CtrGeometry *g, const CtrGrid *grid, guint rays)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, rays, &error);
  g_assert_no_error (error);
  CtrVolume *v = ctr_fdk_run (g, p, grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (v);
  return v;
}

/* Mean over voxels with r < @rmax around (x0, y0) and |z - z0| < @zmax. */
static double
region_mean (const CtrVolume *v, double x0, double y0, double z0, double rmax, double zmax)
{
  const CtrGrid *gr = &v->grid;
  double s = 0.0;
  guint n = 0;
  for (guint iz = 0; iz < gr->nz; iz++)
    {
      if (fabs (ctr_grid_z (gr, iz) - z0) >= zmax)
        continue;
      for (guint iy = 0; iy < gr->ny; iy++)
        for (guint ix = 0; ix < gr->nx; ix++)
          if (hypot (ctr_grid_x (gr, ix) - x0, ctr_grid_y (gr, iy) - y0) < rmax)
            {
              s += ctr_volume_slice (v, iz)[iy * gr->nx + ix];
              n++;
            }
    }
  g_assert_cmpuint (n, >, 0);
  return s / n;
}

/* A uniform cylinder (r 80 mm, height 100 mm) reconstructs to its attenuation
 * within 2 % (mean of the inner 70 % radius, central 60 % height). */
static void
check_cylinder (const CtrGeometry *g, const CtrGrid *grid, double cx, double cy, double cz,
                const char *what)
{
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (cx, cy, cz, 80.0, 50.0, MU);
  g_autoptr (CtrVolume) v = fdk (ph, g, grid, 2);
  double m = region_mean (v, cx, cy, cz, 0.7 * 80.0, 30.0);
  double outside = region_mean (v, cx, cy, cz + 60.0, 60.0, 4.0);
  g_test_message ("%s: cylinder mean %.6f (mu %.3f, %+.2f %%), above it %.2e", what, m, MU,
                  100.0 * (m / MU - 1.0), outside);
  g_assert_cmpfloat (fabs (m / MU - 1.0), <, 0.02);
  g_assert_cmpfloat (fabs (outside), <, 0.05 * MU);
}

static void
test_cylinder_full_scan (void)
{
  g_autoptr (CtrGeometry) g = make_cone (180, 2 * G_PI, 128, 96, 3.2);
  CtrGrid grid = ctr_grid_square (96, 2.5, 64, 2.5);
  check_cylinder (g, &grid, 0, 0, 0, "full scan");

  /* non-uniform, unsorted angles: each view weighs half the gap to its
   * neighbours */
  g_autoptr (GRand) rnd = g_rand_new_with_seed (11);
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] = 0.3 + (k + g_rand_double_range (rnd, -0.4, 0.4)) * 2 * G_PI / g->n_views;
  for (guint k = 0; k + 1 < g->n_views; k += 2)
    {
      double t = g->angles[k];
      g->angles[k] = g->angles[k + 1];
      g->angles[k + 1] = t;
    }
  check_cylinder (g, &grid, 0, 0, 0, "full scan, jittered unsorted angles");
}

/* Short scan π + 2δ (δ = half fan angle + 2°) with Parker weights. */
static void
test_cylinder_short_scan (void)
{
  g_autoptr (CtrGeometry) probe = make_cone (1, 1.0, 128, 96, 3.2);
  const double delta = ctr_geometry_half_fan_angle (probe) + 2.0 * G_PI / 180.0;
  const double range = G_PI + 2.0 * delta;
  g_autoptr (CtrGeometry) g = make_cone (120, range, 128, 96, 3.2);
  CtrGrid grid = ctr_grid_square (96, 2.5, 64, 2.5);
  check_cylinder (g, &grid, 20.0, -10.0, 0, "short scan, Parker, off-centre cylinder");

  /* the same scan turning the other way */
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] = 2.0 - k * range / g->n_views;
  check_cylinder (g, &grid, 20.0, -10.0, 0, "short scan, decreasing angles");
}

/* Detector shifted in u and v, rows running against v, and an off-centre
 * cylinder on a shifted, anisotropic grid (not centred: no z-mirror). */
static void
test_cylinder_offsets (void)
{
  g_autoptr (CtrGeometry) g = make_cone (180, 2 * G_PI, 128, 96, 3.2);
  g->offset_u = 9.6;
  g->offset_v_mm = -6.4;
  g->rows_increase_with_v = FALSE;
  CtrGrid grid = ctr_grid_square (96, 2.5, 60, 2.0);
  grid.cx = 10.0;
  grid.cy = -7.5;
  grid.cz = 4.0;
  check_cylinder (g, &grid, 10.0, -7.5, 4.0, "detector offsets, shifted grid");
}

/* The z-mirror shortcut (centred grid) equals the plain path: a grid shifted
 * by 1e-6 voxel in z takes the plain path. */
static void
test_mirror_matches_plain (void)
{
  g_autoptr (CtrGeometry) g = make_cone (60, 2 * G_PI, 64, 48, 6.4);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (100.0, MU);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  for (guint nz = 40; nz <= 41; nz++)
    {
      /* odd nz: rows running against v (the projections are the same data
       * read upside down; only the equality of the two paths matters) */
      g->rows_increase_with_v = nz % 2 == 0;
      CtrGrid a = ctr_grid_square (48, 4.0, nz, 4.0);
      CtrGrid b = a;
      b.cz = 1e-6 * a.dz;
      g_autoptr (CtrVolume) va = ctr_fdk_run (g, p, &a, CTR_FILTER_HANN, 1.0, NULL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (CtrVolume) vb = ctr_fdk_run (g, p, &b, CTR_FILTER_HANN, 1.0, NULL, NULL, &error);
      g_assert_no_error (error);
      double maxd = 0.0;
      for (gsize i = 0; i < ctr_grid_size (&a); i++)
        maxd = MAX (maxd, fabs (va->data[i] - vb->data[i]));
      g_test_message ("nz %u, rows %s v: mirror vs plain max |diff| %.3e", nz,
                      g->rows_increase_with_v ? "with" : "against", maxd);
      g_assert_cmpfloat (maxd, <, 1e-4 * MU);
    }
}

/* The z-run kernels (ctr-fdk-zrun.h) against their contract computed in
 * double: random rows a + d·k over [lo, hi] inside the line, both signs of
 * d up to CTR_FDK_ZRUN_MAX_STEP, with and without the mirror half; every
 * accumulator outside the run keeps its sentinel. */
static void
test_zrun_kernels (void)
{
  const char *kinds[] = { "avx2", "avx512" };
  for (guint q = 0; q < G_N_ELEMENTS (kinds); q++)
    {
      g_setenv ("CTR_FDK_SIMD", kinds[q], TRUE);
      const char *name = NULL;
      CtrFdkZRun fn = ctr_fdk_zrun_select (&name);
      g_unsetenv ("CTR_FDK_SIMD");
      if (fn == NULL || strcmp (name, kinds[q]) != 0)
        {
          g_test_message ("%s: not on this CPU (got %s)", kinds[q], name);
          continue;
        }
      const int nr = 200, nz = 140;
      float *line_mem = g_new0 (float, nr + 2 + CTR_FDK_ZRUN_PAD), *line = line_mem + 1;
      GRand *rng = g_rand_new_with_seed (7 + q);
      for (int i = 0; i < nr; i++)
        line[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
      float *acc = g_new (float, nz + 64), *col = acc + 32;
      double *want = g_new (double, nz);
      double maxd = 0.0;
      guint runs = 0;
      for (guint t = 0; t < 4000; t++)
        {
          const gboolean mirror = t % 2 == 1;
          const float d = (float) g_rand_double_range (rng, -CTR_FDK_ZRUN_MAX_STEP, CTR_FDK_ZRUN_MAX_STEP);
          if (fabsf (d) < 0.05f)
            continue;
          /* a run of 1 … nz/2 slices whose rows stay in [0, nr - 1] */
          const int len = g_rand_int_range (rng, 1, nz / 2 + 1);
          const int lo = g_rand_int_range (rng, 0, nz / 2 - len + 1), hi = lo + len - 1;
          const double span = fabs ((double) d) * (hi - lo);
          if (span > nr - 2)
            continue;
          const double rlo = g_rand_double_range (rng, 0.0, nr - 1 - span);
          const float a = (float) ((d > 0 ? rlo : rlo + span) - (double) d * lo);
          if (!(fmaf (d, (float) lo, a) >= 0.f && fmaf (d, (float) hi, a) >= 0.f
                && fmaf (d, (float) lo, a) <= nr - 1 && fmaf (d, (float) hi, a) <= nr - 1))
            continue;
          const float w = (float) g_rand_double_range (rng, 0.5, 2.0);
          for (int k = -32; k < nz + 32; k++)
            col[k] = 1000.f;
          for (int k = 0; k < nz; k++)
            want[k] = 1000.0;
          for (int k = lo; k <= hi; k++)
            {
              const float r = fmaf (d, (float) k, a);
              const int i = (int) r;
              const double f = (double) r - i;
              want[k] += w * (line[i] + f * ((double) line[i + 1] - line[i]));
              if (mirror)
                want[nz - 1 - k] += w * (line[nr - 1 - i] + f * ((double) line[nr - 2 - i] - line[nr - 1 - i]));
            }
          fn (col, mirror ? col + nz - 1 : NULL, line, lo, hi, a, d, w, nr - 1);
          for (int k = -32; k < 0; k++)
            g_assert_cmpfloat (col[k], ==, 1000.f);
          for (int k = nz; k < nz + 32; k++)
            g_assert_cmpfloat (col[k], ==, 1000.f);
          for (int k = 0; k < nz; k++)
            maxd = MAX (maxd, fabs (col[k] - want[k]));
          runs++;
        }
      g_test_message ("%s: %u runs, max |kernel - contract| %.3e (values ~1000)", name, runs, maxd);
      g_assert_cmpuint (runs, >, 1000);
      g_assert_cmpfloat (maxd, <, 2e-4);   /* float accumulators around 1000: 2 ulp */
      g_rand_free (rng);
      g_free (want);
      g_free (acc);
      g_free (line_mem);
    }
}

/* FDK with the z-run kernels equals FDK with the scalar loops (the volume
 * through both back-projectors, centred grid with the mirror and a shifted
 * one without it, slices thin enough for the kernels and thick enough for
 * the fall-back in one volume's views). */
static void
test_zrun_matches_scalar (void)
{
  g_autoptr (CtrGeometry) g = make_cone (90, 2 * G_PI, 64, 48, 3.2);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  const double dzs[] = { 1.5, 2.2, 4.0 };   /* rows per slice ≈ 0.72, 1.06, 1.92 near the axis */
  for (guint c = 0; c < 2 * G_N_ELEMENTS (dzs); c++)
    {
      CtrGrid grid = ctr_grid_square (40, 5.0, c % 2 ? 31 : 40, dzs[c / 2]);
      if (c % 2)
        grid.cz = 0.3 * grid.dz;   /* no mirror */
      g_setenv ("CTR_FDK_SIMD", "generic", TRUE);
      g_autoptr (CtrVolume) ref = ctr_fdk_run (g, p, &grid, CTR_FILTER_HANN, 1.0, NULL, NULL, &error);
      g_assert_no_error (error);
      g_unsetenv ("CTR_FDK_SIMD");
      const char *name = NULL;
      ctr_fdk_zrun_select (&name);
      g_autoptr (CtrVolume) v = ctr_fdk_run (g, p, &grid, CTR_FILTER_HANN, 1.0, NULL, NULL, &error);
      g_assert_no_error (error);
      double maxd = 0.0, maxv = 0.0;
      for (gsize i = 0; i < ctr_grid_size (&grid); i++)
        {
          maxd = MAX (maxd, fabs (v->data[i] - ref->data[i]));
          maxv = MAX (maxv, fabs (ref->data[i]));
        }
      g_test_message ("dz %.1f mm, %s: %s vs scalar max |diff| %.3e (max |value| %.3e)", dzs[c / 2],
                      c % 2 ? "shifted grid" : "mirror", name, maxd, maxv);
      g_assert_cmpfloat (maxv, >, 0.5 * MU);
      g_assert_cmpfloat (maxd, <, 1e-5 * MU);
    }
}

/* 3-D Shepp-Logan: RMSE against the exact volume (3³ samples per voxel) in
 * the central slab, and the mean of the large low-contrast regions. */
static void
test_shepp_logan_3d (void)
{
  g_autoptr (CtrGeometry) g = make_cone (240, 2 * G_PI, 160, 128, 2.4);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (100.0, MU);
  CtrGrid grid = ctr_grid_square (128, 1.6, 96, 1.6);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 2, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) v = ctr_fdk_run (g, p, &grid, CTR_FILTER_HANN, 1.0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) truth = ctr_phantom3d_rasterize (ph, &grid, 3, &error);
  g_assert_no_error (error);

  /* RMSE over the central slab |z| <= 40 mm (cone angle small there) */
  double se = 0.0;
  guint n = 0;
  for (guint iz = 0; iz < grid.nz; iz++)
    {
      if (fabs (ctr_grid_z (&grid, iz)) > 40.0)
        continue;
      const float *a = ctr_volume_slice (v, iz), *b = ctr_volume_slice (truth, iz);
      for (gsize i = 0; i < ctr_grid_slice_size (&grid); i++)
        {
          double d = a[i] - b[i];
          se += d * d;
          n++;
        }
    }
  double rmse = sqrt (se / n);
  /* brain (1 - 0.8 = 0.2 μ) below the ventricles, the +0.1 ellipsoid above
   * them (0.3 μ), a ventricle (0.2 - 0.2 = 0) */
  double brain = region_mean (v, 0.0, -35.0, 0.0, 6.0, 10.0);
  double upper = region_mean (v, 0.0, 45.0, 0.0, 6.0, 10.0);
  double vent = region_mean (v, 22.0, 0.0, 0.0, 4.0, 8.0);
  g_test_message ("3-D Shepp-Logan: RMSE %.3e /mm (%.1f %% of the skull), brain %.5f (exact %.5f), "
                  "upper ellipsoid %.5f (exact %.5f), right ventricle %.5f (exact 0)",
                  rmse, 100 * rmse / MU, brain, 0.2 * MU, upper, 0.3 * MU, vent);
  /* measured: RMSE 5.4 % of μ (edges of the skull dominate), regions within
   * 1.1 % of μ */
  g_assert_cmpfloat (rmse, <, 0.07 * MU);
  g_assert_cmpfloat (fabs (brain - 0.2 * MU), <, 0.015 * MU);
  g_assert_cmpfloat (fabs (upper - 0.3 * MU), <, 0.015 * MU);
  g_assert_cmpfloat (fabs (vent), <, 0.02 * MU);
}

/* Exact chords of the 3-D solids on lines whose answer is known by hand. */
static void
test_phantom3d_chords (void)
{
  const CtrSolid ball = { CTR_SOLID_ELLIPSOID, 1, 2, 3, 10, 10, 10, 0.3, 1 };
  const double o1[3] = { -50, 2, 3 }, d1[3] = { 1, 0, 0 };
  g_assert_cmpfloat (fabs (ctr_solid_chord (&ball, o1, d1) - 20.0), <, 1e-9);
  const double s = 1.0 / sqrt (2.0), d2[3] = { s, 0, s };
  const double o2[3] = { 1 - 50 * s, 8, 3 - 50 * s };  /* through (1, 8, 3): 6 mm off the centre */
  g_assert_cmpfloat (fabs (ctr_solid_chord (&ball, o2, d2) - 2 * sqrt (100 - 36)), <, 1e-9);
  /* an ellipsoid rotated by 90° about z swaps its x and y semi-axes */
  const CtrSolid ell = { CTR_SOLID_ELLIPSOID, 0, 0, 0, 30, 10, 5, G_PI_2, 1 };
  const double o3[3] = { 0, -100, 0 }, d3[3] = { 0, 1, 0 };
  g_assert_cmpfloat (fabs (ctr_solid_chord (&ell, o3, d3) - 60.0), <, 1e-9);
  /* cylinder: along the axis = height, across = diameter, oblique through
   * both end faces = height / cos, missing = 0 */
  const CtrSolid cyl = { CTR_SOLID_CYLINDER, 0, 0, 0, 20, 20, 15, 0, 1 };
  const double oa[3] = { 5, 5, -100 }, da[3] = { 0, 0, 1 };
  g_assert_cmpfloat (fabs (ctr_solid_chord (&cyl, oa, da) - 30.0), <, 1e-9);
  const double ob[3] = { -100, 0, 14 }, db[3] = { 1, 0, 0 };
  g_assert_cmpfloat (fabs (ctr_solid_chord (&cyl, ob, db) - 40.0), <, 1e-9);
  const double c = cos (0.3), sn = sin (0.3);
  const double oc[3] = { -100 * sn, 0, -100 * c }, dc[3] = { sn, 0, c };
  g_assert_cmpfloat (fabs (ctr_solid_chord (&cyl, oc, dc) - 30.0 / c), <, 1e-9);
  const double od[3] = { -100, 0, 16 };
  g_assert_cmpfloat (ctr_solid_chord (&cyl, od, db), ==, 0.0);
  /* value at points, summed over solids */
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (100.0, 1.0);
  g_assert_cmpfloat (fabs (ctr_phantom3d_value (ph, 0, -35, 0) - 0.2), <, 1e-12);
  g_assert_cmpfloat (fabs (ctr_phantom3d_value (ph, 0, 0, 0) - 0.2), <, 1e-12);
  g_assert_cmpfloat (ctr_phantom3d_value (ph, 0, 0, 95), ==, 0.0);
}

/* The projection matrix sends every point of a ray back to the ray's bin. */
static void
test_projection_matrix (void)
{
  g_autoptr (CtrGeometry) g = make_cone (7, 2.0, 50, 30, 1.3);
  g->offset_u = 2.1;
  g->offset_v_mm = -0.7;
  for (int flip = 0; flip < 2; flip++)
    {
      g->rows_increase_with_v = !flip;
      for (guint v = 0; v < g->n_views; v++)
        for (double col = -0.5; col < 50; col += 7.3)
          for (double row = -0.5; row < 30; row += 4.1)
            {
              double o[3], d[3], P[12];
              ctr_cone_ray (g, v, col, row, o, d);
              ctr_geometry_projection_matrix (g, v, P);
              for (double t = 300.0; t < 1500.0; t += 400.0)
                {
                  double x[4] = { o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2], 1.0 }, h[3];
                  for (int r = 0; r < 3; r++)
                    h[r] = P[4 * r] * x[0] + P[4 * r + 1] * x[1] + P[4 * r + 2] * x[2] + P[4 * r + 3];
                  g_assert_cmpfloat (fabs (h[0] / h[2] - col), <, 1e-9);
                  g_assert_cmpfloat (fabs (h[1] / h[2] - row), <, 1e-9);
                  /* h2 is the depth along the central ray: > 0, <= distance t */
                  g_assert_cmpfloat (h[2], >, 0.0);
                  g_assert_cmpfloat (h[2], <=, t + 1e-9);
                }
            }
    }
}

/* ctr_reconstruct routes cone beam: fdk works, fbp/art are refused; FDK on a
 * fan geometry, a curved cone panel, wrong shapes and cancellation fail
 * cleanly. */
static void
test_routing_and_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (30, 2 * G_PI, 32, 24, 12.8);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0, 0, 0, 80.0, 50.0, MU);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_default (g, 0, 0);
  g_assert_cmpuint (grid.nz, ==, g->n_rows);
  g_assert_cmpfloat (fabs (grid.dz - 12.8 * 1000.0 / 1536.0), <, 1e-9);

  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  g_assert_false (ctr_method_is_iterative (CTR_METHOD_FDK));
  CtrMethod m;
  g_assert_true (ctr_method_from_name ("fdk", &m, NULL));
  g_assert_cmpint (m, ==, CTR_METHOD_FDK);
  g_autoptr (CtrVolume) v = ctr_reconstruct (g, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (v);

  const CtrMethod refused[] = { CTR_METHOD_FBP, CTR_METHOD_ART, CTR_METHOD_PART };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      ctr_recon_options_init (&o, refused[i]);
      g_assert_null (ctr_reconstruct (g, p, &grid, &o, NULL, NULL, NULL, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
      g_clear_error (&error);
    }

  /* cancelled before the start */
  g_autoptr (GCancellable) c = g_cancellable_new ();
  g_cancellable_cancel (c);
  g_assert_null (ctr_fdk_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, c, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* curved cone panel */
  g_autoptr (CtrGeometry) curved = ctr_geometry_copy (g);
  curved->shape = CTR_DETECTOR_CURVED;
  curved->pitch_u = 0.005;
  g_assert_null (ctr_fdk_run (curved, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  /* fan geometry through the facade and directly */
  g_autoptr (CtrGeometry) fan = ctr_geometry_copy (g);
  fan->beam = CTR_BEAM_FAN;
  g_assert_null (ctr_fdk_run (fan, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  CtrGrid fgrid = ctr_grid_square (32, 4.0, fan->n_rows, 1.0);
  g_assert_null (ctr_reconstruct (fan, p, &fgrid, &o, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);

  /* projections of another shape */
  g_autoptr (CtrGeometry) other = ctr_geometry_copy (g);
  other->n_cols = 31;
  g_assert_null (ctr_fdk_run (other, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* bad cut-off */
  g_assert_null (ctr_fdk_run (g, p, &grid, CTR_FILTER_HANN, 0.0, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* Dead detector pixels (mask 0) holding a value nobody filled: FDK fills
 * them along their row itself, so the volume equals that of the same data
 * filled beforehand and stays finite and close to the cylinder's mu. */
static void
test_dead_pixels_filled (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (90, 2 * G_PI, 64, 48, 6.4);
  CtrGrid grid = ctr_grid_square (48, 5.0, 32, 5.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0, 0, 0, 80.0, 50.0, MU);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  const gsize plane = (gsize) g->n_rows * g->n_cols;
  p->mask = g_new (guint8, plane);
  memset (p->mask, 1, plane);
  for (guint r = 0; r < g->n_rows; r++)
    p->mask[(gsize) r * g->n_cols + 36] = 0;   /* a dead column */
  for (guint c = 20; c < 24; c++)
    p->mask[(gsize) 24 * g->n_cols + c] = 0;   /* a dead run in one row */
  g_autoptr (CtrProjections) filled = ctr_projections_copy (p, &error);
  g_assert_no_error (error);
  for (guint v = 0; v < g->n_views; v++)
    for (guint r = 0; r < g->n_rows; r++)
      {
        ctr_projections_fill_row (ctr_projections_view (filled, v) + (gsize) r * g->n_cols,
                                  p->mask + (gsize) r * g->n_cols, g->n_cols);
        for (guint c = 0; c < g->n_cols; c++)
          if (!p->mask[(gsize) r * g->n_cols + c])
            ctr_projections_view (p, v)[(gsize) r * g->n_cols + c] = 1000.0f;
      }
  g_autoptr (CtrVolume) a = ctr_fdk_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) b = ctr_fdk_run (g, filled, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error);
  g_assert_no_error (error);
  double same = 0.0;
  for (gsize i = 0; i < (gsize) grid.nx * grid.ny * grid.nz; i++)
    {
      g_assert_true (isfinite (a->data[i]));
      same = MAX (same, fabs (a->data[i] - b->data[i]));
    }
  double m = region_mean (a, 0, 0, 0, 0.7 * 80.0, 30.0);
  g_test_message ("dead pixels holding 1000: max |stale − prefilled| %.2e, cylinder mean %+.2f %% of mu",
                  same, 100.0 * (m / MU - 1.0));
  g_assert_cmpfloat (same, <, 1e-6 * MU);
  g_assert_cmpfloat (fabs (m / MU - 1.0), <, 0.03);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/phantom3d/chords", test_phantom3d_chords);
  g_test_add_func ("/ctr/core/fdk/projection-matrix", test_projection_matrix);
  g_test_add_func ("/ctr/core/fdk/cylinder/full-scan", test_cylinder_full_scan);
  g_test_add_func ("/ctr/core/fdk/dead-pixels-filled", test_dead_pixels_filled);
  g_test_add_func ("/ctr/core/fdk/cylinder/short-scan-parker", test_cylinder_short_scan);
  g_test_add_func ("/ctr/core/fdk/cylinder/offsets", test_cylinder_offsets);
  g_test_add_func ("/ctr/core/fdk/mirror-matches-plain", test_mirror_matches_plain);
  g_test_add_func ("/ctr/core/fdk/zrun-kernels", test_zrun_kernels);
  g_test_add_func ("/ctr/core/fdk/zrun-matches-scalar", test_zrun_matches_scalar);
  g_test_add_func ("/ctr/core/fdk/shepp-logan-3d", test_shepp_logan_3d);
  g_test_add_func ("/ctr/core/fdk/routing-and-errors", test_routing_and_errors);
  return g_test_run ();
}
