/* test-cone-projector.c — the matched cone-beam pair (Joseph forward, exact
 * adjoint): adjointness on several geometries and grids, agreement of the
 * forward projection with exact line integrals, and cone SART/SIRT
 * convergence on an analytic cylinder. */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "ctrecon.h"
#include "sim/ctr-phantom3d.h"
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-cone-op.h"
#include "solve/ctr-solvers.h"


#define MU 0.02

static CtrGeometry *
make_cone (guint views, guint cols, guint rows, double pitch)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->sod_mm = 400.0;
  g->sdd_mm = 700.0;
  g->n_cols = cols;
  g->n_rows = rows;
  g->pitch_u = pitch;
  g->pitch_v_mm = pitch;
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / views);
  return g;
}

static double
dot (const float *a, const float *b, gsize n)
{
  double s = 0.0;
  for (gsize i = 0; i < n; i++)
    s += (double) a[i] * b[i];
  return s;
}

/* <A x, y> = <x, Aᵀ y> for random x, y. */
static void
check_adjoint (const CtrGeometry *g, const CtrGrid *grid, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, grid, &error);
  g_assert_no_error (error);
  const gsize nvox = ctr_grid_size (grid), nproj = (gsize) g->n_views * g->n_rows * g->n_cols;
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *y = g_new (float, nproj);
  g_autofree float *ax = g_new (float, nproj);
  g_autofree float *aty = g_new0 (float, nvox);
  g_autoptr (GRand) rnd = g_rand_new_with_seed (7);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  for (gsize i = 0; i < nproj; i++)
    y[i] = (float) g_rand_double (rnd);
  ctr_cone_projector_forward (cp, x, ax);
  ctr_cone_projector_adjoint (cp, y, aty);
  double l = dot (ax, y, nproj), r = dot (x, aty, nvox);
  g_test_message ("%s: <Ax,y> %.9e  <x,ATy> %.9e  rel %.2e", what, l, r, fabs (l - r) / fabs (l));
  g_assert_cmpfloat (l, >, 0.0);
  g_assert_cmpfloat (fabs (l - r), <, 1e-5 * fabs (l));
}

static void
test_adjoint (void)
{
  g_autoptr (CtrGeometry) g = make_cone (12, 40, 30, 1.5);
  CtrGrid grid = ctr_grid_square (24, 1.5, 18, 1.8);
  check_adjoint (g, &grid, "centred");

  /* offsets, rows against v, shifted anisotropic grid, odd views */
  g->offset_u = 3.3;
  g->offset_v_mm = -2.0;
  g->rows_increase_with_v = FALSE;
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = 0.37 + 0.71 * v;
  CtrGrid shifted = { 20, 26, 15, 1.7, 1.2, 2.1, 3.0, -4.0, 5.0 };
  check_adjoint (g, &shifted, "offsets, shifted anisotropic grid");

  /* a grid larger than the field of view (rays leave through the sides) */
  CtrGrid big = ctr_grid_square (40, 2.0, 12, 4.0);
  check_adjoint (g, &big, "grid beyond the field of view");
}

/* Back-projections @b1 and @b2 and column sums @c1 and @c2 equal to 1e-5 of
 * the largest value. */
static void
assert_same_volumes (const float *b1, const float *c1, const float *b2, const float *c2, gsize nvox, const char *what,
                     const char *which)
{
  double bmax = 0.0, cmax = 0.0, db = 0.0, dc = 0.0;
  for (gsize i = 0; i < nvox; i++)
    {
      bmax = MAX (bmax, fabs ((double) b1[i]));
      cmax = MAX (cmax, fabs ((double) c1[i]));
      db = MAX (db, fabs ((double) b1[i] - b2[i]));
      dc = MAX (dc, fabs ((double) c1[i] - c2[i]));
    }
  g_test_message ("%s: %s: max difference %.3e of %.3e, column sums %.3e of %.3e", what, which, db, bmax, dc, cmax);
  g_assert_cmpfloat (bmax, >, 0.0);
  g_assert_cmpfloat (db, <=, 1e-5 * bmax);
  g_assert_cmpfloat (dc, <=, 1e-5 * cmax);
}

/* Projectors @a and @b give the same forward projection of a random volume
 * and the same back-projection (with column sums) of it, view by view and
 * from ray tables, to float rounding (1e-5 of the largest value). */
static void
assert_same_products (CtrConeProjector *a, CtrConeProjector *b, const CtrGeometry *g, const CtrGrid *grid,
                      const char *what)
{
  const gsize nvox = ctr_grid_size (grid), nproj = (gsize) g->n_views * g->n_rows * g->n_cols;
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *y1 = g_new (float, nproj);
  g_autofree float *y2 = g_new (float, nproj);
  g_autofree float *b1 = g_new0 (float, nvox);
  g_autofree float *b2 = g_new0 (float, nvox);
  g_autofree float *c1 = g_new0 (float, nvox);
  g_autofree float *c2 = g_new0 (float, nvox);
  g_autoptr (GRand) rnd = g_rand_new_with_seed (11);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  ctr_cone_projector_forward (a, x, y1);
  ctr_cone_projector_forward (b, x, y2);
  double dmax = 0.0, ymax = 0.0;
  for (gsize i = 0; i < nproj; i++)
    {
      dmax = MAX (dmax, fabs ((double) y1[i] - y2[i]));
      ymax = MAX (ymax, fabs ((double) y1[i]));
    }
  g_test_message ("%s: forward: max difference %.3e of max %.3e", what, dmax, ymax);
  g_assert_cmpfloat (ymax, >, 0.0);
  g_assert_cmpfloat (dmax, <=, 1e-5 * ymax);
  for (guint v = 0; v < g->n_views; v++)
    {
      const gsize pv = (gsize) g->n_rows * g->n_cols;
      ctr_cone_projector_adjoint_view (a, y1 + pv * v, v, b1, c1);
      ctr_cone_projector_adjoint_view (b, y1 + pv * v, v, b2, c2);
    }
  assert_same_volumes (b1, c1, b2, c2, nvox, what, "adjoint view by view");
  /* the whole-set adjoint from ray tables (the block kernels) */
  g_autoptr (CtrConeRays) ta = ctr_cone_rays_new (a, g->n_views);
  g_autoptr (CtrConeRays) tb = ctr_cone_rays_new (b, g->n_views);
  g_assert_true (ta != NULL && tb != NULL);
  ctr_cone_rays_fill (a, ta, 0, g->n_views, NULL);
  ctr_cone_rays_fill (b, tb, 0, g->n_views, NULL);
  memset (b1, 0, nvox * sizeof (float));
  memset (b2, 0, nvox * sizeof (float));
  memset (c1, 0, nvox * sizeof (float));
  memset (c2, 0, nvox * sizeof (float));
  ctr_cone_projector_adjoint_rays (a, ta, y1, b1, c1);
  ctr_cone_projector_adjoint_rays (b, tb, y1, b2, c2);
  assert_same_volumes (b1, c1, b2, c2, nvox, what, "adjoint from ray tables");
}

/* The scalar and the vector interior kernels (CTR_CONE_SIMD=generic picks
 * the scalar ones): each pair adjoint, and their projections equal to float
 * rounding, forward and adjoint (with column sums). */
static void
test_kernels_agree (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (10, 48, 36, 1.3);
  g->offset_u = 1.7;
  CtrGrid grid = { 33, 29, 21, 1.1, 1.3, 1.6, 0.7, -1.1, 2.0 };
  g_setenv ("CTR_CONE_SIMD", "generic", TRUE);
  check_adjoint (g, &grid, "scalar kernels");
  g_autoptr (CtrConeProjector) scalar = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  g_unsetenv ("CTR_CONE_SIMD");
  check_adjoint (g, &grid, "default kernels");
  g_autoptr (CtrConeProjector) best = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  assert_same_products (scalar, best, g, &grid, "scalar against default kernels");
}

/* The band runs (planes where one neighbour of the bilinear stencil lies
 * outside the grid, taken by the band kernels with that neighbour's weight
 * 0) against the per-plane edge path (CTR_CONE_BAND=0), with the scalar and
 * the vector kernels: each pair adjoint, and the same projections to float
 * rounding.  The grid is 5 slices thin and narrower than the field of view,
 * so most rays cross its z faces and many its sides. */
static void
test_band_runs (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (7, 44, 30, 1.6);
  g->offset_u = 2.3;
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = 0.2 + 0.83 * v;  /* x- and y-dominant rays */
  CtrGrid grid = { 26, 31, 5, 1.4, 1.2, 1.9, 0.8, -1.3, 0.6 };
  for (int k = 0; k < 2; k++)
    {
      if (k == 0)
        g_setenv ("CTR_CONE_SIMD", "generic", TRUE);
      else
        g_unsetenv ("CTR_CONE_SIMD");
      check_adjoint (g, &grid, k == 0 ? "band runs, scalar kernels" : "band runs, default kernels");
      g_autoptr (CtrConeProjector) band = ctr_cone_projector_new (g, &grid, &error);
      g_assert_no_error (error);
      g_setenv ("CTR_CONE_BAND", "0", TRUE);
      g_autoptr (CtrConeProjector) edge = ctr_cone_projector_new (g, &grid, &error);
      g_unsetenv ("CTR_CONE_BAND");
      g_assert_no_error (error);
      assert_same_products (edge, band, g, &grid, k == 0 ? "scalar: band runs against edge planes"
                                                         : "default: band runs against edge planes");
    }
}

/* Forward projection of the voxelised cylinder ≈ its exact line integrals. */
static void
test_forward_vs_exact (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (8, 96, 64, 1.0);
  CtrGrid grid = ctr_grid_square (64, 1.0, 48, 1.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (3.0, -2.0, 1.0, 20.0, 12.0, MU);
  g_autoptr (CtrVolume) vol = ctr_phantom3d_rasterize (ph, &grid, 4, &error);
  g_assert_no_error (error);
  g_autoptr (CtrProjections) exact = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize n = (gsize) g->n_views * g->n_rows * g->n_cols;
  g_autofree float *fp = g_new (float, n);
  ctr_cone_projector_forward (cp, vol->data, fp);
  double se = 0.0, ss = 0.0, sum_e = 0.0, sum_f = 0.0;
  for (gsize i = 0; i < n; i++)
    {
      double d = fp[i] - exact->data[i];
      se += d * d;
      ss += (double) exact->data[i] * exact->data[i];
      sum_e += exact->data[i];
      sum_f += fp[i];
    }
  double rel = sqrt (se / ss);
  g_test_message ("forward vs exact: relative L2 error %.4f, total %.6f vs %.6f", rel, sum_f, sum_e);
  g_assert_cmpfloat (rel, <, 0.03);
  g_assert_cmpfloat (fabs (sum_f / sum_e - 1.0), <, 0.005);
}


/* Views in blocks (one pass over several views) against view by view: the
 * forward equal bit for bit, the adjoint and its column sums equal to float
 * rounding, rays masked out left out of both, and the block pair adjoint. */
static void
test_view_blocks (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (10, 30, 22, 1.6);
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = 0.2 + 0.63 * v;  /* x- and y-dominant rays in one block */
  CtrGrid grid = { 23, 19, 14, 1.5, 1.7, 2.0, 1.0, -0.5, 1.5 };
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize nvox = ctr_grid_size (&grid), pv = (gsize) g->n_rows * g->n_cols, nproj = pv * g->n_views;
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *y = g_new (float, nproj);
  g_autofree float *f1 = g_new (float, nproj);
  g_autofree float *f2 = g_new (float, nproj);
  g_autofree guint8 *mask = g_new (guint8, nproj);
  g_autofree float *b1 = g_new0 (float, nvox);
  g_autofree float *b2 = g_new0 (float, nvox);
  g_autofree float *c1 = g_new0 (float, nvox);
  g_autofree float *c2 = g_new0 (float, nvox);
  g_autoptr (GRand) rnd = g_rand_new_with_seed (23);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  for (gsize i = 0; i < nproj; i++)
    {
      y[i] = (float) g_rand_double_range (rnd, -0.5, 1.0);
      mask[i] = g_rand_int_range (rnd, 0, 5) != 0;
    }
  const guint cut[] = { 0, 3, 4, 10 };  /* blocks of 3, 1 and 6 views */
  for (guint v = 0; v < g->n_views; v++)
    {
      ctr_cone_projector_forward_view_masked (cp, x, v, mask + pv * v, f1 + pv * v);
      ctr_cone_projector_adjoint_view_masked (cp, y + pv * v, v, mask + pv * v, b1, c1);
    }
  for (guint k = 0; k + 1 < G_N_ELEMENTS (cut); k++)
    {
      const guint v0 = cut[k], n = cut[k + 1] - cut[k];
      ctr_cone_projector_forward_views_masked (cp, x, v0, n, mask + pv * v0, f2 + pv * v0);
      ctr_cone_projector_adjoint_views_masked (cp, y + pv * v0, v0, n, mask + pv * v0, b2, c2);
    }
  guint masked = 0;
  for (gsize i = 0; i < nproj; i++)
    {
      g_assert_cmpfloat (f1[i], ==, f2[i]);
      if (mask[i] == 0)
        {
          g_assert_cmpfloat (f2[i], ==, 0.0f);
          masked++;
        }
    }
  g_assert_cmpuint (masked, >, 0);
  assert_same_volumes (b1, c1, b2, c2, nvox, "blocks", "adjoint");
  /* <A_B x, y> = <x, A_Bᵀ y> over the masked rays */
  for (gsize i = 0; i < nproj; i++)
    if (mask[i] == 0)
      y[i] = 0.0f;
  const double l = dot (f2, y, nproj), r = dot (x, b2, nvox);
  g_test_message ("blocks: <Ax,y> %.9e  <x,ATy> %.9e", l, r);
  g_assert_cmpfloat (fabs (l), >, 0.0);
  g_assert_cmpfloat (fabs (l - r), <, 1e-5 * fabs (l));
}

/* A ray table (CtrConeRays) gives the untabled products bit for bit, its
 * forward and adjoint set up once for both; the adjoint does not depend on
 * the number of threads (its plane blocks do: 1 thread 16 planes, 4
 * threads 8, on this grid). */
static void
test_ray_tables (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (6, 40, 9, 2.2);
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = 0.3 + 0.71 * v;  /* x- and y-dominant rays in one block */
  CtrGrid grid = { 72, 72, 6, 1.1, 1.1, 2.0, 0.4, -0.3, 0.5 };
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize nvox = ctr_grid_size (&grid), pv = (gsize) g->n_rows * g->n_cols, nproj = pv * g->n_views;
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *y = g_new (float, nproj);
  g_autofree float *f1 = g_new (float, nproj);
  g_autofree float *f2 = g_new (float, nproj);
  g_autofree guint8 *mask = g_new (guint8, nproj);
  float *b[3], *c[3];
  for (int k = 0; k < 3; k++)
    {
      b[k] = g_new0 (float, nvox);
      c[k] = g_new0 (float, nvox);
    }
  g_autoptr (GRand) rnd = g_rand_new_with_seed (31);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  for (gsize i = 0; i < nproj; i++)
    {
      y[i] = (float) g_rand_double_range (rnd, -0.5, 1.0);
      mask[i] = g_rand_int_range (rnd, 0, 7) != 0;
    }
  const int threads = omp_get_max_threads ();
  omp_set_num_threads (1);
  ctr_cone_projector_forward_views_masked (cp, x, 0, g->n_views, mask, f1);
  ctr_cone_projector_adjoint_views_masked (cp, y, 0, g->n_views, mask, b[0], c[0]);
  omp_set_num_threads (4);
  ctr_cone_projector_adjoint_views_masked (cp, y, 0, g->n_views, mask, b[1], c[1]);
  g_autoptr (CtrConeRays) t = ctr_cone_rays_new (cp, g->n_views);
  g_assert_nonnull (t);
  ctr_cone_rays_fill (cp, t, 0, g->n_views, mask);
  ctr_cone_projector_forward_rays (cp, t, x, f2);
  ctr_cone_projector_adjoint_rays (cp, t, y, b[2], c[2]);
  omp_set_num_threads (threads);
  g_assert_cmpmem (f1, nproj * sizeof (float), f2, nproj * sizeof (float));
  double bmax = 0.0;
  for (gsize i = 0; i < nvox; i++)
    bmax = MAX (bmax, fabs ((double) b[0][i]));
  g_assert_cmpfloat (bmax, >, 0.0);
  for (int k = 1; k < 3; k++)
    {
      g_assert_cmpmem (b[0], nvox * sizeof (float), b[k], nvox * sizeof (float));
      g_assert_cmpmem (c[0], nvox * sizeof (float), c[k], nvox * sizeof (float));
    }
  for (int k = 0; k < 3; k++)
    {
      g_free (b[k]);
      g_free (c[k]);
    }
}

/* The x-dominant rays on the volume with x and y swapped: the same products
 * as the plain layout within float rounding, still an adjoint pair, and
 * the swapped update cleared when folded back.  A grid of unequal nx and
 * ny, so a stride taken from the wrong axis shows. */
static void
test_swapped_layout (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (6, 40, 9, 2.2);
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = 0.3 + 0.71 * v;  /* x- and y-dominant rays in one block */
  CtrGrid grid = { 72, 58, 6, 1.1, 1.3, 2.0, 0.4, -0.3, 0.5 };
  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  const gsize nvox = ctr_grid_size (&grid), nproj = (gsize) g->n_rows * g->n_cols * g->n_views;
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *xt = g_new (float, nvox);
  g_autofree float *y = g_new (float, nproj);
  g_autofree float *f1 = g_new (float, nproj);
  g_autofree float *f2 = g_new (float, nproj);
  g_autofree float *b1 = g_new0 (float, nvox);
  g_autofree float *b2 = g_new0 (float, nvox);
  g_autofree float *bt = g_new0 (float, nvox);
  g_autofree guint8 *mask = g_new (guint8, nproj);
  g_autoptr (GRand) rnd = g_rand_new_with_seed (37);
  for (gsize i = 0; i < nvox; i++)
    x[i] = (float) g_rand_double (rnd);
  for (gsize i = 0; i < nproj; i++)
    {
      y[i] = (float) g_rand_double_range (rnd, -0.5, 1.0);
      mask[i] = g_rand_int_range (rnd, 0, 7) != 0;
    }
  g_autoptr (CtrConeRays) t = ctr_cone_rays_new (cp, g->n_views);
  g_assert_nonnull (t);
  ctr_cone_rays_fill (cp, t, 0, g->n_views, mask);
  ctr_cone_projector_forward_rays (cp, t, x, f1);
  ctr_cone_projector_adjoint_rays (cp, t, y, b1, NULL);
  ctr_cone_volume_swap_xy (&grid, x, xt);
  g_assert_cmpfloat (xt[(gsize) 2 * 72 * 58 + 5 * 58 + 7], ==, x[(gsize) 2 * 72 * 58 + 7 * 72 + 5]);
  ctr_cone_projector_forward_rays_xt (cp, t, x, xt, f2);
  ctr_cone_projector_adjoint_rays_xt (cp, t, y, b2, bt, NULL);
  double bt_sum = 0.0;
  for (gsize i = 0; i < nvox; i++)
    bt_sum += fabs ((double) bt[i]);
  g_assert_cmpfloat (bt_sum, >, 0.0);  /* x-dominant rays went there */
  ctr_cone_volume_add_swapped_xy (&grid, bt, b2);
  double fmax = 0.0, df = 0.0, bmax = 0.0, db = 0.0, left = 0.0, ax_y = 0.0, x_aty = 0.0;
  for (gsize i = 0; i < nproj; i++)
    {
      fmax = MAX (fmax, fabs ((double) f1[i]));
      df = MAX (df, fabs ((double) f1[i] - f2[i]));
      ax_y += (double) f2[i] * y[i];
    }
  for (gsize i = 0; i < nvox; i++)
    {
      bmax = MAX (bmax, fabs ((double) b1[i]));
      db = MAX (db, fabs ((double) b1[i] - b2[i]));
      left = MAX (left, fabs ((double) bt[i]));
      x_aty += (double) x[i] * b2[i];
    }
  g_test_message ("swapped layout: forward %.3g, adjoint %.3g of the largest; <Ax,y> %.9g, <x,Aᵀy> %.9g",
                  df / fmax, db / bmax, ax_y, x_aty);
  g_assert_cmpfloat (fmax, >, 0.0);
  g_assert_cmpfloat (df, <=, 1e-5 * fmax);
  g_assert_cmpfloat (db, <=, 1e-5 * bmax);
  g_assert_cmpfloat (left, ==, 0.0);
  g_assert_cmpfloat (fabs (ax_y - x_aty), <=, 1e-5 * fabs (ax_y));
}

static void
on_iter (const CtrIterStats *s, gpointer data)
{
  GArray *res = data;
  g_array_append_val (res, s->residual);
  g_test_message ("%s iteration %u: residual %.4e, RMSE %.4e", ctr_method_name (s->method),
                  s->iteration, s->residual, s->rmse);
}

static void
check_solver (CtrMethod method, guint iterations, double relaxation, double tol)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (36, 64, 48, 1.2);
  CtrGrid grid = ctr_grid_square (40, 1.0, 30, 1.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.0, 0.0, 0.0, 14.0, 9.0, MU);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 2, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) truth = ctr_phantom3d_rasterize (ph, &grid, 3, &error);
  g_assert_no_error (error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, method);
  o.iterations = iterations;
  o.relaxation = relaxation;
  g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (double));
  /* through the facade: cone beam routes to the cone solver */
  g_autoptr (CtrVolume) v = ctr_reconstruct (g, p, &grid, &o, truth, on_iter, res, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (res->len, ==, iterations);
  for (guint i = 1; i < res->len; i++)
    g_assert_cmpfloat (g_array_index (res, double, i), <=, g_array_index (res, double, i - 1) * 1.0001);
  g_assert_cmpfloat (g_array_index (res, double, res->len - 1), <, tol);
  /* mean inside the cylinder's core */
  double s = 0.0;
  guint n = 0;
  for (guint iz = 0; iz < grid.nz; iz++)
    for (guint iy = 0; iy < grid.ny; iy++)
      for (guint ix = 0; ix < grid.nx; ix++)
        if (fabs (ctr_grid_z (&grid, iz)) < 5.0 && hypot (ctr_grid_x (&grid, ix), ctr_grid_y (&grid, iy)) < 9.0)
          {
            s += ctr_volume_slice (v, iz)[iy * grid.nx + ix];
            n++;
          }
  g_test_message ("%s: core mean %.6f (mu %.3f)", ctr_method_name (method), s / n, MU);
  g_assert_cmpfloat (fabs (s / n / MU - 1.0), <, 0.02);
}

static void
test_sart (void)
{
  check_solver (CTR_METHOD_SART, 5, 0.5, 0.04);
}

static void
test_sirt (void)
{
  check_solver (CTR_METHOD_SIRT, 12, 1.9, 0.05);
}

/* Each report's residual and a copy of its image. */
typedef struct {
  GArray *residual;
  GPtrArray *image;
} Reports;

static void
keep_report (const CtrIterStats *s, gpointer data)
{
  Reports *r = data;
  g_array_append_val (r->residual, s->residual);
  g_assert_nonnull (s->image);
  g_ptr_array_add (r->image, g_memdup2 (s->image->data, ctr_grid_size (&s->image->grid) * sizeof (float)));
}

/* A reported SIRT run on the cone pair (residual every iteration) gives the
 * unreported run's image bit for bit, each reported residual is the one of
 * its image (an independent forward projection), and it sets each view's
 * rays up once per iteration plus one traversal (before: twice per
 * iteration). */
static void
test_sirt_reported (void)
{
  g_autoptr (GError) error = NULL;
  const guint nv = 36, iterations = 4;
  g_autoptr (CtrGeometry) g = make_cone (nv, 64, 48, 1.2);
  CtrGrid grid = ctr_grid_square (40, 1.0, 30, 1.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.0, 0.0, 0.0, 14.0, 9.0, MU);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 2, &error);
  g_assert_no_error (error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = iterations;
  o.relaxation = 1.9;
  o.residual = CTR_RESIDUAL_EVERY;
  CtrConeProjector *cp = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  g_autoptr (CtrOperator) op = ctr_cone_op_new (cp, &error);
  g_assert_no_error (error);
  Reports r = { g_array_new (FALSE, FALSE, sizeof (double)), g_ptr_array_new_with_free_func (g_free) };
  const guint64 s0 = ctr_cone_op_views_set_up (op);
  g_autoptr (CtrVolume) reported = ctr_iterate_run (op, &ctr_sirt_solver, NULL, NULL, p, &o, NULL, keep_report, &r,
                                                    NULL, NULL, &error);
  g_assert_no_error (error);
  const guint64 s1 = ctr_cone_op_views_set_up (op);
  g_autoptr (CtrVolume) plain = ctr_iterate_run (op, &ctr_sirt_solver, NULL, NULL, p, &o, NULL, NULL, NULL, NULL,
                                                 NULL, &error);
  g_assert_no_error (error);
  const guint64 s2 = ctr_cone_op_views_set_up (op);
  const gsize nvox = ctr_grid_size (&grid), nproj = (gsize) nv * g->n_rows * g->n_cols;
  g_assert_cmpuint (r.residual->len, ==, iterations);
  g_assert_cmpmem (g_ptr_array_index (r.image, iterations - 1), nvox * sizeof (float), reported->data,
                   nvox * sizeof (float));
  /* The oracle: SIRT written out on a fresh pair, x ← max (0, x + λ C Aᵀ R
   * (b − A x)), R and C the inverse row and column sums. */
  g_autoptr (CtrConeProjector) fresh = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  g_autofree float *ax = g_new (float, nproj);
  g_autofree float *rs = g_new (float, nproj);
  g_autofree float *x = g_new (float, nvox);
  g_autofree float *cs = g_new0 (float, nvox);
  g_autofree float *d = g_new0 (float, nvox);
  for (gsize i = 0; i < nvox; i++)
    x[i] = 1.0f;
  ctr_cone_projector_forward (fresh, x, rs);
  for (gsize i = 0; i < nproj; i++)
    ax[i] = 1.0f;
  ctr_cone_projector_adjoint (fresh, ax, cs);
  memset (x, 0, nvox * sizeof (float));
  for (guint k = 0; k < iterations; k++)
    {
      ctr_cone_projector_forward (fresh, x, ax);
      for (gsize i = 0; i < nproj; i++)
        ax[i] = rs[i] > 0.f ? (p->data[i] - ax[i]) / rs[i] : 0.f;
      memset (d, 0, nvox * sizeof (float));
      ctr_cone_projector_adjoint (fresh, ax, d);
      double dmax = 0.0, vmax = 0.0;
      const float *got = g_ptr_array_index (r.image, k);
      for (gsize i = 0; i < nvox; i++)
        {
          x[i] = MAX (0.f, x[i] + (cs[i] > 0.f ? (float) (o.relaxation / cs[i]) * d[i] : 0.f));
          dmax = MAX (dmax, fabs ((double) got[i] - x[i]));
          vmax = MAX (vmax, fabs ((double) x[i]));
        }
      g_test_message ("iteration %u: image within %.3e of the oracle's (max %.3e)", k + 1, dmax, vmax);
      g_assert_cmpfloat (vmax, >, 0.5 * MU);
      g_assert_cmpfloat (dmax, <, 1e-5 * vmax);
    }
  /* the unreported run: the views one by one in another order, the same
   * iteration */
  double dmax = 0.0;
  for (gsize i = 0; i < nvox; i++)
    dmax = MAX (dmax, fabs ((double) reported->data[i] - plain->data[i]));
  g_test_message ("reported vs unreported: max |difference| %.3e", dmax);
  g_assert_cmpfloat (dmax, <, 1e-5 * MU);
  /* the residual of each reported image, in double */
  for (guint k = 0; k < iterations; k++)
    {
      ctr_cone_projector_forward (fresh, g_ptr_array_index (r.image, k), ax);
      double num = 0.0, den = 0.0;
      for (gsize i = 0; i < nproj; i++)
        {
          num += ((double) p->data[i] - ax[i]) * ((double) p->data[i] - ax[i]);
          den += (double) p->data[i] * p->data[i];
        }
      const double want = sqrt (num / den), got = g_array_index (r.residual, double, k);
      g_test_message ("iteration %u: residual %.9e, independent %.9e", k + 1, got, want);
      g_assert_cmpfloat (fabs (got - want), <, 1e-6 * want);
      if (k > 0)
        g_assert_cmpfloat (got, <, g_array_index (r.residual, double, k - 1));
    }
  /* set-up: row and column sums (2 nv), then the unreported run one
   * traversal per iteration, the reported one a traversal more. */
  g_test_message ("views set up: reported %" G_GUINT64_FORMAT ", unreported %" G_GUINT64_FORMAT, s1 - s0, s2 - s1);
  g_assert_cmpuint (s2 - s1, ==, (guint64) (iterations + 2) * nv);
  g_assert_cmpuint (s1 - s0, ==, (guint64) (iterations + 3) * nv);
  g_array_free (r.residual, TRUE);
  g_ptr_array_free (r.image, TRUE);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = make_cone (4, 8, 8, 1.0);
  CtrGrid grid = ctr_grid_square (8, 1.0, 8, 1.0);
  g->beam = CTR_BEAM_FAN;
  g_assert_null (ctr_cone_projector_new (g, &grid, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  g->beam = CTR_BEAM_CONE;
  g->shape = CTR_DETECTOR_CURVED;   /* a curved panel is fine (tests/test-helical.c) */
  g->pitch_u = 0.002;
  g_autoptr (CtrConeProjector) curved = ctr_cone_projector_new (g, &grid, &error);
  g_assert_no_error (error);
  g->shape = CTR_DETECTOR_FLAT;
  g->pitch_u = 1.0;
  grid.nx = 0;
  g_assert_null (ctr_cone_projector_new (g, &grid, &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/cone-projector/adjoint", test_adjoint);
  g_test_add_func ("/ctr/core/cone-projector/kernels-agree", test_kernels_agree);
  g_test_add_func ("/ctr/core/cone-projector/band-runs", test_band_runs);
  g_test_add_func ("/ctr/core/cone-projector/view-blocks", test_view_blocks);
  g_test_add_func ("/ctr/core/cone-projector/ray-tables", test_ray_tables);
  g_test_add_func ("/ctr/core/cone-projector/swapped-layout", test_swapped_layout);
  g_test_add_func ("/ctr/core/cone-projector/forward-vs-exact", test_forward_vs_exact);
  g_test_add_func ("/ctr/core/cone-projector/sart", test_sart);
  g_test_add_func ("/ctr/core/cone-projector/sirt", test_sirt);
  g_test_add_func ("/ctr/core/cone-projector/sirt-reported", test_sirt_reported);
  g_test_add_func ("/ctr/core/cone-projector/errors", test_errors);
  return g_test_run ();
}
