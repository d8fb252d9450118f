/* ctr-phantom.c — analytic ellipse phantoms, their images and exact line
 * integrals (see ctr-phantom.h).
 *
 * Chord of a line through an ellipse (closed form): move the line into the
 * ellipse's frame (translate by -centre, rotate by -φ) and scale x by 1/a,
 * y by 1/b; the ellipse becomes the unit circle and the line
 * o' + t d' meets it where |o' + t d'|² = 1, i.e. A t² + B t + C = 0 with
 * A = d'·d', B = 2 o'·d', C = o'·o' - 1.  The parameter t is unchanged by the
 * affine map, so the chord in the original frame is |d| (t₂ - t₁) =
 * |d| √(B² - 4AC) / A (Kak & Slaney 1988, §3.2, Eq. 15-17 for the rotated,
 * shifted ellipse give the same result).
 */
#include "sim/ctr-phantom.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"

#include <math.h>
#include <string.h>

/* The head phantom's brain, μ (1/mm). */
#define HEAD_BRAIN_MU 0.0202
/* The head phantom's ellipses before its four lesions (ctr_phantom_new_head). */
#define HEAD_ANATOMY 8

CtrPhantom *
ctr_phantom_new (guint n)
{
  CtrPhantom *ph = g_new0 (CtrPhantom, 1);
  ph->n = n;
  ph->e = g_new0 (CtrEllipse, MAX (n, 1));
  return ph;
}

void
ctr_phantom_free (CtrPhantom *ph)
{
  if (ph == NULL)
    return;
  g_free (ph->e);
  g_free (ph);
}

static void
set_ellipse (CtrEllipse *e, double x, double y, double a, double b, double phi_deg, double value)
{
  e->x_mm = x;
  e->y_mm = y;
  e->a_mm = a;
  e->b_mm = b;
  e->phi_rad = phi_deg * G_PI / 180.0;
  e->value = value;
}

CtrPhantom *
ctr_phantom_new_disc (double x_mm, double y_mm, double radius_mm, double mu)
{
  CtrPhantom *ph = ctr_phantom_new (1);
  set_ellipse (&ph->e[0], x_mm, y_mm, radius_mm, radius_mm, 0.0, mu);
  return ph;
}

CtrPhantom *
ctr_phantom_new_shepp_logan (double radius_mm, double mu_scale)
{
  /* Shepp & Logan (1974) geometry as tabulated by Kak & Slaney, Table 3.1
   * (the rotated ellipses written with their own x semi-axis first, as in
   * MATLAB's phantom()), with Toft's (1996) "modified" intensities. */
  static const double t[10][6] = {
    /* x       y        a       b       phi(deg) value */
    {  0.0,    0.0,     0.69,   0.92,    0.0,    1.0 },
    {  0.0,   -0.0184,  0.6624, 0.874,   0.0,   -0.8 },
    {  0.22,   0.0,     0.11,   0.31,  -18.0,   -0.2 },
    { -0.22,   0.0,     0.16,   0.41,   18.0,   -0.2 },
    {  0.0,    0.35,    0.21,   0.25,    0.0,    0.1 },
    {  0.0,    0.1,     0.046,  0.046,   0.0,    0.1 },
    {  0.0,   -0.1,     0.046,  0.046,   0.0,    0.1 },
    { -0.08,  -0.605,   0.046,  0.023,   0.0,    0.1 },
    {  0.0,   -0.606,   0.023,  0.023,   0.0,    0.1 },
    {  0.06,  -0.605,   0.023,  0.046,   0.0,    0.1 },
  };
  CtrPhantom *ph = ctr_phantom_new (G_N_ELEMENTS (t));
  for (guint i = 0; i < G_N_ELEMENTS (t); i++)
    set_ellipse (&ph->e[i], t[i][0] * radius_mm, t[i][1] * radius_mm,
                 t[i][2] * radius_mm, t[i][3] * radius_mm, t[i][4], t[i][5] * mu_scale);
  return ph;
}

CtrPhantom *
ctr_phantom_new_head (double radius_mm)
{
  /* An axial slice at the level of the lateral ventricles, anterior (face) at
   * +y.  Designed in mm for radius_mm = 100 and scaled.  Values are the
   * increments each ellipse adds; the totals are stated beside them
   * (mu_water = 0.0192 /mm, HU = 1000 (mu - mu_water) / mu_water). */
  const double mu_w = CTR_MU_WATER_PER_MM;
  const double scalp = 0.0195;   /* skin and subcutaneous tissue, ≈ +16 HU */
  const double bone = 0.038;     /* skull, ≈ +980 HU */
  const double brain = HEAD_BRAIN_MU;   /* ≈ +52 HU */
  const double csf = 0.0194;     /* ≈ +10 HU */
  const double calc = 0.03;      /* calcification, ≈ +560 HU */
  const double s = radius_mm / 100.0;
  static const struct { double x, y, a, b, phi; } shape[] = {
    {   0.0,   0.0,  80.0,  99.0,   0.0 },  /* scalp (outer contour) */
    {   0.0,   0.0,  76.0,  95.0,   0.0 },  /* skull outer table */
    {   0.0,  -2.0,  70.0,  86.0,   0.0 },  /* brain (inner table; frontal bone thicker) */
    {   0.0,  89.5,  10.0,   3.0,   0.0 },  /* frontal sinus (air) */
    {   9.0,   8.0,   3.5,  18.0, -10.0 },  /* right lateral ventricle (x > 0) */
    {  -9.0,   8.0,   3.5,  18.0,  10.0 },  /* left lateral ventricle */
    {   0.0,  -6.0,   1.2,   6.0,   0.0 },  /* third ventricle */
    {   0.0, -16.0,   1.0,   1.0,   0.0 },  /* pineal calcification, 2 mm */
    { -35.0,  35.0,   6.0,   6.0,   0.0 },  /* lesion 12 mm, +10 HU */
    {  38.0,  30.0,   4.0,   3.0,  30.0 },  /* lesion 8 × 6 mm, +20 HU */
    {  30.0, -45.0,   2.5,   2.5,   0.0 },  /* lesion 5 mm, +30 HU */
    { -30.0, -40.0,   1.5,   1.5,   0.0 },  /* lesion 3 mm, +30 HU */
  };
  const double value[G_N_ELEMENTS (shape)] = {
    scalp,
    bone - scalp,
    brain - bone,
    -bone,                  /* sinus inside the frontal bone: back to air */
    csf - brain,
    csf - brain,
    csf - brain,
    calc - brain,
    0.010 * mu_w,
    0.020 * mu_w,
    0.030 * mu_w,
    0.030 * mu_w,
  };
  CtrPhantom *ph = ctr_phantom_new (G_N_ELEMENTS (shape));
  for (guint i = 0; i < G_N_ELEMENTS (shape); i++)
    set_ellipse (&ph->e[i], shape[i].x * s, shape[i].y * s, shape[i].a * s, shape[i].b * s,
                 shape[i].phi, value[i]);
  return ph;
}

const CtrIqInsert *
ctr_phantom_iq_inserts (guint *n)
{
  /* The nominal CT numbers of the Catphan CTP404 sensitometry module
   * (LDPE, polystyrene, acrylic, Delrin, Teflon) and a soft-tissue +20 HU
   * (brain/muscle-like low contrast), placed on a ring of 0.6 R every 60°,
   * starting at +x (0°) and running counter-clockwise. */
  static const CtrIqInsert inserts[] = {
    { "ldpe",        -100.0 },
    { "polystyrene",  -35.0 },
    { "tissue",        20.0 },
    { "acrylic",      120.0 },
    { "delrin",       340.0 },
    { "teflon",       990.0 },
  };
  if (n != NULL)
    *n = G_N_ELEMENTS (inserts);
  return inserts;
}

void
ctr_phantom_iq_insert_centre (guint i, double radius_mm, double *x_mm, double *y_mm)
{
  const double a = i * G_PI / 3.0;
  *x_mm = 0.6 * radius_mm * cos (a);
  *y_mm = 0.6 * radius_mm * sin (a);
}

double
ctr_phantom_head_brain_hu (void)
{
  return 1000.0 * (HEAD_BRAIN_MU - CTR_MU_WATER_PER_MM) / CTR_MU_WATER_PER_MM;
}

void
ctr_phantom_head_iq_insert_centre (guint i, double radius_mm, double *x_mm, double *y_mm)
{
  const double a = i * G_PI / 3.0;
  *x_mm = 0.45 * radius_mm * cos (a);
  *y_mm = 0.45 * radius_mm * sin (a) - 0.02 * radius_mm;
}

CtrPhantom *
ctr_phantom_new_head_iq (double radius_mm)
{
  g_autoptr (CtrPhantom) head = ctr_phantom_new_head (radius_mm);
  guint n = 0;
  const CtrIqInsert *ins = ctr_phantom_iq_inserts (&n);
  CtrPhantom *ph = ctr_phantom_new (HEAD_ANATOMY + n);
  memcpy (ph->e, head->e, HEAD_ANATOMY * sizeof (CtrEllipse));
  for (guint i = 0; i < n; i++)
    {
      double x, y;
      ctr_phantom_head_iq_insert_centre (i, radius_mm, &x, &y);
      /* an increment over the brain beneath, to the insert's CT number */
      double mu = CTR_MU_WATER_PER_MM * (1.0 + ins[i].hu / 1000.0);
      set_ellipse (&ph->e[HEAD_ANATOMY + i], x, y, CTR_HEAD_IQ_INSERT_RADIUS * radius_mm,
                   CTR_HEAD_IQ_INSERT_RADIUS * radius_mm, 0, mu - HEAD_BRAIN_MU);
    }
  return ph;
}

CtrPhantom *
ctr_phantom_new_iq (double radius_mm)
{
  guint n = 0;
  const CtrIqInsert *ins = ctr_phantom_iq_inserts (&n);
  const double mu_w = CTR_MU_WATER_PER_MM;
  CtrPhantom *ph = ctr_phantom_new (n + 1);
  set_ellipse (&ph->e[0], 0, 0, radius_mm, radius_mm, 0, mu_w);
  for (guint i = 0; i < n; i++)
    {
      double x, y;
      ctr_phantom_iq_insert_centre (i, radius_mm, &x, &y);
      /* an increment over the water beneath: water·HU/1000 */
      set_ellipse (&ph->e[i + 1], x, y, CTR_IQ_INSERT_RADIUS * radius_mm, CTR_IQ_INSERT_RADIUS * radius_mm, 0,
                   mu_w * ins[i].hu / 1000.0);
    }
  return ph;
}

double
ctr_ellipse_chord (const CtrEllipse *e, const double origin[2], const double dir[2])
{
  const double c = cos (e->phi_rad), sn = sin (e->phi_rad);
  const double ox = origin[0] - e->x_mm, oy = origin[1] - e->y_mm;
  /* rotate by -phi, then scale to the unit circle */
  const double px = (ox * c + oy * sn) / e->a_mm;
  const double py = (-ox * sn + oy * c) / e->b_mm;
  const double dx = (dir[0] * c + dir[1] * sn) / e->a_mm;
  const double dy = (-dir[0] * sn + dir[1] * c) / e->b_mm;
  const double A = dx * dx + dy * dy;
  const double B = 2.0 * (px * dx + py * dy);
  const double C = px * px + py * py - 1.0;
  const double disc = B * B - 4.0 * A * C;
  if (!(disc > 0.0) || !(A > 0.0))
    return 0.0;
  return sqrt (disc) / A * hypot (dir[0], dir[1]);
}

static inline gboolean
inside_ellipse (const CtrEllipse *e, double c, double sn, double x, double y)
{
  const double ox = x - e->x_mm, oy = y - e->y_mm;
  const double px = (ox * c + oy * sn) / e->a_mm;
  const double py = (-ox * sn + oy * c) / e->b_mm;
  return px * px + py * py <= 1.0;
}

CtrVolume *
ctr_phantom_rasterize (const CtrPhantom *ph, const CtrGrid *grid,
                       guint supersample, GError **error)
{
  g_return_val_if_fail (ph != NULL, NULL);
  g_return_val_if_fail (grid != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, "1/mm");

  const guint ss = MAX (supersample, 1), nx = grid->nx, ny = grid->ny;
  const double inv = 1.0 / ((double) ss * ss);
  g_autofree double *cs = g_new (double, MAX (ph->n, 1));
  g_autofree double *sn = g_new (double, MAX (ph->n, 1));
  for (guint i = 0; i < ph->n; i++)
    {
      cs[i] = cos (ph->e[i].phi_rad);
      sn[i] = sin (ph->e[i].phi_rad);
    }
  float *img = ctr_volume_slice (vol, 0);

#pragma omp parallel for schedule(dynamic, 4)
  for (gint64 iy = 0; iy < (gint64) ny; iy++)
    for (guint ix = 0; ix < nx; ix++)
      {
        double sum = 0.0;
        for (guint sy = 0; sy < ss; sy++)
          for (guint sx = 0; sx < ss; sx++)
            {
              /* sample offsets in pixel units, symmetric about the centre */
              double x = ctr_grid_x (grid, ix + (sx + 0.5) / ss - 0.5);
              double y = ctr_grid_y (grid, iy + (sy + 0.5) / ss - 0.5);
              for (guint i = 0; i < ph->n; i++)
                if (inside_ellipse (&ph->e[i], cs[i], sn[i], x, y))
                  sum += ph->e[i].value;
            }
        img[(gsize) iy * nx + ix] = (float) (sum * inv);
      }

  for (guint z = 1; z < grid->nz; z++)
    memcpy (ctr_volume_slice (vol, z), img, ctr_grid_slice_size (grid) * sizeof (float));
  return g_steal_pointer (&vol);
}

static CtrProjections *
project (const CtrPhantom *ph, const CtrGeometry *g, guint rays_per_bin, const CtrSpectrum *spectrum,
         GError **error)
{
  g_return_val_if_fail (ph != NULL, NULL);
  g_return_val_if_fail (g != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ctr_geometry_validate (g, error))
    return NULL;
  if (g->beam != CTR_BEAM_PARALLEL && g->beam != CTR_BEAM_FAN)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "analytic projection handles parallel and fan beam only");
      return NULL;
    }
  g_autoptr (CtrProjections) p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols,
                                                      CTR_PROJ_LINE_INTEGRALS, error);
  if (p == NULL)
    return NULL;

  const guint nr = MAX (rays_per_bin, 1), nc = g->n_cols;

#pragma omp parallel for schedule(dynamic, 1)
  for (gint64 v = 0; v < (gint64) g->n_views; v++)
    {
      float *view = ctr_projections_view (p, (guint) v);
      for (guint c = 0; c < nc; c++)
        {
          double sum = 0.0;
          for (guint k = 0; k < nr; k++)
            {
              double origin[2], dir[2], ray = 0.0;
              ctr_geometry_ray (g, (guint) v, c + (k + 0.5) / nr - 0.5, origin, dir);
              for (guint i = 0; i < ph->n; i++)
                ray += ph->e[i].value * ctr_ellipse_chord (&ph->e[i], origin, dir);
              /* polychromatic: the ray's water-equivalent path through the spectrum */
              sum += spectrum != NULL ? ctr_spectrum_water_line_integral (spectrum, ray / CTR_MU_WATER_PER_MM) : ray;
            }
          view[c] = (float) (sum / nr);
        }
      for (guint r = 1; r < g->n_rows; r++)
        memcpy (view + (gsize) r * nc, view, nc * sizeof (float));
    }
  return g_steal_pointer (&p);
}

CtrProjections *
ctr_phantom_project (const CtrPhantom *ph, const CtrGeometry *g,
                     guint rays_per_bin, GError **error)
{
  return project (ph, g, rays_per_bin, NULL, error);
}

CtrProjections *
ctr_phantom_project_spectrum (const CtrPhantom *ph, const CtrGeometry *g, guint rays_per_bin,
                              const CtrSpectrum *spectrum, GError **error)
{
  g_return_val_if_fail (spectrum != NULL, NULL);
  return project (ph, g, rays_per_bin, spectrum, error);
}
