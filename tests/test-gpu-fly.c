/* test-gpu-fly.c — the GPU's on-the-fly fan/parallel projector pair
 * (gpu/ctr-cuda-fly.cu) against the CPU's on-the-fly operator
 * (core/sysmat/ctr-fly-op.c), for the three ray models, with orbit subsets
 * and with one view per subset, and its adjointness.  Exit 77 (skipped)
 * without a CUDA build or a device.  Problems are tiny (the emulation
 * harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |GPU − CPU| / max |CPU| ≤ 1e-5: the same rows (the ray
 * table is the CPU's ray set-up, the walks are ctr-ray.c's in double, each
 * weight rounded to float), summed in float in another order (the CPU's
 * orbit rows are the canonical view's mapped by the symmetry, the device
 * computes every ray; the adjoint's atomics land in any order): a few ulps
 * of the largest term.  A wrong weight, a half-pixel shift or a lost ray
 * gives 1e-2 or more.  The cases avoid rays along pixel sides (Siddon's
 * length may go to either neighbour) and exact 45° rays (Joseph's major
 * axis).  Adjointness on the device: |<A x, y> − <x, Aᵀ y>| ≤ 1e-5 ·
 * |<A x, y>|.
 *
 * The methods through the plan with no stored matrix (--matrix none),
 * backend cuda against cpu, 3 reported iterations: PART, SART, SIRT 1e-4
 * (the products' rounding carried through the passes, as test-gpu.c's
 * solvers), CGLS and PWLS 1e-3 (step sizes are quotients of inner
 * products), ASD-POCS 1e-2 (its TV steps are normalised gradients).  On
 * the harness, the copies per iteration (unreported) show the vectors stay
 * on the device: at most an eighth of an image up or down.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "plan/ctr-recon-plan.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-symmetry.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda.h"
#include "ctr-cuda-fly.h"
#endif
#ifdef CTR_EMU_BUILD
#include "ctr-emu.h"
#endif
#include "ctr-test-arrays.h"

#ifdef CTR_HAVE_CUDA

typedef struct {
  const char *name;
  CtrBeam beam;
  CtrDetectorShape shape;
  guint n;          /* image n × n, pixel side 3.3 mm */
  guint cols;
  double offset;    /* detector offset in columns */
  gboolean uniform; /* uniform angles: symmetry orbits */
} Case;

static const Case cases[] = {
  { "parallel", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 20, 28, 0, TRUE },
  { "parallel-odd-offset", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 19, 27, 2.5, FALSE },
  { "fan-flat", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 20, 32, 0, TRUE },
  { "fan-curved-offset", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 21, 31, -1.25, FALSE },
};

static const CtrRayModel models[] = { CTR_RAY_MODEL_JOSEPH, CTR_RAY_MODEL_SIDDON, CTR_RAY_MODEL_AREA };
static const char *const model_names[] = { "joseph", "siddon", "area" };

enum { VIEWS = 12, ROWS = 2 };

static CtrGeometry *
make_geometry (const Case *c)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, VIEWS);
  g->n_cols = c->cols;
  g->n_rows = ROWS;
  g->pitch_v_mm = 1.0;
  g->shape = c->shape;
  const double fov = 36.0;
  if (c->beam == CTR_BEAM_PARALLEL)
    g->pitch_u = 2 * fov / c->cols;
  else
    {
      g->sod_mm = 300;
      g->sdd_mm = 600;
      const double gmax = asin (fov / g->sod_mm);
      g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 2 * gmax / c->cols : 2 * g->sdd_mm * tan (gmax) / c->cols;
    }
  g->offset_u = c->offset * g->pitch_u;
  for (guint k = 0; k < VIEWS; k++)
    g->angles[k] = 2 * G_PI * k / VIEWS + (c->uniform ? 0.0 : 0.01 * sin (k + 1.0));
  return g;
}

static CtrGrid
make_grid (const Case *c)
{
  /* uniform cases: centred (the orbits of a symmetry group); others shifted */
  CtrGrid grid = { .nx = c->n, .ny = c->n, .nz = ROWS, .dx = 3.3, .dy = 3.3, .dz = 1.0,
                   .cx = c->uniform ? 0.0 : 0.4, .cy = c->uniform ? 0.0 : -0.3 };
  return grid;
}

typedef struct {
  const Case *c;
  guint model;
  gboolean orbits;
} Param;

/* Forward and adjoint over every ray and over two subsets, GPU against CPU,
 * and the device's adjointness. */
static void
test_products (gconstpointer data)
{
  const Param *p = data;
  g_autoptr (CtrGeometry) g = make_geometry (p->c);
  const CtrGrid grid = make_grid (p->c);
  const CtrRayModel model = models[p->model];
  g_autoptr (GError) error = NULL;
  CtrSymmetry *s1 = p->orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, &error) : NULL;
  g_assert_no_error (error);
  CtrSymmetry *s2 = p->orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, &error) : NULL;
  g_assert_no_error (error);
  if (p->orbits && p->c->uniform)
    g_assert_cmpuint (s1->group.order, >, 1);
  CtrCudaFly *f = ctr_cuda_fly_new (g, &grid, model, s1, &error);
  if (s1 != NULL)
    ctr_symmetry_free (s1);
  g_assert_no_error (error);
  g_autoptr (CtrOperator) cpu = ctr_fly_op_new (g, &grid, model, s2, &error);
  g_assert_no_error (error);
  const gsize ni = cpu->image_size, nd = cpu->data_size;
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd);
  g_autofree float *ag = g_new0 (float, nd), *ac = g_new0 (float, nd);
  g_autofree float *bg = g_new (float, ni), *bc = g_new (float, ni);
  test_fill_random (x, ni, 7 + p->model);
  test_fill_random (y, nd, 11 + p->model);
  const guint subsets[] = { CTR_SUBSET_ALL, 1, cpu->n_subsets - 1 };
  for (guint k = 0; k < G_N_ELEMENTS (subsets); k++)
    {
      const guint s = subsets[k];
      memset (ag, 0, nd * sizeof (float));
      memset (ac, 0, nd * sizeof (float));
      g_assert_true (ctr_cuda_fly_forward_host (f, s, x, ag, &error));
      g_assert_no_error (error);
      g_assert_true (cpu->klass->forward (cpu, s, x, ac, &error));
      g_assert_true (ctr_cuda_fly_adjoint_host (f, s, y, bg, &error));
      g_assert_no_error (error);
      g_assert_true (cpu->klass->adjoint (cpu, s, y, bc, &error));
      const double df = test_rel_diff (ag, ac, nd), da = test_rel_diff (bg, bc, ni);
      const double ax_y = test_dot (ag, y, nd), x_aty = test_dot (x, bg, ni);
      const double adj = fabs (ax_y - x_aty) / fabs (ax_y);
      g_test_message ("subset %d: forward %.2e, adjoint %.2e (of the CPU's maximum), adjointness %.2e",
                      s == CTR_SUBSET_ALL ? -1 : (int) s, df, da, adj);
      g_print ("  %s %s %s subset %d: forward %.2e, adjoint %.2e, adjointness %.2e\n", p->c->name,
               model_names[p->model], p->orbits ? "orbits" : "views", s == CTR_SUBSET_ALL ? -1 : (int) s, df, da,
               adj);
      g_assert_cmpfloat (test_dot (ac, ac, nd), >, 0.0);
      g_assert_cmpfloat (df, <=, 1e-5);
      g_assert_cmpfloat (da, <=, 1e-5);
      g_assert_cmpfloat (adj, <=, 1e-5);
    }
  ctr_cuda_fly_destroy (f);
}

/* The area model where its closed form does not hold (the grid reaches
 * behind the source): refused with the ray named, not a wrong image. */
static void
test_area_refused (void)
{
  const Case *c = &cases[2];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  g->sod_mm = 30;
  g->sdd_mm = 60;
  const CtrGrid grid = make_grid (c);
  g_autoptr (GError) error = NULL;
  CtrCudaFly *f = ctr_cuda_fly_new (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
  g_assert_null (f);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "closed form"));
  /* the line models take it */
  g_clear_error (&error);
  f = ctr_cuda_fly_new (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error);
  g_assert_no_error (error);
  ctr_cuda_fly_destroy (f);
}

/* ---- the methods through the plan, on the device and on the CPU ---- */

static const struct { CtrMethod m; double tol; } methods[] = {
  { CTR_METHOD_PART, 1e-4 }, { CTR_METHOD_SART, 1e-4 }, { CTR_METHOD_SIRT, 1e-4 },
  { CTR_METHOD_CGLS, 1e-3 }, { CTR_METHOD_PWLS, 1e-3 }, { CTR_METHOD_ASD_POCS, 1e-2 },
};

/* Consistent data of a blob and a bar per slice (the CPU pair's forward). */
static CtrProjections *
make_data (const CtrGeometry *g, const CtrGrid *grid)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrOperator) op = ctr_fly_op_new (g, grid, CTR_RAY_MODEL_AREA, NULL, &e);
  g_assert_no_error (e);
  g_autofree float *x = g_new (float, op->image_size), *y = g_new0 (float, op->data_size);
  for (guint s = 0; s < grid->nz; s++)
    for (guint iy = 0; iy < grid->ny; iy++)
      for (guint ix = 0; ix < grid->nx; ix++)
        {
          const double px = ctr_grid_x (grid, ix), py = ctr_grid_y (grid, iy) - 4.0 * s;
          x[((gsize) s * grid->ny + iy) * grid->nx + ix] =
            (float) (0.02 * exp (-(px * px + py * py) / (2 * 12.0 * 12.0)) + (px > 5 && px < 15 && py > -8 ? 0.01 : 0));
        }
  g_assert_true (op->klass->forward (op, CTR_SUBSET_ALL, x, y, &e));
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  op->klass->data_scatter (op, y, p->data);
  return p;
}

/* One run through the plan with no stored matrix; @copies (nullable): the
 * copies it made (on the harness). */
static CtrVolume *
run_plan (const char *backend, CtrMethod m, guint iterations, gboolean report, guint64 copies[2])
{
  const Case *c = &cases[2];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (CtrProjections) p = make_data (g, &grid);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = iterations;
  o.backend = backend;
  o.matrix = CTR_MATRIX_NONE;
  o.tv_iterations = 10;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, backend);
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  g_assert_cmpstr (info.operator_name, ==, strcmp (backend, "cpu") == 0 ? "cpu-fly" : "cuda-fly");
#ifdef CTR_EMU_BUILD
  CtrEmuCopies before, after;
  ctr_emu_copies (&before);
#endif
  CtrVolume *v = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
  g_assert_no_error (e);
  g_assert_nonnull (v);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    g_assert_null (strstr (*n, "instead"));
#ifdef CTR_EMU_BUILD
  ctr_emu_copies (&after);
  if (copies != NULL)
    {
      copies[0] = after.h2d_bytes - before.h2d_bytes;
      copies[1] = after.d2h_bytes - before.d2h_bytes;
    }
#else
  if (copies != NULL)
    copies[0] = copies[1] = 0;
#endif
  return v;
}

/* Each method on the device equals the CPU backend's; on the harness, the
 * copies of 3 iterations minus those of 1 stay below an eighth of an image
 * per iteration (the vectors are on the device). */
static void
test_methods (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  g_autoptr (CtrVolume) cpu = run_plan ("cpu", methods[k].m, 3, FALSE, NULL);
  guint64 c1[2], c3[2];
  g_autoptr (CtrVolume) one = run_plan ("cuda", methods[k].m, 1, FALSE, c1);
  g_autoptr (CtrVolume) gpu = run_plan ("cuda", methods[k].m, 3, FALSE, c3);
  const gsize n = ctr_grid_size (&cpu->grid);
  double d = 0, mx = 0;
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (gpu->data[i]));
      d = MAX (d, fabs ((double) gpu->data[i] - cpu->data[i]));
      mx = MAX (mx, fabs ((double) cpu->data[i]));
    }
  g_assert_cmpfloat (mx, >, 0.0);
  const double up = (c3[0] - (double) c1[0]) / 2, down = (c3[1] - (double) c1[1]) / 2;
  g_print ("  %s: GPU vs CPU %.2e of the maximum (tolerance %.0e); per iteration %.0f bytes up, %.0f down (image "
           "%" G_GSIZE_FORMAT " bytes)\n", ctr_method_name (methods[k].m), d / mx, methods[k].tol, up, down,
           n * sizeof (float));
  g_assert_cmpfloat (d / mx, <=, methods[k].tol);
  g_assert_cmpfloat (up, <=, n * sizeof (float) / 8.0);
  g_assert_cmpfloat (down, <=, n * sizeof (float) / 8.0);
  if (methods[k].m != CTR_METHOD_PWLS && methods[k].m != CTR_METHOD_ASD_POCS)
    return;
  /* the operator's host-array steps (accumulated: PWLS; column-scaled:
   * ASD-POCS's SART) with the host's vectors */
  g_setenv ("CTR_VECOPS", "host", TRUE);
  g_autoptr (CtrVolume) host = run_plan ("cuda", methods[k].m, 3, FALSE, NULL);
  g_unsetenv ("CTR_VECOPS");
  d = 0;
  for (gsize i = 0; i < n; i++)
    d = MAX (d, fabs ((double) host->data[i] - cpu->data[i]));
  g_print ("  %s with host vectors: GPU vs CPU %.2e of the maximum\n", ctr_method_name (methods[k].m), d / mx);
  g_assert_cmpfloat (d / mx, <=, methods[k].tol);
}

/* Where the device's pair does not run, the plan says why and the CPU's
 * on-the-fly operator runs: ART (row-sequential), and the area model where
 * its closed form does not hold. */
static void
test_plan_notes (void)
{
  const Case *c = &cases[2];
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (CtrGeometry) g = make_geometry (c);
      if (k == 1)
        {
          g->sod_mm = 30;
          g->sdd_mm = 60;
        }
      const CtrGrid grid = make_grid (c);
      CtrReconOptions o;
      ctr_recon_options_init (&o, k == 0 ? CTR_METHOD_ART : CTR_METHOD_SIRT);
      o.backend = "cuda";
      o.matrix = CTR_MATRIX_NONE;
      o.ray_model = CTR_RAY_MODEL_AREA;
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
      g_assert_no_error (e);
      g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, "cpu");
      CtrPlanInfo info;
      ctr_recon_plan_get_info (plan, FALSE, &info);
      g_assert_cmpstr (info.operator_name, ==, "cpu-fly");
      const char *want = k == 0 ? "ART is row-sequential; the CPU runs it, not cuda" : "closed form does not hold";
      gboolean said = FALSE;
      for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
        said |= strstr (*n, want) != NULL;
      g_assert_true (said);
    }
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
  static Param params[G_N_ELEMENTS (cases) * G_N_ELEMENTS (models) * 2];
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint m = 0; m < G_N_ELEMENTS (models); m++)
      for (int o = 0; o < 2; o++)
        {
          params[n] = (Param) { &cases[i], m, o };
          g_autofree char *path = g_strdup_printf ("/ctr/gpu-fly/products/%s/%s/%s", cases[i].name, model_names[m],
                                                   o ? "orbits" : "views");
          g_test_add_data_func (path, &params[n++], test_products);
        }
  g_test_add_func ("/ctr/gpu-fly/area-refused", test_area_refused);
  g_test_add_func ("/ctr/gpu-fly/plan-notes", test_plan_notes);
  for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      g_autofree char *path = g_strdup_printf ("/ctr/gpu-fly/methods/%s", ctr_method_name (methods[k].m));
      g_test_add_data_func (path, GUINT_TO_POINTER (k), test_methods);
    }
  return g_test_run ();
#endif
}
