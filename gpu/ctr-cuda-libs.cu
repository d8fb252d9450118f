/* ctr-cuda-libs.cu — opens cuSPARSE or cuFFT with dlopen and fills its
 * table (ctr-cuda-libs.cuh) with dlsym.  Host code only; called once per
 * library and process by ctr_cuda_lib_require (ctr-cuda-libs.c).
 *
 * The soname is the major version of the headers the build used
 * (libcusparse.so.12, libcufft.so.12 for CUDA 12 and 13), found on the
 * executable's run path (the toolkit's library folder, set at link time),
 * LD_LIBRARY_PATH and the system's; CTR_CUSPARSE_LIB / CTR_CUFFT_LIB name
 * another (a soname or a path; e.g. a bogus one to see the CPU fall-back).
 *
 * Emulation harness (tests/gpu-emu, CTR_EMU_BUILD): the tables are filled
 * with the harness's CPU versions; a library named by CTR_CUSPARSE_LIB /
 * CTR_CUFFT_LIB is still opened and looked up first, and its failure is
 * reported as on a device, so the emulated tests see the loader fail. */
#define CTR_CUDA_LIBS_LOADER 1
#include "ctr-cuda-libs.cuh"

#include "ctr-cuda-libs-api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUSPARSE_VER_MAJOR
#define CUSPARSE_VER_MAJOR 12
#endif
#ifndef CUFFT_VER_MAJOR
#define CUFFT_VER_MAJOR 12
#endif
#define CTR_STR_(x) #x
#define CTR_STR(x) CTR_STR_ (x)

CtrCusparseTable ctr_cusparse;
CtrCufftTable ctr_cufft;
int ctr_cusparse_loaded;
int ctr_cufft_loaded;

static const char *const default_soname[] = {
  "libcusparse.so." CTR_STR (CUSPARSE_VER_MAJOR),
  "libcufft.so." CTR_STR (CUFFT_VER_MAJOR),
};
static const char *const env_name[] = { "CTR_CUSPARSE_LIB", "CTR_CUFFT_LIB" };
static const char *const lib_title[] = { "cuSPARSE", "cuFFT" };

extern "C" const char *
ctr_cuda_lib_soname (CtrCudaLib lib)
{
  const char *env = getenv (env_name[lib]);
  return env && *env ? env : default_soname[lib];
}

/* dlsym of @name into *slot; FALSE with the message in @err. */
static bool
resolve (void *h, const char *name, void **slot, CtrCudaLib lib, const char *soname, char *err)
{
  dlerror ();
  *slot = dlsym (h, name);
  if (*slot)
    return true;
  const char *why = dlerror ();
  snprintf (err, CTR_CUDA_ERR_LEN, "%s library %s has no %s: %s", lib_title[lib], soname, name,
            why ? why : "symbol is NULL");
  return false;
}

#ifdef CTR_EMU_BUILD
/* The harness's CPU versions (tests/gpu-emu/emu-cusparse.cc, emu-cufft.cc). */
static void
fill_emulated (CtrCudaLib lib)
{
#define CTR_EMU_FILL_SPARSE(f) ctr_cusparse.f = &::f;
#define CTR_EMU_FILL_FFT(f) ctr_cufft.f = &::f;
  if (lib == CTR_CUDA_LIB_CUSPARSE)
    {
      CTR_CUSPARSE_FUNCTIONS (CTR_EMU_FILL_SPARSE)
      ctr_cusparse_loaded = 1;
    }
  else
    {
      CTR_CUFFT_FUNCTIONS (CTR_EMU_FILL_FFT)
      ctr_cufft_loaded = 1;
    }
}
#endif

extern "C" CtrCudaStatus
ctr_cuda_lib_load (CtrCudaLib lib, char *err)
{
  if ((int) lib < 0 || lib > CTR_CUDA_LIB_CUFFT)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "no CUDA library %d", (int) lib);
      return CTR_CUDA_INVALID;
    }
  const char *soname = ctr_cuda_lib_soname (lib);
#ifdef CTR_EMU_BUILD
  /* the harness: open only a library named in the environment */
  if (soname == default_soname[lib])
    {
      fill_emulated (lib);
      return CTR_CUDA_OK;
    }
#endif
  /* RTLD_LOCAL: the names stay out of the global namespace (the emulation
   * harness defines the same ones) */
  void *h = dlopen (soname, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    {
      const char *why = dlerror ();
      snprintf (err, CTR_CUDA_ERR_LEN, "the %s library %s could not be loaded: %s", lib_title[lib], soname,
                why ? why : "dlopen failed");
      return CTR_CUDA_UNAVAILABLE;
    }
  bool ok = true;
  CtrCusparseTable ts;
  CtrCufftTable tf;
#define CTR_DLSYM_SPARSE(f) ok = ok && resolve (h, #f, (void **) &ts.f, lib, soname, err);
#define CTR_DLSYM_FFT(f) ok = ok && resolve (h, #f, (void **) &tf.f, lib, soname, err);
  if (lib == CTR_CUDA_LIB_CUSPARSE)
    {
      CTR_CUSPARSE_FUNCTIONS (CTR_DLSYM_SPARSE)
    }
  else
    {
      CTR_CUFFT_FUNCTIONS (CTR_DLSYM_FFT)
    }
  if (!ok)
    {
      dlclose (h);
      return CTR_CUDA_UNAVAILABLE;
    }
#ifdef CTR_EMU_BUILD
  /* every name found, but on the harness a device library would get
   * emulated pointers: its own versions are used */
  dlclose (h);
  fill_emulated (lib);
#else
  /* kept open for the process's life */
  if (lib == CTR_CUDA_LIB_CUSPARSE)
    {
      ctr_cusparse = ts;
      ctr_cusparse_loaded = 1;
    }
  else
    {
      ctr_cufft = tf;
      ctr_cufft_loaded = 1;
    }
#endif
  return CTR_CUDA_OK;
}
