/* ctr-simd.h — which vector kernels this CPU runs, for the back-projection
 * kernels of core/analytic (ctr-fdk-zrun.c, ctr-row-interp.c), and the
 * AVX2 16-sample window lookup they share (private to core/analytic).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CTR_SIMD_GENERIC,   /* the scalar loops */
  CTR_SIMD_AVX2,      /* AVX2 + FMA */
  CTR_SIMD_AVX512,    /* AVX-512F */
} CtrSimdLevel;

/**
 * ctr_simd_level:
 * The widest level this CPU runs (x86-64 with GCC or clang; GENERIC
 * elsewhere), or the one the environment variable @env_var asks for
 * ("generic", "avx2", "avx512"; for tests; anything else means generic),
 * never one the CPU lacks (avx512 on an AVX2-only CPU gets AVX2).  @name: (out) (optional):
 * "generic", "avx2" or "avx512", static.
 */
CtrSimdLevel ctr_simd_level (const char *env_var, const char **name);

#if defined(__x86_64__) && defined(__GNUC__)
#define CTR_HAVE_X86_SIMD 1
#include <immintrin.h>

/* Lanes @idx (0 … 15) of the 16-sample window (@t0, @t1): vpermps on both
 * halves and a blend. */
__attribute__ ((target ("avx2,fma"))) static inline __m256
ctr_window16 (__m256 t0, __m256 t1, __m256i idx)
{
  const __m256 hi = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (idx, _mm256_set1_epi32 (7)));
  return _mm256_blendv_ps (_mm256_permutevar8x32_ps (t0, idx), _mm256_permutevar8x32_ps (t1, idx), hi);
}
#endif

G_END_DECLS
