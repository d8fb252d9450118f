/* ctr-cuda-libs-api.h — the plain C boundary of the run-time loader of
 * cuSPARSE and cuFFT (ctr-cuda-libs.cu; the tables the .cu code calls
 * through are in ctr-cuda-libs.cuh).  The GLib side is ctr-cuda-libs.h. */
#pragma once

#include "ctr-cuda-api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CTR_CUDA_LIB_CUSPARSE = 0,  /* libcusparse.so.<major> (and the nvJitLink it needs) */
  CTR_CUDA_LIB_CUFFT = 1      /* libcufft.so.<major> */
} CtrCudaLib;

/* The soname (or path) ctr_cuda_lib_load opens for @lib: $CTR_CUSPARSE_LIB
 * or $CTR_CUFFT_LIB when set and not empty, else the build's headers' major
 * version ("libcusparse.so.12").  Static string or the environment's. */
const char *ctr_cuda_lib_soname (CtrCudaLib lib);

/* Opens @lib with dlopen (RTLD_NOW | RTLD_LOCAL) and fills its table with
 * dlsym; the library stays open.  Not thread-safe and not idempotent: call
 * it through ctr_cuda_lib_require (once per process).  CTR_CUDA_UNAVAILABLE
 * when the library cannot be opened or lacks a function, with @err naming
 * the library, the soname and dlerror()'s text; CTR_CUDA_INVALID for an
 * unknown @lib.  On the emulation harness the harness's versions fill the
 * table (a library named in the environment is opened and checked first). */
CtrCudaStatus ctr_cuda_lib_load (CtrCudaLib lib, char *err);

#ifdef __cplusplus
}
#endif
