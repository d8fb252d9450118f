/* emu-cusparse.cc — cuSPARSE of the CUDA emulation harness (tests/gpu-emu):
 * the generic SpMV on CSR (float values, 32-bit indices, base 0), plain
 * and transposed, as a small CPU shim.
 *
 * y = α·op(A)·x + β·y in float, rows in order (transposed: scattered into
 * y in row order); with β = 0, y is not read.  The call takes the matrix
 * and vector pointers as the descriptors hold them at the call and runs in
 * the handle's stream order.  Every row offset, column index and vector
 * range is checked against the device-memory table; a vector entry that
 * was never written is reported (initcheck).  The external buffer must be
 * live device memory of at least the size cusparseSpMV_bufferSize gave
 * (the harness's model: 16 bytes). */
#include "emu-internal.h"

#include <cusparse.h>
#include <set>

struct cusparseContext {
  cudaStream_t stream = nullptr;
};
struct cusparseSpMatDescr {
  int64_t rows, cols, nnz;
  const int32_t *row_ptr, *col;
  const float *val;
};
struct cusparseDnVecDescr {
  int64_t size;
  float *values;
};

namespace ctr_emu {

static std::set<cusparseContext *> handles;
static std::set<cusparseSpMatDescr *> mats;
static std::set<cusparseDnVecDescr *> vecs;
enum { SPMV_BUFFER = 16 };

void
count_sparse (CtrEmuLive *l)
{
  l->sparse_handles = handles.size ();
  l->sparse_mats = mats.size ();
  l->sparse_vecs = vecs.size ();
}

struct SpmvOp final : Op {
  cusparseSpMatDescr a;
  const float *x;
  float *y;
  int64_t nx, ny;
  float alpha, beta;
  bool trans;
  void exec () override
  {
    for (int64_t i = 0; i < nx; i++)
      if (is_poison (x[i]))
        {
          device_error ("cusparseSpMV reads a never-written entry %lld of x (%p)", (long long) i, (const void *) x);
          return;
        }
    if (beta != 0.f)
      for (int64_t i = 0; i < ny; i++)
        if (is_poison (y[i]))
          {
            device_error ("cusparseSpMV reads a never-written entry %lld of y (β ≠ 0)", (long long) i);
            return;
          }
    if (a.row_ptr[0] != 0 || a.row_ptr[a.rows] != a.nnz)
      {
        device_error ("cusparseSpMV: row offsets run from %d to %d, not 0 to nnz = %lld", a.row_ptr[0],
                      a.row_ptr[a.rows], (long long) a.nnz);
        return;
      }
    if (trans)
      for (int64_t i = 0; i < ny; i++)
        y[i] = beta == 0.f ? 0.f : beta * y[i];
    for (int64_t r = 0; r < a.rows; r++)
      {
        if (a.row_ptr[r + 1] < a.row_ptr[r])
          {
            device_error ("cusparseSpMV: row offsets decrease at row %lld", (long long) r);
            return;
          }
        float s = 0.f;
        for (int32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; k++)
          {
            const int32_t c = a.col[k];
            if (c < 0 || c >= a.cols)
              {
                device_error ("cusparseSpMV: column index %d of element %d outside [0, %lld)", c, k, (long long) a.cols);
                return;
              }
            if (trans)
              y[c] += alpha * a.val[k] * x[r];
            else
              s += a.val[k] * x[c];
          }
        if (!trans)
          y[r] = beta == 0.f ? alpha * s : alpha * s + beta * y[r];
      }
  }
  const char *what () const override { return "cusparseSpMV"; }
};

}  /* namespace ctr_emu */

using namespace ctr_emu;

extern "C" const char *
cusparseGetErrorString (cusparseStatus_t s)
{
  switch (s)
    {
    case CUSPARSE_STATUS_SUCCESS: return "success";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "out of memory";
    case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "internal error";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
    default: return "unknown error";
    }
}

extern "C" cusparseStatus_t
cusparseCreate (cusparseHandle_t *h)
{
  EMU_API;
  *h = nullptr;
  if (fault ("cusparseCreate"))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  *h = new cusparseContext ();
  handles.insert (*h);
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseDestroy (cusparseHandle_t h)
{
  EMU_API;
  if (!handles.count (h))
    return CUSPARSE_STATUS_NOT_INITIALIZED;
  flush_all ();
  handles.erase (h);
  delete h;
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseSetStream (cusparseHandle_t h, cudaStream_t st)
{
  EMU_API;
  if (fault ("cusparseSetStream"))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!handles.count (h) || !stream_valid (st))
    return CUSPARSE_STATUS_INVALID_VALUE;
  h->stream = st;
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseCreateCsr (cusparseSpMatDescr_t *m, int64_t rows, int64_t cols, int64_t nnz, void *row_offsets,
                   void *col_ind, void *values, cusparseIndexType_t row_type, cusparseIndexType_t col_type,
                   cusparseIndexBase_t base, cudaDataType value_type)
{
  EMU_API;
  *m = nullptr;
  if (fault ("cusparseCreateCsr"))
    return CUSPARSE_STATUS_ALLOC_FAILED;
  if (rows < 0 || cols < 0 || nnz < 0 || row_type != CUSPARSE_INDEX_32I || col_type != CUSPARSE_INDEX_32I
      || base != CUSPARSE_INDEX_BASE_ZERO || value_type != CUDA_R_32F)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (device_range (row_offsets, (size_t) (rows + 1) * 4) == nullptr
      || (nnz > 0 && (device_range (col_ind, (size_t) nnz * 4) == nullptr || device_range (values, (size_t) nnz * 4) == nullptr)))
    {
      device_error ("cusparseCreateCsr: row offsets (%lld + 1), columns or values (%lld) are not live device memory",
                    (long long) rows, (long long) nnz);
      return CUSPARSE_STATUS_INVALID_VALUE;
    }
  *m = new cusparseSpMatDescr { rows, cols, nnz, (const int32_t *) row_offsets, (const int32_t *) col_ind,
                                (const float *) values };
  mats.insert (*m);
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseDestroySpMat (cusparseSpMatDescr_t m)
{
  EMU_API;
  if (!mats.count (m))
    return CUSPARSE_STATUS_INVALID_VALUE;
  mats.erase (m);
  delete m;
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseCreateDnVec (cusparseDnVecDescr_t *v, int64_t size, void *values, cudaDataType value_type)
{
  EMU_API;
  *v = nullptr;
  if (fault ("cusparseCreateDnVec"))
    return CUSPARSE_STATUS_ALLOC_FAILED;
  if (size < 0 || value_type != CUDA_R_32F)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  *v = new cusparseDnVecDescr { size, (float *) values };
  vecs.insert (*v);
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseDestroyDnVec (cusparseDnVecDescr_t v)
{
  EMU_API;
  if (!vecs.count (v))
    return CUSPARSE_STATUS_INVALID_VALUE;
  vecs.erase (v);
  delete v;
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseDnVecSetValues (cusparseDnVecDescr_t v, void *values)
{
  EMU_API;
  if (fault ("cusparseDnVecSetValues"))
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (!vecs.count (v) || values == nullptr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  v->values = (float *) values;
  return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t
check_spmv (cusparseHandle_t h, cusparseOperation_t op, const void *alpha, cusparseSpMatDescr_t a,
            cusparseDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y, cudaDataType ct)
{
  if (!handles.count (h) || !mats.count (a) || !vecs.count (x) || !vecs.count (y) || alpha == nullptr
      || beta == nullptr)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (ct != CUDA_R_32F || (op != CUSPARSE_OPERATION_NON_TRANSPOSE && op != CUSPARSE_OPERATION_TRANSPOSE))
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  const bool t = op == CUSPARSE_OPERATION_TRANSPOSE;
  if (x->size != (t ? a->rows : a->cols) || y->size != (t ? a->cols : a->rows))
    return CUSPARSE_STATUS_INVALID_VALUE;
  return CUSPARSE_STATUS_SUCCESS;
}

extern "C" cusparseStatus_t
cusparseSpMV_bufferSize (cusparseHandle_t h, cusparseOperation_t op, const void *alpha, cusparseSpMatDescr_t a,
                         cusparseDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y, cudaDataType ct,
                         cusparseSpMVAlg_t alg, size_t *size)
{
  EMU_API;
  if (fault ("cusparseSpMV_bufferSize"))
    return CUSPARSE_STATUS_INTERNAL_ERROR;
  cusparseStatus_t s = check_spmv (h, op, alpha, a, x, beta, y, ct);
  if (s == CUSPARSE_STATUS_SUCCESS)
    *size = SPMV_BUFFER;
  return s;
}

extern "C" cusparseStatus_t
cusparseSpMV (cusparseHandle_t h, cusparseOperation_t op, const void *alpha, cusparseSpMatDescr_t a,
              cusparseDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y, cudaDataType ct,
              cusparseSpMVAlg_t alg, void *buffer)
{
  EMU_API;
  if (fault ("cusparseSpMV"))
    return CUSPARSE_STATUS_EXECUTION_FAILED;
  cusparseStatus_t s = check_spmv (h, op, alpha, a, x, beta, y, ct);
  if (s != CUSPARSE_STATUS_SUCCESS)
    return s;
  const bool t = op == CUSPARSE_OPERATION_TRANSPOSE;
  if (device_range (buffer, SPMV_BUFFER) == nullptr || device_range (x->values, (size_t) x->size * 4) == nullptr
      || device_range (y->values, (size_t) y->size * 4) == nullptr)
    {
      device_error ("cusparseSpMV: the buffer, x (%p, %lld) or y (%p, %lld) is not live device memory",
                    (void *) x->values, (long long) x->size, (void *) y->values, (long long) y->size);
      return CUSPARSE_STATUS_INVALID_VALUE;
    }
  auto o = std::make_shared<SpmvOp> ();
  o->a = *a;
  o->x = x->values;
  o->y = y->values;
  o->nx = x->size;
  o->ny = y->size;
  o->alpha = *(const float *) alpha;
  o->beta = *(const float *) beta;
  o->trans = t;
  return enqueue (h->stream, o) == cudaSuccess ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_EXECUTION_FAILED;
}
