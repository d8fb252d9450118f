/* ctr-ray.c — the weights of one ray through a pixel grid: one row of the
 * system matrix, under three models.
 *
 *   Joseph, P. M. (1982). An improved algorithm for reprojecting rays through
 *     pixel images. IEEE TMI 1(3), 192-196.
 *   Siddon, R. L. (1985). Fast calculation of the exact radiological path for a
 *     three-dimensional CT array. Med. Phys. 12(2), 252-255 (traversal after
 *     Amanatides & Woo 1987).
 *   Area-integral model: Yu et al. (2018), cuART, §2.1 and Fig. 2
 *     (../shared/papers/cuart-scsr-2018.txt); the strip between the rays
 *     through the two edges of the detector bin, clipped against each pixel.
 */
#include "sysmat/ctr-ray-private.h"
#include "base/ctr-error.h"

#include <math.h>

gboolean
ctr_ray_check_inputs (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, GError **error)
{
  if (!ctr_geometry_validate (g, error))
    return FALSE;
  if (g->beam == CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the slice system matrix is for fan and parallel beam; cone beam needs FDK or a 3-D projector");
      return FALSE;
    }
  CtrGrid one = *grid;
  one.nz = 1;
  if (!ctr_grid_validate (&one, error))
    return FALSE;
  if (model != CTR_RAY_MODEL_JOSEPH && model != CTR_RAY_MODEL_SIDDON && model != CTR_RAY_MODEL_AREA)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "unknown ray model %d", (int) model);
      return FALSE;
    }
  if ((guint64) grid->nx * grid->ny >= G_MAXUINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "image of %u × %u pixels is too large",
                   grid->nx, grid->ny);
      return FALSE;
    }
  return TRUE;
}

void
ctr_ray_grid_init (CtrRayGrid *gi, const CtrGrid *grid)
{
  gi->nx = grid->nx;
  gi->ny = grid->ny;
  gi->dx = grid->dx;
  gi->dy = grid->dy;
  gi->cx = grid->cx;
  gi->cy = grid->cy;
  gi->xmin = grid->cx - grid->nx * grid->dx * 0.5;
  gi->xmax = grid->cx + grid->nx * grid->dx * 0.5;
  gi->ymin = grid->cy - grid->ny * grid->dy * 0.5;
  gi->ymax = grid->cy + grid->ny * grid->dy * 0.5;
}


/* Joseph: iterate over the major axis of the ray, interpolate linearly in the
 * minor axis; weight = step length along the ray × interpolation weight. */
static void
ray_joseph (const CtrRayGrid *gi, const double o[2], const double d[2], gboolean half_line, CtrRowBuf *b)
{
  const gboolean x_major = fabs (d[0]) >= fabs (d[1]);
  const guint n_major = x_major ? gi->nx : gi->ny;
  const guint n_minor = x_major ? gi->ny : gi->nx;
  const double step = x_major ? gi->dx / fabs (d[0]) : gi->dy / fabs (d[1]);

  for (guint k = 0; k < n_major; k++)
    {
      double t, fm;  /* ray parameter at the pixel-centre line; continuous minor index */
      if (x_major)
        {
          double xc = gi->cx + (k - (gi->nx - 1) * 0.5) * gi->dx;
          t = (xc - o[0]) / d[0];
          double y = o[1] + t * d[1];
          fm = (gi->ny - 1) * 0.5 - (y - gi->cy) / gi->dy;     /* row index */
        }
      else
        {
          double yc = gi->cy + ((gi->ny - 1) * 0.5 - k) * gi->dy;
          t = (yc - o[1]) / d[1];
          double x = o[0] + t * d[0];
          fm = (x - gi->cx) / gi->dx + (gi->nx - 1) * 0.5;     /* column index */
        }
      if (half_line && t <= 0)
        continue;
      if (fm <= -1.0 || fm >= (double) n_minor)
        continue;
      double f0 = floor (fm);
      double w1 = fm - f0;
      long m0 = (long) f0;
      for (int q = 0; q <= 1; q++)
        {
          long m = m0 + q;
          double w = q ? w1 : 1.0 - w1;
          if (m < 0 || m >= (long) n_minor || w <= 0.0)
            continue;
          guint32 pix = x_major ? (guint32) (m * gi->nx + k) : (guint32) (k * gi->nx + m);
          ctr_rowbuf_push (b, pix, (float) (w * step));
        }
    }
}

/* Siddon: exact intersection lengths, cell walk after Amanatides & Woo. */
static void
ray_siddon (const CtrRayGrid *gi, const double o[2], const double d[2], gboolean half_line, CtrRowBuf *b)
{
  double t0 = half_line ? 0.0 : -G_MAXDOUBLE, t1 = G_MAXDOUBLE;
  const double lo[2] = { gi->xmin, gi->ymin }, hi[2] = { gi->xmax, gi->ymax };
  for (int a = 0; a < 2; a++)
    {
      if (fabs (d[a]) < 1e-15)
        {
          if (o[a] <= lo[a] || o[a] >= hi[a])
            return;
          continue;
        }
      double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
      t0 = MAX (t0, MIN (ta, tb));
      t1 = MIN (t1, MAX (ta, tb));
    }
  if (!(t1 > t0))
    return;

  /* Cell of the entry point (nudged inside). */
  double tm = t0 + 1e-9 * (t1 - t0);
  double px = o[0] + tm * d[0], py = o[1] + tm * d[1];
  long ix = (long) floor ((px - gi->xmin) / gi->dx);
  long iyb = (long) floor ((py - gi->ymin) / gi->dy);   /* row counted from the bottom */
  ix = CLAMP (ix, 0, (long) gi->nx - 1);
  iyb = CLAMP (iyb, 0, (long) gi->ny - 1);
  const int sx = d[0] > 0 ? 1 : -1, sy = d[1] > 0 ? 1 : -1;
  const double tdx = fabs (d[0]) > 1e-15 ? gi->dx / fabs (d[0]) : G_MAXDOUBLE;
  const double tdy = fabs (d[1]) > 1e-15 ? gi->dy / fabs (d[1]) : G_MAXDOUBLE;
  double tnx = fabs (d[0]) > 1e-15 ? (gi->xmin + (ix + (sx > 0)) * gi->dx - o[0]) / d[0] : G_MAXDOUBLE;
  double tny = fabs (d[1]) > 1e-15 ? (gi->ymin + (iyb + (sy > 0)) * gi->dy - o[1]) / d[1] : G_MAXDOUBLE;
  double t = t0;
  while (t < t1 && ix >= 0 && ix < (long) gi->nx && iyb >= 0 && iyb < (long) gi->ny)
    {
      double tn = MIN (MIN (tnx, tny), t1);
      double len = tn - t;
      if (len > 0)
        ctr_rowbuf_push (b, (guint32) ((gi->ny - 1 - iyb) * gi->nx + ix), (float) len);
      t = tn;
      if (tnx <= tny)
        {
          ix += sx;
          tnx += tdx;
        }
      else
        {
          iyb += sy;
          tny += tdy;
        }
    }
}

/* ------------------------------------------------------------ area model -- */

typedef struct {
  double x[10], y[10];
  int n;
} Poly;

/* Keeps the part of @p where nx·(x - ox) + ny·(y - oy) >= 0 (Sutherland-Hodgman
 * for one half-plane; a convex polygon stays convex). */
static void
clip_half_plane (const Poly *p, double nx, double ny, double ox, double oy, Poly *out)
{
  out->n = 0;
  for (int i = 0; i < p->n; i++)
    {
      int j = (i + 1) % p->n;
      double si = nx * (p->x[i] - ox) + ny * (p->y[i] - oy);
      double sj = nx * (p->x[j] - ox) + ny * (p->y[j] - oy);
      if (si >= 0)
        {
          out->x[out->n] = p->x[i];
          out->y[out->n] = p->y[i];
          out->n++;
        }
      if ((si >= 0) != (sj >= 0))
        {
          double t = si / (si - sj);
          out->x[out->n] = p->x[i] + t * (p->x[j] - p->x[i]);
          out->y[out->n] = p->y[i] + t * (p->y[j] - p->y[i]);
          out->n++;
        }
    }
}

static double
poly_area (const Poly *p)
{
  double a = 0;
  for (int i = 0; i < p->n; i++)
    {
      int j = (i + 1) % p->n;
      a += p->x[i] * p->y[j] - p->x[j] * p->y[i];
    }
  return fabs (a) * 0.5;
}

typedef struct {
  double n[2][2], o[2][2];   /* inward normals and points of the two edge lines */
  double s[2], dm[2];        /* origin and unit direction of the central ray */
  gboolean fan;
  double width0, width_per_mm;  /* strip width at distance t: width0 + t·width_per_mm */
} Strip;

static void
strip_clip_rect (const Strip *st, double x0, double x1, double y0, double y1, Poly *out)
{
  Poly a = { { x0, x1, x1, x0 }, { y0, y0, y1, y1 }, 4 }, b;
  clip_half_plane (&a, st->n[0][0], st->n[0][1], st->o[0][0], st->o[0][1], &b);
  clip_half_plane (&b, st->n[1][0], st->n[1][1], st->o[1][0], st->o[1][1], out);
}

/* Weight of pixel (ix, row) = area of strip ∩ pixel / strip width at the pixel
 * centre (xc, yc), so that a uniform object of attenuation μ gives A·x =
 * μ·chord: the weights are in mm like the line models' (cuART's w = S/δ² up
 * to the constant factor δ²/width, which keeps the data in line-integral
 * units).  Pushed unless it is a sliver from rounding at shared edges
 * (relative 1e-6 of a pixel side). */
static inline void
push_area_weight (const Strip *st, const CtrRayGrid *gi, long ix, long row, double xc, double yc, double area,
                  CtrRowBuf *b)
{
  const double t = (xc - st->s[0]) * st->dm[0] + (yc - st->s[1]) * st->dm[1];
  const double width = st->width0 + (st->fan ? t * st->width_per_mm : 0.0);
  if (width <= 0)
    return;
  const double w = area / width;
  if (w > 1e-6 * MIN (gi->dx, gi->dy))
    ctr_rowbuf_push (b, (guint32) (row * gi->nx + ix), (float) w);
}

/* The area by clipping the pixel's square against the strip. */
static void
area_pixel (const Strip *st, const CtrRayGrid *gi, long ix, long row, CtrRowBuf *b)
{
  double x0 = gi->xmin + ix * gi->dx, y1 = gi->ymax - row * gi->dy;
  Poly p;
  strip_clip_rect (st, x0, x0 + gi->dx, y1 - gi->dy, y1, &p);
  if (p.n < 3)
    return;
  push_area_weight (st, gi, ix, row, x0 + 0.5 * gi->dx, y1 - 0.5 * gi->dy, poly_area (&p), b);
}

/* The closed form (ctr-ray-area.h) of a strip, with each edge line as
 * minor = icpt − slope·major for the slab walk. */
typedef struct {
  CtrAreaRay ray;
  double slope[2], icpt[2];
  double full, hx, hy, min_side;
} ClosedStrip;

/* Prepares the closed form of @st's strip; FALSE when it does not apply: a
 * pixel of the grid behind the source, or an edge line along the slabs (a
 * bin wider than 45°), which strip_slab_range could not solve for the minor
 * coordinate.  Both are left to clipping. */
static gboolean
closed_strip_init (const Strip *st, const CtrRayGrid *gi, gboolean x_major, ClosedStrip *cs)
{
  if (st->fan)
    {
      const double xs[2] = { gi->xmin, gi->xmax }, ys[2] = { gi->ymin, gi->ymax };
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
          if ((xs[i] - st->s[0]) * st->dm[0] + (ys[j] - st->s[1]) * st->dm[1] <= 0)
            return FALSE;
    }
  cs->hx = 0.5 * gi->dx;
  cs->hy = 0.5 * gi->dy;
  cs->full = gi->dx * gi->dy;
  cs->min_side = MIN (gi->dx, gi->dy);
  CtrAreaRay *r = &cs->ray;
  for (int i = 0; i < 2; i++)
    {
      CtrAreaEdge *e = &r->e[i];
      e->nx = st->n[i][0];
      e->ny = st->n[i][1];
      const double na = x_major ? e->nx : e->ny, nb = x_major ? e->ny : e->nx;
      if (fabs (nb) < 1e-9)
        return FALSE;
      e->k = e->nx * st->o[i][0] + e->ny * st->o[i][1];
      const double oa = x_major ? st->o[i][0] : st->o[i][1], ob = x_major ? st->o[i][1] : st->o[i][0];
      cs->slope[i] = na / nb;
      cs->icpt[i] = ob + cs->slope[i] * oa;
      e->a = fabs (e->nx) * cs->hx;
      e->b = fabs (e->ny) * cs->hy;
      if (e->a < e->b)
        {
          const double t = e->a;
          e->a = e->b;
          e->b = t;
        }
      e->inv_8ab = e->b > 0 ? 1.0 / (8.0 * e->a * e->b) : 0.0;
      e->inv_2a = 1.0 / (2.0 * e->a);
    }
  r->s[0] = st->s[0];
  r->s[1] = st->s[1];
  r->dm[0] = st->dm[0];
  r->dm[1] = st->dm[1];
  r->width0 = st->width0;
  r->width_per_mm = st->fan ? st->width_per_mm : 0.0;
  return TRUE;
}

/* The pixels of slab @k (a column of pixels when x-major, else a row) that
 * the strip covers: between the lines the strip is convex in the slab, so
 * its extent is that of where the edge lines cross the slab's two sides.
 * FALSE when it misses the grid there. */
static inline gboolean
closed_slab_range (const ClosedStrip *cs, const CtrRayGrid *gi, gboolean x_major, long k, long *lo_i, long *hi_i)
{
  const double a0 = x_major ? gi->xmin + k * gi->dx : gi->ymax - (k + 1) * gi->dy;
  const double a1 = x_major ? a0 + gi->dx : a0 + gi->dy;
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  for (int i = 0; i < 2; i++)
    {
      const double v0 = cs->icpt[i] - cs->slope[i] * a0, v1 = cs->icpt[i] - cs->slope[i] * a1;
      lo = MIN (lo, MIN (v0, v1));
      hi = MAX (hi, MAX (v0, v1));
    }
  if (x_major)
    {
      if (hi <= gi->ymin || lo >= gi->ymax)
        return FALSE;
      *lo_i = MAX ((long) floor ((gi->ymax - hi) / gi->dy), 0);
      *hi_i = MIN ((long) floor ((gi->ymax - lo) / gi->dy), (long) gi->ny - 1);
    }
  else
    {
      if (hi <= gi->xmin || lo >= gi->xmax)
        return FALSE;
      *lo_i = MAX ((long) floor ((lo - gi->xmin) / gi->dx), 0);
      *hi_i = MIN ((long) floor ((hi - gi->xmin) / gi->dx), (long) gi->nx - 1);
    }
  return TRUE;
}

/* area_pixel by the closed form. */
static inline void
closed_pixel (const ClosedStrip *cs, const CtrRayGrid *gi, long ix, long row, CtrRowBuf *b)
{
  const double xc = gi->xmin + ix * gi->dx + cs->hx, yc = gi->ymax - row * gi->dy - cs->hy;
  const float w = ctr_area_ray_weight (&cs->ray, cs->full, cs->min_side, xc, yc);
  if (w != 0.f)
    ctr_rowbuf_push (b, (guint32) (row * gi->nx + ix), w);
}

/* The strip of ray (@view, @col): the rays through the bin's two edges and
 * its centre. */
static void
strip_init (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, Strip *out)
{
  double oe[2][2], de[2][2], om[2], dm[2];
  ctr_geometry_ray (g, view, col - 0.5, oe[0], de[0]);
  ctr_geometry_ray (g, view, col + 0.5, oe[1], de[1]);
  ctr_geometry_ray (g, view, col, om, dm);
  Strip st;
  st.fan = g->beam != CTR_BEAM_PARALLEL;
  double len = hypot (dm[0], dm[1]);
  st.dm[0] = dm[0] / len;
  st.dm[1] = dm[1] / len;
  st.s[0] = om[0];
  st.s[1] = om[1];
  /* A point strictly inside the strip: the central ray nearest the grid centre. */
  double t_in = (gi->cx - om[0]) * st.dm[0] + (gi->cy - om[1]) * st.dm[1];
  double pin[2] = { om[0] + t_in * st.dm[0], om[1] + t_in * st.dm[1] };
  double tan_sum = 0;
  for (int e = 0; e < 2; e++)
    {
      double l = hypot (de[e][0], de[e][1]);
      double ux = de[e][0] / l, uy = de[e][1] / l;
      double nx = -uy, ny = ux;
      if (nx * (pin[0] - oe[e][0]) + ny * (pin[1] - oe[e][1]) < 0)
        {
          nx = -nx;
          ny = -ny;
        }
      st.n[e][0] = nx;
      st.n[e][1] = ny;
      st.o[e][0] = oe[e][0];
      st.o[e][1] = oe[e][1];
      tan_sum += fabs (ux * st.dm[1] - uy * st.dm[0]) / fabs (ux * st.dm[0] + uy * st.dm[1]);
    }
  if (st.fan)
    {
      st.width0 = 0;
      st.width_per_mm = tan_sum;
    }
  else
    {
      st.width0 = fabs ((oe[1][0] - oe[0][0]) * st.dm[1] - (oe[1][1] - oe[0][1]) * st.dm[0]);
      st.width_per_mm = 0;
    }
  *out = st;
}

gboolean
ctr_area_ray_init (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, CtrAreaRay *out)
{
  return ctr_area_ray_init_walk (g, gi, view, col, out, NULL, NULL);
}

gboolean
ctr_area_ray_init_walk (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, CtrAreaRay *out,
                        double slope[2], double icpt[2])
{
  Strip st;
  strip_init (g, gi, view, col, &st);
  ClosedStrip cs;
  if (!closed_strip_init (&st, gi, fabs (st.dm[0]) >= fabs (st.dm[1]), &cs))
    return FALSE;
  *out = cs.ray;
  for (int i = 0; slope != NULL && i < 2; i++)
    {
      slope[i] = cs.slope[i];
      icpt[i] = cs.icpt[i];
    }
  return TRUE;
}

gboolean
ctr_area_use_avx2 (void)
{
#ifdef CTR_AREA_HAVE_AVX2
  return __builtin_cpu_supports ("avx2") && g_strcmp0 (g_getenv ("CTR_AREA_SIMD"), "generic") != 0;
#else
  return FALSE;
#endif
}

#ifdef CTR_AREA_HAVE_AVX2
/* ctr_area_use_avx2 for the rows, read once (a row is too small a unit to
 * read the environment for). */
static gboolean
rows_use_avx2 (void)
{
  static int cached = -1;
  int v = g_atomic_int_get (&cached);
  if (v < 0)
    {
      v = ctr_area_use_avx2 ();
      g_atomic_int_set (&cached, v);
    }
  return v;
}

/* The closed form's walk of ray_area, four pixels of a slab at a time: the
 * same pixels in the same order with the same weights.  @ascend: the
 * slab's pixels by increasing index (down the rows when x-major, right
 * along the columns otherwise). */
__attribute__ ((target ("avx2"))) static void
closed_walk_avx2 (const ClosedStrip *cs, const CtrRayGrid *gi, gboolean x_major, gboolean forward, gboolean ascend,
                  CtrRowBuf *b)
{
  CtrAreaRay4 r;
  ctr_area_ray_broadcast (&cs->ray, &r);
  const __m256d full = _mm256_set1_pd (cs->full), thr = _mm256_set1_pd (cs->min_side * 1e-6);
  const long nmaj = x_major ? gi->nx : gi->ny;
  for (long kk = 0; kk < nmaj; kk++)
    {
      const long k = forward ? kk : nmaj - 1 - kk;
      long i0, i1;
      if (!closed_slab_range (cs, gi, x_major, k, &i0, &i1))
        continue;
      for (long q0 = 0; q0 <= i1 - i0; q0 += 4)
        {
          long idx[4];
          double minor[4];
          for (int l = 0; l < 4; l++)
            {
              const long q = MIN (q0 + l, i1 - i0);
              idx[l] = ascend ? i0 + q : i1 - q;
              minor[l] = x_major ? gi->ymax - idx[l] * gi->dy - cs->hy : gi->xmin + idx[l] * gi->dx + cs->hx;
            }
          const double major = x_major ? gi->xmin + k * gi->dx + cs->hx : gi->ymax - k * gi->dy - cs->hy;
          const __m256d mv = _mm256_loadu_pd (minor), cv = _mm256_set1_pd (major);
          double w[4];
          _mm256_storeu_pd (w, ctr_area_ray_weight4 (&r, full, thr, x_major ? cv : mv, x_major ? mv : cv));
          for (int l = 0; l < 4 && q0 + l <= i1 - i0; l++)
            if ((float) w[l] != 0.f)
              ctr_rowbuf_push (b, (guint32) (x_major ? idx[l] * gi->nx + k : k * gi->nx + idx[l]), (float) w[l]);
        }
    }
}
#endif

static void
ray_area (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, gboolean closed, CtrRowBuf *b)
{
  Strip st;
  strip_init (g, gi, view, col, &st);
  /* Walk the major axis; in each slab find the rows (or columns) the strip
   * covers by clipping the slab, then clip each pixel. */
  const gboolean x_major = fabs (st.dm[0]) >= fabs (st.dm[1]);
  const long nmaj = x_major ? gi->nx : gi->ny;
  /* Visit slabs in the order the ray meets them. */
  const gboolean forward = x_major ? st.dm[0] > 0 : st.dm[1] < 0;
  ClosedStrip cs;
  if (closed && closed_strip_init (&st, gi, x_major, &cs))
    {
#ifdef CTR_AREA_HAVE_AVX2
      if (rows_use_avx2 ())
        {
          closed_walk_avx2 (&cs, gi, x_major, forward, x_major ? st.dm[1] < 0 : st.dm[0] > 0, b);
          return;
        }
#endif
      for (long kk = 0; kk < nmaj; kk++)
        {
          const long k = forward ? kk : nmaj - 1 - kk;
          long i0, i1;
          if (!closed_slab_range (&cs, gi, x_major, k, &i0, &i1))
            continue;
          if (x_major)
            {
              const gboolean down = st.dm[1] < 0;
              for (long q = 0; q <= i1 - i0; q++)
                closed_pixel (&cs, gi, k, down ? i0 + q : i1 - q, b);
            }
          else
            {
              const gboolean right = st.dm[0] > 0;
              for (long q = 0; q <= i1 - i0; q++)
                closed_pixel (&cs, gi, right ? i0 + q : i1 - q, k, b);
            }
        }
      return;
    }
  /* Otherwise clip polygons. */
  for (long kk = 0; kk < nmaj; kk++)
    {
      long k = forward ? kk : nmaj - 1 - kk;
      Poly slab;
      if (x_major)
        {
          double x0 = gi->xmin + k * gi->dx;
          strip_clip_rect (&st, x0, x0 + gi->dx, gi->ymin, gi->ymax, &slab);
        }
      else
        {
          double y1 = gi->ymax - k * gi->dy;
          strip_clip_rect (&st, gi->xmin, gi->xmax, y1 - gi->dy, y1, &slab);
        }
      if (slab.n < 3)
        continue;
      double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
      for (int i = 0; i < slab.n; i++)
        {
          double v = x_major ? slab.y[i] : slab.x[i];
          lo = MIN (lo, v);
          hi = MAX (hi, v);
        }
      if (x_major)
        {
          long r0 = (long) floor ((gi->ymax - hi) / gi->dy), r1 = (long) floor ((gi->ymax - lo) / gi->dy);
          r0 = MAX (r0, 0);
          r1 = MIN (r1, (long) gi->ny - 1);
          gboolean down = st.dm[1] < 0;
          for (long q = 0; q <= r1 - r0; q++)
            area_pixel (&st, gi, k, down ? r0 + q : r1 - q, b);
        }
      else
        {
          long c0 = (long) floor ((lo - gi->xmin) / gi->dx), c1 = (long) floor ((hi - gi->xmin) / gi->dx);
          c0 = MAX (c0, 0);
          c1 = MIN (c1, (long) gi->nx - 1);
          gboolean right = st.dm[0] > 0;
          for (long q = 0; q <= c1 - c0; q++)
            area_pixel (&st, gi, right ? c0 + q : c1 - q, k, b);
        }
    }
}

void
ctr_ray_weights (const CtrGeometry *g, const CtrRayGrid *gi, CtrRayModel model,
                 guint view, guint col, CtrRowBuf *b)
{
  if (model == CTR_RAY_MODEL_AREA)
    {
      ray_area (g, gi, view, col, TRUE, b);
      return;
    }
  double o[2], d[2];
  const gboolean half_line = g->beam != CTR_BEAM_PARALLEL;
  ctr_geometry_ray (g, view, col, o, d);
  if (model == CTR_RAY_MODEL_JOSEPH)
    ray_joseph (gi, o, d, half_line, b);
  else
    ray_siddon (gi, o, d, half_line, b);
}

void
ctr_ray_weights_area_clipped (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, CtrRowBuf *b)
{
  ray_area (g, gi, view, col, FALSE, b);
}
