/* ctr-fdk-zrun.c — gather-free z runs of the FDK back-projection (see
 * ctr-fdk-zrun.h).  x86-64 with GCC or clang only; elsewhere the selector
 * returns NULL and the back-projector keeps its scalar loop. */
#include "analytic/ctr-fdk-zrun.h"
#include "analytic/ctr-simd.h"

#include <math.h>

#ifdef CTR_HAVE_X86_SIMD

/* First and last sample index of the chunk k … k + n − 1: r is monotone in
 * k and fmaf rounds once, as the vector FMA does, so these are the extreme
 * lanes' ⌊r⌋ exactly. */
#define CHUNK_ENDS(a, d, k, n, i_first, i_last) \
  const int i_first = (int) fmaf ((d), (float) (k), (a)); \
  const int i_last = (int) fmaf ((d), (float) ((k) + (n) - 1), (a))

__attribute__ ((target ("avx512f,fma"))) static void
zrun_avx512 (float *restrict acc, float *restrict accm, const float *restrict line, int lo, int hi,
             float a, float d, float w, int top)
{
  const __m512 iota = _mm512_setr_ps (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i rev = _mm512_setr_epi32 (15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i one = _mm512_set1_epi32 (1);
  const __m512 va = _mm512_set1_ps (a), vd = _mm512_set1_ps (d), vw = _mm512_set1_ps (w);
  for (int k = lo; k <= hi; k += 16)
    {
      const int n = MIN (16, hi - k + 1);
      const __mmask16 m = (__mmask16) ((1u << n) - 1u);
      const __m512 r = _mm512_fmadd_ps (vd, _mm512_add_ps (_mm512_set1_ps ((float) k), iota), va);
      const __m512i i0 = _mm512_cvttps_epi32 (r);
      const __m512 f = _mm512_sub_ps (r, _mm512_cvtepi32_ps (i0));
      CHUNK_ENDS (a, d, k, n, i_first, i_last);
      const int base = MIN (i_first, i_last);
      const __m512 t0 = _mm512_loadu_ps (line + base), t1 = _mm512_loadu_ps (line + base + 16);
      const __m512i idx = _mm512_sub_epi32 (i0, _mm512_set1_epi32 (base));
      const __m512 l0 = _mm512_permutex2var_ps (t0, idx, t1);
      const __m512 l1 = _mm512_permutex2var_ps (t0, _mm512_add_epi32 (idx, one), t1);
      const __m512 v = _mm512_fmadd_ps (f, _mm512_sub_ps (l1, l0), l0);
      _mm512_mask_storeu_ps (acc + k, m, _mm512_fmadd_ps (vw, v, _mm512_maskz_loadu_ps (m, acc + k)));
      if (accm == NULL)
        continue;
      /* Mirror: samples top − i and top − i − 1, written to accm[−k − lane]
       * (descending), so the lanes are reversed and stored from
       * accm − k − 15 with the valid ones at the top. */
      const int basem = top - MAX (i_first, i_last) - 1;
      const __m512 u0 = _mm512_loadu_ps (line + basem), u1 = _mm512_loadu_ps (line + basem + 16);
      const __m512i im = _mm512_sub_epi32 (_mm512_set1_epi32 (top - basem), i0);
      const __m512 m1 = _mm512_permutex2var_ps (u0, im, u1);
      const __m512 mm = _mm512_permutex2var_ps (u0, _mm512_sub_epi32 (im, one), u1);
      const __m512 vm = _mm512_permutexvar_ps (rev, _mm512_fmadd_ps (f, _mm512_sub_ps (mm, m1), m1));
      const __mmask16 mr = (__mmask16) (0xffffu << (16 - n));
      float *p = accm - k - 15;
      _mm512_mask_storeu_ps (p, mr, _mm512_fmadd_ps (vw, vm, _mm512_maskz_loadu_ps (mr, p)));
    }
}

__attribute__ ((target ("avx2,fma"))) static void
zrun_avx2 (float *restrict acc, float *restrict accm, const float *restrict line, int lo, int hi,
           float a, float d, float w, int top)
{
  const __m256 iota = _mm256_setr_ps (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i lane = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i rev = _mm256_setr_epi32 (7, 6, 5, 4, 3, 2, 1, 0);
  const __m256i one = _mm256_set1_epi32 (1);
  const __m256 va = _mm256_set1_ps (a), vd = _mm256_set1_ps (d), vw = _mm256_set1_ps (w);
  for (int k = lo; k <= hi; k += 8)
    {
      const int n = MIN (8, hi - k + 1);
      const __m256i m = _mm256_cmpgt_epi32 (_mm256_set1_epi32 (n), lane);       /* lane < n */
      const __m256 r = _mm256_fmadd_ps (vd, _mm256_add_ps (_mm256_set1_ps ((float) k), iota), va);
      const __m256i i0 = _mm256_cvttps_epi32 (r);
      const __m256 f = _mm256_sub_ps (r, _mm256_cvtepi32_ps (i0));
      CHUNK_ENDS (a, d, k, n, i_first, i_last);
      const int base = MIN (i_first, i_last);
      const __m256 t0 = _mm256_loadu_ps (line + base), t1 = _mm256_loadu_ps (line + base + 8);
      const __m256i idx = _mm256_sub_epi32 (i0, _mm256_set1_epi32 (base));
      const __m256 l0 = ctr_window16 (t0, t1, idx);
      const __m256 l1 = ctr_window16 (t0, t1, _mm256_add_epi32 (idx, one));
      const __m256 v = _mm256_fmadd_ps (f, _mm256_sub_ps (l1, l0), l0);
      _mm256_maskstore_ps (acc + k, m, _mm256_fmadd_ps (vw, v, _mm256_maskload_ps (acc + k, m)));
      if (accm == NULL)
        continue;
      const int basem = top - MAX (i_first, i_last) - 1;
      const __m256 u0 = _mm256_loadu_ps (line + basem), u1 = _mm256_loadu_ps (line + basem + 8);
      const __m256i im = _mm256_sub_epi32 (_mm256_set1_epi32 (top - basem), i0);
      const __m256 m1 = ctr_window16 (u0, u1, im);
      const __m256 mm = ctr_window16 (u0, u1, _mm256_sub_epi32 (im, one));
      const __m256 vm = _mm256_permutevar8x32_ps (_mm256_fmadd_ps (f, _mm256_sub_ps (mm, m1), m1), rev);
      const __m256i mr = _mm256_cmpgt_epi32 (lane, _mm256_set1_epi32 (7 - n));  /* lane >= 8 − n */
      float *p = accm - k - 7;
      _mm256_maskstore_ps (p, mr, _mm256_fmadd_ps (vw, vm, _mm256_maskload_ps (p, mr)));
    }
}
#endif

CtrFdkZRun
ctr_fdk_zrun_select (const char **name)
{
  switch (ctr_simd_level ("CTR_FDK_SIMD", name))
    {
#ifdef CTR_HAVE_X86_SIMD
    case CTR_SIMD_AVX512: return zrun_avx512;
    case CTR_SIMD_AVX2: return zrun_avx2;
#endif
    default: return NULL;
    }
}
