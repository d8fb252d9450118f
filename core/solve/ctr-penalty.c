/* ctr-penalty.c — the neighbourhood penalty and the total variation (see
 * ctr-penalty.h). */
#include "solve/ctr-penalty.h"

#include <math.h>
#include <string.h>

/* Half of the 8-neighbourhood (each pair once): right, down, down-right,
 * down-left; the other half is the same offsets negated. */
static const int half_dx[4] = { 1, 0, 1, -1 };
static const int half_dy[4] = { 0, 1, 1, 1 };
#define DIAGONAL_WEIGHT 0.70710678118654752

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CTR_PENALTY_CLONES __attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define CTR_PENALTY_CLONES
#endif

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

/* The isotropic potential's weight: 1 + √2, the total pair weight an
 * axis-aligned gradient meets in the 8-neighbourhood, so that b means the
 * same strength for both potentials (for edges along the grid). */
#define ISO_WEIGHT 2.41421356237309505

/* R of the isotropic potential: Σ_j ISO_WEIGHT ψ(|D_j x|), D_j x = the
 * forward differences to the right and down neighbours (0 at the last
 * column or row), ψ the hyperbola. */
static double
isotropic_value (double delta, const float *x, guint nx, guint ny, guint nz)
{
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static) collapse(2)
  for (guint s = 0; s < nz; s++)
    for (guint iy = 0; iy < ny; iy++)
      {
        const float *xr = x + (gsize) s * nx * ny + (gsize) iy * nx;
        for (guint ix = 0; ix < nx; ix++)
          {
            const double dx = ix + 1 < nx ? (double) xr[ix + 1] - xr[ix] : 0.0;
            const double dy = iy + 1 < ny ? (double) xr[ix + nx] - xr[ix] : 0.0;
            acc += delta * delta * (sqrt (1.0 + (dx * dx + dy * dy) / (delta * delta)) - 1.0);
          }
      }
  return ISO_WEIGHT * acc;
}

double
ctr_penalty_value (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz)
{
  if (kind == CTR_PENALTY_ISOTROPIC)
    return isotropic_value (delta, x, nx, ny, nz);
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

/* Row iy of a slice and its neighbour rows: xu (above) and xd (below) are the
 * row itself where there is none, with the mask mu or md 0, so that their
 * differences vanish in the vectorised interior loops; gr and cr the output
 * rows (cr NULL without curvature). */
#define ROW_VIEW(x, nx, ny, iy, grad, curv)                                       \
  const float *xr = (x) + (gsize) (iy) * (nx);                                    \
  const gboolean up = (iy) > 0, down = (iy) + 1 < (ny);                           \
  const float *xu = up ? xr - (nx) : xr, *xd = down ? xr + (nx) : xr;             \
  const float mu = up ? 1.f : 0.f, md = down ? 1.f : 0.f;                         \
  float *gr = (grad) + (gsize) (iy) * (nx);                                       \
  float *cr = (curv) != NULL ? (curv) + (gsize) (iy) * (nx) : NULL

/* Pair (j, k) of direction h seen from pixel j: adds w ψ'(x_j − x_k) to *g
 * and w ω(x_j − x_k) to *c. */
static inline __attribute__ ((always_inline)) void
add_pair (CtrPenalty kind, float inv_delta, float delta, float w, float t, float *g, float *c)
{
  const float om = w * omega_f (kind, inv_delta, delta, t);
  *g += om * t;
  *c += om;
}

/* One slice, one pass: every pixel takes its 8 neighbours in the order
 * h = 0…3 (right, down, down-right, down-left), its forward partner
 * j + (dx, dy) then its backward one j − (dx, dy).  Each pair is evaluated
 * from both of its pixels (twice the ω, but no work arrays: W1's PWLS
 * iteration 1.4 → 1.2× a parallel-ART one, README), and ω(t) = ω(−t) bit
 * for bit, so the sums are in the order of a pass that stores each pair
 * once (the AVX copies contract them into FMAs).
 * The interior columns of a row run one vectorisable loop (a neighbour row
 * outside the image is replaced by the row itself with a 0 mask). */
static inline __attribute__ ((always_inline)) void
gradient_row_kind (const CtrPenalty kind, float delta, const float *x, guint nx, guint ny, guint iy, float *grad,
                   float *curv)
{
  const float inv_delta = delta > 0 ? 1.f / delta : 0.f;
  const float wd = (float) DIAGONAL_WEIGHT;
  ROW_VIEW (x, nx, ny, iy, grad, curv);
  /* Edge columns: every neighbour checked. */
  for (guint e = 0; e < MIN (2u, nx); e++)
    {
      const guint ix = e == 0 ? 0 : nx - 1;
      if (e == 1 && nx == 1)
        break;
      float g = 0.f, c = 0.f;
      for (int h = 0; h < 4; h++)
        {
          const float w = (float) pair_weight (h);
          const gint64 fx = (gint64) ix + half_dx[h], fy = (gint64) iy + half_dy[h];
          if (fx >= 0 && fx < nx && fy < ny)
            add_pair (kind, inv_delta, delta, w, xr[ix] - x[(gsize) fy * nx + fx], &g, &c);
          const gint64 bx = (gint64) ix - half_dx[h], by = (gint64) iy - half_dy[h];
          if (bx >= 0 && bx < nx && by >= 0)
            {
              const float t = x[(gsize) by * nx + bx] - xr[ix];
              const float om = w * omega_f (kind, inv_delta, delta, t);
              g -= om * t;
              c += om;
            }
        }
      gr[ix] = g;
      if (cr != NULL)
        cr[ix] = 2.f * c;
    }
  /* Interior columns 1 … nx − 2. */
  const guint last = nx >= 2 ? nx - 1 : 1;
#pragma omp simd
  for (guint ix = 1; ix < last; ix++)
    {
      const float xj = xr[ix];
      float g = 0.f, c = 0.f, t, om;
      /* h = 0: right, then left. */
      t = xj - xr[ix + 1];
      om = omega_f (kind, inv_delta, delta, t);
      g += om * t, c += om;
      t = xr[ix - 1] - xj;
      om = omega_f (kind, inv_delta, delta, t);
      g -= om * t, c += om;
      /* h = 1: down, then up. */
      t = xj - xd[ix];
      om = md * omega_f (kind, inv_delta, delta, t);
      g += om * t, c += om;
      t = xu[ix] - xj;
      om = mu * omega_f (kind, inv_delta, delta, t);
      g -= om * t, c += om;
      /* h = 2: down-right, then up-left. */
      t = xj - xd[ix + 1];
      om = md * (wd * omega_f (kind, inv_delta, delta, t));
      g += om * t, c += om;
      t = xu[ix - 1] - xj;
      om = mu * (wd * omega_f (kind, inv_delta, delta, t));
      g -= om * t, c += om;
      /* h = 3: down-left, then up-right. */
      t = xj - xd[ix - 1];
      om = md * (wd * omega_f (kind, inv_delta, delta, t));
      g += om * t, c += om;
      t = xu[ix + 1] - xj;
      om = mu * (wd * omega_f (kind, inv_delta, delta, t));
      g -= om * t, c += om;
      gr[ix] = g;
      if (cr != NULL)
        cr[ix] = 2.f * c;
    }
}

/* One row, the potential a constant in each copy: the interior loop
 * vectorises (with -fno-math-errno, meson.build, sqrtf is the instruction). */
static CTR_PENALTY_CLONES void
gradient_row (CtrPenalty kind, float delta, const float *x, guint nx, guint ny, guint iy, float *grad, float *curv)
{
  switch (kind)
    {
    case CTR_PENALTY_HYPERBOLA: gradient_row_kind (CTR_PENALTY_HYPERBOLA, delta, x, nx, ny, iy, grad, curv); break;
    case CTR_PENALTY_HUBER: gradient_row_kind (CTR_PENALTY_HUBER, delta, x, nx, ny, iy, grad, curv); break;
    default: gradient_row_kind (CTR_PENALTY_QUADRATIC, delta, x, nx, ny, iy, grad, curv); break;
    }
}

/* ω of pixel (ix, iy) of the isotropic potential, 1 / sqrt (1 + |D x|²/δ²)
 * (a difference past the last column or row is 0). */
static inline __attribute__ ((always_inline)) float
iso_omega (const float *x, guint nx, guint ny, guint ix, guint iy, float inv_delta)
{
  const float *xr = x + (gsize) iy * nx;
  const float dx = ix + 1 < nx ? xr[ix + 1] - xr[ix] : 0.f;
  const float dy = iy + 1 < ny ? xr[ix + nx] - xr[ix] : 0.f;
  return 1.f / sqrtf (1.f + (dx * dx + dy * dy) * (inv_delta * inv_delta));
}

/* One pixel of the isotropic penalty's gradient, every neighbour checked:
 * pixel j's own term couples it to its right (r) and lower (d) neighbours
 * with ω_j; the terms of its left and upper neighbours couple it with their
 * ω.  The SQS curvature of a pair term ω (x_a − x_b)²/2 is 2ω at both
 * pixels (De Pierro's trick, as the pair potentials above). */
static inline void
iso_pixel (const float *x, guint nx, guint ny, guint ix, guint iy, float inv_delta, float *g, float *c)
{
  const float *xr = x + (gsize) iy * nx;
  const float xj = xr[ix];
  float gg = 0.f, cc = 0.f;
  const float om = iso_omega (x, nx, ny, ix, iy, inv_delta);
  if (ix + 1 < nx)
    gg += om * (xj - xr[ix + 1]), cc += om;
  if (iy + 1 < ny)
    gg += om * (xj - xr[ix + nx]), cc += om;
  if (ix > 0)
    {
      const float ol = iso_omega (x, nx, ny, ix - 1, iy, inv_delta);
      gg += ol * (xj - xr[ix - 1]), cc += ol;
    }
  if (iy > 0)
    {
      const float ou = iso_omega (x, nx, ny, ix, iy - 1, inv_delta);
      gg += ou * (xj - (xr - nx)[ix]), cc += ou;
    }
  *g = (float) ISO_WEIGHT * gg;
  *c = (float) (2.0 * ISO_WEIGHT) * cc;
}

/* One row of the isotropic penalty: the edge columns by iso_pixel, the
 * interior in one vectorisable loop (a missing row below or above is the row
 * itself with a 0 mask, so its differences vanish).  Each pixel's ω is
 * evaluated three times, by the pixel and by its right and lower
 * neighbours: the price of no work array and no loop-carried value
 * (3 square roots a pixel; the pair potentials take 8). */
static CTR_PENALTY_CLONES void
iso_gradient_row (float delta, const float *x, guint nx, guint ny, guint iy, float *grad, float *curv)
{
  const float id = delta > 0 ? 1.f / delta : 0.f, id2 = id * id;
  ROW_VIEW (x, nx, ny, iy, grad, curv);
  for (guint e = 0; e < MIN (2u, nx); e++)
    {
      const guint ix = e == 0 ? 0 : nx - 1;
      if (e == 1 && nx == 1)
        break;
      float g, c;
      iso_pixel (x, nx, ny, ix, iy, id, &g, &c);
      gr[ix] = g;
      if (cr != NULL)
        cr[ix] = c;
    }
  const guint last = nx >= 2 ? nx - 1 : 1;
  const float W = (float) ISO_WEIGHT, W2 = (float) (2.0 * ISO_WEIGHT);
#pragma omp simd
  for (guint ix = 1; ix < last; ix++)
    {
      const float xj = xr[ix];
      /* Own term: right and down differences. */
      const float dxj = xr[ix + 1] - xj, dyj = md * (xd[ix] - xj);
      const float om = 1.f / sqrtf (1.f + (dxj * dxj + dyj * dyj) * id2);
      /* The left neighbour's term: its right difference ends at j. */
      const float dxl = xj - xr[ix - 1], dyl = md * (xd[ix - 1] - xr[ix - 1]);
      const float ol = 1.f / sqrtf (1.f + (dxl * dxl + dyl * dyl) * id2);
      /* The upper neighbour's term: its down difference ends at j. */
      const float dxu = xu[ix + 1] - xu[ix], dyu = xj - xu[ix];
      const float ou = mu / sqrtf (1.f + (dxu * dxu + dyu * dyu) * id2);
      const float g = om * (-dxj - dyj) + ol * dxl + ou * dyu;
      const float c = om * (1.f + md) + ol + ou;
      gr[ix] = W * g;
      if (cr != NULL)
        cr[ix] = W2 * c;
    }
}

static void
gradient_slice (CtrPenalty kind, float delta, const float *x, guint nx, guint ny, float *grad, float *curv)
{
  if (kind == CTR_PENALTY_ISOTROPIC)
    {
#pragma omp parallel for schedule(static)
      for (guint iy = 0; iy < ny; iy++)
        iso_gradient_row (delta, x, nx, ny, iy, grad, curv);
      return;
    }
#pragma omp parallel for schedule(static)
  for (guint iy = 0; iy < ny; iy++)
    gradient_row (kind, delta, x, nx, ny, iy, grad, curv);
}

void
ctr_penalty_gradient (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz,
                      float *grad, float *curv)
{
  const gsize n = (gsize) nx * ny;
  for (guint s = 0; s < nz; s++)
    gradient_slice (kind, (float) delta, x + s * n, nx, ny, grad + s * n, curv ? curv + s * n : NULL);
}

double
ctr_penalty_max_curvature (CtrPenalty kind)
{
  return kind == CTR_PENALTY_ISOTROPIC ? 2.0 * ISO_WEIGHT * 4.0 : 2.0 * (4.0 + 4.0 * DIAGONAL_WEIGHT);
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
