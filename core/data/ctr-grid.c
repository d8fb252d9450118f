/* ctr-grid.c — the reconstruction grid a scan gets (see ctr-grid.h for the
 * rule). */
#include "data/ctr-grid.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"

#include <math.h>

/* The x/y part of the default grid (ctr_grid_default's first sentences),
 * with the cone-beam rows in z. */
static CtrGrid
plane_grid (const CtrGeometry *g, guint size, double pixel_mm)
{
  const double diameter = 2.0 * ctr_geometry_fov_radius_mm (g);
  double px = pixel_mm > 0 ? pixel_mm : 0.0;
  guint n = size;
  if (n == 0 && px == 0)
    px = ctr_geometry_pitch_at_iso_mm (g);
  if (n == 0)
    {
      /* In double first: a pixel of 8.6e-9 mm over a 220 mm disc is 2.6e10
       * pixels, beyond guint.  Saturate, so ctr_grid_validate refuses the
       * grid as too large instead of wrapping round to a plausible size. */
      const double want = ceil (diameter / px - 1e-6);
      n = !(want >= 1.0) ? 1 : want >= (double) G_MAXUINT ? G_MAXUINT : (guint) want;
    }
  if (px == 0)
    px = diameter / n;
  if (g->beam != CTR_BEAM_CONE)
    return ctr_grid_square (n, px, g->n_rows, g->pitch_v_mm);
  const double mag = g->sod_mm / g->sdd_mm;
  CtrGrid grid = ctr_grid_square (n, px, g->n_rows, g->pitch_v_mm * mag);
  grid.cz = g->offset_v_mm * mag;
  return grid;
}

/* @plane's x/y with slices at table positions @first, @first + @step, …,
 * <= @last (+1e-6 step); the count saturates like plane_grid's size. */
static CtrGrid
slices_grid (const CtrGeometry *g, CtrGrid plane, double first, double last, double step)
{
  const double n = floor ((last - first) / step + 1e-6) + 1.0;
  const double end = first + (n - 1.0) * step;
  plane.nz = n >= (double) G_MAXUINT ? G_MAXUINT : (guint) MAX (1.0, n);
  plane.dz = step;
  plane.cz = 0.5 * (ctr_geometry_table_mm (g, first) + ctr_geometry_table_mm (g, end));
  return plane;
}

gboolean
ctr_grid_helical_range (const CtrGeometry *g, gboolean complementary, double *first, double *last, double *step)
{
  double lo, hi;
  if (g->source_z_mm == NULL || !ctr_helix_z_coverage (g, complementary, &lo, &hi))
    return FALSE;
  const double w = ctr_geometry_slice_width_mm (g);
  const double t0 = MIN (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi));
  const double t1 = MAX (ctr_geometry_table_mm (g, lo), ctr_geometry_table_mm (g, hi));
  double a = ceil (t0 / w - 1e-9) * w, b = floor (t1 / w + 1e-9) * w;
  if (b < a)
    a = b = 0.5 * (t0 + t1);
  *first = a;
  *last = b;
  *step = w;
  return TRUE;
}

CtrGrid
ctr_grid_default (const CtrGeometry *g, guint size, double pixel_mm)
{
  const CtrGrid plane = plane_grid (g, size, pixel_mm);
  double first, last, step;
  /* no rebinning is known here: the range every mode samples fully */
  if (ctr_geometry_is_helical (g) && ctr_grid_helical_range (g, FALSE, &first, &last, &step))
    return slices_grid (g, plane, first, last, step);
  return plane;
}

gboolean
ctr_grid_parse_z_range (const char *text, double out[3], GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  g_auto (GStrv) parts = g_strsplit (text, ":", -1);
  double v[3] = { 0, 0, 0 };
  gboolean ok = g_strv_length (parts) == 3;
  for (guint i = 0; ok && i < 3; i++)
    {
      char *end = NULL;
      v[i] = g_ascii_strtod (parts[i], &end);
      ok = end != parts[i] && *end == '\0' && isfinite (v[i]);
    }
  if (!ok || !(v[2] > 0) || v[1] < v[0])
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "--z-range takes FIRST:LAST:STEP in mm with "
                   "FIRST <= LAST and STEP > 0, got '%s'", text);
      return FALSE;
    }
  for (guint i = 0; i < 3; i++)
    out[i] = v[i];
  return TRUE;
}

gboolean
ctr_grid_check_options (const CtrGeometry *g, gboolean z_range, gboolean rebin, gboolean z_size, GError **error)
{
  g_return_val_if_fail (g != NULL, FALSE);
  const gboolean helical = ctr_helix_applies (g);
  if ((z_range || rebin) && !helical)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "--z-range and --rebin are for helical "
                           "(and curved multi-row) cone-beam scans; this scan is not one");
      return FALSE;
    }
  if (helical && z_size)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "a helical scan's slices come from "
                           "--z-range; give --size N and --pixel-size MM for the image");
      return FALSE;
    }
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
  *grid = slices_grid (g, plane_grid (g, size, pixel_mm), first, last, step);
  return TRUE;
}

/* The reference's grid as the reconstruction's: fan and parallel beam keep
 * its x/y and take one slice per detector row; cone beam keeps it whole. */
static CtrGrid
reference_grid (const CtrGeometry *g, const CtrGrid *reference)
{
  CtrGrid grid = *reference;
  if (g->beam != CTR_BEAM_CONE)
    {
      grid.nz = g->n_rows;
      grid.dz = g->pitch_v_mm;
      grid.cz = 0;
    }
  return grid;
}

/* Whether @r leaves the reference's plane as it is: each of size and pixel
 * is not given (0) or the reference's own (the pixel within 1e-6
 * relative).  "--size 256" on a 256² reference of 0.957 mm keeps its
 * 0.957 mm pixels: metrics against it then compare like with like. */
static gboolean
request_keeps_reference (const CtrGridRequest *r, const CtrGrid *reference)
{
  return (r->size == 0 || r->size == reference->nx)
         && (r->pixel_mm == 0 || fabs (r->pixel_mm - reference->dx) <= 1e-6 * reference->dx);
}

gboolean
ctr_grid_for_scan (const CtrGeometry *g, const CtrGrid *reference, const CtrGridRequest *request,
                   CtrGrid *grid, GError **error)
{
  static const CtrGridRequest defaults = { 0 };
  const CtrGridRequest *r = request != NULL ? request : &defaults;
  g_return_val_if_fail (g != NULL && grid != NULL, FALSE);

  if (!ctr_helix_applies (g))
    {
      if (reference != NULL && request_keeps_reference (r, reference))
        *grid = reference_grid (g, reference);
      else
        *grid = ctr_grid_default (g, r->size, r->pixel_mm);
      return TRUE;
    }
  if (r->z_range)
    return ctr_helix_grid (g, r->size, r->pixel_mm, r->z_first, r->z_last, r->z_step, grid, error);
  if (reference != NULL && request_keeps_reference (r, reference))
    {
      *grid = reference_grid (g, reference);
      return TRUE;
    }
  if (g->source_z_mm == NULL)   /* an axial multi-row scan: its rows' slices */
    {
      *grid = ctr_grid_default (g, r->size, r->pixel_mm);
      return TRUE;
    }
  double first, last, step;
  if (!ctr_grid_helical_range (g, !r->direct_rays_only, &first, &last, &step))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "the scan samples no z range fully (less than a rotation?); give the slices with --z-range");
      return FALSE;
    }
  return ctr_helix_grid (g, r->size, r->pixel_mm, first, last, step, grid, error);
}
