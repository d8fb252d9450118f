/* ctr-phantom3d.c — exact 3-D phantoms and their cone-beam line integrals.
 *
 * Chord of a line p(t) = o + t·d (|d| = 1) through a solid: move to the
 * solid's frame (translate, rotate by -phi about z), scale by 1/a, 1/b, 1/c;
 * the ellipsoid becomes the unit ball |q + t e|² <= 1, a quadratic
 * A t² + 2 B t + C <= 0 whose roots bound the chord:
 *   length = 2 √(B² - A C) / A   (t is in mm because |d| = 1).
 * The cylinder uses the same quadratic with the z components dropped,
 * intersected with the slab |q_z + t e_z| <= 1 of its end planes.
 */
#include "sim/ctr-phantom3d.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"

#include <math.h>
#include <string.h>

CtrPhantom3d *
ctr_phantom3d_new (guint n)
{
  CtrPhantom3d *ph = g_new0 (CtrPhantom3d, 1);
  ph->n = n;
  ph->s = g_new0 (CtrSolid, MAX (n, 1));
  return ph;
}

void
ctr_phantom3d_free (CtrPhantom3d *ph)
{
  if (ph == NULL)
    return;
  g_free (ph->s);
  g_free (ph);
}

CtrPhantom3d *
ctr_phantom3d_new_cylinder (double x_mm, double y_mm, double z_mm, double radius_mm,
                            double half_height_mm, double mu)
{
  CtrPhantom3d *ph = ctr_phantom3d_new (1);
  ph->s[0] = (CtrSolid) { CTR_SOLID_CYLINDER, x_mm, y_mm, z_mm, radius_mm, radius_mm,
                          half_height_mm, 0.0, mu };
  return ph;
}

CtrPhantom3d *
ctr_phantom3d_new_extruded (const CtrPhantom *ph, double half_height_mm)
{
  g_return_val_if_fail (ph != NULL, NULL);
  CtrPhantom3d *p3 = ctr_phantom3d_new (ph->n);
  for (guint i = 0; i < ph->n; i++)
    {
      const CtrEllipse *e = &ph->e[i];
      p3->s[i] = (CtrSolid) { CTR_SOLID_CYLINDER, e->x_mm, e->y_mm, 0.0, e->a_mm, e->b_mm,
                              half_height_mm, e->phi_rad, e->value };
    }
  return p3;
}

CtrPhantom3d *
ctr_phantom3d_new_shepp_logan (double radius_mm, double mu_scale)
{
  /* x, y, z, a, b, c, phi (deg), value: Kak & Slaney Table 3.1/3.2 layout,
   * Toft's contrasts (the same in-plane table as ctr_phantom_new_shepp_logan). */
  static const double t[10][8] = {
    {  0.0,    0.0,     0.0,   0.69,   0.92,  0.81,    0.0,  1.0 },
    {  0.0,   -0.0184,  0.0,   0.6624, 0.874, 0.78,    0.0, -0.8 },
    {  0.22,   0.0,     0.0,   0.11,   0.31,  0.22,  -18.0, -0.2 },
    { -0.22,   0.0,     0.0,   0.16,   0.41,  0.28,   18.0, -0.2 },
    {  0.0,    0.35,   -0.15,  0.21,   0.25,  0.41,    0.0,  0.1 },
    {  0.0,    0.1,     0.25,  0.046,  0.046, 0.05,    0.0,  0.1 },
    {  0.0,   -0.1,     0.25,  0.046,  0.046, 0.05,    0.0,  0.1 },
    { -0.08,  -0.605,   0.0,   0.046,  0.023, 0.05,    0.0,  0.1 },
    {  0.0,   -0.606,   0.0,   0.023,  0.023, 0.02,    0.0,  0.1 },
    {  0.06,  -0.605,   0.0,   0.023,  0.046, 0.02,    0.0,  0.1 },
  };
  CtrPhantom3d *ph = ctr_phantom3d_new (G_N_ELEMENTS (t));
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    ph->s[i] = (CtrSolid) { CTR_SOLID_ELLIPSOID,
                            t[i][0] * radius_mm, t[i][1] * radius_mm, t[i][2] * radius_mm,
                            t[i][3] * radius_mm, t[i][4] * radius_mm, t[i][5] * radius_mm,
                            t[i][6] * G_PI / 180.0, t[i][7] * mu_scale };
  return ph;
}

/* The line in the solid's scaled frame: q (point), e (direction). */
static void
to_solid_frame (const CtrSolid *s, const double o[3], const double d[3], double q[3], double e[3])
{
  const double c = cos (s->phi_rad), sn = sin (s->phi_rad);
  const double px = o[0] - s->x_mm, py = o[1] - s->y_mm, pz = o[2] - s->z_mm;
  q[0] = (c * px + sn * py) / s->a_mm;
  q[1] = (-sn * px + c * py) / s->b_mm;
  q[2] = pz / s->c_mm;
  e[0] = (c * d[0] + sn * d[1]) / s->a_mm;
  e[1] = (-sn * d[0] + c * d[1]) / s->b_mm;
  e[2] = d[2] / s->c_mm;
}

double
ctr_solid_chord (const CtrSolid *s, const double origin[3], const double dir[3])
{
  double q[3], e[3];
  to_solid_frame (s, origin, dir, q, e);
  if (s->kind == CTR_SOLID_ELLIPSOID)
    {
      double A = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
      double B = q[0] * e[0] + q[1] * e[1] + q[2] * e[2];
      double C = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0;
      double disc = B * B - A * C;
      return disc > 0.0 ? 2.0 * sqrt (disc) / A : 0.0;
    }
  /* cylinder: elliptic cross-section interval ∩ end-plane slab */
  double lo = -INFINITY, hi = INFINITY;
  double A = e[0] * e[0] + e[1] * e[1];
  double B = q[0] * e[0] + q[1] * e[1];
  double C = q[0] * q[0] + q[1] * q[1] - 1.0;
  if (A > 0.0)
    {
      double disc = B * B - A * C;
      if (disc <= 0.0)
        return 0.0;
      double r = sqrt (disc);
      lo = (-B - r) / A;
      hi = (-B + r) / A;
    }
  else if (C > 0.0)
    return 0.0;
  if (e[2] != 0.0)
    {
      double t1 = (-1.0 - q[2]) / e[2], t2 = (1.0 - q[2]) / e[2];
      lo = MAX (lo, MIN (t1, t2));
      hi = MIN (hi, MAX (t1, t2));
    }
  else if (fabs (q[2]) > 1.0)
    return 0.0;
  if (!isfinite (lo) || !isfinite (hi))
    return 0.0;  /* a line along an infinite extent cannot happen for finite solids */
  return hi > lo ? hi - lo : 0.0;
}

static gboolean
solid_contains (const CtrSolid *s, double x, double y, double z)
{
  const double o[3] = { x, y, z }, d[3] = { 0, 0, 0 };
  double q[3], e[3];
  to_solid_frame (s, o, d, q, e);
  if (s->kind == CTR_SOLID_ELLIPSOID)
    return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= 1.0;
  return q[0] * q[0] + q[1] * q[1] <= 1.0 && fabs (q[2]) <= 1.0;
}

double
ctr_phantom3d_value (const CtrPhantom3d *ph, double x, double y, double z)
{
  double v = 0.0;
  for (guint i = 0; i < ph->n; i++)
    if (solid_contains (&ph->s[i], x, y, z))
      v += ph->s[i].value;
  return v;
}

CtrVolume *
ctr_phantom3d_rasterize (const CtrPhantom3d *ph, const CtrGrid *grid, guint supersample,
                         GError **error)
{
  g_return_val_if_fail (ph != NULL && grid != NULL, NULL);
  CtrVolume *vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, "1/mm");
  const guint ss = MAX (supersample, 1);
  const double inv = 1.0 / ((double) ss * ss * ss);
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 iz = 0; iz < (gint64) grid->nz; iz++)
    for (guint iy = 0; iy < grid->ny; iy++)
      for (guint ix = 0; ix < grid->nx; ix++)
        {
          double acc = 0.0;
          for (guint a = 0; a < ss; a++)
            for (guint b = 0; b < ss; b++)
              for (guint c = 0; c < ss; c++)
                acc += ctr_phantom3d_value (ph,
                                            ctr_grid_x (grid, ix + (a + 0.5) / ss - 0.5),
                                            ctr_grid_y (grid, iy + (b + 0.5) / ss - 0.5),
                                            ctr_grid_z (grid, iz + (c + 0.5) / ss - 0.5));
          ctr_volume_slice (vol, (guint) iz)[(gsize) iy * grid->nx + ix] = (float) (acc * inv);
        }
  return vol;
}

static CtrProjections *
project (const CtrPhantom3d *ph, const CtrGeometry *g, guint rays_per_bin, const CtrSpectrum *spectrum,
         GError **error)
{
  g_return_val_if_fail (ph != NULL && g != NULL, NULL);
  if (!ctr_geometry_validate (g, error))
    return NULL;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "3-D phantom projection needs a cone-beam geometry");
      return NULL;
    }
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols,
                                           CTR_PROJ_LINE_INTEGRALS, error);
  if (p == NULL)
    return NULL;
  const guint nr = MAX (rays_per_bin, 1);
  const double inv = 1.0 / ((double) nr * nr);
#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 v = 0; v < (gint64) g->n_views; v++)
    {
      float *out = ctr_projections_view (p, (guint) v);
      for (guint r = 0; r < g->n_rows; r++)
        for (guint c = 0; c < g->n_cols; c++)
          {
            double acc = 0.0;
            for (guint a = 0; a < nr; a++)
              for (guint bb = 0; bb < nr; bb++)
                {
                  double o[3], d[3];
                  ctr_cone_ray (g, (guint) v, c + (a + 0.5) / nr - 0.5, r + (bb + 0.5) / nr - 0.5, o, d);
                  double ray = 0.0;
                  for (guint i = 0; i < ph->n; i++)
                    ray += ph->s[i].value * ctr_solid_chord (&ph->s[i], o, d);
                  /* polychromatic: the ray's water-equivalent path through the spectrum */
                  acc += spectrum != NULL ? ctr_spectrum_water_line_integral (spectrum, ray / CTR_MU_WATER_PER_MM)
                                          : ray;
                }
            out[(gsize) r * g->n_cols + c] = (float) (acc * inv);
          }
    }
  return p;
}

CtrProjections *
ctr_phantom3d_project (const CtrPhantom3d *ph, const CtrGeometry *g, guint rays_per_bin, GError **error)
{
  return project (ph, g, rays_per_bin, NULL, error);
}

CtrProjections *
ctr_phantom3d_project_spectrum (const CtrPhantom3d *ph, const CtrGeometry *g, guint rays_per_bin,
                                const CtrSpectrum *spectrum, GError **error)
{
  g_return_val_if_fail (spectrum != NULL, NULL);
  return project (ph, g, rays_per_bin, spectrum, error);
}
