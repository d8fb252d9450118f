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
 */
#include "sysmat/ctr-cone-projector.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  float a0, ad;   /* transverse in-plane index (j for x-dominant, i for y) = a0 + ad·plane */
  float b0, bd;   /* z index = b0 + bd·plane */
  float w;        /* step length per plane, mm */
  gint32 p_lo, p_hi;  /* planes that can touch the grid (both ends included) */
} Ray;

struct _CtrConeProjector
{
  CtrGeometry *g;
  CtrGrid grid;
};

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
  CtrConeProjector *cp = g_new0 (CtrConeProjector, 1);
  cp->g = ctr_geometry_copy (g);
  cp->grid = *grid;
  return cp;
}

void
ctr_cone_projector_free (CtrConeProjector *cp)
{
  if (cp == NULL)
    return;
  ctr_geometry_free (cp->g);
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
 * one plane of margin (the exact test is stencil()'s). */
static void
clip_planes (double c0, double cd, double n, gint64 *lo, gint64 *hi)
{
  if (cd == 0.0)
    {
      if (!(c0 > -1.0 && c0 < n))
        *hi = *lo - 1;
      return;
    }
  double t1 = (-1.0 - c0) / cd, t2 = (n - c0) / cd;
  double a = floor (MIN (t1, t2)) - 1.0, b = ceil (MAX (t1, t2)) + 1.0;
  if (a > *lo)
    *lo = a > (double) *hi ? *hi + 1 : (gint64) a;
  if (b < *hi)
    *hi = b < (double) *lo ? *lo - 1 : (gint64) b;
}

/* Parameters of the ray of bin (row, col) of @view; returns TRUE for an
 * x-dominant ray. */
static gboolean
ray_setup (const CtrConeProjector *cp, guint view, guint row, guint col, Ray *r)
{
  const CtrGrid *gr = &cp->grid;
  double o[3], d[3];
  ctr_cone_ray (cp->g, view, col, row, o, d);
  const double x0 = ctr_grid_x (gr, 0), y0 = ctr_grid_y (gr, 0), z0 = ctr_grid_z (gr, 0);
  if (fabs (d[0]) >= fabs (d[1]))
    {
      double t0 = (x0 - o[0]) / d[0], dt = gr->dx / d[0];
      r->a0 = (float) ((y0 - o[1] - t0 * d[1]) / gr->dy);
      r->ad = (float) (-dt * d[1] / gr->dy);
      r->b0 = (float) ((o[2] + t0 * d[2] - z0) / gr->dz);
      r->bd = (float) (dt * d[2] / gr->dz);
      r->w = (float) fabs (dt);
      gint64 lo = 0, hi = (gint64) gr->nx - 1;
      clip_planes (r->a0, r->ad, gr->ny, &lo, &hi);
      clip_planes (r->b0, r->bd, gr->nz, &lo, &hi);
      r->p_lo = (gint32) lo;
      r->p_hi = (gint32) hi;
      return TRUE;
    }
  double t0 = (y0 - o[1]) / d[1], dt = -gr->dy / d[1];
  r->a0 = (float) ((o[0] + t0 * d[0] - x0) / gr->dx);
  r->ad = (float) (dt * d[0] / gr->dx);
  r->b0 = (float) ((o[2] + t0 * d[2] - z0) / gr->dz);
  r->bd = (float) (dt * d[2] / gr->dz);
  r->w = (float) fabs (dt);
  gint64 lo = 0, hi = (gint64) gr->ny - 1;
  clip_planes (r->a0, r->ad, gr->nx, &lo, &hi);
  clip_planes (r->b0, r->bd, gr->nz, &lo, &hi);
  r->p_lo = (gint32) lo;
  r->p_hi = (gint32) hi;
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
  const CtrGrid *gr = &cp->grid;
  const guint nr = cp->g->n_rows, nc = cp->g->n_cols;
  const gint64 nx = gr->nx, ny = gr->ny, nz = gr->nz;
  const gsize sxy = (gsize) nx * ny;

#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 row = 0; row < (gint64) nr; row++)
    for (guint col = 0; col < nc; col++)
      {
        const gsize i = (gsize) row * nc + col;
        if (mask != NULL && mask[i] == 0)
          {
            out[i] = 0.0f;
            continue;
          }
        Ray r;
        gboolean xdom = ray_setup (cp, view, (guint) row, col, &r);
        const gint64 na = xdom ? ny : nx;
        double acc = 0.0;
        for (gint64 p = r.p_lo; p <= r.p_hi; p++)
          {
            gint64 ia, ib;
            float wa[2], wb[2];
            if (!stencil (&r, (guint) p, na, nz, &ia, &ib, wa, wb))
              continue;
            gsize at[4];
            float wt[4];
            const int n = corners (xdom, p, ia, ib, wa, wb, na, nx, nz, sxy, at, wt);
            float s = 0.0f;
            for (int c = 0; c < n; c++)
              s += wt[c] * vol[at[c]];
            acc += r.w * s;
          }
        out[i] = (float) acc;
      }
}

void
ctr_cone_projector_adjoint_view (const CtrConeProjector *cp, const float *proj, guint view,
                                 float *vol, float *weights)
{
  ctr_cone_projector_adjoint_view_masked (cp, proj, view, NULL, vol, weights);
}

void
ctr_cone_projector_adjoint_view_masked (const CtrConeProjector *cp, const float *proj, guint view,
                                        const guint8 *mask, float *vol, float *weights)
{
  const CtrGrid *gr = &cp->grid;
  const guint nr = cp->g->n_rows, nc = cp->g->n_cols;
  const gint64 nx = gr->nx, ny = gr->ny, nz = gr->nz;
  const gsize sxy = (gsize) nx * ny;
  const gsize nrays = (gsize) nr * nc;

  /* Split the view's rays by dominant axis (same parameters as forward). */
  g_autofree Ray *rays = g_new (Ray, nrays);
  g_autofree guint *xs = g_new (guint, nrays);
  g_autofree guint *ys = g_new (guint, nrays);
  g_autofree gint8 *xdom = g_new (gint8, nrays);
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) nrays; i++)
    {
      if ((proj[i] == 0.0f && weights == NULL) || (mask != NULL && mask[i] == 0))
        xdom[i] = -1;  /* contributes nothing */
      else
        xdom[i] = ray_setup (cp, view, (guint) (i / nc), (guint) (i % nc), &rays[i]);
    }
  gsize nxs = 0, nys = 0;
  for (gsize i = 0; i < nrays; i++)
    {
      if (xdom[i] < 0)
        continue;
      if (xdom[i])
        xs[nxs++] = (guint) i;
      else
        ys[nys++] = (guint) i;
    }

  for (int pass = 0; pass < 2; pass++)
    {
      const gboolean xd = pass == 0;
      const guint *list = xd ? xs : ys;
      const gsize n = xd ? nxs : nys;
      const gint64 np = xd ? nx : ny, na = xd ? ny : nx;
      if (n == 0)
        continue;
      /* Every thread owns whole planes p: race-free scatter. */
#pragma omp parallel for schedule(dynamic, 1)
      for (gint64 p = 0; p < np; p++)
        for (gsize m = 0; m < n; m++)
          {
            const Ray *r = &rays[list[m]];
            if (p < r->p_lo || p > r->p_hi)
              continue;
            gint64 ia, ib;
            float wa[2], wb[2];
            if (!stencil (r, (guint) p, na, nz, &ia, &ib, wa, wb))
              continue;
            const float val = proj[list[m]];
            gsize at[4];
            float wt[4];
            const int nc4 = corners (xd, p, ia, ib, wa, wb, na, nx, nz, sxy, at, wt);
            for (int c = 0; c < nc4; c++)
              {
                const float w = r->w * wt[c];
                vol[at[c]] += w * val;
                if (weights != NULL)
                  weights[at[c]] += w;
              }
          }
    }
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
