/* ctr-cuda-fly-api.h — the plain C boundary of the GPU's on-the-fly
 * fan/parallel projector pair (gpu/ctr-cuda-fly.cu; the GLib side is
 * gpu/ctr-cuda-fly.c).  Conventions of ctr-cuda-api.h: a CtrCudaStatus and
 * one line in @err on failure, nothing left allocated on that path.
 *
 * The ray model is the CPU's on-the-fly operator's (core/sysmat/ctr-ray.c,
 * ctr-fly-op.h): Joseph 1982, Siddon 1985, or the area model's closed form
 * (cuART §2.1; core/sysmat/ctr-ray-area.h), every row computed again at
 * every product from the ray table of core/sysmat/ctr-fly-rays.h.
 * Layouts (the CPU operator's native ones): image [slice][pixel], pixel =
 * iy·nx + ix (row 0 = +y); data [slice][view·n_cols + col].
 */
#pragma once

#include "ctr-cuda-api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  unsigned n_views, n_cols;     /* the rays of one slice: n_views·n_cols */
  unsigned nx, ny, ns;          /* slice grid; slices of the stack */
  int model;                    /* CtrRayModel: 0 Joseph, 1 Siddon, 2 area */
  int half_line;                /* fan beam: a ray starts at its source (t > 0) */
  double dx, dy, cx, cy;        /* pixel sides and grid centre, mm */
  const double *rays;           /* host, [view][col][stride] (ctr_fly_ray_table) */
  unsigned n_subsets;
  const unsigned *subset_ptr;   /* host, n_subsets + 1: subset s is views [ptr[s], ptr[s + 1]) of */
  const unsigned *subset_views; /* host, subset_ptr[n_subsets] view numbers */
} CtrCudaFlyDesc;

typedef struct CtrCudaFly CtrCudaFly;

/* The session's own buffers, for products on host arrays: two images
 * (ns·nx·ny floats) and one data array (ns·n_views·n_cols floats). */
typedef enum {
  CTR_CUDA_FLY_X = 0,   /* an image (the forward's source) */
  CTR_CUDA_FLY_D = 1,   /* an image (the adjoint's target) */
  CTR_CUDA_FLY_Y = 2,   /* data (the forward's target, the adjoint's source) */
  CTR_CUDA_FLY_N_BUFS = 3
} CtrCudaFlyBuf;

/* Uploads the ray table and the subsets and allocates the buffers (zeroed),
 * after checking the device's free memory (CTR_CUDA_NO_MEMORY with the
 * sizes; CTR_CUDA_INVALID: an unknown model or a view out of range). */
CtrCudaStatus ctr_cuda_fly_create (const CtrCudaFlyDesc *desc, CtrCudaFly **out, char *err);
void ctr_cuda_fly_destroy (CtrCudaFly *f);
/* Device memory the session holds (bytes). */
size_t ctr_cuda_fly_device_bytes (const CtrCudaFly *f);
/* Device memory a session of @desc would hold (bytes; @desc's arrays unread). */
size_t ctr_cuda_fly_estimate_bytes (const CtrCudaFlyDesc *desc);
/* The device pointer of a buffer, and the session's stream (a cudaStream_t). */
float *ctr_cuda_fly_buffer (CtrCudaFly *f, CtrCudaFlyBuf which);
void *ctr_cuda_fly_stream (CtrCudaFly *f);

/* The whole buffer from / to the host (returns when the copy is done). */
CtrCudaStatus ctr_cuda_fly_upload (CtrCudaFly *f, CtrCudaFlyBuf which, const float *host, char *err);
CtrCudaStatus ctr_cuda_fly_download (CtrCudaFly *f, CtrCudaFlyBuf which, float *host, char *err);

/* Queued on the session's stream, on device arrays of the layouts above.
 * @subset < n_subsets: its views; otherwise every view.
 * forward: Y = A_S X on the rays of S, every slice (other rays untouched);
 *   @X NULL: Y = the row sums Σ_j a_ij and, @Y2 non-NULL, Y2 = Σ_j a_ij².
 * adjoint: D += A_Sᵀ Y, every slice (atomics: the sum's order varies);
 *   @Y NULL: D[pixel] += Σ_{i∈S} a_ij over one slice (column sums, nx·ny
 *   floats). */
CtrCudaStatus ctr_cuda_fly_forward (CtrCudaFly *f, unsigned subset, const float *X, float *Y, float *Y2, char *err);
CtrCudaStatus ctr_cuda_fly_adjoint (CtrCudaFly *f, unsigned subset, const float *Y, float *D, char *err);
/* A buffer of the session = 0, queued. */
CtrCudaStatus ctr_cuda_fly_zero (CtrCudaFly *f, CtrCudaFlyBuf which, char *err);
CtrCudaStatus ctr_cuda_fly_sync (CtrCudaFly *f, char *err);

#ifdef __cplusplus
}
#endif
