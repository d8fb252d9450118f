/* Array helpers shared by the operator tests (test-fly.c, test-gpu-fly.c):
 * reproducible random fills, the relative difference the tolerances are
 * stated in, and a double-precision dot product for adjointness. */
#pragma once

#include <glib.h>
#include <math.h>

/* a[i] uniform in [−1, 1), reproducible from @seed. */
static inline void
test_fill_random (float *a, gsize n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  for (gsize i = 0; i < n; i++)
    a[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
}

/* max |a − b| / max |b| (max |a − b| when b is 0). */
static inline double
test_rel_diff (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      d = MAX (d, fabs ((double) a[i] - b[i]));
      m = MAX (m, fabs ((double) b[i]));
    }
  return m > 0 ? d / m : d;
}

/* Σ a[i]·b[i] in double. */
static inline double
test_dot (const float *a, const float *b, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) a[i] * b[i];
  return s;
}
