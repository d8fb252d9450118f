/* ctr-route-cone.c — the cone-beam route (ctr-plan-route.h): SART, SIRT,
 * CGLS, PWLS and ASD-POCS on the 3-D grid of a circular or per-view-vector
 * cone beam, with the cone-beam projector pair (ctr-cone-projector.h) as the
 * operator: the plan's backend's pair when it has one (the GPU's, gpu/), the
 * CPU's otherwise, or when the device cannot take the problem (with a note
 * saying why) or fails before the first report (the run starts again on the
 * CPU, ctr_iterate_run's fall-back).
 */
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "plan/ctr-backend.h"

#include <string.h>
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

/* The CPU's pair as an operator. */
static CtrOperator *
cpu_operator (CtrRouteState *rs, GError **error)
{
  CtrConeProjector *cp = ctr_cone_projector_new (rs->g, &rs->grid, error);
  return cp != NULL ? ctr_cone_op_new (cp, error) : NULL;
}

static CtrOperator *
cpu_fallback (gpointer data, GError **error)
{
  return cpu_operator (data, error);
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
  if (!ctr_route_state_init (rs, &ctr_route_cone, g, grid, o, error)
      || !ctr_route_state_select_backend (rs, error))
    return NULL;
  if (rs->backend != ctr_backend_cpu ())
    {
      CtrBackendConeOperator make = ctr_backend_cone (rs->backend);
      g_autoptr (GError) e = NULL;
      if (make != NULL)   /* geometry and grid checked by ctr_plan_check above */
        c->op = make (rs->backend, rs->g, &rs->grid, NULL, &e);
      if (c->op == NULL)
        {
          ctr_route_state_add_note (rs, e != NULL
                                    ? g_strdup_printf ("%s; the CPU runs %s", e->message, ctr_method_name (o->method))
                                    : g_strdup_printf ("backend %s has no cone-beam projector; the CPU runs %s",
                                                       rs->backend->name, ctr_method_name (o->method)));
          rs->backend = ctr_backend_cpu ();
        }
    }
  if (c->op == NULL && (c->op = cpu_operator (rs, error)) == NULL)
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
  g_autofree char *note = NULL;
  const gboolean on_cpu = rs->backend == ctr_backend_cpu ();
  CtrVolume *img = ctr_iterate_run (c->op, ctr_solver_class (rs->o.method), on_cpu ? NULL : cpu_fallback, rs,
                                    p, &rs->o, ref, callback, user_data, cancellable, &note, error);
  if (note != NULL)
    {
      /* The device failed before the first iteration: the CPU from now on. */
      ctr_route_state_add_note (rs, g_steal_pointer (&note));
      g_autoptr (GError) e = NULL;
      CtrOperator *cpu = cpu_operator (rs, &e);
      if (cpu != NULL)
        {
          ctr_operator_unref (c->op);
          c->op = cpu;
          rs->backend = ctr_backend_cpu ();
          rs->info.operator_name = cpu->klass->name;
        }
    }
  return img;
}

static gboolean
cone_options_fit (const CtrRouteState *rs, const CtrReconOptions *o, GError **error)
{
  /* Every iterative method runs on the one projector pair, made for the
   * backend the plan's options asked for: another backend ("cpu" after
   * "best" found a device) needs its own pair. */
  const char *asked = o->backend != NULL && *o->backend ? o->backend : "best";
  const char *made = rs->o.backend != NULL && *rs->o.backend ? rs->o.backend : "best";
  return ctr_plan_check (rs->g, &rs->grid, o, error)
         && ctr_plan_options_verdict (ctr_route_state_iterative_why (rs, o, strcmp (asked, made) == 0), error);
}

static CtrOperator *
cone_get_operator (CtrRouteState *rs)
{
  return ((ConeState *) rs)->op;
}

const CtrPlanRoute ctr_route_cone = {
  .name = "cone",
  .applies = cone_applies,
  .make = cone_make,
  .estimate = ctr_plan_estimate_notes,
  .free = cone_free,
  .execute = cone_execute,
  .options_fit = cone_options_fit,
  .get_notes = ctr_route_state_get_notes,
  .get_backend = ctr_route_state_get_backend,
  .get_info = ctr_route_state_get_info,
  .get_operator = cone_get_operator,
};
