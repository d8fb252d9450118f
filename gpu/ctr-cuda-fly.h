/* ctr-cuda-fly.h — GLib side of the GPU's on-the-fly fan/parallel
 * projector pair (ctr-cuda-fly-api.h, kernels in ctr-cuda-fly.cu): the
 * session made from a geometry, a grid, a ray model and the subsets of the
 * CPU's on-the-fly operator (core/sysmat/ctr-fly-op.h), and its products
 * on host arrays.
 *
 * The operator "cuda-fly" (ctr-cuda-fly-op.c) is the "cuda" backend's
 * on-the-fly operator (ctr_backend_register_fly): `--matrix none` (or the
 * memory plan choosing no stored matrix) runs on it when a device answers.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include "sysmat/ctr-ray-model.h"
#include "sysmat/ctr-operator.h"
#include "sysmat/ctr-symmetry.h"
#include "sysmat/ctr-vecops.h"
#include "ctr-cuda-fly-api.h"

G_BEGIN_DECLS

/**
 * ctr_cuda_fly_new:
 * @g: fan or parallel geometry (validated here).
 * @grid: the image grid; nz = g->n_rows slices form the stack.
 * @model: the ray model (ctr_ray_weights's).
 * @orbits: (nullable): the symmetry whose orbits are the subsets, as for
 *   ctr_fly_op_new (read, not kept); NULL: one view per subset.
 * @error: CTR_ERROR_INVALID_GEOMETRY / CTR_ERROR_INVALID_ARGUMENT (as
 *   ctr_fly_op_new), CTR_ERROR_UNSUPPORTED (the area model on a ray whose
 *   closed form does not hold: ctr_fly_ray_table; more than 65535
 *   slices), CTR_ERROR_OUT_OF_MEMORY (host table or device memory, with
 *   the sizes) or
 *   CTR_ERROR_BACKEND_UNAVAILABLE (no device, a failed CUDA call named).
 *
 * The device holds the ray table (4 doubles a ray, 24 for the area model),
 * the subsets' view lists, three images and five data arrays of floats
 * (ctr_cuda_fly_estimate_bytes).
 *
 * Returns: (transfer full): the session (ctr_cuda_fly_destroy), or NULL.
 */
CtrCudaFly *ctr_cuda_fly_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                              const CtrSymmetry *orbits, GError **error);

/* Y = A_S X with host arrays in the CPU operator's native layouts (image
 * [slice][pixel], data [slice][view·n_cols + col]); @subset: an orbit (or
 * a view without orbits), or CTR_SUBSET_ALL; the other rays of @Y keep
 * their values.  Errors: CTR_ERROR_BACKEND_UNAVAILABLE naming the call. */
gboolean ctr_cuda_fly_forward_host (CtrCudaFly *f, guint subset, const float *X, float *Y, GError **error);
/* D = A_Sᵀ Y (overwritten) with host arrays; errors as above. */
gboolean ctr_cuda_fly_adjoint_host (CtrCudaFly *f, guint subset, const float *Y, float *D, GError **error);

/* The device's subset number of an operator's @subset (CTR_SUBSET_ALL:
 * past the last, every view). */
guint ctr_cuda_fly_subset (guint subset);

/**
 * ctr_cuda_fly_op_new:
 * @g, @grid, @model: as ctr_fly_op_new.
 * @orbits: (nullable) (transfer full): the symmetry whose orbits are the
 *   subsets, as ctr_fly_op_new (freed on failure too).
 * @error: as ctr_cuda_fly_new, plus ctr_fly_op_new's errors.
 *
 * The operator "cuda-fly": the subsets, layouts and ray model of the CPU's
 * on-the-fly operator, every product on the device, equal to the CPU's to
 * float rounding (tests/test-gpu-fly.c).  PART, SART and SIRT run whole
 * passes on the device (CtrOperatorPass); CGLS, PWLS and ASD-POCS run on
 * its vector operations (ctr_cuda_fly_vecops: every vector in device
 * memory for the run).  ‖a_i‖² and the overlaps κ (set-up, once a run) come
 * from the CPU's on-the-fly operator on the same rows, which it keeps (the
 * host memory a CPU run would hold).  ART (ray-sequential) is refused
 * (CTR_ERROR_UNSUPPORTED): the plan runs it on the CPU.
 *
 * Returns: (transfer full): the operator, or NULL with @error.
 */
CtrOperator *ctr_cuda_fly_op_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, CtrSymmetry *orbits,
                                  GError **error);

/* The operator's vector operations (ctr-cuda-fly-vecops.c). */
extern const CtrVecOps ctr_cuda_fly_vecops;

/* The device session of a "cuda-fly" operator. */
CtrCudaFly *ctr_cuda_fly_op_session (CtrOperator *op);

G_END_DECLS
