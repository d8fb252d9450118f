/* ctr-csr-op.h — the plain CSR matrix (ctr-sysmat.h) as a CPU operator
 * (ctr-operator.h): subsets are single views, or symmetry orbits. */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-sysmat.h"
#include "sysmat/ctr-symmetry.h"

G_BEGIN_DECLS

/**
 * ctr_csr_op_new:
 * @a: the matrix of @g on one slice of @grid (a reference is taken).
 * @orbits: (nullable) (transfer full): the symmetry whose orbits are the
 *   subsets (ctr_symmetry_find); NULL: one view per subset, in acquisition
 *   order, and the sequential (ART) update available.
 * @grid: the image grid; its nz slices (= g->n_rows) form the stack.
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT (@a was built for another geometry or grid)
 *   or CTR_ERROR_OUT_OF_MEMORY (work space).
 */
CtrOperator *ctr_csr_op_new (CtrSysmat *a, CtrSymmetry *orbits, const CtrGeometry *g,
                             const CtrGrid *grid, GError **error);

G_END_DECLS
