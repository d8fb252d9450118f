/* ctr-penalty.c — the neighbourhood penalty and the total variation (see
 * ctr-penalty.h). */
#include "ctr-penalty.h"

#include <math.h>
#include <string.h>

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

/* ω(t) of every kind in float, for the gradient's inner loop. */
static inline float
omega_f (CtrPenalty kind, float inv_delta, float delta, float t)
{
  switch (kind)
    {
    case CTR_PENALTY_HUBER:
      return fabsf (t) <= delta ? 1.f : delta / fabsf (t);
    case CTR_PENALTY_HYPERBOLA:
      {
        const float r = t * inv_delta;
        return 1.f / sqrtf (1.f + r * r);
      }
    case CTR_PENALTY_QUADRATIC:
    default:
      return 1.f;
    }
}

/* One slice.  Every pair is evaluated once: pass 1 stores, for each pixel j
 * and each of the four forward directions h, w_h ω(x_j − x_k) (x_j − x_k)
 * and w_h ω into g[h] and c[h] (0 where the neighbour k is outside); pass 2
 * adds to each pixel its forward pairs and subtracts (gradient) / adds
 * (curvature) its backward ones, the same values seen from the other side. */
static void
gradient_slice (CtrPenalty kind, float delta, const float *x, guint nx, guint ny, float *grad, float *curv,
                float *gh[4], float *ch[4])
{
  const float inv_delta = delta > 0 ? 1.f / delta : 0.f;
  const gsize n = (gsize) nx * ny;
#pragma omp parallel for schedule(static)
  for (guint iy = 0; iy < ny; iy++)
    for (int h = 0; h < 4; h++)
      {
        const float w = (float) pair_weight (h);
        float *g = gh[h] + (gsize) iy * nx, *c = ch[h] + (gsize) iy * nx;
        const float *xr = x + (gsize) iy * nx;
        const gint64 ky = (gint64) iy + half_dy[h];
        if (ky >= ny)
          {
            memset (g, 0, nx * sizeof (float));
            memset (c, 0, nx * sizeof (float));
            continue;
          }
        const float *kr = x + (gsize) ky * nx;
        const int dx = half_dx[h];
        const guint lo = dx < 0 ? 1 : 0, hi = dx > 0 ? nx - 1 : nx;
        for (guint ix = lo; ix < hi; ix++)
          {
            const float t = xr[ix] - kr[ix + dx];
            const float om = w * omega_f (kind, inv_delta, delta, t);
            g[ix] = om * t;
            c[ix] = om;
          }
        for (guint ix = 0; ix < lo; ix++)
          g[ix] = c[ix] = 0.f;
        for (guint ix = hi; ix < nx; ix++)
          g[ix] = c[ix] = 0.f;
      }
  (void) n;
#pragma omp parallel for schedule(static)
  for (guint iy = 0; iy < ny; iy++)
    for (guint ix = 0; ix < nx; ix++)
      {
        const gsize j = (gsize) iy * nx + ix;
        float g = 0.f, c = 0.f;
        for (int h = 0; h < 4; h++)
          {
            g += gh[h][j];
            c += ch[h][j];
            /* The pair whose forward partner is j: pixel j − (dx, dy). */
            const gint64 px = (gint64) ix - half_dx[h], py = (gint64) iy - half_dy[h];
            if (px >= 0 && py >= 0 && px < nx)
              {
                const gsize k = (gsize) py * nx + px;
                g -= gh[h][k];
                c += ch[h][k];
              }
          }
        grad[j] = g;
        if (curv != NULL)
          curv[j] = 2.f * c;
      }
}

void
ctr_penalty_gradient (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz,
                      float *grad, float *curv)
{
  const gsize n = (gsize) nx * ny;
  float *work = g_new (float, 8 * n);
  float *gh[4], *ch[4];
  for (int h = 0; h < 4; h++)
    {
      gh[h] = work + (gsize) h * n;
      ch[h] = work + (gsize) (4 + h) * n;
    }
  for (guint s = 0; s < nz; s++)
    gradient_slice (kind, (float) delta, x + s * n, nx, ny, grad + s * n, curv ? curv + s * n : NULL, gh, ch);
  g_free (work);
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
