/* test-dose.c — random samplers and dose simulation (core/base/ctr-random.h,
 * core/sim/ctr-dose.h): statistical tests at a stated significance level.
 *
 * Every test statistic below is (approximately) standard normal under the
 * hypothesis that the code does what its docstring says; a check fails when
 * |z| > 3.29, i.e. at the two-sided significance level α = 0.001.  The
 * chi-square goodness-of-fit tests of the samplers use the same α (critical
 * value from the Wilson-Hilferty approximation).  Seeds are fixed, so the
 * outcome is reproducible; a biased sampler or a wrong variance gives z in
 * the tens or hundreds, far from the threshold.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "ctr-test-scan.h"

#define Z_CRIT 3.2905   /* two-sided α = 0.001 */

/* χ² critical value with @k degrees of freedom at upper tail α = 0.001
 * (z = 3.0902), Wilson & Hilferty 1931. */
static double
chi2_crit (double k)
{
  double a = 2.0 / (9.0 * k);
  double t = 1.0 - a + 3.0902 * sqrt (a);
  return k * t * t * t;
}

/* Pearson χ² test of @n_samples draws (histogram @hist over 0..@kmax) against
 * the pmf @pmf; cells pooled from both tails until each expects >= 5. */
static void
assert_gof (const double *hist, const double *pmf, guint kmax, double n_samples, const char *what)
{
  double chi2 = 0, obs = 0, expect = 0;
  guint cells = 0;
  for (guint k = 0; k <= kmax; k++)
    {
      obs += hist[k];
      expect += pmf[k] * n_samples;
      if (expect >= 5 || k == kmax)
        {
          chi2 += (obs - expect) * (obs - expect) / MAX (expect, 1e-300);
          cells++;
          obs = expect = 0;
        }
    }
  double crit = chi2_crit (cells - 1);
  g_test_message ("%s: χ² = %.1f with %u cells (critical %.1f at α = 0.001)", what, chi2, cells, crit);
  g_assert_cmpfloat (chi2, <, crit);
}

static void
test_binomial_gof (void)
{
  const struct { double n, p; } cases[] = {
    { 20, 0.3 },     /* inversion (n p = 6) */
    { 1000, 0.004 }, /* inversion, small p */
    { 60, 0.5 },     /* BTRS */
    { 5000, 0.25 },  /* BTRS, the dose-study regime */
    { 800, 0.9 },    /* p > 1/2: through n − Binomial(n, 1 − p) */
  };
  const guint M = 200000;
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const double n = cases[c].n, p = cases[c].p;
      const guint kmax = (guint) n;
      g_autofree double *hist = g_new0 (double, kmax + 1);
      g_autofree double *pmf = g_new0 (double, kmax + 1);
      CtrRng rng;
      ctr_rng_init (&rng, 17 + c, 0);
      for (guint i = 0; i < M; i++)
        {
          double k = ctr_rng_binomial (&rng, n, p);
          g_assert_true (k >= 0 && k <= n && k == floor (k));
          hist[(guint) k] += 1;
        }
      for (guint k = 0; k <= kmax; k++)
        pmf[k] = exp (lgamma (n + 1) - lgamma (k + 1.0) - lgamma (n - k + 1) + k * log (p)
                      + (n - k) * log1p (-p));
      g_autofree char *what = g_strdup_printf ("Binomial(%g, %g)", n, p);
      assert_gof (hist, pmf, kmax, M, what);
    }
  /* Edges: p = 0, p = 1, n = 0. */
  CtrRng rng;
  ctr_rng_init (&rng, 1, 0);
  g_assert_cmpfloat (ctr_rng_binomial (&rng, 100, 0), ==, 0);
  g_assert_cmpfloat (ctr_rng_binomial (&rng, 100, 1), ==, 100);
  g_assert_cmpfloat (ctr_rng_binomial (&rng, 0, 0.5), ==, 0);
}

static void
test_poisson_gof (void)
{
  const double means[] = { 0.7, 6.5, 40.0, 2500.0 };
  const guint M = 200000;
  for (guint c = 0; c < G_N_ELEMENTS (means); c++)
    {
      const double lam = means[c];
      const guint kmax = (guint) (lam + 12 * sqrt (lam) + 20);
      g_autofree double *hist = g_new0 (double, kmax + 1);
      g_autofree double *pmf = g_new0 (double, kmax + 1);
      CtrRng rng;
      ctr_rng_init (&rng, 99 + c, 3);
      for (guint i = 0; i < M; i++)
        {
          double k = ctr_rng_poisson (&rng, lam);
          g_assert_true (k >= 0 && k == floor (k));
          hist[MIN ((guint) k, kmax)] += 1;
        }
      for (guint k = 0; k <= kmax; k++)
        pmf[k] = exp (-lam + k * log (lam) - lgamma (k + 1.0));
      g_autofree char *what = g_strdup_printf ("Poisson(%g)", lam);
      assert_gof (hist, pmf, kmax, M, what);
    }
}

static void
test_normal_moments (void)
{
  const guint M = 400000;
  CtrRng rng;
  ctr_rng_init (&rng, 5, 0);
  double s = 0, s2 = 0, s4 = 0;
  for (guint i = 0; i < M; i++)
    {
      double x = ctr_rng_normal (&rng);
      s += x;
      s2 += x * x;
      s4 += x * x * x * x;
    }
  /* mean ~ N(0, 1/M); mean of x² ~ N(1, 2/M); mean of x⁴ ~ N(3, 96/M) */
  g_assert_cmpfloat (fabs (s / M) * sqrt (M), <, Z_CRIT);
  g_assert_cmpfloat (fabs (s2 / M - 1) / sqrt (2.0 / M), <, Z_CRIT);
  g_assert_cmpfloat (fabs (s4 / M - 3) / sqrt (96.0 / M), <, Z_CRIT);
}

/* ------------------------------------------------------------------------ */

/* Counts N against Poisson(λ): the mean z and the dispersion z. */
static void
assert_poisson (const float *counts, const double *lambda, gsize n, const char *what)
{
  double sum = 0, var = 0, disp = 0, disp_var = 0;
  for (gsize i = 0; i < n; i++)
    {
      double d = counts[i] - lambda[i];
      sum += d;
      var += lambda[i];
      disp += d * d / lambda[i];
      disp_var += 2.0 + 1.0 / lambda[i];
    }
  double z_mean = sum / sqrt (var);
  double z_disp = (disp - n) / sqrt (disp_var);
  g_test_message ("%s: %" G_GSIZE_FORMAT " rays, mean z = %.2f, variance ratio %.4f (z = %.2f); "
                  "|z| < %.2f at α = 0.001", what, n, z_mean, disp / n, z_disp, Z_CRIT);
  g_assert_cmpfloat (fabs (z_mean), <, Z_CRIT);
  g_assert_cmpfloat (fabs (z_disp), <, Z_CRIT);
}

/* Noiseless line integrals with a stated I0: Poisson re-sampling at F·I0. */
static void
test_resample (void)
{
  g_autoptr (CtrGeometry) g = test_fan (180, 256);
  g_autoptr (CtrProjections) p = test_head (g, 2);
  p->i0 = 1e4;
  const double F = 0.3;
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = F;
  o.seed = 11;
  CtrDoseReport r;
  g_autofree float *counts = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) low = ctr_dose_simulate (p, &o, &r, &counts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r.model, ==, CTR_DOSE_MODEL_RESAMPLE);
  g_assert_cmpfloat_with_epsilon (r.i0_out, F * 1e4, 1e-9);
  g_assert_cmpfloat_with_epsilon (low->i0, F * 1e4, 1e-9);
  g_assert_null (low->flat);
  g_assert_cmpuint (r.n_zero, ==, 0);
  const gsize n = (gsize) g->n_views * g->n_cols;
  g_autofree double *lambda = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    {
      lambda[i] = F * 1e4 * exp (-(double) p->data[i]);
      /* the line integrals are −ln(N'/(F·I0)) of the counts */
      g_assert_cmpfloat (fabs (low->data[i] + log (counts[i] / (F * 1e4))), <, 1e-6);
    }
  assert_poisson (counts, lambda, n, "re-sampled noiseless head at 0.3 × 1e4");
  ctr_dose_report_clear (&r);
}

/* A Poisson scan at I0 thinned to F: exactly Poisson at F·I0 against the
 * noiseless truth, and Binomial(N, F) given the measured N. */
static void
test_thin_line_integrals (void)
{
  g_autoptr (CtrGeometry) g = test_fan (180, 256);
  g_autoptr (CtrProjections) truth = test_head (g, 2);
  g_autoptr (CtrProjections) p = ctr_projections_copy (truth, NULL);
  const double I0 = 2e4, F = 0.25;
  ctr_projections_add_poisson_noise (p, I0, 7);
  p->i0 = I0;
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = F;
  o.seed = 12;
  CtrDoseReport r;
  g_autofree float *counts = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) low = ctr_dose_simulate (p, &o, &r, &counts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r.model, ==, CTR_DOSE_MODEL_THIN);
  g_assert_null (r.warning);
  const gsize n = (gsize) g->n_views * g->n_cols;
  g_autofree double *lambda = g_new (double, n);
  double disp = 0, disp_var = 0, sum = 0, var = 0;
  for (gsize i = 0; i < n; i++)
    {
      lambda[i] = F * I0 * exp (-(double) truth->data[i]);
      double N = nearbyint (I0 * exp (-(double) p->data[i]));
      g_assert_cmpfloat (counts[i], <=, N);
      g_assert_cmpfloat (counts[i], ==, floor (counts[i]));
      double m = N * F, s2 = N * F * (1 - F);
      sum += counts[i] - m;
      var += s2;
      disp += (counts[i] - m) * (counts[i] - m) / s2;
      disp_var += 2 + 1 / s2 - 6 / N;
    }
  /* Given N: Binomial(N, F) (mean and variance). */
  double z_mean = sum / sqrt (var), z_disp = (disp - n) / sqrt (disp_var);
  g_test_message ("thinning given N: mean z = %.2f, variance ratio %.4f (z = %.2f)", z_mean, disp / n, z_disp);
  g_assert_cmpfloat (fabs (z_mean), <, Z_CRIT);
  g_assert_cmpfloat (fabs (z_disp), <, Z_CRIT);
  /* Marginally: Poisson at F·I0. */
  assert_poisson (counts, lambda, n, "Poisson scan at 2e4 thinned to 0.25");
  ctr_dose_report_clear (&r);
}

/* Raw counts with flat and dark: thinned, flat' = F (flat − dark), no dark. */
static void
test_thin_raw_counts (void)
{
  const guint V = 60, R = 3, C = 40;
  g_autoptr (CtrProjections) p = ctr_projections_new (V, R, C, CTR_PROJ_COUNTS, NULL);
  const gsize plane = (gsize) R * C;
  p->flat = g_new (float, plane);
  p->dark = g_new (float, plane);
  for (gsize i = 0; i < plane; i++)
    {
      p->flat[i] = 8000 + 50 * (i % 7) + 100.25f;
      p->dark[i] = 100.25f;
    }
  p->flat[5] = p->dark[5];   /* a dead pixel */
  CtrRng rng;
  ctr_rng_init (&rng, 3, 0);
  g_autofree double *N = g_new (double, plane * V);
  for (gsize i = 0; i < plane * V; i++)
    {
      double open = p->flat[i % plane] - p->dark[i % plane];
      N[i] = ctr_rng_poisson (&rng, open * exp (-1.5 * (1 + sin (0.01 * i))));
      p->data[i] = (float) (N[i] + p->dark[i % plane]);
    }
  g_autoptr (CtrProjections) li = ctr_projections_copy (p, NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_projections_to_line_integrals (li, &error));
  const double F = 0.4;
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = F;
  CtrDoseReport r;
  g_autofree float *counts = NULL;
  g_autoptr (CtrProjections) low = ctr_dose_simulate (li, &o, &r, &counts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r.model, ==, CTR_DOSE_MODEL_THIN);
  g_assert_nonnull (low->flat);
  g_assert_null (low->dark);
  g_assert_nonnull (low->mask);
  g_assert_cmpint (low->mask[5], ==, 0);
  double sum = 0, var = 0;
  for (gsize i = 0; i < plane * V; i++)
    {
      gsize px = i % plane;
      if (px == 5)
        {
          g_assert_cmpfloat (counts[i], ==, 0);
          continue;
        }
      g_assert_cmpfloat_with_epsilon (low->flat[px], F * (p->flat[px] - p->dark[px]), 1e-2);
      g_assert_cmpfloat (counts[i], <=, N[i]);
      sum += counts[i] - F * N[i];
      var += N[i] * F * (1 - F);
    }
  g_assert_cmpfloat (fabs (sum / sqrt (var)), <, Z_CRIT);
  ctr_dose_report_clear (&r);
}

static void
test_refusals (void)
{
  g_autoptr (CtrGeometry) g = test_fan (180, 256);
  g_autoptr (CtrProjections) p = test_head (g, 2);
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = 0.5;
  g_autoptr (GError) error = NULL;
  /* Neither counts nor I0: the dose is unknown. */
  g_assert_null (ctr_dose_simulate (p, &o, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "I0"));
  g_clear_error (&error);
  /* Bad fractions. */
  p->i0 = 1e4;
  double bad[] = { 0, -0.5, NAN, INFINITY };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      o.fraction = bad[i];
      g_assert_null (ctr_dose_simulate (p, &o, NULL, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  /* Thinning cannot raise the dose; re-sampling a noiseless scan can. */
  o.fraction = 2;
  o.model = CTR_DOSE_MODEL_THIN;
  g_assert_null (ctr_dose_simulate (p, &o, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  o.model = CTR_DOSE_MODEL_AUTO;
  g_autoptr (CtrProjections) high = ctr_dose_simulate (p, &o, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (high->i0, 2e4, 1e-9);
  /* An I0 option that contradicts the data. */
  o.fraction = 0.5;
  o.i0 = 5e3;
  g_assert_null (ctr_dose_simulate (p, &o, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* Electronic noise must be >= 0. */
  o.i0 = 0;
  o.electronic_sd = -1;
  g_assert_null (ctr_dose_simulate (p, &o, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* The same seed gives the same scan; another seed another one; the I0
 * option stands in for a dataset without one. */
static void
test_deterministic (void)
{
  g_autoptr (CtrGeometry) g = test_fan (180, 256);
  g_autoptr (CtrProjections) p = test_head (g, 2);
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = 0.5;
  o.i0 = 3e4;
  o.seed = 42;
  g_autoptr (CtrProjections) a = ctr_dose_simulate (p, &o, NULL, NULL, NULL);
  g_autoptr (CtrProjections) b = ctr_dose_simulate (p, &o, NULL, NULL, NULL);
  o.seed = 43;
  g_autoptr (CtrProjections) c = ctr_dose_simulate (p, &o, NULL, NULL, NULL);
  g_assert_nonnull (a);
  g_assert_nonnull (c);
  const gsize n = (gsize) g->n_views * g->n_cols;
  g_assert_cmpmem (a->data, n * sizeof (float), b->data, n * sizeof (float));
  g_assert_true (memcmp (a->data, c->data, n * sizeof (float)) != 0);
  g_assert_cmpfloat_with_epsilon (a->i0, 1.5e4, 1e-9);
  g_assert_cmpfloat (p->i0, ==, 0);   /* the input is not modified */
}

/* Bins left without a count read as half a photon; electronic noise adds σₑ². */
static void
test_zero_counts_and_electronic (void)
{
  const guint V = 200, C = 100;
  g_autoptr (CtrProjections) p = ctr_projections_new (V, 1, C, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (gsize i = 0; i < (gsize) V * C; i++)
    p->data[i] = 3.0f + 0.01f * (i % C);
  p->i0 = 20;   /* λ = F·20·e^−3.x: mostly 0 or 1 photon */
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = 0.5;
  o.model = CTR_DOSE_MODEL_RESAMPLE;
  CtrDoseReport r;
  g_autofree float *counts = NULL;
  g_autoptr (CtrProjections) low = ctr_dose_simulate (p, &o, &r, &counts, NULL);
  g_assert_nonnull (low);
  gsize zeros = 0;
  for (gsize i = 0; i < (gsize) V * C; i++)
    if (counts[i] <= 0)
      {
        zeros++;
        g_assert_cmpfloat_with_epsilon (low->data[i], -log (0.5 / 10.0), 1e-6);
      }
  g_assert_cmpuint (zeros, ==, r.n_zero);
  g_assert_cmpuint (zeros, >, 1000);
  ctr_dose_report_clear (&r);

  /* σₑ = 30 counts at λ = 0.5 · 1e4 · e^−1: var(N') = λ + σₑ². */
  for (gsize i = 0; i < (gsize) V * C; i++)
    p->data[i] = 1.0f;
  p->i0 = 1e4;
  o.electronic_sd = 30;
  g_clear_pointer (&counts, g_free);
  g_autoptr (CtrProjections) low2 = ctr_dose_simulate (p, &o, &r, &counts, NULL);
  g_assert_nonnull (low2);
  const double lam = 0.5 * 1e4 * exp (-1.0), var = lam + 900;
  double s = 0, s2 = 0;
  const gsize n = (gsize) V * C;
  for (gsize i = 0; i < n; i++)
    {
      s += counts[i] - lam;
      s2 += (counts[i] - lam) * (counts[i] - lam);
    }
  /* mean ~ N(0, var/n); sample variance ~ N(var, ≈ 2 var²/n) (near-Gaussian counts) */
  g_assert_cmpfloat (fabs (s / n) / sqrt (var / n), <, Z_CRIT);
  g_assert_cmpfloat (fabs (s2 / n - var) / (var * sqrt (2.0 / n)), <, Z_CRIT);
  ctr_dose_report_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/random/binomial", test_binomial_gof);
  g_test_add_func ("/ctr/core/random/poisson", test_poisson_gof);
  g_test_add_func ("/ctr/core/random/normal", test_normal_moments);
  g_test_add_func ("/ctr/core/dose/resample", test_resample);
  g_test_add_func ("/ctr/core/dose/thin-line-integrals", test_thin_line_integrals);
  g_test_add_func ("/ctr/core/dose/thin-raw-counts", test_thin_raw_counts);
  g_test_add_func ("/ctr/core/dose/refusals", test_refusals);
  g_test_add_func ("/ctr/core/dose/deterministic", test_deterministic);
  g_test_add_func ("/ctr/core/dose/zero-counts-electronic", test_zero_counts_and_electronic);
  return g_test_run ();
}
