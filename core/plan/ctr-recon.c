/* ctr-recon.c — one call that reconstructs (see ctr-recon.h). */
#include "plan/ctr-recon.h"
#include "plan/ctr-recon-plan.h"

CtrVolume *
ctr_reconstruct (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                 const CtrReconOptions *o, const CtrVolume *reference,
                 CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                 GError **error)
{
  g_return_val_if_fail (g && p && grid && o, NULL);
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, grid, o, cancellable, error);
  if (plan == NULL)
    return NULL;
  return ctr_recon_plan_execute (plan, p, reference, callback, user_data, cancellable, error);
}
