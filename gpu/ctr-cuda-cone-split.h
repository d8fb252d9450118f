/* ctr-cuda-cone-split.h — the GPU's cone-beam pair out of core: when the
 * volume, the projections and the work arrays do not fit the device, the
 * operator "cuda-cone-split" streams z-slabs of the volume and chunks of
 * views through it (kernels: ctr-cuda-cone-split.cu; the split follows
 * TIGRE's, Biguri et al. 2020, see ctr-cuda-cone-split-api.h).  The
 * "cuda" backend's cone operator (ctr-cuda-cone.c) is
 * ctr_cuda_cone_op_new_fitted: whole when it fits, split otherwise.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-operator.h"

G_BEGIN_DECLS

/**
 * CtrCudaConeFit:
 * The device memory plan of the cone-beam pair.
 * @budget: bytes the pair may hold on the device: the free memory less the
 *   margin of the free-memory checks (64 MiB + 5 % of the total), capped by
 *   ctr_cuda_cone_set_memory_cap.
 * @whole_bytes: what the whole operator (ctr_cuda_cone_op_new) needs.
 * @split: FALSE when the whole fits @budget.
 * @n_slabs, @slab_nz: z-slabs and the thickest one's slices (1, nz whole).
 * @n_chunks, @chunk_views: view chunks and the largest one's views.
 * @split_bytes: what the split needs (0 whole).
 * @transposed: whether the transposed layout's three volumes are counted.
 */
typedef struct {
  guint64 budget, whole_bytes, split_bytes;
  gboolean split, transposed;
  guint n_slabs, slab_nz, n_chunks, chunk_views;
} CtrCudaConeFit;

/**
 * ctr_cuda_cone_set_memory_cap:
 * @bytes: the most device memory the cone-beam pair may hold (0: no cap,
 *   then $CTR_CUDA_CONE_MEMORY_MB, in MiB, when set).  Process-wide; for
 *   benchmarks (a quarter of what W6 needs) and tests (a device made
 *   small).
 */
void ctr_cuda_cone_set_memory_cap (guint64 bytes);

/**
 * ctr_cuda_cone_split_bytes:
 * Device bytes of a split with @slab_nz slices and @chunk_views views
 * (the session of ctr-cuda-cone-split.cu: the geometry tables, the mask
 * when @masked, three slab volumes — six with @transposed — and two
 * chunks of data, floats).  With @slab_nz = nz and @chunk_views = n_views
 * and @whole, the whole operator's (five data arrays).
 */
guint64 ctr_cuda_cone_split_bytes (const CtrGeometry *g, const CtrGrid *grid, gboolean masked, gboolean transposed,
                                   gboolean whole, guint slab_nz, guint chunk_views);

/**
 * ctr_cuda_cone_fit:
 * Plans the device memory of the pair of @g on @grid within @budget bytes
 * (G_MAXUINT64: the device's, ctr_cuda_cone_fit's @budget above): whole
 * when it fits; else every view resident with the thickest slab that fits,
 * or, when the projections alone do not fit, half the room for a slab and
 * the rest for a chunk of views.  The slabs are balanced (slab i holds
 * slices [i·nz/n, (i+1)·nz/n)).
 * Returns: FALSE with CTR_ERROR_OUT_OF_MEMORY (not one slice and one view
 *   fit, with the sizes) or CTR_ERROR_BACKEND_UNAVAILABLE (no device).
 */
gboolean ctr_cuda_cone_fit (const CtrGeometry *g, const CtrGrid *grid, gboolean masked, guint64 budget,
                            CtrCudaConeFit *out, GError **error);

/**
 * ctr_cuda_cone_split_op_new:
 * The operator "cuda-cone-split" with @fit's slabs and chunks (@fit->split
 * may be FALSE: one slab, one chunk, still streamed): the contract of
 * ctr_cuda_cone_op_new (same model, subsets, layouts, arguments copied),
 * but the products take the host's arrays slab by slab (forward: each
 * slab's projection added into the views; adjoint: each slab filled from
 * every chunk) and there is no whole pass on the device (SART and SIRT
 * run their products with host arrays).  Products equal the unsplit
 * operator's to float rounding (tests/test-gpu-cone-split.c states the
 * tolerance).  Host memory: two volumes and one data array of floats.
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_BACKEND_UNAVAILABLE (a failed CUDA call),
 *   CTR_ERROR_OUT_OF_MEMORY (device or host) or CTR_ERROR_UNSUPPORTED
 *   (detector rows not straight).
 */
CtrOperator *ctr_cuda_cone_split_op_new (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask,
                                         const CtrCudaConeFit *fit, GError **error);

/**
 * ctr_cuda_cone_op_new_fitted:
 * ctr_cuda_cone_op_new when the whole pair fits the device's budget,
 * ctr_cuda_cone_split_op_new with ctr_cuda_cone_fit's plan otherwise.
 * The operator's description (the plan's note) says which, the device
 * memory it holds and, split, why (the whole's need against the budget),
 * the slabs and chunks.  Errors as those two.
 */
CtrOperator *ctr_cuda_cone_op_new_fitted (const CtrGeometry *g, const CtrGrid *grid, const guint8 *mask,
                                          GError **error);

/**
 * ctr_cuda_cone_split_op_traffic:
 * Bytes @op ("cuda-cone-split") copied host → device (@up) and device →
 * host (@down) since it was made: counted, not timed.  FALSE for another
 * operator.
 */
gboolean ctr_cuda_cone_split_op_traffic (CtrOperator *op, double *up, double *down);

G_END_DECLS
