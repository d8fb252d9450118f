/* ctr-recon-cone.c — cone-beam methods behind ctr_reconstruct(). */
#include "ctr-recon-cone.h"
#include "ctr-error.h"
#include "analytic/ctr-fdk.h"
#include "solve/ctr-cone-solve.h"
#include "ctr-backend.h"

#include <math.h>
#include <string.h>

CtrGrid
ctr_cone_default_grid (const CtrGeometry *g, guint size, double pixel_mm)
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
  const double mag = g->sod_mm / g->sdd_mm;
  CtrGrid grid = ctr_grid_square (n, px, g->n_rows, g->pitch_v_mm * mag);
  grid.cz = g->offset_v_mm * mag;
  return grid;
}

/* Trilinear sample of @v at continuous index (fx, fy, fz); 0 outside. */
static double
sample_trilinear (const CtrVolume *v, double fx, double fy, double fz)
{
  const CtrGrid *g = &v->grid;
  if (!(fx > -1 && fy > -1 && fz > -1 && fx < g->nx && fy < g->ny && fz < g->nz))
    return 0.0;
  if (g->nz == 1)
    fz = 0.0;  /* a 2-D reference serves every slice */
  gint64 x0 = (gint64) floor (fx), y0 = (gint64) floor (fy), z0 = (gint64) floor (fz);
  double ex = fx - x0, ey = fy - y0, ez = fz - z0, acc = 0.0;
  for (int dz = 0; dz < 2; dz++)
    for (int dy = 0; dy < 2; dy++)
      for (int dx = 0; dx < 2; dx++)
        {
          gint64 x = x0 + dx, y = y0 + dy, z = z0 + dz;
          if (x < 0 || y < 0 || z < 0 || x >= g->nx || y >= g->ny || z >= g->nz)
            continue;
          double w = (dx ? ex : 1 - ex) * (dy ? ey : 1 - ey) * (dz ? ez : 1 - ez);
          acc += w * ctr_volume_slice (v, (guint) z)[(gsize) y * g->nx + x];
        }
  return acc;
}

static CtrVolume *
reference_on_grid_3d (const CtrVolume *ref, const CtrGrid *grid, GError **error)
{
  if (ctr_grid_equal (&ref->grid, grid))
    return ctr_volume_copy (ref);
  CtrVolume *out = ctr_volume_new (grid, error);
  if (out == NULL)
    return NULL;
  const CtrGrid *rg = &ref->grid;
#pragma omp parallel for schedule(static)
  for (gint64 iz = 0; iz < (gint64) grid->nz; iz++)
    for (guint iy = 0; iy < grid->ny; iy++)
      for (guint ix = 0; ix < grid->nx; ix++)
        {
          double x = ctr_grid_x (grid, ix), y = ctr_grid_y (grid, iy), z = ctr_grid_z (grid, iz);
          double fx = (x - rg->cx) / rg->dx + (rg->nx - 1) * 0.5;
          double fy = (rg->ny - 1) * 0.5 - (y - rg->cy) / rg->dy;
          double fz = rg->nz == 1 ? 0.0 : (z - rg->cz) / rg->dz + (rg->nz - 1) * 0.5;
          ctr_volume_slice (out, (guint) iz)[(gsize) iy * grid->nx + ix] =
            (float) sample_trilinear (ref, fx, fy, fz);
        }
  ctr_volume_set_unit (out, ref->unit);
  return out;
}

/* FDK on the backend o->backend selects when it has one (a GPU with a
 * device: gpu/ctr-cuda-fdk.c); the CPU's ctr_fdk_run otherwise, and when
 * the device cannot run it (unavailable, too little memory), saying why. */
static CtrVolume *
ctr_fdk_on_backend (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                    const CtrReconOptions *o, CtrFdkTimings *t, GCancellable *cancellable,
                    GError **error)
{
  g_autofree char *note = NULL;
  const CtrBackend *b = ctr_backend_select (o->backend, &note, error);
  if (b == NULL)
    return NULL;
  CtrBackendRunFdk fdk = ctr_backend_fdk (b);
  if (note != NULL && o->backend != NULL && strcmp (o->backend, "best") != 0)
    g_message ("%s", note);
  if (fdk != NULL)
    {
      GError *e = NULL;
      CtrVolume *vol = fdk (b, g, p, grid, o, t, cancellable, &e);
      if (vol != NULL)
        return vol;
      if (!g_error_matches (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE)
          && !g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
        {
          g_propagate_error (error, e);
          return NULL;
        }
      g_message ("FDK on backend %s could not run (%s); the CPU runs instead", b->name, e->message);
      g_error_free (e);
    }
  else if (b != ctr_backend_cpu ())
    g_message ("backend %s has no FDK; the CPU runs it", b->name);
  return ctr_fdk_run (g, p, grid, o->window, o->cutoff, t, cancellable, error);
}

CtrVolume *
ctr_reconstruct_cone (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                      const CtrReconOptions *o, const CtrVolume *reference,
                      CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                      GError **error)
{
  if (o->method != CTR_METHOD_FDK && o->method != CTR_METHOD_SART && o->method != CTR_METHOD_SIRT)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "cone beam is reconstructed with fdk, sart or sirt; %s is for fan and parallel beam",
                   ctr_method_name (o->method));
      return NULL;
    }
  g_autoptr (CtrVolume) ref = NULL;
  if (reference != NULL)
    {
      ref = reference_on_grid_3d (reference, grid, error);
      if (ref == NULL)
        return NULL;
    }

  if (o->method == CTR_METHOD_FDK)
    {
      CtrFdkTimings t;
      CtrVolume *vol = ctr_fdk_on_backend (g, p, grid, o, &t, cancellable, error);
      if (vol != NULL)
        ctr_iter_report_single_pass (o->method, vol, ref, o->metrics_radius_mm, t.total_s, callback, user_data);
      return vol;
    }

  g_autoptr (CtrConeProjector) cp = ctr_cone_projector_new (g, grid, error);
  if (cp == NULL)
    return NULL;
  return ctr_cone_solve_run (cp, p, o, ref, callback, user_data, cancellable, error);
}
