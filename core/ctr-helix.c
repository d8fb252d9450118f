/* ctr-helix.c — helical cone-beam geometry: rays, z coverage, table
 * coordinate (see ctr-helix.h for the frame). */
#include "ctr-helix.h"
#include "ctr-error.h"

#include <math.h>

gboolean
ctr_geometry_is_helical (const CtrGeometry *g)
{
  if (g == NULL || g->beam != CTR_BEAM_CONE || g->source_z_mm == NULL || g->n_views < 2)
    return FALSE;
  double lo = g->source_z_mm[0], hi = lo;
  for (guint k = 1; k < g->n_views; k++)
    {
      lo = MIN (lo, g->source_z_mm[k]);
      hi = MAX (hi, g->source_z_mm[k]);
    }
  return hi - lo > 1e-3;
}

gboolean
ctr_helix_applies (const CtrGeometry *g)
{
  return g != NULL && g->beam == CTR_BEAM_CONE
         && (g->source_z_mm != NULL || g->focal_shift != NULL || g->shape == CTR_DETECTOR_CURVED);
}

void
ctr_geometry_source (const CtrGeometry *g, guint view, double s[3])
{
  double b = g->angles[view], r = g->sod_mm, z = ctr_geometry_source_z (g, view);
  if (g->focal_shift != NULL)
    {
      const double *f = g->focal_shift + 3 * (gsize) view;
      b += f[0];
      z += f[1];
      r += f[2];
    }
  s[0] = r * sin (b);
  s[1] = -r * cos (b);
  s[2] = z;
}

/* The detector point of (@col, @row) of @view (detector centred on the
 * focal centre). */
static void
detector_point (const CtrGeometry *g, guint view, double col, double row, double p[3])
{
  const double b = g->angles[view], sb = sin (b), cb = cos (b);
  const double u = ctr_geometry_col_u (g, col), v = ctr_geometry_row_v (g, row);
  double a, t;  /* along c (towards the isocentre) and along e */
  if (g->shape == CTR_DETECTOR_CURVED)
    {
      a = g->sdd_mm * cos (u);
      t = g->sdd_mm * sin (u);
    }
  else
    {
      a = g->sdd_mm;
      t = u;
    }
  /* F + a·c + t·e + v·ẑ, c = (−sin b, cos b), e = (cos b, sin b). */
  p[0] = g->sod_mm * sb - a * sb + t * cb;
  p[1] = -g->sod_mm * cb + a * cb + t * sb;
  p[2] = ctr_geometry_source_z (g, view) + v;
}

void
ctr_geometry_ray3d (const CtrGeometry *g, guint view, double col, double row,
                    double origin[3], double dir[3])
{
  double p[3];
  ctr_geometry_source (g, view, origin);
  detector_point (g, view, col, row, p);
  double d[3] = { p[0] - origin[0], p[1] - origin[1], p[2] - origin[2] };
  double n = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (guint k = 0; k < 3; k++)
    dir[k] = d[k] / n;
}

double
ctr_geometry_slice_width_mm (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_CONE)
    return g->pitch_v_mm * g->sod_mm / g->sdd_mm;
  return g->pitch_v_mm;
}

double
ctr_helix_feed_mm (const CtrGeometry *g)
{
  if (!ctr_geometry_is_helical (g))
    return 0.0;
  const guint n = g->n_views - 1;
  const double db = fabs (g->angles[n] - g->angles[0]);
  if (!(db > 0))
    return 0.0;
  return (g->source_z_mm[n] - g->source_z_mm[0]) * 2.0 * G_PI / db;
}

double
ctr_helix_pitch (const CtrGeometry *g)
{
  const double w = ctr_geometry_slice_width_mm (g) * g->n_rows;
  return w > 0 ? fabs (ctr_helix_feed_mm (g)) / w : 0.0;
}

double
ctr_helix_ray_z (const CtrGeometry *g, guint view, double row, double col)
{
  double s[3], p[3];
  ctr_geometry_source (g, view, s);
  detector_point (g, view, col, row, p);
  const double dx = p[0] - s[0], dy = p[1] - s[1];
  const double t = -(s[0] * dx + s[1] * dy) / (dx * dx + dy * dy);
  return s[2] + t * (p[2] - s[2]);
}

double
ctr_helix_closest_fraction (const CtrGeometry *g, double col)
{
  const double u = ctr_geometry_col_u (g, col);
  if (g->shape == CTR_DETECTOR_CURVED)
    return g->sod_mm * cos (u) / g->sdd_mm;
  return g->sod_mm * g->sdd_mm / (g->sdd_mm * g->sdd_mm + u * u);
}

static inline guint
line_bin (double angle, double first, double bin_width, guint n_bins)
{
  double a = (angle - first) / bin_width;
  gint64 k = (gint64) llround (a) % (gint64) n_bins;
  return (guint) (k < 0 ? k + n_bins : k);
}

gboolean
ctr_helix_z_coverage (const CtrGeometry *g, gboolean complementary, double *z_lo, double *z_hi)
{
  g_return_val_if_fail (g != NULL && z_lo != NULL && z_hi != NULL, FALSE);
  if (g->beam != CTR_BEAM_CONE || g->source_z_mm == NULL || g->n_views < 2)
    return FALSE;
  const guint V = g->n_views, C = g->n_cols;
  const double step = fabs (g->angles[V - 1] - g->angles[0]) / (V - 1);
  if (!(step > 0))
    return FALSE;
  const guint nb = (guint) MAX (1.0, round (2.0 * G_PI / step));
  const double width = 2.0 * G_PI / nb;
  g_autofree double *lo = g_new (double, (gsize) nb * C);
  g_autofree double *hi = g_new (double, (gsize) nb * C);
  g_autofree double *frac = g_new (double, C);
  g_autofree double *gamma = g_new (double, C);
  g_autofree gint *mirror = g_new (gint, C);
  for (gsize i = 0; i < (gsize) nb * C; i++)
    {
      lo[i] = INFINITY;
      hi[i] = -INFINITY;
    }
  for (guint j = 0; j < C; j++)
    {
      const double u = ctr_geometry_col_u (g, j);
      frac[j] = ctr_helix_closest_fraction (g, j);
      gamma[j] = g->shape == CTR_DETECTOR_CURVED ? u : atan (u / g->sdd_mm);
      const double m = round (ctr_geometry_u_col (g, -u));
      mirror[j] = m >= 0 && m < C ? (gint) m : -1;
    }
  const double v0 = ctr_geometry_row_v (g, 0), v1 = ctr_geometry_row_v (g, g->n_rows - 1);
  for (guint k = 0; k < V; k++)
    {
      const guint a = line_bin (g->angles[k], g->angles[0], width, nb);
      for (guint j = 0; j < C; j++)
        {
          double za, zb;
          if (g->focal_shift == NULL)
            {
              za = g->source_z_mm[k] + v0 * frac[j];
              zb = g->source_z_mm[k] + v1 * frac[j];
            }
          else
            {
              za = ctr_helix_ray_z (g, k, 0, j);
              zb = ctr_helix_ray_z (g, k, g->n_rows - 1, j);
            }
          const double zmin = MIN (za, zb), zmax = MAX (za, zb);
          gsize i = (gsize) a * C + j;
          lo[i] = MIN (lo[i], zmin);
          hi[i] = MAX (hi[i], zmax);
          if (complementary && mirror[j] >= 0)
            {
              /* The same line seen from the other side: β + π − 2γ, −γ. */
              const guint ac = line_bin (g->angles[k] + G_PI - 2.0 * gamma[j], g->angles[0], width, nb);
              i = (gsize) ac * C + (guint) mirror[j];
              lo[i] = MIN (lo[i], zmin);
              hi[i] = MAX (hi[i], zmax);
            }
        }
    }
  double zl = -INFINITY, zh = INFINITY;
  for (gsize i = 0; i < (gsize) nb * C; i++)
    {
      zl = MAX (zl, lo[i]);
      zh = MIN (zh, hi[i]);
    }
  if (!isfinite (zl) || !isfinite (zh) || !(zh > zl))
    return FALSE;
  *z_lo = zl;
  *z_hi = zh;
  return TRUE;
}

gboolean
ctr_helix_grid (const CtrGeometry *g, guint size, double pixel_mm, double first, double last,
                double step, CtrGrid *grid, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, FALSE);
  if (!isfinite (first) || !isfinite (last) || !isfinite (step) || !(step > 0) || last < first)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "a z range needs FIRST <= LAST and STEP > 0 (mm), got %g:%g:%g", first, last, step);
      return FALSE;
    }
  const double n = floor ((last - first) / step + 1e-6) + 1.0;
  if (n > 100000)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the z range %g:%g:%g has %.0f slices; at most 100000", first, last, step, n);
      return FALSE;
    }
  const double end = first + (n - 1.0) * step;
  *grid = ctr_grid_default (g, size, pixel_mm);
  grid->nz = (guint) n;
  grid->dz = step;
  grid->cz = 0.5 * (ctr_geometry_table_mm (g, first) + ctr_geometry_table_mm (g, end));
  return TRUE;
}
