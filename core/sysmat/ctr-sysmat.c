/* ctr-sysmat.c — CSR system matrix of one slice (ray models in ctr-ray.c).
 *
 * Rows are rays (view-major), columns pixels; see ctr-sysmat.h.  The build runs
 * one view per OpenMP task into per-view buffers that are concatenated.
 *
 * Race-free adjoint for one view without atomics: the view's rays are split
 * into 2·T contiguous chunks; chunks of equal parity do not share a pixel
 * whenever the chunks in between separate them.  That is checked once per view
 * at build time (pixel ownership marks), so a view that fails the check is
 * processed serially: a proven schedule rather than a hopeful one
 * (docs/design.md §5).  Multi-view ranges use per-thread partial images; stacks of
 * slices are split by slice.
 *
 *   Joseph, P. M. (1982). An improved algorithm for reprojecting rays through
 *     pixel images. IEEE TMI 1(3), 192-196.
 *   Siddon, R. L. (1985). Fast calculation of the exact radiological path for a
 *     three-dimensional CT array. Med. Phys. 12(2), 252-255 (traversal after
 *     Amanatides & Woo 1987).
 */
#include "sysmat/ctr-sysmat.h"
#include "sysmat/ctr-ray-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define N_CHUNKS_MAX 64

struct _CtrSysmat {
  gint ref_count;
  CtrRayModel model;
  guint n_views, n_cols;
  guint nx, ny;
  guint64 n_rays, n_pixels, nnz;
  gint64 *row_ptr;
  guint32 *col_idx;
  float *values;
  /* Per view: number of chunks for the coloured adjoint (0 = serial). */
  guint n_chunks;
  guint8 *view_colourable;
};

/* ----------------------------------------------------------------- build -- */

static guint
n_threads (void)
{
  return (guint) MAX (1, omp_get_max_threads ());
}

/* Marks pixels with the chunk that touches them; FALSE if two chunks of the
 * same parity share a pixel (then the coloured schedule is unsafe). */
static gboolean
view_is_colourable (const CtrSysmat *a, guint view, guint n_chunks, gint32 *owner)
{
  guint64 r0 = (guint64) view * a->n_cols;
  gboolean ok = TRUE;
  for (int parity = 0; parity < 2 && ok; parity++)
    {
      for (guint c = parity; c < n_chunks && ok; c += 2)
        {
          guint64 b = r0 + (guint64) a->n_cols * c / n_chunks;
          guint64 e = r0 + (guint64) a->n_cols * (c + 1) / n_chunks;
          for (gint64 k = a->row_ptr[b]; k < a->row_ptr[e] && ok; k++)
            {
              gint32 *o = &owner[a->col_idx[k]];
              if (*o >= 0 && *o != (gint32) c)
                ok = FALSE;
              *o = (gint32) c;
            }
        }
      /* reset the marks of this parity */
      for (guint c = parity; c < n_chunks; c += 2)
        {
          guint64 b = r0 + (guint64) a->n_cols * c / n_chunks;
          guint64 e = r0 + (guint64) a->n_cols * (c + 1) / n_chunks;
          for (gint64 k = a->row_ptr[b]; k < a->row_ptr[e]; k++)
            owner[a->col_idx[k]] = -1;
        }
    }
  return ok;
}

/* a->view_colourable of every view, each thread with its own owner of
 * every pixel (allocated up front); FALSE with CTR_ERROR_OUT_OF_MEMORY. */
static gboolean
colour_views (CtrSysmat *a, GError **error)
{
  const guint T = n_threads ();
  g_autofree char *what = g_strdup_printf ("the system matrix's chunk owners of %u threads × %" G_GUINT64_FORMAT
                                           " pixels", T, a->n_pixels);
  g_autofree gint32 *owners = ctr_memory_try_new (ctr_memory_mul (T, a->n_pixels), sizeof (gint32), FALSE, what, error);
  if (owners == NULL)
    return FALSE;
#pragma omp parallel num_threads(T)
  {
    gint32 *owner = owners + (gsize) a->n_pixels * omp_get_thread_num ();
    memset (owner, 0xff, a->n_pixels * sizeof (gint32));
#pragma omp for schedule(dynamic, 8)
    for (guint v = 0; v < a->n_views; v++)
      a->view_colourable[v] = view_is_colourable (a, v, a->n_chunks, owner);
  }
  return TRUE;
}

CtrSysmat *
ctr_sysmat_build (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                  GCancellable *cancellable, GError **error)
{
  if (!ctr_ray_check_inputs (g, grid, model, error))
    return NULL;

  CtrRayGrid gi;
  ctr_ray_grid_init (&gi, grid);
  const guint nv = g->n_views, nc = g->n_cols;
  CtrRowBuf *bufs = ctr_memory_try_new (nv, sizeof (CtrRowBuf), TRUE, "the system matrix's view buffers", error);
  gint64 *row_len = bufs == NULL ? NULL
                    : ctr_memory_try_new ((gsize) nv * nc, sizeof (gint64), TRUE, "the system matrix's rows", error);
  if (row_len == NULL)
    {
      g_free (bufs);
      return NULL;
    }
  gboolean cancelled = FALSE, oom = FALSE;

#pragma omp parallel for schedule(dynamic, 4)
  for (guint v = 0; v < nv; v++)
    {
      if (cancelled || oom || g_cancellable_is_cancelled (cancellable))
        {
          cancelled = cancelled || !oom;
          continue;
        }
      CtrRowBuf *b = &bufs[v];
      for (guint c = 0; c < nc && !b->failed; c++)
        {
          gsize before = b->len;
          ctr_ray_weights (g, &gi, model, v, c, b);
          row_len[(gsize) v * nc + c] = (gint64) (b->len - before);
        }
      if (b->failed)
        oom = TRUE;
    }

  g_autoptr (CtrSysmat) a = NULL;
  if (oom)
    {
      guint64 held = 0;
      for (guint v = 0; v < nv; v++)
        held += bufs[v].cap * (sizeof (guint32) + sizeof (float));
      g_autofree char *so_far = g_format_size_full (held, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *have = ctr_memory_limit_describe ();
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "the system matrix of %u views × %u columns ran out of memory while it was built (%s of "
                   "non-zeros so far); %s", nv, nc, so_far, have);
      goto out;
    }
  if (cancelled || g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      if (cancelled && error && !*error)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      goto out;
    }

  a = g_new0 (CtrSysmat, 1);
  a->ref_count = 1;
  a->model = model;
  a->n_views = nv;
  a->n_cols = nc;
  a->nx = grid->nx;
  a->ny = grid->ny;
  a->n_rays = (guint64) nv * nc;
  a->n_pixels = (guint64) grid->nx * grid->ny;
  a->row_ptr = g_try_new (gint64, a->n_rays + 1);
  guint64 nnz = 0;
  for (guint v = 0; v < nv; v++)
    nnz += bufs[v].len;
  a->nnz = nnz;
  a->col_idx = g_try_new (guint32, MAX (nnz, 1));
  a->values = g_try_new (float, MAX (nnz, 1));
  if (a->row_ptr == NULL || a->col_idx == NULL || a->values == NULL)
    {
      g_autofree char *what = g_strdup_printf ("the system matrix of %" G_GUINT64_FORMAT " non-zeros", nnz);
      ctr_memory_set_error (error, ctr_memory_mul (nnz, 8), what);
      g_clear_pointer (&a, ctr_sysmat_unref);
      goto out;
    }
  a->row_ptr[0] = 0;
  for (guint64 i = 0; i < a->n_rays; i++)
    a->row_ptr[i + 1] = a->row_ptr[i] + row_len[i];
#pragma omp parallel for schedule(dynamic, 8)
  for (guint v = 0; v < nv; v++)
    {
      gint64 base = a->row_ptr[(guint64) v * nc];
      if (bufs[v].len > 0)  /* a view that misses the grid has no buffers (memcpy from NULL is undefined) */
        {
          memcpy (a->col_idx + base, bufs[v].col, bufs[v].len * sizeof (guint32));
          memcpy (a->values + base, bufs[v].val, bufs[v].len * sizeof (float));
        }
      g_free (bufs[v].col);
      g_free (bufs[v].val);
      bufs[v].col = NULL;
      bufs[v].val = NULL;
    }

  /* The coloured schedule for the per-view adjoint (see top of file). */
  a->n_chunks = MIN (2 * n_threads (), N_CHUNKS_MAX);
  a->n_chunks = MIN (a->n_chunks, nc);
  a->view_colourable = ctr_memory_try_new (nv, sizeof (guint8), TRUE, "the system matrix's views' colours", error);
  if (a->view_colourable == NULL || (a->n_chunks >= 2 && !colour_views (a, error)))
    g_clear_pointer (&a, ctr_sysmat_unref);

out:
  for (guint v = 0; v < nv; v++)
    {
      g_free (bufs[v].col);
      g_free (bufs[v].val);
    }
  g_free (bufs);
  g_free (row_len);
  return g_steal_pointer (&a);
}

double
ctr_sysmat_mean_row_nnz (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model)
{
  CtrRayGrid gi;
  ctr_ray_grid_init (&gi, grid);
  const guint nv = g->n_views, nc = g->n_cols;
  const guint sv = MIN (nv, 48u), sc = MIN (nc, 64u);
  CtrRowBuf rb = { 0 };
  guint64 total = 0;
  for (guint i = 0; i < sv; i++)
    for (guint j = 0; j < sc; j++)
      {
        /* Evenly spread views and columns, each in the middle of its share. */
        const guint v = (guint) (((guint64) 2 * i + 1) * nv / (2 * sv));
        const guint c = (guint) (((guint64) 2 * j + 1) * nc / (2 * sc));
        rb.len = 0;
        ctr_ray_weights (g, &gi, model, v, c, &rb);
        total += rb.len;
      }
  const gboolean failed = rb.failed;
  ctr_rowbuf_clear (&rb);
  return failed || sv * sc == 0 ? 0.0 : (double) total / (sv * sc);
}

guint64
ctr_sysmat_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model)
{
  const guint64 rays = ctr_memory_mul (g->n_views, g->n_cols);
  const double nnz = ctr_sysmat_mean_row_nnz (g, grid, model) * (double) rays;
  /* Column and value per element, twice: the build holds every view's rows
   * in its own buffer until all are copied into the matrix (GLib's heap
   * keeps the freed buffers); a row pointer per ray, and the row lengths
   * while it builds. */
  return ctr_memory_add (nnz * 16.0 >= 1.8e19 ? G_MAXUINT64 : (guint64) (nnz * 16.0), ctr_memory_mul (rays + 1, 16));
}

CtrSysmat *
ctr_sysmat_ref (CtrSysmat *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  g_atomic_int_inc (&a->ref_count);
  return a;
}

void
ctr_sysmat_unref (CtrSysmat *a)
{
  if (a == NULL || !g_atomic_int_dec_and_test (&a->ref_count))
    return;
  g_free (a->row_ptr);
  g_free (a->col_idx);
  g_free (a->values);
  g_free (a->view_colourable);
  g_free (a);
}

guint64 ctr_sysmat_n_rays (const CtrSysmat *a) { return a->n_rays; }
guint64 ctr_sysmat_n_pixels (const CtrSysmat *a) { return a->n_pixels; }
guint64 ctr_sysmat_nnz (const CtrSysmat *a) { return a->nnz; }
guint ctr_sysmat_n_views (const CtrSysmat *a) { return a->n_views; }
guint ctr_sysmat_n_cols (const CtrSysmat *a) { return a->n_cols; }
CtrRayModel ctr_sysmat_model (const CtrSysmat *a) { return a->model; }

guint64
ctr_sysmat_bytes (const CtrSysmat *a)
{
  return (a->n_rays + 1) * sizeof (gint64) + a->nnz * (sizeof (guint32) + sizeof (float));
}

void
ctr_sysmat_csr (const CtrSysmat *a, const gint64 **row_ptr, const guint32 **col_idx,
                const float **values)
{
  if (row_ptr) *row_ptr = a->row_ptr;
  if (col_idx) *col_idx = a->col_idx;
  if (values) *values = a->values;
}

/* -------------------------------------------------------------- products -- */

void
ctr_sysmat_apply_rows (const CtrSysmat *a, guint64 row_begin, guint64 row_end,
                       const float *x, float *y, guint n_slices)
{
  const gint64 *rp = a->row_ptr;
  const guint32 *ci = a->col_idx;
  const float *va = a->values;
  const guint64 np = a->n_pixels, nr = a->n_rays;
  const gint64 nrows = (gint64) (row_end - row_begin);

  if (n_slices == 1)
    {
#pragma omp parallel for schedule(static) if (nrows > 64)
      for (gint64 r = 0; r < nrows; r++)
        {
          guint64 i = row_begin + r;
          float acc = 0.f;
          for (gint64 k = rp[i]; k < rp[i + 1]; k++)
            acc += va[k] * x[ci[k]];
          y[i] = acc;
        }
      return;
    }

  /* Each matrix element read once for a block of slices (SpMM), the sums
   * kept in registers rather than stored through y (which may alias x). */
  enum { SB = 16 };
#pragma omp parallel for schedule(static) if (nrows > 16)
  for (gint64 r = 0; r < nrows; r++)
    {
      const guint64 i = row_begin + r;
      for (guint s0 = 0; s0 < n_slices; s0 += SB)
        {
          const guint nb = MIN (SB, n_slices - s0);
          float acc[SB] = { 0 };
          const float *xs = x + (gsize) s0 * np;
          for (gint64 k = rp[i]; k < rp[i + 1]; k++)
            {
              const float w = va[k];
              const guint32 j = ci[k];
              for (guint s = 0; s < nb; s++)
                acc[s] += w * xs[s * np + j];
            }
          for (guint s = 0; s < nb; s++)
            y[(s0 + s) * nr + i] = acc[s];
        }
    }
}

static inline void
adjoint_serial (const CtrSysmat *a, guint64 b, guint64 e, const float *w, float *x,
                guint s0, guint s1)
{
  const guint64 np = a->n_pixels, nr = a->n_rays;
  for (guint64 i = b; i < e; i++)
    for (gint64 k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
      {
        const float v = a->values[k];
        const guint32 j = a->col_idx[k];
        for (guint s = s0; s < s1; s++)
          x[s * np + j] += v * w[s * nr + i];
      }
}

void
ctr_sysmat_apply_adjoint_rows (const CtrSysmat *a, guint64 row_begin, guint64 row_end,
                               const float *w, float *x, guint n_slices)
{
  const guint nt = n_threads ();
  if (row_end <= row_begin)
    return;

  /* Enough slices: one thread per group of slices, no sharing at all. */
  if (n_slices >= nt && nt > 1)
    {
#pragma omp parallel for schedule(static)
      for (guint s = 0; s < n_slices; s++)
        adjoint_serial (a, row_begin, row_end, w, x, s, s + 1);
      return;
    }

  const guint64 nc = a->n_cols;
  const gboolean one_view = row_begin % nc == 0 && row_end - row_begin == nc;
  if (nt == 1 || (row_end - row_begin) < 64)
    {
      adjoint_serial (a, row_begin, row_end, w, x, 0, n_slices);
      return;
    }

  if (one_view)
    {
      guint v = (guint) (row_begin / nc);
      if (!a->view_colourable[v])
        {
          adjoint_serial (a, row_begin, row_end, w, x, 0, n_slices);
          return;
        }
      const guint nch = a->n_chunks;
      /* Even chunks in parallel, then odd chunks: chunks of one parity were
       * proven pixel-disjoint at build time. */
      for (guint parity = 0; parity < 2; parity++)
        {
#pragma omp parallel for schedule(dynamic, 1)
          for (guint c = parity; c < nch; c += 2)
            {
              guint64 b = row_begin + nc * c / nch;
              guint64 e = row_begin + nc * (c + 1) / nch;
              adjoint_serial (a, b, e, w, x, 0, n_slices);
            }
        }
      return;
    }

  /* Many views: per-thread partial images, reduced once. */
  const guint64 np = a->n_pixels;
  const gsize len = (gsize) np * n_slices;
  float *part = g_try_new0 (float, len * nt);
  if (part == NULL)
    {
      /* No room for the threads' partial images: one thread, the same sums
       * in row order (this function has no error to return). */
      adjoint_serial (a, row_begin, row_end, w, x, 0, n_slices);
      return;
    }
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num ();
    float *xp = part + (gsize) t * len;
    const guint64 total = row_end - row_begin;
    guint64 b = row_begin + total * t / nt, e = row_begin + total * (t + 1) / nt;
    const guint64 nr = a->n_rays;
    for (guint64 i = b; i < e; i++)
      for (gint64 k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
        {
          const float v = a->values[k];
          const guint32 j = a->col_idx[k];
          for (guint s = 0; s < n_slices; s++)
            xp[s * np + j] += v * w[s * nr + i];
        }
#pragma omp barrier
#pragma omp for schedule(static)
    for (gsize q = 0; q < len; q++)
      {
        float acc = 0.f;
        for (guint u = 0; u < nt; u++)
          acc += part[(gsize) u * len + q];
        x[q] += acc;
      }
  }
  g_free (part);
}

void
ctr_sysmat_apply (const CtrSysmat *a, const float *x, float *y, guint n_slices)
{
  ctr_sysmat_apply_rows (a, 0, a->n_rays, x, y, n_slices);
}

void
ctr_sysmat_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint n_slices)
{
  memset (x, 0, (gsize) a->n_pixels * n_slices * sizeof (float));
  ctr_sysmat_apply_adjoint_rows (a, 0, a->n_rays, y, x, n_slices);
}

void
ctr_sysmat_row_sums (const CtrSysmat *a, float *out_sq, float *out_sum)
{
#pragma omp parallel for schedule(static)
  for (guint64 i = 0; i < a->n_rays; i++)
    {
      double sq = 0, sum = 0;
      for (gint64 k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
        {
          sq += (double) a->values[k] * a->values[k];
          sum += a->values[k];
        }
      if (out_sq) out_sq[i] = (float) sq;
      if (out_sum) out_sum[i] = (float) sum;
    }
}
