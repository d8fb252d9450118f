/* ctr-recon.c — the one reconstruction entry point (see ctr-recon.h). */
#include "ctr-recon.h"
#include "ctr-error.h"
#include "ctr-metrics.h"
#include "analytic/ctr-fbp.h"
#include "ctr-recon-cone.h"
#include "ctr-backend.h"
#include "solve/ctr-solver.h"
#include "sysmat/ctr-matrix-cache.h"

#include <math.h>
#include <string.h>

CtrVolume *
ctr_reconstruct (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                 const CtrReconOptions *o, const CtrVolume *reference,
                 CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                 GError **error)
{
  g_return_val_if_fail (g && p && grid && o, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error)
      || !ctr_recon_options_validate (o, error))
    return NULL;
  if (g->beam == CTR_BEAM_CONE)
    return ctr_reconstruct_cone (g, p, grid, o, reference, callback, user_data, cancellable, error);
  if (o->method == CTR_METHOD_FDK)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "FDK reconstructs cone-beam data; use fbp for %s beam", g->beam == CTR_BEAM_FAN ? "fan" : "parallel");
      return NULL;
    }
  if (grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the image has %u slices but the detector %u rows", grid->nz, g->n_rows);
      return NULL;
    }

  g_autoptr (CtrVolume) ref = NULL;
  if (reference != NULL)
    {
      ref = ctr_volume_resample (reference, grid, CTR_RESAMPLE_SLICES, error);
      if (ref == NULL)
        return NULL;
    }

  if (o->method == CTR_METHOD_FBP)
    {
      gint64 t0 = g_get_monotonic_time ();
      CtrVolume *img = ctr_fbp_run (g, p, grid, o->window, o->cutoff, cancellable, error);
      if (img != NULL)
        ctr_iter_report_single_pass (o->method, img, ref, o->metrics_radius_mm,
                                     (g_get_monotonic_time () - t0) / 1e6, callback, user_data);
      return img;
    }

  /* SCSR serves the simultaneous solvers; ART is row-sequential on CSR. */
  if (o->matrix == CTR_MATRIX_SCSR && o->method != CTR_METHOD_ART)
    {
      g_autoptr (CtrScsr) m = ctr_matrix_cache_get_scsr (g, grid, o->ray_model, cancellable, error);
      if (m == NULL)
        return NULL;
      if (ctr_scsr_order (m) > 1)
        {
          g_message ("SCSR: %s; %.1f MiB", ctr_scsr_symmetry (m)->reason, ctr_scsr_bytes (m) / 1048576.0);
          g_autofree char *note = NULL;
          const CtrBackend *be = ctr_backend_select (o->backend, &note, error);
          if (be == NULL)
            return NULL;
          if (note != NULL)
            g_info ("%s", note);
          g_info ("backend: %s", be->name);
          return ctr_backend_run_scsr (be, m, g, p, grid, o, ref, callback, user_data, cancellable, error);
        }
      g_message ("SCSR falls back to plain CSR: %s", ctr_scsr_symmetry (m)->reason);
    }
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, grid, o->ray_model, cancellable, error);
  if (a == NULL)
    return NULL;
  g_debug ("system matrix: %" G_GUINT64_FORMAT " non-zeros, %.1f MiB",
           ctr_sysmat_nnz (a), ctr_sysmat_bytes (a) / 1048576.0);
  return ctr_solver_run (a, g, p, grid, o, ref, callback, user_data, cancellable, error);
}
