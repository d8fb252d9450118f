/* test-gpu-cone.c — the GPU's cone-beam projector pair (gpu/ctr-cuda-cone.cu)
 * against the CPU's (core/sysmat/ctr-cone-projector.c), and the methods on
 * it.  Exit 77 (skipped) without a CUDA build or a device.  Problems are
 * tiny (the emulation harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |GPU − CPU| / max |CPU|:
 *   products 1e-5: the same ray parameters (set up in double from the same
 *     ray ends, rounded to float) and the same float stencil; the sums run
 *     in another order (a float sum over ≤ 20 planes per ray, atomics in
 *     any order in the adjoint): a few ulps of the largest term.  A wrong
 *     weight, a half-voxel shift or a lost plane gives 1e-2 or more.
 *   SIRT (6 iterations), SART (2 passes) 1e-4: the products' rounding
 *     carried through the iterations (as tests/test-gpu.c's solvers).
 *   CGLS, PWLS (4 iterations) 1e-3: CGLS's step sizes are quotients of
 *     inner products, which amplify rounding per iteration.
 * One tie is not rounding: a ray with |d_x| = |d_y| (45° in the plane) may
 * be x-dominant on one side and y-dominant on the other (the direction is
 * summed in another order); the cases avoid exact 45° rays.
 * Adjointness on the device: |<A x, y> − <x, Aᵀ y>| ≤ 1e-5 · |<A x, y>|.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-recon-plan.h"
#include "sim/ctr-phantom3d.h"
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-random.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda.h"
#include "ctr-cuda-cone.h"
#endif
#ifdef CTR_EMU_BUILD
#include "ctr-emu.h"
#endif

#ifdef CTR_HAVE_CUDA

typedef struct {
  const char *name;
  CtrDetectorShape shape;
  gboolean vectors;    /* per-view vectors with a tilted panel */
  gboolean helical;    /* source z moving */
  gboolean masked;
  guint views;
  guint nx, ny, nz;
  double shift_x;      /* grid centre off the axis, mm */
} Case;

static const Case cases[] = {
  { "flat", CTR_DETECTOR_FLAT, FALSE, FALSE, FALSE, 7, 10, 9, 7, 0.0 },
  { "curved-shifted", CTR_DETECTOR_CURVED, FALSE, FALSE, FALSE, 7, 9, 10, 6, 3.1 },
  { "vectors-tilted", CTR_DETECTOR_FLAT, TRUE, FALSE, FALSE, 7, 8, 8, 6, 0.0 },
  { "helical-masked", CTR_DETECTOR_CURVED, FALSE, TRUE, TRUE, 7, 9, 9, 8, 0.0 },
  /* whole passes of ≥ 16 views take the transposed layout when it is on;
   * a volume whose sides are not multiples of the transposes' 32² tiles */
  { "flat-20-views", CTR_DETECTOR_FLAT, FALSE, FALSE, FALSE, 20, 37, 29, 5, -1.7 },
};

static CtrGeometry *
make_geometry (const Case *c)
{
  const guint views = c->views;
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->shape = c->shape;
  g->sod_mm = 100.0;
  g->sdd_mm = 160.0;
  g->n_cols = 11;
  g->n_rows = 5;
  g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 0.05 : 3.3;
  g->pitch_v_mm = 3.1;
  ctr_geometry_set_uniform_angles (g, 0.3, 2.0 * G_PI / views);
  if (c->helical)
    {
      g->source_z_mm = g_new (double, views);
      for (guint v = 0; v < views; v++)
        g->source_z_mm[v] = -4.0 + 1.3 * v;
    }
  if (c->vectors)
    {
      /* the circular set-up, then the panel tilted by 0.1 rad about its normal */
      g->vectors = g_new (double, (gsize) views * CTR_GEOMETRY_VECTOR_LEN);
      for (guint v = 0; v < views; v++)
        {
          const double b = g->angles[v], t = 0.1;
          double *w = g->vectors + (gsize) v * CTR_GEOMETRY_VECTOR_LEN;
          const double eu[3] = { cos (b), sin (b), 0 }, ez[3] = { 0, 0, 1 };
          w[0] = g->sod_mm * sin (b);
          w[1] = -g->sod_mm * cos (b);
          w[2] = 0.5;
          w[3] = -(g->sdd_mm - g->sod_mm) * sin (b);
          w[4] = (g->sdd_mm - g->sod_mm) * cos (b);
          w[5] = 0.0;
          for (guint k = 0; k < 3; k++)
            {
              w[6 + k] = g->pitch_u * (cos (t) * eu[k] + sin (t) * ez[k]);
              w[9 + k] = g->pitch_v_mm * (-sin (t) * eu[k] + cos (t) * ez[k]);
            }
        }
    }
  return g;
}

static CtrGrid
make_grid (const Case *c)
{
  CtrGrid grid = { c->nx, c->ny, c->nz, 2.9, 3.1, 2.7, c->shift_x, -1.2, 0.4 };
  return grid;
}

static guint8 *
make_mask (const CtrGeometry *g)
{
  const gsize n = (gsize) g->n_views * g->n_rows * g->n_cols;
  guint8 *m = g_new (guint8, n);
  for (gsize i = 0; i < n; i++)
    m[i] = (i * 7 + 3) % 5 != 0;
  return m;
}

static void
fill_random (float *x, gsize n, guint64 seed)
{
  CtrRng r;
  ctr_rng_init (&r, seed, 0);
  for (gsize i = 0; i < n; i++)
    x[i] = (float) ctr_rng_uniform (&r);
}

static double
max_rel_diff (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (a[i]));
      d = MAX (d, fabs ((double) a[i] - b[i]));
      m = MAX (m, fabs ((double) b[i]));
    }
  g_assert_cmpfloat (m, >, 0.0);
  return d / m;
}

static void
make_ops (const Case *c, CtrGeometry **g_out, CtrGrid *grid, CtrOperator **cpu, CtrOperator **gpu)
{
  g_autoptr (GError) e = NULL;
  CtrGeometry *g = make_geometry (c);
  *grid = make_grid (c);
  g_autofree guint8 *mask = c->masked ? make_mask (g) : NULL;
  *gpu = ctr_cuda_cone_op_new (g, grid, mask, &e);
  g_assert_no_error (e);
  g_assert_cmpstr ((*gpu)->klass->name, ==, "cuda-cone");
  CtrConeProjector *cp = ctr_cone_projector_new (g, grid, &e);
  g_assert_no_error (e);
  *cpu = ctr_cone_op_new_masked (cp, g_steal_pointer (&mask), &e);
  g_assert_no_error (e);
  *g_out = g;
}

static void
products_on (const Case *c, const char *layout)
{
  g_setenv ("CTR_CUDA_CONE_LAYOUT", layout, TRUE);
  g_autoptr (CtrGeometry) g = NULL;
  CtrGrid grid;
  g_autoptr (CtrOperator) oc = NULL;
  g_autoptr (CtrOperator) og = NULL;
  make_ops (c, &g, &grid, &oc, &og);
  g_autoptr (GError) e = NULL;
  const gsize ni = oc->image_size, nd = oc->data_size, pv = (gsize) g->n_rows * g->n_cols;
  g_assert_cmpuint (og->image_size, ==, ni);
  g_assert_cmpuint (og->data_size, ==, nd);
  for (guint t = 0; t < oc->n_subsets; t++)
    g_assert_cmpuint (ctr_operator_subset_at (og, t), ==, ctr_operator_subset_at (oc, t));
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd);
  g_autofree float *yc = g_new0 (float, nd), *yg = g_new0 (float, nd);
  g_autofree float *xc = g_new0 (float, ni), *xg = g_new0 (float, ni);
  fill_random (x, ni, 11);
  fill_random (y, nd, 12);
  g_assert_true (oc->klass->forward (oc, CTR_SUBSET_ALL, x, yc, &e));
  g_assert_true (og->klass->forward (og, CTR_SUBSET_ALL, x, yg, &e));
  g_assert_no_error (e);
  const double df = max_rel_diff (yg, yc, nd);
  g_assert_true (oc->klass->adjoint (oc, CTR_SUBSET_ALL, y, xc, &e));
  g_assert_true (og->klass->adjoint (og, CTR_SUBSET_ALL, y, xg, &e));
  g_assert_no_error (e);
  const double da = max_rel_diff (xg, xc, ni);
  /* one view alone: the view's rays land in place, the others untouched */
  const guint v = 3;
  g_autofree float *y1 = g_new (float, nd);
  for (gsize i = 0; i < nd; i++)
    y1[i] = -7.0f;
  g_assert_true (og->klass->forward (og, v, x, y1, &e));
  for (gsize i = 0; i < nd; i++)
    if (i / pv != v)
      g_assert_cmpfloat (y1[i], ==, -7.0f);
  const double dv = max_rel_diff (y1 + pv * v, yc + pv * v, pv);
  /* column sums of all views and of one */
  g_autofree float *cc = g_new (float, ni), *cg = g_new (float, ni);
  g_assert_true (oc->klass->column_sums (oc, CTR_SUBSET_ALL, cc, &e));
  g_assert_true (og->klass->column_sums (og, CTR_SUBSET_ALL, cg, &e));
  const double dc = max_rel_diff (cg, cc, ni);
  g_assert_true (oc->klass->column_sums (oc, v, cc, &e));
  g_assert_true (og->klass->column_sums (og, v, cg, &e));
  const double dc1 = max_rel_diff (cg, cc, ni);
  g_autofree float *rc = g_new (float, nd), *rg = g_new (float, nd);
  oc->klass->row_sums (oc, NULL, rc);
  og->klass->row_sums (og, NULL, rg);
  const double dr = max_rel_diff (rg, rc, nd);
  /* adjointness on the device */
  double ax_y = 0, x_aty = 0;
  for (gsize i = 0; i < nd; i++)
    ax_y += (double) yg[i] * y[i];
  for (gsize i = 0; i < ni; i++)
    x_aty += (double) x[i] * xg[i];
  const double adj = fabs (ax_y - x_aty) / fabs (ax_y);
  g_unsetenv ("CTR_CUDA_CONE_LAYOUT");
  g_test_message ("%s, %s layout: forward %.2e, adjoint %.2e, view %u %.2e, column sums %.2e / %.2e, row sums "
                  "%.2e, adjointness %.2e", c->name, layout, df, da, v, dv, dc, dc1, dr, adj);
  g_assert_cmpfloat (df, <=, 1e-5);
  g_assert_cmpfloat (da, <=, 1e-5);
  g_assert_cmpfloat (dv, <=, 1e-5);
  g_assert_cmpfloat (dc, <=, 1e-5);
  g_assert_cmpfloat (dc1, <=, 1e-5);
  g_assert_cmpfloat (dr, <=, 1e-5);
  g_assert_cmpfloat (adj, <=, 1e-5);
}

static void
test_products (gconstpointer data)
{
  products_on (data, "plain");
  products_on (data, "transposed");
}

/* The operator's subset steps with host arrays: SART's (column scale,
 * clipped) and the accumulated form (PWLS's). */
static void
test_steps (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = NULL;
  CtrGrid grid;
  g_autoptr (CtrOperator) oc = NULL;
  g_autoptr (CtrOperator) og = NULL;
  make_ops (c, &g, &grid, &oc, &og);
  g_autoptr (GError) e = NULL;
  const gsize ni = oc->image_size, nd = oc->data_size;
  g_autofree float *B = g_new (float, nd), *coef = g_new (float, nd), *x = g_new (float, ni);
  fill_random (x, ni, 21);
  oc->klass->forward (oc, CTR_SUBSET_ALL, x, B, &e);
  oc->klass->row_sums (oc, NULL, coef);
  for (gsize q = 0; q < nd; q++)
    coef[q] = coef[q] > 0.f ? 1.f / coef[q] : 0.f;
  g_autofree float *Xc = g_new0 (float, ni), *Xg = g_new0 (float, ni);
  for (guint t = 0; t < oc->n_subsets; t++)
    {
      const guint s = ctr_operator_subset_at (oc, t);
      g_assert_true (oc->klass->update (oc, s, Xc, B, coef, 0.9f, NULL, CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, &e));
      g_assert_true (og->klass->update (og, s, Xg, B, coef, 0.9f, NULL, CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, &e));
      g_assert_no_error (e);
    }
  const double ds = max_rel_diff (Xg, Xc, ni);
  g_autofree float *Dc = g_new0 (float, ni), *Dg = g_new0 (float, ni);
  for (guint s = 0; s < oc->n_subsets; s++)
    {
      g_assert_true (oc->klass->update (oc, s, Xc, B, coef, 1.f, Dc, 0, &e));
      g_assert_true (og->klass->update (og, s, Xc, B, coef, 1.f, Dg, 0, &e));
    }
  /* the GPU defers the sum (ctr-operator.h): D is complete after reduce */
  g_assert_nonnull (og->klass->reduce);
  og->klass->reduce (og, Dg);
  const double dd = max_rel_diff (Dg, Dc, ni);
  g_assert_false (og->klass->update (og, 0, Xg, B, coef, 1.f, NULL, CTR_UPDATE_SEQUENTIAL, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_test_message ("%s: SART steps %.2e, accumulated steps %.2e", c->name, ds, dd);
  g_assert_cmpfloat (ds, <=, 1e-5);
  g_assert_cmpfloat (dd, <=, 1e-5);
}

/* The methods through the plan, --backend cuda against cpu: the cone route
 * takes the GPU's operator and says so. */
static void
test_methods (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (GError) e = NULL;
  const double r = 0.3 * MIN (grid.nx * grid.dx, grid.ny * grid.dy);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, r, 0.35 * grid.nz * grid.dz, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  const struct { CtrMethod m; guint it; double tol; } runs[] = {
    { CTR_METHOD_SIRT, 6, 1e-4 }, { CTR_METHOD_SART, 2, 1e-4 }, { CTR_METHOD_CGLS, 4, 1e-3 },
    { CTR_METHOD_PWLS, 4, 1e-3 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++)
    {
      /* PWLS starts from FBP, which needs a circular orbit */
      if (runs[k].m == CTR_METHOD_PWLS && c->vectors)
        continue;
      CtrVolume *img[2] = { NULL, NULL };
      for (int b = 0; b < 2; b++)
        {
          CtrReconOptions o;
          ctr_recon_options_init (&o, runs[k].m);
          o.iterations = runs[k].it;
          o.backend = b == 0 ? "cpu" : "cuda";
          /* the other layout on the 20-view case */
          if (b == 1 && c->views >= 16)
            g_setenv ("CTR_CUDA_CONE_LAYOUT", "transposed", TRUE);
          o.rebin = CTR_REBIN_NONE;   /* curved: the helical route's slab on the pair */
          g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
          g_assert_no_error (e);
          g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, b == 0 ? "cpu" : "cuda");
          CtrPlanInfo info;
          ctr_recon_plan_get_info (plan, FALSE, &info);
          g_assert_cmpstr (info.operator_name, ==, b == 0 ? "cpu-cone" : "cuda-cone");
          img[b] = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
          g_unsetenv ("CTR_CUDA_CONE_LAYOUT");
          g_assert_no_error (e);
        }
      const double d = max_rel_diff (img[1]->data, img[0]->data, ctr_grid_size (&grid));
      g_test_message ("%s %s (%u): GPU vs CPU %.2e", c->name, ctr_method_name (runs[k].m), runs[k].it, d);
      ctr_volume_unref (img[0]);
      ctr_volume_unref (img[1]);
      g_assert_cmpfloat (d, <=, runs[k].tol);
    }
}

#ifdef CTR_EMU_BUILD
/* A device too small for the whole pair but not for z-slabs of it: the
 * plan runs SIRT on the device, split (it ran on the CPU before the split
 * existed), says so, and gives the CPU's image. */
static void
memory_split (const CtrGeometry *g)
{
  CtrGrid grid = make_grid (&cases[0]);
  grid.nx = grid.ny = 128;
  grid.nz = 64;                                     /* 4 MiB a volume: the whole needs 12 MiB, 24 transposed */
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, 40.0, 30.0, 0.02);
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  CtrVolume *img[2] = { NULL, NULL };
  for (int b = 0; b < 2; b++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_SIRT);
      o.iterations = 2;
      o.backend = b == 0 ? "cpu" : "cuda";
      ctr_emu_set_device_memory ((size_t) 80 << 20);  /* about 12 MiB beyond the free-memory checks' margin */
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
      g_assert_no_error (e);
      for (const char *const *n = ctr_recon_plan_get_notes (plan); b == 1 && *n; n++)
        g_test_message ("%s", *n);
      g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, b == 0 ? "cpu" : "cuda");
      CtrPlanInfo info;
      ctr_recon_plan_get_info (plan, FALSE, &info);
      g_assert_cmpstr (info.operator_name, ==, b == 0 ? "cpu-cone" : "cuda-cone-split");
      img[b] = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
      ctr_emu_set_device_memory (0);
      g_assert_no_error (e);
    }
  const double d = max_rel_diff (img[1]->data, img[0]->data, ctr_grid_size (&grid));
  g_test_message ("SIRT (2) split on a small device vs CPU %.2e", d);
  ctr_volume_unref (img[0]);
  ctr_volume_unref (img[1]);
  g_assert_cmpfloat (d, <=, 1e-4);
}
#endif

/* Too much for the host: a clear error before any allocation; too much
 * for the device (the harness's device made small): a clear error, and the
 * plan runs the CPU and says why; too much for the whole pair on the
 * device but not for its z-slabs: the split (memory_split). */
static void
test_memory (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  grid.nx = grid.ny = grid.nz = 20000;   /* 8·10¹² voxels */
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrOperator) op = ctr_cuda_cone_op_new (g, &grid, NULL, &e);
  g_assert_null (op);
  g_assert_true (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY));
  g_test_message ("%s", e->message);
#ifdef CTR_EMU_BUILD
  g_clear_error (&e);
  grid = make_grid (c);
  grid.nx = grid.ny = 64;
  grid.nz = 32;                           /* 512 KiB a volume; the device gets 1 MiB */
  ctr_emu_set_device_memory ((size_t) 1 << 20);
  g_autoptr (CtrOperator) small = ctr_cuda_cone_op_new (g, &grid, NULL, &e);
  g_assert_null (small);
  g_assert_true (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY));
  g_test_message ("%s", e->message);
  g_clear_error (&e);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 1;
  o.backend = "cuda";
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  ctr_emu_set_device_memory (0);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, "cpu");
  gboolean said = FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    said |= strstr (*n, "too little device memory") != NULL && strstr (*n, "the CPU runs sirt") != NULL;
  g_assert_true (said);
  memory_split (g);
#endif
}
#endif

int
main (int argc, char **argv)
{
#ifndef CTR_HAVE_CUDA
  g_print ("built without CUDA: skipped\n");
  return 77;
#else
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    {
      g_print ("no CUDA device (%s): skipped\n", e->message);
      return 77;
    }
  g_assert_nonnull (ctr_backend_cone (ctr_backend_by_name ("cuda", NULL)));
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/gpu-cone/products/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/ctr/gpu-cone/steps/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_products);
      g_test_add_data_func (p2, &cases[i], test_steps);
      if (!cases[i].masked)
        {
          g_autofree char *p3 = g_strdup_printf ("/ctr/gpu-cone/methods/%s", cases[i].name);
          g_test_add_data_func (p3, &cases[i], test_methods);
        }
    }
  g_test_add_func ("/ctr/gpu-cone/memory", test_memory);
  return g_test_run ();
#endif
}
