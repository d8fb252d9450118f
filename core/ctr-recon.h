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
#include "ctr-geometry.h"
#include "ctr-projections.h"
#include "ctr-volume.h"
#include "ctr-recon-types.h"
#include "ctr-progress.h"

G_BEGIN_DECLS

/**
 * ctr_reconstruct:
 * @g: validated fan, parallel or cone geometry.
 * @p: line integrals [view][row][col]; for fan and parallel beam every
 *   detector row becomes a slice (ctr_geometry_slice_row gives the order).
 * @grid: output grid (fan/parallel: nz must equal g->n_rows; cone beam: any
 *   3-D grid, reconstructed with fdk, sart or sirt, see ctr-recon-cone.h;
 *   other methods give CTR_ERROR_UNSUPPORTED).
 * @reference: (nullable): reference image on any grid; it is resampled to
 *   @grid for the metrics.
 * @callback: (nullable): per-iteration report.
 * @cancellable: (nullable): checked between views; cancellation returns NULL
 *   with G_IO_ERROR_CANCELLED.
 *
 * Returns: (transfer full): the reconstruction in 1/mm (1/pixel when the
 *   geometry's pixel size is unknown), or NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrVolume *ctr_reconstruct (const CtrGeometry *g, const CtrProjections *p,
                            const CtrGrid *grid, const CtrReconOptions *options,
                            const CtrVolume *reference, CtrIterFunc callback,
                            gpointer user_data, GCancellable *cancellable,
                            GError **error);

G_END_DECLS
