/* ctr-solver.h — algebraic solvers on a stored system matrix.
 *
 *  ART  (Kaczmarz; cuART Eq. 1), ray by ray, row-sequential CPU reference:
 *        x += λ (b_i - a_i·x) / ||a_i||² · a_i
 *  PART (parallel ART; cuART Eq. 9), all rays of one view at once:
 *        x += A_vᵀ (c ∘ (b_v - A_v x)),  c_i = λ / (κ_v ||a_i||²),
 *        κ_v = M' (as printed) or the view's sparsity bound (default; see
 *        CtrPartStep in ctr-recon-types.h)
 *  SART (Andersen & Kak 1984, Eq. 5), view by view:
 *        x_j += λ / (Σ_{i∈v} a_ij) · Σ_{i∈v} a_ij (b_i - a_i·x) / (Σ_j a_ij)
 *  SIRT (Gilbert 1972, in the row/column normalised form used by ASTRA):
 *        x += λ C Aᵀ R (b - A x),  R = 1/row sums, C = 1/column sums
 *
 * All run on a stack of slices at once (each matrix row read once for all
 * slices), skip dead detector pixels, check the GCancellable between views
 * and report through CtrIterFunc after every iteration.  Views are visited in
 * acquisition order, or (CTR_SUBSETS_ORBIT, parallel ART) the views of one
 * symmetry orbit together.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "ctr-projections.h"
#include "ctr-recon-types.h"
#include "ctr-progress.h"
#include "sysmat/ctr-sysmat.h"
#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

/**
 * ctr_solver_run:
 * @a: the system matrix of @g on @grid.
 * @g: the geometry @a was built from.
 * @p: line integrals [view][row][col].
 * @grid: output grid, nz == g->n_rows.
 * @options: method must be iterative.
 * @reference: (nullable): reference on @grid (same grid, checked) for the metrics.
 * Returns: (transfer full): the image, or NULL with CTR_ERROR_INVALID_ARGUMENT,
 *   CTR_ERROR_OUT_OF_MEMORY or G_IO_ERROR_CANCELLED.
 */
CtrVolume *ctr_solver_run (const CtrSysmat *a, const CtrGeometry *g,
                           const CtrProjections *p, const CtrGrid *grid,
                           const CtrReconOptions *options, const CtrVolume *reference,
                           CtrIterFunc callback, gpointer user_data,
                           GCancellable *cancellable, GError **error);

/**
 * ctr_solver_run_scsr:
 * As ctr_solver_run() on the symmetry-compressed matrix @m (parallel ART,
 * SART or SIRT; ART gives CTR_ERROR_INVALID_ARGUMENT), with the views of one
 * symmetry orbit as one subset (see ctr-scsr-solve.c).  Equal to
 * ctr_solver_run() on CSR with CTR_SUBSETS_ORBIT up to float rounding.
 */
CtrVolume *ctr_solver_run_scsr (const CtrScsr *m, const CtrGeometry *g,
                                const CtrProjections *p, const CtrGrid *grid,
                                const CtrReconOptions *options, const CtrVolume *reference,
                                CtrIterFunc callback, gpointer user_data,
                                GCancellable *cancellable, GError **error);

G_END_DECLS
