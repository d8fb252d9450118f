/* ctr-cuda-vecops-api.h — the plain C boundary of the device's vector
 * operations (ctr-cuda-vecops.cu; the GLib side is ctr-cuda-vecops.c):
 * element-wise arithmetic, reductions in double and the penalties of
 * core/solve/ctr-penalty.h on float arrays in device memory, queued on one
 * stream (an operator's session's, so that they run in order with its
 * products).  Status codes and @err as in ctr-cuda-api.h.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include "ctr-cuda-api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CtrCudaVecs CtrCudaVecs;

/* @stream: the cudaStream_t the operations are queued on (not owned). */
CtrCudaStatus ctr_cuda_vecs_create (void *stream, CtrCudaVecs **out, char *err);
void ctr_cuda_vecs_destroy (CtrCudaVecs *v);
/* The cudaStream_t @v queues on. */
void *ctr_cuda_vecs_stream (CtrCudaVecs *v);

/* @n floats of device memory, zeroed, after checking the free memory
 * (CTR_CUDA_NO_MEMORY with the sizes). */
CtrCudaStatus ctr_cuda_vec_alloc (CtrCudaVecs *v, size_t n, float **out, char *err);
void ctr_cuda_vec_free (CtrCudaVecs *v, float *p);
/* Blocking copies of @n floats. */
CtrCudaStatus ctr_cuda_vec_upload (CtrCudaVecs *v, float *dev, const float *host, size_t n, char *err);
CtrCudaStatus ctr_cuda_vec_download (CtrCudaVecs *v, float *host, const float *dev, size_t n, char *err);
/* Blocking pitched copy to the host: @height runs of @width floats, run r
 * from @dev + r·@pitch to @host + r·@pitch (@pitch >= @width floats; one
 * cudaMemcpy2DAsync). */
CtrCudaStatus ctr_cuda_vec_download_pitched (CtrCudaVecs *v, float *host, const float *dev, size_t width,
                                             size_t height, size_t pitch, char *err);

/* An index map of @n entries on the device (blocking upload), freed by
 * ctr_cuda_vec_free_index. */
CtrCudaStatus ctr_cuda_vec_upload_index (CtrCudaVecs *v, const uint32_t *host, size_t n, uint32_t **out, char *err);
void ctr_cuda_vec_free_index (CtrCudaVecs *v, uint32_t *p);

/* Queued: */
/* dst[i] = src[idx[i]] for i < @n (dst and src distinct): the permutation
 * between a native image and the natural one */
CtrCudaStatus ctr_cuda_vec_gather (CtrCudaVecs *v, float *dst, const float *src, const uint32_t *idx, size_t n,
                                   char *err);
CtrCudaStatus ctr_cuda_vec_fill (CtrCudaVecs *v, float *y, size_t n, float value, char *err);
CtrCudaStatus ctr_cuda_vec_copy (CtrCudaVecs *v, float *dst, const float *src, size_t n, char *err);
/* y = a x + b y */
CtrCudaStatus ctr_cuda_vec_axpby (CtrCudaVecs *v, float *y, float a, const float *x, float b, size_t n, char *err);
/* y = y ∘ x, 0 where x is 0 */
CtrCudaStatus ctr_cuda_vec_mul (CtrCudaVecs *v, float *y, const float *x, size_t n, char *err);
/* X = Z + (M G − β GR) / (Dd + β CR) where the denominator is > 0, else Z; clipped with @nonneg */
CtrCudaStatus ctr_cuda_vec_sqs_step (CtrCudaVecs *v, float *X, const float *Z, const float *G, const float *GR,
                                     const float *CR, const float *Dd, float M, float beta, int nonneg, size_t n,
                                     char *err);
/* Z = X + c (X − Xold) */
CtrCudaStatus ctr_cuda_vec_extrapolate (CtrCudaVecs *v, float *Z, const float *X, const float *Xold, float c,
                                        size_t n, char *err);

/* Reductions (wait for the stream; the sums in double, in a fixed order):
 * Σ w a b (@w nullable: 1) */
CtrCudaStatus ctr_cuda_vec_dot (CtrCudaVecs *v, const float *a, const float *b, const float *w, size_t n,
                                double *out, char *err);
/* Σ w (a − b)(c − d) */
CtrCudaStatus ctr_cuda_vec_diff_dot (CtrCudaVecs *v, const float *a, const float *b, const float *c,
                                     const float *d, const float *w, size_t n, double *out, char *err);
/* out[0] = Σ W (Y − B)² (@W nullable: 0); out[1] = Σ (Y − B)², out[2] = Σ B² where valid ≠ 0 */
CtrCudaStatus ctr_cuda_vec_data_norms (CtrCudaVecs *v, const float *Y, const float *B, const float *W,
                                       const float *valid, size_t n, double out[3], char *err);
/* max |x| */
CtrCudaStatus ctr_cuda_vec_max_abs (CtrCudaVecs *v, const float *x, size_t n, float *out, char *err);

/* Penalties of core/solve/ctr-penalty.h on natural stacks [z][y][x] of nz
 * slices of nx × ny, per slice.  @kind: CtrPenalty's value (0 hyperbola,
 * 1 Huber, 2 quadratic, 3 isotropic).  ∇R into @grad, the surrogate's
 * curvature into @curv (nullable): */
CtrCudaStatus ctr_cuda_vec_penalty_gradient (CtrCudaVecs *v, int kind, float delta, const float *x, unsigned nx,
                                             unsigned ny, unsigned nz, float *grad, float *curv, char *err);
/* R(x) (waits) */
CtrCudaStatus ctr_cuda_vec_penalty_value (CtrCudaVecs *v, int kind, double delta, const float *x, unsigned nx,
                                          unsigned ny, unsigned nz, double *out, char *err);
/* ∂TV_ε/∂x into @grad (Sidky & Pan 2008, ctr_tv_gradient) */
CtrCudaStatus ctr_cuda_vec_tv_gradient (CtrCudaVecs *v, const float *x, unsigned nx, unsigned ny, unsigned nz,
                                        double eps, float *grad, char *err);

#ifdef __cplusplus
}
#endif
