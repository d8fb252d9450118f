/* test-penalty.c — the roughness penalties of solve/ctr-penalty.h: their
 * gradients equal central finite differences of their values (all four
 * potentials and the TV), the curvature is 2 Σ w ω and bounded by the stated
 * maximum, the separable surrogate it makes lies above the penalty, and
 * constant images cost nothing. */
#include <math.h>
#include "ctrecon.h"
#include "solve/ctr-penalty.h"

enum { NX = 9, NY = 7, NZ = 2 };

static float *
random_image (guint32 seed, double scale)
{
  float *x = g_new (float, NX * NY * NZ);
  GRand *r = g_rand_new_with_seed (seed);
  for (gsize i = 0; i < NX * NY * NZ; i++)
    x[i] = (float) (scale * g_rand_double_range (r, 0, 1));
  g_rand_free (r);
  return x;
}

/* Largest |analytic − finite difference| over all pixels, relative to the
 * largest gradient component. */
static double
check_gradient (double (*value) (const float *x, gconstpointer data), const float *grad, float *x,
                gconstpointer data, double h)
{
  double worst = 0, gmax = 0;
  for (gsize i = 0; i < NX * NY * NZ; i++)
    {
      const float x0 = x[i];
      x[i] = (float) (x0 + h);
      const double vp = value (x, data);
      x[i] = (float) (x0 - h);
      const double vm = value (x, data);
      x[i] = x0;
      const double fd = (vp - vm) / (2 * h);
      worst = MAX (worst, fabs (fd - grad[i]));
      gmax = MAX (gmax, fabs (grad[i]));
    }
  return worst / gmax;
}

typedef struct { CtrPenalty kind; double delta; } Pen;

static double
pen_value (const float *x, gconstpointer data)
{
  const Pen *p = data;
  return ctr_penalty_value (p->kind, p->delta, x, NX, NY, NZ);
}

static void
test_penalty_gradient (void)
{
  for (int kind = CTR_PENALTY_HYPERBOLA; kind <= CTR_PENALTY_ISOTROPIC; kind++)
    for (int d = 0; d < 2; d++)
      {
        /* δ below and above the typical neighbour difference (~0.4). */
        Pen p = { kind, d == 0 ? 0.05 : 2.0 };
        g_autofree float *x = random_image (7 + kind, 1.0);
        g_autofree float *g = g_new (float, NX * NY * NZ), *c = g_new (float, NX * NY * NZ);
        ctr_penalty_gradient (p.kind, p.delta, x, NX, NY, NZ, g, c);
        const double err = check_gradient (pen_value, g, x, &p, 1e-3);
        g_test_message ("penalty %d, delta %g: gradient vs finite differences %.2e", kind, p.delta, err);
        g_assert_cmpfloat (err, <, 2e-3);
        for (gsize i = 0; i < NX * NY * NZ; i++)
          {
            g_assert_cmpfloat (c[i], >, 0);
            g_assert_cmpfloat (c[i], <=, ctr_penalty_max_curvature (p.kind) * (1 + 1e-6));
          }
        /* The interior pixel of a constant image has the maximal curvature, no gradient. */
        for (gsize i = 0; i < NX * NY * NZ; i++)
          x[i] = 0.3f;
        ctr_penalty_gradient (p.kind, p.delta, x, NX, NY, NZ, g, c);
        g_assert_cmpfloat (fabs (ctr_penalty_value (p.kind, p.delta, x, NX, NY, NZ)), <, 1e-12);
        g_assert_cmpfloat (fabs (g[NX * 3 + 4]), <, 1e-12);
        g_assert_cmpfloat (fabs (c[NX * 3 + 4] - ctr_penalty_max_curvature (p.kind)), <, 1e-5);
      }
}

/* A single step of 1 between two pixels costs ψ(1) times the pair weight:
 * the potentials themselves. */
/* The separable surrogate majorises the penalty (what makes one-subset SQS
 * without momentum a descent method, ctr-pwls.c): for random images and
 * steps d of three sizes, R(x + d) ≤ R(x) + ∇R(x)·d + ½ Σ_j c_j d_j², every
 * potential, δ below and above the neighbour differences.  Half the stated
 * curvature fails it (checked by hand). */
static void
test_penalty_majorises (void)
{
  const gsize n = NX * NY * NZ;
  for (int kind = CTR_PENALTY_HYPERBOLA; kind <= CTR_PENALTY_ISOTROPIC; kind++)
    for (int d = 0; d < 2; d++)
      {
        const double delta = d == 0 ? 0.05 : 2.0;
        double worst = -INFINITY;
        for (guint32 trial = 0; trial < 20; trial++)
          {
            const double step = trial % 3 == 0 ? 0.01 : trial % 3 == 1 ? 0.3 : 3.0;
            g_autofree float *x = random_image (100 + trial, 1.0);
            g_autofree float *dx = random_image (200 + trial, 2 * step);
            g_autofree float *y = g_new (float, n);
            g_autofree float *g = g_new (float, n), *c = g_new (float, n);
            ctr_penalty_gradient (kind, delta, x, NX, NY, NZ, g, c);
            double lin = 0, quad = 0;
            for (gsize i = 0; i < n; i++)
              {
                const double di = dx[i] - step;   /* centred: both signs */
                y[i] = (float) (x[i] + di);
                lin += g[i] * di;
                quad += 0.5 * c[i] * di * di;
              }
            const double r0 = ctr_penalty_value (kind, delta, x, NX, NY, NZ);
            const double r1 = ctr_penalty_value (kind, delta, y, NX, NY, NZ);
            const double bound = r0 + lin + quad;
            worst = MAX (worst, (r1 - bound) / MAX (fabs (bound), 1e-12));
            g_assert_cmpfloat (r1, <=, bound + 1e-6 * fabs (bound) + 1e-9);
          }
        g_test_message ("penalty %d, delta %g: largest (R(x+d) − surrogate)/surrogate %.3g", kind, delta, worst);
      }
}

static void
test_penalty_values (void)
{
  float x[NX * NY * NZ] = { 0 };
  x[NX * 3 + 4] = 1.0f;   /* one bright interior pixel of slice 0: 4 direct, 4 diagonal pairs */
  const double w = 4 + 4 * M_SQRT1_2;
  g_assert_cmpfloat (fabs (ctr_penalty_value (CTR_PENALTY_QUADRATIC, 1, x, NX, NY, NZ) - w * 0.5), <, 1e-9);
  g_assert_cmpfloat (fabs (ctr_penalty_value (CTR_PENALTY_HUBER, 0.5, x, NX, NY, NZ) - w * (0.5 - 0.125)), <, 1e-9);
  g_assert_cmpfloat (fabs (ctr_penalty_value (CTR_PENALTY_HYPERBOLA, 0.5, x, NX, NY, NZ)
                           - w * 0.25 * (sqrt (5.0) - 1.0)), <, 1e-9);
  /* Isotropic: the pixel's own term sees |D x| = √2, its left and upper
   * neighbours' terms 1 each, all weighted 1 + √2. */
  const double psi1 = 0.25 * (sqrt (5.0) - 1.0), psi2 = 0.25 * (sqrt (9.0) - 1.0);   /* δ = 0.5 */
  g_assert_cmpfloat (fabs (ctr_penalty_value (CTR_PENALTY_ISOTROPIC, 0.5, x, NX, NY, NZ)
                           - (1 + M_SQRT2) * (psi2 + 2 * psi1)), <, 1e-9);
}

static double
tv_value (const float *x, gconstpointer data)
{
  g_autofree float *g = g_new (float, NX * NY * NZ);
  return ctr_tv_gradient (x, NX, NY, NZ, *(const double *) data, g);
}

static void
test_tv_gradient (void)
{
  const double eps = 0.05;
  g_autofree float *x = random_image (3, 1.0);
  g_autofree float *g = g_new (float, NX * NY * NZ);
  ctr_tv_gradient (x, NX, NY, NZ, eps, g);
  const double err = check_gradient (tv_value, g, x, &eps, 1e-3);
  g_test_message ("TV: gradient vs finite differences %.2e", err);
  g_assert_cmpfloat (err, <, 2e-3);
  /* A constant image: TV = n·ε, gradient 0. */
  for (gsize i = 0; i < NX * NY * NZ; i++)
    x[i] = 0.7f;
  g_assert_cmpfloat (fabs (ctr_tv_gradient (x, NX, NY, NZ, eps, g) - NX * NY * NZ * eps), <, 1e-9);
  for (gsize i = 0; i < NX * NY * NZ; i++)
    g_assert_cmpfloat (fabs (g[i]), <, 1e-9);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/penalty/gradient", test_penalty_gradient);
  g_test_add_func ("/ctr/core/penalty/values", test_penalty_values);
  g_test_add_func ("/ctr/core/penalty/majorises", test_penalty_majorises);
  g_test_add_func ("/ctr/core/penalty/tv-gradient", test_tv_gradient);
  return g_test_run ();
}
