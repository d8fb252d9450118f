/* ctr-cuda-fdk.c — GLib glue of the GPU FDK (see ctr-cuda-fdk.h): checks
 * as ctr_fdk_filter does, the host-side pieces the device uses unchanged
 * (ctr_fdk_weights; the ramp filter's impulse response taken through the
 * public ctr_ramp_filter_apply; the per-view P_grid composed as in
 * core/analytic/ctr-fdk-backproject.c), GError conversion, and the
 * registration as the "cuda" backend's FDK.
 */
#include "ctr-cuda-fdk.h"
#include "ctr-cuda.h"
#include "ctr-cuda-libs.h"
#include "plan/ctr-backend.h"
#include "base/ctr-error.h"
#include "analytic/ctr-filter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* P_grid = P_world · M0, M0: (i, j, k, 1) → (x0 + i·dx, y0 − j·dy, z0 + k·dz, 1),
 * as view_matrix() in ctr-fdk-backproject.c. */
static void
grid_matrix (const CtrGeometry *g, const CtrGrid *grid, guint view, double *o12)
{
  double P[12];
  ctr_geometry_projection_matrix (g, view, P);
  const double x0 = ctr_grid_x (grid, 0), y0 = ctr_grid_y (grid, 0), z0 = ctr_grid_z (grid, 0);
  for (guint r = 0; r < 3; r++)
    {
      const double *a = P + 4 * r;
      double *o = o12 + 4 * r;
      o[0] = a[0] * grid->dx;
      o[1] = -a[1] * grid->dy;
      o[2] = a[2] * grid->dz;
      o[3] = a[0] * x0 + a[1] * y0 + a[2] * z0 + a[3];
    }
}

/* The 2·nc − 1 taps of the CPU's ramp filter at lags −(nc−1) … nc−1: the
 * filter is linear and shift invariant on a row (zero padding ≥ 2·nc), so
 * an impulse at column 0 gives the lags ≥ 0 and one at nc − 1 the lags ≤ 0. */
static float *
ramp_taps (guint nc, double tau, CtrFilterWindow window, double cutoff, GError **error)
{
  g_autoptr (CtrRampFilter) f = ctr_ramp_filter_new (nc, tau, window, cutoff, NULL, error);
  if (f == NULL)
    return NULL;
  g_autofree float *rows = g_new0 (float, 2 * (gsize) nc);
  rows[0] = 1.0f;
  rows[nc + nc - 1] = 1.0f;
  if (!ctr_ramp_filter_apply (f, rows, 2, error))
    return NULL;
  float *taps = g_new (float, 2 * (gsize) nc - 1);
  for (guint i = 0; i + 1 < nc; i++)
    taps[i] = rows[nc + i];             /* lag i − (nc − 1) */
  for (guint l = 0; l < nc; l++)
    taps[nc - 1 + l] = rows[l];         /* lag l */
  return taps;
}

CtrVolume *
ctr_cuda_fdk_run (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                  CtrFilterWindow window, double cutoff, const CtrCudaFdkOptions *opt,
                  CtrCudaFdkTimes *times, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && grid != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!ctr_fdk_check_input (g, p, error))
    return NULL;
  return ctr_cuda_fdk_run_views (g, 0, p, grid, window, cutoff, opt, times, cancellable, error);
}

/* FALSE with CTR_ERROR_INVALID_ARGUMENT unless @p is @p->n_views
 * consecutive views of @g from @first (line integrals of its panel). */
static gboolean
check_views (const CtrGeometry *g, guint first, const CtrProjections *p, GError **error)
{
  if (!ctr_fdk_check_geometry (g, error))
    return FALSE;
  if (p->kind == CTR_PROJ_LINE_INTEGRALS && p->n_views >= 1 && p->n_rows == g->n_rows && p->n_cols == g->n_cols
      && first < g->n_views && p->n_views <= g->n_views - first)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "GPU FDK: %u views × %u rows × %u columns of %s from view %u do not fit the geometry's %u × %u × %u",
               p->n_views, p->n_rows, p->n_cols, p->kind == CTR_PROJ_LINE_INTEGRALS ? "line integrals" : "counts",
               first, g->n_views, g->n_rows, g->n_cols);
  return FALSE;
}

CtrVolume *
ctr_cuda_fdk_run_views (const CtrGeometry *g, guint first_view, const CtrProjections *p, const CtrGrid *grid,
                        CtrFilterWindow window, double cutoff, const CtrCudaFdkOptions *opt,
                        CtrCudaFdkTimes *times, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && grid != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!ctr_grid_validate (grid, error) || !check_views (g, first_view, p, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (!ctr_cuda_probe (NULL, error) || !ctr_cuda_lib_require (CTR_CUDA_LIB_CUFFT, error))
    return NULL;
  /* dead pixels: filled along their rows, whatever value they hold (as ctr_fdk_filter) */
  g_autoptr (CtrProjections) filled = ctr_projections_filled (p, error);
  if (filled == NULL)
    return NULL;
  p = filled;

  /* the views of this run: @first_view … of @g, weighted as the whole scan's */
  const guint nv = p->n_views, nr = g->n_rows, nc = g->n_cols;
  const double tau = g->pitch_u * g->sod_mm / g->sdd_mm;
  g_autofree float *taps = ramp_taps (nc, tau, window, cutoff, error);
  if (taps == NULL)
    return NULL;
  g_autofree float *cosw = g_try_malloc_n ((gsize) nr * nc, sizeof (float));
  g_autofree float *vcol = g_try_malloc_n ((gsize) g->n_views * nc, sizeof (float));
  g_autofree double *mats = g_try_malloc_n ((gsize) nv * 12, sizeof (double));
  if (cosw == NULL || vcol == NULL || mats == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "GPU FDK: cannot allocate the weights");
      return NULL;
    }
  if (!ctr_fdk_weights (g, cosw, vcol, error))
    return NULL;
  for (guint v = 0; v < nv; v++)
    {
      double *P = mats + 12 * (gsize) v;
      grid_matrix (g, grid, first_view + v, P);
      /* iFDK Theorems 2-3: column and depth do not change along z */
      const double s0 = fabs (P[0]) + fabs (P[1]) + fabs (P[3]), s2 = fabs (P[8]) + fabs (P[9]) + fabs (P[11]);
      if (fabs (P[2]) > 1e-9 * s0 || fabs (P[10]) > 1e-9 * s2)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE,
                       "GPU FDK: view %u's detector column depends on z (tilted orbit); the CPU handles it",
                       first_view + v);
          return NULL;
        }
    }
  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");
  {
    /* fault the volume's pages in on every core (one store per 4 KiB page):
     * otherwise the single thread that copies the download in takes every
     * first-touch fault of a volume that can be gigabytes */
    float *vd = vol->data;
    const gint64 n = (gint64) grid->nx * grid->ny * grid->nz;
#pragma omp parallel for schedule(static)
    for (gint64 i = 0; i < n; i += 1024)
      vd[i] = 0.f;
  }

  CtrCudaFdkKernel kernel = opt ? opt->kernel : CTR_CUDA_FDK_AUTO;
  const char *env = g_getenv ("CTR_CUDA_FDK_KERNEL");
  if (kernel == CTR_CUDA_FDK_AUTO && env != NULL)
    kernel = strcmp (env, "texture") == 0 ? CTR_CUDA_FDK_TEXTURE
             : strcmp (env, "l1tran") == 0 ? CTR_CUDA_FDK_L1TRAN : CTR_CUDA_FDK_AUTO;
  CtrCudaFdkDesc d = {
    .n_views = nv, .n_rows = nr, .n_cols = nc,
    .nx = grid->nx, .ny = grid->ny, .nz = grid->nz,
    .proj = p->data, .cosw = cosw, .view_col = vcol + (gsize) first_view * nc, .ramp = taps, .mats = mats,
    .sod2 = g->sod_mm * g->sod_mm,
    .mirror = grid->nz > 1 && fabs (grid->cz) <= 1e-9 * grid->dz
              && fabs (g->offset_v_mm) <= 1e-9 * g->pitch_v_mm,
    .kernel = kernel,
    .max_slab_nz = opt ? opt->max_slab_nz : 0,
    .view_batch = opt ? opt->view_batch : 0,
  };
  CtrCudaFdkTimes t = { 0 };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaStatus st = ctr_cuda_fdk_device_run (&d, vol->data, &t, err);
  if (st == CTR_CUDA_OK && g_getenv ("CTR_CUDA_FDK_TIMES") != NULL)
    fprintf (stderr, "CUDA FDK phases (wall s): set-up %.4f, step 1 (views up, filtered) %.4f, "
             "step 2 (back-projection, volume down) %.4f, the rest %.4f, total %.4f; "
             "device time of copies %.4f, filter %.4f, back-projection %.4f\n",
             t.setup_s, t.stream_s, t.slabs_s, t.total_s - t.setup_s - t.stream_s - t.slabs_s,
             t.total_s, t.transfer_s, t.filter_s, t.backproject_s);
  if (st != CTR_CUDA_OK)
    {
      g_set_error (error, CTR_ERROR,
                   st == CTR_CUDA_NO_MEMORY ? CTR_ERROR_OUT_OF_MEMORY
                   : st == CTR_CUDA_INVALID ? CTR_ERROR_INVALID_ARGUMENT : CTR_ERROR_BACKEND_UNAVAILABLE,
                   "CUDA FDK: %s", err[0] ? err : "unknown error");
      return NULL;
    }
  if (times != NULL)
    *times = t;
  return g_steal_pointer (&vol);
}

/* The "cuda" backend's FDK (ctr-backend.h, CtrBackendRunFdk). */
static CtrVolume *
cuda_backend_fdk (const CtrBackend *self, const CtrGeometry *g, guint first_view, const CtrProjections *p,
                  const CtrGrid *grid, const CtrReconOptions *o, CtrFdkTimings *timings,
                  GCancellable *cancellable, GError **error)
{
  g_autofree char *why = NULL;
  if (!self->available (self, &why))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", why ? why : "unavailable");
      return NULL;
    }
  CtrCudaFdkTimes t = { 0 };
  CtrVolume *vol = ctr_cuda_fdk_run_views (g, first_view, p, grid, o->window, o->cutoff, NULL, &t, cancellable,
                                           error);
  if (vol != NULL && timings != NULL)
    {
      timings->filter_s = t.filter_s;
      timings->backproject_s = t.backproject_s;
      timings->total_s = t.total_s;
    }
  return vol;
}

/* Runs before main() (the library is linked whole, gpu/meson.build). */
__attribute__ ((constructor)) static void
ctr_cuda_fdk_constructor (void)
{
  ctr_backend_register_fdk ("cuda", cuda_backend_fdk);
}
