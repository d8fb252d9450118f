/* test-gpu-faults.c — every failable CUDA, cuFFT and cuSPARSE call fails in
 * turn, across every public entry point of the CUDA backend (gpu/), on the
 * emulation harness (tests/gpu-emu; the harness counts the calls and fails
 * the n-th: ctr_emu_fault_arm).  Built on the harness only.
 *
 * For every entry point: one run counts its failable calls (N); then N runs,
 * run i with call i failing.  Each run must end in one of:
 *   error     a GError in CTR_ERROR (BACKEND_UNAVAILABLE or OUT_OF_MEMORY)
 *             whose message names the call that failed;
 *   fallback  success on the CPU with a note (the plan's or the iteration
 *             driver's) that names the call, and the CPU's image;
 *   recovered success on the device by another path (a CUDA graph that
 *             could not be captured: direct launches), with the image of
 *             the run without the fault;
 * and leave nothing behind: device memory, pinned buffers, arrays,
 * textures, streams, events, graphs, cuFFT plans and cuSPARSE objects as
 * before the run (the harness's own accounting, ctr_emu_live).  A capture,
 * end of capture or instantiation that fails must be recovered (defect 8:
 * the cuSPARSE path aborted the iteration instead).
 *
 * Tolerances of the comparisons are those of test-gpu.c / test-gpu-fdk.c
 * (products 1e-5, solvers 1e-4 of the maximum, FDK 1e-3 relative L2 with
 * L1-Tran, 1e-2 with the texture).
 *
 * The problems are as small as the paths allow: the fault paths do not
 * depend on size, the cost of the runs does (each run replays the emulated
 * kernels up to its failing call; under ASan every CUDA thread is an
 * instrumented fiber).  A fan beam of 16 views (D4: two orbits, so the
 * loops over orbit subsets run more than once) × 6 columns × 2 rows, an
 * 8² × 2 image, 2 iterations (a device failure after the first report must
 * end in an error); FDK in 3 view batches, the last partial, and 3 slabs.
 * The cone-beam pair (ctr-cuda-cone.c) on 16 views of 6 × 5 (whole passes
 * in the transposed layout): its products, and SIRT and SART through the
 * plan, 2 iterations each; PWLS, CGLS and ASD-POCS (3 TV steps), which keep
 * their vectors on the device (ctr-cuda-cone-vecops.c), on 4 of the views
 * (SART and PWLS with reports of one slice: CTR_REPORT_SLICE);
 * the fan beam's CGLS, PWLS and ASD-POCS on the SCSR operator's device
 * vectors (ctr-cuda-scsr-vecops.c), and PWLS and ASD-POCS again with the
 * host's vectors (CTR_VECOPS=host: the operator's host-array steps);
 * split (ctr-cuda-cone-split.c): products and a SART step in 2 slabs × 4
 * view chunks, SIRT through the plan on a device capped to 2 slabs.
 * The on-the-fly pair (ctr-cuda-fly.cu, issue 37): its products, and the
 * six methods through the plan with no stored matrix (PART, SART, SIRT as
 * device passes; CGLS, PWLS and ASD-POCS, 3 TV steps, on its device
 * vectors).
 * The metrics against a reference measured on the device (issue 37):
 * CGLS on the cone pair with a reference on 12² × 2 voxels (SSIM's window
 * needs 11²), reporting one slice, its image and metrics against the CPU's.
 * The counting run records each call's call stack (ctr_emu_fault_site):
 * the entry points' counts are printed by the counting run (5,505 calls
 * with SIRT and CGLS reporting three planes; 5,497
 * over 36 entry points with the metrics' entry; 5,328 over 35 with the
 * on-the-fly pair at stop 37; 2,115 call
 * stacks over 28 entry points with the SCSR operator's device vectors and
 * its two host-vector entries; 1,497 call
 * stacks over 24 entry points with the split pair alone, 1,519 over 24
 * with the device vectors alone; 1,284 over 22 before both; 1,075 over
 * 18 before the cone pair; ASan's sm_80 atomics take other paths; 888 before CGLS, PWLS
 * and ASD-POCS ran on the operator's device products, the same on this
 * problem as on the larger one used before), and every call fails
 * in turn, so each call stack fails at least once; the output gives calls,
 * call stacks and runs.  --sites-once fails only the first call at each
 * call stack: a quick check, not CI's (it skips the second iteration's
 * failures, the ones that must end in an error).
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-blocking.h"
#include "plan/ctr-backend.h"
#include "ctr-cuda.h"
#include "ctr-cuda-fdk.h"
#include "ctr-cuda-cone.h"
#include "ctr-cuda-cone-split.h"
#include "ctr-cuda-fly.h"
#include "ctr-emu.h"
#include "sysmat/ctr-cone-op.h"
#include "sim/ctr-phantom3d.h"
#include "ctr-test-solve.h"
#include "sysmat/ctr-scsr.h"

/* the methods the plan entry points run, in the order of fx.cpu */
static const CtrMethod fault_methods[] = { CTR_METHOD_PART, CTR_METHOD_SART, CTR_METHOD_SIRT,
                                           CTR_METHOD_CGLS, CTR_METHOD_PWLS, CTR_METHOD_ASD_POCS };

typedef struct {
  /* fan beam, D4 */
  CtrGeometry *g;
  CtrGrid grid;
  CtrScsr *m;
  CtrSysmat *a;
  CtrProjections *p;
  float *x, *y;                 /* random image and data for the products */
  float *ax_cpu, *aty_cpu;
  CtrVolume *cpu[6];            /* CPU images of fault_methods[] */
  CtrVolume *fly_cpu[6];        /* the same with no stored matrix (cpu-fly) */
  /* cone beam */
  CtrGeometry *gc;
  CtrGrid gridc;
  CtrProjections *pc;
  CtrVolume *fdk_cpu;
  /* the run */
  char *note;                   /* a fall-back's note, when one was made */
  gboolean recovered_ok;
} Fix;

static Fix fx;

/* The fan-beam problem: NV views of NC detector columns and NS rows, an
 * NX × NX × NS image (D4: order 8, NV / 8 orbits; see the top). */
enum { NV = 16, NC = 6, NS = 2, NX = 8, NP = NX * NX * NS, NR = NV * NC * NS };

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
  return sqrt (d / m);
}

/* A result that came back must be right; FALSE with a message otherwise. */
static gboolean
check_close (double diff, double tol, const char *what, GError **error)
{
  if (diff <= tol)
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "WRONG RESULT: %s differs by %.3g (tolerance %.0e)", what, diff, tol);
  return FALSE;
}

static void
setup (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, NV);
  g->shape = CTR_DETECTOR_CURVED;
  g->n_cols = NC;
  g->n_rows = NS;
  g->sod_mm = 250;
  g->sdd_mm = 450;
  g->pitch_u = 2 * asin (40.0 / 250) / NC;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / NV);
  fx.g = g;
  fx.grid = ctr_grid_square (NX, 50.0 / NX, NS, 1.0);
  fx.m = ctr_scsr_build (g, &fx.grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  fx.a = ctr_sysmat_build (g, &fx.grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_assert_cmpuint (ctr_scsr_order (fx.m), ==, 8);
  fx.x = g_new (float, NP);
  fx.y = g_new (float, NR);
  GRand *r = g_rand_new_with_seed (5);
  for (gsize i = 0; i < NP; i++)
    fx.x[i] = (float) g_rand_double_range (r, 0, 1);
  for (gsize i = 0; i < NR; i++)
    fx.y[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
  fx.ax_cpu = g_new (float, NR);
  fx.aty_cpu = g_new (float, NP);
  g_assert_true (ctr_scsr_apply (fx.m, fx.x, fx.ax_cpu, NS, NULL));
  g_assert_true (ctr_scsr_apply_adjoint (fx.m, fx.y, fx.aty_cpu, NS, NULL));
  fx.p = ctr_projections_new (NV, NS, NC, CTR_PROJ_LINE_INTEGRALS, NULL);
  g_autofree float *ys = g_new (float, NV * NC);
  for (guint s = 0; s < NS; s++)
    {
      ctr_sysmat_apply (fx.a, fx.x + NX * NX * s, ys, 1);
      for (guint v = 0; v < NV; v++)
        memcpy (ctr_projections_view (fx.p, v) + (gsize) ctr_geometry_slice_row (g, s) * NC, ys + v * NC, NC * sizeof (float));
    }
  for (guint k = 0; k < G_N_ELEMENTS (fault_methods); k++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, fault_methods[k]);
      o.ray_model = CTR_RAY_MODEL_AREA;   /* fx.m's (PWLS's own default is Joseph) */
      o.iterations = 2;
      o.nonnegative = TRUE;
      g_autoptr (GError) e = NULL;
      fx.cpu[k] = test_run_scsr (fx.m, g, fx.p, &fx.grid, &o, NULL, NULL, NULL, NULL, &e);
      g_assert_no_error (e);
      o.backend = "cpu";
      o.matrix = CTR_MATRIX_NONE;
      o.tv_iterations = 3;
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &fx.grid, &o, NULL, &e);
      g_assert_no_error (e);
      fx.fly_cpu[k] = ctr_recon_plan_execute (plan, fx.p, NULL, NULL, NULL, NULL, &e);
      g_assert_no_error (e);
    }
  /* cone beam: 10 views of a 16 × 12 panel, a 10³ volume */
  fx.gc = ctr_geometry_new (CTR_BEAM_CONE, 10);
  fx.gc->shape = CTR_DETECTOR_FLAT;
  fx.gc->sod_mm = 500;
  fx.gc->sdd_mm = 800;
  fx.gc->n_cols = 16;
  fx.gc->n_rows = 12;
  fx.gc->pitch_u = fx.gc->pitch_v_mm = 8.0;
  ctr_geometry_set_uniform_angles (fx.gc, 0.1, 2 * G_PI / 10);
  fx.gridc = ctr_grid_square (10, 6.0, 10, 6.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (30.0, 0.02);
  fx.pc = ctr_phantom3d_project (ph, fx.gc, 1, NULL);
  g_autoptr (GError) e = NULL;
  fx.fdk_cpu = ctr_fdk_run (fx.gc, fx.pc, &fx.gridc, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &e);
  g_assert_no_error (e);
}

/* ------------------------------------------------------ entry points -- */

static gboolean
e_device_query (GError **error)
{
  CtrCudaDeviceInfo info;
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaStatus st = ctr_cuda_device_query (&info, err);
  if (st == CTR_CUDA_OK)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", err);
  return FALSE;
}

static gboolean
e_scsr_apply (GError **error)
{
  g_autofree float *y = g_new (float, NR);
  return ctr_cuda_scsr_apply (fx.m, fx.x, y, NS, error)
         && check_close (max_rel (y, fx.ax_cpu, NR), 1e-5, "A x", error);
}

static gboolean
e_scsr_adjoint (GError **error)
{
  g_autofree float *x = g_new (float, NP);
  return ctr_cuda_scsr_apply_adjoint (fx.m, fx.y, x, NS, error)
         && check_close (max_rel (x, fx.aty_cpu, NP), 1e-5, "A'y", error);
}

static gboolean
e_scsr_blocked (GError **error)
{
  g_autofree float *y = g_new (float, NR);
  g_autofree float *x = g_new (float, NP);
  return ctr_cuda_scsr_apply_blocked (fx.m, fx.x, y, NS, error)
         && check_close (max_rel (y, fx.ax_cpu, NR), 1e-5, "blocked A x", error)
         && ctr_cuda_scsr_apply_adjoint_blocked (fx.m, fx.y, x, NS, error)
         && check_close (max_rel (x, fx.aty_cpu, NP), 1e-5, "blocked A'y", error);
}

static gboolean
e_csr_apply (GError **error)
{
  g_autofree float *y = g_new (float, NR);
  return ctr_cuda_csr_apply (fx.a, fx.x, y, NS, error)
         && check_close (max_rel (y, fx.ax_cpu, NR), 1e-5, "cuSPARSE A x", error);
}

static gboolean
e_csr_adjoint (GError **error)
{
  g_autofree float *x = g_new (float, NP);
  return ctr_cuda_csr_apply_adjoint (fx.a, fx.y, x, NS, error)
         && check_close (max_rel (x, fx.aty_cpu, NP), 1e-5, "cuSPARSE A'y", error);
}

static void
count_reports (const CtrIterStats *s, gpointer data)
{
  (*(guint *) data)++;
  g_assert_true (isfinite (s->residual));
}

/* The plan on backend @backend: a device failure before the first report
 * falls back to the CPU with a note; after it, the run fails. */
static gboolean
plan_run_matrix (const char *backend, CtrMethod method, CtrMatrixFormat matrix, GError **error)
{
  CtrReconOptions o;
  ctr_recon_options_init (&o, method);
  o.iterations = 2;
  o.nonnegative = TRUE;
  o.ray_model = CTR_RAY_MODEL_AREA;
  o.backend = backend;
  o.matrix = matrix;
  if (matrix == CTR_MATRIX_NONE)
    o.tv_iterations = 3;   /* the TV steps are the shared table's, counted on the SCSR entries */
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (fx.g, &fx.grid, &o, NULL, error);
  if (plan == NULL)
    return FALSE;
  guint reports = 0;
  g_autoptr (CtrVolume) v = ctr_recon_plan_execute (plan, fx.p, NULL, count_reports, &reports, NULL, error);
  if (v == NULL)
    return FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    if (strstr (*n, "instead") || strstr (*n, "could not"))
      fx.note = g_strdup (*n);
  guint k = 0;
  while (fault_methods[k] != method)
    k++;
  /* ASD-POCS's adaptive TV steps amplify rounding (test-gpu.c, methods) */
  const CtrVolume *ref = matrix == CTR_MATRIX_NONE ? fx.fly_cpu[k] : fx.cpu[k];
  return check_close (max_rel (v->data, ref->data, NP), method == CTR_METHOD_ASD_POCS ? 1e-2 : 1e-4,
                      "the plan's image", error);
}

static gboolean
plan_run (const char *backend, CtrMethod method, GError **error)
{
  return plan_run_matrix (backend, method, CTR_MATRIX_AUTO, error);
}

/* The GPU's on-the-fly pair (ctr-cuda-fly.cu): its products on host arrays. */
static gboolean
e_fly_products (GError **error)
{
  CtrSymmetry *sy = ctr_symmetry_find (fx.g, &fx.grid, CTR_SYM_ALL, NULL);
  CtrCudaFly *f = ctr_cuda_fly_new (fx.g, &fx.grid, CTR_RAY_MODEL_AREA, sy, error);
  ctr_symmetry_free (sy);
  if (f == NULL)
    return FALSE;
  g_autofree float *y = g_new0 (float, NR), *x = g_new (float, NP), *y_cpu = g_new (float, NR);
  g_autofree float *x_cpu = g_new (float, NP);
  /* the SCSR lanes' order is not the on-the-fly operator's [slice][view][col]:
   * the CSR matrix's rows are */
  for (guint s = 0; s < NS; s++)
    {
      ctr_sysmat_apply (fx.a, fx.x + NX * NX * s, y_cpu + (gsize) s * NV * NC, 1);
      ctr_sysmat_apply_adjoint (fx.a, fx.y + (gsize) s * NV * NC, x_cpu + NX * NX * s, 1);
    }
  const gboolean ok = ctr_cuda_fly_forward_host (f, CTR_SUBSET_ALL, fx.x, y, error)
                      && check_close (max_rel (y, y_cpu, NR), 1e-5, "on-the-fly A x", error)
                      && ctr_cuda_fly_adjoint_host (f, CTR_SUBSET_ALL, fx.y, x, error)
                      && check_close (max_rel (x, x_cpu, NP), 1e-5, "on-the-fly A'y", error);
  ctr_cuda_fly_destroy (f);
  return ok;
}

static gboolean e_fly_part (GError **error) { return plan_run_matrix ("cuda", CTR_METHOD_PART, CTR_MATRIX_NONE, error); }
static gboolean e_fly_sart (GError **error) { return plan_run_matrix ("cuda", CTR_METHOD_SART, CTR_MATRIX_NONE, error); }
static gboolean e_fly_sirt (GError **error) { return plan_run_matrix ("cuda", CTR_METHOD_SIRT, CTR_MATRIX_NONE, error); }
static gboolean e_fly_cgls (GError **error) { return plan_run_matrix ("cuda", CTR_METHOD_CGLS, CTR_MATRIX_NONE, error); }
static gboolean e_fly_pwls (GError **error) { return plan_run_matrix ("cuda", CTR_METHOD_PWLS, CTR_MATRIX_NONE, error); }
static gboolean
e_fly_asd_pocs (GError **error)
{
  return plan_run_matrix ("cuda", CTR_METHOD_ASD_POCS, CTR_MATRIX_NONE, error);
}

static gboolean e_plan_part (GError **error) { return plan_run ("cuda", CTR_METHOD_PART, error); }
static gboolean e_plan_sart (GError **error) { return plan_run ("cuda", CTR_METHOD_SART, error); }
static gboolean e_plan_sirt (GError **error) { return plan_run ("cuda", CTR_METHOD_SIRT, error); }
static gboolean e_plan_cusparse (GError **error) { return plan_run ("cusparse", CTR_METHOD_PART, error); }
static gboolean e_plan_cgls (GError **error) { return plan_run ("cuda", CTR_METHOD_CGLS, error); }
static gboolean e_plan_pwls (GError **error) { return plan_run ("cuda", CTR_METHOD_PWLS, error); }
static gboolean e_plan_asd_pocs (GError **error) { return plan_run ("cuda", CTR_METHOD_ASD_POCS, error); }

/* The same with the host's vectors (CTR_VECOPS=host): the operator's
 * products and subset steps with host arrays (ctr-cuda.c). */
static gboolean
plan_run_host_vectors (CtrMethod method, GError **error)
{
  g_setenv ("CTR_VECOPS", "host", TRUE);
  gboolean ok = plan_run ("cuda", method, error);
  g_unsetenv ("CTR_VECOPS");
  return ok;
}

static gboolean e_plan_pwls_host (GError **error) { return plan_run_host_vectors (CTR_METHOD_PWLS, error); }
static gboolean e_plan_asd_pocs_host (GError **error) { return plan_run_host_vectors (CTR_METHOD_ASD_POCS, error); }

static gboolean
e_plan_part_blocked (GError **error)
{
  g_setenv ("CTR_CUDA_KERNEL", "blocked", TRUE);
  gboolean ok = plan_run ("cuda", CTR_METHOD_PART, error);
  g_unsetenv ("CTR_CUDA_KERNEL");
  return ok;
}

/* The operator's own products (the driver's residual when a pass gives none). */
static gboolean
e_op_products (GError **error)
{
  g_autoptr (CtrOperator) op = ctr_cuda_op_new (fx.m, FALSE, fx.g, &fx.grid, error);
  if (op == NULL)
    return FALSE;
  g_autofree float *X = g_new (float, op->image_size), *Y = g_new0 (float, op->data_size);
  g_autofree float *D = g_new (float, op->image_size), *x = g_new (float, NP);
  g_autofree float *yr = g_new (float, NR);
  op->klass->image_to_native (op, fx.x, X);
  if (!op->klass->forward (op, CTR_SUBSET_ALL, X, Y, error))
    return FALSE;
  ctr_scsr_lanes_to_rays (fx.m, Y, yr, NS);
  if (!check_close (max_rel (yr, fx.ax_cpu, NR), 1e-5, "operator forward", error))
    return FALSE;
  ctr_scsr_rays_to_lanes (fx.m, fx.y, Y, NS);
  if (!op->klass->adjoint (op, CTR_SUBSET_ALL, Y, D, error))
    return FALSE;
  op->klass->image_from_native (op, D, x);
  return check_close (max_rel (x, fx.aty_cpu, NP), 1e-5, "operator adjoint", error);
}

static gboolean
fdk_direct (CtrCudaFdkKernel k, GError **error)
{
  /* batches of 4 views (3 batches, the last partial), slabs of 4 slices */
  CtrCudaFdkOptions opt = { k, 4, 4 };
  g_autoptr (CtrVolume) v = ctr_cuda_fdk_run (fx.gc, fx.pc, &fx.gridc, CTR_FILTER_RAM_LAK, 1.0, &opt, NULL, NULL, error);
  if (v == NULL)
    return FALSE;
  return check_close (rel_l2 (v->data, fx.fdk_cpu->data, 1000), k == CTR_CUDA_FDK_L1TRAN ? 1e-3 : 1e-2, "FDK", error);
}

static gboolean e_fdk_l1tran (GError **error) { return fdk_direct (CTR_CUDA_FDK_L1TRAN, error); }
static gboolean e_fdk_texture (GError **error) { return fdk_direct (CTR_CUDA_FDK_TEXTURE, error); }

static gboolean
e_plan_fdk (GError **error)
{
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  o.backend = "cuda";
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (fx.gc, &fx.gridc, &o, NULL, error);
  if (plan == NULL)
    return FALSE;
  g_autoptr (CtrVolume) v = ctr_recon_plan_execute (plan, fx.pc, NULL, NULL, NULL, NULL, error);
  if (v == NULL)
    return FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    if (strstr (*n, "could not"))
      fx.note = g_strdup (*n);
  return check_close (rel_l2 (v->data, fx.fdk_cpu->data, 1000), 1e-2, "the plan's FDK", error);
}

/* The cone-beam pair (ctr-cuda-cone.c): 16 views, so whole passes take
 * the transposed layout (when on: the default), of 6 × 5 on 6 × 5 × 4
 * voxels; the methods with device vectors (PWLS, CGLS, ASD-POCS: their
 * calls are per view, and every call fails in turn) on 4 of those views;
 * the CPU images made once. */
#define CONE_VIEWS 16
static CtrGeometry *cone_g, *cone_g4;
static CtrGrid cone_grid = { 6, 5, 4, 9.0, 9.5, 8.0, 0.5, -0.3, 0.2 };
static CtrProjections *cone_p, *cone_p4;
#define CONE_METHODS 5
static CtrVolume *cone_cpu[CONE_METHODS];
static const CtrMethod cone_methods[CONE_METHODS] = { CTR_METHOD_SIRT, CTR_METHOD_SART, CTR_METHOD_PWLS,
                                                      CTR_METHOD_CGLS, CTR_METHOD_ASD_POCS };

static CtrVolume *
cone_plan (const char *backend, guint k, GError **error)
{
  const gboolean few = k >= 2;
  CtrReconOptions o;
  ctr_recon_options_init (&o, cone_methods[k]);
  o.iterations = 2;
  o.tv_iterations = 3;   /* ASD-POCS: each TV step is the same calls */
  o.backend = backend;
  /* SART and PWLS report one slice (their first report copies back only
   * that part: the pass's and the vector table's download_part), SIRT and
   * CGLS the three planes through a voxel (the pass's and the vector
   * table's download_runs: pitched copies); ASD-POCS the volume */
  o.report_image = k == 1 || k == 2 ? CTR_REPORT_SLICE : k == 0 || k == 3 ? CTR_REPORT_PLANES : CTR_REPORT_VOLUME;
  o.report_slice = 1;
  o.report_x = 2;
  o.report_y = 3;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (few ? cone_g4 : cone_g, &cone_grid, &o, NULL, error);
  if (plan == NULL)
    return NULL;
  guint reports = 0;
  CtrVolume *v = ctr_recon_plan_execute (plan, few ? cone_p4 : cone_p, NULL, count_reports, &reports, NULL, error);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); v != NULL && *n; n++)
    if (strstr (*n, "instead") || strstr (*n, "could not") || strstr (*n, "the CPU runs"))
      fx.note = g_strdup (*n);
  return v;
}

static CtrGeometry *
cone_geometry (guint views)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->sod_mm = 200;
  g->sdd_mm = 300;
  g->n_cols = 6;
  g->n_rows = 5;
  g->pitch_u = g->pitch_v_mm = 15.0;
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / views);
  return g;
}

static void
cone_setup (void)
{
  cone_g = cone_geometry (CONE_VIEWS);
  cone_g4 = cone_geometry (4);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0, 0, 0, 18.0, 12.0, 0.02);
  cone_p = ctr_phantom3d_project (ph, cone_g, 1, NULL);
  cone_p4 = ctr_phantom3d_project (ph, cone_g4, 1, NULL);
  g_assert_nonnull (cone_p);
  g_assert_nonnull (cone_p4);
  for (guint k = 0; k < CONE_METHODS; k++)
    {
      g_autoptr (GError) e = NULL;
      cone_cpu[k] = cone_plan ("cpu", k, &e);
      g_assert_no_error (e);
    }
}

/* The CPU cone pair of the test's scan, and a fixed image @x and data @y
 * for @op (new arrays, g_free). */
static CtrOperator *
cone_cpu_pair (const CtrOperator *op, float **x, float **y)
{
  const gsize ni = op->image_size, nd = op->data_size;
  *x = g_new (float, ni);
  *y = g_new (float, nd);
  for (gsize i = 0; i < ni; i++)
    (*x)[i] = (float) ((i * 37) % 11) / 11.0f;
  for (gsize i = 0; i < nd; i++)
    (*y)[i] = (float) ((i * 13) % 7) / 7.0f - 0.4f;
  return ctr_cone_op_new (ctr_cone_projector_new (cone_g, &cone_grid, NULL), NULL);
}

/* @op's forward and adjoint products of @x and @y against @cpu's (1e-5);
 * @what names @op in the message. */
static gboolean
cone_products_match (CtrOperator *op, CtrOperator *cpu, const float *x, const float *y, const char *what,
                     GError **error)
{
  const gsize ni = op->image_size, nd = op->data_size;
  g_autofree float *Y = g_new0 (float, nd), *Yc = g_new0 (float, nd);
  g_autofree float *D = g_new (float, ni), *Dc = g_new (float, ni);
  if (!op->klass->forward (op, CTR_SUBSET_ALL, x, Y, error) || !op->klass->adjoint (op, CTR_SUBSET_ALL, y, D, error))
    return FALSE;
  cpu->klass->forward (cpu, CTR_SUBSET_ALL, x, Yc, NULL);
  cpu->klass->adjoint (cpu, CTR_SUBSET_ALL, y, Dc, NULL);
  g_autofree char *fwd = g_strdup_printf ("%s forward", what), *adj = g_strdup_printf ("%s adjoint", what);
  return check_close (max_rel (Y, Yc, nd), 1e-5, fwd, error) && check_close (max_rel (D, Dc, ni), 1e-5, adj, error);
}

/* The cone operator's products against the CPU pair's. */
static gboolean
e_cone_products (GError **error)
{
  g_autoptr (CtrOperator) op = ctr_cuda_cone_op_new (cone_g, &cone_grid, NULL, error);
  if (op == NULL)
    return FALSE;
  g_autofree float *x = NULL, *y = NULL;
  g_autoptr (CtrOperator) cpu = cone_cpu_pair (op, &x, &y);
  return cone_products_match (op, cpu, x, y, "cone", error);
}

static gboolean
cone_plan_check (guint k, GError **error)
{
  g_autoptr (CtrVolume) v = cone_plan ("cuda", k, error);
  if (v == NULL)
    return FALSE;
  return check_close (max_rel (v->data, cone_cpu[k]->data, ctr_grid_size (&cone_grid)), 1e-4, "the cone plan's image",
                      error);
}

/* The split pair (ctr-cuda-cone-split.c): 2 slabs × 4 chunks of 4 views
 * (the chunked paths), products against the CPU pair's. */
static gboolean
e_cone_split_products (GError **error)
{
  CtrCudaConeFit fit = { .split = TRUE, .n_slabs = 2, .slab_nz = 2, .n_chunks = 4, .chunk_views = 4,
                         .transposed = TRUE };
  g_autoptr (CtrOperator) op = ctr_cuda_cone_split_op_new (cone_g, &cone_grid, NULL, &fit, error);
  if (op == NULL)
    return FALSE;
  g_autofree float *x = NULL, *y = NULL;
  g_autoptr (CtrOperator) cpu = cone_cpu_pair (op, &x, &y);
  const gsize ni = op->image_size;
  if (!cone_products_match (op, cpu, x, y, "split cone", error))
    return FALSE;
  /* SART's step on one view (its column sums on the device too) */
  g_autofree float *X = g_memdup2 (x, ni * sizeof (float)), *Xc = g_memdup2 (x, ni * sizeof (float));
  const CtrUpdateFlags f = CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG;
  if (!op->klass->update (op, 5, X, y, y, 0.5f, NULL, f, error))
    return FALSE;
  cpu->klass->update (cpu, 5, Xc, y, y, 0.5f, NULL, f, NULL);
  return check_close (max_rel (X, Xc, ni), 1e-5, "split cone SART step", error);
}

/* SIRT and CGLS through the plan on a device capped to 2 slabs of every
 * view (16: the transposed layout in each slab): the memory plan's device
 * query, the split's set-up, products and steps. */
static gboolean
cone_split_plan_check (guint k, GError **error)
{
  CtrCudaConeFit f;
  g_assert_true (ctr_cuda_cone_fit (cone_g, &cone_grid, FALSE, G_MAXUINT64 - 1, &f, NULL));
  ctr_cuda_cone_set_memory_cap (ctr_cuda_cone_split_bytes (cone_g, &cone_grid, FALSE, f.transposed, FALSE,
                                                           cone_grid.nz / 2, CONE_VIEWS));
  g_autoptr (CtrVolume) v = cone_plan ("cuda", k, error);
  ctr_cuda_cone_set_memory_cap (0);
  if (v == NULL)
    return FALSE;
  return check_close (max_rel (v->data, cone_cpu[k]->data, ctr_grid_size (&cone_grid)), 1e-4,
                      "the split cone plan's image", error);
}

static gboolean e_cone_split_sirt (GError **error) { return cone_split_plan_check (0, error); }

static gboolean e_cone_sirt (GError **error) { return cone_plan_check (0, error); }
static gboolean e_cone_sart (GError **error) { return cone_plan_check (1, error); }
static gboolean e_cone_pwls (GError **error) { return cone_plan_check (2, error); }
static gboolean e_cone_cgls (GError **error) { return cone_plan_check (3, error); }
static gboolean e_cone_asd_pocs (GError **error) { return cone_plan_check (4, error); }

/* CGLS with a reference on the cone pair's device vectors, reporting one
 * slice: the metrics measured on the device (ctr-cuda-quality.cu; issue
 * 37), the reference's upload and each measurement failing in turn; on
 * 12² × 2 voxels (SSIM's window needs 11²) of the 4 views.  The image and
 * the last report's metrics must be the CPU's (1e-4 relative). */
static CtrGrid cone_grid_q = { 12, 12, 2, 4.0, 4.0, 8.0, 0.5, -0.3, 0.2 };
static CtrVolume *cone_q_ref;

static void
last_quality (const CtrIterStats *s, gpointer data)
{
  CtrQuality *q = data;
  g_assert_true (isfinite (s->residual) && s->has_reference);
  *q = (CtrQuality) { s->rmse, s->psnr, s->ssim };
}

static CtrVolume *
cone_metrics_plan (const char *backend, CtrQuality *q, GError **error)
{
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_CGLS);
  o.iterations = 2;
  o.backend = backend;
  o.report_image = CTR_REPORT_SLICE;
  o.metrics_radius_mm = 20.0;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (cone_g4, &cone_grid_q, &o, NULL, error);
  if (plan == NULL)
    return NULL;
  if (cone_q_ref == NULL)
    {
      cone_q_ref = ctr_volume_new (&cone_grid_q, NULL);
      for (gsize i = 0; i < ctr_grid_size (&cone_grid_q); i++)
        cone_q_ref->data[i] = (float) ((i * 5) % 13) / 13.0f * 0.02f;
    }
  CtrVolume *v = ctr_recon_plan_execute (plan, cone_p4, cone_q_ref, last_quality, q, NULL, error);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); v != NULL && *n; n++)
    if (strstr (*n, "instead") || strstr (*n, "could not") || strstr (*n, "the CPU runs"))
      fx.note = g_strdup (*n);
  return v;
}

static gboolean
e_cone_metrics (GError **error)
{
  static CtrVolume *cpu;
  static CtrQuality cq;
  if (cpu == NULL)
    {
      cpu = cone_metrics_plan ("cpu", &cq, NULL);   /* no device call */
      g_assert_nonnull (cpu);
    }
  CtrQuality q;
  g_autoptr (CtrVolume) v = cone_metrics_plan ("cuda", &q, error);
  if (v == NULL)
    return FALSE;
  const double dq = MAX (fabs (q.rmse - cq.rmse) / cq.rmse,
                         MAX (fabs (q.psnr - cq.psnr) / fabs (cq.psnr), fabs (q.ssim - cq.ssim) / fabs (cq.ssim)));
  return check_close (max_rel (v->data, cpu->data, ctr_grid_size (&cone_grid_q)), 1e-4, "the cone plan's image", error)
         && check_close (isfinite (dq) ? dq : INFINITY, 1e-4, "the cone plan's metrics", error);
}

typedef struct {
  const char *name;
  gboolean (*fn) (GError **error);
} Entry;

static const Entry entries[] = {
  { "ctr_cuda_device_query", e_device_query },
  { "ctr_cuda_scsr_apply", e_scsr_apply },
  { "ctr_cuda_scsr_apply_adjoint", e_scsr_adjoint },
  { "ctr_cuda_scsr_apply_blocked", e_scsr_blocked },
  { "ctr_cuda_csr_apply", e_csr_apply },
  { "ctr_cuda_csr_apply_adjoint", e_csr_adjoint },
  { "cuda operator forward/adjoint", e_op_products },
  { "plan part (cuda)", e_plan_part },
  { "plan sart (cuda)", e_plan_sart },
  { "plan sirt (cuda)", e_plan_sirt },
  { "plan part (cusparse)", e_plan_cusparse },
  { "plan cgls (cuda scsr: device vectors)", e_plan_cgls },
  { "plan pwls (cuda scsr: device vectors, accumulated steps)", e_plan_pwls },
  { "plan asd-pocs (cuda scsr: device vectors, scaled subset steps)", e_plan_asd_pocs },
  { "plan pwls (cuda scsr: host vectors, operator's accumulated steps)", e_plan_pwls_host },
  { "plan asd-pocs (cuda scsr: host vectors, operator's scaled steps)", e_plan_asd_pocs_host },
  { "plan part (cuda, orbit-level blocked)", e_plan_part_blocked },
  { "ctr_cuda_fdk_run l1tran", e_fdk_l1tran },
  { "ctr_cuda_fdk_run texture", e_fdk_texture },
  { "plan fdk (cuda)", e_plan_fdk },
  { "cuda cone operator forward/adjoint", e_cone_products },
  { "plan sirt (cuda cone: device passes)", e_cone_sirt },
  { "plan sart (cuda cone: device passes)", e_cone_sart },
  { "plan pwls (cuda cone: device vectors)", e_cone_pwls },
  { "plan cgls (cuda cone: device vectors)", e_cone_cgls },
  { "plan asd-pocs (cuda cone: device vectors)", e_cone_asd_pocs },
  { "cuda cone split forward/adjoint (slabs and chunks)", e_cone_split_products },
  { "plan sirt (cuda cone split: host products)", e_cone_split_sirt },
  { "cuda on-the-fly pair forward/adjoint", e_fly_products },
  { "plan part (cuda fly: device passes)", e_fly_part },
  { "plan sart (cuda fly: device passes)", e_fly_sart },
  { "plan sirt (cuda fly: device passes)", e_fly_sirt },
  { "plan cgls (cuda fly: device vectors)", e_fly_cgls },
  { "plan pwls (cuda fly: device vectors)", e_fly_pwls },
  { "plan asd-pocs (cuda fly: device vectors)", e_fly_asd_pocs },
  { "plan cgls with a reference (cuda cone: metrics on the device)", e_cone_metrics },
};

/* The message names the call that failed (a launch is checked with
 * cudaGetLastError). */
static gboolean
names_call (const char *msg, const char *call)
{
  if (strcmp (call, "kernel launch") == 0)
    return strstr (msg, "cudaGetLastError") != NULL || strstr (msg, "launch") != NULL;
  return strstr (msg, call) != NULL;
}

static gboolean
is_capture_call (const char *call)
{
  return strcmp (call, "cudaStreamBeginCapture") == 0 || strcmp (call, "cudaStreamEndCapture") == 0
         || strcmp (call, "cudaGraphInstantiate") == 0;
}

/* The calls of the last counting run (1 … @n) by call stack (recorded since
 * ctr_emu_fault_record_sites (1), which this ends): @first[i] is TRUE for
 * the first call at its stack.  Returns the number of call stacks. */
static guint
call_sites (unsigned long long n, gboolean *first)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (unsigned long long i = 1; i <= n; i++)
    {
      gint64 *h = g_new (gint64, 1);
      *h = (gint64) ctr_emu_fault_site (i);
      g_assert_cmpint (*h, !=, 0);
      first[i] = g_hash_table_add (seen, h);
    }
  ctr_emu_fault_record_sites (0);
  return g_hash_table_size (seen);
}

static gboolean sites_once;   /* --sites-once: fail only the first call at each call stack */
static guint total_calls, total_sites, total_runs, total_errors, total_fallbacks, total_recovered;

static void
test_entry (gconstpointer data)
{
  const Entry *en = data;
  CtrEmuLive before, after;
  ctr_emu_live (&before);
  ctr_emu_fault_record_sites (1);
  ctr_emu_fault_arm (0);
  g_autoptr (GError) e0 = NULL;
  g_clear_pointer (&fx.note, g_free);
  const gboolean ok0 = en->fn (&e0);
  g_assert_no_error (e0);
  g_assert_true (ok0);
  const unsigned long long n = ctr_emu_fault_calls ();
  g_assert_cmpuint (n, >, 0);
  g_autofree gboolean *first = g_new0 (gboolean, n + 1);
  const guint n_sites = call_sites (n, first);
  guint errors = 0, fallbacks = 0, recovered = 0, runs = 0;
  for (unsigned long long i = 1; i <= n; i++)
    {
      if (sites_once && !first[i])
        continue;
      runs++;
      g_clear_pointer (&fx.note, g_free);
      ctr_emu_live (&before);
      ctr_emu_fault_arm (i);
      GError *e = NULL;
      const gboolean ok = en->fn (&e);
      const char *call = ctr_emu_fault_fired ();
      ctr_emu_fault_arm (0);
      ctr_emu_live (&after);
      char diff[512];
      if (ctr_emu_live_diff (&before, &after, diff, sizeof diff) != 0)
        g_error ("%s, call %llu (%s) failing: leaked %s", en->name, i, call ? call : "?", diff);
      if (call == NULL)
        g_error ("%s: call %llu of %llu was not reached with the fault armed", en->name, i, n);
      if (!ok)
        {
          if (!g_error_matches (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE)
              && !g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
            g_error ("%s, call %llu (%s) failing: %s (%s %d)", en->name, i, call, e->message,
                     g_quark_to_string (e->domain), e->code);
          if (!names_call (e->message, call))
            g_error ("%s, call %llu (%s) failing: the error does not name it: %s", en->name, i, call, e->message);
          if (is_capture_call (call))
            g_error ("%s, call %llu (%s) failing: a failed graph capture must fall back to direct launches, not fail: %s",
                     en->name, i, call, e->message);
          errors++;
          g_error_free (e);
        }
      else if (fx.note != NULL)
        {
          if (is_capture_call (call))
            g_error ("%s, call %llu (%s) failing: a failed graph capture must fall back to direct launches on the "
                     "device, not to the CPU: %s", en->name, i, call, fx.note);
          if (!names_call (fx.note, call))
            g_error ("%s, call %llu (%s) failing: the fall-back's note does not name it: %s", en->name, i, call, fx.note);
          fallbacks++;
        }
      else
        {
          recovered++;
          g_test_message ("%s: recovered on the device after call %llu (%s) failed", en->name, i, call);
        }
    }
  g_test_message ("%s: %llu failable calls at %u call stacks, %u failed in turn: %u errors, %u CPU fall-backs, %u recovered on the device",
                  en->name, n, n_sites, runs, errors, fallbacks, recovered);
  total_calls += n;
  total_sites += n_sites;
  total_runs += runs;
  total_errors += errors;
  total_fallbacks += fallbacks;
  total_recovered += recovered;
}


/* Defect 4: a failed upload of the blocked layout leaves none (it left the
 * row count set over NULL device pointers, which the next blocked launch
 * would have walked).  Every call of ctr_cuda_scsr_set_blocked fails in
 * turn; then the session has no layout (use_blocked refuses), holds what it
 * held before, and still runs the rows. */
static void
test_set_blocked (void)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (fx.m);
  const gint64 *seg;
  const CtrScsrElem *el;
  g_assert_true (ctr_scsr_arrays (fx.m, &seg, &el, NULL));
  CtrCudaScsrDesc d = {
    .K = ctr_scsr_order (fx.m), .n_parts = ctr_scsr_n_parts (fx.m), .n_orbits = ctr_scsr_n_orbits (fx.m),
    .n_cols = ctr_scsr_n_cols (fx.m), .n_reps = sy->n_reps, .ns = NS, .nnz = ctr_scsr_nnz (fx.m),
    .seg_ptr = (const int64_t *) seg, .elems = el, .compose = &sy->group.compose[0][0],
    .rep_pixel = sy->rep_pixel, .rep_stabilised = sy->rep_stabilised, .with_scale = 0,
  };
  g_autoptr (CtrBlocked) blk = ctr_blocked_new (fx.m, CTR_BLOCKING_ORBIT, NULL);
  g_assert_nonnull (blk);
  g_autofree CtrCudaBlock *cb = g_new0 (CtrCudaBlock, blk->n_blocks);
  for (guint i = 0; i < blk->n_blocks; i++)
    {
      const CtrBlock *k = &blk->blocks[i];
      cb[i] = (CtrCudaBlock) { k->orbit, k->n_rows, k->width, k->ray0, k->ray1, k->junction, k->rep, k->slot, k->w };
    }
  char err[CTR_CUDA_ERR_LEN];
  CtrCudaScsr *s = NULL;
  g_assert_cmpint (ctr_cuda_scsr_create (&d, &s, err), ==, CTR_CUDA_OK);
  CtrEmuLive before, after;
  ctr_emu_live (&before);
  ctr_emu_fault_record_sites (1);
  ctr_emu_fault_arm (0);
  g_assert_cmpint (ctr_cuda_scsr_set_blocked (s, cb, blk->n_blocks, blk->orbit_first, err), ==, CTR_CUDA_OK);
  const unsigned long long n = ctr_emu_fault_calls ();
  ctr_cuda_scsr_destroy (s);
  g_autofree gboolean *first = g_new0 (gboolean, n + 1);
  const guint n_sites = call_sites (n, first);
  guint runs = 0;
  for (unsigned long long i = 1; i <= n; i++)
    {
      if (sites_once && !first[i])
        continue;
      runs++;
      g_assert_cmpint (ctr_cuda_scsr_create (&d, &s, err), ==, CTR_CUDA_OK);
      ctr_emu_live (&before);
      ctr_emu_fault_arm (i);
      const CtrCudaStatus st = ctr_cuda_scsr_set_blocked (s, cb, blk->n_blocks, blk->orbit_first, err);
      ctr_emu_fault_arm (0);
      g_assert_cmpint (st, !=, CTR_CUDA_OK);
      ctr_emu_live (&after);
      char diff[256];
      g_assert_cmpint (ctr_emu_live_diff (&before, &after, diff, sizeof diff), ==, 0);
      g_assert_cmpint (ctr_cuda_scsr_use_blocked (s, 1, err), ==, CTR_CUDA_INVALID);
      g_autofree float *ax = g_new (float, ctr_scsr_lane_size (fx.m, NS));
      g_assert_cmpint (ctr_cuda_scsr_forward (s, ax, err), ==, CTR_CUDA_OK);
      /* and a second upload works */
      g_assert_cmpint (ctr_cuda_scsr_set_blocked (s, cb, blk->n_blocks, blk->orbit_first, err), ==, CTR_CUDA_OK);
      g_assert_cmpint (ctr_cuda_scsr_use_blocked (s, 1, err), ==, CTR_CUDA_OK);
      ctr_cuda_scsr_destroy (s);
    }
  g_test_message ("ctr_cuda_scsr_set_blocked: %llu failable calls at %u call stacks, %u failed in turn: no layout left, "
                  "nothing leaked", n, n_sites, runs);
  total_calls += n;
  total_sites += n_sites;
  total_runs += runs;
  total_errors += runs;
}

static void
test_total (void)
{
  g_assert_cmpuint (total_runs, >, 0);
  g_print ("# fault injection over %u entry points and set_blocked: %u failable calls at %u call stacks; %u failed "
           "in turn (%s): %u errors, %u CPU fall-backs, %u recovered\n",
           (guint) G_N_ELEMENTS (entries), total_calls, total_sites, total_runs,
           sites_once ? "the first call at each call stack" : "every call", total_errors, total_fallbacks,
           total_recovered);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (int i = 1; i < argc; i++)
    sites_once |= strcmp (argv[i], "--sites-once") == 0;
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    g_error ("the emulated device must answer: %s", e->message);
  /* the self-check runs once per process, at the first use of the backend:
   * before the counting, so that every run makes the same calls */
  g_assert_true (ctr_cuda_selfcheck ()->passed);
  setup ();
  cone_setup ();
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ctr/gpu-faults/%u", i);
      g_test_add_data_func (path, &entries[i], test_entry);
    }
  g_test_add_func ("/ctr/gpu-faults/set-blocked", test_set_blocked);
  g_test_add_func ("/ctr/gpu-faults/total", test_total);
  return g_test_run ();
}
