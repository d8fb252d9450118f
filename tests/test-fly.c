/* test-fly.c — the on-the-fly projector pair (sysmat/ctr-fly-op.h): its
 * products equal the stored CSR matrix's (ctr-csr-op.h) and the SCSR
 * matrix's (ctr-scsr-op.h) to 1e-5 relative for every ray model, on fan and
 * parallel beam, one slice and a stack; subsets of one view and of one
 * orbit; column and row sums; the ART update; the pair is adjoint; and the
 * adjoint gives the same bits on every call. */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-csr-op.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-scsr-op.h"
#include "sysmat/ctr-sysmat.h"
#include "ctr-test-arrays.h"

typedef struct {
  const char *name;
  CtrBeam beam;
  CtrDetectorShape shape;
  guint n;        /* image n × n */
  guint cols;
  double offset;  /* detector offset in columns */
  gboolean uniform;
} Case;

static const Case cases[] = {
  { "parallel", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 48, 72, 0, TRUE },
  { "parallel-odd-offset", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 47, 69, 2.5, FALSE },
  { "fan-flat", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 48, 96, 0, TRUE },
  { "fan-curved-offset", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 49, 95, -1.25, FALSE },
};

static CtrGeometry *
make_geometry (const Case *c, guint views, guint rows)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, views);
  g->n_cols = c->cols;
  g->n_rows = rows;
  g->pitch_v_mm = 1.0;
  g->shape = c->shape;
  const double fov = 70.0;
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
  for (guint k = 0; k < views; k++)
    g->angles[k] = 2 * G_PI * k / views + (c->uniform ? 0.0 : 0.01 * sin (k));
  return g;
}

#define TOL 1e-5

/* A pixel side no ray of a symmetric view runs along: there Siddon's length
 * goes to either neighbour, and a row mapped from its orbit's canonical view
 * (SCSR, and the on-the-fly operator with orbit subsets) may pick the other
 * one than the row computed directly (both exact; with 140 mm / n the
 * parallel case has such rays and differs by whole elements). */
#define PIXEL_MM(c) (137.0 / (c)->n)

/* Forward and adjoint of @fly against @ref (the same native layouts) on
 * CTR_SUBSET_ALL and on a few subsets. */
static void
compare_products (CtrOperator *fly, CtrOperator *ref, const float *x, const float *y)
{
  const gsize ni = fly->image_size, nd = fly->data_size;
  g_assert_cmpuint (ni, ==, ref->image_size);
  g_assert_cmpuint (nd, ==, ref->data_size);
  g_assert_cmpuint (fly->n_subsets, ==, ref->n_subsets);
  g_autofree float *yf = g_new0 (float, nd), *yr = g_new0 (float, nd);
  g_autofree float *xf = g_new0 (float, ni), *xr = g_new0 (float, ni);
  const guint subsets[] = { CTR_SUBSET_ALL, 0, fly->n_subsets / 3, fly->n_subsets - 1 };
  for (guint k = 0; k < G_N_ELEMENTS (subsets); k++)
    {
      memset (yf, 0, nd * sizeof (float));
      memset (yr, 0, nd * sizeof (float));
      g_assert_true (fly->klass->forward (fly, subsets[k], x, yf, NULL));
      g_assert_true (ref->klass->forward (ref, subsets[k], x, yr, NULL));
      g_assert_cmpfloat (test_rel_diff (yf, yr, nd), <=, TOL);
      g_assert_true (fly->klass->adjoint (fly, subsets[k], y, xf, NULL));
      g_assert_true (ref->klass->adjoint (ref, subsets[k], y, xr, NULL));
      g_assert_cmpfloat (test_rel_diff (xf, xr, ni), <=, TOL);
      g_assert_true (fly->klass->column_sums (fly, subsets[k], xf, NULL));
      g_assert_true (ref->klass->column_sums (ref, subsets[k], xr, NULL));
      g_assert_cmpfloat (test_rel_diff (xf, xr, fly->scale_size), <=, TOL);
    }
  fly->klass->row_sums (fly, yf, NULL);
  ref->klass->row_sums (ref, yr, NULL);
  g_assert_cmpfloat (test_rel_diff (yf, yr, nd), <=, TOL);
  fly->klass->row_sums (fly, NULL, yf);
  ref->klass->row_sums (ref, NULL, yr);
  g_assert_cmpfloat (test_rel_diff (yf, yr, nd), <=, TOL);
  for (guint t = 0; t < fly->n_subsets; t++)
    {
      double kf = 0, kr = 0;
      g_assert_true (fly->klass->subset_overlap (fly, t, &kf, NULL));
      g_assert_true (ref->klass->subset_overlap (ref, t, &kr, NULL));
      g_assert_cmpfloat (kf, ==, kr);
    }
}

/* <A x, y> = <x, Aᵀ y> on the on-the-fly pair: relative to Σ|(Ax)_i y_i|
 * (as tests/test-sysmat.c) for vectors of both signs, and relative to the
 * products themselves for non-negative ones (no cancellation). */
static void
check_adjoint (CtrOperator *fly, const float *x, const float *y)
{
  g_autofree float *ax = g_new0 (float, fly->data_size), *aty = g_new0 (float, fly->image_size);
  g_autofree float *xp = g_new (float, fly->image_size), *yp = g_new (float, fly->data_size);
  for (gsize q = 0; q < fly->image_size; q++)
    xp[q] = fabsf (x[q]);
  for (gsize i = 0; i < fly->data_size; i++)
    yp[i] = fabsf (y[i]);
  for (int positive = 0; positive <= 1; positive++)
    {
      const float *xx = positive ? xp : x, *yy = positive ? yp : y;
      g_assert_true (fly->klass->forward (fly, CTR_SUBSET_ALL, xx, ax, NULL));
      g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, yy, aty, NULL));
      double lhs = 0, scale = 0;
      for (gsize i = 0; i < fly->data_size; i++)
        {
          lhs += (double) ax[i] * yy[i];
          scale += fabs ((double) ax[i] * yy[i]);
        }
      const double rhs = test_dot (xx, aty, fly->image_size);
      g_assert_cmpfloat (fabs (lhs - rhs), <=, 1e-5 * (positive ? fabs (lhs) : scale));
    }
}

/* The sequential (ART) update of one view, and the fused subset updates. */
static void
compare_updates (CtrOperator *fly, CtrOperator *ref, const float *x, const float *b)
{
  const gsize ni = fly->image_size, nd = fly->data_size;
  g_autofree float *coef = g_new (float, nd);
  for (gsize i = 0; i < nd; i++)
    coef[i] = 0.01f;
  g_autofree float *xf = g_memdup2 (x, ni * sizeof (float)), *xr = g_memdup2 (x, ni * sizeof (float));
  const CtrUpdateFlags flags[] = { CTR_UPDATE_NONNEG, CTR_UPDATE_COLUMN_SCALE,
                                   fly->can_update_sequential ? CTR_UPDATE_SEQUENTIAL : 0 };
  for (guint k = 0; k < G_N_ELEMENTS (flags); k++)
    {
      g_assert_true (fly->klass->update (fly, 1, xf, b, coef, 0.9f, NULL, flags[k], NULL));
      g_assert_true (ref->klass->update (ref, 1, xr, b, coef, 0.9f, NULL, flags[k], NULL));
      g_assert_cmpfloat (test_rel_diff (xf, xr, ni), <=, TOL);
    }
}

static void
test_against_csr (gconstpointer data)
{
  const Case *c = data;
  for (int model = CTR_RAY_MODEL_JOSEPH; model <= CTR_RAY_MODEL_AREA; model++)
    for (guint ns = 1; ns <= 3; ns += 2)
      for (int orbits = 0; orbits <= 1; orbits++)
        {
          g_autoptr (CtrGeometry) g = make_geometry (c, 40, ns);
          CtrGrid grid = ctr_grid_square (c->n, PIXEL_MM (c), ns, 1);
          g_autoptr (GError) error = NULL;
          g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, model, NULL, &error);
          g_assert_no_error (error);
          CtrSymmetry *s1 = orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL) : NULL;
          CtrSymmetry *s2 = orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL) : NULL;
          g_autoptr (CtrOperator) ref = ctr_csr_op_new (a, s1, g, &grid, &error);
          g_assert_no_error (error);
          g_autoptr (CtrOperator) fly = ctr_fly_op_new (g, &grid, model, s2, &error);
          g_assert_no_error (error);
          g_assert_cmpstr (fly->klass->name, ==, "cpu-fly");
          g_test_message ("%s model %d, %u slices, %s", c->name, model, ns, fly->description);
          g_autofree float *x = g_new (float, fly->image_size), *y = g_new (float, fly->data_size);
          test_fill_random (x, fly->image_size, 1);
          test_fill_random (y, fly->data_size, 2);
          compare_products (fly, ref, x, y);
          check_adjoint (fly, x, y);
          for (gsize q = 0; q < fly->image_size; q++)
            x[q] = fabsf (x[q]);
          compare_updates (fly, ref, x, y);
        }
}

/* Against the SCSR operator, whose native layouts differ: natural images in
 * and out; the forward products compared through <A x, y> over natural
 * data gathered into each operator's layout, the adjoint products
 * image by image. */
/* The products on natural arrays (sysmat/ctr-operator-natural.h) of the
 * packed, permuted SCSR operator @scsr equal those of the on-the-fly @fly:
 * data_scatter inverts data_gather (every natural ray back in place), and
 * the pair is adjoint on natural arrays. */
static void
check_natural (CtrOperator *scsr, CtrOperator *fly, const float *x, const float *p)
{
  const CtrGeometry *g = fly->geometry;
  const gsize ni = (gsize) fly->grid.nx * fly->grid.ny * fly->grid.nz, nd = (gsize) g->n_views * g->n_rows * g->n_cols;
  g_autofree float *ys = g_new0 (float, scsr->data_size), *yf = g_new0 (float, fly->data_size);
  g_autofree float *ps = g_new (float, nd), *pf = g_new (float, nd);
  scsr->klass->data_gather (scsr, p, ys);
  scsr->klass->data_scatter (scsr, ys, ps);
  fly->klass->data_gather (fly, p, yf);
  fly->klass->data_scatter (fly, yf, pf);
  g_assert_cmpmem (ps, nd * sizeof (float), p, nd * sizeof (float));
  g_assert_cmpmem (pf, nd * sizeof (float), p, nd * sizeof (float));
  g_autofree float *as = g_new (float, nd), *af = g_new (float, nd);
  g_autofree float *bs = g_new (float, ni), *bf = g_new (float, ni);
  g_assert_true (ctr_operator_forward_natural (scsr, x, as, NULL));
  g_assert_true (ctr_operator_forward_natural (fly, x, af, NULL));
  g_assert_cmpfloat (test_rel_diff (as, af, nd), <=, TOL);
  g_assert_true (ctr_operator_adjoint_natural (scsr, p, bs, NULL));
  g_assert_true (ctr_operator_adjoint_natural (fly, p, bf, NULL));
  g_assert_cmpfloat (test_rel_diff (bs, bf, ni), <=, TOL);
  const double lhs = test_dot (as, p, nd), rhs = test_dot (x, bs, ni);
  g_assert_cmpfloat (fabs (lhs - rhs), <=, TOL * fabs (lhs));
}

static void
test_against_scsr (gconstpointer data)
{
  const Case *c = data;
  for (int model = CTR_RAY_MODEL_JOSEPH; model <= CTR_RAY_MODEL_AREA; model++)
    {
      const guint ns = 2;
      g_autoptr (CtrGeometry) g = make_geometry (c, 40, ns);
      CtrGrid grid = ctr_grid_square (c->n, PIXEL_MM (c), ns, 1);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, model, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (CtrOperator) scsr = ctr_scsr_op_new (m, g, &grid, &error);
      g_assert_no_error (error);
      g_autoptr (CtrOperator) fly = ctr_fly_op_new (g, &grid, model, ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL),
                                                    &error);
      g_assert_no_error (error);
      const gsize ni = (gsize) grid.nx * grid.ny * ns, nd = (gsize) g->n_views * g->n_cols * ns;
      g_autofree float *x = g_new (float, ni), *p = g_new (float, nd);
      test_fill_random (x, ni, 3);
      test_fill_random (p, nd, 4);
      g_autofree float *xs = g_new0 (float, scsr->image_size), *ys = g_new0 (float, scsr->data_size);
      g_autofree float *axs = g_new0 (float, scsr->data_size), *atys = g_new0 (float, scsr->image_size);
      g_autofree float *yf = g_new0 (float, fly->data_size), *axf = g_new0 (float, fly->data_size);
      g_autofree float *atyf = g_new0 (float, ni), *back = g_new0 (float, ni);
      scsr->klass->image_to_native (scsr, x, xs);
      scsr->klass->data_gather (scsr, p, ys);
      fly->klass->data_gather (fly, p, yf);
      g_assert_true (scsr->klass->forward (scsr, CTR_SUBSET_ALL, xs, axs, NULL));
      g_assert_true (fly->klass->forward (fly, CTR_SUBSET_ALL, x, axf, NULL));
      const double ds = test_dot (axs, ys, scsr->data_size), df = test_dot (axf, yf, fly->data_size);
      g_assert_cmpfloat (fabs (ds - df), <=, TOL * fabs (ds));
      g_assert_true (scsr->klass->adjoint (scsr, CTR_SUBSET_ALL, ys, atys, NULL));
      scsr->klass->image_from_native (scsr, atys, back);
      g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, yf, atyf, NULL));
      g_assert_cmpfloat (test_rel_diff (atyf, back, ni), <=, TOL);
      check_natural (scsr, fly, x, p);
    }
}

/* The adjoint is reproducible: the same input gives the same bits on every
 * call (a given thread count), with and without orbits, so a run on the fly
 * (--matrix none) repeats exactly. */
static void
test_reproducible (void)
{
  const Case *c = &cases[2];
  for (int orbits = 0; orbits <= 1; orbits++)
    {
      g_autoptr (CtrGeometry) g = make_geometry (c, 180, 1);
      CtrGrid grid = ctr_grid_square (96, PIXEL_MM (c), 1, 1);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrOperator) fly = ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_AREA,
                                                    orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL) : NULL,
                                                    &error);
      g_assert_no_error (error);
      g_autofree float *y = g_new (float, fly->data_size);
      g_autofree float *first = g_new (float, fly->image_size), *again = g_new (float, fly->image_size);
      test_fill_random (y, fly->data_size, 9);
      g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, y, first, NULL));
      for (guint rep = 0; rep < 30; rep++)
        {
          g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, y, again, NULL));
          g_assert_cmpmem (again, fly->image_size * sizeof (float), first, fly->image_size * sizeof (float));
        }
    }
}

/* The traversal that projects and back-projects at once (forward_update,
 * the reported SIRT's iteration) and the accumulated update (update with
 * D, the unreported SIRT's), which compute each row once for both where the
 * adjoint is by buckets: the same Y and D, bit for bit, as forward, the
 * weights, then adjoint; for the three ray models (area by the pixel
 * sweep), with and without orbits, on a stack of 2 slices; and from the
 * image of zeros (X NULL: Y = 0). */
static void
test_forward_update (void)
{
  const Case *c = &cases[3];
  const CtrRayModel models[] = { CTR_RAY_MODEL_JOSEPH, CTR_RAY_MODEL_SIDDON, CTR_RAY_MODEL_AREA };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    for (int orbits = 0; orbits <= 1; orbits++)
      {
        g_autoptr (CtrGeometry) g = make_geometry (c, 120, 2);
        CtrGrid grid = ctr_grid_square (c->n, PIXEL_MM (c), 2, 1);
        g_autoptr (GError) error = NULL;
        g_autoptr (CtrOperator) fly = ctr_fly_op_new (g, &grid, models[m],
                                                      orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL) : NULL,
                                                      &error);
        g_assert_no_error (error);
        g_assert_nonnull (fly->klass->forward_update);
        const gsize ni = fly->image_size, nd = fly->data_size;
        g_autofree float *x = g_new (float, ni), *b = g_new (float, nd), *coef = g_new (float, nd);
        g_autofree float *y1 = g_new (float, nd), *v = g_new (float, nd), *d1 = g_new (float, ni);
        g_autofree float *y2 = g_new (float, nd), *d2 = g_new0 (float, ni);
        test_fill_random (x, ni, 3);
        test_fill_random (b, nd, 4);
        test_fill_random (coef, nd, 5);
        for (gsize i = 0; i < nd; i += 7)
          coef[i] = 0.f;   /* dead rays */
        for (int zero = 0; zero <= 1; zero++)
          {
            if (zero)
              memset (y1, 0, nd * sizeof (float));
            else
              g_assert_true (fly->klass->forward (fly, CTR_SUBSET_ALL, x, y1, NULL));
            for (gsize i = 0; i < nd; i++)
              v[i] = coef[i] * (b[i] - y1[i]);
            g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, v, d1, NULL));
            memset (d2, 0, ni * sizeof (float));
            g_assert_true (fly->klass->forward_update (fly, zero ? NULL : x, b, coef, y2, d2, &error));
            g_assert_no_error (error);
            g_assert_cmpmem (y2, nd * sizeof (float), y1, nd * sizeof (float));
            g_assert_cmpmem (d2, ni * sizeof (float), d1, ni * sizeof (float));
          }
        /* one subset's accumulated update: step · coef ∘ (b − A_S x) */
        const guint s = fly->n_subsets > 1 ? 1 : 0;
        g_assert_true (fly->klass->forward (fly, s, x, y1, NULL));
        for (gsize i = 0; i < nd; i++)
          v[i] = 0.75f * coef[i] * (b[i] - y1[i]);
        g_assert_true (fly->klass->adjoint (fly, s, v, d1, NULL));
        memset (d2, 0, ni * sizeof (float));
        g_assert_true (fly->klass->update (fly, s, x, b, coef, 0.75f, d2, 0, &error));
        g_assert_no_error (error);
        g_assert_cmpmem (d2, ni * sizeof (float), d1, ni * sizeof (float));
      }
}

/* A run that asks for no κ (parallel ART's cuART step) gets the same row
 * sums, bit for bit, from the pass without the overlaps' counts; κ asked
 * for after all still comes (by a pass of its own) and equals the one made
 * with the sums. */
static void
test_skip_overlaps (void)
{
  const Case *c = &cases[2];
  g_autoptr (CtrGeometry) g = make_geometry (c, 180, 1);
  CtrGrid grid = ctr_grid_square (64, PIXEL_MM (c), 1, 1);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrOperator) with = ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_AREA,
                                                 ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL), &error);
  g_assert_no_error (error);
  g_autoptr (CtrOperator) without = ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_AREA,
                                                    ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL), &error);
  g_assert_no_error (error);
  ctr_fly_op_skip_overlaps (without);
  g_assert_cmpuint (with->n_subsets, >, 1);
  const gsize n = with->data_size;
  g_autofree float *sq1 = g_new (float, n), *sum1 = g_new (float, n);
  g_autofree float *sq2 = g_new (float, n), *sum2 = g_new (float, n);
  with->klass->row_sums (with, sq1, sum1);
  without->klass->row_sums (without, sq2, sum2);
  g_assert_cmpmem (sq1, n * sizeof (float), sq2, n * sizeof (float));
  g_assert_cmpmem (sum1, n * sizeof (float), sum2, n * sizeof (float));
  for (guint s = 0; s < with->n_subsets; s++)
    {
      double k1 = 0, k2 = 0;
      g_assert_true (with->klass->subset_overlap (with, s, &k1, &error));
      g_assert_true (without->klass->subset_overlap (without, s, &k2, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (k1, >=, 1);
      g_assert_cmpfloat (k1, ==, k2);
    }
}

/* The area model's adjoint by the pixel sweep (ctr-area-sweep.h) is taken
 * where it applies, with AVX2 and without, and equals the ray-driven
 * buckets' adjoint to 1e-5; the sweep gives the same bits with one thread
 * as with three (the buckets only for a given thread count). */
static void
test_sweep (void)
{
  for (gsize ci = 0; ci < G_N_ELEMENTS (cases); ci++)
    {
      const Case *c = &cases[ci];
      g_autoptr (CtrGeometry) g = make_geometry (c, 40, 1);
      CtrGrid grid = ctr_grid_square (c->n, PIXEL_MM (c), 1, 1);
      g_autoptr (GError) error = NULL;
      const char *modes[][2] = { { NULL, NULL }, { NULL, "generic" }, { "0", NULL } };
      float *back[G_N_ELEMENTS (modes)][2];
      g_autofree float *y = NULL;
      gsize ni = 0;
      for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
        for (int threads = 0; threads < 2; threads++)
          {
            g_setenv ("CTR_FLY_SWEEP", modes[m][0] ? modes[m][0] : "1", TRUE);
            if (modes[m][1])
              g_setenv ("CTR_AREA_SIMD", modes[m][1], TRUE);
            else
              g_unsetenv ("CTR_AREA_SIMD");
            const int saved = omp_get_max_threads ();
            omp_set_num_threads (threads ? 3 : 1);
            g_autoptr (CtrOperator) fly = ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
            omp_set_num_threads (saved);
            g_assert_no_error (error);
            g_assert_nonnull (strstr (fly->description, modes[m][0] ? "ray by ray" : "pixel sweep"));
            if (y == NULL)
              {
                y = g_new (float, fly->data_size);
                test_fill_random (y, fly->data_size, 7);
              }
            ni = fly->image_size;
            back[m][threads] = g_new (float, ni);
            g_assert_true (fly->klass->adjoint (fly, CTR_SUBSET_ALL, y, back[m][threads], NULL));
          }
      g_unsetenv ("CTR_FLY_SWEEP");
      g_unsetenv ("CTR_AREA_SIMD");
      for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
        {
          if (modes[m][0] == NULL)
            g_assert_cmpmem (back[m][0], ni * sizeof (float), back[m][1], ni * sizeof (float));
          g_assert_cmpfloat (test_rel_diff (back[m][0], back[2][0], ni), <=, TOL);
        }
      for (gsize m = 0; m < G_N_ELEMENTS (modes); m++)
        for (int threads = 0; threads < 2; threads++)
          g_free (back[m][threads]);
    }
}

static void
test_errors (void)
{
  g_autoptr (CtrGeometry) g = make_geometry (&cases[0], 8, 2);
  CtrGrid grid = ctr_grid_square (16, 1.0, 3, 1);
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_fly_op_new (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  grid.nz = 2;
  g_assert_null (ctr_fly_op_new (g, &grid, (CtrRayModel) 7, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/core/fly/csr/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/ctr/core/fly/scsr/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_against_csr);
      g_test_add_data_func (p2, &cases[i], test_against_scsr);
    }
  g_test_add_func ("/ctr/core/fly/errors", test_errors);
  g_test_add_func ("/ctr/core/fly/reproducible", test_reproducible);
  g_test_add_func ("/ctr/core/fly/sweep", test_sweep);
  g_test_add_func ("/ctr/core/fly/skip-overlaps", test_skip_overlaps);
  g_test_add_func ("/ctr/core/fly/forward-update", test_forward_update);
  return g_test_run ();
}
