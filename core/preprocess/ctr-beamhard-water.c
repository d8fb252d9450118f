/* ctr-beamhard-water.c — beam-hardening coefficients from a water-cylinder
 * scan (see ctr-beamhard-water.h). */
#include "preprocess/ctr-beamhard-water.h"
#include "preprocess/ctr-beamhard.h"
#include "data/ctr-ray-cylinder.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

#define EDGE_FRACTION 0.02
#define MIN_WATER_MM 5.0
#define MAX_EDGE_SPREAD 0.03
/* rays across a bin's width whose paths are averaged (the bin integrates) */
#define BIN_RAYS 4
/* golden-section steps refining the radius over ±2 bins (0.618¹⁶: 1e-3 bin) */
#define RADIUS_STEPS 16
/* bins the radius search keeps at most (6 MB) */
#define MAX_SAMPLED (1 << 18)

/* The shadow of one line ([col] @v, @n columns) above @t: its edges in
 * columns, interpolated; FALSE when nothing or the border is above @t. */
static gboolean
shadow (const float *v, const guint8 *mask, guint n, double t, double *lo, double *hi)
{
  guint a = 0, b = n;
  while (a < n && !(v[a] > t && (mask == NULL || mask[a])))
    a++;
  while (b > a && !(v[b - 1] > t && (mask == NULL || mask[b - 1])))
    b--;
  if (a == n || a == 0 || b == n)
    return FALSE;
  *lo = a - (v[a] - t) / (v[a] - v[a - 1]);
  *hi = (b - 1) + (v[b - 1] - t) / (v[b - 1] - v[b]);
  return TRUE;
}

/* One edge ray of line @l (view l / rows, row l % rows) at column @col as a
 * tangent of the circle (cx, cy, r): the row of the linear system
 * side(c) = σ·r, σ the side of the shadow's middle ray (@q) seen from it. */
static void
edge_equation (const CtrGeometry *g, gsize l, double col, const double q[2], double row_out[3], double *rhs)
{
  const guint nr = g->n_rows;
  double o[2], d[2];
  ctr_geometry_ray_xy (g, (guint) (l / nr), col, (double) (l % nr), o, d, NULL);
  const double sigma = ctr_line_side (o, d, q) >= 0 ? 1.0 : -1.0;
  row_out[0] = -d[1];
  row_out[1] = d[0];
  row_out[2] = -sigma;
  *rhs = -d[1] * o[0] + d[0] * o[1];
}

/* A point inside the shadow of line @l: on the ray of the shadow's middle
 * column, where it passes closest to the axis (never behind the source). */
static void
shadow_point (const CtrGeometry *g, gsize l, double col, double q[2])
{
  double o[2], d[2];
  ctr_geometry_ray_xy (g, (guint) (l / g->n_rows), col, (double) (l % g->n_rows), o, d, NULL);
  const double t = MAX (0.0, -(o[0] * d[0] + o[1] * d[1]));
  q[0] = o[0] + t * d[0];
  q[1] = o[1] + t * d[1];
}

/* The cylinder (@c: x, y, radius, mm) whose circle the shadow's edge rays
 * touch, by least squares over every view and row (Σ (side − σr)²), and
 * the RMS of the edges' distances from it over the radius (@spread). */
static gboolean
fit_cylinder (const CtrGeometry *g, const CtrProjections *p, double t, double mu, double c[3], double *spread,
              GError **error)
{
  const guint nr = p->n_rows, nc = p->n_cols;
  const gsize lines = (gsize) p->n_views * nr;
  g_autofree double *edges = g_try_new (double, 2 * lines);
  if (edges == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "no memory for the shadows' edges of %zu lines", lines);
      return FALSE;
    }
  double ata[9] = { 0 }, atb[3] = { 0 };
  for (gsize l = 0; l < lines; l++)
    {
      const guint8 *mask = p->mask != NULL ? p->mask + (l % nr) * nc : NULL;
      if (!shadow (p->data + l * nc, mask, nc, t, &edges[2 * l], &edges[2 * l + 1]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "view %zu, row %zu: the water's shadow %s",
                       l / nr + 1, l % nr + 1, "is missing or touches the detector's border (truncated)");
          return FALSE;
        }
      double q[2];
      shadow_point (g, l, 0.5 * (edges[2 * l] + edges[2 * l + 1]), q);
      for (int e = 0; e < 2; e++)
        {
          double a[3], y;
          edge_equation (g, l, edges[2 * l + e], q, a, &y);
          for (int i = 0; i < 3; i++)
            {
              atb[i] += a[i] * y;
              for (int j = 0; j < 3; j++)
                ata[3 * i + j] += a[i] * a[j];
            }
        }
    }
  if (!ctr_beamhard_solve (ata, atb, 3) || !(atb[2] > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "no cylinder fits the water's shadow (its edges from %u views are degenerate)", p->n_views);
      return FALSE;
    }
  double ss = 0;
  for (gsize l = 0; l < lines; l++)
    {
      double q[2];
      shadow_point (g, l, 0.5 * (edges[2 * l] + edges[2 * l + 1]), q);
      for (int e = 0; e < 2; e++)
        {
          double a[3], y;
          edge_equation (g, l, edges[2 * l + e], q, a, &y);
          const double r = a[0] * atb[0] + a[1] * atb[1] + a[2] * atb[2] - y;
          ss += r * r;
        }
    }
  *spread = sqrt (ss / (2.0 * lines)) / atb[2];
  /* the threshold cuts the shadow where the chord is t/μ: the edge lies δ further out */
  const double chord_t = t / mu;
  c[0] = atb[0];
  c[1] = atb[1];
  c[2] = atb[2] + chord_t * chord_t / (8 * atb[2]);
  return TRUE;
}

/* The normal equations of Σ (Σₙ aₙ xⁿ − y)² over the rays so far. */
typedef struct {
  int d;
  guint64 n;
  double ata[CTR_BEAMHARD_MAX_DEGREE * CTR_BEAMHARD_MAX_DEGREE], atb[CTR_BEAMHARD_MAX_DEGREE], yy;
} Normal;

static void
normal_add (Normal *ne, double x, double y)
{
  double pw[CTR_BEAMHARD_MAX_DEGREE];
  for (int k = 0; k < ne->d; k++)
    pw[k] = k == 0 ? x : pw[k - 1] * x;
  for (int a = 0; a < ne->d; a++)
    {
      ne->atb[a] += pw[a] * y;
      for (int b = 0; b < ne->d; b++)
        ne->ata[a * ne->d + b] += pw[a] * pw[b];
    }
  ne->yy += y * y;
  ne->n++;
}

/* The least-squares @a (of x = p/p_max) and its sum of squared residuals
 * yy − 2a·atb + aᵀ·ata·a; FALSE when singular. */
static gboolean
normal_solve (const Normal *ne, double *a, double *sse)
{
  const int d = ne->d;
  double m[CTR_BEAMHARD_MAX_DEGREE * CTR_BEAMHARD_MAX_DEGREE];
  memcpy (m, ne->ata, sizeof m);
  memcpy (a, ne->atb, d * sizeof (double));
  if (ne->n < (guint64) d || !ctr_beamhard_solve (m, a, d))
    return FALSE;
  double s = ne->yy;
  for (int i = 0; i < d; i++)
    {
      s -= 2 * a[i] * ne->atb[i];
      for (int j = 0; j < d; j++)
        s += a[i] * ne->ata[i * d + j] * a[j];
    }
  *sse = MAX (0.0, s);
  return TRUE;
}

static void
singular (GError **error, int d, guint64 n)
{
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
               "the water-scan fit of degree %d is singular (%" G_GUINT64_FORMAT " rays)", d, n);
}

/* The path of bin (line @l, column @col) through the cylinder @c: the mean
 * over BIN_RAYS rays across the bin's width (the bin integrates). */
static double
bin_path (const CtrGeometry *g, gsize l, guint col, const double c[3])
{
  double path = 0;
  for (int k = 0; k < BIN_RAYS; k++)
    path += ctr_geometry_cylinder_path (g, (guint) (l / g->n_rows), col + (k + 0.5) / BIN_RAYS - 0.5,
                                        (double) (l % g->n_rows), c, c[2]);
  return path / BIN_RAYS;
}

static gboolean
usable (const CtrProjections *p, gsize l, guint col, double p_max, double *x)
{
  *x = p->data[l * p->n_cols + col] / p_max;
  return (p->mask == NULL || p->mask[(l % p->n_rows) * p->n_cols + col]) && isfinite (*x);
}

/* Least squares through the origin of μ·(path through the cylinder @c)
 * against p/p_max over the rays through it, then the largest residual;
 * fills @fit's residuals and rays. */
static gboolean
fit_polynomial (const CtrGeometry *g, const CtrProjections *p, const double c[3], double mu, double p_max,
                int d, double *coefficients, CtrWaterFit *fit, GError **error)
{
  const gsize lines = (gsize) p->n_views * p->n_rows;
  Normal ne = { .d = d };
  double a[CTR_BEAMHARD_MAX_DEGREE], sse, worst = 0, x;
  for (gsize l = 0; l < lines; l++)
    for (guint col = 0; col < p->n_cols; col++)
      {
        const double path = usable (p, l, col, p_max, &x) ? bin_path (g, l, col, c) : 0;
        if (path > 0)
          normal_add (&ne, x, mu * path);
      }
  if (!normal_solve (&ne, a, &sse))
    {
      singular (error, d, ne.n);
      return FALSE;
    }
  for (gsize l = 0; l < lines; l++)
    for (guint col = 0; col < p->n_cols; col++)
      {
        const double path = usable (p, l, col, p_max, &x) ? bin_path (g, l, col, c) : 0;
        double f = 0;
        for (int n = d - 1; n >= 0; n--)
          f = (f + a[n]) * x;
        if (path > 0)
          worst = MAX (worst, fabs (f - mu * path));
      }
  for (int n = 0; n < d; n++)
    coefficients[n] = a[n] / pow (p_max, n + 1);
  fit->rms_residual = sqrt (sse / ne.n);
  fit->max_residual = worst;
  fit->n_rays = ne.n;
  return TRUE;
}

/* A bin kept for the radius search: p/p_max, its rays' distances from the
 * centre (mm) and the stretch (ctr_geometry_ray_xy). */
typedef struct {
  float x, stretch, dist[BIN_RAYS];
} Sampled;

/* At most MAX_SAMPLED bins that rays within @reach of the centre cross,
 * from every line or every k-th (*@n of them), or NULL with
 * CTR_ERROR_OUT_OF_MEMORY. */
static Sampled *
sample_bins (const CtrGeometry *g, const CtrProjections *p, const double c[3], double p_max, double reach,
             gsize *n, GError **error)
{
  const gsize lines = (gsize) p->n_views * p->n_rows, nc = p->n_cols;
  const gsize stride = MAX ((gsize) 1, (lines * nc + MAX_SAMPLED - 1) / MAX_SAMPLED);
  Sampled *s = g_try_new (Sampled, MIN (lines * nc, (gsize) MAX_SAMPLED));
  if (s == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "no memory for %d bins of the radius search",
                   MAX_SAMPLED);
      return NULL;
    }
  *n = 0;
  for (gsize l = 0; l < lines; l += stride)
    for (guint col = 0; col < nc; col++)
      {
        Sampled b;
        double x, o[2], d[2], st = 1, near = INFINITY;
        if (!usable (p, l, col, p_max, &x))
          continue;
        for (int k = 0; k < BIN_RAYS; k++)
          {
            ctr_geometry_ray_xy (g, (guint) (l / g->n_rows), col + (k + 0.5) / BIN_RAYS - 0.5,
                                 (double) (l % g->n_rows), o, d, &st);
            b.dist[k] = (float) fabs (ctr_line_side (o, d, c));
            near = MIN (near, b.dist[k]);
          }
        if (near < reach && isfinite (st) && *n < MAX_SAMPLED)
          {
            b.x = (float) x;
            b.stretch = (float) st;
            s[(*n)++] = b;
          }
      }
  return s;
}

/* The RMS residual of the polynomial fitted to the sampled bins with the
 * cylinder's radius @r; INFINITY when singular. */
static double
sampled_rms (const Sampled *s, gsize n, double r, double mu, int d)
{
  Normal ne = { .d = d };
  for (gsize i = 0; i < n; i++)
    {
      double path = 0;
      for (int k = 0; k < BIN_RAYS; k++)
        path += ctr_circle_chord (s[i].dist[k], r);
      if (path > 0)
        normal_add (&ne, s[i].x, mu * path * s[i].stretch / BIN_RAYS);
    }
  double a[CTR_BEAMHARD_MAX_DEGREE], sse;
  return normal_solve (&ne, a, &sse) ? sqrt (sse / ne.n) : INFINITY;
}

/* The edges place the radius to a fraction of a bin only, and the rays by
 * the edge weigh much in the fit (a path of 2√(2rδ) where p is about 0):
 * the radius within ±2 bins (at the isocentre) whose polynomial fits the
 * data best (the least RMS residual over at most MAX_SAMPLED bins), by
 * golden-section search. */
static gboolean
refine_radius (const CtrGeometry *g, const CtrProjections *p, double c[3], double mu, double p_max, int degree,
               GError **error)
{
  const double h = 2 * ctr_geometry_pitch_at_iso_mm (g), k = 0.5 * (sqrt (5.0) - 1);
  double lo = MAX (0.5 * c[2], c[2] - h), hi = c[2] + h;
  gsize n;
  g_autofree Sampled *s = sample_bins (g, p, c, p_max, hi, &n, error);
  if (s == NULL)
    return FALSE;
  double x[2] = { hi - k * (hi - lo), lo + k * (hi - lo) };
  double e[2] = { sampled_rms (s, n, x[0], mu, degree), sampled_rms (s, n, x[1], mu, degree) };
  for (int step = 0; step < RADIUS_STEPS; step++)
    {
      const int keep_low = e[0] < e[1];
      if (keep_low)
        {
          hi = x[1];
          x[1] = x[0];
          e[1] = e[0];
          x[0] = hi - k * (hi - lo);
        }
      else
        {
          lo = x[0];
          x[0] = x[1];
          e[0] = e[1];
          x[1] = lo + k * (hi - lo);
        }
      const int i = keep_low ? 0 : 1;
      e[i] = sampled_rms (s, n, x[i], mu, degree);
    }
  c[2] = 0.5 * (lo + hi);
  return TRUE;
}

gboolean
ctr_beamhard_fit_water_scan (const CtrGeometry *g, const CtrProjections *p, double mu, int degree,
                             const double *cylinder, double *coefficients, CtrWaterFit *fit, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && degree >= 1 && degree <= CTR_BEAMHARD_MAX_DEGREE, FALSE);
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "the water scan must be line integrals, not counts");
      return FALSE;
    }
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "the water scan's shape does not match its geometry");
      return FALSE;
    }
  if (cylinder != NULL
      && !(isfinite (cylinder[0]) && isfinite (cylinder[1]) && cylinder[2] > 0 && cylinder[2] < 1e6))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the stated cylinder needs a finite centre and a radius above 0 mm");
      return FALSE;
    }
  const gsize n = (gsize) p->n_views * p->n_rows * p->n_cols;
  double p_max = 0;
  for (gsize i = 0; i < n; i++)
    if (isfinite (p->data[i]))
      p_max = MAX (p_max, p->data[i]);
  if (!(p_max >= mu * MIN_WATER_MM))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "no water in the scan: its largest line integral %.3g is below that of %g mm of water (%.3g)",
                   p_max, MIN_WATER_MM, mu * MIN_WATER_MM);
      return FALSE;
    }
  CtrWaterFit f = { .p_max = p_max };
  double c[3];
  if (cylinder != NULL)
    memcpy (c, cylinder, sizeof c);
  else
    {
      if (!fit_cylinder (g, p, EDGE_FRACTION * p_max, mu, c, &f.edge_spread, error))
        return FALSE;
      if (!(f.edge_spread <= MAX_EDGE_SPREAD))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       "not one water cylinder: the shadow's edges lie %.1f %% of its radius (RMS) off the best "
                       "circle (at most %g %%)", 100 * f.edge_spread, 100 * MAX_EDGE_SPREAD);
          return FALSE;
        }
      if (!refine_radius (g, p, c, mu, p_max, degree, error))
        return FALSE;
    }
  f.centre_mm[0] = c[0];
  f.centre_mm[1] = c[1];
  f.radius_mm = c[2];
  if (!fit_polynomial (g, p, c, mu, p_max, degree, coefficients, &f, error))
    return FALSE;
  if (fit != NULL)
    *fit = f;
  return TRUE;
}
