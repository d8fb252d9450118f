/* ctr-scsr-kernels.c — the orbit kernels of SCSR (ctr-scsr-private.h):
 * the forward and transposed products of one orbit's stored rows over the
 * elements of one part (the one-slice K = 8 kernels read either element
 * store, the others the 8-byte elements), and the completion of a part's
 * update (reps on a symmetry axis, the clip at 0). */
#include "sysmat/ctr-scsr-private.h"

#include <string.h>

enum { SB = 8 };  /* slices per register block */

/* 8 floats as one vector (GCC vector extension: AVX in the x86-64-v3 clone,
 * two SSE registers in the default one); unaligned loads through memcpy. */
#pragma GCC diagnostic ignored "-Wpsabi"   /* v8f never crosses a call: always_inline */
typedef float v8f __attribute__ ((vector_size (32)));

static inline __attribute__ ((always_inline)) v8f
load8 (const float *p)
{
  v8f v;
  memcpy (&v, p, sizeof v);
  return v;
}

static inline __attribute__ ((always_inline)) void
store8 (float *p, v8f v)
{
  memcpy (p, &v, sizeof v);
}

/* acc[0..L) += w · xr[0..L) over one segment; L a compile-time constant at
 * every call site (K, or SB·K for a slice block), a multiple of 8 taken as
 * vectors. */
static inline __attribute__ ((always_inline)) void
seg_dot (const CtrScsrElem *restrict e0, const CtrScsrElem *restrict e1, const float *restrict X,
         gsize stride, gsize off, const guint L, float *restrict acc)
{
  if (L % 8 == 0 && L <= 64)
    {
      v8f a[8];
      for (guint q = 0; q < L / 8; q++)
        a[q] = load8 (acc + 8 * q);
      for (const CtrScsrElem *e = e0; e < e1; e++)
        {
          const float *restrict xr = X + (gsize) e->rep * stride + off;
          const v8f w = { e->w, e->w, e->w, e->w, e->w, e->w, e->w, e->w };
          for (guint q = 0; q < L / 8; q++)
            a[q] += w * load8 (xr + 8 * q);
        }
      for (guint q = 0; q < L / 8; q++)
        store8 (acc + 8 * q, a[q]);
      return;
    }
  if (L == 1)
    {
      /* No symmetry, one slice: a plain sparse dot product, four partial
       * sums so that the adds do not wait on each other. */
      float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
      const CtrScsrElem *e = e0;
      for (; e + 4 <= e1; e += 4)
        {
          a0 += e[0].w * X[(gsize) e[0].rep * stride + off];
          a1 += e[1].w * X[(gsize) e[1].rep * stride + off];
          a2 += e[2].w * X[(gsize) e[2].rep * stride + off];
          a3 += e[3].w * X[(gsize) e[3].rep * stride + off];
        }
      for (; e < e1; e++)
        a0 += e->w * X[(gsize) e->rep * stride + off];
      acc[0] += (a0 + a1) + (a2 + a3);
      return;
    }
  for (const CtrScsrElem *e = e0; e < e1; e++)
    {
      const float w = e->w;
      const float *restrict xr = X + (gsize) e->rep * stride + off;
      for (guint q = 0; q < L; q++)
        acc[q] += w * xr[q];
    }
}

static inline __attribute__ ((always_inline)) void
seg_axpy (const CtrScsrElem *restrict e0, const CtrScsrElem *restrict e1, float *restrict D,
          gsize stride, gsize off, const guint L, const float *restrict v)
{
  if (L % 8 == 0 && L <= 64)
    {
      v8f vv[8];
      for (guint q = 0; q < L / 8; q++)
        vv[q] = load8 (v + 8 * q);
      for (const CtrScsrElem *e = e0; e < e1; e++)
        {
          float *restrict dr = D + (gsize) e->rep * stride + off;
          const v8f w = { e->w, e->w, e->w, e->w, e->w, e->w, e->w, e->w };
          for (guint q = 0; q < L / 8; q++)
            store8 (dr + 8 * q, load8 (dr + 8 * q) + w * vv[q]);
        }
      return;
    }
  for (const CtrScsrElem *e = e0; e < e1; e++)
    {
      const float w = e->w;
      float *restrict dr = D + (gsize) e->rep * stride + off;
      for (guint q = 0; q < L; q++)
        dr[q] += w * v[q];
    }
}

typedef gint32 v8i __attribute__ ((vector_size (32)));

/* r[g] = a[idx[g]]: vpermps in GCC's AVX2 clone; clang (the fuzzing build)
 * has no run-time vector shuffle builtin and takes the lanes one by one. */
static inline __attribute__ ((always_inline)) v8f
permute8 (v8f a, v8i idx)
{
#if defined(__clang__)
  v8f r;
  for (guint g = 0; g < 8; g++)
    r[g] = a[idx[g]];
  return r;
#else
  return __builtin_shuffle (a, idx);
#endif
}

/* Lane permutations of slot h for one-slice K = 8 rows: perm[h][g] =
 * compose[g][h] (row lane g reads slot perm[h][g]) and its inverse. */
static void
slot_permutations (const CtrScsr *m, v8i perm[8], v8i inv[8])
{
  const guint8 (*comp)[8] = m->sym->group.compose;
  for (guint h = 0; h < 8; h++)
    for (guint g = 0; g < 8; g++)
      {
        perm[h][g] = comp[g][h];
        inv[h][comp[g][h]] = (gint32) g;
      }
}

/* One slice, K = 8: a stored row's 8 lanes are one vector.  Slot h's
 * segment sums w · X[rep] into a vector whose lane c holds slot c; lane g of
 * the row takes slot compose[g][h] (a permutation, vpermps with AVX2), so a
 * row is 8 segment sums, 8 permutations and one add into @acc_out. */
#define ELEM_W(e) (compact ? W[e] : el[e].w)
#define ELEM_REP(e) (compact ? (guint32) R[e] : el[e].rep)

static inline __attribute__ ((always_inline)) void
forward_1slice_k8 (const CtrScsr *m, const gboolean compact, guint o, guint part, const float *restrict X,
                   float *restrict acc_out)
{
  const guint nc = m->n_cols, PK = 8 * m->P;
  const CtrScsrElem *restrict el = m->elems;
  const guint16 *restrict R = m->rep16;
  const float *restrict W = m->w32;
  if (compact)   /* its reps count from the part's first */
    X += (gsize) m->sym->part_start[part] * 8;
  v8i perm[8], inv[8];
  slot_permutations (m, perm, inv);
  for (guint j = 0; j < nc; j++)
    {
      const gint64 *seg = m->seg_ptr + ((gsize) o * nc + j) * PK + (gsize) part * 8;
      if (seg[0] == seg[8])
        continue;
      v8f out = { 0 };
      for (guint h = 0; h < 8; h++)
        {
          if (seg[h] == seg[h + 1])
            continue;
          /* Two independent sums: an FMA waits ~4 cycles for its input.
           * The weight's broadcast is spelled out: through an inline
           * splat helper GCC broadcast from a register and W1 took 1.6×
           * as long here (stop 24, 3 interleaved pairs). */
          v8f a0 = { 0 }, a1 = { 0 };
          gint64 e = seg[h];
          const gint64 e1 = seg[h + 1];
          for (; e + 2 <= e1; e += 2)
            {
              const float w0 = ELEM_W (e), w1 = ELEM_W (e + 1);
              a0 += (v8f) { w0, w0, w0, w0, w0, w0, w0, w0 } * load8 (X + (gsize) ELEM_REP (e) * 8);
              a1 += (v8f) { w1, w1, w1, w1, w1, w1, w1, w1 } * load8 (X + (gsize) ELEM_REP (e + 1) * 8);
            }
          if (e < e1)
            {
              const float w0 = ELEM_W (e);
              a0 += (v8f) { w0, w0, w0, w0, w0, w0, w0, w0 } * load8 (X + (gsize) ELEM_REP (e) * 8);
            }
          out += permute8 (a0 + a1, perm[h]);
        }
      store8 (acc_out + (gsize) j * 8, load8 (acc_out + (gsize) j * 8) + out);
    }
}

/* The transposed products of forward_1slice_k8: slot c of the rep takes the
 * row's lane g with compose[g][h] = c (the inverse permutation). */
static inline __attribute__ ((always_inline)) void
adjoint_1slice_k8 (const CtrScsr *m, const gboolean compact, guint o, guint part, const float *restrict v,
                   float *restrict T)
{
  const guint nc = m->n_cols, PK = 8 * m->P;
  const CtrScsrElem *restrict el = m->elems;
  const guint16 *restrict R = m->rep16;
  const float *restrict W = m->w32;
  if (compact)
    T += (gsize) m->sym->part_start[part] * 8;
  v8i perm[8], inv[8];
  slot_permutations (m, perm, inv);
  for (guint j = 0; j < nc; j++)
    {
      const gint64 *seg = m->seg_ptr + ((gsize) o * nc + j) * PK + (gsize) part * 8;
      const v8f vj = load8 (v + (gsize) j * 8);
      if (seg[0] == seg[8] || !(vj[0] != 0.f || vj[1] != 0.f || vj[2] != 0.f || vj[3] != 0.f
                                || vj[4] != 0.f || vj[5] != 0.f || vj[6] != 0.f || vj[7] != 0.f))
        continue;
      for (guint h = 0; h < 8; h++)
        {
          const v8f vh = permute8 (vj, inv[h]);
          for (gint64 e = seg[h], e1 = seg[h + 1]; e < e1; e++)
            {
              float *restrict dr = T + (gsize) ELEM_REP (e) * 8;
              const float w = ELEM_W (e);
              store8 (dr, load8 (dr) + (v8f) { w, w, w, w, w, w, w, w } * vh);
            }
        }
    }
}

/* Forward products of the rows of orbit @o over the elements of part @part:
 * acc[j][s][g] += Σ_{h, e ∈ segment (part, h)} w · X[rep][s][compose[g][h]]. */
static inline __attribute__ ((always_inline)) void
forward_k (const CtrScsr *m, const guint K, guint o, guint part, guint ns,
           const float *restrict X, float *restrict acc_out)
{
  const guint nc = m->n_cols, PK = K * m->P;
  const guint8 (*comp)[8] = m->sym->group.compose;
  const gsize stride = (gsize) ns * K;
  const CtrScsrElem *el = ctr_scsr_elems (m);   /* made by the caller (ctr_scsr_expand) */
  g_assert (el != NULL);
  /* Slice blocks outermost: one block's image (SB·K floats per rep) stays
   * in cache while all rows pass over it. */
  for (guint s0 = 0; s0 < ns; s0 += SB)
    for (guint j = 0; j < nc; j++)
      {
        const gint64 *seg = m->seg_ptr + ((gsize) o * nc + j) * PK + (gsize) part * K;
        float *ao = acc_out + (gsize) j * stride;
        {
          const guint sb = MIN ((guint) SB, ns - s0);
          const gsize off = (gsize) s0 * K;
          for (guint h = 0; h < K; h++)
            {
              if (seg[h] == seg[h + 1])
                continue;
              float acc[SB * 8] = { 0 };
              if (sb == 1)
                seg_dot (el + seg[h], el + seg[h + 1], X, stride, off, K, acc);
              else if (sb == SB)
                seg_dot (el + seg[h], el + seg[h + 1], X, stride, off, SB * K, acc);
              else
                seg_dot (el + seg[h], el + seg[h + 1], X, stride, off, sb * K, acc);
              for (guint s = 0; s < sb; s++)
                for (guint g = 0; g < K; g++)
                  ao[off + s * K + g] += acc[s * K + comp[g][h]];
            }
        }
    }
}

/* Transposed products of the rows of orbit @o, elements of part @part:
 * T[rep][s][compose[g][h]] += w · v[j][s][g]. */
static inline __attribute__ ((always_inline)) void
adjoint_k (const CtrScsr *m, const guint K, guint o, guint part, guint ns,
           const float *restrict v, float *restrict T)
{
  const guint nc = m->n_cols, PK = K * m->P;
  const guint8 (*comp)[8] = m->sym->group.compose;
  const gsize stride = (gsize) ns * K;
  const CtrScsrElem *el = ctr_scsr_elems (m);   /* made by the caller (ctr_scsr_expand) */
  g_assert (el != NULL);
  for (guint s0 = 0; s0 < ns; s0 += SB)
    for (guint j = 0; j < nc; j++)
      {
        const gint64 *seg = m->seg_ptr + ((gsize) o * nc + j) * PK + (gsize) part * K;
        const float *vj = v + (gsize) j * stride;
        {
          const guint sb = MIN ((guint) SB, ns - s0);
          const gsize off = (gsize) s0 * K;
          gboolean any = FALSE;
          for (guint q = 0; q < sb * K; q++)
            any |= vj[off + q] != 0.f;
          if (!any)
            continue;
          for (guint h = 0; h < K; h++)
            {
              if (seg[h] == seg[h + 1])
                continue;
              float vh[SB * 8];
              for (guint s = 0; s < sb; s++)
                for (guint g = 0; g < K; g++)
                  vh[s * K + comp[g][h]] = vj[off + s * K + g];
              if (sb == 1)
                seg_axpy (el + seg[h], el + seg[h + 1], T, stride, off, K, vh);
              else if (sb == SB)
                seg_axpy (el + seg[h], el + seg[h + 1], T, stride, off, SB * K, vh);
              else
                seg_axpy (el + seg[h], el + seg[h + 1], T, stride, off, sb * K, vh);
            }
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CTR_CLONES __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define CTR_CLONES
#endif

CTR_CLONES void
ctr_scsr_orbit_forward (const CtrScsr *m, guint o, guint part, guint ns, const float *X, float *acc)
{
  if (m->K == 8 && ns == 1)
    {
      if (m->w32 != NULL)
        forward_1slice_k8 (m, TRUE, o, part, X, acc);
      else
        forward_1slice_k8 (m, FALSE, o, part, X, acc);
      return;
    }
  switch (m->K)
    {
    case 8: forward_k (m, 8, o, part, ns, X, acc); break;
    case 4: forward_k (m, 4, o, part, ns, X, acc); break;
    case 2: forward_k (m, 2, o, part, ns, X, acc); break;
    default: forward_k (m, 1, o, part, ns, X, acc); break;
    }
}

CTR_CLONES void
ctr_scsr_orbit_adjoint (const CtrScsr *m, guint o, guint part, guint ns, const float *v, float *T)
{
  if (m->K == 8 && ns == 1)
    {
      if (m->w32 != NULL)
        adjoint_1slice_k8 (m, TRUE, o, part, v, T);
      else
        adjoint_1slice_k8 (m, FALSE, o, part, v, T);
      return;
    }
  switch (m->K)
    {
    case 8: adjoint_k (m, 8, o, part, ns, v, T); break;
    case 4: adjoint_k (m, 4, o, part, ns, v, T); break;
    case 2: adjoint_k (m, 2, o, part, ns, v, T); break;
    default: adjoint_k (m, 1, o, part, ns, v, T); break;
    }
}

gsize
ctr_scsr_stabilised_size (const CtrScsr *m, guint part, guint ns)
{
  const CtrSymmetry *sy = m->sym;
  gsize n = 0;
  for (guint32 r = sy->part_start[part]; r < sy->part_start[part + 1]; r++)
    n += sy->rep_stabilised[r];
  return n * ns * m->K;
}

void
ctr_scsr_save_stabilised (const CtrScsr *m, guint part, guint ns, const float *X, float *saved)
{
  const CtrSymmetry *sy = m->sym;
  const gsize stride = (gsize) ns * m->K;
  for (guint32 r = sy->part_start[part]; r < sy->part_start[part + 1]; r++)
    if (sy->rep_stabilised[r])
      {
        memcpy (saved, X + (gsize) r * stride, stride * sizeof (float));
        saved += stride;
      }
}

CTR_CLONES void
ctr_scsr_finish_part (const CtrScsr *m, guint part, guint ns, float *X, float *D,
                      const float *scale, gboolean nonneg, const float *saved)
{
  const CtrSymmetry *sy = m->sym;
  const guint K = m->K;
  const gsize stride = (gsize) ns * K;
  const guint32 r0 = sy->part_start[part], r1 = sy->part_start[part + 1];
  if (D != NULL)
    {
      for (guint32 r = r0; r < r1; r++)
        {
          float *xr = X + (gsize) r * stride, *dr = D + (gsize) r * stride;
          for (guint s = 0; s < ns; s++)
            {
              float t[8];
              memcpy (t, dr + s * K, K * sizeof (float));
              if (G_UNLIKELY (sy->rep_stabilised[r]))
                {
                  const guint32 *px = sy->rep_pixel + (gsize) r * K;
                  float u[8];
                  for (guint k = 0; k < K; k++)
                    {
                      u[k] = 0.f;
                      for (guint k2 = 0; k2 < K; k2++)
                        if (px[k2] == px[k])
                          u[k] += t[k2];
                    }
                  memcpy (t, u, K * sizeof (float));
                }
              for (guint k = 0; k < K; k++)
                {
                  float nv = xr[s * K + k] + (scale ? scale[(gsize) r * K + k] * t[k] : t[k]);
                  xr[s * K + k] = nonneg && nv < 0.f ? 0.f : nv;
                }
            }
          memset (dr, 0, stride * sizeof (float));
        }
      return;
    }
  /* Updated in place: slots that are one pixel each got part of the update. */
  for (guint32 r = r0; r < r1; r++)
    {
      float *xr = X + (gsize) r * stride;
      if (G_UNLIKELY (sy->rep_stabilised[r]))
        {
          const guint32 *px = sy->rep_pixel + (gsize) r * K;
          for (guint s = 0; s < ns; s++)
            {
              float u[8];
              for (guint k = 0; k < K; k++)
                {
                  u[k] = saved[s * K + k];
                  for (guint k2 = 0; k2 < K; k2++)
                    if (px[k2] == px[k])
                      u[k] += xr[s * K + k2] - saved[s * K + k2];
                }
              memcpy (xr + s * K, u, K * sizeof (float));
            }
          saved += stride;
        }
      if (nonneg)
        for (gsize q = 0; q < stride; q++)
          xr[q] = xr[q] < 0.f ? 0.f : xr[q];
    }
}

void
ctr_scsr_reduce_part (const CtrScsr *m, guint part, guint ns, float *D)
{
  const CtrSymmetry *sy = m->sym;
  const guint K = m->K;
  const gsize stride = (gsize) ns * K;
  for (guint32 r = sy->part_start[part]; r < sy->part_start[part + 1]; r++)
    {
      if (G_LIKELY (!sy->rep_stabilised[r]))
        continue;
      const guint32 *px = sy->rep_pixel + (gsize) r * K;
      float *dr = D + (gsize) r * stride;
      for (guint s = 0; s < ns; s++)
        {
          float u[8];
          for (guint k = 0; k < K; k++)
            {
              u[k] = 0.f;
              for (guint k2 = 0; k2 < K; k2++)
                if (px[k2] == px[k])
                  u[k] += dr[s * K + k2];
            }
          memcpy (dr + s * K, u, K * sizeof (float));
        }
    }
}

