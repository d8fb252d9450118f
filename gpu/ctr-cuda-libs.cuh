/* ctr-cuda-libs.cuh — cuSPARSE and cuFFT loaded at run time (issue 38).
 *
 * The program links neither library: it opens them with dlopen by soname
 * the first time a GPU path needs one on a machine where a device answers
 * (ctr_cuda_lib_load, ctr-cuda-libs.cu; once per process through
 * ctr_cuda_lib_require, ctr-cuda-libs.c), and reaches every function
 * through the tables below, filled with dlsym.  A program that never needs
 * them (no device, the CPU path) never maps them: together with the
 * nvJitLink library cuSPARSE depends on they are about 550,000 KiB of address
 * space.
 *
 * The .cu files that call them include this header after nothing else
 * naming those functions: the macros at the end turn each call
 * `cusparseSpMV (…)` into `ctr_cusparse.cusparseSpMV (…)`, so the code and
 * its error messages (which quote the call) read as before.  The emulation
 * harness (tests/gpu-emu) fills the same tables with its CPU versions, so
 * the emulated tests go through them too.
 *
 * Calling through a table that was not loaded is a NULL call: the entry
 * points that need a library check ctr_cusparse_loaded / ctr_cufft_loaded
 * (the glue calls ctr_cuda_lib_require before them). */
#pragma once

#include <cufft.h>
#include <cusparse.h>

/* Every cuSPARSE and cuFFT function gpu/ calls (add one here when a .cu
 * file calls a new one: the build fails otherwise, on the missing field). */
#define CTR_CUSPARSE_FUNCTIONS(X)                                               \
  X (cusparseCreate) X (cusparseDestroy) X (cusparseSetStream) X (cusparseGetErrorString) \
  X (cusparseCreateCsr) X (cusparseDestroySpMat) X (cusparseCreateDnVec)        \
  X (cusparseDestroyDnVec) X (cusparseDnVecSetValues) X (cusparseSpMV_bufferSize) \
  X (cusparseSpMV)
#define CTR_CUFFT_FUNCTIONS(X)                                                  \
  X (cufftCreate) X (cufftMakePlanMany) X (cufftSetAutoAllocation) X (cufftSetWorkArea) \
  X (cufftSetStream) X (cufftExecR2C) X (cufftExecC2R) X (cufftDestroy)

/* ctr_fn_cusparseSpMV etc.: the functions' own types, from the headers. */
#define CTR_CUDA_LIBS_TYPE(f) typedef decltype (&f) ctr_fn_##f;
CTR_CUSPARSE_FUNCTIONS (CTR_CUDA_LIBS_TYPE)
CTR_CUFFT_FUNCTIONS (CTR_CUDA_LIBS_TYPE)
#undef CTR_CUDA_LIBS_TYPE

#define CTR_CUDA_LIBS_FIELD(f) ctr_fn_##f f;
struct CtrCusparseTable {
  CTR_CUSPARSE_FUNCTIONS (CTR_CUDA_LIBS_FIELD)
};
struct CtrCufftTable {
  CTR_CUFFT_FUNCTIONS (CTR_CUDA_LIBS_FIELD)
};
#undef CTR_CUDA_LIBS_FIELD

/* Filled once by ctr_cuda_lib_load; all NULL until then. */
extern CtrCusparseTable ctr_cusparse;
extern CtrCufftTable ctr_cufft;
/* Non-zero once the table is complete. */
extern int ctr_cusparse_loaded;
extern int ctr_cufft_loaded;

#ifndef CTR_CUDA_LIBS_LOADER
#define cusparseCreate ctr_cusparse.cusparseCreate
#define cusparseDestroy ctr_cusparse.cusparseDestroy
#define cusparseSetStream ctr_cusparse.cusparseSetStream
#define cusparseGetErrorString ctr_cusparse.cusparseGetErrorString
#define cusparseCreateCsr ctr_cusparse.cusparseCreateCsr
#define cusparseDestroySpMat ctr_cusparse.cusparseDestroySpMat
#define cusparseCreateDnVec ctr_cusparse.cusparseCreateDnVec
#define cusparseDestroyDnVec ctr_cusparse.cusparseDestroyDnVec
#define cusparseDnVecSetValues ctr_cusparse.cusparseDnVecSetValues
#define cusparseSpMV_bufferSize ctr_cusparse.cusparseSpMV_bufferSize
#define cusparseSpMV ctr_cusparse.cusparseSpMV
#define cufftCreate ctr_cufft.cufftCreate
#define cufftMakePlanMany ctr_cufft.cufftMakePlanMany
#define cufftSetAutoAllocation ctr_cufft.cufftSetAutoAllocation
#define cufftSetWorkArea ctr_cufft.cufftSetWorkArea
#define cufftSetStream ctr_cufft.cufftSetStream
#define cufftExecR2C ctr_cufft.cufftExecR2C
#define cufftExecC2R ctr_cufft.cufftExecC2R
#define cufftDestroy ctr_cufft.cufftDestroy
#endif
