/* ctr-cone-op.h — the on-the-fly cone-beam projector pair
 * (ctr-cone-projector.h) as a CPU operator (ctr-operator.h): subsets are
 * single views, visited in a spread order. */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-cone-projector.h"

G_BEGIN_DECLS

/**
 * ctr_cone_op_new:
 * @cp: the projector pair of a cone geometry on a volume grid (taken over:
 *   freed with the operator).
 * Native layouts are the natural ones (volume [z][y][x], data
 * [view][row][col]); n_slices is 1 (the volume is one image).  Row sums give
 * Σ_j a_ij only (@sq must be NULL: the pair stores no weights); the subset
 * overlap is not defined (parallel ART does not run on cone beam).
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_OUT_OF_MEMORY (work space, its copy of the geometry or its
 *   visit order; @cp is freed).
 */
CtrOperator *ctr_cone_op_new (CtrConeProjector *cp, GError **error);

/**
 * ctr_cone_op_estimate_bytes:
 * The work space ctr_cone_op_new holds beside the method's vectors, in
 * bytes, for @g and @grid, before anything is built: the back-projection
 * and column-sum volumes and the image and update with x and y swapped
 * for the x-dominant rays of whole-set products (ctr_cone_projector_forward_rays_xt;
 * float, @grid's voxels each: four volumes), a view block's data
 * (float, rows × columns × the views per pass, CTR_CONE_VIEW_BLOCK or 8)
 * and its ray table (ctr_cone_rays_estimate_bytes).
 */
guint64 ctr_cone_op_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid);

/**
 * ctr_cone_op_new_masked:
 * As ctr_cone_op_new, for the system matrix of the rays whose @mask entry is
 * not 0 (@mask: n_views·n_rows·n_cols bytes, [view][row][col], taken over;
 * NULL: every ray): the other rays are rows of zeros — forward gives 0
 * there, the adjoint, column sums and updates leave them out, and gathered
 * data are 0 there (so the driver counts them as not acquired).  A helical
 * slab uses it for the rays that leave the slab's volume.
 */
CtrOperator *ctr_cone_op_new_masked (CtrConeProjector *cp, guint8 *mask, GError **error);

/**
 * ctr_cone_op_views_set_up:
 * The work of setting rays up: how many views' rays @op (a ctr_cone_op_new
 * operator) has set up since it was made, counting a view once per
 * traversal that sets its rays up (a forward and an adjoint through one
 * ray table: once).  For tests and benchmarks; 0 for another operator.
 */
guint64 ctr_cone_op_views_set_up (const CtrOperator *op);

/* Shared by the operators of the cone pair's natural layouts (this one and
 * the GPU's, gpu/ctr-cuda-cone.c): image_to_native / image_from_native (a
 * copy of image_size floats); data_gather with a ray mask ([view][row][col]
 * bytes, 0 = left out, gathered as 0; NULL: every ray); finish on host
 * arrays (X ← X + scale ∘ D, scale NULL: 1, clipped with
 * CTR_UPDATE_NONNEG; D zeroed). */
void ctr_cone_op_copy_image (CtrOperator *op, const float *from, float *to);
void ctr_cone_op_gather_masked (const CtrOperator *op, const guint8 *mask, const float *proj, float *Y);
void ctr_cone_op_finish_host (const CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags);

/**
 * ctr_cone_op_visit_order:
 * The golden-ratio visiting order of @n one-view subsets (see
 * ctr-cone-op.c; Herman & Meyer 1993): entry t is the view updated t-th.
 * Returns: (transfer full): @n entries, a permutation of 0 … n − 1; NULL
 *   with CTR_ERROR_OUT_OF_MEMORY when its tables (16 bytes a view at once)
 *   cannot be allocated.
 */
guint *ctr_cone_op_visit_order (guint n, GError **error);

G_END_DECLS
