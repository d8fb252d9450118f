/* test-gpu.c — the backend registry (always) and the CUDA backend against the
 * CPU (only where a CUDA device answers; else exit 77 = skipped).
 *
 * Run as two meson tests from one program:
 *   backend  (-p /ctr/backend, suite core): names, "best", the reason why
 *            CUDA is unavailable, the CPU backend's operator equal to
 *            core's SCSR operator; needs no GPU.
 *   gpu      (-p /ctr/gpu, suite gpu): exit 77 without a build with CUDA or
 *            without a device.
 *
 * Tolerances of the GPU tests, and why.  The device adds the same float
 * products as the CPU in another order: the forward dot products are summed
 * by 32 threads and a shuffle butterfly instead of 8-wide SIMD lanes, and
 * the transposed product accumulates with atomicAdd in whatever order the
 * warps arrive (ctr-cuda-scsr.cu).  Every output is a sum of at most a few
 * hundred positive-weighted terms, so reordering changes it by at most
 * ~n·ε·Σ|terms| with ε = 6e-8: 1e-5 of the largest output is a bound with
 * margin for the products (the CPU's SCSR-vs-CSR test uses the same).  After
 * 10 iterations of parallel ART (and SART, SIRT) the differences of each
 * iteration are carried on but not amplified (the iteration is a
 * non-expansive map for 0 < λ < 2), so 1e-4 of the image maximum is stated
 * for the solvers.  Bit-for-bit equality is not expected and not tested.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "ctr-test-solve.h"
#include "plan/ctr-backend.h"
#include "sysmat/ctr-scsr.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda.h"
#endif
#ifdef CTR_EMU_BUILD
#include "ctr-emu.h"
#endif

typedef struct {
  const char *name;
  CtrDetectorShape shape;
  guint n, cols, views;
  double offset;      /* detector offset, columns */
  double shift_mm;    /* grid centre shift */
  guint expect_order;
} Case;

static const Case cases[] = {
  { "d4-fan-curved", CTR_DETECTOR_CURVED, 32, 48, 64, 0, 0, 8 },
  { "c4-fan-flat-offset-odd", CTR_DETECTOR_FLAT, 29, 41, 36, -0.5, 0, 4 },
  { "none-shifted-grid", CTR_DETECTOR_FLAT, 30, 44, 24, 0, 3.0, 1 },
};

static CtrGeometry *
make_geometry (const Case *c, guint n_rows)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, c->views);
  g->n_cols = c->cols;
  g->n_rows = n_rows;
  g->shape = c->shape;
  g->sod_mm = 250;
  g->sdd_mm = 450;
  const double gmax = asin (60.0 / g->sod_mm);
  g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 2 * gmax / c->cols : 2 * g->sdd_mm * tan (gmax) / c->cols;
  g->offset_u = c->offset * g->pitch_u;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / c->views);
  return g;
}

static CtrGrid
make_grid (const Case *c, guint nz)
{
  CtrGrid grid = ctr_grid_square (c->n, 80.0 / c->n, nz, 1.0);
  grid.cx = c->shift_mm;
  return grid;
}

/* Two blobs per slice, moving with the slice; consistent data A·x_true,
 * slice 1 with two dead detector columns. */
static CtrVolume *
make_truth (const CtrGrid *grid)
{
  CtrVolume *xt = ctr_volume_new (grid, NULL);
  for (guint s = 0; s < grid->nz; s++)
    for (guint iy = 0; iy < grid->ny; iy++)
      for (guint ix = 0; ix < grid->nx; ix++)
        {
          double px = ctr_grid_x (grid, ix) - grid->cx, py = ctr_grid_y (grid, iy) - 4.0 * s;
          xt->data[((gsize) s * grid->ny + iy) * grid->nx + ix] =
            (float) (0.02 * exp (-(px * px + py * py) / (2 * 12.0 * 12.0)) + (px > 5 && px < 15 && py > -8 ? 0.01 : 0));
        }
  return xt;
}

static CtrProjections *
simulate (const CtrSysmat *a, const CtrGeometry *g, const CtrVolume *x)
{
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  g_autofree float *y = g_new (float, (gsize) g->n_views * g->n_cols);
  for (guint s = 0; s < g->n_rows; s++)
    {
      ctr_sysmat_apply (a, ctr_volume_slice (x, s), y, 1);
      guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < g->n_views; v++)
        memcpy (ctr_projections_view (p, v) + (gsize) row * g->n_cols, y + (gsize) v * g->n_cols,
                g->n_cols * sizeof (float));
    }
  p->mask = g_new (guint8, (gsize) g->n_rows * g->n_cols);
  memset (p->mask, 1, (gsize) g->n_rows * g->n_cols);
  if (g->n_rows > 1)
    {
      guint row1 = ctr_geometry_slice_row (g, 1);
      p->mask[(gsize) row1 * g->n_cols + 5] = p->mask[(gsize) row1 * g->n_cols + 20] = 0;
    }
  return p;
}

G_GNUC_UNUSED static double
rms_diff (const float *a, const float *b, gsize n)
{
  double acc = 0;
  for (gsize i = 0; i < n; i++)
    acc += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
  return n ? sqrt (acc / n) : 0;
}

G_GNUC_UNUSED static double
max_rel_diff (const float *a, const float *b, gsize n)
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

/* ------------------------------------------------- registry (no GPU) -- */

static void
test_registry (void)
{
  guint n = 0;
  const CtrBackend *const *list = ctr_backend_list (&n);
  g_assert_cmpuint (n, >=, 1);
  gboolean has_cpu = FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *why = NULL;
      gboolean ok = list[i]->available (list[i], &why);
      g_test_message ("backend %s (priority %d): %s — %s", list[i]->name, list[i]->priority,
                      ok ? "available" : "unavailable", ok ? list[i]->description : why);
      g_assert_true (ok || (why != NULL && *why != '\0'));
      has_cpu |= strcmp (list[i]->name, "cpu") == 0;
      if (i > 0)
        g_assert_cmpint (list[i - 1]->priority, >=, list[i]->priority);
    }
  g_assert_true (has_cpu);
  g_assert_true (ctr_backend_cpu ()->available (ctr_backend_cpu (), NULL));
  g_assert_nonnull (ctr_backend_best ());
  g_assert_true (ctr_backend_by_name ("cpu", NULL) == ctr_backend_cpu ());

  g_autoptr (GError) e = NULL;
  g_assert_null (ctr_backend_by_name ("opencl", &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&e);
  g_assert_null (ctr_backend_select ("opencl", NULL, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&e);

  /* cuda: either usable, or unavailable with a reason; select then falls
   * back to the CPU and says why. */
  const CtrBackend *cu = ctr_backend_by_name ("cuda", &e);
  if (cu == NULL)
    {
      g_assert_error (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE);
      g_test_message ("cuda: %s", e->message);
#ifndef CTR_HAVE_CUDA
      g_assert_nonnull (strstr (e->message, "not built"));
#endif
      g_autofree char *note = NULL;
      const CtrBackend *b = ctr_backend_select ("cuda", &note, NULL);
      g_assert_true (b == ctr_backend_cpu ());
      g_assert_nonnull (note);
      g_autofree char *note2 = NULL;
      g_assert_true (ctr_backend_select ("best", &note2, NULL) == ctr_backend_cpu ());
      g_assert_nonnull (note2);
      g_assert_true (ctr_backend_best () == ctr_backend_cpu ());
    }
  else
    {
      g_assert_no_error (e);
      g_assert_true (ctr_backend_best () == cu);
    }

  g_clear_error (&e);

  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  g_assert_cmpstr (o.backend, ==, "best");
  g_assert_true (ctr_recon_options_validate (&o, NULL));
  o.backend = "vulkan";
  g_assert_false (ctr_recon_options_validate (&o, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* The CPU backend's operator is core's SCSR operator: same image, bit for bit. */
static void
test_cpu_backend (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c, 2);
  CtrGrid grid = make_grid (c, 2);
  g_autoptr (CtrVolume) xt = make_truth (&grid);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate (a, g, xt);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.iterations = 3;
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrVolume) x1 = test_run_scsr (m, g, p, &grid, &o, NULL, NULL, NULL, NULL, &e);
  g_assert_no_error (e);
  g_autoptr (CtrVolume) x2 = test_run_op (ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpmem (x1->data, ctr_grid_size (&grid) * sizeof (float), x2->data, ctr_grid_size (&grid) * sizeof (float));
}

/* ------------------------------------------------------- GPU vs CPU -- */

#ifdef CTR_HAVE_CUDA
static void
test_products (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c, 1);
  CtrGrid grid = make_grid (c, 1);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_assert_cmpuint (ctr_scsr_order (m), ==, c->expect_order);
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols;
  GRand *r = g_rand_new_with_seed (11);
  for (guint ns = 1; ns <= 5; ns += 4)   /* 5 slices: a full slice block and a remainder for every K */
    {
      g_autofree float *x = g_new (float, np * ns), *y = g_new (float, nr * ns);
      for (gsize i = 0; i < np * ns; i++)
        x[i] = (float) g_rand_double_range (r, -1, 1);
      for (gsize i = 0; i < nr * ns; i++)
        y[i] = (float) g_rand_double_range (r, -1, 1);
      g_autofree float *ax_cpu = g_new (float, nr * ns), *ax_gpu = g_new (float, nr * ns), *ax_sp = g_new (float, nr * ns);
      g_autofree float *aty_cpu = g_new (float, np * ns), *aty_gpu = g_new (float, np * ns), *aty_sp = g_new (float, np * ns);
      g_autoptr (GError) e = NULL;
      g_assert_true (ctr_scsr_apply (m, x, ax_cpu, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty_cpu, ns, NULL));
      /* 1, 2 and 8 warps per stored row first, then the default (4: partial
       * dot products meet in shared memory), whose results the checks below
       * use. */
      for (int w = 1; w <= 8; w *= 2)
        {
          if (w == 4)
            continue;
          g_autofree char *ws = g_strdup_printf ("%d", w);
          g_setenv ("CTR_CUDA_WARPS_PER_ROW", ws, TRUE);
          g_assert_true (ctr_cuda_scsr_apply (m, x, ax_gpu, ns, &e));
          g_assert_no_error (e);
          g_assert_true (ctr_cuda_scsr_apply_adjoint (m, y, aty_gpu, ns, &e));
          g_assert_no_error (e);
          const double wa = max_rel_diff (ax_gpu, ax_cpu, nr * ns), wb = max_rel_diff (aty_gpu, aty_cpu, np * ns);
          g_test_message ("%s ns %u: %d warp(s) per row: Ax %.2e A'y %.2e", c->name, ns, w, wa, wb);
          g_assert_cmpfloat (wa, <=, 1e-5);
          g_assert_cmpfloat (wb, <=, 1e-5);
        }
      g_unsetenv ("CTR_CUDA_WARPS_PER_ROW");
      g_assert_true (ctr_cuda_scsr_apply (m, x, ax_gpu, ns, &e));
      g_assert_no_error (e);
      g_assert_true (ctr_cuda_scsr_apply_adjoint (m, y, aty_gpu, ns, &e));
      g_assert_no_error (e);
      g_autofree float *ax_blk = g_new (float, nr * ns), *aty_blk = g_new (float, np * ns);
      g_assert_true (ctr_cuda_scsr_apply_blocked (m, x, ax_blk, ns, &e));
      g_assert_no_error (e);
      g_assert_true (ctr_cuda_scsr_apply_adjoint_blocked (m, y, aty_blk, ns, &e));
      g_assert_no_error (e);
      const double d5 = max_rel_diff (ax_blk, ax_cpu, nr * ns), d6 = max_rel_diff (aty_blk, aty_cpu, np * ns);
      g_test_message ("%s ns %u: orbit-level blocked (cuART Algorithm 2) Ax %.2e A'y %.2e", c->name, ns, d5, d6);
      g_assert_cmpfloat (d5, <=, 1e-5);
      g_assert_cmpfloat (d6, <=, 1e-5);
      g_assert_true (ctr_cuda_csr_apply (a, x, ax_sp, ns, &e));
      g_assert_no_error (e);
      g_assert_true (ctr_cuda_csr_apply_adjoint (a, y, aty_sp, ns, &e));
      g_assert_no_error (e);
      double l = 0, rr = 0;
      for (gsize i = 0; i < nr * ns; i++)
        l += (double) ax_gpu[i] * y[i];
      for (gsize i = 0; i < np * ns; i++)
        rr += (double) x[i] * aty_gpu[i];
      double d1 = max_rel_diff (ax_gpu, ax_cpu, nr * ns), d2 = max_rel_diff (aty_gpu, aty_cpu, np * ns);
      double d3 = max_rel_diff (ax_sp, ax_cpu, nr * ns), d4 = max_rel_diff (aty_sp, aty_cpu, np * ns);
      g_test_message ("%s ns %u: SCSR-GPU Ax %.2e A'y %.2e; cuSPARSE Ax %.2e A'y %.2e; <Ax,y> %.6f <x,A'y> %.6f",
                      c->name, ns, d1, d2, d3, d4, l, rr);
      g_assert_cmpfloat (d1, <=, 1e-5);
      g_assert_cmpfloat (d2, <=, 1e-5);
      g_assert_cmpfloat (d3, <=, 1e-5);
      g_assert_cmpfloat (d4, <=, 1e-5);
      g_assert_cmpfloat (fabs (l - rr), <=, 1e-5 * (fabs (l) + 1));
    }
  g_rand_free (r);
}

/* The CUDA SCSR operator's products on natural arrays
 * (sysmat/ctr-operator-natural.h: its data_scatter is the CPU layout's)
 * equal the CPU SCSR operator's, on a three-row stack. */
static void
test_natural (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c, 3);
  CtrGrid grid = make_grid (c, 3);
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &e);
  g_assert_no_error (e);
  g_autoptr (CtrOperator) oc = ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e);
  g_assert_no_error (e);
  g_autoptr (CtrOperator) og = ctr_cuda_op_new (m, FALSE, g, &grid, &e);
  g_assert_no_error (e);
  const gsize ni = (gsize) c->n * c->n * 3, nd = (gsize) c->views * c->cols * 3;
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd);
  GRand *r = g_rand_new_with_seed (5);
  for (gsize i = 0; i < ni; i++)
    x[i] = (float) g_rand_double_range (r, -1, 1);
  for (gsize i = 0; i < nd; i++)
    y[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
  g_autofree float *ax_cpu = g_new (float, nd), *ax_gpu = g_new (float, nd);
  g_autofree float *aty_cpu = g_new (float, ni), *aty_gpu = g_new (float, ni);
  g_assert_true (ctr_operator_forward_natural (oc, x, ax_cpu, &e));
  g_assert_true (ctr_operator_forward_natural (og, x, ax_gpu, &e));
  g_assert_true (ctr_operator_adjoint_natural (oc, y, aty_cpu, &e));
  g_assert_true (ctr_operator_adjoint_natural (og, y, aty_gpu, &e));
  g_assert_no_error (e);
  const double d1 = max_rel_diff (ax_gpu, ax_cpu, nd), d2 = max_rel_diff (aty_gpu, aty_cpu, ni);
  g_test_message ("%s: natural products, GPU against CPU: Ax %.2e A'y %.2e", c->name, d1, d2);
  g_assert_cmpfloat (d1, <=, 1e-5);
  g_assert_cmpfloat (d2, <=, 1e-5);
}

/* 10 iterations of parallel ART (both step rules, non-negative), and SART
 * and SIRT, on the GPU equal the CPU backend within 1e-4 of the maximum;
 * cuSPARSE parallel ART too (same orbit subsets). */
static void
test_solvers (gconstpointer data)
{
  const Case *c = data;
  const guint ns = 3;
  g_autoptr (CtrGeometry) g = make_geometry (c, ns);
  CtrGrid grid = make_grid (c, ns);
  g_autoptr (CtrVolume) xt = make_truth (&grid);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate (a, g, xt);
  const CtrBackend *cuda = ctr_backend_by_name ("cuda", NULL), *sp = ctr_backend_by_name ("cusparse", NULL);
  g_assert_nonnull (cuda);
  g_assert_nonnull (sp);
  const gsize n = ctr_grid_size (&grid);
  for (CtrMethod meth = CTR_METHOD_PART; meth <= CTR_METHOD_SIRT; meth++)
    for (int step = CTR_PART_STEP_SPARSITY; step <= (meth == CTR_METHOD_PART ? CTR_PART_STEP_CUART : CTR_PART_STEP_SPARSITY); step++)
      {
        CtrReconOptions o;
        ctr_recon_options_init (&o, meth);
        o.iterations = 10;
        o.part_step = step;
        o.nonnegative = TRUE;
        g_autoptr (GError) e = NULL;
        g_autoptr (CtrVolume) x_cpu = test_run_op (ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
        g_assert_no_error (e);
        g_autoptr (CtrVolume) x_gpu = test_run_op (ctr_cuda_op_new (m, FALSE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
        g_assert_no_error (e);
        double d = max_rel_diff (x_gpu->data, x_cpu->data, n), dt = max_rel_diff (x_gpu->data, xt->data, n);
        g_setenv ("CTR_CUDA_KERNEL", "rows", TRUE);
        g_setenv ("CTR_CUDA_WARPS_PER_ROW", "1", TRUE);
        g_autoptr (CtrVolume) x_w1 = test_run_op (ctr_cuda_op_new (m, FALSE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
        g_unsetenv ("CTR_CUDA_WARPS_PER_ROW");
        g_assert_no_error (e);
        g_setenv ("CTR_CUDA_KERNEL", "blocked", TRUE);
        g_autoptr (CtrVolume) x_blk = test_run_op (ctr_cuda_op_new (m, FALSE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
        g_unsetenv ("CTR_CUDA_KERNEL");
        g_assert_no_error (e);
        const double d1 = max_rel_diff (x_w1->data, x_cpu->data, n), db = max_rel_diff (x_blk->data, x_cpu->data, n);
        g_test_message ("%s %s step %d: 1 warp per row vs CPU %.2e, orbit-level blocked vs CPU %.2e", c->name,
                        ctr_method_name (meth), step, d1, db);
        g_assert_cmpfloat (d1, <=, 1e-4);
        g_assert_cmpfloat (db, <=, 1e-4);
        double ds = NAN;
        if (meth == CTR_METHOD_PART)
          {
            g_autoptr (CtrVolume) x_sp = test_run_op (ctr_cuda_op_new (m, TRUE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
            g_assert_no_error (e);
            ds = max_rel_diff (x_sp->data, x_cpu->data, n);
            g_assert_cmpfloat (ds, <=, 1e-4);
          }
        g_test_message ("%s %s step %d: GPU vs CPU %.2e, cuSPARSE vs CPU %.2e, GPU vs truth %.3f",
                        c->name, ctr_method_name (meth), step, d, ds, dt);
        g_assert_cmpfloat (d, <=, 1e-4);
      }
}

/* The methods that run on the operator's products and single subset steps
 * (CGLS: whole products; PWLS: products and accumulated subset steps;
 * ASD-POCS: SART subset steps with column scale and clipping) give on the
 * GPU what they give on the CPU backend, within 1e-4 of the maximum after 5
 * iterations, with the row kernel and with the orbit-level blocked one. */
static void
test_methods (gconstpointer data)
{
  const Case *c = data;
  const guint ns = 2;
  g_autoptr (CtrGeometry) g = make_geometry (c, ns);
  CtrGrid grid = make_grid (c, ns);
  g_autoptr (CtrVolume) xt = make_truth (&grid);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate (a, g, xt);
  const gsize n = ctr_grid_size (&grid);
  {
    /* the operator's single steps, one pass over the subsets from the same
     * start: SART's (column scale, clipped), then parallel ART's, then the
     * accumulated form (PWLS's) */
    g_autoptr (GError) e = NULL;
    g_autoptr (CtrOperator) oc = ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e);
    g_assert_no_error (e);
    g_autoptr (CtrOperator) og = ctr_cuda_op_new (m, FALSE, g, &grid, &e);
    g_assert_no_error (e);
    const gsize ni = oc->image_size, nd = oc->data_size;
    g_autofree float *B = g_new (float, nd), *coef = g_new (float, nd);
    g_autofree float *Xc = g_new0 (float, ni), *Xg = g_new0 (float, ni);
    g_autofree float *Dc = g_new0 (float, ni), *Dg = g_new0 (float, ni);
    oc->klass->data_gather (oc, p->data, B);
    oc->klass->row_sums (oc, coef, NULL);            /* Σ_j a_ij², then the Kaczmarz weights */
    for (gsize q = 0; q < nd; q++)
      coef[q] = coef[q] > 0.f ? 1.f / coef[q] : 0.f;
    const CtrUpdateFlags fl[2] = { CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, 0 };
    for (int f = 0; f < 2; f++)
      {
        for (guint sb = 0; sb < oc->n_subsets; sb++)
          {
            /* SART: step 0.9 with the column scale; parallel ART: 0.9 / κ_S
             * (the sparsity rule, Censor, Gordon & Gordon 2001) */
            double kappa = 1.0;
            g_assert_true (f == 0 || oc->klass->subset_overlap (oc, sb, &kappa, &e));
            const float step = f == 0 ? 0.9f : (float) (0.9 / MAX (1.0, kappa));
            g_assert_true (oc->klass->update (oc, sb, Xc, B, coef, step, NULL, fl[f], &e));
            g_assert_true (og->klass->update (og, sb, Xg, B, coef, step, NULL, fl[f], &e));
          }
        const double d = max_rel_diff (Xg, Xc, ni);
        float xmax = 0.f;
        for (gsize q = 0; q < ni; q++)
          xmax = MAX (xmax, fabsf (Xc[q]));
        g_test_message ("%s single steps (%s): GPU vs CPU %.2e (image max %.3e)", c->name,
                        f == 0 ? "SART" : "parallel ART", d, xmax);
        g_assert_cmpfloat (xmax, >, 0.f);
        g_assert_cmpfloat (d, <=, 1e-5);
      }
    for (guint sb = 0; sb < oc->n_subsets; sb++)
      {
        g_assert_true (oc->klass->update (oc, sb, Xc, B, coef, 1.f, Dc, 0, &e));
        g_assert_true (og->klass->update (og, sb, Xc, B, coef, 1.f, Dg, 0, &e));
      }
    if (oc->klass->reduce != NULL)
      oc->klass->reduce (oc, Dc);
    const double d = max_rel_diff (Dg, Dc, ni);
    g_test_message ("%s accumulated steps: GPU vs CPU %.2e", c->name, d);
    g_assert_cmpfloat (d, <=, 1e-5);
  }
  const CtrMethod methods[] = { CTR_METHOD_CGLS, CTR_METHOD_PWLS, CTR_METHOD_ASD_POCS };
  for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, methods[k]);
      o.iterations = 5;
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrVolume) x_cpu = test_run_op (ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e),
                                                 p, &o, NULL, NULL, NULL, NULL, &e);
      g_assert_no_error (e);
      g_autoptr (CtrVolume) x_gpu = test_run_op (ctr_cuda_op_new (m, FALSE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
      g_assert_no_error (e);
      g_setenv ("CTR_CUDA_KERNEL", "blocked", TRUE);
      g_autoptr (CtrVolume) x_blk = test_run_op (ctr_cuda_op_new (m, FALSE, g, &grid, &e), p, &o, NULL, NULL, NULL, NULL, &e);
      g_unsetenv ("CTR_CUDA_KERNEL");
      g_assert_no_error (e);
      const double d = max_rel_diff (x_gpu->data, x_cpu->data, n), db = max_rel_diff (x_blk->data, x_cpu->data, n);
      const double dt = max_rel_diff (x_cpu->data, xt->data, n);
      const double rc = rms_diff (x_cpu->data, xt->data, n), rg = rms_diff (x_gpu->data, xt->data, n),
                   rb = rms_diff (x_blk->data, xt->data, n);
      g_test_message ("%s %s: GPU vs CPU %.2e, blocked vs CPU %.2e, CPU vs truth %.3f; RMSE vs truth CPU %.6e "
                      "GPU %.6e blocked %.6e", c->name, ctr_method_name (methods[k]), d, db, dt, rc, rg, rb);
      if (methods[k] == CTR_METHOD_ASD_POCS)
        {
          /* ASD-POCS's adaptive TV steps (Sidky & Pan 2008: the step
           * follows ‖Δx‖ of the POCS pass, and is cut when the TV descent
           * overshoots) amplify rounding: the CPU alone moved 4.5e-3 of the
           * maximum between 1 and 2 threads after 5 iterations on gel-fan's
           * 18 views.  The GPU's single steps equal the CPU's to 1e-5
           * (above); here the images agree to 1e-2 and their errors against
           * the truth to 1 %. */
          g_assert_cmpfloat (d, <=, 1e-2);
          g_assert_cmpfloat (db, <=, 1e-2);
          g_assert_cmpfloat (fabs (rg - rc), <=, 1e-2 * rc);
          g_assert_cmpfloat (fabs (rb - rc), <=, 1e-2 * rc);
        }
      else
        {
          g_assert_cmpfloat (d, <=, 1e-4);
          g_assert_cmpfloat (db, <=, 1e-4);
        }
      /* not a copy of the start image: the method moved */
      g_assert_cmpfloat (dt, <, 0.9);
    }
}

/* What the progress callback reports: at every iteration the image of that
 * iteration (it handed an older one without a reference) and the residual
 * ||b − A x|| / ||b|| of it (computed on the device in a pass of its own,
 * whose time is reported apart from the update's), as the CPU reports them.
 * Parallel ART on the SCSR kernel and on cuSPARSE. */
typedef struct {
  GPtrArray *images;
  GArray *residuals;
  double residual_s;
} Reports;

static void
keep_report (const CtrIterStats *s, gpointer data)
{
  Reports *r = data;
  g_assert_cmpuint (s->iteration, ==, r->images->len + 1);
  g_assert_nonnull (s->image);
  const gsize n = ctr_grid_size (&s->image->grid);
  g_ptr_array_add (r->images, g_memdup2 (s->image->data, n * sizeof (float)));
  g_array_append_val (r->residuals, s->residual);
  r->residual_s += s->residual_s;
}

static void
test_reports (gconstpointer data)
{
  const Case *c = data;
  const guint ns = 2, iters = 6;
  g_autoptr (CtrGeometry) g = make_geometry (c, ns);
  CtrGrid grid = make_grid (c, ns);
  g_autoptr (CtrVolume) xt = make_truth (&grid);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate (a, g, xt);
  const gsize n = ctr_grid_size (&grid);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.iterations = iters;
  o.nonnegative = TRUE;
  Reports cpu = { g_ptr_array_new_with_free_func (g_free), g_array_new (FALSE, FALSE, sizeof (double)), 0 };
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrVolume) x_cpu = test_run_op (ctr_backend_cpu ()->scsr_operator (ctr_backend_cpu (), m, g, &grid, &e),
                                             p, &o, NULL, keep_report, &cpu, NULL, &e);
  g_assert_no_error (e);
  for (int sp = 0; sp < 2; sp++)
    {
      Reports gpu = { g_ptr_array_new_with_free_func (g_free), g_array_new (FALSE, FALSE, sizeof (double)), 0 };
      g_autoptr (CtrVolume) x = test_run_op (ctr_cuda_op_new (m, sp, g, &grid, &e), p, &o, NULL, keep_report, &gpu,
                                             NULL, &e);
      g_assert_no_error (e);
      g_assert_cmpuint (gpu.images->len, ==, iters);
      for (guint i = 0; i < iters; i++)
        {
          const double di = max_rel_diff (gpu.images->pdata[i], cpu.images->pdata[i], n);
          const double r_gpu = g_array_index (gpu.residuals, double, i), r_cpu = g_array_index (cpu.residuals, double, i);
          g_test_message ("%s %s iteration %u: image vs CPU %.2e, residual %.6f vs CPU %.6f", c->name,
                          sp ? "cuSPARSE" : "SCSR", i + 1, di, r_gpu, r_cpu);
          g_assert_cmpfloat (di, <=, 1e-4);
          g_assert_cmpfloat (fabs (r_gpu - r_cpu), <=, 1e-4 * r_cpu + 1e-7);
        }
      /* the residual's own device pass was timed (emulated or real) */
      g_assert_cmpfloat (gpu.residual_s, >, 0.0);
      g_ptr_array_unref (gpu.images);
      g_array_unref (gpu.residuals);
    }
  g_ptr_array_unref (cpu.images);
  g_array_unref (cpu.residuals);
}

/* The run-time self-check (gpu/ctr-cuda-selfcheck.c): it passes on a sound
 * device, within the tolerances of these tests. */
static void
test_selfcheck (void)
{
  const CtrCudaSelfCheck *c = ctr_cuda_selfcheck ();
  g_autofree char *report = ctr_cuda_selfcheck_report (c);
  g_test_message ("%s", report);
  g_assert_true (c->ran);
  g_assert_true (c->passed);
  g_assert_nonnull (ctr_backend_by_name ("cuda", NULL));
}

#ifdef CTR_EMU_BUILD
/* A wrong kernel result (the harness skips the first block of every launch
 * of the SCSR row kernel): the self-check fails, "cuda" is unavailable with
 * the reason, and a plan asking for it runs the CPU and says why.  In a
 * child process: the self-check runs once per process. */
static void
test_selfcheck_wrong (void)
{
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 600 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }
  ctr_emu_corrupt_kernel ("orbit_rows");
  const CtrCudaSelfCheck *c = ctr_cuda_selfcheck ();
  g_autofree char *report = ctr_cuda_selfcheck_report (c);
  g_test_message ("%s", report);
  g_assert_true (c->ran);
  g_assert_false (c->passed);
  g_autoptr (GError) e = NULL;
  g_assert_null (ctr_backend_by_name ("cuda", &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE);
  g_assert_nonnull (strstr (e->message, "self-check"));
  g_clear_error (&e);
  const Case *cs = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (cs, 1);
  CtrGrid grid = make_grid (cs, 1);
  g_autoptr (CtrVolume) xt = make_truth (&grid);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate (a, g, xt);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.iterations = 2;
  o.backend = "cuda";
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, "cpu");
  gboolean said = FALSE;
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    {
      g_test_message ("note: %s", *n);
      said |= strstr (*n, "self-check") != NULL;
    }
  g_assert_true (said);
  g_autoptr (CtrVolume) v = ctr_recon_plan_execute (plan, p, NULL, NULL, NULL, NULL, &e);
  g_assert_no_error (e);
  g_assert_nonnull (v);
}
#endif
#endif

#ifdef CTR_EMU_BUILD
#include <sys/resource.h>

/* A compact (one-slice, K = 8) matrix whose 8-byte elements cannot be made
 * for the device: CTR_ERROR_OUT_OF_MEMORY naming them, not GLib's abort
 * (the device session used to call ctr_scsr_arrays, which aborts).  In a
 * child under an address-space limit 4 MiB above what it has reserved. */
static void
test_no_abort_expand (void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  g_test_skip ("an address-space limit stops the sanitizers");
  return;
#endif
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, 360);
      g->shape = CTR_DETECTOR_FLAT;
      g->n_cols = 512;
      g->sod_mm = 500;
      g->sdd_mm = 1000;
      g->pitch_u = 0.5;
      ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 360);
      CtrGrid grid = ctr_grid_square (256, 120.0 / 256, 1, 1);
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (CtrOperator) op = ctr_cuda_op_new (m, FALSE, g, &grid, &error);
      g_assert_no_error (error);
      g_autofree float *X = g_new0 (float, op->image_size), *Y = g_new0 (float, op->data_size);
      g_autofree char *st = NULL;
      g_assert_true (g_file_get_contents ("/proc/self/status", &st, NULL, NULL));
      const char *l = strstr (st, "VmSize:");
      g_assert_nonnull (l);
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = g_ascii_strtoull (l + 7, NULL, 10) * 1024 + (4u << 20);
      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      /* the device session, made at the first product, needs them */
      g_assert_false (op->klass->forward (op, CTR_SUBSET_ALL, X, Y, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      g_printerr ("%s\n", error->message);
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*SCSR matrix's 8-byte elements*");
}
#endif

int
main (int argc, char **argv)
{
  gboolean want_gpu = FALSE;
  for (int i = 1; i < argc; i++)
    want_gpu |= strstr (argv[i], "/ctr/gpu") != NULL;
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/backend/registry", test_registry);
  g_test_add_func ("/ctr/backend/cpu", test_cpu_backend);
#ifdef CTR_HAVE_CUDA
  g_autoptr (GError) e = NULL;
  CtrCudaDeviceInfo info;
  if (!ctr_cuda_probe (&info, &e))
    {
      if (want_gpu)
        {
          g_printerr ("skipped: %s\n", e->message);
          return 77;
        }
    }
  else
    {
      g_printerr ("device: %s (cc %d.%d, %.1f GiB, %.0f GB/s peak)\n", info.name, info.cc_major, info.cc_minor,
                  info.total_bytes / 1073741824.0, info.bandwidth_gbs);
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        {
          g_autofree char *p1 = g_strdup_printf ("/ctr/gpu/products/%s", cases[i].name);
          g_autofree char *p2 = g_strdup_printf ("/ctr/gpu/solvers/%s", cases[i].name);
          g_autofree char *p3 = g_strdup_printf ("/ctr/gpu/reports/%s", cases[i].name);
          g_test_add_data_func (p1, &cases[i], test_products);
          g_test_add_data_func (p2, &cases[i], test_solvers);
          g_test_add_data_func (p3, &cases[i], test_reports);
          g_autofree char *p4 = g_strdup_printf ("/ctr/gpu/methods/%s", cases[i].name);
          g_test_add_data_func (p4, &cases[i], test_methods);
          g_autofree char *p5 = g_strdup_printf ("/ctr/gpu/natural/%s", cases[i].name);
          g_test_add_data_func (p5, &cases[i], test_natural);
        }
      g_test_add_func ("/ctr/gpu/selfcheck/sound", test_selfcheck);
#ifdef CTR_EMU_BUILD
      g_test_add_func ("/ctr/gpu/selfcheck/wrong-kernel", test_selfcheck_wrong);
      g_test_add_func ("/ctr/gpu/products/no-abort-expand", test_no_abort_expand);
#endif
    }
#else
  if (want_gpu)
    {
      g_printerr ("skipped: this build has no CUDA backend (-Dcuda=disabled or nvcc not on PATH)\n");
      return 77;
    }
#endif
  return g_test_run ();
}
