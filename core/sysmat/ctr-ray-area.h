/* ctr-ray-area.h — the closed form of the area model for one ray: the weight
 * of any pixel of the grid computed from the ray's strip alone.  Shared by the
 * ray-driven rows (ctr-ray.c) and the pixel-driven sweep (ctr-area-sweep.c),
 * so that both give the same bits for the same (ray, pixel).  Internal to
 * core/sysmat.
 *
 * Model: Yu et al. (2018), cuART, §2.1 and Fig. 2
 * (../shared/papers/cuart-scsr-2018.txt): the weight of pixel P for the ray
 * of detector bin j is the area of P inside the strip between the rays
 * through the bin's two edges, divided by the strip's width at P's centre,
 * so that a uniform object of attenuation μ gives A·x = μ·chord (weights in
 * mm, like the line models').
 *
 * The closed form: with H₀, H₁ the strip's two inner half-planes,
 * |P ∩ H₀ ∩ H₁| = |P ∩ H₀| + |P ∩ H₁| − |P| whenever the complements do not
 * meet on P (they meet only behind the source).  For a unit normal n,
 * n·(p − c) over the pixel P (half-sides hx, hy, centre c) is distributed as
 * the convolution of two uniform laws of half-widths α = |nx|·hx and
 * β = |ny|·hy (α >= β after a swap), a trapezoid; the area beyond d is
 * quadratic on its ramps and linear on its plateau.
 */
#pragma once

#include <glib.h>
#include <math.h>

G_BEGIN_DECLS

/* One edge line of the strip: inner side n·p >= k; a >= b the half-widths
 * of the trapezoid for a pixel of the grid. */
typedef struct {
  double nx, ny, k;
  double a, b, inv_8ab, inv_2a;
} CtrAreaEdge;

/* The closed form of one ray: its two edges, the central ray (origin s,
 * unit direction dm) and the strip's width at distance t along it from s:
 * width0 + t·width_per_mm (parallel beam: width0; fan beam: t·width_per_mm). */
typedef struct {
  CtrAreaEdge e[2];
  double s[2], dm[2];
  double width0, width_per_mm;
} CtrAreaRay;

/* Area of the pixel (area @full) centred at (xc, yc) on the inner side of @e. */
static inline double
ctr_area_edge_area (const CtrAreaEdge *e, double full, double xc, double yc)
{
  const double d = e->k - e->nx * xc - e->ny * yc, ad = fabs (d);
  double tail;
  if (ad >= e->a + e->b)
    tail = 0.0;
  else if (ad > e->a - e->b)       /* on a ramp: then b > 0 */
    tail = full * (e->a + e->b - ad) * (e->a + e->b - ad) * e->inv_8ab;
  else                             /* on the plateau: a > 0 */
    tail = full * (0.5 - ad * e->inv_2a);
  return d >= 0 ? tail : full - tail;
}

/* The weight (mm) of the pixel centred at (xc, yc) for ray @r: area ÷ strip
 * width; 0 when the pixel is outside the strip, or a sliver from rounding at
 * shared edges (at most 1e-6 of @min_side, the smaller pixel side). */
static inline float
ctr_area_ray_weight (const CtrAreaRay *r, double full, double min_side, double xc, double yc)
{
  const double area = ctr_area_edge_area (&r->e[0], full, xc, yc) + ctr_area_edge_area (&r->e[1], full, xc, yc)
                      - full;
  if (!(area > 0))
    return 0.f;
  const double t = (xc - r->s[0]) * r->dm[0] + (yc - r->s[1]) * r->dm[1];
  const double width = r->width0 + t * r->width_per_mm;
  if (width <= 0)
    return 0.f;
  const double w = area / width;
  return w > 1e-6 * min_side ? (float) w : 0.f;
}

G_END_DECLS
