/* ctr-cuda-libs.h — cuSPARSE and cuFFT, loaded on first need (GLib side of
 * ctr-cuda-libs-api.h). */
#pragma once

#include "ctr-cuda-libs-api.h"

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_cuda_lib_require:
 * @lib: the library a GPU path is about to call
 * @error: CTR_ERROR_BACKEND_UNAVAILABLE when it cannot be loaded; the
 *   message names the library, the soname tried and the loader's reason
 *   (dlerror), e.g. "the cuFFT library libcufft.so.12 could not be
 *   loaded: libcufft.so.12: cannot open shared object file: …"
 *
 * Loads @lib the first time any thread asks (ctr_cuda_lib_load, once per
 * process and library: later calls return the first answer).  Called only
 * after a device answered (ctr_cuda_probe), so that a machine without one
 * never maps the libraries.  Thread-safe.
 *
 * Returns: TRUE when @lib's functions can be called.
 */
gboolean ctr_cuda_lib_require (CtrCudaLib lib, GError **error);

G_END_DECLS
