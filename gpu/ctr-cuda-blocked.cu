/* ctr-cuda-blocked.cu — the SCSR products and subset updates walked the
 * cuART way (Yu et al. 2018, §4, Algorithm 2): one thread per row of a
 * dense, column-major sub-matrix of the orbit-level blocked layout
 * (core/sysmat/ctr-blocking.h, CTR_BLOCKING_ORBIT: no sub-matrix mixes
 * orbits, so one orbit subset's update reads only its own blocks).
 *
 * At step c the 32 threads of a warp read w, rep and slot of cells
 * [c·n_rows + i] — consecutive addresses, coalesced — and thanks to the
 * round-robin rotation of the rows (cuART §3.2) rarely the same pixel.  A
 * blocked row holds one stored row, or two (ray0 before its junction, ray1
 * from it on, in unrotated order); each element serves the K lanes of its
 * orbit (slot compose[g][h] of its rep: one vector load of the rep's K
 * slots, then a K×K selection in registers), for SB slices at once.
 *
 *   forward  ax[ray][s][g] += Σ w · X[rep][s][slot]: a stored row's elements
 *            lie in two sub-matrices launched together (Sub_SM1 and the
 *            fold), so the two partial sums meet with atomicAdd (ax zeroed
 *            first).
 *   solve    v = coef ∘ (b − ax) per lane of ray0 and ray1, then the
 *            transposed product D[rep][s][slot] += w · v (atomicAdd, as the
 *            rows kernel: threads of different warps are not in step, so
 *            the rotation alone does not make the scatter race-free on a
 *            GPU that schedules warps independently).
 * One orbit's update: memset ax, forward, solve, the shared reduce.
 */
#include "ctr-cuda-scsr-private.cuh"

#include <stdlib.h>
#include <string.h>

template <int K, int SB>
__global__ void __launch_bounds__ (256)
blocked_pass (const BlkDesc *__restrict__ desc, unsigned k0, unsigned k1, unsigned row_base, unsigned n_rows,
              const uint32_t *__restrict__ ray0, const uint32_t *__restrict__ ray1,
              const uint32_t *__restrict__ junction, const uint32_t *__restrict__ rep,
              const uint8_t *__restrict__ slot, const float *__restrict__ w, unsigned ns,
              const float *__restrict__ X, const float *__restrict__ b, const float *__restrict__ coef,
              float *__restrict__ ax, float *__restrict__ D, const unsigned char *__restrict__ comp, int mode)
{
  __shared__ unsigned char sc[8][8];
  if (threadIdx.x < 64)
    sc[threadIdx.x / 8][threadIdx.x % 8] = comp[threadIdx.x];
  __syncthreads ();
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n_rows)
    return;
  const unsigned gr = row_base + t;              /* row of the concatenated layout */
  unsigned k = k0;
  while (k + 1 < k1 && gr >= desc[k].row0 + desc[k].n_rows)
    k++;
  const unsigned i = gr - desc[k].row0, n = desc[k].n_rows, width = desc[k].width;
  const unsigned long long cell0 = desc[k].cell0;
  const unsigned rot = width ? i % width : 0, jn = junction[gr];
  const uint32_t r0 = ray0[gr], r1 = ray1[gr];
  const size_t stride = (size_t) ns * K;
  for (unsigned s0 = 0; s0 < ns; s0 += SB)
    {
      const unsigned sb = min ((unsigned) SB, ns - s0);
      if (mode == MODE_FORWARD)
        {
          float a0[SB * K], a1[SB * K];
#pragma unroll
          for (int q = 0; q < SB * K; q++)
            a0[q] = a1[q] = 0.f;
          for (unsigned c = 0; c < width; c++)
            {
              const size_t q = cell0 + (size_t) c * n + i;
              const float wq = w[q];
              if (wq == 0.f)
                continue;                                /* padding */
              const float *xr = X + (size_t) rep[q] * stride + (size_t) s0 * K;
              const unsigned h = slot[q];
              const unsigned orig = c >= rot ? c - rot : c + width - rot;
              const bool first = orig < jn;
#pragma unroll
              for (int s = 0; s < SB; s++)
                if (s < (int) sb)
                  {
                    float xv[K];
                    load_slots<K> (xr + s * K, xv);
#pragma unroll
                    for (int g = 0; g < K; g++)
                      {
                        float v = 0.f;
#pragma unroll
                        for (int qq = 0; qq < K; qq++)
                          v = sc[g][h] == qq ? xv[qq] : v;
                        a0[s * K + g] += first ? wq * v : 0.f;
                        a1[s * K + g] += first ? 0.f : wq * v;
                      }
                  }
            }
#pragma unroll
          for (int s = 0; s < SB; s++)
            if (s < (int) sb)
#pragma unroll
              for (int g = 0; g < K; g++)
                {
                  atomicAdd (ax + ((size_t) r0 * ns + s0 + s) * K + g, a0[s * K + g]);
                  if (r1 != 0xffffffffu)
                    atomicAdd (ax + ((size_t) r1 * ns + s0 + s) * K + g, a1[s * K + g]);
                }
          continue;
        }
      /* SOLVE: the lane residuals of both stored rows, then the scatter */
      float v0[SB * K], v1[SB * K];
      bool any = false;
#pragma unroll
      for (int s = 0; s < SB; s++)
#pragma unroll
        for (int g = 0; g < K; g++)
          {
            v0[s * K + g] = v1[s * K + g] = 0.f;
            if (s < (int) sb)
              {
                const size_t l0 = ((size_t) r0 * ns + s0 + s) * K + g;
                v0[s * K + g] = coef[l0] * (b[l0] - (ax ? ax[l0] : 0.f));
                if (r1 != 0xffffffffu)
                  {
                    const size_t l1 = ((size_t) r1 * ns + s0 + s) * K + g;
                    v1[s * K + g] = coef[l1] * (b[l1] - (ax ? ax[l1] : 0.f));
                  }
              }
            any |= v0[s * K + g] != 0.f || v1[s * K + g] != 0.f;
          }
      if (!any)
        continue;
      for (unsigned c = 0; c < width; c++)
        {
          const size_t q = cell0 + (size_t) c * n + i;
          const float wq = w[q];
          if (wq == 0.f)
            continue;
          float *dr = D + (size_t) rep[q] * stride + (size_t) s0 * K;
          const unsigned h = slot[q];
          const unsigned orig = c >= rot ? c - rot : c + width - rot;
          const bool first = orig < jn;
#pragma unroll
          for (int s = 0; s < SB; s++)
            if (s < (int) sb)
              {
                float u[K];                              /* slot qq gets lane g's residual when compose[g][h] = qq */
#pragma unroll
                for (int qq = 0; qq < K; qq++)
                  {
                    float val = 0.f;
#pragma unroll
                    for (int g = 0; g < K; g++)
                      val = sc[g][h] == qq ? (first ? v0[s * K + g] : v1[s * K + g]) : val;
                    u[qq] = val;
                  }
                add_slots<K> (dr + s * K, wq, u);
              }
        }
    }
}

template <int K>
static cudaError_t
launch_pass_k (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax, int mode)
{
  const DevBlocked *bl = &d->blk;
  const unsigned k0 = bl->orbit_first[o0], k1 = bl->orbit_first[o0 + n_orb];
  if (k1 <= k0)
    return cudaSuccess;
  const unsigned row_base = bl->desc_host[k0].row0;
  const unsigned rows = bl->desc_host[k1 - 1].row0 + bl->desc_host[k1 - 1].n_rows - row_base;
  if (rows == 0)
    return cudaSuccess;
  constexpr int SB = K >= 8 ? 1 : K == 1 ? 16 : 8 / K;
  blocked_pass<K, SB><<<(rows + 255) / 256, 256, 0, d->stream>>> (
      bl->desc, k0, k1, row_base, rows, bl->ray0, bl->ray1, bl->junction, bl->rep, bl->slot, bl->w, d->ns, X,
      d->b, d->coef, ax, d->D, d->comp_dev, mode);
  return ctr_cuda_note (cudaGetLastError (), "kernel launch (blocked_pass)");
}

static cudaError_t
launch_pass (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax, int mode)
{
  switch (d->K)
    {
    case 8: return launch_pass_k<8> (d, o0, n_orb, X, ax, mode);
    case 4: return launch_pass_k<4> (d, o0, n_orb, X, ax, mode);
    case 2: return launch_pass_k<2> (d, o0, n_orb, X, ax, mode);
    default: return launch_pass_k<1> (d, o0, n_orb, X, ax, mode);
    }
}

cudaError_t
ctr_cuda_blocked_enqueue (CtrCudaScsr *d, unsigned o0, unsigned n_orb, const float *X, float *ax_out)
{
  cudaError_t e;
  float *ax = d->ax + (size_t) o0 * d->lane_size;
  if (X != nullptr)
    {
      if ((e = ctr_cuda_note (cudaMemsetAsync (ax, 0, (size_t) n_orb * d->lane_size * 4, d->stream), "cudaMemsetAsync"))
          != cudaSuccess)
        return e;
      if ((e = launch_pass (d, o0, n_orb, X, d->ax, MODE_FORWARD)) != cudaSuccess)
        return e;
      if (ax_out != nullptr)
        return cudaSuccess;                      /* the forward product alone */
    }
  return launch_pass (d, o0, n_orb, X, X != nullptr ? d->ax : nullptr, MODE_SOLVE);
}

void
ctr_cuda_scsr_free_blocked (CtrCudaScsr *d)
{
  DevBlocked *bl = &d->blk;
  cudaFree (bl->desc);
  cudaFree (bl->ray0);
  cudaFree (bl->ray1);
  cudaFree (bl->junction);
  cudaFree (bl->rep);
  cudaFree (bl->slot);
  cudaFree (bl->w);
  free (bl->desc_host);
  free (bl->orbit_first);
  d->bytes -= bl->bytes;
  memset (bl, 0, sizeof *bl);
  d->use_blocked = 0;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_set_blocked (CtrCudaScsr *d, const CtrCudaBlock *blocks, unsigned n_blocks,
                           const unsigned *orbit_first, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  DevBlocked *bl = &d->blk;
  size_t rows = 0, cells = 0;
  if (bl->desc_host != nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "the blocked layout is already on the device");
      return CTR_CUDA_INVALID;
    }
  if (orbit_first == nullptr || orbit_first[0] != 0 || orbit_first[d->no] != n_blocks)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "the blocked layout is not orbit-level (%u blocks, %u orbits)", n_blocks, d->no);
      return CTR_CUDA_INVALID;
    }
  for (unsigned k = 0; k < n_blocks; k++)
    {
      rows += blocks[k].n_rows;
      cells += (size_t) blocks[k].n_rows * blocks[k].width;
    }
  const size_t need = rows * 12 + cells * 9 + (size_t) n_blocks * sizeof (BlkDesc) + 64;
  if ((st = ctr_cuda_check_free (need, "the blocked layout", err)) != CTR_CUDA_OK)
    return st;
  bl->desc_host = (BlkDesc *) calloc (n_blocks ? n_blocks : 1, sizeof (BlkDesc));
  bl->orbit_first = (unsigned *) malloc ((d->no + 1) * sizeof (unsigned));
  if (bl->desc_host == nullptr || bl->orbit_first == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "host allocation of the blocked layout's index failed");
      st = CTR_CUDA_NO_MEMORY;
      goto fail;
    }
  memcpy (bl->orbit_first, orbit_first, (d->no + 1) * sizeof (unsigned));
  bl->n_blocks = n_blocks;
  {
    size_t r = 0, c = 0;
    for (unsigned k = 0; k < n_blocks; k++)
      {
        bl->desc_host[k] = BlkDesc { (unsigned) r, blocks[k].n_rows, blocks[k].width, blocks[k].orbit, c };
        r += blocks[k].n_rows;
        c += (size_t) blocks[k].n_rows * blocks[k].width;
      }
  }
  CK (cudaMalloc ((void **) &bl->desc, (n_blocks ? n_blocks : 1) * sizeof (BlkDesc)));
  CK (cudaMalloc ((void **) &bl->ray0, rows * 4 + 4));
  CK (cudaMalloc ((void **) &bl->ray1, rows * 4 + 4));
  CK (cudaMalloc ((void **) &bl->junction, rows * 4 + 4));
  CK (cudaMalloc ((void **) &bl->rep, cells * 4 + 4));
  CK (cudaMalloc ((void **) &bl->slot, cells + 4));
  CK (cudaMalloc ((void **) &bl->w, cells * 4 + 4));
  CK (cudaMemcpyAsync (bl->desc, bl->desc_host, n_blocks * sizeof (BlkDesc), cudaMemcpyHostToDevice, d->stream));
  for (unsigned k = 0; k < n_blocks; k++)
    {
      const CtrCudaBlock *h = &blocks[k];
      const size_t r = bl->desc_host[k].row0, c = bl->desc_host[k].cell0, nc = (size_t) h->n_rows * h->width;
      if (h->n_rows == 0)
        continue;
      CK (cudaMemcpyAsync (bl->ray0 + r, h->ray0, h->n_rows * 4, cudaMemcpyHostToDevice, d->stream));
      CK (cudaMemcpyAsync (bl->ray1 + r, h->ray1, h->n_rows * 4, cudaMemcpyHostToDevice, d->stream));
      CK (cudaMemcpyAsync (bl->junction + r, h->junction, h->n_rows * 4, cudaMemcpyHostToDevice, d->stream));
      if (nc)
        {
          CK (cudaMemcpyAsync (bl->rep + c, h->rep, nc * 4, cudaMemcpyHostToDevice, d->stream));
          CK (cudaMemcpyAsync (bl->slot + c, h->slot, nc, cudaMemcpyHostToDevice, d->stream));
          CK (cudaMemcpyAsync (bl->w + c, h->w, nc * 4, cudaMemcpyHostToDevice, d->stream));
        }
    }
  CK (cudaStreamSynchronize (d->stream));
  bl->bytes = need;
  d->bytes += need;
  return CTR_CUDA_OK;
fail:
  /* no half-made layout: the session is as before the call */
  ctr_cuda_scsr_free_blocked (d);
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_scsr_use_blocked (CtrCudaScsr *d, int on, char *err)
{
  if (on && d->blk.desc_host == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "no blocked layout on the device (ctr_cuda_scsr_set_blocked)");
      return CTR_CUDA_INVALID;
    }
  if (on != d->use_blocked)
    for (int m = 0; m < 3; m++)
      for (int n = 0; n < 2; n++)
        if (d->gexec[m][n])
          {
            /* captured with the other variant */
            cudaGraphExecDestroy (d->gexec[m][n]);
            d->gexec[m][n] = nullptr;
          }
  d->use_blocked = on != 0;
  return CTR_CUDA_OK;
}
