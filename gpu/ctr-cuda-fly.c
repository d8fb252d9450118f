/* ctr-cuda-fly.c — GLib side of the GPU's on-the-fly pair (ctr-cuda-fly.h):
 * the ray table from core (ctr_fly_ray_table), the subsets' view lists and
 * GError conversion. */
#include "ctr-cuda-fly.h"
#include "ctr-cuda.h"
#include "sysmat/ctr-fly-rays.h"
#include "sysmat/ctr-operator.h"
#include "base/ctr-error.h"

/* The subsets' views: one view each, or each orbit's distinct views. */
static gboolean
subset_lists (const CtrGeometry *g, const CtrSymmetry *orbits, guint **ptr, guint **views, guint *n_subsets,
              GError **error)
{
  const guint n = orbits != NULL ? orbits->n_orbits : g->n_views;
  *ptr = g_try_new (guint, n + 1);
  *views = g_try_new (guint, g->n_views);
  if (*ptr == NULL || *views == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the subsets' view lists");
      return FALSE;
    }
  guint at = 0;
  for (guint s = 0; s < n; s++)
    {
      (*ptr)[s] = at;
      gint32 v[8];
      const guint k = orbits != NULL ? ctr_symmetry_orbit_views (orbits, s, v) : 1;
      if (orbits == NULL)
        v[0] = (gint32) s;
      for (guint i = 0; i < k; i++)
        {
          gboolean seen = FALSE;
          for (guint q = (*ptr)[s]; q < at && !seen; q++)
            seen = (*views)[q] == (guint) v[i];
          if (!seen && at < g->n_views)
            (*views)[at++] = (guint) v[i];
        }
    }
  (*ptr)[n] = at;
  *n_subsets = n;
  return TRUE;
}

CtrCudaFly *
ctr_cuda_fly_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, const CtrSymmetry *orbits,
                  GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error))
    return NULL;
  if (g->beam == CTR_BEAM_CONE || grid->nz != g->n_rows || model > CTR_RAY_MODEL_AREA)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the GPU's on-the-fly projector is for fan and parallel beam with one slice per detector row "
                   "(%u slices, %u rows) and a known ray model", grid->nz, g->n_rows);
      return NULL;
    }
  if (grid->nz > 65535)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the GPU's on-the-fly projector takes at most 65535 slices, not %u", grid->nz);
      return NULL;
    }
  g_autofree double *rays = ctr_fly_ray_table (g, grid, model, error);
  if (rays == NULL)
    return NULL;
  g_autofree guint *ptr = NULL, *views = NULL;
  guint n_subsets = 0;
  if (!subset_lists (g, orbits, &ptr, &views, &n_subsets, error))
    return NULL;
  const CtrCudaFlyDesc d = {
    .n_views = g->n_views, .n_cols = g->n_cols,
    .nx = grid->nx, .ny = grid->ny, .ns = grid->nz,
    .model = (int) model,
    .half_line = g->beam != CTR_BEAM_PARALLEL,
    .dx = grid->dx, .dy = grid->dy, .cx = grid->cx, .cy = grid->cy,
    .rays = rays,
    .n_subsets = n_subsets, .subset_ptr = ptr, .subset_views = views,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaFly *f = NULL;
  const CtrCudaStatus st = ctr_cuda_fly_create (&d, &f, err);
  if (st != CTR_CUDA_OK)
    {
      ctr_cuda_status_error (st, err, error);
      return NULL;
    }
  return f;
}

guint
ctr_cuda_fly_subset (guint subset)
{
  return subset == CTR_SUBSET_ALL ? G_MAXUINT : subset;
}

gboolean
ctr_cuda_fly_forward_host (CtrCudaFly *f, guint subset, const float *X, float *Y, GError **error)
{
  const guint s = ctr_cuda_fly_subset (subset);
  CTR_CUDA_TRY (ctr_cuda_fly_upload (f, CTR_CUDA_FLY_X, 0, X, ctr_cuda_fly_image_floats (f), CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_forward (f, s, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_X),
                                      ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_Y), NULL, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_download_rays (f, CTR_CUDA_FLY_Y, s, Y, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_fly_adjoint_host (CtrCudaFly *f, guint subset, const float *Y, float *D, GError **error)
{
  const guint s = ctr_cuda_fly_subset (subset);
  CTR_CUDA_TRY (ctr_cuda_fly_upload_rays (f, CTR_CUDA_FLY_R, s, Y, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_R),
                                      ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_D), CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_download (f, CTR_CUDA_FLY_D, 0, D, ctr_cuda_fly_image_floats (f), CTR_CUDA_ERR));
  return TRUE;
}
