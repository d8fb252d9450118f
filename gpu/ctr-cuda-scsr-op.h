/* ctr-cuda-scsr-op.h — what the SCSR operator on the device (ctr-cuda.c)
 * shares with its vector table (ctr-cuda-scsr-vecops.c); private to gpu/. */
#pragma once

#include <glib.h>
#include "sysmat/ctr-vecops.h"
#include "ctr-cuda-api.h"

G_BEGIN_DECLS

/* The operator's product session (@op a "cuda-scsr" operator of
 * ctr_cuda_op_new), made on first use and kept to the operator's end.
 * Returns: (transfer none): the session, or NULL with
 *   CTR_ERROR_BACKEND_UNAVAILABLE or CTR_ERROR_OUT_OF_MEMORY. */
CtrCudaScsr *ctr_cuda_op_product_session (CtrOperator *op, GError **error);
/* The acquired-lane mask of the product session (data_size floats, 1 on
 * acquired lanes, 0 on padding); valid once the session is made. */
const float *ctr_cuda_op_lane_mask (CtrOperator *op);

/* The table of "cuda-scsr" (CtrOperatorClass.vec): CGLS, PWLS and ASD-POCS
 * on device vectors. */
extern const CtrVecOps ctr_cuda_scsr_vecops;

G_END_DECLS
