/* ctr-fly-op.h — the fan and parallel-beam projector pair computed on the
 * fly (matrix-free) as a CPU operator (ctr-operator.h; docs/design.md §5).
 *
 * No system matrix is stored: every product computes the rows it needs with
 * the same ray code the stored matrices are built from (ctr_ray_weights in
 * ctr-ray.c: the area model of cuART §2.1, Joseph 1982, Siddon 1985), so
 * its forward and adjoint products equal those of the CSR and SCSR matrices
 * of the same geometry, grid and model to float rounding (tests/test-fly.c
 * holds them to 1e-5 relative), and the pair is exactly adjoint up to that
 * rounding.  The area model's adjoint is computed pixel by pixel
 * (ctr-area-sweep.h) where its closed form holds, which is faster and gives
 * the same bits for any thread count.  Memory: the work arrays of the CSR
 * operator (one data vector, one image, one pixel map, one ray map of ones)
 * plus per-thread row buffers of a few MiB — nothing that grows with
 * views × pixels.
 *
 * Native layouts are the natural ones, as in ctr-csr-op.h: images
 * x[slice][pixel] (pixel = iy·nx + ix, row 0 = +y), data
 * [slice][view·n_cols + col].  A stack of slices shares every row: each
 * row is computed once and applied to all slices.
 *
 * Subsets: single views in acquisition order (then the sequential update,
 * ART, is available) or the views of one symmetry orbit (ctr-symmetry.h),
 * as the CSR operator has them, so a method runs the same subsets as on the
 * stored matrix.  With orbits only the canonical view's rows are computed
 * and mapped to the orbit's other views, as SCSR stores them (cuART §3):
 * then the rows are the SCSR matrix's, and a ray that runs exactly along a
 * pixel side may give its Siddon length to the other neighbour than the
 * CSR row computed directly does.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-ray-model.h"
#include "sysmat/ctr-symmetry.h"

G_BEGIN_DECLS

/**
 * ctr_fly_op_new:
 * @g: fan or parallel geometry (validated here).
 * @grid: the image grid; its nz slices (= g->n_rows) form the stack; nx, ny,
 *   dx, dy (mm), cx, cy (mm) define each slice.
 * @model: the ray model of the rows.
 * @orbits: (nullable) (transfer full): the symmetry whose orbits are the
 *   subsets (ctr_symmetry_find on @g and @grid); NULL: one view per subset,
 *   in acquisition order, and the sequential (ART) update available.
 * @error: CTR_ERROR_INVALID_GEOMETRY, CTR_ERROR_INVALID_ARGUMENT (cone beam,
 *   a bad grid, unknown model, nz ≠ n_rows) or CTR_ERROR_OUT_OF_MEMORY (the
 *   work space, with its size).
 *
 * Returns: (transfer full): the operator ("cpu-fly"), or NULL with @error.
 */
CtrOperator *ctr_fly_op_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                             CtrSymmetry *orbits, GError **error);

/**
 * ctr_fly_op_skip_overlaps:
 * @op: an operator of ctr_fly_op_new().
 *
 * Says that the run will not ask for the subsets' overlaps κ (parallel
 * ART's cuART step, every other method): the row norms ‖a_i‖² are then made
 * alone, without the threads' pixel counts and the orbits' folds that come
 * with them otherwise (ctr_fly_op_estimate_bytes' @overlaps FALSE).  κ is
 * still counted, by a pass of its own, if asked for after all.
 */
void ctr_fly_op_skip_overlaps (CtrOperator *op);

/**
 * ctr_fly_op_estimate_bytes:
 * @g: fan or parallel geometry (valid).
 * @grid: the image grid (valid; nz = g->n_rows).
 * @model: the ray model of the rows.
 * @orbits: whether the subsets are symmetry orbits (then the symmetry's
 *   pixel tables are held: ctr_symmetry_find).
 * @overlaps: whether the subsets' overlaps κ are made (parallel ART: with
 *   orbit subsets always, with the row norms; with one view a subset for
 *   its default step): the threads' pixel counts while they are made.
 *
 * The bytes ctr_fly_op_new() and the operator's products will hold at
 * their peak, without building anything: its work arrays (one data vector
 * and one image of the stack, one pixel map, one ray map), the pixel sweep's
 * tables (area model) or, for the other models, the threads' image
 * accumulators (4 bytes a pixel a slice a thread, up to 64 MiB) and,
 * with single-view subsets or without them, the adjoint's buckets, the
 * threads' row buffers, the symmetry's pixel tables (10 bytes a pixel) and
 * the overlaps' counts (4 bytes a pixel a thread).  Threads:
 * omp_get_max_threads().  For the plan's memory estimate
 * (ctr_plan_memory_estimate).
 *
 * Returns: bytes.
 */
guint64 ctr_fly_op_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, gboolean orbits,
                                   gboolean overlaps);

G_END_DECLS
