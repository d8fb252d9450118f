/* ctr-recon-plan.c — plan once, execute many (see ctr-recon-plan.h).
 *
 * The facade: it picks the route (ctr-plan-route.h) once, when the plan is
 * made, and afterwards calls only through that route's table.  It keeps
 * what every route shares: the reference count, the lock that runs one
 * execute at a time, and the check that the projections fit the geometry.
 * The routes make the checks of method × beam × matrix × backend
 * (ctr-plan-common.h), the operator and the notes.
 */
#include "plan/ctr-recon-plan.h"
#include "base/ctr-memory.h"
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "plan/ctr-backend.h"
#include "base/ctr-error.h"
#include "data/ctr-helix.h"

struct _CtrReconPlan {
  gint ref_count;
  GMutex lock;        /* one execute at a time */
  CtrRouteState *rs;  /* the route's state; rs->route its operations */
};

/* The routes, asked in this order; exactly one applies to any geometry and
 * method. */
static const CtrPlanRoute *const routes[] = {
  &ctr_route_helical,
  &ctr_route_analytic,
  &ctr_route_cone,
  &ctr_route_slices,
};

gboolean
ctr_method_fits_geometry (CtrMethod m, const CtrGeometry *g)
{
  return ctr_plan_method_fits (m, g);
}

static const CtrPlanRoute *
plan_route (const CtrGeometry *g, const CtrReconOptions *o)
{
  for (guint i = 0; i < G_N_ELEMENTS (routes); i++)
    if (routes[i]->applies (g, o))
      return routes[i];
  g_return_val_if_reached (&ctr_route_slices);
}

CtrReconPlan *
ctr_recon_plan_new (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL && o != NULL, NULL);
  CtrRouteState *rs = plan_route (g, o)->make (g, grid, o, cancellable, error);
  if (rs == NULL)
    return NULL;
  CtrReconPlan *plan = g_new0 (CtrReconPlan, 1);
  plan->ref_count = 1;
  g_mutex_init (&plan->lock);
  plan->rs = rs;
  return plan;
}

char **
ctr_recon_plan_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL && o != NULL, NULL);
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error) || !ctr_recon_options_validate (o, error))
    return NULL;
  GPtrArray *notes = g_ptr_array_new ();
  if (!plan_route (g, o)->estimate (g, grid, o, notes, error))
    {
      g_ptr_array_set_free_func (notes, g_free);
      g_ptr_array_unref (notes);
      return NULL;
    }
  g_ptr_array_add (notes, NULL);
  return (char **) g_ptr_array_free (notes, FALSE);
}

CtrReconPlan *
ctr_recon_plan_ref (CtrReconPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  g_atomic_int_inc (&plan->ref_count);
  return plan;
}

void
ctr_recon_plan_unref (CtrReconPlan *plan)
{
  if (plan == NULL || !g_atomic_int_dec_and_test (&plan->ref_count))
    return;
  ctr_route_state_free (plan->rs);
  g_mutex_clear (&plan->lock);
  g_free (plan);
}

CtrVolume *
ctr_recon_plan_execute (CtrReconPlan *plan, const CtrProjections *p, const CtrVolume *reference,
                        CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                        GError **error)
{
  g_return_val_if_fail (plan != NULL && p != NULL, NULL);
  const CtrGeometry *g = plan->rs->g;
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the projections (%u views × %u rows × %u columns) do not fit the plan's geometry (%u × %u × %u)",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols);
      return NULL;
    }
  g_mutex_lock (&plan->lock);
  CtrVolume *img = plan->rs->route->execute (plan->rs, p, reference, callback, user_data, cancellable, error);
  g_mutex_unlock (&plan->lock);
  return img;
}

gboolean
ctr_recon_plan_set_options (CtrReconPlan *plan, const CtrReconOptions *o, GError **error)
{
  g_return_val_if_fail (plan != NULL && o != NULL, FALSE);
  if (!plan->rs->route->options_fit (plan->rs, o, error))
    return FALSE;
  g_mutex_lock (&plan->lock);
  const CtrMatrixFormat chosen = plan->rs->o.matrix;   /* auto: what the plan chose stays */
  plan->rs->o = *o;
  if (o->matrix == CTR_MATRIX_AUTO)
    plan->rs->o.matrix = chosen;
  g_mutex_unlock (&plan->lock);
  return TRUE;
}

const char *const *
ctr_recon_plan_get_notes (CtrReconPlan *plan)
{
  return plan->rs->route->get_notes (plan->rs);
}

const char *
ctr_recon_plan_get_backend (CtrReconPlan *plan)
{
  return plan->rs->route->get_backend (plan->rs);
}

const CtrGrid *
ctr_recon_plan_get_grid (CtrReconPlan *plan)
{
  return &plan->rs->grid;
}

const CtrReconOptions *
ctr_recon_plan_get_options (CtrReconPlan *plan)
{
  return &plan->rs->o;
}

void
ctr_recon_plan_get_info (CtrReconPlan *plan, gboolean blocking, CtrPlanInfo *info)
{
  plan->rs->route->get_info (plan->rs, blocking, info);
}

CtrOperator *
ctr_recon_plan_get_operator (CtrReconPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  g_mutex_lock (&plan->lock);
  CtrOperator *op = plan->rs->route->get_operator (plan->rs);
  if (op != NULL)
    ctr_operator_ref (op);
  g_mutex_unlock (&plan->lock);
  return op;
}
