/* ctr-blocking.c — cuART §4 view-level and global-level blocking of the SCSR
 * rows (see ctr-blocking.h). */
#include "sysmat/ctr-blocking.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  guint32 ray0, ray1;
} Pair;

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
 * (G_MAXINT64: all). */
static void
fill_block (CtrBlock *blk, const CtrScsr *m, const Pair *pairs, guint n, gint64 skip, gint64 limit)
{
  const guint K = ctr_scsr_order (m) * ctr_scsr_n_parts (m), KS = ctr_scsr_order (m);
  const gint64 *seg;
  const CtrScsrElem *el;
  ctr_scsr_arrays (m, &seg, &el);
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
  blk->ray0 = g_new (guint32, n);
  blk->ray1 = g_new (guint32, n);
  blk->junction = g_new (guint32, n);
  blk->rep = g_new0 (guint32, (gsize) width * n);
  blk->slot = g_new0 (guint8, (gsize) width * n);
  blk->w = g_new0 (float, (gsize) width * n);
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
}

static int
cmp_len_desc (const void *a, const void *b, void *data)
{
  const gint64 *len = data;
  gint64 la = len[*(const guint32 *) a], lb = len[*(const guint32 *) b];
  return la > lb ? -1 : la < lb;
}

CtrBlocked *
ctr_blocked_new (const CtrScsr *m, CtrBlockingKind kind)
{
  const guint K = ctr_scsr_order (m) * ctr_scsr_n_parts (m), nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const guint32 n_rows = no * nc;
  const gint64 *seg;
  ctr_scsr_arrays (m, &seg, NULL);
  gint64 *len = g_new (gint64, n_rows);
  gint64 a = G_MAXINT64;
  for (guint32 r = 0; r < n_rows; r++)
    {
      len[r] = row_len (seg, K, r);
      a = MIN (a, len[r]);
    }
  if (n_rows == 0)
    a = 0;
  GArray *blocks = g_array_new (FALSE, TRUE, sizeof (CtrBlock));
  /* Sub_SM1: the first a elements of every row. */
  {
    Pair *p = g_new (Pair, n_rows);
    for (guint32 r = 0; r < n_rows; r++)
      p[r] = (Pair) { r, G_MAXUINT32 };
    CtrBlock blk = { 0 };
    fill_block (&blk, m, p, n_rows, 0, a);
    g_array_append_val (blocks, blk);
    g_free (p);
  }
  guint *orbit_first = NULL;
  if (kind == CTR_BLOCKING_ORBIT)
    {
      /* drop the all-orbit Sub_SM1 made above: each orbit has its own */
      ctr_blocked_clear_block (&g_array_index (blocks, CtrBlock, 0));
      g_array_set_size (blocks, 0);
      orbit_first = g_new (guint, no + 1);
      guint32 *order = g_new (guint32, nc);
      Pair *p = g_new (Pair, nc);
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
          CtrBlock b1 = { 0 };
          fill_block (&b1, m, p, nc, 0, ao);
          b1.orbit = o;
          g_array_append_val (blocks, b1);
          /* remainders: longest with shortest */
          g_qsort_with_data (order, nc, sizeof (guint32), cmp_len_desc, len);
          const guint np = (nc + 1) / 2;
          for (guint i = 0; i < np; i++)
            p[i] = (Pair) { order[i], nc - 1 - i > i ? order[nc - 1 - i] : G_MAXUINT32 };
          CtrBlock b2 = { 0 };
          fill_block (&b2, m, p, np, ao, G_MAXINT64);
          b2.orbit = o;
          g_array_append_val (blocks, b2);
        }
      orbit_first[no] = blocks->len;
      g_free (p);
      g_free (order);
    }
  else if (kind == CTR_BLOCKING_GLOBAL)
    {
      guint32 *order = g_new (guint32, n_rows);
      for (guint32 r = 0; r < n_rows; r++)
        order[r] = r;
      g_qsort_with_data (order, n_rows, sizeof (guint32), cmp_len_desc, len);
      guint np = (n_rows + 1) / 2;
      Pair *p = g_new (Pair, np);
      for (guint i = 0; i < np; i++)
        p[i] = (Pair) { order[i], n_rows - 1 - i > i ? order[n_rows - 1 - i] : G_MAXUINT32 };
      CtrBlock blk = { 0 };
      fill_block (&blk, m, p, np, a, G_MAXINT64);
      g_array_append_val (blocks, blk);
      g_free (p);
      g_free (order);
    }
  else
    {
      Pair *p = g_new (Pair, 2 * nc);
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
              guint8 *used = g_new0 (guint8, nc);
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
              g_free (used);
            }
          CtrBlock blk = { 0 };
          fill_block (&blk, m, p, n, a, G_MAXINT64);
          g_array_append_val (blocks, blk);
        }
      g_free (p);
    }
  g_free (len);

  CtrBlocked *b = g_new0 (CtrBlocked, 1);
  b->orbit_first = orbit_first;
  b->n_blocks = blocks->len;
  b->blocks = (CtrBlock *) g_array_free (blocks, FALSE);
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
