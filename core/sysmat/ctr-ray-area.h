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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CTR_AREA_HAVE_AVX2 1

/* Four rays (or one ray broadcast) for four pixels at once, with AVX2: the
 * same operations in the same order as the scalar functions above (no
 * fused multiply-adds), so the same bits in every lane. */
typedef struct {
  __m256d nx, ny, k, a, b, inv_8ab, inv_2a;
} CtrAreaEdge4;

typedef struct {
  CtrAreaEdge4 e[2];
  __m256d s0, s1, dm0, dm1, width0, width_per_mm;
} CtrAreaRay4;

__attribute__ ((target ("avx2"), always_inline)) static inline __m256d
ctr_area_edge_area4 (const CtrAreaEdge4 *e, __m256d full, __m256d xc, __m256d yc)
{
  const __m256d d = _mm256_sub_pd (_mm256_sub_pd (e->k, _mm256_mul_pd (e->nx, xc)), _mm256_mul_pd (e->ny, yc));
  const __m256d ad = _mm256_andnot_pd (_mm256_set1_pd (-0.0), d);
  const __m256d r = _mm256_max_pd (_mm256_sub_pd (_mm256_add_pd (e->a, e->b), ad), _mm256_setzero_pd ());
  const __m256d ramp = _mm256_mul_pd (_mm256_mul_pd (_mm256_mul_pd (full, r), r), e->inv_8ab);
  const __m256d plat = _mm256_mul_pd (full, _mm256_sub_pd (_mm256_set1_pd (0.5), _mm256_mul_pd (ad, e->inv_2a)));
  const __m256d tail = _mm256_blendv_pd (plat, ramp, _mm256_cmp_pd (ad, _mm256_sub_pd (e->a, e->b), _CMP_GT_OQ));
  return _mm256_blendv_pd (_mm256_sub_pd (full, tail), tail, _mm256_cmp_pd (d, _mm256_setzero_pd (), _CMP_GE_OQ));
}

/* ctr_area_ray_weight in four lanes, as doubles (0 where it gives 0);
 * @thr: 1e-6 of the smaller pixel side. */
__attribute__ ((target ("avx2"), always_inline)) static inline __m256d
ctr_area_ray_weight4 (const CtrAreaRay4 *r, __m256d full, __m256d thr, __m256d xc, __m256d yc)
{
  const __m256d zero = _mm256_setzero_pd ();
  const __m256d area = _mm256_sub_pd (_mm256_add_pd (ctr_area_edge_area4 (&r->e[0], full, xc, yc),
                                                     ctr_area_edge_area4 (&r->e[1], full, xc, yc)), full);
  const __m256d t = _mm256_add_pd (_mm256_mul_pd (_mm256_sub_pd (xc, r->s0), r->dm0),
                                   _mm256_mul_pd (_mm256_sub_pd (yc, r->s1), r->dm1));
  const __m256d width = _mm256_add_pd (r->width0, _mm256_mul_pd (t, r->width_per_mm));
  const __m256d w = _mm256_div_pd (area, width);
  const __m256d ok = _mm256_and_pd (_mm256_and_pd (_mm256_cmp_pd (area, zero, _CMP_GT_OQ),
                                                   _mm256_cmp_pd (width, zero, _CMP_GT_OQ)),
                                    _mm256_cmp_pd (w, thr, _CMP_GT_OQ));
  return _mm256_and_pd (w, ok);
}

/* @r broadcast to four lanes. */
__attribute__ ((target ("avx2"), always_inline)) static inline void
ctr_area_ray_broadcast (const CtrAreaRay *r, CtrAreaRay4 *out)
{
  for (int i = 0; i < 2; i++)
    {
      const CtrAreaEdge *e = &r->e[i];
      CtrAreaEdge4 *o = &out->e[i];
      o->nx = _mm256_set1_pd (e->nx);
      o->ny = _mm256_set1_pd (e->ny);
      o->k = _mm256_set1_pd (e->k);
      o->a = _mm256_set1_pd (e->a);
      o->b = _mm256_set1_pd (e->b);
      o->inv_8ab = _mm256_set1_pd (e->inv_8ab);
      o->inv_2a = _mm256_set1_pd (e->inv_2a);
    }
  out->s0 = _mm256_set1_pd (r->s[0]);
  out->s1 = _mm256_set1_pd (r->s[1]);
  out->dm0 = _mm256_set1_pd (r->dm[0]);
  out->dm1 = _mm256_set1_pd (r->dm[1]);
  out->width0 = _mm256_set1_pd (r->width0);
  out->width_per_mm = _mm256_set1_pd (r->width_per_mm);
}
#endif

G_END_DECLS
