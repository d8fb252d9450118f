/* test-matrix-auto.c — the automatic matrix choice (--matrix auto, the
 * default; ctr_plan_resolve_matrix in plan/ctr-plan-common.h): the stored
 * matrix when the run with it fits in the memory this process may use
 * (SCSR; CSR for ART and one-view subsets), the on-the-fly operator when it
 * does not, each said in a plan note; the on-the-fly run gives the stored
 * matrix's image to rounding; a plan made with auto keeps its choice when
 * its options are changed.  The limit is set with CTR_MEMORY_LIMIT_MB
 * (base/ctr-memory.h), re-read after 100 ms. */
#include "ctrecon.h"
#include "plan/ctr-plan-info.h"
#include "ctr-test-scan.h"

#include <math.h>
#include <string.h>

static void
set_limit_mb (const char *mb)
{
  g_setenv ("CTR_MEMORY_LIMIT_MB", mb, TRUE);
  g_usleep (120000);   /* ctr_memory_limit re-reads after 100 ms */
}

static const char *
note_with (CtrReconPlan *plan, const char *prefix)
{
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n != NULL; n++)
    if (g_str_has_prefix (*n, prefix))
      return *n;
  return NULL;
}

static CtrReconPlan *
plan_for (const CtrGeometry *g, const CtrGrid *grid, CtrMethod method, CtrSubsets subsets, CtrMatrixFormat matrix)
{
  g_autoptr (GError) error = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, method);
  g_assert_cmpint (o.matrix, ==, CTR_MATRIX_AUTO);   /* the default */
  o.backend = "cpu";   /* the CPU's choice; "best" is CUDA where a device answers */
  o.matrix = matrix;
  o.subsets = subsets;
  o.iterations = 2;
  CtrReconPlan *plan = ctr_recon_plan_new (g, grid, &o, NULL, &error);
  g_assert_no_error (error);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n != NULL; n++)
    g_test_message ("note: %s", *n);
  return plan;
}

static const char *
operator_of (CtrReconPlan *plan)
{
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  return info.operator_name;
}

/* A small run fits: the stored matrix, SCSR for SIRT, CSR for ART and for
 * one view per subset. */
static void
test_stored_when_it_fits (void)
{
  set_limit_mb ("512");
  g_autoptr (CtrGeometry) g = test_fan (90, 96);
  CtrGrid grid = ctr_grid_square (48, 230.0 / 48, 1, 1);
  struct { CtrMethod m; CtrSubsets s; const char *kind, *op; } cases[] = {
    { CTR_METHOD_SIRT, CTR_SUBSETS_AUTO, "the stored SCSR matrix", "cpu-scsr" },
    { CTR_METHOD_ART, CTR_SUBSETS_AUTO, "the stored CSR matrix", "cpu-csr" },
    { CTR_METHOD_SART, CTR_SUBSETS_VIEW, "the stored CSR matrix", "cpu-csr" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CtrReconPlan) plan = plan_for (g, &grid, cases[i].m, cases[i].s, CTR_MATRIX_AUTO);
      const char *n = note_with (plan, "matrix: auto chose ");
      g_assert_nonnull (n);
      g_assert_nonnull (strstr (n, cases[i].kind));
      g_assert_nonnull (strstr (n, "(the run needs "));   /* the memory note states what is available */
      g_assert_cmpstr (operator_of (plan), ==, cases[i].op);
    }
  /* No note when the matrix is named. */
  g_autoptr (CtrReconPlan) named = plan_for (g, &grid, CTR_METHOD_SIRT, CTR_SUBSETS_AUTO, CTR_MATRIX_SCSR);
  g_assert_null (note_with (named, "matrix: auto"));
}

static double
relative_rmse (const CtrVolume *a, const CtrVolume *b)
{
  const gsize n = ctr_grid_size (&a->grid);
  double d = 0, s = 0;
  for (gsize i = 0; i < n; i++)
    {
      d += ((double) a->data[i] - b->data[i]) * ((double) a->data[i] - b->data[i]);
      s += (double) b->data[i] * b->data[i];
    }
  return sqrt (d / s);
}

/* A run whose stored matrix exceeds the limit goes on the fly (where the
 * named SCSR matrix is refused), says both estimates, and gives the stored
 * matrix's image; changing its options keeps the choice. */
static void
test_fly_when_it_does_not (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = test_fan (180, 192);
  CtrGrid grid = ctr_grid_square (128, 230.0 / 128, 1, 1);
  g_autoptr (CtrProjections) p = test_head (g, 1);

  set_limit_mb ("512");
  g_autoptr (CtrReconPlan) stored = plan_for (g, &grid, CTR_METHOD_SIRT, CTR_SUBSETS_AUTO, CTR_MATRIX_AUTO);
  g_assert_cmpstr (operator_of (stored), ==, "cpu-scsr");
  g_autoptr (CtrVolume) want = ctr_recon_plan_execute (stored, p, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  set_limit_mb ("4");
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.backend = "cpu";
  o.matrix = CTR_MATRIX_SCSR;
  g_autoptr (CtrReconPlan) refused = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_assert_null (refused);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);

  g_autoptr (CtrReconPlan) fly = plan_for (g, &grid, CTR_METHOD_SIRT, CTR_SUBSETS_AUTO, CTR_MATRIX_AUTO);
  const char *n = note_with (fly, "matrix: auto computes the rows on the fly");
  g_assert_nonnull (n);
  g_assert_nonnull (strstr (n, "with the SCSR matrix the run would need"));
  g_assert_nonnull (strstr (n, "MiB available (CTR_MEMORY_LIMIT_MB)"));
  g_assert_nonnull (strstr (n, "more than nine tenths of the 4.0"));
  g_assert_null (strstr (n, "does not fit either"));
  g_assert_cmpstr (operator_of (fly), ==, "cpu-fly");
  g_autoptr (CtrVolume) got = ctr_recon_plan_execute (fly, p, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  const double e = relative_rmse (got, want);
  g_test_message ("on the fly against the stored SCSR matrix, 2 SIRT iterations: relative RMSE %.3g", e);
  g_assert_cmpfloat (e, <=, 1e-5);

  /* Other iterations on the same plan: the on-the-fly operator stays. */
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.backend = "cpu";
  o.iterations = 1;
  g_assert_true (ctr_recon_plan_set_options (fly, &o, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (operator_of (fly), ==, "cpu-fly");
  g_autoptr (CtrVolume) once = ctr_recon_plan_execute (fly, p, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (once);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/matrix-auto/stored-when-it-fits", test_stored_when_it_fits);
  g_test_add_func ("/matrix-auto/fly-when-it-does-not", test_fly_when_it_does_not);
  return g_test_run ();
}
