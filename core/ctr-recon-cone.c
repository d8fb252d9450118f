/* ctr-recon-cone.c — cone-beam methods behind ctr_reconstruct(). */
#include "ctr-recon-cone.h"
#include "ctr-error.h"
#include "analytic/ctr-fdk.h"
#include "solve/ctr-cone-solve.h"
#include "ctr-backend.h"

#include <math.h>
#include <string.h>

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
      ref = ctr_volume_resample (reference, grid, CTR_RESAMPLE_VOLUME, error);
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
