/* cusparse.h — the cuSPARSE generic-API subset gpu/ctr-cuda-csr.cu uses
 * (CSR SpMV and transposed SpMV, float, 32-bit indices), for the CUDA
 * emulation harness (tests/gpu-emu/emu-cusparse.cc, a small CPU shim).
 * Values and signatures as cuSPARSE's; SpMV executes in its stream's order
 * with the descriptors' pointers as they were at the call (as the device
 * library bakes them into its kernel parameters). */
#pragma once

#include "cuda_runtime.h"

typedef enum {
  CUSPARSE_STATUS_SUCCESS = 0,
  CUSPARSE_STATUS_NOT_INITIALIZED = 1,
  CUSPARSE_STATUS_ALLOC_FAILED = 2,
  CUSPARSE_STATUS_INVALID_VALUE = 3,
  CUSPARSE_STATUS_ARCH_MISMATCH = 4,
  CUSPARSE_STATUS_MAPPING_ERROR = 5,
  CUSPARSE_STATUS_EXECUTION_FAILED = 6,
  CUSPARSE_STATUS_INTERNAL_ERROR = 7,
  CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  CUSPARSE_STATUS_ZERO_PIVOT = 9,
  CUSPARSE_STATUS_NOT_SUPPORTED = 10,
  CUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} cusparseStatus_t;

typedef enum { CUSPARSE_OPERATION_NON_TRANSPOSE = 0, CUSPARSE_OPERATION_TRANSPOSE = 1 } cusparseOperation_t;
typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_SPMV_ALG_DEFAULT = 0 } cusparseSpMVAlg_t;
typedef enum cudaDataType_t { CUDA_R_32F = 0, CUDA_R_64F = 1 } cudaDataType;

typedef struct cusparseContext *cusparseHandle_t;
typedef struct cusparseSpMatDescr *cusparseSpMatDescr_t;
typedef struct cusparseDnVecDescr *cusparseDnVecDescr_t;

extern "C" {
cusparseStatus_t cusparseCreate (cusparseHandle_t *h);
cusparseStatus_t cusparseDestroy (cusparseHandle_t h);
cusparseStatus_t cusparseSetStream (cusparseHandle_t h, cudaStream_t st);
const char *cusparseGetErrorString (cusparseStatus_t s);
cusparseStatus_t cusparseCreateCsr (cusparseSpMatDescr_t *m, int64_t rows, int64_t cols, int64_t nnz,
                                    void *row_offsets, void *col_ind, void *values,
                                    cusparseIndexType_t row_type, cusparseIndexType_t col_type,
                                    cusparseIndexBase_t base, cudaDataType value_type);
cusparseStatus_t cusparseDestroySpMat (cusparseSpMatDescr_t m);
cusparseStatus_t cusparseCreateDnVec (cusparseDnVecDescr_t *v, int64_t size, void *values, cudaDataType value_type);
cusparseStatus_t cusparseDestroyDnVec (cusparseDnVecDescr_t v);
cusparseStatus_t cusparseDnVecSetValues (cusparseDnVecDescr_t v, void *values);
cusparseStatus_t cusparseSpMV_bufferSize (cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                          cusparseSpMatDescr_t a, cusparseDnVecDescr_t x, const void *beta,
                                          cusparseDnVecDescr_t y, cudaDataType compute_type,
                                          cusparseSpMVAlg_t alg, size_t *buffer_size);
cusparseStatus_t cusparseSpMV (cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                               cusparseSpMatDescr_t a, cusparseDnVecDescr_t x, const void *beta,
                               cusparseDnVecDescr_t y, cudaDataType compute_type, cusparseSpMVAlg_t alg,
                               void *external_buffer);
}
