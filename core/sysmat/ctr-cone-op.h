/* ctr-cone-op.h — the on-the-fly cone-beam projector pair
 * (ctr-cone-projector.h) as a CPU operator (ctr-operator.h): subsets are
 * single views, visited in a spread order. */
#pragma once

#include <glib.h>
#include "ctr-operator.h"
#include "ctr-cone-projector.h"

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
 *   CTR_ERROR_OUT_OF_MEMORY (work space).
 */
CtrOperator *ctr_cone_op_new (CtrConeProjector *cp, GError **error);

G_END_DECLS
