/* ctr-cuda-scsr-private.cuh — what the SCSR orbit kernels (ctr-cuda-scsr.cu)
 * and their blocked variant (ctr-cuda-blocked.cu) share: the session, the
 * stored element, the compose table, the kernel modes. */
#pragma once

#include "ctr-cuda-common.cuh"

/* The traffic model (gpu/README.md) finds the DRAM bytes of the row walk
 * the same for 1, 2, 4 and 8 warps per row and the requested bytes within
 * 2 % up to 4; one W1 orbit has 1024 rows, i.e. 1024 warps at one warp per
 * row against the 8448 warp slots of an H100 (132 SMs × 64): 4 puts 4096
 * in flight.  A device measurement replaces this choice. */
#define CTR_CUDA_DEFAULT_WARPS_PER_ROW 4

/* One blocked sub-matrix on the device: rows [row0, row0 + n_rows) of the
 * concatenated ray0/ray1/junction arrays, cells [cell0, cell0 + n_rows·width)
 * of rep/slot/w (column-major: cell (i, c) at cell0 + c·n_rows + i). */
typedef struct {
  unsigned row0, n_rows, width, orbit;
  unsigned long long cell0;
} BlkDesc;

typedef struct {
  unsigned n_blocks;
  BlkDesc *desc_host;          /* n_blocks */
  unsigned *orbit_first;       /* host, n_orbits + 1 */
  BlkDesc *desc;               /* device copy */
  uint32_t *ray0, *ray1, *junction, *rep;
  uint8_t *slot;
  float *w;
  size_t bytes;
} DevBlocked;

typedef struct {
  uint32_t rep;
  float w;
} Elem;

typedef struct {
  unsigned char c[8][8];
} Compose;

struct CtrCudaScsr {
  unsigned K, no, nc, nreps, ns;   /* rows stored as K segments (slot h) each */
  size_t lane_size;          /* floats of one orbit's lane data: nc·ns·K */
  size_t psize;              /* floats of the packed image: nreps·ns·K */
  size_t psize1;             /* nreps·K */
  int with_scale;
  Compose comp;
  unsigned char *comp_dev;   /* the same 64 bytes on the device */
  long long *seg;            /* int64 */
  Elem *el;
  uint32_t *rep_pixel;
  uint8_t *rep_stab;
  float *X, *D, *b, *coef, *valid, *scale, *ax;
  double *sums;              /* [2]: Σ valid (b − a)², Σ valid b² */
  cudaStream_t stream;
  cudaEvent_t ev0, ev1, ev2;
  size_t bytes;
  /* One iteration's launches (2 per orbit) captured once per (method,
   * nonneg) and replayed: the launch gaps of ~180 small kernels shrink
   * (METHOD.md); the residual (a memset and one launch) likewise.
   * CTR_CUDA_GRAPHS=0 launches them one by one instead. */
  cudaGraphExec_t gexec[3][2], rexec;
  int use_graphs;
  /* Warps per stored row (1, 2, 4, 8; CTR_CUDA_WARPS_PER_ROW, default
   * CTR_CUDA_DEFAULT_WARPS_PER_ROW): their partial dot products meet in
   * shared memory; the results agree to rounding. */
  unsigned warps_per_row;
  /* the orbit-level blocked copy of the rows (ctr-cuda-blocked.cu), or
   * none; use_blocked: the iterations walk it instead of the rows */
  DevBlocked blk;
  int use_blocked;
};


enum { MODE_SOLVE = 0, MODE_FORWARD = 1, MODE_RESIDUAL = 2 };
enum { WARPS_PER_BLOCK = 8 };

/* cg[g] = slot that lane g reads in segment h; @sc is the compose table in
 * shared memory (a kernel parameter indexed at run time would be copied to
 * the stack). */
template <int K>
__device__ __forceinline__ void
load_comp (const unsigned char (*sc)[8], int h, unsigned char cg[K])
{
#pragma unroll
  for (int g = 0; g < K; g++)
    cg[g] = sc[g][h];
}

/* The K slots of one rep (one slice): K·4 contiguous bytes, aligned to
 * K·4 (X[rep][s][K] with cudaMalloc's 256-byte base), read as float4/float2. */
template <int K>
__device__ __forceinline__ void
load_slots (const float *__restrict__ p, float xv[K])
{
  if constexpr (K % 4 == 0)
    {
#pragma unroll
      for (int i = 0; i < K / 4; i++)
        {
          const float4 f = __ldg (reinterpret_cast<const float4 *> (p) + i);
          xv[4 * i] = f.x; xv[4 * i + 1] = f.y; xv[4 * i + 2] = f.z; xv[4 * i + 3] = f.w;
        }
    }
  else if constexpr (K == 2)
    {
      const float2 f = __ldg (reinterpret_cast<const float2 *> (p));
      xv[0] = f.x; xv[1] = f.y;
    }
  else
    xv[0] = __ldg (p);
}

/* p[q] += w · u[q] for the K slots: float4/float2 atomics on sm_90 (one L2
 * operation per 16 bytes), scalar atomics before. */
template <int K>
__device__ __forceinline__ void
add_slots (float *p, float w, const float u[K])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (K % 4 == 0)
    {
#pragma unroll
      for (int i = 0; i < K / 4; i++)
        atomicAdd (reinterpret_cast<float4 *> (p) + i,
                   make_float4 (w * u[4 * i], w * u[4 * i + 1], w * u[4 * i + 2], w * u[4 * i + 3]));
    }
  else if constexpr (K == 2)
    atomicAdd (reinterpret_cast<float2 *> (p), make_float2 (w * u[0], w * u[1]));
  else
    atomicAdd (p, w * u[0]);
#else
#pragma unroll
  for (int q = 0; q < K; q++)
    atomicAdd (p + q, w * u[q]);
#endif
}

/* X += (shared, scaled) D, clip, D ← 0 over every rep (ctr-cuda-scsr.cu). */
cudaError_t ctr_cuda_scsr_launch_reduce (CtrCudaScsr *d, const float *scale, int nonneg);
/* The blocked variant (ctr-cuda-blocked.cu): frees the layout; queues the
 * update of orbits [o0, o0 + n_orb) into D (forward into ax, then the
 * transposed product of coef ∘ (b − ax)); with @X NULL the transposed
 * product of coef ∘ b alone (the adjoint). */
void ctr_cuda_scsr_free_blocked (CtrCudaScsr *d);
cudaError_t ctr_cuda_blocked_enqueue (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax_out);
