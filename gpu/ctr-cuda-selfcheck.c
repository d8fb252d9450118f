/* ctr-cuda-selfcheck.c — the CUDA backend checks itself before anyone uses
 * it (see ctr-cuda.h, ctr_cuda_selfcheck): a small known problem on the
 * device and on the CPU, compared within the tolerances tests/test-gpu.c
 * and tests/test-gpu-fdk.c state and explain.  A device, driver or build
 * that computes wrong numbers makes the backend unavailable with the
 * reason, so that the plan runs the CPU and says why, instead of returning
 * a wrong image.
 *
 * The problem: a curved-detector fan beam of 64 views × 48 columns (D4: 8
 * orbits) on a 32² grid, 2 slices, random image and data — the forward and
 * transposed products of the operator the backend makes (rows or blocked,
 * as CTR_CUDA_KERNEL says) — and 3 iterations of parallel ART on consistent
 * data; a cone beam of 24 views of 32 × 24 on 16³ through both FDK kernels,
 * and the cone-beam projector pair's forward and transposed products on it
 * (random volume and data; 24 views take the transposed layout when it is
 * on).  About a millisecond of device work, plus the set-up.
 */
#include "ctr-cuda.h"
#include "ctr-cuda-fdk.h"
#include "ctr-cuda-cone.h"
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-error.h"
#include "sim/ctr-phantom3d.h"
#include "analytic/ctr-fdk.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-scsr-op.h"

#include <math.h>
#include <string.h>

/* The tests' tolerances (same reasons): products 1e-5 of the largest
 * output, solvers 1e-4 of the image maximum after the iterations, FDK a
 * relative L2 of 1e-3 (L1-Tran) and 1e-2 (texture, 8-bit weights). */
#define TOL_PRODUCTS 1e-5
#define TOL_SOLVER 1e-4
#define TOL_FDK_L1 1e-3
#define TOL_FDK_TEX 1e-2

static double
max_rel (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (!isfinite (a[i]) || !isfinite (b[i]))
        return INFINITY;   /* MAX would skip a NaN */
      d = MAX (d, fabs ((double) a[i] - b[i]));
      m = MAX (m, fabs ((double) b[i]));
    }
  return m > 0 ? d / m : d;
}

static double
rel_l2 (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      if (!isfinite (a[i]) || !isfinite (b[i]))
        return INFINITY;
      d += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
      m += (double) b[i] * b[i];
    }
  return m > 0 ? sqrt (d / m) : sqrt (d);
}

/* Products and parallel ART on the fan beam. */
static gboolean
check_fan (CtrCudaSelfCheck *r, GError **error)
{
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, 64);
  g->shape = CTR_DETECTOR_CURVED;
  g->n_cols = 48;
  g->n_rows = 2;
  g->sod_mm = 250;
  g->sdd_mm = 450;
  g->pitch_u = 2 * asin (60.0 / 250) / 48;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 64);
  CtrGrid grid = ctr_grid_square (32, 80.0 / 32, 2, 1.0);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, error);
  if (m == NULL)
    return FALSE;
  g_autoptr (CtrOperator) cpu = ctr_scsr_op_new (m, g, &grid, error);
  g_autoptr (CtrOperator) gpu = cpu ? ctr_cuda_op_new (m, FALSE, g, &grid, error) : NULL;
  if (gpu == NULL)
    return FALSE;
  const gsize ni = cpu->image_size, nd = cpu->data_size;
  g_autofree float *X = g_new (float, ni), *Y = g_new0 (float, nd), *Yc = g_new0 (float, nd);
  g_autofree float *D = g_new (float, ni), *Dc = g_new (float, ni), *x = g_new (float, ctr_grid_size (&grid));
  g_autofree float *y = g_new (float, nd);
  GRand *rnd = g_rand_new_with_seed (7);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    x[i] = (float) g_rand_double_range (rnd, 0, 1);
  g_autofree float *rays = g_new (float, (gsize) 64 * 48 * 2);
  for (gsize i = 0; i < (gsize) 64 * 48 * 2; i++)
    rays[i] = (float) g_rand_double_range (rnd, -1, 1);
  g_rand_free (rnd);
  cpu->klass->image_to_native (cpu, x, X);
  ctr_scsr_rays_to_lanes (m, rays, y, 2);
  if (!gpu->klass->forward (gpu, CTR_SUBSET_ALL, X, Y, error) || !cpu->klass->forward (cpu, CTR_SUBSET_ALL, X, Yc, error)
      || !gpu->klass->adjoint (gpu, CTR_SUBSET_ALL, y, D, error) || !cpu->klass->adjoint (cpu, CTR_SUBSET_ALL, y, Dc, error))
    return FALSE;
  r->forward = max_rel (Y, Yc, nd);
  r->adjoint = max_rel (D, Dc, ni);

  /* parallel ART on the data of x (a mask-free scan) */
  g_autoptr (CtrProjections) p = ctr_projections_new (64, 2, 48, CTR_PROJ_LINE_INTEGRALS, error);
  if (p == NULL)
    return FALSE;
  g_autofree float *yr = g_new (float, (gsize) 64 * 48 * 2);
  ctr_scsr_lanes_to_rays (m, Yc, yr, 2);
  for (guint s = 0; s < 2; s++)
    for (guint v = 0; v < 64; v++)
      memcpy (ctr_projections_view (p, v) + (gsize) ctr_geometry_slice_row (g, s) * 48,
              yr + ((gsize) s * 64 + v) * 48, 48 * sizeof (float));
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.iterations = 3;
  o.nonnegative = TRUE;
  g_autoptr (CtrVolume) vc = ctr_iterate_run (cpu, ctr_solver_class (o.method), NULL, NULL, p, &o, NULL, NULL, NULL,
                                              NULL, NULL, error);
  g_autoptr (CtrVolume) vg = vc ? ctr_iterate_run (gpu, ctr_solver_class (o.method), NULL, NULL, p, &o, NULL, NULL,
                                                   NULL, NULL, NULL, error) : NULL;
  if (vg == NULL)
    return FALSE;
  r->solver = max_rel (vg->data, vc->data, ctr_grid_size (&grid));
  return TRUE;
}

/* The cone beam of the FDK and cone-pair checks: 24 views of 32 × 24 on
 * 16³ voxels of 8 mm. */
static CtrGeometry *
small_cone (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, 24);
  g->shape = CTR_DETECTOR_FLAT;
  g->sod_mm = 600;
  g->sdd_mm = 900;
  g->n_cols = 32;
  g->n_rows = 24;
  g->pitch_u = g->pitch_v_mm = 6.0;
  ctr_geometry_set_uniform_angles (g, 0.2, 2 * G_PI / 24);
  return g;
}

/* Both FDK kernels on a small cone beam. */
static gboolean
check_fdk (CtrCudaSelfCheck *r, GError **error)
{
  g_autoptr (CtrGeometry) g = small_cone ();
  CtrGrid grid = ctr_grid_square (16, 8.0, 16, 8.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (55.0, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, error);
  if (p == NULL)
    return FALSE;
  g_autoptr (CtrVolume) cpu = ctr_fdk_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, error);
  if (cpu == NULL)
    return FALSE;
  for (int k = CTR_CUDA_FDK_L1TRAN; k <= CTR_CUDA_FDK_TEXTURE; k++)
    {
      CtrCudaFdkOptions opt = { (CtrCudaFdkKernel) k, 0, 0 };
      g_autoptr (CtrVolume) gpu = ctr_cuda_fdk_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, &opt, NULL, NULL, error);
      if (gpu == NULL)
        return FALSE;
      const double d = rel_l2 (gpu->data, cpu->data, ctr_grid_size (&grid));
      if (k == CTR_CUDA_FDK_L1TRAN)
        r->fdk_l1tran = d;
      else
        r->fdk_texture = d;
    }
  return TRUE;
}

/* The cone-beam pair's products on the FDK check's scan. */
static gboolean
check_cone (CtrCudaSelfCheck *r, GError **error)
{
  g_autoptr (CtrGeometry) g = small_cone ();
  CtrGrid grid = ctr_grid_square (16, 8.0, 16, 8.0);
  CtrConeProjector *cp = ctr_cone_projector_new (g, &grid, error);
  g_autoptr (CtrOperator) cpu = cp ? ctr_cone_op_new (cp, error) : NULL;
  g_autoptr (CtrOperator) gpu = cpu ? ctr_cuda_cone_op_new (g, &grid, NULL, error) : NULL;
  if (gpu == NULL)
    return FALSE;
  const gsize ni = cpu->image_size, nd = cpu->data_size;
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd);
  g_autofree float *Y = g_new0 (float, nd), *Yc = g_new0 (float, nd), *D = g_new (float, ni), *Dc = g_new (float, ni);
  GRand *rnd = g_rand_new_with_seed (11);
  for (gsize i = 0; i < ni; i++)
    x[i] = (float) g_rand_double_range (rnd, 0, 1);
  for (gsize i = 0; i < nd; i++)
    y[i] = (float) g_rand_double_range (rnd, -1, 1);
  g_rand_free (rnd);
  if (!gpu->klass->forward (gpu, CTR_SUBSET_ALL, x, Y, error) || !cpu->klass->forward (cpu, CTR_SUBSET_ALL, x, Yc, error)
      || !gpu->klass->adjoint (gpu, CTR_SUBSET_ALL, y, D, error)
      || !cpu->klass->adjoint (cpu, CTR_SUBSET_ALL, y, Dc, error))
    return FALSE;
  r->cone_forward = max_rel (Y, Yc, nd);
  r->cone_adjoint = max_rel (D, Dc, ni);
  return TRUE;
}

static CtrCudaSelfCheck result;

static void
run_check (void)
{
  CtrCudaSelfCheck *r = &result;
  memset (r, 0, sizeof *r);
  r->tol_products = TOL_PRODUCTS;
  r->tol_solver = TOL_SOLVER;
  r->tol_fdk_l1tran = TOL_FDK_L1;
  r->tol_fdk_texture = TOL_FDK_TEX;
  r->forward = r->adjoint = r->solver = r->fdk_l1tran = r->fdk_texture = r->cone_forward = r->cone_adjoint = NAN;
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    {
      g_snprintf (r->reason, sizeof r->reason, "%s", e->message);
      return;
    }
  const gint64 t0 = g_get_monotonic_time ();
  r->ran = TRUE;
  if (!check_fan (r, &e) || !check_fdk (r, &e) || !check_cone (r, &e))
    {
      g_snprintf (r->reason, sizeof r->reason, "the self-check could not run on the device: %s", e->message);
      r->seconds = (g_get_monotonic_time () - t0) / 1e6;
      return;
    }
  r->seconds = (g_get_monotonic_time () - t0) / 1e6;
  struct { const char *what; double d, tol; } c[] = {
    { "forward product", r->forward, r->tol_products },
    { "transposed product", r->adjoint, r->tol_products },
    { "parallel ART, 3 iterations", r->solver, r->tol_solver },
    { "FDK, L1-Tran kernel", r->fdk_l1tran, r->tol_fdk_l1tran },
    { "FDK, texture kernel", r->fdk_texture, r->tol_fdk_texture },
    { "cone-beam forward projection", r->cone_forward, r->tol_products },
    { "cone-beam back-projection", r->cone_adjoint, r->tol_products },
  };
  for (guint i = 0; i < G_N_ELEMENTS (c); i++)
    if (!(c[i].d <= c[i].tol))
      {
        g_snprintf (r->reason, sizeof r->reason, "the device's %s differs from the CPU's by %.3g (tolerance %.0e)",
                    c[i].what, c[i].d, c[i].tol);
        return;
      }
  r->passed = TRUE;
}

const CtrCudaSelfCheck *
ctr_cuda_selfcheck (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      run_check ();
      g_once_init_leave (&once, 1);
    }
  return &result;
}

char *
ctr_cuda_selfcheck_report (const CtrCudaSelfCheck *r)
{
  if (!r->ran)
    return g_strdup_printf ("not run: %s", r->reason);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "self-check %s in %.2f s (GPU vs CPU, tolerance in brackets):\n",
                          r->passed ? "passed" : "FAILED", r->seconds);
  g_string_append_printf (s, "  forward product     %.2e  [%.0e]\n", r->forward, r->tol_products);
  g_string_append_printf (s, "  transposed product  %.2e  [%.0e]\n", r->adjoint, r->tol_products);
  g_string_append_printf (s, "  parallel ART (3)    %.2e  [%.0e]\n", r->solver, r->tol_solver);
  g_string_append_printf (s, "  FDK L1-Tran         %.2e  [%.0e]  (relative L2)\n", r->fdk_l1tran, r->tol_fdk_l1tran);
  g_string_append_printf (s, "  FDK texture         %.2e  [%.0e]  (relative L2)\n", r->fdk_texture, r->tol_fdk_texture);
  g_string_append_printf (s, "  cone forward        %.2e  [%.0e]\n", r->cone_forward, r->tol_products);
  g_string_append_printf (s, "  cone transposed     %.2e  [%.0e]", r->cone_adjoint, r->tol_products);
  if (!r->passed)
    g_string_append_printf (s, "\n  %s", r->reason);
  return g_string_free (s, FALSE);
}
