/* ctr-cone-projector.c — Joseph forward projector for flat-panel cone beam
 * and its exact adjoint (see ctr-cone-projector.h).
 *
 * Ray of detector bin (row, col) of view β: from the source S through the
 * bin centre, unit direction d (ctr_cone_ray, FORMAT.md frame: flat or
 * curved detector, circular or helical source path, flying focal spot).  For an
 * x-dominant ray (|d_x| >= |d_y|) plane i (x = x_i) is crossed at
 *   t_i = (x_i - S_x)/d_x,   fj(i) = (y_0 - S_y - t_i d_y)/Δy,
 *   fk(i) = (S_z + t_i d_z - z_0)/Δz                       (continuous indices)
 * both linear in i; the sample weight is Δx/|d_x|.  y-dominant rays swap the
 * roles of x and y.
 *
 *      y ^         . . . . .        x-dominant ray: one bilinear sample
 *        |       . | . | . | .      (in y and z) per x plane i
 *        |   S ──────●───●───●───▶
 *        |       . | . | . | .
 *        +──────────────────────▶ x
 *
 * Both directions walk a ray plane by plane with the indices as affine
 * functions of the plane (no incremental stepping, so a plane's weights do
 * not depend on where a walk starts: the adjoint's plane blocks cut rays
 * anywhere and still transpose the forward exactly).  The interior run is
 * the hot loop: 32-bit voxel indices from fixed strides, truncation for
 * floor(), and in AVX2 eight planes per step with the weights in vectors and
 * the loads and stores lane by lane.  A ray's set-up costs one division
 * (ray_setup) and one for each of its index slopes (ray_planes).
 */
#include "sysmat/ctr-cone-projector.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
  float a0, ad;   /* transverse in-plane index (j for x-dominant, i for y) = a0 + ad·plane */
  float b0, bd;   /* z index = b0 + bd·plane */
  float w;        /* step length per plane, mm */
  gint32 p_lo, p_hi;  /* planes that can touch the grid (both ends included) */
  gint32 q_lo, q_hi;  /* planes whose four neighbours all lie inside (the interior run) */
} Ray;

/* The interior run of a ray: planes [p0, p1] (inside [q_lo, q_hi]) whose
 * bilinear stencils lie wholly inside the grid, voxel (a, b, p) at
 * b·sxy + a·sa + p·sp.  The forward kernel returns Σ_p Σ_c wt_c·vol; the
 * adjoint one adds val·w·wt_c to vol (and w·wt_c to weights).  A scalar and
 * an AVX2 version of each; the projector picks one pair, so the forward and
 * adjoint of one process always use the same arithmetic. */
typedef struct {
  gint32 sa, sp, sxy;
} Strides;
typedef float (*InteriorForward) (const Ray *r, gint32 p0, gint32 p1, const float *vol, const Strides *st);
typedef void (*InteriorAdjoint) (const Ray *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                                 const Strides *st);

struct _CtrConeProjector
{
  CtrGeometry *g;
  CtrGrid grid;
  InteriorForward interior_forward;
  InteriorAdjoint interior_adjoint;
  gboolean vector_ok;  /* voxel indices fit 32 bits: the interior kernels run */
  /* Circular-orbit geometries without vectors: what ctr_cone_ray computes
   * per view (source, sin and cos of the angle, source z) and per column
   * and row (the detector point's offsets along c and e, and v), so a ray
   * costs no trigonometry; NULL otherwise (ctr_cone_ray per ray). */
  double *view_frame;  /* [view][6]: source xyz, sin β, cos β, source z */
  double *col_at;      /* [col][2]: a (along c), t (along e) */
  double *row_v;       /* [row] */
  double origin[3];    /* the centre of voxel (0, 0, 0), mm */
  double inv_voxel[3]; /* 1/dx, 1/dy, 1/dz, 1/mm */
  Strides strides[2];  /* the interior kernels' strides: [0] y-dominant, [1] x-dominant rays */
};

/* The rays of a block of views, set up once for a forward and an adjoint
 * pass (ctr-cone-projector.h). */
struct _CtrConeRays
{
  gsize cap;        /* rays the arrays hold */
  guint v0, n_views;
  Ray *rays;        /* [view][row][col] of the block */
  gint8 *xdom;      /* 1 x-dominant, 0 y-dominant, -1 masked out */
  guint *list;      /* the adjoint's scatter order: x-dominant from the front, y-dominant from the back */
};

/* ---- interior kernels ---------------------------------------------------
 * Truncation is floor() in the interior run (both coordinates ≥ 0 there). */

static inline gint32
interior_stencil (const Ray *r, gint32 p, const Strides *st, float wt[4])
{
  const float fa = r->a0 + r->ad * (float) p, fb = r->b0 + r->bd * (float) p;
  const gint32 ia = (gint32) fa, ib = (gint32) fb;
  const float ea = fa - (float) ia, eb = fb - (float) ib, ua = 1.0f - ea, ub = 1.0f - eb;
  wt[0] = ua * ub;
  wt[1] = ea * ub;
  wt[2] = ua * eb;
  wt[3] = ea * eb;
  return ib * st->sxy + ia * st->sa + p * st->sp;
}

static float
interior_forward_scalar (const Ray *r, gint32 p0, gint32 p1, const float *vol, const Strides *st)
{
  float s = 0.0f;
  for (gint32 p = p0; p <= p1; p++)
    {
      float wt[4];
      const float *v = vol + interior_stencil (r, p, st, wt);
      s += wt[0] * v[0] + wt[1] * v[st->sa] + wt[2] * v[st->sxy] + wt[3] * v[st->sxy + st->sa];
    }
  return s;
}

static void
interior_adjoint_scalar (const Ray *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                         const Strides *st)
{
  const gint32 off[4] = { 0, st->sa, st->sxy, st->sxy + st->sa };
  for (gint32 p = p0; p <= p1; p++)
    {
      float wt[4];
      const gint32 at = interior_stencil (r, p, st, wt);
      for (int c = 0; c < 4; c++)
        {
          const float w = r->w * wt[c];
          vol[at + off[c]] += w * val;
          if (weights != NULL)
            weights[at + off[c]] += w;
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CONE_HAVE_AVX2 1

/* Eight planes pi at once: the voxel index of the (0, 0) neighbour and the
 * four bilinear weights, as interior_stencil. */
__attribute__ ((target ("avx2,fma"))) static inline __m256i
stencil8 (const Ray *r, __m256i pi, const Strides *st, __m256 wt[4])
{
  const __m256 pf = _mm256_cvtepi32_ps (pi);
  const __m256 fa = _mm256_add_ps (_mm256_set1_ps (r->a0), _mm256_mul_ps (_mm256_set1_ps (r->ad), pf));
  const __m256 fb = _mm256_add_ps (_mm256_set1_ps (r->b0), _mm256_mul_ps (_mm256_set1_ps (r->bd), pf));
  const __m256i ia = _mm256_cvttps_epi32 (fa), ib = _mm256_cvttps_epi32 (fb);
  const __m256 ea = _mm256_sub_ps (fa, _mm256_cvtepi32_ps (ia)), eb = _mm256_sub_ps (fb, _mm256_cvtepi32_ps (ib));
  const __m256 one = _mm256_set1_ps (1.0f);
  const __m256 ua = _mm256_sub_ps (one, ea), ub = _mm256_sub_ps (one, eb);
  wt[0] = _mm256_mul_ps (ua, ub);
  wt[1] = _mm256_mul_ps (ea, ub);
  wt[2] = _mm256_mul_ps (ua, eb);
  wt[3] = _mm256_mul_ps (ea, eb);
  return _mm256_add_epi32 (_mm256_add_epi32 (_mm256_mullo_epi32 (ib, _mm256_set1_epi32 (st->sxy)),
                                             _mm256_mullo_epi32 (ia, _mm256_set1_epi32 (st->sa))),
                           _mm256_mullo_epi32 (pi, _mm256_set1_epi32 (st->sp)));
}

/* Lanes past p1 repeat plane p1 (valid addresses) and are masked out.  The
 * loads are scalar: hardware gathers are slower than four loads a lane on
 * some CPUs (AMD Zen). */
__attribute__ ((target ("avx2,fma"))) static float
interior_forward_avx2 (const Ray *r, gint32 p0, gint32 p1, const float *vol, const Strides *st)
{
  const __m256i iota = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7), last = _mm256_set1_epi32 (p1);
  const gint32 o1 = st->sa, o2 = st->sxy, o3 = st->sxy + st->sa;
  __m256 acc = _mm256_setzero_ps ();
  for (gint32 p = p0; p <= p1; p += 8)
    {
      __m256i pi = _mm256_add_epi32 (_mm256_set1_epi32 (p), iota);
      const __m256 keep = _mm256_castsi256_ps (_mm256_cmpgt_epi32 (_mm256_add_epi32 (last, _mm256_set1_epi32 (1)), pi));
      pi = _mm256_min_epi32 (pi, last);
      __m256 wt[4];
      gint32 at[8];
      float v[4][8];
      _mm256_storeu_si256 ((__m256i *) at, stencil8 (r, pi, st, wt));
      for (int l = 0; l < 8; l++)
        {
          const float *q = vol + at[l];
          v[0][l] = q[0];
          v[1][l] = q[o1];
          v[2][l] = q[o2];
          v[3][l] = q[o3];
        }
      __m256 s = _mm256_mul_ps (wt[0], _mm256_loadu_ps (v[0]));
      s = _mm256_fmadd_ps (wt[1], _mm256_loadu_ps (v[1]), s);
      s = _mm256_fmadd_ps (wt[2], _mm256_loadu_ps (v[2]), s);
      s = _mm256_fmadd_ps (wt[3], _mm256_loadu_ps (v[3]), s);
      acc = _mm256_add_ps (acc, _mm256_and_ps (s, keep));
    }
  __m128 h = _mm_add_ps (_mm256_castps256_ps128 (acc), _mm256_extractf128_ps (acc, 1));
  h = _mm_add_ps (h, _mm_movehl_ps (h, h));
  h = _mm_add_ss (h, _mm_shuffle_ps (h, h, 1));
  return _mm_cvtss_f32 (h);
}

/* vol[at[l] + {0, 1}] += (wc[0][l], wc[1][l])·val and vol[at[l] + sxy +
 * {0, 1}] += (wc[2][l], wc[3][l])·val for the lanes l < n, as fused
 * multiply-adds on pairs. */
__attribute__ ((target ("avx2,fma"))) static inline void
scatter_pairs (const gint32 at[8], int n, float wc[4][8], float val, float *vol, gint32 sxy)
{
  float pr[2][16];
  for (int h = 0; h < 2; h++)
    {
      const __m256 a = _mm256_loadu_ps (wc[2 * h]), b = _mm256_loadu_ps (wc[2 * h + 1]);
      const __m256 lo = _mm256_unpacklo_ps (a, b), hi = _mm256_unpackhi_ps (a, b);
      _mm256_storeu_ps (pr[h], _mm256_permute2f128_ps (lo, hi, 0x20));
      _mm256_storeu_ps (pr[h] + 8, _mm256_permute2f128_ps (lo, hi, 0x31));
    }
  const __m128 v = _mm_set1_ps (val), z = _mm_setzero_ps ();
  for (int l = 0; l < n; l++)
    for (int h = 0; h < 2; h++)
      {
        __m64 *q = (__m64 *) (vol + at[l] + h * sxy);  /* __m64: may alias floats */
        const __m128 w = _mm_loadl_pi (z, (const __m64 *) (pr[h] + 2 * l));
        _mm_storel_pi (q, _mm_fmadd_ps (w, v, _mm_loadl_pi (z, q)));
      }
}

/* The weights in vectors, the scatter lane by lane (the lanes are distinct
 * planes, so distinct voxels). */
__attribute__ ((target ("avx2,fma"))) static void
interior_adjoint_avx2 (const Ray *r, gint32 p0, gint32 p1, float val, float *vol, float *weights,
                       const Strides *st)
{
  const __m256i iota = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 w = _mm256_set1_ps (r->w);
  const gint32 off[4] = { 0, st->sa, st->sxy, st->sxy + st->sa };
  for (gint32 p = p0; p <= p1; p += 8)
    {
      __m256 wt[4];
      gint32 at[8];
      float wc[4][8];
      _mm256_storeu_si256 ((__m256i *) at, stencil8 (r, _mm256_add_epi32 (_mm256_set1_epi32 (p), iota), st, wt));
      for (int c = 0; c < 4; c++)
        _mm256_storeu_ps (wc[c], _mm256_mul_ps (w, wt[c]));
      const int n = MIN (8, p1 - p + 1);
      if (st->sa == 1)
        {
          /* y-dominant: the two x neighbours are adjacent, one 8-byte
           * read-modify-write a pair (the same fused multiply-add). */
          scatter_pairs (at, n, wc, val, vol, st->sxy);
          if (weights != NULL)
            scatter_pairs (at, n, wc, 1.0f, weights, st->sxy);
          continue;
        }
      for (int l = 0; l < n; l++)
        for (int c = 0; c < 4; c++)
          vol[at[l] + off[c]] += wc[c][l] * val;
      if (weights != NULL)
        for (int l = 0; l < n; l++)
          for (int c = 0; c < 4; c++)
            weights[at[l] + off[c]] += wc[c][l];
    }
}
#endif

/* The per-view, per-column and per-row parts of ctr_cone_ray for a
 * circular-orbit geometry (ctr-geometry.c's detector_point and
 * ctr_geometry_source, the same expressions: the same rays bit for bit). */
static void
frames_init (CtrConeProjector *cp)
{
  const CtrGeometry *g = cp->g;
  if (g->vectors != NULL)
    return;
  cp->view_frame = g_try_new (double, 6 * (gsize) g->n_views);
  cp->col_at = g_try_new (double, 2 * (gsize) g->n_cols);
  cp->row_v = g_try_new (double, g->n_rows);
  if (cp->view_frame == NULL || cp->col_at == NULL || cp->row_v == NULL)
    {
      g_clear_pointer (&cp->view_frame, g_free);  /* ctr_cone_ray per ray */
      g_clear_pointer (&cp->col_at, g_free);
      g_clear_pointer (&cp->row_v, g_free);
      return;
    }
  for (guint v = 0; v < g->n_views; v++)
    {
      double *f = cp->view_frame + 6 * (gsize) v;
      ctr_geometry_source (g, v, f);
      f[3] = sin (g->angles[v]);
      f[4] = cos (g->angles[v]);
      f[5] = ctr_geometry_source_z (g, v);
    }
  for (guint c = 0; c < g->n_cols; c++)
    {
      const double u = ctr_geometry_col_u (g, c);
      cp->col_at[2 * c] = g->shape == CTR_DETECTOR_CURVED ? g->sdd_mm * cos (u) : g->sdd_mm;
      cp->col_at[2 * c + 1] = g->shape == CTR_DETECTOR_CURVED ? g->sdd_mm * sin (u) : u;
    }
  for (guint r = 0; r < g->n_rows; r++)
    cp->row_v[r] = ctr_geometry_row_v (g, r);
}

/* The ray of (@view, @col, @row) from the tables: its source @o and its
 * direction @d, not normalised (the detector point − the source; ray_setup
 * needs only ratios of its components and its length); returns |d|.
 * Without the tables, ctr_cone_ray's unit direction and 1. */
static inline double
cone_ray (const CtrConeProjector *cp, guint view, guint col, guint row, double o[3], double d[3])
{
  if (cp->view_frame == NULL)
    {
      ctr_cone_ray (cp->g, view, col, row, o, d);
      return 1.0;
    }
  const double *f = cp->view_frame + 6 * (gsize) view, sod = cp->g->sod_mm;
  const double sb = f[3], cb = f[4], a = cp->col_at[2 * col], t = cp->col_at[2 * col + 1];
  const double p[3] = { sod * sb - a * sb + t * cb, -sod * cb + a * cb + t * sb, f[5] + cp->row_v[row] };
  for (guint k = 0; k < 3; k++)
    {
      o[k] = f[k];
      d[k] = p[k] - o[k];
    }
  return sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

CtrConeProjector *
ctr_cone_projector_new (const CtrGeometry *g, const CtrGrid *grid, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error))
    return NULL;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "the cone-beam projector needs a cone-beam geometry");
      return NULL;
    }
  CtrGeometry *copy = ctr_geometry_try_copy (g, error);
  if (copy == NULL)
    return NULL;
  CtrConeProjector *cp = g_new0 (CtrConeProjector, 1);
  cp->g = copy;
  cp->grid = *grid;
  cp->vector_ok = ctr_grid_size (grid) + (gsize) grid->nx * grid->ny + grid->nx < (gsize) G_MAXINT32;
  frames_init (cp);
  cp->origin[0] = ctr_grid_x (grid, 0);
  cp->origin[1] = ctr_grid_y (grid, 0);
  cp->origin[2] = ctr_grid_z (grid, 0);
  cp->inv_voxel[0] = 1.0 / grid->dx;
  cp->inv_voxel[1] = 1.0 / grid->dy;
  cp->inv_voxel[2] = 1.0 / grid->dz;
  const gint32 nx = (gint32) grid->nx, sxy = (gint32) ((gsize) grid->nx * grid->ny);
  cp->strides[0] = (Strides) { 1, nx, sxy };
  cp->strides[1] = (Strides) { nx, 1, sxy };
  cp->interior_forward = interior_forward_scalar;
  cp->interior_adjoint = interior_adjoint_scalar;
#ifdef CONE_HAVE_AVX2
  const char *want = g_getenv ("CTR_CONE_SIMD");
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma") && g_strcmp0 (want, "generic") != 0)
    {
      cp->interior_forward = interior_forward_avx2;
      cp->interior_adjoint = interior_adjoint_avx2;
    }
#endif
  return cp;
}

void
ctr_cone_projector_free (CtrConeProjector *cp)
{
  if (cp == NULL)
    return;
  ctr_geometry_free (cp->g);
  g_free (cp->view_frame);
  g_free (cp->col_at);
  g_free (cp->row_v);
  g_free (cp);
}

const CtrGeometry *
ctr_cone_projector_geometry (const CtrConeProjector *cp)
{
  return cp->g;
}

const CtrGrid *
ctr_cone_projector_grid (const CtrConeProjector *cp)
{
  return &cp->grid;
}

/* Narrows [*lo, *hi] to the planes p where c0 + cd·p lies in (-1, n), with
 * one plane of margin (the exact test is stencil()'s); @inv = 1/cd. */
static inline void
clip_planes (double c0, double cd, double inv, double n, gint64 *lo, gint64 *hi)
{
  if (cd == 0.0)
    {
      if (!(c0 > -1.0 && c0 < n))
        *hi = *lo - 1;
      return;
    }
  double t1 = (-1.0 - c0) * inv, t2 = (n - c0) * inv;
  double a = floor (MIN (t1, t2)) - 1.0, b = ceil (MAX (t1, t2)) + 1.0;
  if (a > *lo)
    *lo = a > (double) *hi ? *hi + 1 : (gint64) a;
  if (b < *hi)
    *hi = b < (double) *lo ? *lo - 1 : (gint64) b;
}

/* Narrows [*lo, *hi] to the planes p where c0 + cd·p lies in [m, n − 1 − m]
 * (@inv = 1/cd): there floor() is in [0, n − 2], so both neighbours lie
 * inside.  The margin m covers the float rounding of c0 + cd·p (a few ulps
 * of the largest term) and that of the plane bounds (1/cd rounded, a few
 * ulps of a plane number) many times over. */
static inline void
narrow_interior (double c0, double cd, double inv, double n, double np, double *lo, double *hi)
{
  const double m = 1e-3 + 1e-6 * (fabs (c0) + fabs (cd) * np), top = n - 1.0 - m;
  if (top < m)
    *hi = *lo - 1.0;
  else if (cd == 0.0)
    {
      if (!(c0 >= m && c0 <= top))
        *hi = *lo - 1.0;
    }
  else
    {
      const double t1 = (m - c0) * inv, t2 = (top - c0) * inv;
      *lo = MAX (*lo, ceil (MIN (t1, t2)));
      *hi = MIN (*hi, floor (MAX (t1, t2)));
    }
}

/* Sets the plane range [p_lo, p_hi] of @r from its a0, ad, b0, bd and its
 * interior run [q_lo, q_hi] (na, nb: the sizes of its transverse and z
 * axes, np of its plane axis); an empty run is [p_hi + 1, p_hi].  One
 * division an axis (the reciprocals), none a bound. */
static inline void
ray_planes (Ray *r, gint64 na, gint64 nb, gint64 np, gboolean vector_ok)
{
  const double a0 = r->a0, ad = r->ad, b0 = r->b0, bd = r->bd;
  const double ia = ad != 0.0 ? 1.0 / ad : 0.0, ib = bd != 0.0 ? 1.0 / bd : 0.0;
  gint64 plo = 0, phi = np - 1;
  clip_planes (a0, ad, ia, (double) na, &plo, &phi);
  clip_planes (b0, bd, ib, (double) nb, &plo, &phi);
  r->p_lo = (gint32) plo;
  r->p_hi = (gint32) phi;
  double lo = r->p_lo, hi = r->p_hi;
  if (!vector_ok)
    hi = lo - 1.0;
  narrow_interior (a0, ad, ia, (double) na, (double) np, &lo, &hi);
  narrow_interior (b0, bd, ib, (double) nb, (double) np, &lo, &hi);
  if (lo > hi)
    {
      r->q_lo = r->p_hi + 1;
      r->q_hi = r->p_hi;
      return;
    }
  r->q_lo = (gint32) lo;
  r->q_hi = (gint32) hi;
}

/* Parameters of the ray of bin (row, col) of @view; returns TRUE for an
 * x-dominant ray.  With the direction d not normalised (cone_ray) the
 * crossing of plane i is at t = (x_i − S_x)/d_x in units of |d|, so the
 * indices need only d's ratios and the step length is Δx·|d|/|d_x|:
 * one division (1/d_x or 1/d_y) for the ray and the grid's reciprocal
 * voxel sizes. */
static gboolean
ray_setup (const CtrConeProjector *cp, guint view, guint row, guint col, Ray *r)
{
  const CtrGrid *gr = &cp->grid;
  double o[3], d[3];
  const double len = cone_ray (cp, view, col, row, o, d);
  const double x0 = cp->origin[0], y0 = cp->origin[1], z0 = cp->origin[2];
  const double *inv = cp->inv_voxel;
  if (fabs (d[0]) >= fabs (d[1]))
    {
      const double rd = 1.0 / d[0], t0 = (x0 - o[0]) * rd, dt = gr->dx * rd;
      r->a0 = (float) ((y0 - o[1] - t0 * d[1]) * inv[1]);
      r->ad = (float) (-dt * d[1] * inv[1]);
      r->b0 = (float) ((o[2] + t0 * d[2] - z0) * inv[2]);
      r->bd = (float) (dt * d[2] * inv[2]);
      r->w = (float) fabs (dt * len);
      ray_planes (r, gr->ny, gr->nz, gr->nx, cp->vector_ok);
      return TRUE;
    }
  const double rd = 1.0 / d[1], t0 = (y0 - o[1]) * rd, dt = -gr->dy * rd;
  r->a0 = (float) ((o[0] + t0 * d[0] - x0) * inv[0]);
  r->ad = (float) (dt * d[0] * inv[0]);
  r->b0 = (float) ((o[2] + t0 * d[2] - z0) * inv[2]);
  r->bd = (float) (dt * d[2] * inv[2]);
  r->w = (float) fabs (dt * len);
  ray_planes (r, gr->nx, gr->nz, gr->ny, cp->vector_ok);
  return FALSE;
}

/* Bilinear stencil of plane @p: indices (a0, b0) and weights of the four
 * neighbours (a0 + da, b0 + db) as wa[da]·wb[db]; FALSE when no neighbour is
 * inside [0, na) × [0, nb). */
static inline gboolean
stencil (const Ray *r, guint p, gint64 na, gint64 nb, gint64 *ia, gint64 *ib, float wa[2], float wb[2])
{
  float fa = r->a0 + r->ad * (float) p;
  float fb = r->b0 + r->bd * (float) p;
  if (!(fa > -1.0f && fa < (float) na && fb > -1.0f && fb < (float) nb))
    return FALSE;
  float a = floorf (fa), b = floorf (fb);
  *ia = (gint64) a;
  *ib = (gint64) b;
  float ea = fa - a, eb = fb - b;
  wa[0] = 1.0f - ea;
  wa[1] = ea;
  wb[0] = 1.0f - eb;
  wb[1] = eb;
  return TRUE;
}

/* The voxels of plane @p that the bilinear stencil touches and their
 * weights (wa·wb): the four without checks when all lie inside (the common
 * case), else the ones that do.  Returns their number.  Shared by the
 * forward gather and the adjoint scatter, so the pair stays matched. */
static inline int
corners (gboolean xdom, gint64 p, gint64 ia, gint64 ib, const float wa[2], const float wb[2], gint64 na, gint64 nx,
         gint64 nz, gsize sxy, gsize at[4], float wt[4])
{
  if (ia >= 0 && ia + 1 < na && ib >= 0 && ib + 1 < nz)
    {
      const gsize stride_a = xdom ? (gsize) nx : 1;
      const gsize base = (gsize) ib * sxy + (xdom ? (gsize) ia * nx + p : (gsize) p * nx + ia);
      at[0] = base;
      at[1] = base + stride_a;
      at[2] = base + sxy;
      at[3] = base + sxy + stride_a;
      wt[0] = wa[0] * wb[0];
      wt[1] = wa[1] * wb[0];
      wt[2] = wa[0] * wb[1];
      wt[3] = wa[1] * wb[1];
      return 4;
    }
  int n = 0;
  for (int db = 0; db < 2; db++)
    {
      const gint64 k = ib + db;
      if (k < 0 || k >= nz)
        continue;
      for (int da = 0; da < 2; da++)
        {
          const gint64 a = ia + da;
          if (a < 0 || a >= na)
            continue;
          at[n] = xdom ? (gsize) k * sxy + (gsize) a * nx + p : (gsize) k * sxy + (gsize) p * nx + a;
          wt[n++] = wa[da] * wb[db];
        }
    }
  return n;
}


/* Σ over planes [p0, p1] of the bilinear samples (without the step
 * length), the edge planes by stencil() and corners(), the interior run by
 * the kernel. */
static double
ray_sum (const CtrConeProjector *cp, const Ray *r, gboolean xdom, gint32 p0, gint32 p1, const float *vol)
{
  const CtrGrid *gr = &cp->grid;
  const gint64 nx = gr->nx, nz = gr->nz, na = xdom ? gr->ny : gr->nx;
  const gsize sxy = (gsize) nx * gr->ny;
  const gint32 i0 = MAX (p0, r->q_lo), i1 = MIN (p1, r->q_hi);
  double acc = 0.0;
  for (gint32 p = p0; p <= p1; p++)
    {
      if (p == i0 && i0 <= i1)
        {
          acc += cp->interior_forward (r, i0, i1, vol, &cp->strides[xdom != 0]);
          p = i1;
          continue;
        }
      gint64 ia, ib;
      float wa[2], wb[2];
      if (!stencil (r, (guint) p, na, nz, &ia, &ib, wa, wb))
        continue;
      gsize at[4];
      float wt[4];
      const int n = corners (xdom, p, ia, ib, wa, wb, na, nx, nz, sxy, at, wt);
      float s = 0.0f;
      for (int c = 0; c < n; c++)
        s += wt[c] * vol[at[c]];
      acc += s;
    }
  return acc;
}

/* The transpose of ray_sum times the step length: val·w·wt added to the
 * voxels of planes [p0, p1] (and w·wt to @weights). */
static void
ray_spread (const CtrConeProjector *cp, const Ray *r, gboolean xdom, gint32 p0, gint32 p1, float val, float *vol,
            float *weights)
{
  const CtrGrid *gr = &cp->grid;
  const gint64 nx = gr->nx, nz = gr->nz, na = xdom ? gr->ny : gr->nx;
  const gsize sxy = (gsize) nx * gr->ny;
  const gint32 i0 = MAX (p0, r->q_lo), i1 = MIN (p1, r->q_hi);
  for (gint32 p = p0; p <= p1; p++)
    {
      if (p == i0 && i0 <= i1)
        {
          cp->interior_adjoint (r, i0, i1, val, vol, weights, &cp->strides[xdom != 0]);
          p = i1;
          continue;
        }
      gint64 ia, ib;
      float wa[2], wb[2];
      if (!stencil (r, (guint) p, na, nz, &ia, &ib, wa, wb))
        continue;
      gsize at[4];
      float wt[4];
      const int n = corners (xdom, p, ia, ib, wa, wb, na, nx, nz, sxy, at, wt);
      for (int c = 0; c < n; c++)
        {
          const float w = r->w * wt[c];
          vol[at[c]] += w * val;
          if (weights != NULL)
            weights[at[c]] += w;
        }
    }
}

void
ctr_cone_projector_forward_view (const CtrConeProjector *cp, const float *vol, guint view,
                                 float *out)
{
  ctr_cone_projector_forward_view_masked (cp, vol, view, NULL, out);
}

void
ctr_cone_projector_forward_view_masked (const CtrConeProjector *cp, const float *vol, guint view,
                                        const guint8 *mask, float *out)
{
  ctr_cone_projector_forward_views_masked (cp, vol, view, 1, mask, out);
}

void
ctr_cone_projector_forward_views_masked (const CtrConeProjector *cp, const float *vol, guint v0, guint n_views,
                                         const guint8 *mask, float *out)
{
  const guint nr = cp->g->n_rows, nc = cp->g->n_cols;
  g_return_if_fail (v0 + (guint64) n_views <= cp->g->n_views);

  /* One parallel loop over the rows of all the views (one join a block),
   * row by row: one detector row's rays of neighbouring views cross nearly
   * the same slices, so those stay in cache. */
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 rv = 0; rv < (gint64) n_views * nr; rv++)
    {
      const guint k = (guint) (rv % n_views), view = v0 + k, row = (guint) (rv / n_views);
      for (guint col = 0; col < nc; col++)
        {
          const gsize i = ((gsize) k * nr + row) * nc + col;
          if (mask != NULL && mask[i] == 0)
            {
              out[i] = 0.0f;
              continue;
            }
          Ray r;
          const gboolean xdom = ray_setup (cp, view, row, col, &r);
          out[i] = (float) (r.w * ray_sum (cp, &r, xdom, r.p_lo, r.p_hi, vol));
        }
    }
}

void
ctr_cone_projector_adjoint_view (const CtrConeProjector *cp, const float *proj, guint view,
                                 float *vol, float *weights)
{
  ctr_cone_projector_adjoint_view_masked (cp, proj, view, NULL, vol, weights);
}

/* Planes per block of the adjoint's scatter: a thread owns whole blocks. */
#define PLANE_BLOCK 8

/* Planes per block of the tabled adjoint: larger blocks cost each ray
 * fewer visits (each visit clips it and enters the kernels again), but
 * every thread needs several blocks for balance: np / (4 threads), 8 to
 * 32.  A voxel's sum runs over the rays in list order whatever the block,
 * so the image does not depend on it (nor on the threads). */
static gint64
plane_block (gint64 np)
{
  gint64 threads = 1;
#ifdef _OPENMP
  threads = MAX (1, omp_get_max_threads ());
#endif
  return CLAMP (np / (4 * threads), PLANE_BLOCK, 32);
}

/* The adjoint of one view without its per-ray tables (when they cannot be
 * allocated): each block of planes sets the rays up again.  The same rays
 * in the same order into every voxel (x-dominant first, by ray number):
 * the same sums as the tabled path, bit for bit. */
static void
adjoint_view_untabled (const CtrConeProjector *cp, const float *proj, guint view, const guint8 *mask, float *vol,
                       float *weights)
{
  const CtrGrid *gr = &cp->grid;
  const guint nc = cp->g->n_cols;
  const gsize nrays = (gsize) cp->g->n_rows * nc;
  for (int pass = 0; pass < 2; pass++)
    {
      const gboolean xd = pass == 0;
      const gint64 np = xd ? gr->nx : gr->ny;
#pragma omp parallel for schedule(dynamic, 1)
      for (gint64 b0 = 0; b0 < np; b0 += PLANE_BLOCK)
        {
          const gint32 b1 = (gint32) MIN (b0 + PLANE_BLOCK, np) - 1;
          for (gsize i = 0; i < nrays; i++)
            {
              Ray r;
              if ((proj[i] == 0.0f && weights == NULL) || (mask != NULL && mask[i] == 0)
                  || !ray_setup (cp, view, (guint) (i / nc), (guint) (i % nc), &r) != !xd)
                continue;
              const gint32 p0 = MAX (r.p_lo, (gint32) b0), p1 = MIN (r.p_hi, b1);
              if (p0 <= p1)
                ray_spread (cp, &r, xd, p0, p1, proj[i], vol, weights);
            }
        }
    }
}

void
ctr_cone_projector_adjoint_view_masked (const CtrConeProjector *cp, const float *proj, guint view,
                                        const guint8 *mask, float *vol, float *weights)
{
  ctr_cone_projector_adjoint_views_masked (cp, proj, view, 1, mask, vol, weights);
}

/* Scatters the tabled rays @list[0..n) (indices into @rays and @proj) of
 * one dominant axis, every thread owning whole blocks of planes. */
static void
adjoint_scatter (const CtrConeProjector *cp, gboolean xd, const Ray *rays, const guint *list, gsize n,
                 const float *proj, float *vol, float *weights)
{
  const gint64 np = xd ? cp->grid.nx : cp->grid.ny;
  if (n == 0)
    return;
  const gint64 pb = plane_block (np);
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 b0 = 0; b0 < np; b0 += pb)
    {
      const gint32 b1 = (gint32) MIN (b0 + pb, np) - 1;
      for (gsize m = 0; m < n; m++)
        {
          const Ray *r = &rays[list[m]];
          const gint32 p0 = MAX (r->p_lo, (gint32) b0), p1 = MIN (r->p_hi, b1);
          if (p0 <= p1)
            ray_spread (cp, r, xd, p0, p1, proj[list[m]], vol, weights);
        }
    }
}

guint64
ctr_cone_rays_estimate_bytes (const CtrGeometry *g, guint max_views)
{
  const guint64 cap = (guint64) g->n_rows * g->n_cols * MIN (max_views, g->n_views);
  return cap * (sizeof (Ray) + sizeof (gint8) + sizeof (guint));
}

CtrConeRays *
ctr_cone_rays_new (const CtrConeProjector *cp, guint max_views)
{
  g_return_val_if_fail (cp != NULL && max_views > 0, NULL);
  const gsize cap = (gsize) cp->g->n_rows * cp->g->n_cols * MIN (max_views, cp->g->n_views);
  if (cap >= G_MAXUINT32)
    return NULL;
  CtrConeRays *t = g_new0 (CtrConeRays, 1);
  t->cap = cap;
  t->rays = g_try_new (Ray, cap);
  t->xdom = g_try_new (gint8, cap);
  t->list = g_try_new (guint, cap);
  if (t->rays == NULL || t->xdom == NULL || t->list == NULL)
    {
      ctr_cone_rays_free (t);
      return NULL;
    }
  return t;
}

void
ctr_cone_rays_free (CtrConeRays *t)
{
  if (t == NULL)
    return;
  g_free (t->rays);
  g_free (t->xdom);
  g_free (t->list);
  g_free (t);
}

void
ctr_cone_rays_fill (const CtrConeProjector *cp, CtrConeRays *t, guint v0, guint n_views, const guint8 *mask)
{
  const gsize per_view = (gsize) cp->g->n_rows * cp->g->n_cols, nrays = per_view * n_views;
  const guint nc = cp->g->n_cols;
  g_return_if_fail (v0 + (guint64) n_views <= cp->g->n_views && nrays <= t->cap);
  t->v0 = v0;
  t->n_views = n_views;
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) nrays; i++)
    {
      const gsize j = (gsize) i % per_view;
      if (mask != NULL && mask[i] == 0)
        t->xdom[i] = -1;
      else
        t->xdom[i] = ray_setup (cp, v0 + (guint) ((gsize) i / per_view), (guint) (j / nc), (guint) (j % nc),
                                &t->rays[i]);
    }
}

void
ctr_cone_projector_forward_rays (const CtrConeProjector *cp, const CtrConeRays *t, const float *vol, float *out)
{
  const guint nc = cp->g->n_cols;
  const gint64 nrows = (gint64) t->n_views * cp->g->n_rows;
  /* Row by row, as ctr_cone_projector_forward_views_masked. */
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 rv = 0; rv < nrows; rv++)
    for (gsize i = ((rv % t->n_views) * cp->g->n_rows + (gsize) (rv / t->n_views)) * nc, e = i + nc; i < e; i++)
      {
        const Ray *r = &t->rays[i];
        out[i] = t->xdom[i] < 0 ? 0.0f : (float) (r->w * ray_sum (cp, r, t->xdom[i], r->p_lo, r->p_hi, vol));
      }
}

void
ctr_cone_projector_adjoint_rays (const CtrConeProjector *cp, CtrConeRays *t, const float *proj, float *vol,
                                 float *weights)
{
  const guint nr = cp->g->n_rows, nc = cp->g->n_cols, nv = t->n_views;
  const gsize per_view = (gsize) nr * nc, nrays = per_view * nv;
  /* Split the rays by dominant axis; the rays that add nothing are left
   * out.  Each kind in the order (row, view, col): the block's views of one
   * detector row cross nearly the same voxels, so a plane block's voxels
   * stay in cache across its views. */
  gsize nxs = 0, nys = 0;
  for (guint row = 0; row < nr; row++)
    for (guint view = 0; view < nv; view++)
      for (gsize i = view * per_view + (gsize) row * nc, e = i + nc; i < e; i++)
        if (t->xdom[i] > 0 && (proj[i] != 0.0f || weights != NULL))
          t->list[nxs++] = (guint) i;
  for (guint row = nr; row-- > 0;)
    for (guint view = nv; view-- > 0;)
      for (gsize b = view * per_view + (gsize) row * nc, i = b + nc; i-- > b;)
        if (t->xdom[i] == 0 && (proj[i] != 0.0f || weights != NULL))
          t->list[nrays - ++nys] = (guint) i;
  adjoint_scatter (cp, TRUE, t->rays, t->list, nxs, proj, vol, weights);
  adjoint_scatter (cp, FALSE, t->rays, t->list + nrays - nys, nys, proj, vol, weights);
}

void
ctr_cone_projector_adjoint_views_masked (const CtrConeProjector *cp, const float *proj, guint v0, guint n_views,
                                         const guint8 *mask, float *vol, float *weights)
{
  const gsize per_view = (gsize) cp->g->n_rows * cp->g->n_cols;
  g_return_if_fail (v0 + (guint64) n_views <= cp->g->n_views);
  g_autoptr (CtrConeRays) t = ctr_cone_rays_new (cp, n_views);
  if (t != NULL)
    {
      ctr_cone_rays_fill (cp, t, v0, n_views, mask);
      ctr_cone_projector_adjoint_rays (cp, t, proj, vol, weights);
    }
  else if (n_views == 1)
    adjoint_view_untabled (cp, proj, v0, mask, vol, weights);
  else
    for (guint k = 0; k < n_views; k++)
      ctr_cone_projector_adjoint_views_masked (cp, proj + per_view * k, v0 + k, 1,
                                               mask != NULL ? mask + per_view * k : NULL, vol, weights);
}

void
ctr_cone_projector_forward (const CtrConeProjector *cp, const float *vol, float *out)
{
  const gsize per_view = (gsize) cp->g->n_rows * cp->g->n_cols;
  for (guint v = 0; v < cp->g->n_views; v++)
    ctr_cone_projector_forward_view (cp, vol, v, out + per_view * v);
}

void
ctr_cone_projector_adjoint (const CtrConeProjector *cp, const float *proj, float *vol)
{
  const gsize per_view = (gsize) cp->g->n_rows * cp->g->n_cols;
  for (guint v = 0; v < cp->g->n_views; v++)
    ctr_cone_projector_adjoint_view (cp, proj + per_view * v, v, vol, NULL);
}
