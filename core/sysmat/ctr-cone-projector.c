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
 * the loads and stores lane by lane.  Where a ray crosses a face of the
 * grid, one neighbour of a plane's stencil lies outside: the band kernels
 * take those planes too (the index clamped, the outside neighbour's weight
 * 0, the inside ones' weights those of stencil() and corners()), so only a
 * plane of rounding margin at each end of a ray goes plane by plane.  A
 * ray's set-up costs one division (ray_setup) and one for each of its
 * index slopes (ray_planes).
 *
 * In the volume [z][y][x] a y-dominant ray's two transverse neighbours
 * (x, x + 1) are adjacent: one 8-byte access a pair.  An x-dominant ray's
 * (y, y + 1) are a row apart; whole-set passes give those rays the volume
 * with x and y swapped ([z][x][y], the *_xt calls), where they are adjacent
 * too — the layout the CUDA pair uses for the same rays.
 */
#include "sysmat/ctr-cone-projector.h"
#include "sysmat/ctr-cone-kernels.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The ray and stride types and the interior kernels: ctr-cone-kernels.h. */
typedef CtrConeRay Ray;
typedef CtrConeStrides Strides;

struct _CtrConeProjector
{
  CtrGeometry *g;
  CtrGrid grid;
  CtrConeKernels k;   /* interior, band and block kernels (ctr-cone-kernels.h) */
  gboolean vector_ok;  /* voxel indices fit 32 bits: the interior kernels run */
  gboolean band_ok;    /* the band kernels run too (vector_ok, n ≥ 2 on every axis, CTR_CONE_BAND not 0) */
  /* Circular-orbit geometries without vectors: what ctr_cone_ray computes
   * per view (source, sin and cos of the angle, source z) and per column
   * and row (the detector point's offsets along c and e, and v), so a ray
   * costs no trigonometry; NULL otherwise (ctr_cone_ray per ray). */
  double *view_frame;  /* [view][6]: source xyz, sin β, cos β, source z */
  double *col_at;      /* [col][2]: a (along c), t (along e) */
  double *row_v;       /* [row] */
  double origin[3];    /* the centre of voxel (0, 0, 0), mm */
  double inv_voxel[3]; /* 1/dx, 1/dy, 1/dz, 1/mm */
  /* The interior kernels' strides: [0] y-dominant rays, [1] x-dominant rays
   * in the volume, [2] x-dominant rays in the volume with x and y swapped
   * ([z][x][y]: the transverse neighbours adjacent, as for y-dominant). */
  Strides strides[3];
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
 * needs only ratios of its components and its length); returns TRUE.
 * Without the tables, ctr_cone_ray's unit direction and FALSE. */
static inline gboolean
cone_ray (const CtrConeProjector *cp, guint view, guint col, guint row, double o[3], double d[3])
{
  if (cp->view_frame == NULL)
    {
      ctr_cone_ray (cp->g, view, col, row, o, d);
      return FALSE;
    }
  const double *f = cp->view_frame + 6 * (gsize) view, sod = cp->g->sod_mm;
  const double sb = f[3], cb = f[4], a = cp->col_at[2 * col], t = cp->col_at[2 * col + 1];
  const double p[3] = { sod * sb - a * sb + t * cb, -sod * cb + a * cb + t * sb, f[5] + cp->row_v[row] };
  for (guint k = 0; k < 3; k++)
    {
      o[k] = f[k];
      d[k] = p[k] - o[k];
    }
  return TRUE;
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
  const gint64 nx = grid->nx, sxy = (gint64) grid->nx * grid->ny;
  const gint32 bmax = (gint32) grid->nz - 2;
  cp->strides[0] = (Strides) { 1, nx, sxy, (gint32) grid->nx - 2, bmax };
  cp->strides[1] = (Strides) { nx, 1, sxy, (gint32) grid->ny - 2, bmax };
  cp->strides[2] = (Strides) { 1, grid->ny, sxy, (gint32) grid->ny - 2, bmax };
  cp->band_ok = cp->vector_ok && grid->nx >= 2 && grid->ny >= 2 && grid->nz >= 2 &&
                g_strcmp0 (g_getenv ("CTR_CONE_BAND"), "0") != 0;
  _ctr_cone_kernels_pick (&cp->k);
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

/* Narrows [*lo, *hi] to the planes p where c0 + cd·p lies in [bottom, top]
 * (@inv = 1/cd). */
static inline void
narrow_between (double c0, double cd, double inv, double bottom, double top, double *lo, double *hi)
{
  if (top < bottom)
    *hi = *lo - 1.0;
  else if (cd == 0.0)
    {
      if (!(c0 >= bottom && c0 <= top))
        *hi = *lo - 1.0;
    }
  else
    {
      const double t1 = (bottom - c0) * inv, t2 = (top - c0) * inv;
      *lo = MAX (*lo, ceil (MIN (t1, t2)));
      *hi = MIN (*hi, floor (MAX (t1, t2)));
    }
}

/* The margin m of an index c0 + cd·p over @np planes: it covers the float
 * rounding of c0 + cd·p (a few ulps of the largest term) and that of the
 * plane bounds (1/cd rounded, a few ulps of a plane number) many times
 * over. */
static inline double
index_margin (double c0, double cd, double np)
{
  return 1e-3 + 1e-6 * (fabs (c0) + fabs (cd) * np);
}

/* Narrows [*lo, *hi] to the planes p where c0 + cd·p lies in [m, n − 1 − m]:
 * there floor() is in [0, n − 2], so both neighbours lie inside. */
static inline void
narrow_interior (double c0, double cd, double inv, double n, double np, double *lo, double *hi)
{
  const double m = index_margin (c0, cd, np);
  narrow_between (c0, cd, inv, m, n - 1.0 - m, lo, hi);
}

/* Narrows [*lo, *hi] to the planes p where c0 + cd·p lies in [−1 + m,
 * n − m]: there floor() is in [−1, n − 1], the band kernels' range (one
 * neighbour may lie outside). */
static inline void
narrow_band (double c0, double cd, double inv, double n, double np, double *lo, double *hi)
{
  const double m = index_margin (c0, cd, np);
  narrow_between (c0, cd, inv, -1.0 + m, n - m, lo, hi);
}

/* What a ray's set-up needs of its direction's x and y only: the rays of
 * one detector column of a circular orbit share it (every row's ray lies
 * in the same vertical plane through the source), so rays_fill computes it
 * once a column.  The dominant axis, the plane step, the transverse index
 * a0 + ad·plane, and the planes where that index can touch the grid and
 * where it lies in the interior. */
typedef struct {
  gboolean xdom;
  double dxy2;        /* d_x² + d_y² */
  double t0, dt;      /* the ray parameter at plane 0 and its step a plane (units of |d|) */
  float a0, ad;
  gint64 plo, phi;    /* planes the transverse index can touch */
  double qlo, qhi;    /* planes where both its neighbours lie inside (empty: qlo > qhi) */
  double rlo, rhi;    /* planes where one at least does, with room (the band run; empty: rlo > rhi) */
} ColumnPart;

/* The column part of the ray from the source @o along @d (d[2] unused):
 * one division (1/d_x or 1/d_y) and one for the index slope. */
static inline void
column_part (const CtrConeProjector *cp, const double o[3], const double d[3], ColumnPart *c)
{
  const CtrGrid *gr = &cp->grid;
  const double x0 = cp->origin[0], y0 = cp->origin[1];
  const double *inv = cp->inv_voxel;
  c->xdom = fabs (d[0]) >= fabs (d[1]);
  c->dxy2 = d[0] * d[0] + d[1] * d[1];
  gint64 na, np;
  if (c->xdom)
    {
      const double rd = 1.0 / d[0];
      c->t0 = (x0 - o[0]) * rd;
      c->dt = gr->dx * rd;
      c->a0 = (float) ((y0 - o[1] - c->t0 * d[1]) * inv[1]);
      c->ad = (float) (-c->dt * d[1] * inv[1]);
      na = gr->ny;
      np = gr->nx;
    }
  else
    {
      const double rd = 1.0 / d[1];
      c->t0 = (y0 - o[1]) * rd;
      c->dt = -gr->dy * rd;
      c->a0 = (float) ((o[0] + c->t0 * d[0] - x0) * inv[0]);
      c->ad = (float) (c->dt * d[0] * inv[0]);
      na = gr->nx;
      np = gr->ny;
    }
  const double a0 = c->a0, ad = c->ad, ia = ad != 0.0 ? 1.0 / ad : 0.0;
  c->plo = 0;
  c->phi = np - 1;
  clip_planes (a0, ad, ia, (double) na, &c->plo, &c->phi);
  c->qlo = 0.0;
  c->qhi = (double) (np - 1);
  if (!cp->vector_ok)
    c->qhi = c->qlo - 1.0;
  narrow_interior (a0, ad, ia, (double) na, (double) np, &c->qlo, &c->qhi);
  c->rlo = 0.0;
  c->rhi = (double) (np - 1);
  if (!cp->band_ok)
    c->rhi = c->rlo - 1.0;
  narrow_band (a0, ad, ia, (double) na, (double) np, &c->rlo, &c->rhi);
}

/* The ray of column part @c from the source @o along @d as cone_ray gave
 * them (@tabled: its return; d's x and y those of the column): its z
 * index, step length and plane ranges (one division, for the z slope).
 * Returns c->xdom. */
static inline gboolean
row_part (const CtrConeProjector *cp, const ColumnPart *c, const double o[3], const double d[3], gboolean tabled,
          Ray *r)
{
  const CtrGrid *gr = &cp->grid;
  const double oz = o[2], dz = d[2], len = tabled ? sqrt (c->dxy2 + dz * dz) : 1.0;
  const gint64 np = c->xdom ? gr->nx : gr->ny;
  r->a0 = c->a0;
  r->ad = c->ad;
  r->b0 = (float) ((oz + c->t0 * dz - cp->origin[2]) * cp->inv_voxel[2]);
  r->bd = (float) (c->dt * dz * cp->inv_voxel[2]);
  r->w = (float) fabs (c->dt * len);
  const double b0 = r->b0, bd = r->bd, ib = bd != 0.0 ? 1.0 / bd : 0.0;
  gint64 plo = c->plo, phi = c->phi;
  clip_planes (b0, bd, ib, (double) gr->nz, &plo, &phi);
  r->p_lo = (gint32) plo;
  r->p_hi = (gint32) phi;
  double lo = MAX ((double) r->p_lo, c->qlo), hi = MIN ((double) r->p_hi, c->qhi);
  narrow_interior (b0, bd, ib, (double) gr->nz, (double) np, &lo, &hi);
  if (lo > hi)
    {
      r->q_lo = r->p_hi + 1;
      r->q_hi = r->p_hi;
    }
  else
    {
      r->q_lo = (gint32) lo;
      r->q_hi = (gint32) hi;
    }
  /* The band run contains the interior run (its bounds are the interior's
   * widened by one index, with the same margin); without the band kernels
   * it is the interior run. */
  double blo = MAX ((double) r->p_lo, c->rlo), bhi = MIN ((double) r->p_hi, c->rhi);
  narrow_band (b0, bd, ib, (double) gr->nz, (double) np, &blo, &bhi);
  if (blo > bhi)
    {
      r->r_lo = r->q_lo;
      r->r_hi = r->q_hi;
    }
  else if (r->q_lo > r->q_hi)
    {
      r->r_lo = (gint32) blo;
      r->r_hi = (gint32) bhi;
    }
  else
    {
      r->r_lo = MIN ((gint32) blo, r->q_lo);
      r->r_hi = MAX ((gint32) bhi, r->q_hi);
    }
  return c->xdom;
}

/* Parameters of the ray of bin (row, col) of @view; returns TRUE for an
 * x-dominant ray.  With the direction d not normalised (cone_ray) the
 * crossing of plane i is at t = (x_i − S_x)/d_x in units of |d|, so the
 * indices need only d's ratios and the step length is Δx·|d|/|d_x|:
 * one division (1/d_x or 1/d_y) for the ray, one a slope, and the grid's
 * reciprocal voxel sizes.  The plane ranges: each axis's from its index's
 * line, intersected (column_part, then row_part). */
static gboolean
ray_setup (const CtrConeProjector *cp, guint view, guint row, guint col, Ray *r)
{
  double o[3], d[3];
  const gboolean tabled = cone_ray (cp, view, col, row, o, d);
  ColumnPart c;
  column_part (cp, o, d, &c);
  return row_part (cp, &c, o, d, tabled, r);
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
 * case), else the ones that do; voxel (a, k, p) at k·sxy + a·sa + p·sp
 * (@st).  Returns their number.  Shared by the forward gather and the
 * adjoint scatter, so the pair stays matched. */
static inline int
corners (const Strides *st, gint64 p, gint64 ia, gint64 ib, const float wa[2], const float wb[2], gint64 na,
         gint64 nz, gsize at[4], float wt[4])
{
  const gsize sxy = (gsize) st->sxy, sa = (gsize) st->sa, plane = (gsize) p * (gsize) st->sp;
  if (ia >= 0 && ia + 1 < na && ib >= 0 && ib + 1 < nz)
    {
      const gsize base = (gsize) ib * sxy + (gsize) ia * sa + plane;
      at[0] = base;
      at[1] = base + sa;
      at[2] = base + sxy;
      at[3] = base + sxy + sa;
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
          at[n] = (gsize) k * sxy + (gsize) a * sa + plane;
          wt[n++] = wa[da] * wb[db];
        }
    }
  return n;
}


/* The runs of planes [p0, p1] of ray @r that the kernels take: the band
 * run [*t0, *t1] (empty: *t0 > *t1) and the interior run [*i0, *i1]
 * inside it (empty: *i0 > *i1).  The planes of [p0, p1] outside the band
 * run go plane by plane through stencil() and corners(). */
static inline void
kernel_runs (const Ray *r, gint32 p0, gint32 p1, gint32 *t0, gint32 *t1, gint32 *i0, gint32 *i1)
{
  *t0 = MAX (p0, r->r_lo);
  *t1 = MIN (p1, r->r_hi);
  *i0 = MAX (p0, r->q_lo);
  *i1 = MIN (p1, r->q_hi);
}

/* Σ over planes [p0, p1] of the bilinear samples (without the step
 * length): the band and interior runs by the kernels, the planes outside
 * them by stencil() and corners(). */
static double
ray_sum (const CtrConeProjector *cp, const Ray *r, gboolean xdom, gint32 p0, gint32 p1, const float *vol,
         const Strides *st)
{
  const CtrGrid *gr = &cp->grid;
  const gint64 nz = gr->nz, na = xdom ? gr->ny : gr->nx;
  gint32 t0, t1, i0, i1;
  kernel_runs (r, p0, p1, &t0, &t1, &i0, &i1);
  double acc = 0.0;
  for (gint32 p = p0; p <= p1; p++)
    {
      if (p == t0 && t0 <= t1)
        {
          if (i0 > i1)
            acc += cp->k.band_forward (r, t0, t1, vol, st);
          else
            {
              if (t0 < i0)
                acc += cp->k.band_forward (r, t0, i0 - 1, vol, st);
              acc += cp->k.interior_forward (r, i0, i1, vol, st);
              if (i1 < t1)
                acc += cp->k.band_forward (r, i1 + 1, t1, vol, st);
            }
          p = t1;
          continue;
        }
      gint64 ia, ib;
      float wa[2], wb[2];
      if (!stencil (r, (guint) p, na, nz, &ia, &ib, wa, wb))
        continue;
      gsize at[4];
      float wt[4];
      const int n = corners (st, p, ia, ib, wa, wb, na, nz, at, wt);
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
            float *weights, const Strides *st)
{
  const CtrGrid *gr = &cp->grid;
  const gint64 nz = gr->nz, na = xdom ? gr->ny : gr->nx;
  gint32 t0, t1, i0, i1;
  kernel_runs (r, p0, p1, &t0, &t1, &i0, &i1);
  for (gint32 p = p0; p <= p1; p++)
    {
      if (p == t0 && t0 <= t1)
        {
          if (i0 > i1)
            cp->k.band_adjoint (r, t0, t1, val, vol, weights, st);
          else
            {
              if (t0 < i0)
                cp->k.band_adjoint (r, t0, i0 - 1, val, vol, weights, st);
              cp->k.interior_adjoint (r, i0, i1, val, vol, weights, st);
              if (i1 < t1)
                cp->k.band_adjoint (r, i1 + 1, t1, val, vol, weights, st);
            }
          p = t1;
          continue;
        }
      gint64 ia, ib;
      float wa[2], wb[2];
      if (!stencil (r, (guint) p, na, nz, &ia, &ib, wa, wb))
        continue;
      gsize at[4];
      float wt[4];
      const int n = corners (st, p, ia, ib, wa, wb, na, nz, at, wt);
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
  ctr_cone_projector_forward_views_xt (cp, vol, NULL, v0, n_views, mask, out);
}

void
ctr_cone_projector_forward_views_xt (const CtrConeProjector *cp, const float *vol, const float *vol_xt, guint v0,
                                     guint n_views, const guint8 *mask, float *out)
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
          const gboolean swapped = xdom && vol_xt != NULL;
          out[i] = (float) (r.w * ray_sum (cp, &r, xdom, r.p_lo, r.p_hi, swapped ? vol_xt : vol,
                                           &cp->strides[swapped ? 2 : xdom != 0]));
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
 * 16.  (16 rather than 32 on 2 threads: W5's SIRT 0.94× the CPU-s, the
 * block's planes staying in cache; 8 was no better.)  A voxel's sum runs
 * over the rays in list order whatever the block, so the image does not
 * depend on it (nor on the threads). */
static gint64
plane_block (gint64 np)
{
  gint64 threads = 1;
#ifdef _OPENMP
  threads = MAX (1, omp_get_max_threads ());
#endif
  return CLAMP (np / (4 * threads), PLANE_BLOCK, 16);
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
                ray_spread (cp, &r, xd, p0, p1, proj[i], vol, weights, &cp->strides[xd != 0]);
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

/* What the block kernel's edge planes need: ray_spread's arguments. */
typedef struct {
  const CtrConeProjector *cp;
  gboolean xd;
  float *vol, *weights;
  const Strides *st;
} EdgeSpread;

static void
edge_spread (gconstpointer ctx, const Ray *r, gint32 p0, gint32 p1, float val)
{
  const EdgeSpread *e = ctx;
  ray_spread (e->cp, r, e->xd, p0, p1, val, e->vol, e->weights, e->st);
}

/* Scatters the tabled rays @list[0..n) (indices into @rays and @proj) of
 * one dominant axis into @vol laid out as @st, every thread owning whole
 * blocks of planes (one block kernel call a block). */
static void
adjoint_scatter (const CtrConeProjector *cp, gboolean xd, const Ray *rays, const guint *list, gsize n,
                 const float *proj, float *vol, float *weights, const Strides *st)
{
  const gint64 np = xd ? cp->grid.nx : cp->grid.ny;
  if (n == 0)
    return;
  const gint64 pb = plane_block (np);
  const EdgeSpread e = { cp, xd, vol, weights, st };
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 b0 = 0; b0 < np; b0 += pb)
    {
      const gint32 b1 = (gint32) MIN (b0 + pb, np) - 1;
      cp->k.block_adjoint (rays, list, n, proj, (gint32) b0, b1, vol, weights, st, edge_spread, &e);
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
  const guint nr = cp->g->n_rows;
  /* Column by column: with the tables, a column's rows share its x-y part
   * (ray_setup's arithmetic, the same rays bit for bit). */
#pragma omp parallel for schedule(static)
  for (gint64 vc = 0; vc < (gint64) n_views * nc; vc++)
    {
      const guint k = (guint) (vc / nc), col = (guint) (vc % nc), view = v0 + k;
      const gboolean tabled = cp->view_frame != NULL;
      double o[3], d[3];
      ColumnPart c = { 0 }; /* set below where tabled */
      if (tabled)
        {
          cone_ray (cp, view, col, 0, o, d);
          column_part (cp, o, d, &c);
        }
      for (guint row = 0; row < nr; row++)
        {
          const gsize i = ((gsize) k * nr + row) * nc + col;
          if (mask != NULL && mask[i] == 0)
            t->xdom[i] = -1;
          else if (!tabled)
            t->xdom[i] = ray_setup (cp, view, row, col, &t->rays[i]);
          else
            {
              cone_ray (cp, view, col, row, o, d);
              t->xdom[i] = row_part (cp, &c, o, d, TRUE, &t->rays[i]);
            }
        }
    }
}

void
ctr_cone_projector_forward_rays (const CtrConeProjector *cp, const CtrConeRays *t, const float *vol, float *out)
{
  ctr_cone_projector_forward_rays_xt (cp, t, vol, NULL, out);
}

void
ctr_cone_projector_forward_rays_xt (const CtrConeProjector *cp, const CtrConeRays *t, const float *vol,
                                    const float *vol_xt, float *out)
{
  const Strides *sx = &cp->strides[vol_xt != NULL ? 2 : 1];
  const float *vx = vol_xt != NULL ? vol_xt : vol;
  const guint nc = cp->g->n_cols;
  const gint64 nrows = (gint64) t->n_views * cp->g->n_rows;
  /* Row by row, as ctr_cone_projector_forward_views_masked. */
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 rv = 0; rv < nrows; rv++)
    for (gsize i = ((rv % t->n_views) * cp->g->n_rows + (gsize) (rv / t->n_views)) * nc, e = i + nc; i < e; i++)
      {
        const Ray *r = &t->rays[i];
        if (t->xdom[i] < 0)
          out[i] = 0.0f;
        else if (t->xdom[i] > 0)
          out[i] = (float) (r->w * ray_sum (cp, r, TRUE, r->p_lo, r->p_hi, vx, sx));
        else
          out[i] = (float) (r->w * ray_sum (cp, r, FALSE, r->p_lo, r->p_hi, vol, &cp->strides[0]));
      }
}

void
ctr_cone_projector_adjoint_rays (const CtrConeProjector *cp, CtrConeRays *t, const float *proj, float *vol,
                                 float *weights)
{
  ctr_cone_projector_adjoint_rays_xt (cp, t, proj, vol, NULL, weights);
}

void
ctr_cone_projector_adjoint_rays_xt (const CtrConeProjector *cp, CtrConeRays *t, const float *proj, float *vol,
                                    float *vol_xt, float *weights)
{
  g_return_if_fail (vol_xt == NULL || weights == NULL);
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
  adjoint_scatter (cp, TRUE, t->rays, t->list, nxs, proj, vol_xt != NULL ? vol_xt : vol, weights,
                   &cp->strides[vol_xt != NULL ? 2 : 1]);
  adjoint_scatter (cp, FALSE, t->rays, t->list + nrays - nys, nys, proj, vol, weights, &cp->strides[0]);
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

/* Blocks of 32 × 32 voxels, so both sides of the copy stay in cache lines. */
#define SWAP_TILE 32

void
ctr_cone_volume_swap_xy (const CtrGrid *grid, const float *vol, float *vol_xt)
{
  const gsize nx = grid->nx, ny = grid->ny, sxy = nx * ny;
#pragma omp parallel for schedule(static)
  for (gint64 k = 0; k < (gint64) grid->nz; k++)
    for (gsize j0 = 0; j0 < ny; j0 += SWAP_TILE)
      for (gsize i0 = 0; i0 < nx; i0 += SWAP_TILE)
        for (gsize i = i0; i < MIN (i0 + SWAP_TILE, nx); i++)
          for (gsize j = j0; j < MIN (j0 + SWAP_TILE, ny); j++)
            vol_xt[k * sxy + i * ny + j] = vol[k * sxy + j * nx + i];
}

void
ctr_cone_volume_add_swapped_xy (const CtrGrid *grid, float *vol_xt, float *vol)
{
  const gsize nx = grid->nx, ny = grid->ny, sxy = nx * ny;
#pragma omp parallel for schedule(static)
  for (gint64 k = 0; k < (gint64) grid->nz; k++)
    for (gsize j0 = 0; j0 < ny; j0 += SWAP_TILE)
      for (gsize i0 = 0; i0 < nx; i0 += SWAP_TILE)
        for (gsize j = j0; j < MIN (j0 + SWAP_TILE, ny); j++)
          for (gsize i = i0; i < MIN (i0 + SWAP_TILE, nx); i++)
            {
              float *q = vol_xt + k * sxy + i * ny + j;
              vol[k * sxy + j * nx + i] += *q;
              *q = 0.0f;
            }
}
