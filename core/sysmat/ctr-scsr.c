/* ctr-scsr.c — the symmetry-compressed system matrix (cuART §3; see
 * ctr-scsr.h for the layout): its build, its two element stores, the
 * packed image layout and the whole-matrix products over the orbit
 * kernels of ctr-scsr-kernels.c. */
#define _GNU_SOURCE   /* mremap */
#include "sysmat/ctr-scsr-private.h"
#include "sysmat/ctr-ray-private.h"
#include "sysmat/ctr-sysmat.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>
#include <sys/mman.h>


/* One orbit's elements while the matrix is built, in the form of the store
 * it goes to: reps as 16 bits (compact) or 32, weights apart.  The arrays
 * are pages of their own (mmap, grown with mremap where there is one): each
 * goes back to the system as soon as its orbit is copied into the store,
 * so the build holds the elements about once, not twice (GLib's heap keeps
 * freed blocks: the store and all the buffers were resident together). */
typedef struct {
  guint16 *r16;
  guint32 *r32;
  float *w;
  gsize len, cap;
} ElemBuf;

/* @p (of @old bytes, NULL for none) grown to @bytes; NULL when that cannot
 * be had (@p is then left as it was). */
static gpointer
pages_grow (gpointer p, gsize old, gsize bytes)
{
#if defined(MREMAP_MAYMOVE)
  gpointer q = p == NULL ? mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                         : mremap (p, old, bytes, MREMAP_MAYMOVE);
  return q == MAP_FAILED ? NULL : q;
#else
  (void) old;
  return g_try_realloc (p, bytes);
#endif
}

static void
pages_free (gpointer p, gsize bytes)
{
  if (p == NULL)
    return;
#if defined(MREMAP_MAYMOVE)
  munmap (p, bytes);
#else
  (void) bytes;
  g_free (p);
#endif
}

/* FALSE when the buffer cannot grow (the process is out of memory; @b is
 * left as it was). */
static gboolean
elembuf_push (ElemBuf *b, gboolean compact, guint32 rep, float w)
{
  if (G_UNLIKELY (b->len == b->cap))
    {
      const gsize cap = MAX (2048, b->cap * 2), rs = compact ? sizeof (guint16) : sizeof (guint32);
      gpointer r = pages_grow (compact ? (gpointer) b->r16 : (gpointer) b->r32, b->cap * rs, cap * rs);
      if (r == NULL)
        return FALSE;
      if (compact)
        b->r16 = r;
      else
        b->r32 = r;
      float *nw = pages_grow (b->w, b->cap * sizeof (float), cap * sizeof (float));
      if (nw == NULL)
        {
          /* Keep the reps' array at its old size, so that the sizes stay one. */
          gpointer back = NULL;
          if (b->cap == 0)
            pages_free (r, cap * rs);
          else if ((back = pages_grow (r, cap * rs, b->cap * rs)) == NULL)
            back = r;   /* cannot shrink: keep it (its size is only written down wrong) */
          if (compact)
            b->r16 = back;
          else
            b->r32 = back;
          return FALSE;
        }
      b->w = nw;
      b->cap = cap;
    }
  if (compact)
    b->r16[b->len] = (guint16) rep;
  else
    b->r32[b->len] = rep;
  b->w[b->len] = w;
  b->len++;
  return TRUE;
}

static void
elembuf_clear (ElemBuf *b)
{
  pages_free (b->r16, b->cap * sizeof (guint16));
  pages_free (b->r32, b->cap * sizeof (guint32));
  pages_free (b->w, b->cap * sizeof (float));
  b->r16 = NULL;
  b->r32 = NULL;
  b->w = NULL;
  b->len = b->cap = 0;
}

/* Room for one ray's @n reps and slots in *@reps and *@slots (*@cap
 * elements now).  FALSE when they cannot be grown (the arrays kept, to be
 * freed): the build ends as when its elements do not fit (g_renew
 * aborted). */
static gboolean
ray_room (guint32 **reps, guint16 **slots, gsize *cap, gsize n)
{
  if (n <= *cap)
    return TRUE;
  guint32 *r = g_try_renew (guint32, *reps, n);
  if (r == NULL)
    return FALSE;
  *reps = r;
  guint16 *sl = g_try_renew (guint16, *slots, n);
  if (sl == NULL)
    return FALSE;
  *slots = sl;
  *cap = n;
  return TRUE;
}

CtrScsr *
ctr_scsr_build (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, guint allowed,
                GCancellable *cancellable, GError **error)
{
  if (!ctr_ray_check_inputs (g, grid, model, error))
    return NULL;

  CtrSymmetry *sym = ctr_symmetry_find (g, grid, allowed, error);
  if (sym == NULL)
    return NULL;
  if (!ctr_symmetry_partition (sym, ctr_scsr_parts_for (sym->group.order, sym->n_reps), error))
    {
      ctr_symmetry_free (sym);
      return NULL;
    }
  const guint K = sym->group.order, P = sym->n_parts, no = sym->n_orbits, nc = g->n_cols;
  const guint PK = P * K;
  const gsize n_rows = (gsize) no * nc;
  CtrRayGrid gi;
  ctr_ray_grid_init (&gi, grid);

  /* A one-slice matrix that fits the compact store is born in it (the CPU
   * operator would move it there: no 8-byte copy at all). */
  const gboolean compact = ctr_scsr_compact_applies (sym, grid->nz);
  ElemBuf *bufs = ctr_memory_try_new (no, sizeof (ElemBuf), TRUE, "the SCSR matrix's orbit buffers", error);
  gint64 *seg_len = NULL;
  float *row_sq = NULL, *row_sum = NULL;
  if (bufs == NULL
      || (seg_len = ctr_memory_try_new (n_rows * PK, sizeof (gint64), TRUE, "the SCSR matrix's segments", error)) == NULL
      || (row_sq = ctr_memory_try_new (n_rows, sizeof (float), TRUE, "the SCSR matrix's row norms", error)) == NULL
      || (row_sum = ctr_memory_try_new (n_rows, sizeof (float), TRUE, "the SCSR matrix's row sums", error)) == NULL)
    {
      g_free (bufs);
      g_free (seg_len);
      g_free (row_sq);
      ctr_symmetry_free (sym);
      return NULL;
    }
  gboolean cancelled = FALSE, oom = FALSE;

#pragma omp parallel
  {
    CtrRowBuf rb = { 0 };
    guint32 *reps = NULL;
    guint16 *slots = NULL;
    gsize cap = 0;
#pragma omp for schedule(dynamic, 1)
    for (guint o = 0; o < no; o++)
      {
        if (cancelled || oom || g_cancellable_is_cancelled (cancellable))
          {
            cancelled = cancelled || !oom;
            continue;
          }
        const guint v = sym->orbit_view[o];
        for (guint j = 0; j < nc; j++)
          {
            rb.len = 0;
            ctr_ray_weights (g, &gi, model, v, j, &rb);
            if (rb.failed)
              {
                oom = TRUE;
                break;
              }
            if (!ray_room (&reps, &slots, &cap, rb.len))
              {
                oom = TRUE;
                break;
              }
            double sq = 0, sum = 0;
            for (gsize e = 0; e < rb.len; e++)
              {
                reps[e] = sym->pixel_rep[rb.col[e]];
                guint part = 0;
                while (reps[e] >= sym->part_start[part + 1])
                  part++;
                slots[e] = (guint16) (part * K + sym->pixel_slot[rb.col[e]]);
                sq += (double) rb.val[e] * rb.val[e];
                sum += rb.val[e];
              }
            gint64 *sl = seg_len + ((gsize) o * nc + j) * PK;
            /* Segments by (part, slot), ray order inside each. */
            for (guint h = 0; h < PK; h++)
              {
                gsize before = bufs[o].len;
                /* The compact store keeps the rep relative to its part's first. */
                const guint32 base = compact ? sym->part_start[h / K] : 0;
                for (gsize e = 0; e < rb.len; e++)
                  if (slots[e] == h && !elembuf_push (&bufs[o], compact, reps[e] - base, rb.val[e]))
                    {
                      oom = TRUE;
                      break;
                    }
                sl[h] = (gint64) (bufs[o].len - before);
              }
            row_sq[(gsize) o * nc + j] = (float) sq;
            row_sum[(gsize) o * nc + j] = (float) sum;
          }
      }
    ctr_rowbuf_clear (&rb);
    g_free (reps);
    g_free (slots);
  }

  CtrScsr *m = NULL;
  if (oom)
    {
      guint64 held = 0;
      for (guint o = 0; o < no; o++)
        held += bufs[o].cap * (compact ? 6 : 8);
      g_autofree char *so_far = g_format_size_full (held, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *have = ctr_memory_limit_describe ();
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "the SCSR matrix of %u orbits × %u columns ran out of memory while it was built (%s of "
                   "elements so far); %s", no, nc, so_far, have);
      goto out;
    }
  if (cancelled || g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      if (cancelled && error && !*error)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
      goto out;
    }
  guint64 nnz = 0, nnz_exp = 0;
  for (guint o = 0; o < no; o++)
    {
      guint lanes = 0;
      for (guint k = 0; k < K; k++)
        lanes += sym->lane_view[(gsize) o * K + k] >= 0;
      nnz += bufs[o].len;
      nnz_exp += (guint64) bufs[o].len * lanes;
    }
  m = g_new0 (CtrScsr, 1);
  m->ref_count = 1;
  g_mutex_init (&m->lock);
  m->model = model;
  m->K = K;
  m->P = P;
  m->n_orbits = no;
  m->n_views = g->n_views;
  m->n_cols = nc;
  m->np = (guint64) grid->nx * grid->ny;
  m->nnz = nnz;
  m->nnz_expanded = nnz_exp;
  m->row_sq = g_steal_pointer (&row_sq);
  m->row_sum = g_steal_pointer (&row_sum);
  m->seg_ptr = g_try_new (gint64, n_rows * PK + 1);
  gboolean have = FALSE;
  if (compact)
    have = (m->rep16 = g_try_new (guint16, MAX (nnz, 1))) != NULL && (m->w32 = g_try_new (float, MAX (nnz, 1))) != NULL;
  else
    have = (m->elems = g_try_new (CtrScsrElem, MAX (nnz, 1))) != NULL;
  if (m->seg_ptr == NULL || !have)
    {
      g_autofree char *what = g_strdup_printf ("the SCSR matrix of %" G_GUINT64_FORMAT " elements", nnz);
      ctr_memory_set_error (error, ctr_memory_mul (nnz, compact ? 6 : sizeof (CtrScsrElem)), what);
      m->sym = NULL;
      ctr_scsr_unref (m);
      m = NULL;
      goto out;
    }
  m->sym = g_steal_pointer (&sym);
  m->seg_ptr[0] = 0;
  for (gsize i = 0; i < n_rows * PK; i++)
    m->seg_ptr[i + 1] = m->seg_ptr[i] + seg_len[i];
#pragma omp parallel for schedule(dynamic, 4)
  for (guint o = 0; o < no; o++)
    {
      const gint64 e0 = m->seg_ptr[(gsize) o * nc * PK];
      if (bufs[o].len == 0)  /* an orbit that misses the grid has no buffer */
        ;
      else if (compact)
        {
          memcpy (m->rep16 + e0, bufs[o].r16, bufs[o].len * sizeof (guint16));
          memcpy (m->w32 + e0, bufs[o].w, bufs[o].len * sizeof (float));
        }
      else
        for (gsize e = 0; e < bufs[o].len; e++)
          m->elems[e0 + e] = (CtrScsrElem) { bufs[o].r32[e], bufs[o].w[e] };
      elembuf_clear (&bufs[o]);
    }

out:
  for (guint o = 0; o < no; o++)
    elembuf_clear (&bufs[o]);
  g_free (bufs);
  g_free (seg_len);
  g_free (row_sq);
  g_free (row_sum);
  ctr_symmetry_free (sym);
  return m;
}

static CtrScsr *
new_from (CtrSymmetry *sym, CtrRayModel model, guint n_views, guint64 n_pixels, guint64 nnz, gint64 *seg_ptr,
          CtrScsrElem *elems, guint16 *rep16, float *w32, float *row_sq, float *row_sum)
{
  CtrScsr *m = g_new0 (CtrScsr, 1);
  m->ref_count = 1;
  g_mutex_init (&m->lock);
  m->model = model;
  m->sym = sym;
  m->K = sym->group.order;
  m->P = sym->n_parts;
  m->n_orbits = sym->n_orbits;
  m->n_views = n_views;
  m->n_cols = sym->n_cols;
  m->np = n_pixels;
  m->nnz = nnz;
  m->seg_ptr = seg_ptr;
  m->elems = elems;
  m->rep16 = rep16;
  m->w32 = w32;
  m->row_sq = row_sq;
  m->row_sum = row_sum;
  const gsize nc = m->n_cols;
  for (guint o = 0; o < m->n_orbits; o++)
    {
      guint lanes = 0;
      for (guint k = 0; k < m->K; k++)
        lanes += sym->lane_view[(gsize) o * m->K + k] >= 0;
      m->nnz_expanded += (guint64) (seg_ptr[(o + 1) * nc * m->K * m->P] - seg_ptr[o * nc * m->K * m->P]) * lanes;
    }
  return m;
}

CtrScsr *
ctr_scsr_new_from_arrays (CtrSymmetry *sym, CtrRayModel model, guint n_views, guint64 n_pixels,
                          guint64 nnz, gint64 *seg_ptr, CtrScsrElem *elems, float *row_sq,
                          float *row_sum)
{
  return new_from (sym, model, n_views, n_pixels, nnz, seg_ptr, elems, NULL, NULL, row_sq, row_sum);
}

CtrScsr *
ctr_scsr_new_from_compact (CtrSymmetry *sym, CtrRayModel model, guint n_views, guint64 n_pixels,
                           guint64 nnz, gint64 *seg_ptr, guint16 *rep16, float *w32, float *row_sq,
                           float *row_sum)
{
  g_return_val_if_fail (ctr_scsr_compact_applies (sym, 1), NULL);
  return new_from (sym, model, n_views, n_pixels, nnz, seg_ptr, NULL, rep16, w32, row_sq, row_sum);
}

CtrScsr *
ctr_scsr_repartition (CtrScsr *m, CtrSymmetry *sym, GError **error)
{
  CtrSymmetry *old = m->sym;
  const guint K = m->K, P0 = m->P, P1 = sym->n_parts, nc = m->n_cols;
  const guint PK0 = P0 * K, PK1 = P1 * K;
  const gsize n_rows = (gsize) m->n_orbits * nc;
  g_return_val_if_fail (sym->group.order == K && sym->n_reps == old->n_reps && sym->n_orbits == m->n_orbits, NULL);
  /* Old rep → new rep (the orbit's first pixel is the same pixel: the slots
   * keep their meaning) and its new part; the new segment pointers.  All
   * allocated before anything is changed: out of memory leaves @m as it
   * was (then freed with @sym, as on every failure). */
  g_autofree char *what = g_strdup_printf ("the SCSR matrix's new partition (%" G_GSIZE_FORMAT " rows × %u segments)",
                                           n_rows, PK1);
  guint32 *map = ctr_memory_try_new (old->n_reps, sizeof (guint32), FALSE, what, error);
  guint *part = map == NULL ? NULL : ctr_memory_try_new (old->n_reps, sizeof (guint), FALSE, what, error);
  gint64 *seg = part == NULL ? NULL
                : ctr_memory_try_new (ctr_memory_add (ctr_memory_mul (n_rows, PK1), 1), sizeof (gint64), FALSE, what,
                                      error);
  /* each thread's copy of a row (the longest) and its segment cursors */
  const guint T = (guint) MAX (1, omp_get_max_threads ());
  gint64 longest = 0;
  for (gsize row = 0; row < n_rows; row++)
    longest = MAX (longest, m->seg_ptr[(row + 1) * PK0] - m->seg_ptr[row * PK0]);
  CtrScsrElem *tmp_all = seg == NULL ? NULL
                         : ctr_memory_try_new (ctr_memory_mul (T, MAX (longest, 1)), sizeof (CtrScsrElem), FALSE,
                                               what, error);
  gint64 *next_all = tmp_all == NULL ? NULL
                     : ctr_memory_try_new ((gsize) T * PK1, sizeof (gint64), FALSE, what, error);
  gboolean compact = m->w32 != NULL;
  if (next_all == NULL || (compact && !ctr_scsr_compact_applies (sym, 1) && !ctr_scsr_expand (m, error)))
    {
      g_free (map);
      g_free (part);
      g_free (seg);
      g_free (tmp_all);
      g_free (next_all);
      ctr_symmetry_free (sym);
      ctr_scsr_unref (m);
      return NULL;
    }
  for (guint p = 0; p < P1; p++)
    for (guint32 r = sym->part_start[p]; r < sym->part_start[p + 1]; r++)
      part[r] = p;   /* indexed by new id */
  for (guint32 r = 0; r < old->n_reps; r++)
    map[r] = sym->pixel_rep[old->rep_pixel[(gsize) r * K]];
  /* The compact store is regrouped when there is one and the new parts fit
   * it (an 8-byte copy beside it is dropped: made again when asked for),
   * else elems (made from the compact store first if need be). */
  if (compact && !ctr_scsr_compact_applies (sym, 1))
    {
      g_clear_pointer (&m->rep16, g_free);
      g_clear_pointer (&m->w32, g_free);
      compact = FALSE;
    }
  if (compact)
    g_clear_pointer (&m->elems, g_free);
  const guint32 *ps0 = old->part_start, *ps1 = sym->part_start;
#define OLD_REP(e, q) (compact ? ps0[(q) / K] + m->rep16[e] : m->elems[e].rep)
  /* Counts per (new part, slot) of every row. */
#pragma omp parallel for schedule(static)
  for (gsize row = 0; row < n_rows; row++)
    {
      gint64 *cnt = seg + row * PK1 + 1;
      memset (cnt, 0, PK1 * sizeof (gint64));
      for (guint q = 0; q < PK0; q++)
        for (gint64 e = m->seg_ptr[row * PK0 + q]; e < m->seg_ptr[row * PK0 + q + 1]; e++)
          cnt[part[map[OLD_REP (e, q)]] * K + q % K]++;
    }
  seg[0] = 0;
  for (gsize i = 0; i < n_rows * PK1; i++)
    seg[i + 1] += seg[i];
  /* Each row's elements stay in the row's range (the same in both
   * layouts): regrouped in place through a copy of the row, stably. */
#pragma omp parallel num_threads (T)
  {
    const guint t = (guint) omp_get_thread_num ();
    CtrScsrElem *tmp = tmp_all + (gsize) t * MAX (longest, 1);
    gint64 *next = next_all + (gsize) t * PK1;
#pragma omp for schedule(dynamic, 64)
    for (gsize row = 0; row < n_rows; row++)
      {
        const gint64 b = m->seg_ptr[row * PK0], n = m->seg_ptr[(row + 1) * PK0] - b;
        if (n == 0)   /* a ray that misses the grid: nothing to regroup */
          continue;
        ctr_scsr_read_elems (m, (guint64) b, (guint64) n, tmp);
        memcpy (next, seg + row * PK1, PK1 * sizeof (gint64));
        for (guint q = 0; q < PK0; q++)
          for (gint64 e = m->seg_ptr[row * PK0 + q]; e < m->seg_ptr[row * PK0 + q + 1]; e++)
            {
              const guint32 r = map[tmp[e - b].rep];
              const gint64 to = next[part[r] * K + q % K]++;
              if (compact)
                {
                  m->rep16[to] = (guint16) (r - ps1[part[r]]);
                  m->w32[to] = tmp[e - b].w;
                }
              else
                m->elems[to] = (CtrScsrElem) { r, tmp[e - b].w };
            }
      }
  }
#undef OLD_REP
  g_free (tmp_all);
  g_free (next_all);
  g_free (map);
  g_free (part);
  g_free (m->seg_ptr);
  m->seg_ptr = seg;
  ctr_symmetry_free (old);
  m->sym = sym;
  m->P = P1;
  return m;
}

guint64
ctr_scsr_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model)
{
  guint K = 1;
  const guint no = ctr_symmetry_count_orbits (g, grid, CTR_SYM_ALL, &K);
  const guint64 rows = ctr_memory_mul (no, g->n_cols);
  const guint64 reps = ((guint64) grid->nx * grid->ny + K - 1) / K;
  const guint P = ctr_scsr_parts_for (K, (guint) MIN (reps, G_MAXUINT));
  const double nnz = ctr_sysmat_mean_row_nnz (g, grid, model) * (double) rows;
  /* One slice of a K = 8 matrix is born in the compact store (6 bytes an
   * element), else 8; the segment pointers (8 bytes per row, part and
   * slot) and the row norms and sums. */
  const double elem = K == 8 && grid->nz == 1 ? 6.0 : 8.0;
  return ctr_memory_add (nnz * elem >= 1.8e19 ? G_MAXUINT64 : (guint64) (nnz * elem),
                         ctr_memory_mul (rows, (guint64) P * K * 8 + 8));
}

CtrScsr *
ctr_scsr_ref (CtrScsr *m)
{
  g_return_val_if_fail (m != NULL, NULL);
  g_atomic_int_inc (&m->ref_count);
  return m;
}

void
ctr_scsr_unref (CtrScsr *m)
{
  if (m == NULL || !g_atomic_int_dec_and_test (&m->ref_count))
    return;
  ctr_symmetry_free (m->sym);
  g_free (m->seg_ptr);
  g_free (m->elems);
  g_free (m->rep16);
  g_free (m->w32);
  g_mutex_clear (&m->lock);
  g_free (m->row_sq);
  g_free (m->row_sum);
  g_free (m);
}

const CtrSymmetry *ctr_scsr_symmetry (const CtrScsr *m) { return m->sym; }
CtrRayModel ctr_scsr_model (const CtrScsr *m) { return m->model; }
guint ctr_scsr_order (const CtrScsr *m) { return m->K; }
guint ctr_scsr_n_parts (const CtrScsr *m) { return m->P; }

guint
ctr_scsr_default_parts (void)
{
  return (guint) MAX (1, omp_get_max_threads ());
}
guint ctr_scsr_n_orbits (const CtrScsr *m) { return m->n_orbits; }
guint ctr_scsr_n_views (const CtrScsr *m) { return m->n_views; }
guint ctr_scsr_n_cols (const CtrScsr *m) { return m->n_cols; }
guint64 ctr_scsr_n_pixels (const CtrScsr *m) { return m->np; }
guint64 ctr_scsr_nnz (const CtrScsr *m) { return m->nnz; }
guint64 ctr_scsr_nnz_expanded (const CtrScsr *m) { return m->nnz_expanded; }
const float *ctr_scsr_row_sq (const CtrScsr *m) { return m->row_sq; }
const float *ctr_scsr_row_sum (const CtrScsr *m) { return m->row_sum; }

guint64
ctr_scsr_bytes (const CtrScsr *m)
{
  guint64 rows = (guint64) m->n_orbits * m->n_cols;
  const guint64 elem_bytes = (g_atomic_pointer_get (&((CtrScsr *) m)->elems) != NULL ? sizeof (CtrScsrElem) : 0)
                             + (m->w32 != NULL ? sizeof (guint16) + sizeof (float) : 0);
  return (rows * m->K * m->P + 1) * sizeof (gint64) + m->nnz * elem_bytes + rows * 2 * sizeof (float);
}

gboolean
ctr_scsr_expand (const CtrScsr *cm, GError **error)
{
  CtrScsr *m = (CtrScsr *) cm;
  if (G_LIKELY (g_atomic_pointer_get (&m->elems) != NULL))
    return TRUE;
  g_mutex_lock (&m->lock);
  CtrScsrElem *el = m->elems;
  if (el == NULL)
    {
      el = ctr_memory_try_new (MAX (m->nnz, 1), sizeof (CtrScsrElem), FALSE, "the SCSR matrix's 8-byte elements",
                               error);
      if (el != NULL)
        {
          ctr_scsr_read_elems (m, 0, m->nnz, el);
          g_atomic_pointer_set (&m->elems, el);
        }
    }
  g_mutex_unlock (&m->lock);
  return el != NULL;
}

gboolean
ctr_scsr_arrays (const CtrScsr *m, const gint64 **seg_ptr, const CtrScsrElem **elems, GError **error)
{
  if (seg_ptr)
    *seg_ptr = m->seg_ptr;
  if (elems == NULL)
    return TRUE;
  /* made from the compact store when that is the only one (kept until the
   * matrix is freed) */
  *elems = NULL;
  if (!ctr_scsr_expand (m, error))
    return FALSE;
  *elems = ctr_scsr_elems (m);
  return TRUE;
}

gboolean
ctr_scsr_compact (CtrScsr *m)
{
  if (m->w32 != NULL)
    return TRUE;
  if (!ctr_scsr_compact_applies (m->sym, 1) || m->elems == NULL)
    return FALSE;
  const guint64 n = m->nnz;
  guint16 *r16 = g_try_new (guint16, MAX (n, 1));
  if (r16 == NULL)
    return FALSE;
  const CtrScsrElem *el = m->elems;
  const guint PK = m->P * m->K;
  const guint32 *ps = m->sym->part_start;
  const gsize n_seg = (gsize) m->n_orbits * m->n_cols * PK;
#pragma omp parallel for schedule(static, 4096)
  for (gsize i = 0; i < n_seg; i++)
    {
      const guint32 base = ps[(i % PK) / m->K];
      for (gint64 e = m->seg_ptr[i]; e < m->seg_ptr[i + 1]; e++)
        r16[e] = (guint16) (el[e].rep - base);
    }
  /* The weights in place, in the first half of the elements' block: weight
   * e goes to bytes [4e, 4e + 4), over element e/2, which is read already. */
  float *w = (float *) m->elems;
  for (guint64 e = 0; e < n; e++)
    {
      const float we = m->elems[e].w;
      w[e] = we;
    }
  m->elems = NULL;
  /* the first half kept (a shrink that fails keeps the whole block) */
  float *w_shrunk = g_try_realloc (w, MAX (n, 1) * sizeof (float));
  m->w32 = w_shrunk != NULL ? w_shrunk : w;
  m->rep16 = r16;
  return TRUE;
}

guint
ctr_scsr_parts_for (guint K, guint n_reps)
{
  const guint threads = ctr_scsr_default_parts ();
  if (K != 8 || threads < 2)
    return threads;
  const guint need = (guint) (((guint64) n_reps + CTR_SCSR_COMPACT_PART_REPS - 1) / CTR_SCSR_COMPACT_PART_REPS);
  return threads * ((need + threads - 1) / threads);
}

gboolean
ctr_scsr_compact_applies (const CtrSymmetry *sym, guint n_slices)
{
  if (sym->group.order != 8 || n_slices != 1)
    return FALSE;
  for (guint p = 0; p < sym->n_parts; p++)
    if (sym->part_start[p + 1] - sym->part_start[p] > CTR_SCSR_COMPACT_PART_REPS)
      return FALSE;
  return TRUE;
}

void
ctr_scsr_read_elems (const CtrScsr *m, guint64 e0, guint64 n, CtrScsrElem *out)
{
  const CtrScsrElem *el = g_atomic_pointer_get (&((CtrScsr *) m)->elems);
  if (el != NULL)
    {
      memcpy (out, el + e0, n * sizeof (CtrScsrElem));
      return;
    }
  if (n == 0)
    return;
  /* The compact reps are relative to their part's first: walk the segments
   * from the one that holds e0 (the last whose start is ≤ e0). */
  const guint K = m->K, PK = m->P * K;
  const guint32 *ps = m->sym->part_start;
  const gsize n_seg = (gsize) m->n_orbits * m->n_cols * PK;
  gsize lo = 0, hi = n_seg;
  while (hi - lo > 1)
    {
      const gsize mid = lo + (hi - lo) / 2;
      if (m->seg_ptr[mid] <= (gint64) e0)
        lo = mid;
      else
        hi = mid;
    }
  guint64 e = 0;
  for (gsize i = lo; i < n_seg && e < n; i++)
    {
      const guint32 base = ps[(i % PK) / K];
      const gint64 end = MIN (m->seg_ptr[i + 1], (gint64) (e0 + n));
      for (gint64 q = MAX (m->seg_ptr[i], (gint64) e0); q < end; q++, e++)
        out[e] = (CtrScsrElem) { base + m->rep16[q], m->w32[q] };
    }
}

void
ctr_scsr_count_reps (const CtrScsr *m, guint o, guint32 *count_rep)
{
  const guint K = m->K, nc = m->n_cols, PK = m->P * K;
  memset (count_rep, 0, sizeof (guint32) * m->sym->n_reps * K);
  const CtrScsrElem *el = m->w32 != NULL ? NULL : ctr_scsr_elems (m);   /* one store or the other */
  for (guint j = 0; j < nc; j++)
    {
      const gint64 *sg = m->seg_ptr + ((gsize) o * nc + j) * PK;
      for (guint q = 0; q < PK; q++)
        for (gint64 e = sg[q]; e < sg[q + 1]; e++)
          count_rep[(gsize) (el != NULL ? el[e].rep : m->sym->part_start[q / K] + m->rep16[e]) * K + q % K]++;
    }
}

void
ctr_scsr_expand_row (const CtrScsr *m, guint view, guint col, float *dense)
{
  const CtrSymmetry *s = m->sym;
  const guint K = m->K;
  memset (dense, 0, m->np * sizeof (float));
  guint o = s->view_orbit[view], k = s->view_lane[view];
  guint j = ctr_symmetry_lane_col (s, k, col);   /* the map is its own inverse */
  const gint64 *seg = m->seg_ptr + ((gsize) o * m->n_cols + j) * K * m->P;
  /* read from whichever store holds the elements: one row needs no
   * expansion of the whole matrix */
  const CtrScsrElem *el = ctr_scsr_elems (m);
  for (guint q = 0; q < K * m->P; q++)
    for (gint64 e = seg[q]; e < seg[q + 1]; e++)
      {
        const guint32 rep = el != NULL ? el[e].rep : s->part_start[q / K] + m->rep16[e];
        dense[s->rep_pixel[(gsize) rep * K + s->group.compose[k][q % K]]] += el != NULL ? el[e].w : m->w32[e];
      }
}

/* ---------------------------------------------------------------- layout -- */

gsize
ctr_scsr_packed_size (const CtrScsr *m, guint n_slices)
{
  return (gsize) m->sym->n_reps * n_slices * m->K;
}

void
ctr_scsr_pack (const CtrScsr *m, const float *x, float *X, guint ns)
{
  const guint K = m->K;
  const guint32 *rp = m->sym->rep_pixel;
#pragma omp parallel for schedule(static)
  for (guint r = 0; r < m->sym->n_reps; r++)
    for (guint s = 0; s < ns; s++)
      for (guint k = 0; k < K; k++)
        X[((gsize) r * ns + s) * K + k] = x[(gsize) s * m->np + rp[(gsize) r * K + k]];
}

void
ctr_scsr_unpack (const CtrScsr *m, const float *X, float *x, guint ns)
{
  const guint K = m->K;
  const CtrSymmetry *sy = m->sym;
#pragma omp parallel for schedule(static)
  for (guint64 p = 0; p < m->np; p++)
    for (guint s = 0; s < ns; s++)
      x[(gsize) s * m->np + p] = X[((gsize) sy->pixel_rep[p] * ns + s) * K + sy->pixel_slot[p]];
}

/* -------------------------------------------------------------- products -- */

gsize
ctr_scsr_lane_size (const CtrScsr *m, guint ns)
{
  return (gsize) m->n_orbits * m->n_cols * ns * m->K;
}

void
ctr_scsr_rays_to_lanes (const CtrScsr *m, const float *rays, float *lanes, guint ns)
{
  const guint K = m->K, nc = m->n_cols;
  const CtrSymmetry *sy = m->sym;
  const guint64 nr = (guint64) m->n_views * nc;
#pragma omp parallel for schedule(static)
  for (guint o = 0; o < m->n_orbits; o++)
    for (guint k = 0; k < K; k++)
      {
        gint32 v = sy->lane_view[(gsize) o * K + k];
        for (guint j = 0; j < nc; j++)
          for (guint s = 0; s < ns; s++)
            lanes[(((gsize) o * nc + j) * ns + s) * K + k] =
              v < 0 ? 0.f : rays[s * nr + (guint64) v * nc + ctr_symmetry_lane_col (sy, k, j)];
      }
}

void
ctr_scsr_lanes_to_rays (const CtrScsr *m, const float *lanes, float *rays, guint ns)
{
  const guint K = m->K, nc = m->n_cols;
  const CtrSymmetry *sy = m->sym;
  const guint64 nr = (guint64) m->n_views * nc;
#pragma omp parallel for schedule(static)
  for (guint o = 0; o < m->n_orbits; o++)
    for (guint k = 0; k < K; k++)
      {
        gint32 v = sy->lane_view[(gsize) o * K + k];
        if (v < 0)
          continue;
        for (guint j = 0; j < nc; j++)
          for (guint s = 0; s < ns; s++)
            rays[s * nr + (guint64) v * nc + ctr_symmetry_lane_col (sy, k, j)] =
              lanes[(((gsize) o * nc + j) * ns + s) * K + k];
      }
}

gboolean
ctr_scsr_apply (const CtrScsr *m, const float *x, float *y, guint ns, GError **error)
{
  const gsize lsz = (gsize) m->n_cols * ns * m->K, psize = ctr_scsr_packed_size (m, ns);
  if (!(m->K == 8 && ns == 1) && !ctr_scsr_expand (m, error))   /* the kernels' 8-byte elements */
    return FALSE;
  g_autofree char *what = g_strdup_printf ("the packed image and lanes of %u slices (SCSR product)", ns);
  g_autofree float *buf = ctr_memory_try_new (ctr_memory_add (psize, ctr_scsr_lane_size (m, ns)), sizeof (float), FALSE,
                                              what, error);
  if (buf == NULL)
    return FALSE;
  float *X = buf, *ax = buf + psize;
  memset (ax, 0, ctr_scsr_lane_size (m, ns) * sizeof (float));
  ctr_scsr_pack (m, x, X, ns);
#pragma omp parallel for schedule(dynamic, 1)
  for (guint o = 0; o < m->n_orbits; o++)
    for (guint p = 0; p < m->P; p++)
      ctr_scsr_orbit_forward (m, o, p, ns, X, ax + o * lsz);
  ctr_scsr_lanes_to_rays (m, ax, y, ns);
  return TRUE;
}

gboolean
ctr_scsr_apply_adjoint (const CtrScsr *m, const float *y, float *x, guint ns, GError **error)
{
  const gsize psize = ctr_scsr_packed_size (m, ns), lsz = (gsize) m->n_cols * ns * m->K;
  if (!(m->K == 8 && ns == 1) && !ctr_scsr_expand (m, error))   /* the kernels' 8-byte elements */
    return FALSE;
  g_autofree char *what = g_strdup_printf ("the packed images and lanes of %u slices (SCSR adjoint)", ns);
  g_autofree float *buf = ctr_memory_try_new (ctr_memory_add (ctr_memory_mul (psize, 2), ctr_scsr_lane_size (m, ns)),
                                              sizeof (float), FALSE, what, error);
  if (buf == NULL)
    return FALSE;
  float *X = buf, *D = buf + psize, *bl = buf + 2 * psize;
  memset (buf, 0, 2 * psize * sizeof (float));
  ctr_scsr_rays_to_lanes (m, y, bl, ns);
  /* Each thread its own parts: no two threads write one rep. */
#pragma omp parallel for schedule(static, 1)
  for (guint p = 0; p < m->P; p++)
    {
      for (guint o = 0; o < m->n_orbits; o++)
        ctr_scsr_orbit_adjoint (m, o, p, ns, bl + o * lsz, D);
      ctr_scsr_finish_part (m, p, ns, X, D, NULL, FALSE, NULL);
    }
  ctr_scsr_unpack (m, X, x, ns);
  return TRUE;
}
