/* ctr-fbp-columns.c — pass 1 of the fan-beam back-projection (see
 * ctr-fbp-columns.h).
 *
 * Built alone with -fno-trapping-math (core/meson.build): with trapping
 * math GCC keeps the selects below (a > 0, ctr_atanf's range reduction)
 * as branches around the divisions and does not vectorise the loops; with
 * it they become blends and the loops run 4 (AVX2) or 8 (AVX-512) pixels
 * at a time.  The flag lets the compiler evaluate an operation whose result
 * a select then drops; every value kept is the same IEEE operation, so the
 * columns and weights are those of the scalar loop bit for bit.
 */
#include "analytic/ctr-fbp-columns.h"
#include "analytic/ctr-atanf.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FBP_CLONES __attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define FBP_CLONES
#endif

FBP_CLONES void
ctr_fbp_columns_curved (guint nx, double a_a, double a_d, double b_a, double b_d, double inv_pitch,
                        double col0, float *restrict colv, float *restrict wv)
{
  for (guint ix = 0; ix < nx; ix++)
    {
      const double a = a_a + a_d * ix, b = b_a + b_d * ix;
      const double as = a > 0.0 ? a : 1.0;
      const float u = ctr_atanf ((float) (b / as));
      colv[ix] = a > 0.0 ? (float) (u * inv_pitch + col0) : -1.0f;
      wv[ix] = (float) (1.0 / (as * as + b * b));
    }
}

FBP_CLONES void
ctr_fbp_columns_flat (guint nx, double a_a, double a_d, double b_a, double b_d, double scale, double sod,
                      double col0, float *restrict colv, float *restrict wv)
{
  for (guint ix = 0; ix < nx; ix++)
    {
      const double a = a_a + a_d * ix, b = b_a + b_d * ix;
      const double ia = 1.0 / (a > 0.0 ? a : 1.0);
      colv[ix] = a > 0.0 ? (float) (scale * b * ia + col0) : -1.0f;
      wv[ix] = (float) (sod * sod * ia * ia);
    }
}

