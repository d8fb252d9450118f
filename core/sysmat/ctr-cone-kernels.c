/* ctr-cone-kernels.c — the interior kernels of the CPU cone-beam Joseph
 * pair (see ctr-cone-kernels.h and ctr-cone-projector.c's module comment):
 * along a ray's interior run, plane by plane, the bilinear sample of the
 * four neighbours (forward) and its transpose (adjoint).  In AVX2 eight
 * planes per step, the weights in vectors, the loads and stores lane by
 * lane (pairs of 8 bytes where the two transverse neighbours are
 * adjacent).
 */
#include "sysmat/ctr-cone-kernels.h"

#include <math.h>

/* ---- interior and band kernels -------------------------------------------
 * Truncation is floor() in the interior run (both coordinates ≥ 0 there). */

static inline gint32
interior_stencil (const CtrConeRay *r, gint32 p, const CtrConeStrides *st, float wt[4])
{
  const float fa = r->a0 + r->ad * (float) p, fb = r->b0 + r->bd * (float) p;
  const gint32 ia = (gint32) fa, ib = (gint32) fb;
  const float ea = fa - (float) ia, eb = fb - (float) ib, ua = 1.0f - ea, ub = 1.0f - eb;
  wt[0] = ua * ub;
  wt[1] = ea * ub;
  wt[2] = ua * eb;
  wt[3] = ea * eb;
  return ib * (gint32) st->sxy + ia * (gint32) st->sa + p * (gint32) st->sp;
}

/* One axis of a band plane (ctr-cone-kernels.h): the index f in (−1, max + 2)
 * gives the (0, 0) neighbour *i in [0, max] and the weights of *i and
 * *i + 1; a neighbour outside the grid gets weight 0 and the one inside the
 * weight floor()'s stencil gives it (the edge path's corners()). */
static inline void
band_axis (float f, gint32 max, gint32 *i, float *w0, float *w1)
{
  const float a = floorf (f), e = f - a, u = 1.0f - e;
  if (a < 0.0f)
    {
      *i = 0;
      *w0 = e;
      *w1 = 0.0f;
    }
  else if (a > (float) max)
    {
      *i = max;
      *w0 = 0.0f;
      *w1 = u;
    }
  else
    {
      *i = (gint32) a;
      *w0 = u;
      *w1 = e;
    }
}

static inline gint32
band_stencil (const CtrConeRay *r, gint32 p, const CtrConeStrides *st, float wt[4])
{
  gint32 ia, ib;
  float wa0, wa1, wb0, wb1;
  band_axis (r->a0 + r->ad * (float) p, st->amax, &ia, &wa0, &wa1);
  band_axis (r->b0 + r->bd * (float) p, st->bmax, &ib, &wb0, &wb1);
  wt[0] = wa0 * wb0;
  wt[1] = wa1 * wb0;
  wt[2] = wa0 * wb1;
  wt[3] = wa1 * wb1;
  return ib * (gint32) st->sxy + ia * (gint32) st->sa + p * (gint32) st->sp;
}

static inline float
forward_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st,
                gboolean band)
{
  float s = 0.0f;
  for (gint32 p = p0; p <= p1; p++)
    {
      float wt[4];
      const float *v = vol + (band ? band_stencil (r, p, st, wt) : interior_stencil (r, p, st, wt));
      s += wt[0] * v[0] + wt[1] * v[(gint32) st->sa] + wt[2] * v[(gint32) st->sxy] + wt[3] * v[(gint32) (st->sxy + st->sa)];
    }
  return s;
}

static inline void
adjoint_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                const CtrConeStrides *st, gboolean band)
{
  const gint32 off[4] = { 0, (gint32) st->sa, (gint32) st->sxy, (gint32) (st->sxy + st->sa) };
  for (gint32 p = p0; p <= p1; p++)
    {
      float wt[4];
      const gint32 at = band ? band_stencil (r, p, st, wt) : interior_stencil (r, p, st, wt);
      for (int c = 0; c < 4; c++)
        {
          const float w = r->w * wt[c];
          vol[at + off[c]] += w * val;
          if (weights != NULL)
            weights[at + off[c]] += w;
        }
    }
}

/* The block adjoint's choice for one ray (CtrConeBlockAdjoint): the
 * interior kernel, the band kernel (whose weights on interior planes are
 * the interior kernel's, bit for bit), or the per-plane path. */
typedef enum { RUN_NONE, RUN_INTERIOR, RUN_BAND, RUN_EDGE } RunKind;

static inline RunKind
block_run (const CtrConeRay *r, gint32 b0, gint32 b1, gint32 *p0, gint32 *p1)
{
  *p0 = MAX (r->p_lo, b0);
  *p1 = MIN (r->p_hi, b1);
  if (*p0 > *p1)
    return RUN_NONE;
  if (*p0 >= r->q_lo && *p1 <= r->q_hi)
    return RUN_INTERIOR;
  if (*p0 >= r->r_lo && *p1 <= r->r_hi)
    return RUN_BAND;
  return RUN_EDGE;
}

static void
block_adjoint_scalar (const CtrConeRay *rays, const guint *list, gsize n, const float *proj, gint32 b0, gint32 b1,
                      float *vol, float *weights, const CtrConeStrides *st, CtrConeEdgeSpread edge, gconstpointer ctx)
{
  for (gsize m = 0; m < n; m++)
    {
      const CtrConeRay *r = &rays[list[m]];
      const float val = proj[list[m]];
      gint32 p0, p1;
      const RunKind kind = block_run (r, b0, b1, &p0, &p1);
      if (kind == RUN_INTERIOR || kind == RUN_BAND)
        adjoint_scalar (r, p0, p1, val, vol, weights, st, kind == RUN_BAND);
      else if (kind == RUN_EDGE)
        edge (ctx, r, p0, p1, val);
    }
}

static float
interior_forward_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st)
{
  return forward_scalar (r, p0, p1, vol, st, FALSE);
}

static float
band_forward_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st)
{
  return forward_scalar (r, p0, p1, vol, st, TRUE);
}

static void
interior_adjoint_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                         const CtrConeStrides *st)
{
  adjoint_scalar (r, p0, p1, val, vol, weights, st, FALSE);
}

static void
band_adjoint_scalar (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                     const CtrConeStrides *st)
{
  adjoint_scalar (r, p0, p1, val, vol, weights, st, TRUE);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CONE_HAVE_AVX2 1
#define AVX2_INLINE __attribute__ ((target ("avx2,fma"), always_inline)) static inline

/* band_axis for eight planes. */
AVX2_INLINE void
band_axis8 (__m256 f, gint32 max, __m256i *i, __m256 *w0, __m256 *w1)
{
  const __m256 zero = _mm256_setzero_ps (), top = _mm256_set1_ps ((float) max);
  const __m256 a = _mm256_floor_ps (f), e = _mm256_sub_ps (f, a), u = _mm256_sub_ps (_mm256_set1_ps (1.0f), e);
  const __m256 lo = _mm256_cmp_ps (a, zero, _CMP_LT_OQ), hi = _mm256_cmp_ps (a, top, _CMP_GT_OQ);
  *w0 = _mm256_blendv_ps (_mm256_blendv_ps (u, e, lo), zero, hi);
  *w1 = _mm256_blendv_ps (_mm256_blendv_ps (e, zero, lo), u, hi);
  *i = _mm256_cvttps_epi32 (_mm256_min_ps (_mm256_max_ps (a, zero), top));
}

/* Eight planes pi at once: the voxel index of the (0, 0) neighbour and the
 * four bilinear weights, as interior_stencil (or band_stencil). */
AVX2_INLINE __m256i
stencil8 (const CtrConeRay *r, __m256i pi, const CtrConeStrides *st, __m256 wt[4], gboolean band)
{
  const __m256 pf = _mm256_cvtepi32_ps (pi);
  const __m256 fa = _mm256_add_ps (_mm256_set1_ps (r->a0), _mm256_mul_ps (_mm256_set1_ps (r->ad), pf));
  const __m256 fb = _mm256_add_ps (_mm256_set1_ps (r->b0), _mm256_mul_ps (_mm256_set1_ps (r->bd), pf));
  __m256i ia, ib;
  __m256 wa0, wa1, wb0, wb1;
  if (band)
    {
      band_axis8 (fa, st->amax, &ia, &wa0, &wa1);
      band_axis8 (fb, st->bmax, &ib, &wb0, &wb1);
    }
  else
    {
      const __m256 one = _mm256_set1_ps (1.0f);
      ia = _mm256_cvttps_epi32 (fa);
      ib = _mm256_cvttps_epi32 (fb);
      wa1 = _mm256_sub_ps (fa, _mm256_cvtepi32_ps (ia));
      wb1 = _mm256_sub_ps (fb, _mm256_cvtepi32_ps (ib));
      wa0 = _mm256_sub_ps (one, wa1);
      wb0 = _mm256_sub_ps (one, wb1);
    }
  wt[0] = _mm256_mul_ps (wa0, wb0);
  wt[1] = _mm256_mul_ps (wa1, wb0);
  wt[2] = _mm256_mul_ps (wa0, wb1);
  wt[3] = _mm256_mul_ps (wa1, wb1);
  return _mm256_add_epi32 (_mm256_add_epi32 (_mm256_mullo_epi32 (ib, _mm256_set1_epi32 ((gint32) st->sxy)),
                                             _mm256_mullo_epi32 (ia, _mm256_set1_epi32 ((gint32) st->sa))),
                           _mm256_mullo_epi32 (pi, _mm256_set1_epi32 ((gint32) st->sp)));
}

AVX2_INLINE float
hsum8 (__m256 acc)
{
  __m128 h = _mm_add_ps (_mm256_castps256_ps128 (acc), _mm256_extractf128_ps (acc, 1));
  h = _mm_add_ps (h, _mm_movehl_ps (h, h));
  h = _mm_add_ss (h, _mm_shuffle_ps (h, h, 1));
  return _mm_cvtss_f32 (h);
}

/* Lanes past p1 repeat plane p1 (valid addresses) and are masked out.  The
 * loads are scalar: hardware gathers are slower than four loads a lane on
 * some CPUs (AMD Zen). */
AVX2_INLINE float
forward_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st, gboolean band)
{
  const __m256i iota = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7), last = _mm256_set1_epi32 (p1);
  const gint32 o1 = (gint32) st->sa, o2 = (gint32) st->sxy, o3 = (gint32) (st->sxy + st->sa);
  __m256 acc = _mm256_setzero_ps ();
  for (gint32 p = p0; p <= p1; p += 8)
    {
      __m256i pi = _mm256_add_epi32 (_mm256_set1_epi32 (p), iota);
      const __m256 keep = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (_mm256_add_epi32 (last, _mm256_set1_epi32 (1)), pi));
      pi = _mm256_min_epi32 (pi, last);
      __m256 wt[4];
      gint32 at[8];
      float v[4][8];
      _mm256_storeu_si256 ((__m256i *) at, stencil8 (r, pi, st, wt, band));
      for (int l = 0; l < 8; l++)
        {
          const float *q = vol + at[l];
          v[0][l] = q[0];
          v[1][l] = q[o1];
          v[2][l] = q[o2];
          v[3][l] = q[o3];
        }
      __m256 s = _mm256_mul_ps (wt[0], _mm256_loadu_ps (v[0]));
      s = _mm256_fmadd_ps (wt[1], _mm256_loadu_ps (v[1]), s);
      s = _mm256_fmadd_ps (wt[2], _mm256_loadu_ps (v[2]), s);
      s = _mm256_fmadd_ps (wt[3], _mm256_loadu_ps (v[3]), s);
      acc = _mm256_add_ps (acc, _mm256_and_ps (s, keep));
    }
  return hsum8 (acc);
}

/* (a[l], b[l]) for the lanes l = 0..3 and 4..7, lane by lane, as the
 * pairs' order in memory. */
AVX2_INLINE void
interleave8 (__m256 a, __m256 b, __m256 *l03, __m256 *l47)
{
  const __m256 lo = _mm256_unpacklo_ps (a, b), hi = _mm256_unpackhi_ps (a, b);
  *l03 = _mm256_permute2f128_ps (lo, hi, 0x20);
  *l47 = _mm256_permute2f128_ps (lo, hi, 0x31);
}

/* The pairs vol[at[l] + {0, 1}] of the lanes l = k..k+3 in one vector. */
AVX2_INLINE __m256
load_pairs4 (const float *vol, const gint32 *at)
{
  const __m128 z = _mm_setzero_ps ();
  const __m128 a = _mm_loadh_pi (_mm_loadl_pi (z, (const __m64 *) (vol + at[0])), (const __m64 *) (vol + at[1]));
  const __m128 b = _mm_loadh_pi (_mm_loadl_pi (z, (const __m64 *) (vol + at[2])), (const __m64 *) (vol + at[3]));
  return _mm256_set_m128 (b, a);
}

/* forward_avx2 where the two transverse neighbours are adjacent (st->sa ==
 * 1: y-dominant rays, and x-dominant ones in the swapped volume): eight
 * 8-byte loads of pairs per neighbour row instead of sixteen scalar ones;
 * lanes past p1 get weight 0. */
AVX2_INLINE float
forward_pairs_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st,
                    gboolean band)
{
  const __m256i iota = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7), last = _mm256_set1_epi32 (p1);
  const float *up = vol + st->sxy;
  __m256 acc0 = _mm256_setzero_ps (), acc1 = _mm256_setzero_ps ();
  for (gint32 p = p0; p <= p1; p += 8)
    {
      __m256i pi = _mm256_add_epi32 (_mm256_set1_epi32 (p), iota);
      const __m256 keep = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (_mm256_add_epi32 (last, _mm256_set1_epi32 (1)), pi));
      pi = _mm256_min_epi32 (pi, last);
      __m256 wt[4], w[4];
      gint32 at[8];
      _mm256_storeu_si256 ((__m256i *) at, stencil8 (r, pi, st, wt, band));
      interleave8 (_mm256_and_ps (wt[0], keep), _mm256_and_ps (wt[1], keep), &w[0], &w[1]);
      interleave8 (_mm256_and_ps (wt[2], keep), _mm256_and_ps (wt[3], keep), &w[2], &w[3]);
      acc0 = _mm256_fmadd_ps (w[0], load_pairs4 (vol, at), acc0);
      acc1 = _mm256_fmadd_ps (w[1], load_pairs4 (vol, at + 4), acc1);
      acc0 = _mm256_fmadd_ps (w[2], load_pairs4 (up, at), acc0);
      acc1 = _mm256_fmadd_ps (w[3], load_pairs4 (up, at + 4), acc1);
    }
  return hsum8 (_mm256_add_ps (acc0, acc1));
}

/* vol[at[l] + {0, 1}] += (wc[0][l], wc[1][l])·val and vol[at[l] + sxy +
 * {0, 1}] += (wc[2][l], wc[3][l])·val for the lanes l < n, as fused
 * multiply-adds on pairs. */
AVX2_INLINE void
scatter_pairs (const gint32 at[8], int n, float wc[4][8], float val, float *vol, gint32 sxy)
{
  float pr[2][16];
  for (int h = 0; h < 2; h++)
    {
      __m256 l03, l47;
      interleave8 (_mm256_loadu_ps (wc[2 * h]), _mm256_loadu_ps (wc[2 * h + 1]), &l03, &l47);
      _mm256_storeu_ps (pr[h], l03);
      _mm256_storeu_ps (pr[h] + 8, l47);
    }
  const __m128 v = _mm_set1_ps (val), z = _mm_setzero_ps ();
  for (int l = 0; l < n; l++)
    for (int h = 0; h < 2; h++)
      {
        __m64 *q = (__m64 *) (vol + at[l] + h * sxy);  /* __m64: may alias floats */
        const __m128 w = _mm_loadl_pi (z, (const __m64 *) (pr[h] + 2 * l));
        _mm_storel_pi (q, _mm_fmadd_ps (w, v, _mm_loadl_pi (z, q)));
      }
}

/* The weights in vectors, the scatter lane by lane (the lanes are distinct
 * planes, so distinct voxels). */
AVX2_INLINE void
adjoint_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
              const CtrConeStrides *st, gboolean band)
{
  const __m256i iota = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 w = _mm256_set1_ps (r->w);
  const gint32 off[4] = { 0, (gint32) st->sa, (gint32) st->sxy, (gint32) (st->sxy + st->sa) };
  for (gint32 p = p0; p <= p1; p += 8)
    {
      __m256 wt[4];
      gint32 at[8];
      float wc[4][8];
      _mm256_storeu_si256 ((__m256i *) at, stencil8 (r, _mm256_add_epi32 (_mm256_set1_epi32 (p), iota), st, wt, band));
      for (int c = 0; c < 4; c++)
        _mm256_storeu_ps (wc[c], _mm256_mul_ps (w, wt[c]));
      const int n = MIN (8, p1 - p + 1);
      if (st->sa == 1)
        {
          /* the two transverse neighbours are adjacent, one 8-byte
           * read-modify-write a pair (the same fused multiply-add). */
          scatter_pairs (at, n, wc, val, vol, (gint32) st->sxy);
          if (weights != NULL)
            scatter_pairs (at, n, wc, 1.0f, weights, (gint32) st->sxy);
          continue;
        }
      for (int l = 0; l < n; l++)
        for (int c = 0; c < 4; c++)
          vol[at[l] + off[c]] += wc[c][l] * val;
      if (weights != NULL)
        for (int l = 0; l < n; l++)
          for (int c = 0; c < 4; c++)
            weights[at[l] + off[c]] += wc[c][l];
    }
}

__attribute__ ((target ("avx2,fma"))) static float
interior_forward_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st)
{
  return st->sa == 1 ? forward_pairs_avx2 (r, p0, p1, vol, st, FALSE) : forward_avx2 (r, p0, p1, vol, st, FALSE);
}

__attribute__ ((target ("avx2,fma"))) static float
band_forward_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol, const CtrConeStrides *st)
{
  return st->sa == 1 ? forward_pairs_avx2 (r, p0, p1, vol, st, TRUE) : forward_avx2 (r, p0, p1, vol, st, TRUE);
}

__attribute__ ((target ("avx2,fma"))) static void
interior_adjoint_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                       const CtrConeStrides *st)
{
  adjoint_avx2 (r, p0, p1, val, vol, weights, st, FALSE);
}

__attribute__ ((target ("avx2,fma"))) static void
band_adjoint_avx2 (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                   const CtrConeStrides *st)
{
  adjoint_avx2 (r, p0, p1, val, vol, weights, st, TRUE);
}

__attribute__ ((target ("avx2,fma"))) static void
block_adjoint_avx2 (const CtrConeRay *rays, const guint *list, gsize n, const float *proj, gint32 b0, gint32 b1,
                    float *vol, float *weights, const CtrConeStrides *st, CtrConeEdgeSpread edge, gconstpointer ctx)
{
  for (gsize m = 0; m < n; m++)
    {
      const CtrConeRay *r = &rays[list[m]];
      const float val = proj[list[m]];
      gint32 p0, p1;
      const RunKind kind = block_run (r, b0, b1, &p0, &p1);
      if (kind == RUN_INTERIOR)
        adjoint_avx2 (r, p0, p1, val, vol, weights, st, FALSE);
      else if (kind == RUN_BAND)
        adjoint_avx2 (r, p0, p1, val, vol, weights, st, TRUE);
      else if (kind == RUN_EDGE)
        edge (ctx, r, p0, p1, val);
    }
}
#endif

/* AVX2 with FMA where the CPU has them and CTR_CONE_SIMD is not "generic". */
static gboolean
use_avx2 (void)
{
#ifdef CONE_HAVE_AVX2
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") &&
         g_strcmp0 (g_getenv ("CTR_CONE_SIMD"), "generic") != 0;
#else
  return FALSE;
#endif
}

void
_ctr_cone_kernels_pick (CtrConeKernels *k)
{
  *k = (CtrConeKernels) { interior_forward_scalar, band_forward_scalar, interior_adjoint_scalar,
                          band_adjoint_scalar, block_adjoint_scalar };
#ifdef CONE_HAVE_AVX2
  if (use_avx2 ())
    *k = (CtrConeKernels) { interior_forward_avx2, band_forward_avx2, interior_adjoint_avx2, band_adjoint_avx2,
                            block_adjoint_avx2 };
#endif
}
