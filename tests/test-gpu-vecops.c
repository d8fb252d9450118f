/* test-gpu-vecops.c — device-resident iterations (issue 37): the vector
 * operations of the GPU's cone-beam operator (gpu/ctr-cuda-cone-vecops.c,
 * gpu/ctr-cuda-vecops.cu) against the host's (core/solve/ctr-vec-host.c),
 * CGLS, PWLS and ASD-POCS through the plan on "cuda" against "cpu", and
 * what crosses PCIe per iteration.  Built on the emulation harness only
 * (the transfers are the harness's count: ctr_emu_copies).
 *
 * Problem: a 32² × 8 volume, 20 views of a 40 × 12 flat panel (tiny: the
 * harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |GPU − CPU| / max |CPU|:
 *   element-wise operations 1e-6 (the device rounds each operation as the
 *     host does: __fadd_rn/__fmul_rn, no contraction; 0 expected);
 *     reductions 1e-12 relative (double sums of the same float terms in
 *     another order); products 1e-5 (tests/test-gpu-cone.c);
 *     penalty gradients 1e-5 (the CPU's interior loop forms the same terms
 *     with masks, and its vectorised copies may contract into FMAs).
 *   CGLS, PWLS (4 iterations) 1e-3: as tests/test-gpu-cone.c (step sizes
 *     are quotients of inner products, which amplify rounding).
 *   ASD-POCS (4 iterations) 1e-2: its adaptive TV step and the normalised
 *     TV descent amplify rounding (tests/test-gpu.c's ASD-POCS bound).
 *
 * Transfers: an unreported iteration moves no image and no data between
 * host and device, only the inner products' doubles: at most
 * XFER_PER_ITERATION bytes each way (an eighth of one image; before issue
 * 37 every product moved the image up and a result down); a reported one
 * also brings the image back once (the driver's sync) and nothing more
 * than one image.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-recon-plan.h"
#include "sim/ctr-phantom3d.h"
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-random.h"
#include "ctr-cuda.h"
#include "ctr-cuda-cone.h"
#include "ctr-emu.h"

#define NX 32
#define NZ 8
#define VIEWS 20

static CtrGeometry *
make_geometry (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, VIEWS);
  g->sod_mm = 100.0;
  g->sdd_mm = 160.0;
  g->n_cols = 40;
  g->n_rows = 12;
  g->pitch_u = 2.3;
  g->pitch_v_mm = 2.1;
  ctr_geometry_set_uniform_angles (g, 0.3, 2.0 * G_PI / VIEWS);
  return g;
}

static CtrGrid
make_grid (void)
{
  CtrGrid grid = { NX, NX, NZ, 1.6, 1.6, 1.9, 0.3, -0.2, 0.1 };
  return grid;
}

static CtrProjections *
make_data (const CtrGeometry *g, const CtrGrid *grid)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, 0.3 * NX * grid->dx,
                                                            0.35 * NZ * grid->dz, 0.02);
  CtrProjections *p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  return p;
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
  return m > 0 ? d / m : d;
}

static guint n_reports;

static void
count_reports (const CtrIterStats *s, gpointer data)
{
  n_reports++;
}

/* One run through the plan; @copies (nullable): the copies it made. */
static CtrVolume *
run_plan (const char *backend, CtrMethod m, guint iterations, gboolean report, CtrEmuCopies *copies)
{
  g_autoptr (CtrGeometry) g = make_geometry ();
  CtrGrid grid = make_grid ();
  g_autoptr (CtrProjections) p = make_data (g, &grid);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = iterations;
  o.backend = backend;
  o.tv_iterations = 10;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, backend);
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  g_assert_cmpstr (info.operator_name, ==, strcmp (backend, "cpu") == 0 ? "cpu-cone" : "cuda-cone");
  CtrEmuCopies before, after;
  ctr_emu_copies (&before);
  n_reports = 0;
  CtrVolume *v = ctr_recon_plan_execute (plan, p, NULL, report ? count_reports : NULL, NULL, NULL, &e);
  ctr_emu_copies (&after);
  g_assert_no_error (e);
  g_assert_nonnull (v);
  if (report)
    g_assert_cmpuint (n_reports, ==, iterations);
  /* a CPU fall-back would say so in the plan's notes */
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    g_assert_null (strstr (*n, "instead"));
  if (copies != NULL)
    *copies = (CtrEmuCopies) {
      after.h2d_calls - before.h2d_calls, after.h2d_bytes - before.h2d_bytes,
      after.d2h_calls - before.d2h_calls, after.d2h_bytes - before.d2h_bytes,
      after.d2d_calls - before.d2d_calls, after.d2d_bytes - before.d2d_bytes,
    };
  return v;
}

static const struct { CtrMethod m; double tol; } methods[] = {
  { CTR_METHOD_CGLS, 1e-3 }, { CTR_METHOD_PWLS, 1e-3 }, { CTR_METHOD_ASD_POCS, 1e-2 },
};

/* Each method device-resident equals the CPU backend's. */
static void
test_methods (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  g_autoptr (CtrVolume) cpu = run_plan ("cpu", methods[k].m, 4, TRUE, NULL);
  g_autoptr (CtrVolume) gpu = run_plan ("cuda", methods[k].m, 4, TRUE, NULL);
  const double d = max_rel_diff (gpu->data, cpu->data, ctr_grid_size (&cpu->grid));
  g_test_message ("%s (4 iterations, reported): GPU vs CPU %.2e (tolerance %.0e)", ctr_method_name (methods[k].m),
                  d, methods[k].tol);
  g_assert_cmpfloat (d, <=, methods[k].tol);
}

/* An eighth of an image (4 KiB here): what an iteration may move each way
 * besides a report's image. */
#define IMAGE_BYTES ((guint64) NX * NX * NZ * sizeof (float))
#define XFER_PER_ITERATION (IMAGE_BYTES / 8)

/* The image is not moved per product: the copies of 5 iterations minus
 * those of 2, per iteration, unreported and reported. */
static void
test_transfers (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  for (int report = 0; report < 2; report++)
    {
      CtrEmuCopies c2, c5;
      g_autoptr (CtrVolume) v2 = run_plan ("cuda", methods[k].m, 2, report, &c2);
      g_autoptr (CtrVolume) v5 = run_plan ("cuda", methods[k].m, 5, report, &c5);
      const double up = (c5.h2d_bytes - (double) c2.h2d_bytes) / 3, down = (c5.d2h_bytes - (double) c2.d2h_bytes) / 3;
      const double d2d = (c5.d2d_bytes - (double) c2.d2d_bytes) / 3;
      g_test_message ("%s, %s: per iteration %.0f bytes up (%.1f calls), %.0f down (%.1f calls), %.0f within the "
                      "device; image %" G_GUINT64_FORMAT " bytes; the run's set-up and end %.0f up, %.0f down",
                      ctr_method_name (methods[k].m), report ? "reported" : "unreported", up,
                      (c5.h2d_calls - (double) c2.h2d_calls) / 3, down, (c5.d2h_calls - (double) c2.d2h_calls) / 3,
                      d2d, IMAGE_BYTES, c2.h2d_bytes - 2 * up, c2.d2h_bytes - 2 * down);
      g_assert_cmpfloat (up, <=, XFER_PER_ITERATION);
      g_assert_cmpfloat (down, <=, (report ? IMAGE_BYTES : 0) + XFER_PER_ITERATION);
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    {
      g_print ("no CUDA device (%s): skipped\n", e->message);
      return 77;
    }
  g_test_init (&argc, &argv, NULL);
  for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/gpu-vecops/methods/%s", ctr_method_name (methods[k].m));
      g_autofree char *p2 = g_strdup_printf ("/ctr/gpu-vecops/transfers/%s", ctr_method_name (methods[k].m));
      g_test_add_data_func (p1, GUINT_TO_POINTER (k), test_methods);
      g_test_add_data_func (p2, GUINT_TO_POINTER (k), test_transfers);
    }
  return g_test_run ();
}
