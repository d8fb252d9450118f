/* ctr-geometry.c — see ctr-geometry.h for the conventions (FORMAT.md). */
#include "ctr-geometry.h"
#include "ctr-helix.h"
#include "ctr-error.h"

#include <math.h>

CtrGeometry *
ctr_geometry_new (CtrBeam beam, guint n_views)
{
  CtrGeometry *g = g_new0 (CtrGeometry, 1);
  g->beam = beam;
  g->shape = CTR_DETECTOR_FLAT;
  g->n_views = n_views;
  g->n_rows = 1;
  g->n_cols = 1;
  g->pitch_u = 1.0;
  g->pitch_v_mm = 1.0;
  g->rows_increase_with_v = TRUE;
  g->pixel_size_known = TRUE;
  g->angles = g_new0 (double, MAX (n_views, 1));
  return g;
}

CtrGeometry *
ctr_geometry_copy (const CtrGeometry *g)
{
  g_return_val_if_fail (g != NULL, NULL);
  CtrGeometry *c = g_memdup2 (g, sizeof *g);
  c->angles = g_memdup2 (g->angles, sizeof (double) * MAX (g->n_views, 1));
  c->source_z_mm = g->source_z_mm ? g_memdup2 (g->source_z_mm, sizeof (double) * g->n_views) : NULL;
  c->focal_shift = g->focal_shift ? g_memdup2 (g->focal_shift, sizeof (double) * 3 * g->n_views) : NULL;
  return c;
}

void
ctr_geometry_free (CtrGeometry *g)
{
  if (g == NULL)
    return;
  g_free (g->angles);
  g_free (g->source_z_mm);
  g_free (g->focal_shift);
  g_free (g);
}

void
ctr_geometry_set_uniform_angles (CtrGeometry *g, double start_rad, double step_rad)
{
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] = start_rad + k * step_rad;
}

void
ctr_geometry_set_source_z (CtrGeometry *g, double start_mm, double step_mm)
{
  g_return_if_fail (g != NULL);
  if (g->source_z_mm == NULL)
    g->source_z_mm = g_new (double, MAX (g->n_views, 1));
  for (guint k = 0; k < g->n_views; k++)
    g->source_z_mm[k] = start_mm + k * step_mm;
}

void
ctr_geometry_copy_motion (CtrGeometry *dst, const CtrGeometry *src)
{
  g_return_if_fail (dst != NULL && src != NULL);
  g_clear_pointer (&dst->source_z_mm, g_free);
  g_clear_pointer (&dst->focal_shift, g_free);
  dst->table_reversed = src->table_reversed;
  if (dst->n_views != src->n_views)
    return;
  if (src->source_z_mm != NULL)
    dst->source_z_mm = g_memdup2 (src->source_z_mm, sizeof (double) * src->n_views);
  if (src->focal_shift != NULL)
    dst->focal_shift = g_memdup2 (src->focal_shift, sizeof (double) * 3 * src->n_views);
}

static gboolean
positive_finite (double v)
{
  return isfinite (v) && v > 0.0;
}

gboolean
ctr_geometry_validate (const CtrGeometry *g, GError **error)
{
#define FAIL(...) do { g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, __VA_ARGS__); return FALSE; } while (0)
  if (g == NULL)
    FAIL ("no geometry given");
  if (g->n_views == 0)
    FAIL ("the geometry has zero views");
  if (g->n_cols == 0 || g->n_rows == 0)
    FAIL ("the detector has %u rows x %u columns; both must be at least 1", g->n_rows, g->n_cols);
  if ((guint64) g->n_views * g->n_cols * g->n_rows > G_MAXUINT32 * (guint64) 4)
    FAIL ("%u views x %u rows x %u columns is too large", g->n_views, g->n_rows, g->n_cols);
  if (g->beam != CTR_BEAM_PARALLEL && g->beam != CTR_BEAM_FAN && g->beam != CTR_BEAM_CONE)
    FAIL ("unknown beam type %d", (int) g->beam);
  if (!positive_finite (g->pitch_u))
    FAIL ("detector column pitch must be positive, got %g", g->pitch_u);
  if (!positive_finite (g->pitch_v_mm))
    FAIL ("detector row pitch must be positive, got %g mm", g->pitch_v_mm);
  if (!isfinite (g->offset_u) || !isfinite (g->offset_v_mm))
    FAIL ("detector offsets must be finite numbers");
  for (guint k = 0; k < g->n_views; k++)
    if (!isfinite (g->angles[k]))
      FAIL ("view %u has a non-finite angle", k);
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      if (!positive_finite (g->sod_mm))
        FAIL ("source to isocentre distance must be positive, got %g mm", g->sod_mm);
      if (!positive_finite (g->sdd_mm))
        FAIL ("source to detector distance must be positive, got %g mm", g->sdd_mm);
      if (g->sdd_mm <= g->sod_mm)
        FAIL ("source to detector distance (%g mm) must exceed source to isocentre distance (%g mm)",
              g->sdd_mm, g->sod_mm);
      double umax = MAX (fabs (ctr_geometry_col_u (g, -0.5)), fabs (ctr_geometry_col_u (g, g->n_cols - 0.5)));
      if (g->shape == CTR_DETECTOR_CURVED && umax >= G_PI_2)
        FAIL ("a curved detector's fan reaches %g rad from the central ray; it must stay below pi/2 "
              "(is the column pitch in radians?)", umax);
      double gamma = g->shape == CTR_DETECTOR_CURVED ? umax : atan (umax / g->sdd_mm);
      if (g->sod_mm * sin (gamma) <= 0.0)
        FAIL ("the fan covers no field of view");
    }
  if ((g->source_z_mm != NULL || g->focal_shift != NULL) && g->beam != CTR_BEAM_CONE)
    FAIL ("a source z per view or a flying focal spot needs cone beam (several detector rows or a helix)");
  for (guint k = 0; g->source_z_mm != NULL && k < g->n_views; k++)
    if (!isfinite (g->source_z_mm[k]))
      FAIL ("view %u has a non-finite source z", k);
  for (guint k = 0; g->focal_shift != NULL && k < g->n_views; k++)
    {
      const double *f = g->focal_shift + 3 * k;
      if (!isfinite (f[0]) || !isfinite (f[1]) || !isfinite (f[2]))
        FAIL ("view %u has a non-finite focal-spot shift", k);
      if (fabs (f[0]) >= G_PI_2 || fabs (f[2]) >= 0.5 * g->sod_mm)
        FAIL ("view %u: the focal spot is shifted by %g rad and %g mm radially; at most pi/2 and half "
              "the source to isocentre distance", k, f[0], f[2]);
    }
  if (ctr_geometry_is_helical (g) && g->n_views > 1)
    {
      const double dir = g->angles[g->n_views - 1] > g->angles[0] ? 1.0 : -1.0;
      for (guint k = 1; k < g->n_views; k++)
        if (!(dir * (g->angles[k] - g->angles[k - 1]) > 0.0))
          FAIL ("a helical scan's view angles must increase (or decrease) from view to view; view %u "
                "is at %g rad after %g rad", k, g->angles[k], g->angles[k - 1]);
    }
  return TRUE;
#undef FAIL
}

double
ctr_geometry_col_u (const CtrGeometry *g, double col)
{
  return (col - (g->n_cols - 1) * 0.5) * g->pitch_u + g->offset_u;
}

double
ctr_geometry_u_col (const CtrGeometry *g, double u)
{
  return (u - g->offset_u) / g->pitch_u + (g->n_cols - 1) * 0.5;
}

double
ctr_geometry_row_v (const CtrGeometry *g, double row)
{
  double v = (row - (g->n_rows - 1) * 0.5) * g->pitch_v_mm;
  if (!g->rows_increase_with_v)
    v = -v;
  return v + g->offset_v_mm;
}

guint
ctr_geometry_slice_row (const CtrGeometry *g, guint slice)
{
  g_return_val_if_fail (slice < g->n_rows, 0);
  return g->rows_increase_with_v ? slice : g->n_rows - 1 - slice;
}

void
ctr_geometry_ray (const CtrGeometry *g, guint view, double col,
                  double origin[2], double dir[2])
{
  const double b = g->angles[view];
  const double sb = sin (b), cb = cos (b);
  /* d0: central ray direction (source → isocentre); eu: detector u axis. */
  const double d0[2] = { -sb, cb };
  const double eu[2] = { cb, sb };
  const double u = ctr_geometry_col_u (g, col);

  if (g->beam == CTR_BEAM_PARALLEL)
    {
      origin[0] = u * eu[0];
      origin[1] = u * eu[1];
      dir[0] = d0[0];
      dir[1] = d0[1];
      return;
    }

  origin[0] = g->sod_mm * sb;
  origin[1] = -g->sod_mm * cb;
  double cg, sg;
  if (g->shape == CTR_DETECTOR_CURVED)
    {
      cg = cos (u);
      sg = sin (u);
    }
  else
    {
      double n = hypot (g->sdd_mm, u);
      cg = g->sdd_mm / n;
      sg = u / n;
    }
  dir[0] = cg * d0[0] + sg * eu[0];
  dir[1] = cg * d0[1] + sg * eu[1];
}

void
ctr_geometry_projection_matrix (const CtrGeometry *g, guint view, double P[12])
{
  g_return_if_fail (g != NULL && view < g->n_views);
  /* iFDK Eqs. 1-3 (M1 · M_rot · M0) in the FORMAT.md frame: source
   * S = R (sin b, -cos b, 0), d0 = (-sin b, cos b, 0), e_u = (cos b, sin b, 0),
   * e_v = +z.  Depth h2 = (X - S)·d0 = -x sin b + y cos b + R; the flat panel
   * at SDD gives u = SDD (X·e_u) / h2 and v = SDD z / h2; column and row then
   * follow the affine index maps of ctr_geometry_u_col / ctr_geometry_row_v. */
  const double b = g->angles[view], sb = sin (b), cb = cos (b), r = g->sod_mm;
  const double sv = g->rows_increase_with_v ? 1.0 : -1.0;
  const double c0 = ctr_geometry_u_col (g, 0.0);
  const double r0 = (g->n_rows - 1) * 0.5 - sv * g->offset_v_mm / g->pitch_v_mm;
  const double ku = g->sdd_mm / g->pitch_u, kv = sv * g->sdd_mm / g->pitch_v_mm;
  const double d[4] = { -sb, cb, 0.0, r };
  const double eu[4] = { cb, sb, 0.0, 0.0 };
  const double ez[4] = { 0.0, 0.0, 1.0, 0.0 };
  for (guint k = 0; k < 4; k++)
    {
      P[k] = ku * eu[k] + c0 * d[k];
      P[4 + k] = kv * ez[k] + r0 * d[k];
      P[8 + k] = d[k];
    }
}

static double
edge_radius (const CtrGeometry *g, double u)
{
  u = fabs (u);
  switch (g->beam)
    {
    case CTR_BEAM_PARALLEL:
      return u;
    case CTR_BEAM_FAN:
    case CTR_BEAM_CONE:
    default:
      if (g->shape == CTR_DETECTOR_CURVED)
        return g->sod_mm * sin (MIN (u, G_PI_2));
      return g->sod_mm * sin (atan (u / g->sdd_mm));
    }
}

double
ctr_geometry_fov_radius_mm (const CtrGeometry *g)
{
  double u0 = ctr_geometry_col_u (g, -0.5);
  double u1 = ctr_geometry_col_u (g, g->n_cols - 0.5);
  /* An offset detector that does not straddle the axis covers no centred disc;
   * report the larger side then (a half-fan scan covers that disc in 360°). */
  if (u0 > 0 || u1 < 0)
    return MAX (edge_radius (g, u0), edge_radius (g, u1));
  return MIN (edge_radius (g, u0), edge_radius (g, u1));
}

double
ctr_geometry_pitch_at_iso_mm (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_PARALLEL)
    return g->pitch_u;
  if (g->shape == CTR_DETECTOR_CURVED)
    return g->pitch_u * g->sod_mm;
  return g->pitch_u * g->sod_mm / g->sdd_mm;
}

double
ctr_geometry_angular_range (const CtrGeometry *g)
{
  if (g->n_views < 2)
    return 0.0;
  double lo = g->angles[0], hi = g->angles[0];
  for (guint k = 1; k < g->n_views; k++)
    {
      lo = MIN (lo, g->angles[k]);
      hi = MAX (hi, g->angles[k]);
    }
  double span = hi - lo;
  return span + span / (g->n_views - 1);
}

double
ctr_geometry_half_fan_angle (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_PARALLEL)
    return 0.0;
  double u = MAX (fabs (ctr_geometry_col_u (g, -0.5)), fabs (ctr_geometry_col_u (g, g->n_cols - 0.5)));
  return g->shape == CTR_DETECTOR_CURVED ? u : atan (u / g->sdd_mm);
}

char *
ctr_geometry_describe (const CtrGeometry *g)
{
  const char *beam = g->beam == CTR_BEAM_PARALLEL ? "parallel" : g->beam == CTR_BEAM_FAN ? "fan" : "cone";
  const char *shape = g->beam == CTR_BEAM_PARALLEL ? "" : g->shape == CTR_DETECTOR_CURVED ? ", curved detector" : ", flat detector";
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s beam%s, %u views over %.1f°, %u rows × %u columns",
                          beam, shape, g->n_views, ctr_geometry_angular_range (g) * 180.0 / G_PI,
                          g->n_rows, g->n_cols);
  if (g->beam != CTR_BEAM_PARALLEL)
    g_string_append_printf (s, ", SOD %.1f mm, SDD %.1f mm", g->sod_mm, g->sdd_mm);
  g_string_append_printf (s, ", field of view Ø %.1f mm", 2.0 * ctr_geometry_fov_radius_mm (g));
  if (ctr_geometry_is_helical (g))
    {
      const double z0 = g->source_z_mm[0], z1 = g->source_z_mm[g->n_views - 1];
      g_string_append_printf (s, "; helical, table feed %.3g mm per rotation (pitch %.3g), slice width %.3g mm, "
                              "source at table %.2f … %.2f mm",
                              fabs (ctr_helix_feed_mm (g)), ctr_helix_pitch (g), ctr_geometry_slice_width_mm (g),
                              ctr_geometry_table_mm (g, z0), ctr_geometry_table_mm (g, z1));
    }
  if (g->focal_shift != NULL)
    g_string_append (s, "; flying focal spot");
  return g_string_free (s, FALSE);
}

CtrGrid
ctr_grid_default (const CtrGeometry *g, guint size, double pixel_mm)
{
  const double diameter = 2.0 * ctr_geometry_fov_radius_mm (g);
  double px = pixel_mm > 0 ? pixel_mm : 0.0;
  guint n = size;
  if (n == 0 && px == 0)
    px = ctr_geometry_pitch_at_iso_mm (g);
  if (n == 0)
    n = (guint) MAX (1.0, ceil (diameter / px - 1e-6));
  if (px == 0)
    px = diameter / n;
  if (g->beam != CTR_BEAM_CONE)
    return ctr_grid_square (n, px, g->n_rows, g->pitch_v_mm);
  double z_lo, z_hi;
  if (ctr_geometry_is_helical (g) && ctr_helix_z_coverage (g, FALSE, &z_lo, &z_hi))
    {
      const double w = ctr_geometry_slice_width_mm (g);
      const guint nz = (guint) MAX (1.0, floor ((z_hi - z_lo) / w + 1e-6) + 1.0);
      CtrGrid grid = ctr_grid_square (n, px, nz, w);
      grid.cz = 0.5 * (z_lo + z_hi);
      return grid;
    }
  const double mag = g->sod_mm / g->sdd_mm;
  CtrGrid grid = ctr_grid_square (n, px, g->n_rows, g->pitch_v_mm * mag);
  grid.cz = g->offset_v_mm * mag;
  return grid;
}
