/* ctr-operator-natural.h — an operator's products on natural arrays: the
 * system matrix A (ctr-operator.h) as a plain linear map from an image
 * [z][y][x] to projections [view][row][col] and back, whatever native
 * layout the operator computes in (the packed, permuted SCSR layout, the
 * slice stack, the cone pair's natural one).  For callers outside the
 * iteration driver that want A x and Aᵀ y themselves (the Python package's
 * Operator, scripts, tests); the conversions are the operator's own
 * (image_to_native, data_scatter, data_gather, image_from_native), so the
 * products equal those of every backend to float rounding.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"

G_BEGIN_DECLS

/**
 * ctr_operator_forward_natural:
 * @op: the operator (one caller at a time: it uses the operator's scratch).
 * @x: the image, natural: grid.nz × grid.ny × grid.nx floats, C order
 *   [z][y][x] (fan/parallel: slice z is detector row
 *   ctr_geometry_slice_row), in 1/mm.
 * @proj: (out caller-allocates): the line integrals A x, natural:
 *   n_views × n_rows × n_cols floats, C order [view][row][col] (x's unit ×
 *   mm); every element written.
 * Native work arrays (image_size + data_size floats) are allocated per call.
 * Returns: FALSE with CTR_ERROR_OUT_OF_MEMORY (the work arrays, with their
 *   size) or the operator's device errors (CTR_ERROR_BACKEND_UNAVAILABLE);
 *   @proj is then undefined.
 */
gboolean ctr_operator_forward_natural (CtrOperator *op, const float *x, float *proj, GError **error);

/**
 * ctr_operator_adjoint_natural:
 * @proj: natural data [view][row][col] (n_views × n_rows × n_cols floats).
 * @x: (out caller-allocates): Aᵀ proj, natural [z][y][x]; every element
 *   written.  ⟨A x, y⟩ = ⟨x, Aᵀ y⟩ on natural arrays to float rounding.
 * Returns: as ctr_operator_forward_natural.
 */
gboolean ctr_operator_adjoint_natural (CtrOperator *op, const float *proj, float *x, GError **error);

G_END_DECLS
