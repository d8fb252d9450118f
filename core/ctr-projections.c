/* ctr-projections.c — the projection container.  Count → line-integral
 * conversion lives in ctr-projections-preprocess.c. */
#include "ctr-projections.h"
#include "ctr-error.h"

#include <math.h>
#include <string.h>

CtrProjections *
ctr_projections_new (guint n_views, guint n_rows, guint n_cols, CtrProjKind kind, GError **error)
{
  if (n_views == 0 || n_rows == 0 || n_cols == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections of %u views × %u rows × %u columns: every size must be at least 1",
                   n_views, n_rows, n_cols);
      return NULL;
    }
  gsize n = (gsize) n_views * n_rows * n_cols;
  float *data = g_try_malloc0_n (n, sizeof (float));
  if (data == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate projections of %u × %u × %u (%.1f MiB)",
                   n_views, n_rows, n_cols, n * 4.0 / 1048576.0);
      return NULL;
    }
  CtrProjections *p = g_new0 (CtrProjections, 1);
  p->ref_count = 1;
  p->n_views = n_views;
  p->n_rows = n_rows;
  p->n_cols = n_cols;
  p->kind = kind;
  p->data = data;
  return p;
}

CtrProjections *
ctr_projections_ref (CtrProjections *p)
{
  g_return_val_if_fail (p != NULL, NULL);
  g_atomic_int_inc (&p->ref_count);
  return p;
}

void
ctr_projections_unref (CtrProjections *p)
{
  if (p == NULL || !g_atomic_int_dec_and_test (&p->ref_count))
    return;
  g_free (p->data);
  g_free (p->flat);
  g_free (p->dark);
  g_free (p->mask);
  g_free (p);
}

CtrProjections *
ctr_projections_copy (const CtrProjections *p)
{
  CtrProjections *c = ctr_projections_new (p->n_views, p->n_rows, p->n_cols, p->kind, NULL);
  if (c == NULL)
    return NULL;
  gsize plane = (gsize) p->n_rows * p->n_cols;
  memcpy (c->data, p->data, plane * p->n_views * sizeof (float));
  c->flat = p->flat ? g_memdup2 (p->flat, plane * sizeof (float)) : NULL;
  c->dark = p->dark ? g_memdup2 (p->dark, plane * sizeof (float)) : NULL;
  c->mask = p->mask ? g_memdup2 (p->mask, plane) : NULL;
  c->i0 = p->i0;
  return c;
}

float *
ctr_projections_sinogram (const CtrProjections *p, guint row)
{
  g_return_val_if_fail (row < p->n_rows, NULL);
  float *s = g_new (float, (gsize) p->n_views * p->n_cols);
  for (guint v = 0; v < p->n_views; v++)
    memcpy (s + (gsize) v * p->n_cols, ctr_projections_view (p, v) + (gsize) row * p->n_cols,
            p->n_cols * sizeof (float));
  return s;
}

/* splitmix64: a small, well-mixed seedable generator (Steele et al. 2014),
 * enough for reproducible simulated noise; one stream per view so the
 * result does not depend on the number of threads. */
static inline guint64
splitmix64 (guint64 *s)
{
  guint64 z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline double
uniform01 (guint64 *s)
{
  return ((splitmix64 (s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Poisson sample: inversion for small means, otherwise the transformed
 * rejection method PTRS of Hörmann (1993, Insurance: Mathematics and
 * Economics 12, 39-45), exact for every mean. */
static double
poisson (double mean, guint64 *s)
{
  if (mean < 10.0)
    {
      double l = exp (-mean), p = 1.0;
      double k = 0;
      do
        {
          k += 1;
          p *= uniform01 (s);
        }
      while (p > l);
      return k - 1;
    }
  const double slam = sqrt (mean), loglam = log (mean);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;)
    {
      double u = uniform01 (s) - 0.5, v = uniform01 (s);
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

void
ctr_projections_add_poisson_noise (CtrProjections *p, double i0, guint64 seed)
{
  gsize plane = (gsize) p->n_rows * p->n_cols;
#pragma omp parallel for schedule(static)
  for (guint v = 0; v < p->n_views; v++)
    {
      guint64 s = seed * 0x100000001B3ull + v;
      float *d = p->data + (gsize) v * plane;
      for (gsize i = 0; i < plane; i++)
        {
          double counts = poisson (i0 * exp (-(double) d[i]), &s);
          d[i] = (float) -log (MAX (counts, 1.0) / i0);
        }
    }
}
