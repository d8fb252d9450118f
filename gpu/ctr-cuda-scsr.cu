/* ctr-cuda-scsr.cu — the SCSR orbit pass on the device (cuART §5, Eq. 9 on
 * the symmetry-compressed matrix of core/sysmat/ctr-scsr.h).
 *
 * Kernel orbit_rows<K, SB>: one warp per stored row (orbit o, column j).  The
 * 32 threads stride over the row's elements, which are contiguous in memory
 * (8-byte {rep, w}), so every load of the matrix is one coalesced 256-byte
 * transaction; each element then reads K neighbouring floats of the packed
 * image X[rep][s][·] (one 32-byte sector for K = 8) and serves the K
 * symmetric rays of the orbit (lane g reads slot compose[g][h] of segment h)
 * for SB slices at once.  A butterfly of shuffles gives every thread the K·SB
 * dot products; the residuals v = coef ∘ (b − a) follow, and the warp walks
 * the row again (now from L1/L2: one orbit's rows are ~8 MB for W1, below the
 * 50 MB L2 of an H100) adding w · v into the update image D with atomicAdd.
 *
 * Why atomics, and why they are correct: rows of one orbit cross the same
 * pixels (every pixel is hit by several rays of a view and by all K lanes),
 * so the transposed product has write conflicts between warps.  atomicAdd
 * on float in global memory is a single read-modify-write at L2, so no
 * update is lost (compute-sanitizer racecheck checks shared memory only; the
 * global accumulation is made race-free by the atomics, and memcheck covers
 * the bounds).  The only difference from the CPU (per-thread images reduced in
 * thread order, core/sysmat/ctr-scsr.c) is the order of the float additions:
 * results agree to float rounding, not bit for bit — tests/test-gpu.c states
 * the tolerance.  The round-robin column rotation of the blocked layout
 * (ctr-blocking.h) lowers the conflict rate; it is not what makes this
 * correct.
 *
 * Kernel reduce<K>: one thread per (rep, slice): X += D (slots that are one
 * pixel share their summed update, as ctr_scsr_reduce), optional scale (SART,
 * SIRT), clip at 0, D ← 0.  Subset order is kept by stream order: the
 * orbit pass of orbit o+1 starts after the reduce of orbit o.
 *
 * The whole iteration stays on the device; ctr_cuda_scsr_iterate brings back
 * two doubles (the residual sums) and nothing else.
 */
#include "ctr-cuda-scsr-private.cuh"

#include <stdlib.h>
#include <string.h>

/* orbit_rows' forward part for the slices [s0, s0 + sb) of one row: a ←
 * the row's dot products with X (SB·K sums, lane order), reduced over the
 * warp's lanes and, for W > 1, over the row's warps through @part (every
 * thread of the block calls it: it holds barriers).  @scr is the thread's
 * strip of shared memory (see orbit_rows); @sc the compose table. */
template <int K, int SB, int W>
__device__ __forceinline__ void
row_dot (long long my_seg, int n_seg, const Elem *__restrict__ el, const float *__restrict__ X,
         size_t stride, size_t off, unsigned sb, unsigned wb, unsigned wr, unsigned lane,
         const unsigned char (*sc)[8], float *scr, float (*part)[SB * K], float a[SB * K])
{
#pragma unroll
  for (int t = 0; t < n_seg; t++)
    {
      unsigned char cg[K];
      load_comp<K> (sc, t, cg);
      const long long lo = __shfl_sync (0xffffffffu, my_seg, t), hi = __shfl_sync (0xffffffffu, my_seg, t + 1);
      float acc[SB * K];         /* this segment's sums, slot order */
#pragma unroll
      for (int q = 0; q < SB * K; q++)
        acc[q] = 0.f;
      for (long long e = lo + wr * 32 + lane; e < hi; e += 32 * W)
        {
          const Elem m = el[e];
          const float *xr = X + (size_t) m.rep * stride + off;
#pragma unroll
          for (int s = 0; s < SB; s++)
            if (s < (int) sb)
              {
                float xv[K];
                load_slots<K> (xr + s * K, xv);
#pragma unroll
                for (int q = 0; q < K; q++)
                  acc[s * K + q] += m.w * xv[q];
              }
        }
      /* lane g reads slot cg[g] */
      if constexpr (K == 1)
        {
#pragma unroll
          for (int q = 0; q < SB; q++)
            a[q] += acc[q];
        }
      else
        {
          float *my = scr;
#pragma unroll
          for (int q = 0; q < SB * K; q++)
            my[q] = acc[q];
#pragma unroll
          for (int s = 0; s < SB; s++)
#pragma unroll
            for (int g = 0; g < K; g++)
              a[s * K + g] += my[s * K + cg[g]];
        }
    }
#pragma unroll
  for (int q = 0; q < SB * K; q++)
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
      a[q] += __shfl_xor_sync (0xffffffffu, a[q], d);
  if constexpr (W > 1)
    {
      if (lane == 0)
#pragma unroll
        for (int q = 0; q < SB * K; q++)
          part[wb][q] = a[q];
      __syncthreads ();
      const unsigned w0 = wb - wr;
#pragma unroll
      for (int q = 0; q < SB * K; q++)
        {
          float sum = 0.f;
#pragma unroll
          for (int k = 0; k < W; k++)
            sum += part[w0 + k][q];
          a[q] = sum;
        }
      __syncthreads ();          /* part[] is written again next pass */
    }
}

/* orbit_rows' transposed part for the slices [s0, s0 + sb) of one row:
 * D += Aᵀ v over the row's K segments, slot q of segment h taking lane
 * si[q][h]'s residual (read from the thread's strip @scr). */
template <int K, int SB, int W>
__device__ __forceinline__ void
row_scatter (long long my_seg, int n_seg, const Elem *__restrict__ el, float *__restrict__ D,
             size_t stride, size_t off, unsigned sb, unsigned wr, unsigned lane,
             const unsigned char (*si)[8], float *scr, const float v[SB * K])
{
  if constexpr (K > 1)
    {
#pragma unroll
      for (int q = 0; q < SB * K; q++)
        scr[q] = v[q];
    }
#pragma unroll
  for (int t = 0; t < n_seg; t++)
    {
      const long long lo = __shfl_sync (0xffffffffu, my_seg, t), hi = __shfl_sync (0xffffffffu, my_seg, t + 1);
      if (lo == hi)
        continue;
      float u[SB * K];               /* slot q of this segment gets lane si[q][h]'s residual */
      if constexpr (K == 1)
        {
#pragma unroll
          for (int q = 0; q < SB; q++)
            u[q] = v[q];
        }
      else
        {
          unsigned char ci[K];
          load_comp<K> (si, t, ci);
          const float *my = scr;
#pragma unroll
          for (int s = 0; s < SB; s++)
#pragma unroll
            for (int q = 0; q < K; q++)
              u[s * K + q] = ci[q] < K ? my[s * K + ci[q]] : 0.f;
        }
      for (long long e = lo + wr * 32 + lane; e < hi; e += 32 * W)
        {
          const Elem m = el[e];
          float *dr = D + (size_t) m.rep * stride + off;
#pragma unroll
          for (int s = 0; s < SB; s++)
            if (s < (int) sb)
              add_slots<K> (dr + s * K, m.w, u + s * K);
        }
    }
}

/* One warp per stored row of orbits [o0, o0 + n_orb).  @X NULL: a = 0 (the
 * adjoint).  Modes: SOLVE (D += Aᵀ (coef ∘ (b − a))), FORWARD (ax = a),
 * RESIDUAL (sums += valid-weighted (b − a)², b²).
 *
 * Register arrays are indexed by compile-time constants only (slot q, lane
 * g, slice s unrolled); the run-time map lane g ↔ slot compose[g][h] of a
 * segment is applied once per segment, not per element, through the
 * thread's strip of shared memory (scr below): forward, the segment's sums
 * are kept in slot order and read into the lanes at its end; adjoint, the
 * lane residuals are read in slot order at its start.  A row has K segments
 * (slot h), the host's parts merged at upload (merge_parts). */
template <int K, int SB, int W>
__global__ void __launch_bounds__ (WARPS_PER_BLOCK * 32)
orbit_rows (const long long *__restrict__ seg_ptr, const Elem *__restrict__ el,
            unsigned o0, unsigned n_orb, unsigned nc, unsigned ns,
            const float *__restrict__ X, const float *__restrict__ b,
            const float *__restrict__ coef, const float *__restrict__ valid,
            float *__restrict__ ax, float *__restrict__ D, double *__restrict__ sums,
            const unsigned char *__restrict__ comp, int mode)
{
  /* sc[g][h]: the slot lane g reads in segment h; si[q][h]: the lane whose
   * residual slot q of segment h gets (the inverse: for a group, g ↦ g∘h is
   * a bijection; 255 where no lane maps to q) */
  __shared__ unsigned char sc[8][8], si[8][8];
  if (threadIdx.x < 64)
    sc[threadIdx.x / 8][threadIdx.x % 8] = comp[threadIdx.x];
  /* W warps share one row (W = 1: one warp per row); their dot products
   * meet in shared memory, summed in the same order by each of them. */
  __shared__ float part[WARPS_PER_BLOCK][SB * K];
  /* Each thread's K·SB floats, where a segment's sums (slot order) are put
   * into lane order and the residuals (lane order) read in slot order by
   * run-time index: 2·K·SB shared-memory accesses per segment instead of a
   * K×K selection in registers (64 compares and selects for K = 8, which
   * made the kernel issue-bound on an H100).  Stride SB·K + 1: the 32 lanes
   * of a warp fall in 32 banks. */
  __shared__ float scr[K > 1 ? WARPS_PER_BLOCK * 32 : 1][K > 1 ? SB * K + 1 : 1];
  __syncthreads ();
  if (threadIdx.x < 64)
    {
      const unsigned q = threadIdx.x / 8, h = threadIdx.x % 8;
      unsigned char g0 = 255;
      for (int g = K - 1; g >= 0; g--)
        if (sc[g][h] == q)
          g0 = (unsigned char) g;
      si[q][h] = g0;
    }
  __syncthreads ();                      /* before any warp leaves */
  const unsigned wb = threadIdx.x / 32, wr = wb % W;
  const unsigned long long gw = (unsigned long long) blockIdx.x * (WARPS_PER_BLOCK / W) + wb / W;
  const bool active = gw < (unsigned long long) n_orb * nc;
  if (W == 1 && !active)
    return;                              /* whole warps leave together (no later barrier) */
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long row = (unsigned long long) o0 * nc + (active ? gw : 0);   /* o·nc + j */
  /* K segments (slot h; the host's parts merged, merge_parts): their
   * bounds read once, lane h holding seg[h], and passed round by shuffles,
   * so that no pass over the row waits on a load of its bounds */
  const long long my_seg = active && lane <= (unsigned) K ? seg_ptr[row * K + lane] : 0;
  const int n_seg = active ? K : 0;   /* an inactive warp (W > 1) walks none */
  const size_t stride = (size_t) ns * K;
  const size_t lb = (size_t) row * ns * K;   /* lane data of (o, j): [o][j][s][K] */
  double r_num = 0, r_den = 0;

  for (unsigned s0 = 0; s0 < ns; s0 += SB)
    {
      const unsigned sb = min ((unsigned) SB, ns - s0);
      const size_t off = (size_t) s0 * K;
      float a[SB * K];
#pragma unroll
      for (int q = 0; q < SB * K; q++)
        a[q] = 0.f;
      if (X != nullptr)
        row_dot<K, SB, W> (my_seg, n_seg, el, X, stride, off, sb, wb, wr, lane, sc,
                           scr[K > 1 ? threadIdx.x : 0], part, a);
      if (!active)
        continue;
      if (mode == MODE_FORWARD)
        {
          if (lane == 0 && wr == 0)
#pragma unroll
            for (int q = 0; q < SB * K; q++)
              if (q < (int) (sb * K))
                ax[lb + off + q] = a[q];
          continue;
        }
      if (mode == MODE_RESIDUAL)
        {
          if (lane == 0 && wr == 0)
#pragma unroll
            for (int q = 0; q < SB * K; q++)
              if (q < (int) (sb * K))
              {
                const float vq = valid[lb + off + q];
                const double bq = b[lb + off + q], d = bq - a[q];
                r_num += vq * d * d;
                r_den += vq * bq * bq;
              }
          continue;
        }
      /* SOLVE: residual times coefficient, then the transposed product. */
      float v[SB * K];
      bool any = false;
#pragma unroll
      for (int q = 0; q < SB * K; q++)
        {
          v[q] = 0.f;
          if (q < (int) (sb * K))
            v[q] = coef[lb + off + q] * (b[lb + off + q] - a[q]);
          any |= v[q] != 0.f;
        }
      if (!any)                          /* warp-uniform: every thread holds all v */
        continue;
      row_scatter<K, SB, W> (my_seg, n_seg, el, D, stride, off, sb, wr, lane, si,
                             scr[K > 1 ? threadIdx.x : 0], v);
    }
  if (mode == MODE_RESIDUAL && lane == 0 && wr == 0 && (r_num != 0 || r_den != 0))
    {
      atomicAdd (sums, r_num);
      atomicAdd (sums + 1, r_den);
    }
}

/* The host's rows are stored part by part (P parts, the CPU's per-thread
 * pixel partitions: segment (p, h) of a row at seg_in[row·P·K + p·K + h]).
 * The device needs no partitions (its transposed product adds with
 * atomics), and P short segments per slot cost each warp P passes of the
 * segment loop over a few elements (P = 16 host threads: ~7 elements per
 * segment for W1, 32 lanes).  One warp per row copies the row's elements
 * slot by slot, the parts of a slot one after the other, into the same
 * element range: afterwards segment h of a row is seg_out[row·K + h]. */
template <int K>
__global__ void
merge_parts (const long long *__restrict__ seg_in, const Elem *__restrict__ el_in,
             unsigned long long rows, unsigned P, long long *__restrict__ seg_out,
             Elem *__restrict__ el_out)
{
  const unsigned long long row = (unsigned long long) blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x & 31;
  if (row >= rows)
    return;
  const long long *sp = seg_in + row * P * K;
  long long pos = sp[0];
  for (int h = 0; h < K; h++)
    {
      if (lane == 0)
        seg_out[row * K + h] = pos;
      for (unsigned p = 0; p < P; p++)
        {
          const long long a = sp[p * K + h], e = sp[p * K + h + 1];
          for (long long i = a + lane; i < e; i += 32)
            el_out[pos + (i - a)] = el_in[i];
          pos += e - a;
        }
    }
  if (row == rows - 1 && lane == 0)
    seg_out[rows * K] = pos;
}

static cudaError_t
launch_merge_parts (unsigned K, const long long *seg_in, const Elem *el_in, unsigned long long rows,
                    unsigned P, long long *seg_out, Elem *el_out, cudaStream_t stream)
{
  const unsigned blocks = (unsigned) ((rows + 7) / 8);
  if (blocks == 0)
    return cudaSuccess;
  switch (K)
    {
    case 8: merge_parts<8><<<blocks, 256, 0, stream>>> (seg_in, el_in, rows, P, seg_out, el_out); break;
    case 4: merge_parts<4><<<blocks, 256, 0, stream>>> (seg_in, el_in, rows, P, seg_out, el_out); break;
    case 2: merge_parts<2><<<blocks, 256, 0, stream>>> (seg_in, el_in, rows, P, seg_out, el_out); break;
    default: merge_parts<1><<<blocks, 256, 0, stream>>> (seg_in, el_in, rows, P, seg_out, el_out); break;
    }
  return ctr_cuda_note (cudaGetLastError (), "kernel launch (merge_parts)");
}

/* X += (shared, scaled) D, clip, D ← 0; one thread per (rep, slice). */
template <int K>
__global__ void
reduce (float *__restrict__ X, float *__restrict__ D, unsigned nreps, unsigned ns,
        const uint32_t *__restrict__ rep_pixel, const uint8_t *__restrict__ rep_stab,
        const float *__restrict__ scale, int nonneg)
{
  const unsigned long long t = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (unsigned long long) nreps * ns)
    return;
  const unsigned r = (unsigned) (t / ns);
  float *d = D + t * K, *x = X + t * K;
  float u[K];
#pragma unroll
  for (int k = 0; k < K; k++)
    {
      u[k] = d[k];
      d[k] = 0.f;
    }
  if (rep_stab[r])
    {
      const uint32_t *px = rep_pixel + (size_t) r * K;
      float w[K];
#pragma unroll
      for (int k = 0; k < K; k++)
        {
          w[k] = 0.f;
#pragma unroll
          for (int k2 = 0; k2 < K; k2++)
            if (px[k2] == px[k])
              w[k] += u[k2];
        }
#pragma unroll
      for (int k = 0; k < K; k++)
        u[k] = w[k];
    }
#pragma unroll
  for (int k = 0; k < K; k++)
    {
      float nv = x[k] + (scale ? u[k] * scale[(size_t) r * K + k] : u[k]);
      x[k] = nonneg && nv < 0.f ? 0.f : nv;
    }
}

/* ---------------------------------------------------------------- launch -- */

template <int K>
static cudaError_t
launch_rows_k (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax,
               float *D, double *sums, int mode)
{
  const unsigned long long rows = (unsigned long long) n_orb * d->nc;
  const unsigned rpb = WARPS_PER_BLOCK / d->warps_per_row;
  const unsigned blocks = (unsigned) ((rows + rpb - 1) / rpb);
  if (blocks == 0)
    return cudaSuccess;
  /* SB slices per pass over the row: K·SB accumulators per array.  Sized
   * from `nvcc -Xptxas -v` (CUDA 13.0): K = 8, 4, 1 use 58-64 registers and
   * no stack frame on sm_80 and sm_90; K = 2 keeps a 32-48 byte frame.  For
   * more slices than SB the warp walks its row again (from L1/L2: one
   * orbit's rows are a few MB). */
  constexpr int SB = K >= 8 ? 1 : K == 1 ? 16 : 8 / K;
#define CTR_ROWS_ARGS d->seg, d->el, o0, n_orb, d->nc, d->ns, X, d->b, d->coef, d->valid, ax, D, sums, d->comp_dev, mode
  switch (d->warps_per_row)
    {
    case 8: orbit_rows<K, SB, 8><<<blocks, WARPS_PER_BLOCK * 32, 0, d->stream>>> (CTR_ROWS_ARGS); break;
    case 4: orbit_rows<K, SB, 4><<<blocks, WARPS_PER_BLOCK * 32, 0, d->stream>>> (CTR_ROWS_ARGS); break;
    case 2: orbit_rows<K, SB, 2><<<blocks, WARPS_PER_BLOCK * 32, 0, d->stream>>> (CTR_ROWS_ARGS); break;
    default: orbit_rows<K, SB, 1><<<blocks, WARPS_PER_BLOCK * 32, 0, d->stream>>> (CTR_ROWS_ARGS); break;
    }
#undef CTR_ROWS_ARGS
  return ctr_cuda_note (cudaGetLastError (), "kernel launch (orbit_rows)");
}

static cudaError_t
launch_rows (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax, float *D,
             double *sums, int mode)
{
  switch (d->K)
    {
    case 8: return launch_rows_k<8> (d, o0, n_orb, X, ax, D, sums, mode);
    case 4: return launch_rows_k<4> (d, o0, n_orb, X, ax, D, sums, mode);
    case 2: return launch_rows_k<2> (d, o0, n_orb, X, ax, D, sums, mode);
    default: return launch_rows_k<1> (d, o0, n_orb, X, ax, D, sums, mode);
    }
}

cudaError_t
ctr_cuda_scsr_launch_reduce (CtrCudaScsr *d, const float *scale, int nonneg)
{
  const unsigned long long n = (unsigned long long) d->nreps * d->ns;
  const unsigned bs = 256, blocks = (unsigned) ((n + bs - 1) / bs);
  if (blocks == 0)
    return cudaSuccess;
  switch (d->K)
    {
    case 8: reduce<8><<<blocks, bs, 0, d->stream>>> (d->X, d->D, d->nreps, d->ns, d->rep_pixel, d->rep_stab, scale, nonneg); break;
    case 4: reduce<4><<<blocks, bs, 0, d->stream>>> (d->X, d->D, d->nreps, d->ns, d->rep_pixel, d->rep_stab, scale, nonneg); break;
    case 2: reduce<2><<<blocks, bs, 0, d->stream>>> (d->X, d->D, d->nreps, d->ns, d->rep_pixel, d->rep_stab, scale, nonneg); break;
    default: reduce<1><<<blocks, bs, 0, d->stream>>> (d->X, d->D, d->nreps, d->ns, d->rep_pixel, d->rep_stab, scale, nonneg); break;
    }
  return ctr_cuda_note (cudaGetLastError (), "kernel launch (reduce)");
}

/* ------------------------------------------------------------- session -- */

extern "C" void
ctr_cuda_scsr_destroy (CtrCudaScsr *d)
{
  if (d == nullptr)
    return;
  /* Errors while freeing are ignored: nothing more can be done with them. */
  if (d->stream)
    cudaStreamSynchronize (d->stream);
  cudaFree (d->seg);
  cudaFree (d->el);
  cudaFree (d->rep_pixel);
  cudaFree (d->rep_stab);
  cudaFree (d->X);
  cudaFree (d->D);
  cudaFree (d->b);
  cudaFree (d->coef);
  cudaFree (d->valid);
  cudaFree (d->scale);
  cudaFree (d->ax);
  cudaFree (d->sums);
  cudaFree (d->comp_dev);
  ctr_cuda_scsr_free_blocked (d);
  for (int m = 0; m < 3; m++)
    for (int n = 0; n < 2; n++)
      if (d->gexec[m][n])
        cudaGraphExecDestroy (d->gexec[m][n]);
  if (d->rexec)
    cudaGraphExecDestroy (d->rexec);
  if (d->ev0) cudaEventDestroy (d->ev0);
  if (d->ev1) cudaEventDestroy (d->ev1);
  if (d->ev2) cudaEventDestroy (d->ev2);
  if (d->stream) cudaStreamDestroy (d->stream);
  ctr_cuda_clear_error ();
  free (d);
}

extern "C" size_t
ctr_cuda_scsr_device_bytes (const CtrCudaScsr *d)
{
  return d->bytes;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_create (const CtrCudaScsrDesc *desc, CtrCudaScsr **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  const unsigned K = desc->K;
  if (K != 1 && K != 2 && K != 4 && K != 8)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "symmetry group of order %u is not 1, 2, 4 or 8", K);
      return CTR_CUDA_UNAVAILABLE;
    }
  long long *seg_host = nullptr;       /* the host's part-by-part rows, merged on the device */
  Elem *el_host = nullptr;
  CtrCudaScsr *d = (CtrCudaScsr *) calloc (1, sizeof *d);
  if (d == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "host allocation of the CUDA session failed");
      return CTR_CUDA_NO_MEMORY;
    }
  d->K = K;
  d->no = desc->n_orbits;
  d->nc = desc->n_cols;
  d->nreps = desc->n_reps;
  d->ns = desc->ns;
  d->with_scale = desc->with_scale;
  {
    const char *env = getenv ("CTR_CUDA_GRAPHS");
    d->use_graphs = env == nullptr || strcmp (env, "0") != 0;
    const char *wpr = getenv ("CTR_CUDA_WARPS_PER_ROW");
    const int w = wpr ? atoi (wpr) : CTR_CUDA_DEFAULT_WARPS_PER_ROW;
    d->warps_per_row = w == 1 || w == 2 || w == 4 || w == 8 ? (unsigned) w : CTR_CUDA_DEFAULT_WARPS_PER_ROW;
  }
  d->lane_size = (size_t) d->nc * d->ns * K;
  d->psize = (size_t) d->nreps * d->ns * K;
  d->psize1 = (size_t) d->nreps * K;
  for (int a = 0; a < 8; a++)
    for (int c = 0; c < 8; c++)
      d->comp.c[a][c] = desc->compose[a * 8 + c];

  /* the host's rows come in P parts; the device keeps them merged (merge_parts) */
  const unsigned P = desc->n_parts ? desc->n_parts : 1;
  const unsigned long long rows = (unsigned long long) d->no * d->nc;
  const size_t n_seg_host = (size_t) rows * P * K + 1, n_seg = (size_t) rows * K + 1;
  const size_t lane_all = d->lane_size * d->no;
  const size_t scale_n = desc->with_scale == 2 ? d->psize1 * d->no : desc->with_scale == 1 ? d->psize1 : 0;
  const size_t need = n_seg * 8 + desc->nnz * 8 + d->psize1 * 4 + d->nreps
                      + 2 * d->psize * 4 + 4 * lane_all * 4 + scale_n * 4 + 16;
  /* the host's arrays pass through the device while the parts are merged */
  const size_t staging = P > 1 ? n_seg_host * 8 + desc->nnz * 8 : 0;
  st = ctr_cuda_check_free (need + staging, "the SCSR matrix and solver buffers", err);
  if (st != CTR_CUDA_OK)
    {
      free (d);
      return st;
    }
  d->bytes = need;
  CK (cudaStreamCreateWithFlags (&d->stream, cudaStreamNonBlocking));
  CK (cudaEventCreate (&d->ev0));
  CK (cudaEventCreate (&d->ev1));
  CK (cudaEventCreate (&d->ev2));
  CK (cudaMalloc ((void **) &d->seg, n_seg * 8));
  CK (cudaMalloc ((void **) &d->el, (desc->nnz ? desc->nnz : 1) * 8));
  CK (cudaMalloc ((void **) &d->rep_pixel, d->psize1 * 4 + 4));
  CK (cudaMalloc ((void **) &d->rep_stab, d->nreps + 1));
  CK (cudaMalloc ((void **) &d->X, d->psize * 4 + 4));
  CK (cudaMalloc ((void **) &d->D, d->psize * 4 + 4));
  CK (cudaMalloc ((void **) &d->b, lane_all * 4 + 4));
  CK (cudaMalloc ((void **) &d->coef, lane_all * 4 + 4));
  CK (cudaMalloc ((void **) &d->valid, lane_all * 4 + 4));
  CK (cudaMalloc ((void **) &d->ax, lane_all * 4 + 4));
  CK (cudaMalloc ((void **) &d->sums, 2 * sizeof (double)));
  CK (cudaMalloc ((void **) &d->comp_dev, sizeof d->comp));
  CK (cudaMemcpyAsync (d->comp_dev, &d->comp, sizeof d->comp, cudaMemcpyHostToDevice, d->stream));
  if (scale_n)
    CK (cudaMalloc ((void **) &d->scale, scale_n * 4));
  if (P > 1)
    {
      CK (cudaMalloc ((void **) &seg_host, n_seg_host * 8));
      CK (cudaMalloc ((void **) &el_host, (desc->nnz ? desc->nnz : 1) * 8));
      CK (cudaMemcpyAsync (seg_host, desc->seg_ptr, n_seg_host * 8, cudaMemcpyHostToDevice, d->stream));
      if (desc->nnz)
        CK (cudaMemcpyAsync (el_host, desc->elems, desc->nnz * 8, cudaMemcpyHostToDevice, d->stream));
      CK (launch_merge_parts (K, seg_host, el_host, rows, P, d->seg, d->el, d->stream));
      CK (cudaStreamSynchronize (d->stream));
      CK (cudaFree (seg_host));
      seg_host = nullptr;
      CK (cudaFree (el_host));
      el_host = nullptr;
    }
  else
    {
      CK (cudaMemcpyAsync (d->seg, desc->seg_ptr, n_seg * 8, cudaMemcpyHostToDevice, d->stream));
      if (desc->nnz)
        CK (cudaMemcpyAsync (d->el, desc->elems, desc->nnz * 8, cudaMemcpyHostToDevice, d->stream));
    }
  CK (cudaMemcpyAsync (d->rep_pixel, desc->rep_pixel, d->psize1 * 4, cudaMemcpyHostToDevice, d->stream));
  CK (cudaMemcpyAsync (d->rep_stab, desc->rep_stabilised, d->nreps, cudaMemcpyHostToDevice, d->stream));
  CK (cudaMemsetAsync (d->X, 0, d->psize * 4 + 4, d->stream));
  CK (cudaMemsetAsync (d->D, 0, d->psize * 4 + 4, d->stream));
  CK (cudaMemsetAsync (d->b, 0, lane_all * 4 + 4, d->stream));
  CK (cudaMemsetAsync (d->coef, 0, lane_all * 4 + 4, d->stream));
  CK (cudaMemsetAsync (d->valid, 0, lane_all * 4 + 4, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  *out = d;
  return CTR_CUDA_OK;
fail:
  cudaFree (seg_host);
  cudaFree (el_host);
  ctr_cuda_scsr_destroy (d);
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_upload (CtrCudaScsr *d, CtrCudaBuf which, const float *host, size_t n, char *err)
{
  return ctr_cuda_scsr_upload_part (d, which, 0, host, n, n, err);
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_upload_part (CtrCudaScsr *d, CtrCudaBuf which, size_t offset, const float *host, size_t n,
                           size_t whole, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float *dst = nullptr;
  size_t cap = 0;
  switch (which)
    {
    case CTR_CUDA_BUF_X: dst = d->X; cap = d->psize; break;
    case CTR_CUDA_BUF_B: dst = d->b; cap = d->lane_size * d->no; break;
    case CTR_CUDA_BUF_COEF: dst = d->coef; cap = d->lane_size * d->no; break;
    case CTR_CUDA_BUF_VALID: dst = d->valid; cap = d->lane_size * d->no; break;
    case CTR_CUDA_BUF_SCALE:
      dst = d->scale;
      cap = d->with_scale == 2 ? d->psize1 * d->no : d->with_scale == 1 ? d->psize1 : 0;
      break;
    case CTR_CUDA_BUF_AX: break;   /* the kernels' output: not uploaded */
    }
  if (dst == nullptr || whole != cap || offset > cap || n > cap - offset)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "upload of buffer %d: floats %zu + %zu of %zu given, %zu held",
                (int) which, offset, n, whole, cap);
      return CTR_CUDA_UNAVAILABLE;
    }
  CK (cudaMemcpyAsync (dst + offset, host, n * 4, cudaMemcpyHostToDevice, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" void *
ctr_cuda_scsr_stream (CtrCudaScsr *d)
{
  return (void *) d->stream;
}

extern "C" float *
ctr_cuda_scsr_buffer (CtrCudaScsr *d, CtrCudaBuf which, size_t *n)
{
  const size_t lanes = d->lane_size * d->no;
  switch (which)
    {
    case CTR_CUDA_BUF_X: *n = d->psize; return d->X;
    case CTR_CUDA_BUF_B: *n = lanes; return d->b;
    case CTR_CUDA_BUF_COEF: *n = lanes; return d->coef;
    case CTR_CUDA_BUF_VALID: *n = lanes; return d->valid;
    case CTR_CUDA_BUF_AX: *n = lanes; return d->ax;
    case CTR_CUDA_BUF_SCALE:
      *n = d->with_scale == 2 ? d->psize1 * d->no : d->with_scale == 1 ? d->psize1 : 0;
      return *n > 0 ? d->scale : nullptr;
    }
  *n = 0;
  return nullptr;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_download_x (CtrCudaScsr *d, float *X, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (X, d->X, d->psize * 4, cudaMemcpyDeviceToHost, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

static CtrCudaStatus
check_orbits (const CtrCudaScsr *d, unsigned o0, unsigned n_orb, char *err)
{
  if (o0 > d->no || n_orb > d->no - o0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "orbits %u + %u of %u", o0, n_orb, d->no);
      return CTR_CUDA_INVALID;
    }
  return CTR_CUDA_OK;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_forward (CtrCudaScsr *d, float *ax, char *err)
{
  return ctr_cuda_scsr_forward_orbits (d, 0, d->no, ax, err);
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_forward_queue (CtrCudaScsr *d, unsigned o0, unsigned n_orb, char *err)
{
  CtrCudaStatus st = check_orbits (d, o0, n_orb, err);
  if (st != CTR_CUDA_OK)
    return st;
  if (d->use_blocked)
    CK (ctr_cuda_blocked_enqueue (d, o0, n_orb, d->X, d->ax));
  else
    CK (launch_rows (d, o0, n_orb, d->X, d->ax, nullptr, nullptr, MODE_FORWARD));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_forward_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, float *ax, char *err)
{
  CtrCudaStatus st = ctr_cuda_scsr_forward_queue (d, o0, n_orb, err);
  if (st != CTR_CUDA_OK)
    return st;
  CK (cudaMemcpyAsync (ax, d->ax + d->lane_size * o0, d->lane_size * n_orb * 4, cudaMemcpyDeviceToHost, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_adjoint (CtrCudaScsr *d, char *err)
{
  return ctr_cuda_scsr_adjoint_orbits (d, 0, d->no, err);
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_adjoint_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, char *err)
{
  CtrCudaStatus st = check_orbits (d, o0, n_orb, err);
  if (st != CTR_CUDA_OK)
    return st;
  CK (cudaMemsetAsync (d->X, 0, d->psize * 4, d->stream));
  CK (cudaMemsetAsync (d->D, 0, d->psize * 4, d->stream));
  if (d->use_blocked)
    CK (ctr_cuda_blocked_enqueue (d, o0, n_orb, nullptr, nullptr));
  else
    CK (launch_rows (d, o0, n_orb, nullptr, nullptr, d->D, nullptr, MODE_SOLVE));
  CK (ctr_cuda_scsr_launch_reduce (d, nullptr, 0));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_step_orbits (CtrCudaScsr *d, unsigned o0, unsigned n_orb, int into_x, int with_scale, int nonneg,
                           char *err)
{
  CtrCudaStatus st = check_orbits (d, o0, n_orb, err);
  if (st != CTR_CUDA_OK)
    return st;
  if (with_scale && d->with_scale != 1)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "a scaled step needs a session with one scale map");
      return CTR_CUDA_INVALID;
    }
  CK (cudaMemsetAsync (d->D, 0, d->psize * 4, d->stream));
  /* every orbit of the range against the same X, into D */
  if (d->use_blocked)
    CK (ctr_cuda_blocked_enqueue (d, o0, n_orb, d->X, nullptr));
  else
    CK (launch_rows (d, o0, n_orb, d->X, nullptr, d->D, nullptr, MODE_SOLVE));
  if (!into_x)
    CK (cudaMemsetAsync (d->X, 0, d->psize * 4, d->stream));   /* X ← the consistent D */
  CK (ctr_cuda_scsr_launch_reduce (d, into_x && with_scale ? d->scale : nullptr, into_x && nonneg));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The launches of one iteration, in stream order. */
static cudaError_t
enqueue_iteration (CtrCudaScsr *d, CtrCudaMethod method, int nonneg)
{
  cudaError_t e;
  if (method == CTR_CUDA_SIRT)
    {
      e = d->use_blocked ? ctr_cuda_blocked_enqueue (d, 0, d->no, d->X, nullptr)
                         : launch_rows (d, 0, d->no, d->X, nullptr, d->D, nullptr, MODE_SOLVE);
      if (e != cudaSuccess)
        return e;
      return ctr_cuda_scsr_launch_reduce (d, d->scale, nonneg);
    }
  for (unsigned o = 0; o < d->no; o++)
    {
      e = d->use_blocked ? ctr_cuda_blocked_enqueue (d, o, 1, d->X, nullptr)
                         : launch_rows (d, o, 1, d->X, nullptr, d->D, nullptr, MODE_SOLVE);
      if (e != cudaSuccess)
        return e;
      if ((e = ctr_cuda_scsr_launch_reduce (d, method == CTR_CUDA_SART ? d->scale + d->psize1 * o : nullptr, nonneg)) != cudaSuccess)
        return e;
    }
  return cudaSuccess;
}

/* The residual's launches: the sums zeroed, then one forward pass over
 * every orbit that reduces Σ valid (b − a)² and Σ valid b² (MODE_RESIDUAL). */
static cudaError_t
enqueue_residual (CtrCudaScsr *d)
{
  cudaError_t e = ctr_cuda_note (cudaMemsetAsync (d->sums, 0, 2 * sizeof (double), d->stream), "cudaMemsetAsync");
  if (e != cudaSuccess)
    return e;
  return launch_rows (d, 0, d->no, d->X, nullptr, nullptr, d->sums, MODE_RESIDUAL);
}

/* Captures @what (the iteration, or the residual) into a graph; on any
 * failure the stream is left out of capture and the error returned (the
 * caller launches directly from then on). */
static cudaError_t
capture (CtrCudaScsr *d, CtrCudaMethod method, int nonneg, bool residual, cudaGraphExec_t *out)
{
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamBeginCapture (d->stream, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess)
    return e;
  cudaError_t e_enq = residual ? enqueue_residual (d) : enqueue_iteration (d, method, nonneg);
  e = cudaStreamEndCapture (d->stream, &graph);
  if (e_enq != cudaSuccess || e != cudaSuccess)
    {
      if (graph)
        cudaGraphDestroy (graph);
      return e_enq != cudaSuccess ? e_enq : e;
    }
  e = cudaGraphInstantiate (out, graph, 0);
  cudaGraphDestroy (graph);
  if (e != cudaSuccess)
    *out = nullptr;
  return e;
}

/* The graph of @what, captured on first use; nullptr (graphs off from now
 * on) when capture is refused. */
static cudaGraphExec_t
graph_of (CtrCudaScsr *d, CtrCudaMethod method, int nonneg, bool residual)
{
  if (!d->use_graphs)
    return nullptr;
  cudaGraphExec_t *slot = residual ? &d->rexec : &d->gexec[method][nonneg ? 1 : 0];
  if (*slot == nullptr && capture (d, method, nonneg, residual, slot) != cudaSuccess)
    {
      d->use_graphs = 0;
      ctr_cuda_clear_error ();
    }
  return *slot;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_iterate (CtrCudaScsr *d, CtrCudaMethod method, int nonneg, double *update_ms, double *residual,
                       double *residual_ms, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float ms = 0.f, rms = 0.f;
  double sums[2] = { 0, 0 };
  if ((method == CTR_CUDA_SART && d->with_scale != 2) || (method == CTR_CUDA_SIRT && d->with_scale != 1)
      || (int) method < 0 || (int) method > 2)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "the session was created without the scale this method needs");
      return CTR_CUDA_INVALID;
    }
  cudaGraphExec_t g = graph_of (d, method, nonneg, false);
  cudaGraphExec_t gr = residual ? graph_of (d, method, nonneg, true) : nullptr;
  CK (cudaEventRecord (d->ev0, d->stream));
  if (g)
    CK (cudaGraphLaunch (g, d->stream));
  else
    CK (enqueue_iteration (d, method, nonneg));
  CK (cudaEventRecord (d->ev1, d->stream));
  if (residual)
    {
      if (gr)
        CK (cudaGraphLaunch (gr, d->stream));
      else
        CK (enqueue_residual (d));
      CK (cudaEventRecord (d->ev2, d->stream));
      CK (cudaMemcpyAsync (sums, d->sums, sizeof sums, cudaMemcpyDeviceToHost, d->stream));
    }
  CK (cudaStreamSynchronize (d->stream));
  CK (cudaEventElapsedTime (&ms, d->ev0, d->ev1));
  if (residual)
    CK (cudaEventElapsedTime (&rms, d->ev1, d->ev2));
  if (update_ms)
    *update_ms = ms;
  if (residual_ms)
    *residual_ms = rms;
  if (residual)
    *residual = sums[1] > 0 ? sqrt (sums[0] / sums[1]) : sqrt (sums[0]);
  return CTR_CUDA_OK;
fail:
  return st;
}
