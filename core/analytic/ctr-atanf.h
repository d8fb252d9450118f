/* ctr-atanf.h — a branch-free single-precision arctangent for kernels the
 * compiler vectorises (private to core/analytic; libm's atan is a scalar
 * call).  Used by the fan-beam back-projection (ctr-fbp.c) for the column
 * angle γ' of a pixel. */
#pragma once

#include <glib.h>
#include <math.h>

/* atan (t) in single precision, branch-free (the range reduction by
 * selects), after Cephes' atanf (S. L. Moshier, Cephes Math Library 2.2,
 * atanf.c: reduction to |t| <= tan(π/8), then a degree-9 odd polynomial);
 * absolute error below 2e-7 rad over all t (tests/test-fbp.c:
 * /ctr/core/fbp/atanf), 2.5e-4 of a column at 0.0008 rad per column. */
static inline float
ctr_atanf (float t)
{
  const float x = fabsf (t);
  const gboolean big = x > 2.414213562373095f, mid = x > 0.4142135623730950f;
  /* one division: −1/x (big), (x − 1)/(x + 1) (mid), or x/1 = x exactly */
  const float num = big ? -1.0f : (mid ? x - 1.0f : x);
  const float den = big ? x : (mid ? x + 1.0f : 1.0f);
  const float xr = num / den;
  const float y0 = big ? (float) G_PI_2 : (mid ? (float) G_PI_4 : 0.0f);
  const float z = xr * xr;
  const float p = (((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z
                   - 3.33329491539e-1f) * z * xr + xr;
  const float r = y0 + p;
  return t < 0.0f ? -r : r;
}
