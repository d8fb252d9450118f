/* ctr-recon.h — one call that reconstructs: ctr_reconstruct().
 *
 * A convenience over the plan (ctr-recon-plan.h) for a single run; the CLI
 * and the window keep a plan when they run more than once.  The vocabulary
 * (methods, options) is ctr-recon-types.h, the per-iteration report
 * ctr-progress.h.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "recon/ctr-recon-types.h"
#include "recon/ctr-progress.h"

G_BEGIN_DECLS

/**
 * ctr_reconstruct:
 * ctr_recon_plan_new (@g, @grid, @options) and one ctr_recon_plan_execute
 * (see ctr-recon-plan.h for the arguments); the plan's notes are dropped.
 * Returns: (transfer full): the reconstruction, or NULL with the errors of
 *   those two.
 */
CtrVolume *ctr_reconstruct (const CtrGeometry *g, const CtrProjections *p,
                            const CtrGrid *grid, const CtrReconOptions *options,
                            const CtrVolume *reference, CtrIterFunc callback,
                            gpointer user_data, GCancellable *cancellable,
                            GError **error);

G_END_DECLS
