/* test-gpu-cone-split.c — the GPU's cone-beam pair out of core
 * (gpu/ctr-cuda-cone-split.{c,cu}): z-slabs and view chunks against the
 * unsplit pair (gpu/ctr-cuda-cone.c) on the same device.  A device made
 * small by a memory cap (ctr_cuda_cone_set_memory_cap) forces 2, 3 and nz
 * slabs (7 slices: slab counts that do not divide nz), and view chunks.
 * Exit 77 without a CUDA build or a device.  Problems are tiny (the
 * emulation harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |split − unsplit| / max |unsplit|:
 *   products 1e-5: each slab's rays are set up from the slab's own z
 *     origin (the float parameters differ from the whole's by an ulp) and a
 *     ray's sum is the sum of its slabs' sums (another order): a few ulps of
 *     the largest term.  A lost slice at a slab's edge, a slab shifted by a
 *     slice or a chunk projected twice gives 1e-2 or more.
 *   SIRT (4 iterations) 1e-4, CGLS (4 iterations) 1e-3, as test-gpu-cone.c.
 * Adjointness of the split: |<A x, y> − <x, Aᵀ y>| ≤ 1e-5 · |<A x, y>|.
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
#include "ctr-cuda-cone-split.h"
#endif

#ifdef CTR_HAVE_CUDA

typedef struct {
  const char *name;
  gboolean vectors;    /* per-view vectors with a tilted panel */
  gboolean masked;
  guint views, nz;
} Case;

static const Case cases[] = {
  { "circular", FALSE, FALSE, 7, 7 },
  { "vectors-tilted", TRUE, FALSE, 7, 7 },
  { "masked", FALSE, TRUE, 7, 7 },
  /* ≥ 16 views: the transposed layout in each slab */
  { "20-views", FALSE, FALSE, 20, 5 },
};

static CtrGeometry *
make_geometry (const Case *c)
{
  const guint views = c->views;
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->sod_mm = 100.0;
  g->sdd_mm = 160.0;
  g->n_cols = 11;
  g->n_rows = 8;       /* the rows cover the volume's z extent */
  g->pitch_u = 3.3;
  g->pitch_v_mm = 4.1;
  ctr_geometry_set_uniform_angles (g, 0.3, 2.0 * G_PI / views);
  if (c->vectors)
    {
      /* the circular set-up with the source off the mid-plane, then the
       * panel tilted by 0.1 rad about its normal */
      g->vectors = g_new (double, (gsize) views * CTR_GEOMETRY_VECTOR_LEN);
      for (guint v = 0; v < views; v++)
        {
          const double b = g->angles[v], t = 0.1;
          double *w = g->vectors + (gsize) v * CTR_GEOMETRY_VECTOR_LEN;
          const double eu[3] = { cos (b), sin (b), 0 }, ez[3] = { 0, 0, 1 };
          w[0] = g->sod_mm * sin (b);
          w[1] = -g->sod_mm * cos (b);
          w[2] = 1.5;
          w[3] = -(g->sdd_mm - g->sod_mm) * sin (b);
          w[4] = (g->sdd_mm - g->sod_mm) * cos (b);
          w[5] = -0.7;
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
  CtrGrid grid = { 10, 9, c->nz, 2.9, 3.1, 2.7, 0.6, -1.2, 0.4 };
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

static double worst;   /* the largest product difference seen (reported) */

static void
check (const char *what, const Case *c, guint slabs, const float *a, const float *b, gsize n, double tol)
{
  const double d = max_rel_diff (a, b, n);
  g_test_message ("%s, %u slabs: %s split vs whole %.2e", c->name, slabs, what, d);
  worst = MAX (worst, d);
  g_assert_cmpfloat (d, <=, tol);
}

/* The budget that gives @n slabs of every view (or, with @chunk, chunks). */
static guint64
budget_for (const CtrGeometry *g, const CtrGrid *grid, gboolean masked, guint n, guint chunk)
{
  CtrCudaConeFit f;
  g_assert_true (ctr_cuda_cone_fit (g, grid, masked, G_MAXUINT64 - 1, &f, NULL));   /* the layout in use */
  return ctr_cuda_cone_split_bytes (g, grid, masked, f.transposed, FALSE, (grid->nz + n - 1) / n,
                                    chunk != 0 ? chunk : g->n_views);
}

/* Every product of the split with @n slabs (and view chunks of ≤ @chunk
 * views, 0: none) against the whole operator's. */
static void products_of (const Case *c, const CtrCudaConeFit *fitp);

static void
products_with (const Case *c, guint n, guint chunk)
{
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (GError) e = NULL;
  CtrCudaConeFit fit;
  g_assert_true (ctr_cuda_cone_fit (g, &grid, c->masked, budget_for (g, &grid, c->masked, n, chunk), &fit, &e));
  g_assert_no_error (e);
  g_assert_true (fit.split);
  if (chunk == 0)
    {
      g_assert_cmpuint (fit.n_slabs, ==, n);
      g_assert_cmpuint (fit.n_chunks, ==, 1);
    }
  else
    g_assert_cmpuint (fit.n_chunks, >, 1);
  g_assert_cmpuint (fit.split_bytes, <=, fit.budget);
  g_assert_cmpuint (fit.whole_bytes, >, fit.budget);
  products_of (c, &fit);
}

/* Every product of the split @fitp against the whole operator's. */
static void
products_of (const Case *c, const CtrCudaConeFit *fitp)
{
  const CtrCudaConeFit fit = *fitp;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autofree guint8 *mask = c->masked ? make_mask (g) : NULL;
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrOperator) sp = ctr_cuda_cone_split_op_new (g, &grid, mask, &fit, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (sp->klass->name, ==, "cuda-cone-split");
  g_assert_null (sp->klass->pass);
  g_assert_nonnull (strstr (sp->description, "z-slab"));
  g_autoptr (CtrOperator) wh = ctr_cuda_cone_op_new (g, &grid, mask, &e);
  g_assert_no_error (e);
  const gsize ni = wh->image_size, nd = wh->data_size;
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd), *coef = g_new (float, nd);
  g_autofree float *Y1 = g_new0 (float, nd), *Y2 = g_new0 (float, nd);
  g_autofree float *D1 = g_new0 (float, ni), *D2 = g_new0 (float, ni);
  fill_random (x, ni, 1);
  fill_random (y, nd, 2);
  fill_random (coef, nd, 3);
  /* forward, adjoint, column sums: all views and one */
  const guint subsets[2] = { CTR_SUBSET_ALL, c->views / 2 };
  for (guint k = 0; k < 2; k++)
    {
      g_assert_true (wh->klass->forward (wh, subsets[k], x, Y1, &e));
      g_assert_true (sp->klass->forward (sp, subsets[k], x, Y2, &e));
      g_assert_no_error (e);
      check ("forward", c, fit.n_slabs, Y2, Y1, nd, 1e-5);
      g_assert_true (wh->klass->adjoint (wh, subsets[k], y, D1, &e));
      g_assert_true (sp->klass->adjoint (sp, subsets[k], y, D2, &e));
      g_assert_no_error (e);
      check ("adjoint", c, fit.n_slabs, D2, D1, ni, 1e-5);
      g_assert_true (wh->klass->column_sums (wh, subsets[k], D1, &e));
      g_assert_true (sp->klass->column_sums (sp, subsets[k], D2, &e));
      g_assert_no_error (e);
      check ("column sums", c, fit.n_slabs, D2, D1, ni, 1e-5);
    }
  wh->klass->row_sums (wh, NULL, Y1);
  sp->klass->row_sums (sp, NULL, Y2);
  check ("row sums", c, fit.n_slabs, Y2, Y1, nd, 1e-5);
  /* adjointness of the split */
  memset (Y2, 0, nd * sizeof (float));
  /* and the schedule's transfers: forward, the volume once per chunk and
   * the projections once; adjoint, the projections once (one chunk) or
   * once per slab (chunks), the volume once */
  double up[3], down[3];
  ctr_cuda_cone_split_op_traffic (sp, &up[0], &down[0]);
  g_assert_true (sp->klass->forward (sp, CTR_SUBSET_ALL, x, Y2, &e));
  ctr_cuda_cone_split_op_traffic (sp, &up[1], &down[1]);
  g_assert_true (sp->klass->adjoint (sp, CTR_SUBSET_ALL, y, D2, &e));
  ctr_cuda_cone_split_op_traffic (sp, &up[2], &down[2]);
  const double vb = 4.0 * ni, db = 4.0 * nd;
  g_assert_cmpfloat (up[1] - up[0], ==, fit.n_chunks * vb);
  g_assert_cmpfloat (down[1] - down[0], ==, db);
  g_assert_cmpfloat (up[2] - up[1], ==, (fit.n_chunks == 1 ? 1 : fit.n_slabs) * db);
  g_assert_cmpfloat (down[2] - down[1], ==, vb);
  double ax_y = 0, x_aty = 0;
  for (gsize i = 0; i < nd; i++)
    ax_y += (double) Y2[i] * y[i];
  for (gsize i = 0; i < ni; i++)
    x_aty += (double) x[i] * D2[i];
  g_test_message ("%s, %u slabs: adjointness %.2e", c->name, fit.n_slabs, fabs (ax_y - x_aty) / fabs (ax_y));
  g_assert_cmpfloat (fabs (ax_y - x_aty), <=, 1e-5 * fabs (ax_y));
  /* the fused steps: SART's (scaled, clipped) and an accumulation */
  g_autofree float *X1 = g_memdup2 (x, ni * sizeof (float)), *X2 = g_memdup2 (x, ni * sizeof (float));
  const CtrUpdateFlags f = CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG;
  g_assert_true (wh->klass->update (wh, 3, X1, y, coef, 0.7f, NULL, f, &e));
  g_assert_true (sp->klass->update (sp, 3, X2, y, coef, 0.7f, NULL, f, &e));
  g_assert_no_error (e);
  check ("SART step", c, fit.n_slabs, X2, X1, ni, 1e-5);
  g_assert_cmpfloat (max_rel_diff (X1, x, ni), >, 1e-3);   /* the step moved the image */
  memset (D1, 0, ni * sizeof (float));
  memset (D2, 0, ni * sizeof (float));
  for (guint s = 0; s < 2; s++)
    {
      g_assert_true (wh->klass->update (wh, s + 1, x, y, coef, 1.0f, D1, 0, &e));
      g_assert_true (sp->klass->update (sp, s + 1, x, y, coef, 1.0f, D2, 0, &e));
    }
  if (wh->klass->reduce)
    wh->klass->reduce (wh, D1);
  g_assert_no_error (e);
  check ("accumulated steps", c, fit.n_slabs, D2, D1, ni, 1e-5);
}

static void
test_products (gconstpointer data)
{
  const Case *c = data;
  const guint counts[3] = { 2, 3, c->nz };
  for (guint k = 0; k < 3; k++)
    products_with (c, counts[k], 0);
}

/* Chunks of views as well (the projections do not fit beside a slice). */
static void
test_chunks (gconstpointer data)
{
  const Case *c = data;
  products_with (c, c->nz, 3);
}

/* The plan's other shapes, made by hand: one slab in view chunks (chunks
 * of 3 and a last of 1), and one slab of every view (streamed anyway). */
static void
test_shapes (gconstpointer data)
{
  const Case *c = data;
  const CtrCudaConeFit chunks_only = { .split = TRUE, .n_slabs = 1, .slab_nz = c->nz, .n_chunks = (c->views + 2) / 3,
                                       .chunk_views = 3, .transposed = TRUE };
  const CtrCudaConeFit one = { .split = FALSE, .n_slabs = 1, .slab_nz = c->nz, .n_chunks = 1,
                               .chunk_views = c->views };
  products_of (c, &chunks_only);
  products_of (c, &one);
}

/* SIRT and CGLS through the plan, the device capped below the whole's need:
 * the split operator, a note that says why, the unsplit run's image. */
static void
test_methods (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, 8.0, 0.35 * grid.nz * grid.dz, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  const struct { CtrMethod m; guint it; double tol; } runs[] = {
    { CTR_METHOD_SIRT, 4, 1e-4 }, { CTR_METHOD_CGLS, 4, 1e-3 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (runs); k++)
    {
      CtrVolume *img[2] = { NULL, NULL };
      for (int b = 0; b < 2; b++)
        {
          CtrReconOptions o;
          ctr_recon_options_init (&o, runs[k].m);
          o.iterations = runs[k].it;
          o.backend = "cuda";
          ctr_cuda_cone_set_memory_cap (b == 1 ? budget_for (g, &grid, FALSE, 3, 0) : 0);
          g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
          ctr_cuda_cone_set_memory_cap (0);
          g_assert_no_error (e);
          g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, "cuda");
          CtrPlanInfo info;
          ctr_recon_plan_get_info (plan, FALSE, &info);
          g_assert_cmpstr (info.operator_name, ==, b == 0 ? "cuda-cone" : "cuda-cone-split");
          /* the estimate says the same without building anything */
          ctr_cuda_cone_set_memory_cap (b == 1 ? budget_for (g, &grid, FALSE, 3, 0) : 0);
          g_auto (GStrv) est = ctr_recon_plan_estimate (g, &grid, &o, &e);
          ctr_cuda_cone_set_memory_cap (0);
          g_assert_no_error (e);
          gboolean told = FALSE;
          for (char **n = est; *n; n++)
            told |= strstr (*n, "device memory:") != NULL
                    && strstr (*n, b == 0 ? "whole on the device" : "out of core, 3 z-slabs") != NULL;
          g_assert_true (told);
          if (b == 1)
            {
              gboolean said = FALSE;
              for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
                said |= strstr (*n, "3 z-slabs") != NULL && strstr (*n, "usable") != NULL;
              g_assert_true (said);
            }
          img[b] = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
          g_assert_no_error (e);
        }
      const double d = max_rel_diff (img[1]->data, img[0]->data, ctr_grid_size (&grid));
      g_test_message ("%s %s (%u): split vs whole %.2e", c->name, ctr_method_name (runs[k].m), runs[k].it, d);
      ctr_volume_unref (img[0]);
      ctr_volume_unref (img[1]);
      g_assert_cmpfloat (d, <=, runs[k].tol);
    }
}

/* The helical route's slab (curved detector, moving source, rebin none)
 * takes the backend's cone pair too: capped, it runs split, same image. */
static void
test_helical (void)
{
  const Case c = { "helical", FALSE, FALSE, 9, 8 };
  g_autoptr (CtrGeometry) g = make_geometry (&c);
  g->shape = CTR_DETECTOR_CURVED;
  g->pitch_u = 0.05;
  g->source_z_mm = g_new (double, c.views);
  for (guint v = 0; v < c.views; v++)
    g->source_z_mm[v] = -4.0 + 1.1 * v;
  CtrGrid grid = make_grid (&c);
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, 8.0, 6.0, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  CtrVolume *img[2] = { NULL, NULL };
  for (int b = 0; b < 2; b++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_SIRT);
      o.iterations = 3;
      o.backend = "cuda";
      o.rebin = CTR_REBIN_NONE;
      ctr_cuda_cone_set_memory_cap (b == 1 ? budget_for (g, &grid, TRUE, 3, 0) : 0);
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
      g_assert_no_error (e);
      img[b] = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
      ctr_cuda_cone_set_memory_cap (0);
      g_assert_no_error (e);
      CtrPlanInfo info;
      ctr_recon_plan_get_info (plan, FALSE, &info);
      for (const char *const *n = ctr_recon_plan_get_notes (plan); b == 1 && *n; n++)
        g_test_message ("%s", *n);
      g_assert_cmpstr (info.operator_name, ==, b == 0 ? "cuda-cone" : "cuda-cone-split");
    }
  const double d = max_rel_diff (img[1]->data, img[0]->data, ctr_grid_size (&grid));
  g_test_message ("helical SIRT (3): split vs whole %.2e", d);
  ctr_volume_unref (img[0]);
  ctr_volume_unref (img[1]);
  g_assert_cmpfloat (d, <=, 1e-4);
}

/* A budget below one slice and one view: a clear error, and the plan runs
 * the CPU and says why. */
static void
test_too_small (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (GError) e = NULL;
  CtrCudaConeFit fit;
  g_assert_false (ctr_cuda_cone_fit (g, &grid, FALSE, 1000, &fit, &e));
  g_assert_true (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY));
  g_test_message ("%s", e->message);
  g_clear_error (&e);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 1;
  o.backend = "cuda";
  ctr_cuda_cone_set_memory_cap (1000);
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  ctr_cuda_cone_set_memory_cap (0);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, "cpu");
  gboolean said = FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    said |= strstr (*n, "even split") != NULL && strstr (*n, "the CPU runs sirt") != NULL;
  g_assert_true (said);
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
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/gpu-cone-split/products/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_products);
      g_autofree char *p2 = g_strdup_printf ("/ctr/gpu-cone-split/chunks/%s", cases[i].name);
      g_test_add_data_func (p2, &cases[i], test_chunks);
      g_autofree char *p4 = g_strdup_printf ("/ctr/gpu-cone-split/shapes/%s", cases[i].name);
      g_test_add_data_func (p4, &cases[i], test_shapes);
      if (!cases[i].masked && cases[i].views < 16)
        {
          g_autofree char *p3 = g_strdup_printf ("/ctr/gpu-cone-split/methods/%s", cases[i].name);
          g_test_add_data_func (p3, &cases[i], test_methods);
        }
    }
  g_test_add_func ("/ctr/gpu-cone-split/too-small", test_too_small);
  g_test_add_func ("/ctr/gpu-cone-split/helical", test_helical);
  const int rc = g_test_run ();
  g_print ("largest product difference, split vs whole: %.2e\n", worst);
  return rc;
#endif
}
