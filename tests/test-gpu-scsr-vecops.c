/* test-gpu-scsr-vecops.c — device-resident iterations on the fan/parallel
 * SCSR operator (issue 37): the vector table of "cuda-scsr"
 * (gpu/ctr-cuda-scsr-vecops.c over the shared gpu/ctr-cuda-vecops.*)
 * against the host's (core/solve/ctr-vec-host.c), CGLS, PWLS and ASD-POCS
 * through the plan on "cuda" against "cpu", and what crosses PCIe per
 * iteration.  Built on the emulation harness only (the transfers are the
 * harness's count: ctr_emu_copies).
 *
 * Problems: a 64² parallel beam of 24 views × 72 columns (one slice) and a
 * 64² × 2 fan beam (flat detector, 24 views × 72 columns, two dead columns
 * in slice 1): both D4-symmetric, so the native image is the packed one
 * (K = 8 slots a rep) and the penalties run through the permutation to the
 * natural image and back.
 *
 * Tolerances, max |GPU − CPU| / max |CPU|:
 *   element-wise operations 1e-6 and reductions 1e-12 relative
 *     (tests/test-gpu-vecops.c); products, subset steps, penalty gradients
 *     and the TV descent 1e-5 (tests/test-gpu.c's products: the transposed
 *     product's atomics add in another order).
 *   CGLS, PWLS (4 iterations) 1e-3, ASD-POCS (4 iterations) 1e-2: as
 *     tests/test-gpu-vecops.c (step sizes are quotients of inner products
 *     and the TV step is normalised, which amplify rounding).
 *
 * Metrics against a reference (a disc of 20 mm): each report's equal
 * ctr_quality_compute of its image within 1e-9 relative (measured on the
 * device through the packed layout's permutation: issue 37).
 *
 * Transfers: an unreported iteration moves no image and no data between
 * host and device, only the inner products' doubles: at most
 * XFER_PER_ITERATION bytes each way (an eighth of one image; with the
 * host's vectors every product and subset step moved the image up and a
 * result down: PWLS 2 images a subset); a reported one also brings the
 * image back once (the driver's sync).  Counted on the fan.  The same count
 * for PWLS with the host's vectors (CTR_VECOPS=host, the path every run
 * took before) must exceed one image each way per iteration: the measure
 * sees the trips.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-recon-plan.h"
#include "base/ctr-random.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-scsr-op.h"
#include "sysmat/ctr-sysmat.h"
#include "ctr-cuda.h"
#include "ctr-emu.h"
#include "solve/ctr-vec.h"

#define N 64
#define VIEWS 24
#define COLS 72

typedef struct {
  const char *name;
  CtrBeam beam;
  guint nz;
} Case;

static const Case cases[] = {
  { "parallel", CTR_BEAM_PARALLEL, 1 },
  { "fan", CTR_BEAM_FAN, 2 },
};

static CtrGeometry *
make_geometry (const Case *c)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, VIEWS);
  g->n_cols = COLS;
  g->n_rows = c->nz;
  g->pitch_v_mm = 1.0;
  const double fov = 60.0;
  if (c->beam == CTR_BEAM_PARALLEL)
    g->pitch_u = 2 * fov / COLS;
  else
    {
      g->sod_mm = 250;
      g->sdd_mm = 450;
      g->pitch_u = 2 * g->sdd_mm * tan (asin (fov / g->sod_mm)) / COLS;
    }
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / VIEWS);
  return g;
}

static CtrGrid
make_grid (const Case *c)
{
  return ctr_grid_square (N, 80.0 / N, c->nz, 1.0);
}

/* A blob and a bar per slice; consistent data, slice 1 with two dead columns. */
static CtrProjections *
make_data (const CtrGeometry *g, const CtrGrid *grid)
{
  g_autoptr (CtrVolume) x = ctr_volume_new (grid, NULL);
  for (guint s = 0; s < grid->nz; s++)
    for (guint iy = 0; iy < grid->ny; iy++)
      for (guint ix = 0; ix < grid->nx; ix++)
        {
          const double px = ctr_grid_x (grid, ix), py = ctr_grid_y (grid, iy) - 4.0 * s;
          x->data[((gsize) s * grid->ny + iy) * grid->nx + ix] =
            (float) (0.02 * exp (-(px * px + py * py) / (2 * 12.0 * 12.0)) + (px > 5 && px < 15 && py > -8 ? 0.01 : 0));
        }
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_assert_nonnull (a);
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  g_autofree float *y = g_new (float, (gsize) g->n_views * g->n_cols);
  for (guint s = 0; s < g->n_rows; s++)
    {
      ctr_sysmat_apply (a, ctr_volume_slice (x, s), y, 1);
      const guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < g->n_views; v++)
        memcpy (ctr_projections_view (p, v) + (gsize) row * g->n_cols, y + (gsize) v * g->n_cols,
                g->n_cols * sizeof (float));
    }
  p->mask = g_new (guint8, (gsize) g->n_rows * g->n_cols);
  memset (p->mask, 1, (gsize) g->n_rows * g->n_cols);
  if (g->n_rows > 1)
    {
      const guint row1 = ctr_geometry_slice_row (g, 1);
      p->mask[(gsize) row1 * g->n_cols + 5] = p->mask[(gsize) row1 * g->n_cols + 40] = 0;
    }
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
/* The methods' runs measure against a reference (issue 37: on the device,
 * through the packed layout's permutation, gpu/ctr-cuda-quality.c): the
 * largest relative difference between a report's metrics and
 * ctr_quality_compute of the image it carries. */
static CtrVolume *reference;
static double metrics_diff;

static void
count_reports (const CtrIterStats *s, gpointer data)
{
  n_reports++;
  if (reference != NULL && s->image != NULL)
    {
      CtrQuality q;
      g_assert_true (s->has_reference);
      g_assert_true (ctr_quality_compute (s->image, reference, 20.0, &q, NULL));
      const double d[3] = { s->rmse - q.rmse, s->psnr - q.psnr, s->ssim - q.ssim };
      const double m[3] = { q.rmse, q.psnr, q.ssim };
      for (int k = 0; k < 3; k++)
        metrics_diff = MAX (metrics_diff, isfinite (d[k]) ? fabs (d[k]) / fabs (m[k]) : INFINITY);
    }
}

/* One run through the plan; @copies (nullable): the copies it made. */
static CtrVolume *
run_plan (const Case *c, const char *backend, CtrMethod m, guint iterations, gboolean report, CtrEmuCopies *copies)
{
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (CtrProjections) p = make_data (g, &grid);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = iterations;
  o.backend = backend;
  o.tv_iterations = 10;
  o.metrics_radius_mm = 20.0;
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, backend);
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  g_assert_cmpstr (info.operator_name, ==, strcmp (backend, "cpu") == 0 ? "cpu-scsr" : "cuda-scsr");
  CtrEmuCopies before, after;
  ctr_emu_copies (&before);
  n_reports = 0;
  CtrVolume *v = ctr_recon_plan_execute (plan, p, reference, report ? count_reports : NULL, NULL, NULL, &e);
  ctr_emu_copies (&after);
  g_assert_no_error (e);
  g_assert_nonnull (v);
  if (report)
    g_assert_cmpuint (n_reports, ==, iterations);
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

/* test data: case index · 16 + method index */
#define CASE_OF(d) (&cases[GPOINTER_TO_UINT (d) / 16])
#define METHOD_OF(d) (GPOINTER_TO_UINT (d) % 16)

/* Each method device-resident equals the CPU backend's. */
static void
test_methods (gconstpointer data)
{
  const Case *c = CASE_OF (data);
  const guint k = METHOD_OF (data);
  CtrGrid grid = make_grid (c);
  reference = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    reference->data[i] = (float) ((i * 7) % 17) / 17.0f * 0.05f;
  metrics_diff = 0;
  g_autoptr (CtrVolume) cpu = run_plan (c, "cpu", methods[k].m, 4, TRUE, NULL);
  g_autoptr (CtrVolume) gpu = run_plan (c, "cuda", methods[k].m, 4, TRUE, NULL);
  g_clear_pointer (&reference, ctr_volume_unref);
  const double d = max_rel_diff (gpu->data, cpu->data, ctr_grid_size (&cpu->grid));
  g_test_message ("%s, %s (4 iterations, reported): GPU vs CPU %.2e (tolerance %.0e); each report's metrics "
                  "(against a reference, in a disc of 20 mm) vs ctr_quality_compute of its image %.2e (tolerance 1e-9)",
                  c->name, ctr_method_name (methods[k].m), d, methods[k].tol, metrics_diff);
  g_assert_cmpfloat (d, <=, methods[k].tol);
  g_assert_cmpfloat (metrics_diff, <=, 1e-9);
}

/* The image is not moved per product or subset: the copies of 3 iterations
 * minus those of 1, per iteration, unreported and reported. */
static void
test_transfers (gconstpointer data)
{
  const Case *c = CASE_OF (data);
  const guint k = METHOD_OF (data);
  CtrGrid grid = make_grid (c);
  const guint64 image_bytes = ctr_grid_size (&grid) * sizeof (float), xfer = image_bytes / 8;
  for (int report = 0; report < 2; report++)
    {
      CtrEmuCopies c2, c5;
      g_autoptr (CtrVolume) v2 = run_plan (c, "cuda", methods[k].m, 1, report, &c2);
      g_autoptr (CtrVolume) v5 = run_plan (c, "cuda", methods[k].m, 3, report, &c5);
      const double up = (c5.h2d_bytes - (double) c2.h2d_bytes) / 2, down = (c5.d2h_bytes - (double) c2.d2h_bytes) / 2;
      const double d2d = (c5.d2d_bytes - (double) c2.d2d_bytes) / 2;
      g_test_message ("%s, %s, %s: per iteration %.0f bytes up (%.1f calls), %.0f down (%.1f calls), %.0f within "
                      "the device; image %" G_GUINT64_FORMAT " bytes; the run's set-up and end %.0f up, %.0f down",
                      c->name, ctr_method_name (methods[k].m), report ? "reported" : "unreported", up,
                      (c5.h2d_calls - (double) c2.h2d_calls) / 2, down, (c5.d2h_calls - (double) c2.d2h_calls) / 2,
                      d2d, image_bytes, c2.h2d_bytes - up, c2.d2h_bytes - down);
      g_assert_cmpfloat (up, <=, xfer);
      /* the packed image the driver's sync brings back is at most 2 × the natural one here */
      g_assert_cmpfloat (down, <=, (report ? 2 * image_bytes : 0) + xfer);
    }
  /* PWLS with the host's vectors on the same device (CTR_VECOPS=host: how
   * every method ran before the table): the count sees the image go up and
   * come back every subset, far above the bound. */
  if (methods[k].m != CTR_METHOD_PWLS)
    return;
  CtrEmuCopies h2, h5;
  g_setenv ("CTR_VECOPS", "host", TRUE);
  g_autoptr (CtrVolume) w2 = run_plan (c, "cuda", methods[k].m, 1, FALSE, &h2);
  g_autoptr (CtrVolume) w5 = run_plan (c, "cuda", methods[k].m, 3, FALSE, &h5);
  g_unsetenv ("CTR_VECOPS");
  const double up = (h5.h2d_bytes - (double) h2.h2d_bytes) / 2, down = (h5.d2h_bytes - (double) h2.d2h_bytes) / 2;
  g_test_message ("%s, %s, host vectors: per iteration %.0f bytes up (%.1f calls), %.0f down (%.1f calls)", c->name,
                  ctr_method_name (methods[k].m), up, (h5.h2d_calls - (double) h2.h2d_calls) / 2, down,
                  (h5.d2h_calls - (double) h2.d2h_calls) / 2);
  g_assert_cmpfloat (up, >, image_bytes);
  g_assert_cmpfloat (down, >, image_bytes);
}

/* ---- each operation of the device's table against the host's ---- */

typedef struct {
  CtrOperator *op[2];   /* cpu-scsr (the host's table), cuda-scsr (the device's) */
  CtrVecs vs[2];
  float *img[4], *dat[4];
  gsize ni, nd;
} Pair;

static void
fill_random (float *x, gsize n, guint64 seed, double lo, double hi)
{
  CtrRng r;
  ctr_rng_init (&r, seed, 0);
  for (gsize i = 0; i < n; i++)
    x[i] = (float) (lo + (hi - lo) * ctr_rng_uniform (&r));
}

/* A random natural image made native (slots of one pixel agree, as in a run). */
static void
random_native (CtrOperator *op, float *X, guint64 seed, double lo)
{
  g_autofree float *x = g_new (float, ctr_grid_size (&op->grid));
  fill_random (x, ctr_grid_size (&op->grid), seed, lo, 1.0);
  op->klass->image_to_native (op, x, X);
}

/* Random natural data made native (padding lanes 0, as in a run). */
static void
random_data (CtrOperator *op, float *Y, guint64 seed)
{
  const gsize n = (gsize) op->geometry->n_views * op->geometry->n_rows * op->geometry->n_cols;
  g_autofree float *y = g_new (float, n);
  fill_random (y, n, seed, 0.0, 1.0);
  op->klass->data_gather (op, y, Y);
}

static void
pair_init (Pair *p, const Case *c)
{
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &e);
  g_assert_no_error (e);
  p->op[0] = ctr_scsr_op_new (m, g, &grid, &e);
  g_assert_no_error (e);
  p->op[1] = ctr_cuda_op_new (m, FALSE, g, &grid, &e);
  g_assert_no_error (e);
  for (int b = 0; b < 2; b++)
    {
      g_assert_true (ctr_vecs_init (&p->vs[b], p->op[b], &e));
      g_assert_no_error (e);
    }
  g_assert_true (ctr_vecs_on_host (&p->vs[0]));
  g_assert_false (ctr_vecs_on_host (&p->vs[1]));
  g_assert_cmpstr (p->vs[1].ops->name, ==, "cuda-scsr");
  p->ni = p->op[0]->image_size;
  p->nd = p->op[0]->data_size;
  /* the packed image differs from the natural one: the permutation is exercised */
  g_assert_cmpuint (p->ni, !=, ctr_grid_size (&grid));
  for (int k = 0; k < 4; k++)
    {
      p->img[k] = g_new (float, p->ni);
      p->dat[k] = g_new (float, p->nd);
      random_native (p->op[0], p->img[k], 100 + k, k == 3 ? -0.5 : 0.0);
      random_data (p->op[0], p->dat[k], 200 + k);
    }
  for (gsize i = 0; i < p->nd; i++)
    p->dat[3][i] = (i * 7 + 3) % 5 != 0 ? 1.f : 0.f;
}

static void
pair_clear (Pair *p)
{
  for (int b = 0; b < 2; b++)
    {
      ctr_vecs_clear (&p->vs[b]);
      ctr_operator_unref (p->op[b]);
    }
  for (int k = 0; k < 4; k++)
    {
      g_free (p->img[k]);
      g_free (p->dat[k]);
    }
}

static void
bind2 (Pair *p, CtrVecKind kind, const float *host, CtrVec *v[2])
{
  const gsize n = kind == CTR_VEC_IMAGE ? p->ni : p->nd;
  g_autoptr (GError) e = NULL;
  v[0] = p->vs[0].ops->alloc (&p->vs[0], kind, &e);
  g_assert_no_error (e);
  memcpy (v[0]->host, host, n * sizeof (float));
  v[1] = p->vs[1].ops->bind (&p->vs[1], kind, host, &e);
  g_assert_no_error (e);
}

static double
diff2 (Pair *p, CtrVec *v[2])
{
  g_autofree float *d = g_new (float, v[0]->n);
  g_autoptr (GError) e = NULL;
  g_assert_true (p->vs[1].ops->download (&p->vs[1], v[1], d, &e));
  g_assert_no_error (e);
  return max_rel_diff (d, v[0]->host, v[0]->n);
}

static double
rel (double a, double b)
{
  return fabs (a - b) / MAX (fabs (b), 1e-300);
}

static void
test_ops (gconstpointer data)
{
  const Case *c = CASE_OF (data);
  Pair p;
  pair_init (&p, c);
  g_autoptr (GError) e = NULL;
  CtrVec *x[2], *y[2], *z[2], *w[2], *B[2], *Y[2], *W[2];
  bind2 (&p, CTR_VEC_IMAGE, p.img[0], x);
  bind2 (&p, CTR_VEC_IMAGE, p.img[1], y);
  bind2 (&p, CTR_VEC_IMAGE, p.img[2], z);
  bind2 (&p, CTR_VEC_IMAGE, p.img[3], w);
  bind2 (&p, CTR_VEC_DATA, p.dat[0], B);
  bind2 (&p, CTR_VEC_DATA, p.dat[1], Y);
  bind2 (&p, CTR_VEC_DATA, p.dat[2], W);
  double s[2];
  /* image inner products: the packed layout's weights */
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->dot (&p.vs[b], x[b], y[b], &s[b], &e));
  const double d_red = rel (s[1], s[0]);
  /* the penalties, every potential, and the TV descent, through the permutation */
  double d_pen = 0, d_val = 0;
  for (CtrPenalty kind = CTR_PENALTY_HYPERBOLA; kind <= CTR_PENALTY_ISOTROPIC; kind++)
    {
      for (int b = 0; b < 2; b++)
        g_assert_true (p.vs[b].ops->penalty_gradient (&p.vs[b], kind, 0.05, x[b], y[b], z[b], &e)
                       && p.vs[b].ops->penalty_value (&p.vs[b], kind, 0.05, x[b], &s[b], &e));
      g_assert_no_error (e);
      d_pen = MAX (d_pen, MAX (diff2 (&p, y), diff2 (&p, z)));
      d_val = MAX (d_val, rel (s[1], s[0]));
    }
  g_autofree float *before = g_memdup2 (x[0]->host, x[0]->n * sizeof (float));
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->tv_descent (&p.vs[b], x[b], 5, 0.01, &e));
  const double d_tv = diff2 (&p, x);
  /* the descent moved the image (else equality above proves nothing) */
  g_assert_cmpfloat (max_rel_diff (x[0]->host, before, x[0]->n), >, 1e-4);
  /* products and subset steps: whole and one orbit, scaled, accumulated */
  double d_prod = 0;
  for (int b = 0; b < 2; b++)
    {
      CtrVecs *vs = &p.vs[b];
      g_assert_true (vs->ops->forward (vs, CTR_SUBSET_ALL, x[b], Y[b], &e) && vs->ops->forward (vs, 1, z[b], Y[b], &e)
                     && vs->ops->adjoint (vs, CTR_SUBSET_ALL, B[b], y[b], &e));
      g_assert_no_error (e);
    }
  d_prod = MAX (diff2 (&p, Y), diff2 (&p, y));
  for (int b = 0; b < 2; b++)
    {
      CtrVecs *vs = &p.vs[b];
      g_assert_true (vs->ops->adjoint (vs, 2, B[b], y[b], &e)
                     && vs->ops->update (vs, 3 % p.op[b]->n_subsets, z[b], B[b], W[b], 0.8f, NULL,
                                         CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, &e)
                     && vs->ops->update (vs, CTR_SUBSET_ALL, x[b], B[b], W[b], 0.5f, NULL, CTR_UPDATE_COLUMN_SCALE, &e)
                     && vs->ops->fill (vs, w[b], 0.f, &e)
                     && vs->ops->update (vs, 0, x[b], B[b], W[b], 1.f, w[b], 0, &e)
                     && vs->ops->update (vs, 1, x[b], B[b], W[b], 0.7f, w[b], 0, &e) && vs->ops->reduce (vs, w[b], &e));
      g_assert_no_error (e);
    }
  d_prod = MAX (d_prod, MAX (MAX (diff2 (&p, y), diff2 (&p, z)), MAX (diff2 (&p, x), diff2 (&p, w))));
  g_assert_false (p.vs[1].ops->update (&p.vs[1], 0, x[1], B[1], W[1], 1.f, NULL, CTR_UPDATE_SEQUENTIAL, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_test_message ("%s: device vs host: image dot %.2e, penalty gradients %.2e, values %.2e, TV descent %.2e, "
                  "products and steps %.2e", c->name, d_red, d_pen, d_val, d_tv, d_prod);
  g_assert_cmpfloat (d_red, <=, 1e-12);
  g_assert_cmpfloat (d_pen, <=, 1e-5);
  g_assert_cmpfloat (d_val, <=, 1e-12);
  g_assert_cmpfloat (d_tv, <=, 1e-5);
  g_assert_cmpfloat (d_prod, <=, 1e-5);
  CtrVec **all[] = { x, y, z, w, B, Y, W };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    for (int b = 0; b < 2; b++)
      p.vs[b].ops->free (&p.vs[b], all[i][b]);
  pair_clear (&p);
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
  for (guint ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      g_autofree char *po = g_strdup_printf ("/ctr/gpu-scsr-vecops/ops/%s", cases[ci].name);
      g_test_add_data_func (po, GUINT_TO_POINTER (ci * 16), test_ops);
      for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
        {
          g_autofree char *p1 = g_strdup_printf ("/ctr/gpu-scsr-vecops/methods/%s/%s", cases[ci].name,
                                                 ctr_method_name (methods[k].m));
          g_autofree char *p2 = g_strdup_printf ("/ctr/gpu-scsr-vecops/transfers/%s/%s", cases[ci].name,
                                                 ctr_method_name (methods[k].m));
          g_test_add_data_func (p1, GUINT_TO_POINTER (ci * 16 + k), test_methods);
          if (cases[ci].beam == CTR_BEAM_FAN)   /* the fan's two slices: the general layout */
            g_test_add_data_func (p2, GUINT_TO_POINTER (ci * 16 + k), test_transfers);
        }
    }
  return g_test_run ();
}
