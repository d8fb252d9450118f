/* ctr-simd.c — the vector level of this CPU (see ctr-simd.h). */
#include "analytic/ctr-simd.h"

#include <string.h>

CtrSimdLevel
ctr_simd_level (const char *env_var, const char **name)
{
  CtrSimdLevel level = CTR_SIMD_GENERIC;
#ifdef CTR_HAVE_X86_SIMD
  const char *want = g_getenv (env_var);
  const gboolean any = want == NULL || *want == '\0';
  __builtin_cpu_init ();
  const gboolean w512 = any || strcmp (want, "avx512") == 0;
  if (w512 && __builtin_cpu_supports ("avx512f"))
    level = CTR_SIMD_AVX512;
  else if ((w512 || strcmp (want, "avx2") == 0) && __builtin_cpu_supports ("avx2")
           && __builtin_cpu_supports ("fma"))
    level = CTR_SIMD_AVX2;
#else
  (void) env_var;
#endif
  static const char *names[] = { "generic", "avx2", "avx512" };
  if (name != NULL)
    *name = names[level];
  return level;
}
