/* ctr-cuda-vecops.cu — the device's vector operations (see
 * ctr-cuda-vecops-api.h; issue 37): what CGLS, PWLS and ASD-POCS do
 * besides the products, on vectors that stay in device memory for the run.
 *
 * Element-wise kernels: one thread per element.  Reductions: a grid of up
 * to RED_BLOCKS blocks (fixed by the length) walks the array (grid-stride),
 * each block sums its threads' partial sums in double in shared memory (a
 * tree), a second
 * kernel of one block sums the blocks' partials in block order: the same
 * order on every run (no atomics), then one copy of ≤ 3 doubles to the host.
 *
 * The penalties are those of core/solve/ctr-penalty.c, one thread per pixel
 * with every neighbour checked (the CPU's edge-column form for every pixel;
 * its interior loop computes the same terms in the same order with masks, so
 * GPU and CPU agree to float rounding): the neighbourhood penalty's gradient
 * and curvature (Huber's curvature and De Pierro's trick, Erdogan & Fessler
 * 1999), its value in double, and the total variation's gradient of Sidky &
 * Pan 2008 in double.
 */
#include "ctr-cuda-common.cuh"
#include "ctr-cuda-vecops-api.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VEC_BLOCK 256
#define RED_BLOCKS 256
#define DIAGONAL_WEIGHT 0.70710678118654752
#define ISO_WEIGHT 2.41421356237309505

/* CtrPenalty's values (core/recon/ctr-recon-types.h) */
enum { PEN_HYPERBOLA = 0, PEN_HUBER = 1, PEN_QUADRATIC = 2, PEN_ISOTROPIC = 3 };

struct CtrCudaVecs {
  cudaStream_t stream;
  double *partial;   /* [3][RED_BLOCKS] */
  double *sums;      /* 3 */
};

static inline unsigned
blocks_of (size_t n)
{
  return (unsigned) ((n + VEC_BLOCK - 1) / VEC_BLOCK);
}

/* ---------------------------------------------------------- element-wise -- */

__global__ void
vec_fill_k (size_t n, float *y, float value)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = value;
}

/* y = a x + b y, the forms with a or b = 1 as the host writes them */
__global__ void
vec_axpby_k (size_t n, float *__restrict__ y, float a, const float *__restrict__ x, float b)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (b == 1.0f)
    y[i] = __fadd_rn (y[i], __fmul_rn (a, x[i]));
  else if (a == 1.0f)
    y[i] = __fadd_rn (x[i], __fmul_rn (b, y[i]));
  else
    y[i] = __fadd_rn (__fmul_rn (a, x[i]), __fmul_rn (b, y[i]));
}

__global__ void
vec_mul_k (size_t n, float *__restrict__ y, const float *__restrict__ x)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] != 0.0f ? y[i] * x[i] : 0.0f;
}

__global__ void
vec_sqs_k (size_t n, float *__restrict__ X, const float *__restrict__ Z, const float *__restrict__ G,
           const float *__restrict__ GR, const float *__restrict__ CR, const float *__restrict__ Dd, float M,
           float beta, int nonneg)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float den = __fadd_rn (Dd[i], __fmul_rn (beta, CR[i]));
  float x = Z[i];
  if (den > 0.0f)
    x = __fadd_rn (x, __fsub_rn (__fmul_rn (M, G[i]), __fmul_rn (beta, GR[i])) / den);
  X[i] = nonneg && x < 0.0f ? 0.0f : x;
}

__global__ void
vec_extrapolate_k (size_t n, float *__restrict__ Z, const float *__restrict__ X, const float *__restrict__ Xold,
                   float c)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    Z[i] = __fadd_rn (X[i], __fmul_rn (c, __fsub_rn (X[i], Xold[i])));
}

/* dst[i] = src[idx[i]]: a permutation between an operator's native image
 * and the natural one (the SCSR operator's packed slots) */
__global__ void
vec_gather_k (size_t n, float *__restrict__ dst, const float *__restrict__ src, const uint32_t *__restrict__ idx)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[idx[i]];
}

/* ------------------------------------------------------------ reductions -- */

enum { RED_DOT = 0, RED_DIFF = 1, RED_NORMS = 2, RED_MAXABS = 3, RED_PENALTY = 4 };

struct RedArgs {
  int mode;
  size_t n;
  const float *a, *b, *c, *d, *w;
  /* RED_PENALTY */
  int kind;
  double delta;
  unsigned nx, ny;
};

__device__ static double
psi_d (int kind, double delta, double t)
{
  if (kind == PEN_HUBER)
    return fabs (t) <= delta ? 0.5 * t * t : delta * fabs (t) - 0.5 * delta * delta;
  if (kind == PEN_HYPERBOLA)
    {
      const double r = t / delta;
      return delta * delta * (sqrt (1.0 + r * r) - 1.0);
    }
  return 0.5 * t * t;
}

/* R's terms of pixel i (ctr_penalty_value: the pairs it starts; the
 * isotropic potential's own term). */
__device__ static double
penalty_term (const RedArgs &r, size_t i)
{
  const size_t per = (size_t) r.nx * r.ny;
  const float *xs = r.a + (i / per) * per;
  const unsigned ix = (unsigned) (i % per % r.nx), iy = (unsigned) (i % per / r.nx);
  if (r.kind == PEN_ISOTROPIC)
    {
      const float *xr = xs + (size_t) iy * r.nx;
      const double dx = ix + 1 < r.nx ? (double) xr[ix + 1] - xr[ix] : 0.0;
      const double dy = iy + 1 < r.ny ? (double) xr[ix + r.nx] - xr[ix] : 0.0;
      return ISO_WEIGHT * (r.delta * r.delta * (sqrt (1.0 + (dx * dx + dy * dy) / (r.delta * r.delta)) - 1.0));
    }
  const int hdx[4] = { 1, 0, 1, -1 }, hdy[4] = { 0, 1, 1, 1 };
  double acc = 0.0;
  for (int h = 0; h < 4; h++)
    {
      const long long kx = (long long) ix + hdx[h], ky = (long long) iy + hdy[h];
      if (kx < 0 || kx >= r.nx || ky >= r.ny)
        continue;
      const double t = (double) xs[(size_t) iy * r.nx + ix] - xs[(size_t) ky * r.nx + kx];
      acc += (h < 2 ? 1.0 : DIAGONAL_WEIGHT) * psi_d (r.kind, r.delta, t);
    }
  return acc;
}

__device__ static void
red_item (const RedArgs &r, size_t i, double acc[3])
{
  switch (r.mode)
    {
    case RED_DOT:
      acc[0] += (r.w ? (double) r.w[i] : 1.0) * ((double) r.a[i] * r.b[i]);
      break;
    case RED_DIFF:
      acc[0] += (r.w ? (double) r.w[i] : 1.0) * ((double) r.a[i] - r.b[i]) * ((double) r.c[i] - r.d[i]);
      break;
    case RED_NORMS:
      {
        /* a = Y, b = B, c = W (nullable), d = valid */
        const double e = (double) r.a[i] - r.b[i];
        if (r.c != nullptr)
          acc[0] += r.c[i] * e * e;
        if (r.d[i] != 0.0f)
          {
            acc[1] += e * e;
            acc[2] += (double) r.b[i] * r.b[i];
          }
        break;
      }
    case RED_MAXABS:
      acc[0] = fmax (acc[0], fabs ((double) r.a[i]));
      break;
    default:
      acc[0] += penalty_term (r, i);
    }
}

__global__ void __launch_bounds__ (VEC_BLOCK)
vec_reduce_k (RedArgs r, double *partial)
{
  __shared__ double s[3][VEC_BLOCK];
  double acc[3] = { 0.0, 0.0, 0.0 };
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < r.n; i += (size_t) gridDim.x * blockDim.x)
    red_item (r, i, acc);
  for (int k = 0; k < 3; k++)
    s[k][threadIdx.x] = acc[k];
  __syncthreads ();
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1)
    {
      if (threadIdx.x < h)
        for (int k = 0; k < 3; k++)
          s[k][threadIdx.x] = r.mode == RED_MAXABS ? fmax (s[k][threadIdx.x], s[k][threadIdx.x + h])
                                                   : s[k][threadIdx.x] + s[k][threadIdx.x + h];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++)
      partial[k * RED_BLOCKS + blockIdx.x] = s[k][0];
}

/* One block: the partials of the blocks in block order (a tree over them). */
__global__ void __launch_bounds__ (RED_BLOCKS)
vec_reduce_final_k (int max, unsigned nb, const double *partial, double *sums)
{
  __shared__ double s[3][RED_BLOCKS];
  for (int k = 0; k < 3; k++)
    s[k][threadIdx.x] = threadIdx.x < nb ? partial[k * RED_BLOCKS + threadIdx.x] : 0.0;
  __syncthreads ();
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1)
    {
      if (threadIdx.x < h)
        for (int k = 0; k < 3; k++)
          s[k][threadIdx.x] = max ? fmax (s[k][threadIdx.x], s[k][threadIdx.x + h]) : s[k][threadIdx.x] + s[k][threadIdx.x + h];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++)
      sums[k] = s[k][0];
}

static CtrCudaStatus
reduce (CtrCudaVecs *v, const RedArgs &r, double out[3], char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  double h[3] = { 0.0, 0.0, 0.0 };
  /* up to RED_BLOCKS blocks, fewer for a short array (the same grid for the same length: the same order) */
  const unsigned nb = blocks_of (r.n) < 1 ? 1 : blocks_of (r.n) < RED_BLOCKS ? blocks_of (r.n) : RED_BLOCKS;
  vec_reduce_k<<<nb, VEC_BLOCK, 0, v->stream>>> (r, v->partial);
  CK_LAUNCH ();
  vec_reduce_final_k<<<1, RED_BLOCKS, 0, v->stream>>> (r.mode == RED_MAXABS, nb, v->partial, v->sums);
  CK_LAUNCH ();
  CK (cudaMemcpyAsync (h, v->sums, sizeof h, cudaMemcpyDeviceToHost, v->stream));
  CK (cudaStreamSynchronize (v->stream));
  for (int k = 0; k < 3; k++)
    out[k] = h[k];
  return CTR_CUDA_OK;
fail:
  return st;
}

/* ------------------------------------------------------------- penalties -- */

__device__ static inline float
omega_f (int kind, float inv_delta, float delta, float t)
{
  if (kind == PEN_HUBER)
    return fabsf (t) <= delta ? 1.0f : delta / fabsf (t);
  if (kind == PEN_HYPERBOLA)
    {
      const float r = __fmul_rn (t, inv_delta);
      return 1.0f / sqrtf (__fadd_rn (1.0f, __fmul_rn (r, r)));
    }
  return 1.0f;
}

/* ω of pixel (ix, iy) of the isotropic potential (ctr-penalty.c's iso_omega). */
__device__ static inline float
iso_omega (const float *x, unsigned nx, unsigned ny, unsigned ix, unsigned iy, float inv_delta)
{
  const float *xr = x + (size_t) iy * nx;
  const float dx = ix + 1 < nx ? __fsub_rn (xr[ix + 1], xr[ix]) : 0.0f;
  const float dy = iy + 1 < ny ? __fsub_rn (xr[ix + nx], xr[ix]) : 0.0f;
  return 1.0f / sqrtf (__fadd_rn (1.0f, __fmul_rn (__fadd_rn (__fmul_rn (dx, dx), __fmul_rn (dy, dy)),
                                                   __fmul_rn (inv_delta, inv_delta))));
}

__global__ void
vec_penalty_gradient_k (size_t n, int kind, float delta, const float *__restrict__ xall, unsigned nx, unsigned ny,
                        float *__restrict__ grad, float *__restrict__ curv)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const size_t per = (size_t) nx * ny;
  const float *x = xall + (i / per) * per;
  const unsigned ix = (unsigned) (i % per % nx), iy = (unsigned) (i % per / nx);
  const float inv_delta = delta > 0 ? 1.0f / delta : 0.0f;
  const float *xr = x + (size_t) iy * nx;
  const float xj = xr[ix];
  float g = 0.0f, c = 0.0f;
  if (kind == PEN_ISOTROPIC)
    {
      const float om = iso_omega (x, nx, ny, ix, iy, inv_delta);
      if (ix + 1 < nx)
        g = __fadd_rn (g, __fmul_rn (om, __fsub_rn (xj, xr[ix + 1]))), c = __fadd_rn (c, om);
      if (iy + 1 < ny)
        g = __fadd_rn (g, __fmul_rn (om, __fsub_rn (xj, xr[ix + nx]))), c = __fadd_rn (c, om);
      if (ix > 0)
        {
          const float ol = iso_omega (x, nx, ny, ix - 1, iy, inv_delta);
          g = __fadd_rn (g, __fmul_rn (ol, __fsub_rn (xj, xr[ix - 1]))), c = __fadd_rn (c, ol);
        }
      if (iy > 0)
        {
          const float ou = iso_omega (x, nx, ny, ix, iy - 1, inv_delta);
          g = __fadd_rn (g, __fmul_rn (ou, __fsub_rn (xj, (xr - nx)[ix]))), c = __fadd_rn (c, ou);
        }
      grad[i] = __fmul_rn ((float) ISO_WEIGHT, g);
      if (curv != nullptr)
        curv[i] = __fmul_rn ((float) (2.0 * ISO_WEIGHT), c);
      return;
    }
  const int hdx[4] = { 1, 0, 1, -1 }, hdy[4] = { 0, 1, 1, 1 };
  for (int h = 0; h < 4; h++)
    {
      const float w = h < 2 ? 1.0f : (float) DIAGONAL_WEIGHT;
      const long long fx = (long long) ix + hdx[h], fy = (long long) iy + hdy[h];
      if (fx >= 0 && fx < nx && fy < ny)
        {
          const float t = __fsub_rn (xj, x[(size_t) fy * nx + fx]);
          const float om = __fmul_rn (w, omega_f (kind, inv_delta, delta, t));
          g = __fadd_rn (g, __fmul_rn (om, t));
          c = __fadd_rn (c, om);
        }
      const long long bx = (long long) ix - hdx[h], by = (long long) iy - hdy[h];
      if (bx >= 0 && bx < nx && by >= 0)
        {
          const float t = __fsub_rn (x[(size_t) by * nx + bx], xj);
          const float om = __fmul_rn (w, omega_f (kind, inv_delta, delta, t));
          g = __fsub_rn (g, __fmul_rn (om, t));
          c = __fadd_rn (c, om);
        }
    }
  grad[i] = g;
  if (curv != nullptr)
    curv[i] = __fmul_rn (2.0f, c);
}

/* ctr_tv_gradient's pixel, in double. */
__global__ void
vec_tv_gradient_k (size_t n, const float *__restrict__ xall, unsigned nx, unsigned ny, double e2,
                   float *__restrict__ grad)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const size_t per = (size_t) nx * ny;
  const float *xs = xall + (i / per) * per;
  const unsigned ix = (unsigned) (i % per % nx), iy = (unsigned) (i % per / nx);
#define X(a, b) ((double) xs[(size_t) (b) * nx + (a)])
  const double c = X (ix, iy);
  const double l = ix > 0 ? X (ix - 1, iy) : c, u = iy > 0 ? X (ix, iy - 1) : c;
  const double own = sqrt ((c - l) * (c - l) + (c - u) * (c - u) + e2);
  double g = ((c - l) + (c - u)) / own;
  if (ix + 1 < nx)
    {
      const double r = X (ix + 1, iy);
      const double ur = iy > 0 ? X (ix + 1, iy - 1) : r;
      g -= (r - c) / sqrt ((r - c) * (r - c) + (r - ur) * (r - ur) + e2);
    }
  if (iy + 1 < ny)
    {
      const double d = X (ix, iy + 1);
      const double dl = ix > 0 ? X (ix - 1, iy + 1) : d;
      g -= (d - c) / sqrt ((d - dl) * (d - dl) + (d - c) * (d - c) + e2);
    }
#undef X
  grad[i] = (float) g;
}

/* ------------------------------------------------------------- the API -- */

extern "C" CtrCudaStatus
ctr_cuda_vecs_create (void *stream, CtrCudaVecs **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  CtrCudaVecs *v = (CtrCudaVecs *) calloc (1, sizeof *v);
  if (v == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cannot allocate the vector operations' state");
      return CTR_CUDA_NO_MEMORY;
    }
  v->stream = (cudaStream_t) stream;
  CK (cudaMalloc ((void **) &v->partial, 3 * RED_BLOCKS * sizeof (double)));
  CK (cudaMalloc ((void **) &v->sums, 3 * sizeof (double)));
  *out = v;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_vecs_destroy (v);
  return st;
}

extern "C" void
ctr_cuda_vecs_destroy (CtrCudaVecs *v)
{
  if (v == nullptr)
    return;
  cudaStreamSynchronize (v->stream);
  cudaFree (v->partial);
  cudaFree (v->sums);
  ctr_cuda_clear_error ();
  free (v);
}

extern "C" void *
ctr_cuda_vecs_stream (CtrCudaVecs *v)
{
  return v->stream;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_alloc (CtrCudaVecs *v, size_t n, float **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float *p = nullptr;
  *out = nullptr;
  if ((st = ctr_cuda_check_free (n * sizeof (float), "a vector of the iterative method", err)) != CTR_CUDA_OK)
    return st;
  CK (cudaMalloc ((void **) &p, (n > 0 ? n : 1) * sizeof (float)));
  CK (cudaMemsetAsync (p, 0, (n > 0 ? n : 1) * sizeof (float), v->stream));
  *out = p;
  return CTR_CUDA_OK;
fail:
  if (p != nullptr)
    {
      cudaStreamSynchronize (v->stream);
      cudaFree (p);
      ctr_cuda_clear_error ();
    }
  return st;
}

extern "C" void
ctr_cuda_vec_free (CtrCudaVecs *v, float *p)
{
  if (p == nullptr)
    return;
  cudaStreamSynchronize (v->stream);
  cudaFree (p);
  ctr_cuda_clear_error ();
}

extern "C" CtrCudaStatus
ctr_cuda_vec_upload_index (CtrCudaVecs *v, const uint32_t *host, size_t n, uint32_t **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  uint32_t *p = nullptr;
  *out = nullptr;
  if ((st = ctr_cuda_check_free (n * sizeof (uint32_t), "an index map of the iterative method", err)) != CTR_CUDA_OK)
    return st;
  CK (cudaMalloc ((void **) &p, (n > 0 ? n : 1) * sizeof (uint32_t)));
  if (n > 0)
    {
      CK (cudaMemcpyAsync (p, host, n * sizeof (uint32_t), cudaMemcpyHostToDevice, v->stream));
      CK (cudaStreamSynchronize (v->stream));
    }
  *out = p;
  return CTR_CUDA_OK;
fail:
  if (p != nullptr)
    {
      cudaStreamSynchronize (v->stream);
      cudaFree (p);
      ctr_cuda_clear_error ();
    }
  return st;
}

extern "C" void
ctr_cuda_vec_free_index (CtrCudaVecs *v, uint32_t *p)
{
  ctr_cuda_vec_free (v, (float *) p);
}

extern "C" CtrCudaStatus
ctr_cuda_vec_gather (CtrCudaVecs *v, float *dst, const float *src, const uint32_t *idx, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n > 0)
    {
      vec_gather_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, dst, src, idx);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_upload (CtrCudaVecs *v, float *dev, const float *host, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (dev, host, n * sizeof (float), cudaMemcpyHostToDevice, v->stream));
  CK (cudaStreamSynchronize (v->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_download (CtrCudaVecs *v, float *host, const float *dev, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (host, dev, n * sizeof (float), cudaMemcpyDeviceToHost, v->stream));
  CK (cudaStreamSynchronize (v->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_download_pitched (CtrCudaVecs *v, float *host, const float *dev, size_t width, size_t height,
                               size_t pitch, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (width == 0 || height == 0)
    return CTR_CUDA_OK;
  CK (cudaMemcpy2DAsync (host, pitch * sizeof (float), dev, pitch * sizeof (float), width * sizeof (float), height,
                         cudaMemcpyDeviceToHost, v->stream));
  CK (cudaStreamSynchronize (v->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_fill (CtrCudaVecs *v, float *y, size_t n, float value, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n == 0)
    return CTR_CUDA_OK;
  if (value == 0.0f)
    CK (cudaMemsetAsync (y, 0, n * sizeof (float), v->stream));
  else
    {
      vec_fill_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, y, value);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_copy (CtrCudaVecs *v, float *dst, const float *src, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n == 0 || dst == src)
    return CTR_CUDA_OK;
  CK (cudaMemcpyAsync (dst, src, n * sizeof (float), cudaMemcpyDeviceToDevice, v->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}


extern "C" CtrCudaStatus
ctr_cuda_vec_axpby (CtrCudaVecs *v, float *y, float a, const float *x, float b, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n > 0)
    {
      vec_axpby_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, y, a, x, b);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_mul (CtrCudaVecs *v, float *y, const float *x, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n > 0)
    {
      vec_mul_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, y, x);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_sqs_step (CtrCudaVecs *v, float *X, const float *Z, const float *G, const float *GR, const float *CR,
                       const float *Dd, float M, float beta, int nonneg, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n > 0)
    {
      vec_sqs_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, X, Z, G, GR, CR, Dd, M, beta, nonneg);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_extrapolate (CtrCudaVecs *v, float *Z, const float *X, const float *Xold, float c, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (n > 0)
    {
      vec_extrapolate_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, Z, X, Xold, c);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_dot (CtrCudaVecs *v, const float *a, const float *b, const float *w, size_t n, double *out, char *err)
{
  RedArgs r = {};
  r.mode = RED_DOT, r.n = n, r.a = a, r.b = b, r.w = w;
  double s[3];
  CtrCudaStatus st = reduce (v, r, s, err);
  *out = s[0];
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_diff_dot (CtrCudaVecs *v, const float *a, const float *b, const float *c, const float *d, const float *w,
                       size_t n, double *out, char *err)
{
  RedArgs r = {};
  r.mode = RED_DIFF, r.n = n, r.a = a, r.b = b, r.c = c, r.d = d, r.w = w;
  double s[3];
  CtrCudaStatus st = reduce (v, r, s, err);
  *out = s[0];
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_data_norms (CtrCudaVecs *v, const float *Y, const float *B, const float *W, const float *valid, size_t n,
                         double out[3], char *err)
{
  RedArgs r = {};
  r.mode = RED_NORMS, r.n = n, r.a = Y, r.b = B, r.c = W, r.d = valid;
  return reduce (v, r, out, err);
}

extern "C" CtrCudaStatus
ctr_cuda_vec_max_abs (CtrCudaVecs *v, const float *x, size_t n, float *out, char *err)
{
  RedArgs r = {};
  r.mode = RED_MAXABS, r.n = n, r.a = x;
  double s[3];
  CtrCudaStatus st = reduce (v, r, s, err);
  *out = (float) s[0];
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_penalty_gradient (CtrCudaVecs *v, int kind, float delta, const float *x, unsigned nx, unsigned ny,
                               unsigned nz, float *grad, float *curv, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const size_t n = (size_t) nx * ny * nz;
  if (n > 0)
    {
      vec_penalty_gradient_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, kind, delta, x, nx, ny, grad, curv);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_penalty_value (CtrCudaVecs *v, int kind, double delta, const float *x, unsigned nx, unsigned ny,
                            unsigned nz, double *out, char *err)
{
  RedArgs r = {};
  r.mode = RED_PENALTY, r.n = (size_t) nx * ny * nz, r.a = x, r.kind = kind, r.delta = delta, r.nx = nx, r.ny = ny;
  double s[3];
  CtrCudaStatus st = reduce (v, r, s, err);
  *out = s[0];
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_vec_tv_gradient (CtrCudaVecs *v, const float *x, unsigned nx, unsigned ny, unsigned nz, double eps,
                          float *grad, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const size_t n = (size_t) nx * ny * nz;
  if (n > 0)
    {
      vec_tv_gradient_k<<<blocks_of (n), VEC_BLOCK, 0, v->stream>>> (n, x, nx, ny, eps * eps, grad);
      CK_LAUNCH ();
    }
  return CTR_CUDA_OK;
fail:
  return st;
}
