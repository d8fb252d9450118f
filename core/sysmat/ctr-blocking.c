/* ctr-blocking.c — cuART §4 view-level and global-level blocking of the SCSR
 * rows (see ctr-blocking.h). */
#include "sysmat/ctr-blocking.h"

#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-sort.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  guint32 ray0, ray1;
} Pair;

/* The blocks made so far: room for every block of the layout, allocated
 * before the first (a grown GArray aborted where the list did not fit). */
typedef struct {
  CtrBlock *b;
  guint len, cap;
} BlockList;

/* K here is the number of segments per row (parts × slots). */
static void
ctr_blocked_clear_block (CtrBlock *k)
{
  g_free (k->ray0);
  g_free (k->ray1);
  g_free (k->junction);
  g_free (k->rep);
  g_free (k->slot);
  g_free (k->w);
}

static gint64
row_len (const gint64 *seg, guint K, guint32 row)
{
  return seg[((gsize) row + 1) * K] - seg[(gsize) row * K];
}

/* Fills one dense block from @pairs; elements from position @skip of each
 * stored row on (Sub_SM1 holds the first @skip), at most @limit per row
 * (G_MAXINT64: all).  FALSE with CTR_ERROR_OUT_OF_MEMORY when its arrays
 * cannot be allocated (@blk then holds what was, for
 * ctr_blocked_clear_block). */
static gboolean
fill_block (CtrBlock *blk, const CtrScsr *m, const Pair *pairs, guint n, gint64 skip, gint64 limit,
            GError **error)
{
  const guint K = ctr_scsr_order (m) * ctr_scsr_n_parts (m), KS = ctr_scsr_order (m);
  const gint64 *seg;
  const CtrScsrElem *el;
  if (!ctr_scsr_arrays (m, &seg, &el, error))
    return FALSE;
  guint width = 0;
  for (guint i = 0; i < n; i++)
    {
      gint64 l0 = MIN (row_len (seg, K, pairs[i].ray0) - skip, limit);
      gint64 l1 = pairs[i].ray1 == G_MAXUINT32 ? 0 : MIN (row_len (seg, K, pairs[i].ray1) - skip, limit);
      width = MAX (width, (guint) (l0 + l1));
    }
  blk->orbit = G_MAXUINT;
  blk->n_rows = n;
  blk->width = width;
  const gsize cells = (gsize) width * n;
  const char *what = "the blocked layout of the system matrix";
  if (!(blk->ray0 = ctr_memory_try_new (n, sizeof (guint32), FALSE, what, error))
      || !(blk->ray1 = ctr_memory_try_new (n, sizeof (guint32), FALSE, what, error))
      || !(blk->junction = ctr_memory_try_new (n, sizeof (guint32), FALSE, what, error))
      || !(blk->rep = ctr_memory_try_new (cells, sizeof (guint32), TRUE, what, error))
      || !(blk->slot = ctr_memory_try_new (cells, sizeof (guint8), TRUE, what, error))
      || !(blk->w = ctr_memory_try_new (cells, sizeof (float), TRUE, what, error)))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      blk->ray0[i] = pairs[i].ray0;
      blk->ray1[i] = pairs[i].ray1;
      guint c = 0;
      for (int part = 0; part < 2; part++)
        {
          guint32 row = part ? pairs[i].ray1 : pairs[i].ray0;
          if (part == 1)
            blk->junction[i] = c;
          if (row == G_MAXUINT32)
            continue;
          const gint64 *s = seg + (gsize) row * K;
          gint64 pos = 0, placed = 0;
          for (guint h = 0; h < K; h++)
            for (gint64 e = s[h]; e < s[h + 1]; e++, pos++)
              if (pos >= skip && placed < limit)
                {
                  guint col = (c + i) % width;   /* round-robin rotation */
                  gsize q = (gsize) col * n + i;
                  blk->rep[q] = el[e].rep;
                  blk->slot[q] = (guint8) (h % KS);
                  blk->w[q] = el[e].w;
                  c++;
                  placed++;
                }
        }
    }
  return TRUE;
}

static int
cmp_len_desc (const void *a, const void *b, void *data)
{
  const gint64 *len = data;
  gint64 la = len[*(const guint32 *) a], lb = len[*(const guint32 *) b];
  return la > lb ? -1 : la < lb;
}

/* Appends the block of @pairs to @blocks (orbit @orbit, G_MAXUINT: none). */
static gboolean
append_block (BlockList *blocks, const CtrScsr *m, const Pair *pairs, guint n, gint64 skip, gint64 limit,
              guint orbit, GError **error)
{
  CtrBlock blk = { 0 };
  if (!fill_block (&blk, m, pairs, n, skip, limit, error))
    {
      ctr_blocked_clear_block (&blk);
      return FALSE;
    }
  if (orbit != G_MAXUINT)
    blk.orbit = orbit;
  g_assert (blocks->len < blocks->cap);
  blocks->b[blocks->len++] = blk;
  return TRUE;
}

/* Orbit-level blocking: per orbit its Sub_SM1 and its remainders. */
static gboolean
blocks_orbit (BlockList *blocks, guint *orbit_first, const CtrScsr *m, const gint64 *len, GError **error)
{
  const guint nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const char *what = "the blocked layout of the system matrix";
  g_autofree guint32 *order = ctr_memory_try_new (nc, sizeof (guint32), FALSE, what, error);
  g_autofree Pair *p = order ? ctr_memory_try_new (nc, sizeof (Pair), FALSE, what, error) : NULL;
  if (p == NULL)
    return FALSE;
  for (guint o = 0; o < no; o++)
    {
      orbit_first[o] = blocks->len;
      gint64 ao = G_MAXINT64;
      for (guint j = 0; j < nc; j++)
        ao = MIN (ao, len[o * nc + j]);
      for (guint j = 0; j < nc; j++)
        {
          order[j] = o * nc + j;
          p[j] = (Pair) { o * nc + j, G_MAXUINT32 };
        }
      if (!append_block (blocks, m, p, nc, 0, ao, o, error))
        return FALSE;
      /* remainders: longest with shortest */
      if (!ctr_sort_stable (order, nc, sizeof (guint32), cmp_len_desc, (gpointer) len,
                            "the blocked layout's rows by length", error))
        return FALSE;
      const guint np = (nc + 1) / 2;
      for (guint i = 0; i < np; i++)
        p[i] = (Pair) { order[i], nc - 1 - i > i ? order[nc - 1 - i] : G_MAXUINT32 };
      if (!append_block (blocks, m, p, np, ao, G_MAXINT64, o, error))
        return FALSE;
    }
  orbit_first[no] = blocks->len;
  return TRUE;
}

/* Global blocking (§4.1): the remainders of all rows, longest with shortest. */
static gboolean
blocks_global (BlockList *blocks, const CtrScsr *m, const gint64 *len, gint64 a, GError **error)
{
  const guint32 n_rows = ctr_scsr_n_orbits (m) * ctr_scsr_n_cols (m);
  const char *what = "the blocked layout of the system matrix";
  g_autofree guint32 *order = ctr_memory_try_new (n_rows, sizeof (guint32), FALSE, what, error);
  if (order == NULL)
    return FALSE;
  for (guint32 r = 0; r < n_rows; r++)
    order[r] = r;
  if (!ctr_sort_stable (order, n_rows, sizeof (guint32), cmp_len_desc, (gpointer) len,
                        "the blocked layout's rows by length", error))
    return FALSE;
  guint np = (n_rows + 1) / 2;
  g_autofree Pair *p = ctr_memory_try_new (np, sizeof (Pair), FALSE, what, error);
  if (p == NULL)
    return FALSE;
  for (guint i = 0; i < np; i++)
    p[i] = (Pair) { order[i], n_rows - 1 - i > i ? order[n_rows - 1 - i] : G_MAXUINT32 };
  return append_block (blocks, m, p, np, a, G_MAXINT64, G_MAXUINT, error);
}

/* View-level blocking (§4.2, Algorithm 1): views in pairs, the ramps of the
 * second view's plateau joined to the rows of the first. */
static gboolean
blocks_view (BlockList *blocks, const CtrScsr *m, const gint64 *len, gint64 a, GError **error)
{
  const guint nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const char *what = "the blocked layout of the system matrix";
  g_autofree Pair *p = ctr_memory_try_new (2 * (gsize) nc, sizeof (Pair), FALSE, what, error);
  g_autofree guint8 *used = p ? ctr_memory_try_new (nc, sizeof (guint8), FALSE, what, error) : NULL;
  if (used == NULL)
    return FALSE;
  for (guint o = 0; o < no; o += 2)
    {
      guint n = 0;
      const guint32 A = o * nc;
      if (o + 1 == no)
        {
          for (guint j = 0; j < nc; j++)
            p[n++] = (Pair) { A + j, G_MAXUINT32 };
        }
      else
        {
          const guint32 B = (o + 1) * nc;
          /* Plateau of view B: rows within 10 % of its longest. */
          gint64 mx = 0;
          for (guint j = 0; j < nc; j++)
            mx = MAX (mx, len[B + j]);
          guint left = 0, right = 0;
          while (left < nc && len[B + left] < mx * 9 / 10)
            left++;
          while (right < nc - left && len[B + nc - 1 - right] < mx * 9 / 10)
            right++;
          memset (used, 0, nc);
          for (guint j = 0; j < nc; j++)
            {
              guint32 partner = G_MAXUINT32;
              if (j < left)
                partner = B + (left - 1 - j);            /* left ramp, reversed */
              else if (j >= nc - right)
                partner = B + (nc - 1 - (j - (nc - right)));  /* right ramp, reversed */
              if (partner != G_MAXUINT32)
                used[partner - B] = 1;
              p[n++] = (Pair) { A + j, partner };
            }
          for (guint j = 0; j < nc; j++)
            if (!used[j])
              p[n++] = (Pair) { B + j, G_MAXUINT32 };
        }
      if (!append_block (blocks, m, p, n, a, G_MAXINT64, G_MAXUINT, error))
        return FALSE;
    }
  return TRUE;
}

/* Sub_SM1 of all rows: the first @a elements of every row. */
static gboolean
blocks_first (BlockList *blocks, const CtrScsr *m, gint64 a, GError **error)
{
  const guint32 n_rows = ctr_scsr_n_orbits (m) * ctr_scsr_n_cols (m);
  g_autofree Pair *p = ctr_memory_try_new (n_rows, sizeof (Pair), FALSE,
                                           "the blocked layout of the system matrix", error);
  if (p == NULL)
    return FALSE;
  for (guint32 r = 0; r < n_rows; r++)
    p[r] = (Pair) { r, G_MAXUINT32 };
  return append_block (blocks, m, p, n_rows, 0, a, G_MAXUINT, error);
}

static void
blocks_free (BlockList *blocks)
{
  for (guint i = 0; i < blocks->len; i++)
    ctr_blocked_clear_block (&blocks->b[i]);
  g_free (blocks->b);
}

/* The number of blocks @kind makes of @n_orbits orbits: two per orbit;
 * Sub_SM1 and one per pair of views; Sub_SM1 and the remainders. */
static guint64
blocks_needed (CtrBlockingKind kind, guint n_orbits)
{
  return kind == CTR_BLOCKING_ORBIT ? 2 * (guint64) n_orbits
         : kind == CTR_BLOCKING_VIEW ? 1 + ((guint64) n_orbits + 1) / 2
                                     : 2;
}

CtrBlocked *
ctr_blocked_new (const CtrScsr *m, CtrBlockingKind kind, GError **error)
{
  const guint K = ctr_scsr_order (m) * ctr_scsr_n_parts (m), nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const guint32 n_rows = no * nc;
  const gint64 *seg;
  ctr_scsr_arrays (m, &seg, NULL, NULL);
  if (!ctr_scsr_expand (m, error))   /* a compact matrix: fill_block walks the 8-byte elements */
    return NULL;
  g_autofree char *what = g_strdup_printf ("the blocked layout's list of %" G_GUINT64_FORMAT " blocks",
                                           blocks_needed (kind, no));
  BlockList blocks = { ctr_memory_try_new (blocks_needed (kind, no), sizeof (CtrBlock), TRUE, what, error), 0,
                       (guint) blocks_needed (kind, no) };
  if (blocks.b == NULL)
    return NULL;
  g_autofree gint64 *len = ctr_memory_try_new (n_rows, sizeof (gint64), FALSE,
                                               "the blocked layout of the system matrix", error);
  g_autofree guint *orbit_first = NULL;
  if (len == NULL)
    {
      g_free (blocks.b);
      return NULL;
    }
  gint64 a = G_MAXINT64;
  for (guint32 r = 0; r < n_rows; r++)
    {
      len[r] = row_len (seg, K, r);
      a = MIN (a, len[r]);
    }
  if (n_rows == 0)
    a = 0;
  gboolean ok;
  if (kind == CTR_BLOCKING_ORBIT)
    {
      orbit_first = ctr_memory_try_new ((gsize) no + 1, sizeof (guint), FALSE,
                                        "the blocked layout of the system matrix", error);
      ok = orbit_first != NULL && blocks_orbit (&blocks, orbit_first, m, len, error);
    }
  else
    ok = blocks_first (&blocks, m, a, error)
         && (kind == CTR_BLOCKING_GLOBAL ? blocks_global (&blocks, m, len, a, error)
                                         : blocks_view (&blocks, m, len, a, error));
  if (!ok)
    {
      blocks_free (&blocks);
      return NULL;
    }
  CtrBlocked *b = g_new0 (CtrBlocked, 1);
  b->orbit_first = g_steal_pointer (&orbit_first);
  b->n_blocks = blocks.len;
  b->blocks = blocks.b;
  for (guint i = 0; i < b->n_blocks; i++)
    b->cells += (guint64) b->blocks[i].n_rows * b->blocks[i].width;
  b->nnz = ctr_scsr_nnz (m);
  return b;
}

void
ctr_blocked_free (CtrBlocked *b)
{
  if (b == NULL)
    return;
  for (guint i = 0; i < b->n_blocks; i++)
    ctr_blocked_clear_block (&b->blocks[i]);
  g_free (b->blocks);
  g_free (b->orbit_first);
  g_free (b);
}

double
ctr_blocked_padding (const CtrBlocked *b)
{
  return b->nnz ? (double) b->cells / b->nnz - 1.0 : 0.0;
}

guint64
ctr_blocked_bytes (const CtrBlocked *b)
{
  guint64 bytes = 0;
  for (guint i = 0; i < b->n_blocks; i++)
    bytes += (guint64) b->blocks[i].n_rows * (3 * sizeof (guint32) + b->blocks[i].width * (sizeof (guint32) + sizeof (float) + 1));
  return bytes;
}

void
ctr_blocked_apply_canonical (const CtrBlocked *b, const CtrScsr *m, const float *x, float *y)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m);
  memset (y, 0, (gsize) ctr_scsr_n_orbits (m) * ctr_scsr_n_cols (m) * sizeof (float));
  for (guint k = 0; k < b->n_blocks; k++)
    {
      const CtrBlock *blk = &b->blocks[k];
      for (guint i = 0; i < blk->n_rows; i++)   /* one GPU thread */
        {
          float s0 = 0.f, s1 = 0.f;
          for (guint c = 0; c < blk->width; c++)
            {
              gsize q = (gsize) c * blk->n_rows + i;
              guint orig = (c + blk->width - i % blk->width) % blk->width;
              float v = blk->w[q] * x[sy->rep_pixel[(gsize) blk->rep[q] * K + blk->slot[q]]];
              if (orig < blk->junction[i])
                s0 += v;
              else
                s1 += v;
            }
          y[blk->ray0[i]] += s0;
          if (blk->ray1[i] != G_MAXUINT32)
            y[blk->ray1[i]] += s1;
        }
    }
}
