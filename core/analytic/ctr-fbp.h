/* ctr-fbp.h — filtered back-projection for parallel, flat-fan and curved-fan beam.
 *
 * Kak & Slaney, "Principles of Computerized Tomographic Imaging", ch. 3:
 * parallel beam §3.3 (Eq. 61), equiangular fan §3.4.1 (Eqs. 111-118),
 * equispaced (flat) fan §3.4.2 (Eqs. 143-155).  Discrete spatial-domain Ram-Lak
 * kernel (Eq. 61), zero padding to a power of two >= 2N, FFTW3f plans made
 * once; short-scan fan data weighted after Parker 1982.
 */
#pragma once

#include "analytic/ctr-redundancy.h"   /* ctr_parker_weight */

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "analytic/ctr-filter.h"

G_BEGIN_DECLS

/**
 * ctr_fbp_run:
 * @g: parallel or fan geometry (any angles; flat or curved; offsets).
 * @p: line integrals, [view][row][col]; each row is reconstructed into slice
 *   ctr_geometry_slice_row order.
 * @grid: output grid (grid->nz == g->n_rows).
 * @window, @cutoff: apodisation of the ramp, cutoff a fraction of Nyquist in (0, 1].
 *
 * Returns: (transfer full): the image in the unit of 1/(pitch unit) — 1/mm —
 *   or NULL with CTR_ERROR_INVALID_GEOMETRY, CTR_ERROR_INVALID_ARGUMENT,
 *   CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.  Scaling: a uniform disc of
 *   attenuation mu reconstructs to mu within 2 % (tested).
 */
CtrVolume *ctr_fbp_run (const CtrGeometry *g, const CtrProjections *p,
                        const CtrGrid *grid, CtrFilterWindow window,
                        double cutoff, GCancellable *cancellable, GError **error);


G_END_DECLS
