/* ctr-recon-plan-private.h — the plan's helical route: how the plan
 * (ctr-recon-plan.h) reconstructs helical and curved multi-row cone-beam
 * data (ctr_helix_applies), implemented in ctr-recon-helical.c.  Internal to
 * the plan: not in ctrecon.h.  (Declared here, with the plan, so that the
 * route, which makes an ordinary fan-beam plan for the rebinned stack, and
 * the plan, which hands helical geometries to the route, do not include
 * each other.)
 *
 * Two routes, chosen by CtrReconOptions.rebin:
 *  - 180LI / 360LI: plan = the rebinning to the grid's slices
 *    (ctr-rebin-helical.h) and an ordinary fan-beam plan on the rebinned
 *    stack (FBP, PART on SCSR with one matrix for every slice, SIRT, PWLS, …);
 *    execute = rebin the projections, run the fan-beam plan.
 *  - none: the cone-beam projector pair (ctr-cone-projector.h) on a slab
 *    of the volume: the grid's slices widened by the z distance a ray travels
 *    inside the grid's circle, the views with a ray inside that slab, and only
 *    the rays whose whole path through the grid's circle stays in it (the
 *    others are left out: ctr_cone_op_new_masked), so every ray through the
 *    requested slices is modelled in full.  SART, SIRT, CGLS, PWLS and
 *    ASD-POCS run on it; the output is the requested slices.
 * The grid's slices are at their true z (cz, dz; ctr_helix_grid), one image
 * per slice, from the lowest z up.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "plan/ctr-recon-plan.h"

G_BEGIN_DECLS

typedef struct _CtrHelicalPlan CtrHelicalPlan;

/* Errors as ctr_recon_plan_new; CTR_ERROR_UNSUPPORTED for a method the
 * route does not run (FDK; with rebin none: FBP, ART, parallel ART). */
CtrHelicalPlan *ctr_helical_plan_new (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                                      GCancellable *cancellable, GError **error);
void ctr_helical_plan_free (CtrHelicalPlan *hp);

/* As ctr_recon_plan_execute; the callback's images are on the plan's grid. */
CtrVolume *ctr_helical_plan_execute (CtrHelicalPlan *hp, const CtrProjections *p, const CtrVolume *reference,
                                     CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                                     GError **error);

/* The route's notes (rebinning or slab, then the fan-beam plan's), oldest
 * first, NULL-terminated, borrowed (valid until the next execute). */
const char *const *ctr_helical_plan_get_notes (CtrHelicalPlan *hp);
const char *ctr_helical_plan_get_backend (CtrHelicalPlan *hp);
void ctr_helical_plan_get_info (CtrHelicalPlan *hp, gboolean blocking, CtrPlanInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrHelicalPlan, ctr_helical_plan_free)

G_END_DECLS
