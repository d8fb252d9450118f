/* ctr-cuda-csr.cu — the cuART paper's baseline in the same binary: parallel
 * ART on the expanded CSR matrix with cuSPARSE (cusparseSpMV forward, and
 * cusparseSpMV with CUSPARSE_OPERATION_TRANSPOSE for the back-projection).
 *
 * The subsets are the orbits of the SCSR run (the K views of one orbit), so
 * the update is the same as ctr_cuda_scsr_iterate's: for orbit o, the
 * forward products of all its views first (into r), then r ← coef ∘ (b − r),
 * then x += A_vᵀ r_v for every view v of the orbit (β = 1), then the clip.
 * Each view's rows are one CSR block (ray = view·n_cols + col): one cuSPARSE
 * descriptor per view with its own 0-based int32 row offsets and the
 * column/value pointers moved to the view's first element.
 */
#include "ctr-cuda-common.cuh"

#include "ctr-cuda-libs.cuh" /* cuSPARSE, opened at run time */
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CKS(call)                                                            \
  do {                                                                       \
    cusparseStatus_t cks_e_ = (call);                                        \
    if (cks_e_ != CUSPARSE_STATUS_SUCCESS)                                   \
      {                                                                      \
        snprintf (err, CTR_CUDA_ERR_LEN, "%s failed (%s:%d): %s", #call,      \
                  __FILE__, __LINE__, cusparseGetErrorString (cks_e_));      \
        st = cks_e_ == CUSPARSE_STATUS_ALLOC_FAILED ? CTR_CUDA_NO_MEMORY     \
                                                    : CTR_CUDA_UNAVAILABLE;  \
        goto fail;                                                           \
      }                                                                      \
  } while (0)

struct CtrCudaCsr {
  unsigned nv, nc, ns, K, no;
  uint64_t np, nnz, nr;
  std::vector<int32_t> lane_view;
  cusparseHandle_t h;
  cudaStream_t stream;
  cudaEvent_t ev0, ev1, ev2;
  int32_t *rowptr;           /* [view][nc + 1], 0-based per view */
  int32_t *col;
  float *val;
  float *x, *r, *b, *coef, *valid;
  double *sums;
  void *buf;
  std::vector<cusparseSpMatDescr_t> mats;
  cusparseDnVecDescr_t vx, vr;
  /* The iteration's ~25 launches per orbit captured once and replayed, as
   * for the SCSR kernel, so that the baseline is not measured by its launch
   * gaps; the residual's SpMVs likewise (CTR_CUDA_GRAPHS=0: launched one by
   * one; a capture that fails: one by one from then on). */
  cudaGraphExec_t gexec[2], rexec;
  int use_graphs;
};

/* r[i] = coef[i] (b[i] − r[i]) over one view's rays; residual sums. */
__global__ void
residual_coef (float *__restrict__ r, const float *__restrict__ b, const float *__restrict__ coef, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[i] = coef[i] * (b[i] - r[i]);
}

__global__ void
clip (float *x, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0.f)
    x[i] = 0.f;
}

__global__ void
residual_sums (const float *__restrict__ ax, const float *__restrict__ b, const float *__restrict__ valid,
               size_t n, double *sums)
{
  double num = 0, den = 0;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    {
      double d = (double) b[i] - ax[i];
      num += valid[i] * d * d;
      den += valid[i] * (double) b[i] * b[i];
    }
  for (int o = 16; o > 0; o >>= 1)
    {
      num += __shfl_xor_sync (0xffffffffu, num, o);
      den += __shfl_xor_sync (0xffffffffu, den, o);
    }
  if ((threadIdx.x & 31) == 0)
    {
      atomicAdd (sums, num);
      atomicAdd (sums + 1, den);
    }
}

extern "C" void
ctr_cuda_csr_destroy (CtrCudaCsr *d)
{
  if (d == nullptr)
    return;
  if (d->stream)
    cudaStreamSynchronize (d->stream);
  for (cusparseSpMatDescr_t m : d->mats)
    if (m)
      cusparseDestroySpMat (m);
  for (int n = 0; n < 2; n++)
    if (d->gexec[n])
      cudaGraphExecDestroy (d->gexec[n]);
  if (d->rexec)
    cudaGraphExecDestroy (d->rexec);
  if (d->vx) cusparseDestroyDnVec (d->vx);
  if (d->vr) cusparseDestroyDnVec (d->vr);
  if (d->h) cusparseDestroy (d->h);
  cudaFree (d->rowptr);
  cudaFree (d->col);
  cudaFree (d->val);
  cudaFree (d->x);
  cudaFree (d->r);
  cudaFree (d->b);
  cudaFree (d->coef);
  cudaFree (d->valid);
  cudaFree (d->sums);
  cudaFree (d->buf);
  if (d->ev0) cudaEventDestroy (d->ev0);
  if (d->ev1) cudaEventDestroy (d->ev1);
  if (d->ev2) cudaEventDestroy (d->ev2);
  if (d->stream) cudaStreamDestroy (d->stream);
  ctr_cuda_clear_error ();
  delete d;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_create (const CtrCudaCsrDesc *desc, CtrCudaCsr **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  if (!ctr_cusparse_loaded)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cuSPARSE is not loaded (ctr_cuda_lib_require)");
      return CTR_CUDA_UNAVAILABLE;
    }
  CtrCudaCsr *d = new (std::nothrow) CtrCudaCsr ();
  if (d == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "host allocation of the cuSPARSE session failed");
      return CTR_CUDA_NO_MEMORY;
    }
  d->nv = desc->n_views;
  d->nc = desc->n_cols;
  d->ns = desc->ns;
  d->np = desc->n_pixels;
  d->nnz = desc->nnz;
  d->nr = (uint64_t) d->nv * d->nc;
  d->K = desc->K;
  d->no = desc->n_orbits;
  d->lane_view.assign (desc->lane_view, desc->lane_view + (size_t) d->K * d->no);
  {
    const char *env = getenv ("CTR_CUDA_GRAPHS");
    d->use_graphs = env == nullptr || strcmp (env, "0") != 0;
  }
  size_t buf_size = 0;
  std::vector<int32_t> rp ((size_t) d->nv * (d->nc + 1));
  std::vector<int32_t> ci;
  for (unsigned v = 0; v < d->nv; v++)
    {
      const int64_t base = desc->row_ptr[(size_t) v * d->nc];
      if (desc->row_ptr[(size_t) (v + 1) * d->nc] - base > INT32_MAX)
        {
          snprintf (err, CTR_CUDA_ERR_LEN, "view %u has more than 2^31 non-zeros", v);
          delete d;
          return CTR_CUDA_UNAVAILABLE;
        }
      for (unsigned c = 0; c <= d->nc; c++)
        rp[(size_t) v * (d->nc + 1) + c] = (int32_t) (desc->row_ptr[(size_t) v * d->nc + c] - base);
    }
  if (d->np > INT32_MAX)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "image of %llu pixels is too large for int32 indices", (unsigned long long) d->np);
      delete d;
      return CTR_CUDA_UNAVAILABLE;
    }
  const size_t need = rp.size () * 4 + d->nnz * 8 + (size_t) d->ns * (d->np + 4 * d->nr) * 4 + 16;
  st = ctr_cuda_check_free (need, "the CSR matrix and the cuSPARSE buffers", err);
  if (st != CTR_CUDA_OK)
    {
      delete d;
      return st;
    }
  CK (cudaStreamCreateWithFlags (&d->stream, cudaStreamNonBlocking));
  CK (cudaEventCreate (&d->ev0));
  CK (cudaEventCreate (&d->ev1));
  CK (cudaEventCreate (&d->ev2));
  CKS (cusparseCreate (&d->h));
  CKS (cusparseSetStream (d->h, d->stream));
  CK (cudaMalloc ((void **) &d->rowptr, rp.size () * 4));
  CK (cudaMalloc ((void **) &d->col, (d->nnz ? d->nnz : 1) * 4));
  CK (cudaMalloc ((void **) &d->val, (d->nnz ? d->nnz : 1) * 4));
  CK (cudaMalloc ((void **) &d->x, (size_t) d->ns * d->np * 4 + 4));
  CK (cudaMalloc ((void **) &d->r, (size_t) d->ns * d->nr * 4 + 4));
  CK (cudaMalloc ((void **) &d->b, (size_t) d->ns * d->nr * 4 + 4));
  CK (cudaMalloc ((void **) &d->coef, (size_t) d->ns * d->nr * 4 + 4));
  CK (cudaMalloc ((void **) &d->valid, (size_t) d->ns * d->nr * 4 + 4));
  CK (cudaMalloc ((void **) &d->sums, 2 * sizeof (double)));
  CK (cudaMemcpyAsync (d->rowptr, rp.data (), rp.size () * 4, cudaMemcpyHostToDevice, d->stream));
  /* uint32 column indices < 2^31 (checked above) are valid int32. */
  if (d->nnz)
    {
      CK (cudaMemcpyAsync (d->col, desc->col_idx, d->nnz * 4, cudaMemcpyHostToDevice, d->stream));
      CK (cudaMemcpyAsync (d->val, desc->values, d->nnz * 4, cudaMemcpyHostToDevice, d->stream));
    }
  CK (cudaMemsetAsync (d->x, 0, (size_t) d->ns * d->np * 4, d->stream));
  CKS (cusparseCreateDnVec (&d->vx, (int64_t) d->np, d->x, CUDA_R_32F));
  CKS (cusparseCreateDnVec (&d->vr, (int64_t) d->nc, d->r, CUDA_R_32F));
  d->mats.assign (d->nv, nullptr);
  for (unsigned v = 0; v < d->nv; v++)
    {
      const int64_t base = desc->row_ptr[(size_t) v * d->nc];
      const int64_t nnz_v = desc->row_ptr[(size_t) (v + 1) * d->nc] - base;
      CKS (cusparseCreateCsr (&d->mats[v], d->nc, (int64_t) d->np, nnz_v,
                              d->rowptr + (size_t) v * (d->nc + 1), d->col + base, d->val + base,
                              CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
      const float one = 1.f, zero = 0.f;
      size_t s1 = 0, s2 = 0;
      CKS (cusparseSpMV_bufferSize (d->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mats[v], d->vx, &zero,
                                    d->vr, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &s1));
      CKS (cusparseSpMV_bufferSize (d->h, CUSPARSE_OPERATION_TRANSPOSE, &one, d->mats[v], d->vr, &one,
                                    d->vx, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &s2));
      buf_size = buf_size > s1 ? buf_size : s1;
      buf_size = buf_size > s2 ? buf_size : s2;
    }
  CK (cudaMalloc (&d->buf, buf_size ? buf_size : 16));
  CK (cudaStreamSynchronize (d->stream));
  *out = d;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_csr_destroy (d);
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_upload (CtrCudaCsr *d, const float *x, const float *b, const float *coef,
                     const float *valid, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const size_t nry = (size_t) d->ns * d->nr * 4;
  if (x) CK (cudaMemcpyAsync (d->x, x, (size_t) d->ns * d->np * 4, cudaMemcpyHostToDevice, d->stream));
  if (b) CK (cudaMemcpyAsync (d->b, b, nry, cudaMemcpyHostToDevice, d->stream));
  if (coef) CK (cudaMemcpyAsync (d->coef, coef, nry, cudaMemcpyHostToDevice, d->stream));
  if (valid) CK (cudaMemcpyAsync (d->valid, valid, nry, cudaMemcpyHostToDevice, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_download_x (CtrCudaCsr *d, float *x, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (x, d->x, (size_t) d->ns * d->np * 4, cudaMemcpyDeviceToHost, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* y_v = A_v x_s (β = 0) or x_s += A_vᵀ y_v (β = 1) for slice s, view v. */
static CtrCudaStatus
spmv (CtrCudaCsr *d, unsigned s, unsigned v, bool transpose, float *y_base, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const float one = 1.f, zero = 0.f;
  CKS (cusparseDnVecSetValues (d->vx, d->x + (size_t) s * d->np));
  CKS (cusparseDnVecSetValues (d->vr, y_base + (size_t) s * d->nr + (size_t) v * d->nc));
  if (!transpose)
    CKS (cusparseSpMV (d->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d->mats[v], d->vx, &zero, d->vr,
                       CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, d->buf));
  else
    CKS (cusparseSpMV (d->h, CUSPARSE_OPERATION_TRANSPOSE, &one, d->mats[v], d->vr, &one, d->vx,
                       CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, d->buf));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_forward (CtrCudaCsr *d, const float *x, float *y, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (d->x, x, (size_t) d->ns * d->np * 4, cudaMemcpyHostToDevice, d->stream));
  for (unsigned s = 0; s < d->ns; s++)
    for (unsigned v = 0; v < d->nv; v++)
      if ((st = spmv (d, s, v, false, d->r, err)) != CTR_CUDA_OK)
        return st;
  CK (cudaMemcpyAsync (y, d->r, (size_t) d->ns * d->nr * 4, cudaMemcpyDeviceToHost, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_adjoint (CtrCudaCsr *d, const float *y, float *x, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemcpyAsync (d->r, y, (size_t) d->ns * d->nr * 4, cudaMemcpyHostToDevice, d->stream));
  CK (cudaMemsetAsync (d->x, 0, (size_t) d->ns * d->np * 4, d->stream));
  for (unsigned s = 0; s < d->ns; s++)
    for (unsigned v = 0; v < d->nv; v++)
      if ((st = spmv (d, s, v, true, d->r, err)) != CTR_CUDA_OK)
        return st;
  CK (cudaMemcpyAsync (x, d->x, (size_t) d->ns * d->np * 4, cudaMemcpyDeviceToHost, d->stream));
  CK (cudaStreamSynchronize (d->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The launches of one parallel-ART iteration, in stream order. */
static CtrCudaStatus
enqueue_part (CtrCudaCsr *d, int nonneg, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const unsigned bs = 256;
  for (unsigned o = 0; o < d->no; o++)
    {
      for (unsigned s = 0; s < d->ns; s++)
        {
          for (unsigned k = 0; k < d->K; k++)
            {
              const int32_t v = d->lane_view[(size_t) o * d->K + k];
              if (v < 0)
                continue;
              if ((st = spmv (d, s, (unsigned) v, false, d->r, err)) != CTR_CUDA_OK)
                return st;
              const size_t q = (size_t) s * d->nr + (size_t) v * d->nc;
              residual_coef<<<(d->nc + bs - 1) / bs, bs, 0, d->stream>>> (d->r + q, d->b + q, d->coef + q, d->nc);
              CK_LAUNCH ();
            }
          for (unsigned k = 0; k < d->K; k++)
            {
              const int32_t v = d->lane_view[(size_t) o * d->K + k];
              if (v >= 0 && (st = spmv (d, s, (unsigned) v, true, d->r, err)) != CTR_CUDA_OK)
                return st;
            }
        }
      if (nonneg)
        {
          const size_t n = (size_t) d->ns * d->np;
          clip<<<(unsigned) ((n + bs - 1) / bs), bs, 0, d->stream>>> (d->x, n);
          CK_LAUNCH ();
        }
    }
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The residual: every view's forward SpMV, then the two sums. */
static CtrCudaStatus
enqueue_residual (CtrCudaCsr *d, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  for (unsigned s = 0; s < d->ns; s++)
    for (unsigned v = 0; v < d->nv; v++)
      if ((st = spmv (d, s, v, false, d->r, err)) != CTR_CUDA_OK)
        return st;
  CK (cudaMemsetAsync (d->sums, 0, 2 * sizeof (double), d->stream));
  {
    /* a grid-stride loop: as many blocks as the rays need, at most 256
     * (more would only add zeros atomically) */
    const size_t n = (size_t) d->ns * d->nr;
    const unsigned blocks = (unsigned) (n < 256 * 256 ? (n + 255) / 256 : 256);
    residual_sums<<<blocks, 256, 0, d->stream>>> (d->r, d->b, d->valid, n, d->sums);
  }
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The graph of the iteration (@residual FALSE) or of the residual, captured
 * on first use; nullptr when graphs are off or the capture failed (then off
 * from now on: the caller launches one by one). */
static cudaGraphExec_t
graph_of (CtrCudaCsr *d, int nonneg, bool residual)
{
  if (!d->use_graphs)
    return nullptr;
  cudaGraphExec_t *slot = residual ? &d->rexec : &d->gexec[nonneg ? 1 : 0];
  if (*slot != nullptr)
    return *slot;
  char scratch[CTR_CUDA_ERR_LEN] = "";
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamBeginCapture (d->stream, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess)
    {
      CtrCudaStatus st_enq = residual ? enqueue_residual (d, scratch) : enqueue_part (d, nonneg, scratch);
      e = cudaStreamEndCapture (d->stream, &graph);
      if (st_enq != CTR_CUDA_OK && e == cudaSuccess)
        e = cudaErrorStreamCaptureInvalidated;
      if (e == cudaSuccess)
        e = cudaGraphInstantiate (slot, graph, 0);
      if (graph)
        cudaGraphDestroy (graph);
    }
  if (e != cudaSuccess)
    {
      *slot = nullptr;
      d->use_graphs = 0;
      ctr_cuda_clear_error ();
    }
  return *slot;
}

extern "C" CtrCudaStatus
ctr_cuda_csr_iterate_part (CtrCudaCsr *d, int nonneg, double *update_ms, double *residual, double *residual_ms,
                           char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float ms = 0.f, rms = 0.f;
  double sums[2] = { 0, 0 };
  cudaGraphExec_t g = graph_of (d, nonneg, false);
  cudaGraphExec_t gr = residual ? graph_of (d, nonneg, true) : nullptr;
  CK (cudaEventRecord (d->ev0, d->stream));
  if (g)
    CK (cudaGraphLaunch (g, d->stream));
  else if ((st = enqueue_part (d, nonneg, err)) != CTR_CUDA_OK)
    return st;
  CK (cudaEventRecord (d->ev1, d->stream));
  if (residual)
    {
      if (gr)
        CK (cudaGraphLaunch (gr, d->stream));
      else if ((st = enqueue_residual (d, err)) != CTR_CUDA_OK)
        return st;
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
