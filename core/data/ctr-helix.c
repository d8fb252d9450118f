/* ctr-helix.c — helical cone-beam geometry: the z of rays, the fully
 * sampled z range, slice grids (see ctr-helix.h for the frame; the rays
 * themselves are ctr_cone_ray's, ctr-geometry.c). */
#include "data/ctr-helix.h"
#include "base/ctr-error.h"

#include <math.h>

gboolean
ctr_helix_applies (const CtrGeometry *g)
{
  return g != NULL && g->beam == CTR_BEAM_CONE
         && (g->source_z_mm != NULL || g->focal_shift != NULL || g->shape == CTR_DETECTOR_CURVED);
}

double
ctr_helix_ray_z (const CtrGeometry *g, guint view, double row, double col)
{
  double s[3], d[3];
  ctr_cone_ray (g, view, col, row, s, d);
  const double t = -(s[0] * d[0] + s[1] * d[1]) / (d[0] * d[0] + d[1] * d[1]);
  return s[2] + t * d[2];
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
  /* More than 4 lines a rotation for each view: the views span less than
   * a quarter turn, which with the conjugate rays (as many again) covers
   * less than half the directions; and a tiny step would make a count
   * beyond any table. */
  const double lines = round (2.0 * G_PI / step);
  if (lines > 4.0 * V)
    return FALSE;
  const guint nb = (guint) MAX (1.0, lines);
  const double width = 2.0 * G_PI / nb;
  g_autofree double *lo = g_try_new (double, (gsize) nb * C);
  g_autofree double *hi = g_try_new (double, (gsize) nb * C);
  g_autofree double *frac = g_try_new (double, C);
  g_autofree double *gamma = g_try_new (double, C);
  g_autofree gint *mirror = g_try_new (gint, C);
  if (lo == NULL || hi == NULL || frac == NULL || gamma == NULL || mirror == NULL)
    return FALSE;
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
