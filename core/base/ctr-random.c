/* ctr-random.c — seedable generator and exact samplers (see ctr-random.h). */
#include "base/ctr-random.h"

#include <math.h>

void
ctr_rng_init (CtrRng *rng, guint64 seed, guint64 stream)
{
  rng->state = seed * 0x100000001B3ull + stream;
}

guint64
ctr_rng_next (CtrRng *rng)
{
  /* splitmix64 (Steele, Lea & Flood 2014) */
  guint64 z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double
ctr_rng_uniform (CtrRng *rng)
{
  return ((ctr_rng_next (rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double
ctr_rng_normal (CtrRng *rng)
{
  /* Marsaglia & Bray's polar method; the second variate is dropped so that
   * the stream state alone says what comes next. */
  for (;;)
    {
      double u = 2.0 * ctr_rng_uniform (rng) - 1.0, v = 2.0 * ctr_rng_uniform (rng) - 1.0;
      double s = u * u + v * v;
      if (s > 0.0 && s < 1.0)
        return u * sqrt (-2.0 * log (s) / s);
    }
}

double
ctr_rng_poisson (CtrRng *rng, double mean)
{
  if (!(mean > 0.0))
    return 0.0;
  if (mean < 10.0)
    {
      double l = exp (-mean), p = 1.0;
      double k = 0;
      do
        {
          k += 1;
          p *= ctr_rng_uniform (rng);
        }
      while (p > l);
      return k - 1;
    }
  /* PTRS, Hörmann 1993, with his constants. */
  const double slam = sqrt (mean), loglam = log (mean);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;)
    {
      double u = ctr_rng_uniform (rng) - 0.5, v = ctr_rng_uniform (rng);
      double us = 0.5 - fabs (u);
      double k = floor ((2.0 * a / us + b) * u + mean + 0.43);
      if (us >= 0.07 && v <= vr)
        return k;
      if (k < 0 || (us < 0.013 && v > us))
        continue;
      if (log (v) + log (invalpha) - log (a / (us * us) + b) <= -mean + k * loglam - lgamma (k + 1))
        return k;
    }
}

/* Binomial(n, p) for p <= 0.5. */
static double
binomial_low (CtrRng *rng, double n, double p)
{
  if (n * p < 10.0)
    {
      /* Waiting times: the gaps between successes are geometric with
       * P(gap = g) = (1-p)^(g-1) p; count the successes that fit in n trials. */
      const double log_q = log1p (-p);
      double sum = 0, k = 0;
      for (;;)
        {
          sum += ceil (log (ctr_rng_uniform (rng)) / log_q);
          if (sum > n)
            return k;
          k += 1;
        }
    }
  /* BTRS, Hörmann 1993, with his constants. */
  const double q = 1.0 - p;
  const double spq = sqrt (n * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5;
  const double vr = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double lpq = log (p / q);
  const double m = floor ((n + 1) * p);
  const double h = lgamma (m + 1) + lgamma (n - m + 1);
  for (;;)
    {
      double u = ctr_rng_uniform (rng) - 0.5, v = ctr_rng_uniform (rng);
      double us = 0.5 - fabs (u);
      double k = floor ((2.0 * a / us + b) * u + c);
      if (k < 0 || k > n)
        continue;
      if (us >= 0.07 && v <= vr)
        return k;
      v = log (v * alpha / (a / (us * us) + b));
      if (v <= h - lgamma (k + 1) - lgamma (n - k + 1) + (k - m) * lpq)
        return k;
    }
}

double
ctr_rng_binomial (CtrRng *rng, double n, double p)
{
  n = floor (n);
  if (!(n > 0) || !(p > 0))
    return 0.0;
  if (p >= 1.0)
    return n;
  return p <= 0.5 ? binomial_low (rng, n, p) : n - binomial_low (rng, n, 1.0 - p);
}
