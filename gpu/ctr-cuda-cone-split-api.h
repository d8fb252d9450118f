/* ctr-cuda-cone-split-api.h — the cone-beam pair out of core on the device
 * (gpu/ctr-cuda-cone-split.cu; the GLib side is ctr-cuda-cone-split.c).
 * Plain C, as ctr-cuda-api.h.
 *
 * The volume is cut into z-slabs and the views into chunks so that one
 * slab (twice: double buffers) and one chunk of data fit the device; the
 * host keeps the whole arrays.  The split follows TIGRE's (Biguri et al.
 * 2020, "Arbitrarily large tomography with iterative algorithms on multiple
 * GPUs using the TIGRE toolbox", J. Parallel Distrib. Comput. 146): the
 * forward projection of each slab adds into the chunk's projections, the
 * back-projection fills each slab from every chunk, and the copies of the
 * next slab (or chunk) run on a second stream while the kernels of the
 * current one run (two buffers, events between the streams).
 *
 * The Joseph model needs no halo between slabs: a slab's share of a ray is
 * the samples of its own voxels (the bilinear stencil counts voxels outside
 * the grid as 0), so the sum over slabs is the whole ray (to float
 * rounding: the slab's ray parameters are set up from its own z0).
 */
#pragma once

#include "ctr-cuda-api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CtrCudaConeSplit CtrCudaConeSplit;

/* @desc: the whole problem (nz the whole grid's), as for ctr_cuda_cone_create
 * (its data_views and products_only are ignored); @slab_nz: the thickest
 * slab's slices (1 … nz), the slabs being [s·nz/n, (s+1)·nz/n) for
 * n = ⌈nz / slab_nz⌉; @chunk_views: views per chunk (1 … n_views).
 * Allocates a session of slab_nz slices and chunk_views views (products
 * only) after checking the device's free memory (CTR_CUDA_NO_MEMORY with
 * the sizes), and a second stream. */
CtrCudaStatus ctr_cuda_cone_split_create (const CtrCudaConeDesc *desc, unsigned slab_nz, unsigned chunk_views,
                                          CtrCudaConeSplit **out, char *err);
void ctr_cuda_cone_split_destroy (CtrCudaConeSplit *s);
size_t ctr_cuda_cone_split_device_bytes (const CtrCudaConeSplit *s);
unsigned ctr_cuda_cone_split_slabs (const CtrCudaConeSplit *s);
unsigned ctr_cuda_cone_split_chunks (const CtrCudaConeSplit *s);
/* Bytes copied each way by the products so far (host → device, device →
 * host): the transfer volume, counted, not timed. */
void ctr_cuda_cone_split_traffic (const CtrCudaConeSplit *s, double *up, double *down);

/* y = A x on the rays of views [v0, v0 + nviews): @x the whole volume
 * (host, [z][y][x]), @y the whole data array (host, [view][row][col]; only
 * those views written, 0 on masked rays).  Returns when @y is written. */
CtrCudaStatus ctr_cuda_cone_split_forward (CtrCudaConeSplit *s, const float *x, unsigned v0, unsigned nviews,
                                           float *y, char *err);
/* d = A_Sᵀ r (@r NULL: A_Sᵀ1), S the unmasked rays of views [v0, v0 +
 * nviews): @r the whole data array (host; those views read), @d the whole
 * volume (host, overwritten).  Returns when @d is written. */
CtrCudaStatus ctr_cuda_cone_split_adjoint (CtrCudaConeSplit *s, const float *r, unsigned v0, unsigned nviews,
                                           float *d, char *err);

#ifdef __cplusplus
}
#endif
