/* ctr-fdk-backproject.c — FDK step 2: voxel-driven back-projection after
 * iFDK (Chen et al., SC19) §3.2, Algorithm 4.
 *
 * Per view the 3×4 projection matrix P (iFDK Eqs. 1-3,
 * ctr_geometry_projection_matrix) is composed with the grid's index map, so
 * for voxel index (i, j, k):
 *   (h0, h1, h2) = P_grid · (i, j, k, 1),  col = h0/h2,  row = h1/h2,
 *   h2 = U (depth along the central ray), weight (SOD/U)².
 * Theorems 2-3 of iFDK: along a z column (i, j fixed) h0 and h2 do not depend
 * on k, so col, U and the weight are computed once per column and view, and
 * row = (h1(i, j, 0) + P_grid[1][2]·k) / U is linear in k:
 *
 *        (i, j) column            detector
 *          k = nz-1  ■  ─────────────▶  row_a + (nz-1)·row_d
 *                    ■                   ...           (same col for all k)
 *          k = 0     ■  ─────────────▶  row_a
 *
 * Theorem 1 (z-mirror): when the grid is centred on the orbit plane (cz = 0)
 * and the panel is not shifted in v, slice nz-1-k projects to row
 * (nr-1) - row(k) with the complementary fraction, so the lower half's rows
 * serve the upper half.
 *
 * Layout: the working volume is [y][x][z] (z contiguous, so the inner loop
 * streams through one column), the filtered views of a batch are transposed
 * to [col][row] with one zero row before and after each column (rows -1 and
 * nr read as 0, so the bilinear stencil needs no branch).  Per (column,
 * view) the two detector columns around u are blended once over the rows the
 * z run touches (contiguous, vectorised), so the z loop interpolates between
 * 2 samples of that line: with AVX-512 or AVX2 and at most
 * CTR_FDK_ZRUN_MAX_STEP rows per slice (W4: 1.44) without gathers, by
 * permutes within a window of the line (ctr-fdk-zrun.h); otherwise a scalar
 * loop the compiler vectorises.  OpenMP over (x, y) columns; every thread
 * owns its columns: no races, no atomics.
 */
#include "analytic/ctr-fdk.h"
#include "analytic/ctr-fdk-zrun.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Views per batch: each column's z run stays in L1 while the batch's views
 * are added to it; a batch of 256² panels is 2 MiB. */
#ifndef VIEW_BATCH
#define VIEW_BATCH 8
#endif

typedef struct {
  double p[12];   /* P_grid, row-major */
  double inv_p6;  /* 1 / P_grid[1][2] (row step per slice times depth; never 0) */
} ViewMatrix;

/* P_grid = P_world · M0, M0: (i, j, k, 1) → (x0 + i·dx, y0 - j·dy, z0 + k·dz, 1). */
static void
view_matrix (const CtrGeometry *g, const CtrGrid *grid, guint view, ViewMatrix *m)
{
  double P[12];
  ctr_geometry_projection_matrix (g, view, P);
  const double x0 = ctr_grid_x (grid, 0), y0 = ctr_grid_y (grid, 0), z0 = ctr_grid_z (grid, 0);
  for (guint r = 0; r < 3; r++)
    {
      const double *a = P + 4 * r;
      double *o = m->p + 4 * r;
      o[0] = a[0] * grid->dx;
      o[1] = -a[1] * grid->dy;
      o[2] = a[2] * grid->dz;
      o[3] = a[0] * x0 + a[1] * y0 + a[2] * z0 + a[3];
    }
  m->inv_p6 = 1.0 / m->p[6];
}

/* The k range [*lo, *hi] (inclusive) with 0 <= row_a + row_d·k <= rmax,
 * clipped to [0, nz-1]; empty when *lo > *hi.  @inv_d = 1 / row_d (row_d is
 * never 0: SDD·Δz / (pitch_v·U)). */
static inline void
row_range (double row_a, double row_d, double inv_d, double rmax, gint64 nz, gint64 *lo, gint64 *hi)
{
  double klo, khi;
  if (row_d > 0)
    {
      klo = ceil (-row_a * inv_d);
      khi = floor ((rmax - row_a) * inv_d);
    }
  else
    {
      klo = ceil ((rmax - row_a) * inv_d);
      khi = floor (-row_a * inv_d);
    }
  klo = CLAMP (klo, 0.0, (double) nz);
  khi = CLAMP (khi, -1.0, (double) nz - 1);
  *lo = (gint64) klo;
  *hi = (gint64) khi;
  /* guard the ends against rounding in the products above */
  while (*lo <= *hi && !(row_a + row_d * *lo >= 0.0 && row_a + row_d * *lo <= rmax))
    (*lo)++;
  while (*hi >= *lo && !(row_a + row_d * *hi >= 0.0 && row_a + row_d * *hi <= rmax))
    (*hi)--;
}

/* Transposes view @v of @q into @dst: [col][row + 1], stride nr + 2, zero rows
 * at index 0 and nr + 1. */
static void
transpose_view (const CtrProjections *q, guint v, float *dst)
{
  const guint nr = q->n_rows, nc = q->n_cols, stride = nr + 2;
  const float *src = ctr_projections_view (q, v);
  for (guint c = 0; c < nc; c++)
    {
      float *col = dst + (gsize) c * stride;
      col[0] = 0.0f;
      col[nr + 1] = 0.0f;
      for (guint r = 0; r < nr; r++)
        col[r + 1] = src[(gsize) r * nc + c];
    }
}

/* One z run: acc[k] += w · line(a + d·k), k in [lo, hi], linear
 * interpolation in the blended detector column @line.  Separate restrict
 * pointers and int indices let the compiler turn it into SIMD gathers. */
static inline void
z_run (float *restrict acc, const float *restrict line, int lo, int hi,
       float a, float d, float w)
{
  for (int k = lo; k <= hi; k++)
    {
      float r = a + d * (float) k;
      int i0 = (int) r;
      float f = r - (float) i0;
      float l0 = line[i0], l1 = line[i0 + 1];
      acc[k] += w * (l0 + f * (l1 - l0));
    }
}

/* z_run for k in [lo, hi] (the lower half) and, by the z-mirror symmetry,
 * for nz-1-k through @accm = acc + nz - 1 (row (nr-1) - r = (top - i0) - f).
 * The two halves never overlap. */
static inline void
z_run_mirror (float *restrict acc, float *restrict accm, const float *restrict line,
              int lo, int hi, float a, float d, float w, int top)
{
  for (int k = lo; k <= hi; k++)
    {
      float r = a + d * (float) k;
      int i0 = (int) r;
      float f = r - (float) i0;
      float l0 = line[i0], l1 = line[i0 + 1];
      acc[k] += w * (l0 + f * (l1 - l0));
      int m0 = top - i0;
      float m1 = line[m0], mm = line[m0 - 1];
      accm[-k] += w * (m1 + f * (mm - m1));
    }
}

/* Everything one (x, y) column needs from a batch of views. */
typedef struct {
  const ViewMatrix *mats;   /* the batch's first view */
  const float *qt;          /* the batch, transposed ([view][col][row + 1]) */
  float *work;              /* [y][x][z] */
  gint64 nx, nz;
  guint nr, nc, stride;
  gsize view_floats;
  double sod2, cmax, rmax;
  gboolean mirror;
  CtrFdkZRun zrun;          /* NULL: the scalar z loops */
} Batch;

/* Back-projects views [0, nb) of the batch into column @ij.  @line: nr + 2
 * + CTR_FDK_ZRUN_PAD floats of scratch (per thread).  Built for the
 * baseline ISA and, where the compiler can, for AVX2 and AVX-512 (chosen at
 * load time by the CPU). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#endif
static void
backproject_column (const Batch *bt, gint64 ij, guint nb, float *line_mem)
{
  const gint64 nx = bt->nx, nz = bt->nz;
  const guint nr = bt->nr, nc = bt->nc, stride = bt->stride;
  const gsize view_floats = bt->view_floats;
  const double sod2 = bt->sod2, cmax = bt->cmax, rmax = bt->rmax;
  const gboolean mirror = bt->mirror;
  const ViewMatrix *mats = bt->mats;
  const float *qt = bt->qt;
  float *line = line_mem + 1;
  const double i = (double) (ij % nx), j = (double) (ij / nx);
  float *restrict col_acc = bt->work + (gsize) ij * nz;
  for (guint b = 0; b < nb; b++)
    {
      const double *P = mats[b].p;
      const double h2 = P[8] * i + P[9] * j + P[11];
      if (h2 <= 0.0)
        continue;  /* at or behind the source */
      const double inv = 1.0 / h2;
      const double colf = (P[0] * i + P[1] * j + P[3]) * inv;
      if (!(colf >= 0.0 && colf <= cmax))
        continue;
      const double row_a = (P[4] * i + P[5] * j + P[7]) * inv;
      const double row_d = P[6] * inv;
      gint64 lo, hi;
      row_range (row_a, row_d, h2 * mats[b].inv_p6, rmax, nz, &lo, &hi);
      if (lo > hi)
        continue;
      const guint c0 = (guint) colf;
      const float fu = (float) (colf - c0);
      const float w = (float) (sod2 * inv * inv);
      /* +1: the zero guard row at index 0 */
      const float *q0 = qt + view_floats * b + (gsize) c0 * stride + 1;
      const float *q1 = c0 + 1 < nc ? q0 + stride : q0;
      const float fr_a = (float) row_a, fr_d = (float) row_d;

      const float r_lo = fr_a + fr_d * (float) lo, r_hi = fr_a + fr_d * (float) hi;
      const int b_lo = MAX ((int) floorf (MIN (r_lo, r_hi)) - 1, -1);
      const int b_hi = MIN ((int) floorf (MAX (r_lo, r_hi)) + 2, (int) nr);
      for (int r = b_lo; r <= b_hi; r++)
        line[r] = q0[r] + fu * (q1[r] - q0[r]);

      /* the gather-free kernel where it applies, else the scalar loops */
      const CtrFdkZRun zr = fabsf (fr_d) <= CTR_FDK_ZRUN_MAX_STEP ? bt->zrun : NULL;
      const int top = (int) nr - 1;
      if (mirror)
        {
          /* k and nz-1-k: rows r and (nr-1) - r.  The valid range
           * is symmetric, so walk its lower half and mirror. */
          const int half_hi = (int) MIN (hi, (nz - 1) / 2 - ((nz & 1) ? 1 : 0));
          if (zr != NULL)
            zr (col_acc, col_acc + nz - 1, line, (int) lo, half_hi, fr_a, fr_d, w, top);
          else
            z_run_mirror (col_acc, col_acc + nz - 1, line, (int) lo, half_hi, fr_a, fr_d, w, top);
          const int mid = (int) (nz / 2);
          if ((nz & 1) && mid >= lo && mid <= hi)
            {
              if (zr != NULL)
                zr (col_acc, NULL, line, mid, mid, fr_a, fr_d, w, top);
              else
                z_run (col_acc, line, mid, mid, fr_a, fr_d, w);
            }
        }
      else if (zr != NULL)
        zr (col_acc, NULL, line, (int) lo, (int) hi, fr_a, fr_d, w, top);
      else
        z_run (col_acc, line, (int) lo, (int) hi, fr_a, fr_d, w);
    }
}

gboolean
ctr_fdk_backproject (const CtrGeometry *g, const CtrProjections *q, CtrVolume *vol,
                     GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && q != NULL && vol != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (!ctr_fdk_check_geometry (g, error))
    return FALSE;
  if (q->n_views != g->n_views || q->n_rows != g->n_rows || q->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "filtered projections are %u × %u × %u but the geometry says %u × %u × %u",
                   q->n_views, q->n_rows, q->n_cols, g->n_views, g->n_rows, g->n_cols);
      return FALSE;
    }

  const CtrGrid *grid = &vol->grid;
  const guint nv = g->n_views, nr = g->n_rows, nc = g->n_cols;
  const gint64 nx = grid->nx, ny = grid->ny, nz = grid->nz;
  const gsize nxy = (gsize) nx * ny;
  const guint stride = nr + 2;
  const gsize view_floats = (gsize) nc * stride;

  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  /* per thread: the two detector columns around u blended over the rows
   * (index -1 and nr are the zero guard rows) */
  const gsize line_floats = (gsize) stride + CTR_FDK_ZRUN_PAD;
  g_autofree char *what = g_strdup_printf ("FDK's blended detector columns of %u rows × %d threads", nr, threads);
  g_autofree float *lines = ctr_memory_try_new ((gsize) threads * line_floats, sizeof (float), TRUE, what, error);
  if (lines == NULL)
    return FALSE;
  float *work = g_try_malloc0_n (nxy * nz, sizeof (float));
  float *qt = g_try_malloc_n (view_floats * VIEW_BATCH, sizeof (float));
  g_autofree ViewMatrix *mats = g_try_new (ViewMatrix, nv);
  if (work == NULL || qt == NULL || mats == NULL)
    {
      g_free (work);
      g_free (qt);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "FDK: cannot allocate a working volume of %u × %u × %u floats",
                   grid->nx, grid->ny, grid->nz);
      return FALSE;
    }
  for (guint v = 0; v < nv; v++)
    view_matrix (g, grid, v, &mats[v]);

  /* z-mirror symmetry (iFDK Theorem 1): centred grid, no v offset. */
  const gboolean mirror = nz > 1 && fabs (grid->cz) <= 1e-9 * grid->dz
                          && fabs (g->offset_v_mm) <= 1e-9 * g->pitch_v_mm;
  const double sod2 = g->sod_mm * g->sod_mm;
  const double cmax = nc - 1, rmax = nr - 1;
  const CtrFdkZRun zrun = ctr_fdk_zrun_select (NULL);
  gboolean ok = TRUE;

  for (guint v0 = 0; v0 < nv && ok; v0 += VIEW_BATCH)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      const guint nb = MIN (VIEW_BATCH, nv - v0);
#pragma omp parallel for schedule(static)
      for (guint b = 0; b < nb; b++)
        transpose_view (q, v0 + b, qt + view_floats * b);

#pragma omp parallel num_threads(threads)
      {
        /* per thread: the two detector columns around u, blended once per
         * (column, view) over the rows the z run touches (contiguous, SIMD),
         * so the z loop reads 2 samples instead of 4.  Index -1 and nr are
         * the zero guard rows. */
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num ();
#endif
        float *line_mem = lines + line_floats * t;
        const Batch bt = { mats + v0, qt, work, nx, nz, nr, nc, stride, view_floats,
                           sod2, cmax, rmax, mirror, zrun };
#pragma omp for schedule(dynamic, 64)
        for (gint64 ij = 0; ij < (gint64) nxy; ij++)
          backproject_column (&bt, ij, nb, line_mem);
      }
    }
  g_free (qt);

  if (ok)
    {
      /* [y][x][z] → [z][y][x], added to what @vol holds. */
#pragma omp parallel for schedule(static)
      for (gint64 k = 0; k < nz; k++)
        {
          float *slice = ctr_volume_slice (vol, (guint) k);
          for (gsize ij = 0; ij < nxy; ij++)
            slice[ij] += work[ij * nz + k];
        }
    }
  g_free (work);
  return ok;
}
