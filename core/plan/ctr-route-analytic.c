/* ctr-route-analytic.c — the one-pass route (ctr-plan-route.h): FBP for fan
 * and parallel beam, FDK for circular cone beam, on the circular
 * description of per-view vectors when the geometry has them.  FBP runs on
 * the CPU; FDK on the backend's FDK when it has one (the CPU's when the
 * device cannot run it), else on the CPU.
 */
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "base/ctr-error.h"
#include "data/ctr-geometry-vectors.h"
#include "data/ctr-helix.h"
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-fdk.h"

static void
analytic_free (CtrRouteState *rs)
{
  if (rs == NULL)
    return;
  ctr_route_state_clear (rs);   /* the head is all this route keeps */
  g_free (rs);
}

static gboolean
analytic_applies (const CtrGeometry *g, const CtrReconOptions *o)
{
  return !ctr_helix_applies (g) && !ctr_method_is_iterative (o->method);
}

/* The backend that runs @o's method, with a note when it is not the one
 * selected. */
static void
analytic_backend (CtrRouteState *rs)
{
  const CtrBackend *b = rs->backend;
  if (b == ctr_backend_cpu ())
    return;
  if (rs->o.method == CTR_METHOD_FBP)
    {
      ctr_route_state_add_note (rs, g_strdup_printf ("FBP runs on the CPU, not %s", b->name));
      rs->backend = ctr_backend_cpu ();
    }
  else if (rs->o.method == CTR_METHOD_FDK && ctr_backend_fdk (b) == NULL)
    {
      ctr_route_state_add_note (rs, g_strdup_printf ("backend %s has no FDK; the CPU runs it", b->name));
      rs->backend = ctr_backend_cpu ();
    }
}

static CtrRouteState *
analytic_make (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
               GCancellable *cancellable, GError **error)
{
  (void) cancellable;
  if (!ctr_plan_check (g, grid, o, error))
    return NULL;
  g_autoptr (CtrRouteState) rs = g_new0 (CtrRouteState, 1);
  if (!ctr_route_state_init (rs, &ctr_route_analytic, g, grid, o, error)
      || !ctr_route_state_select_backend (rs, error))
    return NULL;
  if (ctr_geometry_has_vectors (g))
    {
      /* FBP and FDK run on the circular description of per-view vectors. */
      double dev;
      CtrGeometry *c = ctr_geometry_circular_from_vectors (g, &dev, error);
      if (c == NULL)
        return NULL;
      ctr_geometry_free (rs->g);
      rs->g = c;
      ctr_route_state_add_note (rs, g_strdup_printf ("the per-view vectors are a circular orbit (SOD %.1f mm, "
                                                     "SDD %.1f mm; largest deviation %.2g mm): %s runs on it",
                                                     c->sod_mm, c->sdd_mm, dev, ctr_method_label (o->method)));
    }
  analytic_backend (rs);
  ctr_route_state_add_note (rs, g_strdup_printf ("backend: %s", rs->backend->name));
  return g_steal_pointer (&rs);
}

/* FDK on the plan's backend when it has one, the CPU's otherwise and when the
 * device cannot run it (unavailable, too little memory), with a note. */
static CtrVolume *
fdk_run (CtrRouteState *rs, const CtrProjections *p, CtrFdkTimings *t, GCancellable *cancellable,
         GError **error)
{
  const CtrBackend *b = rs->backend;
  CtrBackendRunFdk fdk = b != ctr_backend_cpu () ? ctr_backend_fdk (b) : NULL;
  if (fdk != NULL)
    {
      GError *e = NULL;
      CtrVolume *vol = fdk (b, rs->g, 0, p, &rs->grid, &rs->o, t, cancellable, &e);
      if (vol != NULL)
        return vol;
      if (!ctr_error_cpu_may_run_instead (e))
        {
          g_propagate_error (error, e);
          return NULL;
        }
      ctr_route_state_add_note (rs, g_strdup_printf ("FDK on backend %s could not run (%s); the CPU runs it",
                                                     b->name, e->message));
      g_error_free (e);
      rs->backend = ctr_backend_cpu ();
    }
  return ctr_fdk_run (rs->g, p, &rs->grid, rs->o.window, rs->o.cutoff, t, cancellable, error);
}

static CtrVolume *
analytic_execute (CtrRouteState *rs, const CtrProjections *p, const CtrVolume *reference,
                  CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  const CtrReconOptions *o = &rs->o;
  g_autoptr (CtrVolume) ref = NULL;
  if (!ctr_route_state_reference (rs, reference,
                                  rs->g->beam == CTR_BEAM_CONE ? CTR_RESAMPLE_VOLUME : CTR_RESAMPLE_SLICES,
                                  &ref, error))
    return NULL;
  const gint64 t0 = g_get_monotonic_time ();
  CtrFdkTimings t = { 0 };
  CtrVolume *img = o->method == CTR_METHOD_FBP
                     ? ctr_fbp_run (rs->g, p, &rs->grid, o->window, o->cutoff, cancellable, error)
                     : fdk_run (rs, p, &t, cancellable, error);
  const double seconds = o->method == CTR_METHOD_FDK ? t.total_s : (g_get_monotonic_time () - t0) / 1e6;
  if (img != NULL
      && !ctr_iter_report_single_pass (o->method, img, ref, o->metrics_radius_mm, seconds, callback,
                                       user_data, error))
    g_clear_pointer (&img, ctr_volume_unref);
  return img;
}

static gboolean
analytic_options_fit (const CtrRouteState *rs, const CtrReconOptions *o, GError **error)
{
  if (!ctr_plan_check (rs->g, &rs->grid, o, error))
    return FALSE;
  const char *why = NULL;
  if (ctr_method_is_iterative (o->method))
    why = "an iterative method needs an operator";
  else if (o->method != rs->o.method)
    why = "another analytic method";
  else if (g_strcmp0 (o->backend ? o->backend : "best", rs->o.backend ? rs->o.backend : "best") != 0)
    why = "another backend";
  return ctr_plan_options_verdict (why, error);
}

const CtrPlanRoute ctr_route_analytic = {
  .name = "analytic",
  .applies = analytic_applies,
  .make = analytic_make,
  .estimate = ctr_plan_estimate_notes,
  .free = analytic_free,
  .execute = analytic_execute,
  .options_fit = analytic_options_fit,
  .get_notes = ctr_route_state_get_notes,
  .get_backend = ctr_route_state_get_backend,
  .get_info = ctr_route_state_get_info,
  .get_operator = ctr_route_state_no_operator,
};
