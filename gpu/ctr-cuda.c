/* ctr-cuda.c — GLib glue of the CUDA backend: run-time probe, GError
 * conversion, the host-side solver set-up and iteration loop, and the
 * registration of the "cuda" and "cusparse" backends (see ctr-cuda.h).
 *
 * The set-up mirrors core/solve/ctr-scsr-solve.c (ctr_scsr_solve_new) so
 * that the device iterates exactly the CPU solver's update: lane-ordered data
 * b and coefficients [orbit][j][slice][K], κ of each orbit (sparsity bound
 * or M'), SART/SIRT inverse column sums.  It reads only the public arrays of
 * ctr-scsr.h (ctr_scsr_arrays), not the CPU kernel.
 */
#include "ctr-cuda.h"
#include "solve/ctr-scsr-setup.h"
#include "ctr-error.h"
#include "ctr-metrics.h"
#include "sysmat/ctr-blocking.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------- errors -- */

static gboolean
status_to_error (CtrCudaStatus st, const char *err, GError **error)
{
  if (st == CTR_CUDA_OK)
    return TRUE;
  g_set_error (error, CTR_ERROR,
               st == CTR_CUDA_NO_MEMORY ? CTR_ERROR_OUT_OF_MEMORY : CTR_ERROR_BACKEND_UNAVAILABLE,
               "CUDA: %s", err[0] ? err : "unknown error");
  return FALSE;
}

/* -------------------------------------------------------------- probe -- */

static CtrCudaDeviceInfo probe_info;
static CtrCudaStatus probe_status;
static char probe_err[CTR_CUDA_ERR_LEN];

gboolean
ctr_cuda_probe (CtrCudaDeviceInfo *info, GError **error)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      probe_status = ctr_cuda_device_query (&probe_info, probe_err);
      g_once_init_leave (&once, 1);
    }
  if (info)
    *info = probe_info;
  if (probe_status != CTR_CUDA_OK)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", probe_err);
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ session -- */

static CtrCudaScsr *
scsr_session (const CtrScsr *m, guint ns, int with_scale, GError **error)
{
  if (!ctr_cuda_probe (NULL, error))
    return NULL;
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const gint64 *seg;
  const CtrScsrElem *el;
  ctr_scsr_arrays (m, &seg, &el);
  G_STATIC_ASSERT (sizeof (CtrScsrElem) == 8);
  CtrCudaScsrDesc d = {
    .K = ctr_scsr_order (m), .n_parts = ctr_scsr_n_parts (m), .n_orbits = ctr_scsr_n_orbits (m), .n_cols = ctr_scsr_n_cols (m),
    .n_reps = sy->n_reps, .ns = ns, .nnz = ctr_scsr_nnz (m),
    .seg_ptr = (const int64_t *) seg, .elems = el, .compose = &sy->group.compose[0][0],
    .rep_pixel = sy->rep_pixel, .rep_stabilised = sy->rep_stabilised, .with_scale = with_scale,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaScsr *s = NULL;
  if (!status_to_error (ctr_cuda_scsr_create (&d, &s, err), err, error))
    return NULL;
  return s;
}

gboolean
ctr_cuda_scsr_apply_blocked (const CtrScsr *m, const float *x, float *y, guint ns, double *ms,
                             GError **error)
{
  CtrCudaScsr *s = scsr_session (m, ns, 0, error);
  if (s == NULL)
    return FALSE;
  g_autoptr (CtrBlocked) blk = ctr_blocked_new (m, CTR_BLOCKING_VIEW);
  g_autofree CtrCudaBlock *cb = g_new0 (CtrCudaBlock, MAX (blk->n_blocks, 1));
  for (guint i = 0; i < blk->n_blocks; i++)
    {
      const CtrBlock *k = &blk->blocks[i];
      cb[i] = (CtrCudaBlock) { k->n_rows, k->width, k->ray0, k->ray1, k->junction, k->rep, k->slot, k->w };
    }
  char err[CTR_CUDA_ERR_LEN] = "";
  g_autofree float *X = g_new (float, ctr_scsr_packed_size (m, ns));
  g_autofree float *ax = g_new (float, ctr_scsr_lane_size (m, ns));
  ctr_scsr_pack (m, x, X, ns);
  gboolean ok = status_to_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_X, X, ctr_scsr_packed_size (m, ns), err), err, error)
                && status_to_error (ctr_cuda_scsr_set_blocked (s, cb, blk->n_blocks, err), err, error)
                && status_to_error (ctr_cuda_scsr_forward_blocked (s, ax, ms, err), err, error);
  ctr_cuda_scsr_destroy (s);
  if (ok)
    ctr_scsr_lanes_to_rays (m, ax, y, ns);
  return ok;
}

gboolean
ctr_cuda_scsr_apply (const CtrScsr *m, const float *x, float *y, guint ns, GError **error)
{
  CtrCudaScsr *s = scsr_session (m, ns, 0, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  g_autofree float *X = g_new (float, ctr_scsr_packed_size (m, ns));
  g_autofree float *ax = g_new (float, ctr_scsr_lane_size (m, ns));
  ctr_scsr_pack (m, x, X, ns);
  gboolean ok = status_to_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_X, X, ctr_scsr_packed_size (m, ns), err), err, error)
                && status_to_error (ctr_cuda_scsr_forward (s, ax, err), err, error);
  ctr_cuda_scsr_destroy (s);
  if (!ok)
    return FALSE;
  ctr_scsr_lanes_to_rays (m, ax, y, ns);
  return TRUE;
}

gboolean
ctr_cuda_scsr_apply_adjoint (const CtrScsr *m, const float *y, float *x, guint ns, GError **error)
{
  CtrCudaScsr *s = scsr_session (m, ns, 0, error);
  if (s == NULL)
    return FALSE;
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const gsize lt = ctr_scsr_lane_size (m, ns);
  char err[CTR_CUDA_ERR_LEN] = "";
  g_autofree float *bl = g_new0 (float, lt), *cl = g_new0 (float, lt);
  g_autofree float *X = g_new (float, ctr_scsr_packed_size (m, ns));
  ctr_scsr_rays_to_lanes (m, y, bl, ns);
  for (guint o = 0; o < no; o++)
    for (guint k = 0; k < K; k++)
      if (sy->lane_view[(gsize) o * K + k] >= 0)
        for (gsize q = (gsize) o * nc * ns * K + k; q < (gsize) (o + 1) * nc * ns * K; q += K)
          cl[q] = 1.f;
  gboolean ok = status_to_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_B, bl, lt, err), err, error)
                && status_to_error (ctr_cuda_scsr_upload (s, CTR_CUDA_BUF_COEF, cl, lt, err), err, error)
                && status_to_error (ctr_cuda_scsr_adjoint (s, err), err, error)
                && status_to_error (ctr_cuda_scsr_download_x (s, X, err), err, error);
  ctr_cuda_scsr_destroy (s);
  if (ok)
    ctr_scsr_unpack (m, X, x, ns);
  return ok;
}

static CtrCudaCsr *
csr_session (const CtrSysmat *a, guint ns, const CtrSymmetry *sy, GError **error)
{
  if (!ctr_cuda_probe (NULL, error))
    return NULL;
  const gint64 *rp;
  const guint32 *ci;
  const float *val;
  ctr_sysmat_csr (a, &rp, &ci, &val);
  /* Without orbits: one view per subset (K = 1, lane_view = identity). */
  g_autofree gint32 *ident = NULL;
  if (sy == NULL)
    {
      ident = g_new (gint32, ctr_sysmat_n_views (a));
      for (guint v = 0; v < ctr_sysmat_n_views (a); v++)
        ident[v] = (gint32) v;
    }
  CtrCudaCsrDesc d = {
    .n_views = ctr_sysmat_n_views (a), .n_cols = ctr_sysmat_n_cols (a), .ns = ns,
    .n_pixels = ctr_sysmat_n_pixels (a), .nnz = ctr_sysmat_nnz (a),
    .row_ptr = (const int64_t *) rp, .col_idx = ci, .values = val,
    .K = sy ? sy->group.order : 1, .n_orbits = sy ? sy->n_orbits : ctr_sysmat_n_views (a),
    .lane_view = sy ? sy->lane_view : ident,
  };
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaCsr *s = NULL;
  if (!status_to_error (ctr_cuda_csr_create (&d, &s, err), err, error))
    return NULL;
  return s;
}

gboolean
ctr_cuda_csr_apply (const CtrSysmat *a, const float *x, float *y, guint ns, GError **error)
{
  CtrCudaCsr *s = csr_session (a, ns, NULL, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  gboolean ok = status_to_error (ctr_cuda_csr_forward (s, x, y, err), err, error);
  ctr_cuda_csr_destroy (s);
  return ok;
}

gboolean
ctr_cuda_csr_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint ns, GError **error)
{
  CtrCudaCsr *s = csr_session (a, ns, NULL, error);
  if (s == NULL)
    return FALSE;
  char err[CTR_CUDA_ERR_LEN] = "";
  gboolean ok = status_to_error (ctr_cuda_csr_adjoint (s, y, x, err), err, error);
  ctr_cuda_csr_destroy (s);
  return ok;
}

/* ------------------------------------------------------ solver set-up -- */

/* The once-per-run preparation is core's (solve/ctr-scsr-setup.h), shared
 * with the CPU solver so that both iterate the same numbers. */
typedef CtrScsrSetup Setup;
#define setup_init(su, m, g, p, o, ns, error) ctr_scsr_setup_init ((su), (m), (g), (p), (o), (ns), (error))
#define setup_clear(su) ctr_scsr_setup_clear (su)

/* ------------------------------------------------------------- solver -- */

static gboolean
check_inputs (const CtrScsr *m, const CtrGeometry *g, const CtrProjections *p,
              const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *reference,
              gboolean cusparse, GError **error)
{
  if (!ctr_recon_options_validate (o, error))
    return FALSE;
  if (o->method != CTR_METHOD_PART && o->method != CTR_METHOD_SART && o->method != CTR_METHOD_SIRT)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "%s does not run on SCSR (parallel ART, SART and SIRT do)", ctr_method_name (o->method));
      return FALSE;
    }
  if (cusparse && o->method != CTR_METHOD_PART)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE,
                   "the cuSPARSE baseline runs parallel ART only, not %s", ctr_method_name (o->method));
      return FALSE;
    }
  if (ctr_scsr_n_views (m) != g->n_views || ctr_scsr_n_cols (m) != g->n_cols
      || ctr_scsr_n_pixels (m) != (guint64) grid->nx * grid->ny)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the system matrix was built for another geometry or grid");
      return FALSE;
    }
  if (p->n_views != g->n_views || p->n_cols != g->n_cols || p->n_rows != g->n_rows || grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections (%u × %u × %u), geometry (%u × %u × %u) and %u image slices disagree",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols, grid->nz);
      return FALSE;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the solvers need line integrals; convert the counts first");
      return FALSE;
    }
  if (reference != NULL && !ctr_grid_equal (&reference->grid, grid))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the reference is on another grid than the reconstruction");
      return FALSE;
    }
  return TRUE;
}

/* Lane-ordered [o][j][s][K] → ray-ordered [s][view·nc + col] (masked
 * lanes are not written). */
CtrVolume *
ctr_cuda_run_scsr (const CtrScsr *m, gboolean cusparse, const CtrGeometry *g,
                   const CtrProjections *p, const CtrGrid *grid, const CtrReconOptions *o,
                   const CtrVolume *reference, CtrIterFunc callback, gpointer user_data,
                   GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (m && g && p && grid && o, NULL);
  if (!check_inputs (m, g, p, grid, o, reference, cusparse, error))
    return NULL;
  if (!ctr_cuda_probe (NULL, error))
    return NULL;
  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");
  const guint ns = grid->nz;
  const guint64 nr = (guint64) g->n_views * g->n_cols, np = (guint64) grid->nx * grid->ny;
  Setup su = { 0 };
  CtrCudaScsr *ds = NULL;
  CtrCudaCsr *dc = NULL;
  g_autoptr (CtrSysmat) a = NULL;
  g_autofree float *X = NULL;
  CtrVolume *result = NULL;
  char err[CTR_CUDA_ERR_LEN] = "";
  if (!setup_init (&su, m, g, p, o, ns, error))
    goto out;

  if (!cusparse)
    {
      const int with_scale = o->method == CTR_METHOD_SART ? 2 : o->method == CTR_METHOD_SIRT ? 1 : 0;
      ds = scsr_session (m, ns, with_scale, error);
      if (ds == NULL)
        goto out;
      const gsize psize = ctr_scsr_packed_size (m, ns);
      X = g_new (float, psize);
      ctr_scsr_pack (m, vol->data, X, ns);
      if (!status_to_error (ctr_cuda_scsr_upload (ds, CTR_CUDA_BUF_X, X, psize, err), err, error)
          || !status_to_error (ctr_cuda_scsr_upload (ds, CTR_CUDA_BUF_B, su.b, su.lane_all, err), err, error)
          || !status_to_error (ctr_cuda_scsr_upload (ds, CTR_CUDA_BUF_COEF, su.coef, su.lane_all, err), err, error)
          || !status_to_error (ctr_cuda_scsr_upload (ds, CTR_CUDA_BUF_VALID, su.valid, su.lane_all, err), err, error)
          || (su.scale && !status_to_error (ctr_cuda_scsr_upload (ds, CTR_CUDA_BUF_SCALE, su.scale, su.scale_n, err), err, error)))
        goto out;
    }
  else
    {
      a = ctr_sysmat_build (g, grid, ctr_scsr_model (m), cancellable, error);
      if (a == NULL)
        goto out;
      dc = csr_session (a, ns, ctr_scsr_symmetry (m), error);
      if (dc == NULL)
        goto out;
      g_autofree float *br = g_new0 (float, (gsize) ns * nr), *cr = g_new0 (float, (gsize) ns * nr);
      g_autofree float *vr = g_new0 (float, (gsize) ns * nr);
      ctr_scsr_lanes_to_rays (m, su.b, br, ns);
      ctr_scsr_lanes_to_rays (m, su.coef, cr, ns);
      ctr_scsr_lanes_to_rays (m, su.valid, vr, ns);
      if (!status_to_error (ctr_cuda_csr_upload (dc, vol->data, br, cr, vr, err), err, error))
        goto out;
    }

  gint64 t_start = g_get_monotonic_time ();
  for (guint it = 1; it <= o->iterations; it++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;
      double ms = 0, res = NAN;
      CtrCudaStatus st = ds ? ctr_cuda_scsr_iterate (ds, (CtrCudaMethod) (o->method == CTR_METHOD_SART ? CTR_CUDA_SART
                                                                          : o->method == CTR_METHOD_SIRT ? CTR_CUDA_SIRT
                                                                          : CTR_CUDA_PART),
                                                     o->nonnegative, &ms, callback ? &res : NULL, err)
                            : ctr_cuda_csr_iterate_part (dc, o->nonnegative, &ms, callback ? &res : NULL, err);
      if (!status_to_error (st, err, error))
        goto out;
      /* The image comes back for the metrics (every iteration when there is
       * a reference), else every IMAGE_EVERY iterations for display, and at
       * the end; the residual is computed on the device. */
      enum { IMAGE_EVERY = 5 };
      const gboolean last = it == o->iterations;
      if (last || (callback != NULL && (reference != NULL || it == 1 || it % IMAGE_EVERY == 0)))
        {
          gboolean ok = ds ? status_to_error (ctr_cuda_scsr_download_x (ds, X, err), err, error)
                           : status_to_error (ctr_cuda_csr_download_x (dc, vol->data, err), err, error);
          if (!ok)
            goto out;
          if (ds)
            ctr_scsr_unpack (m, X, vol->data, ns);
        }
      if (callback != NULL)
        {
          CtrIterStats stats = { 0 };
          stats.method = o->method;
          stats.iteration = it;
          stats.n_iterations = o->iterations;
          stats.iteration_s = ms / 1e3;
          stats.residual = res;
          ctr_iter_stats_set_quality (&stats, vol, reference, o->metrics_radius_mm);
          stats.elapsed_s = (g_get_monotonic_time () - t_start) / 1e6;
          stats.image = vol;
          callback (&stats, user_data);
        }
    }
  (void) np;
  result = g_steal_pointer (&vol);

out:
  ctr_cuda_scsr_destroy (ds);
  ctr_cuda_csr_destroy (dc);
  setup_clear (&su);
  return result;
}

/* ----------------------------------------------------------- backends -- */

static gboolean
cuda_available (const CtrBackend *self, char **reason)
{
  g_autoptr (GError) e = NULL;
  if (ctr_cuda_probe (NULL, &e))
    return TRUE;
  if (reason)
    *reason = g_strdup (e->message);
  return FALSE;
}

static CtrVolume *
cuda_run (const CtrBackend *self, const CtrScsr *m, const CtrGeometry *g, const CtrProjections *p,
          const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *reference,
          CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  return ctr_cuda_run_scsr (m, strcmp (self->name, "cusparse") == 0, g, p, grid, o, reference,
                            callback, user_data, cancellable, error);
}

static char *
cuda_device_name (const CtrBackend *self)
{
  CtrCudaDeviceInfo info;
  if (!ctr_cuda_probe (&info, NULL))
    return NULL;
  return g_strdup_printf ("%s, cc %d.%d, %.1f GiB, driver %d, runtime %d", info.name, info.cc_major,
                          info.cc_minor, info.total_bytes / 1073741824.0, info.driver_version,
                          info.runtime_version);
}

static double
cuda_peak_gbs (const CtrBackend *self)
{
  CtrCudaDeviceInfo info;
  return ctr_cuda_probe (&info, NULL) ? info.bandwidth_gbs : 0.0;
}

static const CtrBackend cuda_backend = {
  .name = "cuda",
  .description = "GPU, SCSR orbit kernel (one warp per stored row, atomic transposed product)",
  .priority = 100,
  .available = cuda_available,
  .run_scsr = cuda_run,
  .device_name = cuda_device_name,
  .peak_bandwidth_gbs = cuda_peak_gbs,
};

static const CtrBackend cusparse_backend = {
  .name = "cusparse",
  .description = "GPU baseline, cuSPARSE CSR SpMV + transposed SpMV (cuART's baseline; parallel ART only)",
  .priority = 50,
  .available = cuda_available,
  .run_scsr = cuda_run,
  .device_name = cuda_device_name,
  .peak_bandwidth_gbs = cuda_peak_gbs,
};

void
ctr_cuda_backend_register (void)
{
  ctr_backend_register (&cuda_backend);
  ctr_backend_register (&cusparse_backend);
}

/* Runs before main() when the library is linked whole (gpu/meson.build):
 * only records the vtables; the device is probed on first use. */
__attribute__ ((constructor)) static void
ctr_cuda_backend_constructor (void)
{
  ctr_cuda_backend_register ();
}
