/* ctr-random.h — reproducible random numbers for simulated noise.
 *
 * One small, seedable generator (splitmix64, Steele, Lea & Flood 2014,
 * "Fast splittable pseudorandom number generators", OOPSLA) and the exact
 * samplers the dose simulation needs: uniform, standard normal, Poisson and
 * binomial.  A CtrRng is a plain 64-bit state on the stack; code that runs in
 * parallel seeds one stream per view (ctr_rng_init (seed, view)) so results
 * do not depend on the number of threads.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 state;
} CtrRng;

/* The stream @stream (e.g. a view index) of the generator seeded with @seed. */
void ctr_rng_init (CtrRng *rng, guint64 seed, guint64 stream);

/* Next 64 random bits. */
guint64 ctr_rng_next (CtrRng *rng);

/* Uniform in the open interval (0, 1), 53 bits. */
double ctr_rng_uniform (CtrRng *rng);

/* Standard normal N(0, 1) (Marsaglia's polar method, 1964). */
double ctr_rng_normal (CtrRng *rng);

/**
 * ctr_rng_poisson:
 * A Poisson(@mean) sample, @mean >= 0 (0 gives 0): inversion by sequential
 * search for @mean < 10, otherwise the transformed rejection method PTRS of
 * Hörmann (1993, Insurance: Mathematics and Economics 12, 39-45), exact for
 * every mean.
 */
double ctr_rng_poisson (CtrRng *rng, double mean);

/**
 * ctr_rng_binomial:
 * A Binomial(@n, @p) sample, @p in [0, 1]: the number of successes in @n
 * independent trials of probability @p.  Inversion for n·min(p, 1-p) < 10,
 * otherwise the transformed rejection method BTRS of Hörmann (1993, "The
 * generation of binomial random variates", J. Statist. Comput. Simul. 46,
 * 101-110, algorithm BTRS), exact for every @n and @p.
 */
double ctr_rng_binomial (CtrRng *rng, double n, double p);

G_END_DECLS
