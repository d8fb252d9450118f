/* ctr-penalty.c — the neighbourhood penalty and the total variation (see
 * ctr-penalty.h). */
#include "ctr-penalty.h"

#include <math.h>

/* Half of the 8-neighbourhood (each pair once): right, down, down-right,
 * down-left; the other half is the same offsets negated. */
static const int half_dx[4] = { 1, 0, 1, -1 };
static const int half_dy[4] = { 0, 1, 1, 1 };
#define DIAGONAL_WEIGHT 0.70710678118654752

static inline double
pair_weight (int h)
{
  return h < 2 ? 1.0 : DIAGONAL_WEIGHT;
}

static inline double
psi (CtrPenalty kind, double delta, double t)
{
  switch (kind)
    {
    case CTR_PENALTY_HUBER:
      return fabs (t) <= delta ? 0.5 * t * t : delta * fabs (t) - 0.5 * delta * delta;
    case CTR_PENALTY_HYPERBOLA:
      {
        const double r = t / delta;
        return delta * delta * (sqrt (1.0 + r * r) - 1.0);
      }
    case CTR_PENALTY_QUADRATIC:
    default:
      return 0.5 * t * t;
    }
}

/* Huber's curvature ω(t) = ψ'(t)/t (ψ'(t) = ω t). */
static inline double
omega (CtrPenalty kind, double delta, double t)
{
  switch (kind)
    {
    case CTR_PENALTY_HUBER:
      return fabs (t) <= delta ? 1.0 : delta / fabs (t);
    case CTR_PENALTY_HYPERBOLA:
      {
        const double r = t / delta;
        return 1.0 / sqrt (1.0 + r * r);
      }
    case CTR_PENALTY_QUADRATIC:
    default:
      return 1.0;
    }
}

double
ctr_penalty_value (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz)
{
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static) collapse(2)
  for (guint s = 0; s < nz; s++)
    for (guint iy = 0; iy < ny; iy++)
      {
        const float *xs = x + (gsize) s * nx * ny;
        for (guint ix = 0; ix < nx; ix++)
          for (int h = 0; h < 4; h++)
            {
              const gint64 kx = (gint64) ix + half_dx[h], ky = (gint64) iy + half_dy[h];
              if (kx < 0 || kx >= nx || ky >= ny)
                continue;
              const double t = (double) xs[(gsize) iy * nx + ix] - xs[(gsize) ky * nx + kx];
              acc += pair_weight (h) * psi (kind, delta, t);
            }
      }
  return acc;
}

void
ctr_penalty_gradient (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz,
                      float *grad, float *curv)
{
#pragma omp parallel for schedule(static) collapse(2)
  for (guint s = 0; s < nz; s++)
    for (guint iy = 0; iy < ny; iy++)
      {
        const float *xs = x + (gsize) s * nx * ny;
        for (guint ix = 0; ix < nx; ix++)
          {
            const gsize j = (gsize) iy * nx + ix;
            double g = 0.0, c = 0.0;
            for (int h = 0; h < 8; h++)
              {
                const int sign = h < 4 ? 1 : -1;
                const gint64 kx = (gint64) ix + sign * half_dx[h % 4], ky = (gint64) iy + sign * half_dy[h % 4];
                if (kx < 0 || ky < 0 || kx >= nx || ky >= ny)
                  continue;
                const double t = (double) xs[j] - xs[(gsize) ky * nx + kx];
                const double w = pair_weight (h % 4), om = omega (kind, delta, t);
                g += w * om * t;
                c += w * om;
              }
            grad[(gsize) s * nx * ny + j] = (float) g;
            if (curv != NULL)
              curv[(gsize) s * nx * ny + j] = (float) (2.0 * c);
          }
      }
}

double
ctr_penalty_max_curvature (void)
{
  return 2.0 * (4.0 + 4.0 * DIAGONAL_WEIGHT);
}

double
ctr_tv_gradient (const float *x, guint nx, guint ny, guint nz, double eps, float *grad)
{
  const double e2 = eps * eps;
  double tv = 0.0;
  /* As Sidky & Pan 2008: the pixel appears in its own term (both
   * forward differences) and in the terms of its right and lower neighbours. */
#pragma omp parallel for reduction(+:tv) schedule(static) collapse(2)
  for (guint s = 0; s < nz; s++)
    for (guint iy = 0; iy < ny; iy++)
      {
        const float *xs = x + (gsize) s * nx * ny;
#define X(i, j) ((double) xs[(gsize) (j) * nx + (i)])
        for (guint ix = 0; ix < nx; ix++)
          {
            const double c = X (ix, iy);
            const double l = ix > 0 ? X (ix - 1, iy) : c, u = iy > 0 ? X (ix, iy - 1) : c;
            const double own = sqrt ((c - l) * (c - l) + (c - u) * (c - u) + e2);
            tv += own;
            double g = ((c - l) + (c - u)) / own;
            if (ix + 1 < nx)
              {
                const double r = X (ix + 1, iy);
                const double ur = iy > 0 ? X (ix + 1, iy - 1) : r;
                g -= (r - c) / sqrt ((r - c) * (r - c) + (r - ur) * (r - ur) + e2);
              }
            if (iy + 1 < ny)
              {
                const double d = X (ix, iy + 1);
                const double dl = ix > 0 ? X (ix - 1, iy + 1) : d;
                g -= (d - c) / sqrt ((d - dl) * (d - dl) + (d - c) * (d - c) + e2);
              }
            grad[(gsize) s * nx * ny + (gsize) iy * nx + ix] = (float) g;
          }
#undef X
      }
  return tv;
}
