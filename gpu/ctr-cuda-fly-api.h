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

/* The session's own buffers, for products and passes on host arrays:
 * images (ns·nx·ny floats) and data arrays (ns·n_views·n_cols floats). */
typedef enum {
  CTR_CUDA_FLY_X = 0,      /* image: the forward's source, a pass's image */
  CTR_CUDA_FLY_D = 1,      /* image: the adjoint's target (an update) */
  CTR_CUDA_FLY_CS = 2,     /* image: column sums (slice 0), or SIRT's scale */
  CTR_CUDA_FLY_Y = 3,      /* data: the forward's target */
  CTR_CUDA_FLY_R = 4,      /* data: the adjoint's source (a weighted residual) */
  CTR_CUDA_FLY_B = 5,      /* data: the measured data */
  CTR_CUDA_FLY_COEF = 6,   /* data: per-ray coefficients */
  CTR_CUDA_FLY_VALID = 7,  /* data: 1/0 per ray */
  CTR_CUDA_FLY_N_BUFS = 8
} CtrCudaFlyBuf;

/* Uploads the ray table and the subsets and allocates the buffers (zeroed),
 * after checking the device's free memory (CTR_CUDA_NO_MEMORY with the
 * sizes; CTR_CUDA_INVALID: an unknown model or a view out of range). */
CtrCudaStatus ctr_cuda_fly_create (const CtrCudaFlyDesc *desc, CtrCudaFly **out, char *err);
void ctr_cuda_fly_destroy (CtrCudaFly *f);
/* Device memory the session holds (bytes). */
size_t ctr_cuda_fly_device_bytes (const CtrCudaFly *f);
/* Device memory a session of @desc would hold (bytes; @desc's arrays
 * unread but subset_ptr[n_subsets]). */
size_t ctr_cuda_fly_estimate_bytes (const CtrCudaFlyDesc *desc);
/* Floats of one image (ns·nx·ny) and of the data (ns·n_views·n_cols). */
size_t ctr_cuda_fly_image_floats (const CtrCudaFly *f);
size_t ctr_cuda_fly_data_floats (const CtrCudaFly *f);
/* The device pointer of a buffer, and the session's stream (a cudaStream_t). */
float *ctr_cuda_fly_buffer (CtrCudaFly *f, CtrCudaFlyBuf which);
void *ctr_cuda_fly_stream (CtrCudaFly *f);

/* Floats [@offset, @offset + @n) of a buffer from / to the host (returns
 * when the copy is done; CTR_CUDA_INVALID outside the buffer). */
CtrCudaStatus ctr_cuda_fly_upload (CtrCudaFly *f, CtrCudaFlyBuf which, size_t offset, const float *host, size_t n,
                                   char *err);
CtrCudaStatus ctr_cuda_fly_download (CtrCudaFly *f, CtrCudaFlyBuf which, size_t offset, float *host, size_t n,
                                     char *err);
/* The rays of @subset (every slice) of a data buffer from / to the host
 * array of the whole data (@host: ns·n_views·n_cols floats). */
CtrCudaStatus ctr_cuda_fly_upload_rays (CtrCudaFly *f, CtrCudaFlyBuf which, unsigned subset, const float *host,
                                        char *err);
CtrCudaStatus ctr_cuda_fly_download_rays (CtrCudaFly *f, CtrCudaFlyBuf which, unsigned subset, float *host,
                                          char *err);

/* Queued on the session's stream, on device arrays of the layouts above.
 * @subset < n_subsets: its views; otherwise every view.
 * forward: Y = A_S X on the rays of S, every slice (other rays untouched);
 *   @X NULL: Y = the row sums Σ_j a_ij and, @Y2 non-NULL, Y2 = Σ_j a_ij².
 * adjoint: D += A_Sᵀ Y, every slice (atomics: the sum's order varies);
 *   @Y NULL: D[pixel] += Σ_{i∈S} a_ij over one slice (column sums, nx·ny
 *   floats).
 * residual: R = step · COEF ∘ (B − Y) on the rays of S, every slice.
 * apply: X += D (@mode 0), X += D / CS where CS > 0 (1: CS one slice,
 *   shared by the slices), X += CS ∘ D (2: likewise); then clipped at 0
 *   with @nonneg (n = ns·nx·ny floats). */
CtrCudaStatus ctr_cuda_fly_forward (CtrCudaFly *f, unsigned subset, const float *X, float *Y, float *Y2, char *err);
CtrCudaStatus ctr_cuda_fly_adjoint (CtrCudaFly *f, unsigned subset, const float *Y, float *D, char *err);
CtrCudaStatus ctr_cuda_fly_residual (CtrCudaFly *f, unsigned subset, float step, const float *B, const float *coef,
                                     const float *Y, float *R, char *err);
CtrCudaStatus ctr_cuda_fly_apply (CtrCudaFly *f, int mode, int nonneg, float *X, const float *D, const float *CS,
                                  char *err);
/* A buffer of the session = 0, queued. */
CtrCudaStatus ctr_cuda_fly_zero (CtrCudaFly *f, CtrCudaFlyBuf which, char *err);
CtrCudaStatus ctr_cuda_fly_sync (CtrCudaFly *f, char *err);

#ifdef __cplusplus
}
#endif
