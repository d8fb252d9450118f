/* ctr-cuda-fly.h — GLib side of the GPU's on-the-fly fan/parallel
 * projector pair (ctr-cuda-fly-api.h, kernels in ctr-cuda-fly.cu): the
 * session made from a geometry, a grid, a ray model and the subsets of the
 * CPU's on-the-fly operator (core/sysmat/ctr-fly-op.h), and its products
 * on host arrays.
 *
 * Status (issue 37): the pair and its products are proven against the CPU
 * operator on the emulation harness (tests/test-gpu-fly.c); no operator or
 * plan route uses it yet, so `--matrix none` still runs on the CPU.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include "sysmat/ctr-ray-model.h"
#include "sysmat/ctr-symmetry.h"
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
 *   closed form does not hold: ctr_fly_ray_table), CTR_ERROR_OUT_OF_MEMORY
 *   (host table or device memory, with the sizes) or
 *   CTR_ERROR_BACKEND_UNAVAILABLE (no device, a failed CUDA call named).
 *
 * The device holds the ray table (4 doubles a ray, 24 for the area model),
 * the subsets' view lists, two images and one data array of floats.
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

G_END_DECLS
