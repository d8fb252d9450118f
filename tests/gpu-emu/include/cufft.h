/* cufft.h — the cuFFT subset gpu/ctr-cuda-fdk.cu uses, for the CUDA
 * emulation harness (tests/gpu-emu/emu-cufft.cc runs it on FFTW).  Values
 * and signatures as cuFFT's; plans execute in their stream's order. */
#pragma once

#include "cuComplex.h"

typedef int cufftHandle;
typedef float cufftReal;
typedef cuComplex cufftComplex;

typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0x0,
  CUFFT_INVALID_PLAN = 0x1,
  CUFFT_ALLOC_FAILED = 0x2,
  CUFFT_INVALID_TYPE = 0x3,
  CUFFT_INVALID_VALUE = 0x4,
  CUFFT_INTERNAL_ERROR = 0x5,
  CUFFT_EXEC_FAILED = 0x6,
  CUFFT_SETUP_FAILED = 0x7,
  CUFFT_INVALID_SIZE = 0x8,
  CUFFT_UNALIGNED_DATA = 0x9,
  CUFFT_INVALID_DEVICE = 0xB,
  CUFFT_NO_WORKSPACE = 0xD,
  CUFFT_NOT_IMPLEMENTED = 0xE,
  CUFFT_NOT_SUPPORTED = 0x10
} cufftResult;

typedef enum cufftType_t {
  CUFFT_R2C = 0x2a,
  CUFFT_C2R = 0x2c,
  CUFFT_C2C = 0x29
} cufftType;

extern "C" {
cufftResult cufftCreate (cufftHandle *plan);
cufftResult cufftPlan1d (cufftHandle *plan, int nx, cufftType type, int batch);
cufftResult cufftPlanMany (cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                           int *onembed, int ostride, int odist, cufftType type, int batch);
cufftResult cufftMakePlanMany (cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                               int *onembed, int ostride, int odist, cufftType type, int batch,
                               size_t *work_size);
cufftResult cufftEstimateMany (int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                               int ostride, int odist, cufftType type, int batch, size_t *work_size);
cufftResult cufftGetSize (cufftHandle plan, size_t *work_size);
cufftResult cufftSetAutoAllocation (cufftHandle plan, int auto_allocate);
cufftResult cufftSetWorkArea (cufftHandle plan, void *work_area);
cufftResult cufftSetStream (cufftHandle plan, cudaStream_t stream);
cufftResult cufftExecR2C (cufftHandle plan, cufftReal *in, cufftComplex *out);
cufftResult cufftExecC2R (cufftHandle plan, cufftComplex *in, cufftReal *out);
cufftResult cufftDestroy (cufftHandle plan);
}
