/* ctr-route-cone.c — the cone-beam route (ctr-plan-route.h): SART, SIRT,
 * CGLS, PWLS and ASD-POCS on the 3-D grid of a circular or per-view-vector
 * cone beam, with the cone-beam projector pair (ctr-cone-projector.h) as the
 * operator, on the CPU (no backend has a cone-beam projector).
 */
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "data/ctr-helix.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-cone-op.h"

typedef struct {
  CtrRouteState base;
  CtrOperator *op;
} ConeState;

static void
cone_free (CtrRouteState *rs)
{
  if (rs == NULL)
    return;
  ConeState *c = (ConeState *) rs;
  ctr_operator_unref (c->op);
  ctr_route_state_clear (rs);
  g_free (c);
}

static gboolean
cone_applies (const CtrGeometry *g, const CtrReconOptions *o)
{
  return !ctr_helix_applies (g) && g->beam == CTR_BEAM_CONE && ctr_method_is_iterative (o->method);
}

static CtrRouteState *
cone_make (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
           GCancellable *cancellable, GError **error)
{
  (void) cancellable;
  if (!ctr_plan_check (g, grid, o, error))
    return NULL;
  ConeState *c = g_new0 (ConeState, 1);
  g_autoptr (CtrRouteState) rs = &c->base;
  ctr_route_state_init (rs, &ctr_route_cone, g, grid, o);
  if (!ctr_route_state_select_backend (rs, error))
    return NULL;
  if (rs->backend != ctr_backend_cpu ())
    ctr_route_state_add_note (rs, g_strdup_printf ("backend %s has no cone-beam projector; the CPU runs %s",
                                                   rs->backend->name, ctr_method_name (o->method)));
  rs->backend = ctr_backend_cpu ();
  CtrConeProjector *cp = ctr_cone_projector_new (rs->g, &rs->grid, error);
  if (cp == NULL)
    return NULL;
  c->op = ctr_cone_op_new (cp, error);
  if (c->op == NULL)
    return NULL;
  rs->info.operator_name = c->op->klass->name;
  ctr_route_state_add_note (rs, g_strdup (c->op->description));
  ctr_route_state_add_note (rs, g_strdup_printf ("backend: %s", rs->backend->name));
  return g_steal_pointer (&rs);
}

static CtrVolume *
cone_execute (CtrRouteState *rs, const CtrProjections *p, const CtrVolume *reference,
              CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  ConeState *c = (ConeState *) rs;
  g_autoptr (CtrVolume) ref = NULL;
  if (!ctr_route_state_reference (rs, reference, CTR_RESAMPLE_VOLUME, &ref, error))
    return NULL;
  /* No fall-back: the operator is the CPU's. */
  return ctr_iterate_run (c->op, ctr_solver_class (rs->o.method), NULL, NULL, p, &rs->o, ref,
                          callback, user_data, cancellable, NULL, error);
}

static gboolean
cone_options_fit (const CtrRouteState *rs, const CtrReconOptions *o, GError **error)
{
  /* Every iterative method runs on the one projector pair. */
  return ctr_plan_check (rs->g, &rs->grid, o, error)
         && ctr_plan_options_verdict (ctr_route_state_iterative_why (rs, o, TRUE), error);
}

const CtrPlanRoute ctr_route_cone = {
  .name = "cone",
  .applies = cone_applies,
  .make = cone_make,
  .free = cone_free,
  .execute = cone_execute,
  .options_fit = cone_options_fit,
  .get_notes = ctr_route_state_get_notes,
  .get_backend = ctr_route_state_get_backend,
  .get_info = ctr_route_state_get_info,
};
