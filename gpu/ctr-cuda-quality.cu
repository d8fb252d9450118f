/* ctr-cuda-quality.cu — the metrics against a reference where the image is
 * (see ctr-cuda-quality-api.h; issue 37).
 *
 * One kernel over a grid of (blocks, slices): each thread walks its slice's
 * pixels (grid-stride in x), adding the squared difference of a pixel in
 * the disc and, for a pixel at least 5 from every border, its SSIM term
 * (Wang, Bovik, Sheikh & Simoncelli 2004, IEEE TIP 13(4) 600-612, Eq. 13
 * with the 11 × 11 Gaussian window σ = 1.5 of §III.B), computed as
 * core/quality/ctr-metrics.c does: each of the 11 rows of the window
 * filtered along x in tap order, the row sums filtered along y in tap
 * order, all in double, moments about the reference slice's mean.  Each
 * block sums its threads' terms in a tree in shared memory; a second kernel
 * of one block per slice sums the blocks' partials in block order (the same
 * order on every run, no atomics); 2 doubles a slice come back.
 */
#include "ctr-cuda-common.cuh"
#include "ctr-cuda-quality-api.h"

#include <stdlib.h>

#define QUAL_BLOCK 256
#define QUAL_MAX_BLOCKS 64   /* per slice */

struct CtrCudaQuality {
  cudaStream_t stream;
  unsigned nx, ny, nz, nb;
  float *ref;        /* nx·ny·nz */
  float *mask;       /* nx·ny, NULL: every pixel */
  double *offset;    /* nz */
  double *partial;   /* [nz][nb][2] */
  double *sums;      /* [2][nz] */
  double *host;      /* [2][nz], host memory */
  double w[CTR_CUDA_SSIM_TAPS];
};

struct QualArgs {
  const float *x, *ref, *mask;
  const double *offset;
  unsigned nx, ny;
  double c1, c2;
  double w[CTR_CUDA_SSIM_TAPS];
};

/* The SSIM term of pixel (ix, iy) of the slice @xs against @rs (ctr-metrics.c's
 * two passes for one output pixel). */
__device__ static double
ssim_term (const QualArgs &a, const float *xs, const float *rs, double off, unsigned ix, unsigned iy)
{
  double m[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
  for (int ky = 0; ky < CTR_CUDA_SSIM_TAPS; ky++)
    {
      const size_t row = (size_t) (iy - CTR_CUDA_SSIM_RADIUS + ky) * a.nx;
      double h[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
      for (int kx = 0; kx < CTR_CUDA_SSIM_TAPS; kx++)
        {
          const size_t j = row + ix - CTR_CUDA_SSIM_RADIUS + kx;
          const float xv = a.mask != nullptr && a.mask[j] == 0.0f ? 0.0f : xs[j];
          const double va = xv - off, vb = rs[j] - off;
          const double w = a.w[kx];
          h[0] += w * va;
          h[1] += w * vb;
          h[2] += w * (va * va);
          h[3] += w * (vb * vb);
          h[4] += w * (va * vb);
        }
      for (int c = 0; c < 5; c++)
        m[c] += a.w[ky] * h[c];
    }
  const double sx = m[0], sy = m[1];
  /* variances are >= 0; rounding must not make them negative */
  const double vx = fmax (m[2] - sx * sx, 0.0), vy = fmax (m[3] - sy * sy, 0.0);
  const double vxy = m[4] - sx * sy;
  const double ux = sx + off, uy = sy + off;
  const double a1 = 2 * ux * uy + a.c1, a2 = 2 * vxy + a.c2;
  const double b1 = ux * ux + uy * uy + a.c1, b2 = vx + vy + a.c2;
  return (a1 * a2) / (b1 * b2);
}

/* The block's pairs (s0[t], s1[t]), t < @n (a power of two, the block's
 * size), summed in a tree into (s0[0], s1[0]); every thread of the block
 * calls it. */
__device__ static void
block_sum2 (double *s0, double *s1, unsigned n)
{
  __syncthreads ();
  for (unsigned h = n / 2; h > 0; h >>= 1)
    {
      if (threadIdx.x < h)
        {
          s0[threadIdx.x] += s0[threadIdx.x + h];
          s1[threadIdx.x] += s1[threadIdx.x + h];
        }
      __syncthreads ();
    }
}

__global__ void __launch_bounds__ (QUAL_BLOCK)
quality_k (QualArgs a, double *partial)
{
  __shared__ double s[2][QUAL_BLOCK];
  const unsigned z = blockIdx.y;
  const size_t per = (size_t) a.nx * a.ny;
  const float *xs = a.x + z * per, *rs = a.ref + z * per;
  const double off = a.offset[z];
  const int with_ssim = a.c1 != 0.0 || a.c2 != 0.0;
  const unsigned R = CTR_CUDA_SSIM_RADIUS;
  double acc[2] = { 0.0, 0.0 };
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < per; i += (size_t) gridDim.x * blockDim.x)
    {
      const unsigned ix = (unsigned) (i % a.nx), iy = (unsigned) (i / a.nx);
      if (a.mask == nullptr || a.mask[i] != 0.0f)
        {
          const double d = (double) xs[i] - (double) rs[i];
          acc[0] += d * d;
        }
      if (with_ssim && ix >= R && ix + R < a.nx && iy >= R && iy + R < a.ny)
        acc[1] += ssim_term (a, xs, rs, off, ix, iy);
    }
  for (int k = 0; k < 2; k++)
    s[k][threadIdx.x] = acc[k];
  block_sum2 (s[0], s[1], QUAL_BLOCK);
  if (threadIdx.x == 0)
    for (int k = 0; k < 2; k++)
      partial[((size_t) z * gridDim.x + blockIdx.x) * 2 + k] = s[k][0];
}

/* One block a slice: its @nb partials in block order. */
__global__ void __launch_bounds__ (QUAL_MAX_BLOCKS)
quality_final_k (unsigned nb, unsigned nz, const double *partial, double *sums)
{
  __shared__ double s[2][QUAL_MAX_BLOCKS];
  const unsigned z = blockIdx.x;
  for (int k = 0; k < 2; k++)
    s[k][threadIdx.x] = threadIdx.x < nb ? partial[((size_t) z * nb + threadIdx.x) * 2 + k] : 0.0;
  block_sum2 (s[0], s[1], QUAL_MAX_BLOCKS);
  if (threadIdx.x == 0)
    for (int k = 0; k < 2; k++)
      sums[(size_t) k * nz + z] = s[k][0];
}

extern "C" void
ctr_cuda_quality_destroy (CtrCudaQuality *q)
{
  if (q == nullptr)
    return;
  cudaStreamSynchronize (q->stream);
  cudaFree (q->ref);
  cudaFree (q->mask);
  cudaFree (q->offset);
  cudaFree (q->partial);
  cudaFree (q->sums);
  ctr_cuda_clear_error ();
  free (q->host);
  free (q);
}

extern "C" CtrCudaStatus
ctr_cuda_quality_create (void *stream, const float *ref, const float *mask, const double *offset, const double *w,
                         unsigned nx, unsigned ny, unsigned nz, CtrCudaQuality **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  const size_t per = (size_t) nx * ny, n = per * nz;
  const size_t blocks = (per + QUAL_BLOCK - 1) / QUAL_BLOCK;
  CtrCudaQuality *q = (CtrCudaQuality *) calloc (1, sizeof *q);
  double *host = (double *) calloc (2 * (size_t) (nz > 0 ? nz : 1), sizeof (double));
  if (q == nullptr || host == nullptr)
    {
      free (q);
      free (host);
      snprintf (err, CTR_CUDA_ERR_LEN, "cannot allocate the metrics' state of %u slices", nz);
      return CTR_CUDA_NO_MEMORY;
    }
  q->stream = (cudaStream_t) stream;
  q->host = host;
  q->nx = nx, q->ny = ny, q->nz = nz;
  q->nb = blocks < 1 ? 1 : blocks < QUAL_MAX_BLOCKS ? (unsigned) blocks : QUAL_MAX_BLOCKS;
  for (int k = 0; k < CTR_CUDA_SSIM_TAPS; k++)
    q->w[k] = w[k];
  {
    const size_t need = n * sizeof (float) + (mask != nullptr ? per * sizeof (float) : 0)
                        + (size_t) nz * (1 + 2 * (size_t) q->nb + 2) * sizeof (double);
    if ((st = ctr_cuda_check_free (need, "the reference of the metrics", err)) != CTR_CUDA_OK)
      goto fail;
  }
  CK (cudaMalloc ((void **) &q->ref, (n > 0 ? n : 1) * sizeof (float)));
  CK (cudaMalloc ((void **) &q->offset, (nz > 0 ? nz : 1) * sizeof (double)));
  CK (cudaMalloc ((void **) &q->partial, ((size_t) nz * q->nb * 2 + 1) * sizeof (double)));
  CK (cudaMalloc ((void **) &q->sums, (2 * (size_t) nz + 1) * sizeof (double)));
  if (n > 0)
    CK (cudaMemcpyAsync (q->ref, ref, n * sizeof (float), cudaMemcpyHostToDevice, q->stream));
  if (nz > 0)
    CK (cudaMemcpyAsync (q->offset, offset, nz * sizeof (double), cudaMemcpyHostToDevice, q->stream));
  if (mask != nullptr)
    {
      CK (cudaMalloc ((void **) &q->mask, (per > 0 ? per : 1) * sizeof (float)));
      if (per > 0)
        CK (cudaMemcpyAsync (q->mask, mask, per * sizeof (float), cudaMemcpyHostToDevice, q->stream));
    }
  CK (cudaStreamSynchronize (q->stream));
  *out = q;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_quality_destroy (q);
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_quality_measure (CtrCudaQuality *q, const float *x, double c1, double c2, double *ssd, double *ssim_sum,
                          char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (q->nz == 0 || (size_t) q->nx * q->ny == 0)
    {
      for (unsigned z = 0; z < q->nz; z++)
        ssd[z] = ssim_sum[z] = 0.0;
      return CTR_CUDA_OK;
    }
  QualArgs a = {};
  a.x = x, a.ref = q->ref, a.mask = q->mask, a.offset = q->offset;
  a.nx = q->nx, a.ny = q->ny, a.c1 = c1, a.c2 = c2;
  for (int k = 0; k < CTR_CUDA_SSIM_TAPS; k++)
    a.w[k] = q->w[k];
  quality_k<<<dim3 (q->nb, q->nz), QUAL_BLOCK, 0, q->stream>>> (a, q->partial);
  CK_LAUNCH ();
  quality_final_k<<<q->nz, QUAL_MAX_BLOCKS, 0, q->stream>>> (q->nb, q->nz, q->partial, q->sums);
  CK_LAUNCH ();
  CK (cudaMemcpyAsync (q->host, q->sums, 2 * (size_t) q->nz * sizeof (double), cudaMemcpyDeviceToHost, q->stream));
  CK (cudaStreamSynchronize (q->stream));
  for (unsigned z = 0; z < q->nz; z++)
    {
      ssd[z] = q->host[z];
      ssim_sum[z] = q->host[q->nz + z];
    }
  return CTR_CUDA_OK;
fail:
  return st;
}
