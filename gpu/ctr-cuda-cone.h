/* ctr-cuda-cone.h — the cone-beam projector pair on the GPU as an operator
 * (core/sysmat/ctr-operator.h), the "cuda" backend's cone operator when
 * the whole problem fits the device (ctr_cuda_cone_op_new_fitted,
 * ctr-cuda-cone-split.h: z-slabs otherwise), so the cone route runs SART,
 * SIRT, CGLS, PWLS and ASD-POCS on it.  Kernels: ctr-cuda-cone.cu.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-vecops.h"
#include "ctr-cuda-api.h"

G_BEGIN_DECLS

/**
 * ctr_cuda_cone_op_new:
 * @g: a valid cone-beam geometry (circular or per-view vectors, flat or
 *   curved detector, helical source path, flying focal spot: the rays of
 *   ctr_cone_ray), copied.
 * @grid: the volume grid, copied.
 * @mask: (nullable): n_views·n_rows·n_cols bytes, [view][row][col], read
 *   (copied): rays whose entry is 0 are rows of zeros (ctr_cone_op_new_masked).
 * The operator "cuda-cone": the ray model, subsets (one view each, the
 * golden-ratio order of ctr-cone-op.c) and layouts of the CPU's
 * ctr_cone_op_new, products equal to the CPU's to float rounding.  SART and
 * SIRT run whole passes on the device (CtrOperatorPass: image, data,
 * coefficients and work volumes stay there; a report copies the image
 * back); CGLS, PWLS and ASD-POCS run on its vector operations
 * (ctr_cuda_cone_vecops: every vector in device memory for the run, only
 * inner products and, for a report, the image come back).
 * Device memory: three volumes and five data arrays of floats, checked
 * against the free memory first.
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_BACKEND_UNAVAILABLE (no device, a failed CUDA call),
 *   CTR_ERROR_OUT_OF_MEMORY (device or host memory, with the sizes) or
 *   CTR_ERROR_UNSUPPORTED (a detector whose rows are not straight lines).
 */
CtrOperator *ctr_cuda_cone_op_new (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask,
                                   GError **error);

/* The operator's vector operations (ctr-cuda-cone-vecops.c): CGLS, PWLS
 * and ASD-POCS with every vector in device memory. */
extern const CtrVecOps ctr_cuda_cone_vecops;

/* The device session of a "cuda-cone" operator, an open accumulation of
 * the host-array update completed first (for ctr-cuda-cone-vecops.c). */
CtrCudaCone *ctr_cuda_cone_op_session (CtrOperator *op);

G_END_DECLS
