/* test-scsr.c — the symmetry-compressed matrix (cuART §3): every row expanded
 * from SCSR equals the row computed directly, for D4, rotation-only and no
 * symmetry, odd and even sizes; products adjoint and equal to CSR's. */
#include <math.h>
#include <string.h>
#include <omp.h>
#include "ctrecon.h"
#include "ctr-test-solve.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-matrix-cache.h"
#include "sysmat/ctr-scsr-private.h"
#include "sysmat/ctr-blocking.h"
#include <glib/gstdio.h>

typedef struct {
  const char *name;
  CtrBeam beam;
  CtrDetectorShape shape;
  guint n, cols, views;
  double offset;      /* detector offset, columns */
  double shift_mm;    /* grid centre shift */
  guint expect_order;
} Case;

static const Case cases[] = {
  { "d4-fan-curved-even", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 32, 48, 64, 0, 0, 8 },
  { "d4-fan-flat-odd", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 31, 45, 40, 0, 0, 8 },
  { "d4-parallel-odd", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 33, 47, 48, 0, 0, 8 },
  { "c4-fan-offset-even", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 32, 48, 64, 1.25, 0, 4 },
  { "c4-fan-flat-offset-odd", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 29, 41, 36, -0.5, 0, 4 },
  { "none-shifted-grid", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 30, 44, 24, 0, 3.0, 1 },
};

static CtrGeometry *
make_geometry (const Case *c)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, c->views);
  g->n_cols = c->cols;
  g->shape = c->shape;
  const double fov = 60.0;
  if (c->beam == CTR_BEAM_PARALLEL)
    g->pitch_u = 2 * fov / c->cols;
  else
    {
      g->sod_mm = 250;
      g->sdd_mm = 450;
      double gmax = asin (fov / g->sod_mm);
      g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 2 * gmax / c->cols
                                                   : 2 * g->sdd_mm * tan (gmax) / c->cols;
    }
  g->offset_u = c->offset * g->pitch_u;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / c->views);
  return g;
}

static CtrGrid
make_grid (const Case *c)
{
  CtrGrid grid = ctr_grid_square (c->n, 80.0 / c->n, 1, 1);
  grid.cx = c->shift_mm;
  return grid;
}

static void
test_rows (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  for (int model = CTR_RAY_MODEL_JOSEPH; model <= CTR_RAY_MODEL_AREA; model++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, model, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, model, NULL, &error);
      g_assert_no_error (error);
      const CtrSymmetry *sy = ctr_scsr_symmetry (m);
      g_test_message ("%s model %d: %s", c->name, model, sy->reason);
      g_assert_cmpuint (ctr_scsr_order (m), ==, c->expect_order);
      /* Every acquired view is covered exactly once; orbits ≈ views / K. */
      g_assert_cmpuint (ctr_scsr_n_orbits (m) * c->expect_order, >=, c->views);
      if (c->expect_order > 1)
        g_assert_cmpuint (ctr_scsr_n_orbits (m), <=, c->views / c->expect_order + 2);

      const gint64 *rp;
      const guint32 *ci;
      const float *va;
      ctr_sysmat_csr (a, &rp, &ci, &va);
      const guint64 np = (guint64) c->n * c->n;
      g_autofree float *dense = g_new (float, np), *direct = g_new (float, np);
      double worst = 0;
      guint64 nnz = 0;
      for (guint v = 0; v < c->views; v++)
        for (guint col = 0; col < c->cols; col++)
          {
            ctr_scsr_expand_row (m, v, col, dense);
            memset (direct, 0, np * sizeof (float));
            guint64 i = (guint64) v * c->cols + col;
            double mx = 0;
            for (gint64 k = rp[i]; k < rp[i + 1]; k++)
              {
                direct[ci[k]] += va[k];
                mx = MAX (mx, fabs (va[k]));
              }
            nnz += rp[i + 1] - rp[i];
            for (guint64 p = 0; p < np; p++)
              worst = MAX (worst, fabs (dense[p] - direct[p]) / MAX (mx, 1e-30));
          }
      g_test_message ("  max relative row difference %.3g; stored %" G_GUINT64_FORMAT
                      " of %" G_GUINT64_FORMAT " non-zeros", worst, ctr_scsr_nnz (m), nnz);
      g_assert_cmpfloat (worst, <=, 1e-6);
      /* Elements present in one and not the other (beyond the tiny weights a
       * rounding flip of Joseph's interpolation adds) would show here. */
      g_assert_cmpfloat (fabs ((double) ctr_scsr_nnz_expanded (m) - nnz), <=, 1e-3 * nnz + 4);
    }
}

static void
fill_random (float *a, gsize n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  for (gsize i = 0; i < n; i++)
    a[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
}

/* <Ax, y> = <x, Aᵀy> and A x equal to CSR's, for 1 and 11 slices (one full
 * register block of 8 and a remainder). */
static void
test_products (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  /* More parts than threads (5 parts, run on the suite's 2 threads) must
   * give the same products as one part per thread. */
  const int threads = omp_get_max_threads ();
  omp_set_num_threads (5);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  omp_set_num_threads (threads);
  g_assert_cmpuint (ctr_scsr_n_parts (m), ==, 5);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols;
  for (guint ns = 1; ns <= 11; ns += 10)
    {
      g_autofree float *x = g_new (float, np * ns), *y = g_new (float, nr * ns);
      g_autofree float *ax = g_new (float, nr * ns), *ax_csr = g_new (float, nr * ns);
      g_autofree float *aty = g_new (float, np * ns), *aty_csr = g_new (float, np * ns);
      fill_random (x, np * ns, 7);
      fill_random (y, nr * ns, 8);
      g_assert_true (ctr_scsr_apply (m, x, ax, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty, ns, NULL));
      ctr_sysmat_apply (a, x, ax_csr, ns);
      ctr_sysmat_apply_adjoint (a, y, aty_csr, ns);
      double l = 0, r = 0, dmax = 0, amax = 0, bmax = 0, bd = 0;
      for (guint64 i = 0; i < nr * ns; i++)
        {
          l += (double) ax[i] * y[i];
          dmax = MAX (dmax, fabs (ax[i] - ax_csr[i]));
          amax = MAX (amax, fabs (ax_csr[i]));
        }
      for (guint64 p = 0; p < np * ns; p++)
        {
          r += (double) x[p] * aty[p];
          bd = MAX (bd, fabs (aty[p] - aty_csr[p]));
          bmax = MAX (bmax, fabs (aty_csr[p]));
        }
      g_test_message ("%s ns %u: <Ax,y> %.6f <x,A'y> %.6f; |Ax - Ax_csr| %.2g of %.2g; |A'y - csr| %.2g of %.2g",
                      c->name, ns, l, r, dmax, amax, bd, bmax);
      g_assert_cmpfloat (fabs (l - r), <=, 1e-5 * (fabs (l) + 1));
      g_assert_cmpfloat (dmax, <=, 1e-5 * amax);
      g_assert_cmpfloat (bd, <=, 1e-5 * bmax);
    }
}

/* The compact element store (ctr-scsr-private.h): a one-slice K = 8 matrix
 * is born in it (6 bytes an element), a matrix built for more slices is not
 * and moves there on ctr_scsr_compact; the elements read back equal the
 * 8-byte ones, and products of 1 and 11 slices are bit for bit equal. */
static void
test_compact (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c), grid2 = make_grid (c);
  grid2.nz = 2;
  g_autoptr (CtrScsr) born = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid2, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols, nnz = ctr_scsr_nnz (m);
  g_assert_cmpuint (ctr_scsr_nnz (born), ==, nnz);
  const gboolean k8 = c->expect_order == 8;
  const guint64 bytes = ctr_scsr_bytes (m);
  g_assert_cmpuint (ctr_scsr_bytes (born), ==, k8 ? bytes - 2 * nnz : bytes);
  const CtrScsrElem *el;
  g_assert_true (ctr_scsr_arrays (m, NULL, &el, NULL));
  g_autofree CtrScsrElem *back = g_new (CtrScsrElem, MAX (nnz, 1));
  ctr_scsr_read_elems (born, 0, nnz, back);
  g_assert_cmpmem (back, nnz * sizeof (CtrScsrElem), el, nnz * sizeof (CtrScsrElem));
  g_assert_cmpint (ctr_scsr_compact (m), ==, k8);
  g_assert_cmpuint (ctr_scsr_bytes (m), ==, k8 ? bytes - 2 * nnz : bytes);
  g_test_message ("%s: %" G_GUINT64_FORMAT " elements, %" G_GUINT64_FORMAT " bytes, compact %" G_GUINT64_FORMAT,
                  c->name, nnz, bytes, ctr_scsr_bytes (born));
  g_autofree float *x = g_new (float, np * 11), *y = g_new (float, nr * 11);
  fill_random (x, np * 11, 3);
  fill_random (y, nr * 11, 4);
  /* One slice first, from the compact store alone; then 11 slices, whose
   * kernels make the 8-byte elements again. */
  for (guint ns = 1; ns <= 11; ns += 10)
    {
      g_autofree float *ax = g_new (float, nr * ns), *aty = g_new (float, np * ns);
      g_autofree float *ax2 = g_new (float, nr * ns), *aty2 = g_new (float, np * ns);
      g_assert_true (ctr_scsr_apply (born, x, ax, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (born, y, aty, ns, NULL));
      g_assert_true (ctr_scsr_apply (m, x, ax2, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty2, ns, NULL));
      g_assert_cmpmem (ax2, nr * ns * sizeof (float), ax, nr * ns * sizeof (float));
      g_assert_cmpmem (aty2, np * ns * sizeof (float), aty, np * ns * sizeof (float));
    }
  g_assert_true (ctr_scsr_arrays (born, NULL, &el, NULL));
  g_assert_cmpmem (back, nnz * sizeof (CtrScsrElem), el, nnz * sizeof (CtrScsrElem));
  if (k8)
    g_assert_cmpuint (ctr_scsr_bytes (born), ==, bytes + 6 * nnz);   /* both stores now */
}

/* More reps than 16 bits count (a 740² grid: 68,635): the compact store
 * keeps each rep relative to its part's first, so with two threads or
 * more the matrix gets parts small enough and is born compact (two threads
 * here: 2 parts of ≤ 65,536 reps); its products equal the 8-byte
 * store's bit for bit.  Regrouped for 3 parts it stays compact; in 1 part
 * (68,635 reps: more than 16 bits count) it falls back to the 8-byte
 * elements, with the same products. */
static double rel_diff (const float *a, const float *b, gsize n);

/* A fan scan on a 740² grid: 68,635 reps, more than 16 bits count. */
static const Case case_740 = { "d4-fan-740", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 740, 64, 16, 0, 0, 8 };

static void
test_compact_parts (void)
{
  const Case c = case_740;
  const int threads = omp_get_max_threads ();
  omp_set_num_threads (2);
  g_autoptr (CtrGeometry) g = make_geometry (&c);
  CtrGrid grid = make_grid (&c), grid2 = make_grid (&c);
  grid2.nz = 2;
  g_autoptr (CtrScsr) born = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrScsr) wide = ctr_scsr_build (g, &grid2, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  const CtrSymmetry *sy = ctr_scsr_symmetry (born);
  g_assert_cmpuint (ctr_scsr_order (born), ==, 8);
  g_assert_cmpuint (sy->n_reps, >, CTR_SCSR_COMPACT_PART_REPS);
  g_assert_cmpuint (ctr_scsr_n_parts (born), >=, 2);
  const guint64 nnz = ctr_scsr_nnz (born), np = (guint64) c.n * c.n, nr = (guint64) c.views * c.cols;
  g_assert_cmpuint (ctr_scsr_bytes (born), ==, ctr_scsr_bytes (wide) - 2 * nnz);   /* born compact */
  g_test_message ("%u reps in %u parts, %" G_GUINT64_FORMAT " elements", sy->n_reps, ctr_scsr_n_parts (born), nnz);
  const CtrScsrElem *el;
  g_assert_true (ctr_scsr_arrays (wide, NULL, &el, NULL));
  g_autofree CtrScsrElem *back = g_new (CtrScsrElem, nnz);
  ctr_scsr_read_elems (born, 0, nnz, back);
  g_assert_cmpmem (back, nnz * sizeof (CtrScsrElem), el, nnz * sizeof (CtrScsrElem));
  /* A range that starts inside a segment reads the same. */
  ctr_scsr_read_elems (born, nnz / 3, nnz / 3, back);
  g_assert_cmpmem (back, (nnz / 3) * sizeof (CtrScsrElem), el + nnz / 3, (nnz / 3) * sizeof (CtrScsrElem));
  g_autofree float *x = g_new (float, np), *y = g_new (float, nr);
  g_autofree float *ax0 = g_new (float, nr), *ax1 = g_new (float, nr);
  g_autofree float *aty0 = g_new (float, np), *aty1 = g_new (float, np);
  fill_random (x, np, 21);
  fill_random (y, nr, 22);
  g_assert_true (ctr_scsr_apply (born, x, ax1, 1, NULL));
  g_assert_true (ctr_scsr_apply_adjoint (born, y, aty1, 1, NULL));
  g_assert_true (ctr_scsr_compact (born));   /* nothing was asked of the 8-byte store */
  g_assert_cmpuint (ctr_scsr_bytes (born), ==, ctr_scsr_bytes (wide) - 2 * nnz);
  g_assert_true (ctr_scsr_apply (wide, x, ax0, 1, NULL));
  g_assert_true (ctr_scsr_apply_adjoint (wide, y, aty0, 1, NULL));
  g_assert_cmpmem (ax1, nr * sizeof (float), ax0, nr * sizeof (float));
  g_assert_cmpmem (aty1, np * sizeof (float), aty0, np * sizeof (float));
  static const guint part_counts[] = { 3, 1 };
  for (guint t = 0; t < G_N_ELEMENTS (part_counts); t++)
    {
      const guint parts = part_counts[t];
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
      CtrSymmetry *mine = ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL);
      g_assert_true (ctr_symmetry_partition (mine, parts, NULL));
      g_assert_true (ctr_scsr_repartition (m, mine, NULL) == m);
      g_assert_cmpuint (ctr_scsr_n_parts (m), ==, parts);
      const gboolean compact = ctr_scsr_bytes (m) < ctr_scsr_bytes (wide) - nnz;
      g_assert_cmpint (compact, ==, parts == 3);
      g_assert_true (ctr_scsr_apply (m, x, ax1, 1, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty1, 1, NULL));
      const double df = rel_diff (ax1, ax0, nr), da = rel_diff (aty1, aty0, np);
      g_test_message ("regrouped into %u part(s), %s store: forward %.2g, adjoint %.2g relative", parts,
                      compact ? "compact" : "8-byte", df, da);
      g_assert_cmpfloat (df, <=, 1e-6);
      g_assert_cmpfloat (da, <=, 1e-6);
    }
  /* Every matrix above is built with two threads (two parts, born compact),
   * whatever OMP_NUM_THREADS the test runs under. */
  omp_set_num_threads (threads);
}

/* Angles stored as float32 (gel-fan's 1.5707964 for 90°) keep their
 * symmetry: views within 1e-6 rad of one another's images are paired, and
 * the products equal the CSR matrix of the rounded angles to 1e-5; angles
 * 1e-5 rad off a symmetric set (a real jitter, not rounding) are not. */
static void
test_float_angles (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] = (float) g->angles[v];
  CtrGrid grid = make_grid (c);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_assert_cmpuint (ctr_scsr_order (m), ==, 8);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols;
  g_autofree float *x = g_new (float, np), *ax = g_new (float, nr), *ax_csr = g_new (float, nr);
  fill_random (x, np, 11);
  g_assert_true (ctr_scsr_apply (m, x, ax, 1, NULL));
  ctr_sysmat_apply (a, x, ax_csr, 1);
  double dmax = 0, amax = 0;
  for (guint64 i = 0; i < nr; i++)
    {
      dmax = MAX (dmax, fabs (ax[i] - ax_csr[i]));
      amax = MAX (amax, fabs (ax_csr[i]));
    }
  g_test_message ("float32 angles: %s; |Ax - Ax_csr| %.2g of %.2g", ctr_scsr_symmetry (m)->reason, dmax, amax);
  g_assert_cmpfloat (dmax, <=, 1e-5 * amax);

  for (guint v = 0; v < g->n_views; v++)
    g->angles[v] += 1e-5 * (1 + v % 5);
  g_autoptr (CtrScsr) j = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_assert_cmpuint (ctr_scsr_order (j), ==, 1);
}

/* Reps inside a part follow a Hilbert curve through their first pixels
 * (ctr_symmetry_partition): the curve visits every aligned 4 × 4 block of
 * pixels in one stretch, so a part's reps whose first pixel lies in one
 * block have consecutive ids.  Scan order (rows) fails this. */
static void
test_rep_order (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  CtrSymmetry *sy = ctr_symmetry_find (g, &grid, CTR_SYM_ALL, NULL);
  g_assert_nonnull (sy);
  g_assert_true (ctr_symmetry_partition (sy, 2, NULL));
  const guint K = sy->group.order, nx = sy->nx, ny = sy->ny, bx = (nx + 3) / 4, nb = bx * ((ny + 3) / 4);
  g_assert_cmpuint (K, ==, 8);
  guint checked = 0;
  for (guint p = 0; p < sy->n_parts; p++)
    {
      g_autofree guint32 *lo = g_new (guint32, nb), *hi = g_new0 (guint32, nb), *count = g_new0 (guint32, nb);
      for (guint b = 0; b < nb; b++)
        lo[b] = G_MAXUINT32;
      for (guint32 r = sy->part_start[p]; r < sy->part_start[p + 1]; r++)
        {
          const guint32 q = sy->rep_pixel[(gsize) r * K];
          const guint b = (q / nx) / 4 * bx + (q % nx) / 4;
          lo[b] = MIN (lo[b], r);
          hi[b] = MAX (hi[b], r);
          count[b]++;
        }
      for (guint b = 0; b < nb; b++)
        if (count[b] > 0)
          {
            g_assert_cmpuint (hi[b] - lo[b] + 1, ==, count[b]);
            checked += count[b] > 1;
          }
    }
  g_test_message ("%u blocks of 4 × 4 pixels with more than one rep, each a run of ids", checked);
  g_assert_cmpuint (checked, >, 10);
  ctr_symmetry_free (sy);
}

/* Consistent data A·x_true for a stack of 3 slices with different truths;
 * slice 1 has two dead detector columns. */
static CtrProjections *
simulate_stack (const CtrSysmat *a, const CtrGeometry *g, const CtrVolume *x)
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
  guint row1 = ctr_geometry_slice_row (g, 1);
  p->mask[(gsize) row1 * g->n_cols + 5] = p->mask[(gsize) row1 * g->n_cols + 20] = 0;
  return p;
}

static double
max_rel_diff (const CtrVolume *a, const CtrVolume *b)
{
  gsize n = ctr_grid_size (&a->grid);
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      d = MAX (d, fabs (a->data[i] - b->data[i]));
      m = MAX (m, fabs (b->data[i]));
    }
  return d / m;
}

/* Parallel ART on SCSR equals parallel ART on CSR with the same orbit subsets
 * after 10 iterations (both step rules, with non-negativity); SART and SIRT
 * on SCSR converge towards the truth. */
typedef struct {
  guint n;
  double first, last;
} ResidualLog;

static void
log_residual (const CtrIterStats *st, gpointer data)
{
  ResidualLog *log = data;
  g_assert_true (isfinite (st->residual));
  if (log->n++ == 0)
    log->first = st->residual;
  log->last = st->residual;
}

static void
test_solvers (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  g->n_rows = 3;
  CtrGrid grid = make_grid (c);
  grid.nz = 3;
  g_autoptr (CtrVolume) xt = ctr_volume_new (&grid, NULL);
  for (guint s = 0; s < 3; s++)
    for (guint iy = 0; iy < grid.ny; iy++)
      for (guint ix = 0; ix < grid.nx; ix++)
        {
          double px = ctr_grid_x (&grid, ix) - grid.cx, py = ctr_grid_y (&grid, iy) - 4.0 * s;
          xt->data[((gsize) s * grid.ny + iy) * grid.nx + ix] =
            (float) (0.02 * exp (-(px * px + py * py) / (2 * 12.0 * 12.0)) + (px > 5 && px < 15 && py > -8 ? 0.01 : 0));
        }
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, NULL);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_autoptr (CtrProjections) p = simulate_stack (a, g, xt);

  for (int step = CTR_PART_STEP_SPARSITY; step <= CTR_PART_STEP_CUART; step++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_PART);
      o.iterations = 10;
      o.part_step = step;
      o.nonnegative = TRUE;
      o.ray_model = CTR_RAY_MODEL_AREA;
      o.matrix = CTR_MATRIX_CSR;
      o.subsets = CTR_SUBSETS_ORBIT;
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrVolume) x_csr = test_run_csr (a, g, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      o.matrix = CTR_MATRIX_SCSR;
      g_autoptr (CtrVolume) x_scsr = test_run_scsr (m, g, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      double d = max_rel_diff (x_scsr, x_csr), e = max_rel_diff (x_scsr, xt);
      g_test_message ("%s PART step %d: SCSR vs CSR %.2e; vs truth %.3f", c->name, step, d, e);
      g_assert_cmpfloat (d, <=, 1e-5);
    }
  for (CtrMethod meth = CTR_METHOD_SART; meth <= CTR_METHOD_SIRT; meth++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, meth);
      o.iterations = meth == CTR_METHOD_SIRT ? 60 : 10;
      o.ray_model = CTR_RAY_MODEL_AREA;
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrVolume) x = test_run_scsr (m, g, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      double e = max_rel_diff (x, xt);
      g_test_message ("%s %s on SCSR: max error vs truth %.3f of the maximum", c->name, ctr_method_name (meth), e);
      g_assert_cmpfloat (e, <, 0.35);
      if (meth != CTR_METHOD_SIRT)
        continue;
      /* Reported, SIRT keeps A x between iterations and back-projects
       * separately (a pixel on a symmetry axis is shared out among its
       * slots before the step): the image of the fused updates, and the
       * residuals it reports those the driver computes. */
      ResidualLog log = { 0 };
      g_autoptr (CtrVolume) xr = test_run_scsr (m, g, p, &grid, &o, NULL, log_residual, &log, NULL, &error);
      g_assert_no_error (error);
      double dr = max_rel_diff (xr, x);
      g_test_message ("%s SIRT reported vs unreported: %.2e; last residual %.4g", c->name, dr, log.last);
      g_assert_cmpfloat (dr, <=, 1e-5);
      g_assert_cmpuint (log.n, ==, o.iterations);
      g_assert_true (log.last > 0 && log.last < log.first);
    }
}

/* The blocked layouts hold exactly the stored rows: walking them gives the
 * canonical views' projections. */
static void
test_blocking (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols;
  const guint no = ctr_scsr_n_orbits (m);
  g_autofree float *x = g_new (float, np), *y = g_new (float, nr), *yb = g_new (float, (gsize) no * c->cols);
  fill_random (x, np, 3);
  g_assert_true (ctr_scsr_apply (m, x, y, 1, NULL));
  for (int kind = CTR_BLOCKING_VIEW; kind <= CTR_BLOCKING_ORBIT; kind++)
    {
      g_autoptr (CtrBlocked) b = ctr_blocked_new (m, kind, NULL);
      g_assert_nonnull (b);
      if (kind == CTR_BLOCKING_ORBIT)
        {
          /* every block within one orbit, the orbits' blocks in order */
          g_assert_nonnull (b->orbit_first);
          g_assert_cmpuint (b->orbit_first[no], ==, b->n_blocks);
          for (guint o = 0; o < no; o++)
            for (guint k = b->orbit_first[o]; k < b->orbit_first[o + 1]; k++)
              for (guint i = 0; i < b->blocks[k].n_rows; i++)
                {
                  g_assert_cmpuint (b->blocks[k].orbit, ==, o);
                  g_assert_cmpuint (b->blocks[k].ray0[i] / c->cols, ==, o);
                  g_assert_true (b->blocks[k].ray1[i] == G_MAXUINT32 || b->blocks[k].ray1[i] / c->cols == o);
                }
        }
      ctr_blocked_apply_canonical (b, m, x, yb);
      double d = 0, mx = 0;
      for (guint o = 0; o < no; o++)
        for (guint j = 0; j < c->cols; j++)
          {
            float ref = y[(gsize) sy->orbit_view[o] * c->cols + j];
            d = MAX (d, fabs (yb[(gsize) o * c->cols + j] - ref));
            mx = MAX (mx, fabs (ref));
          }
      g_test_message ("%s %s blocking: %u sub-matrices, padding %.1f %%, max difference %.2g of %.2g",
                      c->name, kind == CTR_BLOCKING_VIEW ? "view-level" : kind == CTR_BLOCKING_GLOBAL ? "global" : "orbit-level",
                      b->n_blocks,
                      100 * ctr_blocked_padding (b), d, mx);
      g_assert_cmpuint (b->nnz, ==, ctr_scsr_nnz (m));
      g_assert_cmpfloat (d, <=, 1e-5 * mx);
    }
}

/* The disk cache: a saved matrix loads back identical; a truncated, corrupted
 * or stale file is refused with CTR_ERROR_FORMAT and rebuilt by the cache. */
static void
test_cache (void)
{
  const Case *c = &cases[0];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autofree char *dir = g_dir_make_tmp ("ctr-cache-XXXXXX", NULL);
  g_setenv ("CTR_CACHE_DIR", dir, TRUE);
  g_autofree char *key = ctr_matrix_cache_key (g, &grid, CTR_RAY_MODEL_AREA);
  g_autofree char *path = ctr_matrix_cache_path (key);
  g_autoptr (GError) error = NULL;
  gboolean loaded = TRUE;

  g_autoptr (CtrScsr) built = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (loaded);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_autoptr (CtrScsr) again = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (loaded);
  g_assert_cmpuint (ctr_scsr_nnz (again), ==, ctr_scsr_nnz (built));
  const gint64 *s1, *s2;
  const CtrScsrElem *e1, *e2;
  g_assert_true (ctr_scsr_arrays (built, &s1, &e1, NULL));
  g_assert_true (ctr_scsr_arrays (again, &s2, &e2, NULL));
  g_assert_cmpmem (e1, ctr_scsr_nnz (built) * sizeof (CtrScsrElem), e2, ctr_scsr_nnz (again) * sizeof (CtrScsrElem));

  gchar *data;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  /* Truncated. */
  g_assert_true (g_file_set_contents (path, data, len - 100, NULL));
  g_assert_null (ctr_scsr_load (path, key, g, &grid, CTR_RAY_MODEL_AREA, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_test_message ("truncated: %s", error->message);
  g_clear_error (&error);
  /* One weight changed. */
  data[len - 1000] ^= 0x40;
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_assert_null (ctr_scsr_load (path, key, g, &grid, CTR_RAY_MODEL_AREA, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_test_message ("corrupt: %s", error->message);
  g_clear_error (&error);
  /* Another geometry's key. */
  g_autofree char *other = g_strdup (key);
  other[0] = other[0] == 'a' ? 'b' : 'a';
  g_assert_null (ctr_scsr_load (path, other, g, &grid, CTR_RAY_MODEL_AREA, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);
  /* The cache rebuilds over the corrupt file and the next load is good. */
  g_autoptr (CtrScsr) rebuilt = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (loaded);
  g_autoptr (CtrScsr) reloaded = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (loaded);
  g_free (data);
  g_unlink (path);
  g_rmdir (dir);
  g_unsetenv ("CTR_CACHE_DIR");
}

/* The cache file of a matrix with more reps than 16 bits count (the 740²
 * case: 68,635 reps, saved in two parts): loaded with two threads it is
 * compact again, products bit for bit the built matrix's; loaded with one
 * thread (one part, which the compact store cannot hold) it holds 8-byte
 * elements, with the same products; and a rep moved into the other part's range, the file's
 * checksum made good again, is refused by either loader ("element out of
 * range"): the threads of the transposed product rely on the ranges. */
static void
test_cache_compact (void)
{
  const Case c = case_740;
  const int threads = omp_get_max_threads ();
  omp_set_num_threads (2);
  g_autoptr (CtrGeometry) g = make_geometry (&c);
  CtrGrid grid = make_grid (&c);
  g_autoptr (CtrScsr) built = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, NULL);
  g_assert_cmpuint (ctr_scsr_n_parts (built), ==, 2);
  const guint64 nnz = ctr_scsr_nnz (built), np = (guint64) c.n * c.n, nr = (guint64) c.views * c.cols;
  g_autofree char *dir = g_dir_make_tmp ("ctr-cache-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "m.scsr", NULL);
  g_autofree char *key = ctr_matrix_cache_key (g, &grid, CTR_RAY_MODEL_AREA);
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_scsr_save (built, key, path, &error));
  g_assert_no_error (error);

  g_autofree float *x = g_new (float, np), *y = g_new (float, nr);
  g_autofree float *ax0 = g_new (float, nr), *ax1 = g_new (float, nr);
  g_autofree float *aty0 = g_new (float, np), *aty1 = g_new (float, np);
  fill_random (x, np, 31);
  fill_random (y, nr, 32);
  g_assert_true (ctr_scsr_apply (built, x, ax0, 1, NULL));
  g_assert_true (ctr_scsr_apply_adjoint (built, y, aty0, 1, NULL));
  const guint64 compact_bytes = ctr_scsr_bytes (built);

  for (int t = 2; t >= 1; t--)
    {
      omp_set_num_threads (t);
      g_autoptr (CtrScsr) m = ctr_scsr_load (path, key, g, &grid, CTR_RAY_MODEL_AREA, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ctr_scsr_n_parts (m), ==, (guint) t);
      /* Two threads: the compact store as built; one: 8-byte elements only
       * (2 bytes more an element, one part's segment pointers fewer). */
      const guint64 fewer_segs = (guint64) ctr_scsr_n_orbits (built) * c.cols * 8 * sizeof (gint64);
      g_assert_cmpuint (ctr_scsr_bytes (m), ==, t == 2 ? compact_bytes : compact_bytes + 2 * nnz - fewer_segs);
      g_assert_true (ctr_scsr_apply (m, x, ax1, 1, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty1, 1, NULL));
      const double df = rel_diff (ax1, ax0, nr), da = rel_diff (aty1, aty0, np);
      g_test_message ("loaded with %d thread(s): %" G_GUINT64_FORMAT " bytes, forward %.2g, adjoint %.2g relative",
                      t, ctr_scsr_bytes (m), df, da);
      if (t == 2)
        {
          g_assert_cmpmem (ax1, nr * sizeof (float), ax0, nr * sizeof (float));
          g_assert_cmpmem (aty1, np * sizeof (float), aty0, np * sizeof (float));
        }
      /* One part sums each row's elements in another order: float32
       * rounding, 1.3e-6 seen. */
      g_assert_cmpfloat (df, <=, 1e-5);
      g_assert_cmpfloat (da, <=, 1e-5);
    }

  /* A rep of part 1 in a segment of part 0, the digest recomputed. */
  gchar *data;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  const gsize header = 160, digest_at = 128;   /* ctr-matrix-cache.c's Header */
  const gint64 *seg = (const gint64 *) (data + header);
  const gsize K = 8, P = 2, seg_n = (gsize) ctr_scsr_n_orbits (built) * c.cols * K * P + 1;
  gsize i = 0;
  while (i + 1 < seg_n && !((i / K) % P == 0 && seg[i + 1] > seg[i]))
    i++;
  g_assert_cmpuint (i + 1, <, seg_n);
  CtrScsrElem *el = (CtrScsrElem *) (data + header + seg_n * sizeof (gint64));
  el[seg[i]].rep = ctr_scsr_symmetry (built)->part_start[1];
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (ck, (const guchar *) (data + header), (gssize) (len - header));
  gsize dlen = 32;
  g_checksum_get_digest (ck, (guint8 *) data + digest_at, &dlen);
  g_checksum_free (ck);
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  for (int t = 2; t >= 1; t--)
    {
      omp_set_num_threads (t);
      g_assert_null (ctr_scsr_load (path, key, g, &grid, CTR_RAY_MODEL_AREA, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
      g_test_message ("%d thread(s), a rep out of its part: %s", t, error->message);
      g_assert_nonnull (strstr (error->message, "element out of range"));
      g_clear_error (&error);
    }
  omp_set_num_threads (threads);
  g_free (data);
  g_unlink (path);
  g_rmdir (dir);
}

/* Every element inside its part's rep range: what makes the threads of the
 * transposed product write disjoint reps (no atomics). */
static void
assert_parts_disjoint (const CtrScsr *m)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), P = ctr_scsr_n_parts (m);
  const gsize segs = (gsize) ctr_scsr_n_orbits (m) * ctr_scsr_n_cols (m) * P * K;
  const gint64 *seg;
  const CtrScsrElem *el;
  g_assert_true (ctr_scsr_arrays (m, &seg, &el, NULL));
  g_assert_cmpint (seg[segs], ==, (gint64) ctr_scsr_nnz (m));
  for (gsize i = 0; i < segs; i++)
    {
      const guint p = (guint) ((i / K) % P);
      g_assert_cmpint (seg[i], <=, seg[i + 1]);
      for (gint64 e = seg[i]; e < seg[i + 1]; e++)
        {
          g_assert_cmpuint (el[e].rep, >=, sy->part_start[p]);
          g_assert_cmpuint (el[e].rep, <, sy->part_start[p + 1]);
        }
    }
}

/* |a − b|∞ / |b|∞ */
static double
rel_diff (const float *a, const float *b, gsize n)
{
  double d = 0, mx = 0;
  for (gsize i = 0; i < n; i++)
    {
      d = MAX (d, fabs ((double) a[i] - b[i]));
      mx = MAX (mx, fabs ((double) b[i]));
    }
  return d / MAX (mx, 1e-30);
}

/* The cache file does not depend on the thread count: saved by a run with
 * P₀ threads (parts), loaded by one with P₁, the rows are re-partitioned
 * and the products equal a matrix built for P₁ (to 1e-6), every element in
 * its part's reps.  D4, C4 and no symmetry (K = 1, cached the same way). */
static void
test_cache_threads (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = make_geometry (c);
  CtrGrid grid = make_grid (c);
  g_autofree char *dir = g_dir_make_tmp ("ctr-cache-XXXXXX", NULL);
  g_setenv ("CTR_CACHE_DIR", dir, TRUE);
  const int threads = omp_get_max_threads ();
  const guint64 np = (guint64) c->n * c->n, nr = (guint64) c->views * c->cols;
  g_autofree float *x = g_new (float, np * 3), *y = g_new (float, nr * 3);
  g_autofree float *ax0 = g_new (float, nr * 3), *ax1 = g_new (float, nr * 3);
  g_autofree float *aty0 = g_new (float, np * 3), *aty1 = g_new (float, np * 3);
  fill_random (x, np * 3, 17);
  fill_random (y, nr * 3, 18);
  const guint pairs[][2] = { { 1, 2 }, { 2, 1 }, { 2, 3 } };
  /* 3 slices (the 8-byte elements), then 1 (a K = 8 matrix is loaded and
   * regrouped in the compact store). */
  for (guint t = 0; t < 2 * G_N_ELEMENTS (pairs); t++)
    {
      const guint ns = t < G_N_ELEMENTS (pairs) ? 3 : 1;
      const guint *pair = pairs[t % G_N_ELEMENTS (pairs)];
      grid.nz = ns;
      g->n_rows = ns;
      omp_set_num_threads ((int) pair[0]);
      g_autofree char *key0 = ctr_matrix_cache_key (g, &grid, CTR_RAY_MODEL_AREA);
      g_autofree char *path = ctr_matrix_cache_path (key0);
      g_unlink (path);
      gboolean loaded = TRUE;
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrScsr) saved = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_false (loaded);
      g_assert_cmpuint (ctr_scsr_order (saved), ==, c->expect_order);
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

      omp_set_num_threads ((int) pair[1]);
      g_autofree char *key1 = ctr_matrix_cache_key (g, &grid, CTR_RAY_MODEL_AREA);
      g_assert_cmpstr (key0, ==, key1);
      g_autoptr (CtrScsr) m = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (loaded);
      g_assert_cmpuint (ctr_scsr_n_parts (m), ==, pair[1]);
      g_assert_cmpuint (ctr_scsr_nnz (m), ==, ctr_scsr_nnz (saved));
      g_assert_cmpuint (ctr_scsr_nnz_expanded (m), ==, ctr_scsr_nnz_expanded (saved));
      const guint64 loaded_bytes = ctr_scsr_bytes (m);
      assert_parts_disjoint (m);
      g_autoptr (CtrScsr) fresh = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      /* The same store as a build for this slice count: compact for one
       * slice of a K = 8 matrix. */
      g_assert_cmpuint (loaded_bytes, ==, ctr_scsr_bytes (fresh));
      g_assert_true (ctr_scsr_apply (m, x, ax1, ns, NULL));
      g_assert_true (ctr_scsr_apply (fresh, x, ax0, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (m, y, aty1, ns, NULL));
      g_assert_true (ctr_scsr_apply_adjoint (fresh, y, aty0, ns, NULL));
      const double df = rel_diff (ax1, ax0, nr * ns), da = rel_diff (aty1, aty0, np * ns);
      g_test_message ("%s, %u slice(s): saved with %u parts, loaded with %u: forward %.2g, adjoint %.2g relative",
                      c->name, ns, pair[0], pair[1], df, da);
      g_assert_cmpfloat (df, <=, 1e-6);
      g_assert_cmpfloat (da, <=, 1e-6);
      g_unlink (path);
    }
  omp_set_num_threads (threads);
  g_rmdir (dir);
  g_unsetenv ("CTR_CACHE_DIR");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/scsr/compact-parts", test_compact_parts);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/core/scsr/rows/%s", cases[i].name);
      g_autofree char *p2 = g_strdup_printf ("/ctr/core/scsr/products/%s", cases[i].name);
      g_test_add_data_func (p1, &cases[i], test_rows);
      g_test_add_data_func (p2, &cases[i], test_products);
      g_autofree char *p6 = g_strdup_printf ("/ctr/core/scsr/compact/%s", cases[i].name);
      g_test_add_data_func (p6, &cases[i], test_compact);
      g_autofree char *p4 = g_strdup_printf ("/ctr/core/scsr/blocking/%s", cases[i].name);
      g_test_add_data_func (p4, &cases[i], test_blocking);
      if (cases[i].expect_order > 1)
        {
          g_autofree char *p3 = g_strdup_printf ("/ctr/core/scsr/solvers/%s", cases[i].name);
          g_test_add_data_func (p3, &cases[i], test_solvers);
        }
    }
  g_test_add_func ("/ctr/core/scsr/cache", test_cache);
  g_test_add_func ("/ctr/core/scsr/cache-compact", test_cache_compact);
  g_test_add_func ("/ctr/core/scsr/float-angles", test_float_angles);
  g_test_add_func ("/ctr/core/scsr/rep-order", test_rep_order);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (i == 0 || i == 3 || cases[i].expect_order == 1)
      {
        g_autofree char *p5 = g_strdup_printf ("/ctr/core/scsr/cache-threads/%s", cases[i].name);
        g_test_add_data_func (p5, &cases[i], test_cache_threads);
      }
  return g_test_run ();
}
