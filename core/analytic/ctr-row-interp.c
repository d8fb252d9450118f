/* ctr-row-interp.c — linear interpolation of a detector row at
 * the columns of a row of pixels (see ctr-row-interp.h). */
#include "analytic/ctr-row-interp.h"
#include "analytic/ctr-simd.h"

static void
row_interp_scalar (float *restrict out, const float *restrict col, const float *restrict w, guint n,
                   const float *restrict q, guint nc)
{
  const float cmax = (float) (nc - 1);
  for (guint i = 0; i < n; i++)
    {
      const float c = col[i];
      if (!(c >= 0.0f && c <= cmax))
        continue;
      const guint i0 = (guint) c;
      const float fr = c - (float) i0;
      const float val = i0 + 1 < nc ? q[i0] + fr * (q[i0 + 1] - q[i0]) : q[i0];
      out[i] += w != NULL ? w[i] * val : val;
    }
}

#ifdef CTR_HAVE_X86_SIMD

/* Columns spread wider than the register window (a coarse image on a fine
 * detector: the preview's 256² on 736 columns): the two samples of each
 * pixel by gathers, with the scalar loop's arithmetic, a product and a sum
 * rounded each (no FMA in this target, and never inlined into the FMA
 * kernels, where GCC would contract them), so the values are the scalar
 * loop's bit for bit, q[c] itself at c = nc − 1. */
__attribute__ ((target ("avx2"), noinline)) static void
row_interp_gather8 (float *restrict out, const float *restrict col, const float *restrict w, guint len,
                    const float *restrict q, guint nc)
{
  const __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 zero = _mm256_setzero_ps (), cmax = _mm256_set1_ps ((float) (nc - 1));
  const __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) len), lane);
  const __m256 c = _mm256_maskload_ps (col, m);
  const __m256 ok = _mm256_and_ps (_mm256_castsi256_ps (m),
                                   _mm256_and_ps (_mm256_cmp_ps (c, zero, _CMP_GE_OQ),
                                                  _mm256_cmp_ps (c, cmax, _CMP_LE_OQ)));
  const __m256i oki = _mm256_castps_si256 (ok);
  const __m256i i0 = _mm256_and_si256 (_mm256_cvttps_epi32 (c), oki);
  const __m256 l0 = _mm256_mask_i32gather_ps (zero, q, i0, ok, 4);
  const __m256 l1 = _mm256_mask_i32gather_ps (zero, q + 1, i0, ok, 4);
  const __m256 f = _mm256_sub_ps (c, _mm256_cvtepi32_ps (i0));
  __m256 v = _mm256_add_ps (l0, _mm256_mul_ps (f, _mm256_sub_ps (l1, l0)));
  const __m256i last = _mm256_cmpeq_epi32 (i0, _mm256_set1_epi32 ((int) nc - 1));
  v = _mm256_blendv_ps (v, l0, _mm256_castsi256_ps (last));
  if (w != NULL)
    v = _mm256_mul_ps (_mm256_maskload_ps (w, oki), v);
  _mm256_maskstore_ps (out, oki, _mm256_add_ps (_mm256_maskload_ps (out, oki), v));
}


/* At c = nc − 1 (f = 0) the kernels read q[nc], a padding float or the next
 * row's first sample, both finite, so the value is q[c] as in the scalar
 * loop. */

__attribute__ ((target ("avx512f,fma"))) static void
row_interp_avx512 (float *restrict out, const float *restrict col, const float *restrict w, guint n,
                   const float *restrict q, guint nc)
{
  const __m512 zero = _mm512_setzero_ps (), cmax = _mm512_set1_ps ((float) (nc - 1));
  const __m512i one = _mm512_set1_epi32 (1);
  for (guint i = 0; i < n; i += 16)
    {
      const guint len = MIN (16u, n - i);
      const __mmask16 m = (__mmask16) ((1u << len) - 1u);
      const __m512 c = _mm512_maskz_loadu_ps (m, col + i);
      const __mmask16 ok = _mm512_mask_cmp_ps_mask (_mm512_mask_cmp_ps_mask (m, c, zero, _CMP_GE_OQ),
                                                   c, cmax, _CMP_LE_OQ);
      if (ok == 0)
        continue;
      const __m512i i0 = _mm512_cvttps_epi32 (c);
      const int lo = _mm512_mask_reduce_min_epi32 (ok, i0), hi = _mm512_mask_reduce_max_epi32 (ok, i0);
      if (hi - lo > 30)
        {
          for (guint j = 0; j < len; j += 8)
            row_interp_gather8 (out + i + j, col + i + j, w != NULL ? w + i + j : NULL, MIN (8u, len - j), q, nc);
          continue;
        }
      /* lanes outside @ok: any index (only the low 5 bits are read), result masked */
      const __m512i idx = _mm512_sub_epi32 (i0, _mm512_set1_epi32 (lo));
      const __m512 t0 = _mm512_loadu_ps (q + lo), t1 = _mm512_loadu_ps (q + lo + 16);
      const __m512 l0 = _mm512_permutex2var_ps (t0, idx, t1);
      const __m512 l1 = _mm512_permutex2var_ps (t0, _mm512_add_epi32 (idx, one), t1);
      const __m512 f = _mm512_sub_ps (c, _mm512_cvtepi32_ps (i0));
      __m512 v = _mm512_fmadd_ps (f, _mm512_sub_ps (l1, l0), l0);
      const __m512 o = _mm512_maskz_loadu_ps (ok, out + i);
      v = w != NULL ? _mm512_fmadd_ps (_mm512_maskz_loadu_ps (ok, w + i), v, o) : _mm512_add_ps (o, v);
      _mm512_mask_storeu_ps (out + i, ok, v);
    }
}

__attribute__ ((target ("avx2,fma"))) static inline int
hmin8 (__m256i v)
{
  __m128i a = _mm_min_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
  a = _mm_min_epi32 (a, _mm_shuffle_epi32 (a, 0x4e));
  a = _mm_min_epi32 (a, _mm_shuffle_epi32 (a, 0xb1));
  return _mm_cvtsi128_si32 (a);
}

__attribute__ ((target ("avx2,fma"))) static inline int
hmax8 (__m256i v)
{
  __m128i a = _mm_max_epi32 (_mm256_castsi256_si128 (v), _mm256_extracti128_si256 (v, 1));
  a = _mm_max_epi32 (a, _mm_shuffle_epi32 (a, 0x4e));
  a = _mm_max_epi32 (a, _mm_shuffle_epi32 (a, 0xb1));
  return _mm_cvtsi128_si32 (a);
}

__attribute__ ((target ("avx2,fma"))) static void
row_interp_avx2 (float *restrict out, const float *restrict col, const float *restrict w, guint n,
                 const float *restrict q, guint nc)
{
  const __m256 zero = _mm256_setzero_ps (), cmax = _mm256_set1_ps ((float) (nc - 1));
  const __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7), one = _mm256_set1_epi32 (1);
  for (guint i = 0; i < n; i += 8)
    {
      const guint len = MIN (8u, n - i);
      const __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 ((int) len), lane);
      const __m256 c = _mm256_maskload_ps (col + i, m);
      const __m256i ok = _mm256_and_si256 (m, _mm256_castps_si256 (_mm256_and_ps (
                                                  _mm256_cmp_ps (c, zero, _CMP_GE_OQ), _mm256_cmp_ps (c, cmax, _CMP_LE_OQ))));
      if (_mm256_testz_si256 (ok, ok))
        continue;
      const __m256i i0 = _mm256_cvttps_epi32 (c);
      const int lo = hmin8 (_mm256_blendv_epi8 (_mm256_set1_epi32 (G_MAXINT32), i0, ok));
      const int hi = hmax8 (_mm256_blendv_epi8 (_mm256_set1_epi32 (G_MININT32), i0, ok));
      if (hi - lo > 14)
        {
          row_interp_gather8 (out + i, col + i, w != NULL ? w + i : NULL, len, q, nc);
          continue;
        }
      const __m256i idx = _mm256_and_si256 (_mm256_sub_epi32 (i0, _mm256_set1_epi32 (lo)), _mm256_set1_epi32 (15));
      const __m256 t0 = _mm256_loadu_ps (q + lo), t1 = _mm256_loadu_ps (q + lo + 8);
      const __m256 l0 = ctr_window16 (t0, t1, idx);
      const __m256 l1 = ctr_window16 (t0, t1, _mm256_add_epi32 (idx, one));
      const __m256 f = _mm256_sub_ps (c, _mm256_cvtepi32_ps (i0));
      __m256 v = _mm256_fmadd_ps (f, _mm256_sub_ps (l1, l0), l0);
      const __m256 o = _mm256_maskload_ps (out + i, ok);
      v = w != NULL ? _mm256_fmadd_ps (_mm256_maskload_ps (w + i, ok), v, o) : _mm256_add_ps (o, v);
      _mm256_maskstore_ps (out + i, ok, v);
    }
}
#endif

CtrRowInterp
ctr_row_interp_select (const char **name)
{
  switch (ctr_simd_level ("CTR_FBP_SIMD", name))
    {
#ifdef CTR_HAVE_X86_SIMD
    case CTR_SIMD_AVX512: return row_interp_avx512;
    case CTR_SIMD_AVX2: return row_interp_avx2;
#endif
    default: return row_interp_scalar;
    }
}
