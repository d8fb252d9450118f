/* ctr-cuda-api.h — the plain C boundary between the CUDA translation units
 * (compiled by nvcc, no GLib) and the GLib host glue (ctr-cuda.c).
 *
 * Every function returns a CtrCudaStatus; on failure it writes one line into
 * @err (CTR_CUDA_ERR_LEN bytes) naming the CUDA/cuSPARSE call and its error
 * string, and leaves no device memory behind (everything it allocated is
 * freed on that path).  The glue turns the status into a GError:
 * CTR_CUDA_UNAVAILABLE → CTR_ERROR_BACKEND_UNAVAILABLE, CTR_CUDA_NO_MEMORY →
 * CTR_ERROR_OUT_OF_MEMORY, CTR_CUDA_INVALID → CTR_ERROR_INVALID_ARGUMENT.
 *
 * Layouts are those of core/sysmat/ctr-scsr.h and ctr-scsr-private.h:
 *   packed image X[rep][slice][K], lane-ordered data [orbit][j][slice][K],
 *   segment pointers seg_ptr[((orbit·n_cols + j)·P + p)·K + h] for part p
 *   and slot h (int64, nnz + 1 end; P = ctr_scsr_n_parts),
 *   elements {uint32 rep; float w} (8 bytes, CtrScsrElem).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CTR_CUDA_ERR_LEN 256

typedef enum {
  CTR_CUDA_OK = 0,
  CTR_CUDA_UNAVAILABLE = 1,  /* no driver, no device, a failed CUDA call */
  CTR_CUDA_NO_MEMORY = 2,    /* too little free device memory */
  CTR_CUDA_INVALID = 3       /* an argument out of range (the message says which) */
} CtrCudaStatus;

/* --------------------------------------------------------------- device -- */

typedef struct {
  int count;                 /* devices visible */
  int device;                /* the one this process uses (ctr_cuda_device_for_rank) */
  int driver_version;        /* e.g. 13000; 0 without a driver */
  int runtime_version;
  char name[128];            /* of @device */
  int cc_major, cc_minor;
  size_t free_bytes, total_bytes;
  double bandwidth_gbs;      /* 2 · memory clock · bus width (theoretical peak) */
} CtrCudaDeviceInfo;

/* The device a process uses: @local_rank (its rank among the processes of
 * its node, from the launcher; < 0: not one of several) modulo @count
 * (devices visible), so that the ranks of a node spread over its devices
 * round-robin; 0 when @count < 1 or @local_rank < 0. */
static inline int
ctr_cuda_device_for_rank (int local_rank, int count)
{
  return count < 1 || local_rank < 0 ? 0 : local_rank % count;
}

/* Sets this process's node-local rank (≥ 0; −1, the default: device 0)
 * for the device choice of the next ctr_cuda_device_query; called once,
 * before anything runs on a device (under mpirun, by the program that
 * started MPI: gpu/ knows no MPI). */
void ctr_cuda_device_set_local_rank (int local_rank);

/* Queries the device this process uses (ctr_cuda_device_for_rank of the
 * local rank and the device count; device 0 by default) and makes it the
 * calling thread's device; every later CUDA call of the backend (through
 * CK) makes it the device of its thread as well.  CTR_CUDA_UNAVAILABLE
 * with the reason (no driver, no device, driver older than the runtime). */
CtrCudaStatus ctr_cuda_device_query (CtrCudaDeviceInfo *info, char *err);

/* ----------------------------------------------------------------- SCSR -- */

typedef struct {
  unsigned K, n_parts, n_orbits, n_cols, n_reps, ns;
  uint64_t nnz;
  const int64_t *seg_ptr;          /* n_orbits·n_cols·P·K + 1, P = n_parts */
  const void *elems;               /* nnz CtrScsrElem */
  const uint8_t *compose;          /* [8][8] slot of elem[a] ∘ elem[b] */
  const uint32_t *rep_pixel;       /* [rep][K] */
  const uint8_t *rep_stabilised;   /* [rep] */
  int with_scale;                  /* 0: none, 1: [rep][K], 2: [orbit][rep][K] */
} CtrCudaScsrDesc;

typedef struct CtrCudaScsr CtrCudaScsr;

/* Uploads the matrix and allocates X, D, b, coef, valid (and scale) for
 * desc->ns slices, after checking the device's free memory.  @out NULL on
 * failure. */
CtrCudaStatus ctr_cuda_scsr_create (const CtrCudaScsrDesc *desc, CtrCudaScsr **out, char *err);
void ctr_cuda_scsr_destroy (CtrCudaScsr *d);
/* Bytes of device memory the session holds. */
size_t ctr_cuda_scsr_device_bytes (const CtrCudaScsr *d);

typedef enum {
  CTR_CUDA_BUF_X,       /* packed image: n_reps·ns·K */
  CTR_CUDA_BUF_B,       /* lane-ordered data: n_orbits·n_cols·ns·K */
  CTR_CUDA_BUF_COEF,    /* lane-ordered coefficients */
  CTR_CUDA_BUF_VALID,   /* lane-ordered 1/0 (as float) for the residual */
  CTR_CUDA_BUF_SCALE,   /* [rep][K] or [orbit][rep][K] */
  CTR_CUDA_BUF_AX       /* lane-ordered forward product (written by the kernels; not uploaded) */
} CtrCudaBuf;

/* The whole buffer: @n floats, which must be what the session holds
 * (CTR_CUDA_UNAVAILABLE otherwise). */
CtrCudaStatus ctr_cuda_scsr_upload (CtrCudaScsr *d, CtrCudaBuf which, const float *host, size_t n, char *err);
/* Floats [@offset, @offset + @n) of a buffer of @whole floats (@whole must
 * be what the session holds: a check that caller and session agree). */
CtrCudaStatus ctr_cuda_scsr_upload_part (CtrCudaScsr *d, CtrCudaBuf which, size_t offset, const float *host,
                                         size_t n, size_t whole, char *err);
CtrCudaStatus ctr_cuda_scsr_download_x (CtrCudaScsr *d, float *X, char *err);
/* For device-resident runs (ctr-cuda-scsr-vecops.c), whose vectors move in
 * and out of the session's buffers by device-to-device copies queued on the
 * session's stream: the stream (a cudaStream_t), and a buffer's device
 * memory and length in floats (*@n; NULL and 0 for a buffer the session
 * does not hold). */
void *ctr_cuda_scsr_stream (CtrCudaScsr *d);
float *ctr_cuda_scsr_buffer (CtrCudaScsr *d, CtrCudaBuf which, size_t *n);

/* Lane-ordered forward product of every orbit: ax = A X (n_orbits·n_cols·ns·K). */
CtrCudaStatus ctr_cuda_scsr_forward (CtrCudaScsr *d, float *ax, char *err);
/* X = Aᵀ (coef ∘ b) (the adjoint of the lane data with coef as the mask). */
CtrCudaStatus ctr_cuda_scsr_adjoint (CtrCudaScsr *d, char *err);
/* The same on orbits [@o0, @o0 + @n_orb) only (CTR_CUDA_INVALID beyond the
 * orbits): @ax gets those orbits' lanes, n_orb·n_cols·ns·K floats; the
 * adjoint reads b and coef of those orbits and leaves Aᵀ_S (coef ∘ b) in X
 * (consistent). */
CtrCudaStatus ctr_cuda_scsr_forward_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, float *ax, char *err);
CtrCudaStatus ctr_cuda_scsr_adjoint_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, char *err);
/* As ctr_cuda_scsr_forward_orbits, but queued only: the lanes of the orbits
 * stay in the session's CTR_CUDA_BUF_AX (at lane_size·o0), nothing comes
 * back and nothing waits. */
CtrCudaStatus ctr_cuda_scsr_forward_queue (CtrCudaScsr *d, unsigned o0, unsigned n_orb, char *err);
/* One subset step on orbits [@o0, @o0 + @n_orb), all against the X held:
 * U = A_Sᵀ (coef ∘ (b − A_S X)) (step folded into coef by the caller);
 * @into_x: X ← X + U (× the scale map held when @with_scale; the session
 * must have been made with with_scale 1), clipped at 0 with @nonneg;
 * otherwise X ← U, consistent (slots of one pixel summed), for the caller to
 * accumulate. */
CtrCudaStatus ctr_cuda_scsr_step_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, int into_x, int with_scale,
                                         int nonneg, char *err);

/* The orbit-level blocked layout of core/sysmat/ctr-blocking.h
 * (CTR_BLOCKING_ORBIT; cuART §4), one entry per dense sub-matrix: element
 * (row i, column c) at [c·n_rows + i], row i rotated by i columns, ray0
 * before the junction and ray1 (UINT32_MAX: none) from it on; blocks of
 * orbit o are orbit_first[o] … orbit_first[o + 1] − 1. */
typedef struct {
  unsigned orbit, n_rows, width;
  const uint32_t *ray0, *ray1, *junction;
  const uint32_t *rep;
  const uint8_t *slot;
  const float *w;
} CtrCudaBlock;

/* Uploads the blocked layout beside the SCSR rows (checks free memory); on
 * failure the session holds no part of it. */
CtrCudaStatus ctr_cuda_scsr_set_blocked (CtrCudaScsr *d, const CtrCudaBlock *blocks, unsigned n_blocks,
                                         const unsigned *orbit_first, char *err);
/* From now on forward, adjoint and iterate walk the blocked layout the
 * cuART Algorithm 2 way (@on: one thread per blocked row,
 * ctr-cuda-blocked.cu) or the stored rows (one or more warps per row);
 * CTR_CUDA_INVALID without a layout. */
CtrCudaStatus ctr_cuda_scsr_use_blocked (CtrCudaScsr *d, int on, char *err);

typedef enum {
  CTR_CUDA_PART = 0,    /* parallel ART, one orbit per subset */
  CTR_CUDA_SART = 1,    /* as PART with the per-orbit column scale */
  CTR_CUDA_SIRT = 2     /* all orbits, one update with the global scale */
} CtrCudaMethod;

/* One full iteration on the device; *update_ms: device time of the update
 * (cudaEvent); *residual (when non-NULL): ||b − A X|| / ||b|| over the valid
 * lanes, computed on the device after the update (one more forward pass,
 * captured in a graph of its own; two doubles come back), and
 * *residual_ms (nullable) its device time. */
CtrCudaStatus ctr_cuda_scsr_iterate (CtrCudaScsr *d, CtrCudaMethod method, int nonneg,
                                     double *update_ms, double *residual, double *residual_ms, char *err);

/* ------------------------------------------------------- cuSPARSE (CSR) -- */

typedef struct {
  unsigned n_views, n_cols, ns;
  uint64_t n_pixels, nnz;
  const int64_t *row_ptr;          /* n_views·n_cols + 1 */
  const uint32_t *col_idx;
  const float *values;
  /* orbit subsets: lane_view[orbit·K + k] (−1 masked), as ctr-symmetry.h */
  unsigned K, n_orbits;
  const int32_t *lane_view;
} CtrCudaCsrDesc;

typedef struct CtrCudaCsr CtrCudaCsr;

CtrCudaStatus ctr_cuda_csr_create (const CtrCudaCsrDesc *desc, CtrCudaCsr **out, char *err);
void ctr_cuda_csr_destroy (CtrCudaCsr *d);
/* Ray-ordered [s][view·n_cols + col] data b, coefficients and valid mask;
 * the image x [s][pixel]. */
CtrCudaStatus ctr_cuda_csr_upload (CtrCudaCsr *d, const float *x, const float *b,
                                   const float *coef, const float *valid, char *err);
CtrCudaStatus ctr_cuda_csr_download_x (CtrCudaCsr *d, float *x, char *err);
/* y = A x (cusparseSpMV, every view), x = Aᵀ y (CUSPARSE_OPERATION_TRANSPOSE). */
CtrCudaStatus ctr_cuda_csr_forward (CtrCudaCsr *d, const float *x, float *y, char *err);
CtrCudaStatus ctr_cuda_csr_adjoint (CtrCudaCsr *d, const float *y, float *x, char *err);
/* One parallel-ART iteration with orbit subsets (the same update as
 * ctr_cuda_scsr_iterate with CTR_CUDA_PART); the residual's SpMVs in a
 * graph of their own, timed in *residual_ms. */
CtrCudaStatus ctr_cuda_csr_iterate_part (CtrCudaCsr *d, int nonneg, double *update_ms,
                                         double *residual, double *residual_ms, char *err);

/* ------------------------------------ cone-beam projector pair (Joseph) -- */
/* gpu/ctr-cuda-cone.cu; the GLib side (the operator) is gpu/ctr-cuda-cone.c.
 * The ray model of core/sysmat/ctr-cone-projector.h. */

typedef struct {
  unsigned n_views, n_rows, n_cols;   /* detector */
  unsigned nx, ny, nz;                /* volume, [z][y][x] */
  double x0, y0, z0;        /* centre of voxel (0, 0, 0), mm (ctr_grid_x/y/z (grid, 0)) */
  double dx, dy, dz;        /* voxel size, mm */
  const double *src;        /* host, [view][3]: the source S_v, mm */
  const double *ray0;       /* host, [view][col][3]: detector point of row 0 − S_v, mm */
  const double *drow;       /* host, [view][3]: the detector point's step per row, mm */
  const uint8_t *mask;      /* host, nullable, [view][row][col]: 0 = a ray left out */
  int transposed;           /* x-dominant rays of whole passes (≥ 16 views) read and
                             * write a transposed copy [z][x][y] of the volume, so
                             * that a warp's neighbouring rays touch neighbouring
                             * addresses (three more volumes of device memory) */
  int checked_only;         /* every plane through the bounds-checked stencil (the
                             * interior run off: a tuning and test knob) */
  unsigned data_views;      /* 0: the data buffers hold every view; else this many
                             * views from ConeGeo's yv0 (the out-of-core split's
                             * view chunks, ctr-cuda-cone-split.cu) */
  int products_only;        /* only X, D, CS and Y, R: no B, COEF, VALID (no
                             * residual, no pass: the split's session) */
} CtrCudaConeDesc;

typedef struct CtrCudaCone CtrCudaCone;

/* The session's device buffers: the first three are volumes (nx·ny·nz
 * floats, [z][y][x]), the others data (n_views·n_rows·n_cols floats,
 * [view][row][col]). */
typedef enum {
  CTR_CUDA_CONE_X = 0,      /* the image */
  CTR_CUDA_CONE_D = 1,      /* the adjoint's target (update, Aᵀ y) */
  CTR_CUDA_CONE_CS = 2,     /* column sums Aᵀ1, or SIRT's scale */
  CTR_CUDA_CONE_Y = 3,      /* the forward projection's target */
  CTR_CUDA_CONE_R = 4,      /* the adjoint's source (a residual) */
  CTR_CUDA_CONE_B = 5,      /* the measured data */
  CTR_CUDA_CONE_COEF = 6,   /* per-ray coefficients */
  CTR_CUDA_CONE_VALID = 7,  /* 1/0 per ray, for the residual */
  CTR_CUDA_CONE_N_BUFS = 8
} CtrCudaConeBuf;

/* Uploads the geometry tables and allocates every buffer (zeroed) after
 * checking the device's free memory (CTR_CUDA_NO_MEMORY with the sizes). */
CtrCudaStatus ctr_cuda_cone_create (const CtrCudaConeDesc *desc, CtrCudaCone **out, char *err);
void ctr_cuda_cone_destroy (CtrCudaCone *c);
size_t ctr_cuda_cone_device_bytes (const CtrCudaCone *c);

/* Floats [@offset, @offset + @n) of a buffer from / to the host (returns
 * when the copy is done; CTR_CUDA_INVALID outside the buffer). */
CtrCudaStatus ctr_cuda_cone_upload (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, const float *host,
                                    size_t n, char *err);
CtrCudaStatus ctr_cuda_cone_download (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *host,
                                      size_t n, char *err);
/* @height runs of @width floats of a buffer, run r from float @offset +
 * r·@pitch, to the same places of @host + @offset (one pitched copy; returns
 * when it is done; CTR_CUDA_INVALID outside the buffer or @pitch < @width). */
CtrCudaStatus ctr_cuda_cone_download_pitched (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *host,
                                              size_t width, size_t height, size_t pitch, char *err);
/* Queued on the session's stream (ctr_cuda_cone_sync waits): */
CtrCudaStatus ctr_cuda_cone_zero (CtrCudaCone *c, CtrCudaConeBuf which, char *err);
/* Y = A X on the rays of views [v0, v0 + nviews) (0 on masked rays). */
CtrCudaStatus ctr_cuda_cone_forward (CtrCudaCone *c, unsigned v0, unsigned nviews, char *err);
/* D += A_Sᵀ R (@ones: A_Sᵀ1), and with @with_weights CS += A_Sᵀ1, S the
 * unmasked rays of views [v0, v0 + nviews). */
CtrCudaStatus ctr_cuda_cone_adjoint (CtrCudaCone *c, unsigned v0, unsigned nviews, int ones, int with_weights,
                                     char *err);
/* R = step · COEF ∘ (B − Y) on the rays of views [v0, v0 + nviews). */
CtrCudaStatus ctr_cuda_cone_residual (CtrCudaCone *c, unsigned v0, unsigned nviews, float step, char *err);
/* X += D (@mode 0), X += D / CS where CS > 0 (1), X += CS ∘ D (2); then
 * clipped at 0 with @nonneg. */
CtrCudaStatus ctr_cuda_cone_apply (CtrCudaCone *c, int mode, int nonneg, char *err);
CtrCudaStatus ctr_cuda_cone_sync (CtrCudaCone *c, char *err);
/* Queued device-to-device copy of floats [@offset, @offset + @n) of a buffer
 * from (@into) or to @dev; and the session's stream (a cudaStream_t), for
 * work queued in order with it. */
CtrCudaStatus ctr_cuda_cone_exchange (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *dev, size_t n,
                                      int into, char *err);
void *ctr_cuda_cone_stream (CtrCudaCone *c);
/* One pass on the device: SIRT (@sart 0: X += CS ∘ Aᵀ(COEF ∘ (B − A X)),
 * CS holding λ/column sums) or SART (@sart 1: view by view in @order, a
 * host array of n_views entries, NULL: 0 … n_views − 1, with the step
 * @step[view] (host, NULL: 1), divided by the view's column sums).
 * *@update_ms: its device time; @residual (nullable): ||B − A X|| / ||B||
 * over the VALID rays afterwards (one more forward pass, which SIRT's next
 * pass reuses), *@residual_ms its device time; @phase_ms (nullable, SIRT):
 * the device times of its forward projection (0 when reused), residual and
 * back-projection, and image step (3 doubles, ms). */
CtrCudaStatus ctr_cuda_cone_iterate (CtrCudaCone *c, int sart, const unsigned *order, const float *step,
                                     int nonneg, double *update_ms, double *residual, double *residual_ms,
                                     double *phase_ms, char *err);

/* ------------------------------------------------------ FDK (cone beam) -- */
/* gpu/ctr-cuda-fdk.cu; the GLib side is gpu/ctr-cuda-fdk.c. */

typedef enum {
  CTR_CUDA_FDK_AUTO = 0,     /* by problem size (iFDK Table 4) */
  CTR_CUDA_FDK_L1TRAN = 1,   /* transposed projections [col][row] in global memory / L1 */
  CTR_CUDA_FDK_TEXTURE = 2   /* layered 2-D texture, hardware bilinear */
} CtrCudaFdkKernel;

typedef struct {
  unsigned n_views, n_rows, n_cols;   /* panel */
  unsigned nx, ny, nz;                /* volume, [z][y][x] */
  const float *proj;        /* host, [view][row][col] line integrals */
  const float *cosw;        /* host, [row][col] cosine weight */
  const float *view_col;    /* host, [view][col] Δβ · redundancy weight */
  const float *ramp;        /* host, 2·n_cols − 1 taps: the ramp filter's impulse
                             * response at lags −(n_cols−1) … n_cols−1 */
  const double *mats;       /* host, [view][12] P_grid: (i, j, k, 1) → (h0, h1, h2),
                             * row-major; P[2] = P[10] = 0 (circular orbit);
                             * the device uses them rounded to float */
  double sod2;              /* SOD², mm² */
  int mirror;               /* z-mirror symmetry usable (centred grid, no v offset) */
  CtrCudaFdkKernel kernel;
  unsigned max_slab_nz;     /* 0: as many slices as free memory allows */
  unsigned view_batch;      /* views per streamed batch: 0 (32) or a power of two
                             * up to 64 (else CTR_CUDA_INVALID) */
} CtrCudaFdkDesc;

typedef struct {
  double filter_s;          /* device time of weighting + cuFFT filtering */
  double backproject_s;     /* device time of the back-projection kernels */
  double transfer_s;        /* device time of the views' uploads, wall clock of the volume's download */
  double total_s;           /* wall clock of ctr_cuda_fdk_device_run */
  double setup_s;           /* wall clock of its set-up: plans, arrays, buffers, pinned memory */
  double stream_s;          /* wall clock of step 1 (views up, weighted, filtered) */
  double slabs_s;           /* wall clock of step 2 (back-projection, volume down) */
  unsigned n_slabs;
  CtrCudaFdkKernel kernel;  /* the one that ran */
  size_t device_bytes;      /* device memory the free-memory check counted: texture
                             * arrays as the device sized them, filtered store,
                             * weights, FFT buffers and work areas, one slice */
} CtrCudaFdkTimes;

/* Filters and back-projects on device 0 into @vol (host, nz·ny·nx floats,
 * overwritten).  Projections are streamed in batches through pinned
 * buffers on two streams; the filtered ones stay on the device; the volume
 * is done in z slabs when it does not fit beside them. */
CtrCudaStatus ctr_cuda_fdk_device_run (const CtrCudaFdkDesc *d, float *vol, CtrCudaFdkTimes *t, char *err);

#ifdef __cplusplus
}
#endif
