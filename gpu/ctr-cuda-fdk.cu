/* ctr-cuda-fdk.cu — cone-beam FDK on the GPU (see ctr-cuda-api.h, FDK part).
 *
 * Step 1, filtering (iFDK Algorithm 1, the CPU's ctr_fdk_filter): batches of
 * view_batch views are copied by the host into a pinned buffer and sent on
 * one of two streams (the upload of batch b+1 overlaps the filtering of
 * batch b); a kernel applies the host's weights (cosine [row][col] times
 * Δβ·redundancy [view][col], ctr_fdk_weights) and zero-pads every row to
 * m = 2^⌈log2 2N⌉; a batched cuFFT R2C, a multiplication by H and a C2R
 * convolve every row with the CPU's own filter: H is the transform of the
 * impulse response of core's CtrRampFilter (2N−1 taps, taken by the glue
 * through the public ctr_ramp_filter_apply), so windows, cutoff and the
 * discrete Ram-Lak kernel are the CPU's.  The filtered views stay on the
 * device: transposed [view][col][row] (L1-Tran) or in layered 2-D textures
 * of ≤ 1024 views (texture variant), written straight from the FFT buffer.
 *
 * The last batch, when view_batch does not divide the views, has cuFFT
 * plans of its own sized to its rows: a full-size plan would transform rows
 * the batch never wrote (stale or never-written memory; compute-sanitizer's
 * initcheck reports it).  The plans share one work area per lane (they run
 * one after the other in the lane's stream), allocated by us, so that the
 * free-memory check counts it.
 *
 * Step 2, back-projection (iFDK §3.2, Algorithm 4, Theorems 1-3): one thread
 * per (x, y) column and run of ZB slices; per view the depth U, the weight
 * (SOD/U)² and the detector column are computed once from the view's P_grid
 * (12 floats, rounded from the host's doubles, in a device buffer of this
 * run read with __ldg: uniform over the warp, so one broadcast load; a
 * __constant__ array would be one per process, shared by every host thread
 * running an FDK at the same time), the row steps linearly
 * along z, ZB sums stay in registers over all views of a chunk and are added
 * to the volume once per chunk (coalesced over x).  With the z-mirror
 * symmetry (centred grid, single slab) a thread also serves slices
 * nz−1−k with row (nr−1)−row(k).
 *   L1-Tran: the rows a z run reads are contiguous in the transposed view,
 *            so the run stays in L1 (__ldg); bilinear in software with the
 *            CPU's formula (samples outside the panel are 0), but in float
 *            from a float P_grid where the CPU works in double: detector
 *            coordinates differ by ~1e-4 pixel (tests/test-gpu-fdk.c).
 *   Texture: tex2DLayered with cudaFilterModeLinear (hardware bilinear,
 *            8-bit fraction of the weights: the looser tolerance in
 *            tests/test-gpu-fdk.c); the same panel test as the CPU.
 * AUTO picks the texture when α = (N_u·N_v·N_p)/(N_x·N_y·N_z) ≥ 256 (iFDK
 * Table 4: the texture kernel wins only for small volumes from large
 * detectors), else L1-Tran.
 *
 * Slabs: the filtered projections are kept whole; the volume takes what is
 * left of the free memory, in z slabs of at most max_slab_nz slices, each
 * zeroed, back-projected with every view and brought back.
 *
 * Memory: the texture arrays (whose padding only the device knows) and the
 * cuFFT plans (work areas not allocated yet) are made first; then the
 * check asks for the filtered store, weights, both lanes' buffers, the
 * plans' work areas and one slice against what the device says is free.
 */
#include "ctr-cuda-common.cuh"

#include "ctr-cuda-libs.cuh" /* cuFFT, opened at run time */
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <time.h>
#include <vector>

#define ZB 8                 /* slices per thread */
#define MAX_CHUNK 1024       /* views per back-projection launch (texture layers) */

static const char *
cufft_error_name (cufftResult r)
{
  switch (r)
    {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    default: return "cuFFT error";
    }
}

#define CKF(call)                                                                      \
  do {                                                                                 \
    cufftResult ckf_r_ = (call);                                                       \
    if (ckf_r_ != CUFFT_SUCCESS)                                                       \
      {                                                                                \
        snprintf (err, CTR_CUDA_ERR_LEN, "%s failed (%s:%d): %s", #call, __FILE__,     \
                  __LINE__, cufft_error_name (ckf_r_));                                \
        st = ckf_r_ == CUFFT_ALLOC_FAILED ? CTR_CUDA_NO_MEMORY : CTR_CUDA_UNAVAILABLE; \
        goto fail;                                                                     \
      }                                                                                \
  } while (0)

/* ------------------------------------------------------------ filtering -- */

/* pad[row][c] = raw[row][c] · cosw[r][c] · vw[v][c] for c < nc, 0 up to m;
 * row = b·nr + r for view v = v0 + b. */
__global__ void
fdk_weight_pad (const float *__restrict__ raw, const float *__restrict__ cosw,
                const float *__restrict__ vw, float *__restrict__ pad,
                unsigned nb, unsigned nr, unsigned nc, unsigned m, unsigned v0)
{
  const unsigned c = blockIdx.y * blockDim.x + threadIdx.x;
  const unsigned row = blockIdx.x;  /* x: up to 2³¹ − 1 rows */
  if (c >= m || row >= nb * nr)
    return;
  const unsigned b = row / nr, r = row % nr;
  float val = 0.0f;
  if (c < nc)
    val = raw[(size_t) row * nc + c] * cosw[(size_t) r * nc + c] * vw[(size_t) (v0 + b) * nc + c];
  pad[(size_t) row * m + c] = val;
}

/* spec[row][f] *= h[f] (h already holds 1/m). */
__global__ void
fdk_multiply (cufftComplex *__restrict__ spec, const cufftComplex *__restrict__ h, unsigned nf, size_t n)
{
  const size_t t = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  const cufftComplex a = spec[t], b = h[t % nf];
  spec[t] = make_cuFloatComplex (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

__global__ void
fdk_scale_complex (cufftComplex *h, unsigned nf, float s)
{
  const unsigned f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < nf)
    h[f] = make_cuFloatComplex (h[f].x * s, h[f].y * s);
}

/* qt[v0 + b][c][r] = pad[b·nr + r][c] (the transposed store of L1-Tran):
 * a 32×32 tile through shared memory for each (b, r, c) block. */
__global__ void
fdk_store_transposed (const float *__restrict__ pad, float *__restrict__ qt,
                      unsigned nr, unsigned nc, unsigned m, unsigned v0)
{
  __shared__ float tile[32][33];
  const unsigned b = blockIdx.z;
  const unsigned c_base = blockIdx.x * 32, r_base = blockIdx.y * 32;
  for (unsigned y = threadIdx.y; y < 32; y += blockDim.y)
    {
      const unsigned r = r_base + y, c = c_base + threadIdx.x;
      if (r < nr && c < nc)
        tile[y][threadIdx.x] = pad[((size_t) b * nr + r) * m + c];
    }
  __syncthreads ();
  for (unsigned y = threadIdx.y; y < 32; y += blockDim.y)
    {
      const unsigned c = c_base + y, r = r_base + threadIdx.x;
      if (r < nr && c < nc)
        qt[((size_t) (v0 + b) * nc + c) * nr + r] = tile[threadIdx.x][y];
    }
}

/* ------------------------------------------------------ back-projection -- */

struct BpArgs {
  const float *mats;          /* the chunk's first view's P_grid, [view][12] */
  const float *qt;            /* L1-Tran: the chunk's first view, [view][col][row] */
  cudaTextureObject_t tex;    /* texture: the chunk's layers */
  float *vol;                 /* slab [zs][ny][nx] */
  int nb, nc, nr, nx, ny;
  int z0;                     /* slab's first slice in the volume */
  int zcount;                 /* slices a launch covers: zs, or ⌈nz/2⌉ with the mirror */
  int nz;
  float sod2, cmax, rmax;
};

template <bool TEX>
__device__ __forceinline__ float
fdk_sample (const BpArgs &a, const float *q0, const float *q1, float fu, float colf, int b, float r)
{
  if (TEX)
    return tex2DLayered<float> (a.tex, colf + 0.5f, r + 0.5f, b);
  const int r0 = (int) r;
  const int r1 = min (r0 + 1, a.nr - 1);
  const float fr = r - (float) r0;
  const float s00 = __ldg (q0 + r0), s10 = __ldg (q1 + r0);
  const float s01 = __ldg (q0 + r1), s11 = __ldg (q1 + r1);
  const float l0 = s00 + fu * (s10 - s00), l1 = s01 + fu * (s11 - s01);
  return l0 + fr * (l1 - l0);
}

template <bool TEX, bool MIRROR>
__global__ void __launch_bounds__ (256)
fdk_backproject (BpArgs a)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int kc = blockIdx.z * ZB;
  if (i >= a.nx || j >= a.ny)
    return;
  float acc[ZB], accm[ZB];
#pragma unroll
  for (int z = 0; z < ZB; z++)
    acc[z] = accm[z] = 0.0f;
  const float fi = (float) i, fj = (float) j;
  for (int b = 0; b < a.nb; b++)
    {
      float P[12];
#pragma unroll
      for (int k = 0; k < 12; k++)
        P[k] = __ldg (a.mats + 12 * b + k);
      const float h2 = fmaf (P[8], fi, fmaf (P[9], fj, P[11]));
      if (h2 <= 0.0f)
        continue;  /* at or behind the source */
      const float inv = 1.0f / h2;
      const float colf = fmaf (P[0], fi, fmaf (P[1], fj, P[3])) * inv;
      if (!(colf >= 0.0f && colf <= a.cmax))
        continue;
      const float ra = fmaf (P[4], fi, fmaf (P[5], fj, P[7])) * inv;
      const float rd = P[6] * inv;
      const float w = a.sod2 * inv * inv;
      const int c0 = (int) colf;
      const float fu = colf - (float) c0;
      const int c1 = min (c0 + 1, a.nc - 1);
      const float *q0 = NULL, *q1 = NULL;
      if (!TEX)
        {
          q0 = a.qt + ((size_t) b * a.nc + c0) * a.nr;
          q1 = a.qt + ((size_t) b * a.nc + c1) * a.nr;
        }
#pragma unroll
      for (int z = 0; z < ZB; z++)
        {
          const int kl = kc + z;
          if (kl < a.zcount)
            {
              const float r = fmaf (rd, (float) (a.z0 + kl), ra);
              if (r >= 0.0f && r <= a.rmax)
                {
                  acc[z] += w * fdk_sample<TEX> (a, q0, q1, fu, colf, b, r);
                  if (MIRROR && a.nz - 1 - kl != kl)
                    accm[z] += w * fdk_sample<TEX> (a, q0, q1, fu, colf, b, a.rmax - r);
                }
            }
        }
    }
  const size_t nxy = (size_t) a.nx * a.ny, ij = (size_t) j * a.nx + i;
#pragma unroll
  for (int z = 0; z < ZB; z++)
    {
      const int kl = kc + z;
      if (kl < a.zcount)
        {
          a.vol[(size_t) kl * nxy + ij] += acc[z];
          if (MIRROR && a.nz - 1 - kl != kl)
            a.vol[(size_t) (a.nz - 1 - kl) * nxy + ij] += accm[z];
        }
    }
}

/* ---------------------------------------------------------------- driver -- */

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned
next_pow2 (unsigned long long x)
{
  unsigned long long m = 1;
  while (m < x)
    m <<= 1;
  return (unsigned) m;
}

/* memcpy of @n floats by up to 8 host threads (the caller one of them):
 * one thread copying the views into the pinned buffers moved ~5 GB/s on the
 * H100's host, the largest piece of W3 once the download was staged. */
static void
host_copy (float *dst, const float *src, size_t n)
{
  const size_t min_chunk = (size_t) 1 << 20;           /* 4 MiB per thread at least */
  unsigned hw = std::thread::hardware_concurrency ();
  unsigned nt = hw < 1 ? 1 : hw > 8 ? 8 : hw;
  if (n / min_chunk < nt)
    nt = (unsigned) (n / min_chunk);
  if (nt <= 1)
    {
      memcpy (dst, src, sizeof (float) * n);
      return;
    }
  const size_t per = (n + nt - 1) / nt;
  std::vector<std::thread> th;
  try
    {
      for (unsigned k = 1; k < nt; k++)
        {
          const size_t lo = k * per, len = lo >= n ? 0 : (n - lo < per ? n - lo : per);
          th.emplace_back ([=] () { memcpy (dst + lo, src + lo, sizeof (float) * len); });
        }
    }
  catch (...)
    {
      /* no thread could be started: the rest in this one */
      for (auto &t : th)
        t.join ();
      const size_t done = per * (th.size () + 1);
      memcpy (dst, src, sizeof (float) * (per < n ? per : n));
      if (done < n)
        memcpy (dst + done, src + done, sizeof (float) * (n - done));
      return;
    }
  memcpy (dst, src, sizeof (float) * per);
  for (auto &t : th)
    t.join ();
}

struct Lane {
  cudaStream_t stream = NULL;
  float *pinned = NULL, *raw = NULL, *pad = NULL;
  cufftComplex *spec = NULL;
  /* fwd/inv: a full batch; tfwd/tinv: the last, partial one (on its lane) */
  cufftHandle fwd = 0, inv = 0, tfwd = 0, tinv = 0;
  bool has_fwd = false, has_inv = false, has_tfwd = false, has_tinv = false;
  void *work = NULL;          /* shared by the lane's plans (one stream) */
  size_t work_size = 0;
  cudaEvent_t e0 = NULL, e1 = NULL, e2 = NULL;  /* copy start, copy end / filter start, filter end */
  bool busy = false;
};

static void
lane_free_fft (Lane &L)
{
  if (L.has_fwd) cufftDestroy (L.fwd);
  if (L.has_inv) cufftDestroy (L.inv);
  if (L.has_tfwd) cufftDestroy (L.tfwd);
  if (L.has_tinv) cufftDestroy (L.tinv);
  L.has_fwd = L.has_inv = L.has_tfwd = L.has_tinv = false;
  cudaFree (L.raw);
  cudaFree (L.pad);
  cudaFree (L.spec);
  cudaFree (L.work);
  L.raw = L.pad = NULL;
  L.spec = NULL;
  L.work = NULL;
}

/* A batched 1-D R2C (or C2R) plan of @rows rows of length m without its
 * work area (the lane's shared one is set later); its size into *ws. */
#define FDK_PLAN(h, has, r2c, rows, ws)                                                                   \
  do {                                                                                                    \
    int n_[1] = { (int) m };                                                                              \
    CKF (cufftCreate (&(h)));                                                                             \
    has = true;                                                                                           \
    CKF (cufftSetAutoAllocation ((h), 0));                                                                \
    CKF (cufftMakePlanMany ((h), 1, n_, NULL, 1, (r2c) ? (int) m : (int) nf, NULL, 1, (r2c) ? (int) nf : (int) m, \
                            (r2c) ? CUFFT_R2C : CUFFT_C2R, (int) (rows), &(ws)));                         \
  } while (0)

/* One FDK run's state, shared by its steps below (each returns a status and
 * leaves what it made in here for fdk_free). */
struct FdkRun {
  const CtrCudaFdkDesc *d;
  unsigned nv, nr, nc, nx, ny, nz, m, nf, vb, n_chunks, tail_rows;
  size_t nxy;
  int tail_lane;
  bool tex;
  CtrCudaFdkKernel kind;
  double filter_ms = 0, bp_ms = 0, copy_ms = 0;
  unsigned n_slabs = 0;
  size_t kwork_size = 0, array_bytes = 0, need = 0;
  Lane lane[2];
  float *d_cosw = NULL, *d_vw = NULL, *d_kern = NULL, *d_qt = NULL, *d_vol = NULL, *d_mats = NULL;
  void *d_kwork = NULL;
  cufftComplex *d_h = NULL;
  cufftHandle kplan = 0;
  bool has_kplan = false;
  std::vector<cudaArray_t> arrays;
  std::vector<cudaTextureObject_t> texs;
  cudaEvent_t eb0 = NULL, eb1 = NULL;
};

/* The kernel's plan and both lanes' batched plans (the tail's on its lane),
 * without work areas: their sizes into the run. */
static CtrCudaStatus
fdk_plans (FdkRun &r, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const unsigned m = r.m, nf = r.nf;
  {
    int n1[1] = { (int) m };
    CKF (cufftCreate (&r.kplan));
    r.has_kplan = true;
    CKF (cufftSetAutoAllocation (r.kplan, 0));
    CKF (cufftMakePlanMany (r.kplan, 1, n1, NULL, 1, (int) m, NULL, 1, (int) nf, CUFFT_R2C, 1, &r.kwork_size));
  }
  for (int s = 0; s < 2; s++)
    {
      Lane &L = r.lane[s];
      const size_t rows = (size_t) r.vb * r.nr;
      size_t ws = 0;
      FDK_PLAN (L.fwd, L.has_fwd, true, rows, ws);
      L.work_size = ws > L.work_size ? ws : L.work_size;
      FDK_PLAN (L.inv, L.has_inv, false, rows, ws);
      L.work_size = ws > L.work_size ? ws : L.work_size;
      if (r.tail_rows != 0 && s == r.tail_lane)
        {
          FDK_PLAN (L.tfwd, L.has_tfwd, true, r.tail_rows, ws);
          L.work_size = ws > L.work_size ? ws : L.work_size;
          FDK_PLAN (L.tinv, L.has_tinv, false, r.tail_rows, ws);
          L.work_size = ws > L.work_size ? ws : L.work_size;
        }
    }
fail:
  return st;
}

/* The texture variant's layered arrays of ≤ MAX_CHUNK views and their
 * texture objects.  The arrays' opaque (tiled) layout takes more than
 * nc × nr × layers floats; what they took is read off the free memory
 * around their allocation (cudaArrayGetMemoryRequirements answers only for
 * arrays made with cudaArrayDeferredMapping: invalid argument on an H100). */
static CtrCudaStatus
fdk_arrays (FdkRun &r, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  size_t free_before = 0, free_after = 0, total = 0;
  CK (cudaMemGetInfo (&free_before, &total));
  for (unsigned ch = 0; ch < r.n_chunks; ch++)
    {
      const unsigned layers = (ch + 1 < r.n_chunks) ? MAX_CHUNK : r.nv - ch * MAX_CHUNK;
      cudaChannelFormatDesc cf = cudaCreateChannelDesc<float> ();
      CK (cudaMalloc3DArray (&r.arrays[ch], &cf, make_cudaExtent (r.nc, r.nr, layers), cudaArrayLayered));
      cudaResourceDesc rd;
      memset (&rd, 0, sizeof rd);
      rd.resType = cudaResourceTypeArray;
      rd.res.array.array = r.arrays[ch];
      cudaTextureDesc td;
      memset (&td, 0, sizeof td);
      td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
      td.filterMode = cudaFilterModeLinear;
      td.readMode = cudaReadModeElementType;
      td.normalizedCoords = 0;
      CK (cudaCreateTextureObject (&r.texs[ch], &rd, &td, NULL));
    }
  CK (cudaMemGetInfo (&free_after, &total));
  r.array_bytes = free_before > free_after ? free_before - free_after : 0;
fail:
  return st;
}

/* The rest, against what is free now: the filtered store (L1-Tran), the
 * weights, matrices and filter, both lanes' streams, buffers and work
 * areas, one slice; uploads the weights and matrices and transforms the
 * ramp's taps (@hk, m floats placed circularly) into H. */
static CtrCudaStatus
fdk_alloc (FdkRun &r, const std::vector<float> &hk, const std::vector<float> &fmats, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const unsigned nv = r.nv, nr = r.nr, nc = r.nc, m = r.m, nf = r.nf;
  {
    const size_t lane_bytes = sizeof (float) * (size_t) r.vb * nr * (2 * (size_t) nc + m)
                              + sizeof (cufftComplex) * (size_t) r.vb * nr * nf;
    const size_t store_bytes = r.tex ? 0 : sizeof (float) * (size_t) nv * nr * nc;
    r.need = store_bytes + 2 * lane_bytes + r.lane[0].work_size + r.lane[1].work_size + r.kwork_size
             + sizeof (float) * ((size_t) nr * nc + (size_t) nv * nc + m + (size_t) nv * 12)
             + sizeof (cufftComplex) * nf + sizeof (float) * r.nxy;
    st = ctr_cuda_check_free (r.need, "FDK (filtered projections, FFT buffers and work areas, one slice)", err);
    if (st != CTR_CUDA_OK)
      goto fail;
  }
  CK (cudaMalloc (&r.d_cosw, sizeof (float) * nr * nc));
  CK (cudaMalloc (&r.d_vw, sizeof (float) * (size_t) nv * nc));
  CK (cudaMalloc (&r.d_kern, sizeof (float) * m));
  CK (cudaMalloc (&r.d_h, sizeof (cufftComplex) * nf));
  CK (cudaMalloc (&r.d_mats, sizeof (float) * (size_t) nv * 12));
  CK (cudaMalloc (&r.d_kwork, r.kwork_size ? r.kwork_size : 16));
  CKF (cufftSetWorkArea (r.kplan, r.d_kwork));
  CK (cudaMemcpy (r.d_cosw, r.d->cosw, sizeof (float) * nr * nc, cudaMemcpyHostToDevice));
  CK (cudaMemcpy (r.d_vw, r.d->view_col, sizeof (float) * (size_t) nv * nc, cudaMemcpyHostToDevice));
  CK (cudaMemcpy (r.d_kern, hk.data (), sizeof (float) * m, cudaMemcpyHostToDevice));
  CK (cudaMemcpy (r.d_mats, fmats.data (), sizeof (float) * (size_t) nv * 12, cudaMemcpyHostToDevice));
  CKF (cufftExecR2C (r.kplan, r.d_kern, r.d_h));
  fdk_scale_complex<<<(nf + 255) / 256, 256>>> (r.d_h, nf, 1.0f / (float) m);
  CK_LAUNCH ();
  if (!r.tex)
    CK (cudaMalloc (&r.d_qt, sizeof (float) * (size_t) nv * nr * nc));

  for (int s = 0; s < 2; s++)
    {
      Lane &L = r.lane[s];
      const size_t rows = (size_t) r.vb * nr;
      CK (cudaStreamCreateWithFlags (&L.stream, cudaStreamNonBlocking));
      CK (cudaEventCreate (&L.e0));
      CK (cudaEventCreate (&L.e1));
      CK (cudaEventCreate (&L.e2));
      CK (cudaHostAlloc ((void **) &L.pinned, sizeof (float) * rows * nc, cudaHostAllocDefault));
      CK (cudaMalloc (&L.raw, sizeof (float) * rows * nc));
      CK (cudaMalloc (&L.pad, sizeof (float) * rows * m));
      CK (cudaMalloc (&L.spec, sizeof (cufftComplex) * rows * nf));
      CK (cudaMalloc (&L.work, L.work_size ? L.work_size : 16));
      CKF (cufftSetWorkArea (L.fwd, L.work));
      CKF (cufftSetWorkArea (L.inv, L.work));
      CKF (cufftSetStream (L.fwd, L.stream));
      CKF (cufftSetStream (L.inv, L.stream));
      if (L.has_tfwd)
        {
          CKF (cufftSetWorkArea (L.tfwd, L.work));
          CKF (cufftSetWorkArea (L.tinv, L.work));
          CKF (cufftSetStream (L.tfwd, L.stream));
          CKF (cufftSetStream (L.tinv, L.stream));
        }
    }
  CK (cudaDeviceSynchronize ());
fail:
  return st;
}

/* Waits for lane @L's batch in flight and adds its copy and filter times. */
static CtrCudaStatus
fdk_lane_settle (FdkRun &r, Lane &L, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float ms;
  CK (cudaEventSynchronize (L.e2));
  CK (cudaEventElapsedTime (&ms, L.e0, L.e1));
  r.copy_ms += ms;
  CK (cudaEventElapsedTime (&ms, L.e1, L.e2));
  r.filter_ms += ms;
  L.busy = false;
fail:
  return st;
}

/* Step 1: the views in batches through the two lanes: up, weighted,
 * filtered, into the store (transposed) or the texture arrays; then the
 * FFT buffers are freed to make room for the volume. */
static CtrCudaStatus
fdk_stream_views (FdkRun &r, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const unsigned nv = r.nv, nr = r.nr, nc = r.nc, m = r.m, nf = r.nf, vb = r.vb;
  for (unsigned v0 = 0, it = 0; v0 < nv; v0 += vb, it++)
    {
      Lane &L = r.lane[it & 1];
      const unsigned nb = nv - v0 < vb ? nv - v0 : vb;
      const bool partial = nb < vb;
      /* the lane's previous batch: its pinned buffer is free again */
      if (L.busy && (st = fdk_lane_settle (r, L, err)) != CTR_CUDA_OK)
        goto fail;
      host_copy (L.pinned, r.d->proj + (size_t) v0 * nr * nc, (size_t) nb * nr * nc);
      CK (cudaEventRecord (L.e0, L.stream));
      CK (cudaMemcpyAsync (L.raw, L.pinned, sizeof (float) * (size_t) nb * nr * nc, cudaMemcpyHostToDevice, L.stream));
      CK (cudaEventRecord (L.e1, L.stream));
      dim3 gw (nb * nr, (m + 255) / 256);
      fdk_weight_pad<<<gw, 256, 0, L.stream>>> (L.raw, r.d_cosw, r.d_vw, L.pad, nb, nr, nc, m, v0);
      CK_LAUNCH ();
      CKF (cufftExecR2C (partial ? L.tfwd : L.fwd, L.pad, L.spec));
      {
        const size_t n = (size_t) nb * nr * nf;
        fdk_multiply<<<(unsigned) ((n + 255) / 256), 256, 0, L.stream>>> (L.spec, r.d_h, nf, n);
        CK_LAUNCH ();
      }
      CKF (cufftExecC2R (partial ? L.tinv : L.inv, L.spec, L.pad));
      if (r.tex)
        {
          cudaMemcpy3DParms p;
          memset (&p, 0, sizeof p);
          p.srcPtr = make_cudaPitchedPtr (L.pad, sizeof (float) * m, nc, nr);
          p.dstArray = r.arrays[v0 / MAX_CHUNK];
          p.dstPos = make_cudaPos (0, 0, v0 % MAX_CHUNK);
          p.extent = make_cudaExtent (nc, nr, nb);
          p.kind = cudaMemcpyDeviceToDevice;
          CK (cudaMemcpy3DAsync (&p, L.stream));
        }
      else
        {
          dim3 gt ((nc + 31) / 32, (nr + 31) / 32, nb);
          fdk_store_transposed<<<gt, dim3 (32, 8), 0, L.stream>>> (L.pad, r.d_qt, nr, nc, m, v0);
          CK_LAUNCH ();
        }
      CK (cudaEventRecord (L.e2, L.stream));
      L.busy = true;
    }
  for (int s = 0; s < 2; s++)
    if (r.lane[s].busy && (st = fdk_lane_settle (r, r.lane[s], err)) != CTR_CUDA_OK)
      goto fail;
  /* the FFT buffers are no longer needed: make room for the volume */
  for (int s = 0; s < 2; s++)
    lane_free_fft (r.lane[s]);
fail:
  return st;
}

/* The slices a slab may hold: what is free less a margin (64 MiB and a
 * twentieth of the device), at most nz and max_slab_nz; 0 with the error
 * when not one slice fits. */
static CtrCudaStatus
fdk_slab_size (FdkRun &r, size_t *slab_nz, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  size_t free_b = 0, total_b = 0;
  CK (cudaMemGetInfo (&free_b, &total_b));
  {
    const size_t margin = ((size_t) 64 << 20) + total_b / 20;
    const size_t avail = free_b > margin ? free_b - margin : 0;
    *slab_nz = avail / (sizeof (float) * r.nxy);
    if (*slab_nz > r.nz)
      *slab_nz = r.nz;
    if (r.d->max_slab_nz && *slab_nz > r.d->max_slab_nz)
      *slab_nz = r.d->max_slab_nz;
    if (*slab_nz == 0)
      {
        snprintf (err, CTR_CUDA_ERR_LEN,
                  "too little device memory for one FDK slice: %.1f MiB free of %.1f MiB",
                  free_b / 1048576.0, total_b / 1048576.0);
        st = CTR_CUDA_NO_MEMORY;
      }
  }
fail:
  return st;
}

/* Back-projects every chunk of views into the slab of @zs slices from @z0
 * (zeroed first; @zcount the slices a thread column serves: half with the
 * z mirror) and adds the kernels' device time. */
static CtrCudaStatus
fdk_backproject_slab (FdkRun &r, size_t z0, int zcount, bool mirror, size_t zs, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float ms;
  CK (cudaMemset (r.d_vol, 0, sizeof (float) * r.nxy * zs));
  CK (cudaEventRecord (r.eb0, 0));
  for (unsigned ch = 0; ch < r.n_chunks; ch++)
    {
      const unsigned c0 = ch * MAX_CHUNK, nb = r.nv - c0 < MAX_CHUNK ? r.nv - c0 : MAX_CHUNK;
      BpArgs a;
      a.mats = r.d_mats + (size_t) c0 * 12;
      a.qt = r.tex ? NULL : r.d_qt + (size_t) c0 * r.nr * r.nc;
      a.tex = r.tex ? r.texs[ch] : 0;
      a.vol = r.d_vol;
      a.nb = (int) nb;
      a.nc = (int) r.nc;
      a.nr = (int) r.nr;
      a.nx = (int) r.nx;
      a.ny = (int) r.ny;
      a.z0 = (int) z0;
      a.zcount = zcount;
      a.nz = (int) r.nz;
      a.sod2 = (float) r.d->sod2;
      a.cmax = (float) (r.nc - 1);
      a.rmax = (float) (r.nr - 1);
      dim3 blk (32, 8), grd ((r.nx + 31) / 32, (r.ny + 7) / 8, (zcount + ZB - 1) / ZB);
      if (r.tex && mirror)
        fdk_backproject<true, true><<<grd, blk>>> (a);
      else if (r.tex)
        fdk_backproject<true, false><<<grd, blk>>> (a);
      else if (mirror)
        fdk_backproject<false, true><<<grd, blk>>> (a);
      else
        fdk_backproject<false, false><<<grd, blk>>> (a);
      CK_LAUNCH ();
    }
  CK (cudaEventRecord (r.eb1, 0));
  CK (cudaEventSynchronize (r.eb1));
  CK (cudaEventElapsedTime (&ms, r.eb0, r.eb1));
  r.bp_ms += ms;
fail:
  return st;
}

/* The slab's @n floats down into @dst through the lanes' pinned buffers,
 * chunk c on lane c % 2: chunk c − 2 leaves its buffer for the volume (a
 * host copy) while chunk c − 1 is on the bus.  A plain cudaMemcpy into the
 * pageable volume moved 1.3 GB/s on an H100 (W3: 0.4 s of 0.74). */
static CtrCudaStatus
fdk_download_slab (FdkRun &r, float *dst, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const double c0 = now_s ();
  const size_t cap = (size_t) r.vb * r.nr * r.nc;
  const size_t nch = (n + cap - 1) / cap;
  for (size_t c = 0; c < nch + 2; c++)
    {
      Lane &L = r.lane[c & 1];
      if (c >= 2)
        {
          const size_t p = c - 2, len = p + 1 < nch ? cap : n - p * cap;
          CK (cudaStreamSynchronize (L.stream));
          host_copy (dst + p * cap, L.pinned, len);
        }
      if (c < nch)
        {
          const size_t len = c + 1 < nch ? cap : n - c * cap;
          CK (cudaMemcpyAsync (L.pinned, r.d_vol + c * cap, sizeof (float) * len,
                               cudaMemcpyDeviceToHost, L.stream));
        }
    }
  r.copy_ms += 1e3 * (now_s () - c0);
fail:
  return st;
}

/* Step 2: the volume in z slabs, each back-projected and brought back. */
static CtrCudaStatus
fdk_slabs (FdkRun &r, float *vol, char *err)
{
  CtrCudaStatus st;
  size_t slab_nz = 0;
  if ((st = fdk_slab_size (r, &slab_nz, err)) != CTR_CUDA_OK)
    return st;
  CK (cudaMalloc (&r.d_vol, sizeof (float) * r.nxy * slab_nz));
  for (size_t z0 = 0; z0 < r.nz; z0 += slab_nz)
    {
      const size_t zs = r.nz - z0 < slab_nz ? r.nz - z0 : slab_nz;
      const bool mirror = r.d->mirror && zs == r.nz && r.nz > 1;
      const int zcount = mirror ? (int) ((r.nz + 1) / 2) : (int) zs;
      r.n_slabs++;
      if ((st = fdk_backproject_slab (r, z0, zcount, mirror, zs, err)) != CTR_CUDA_OK
          || (st = fdk_download_slab (r, vol + z0 * r.nxy, r.nxy * zs, err)) != CTR_CUDA_OK)
        return st;
    }
fail:
  return st;
}

/* Frees whatever the run made (each member may be unset). */
static void
fdk_free (FdkRun &r)
{
  for (int s = 0; s < 2; s++)
    {
      Lane &L = r.lane[s];
      if (L.stream) cudaStreamSynchronize (L.stream);
      lane_free_fft (L);
      if (L.pinned) cudaFreeHost (L.pinned);
      if (L.e0) cudaEventDestroy (L.e0);
      if (L.e1) cudaEventDestroy (L.e1);
      if (L.e2) cudaEventDestroy (L.e2);
      if (L.stream) cudaStreamDestroy (L.stream);
    }
  for (unsigned ch = 0; ch < r.n_chunks; ch++)
    {
      if (r.texs[ch]) cudaDestroyTextureObject (r.texs[ch]);
      if (r.arrays[ch]) cudaFreeArray (r.arrays[ch]);
    }
  if (r.has_kplan) cufftDestroy (r.kplan);
  cudaFree (r.d_kwork);
  cudaFree (r.d_cosw);
  cudaFree (r.d_vw);
  cudaFree (r.d_kern);
  cudaFree (r.d_h);
  cudaFree (r.d_mats);
  cudaFree (r.d_qt);
  cudaFree (r.d_vol);
  if (r.eb0) cudaEventDestroy (r.eb0);
  if (r.eb1) cudaEventDestroy (r.eb1);
}

extern "C" CtrCudaStatus
ctr_cuda_fdk_device_run (const CtrCudaFdkDesc *d, float *vol, CtrCudaFdkTimes *t, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!ctr_cufft_loaded)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cuFFT is not loaded (ctr_cuda_lib_require)");
      return CTR_CUDA_UNAVAILABLE;
    }
  const double t_start = now_s ();
  FdkRun r;
  r.d = d;
  r.nv = d->n_views;
  r.nr = d->n_rows;
  r.nc = d->n_cols;
  r.nx = d->nx;
  r.ny = d->ny;
  r.nz = d->nz;
  r.nxy = (size_t) r.nx * r.ny;
  r.m = next_pow2 (2ull * r.nc);
  r.nf = r.m / 2 + 1;
  r.vb = d->view_batch ? d->view_batch : 32;
  const double alpha = (double) r.nr * r.nc * r.nv / ((double) r.nxy * r.nz);
  r.kind = d->kernel != CTR_CUDA_FDK_AUTO ? d->kernel
           : alpha >= 256.0 ? CTR_CUDA_FDK_TEXTURE : CTR_CUDA_FDK_L1TRAN;
  r.tex = r.kind == CTR_CUDA_FDK_TEXTURE;
  r.n_chunks = (r.nv + MAX_CHUNK - 1) / MAX_CHUNK;
  const unsigned n_batches = (r.nv + r.vb - 1) / r.vb;
  r.tail_rows = (r.nv % r.vb) * r.nr;
  r.tail_lane = (int) ((n_batches - 1) & 1);
  r.arrays.assign (r.n_chunks, (cudaArray_t) NULL);
  r.texs.assign (r.n_chunks, 0);

  if (r.vb > 64 || (MAX_CHUNK % r.vb) != 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "view batch %u: a power of two up to 64 (it must divide %u)", r.vb, MAX_CHUNK);
      return CTR_CUDA_INVALID;
    }
  if (r.nc > 16384 || r.nr > 16384 || r.nx == 0 || r.ny == 0 || r.nz == 0 || r.nv == 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "FDK: unsupported sizes (panel %u × %u, volume %u × %u × %u)",
                r.nr, r.nc, r.nx, r.ny, r.nz);
      return CTR_CUDA_UNAVAILABLE;   /* the CPU's FDK takes them */
    }
  std::vector<float> fmats ((size_t) r.nv * 12);
  std::vector<float> hk (r.m, 0.0f);
  for (size_t k = 0; k < (size_t) r.nv * 12; k++)
    fmats[k] = (float) d->mats[k];
  /* the ramp's taps placed circularly: lag l at l mod m */
  for (unsigned l = 0; l < r.nc; l++)
    hk[l] = d->ramp[r.nc - 1 + l];
  for (unsigned l = 1; l < r.nc; l++)
    hk[r.m - l] = d->ramp[r.nc - 1 - l];

  CK (cudaEventCreate (&r.eb0));
  CK (cudaEventCreate (&r.eb1));
  /* what only the device knows the size of first: plans, texture arrays */
  if ((st = fdk_plans (r, err)) != CTR_CUDA_OK
      || (r.tex && (st = fdk_arrays (r, err)) != CTR_CUDA_OK)
      || (st = fdk_alloc (r, hk, fmats, err)) != CTR_CUDA_OK)
    goto fail;
  if (t)
    t->setup_s = now_s () - t_start;
  if ((st = fdk_stream_views (r, err)) != CTR_CUDA_OK)
    goto fail;
  if (t)
    t->stream_s = now_s () - t_start - t->setup_s;
  if ((st = fdk_slabs (r, vol, err)) != CTR_CUDA_OK)
    goto fail;
  if (t)
    {
      t->filter_s = r.filter_ms / 1e3;
      t->backproject_s = r.bp_ms / 1e3;
      t->transfer_s = r.copy_ms / 1e3;
      t->n_slabs = r.n_slabs;
      t->kernel = r.kind;
      t->device_bytes = r.need + r.array_bytes;
      t->slabs_s = now_s () - t_start - t->setup_s - t->stream_s;
    }

fail:
  fdk_free (r);
  ctr_cuda_clear_error ();
  if (t && st == CTR_CUDA_OK)
    t->total_s = now_s () - t_start;
  return st;
}
