/* ctr-cuda-common.cuh — error checking shared by the .cu files: every CUDA
 * call goes through CK(), which writes the call, the file:line and CUDA's
 * error string into err and jumps to the function's `fail:` label, where the
 * function frees what it allocated. */
#pragma once

#include "ctr-cuda-api.h"

#include <cuda_runtime.h>
#include <stdio.h>

/* The innermost CUDA call that failed inside a helper that queues several
 * (set by ctr_cuda_note, reported and cleared by ctr_cuda_fail), so that the
 * message names it and not only the helper (ctr-cuda-device.cu). */
extern thread_local const char *ctr_cuda_inner_call;

/* CUDA keeps a current device per host thread, 0 until set: makes the
 * device this process uses (ctr_cuda_device_query; 0 by default) the
 * calling thread's when it is not yet (ctr-cuda-device.cu).  Called by
 * CK() before every call. */
void ctr_cuda_bind_thread (void);

static inline cudaError_t
ctr_cuda_note (cudaError_t e, const char *call)
{
  if (e != cudaSuccess && ctr_cuda_inner_call == nullptr)
    ctr_cuda_inner_call = call;
  return e;
}

/* Clears a non-sticky error that was handled (a refused capture). */
static inline void
ctr_cuda_clear_error (void)
{
  cudaGetLastError ();
  ctr_cuda_inner_call = nullptr;
}

static inline CtrCudaStatus
ctr_cuda_fail (cudaError_t e, const char *what, const char *file, int line, char *err)
{
  const char *inner = ctr_cuda_inner_call;
  if (err && inner)
    snprintf (err, CTR_CUDA_ERR_LEN, "%s failed (in %s, %s:%d): %s", inner, what, file, line, cudaGetErrorString (e));
  else if (err)
    snprintf (err, CTR_CUDA_ERR_LEN, "%s failed (%s:%d): %s", what, file, line, cudaGetErrorString (e));
  ctr_cuda_clear_error ();
  return e == cudaErrorMemoryAllocation ? CTR_CUDA_NO_MEMORY : CTR_CUDA_UNAVAILABLE;
}

#define CK(call)                                                             \
  do {                                                                       \
    ctr_cuda_bind_thread ();                                                 \
    cudaError_t ck_e_ = (call);                                              \
    if (ck_e_ != cudaSuccess)                                                \
      {                                                                      \
        st = ctr_cuda_fail (ck_e_, #call, __FILE__, __LINE__, err);          \
        goto fail;                                                           \
      }                                                                      \
  } while (0)

/* After a kernel launch: the launch error only (bad configuration, too many
 * resources).  A fault while the kernel runs surfaces at the next
 * synchronising call, which goes through CK() as well. */
#define CK_LAUNCH() CK (cudaGetLastError ())

/* Free device memory minus a safety margin (64 MiB + 5 %) must cover @need. */
static inline CtrCudaStatus
ctr_cuda_check_free (size_t need, const char *what, char *err)
{
  size_t fr = 0, tot = 0;
  ctr_cuda_bind_thread ();
  cudaError_t e = cudaMemGetInfo (&fr, &tot);
  if (e != cudaSuccess)
    return ctr_cuda_fail (e, "cudaMemGetInfo", __FILE__, __LINE__, err);
  size_t margin = ((size_t) 64 << 20) + tot / 20;
  if (fr < margin || need > fr - margin)
    {
      if (err)
        snprintf (err, CTR_CUDA_ERR_LEN,
                  "too little device memory for %s: %.1f MiB needed, %.1f MiB free of %.1f MiB",
                  what, need / 1048576.0, fr / 1048576.0, tot / 1048576.0);
      return CTR_CUDA_NO_MEMORY;
    }
  return CTR_CUDA_OK;
}
