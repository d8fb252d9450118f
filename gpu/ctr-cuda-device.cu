/* ctr-cuda-device.cu — run-time detection of the CUDA device (driver,
 * device count, name, memory, peak bandwidth) and the choice of the
 * device this process uses (one per node-local rank, round-robin). */
#include "ctr-cuda-common.cuh"

#include <string.h>

thread_local const char *ctr_cuda_inner_call = nullptr;
static int local_rank = -1;                /* ctr_cuda_device_set_local_rank */
static int device_chosen = 0;              /* ctr_cuda_device_query's choice (atomic) */
static thread_local int device_bound = 0;  /* this thread's current device, as set here */

void
ctr_cuda_bind_thread (void)
{
  const int want = __atomic_load_n (&device_chosen, __ATOMIC_RELAXED);
  if (want != device_bound && cudaSetDevice (want) == cudaSuccess)
    device_bound = want;
}

extern "C" void
ctr_cuda_device_set_local_rank (int rank)
{
  local_rank = rank < 0 ? -1 : rank;
}

extern "C" CtrCudaStatus
ctr_cuda_device_query (CtrCudaDeviceInfo *info, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  memset (info, 0, sizeof *info);
  cudaDeviceProp prop;
  int clock_khz = 0, bus_bits = 0;
  cudaError_t e = cudaDriverGetVersion (&info->driver_version);
  if (e != cudaSuccess || info->driver_version == 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "no CUDA driver (libcuda.so not found or not loadable; cudaDriverGetVersion: %s)",
                e != cudaSuccess ? cudaGetErrorString (e) : "version 0");
      cudaGetLastError ();
      return CTR_CUDA_UNAVAILABLE;
    }
  CK (cudaRuntimeGetVersion (&info->runtime_version));
  if (info->driver_version < info->runtime_version)
    {
      snprintf (err, CTR_CUDA_ERR_LEN,
                "the CUDA driver (%d) is older than the runtime this program was built with (%d)",
                info->driver_version, info->runtime_version);
      return CTR_CUDA_UNAVAILABLE;
    }
  e = cudaGetDeviceCount (&info->count);
  if (e != cudaSuccess || info->count == 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "no CUDA device (cudaGetDeviceCount: %s)",
                e != cudaSuccess ? cudaGetErrorString (e) : "none found");
      cudaGetLastError ();
      info->count = 0;
      return CTR_CUDA_UNAVAILABLE;
    }
  info->device = ctr_cuda_device_for_rank (local_rank, info->count);
  __atomic_store_n (&device_chosen, info->device, __ATOMIC_RELAXED);
  CK (cudaSetDevice (info->device));
  device_bound = info->device;
  CK (cudaGetDeviceProperties (&prop, info->device));
  snprintf (info->name, sizeof info->name, "%.127s", prop.name);
  info->cc_major = prop.major;
  info->cc_minor = prop.minor;
  if (prop.major < 8)
    {
      snprintf (err, CTR_CUDA_ERR_LEN,
                "%.127s has compute capability %d.%d; this build has code for 8.0 and 9.0 (+ PTX 9.0)",
                prop.name, prop.major, prop.minor);
      return CTR_CUDA_UNAVAILABLE;
    }
  CK (cudaMemGetInfo (&info->free_bytes, &info->total_bytes));
  /* cudaDeviceProp lost memoryClockRate in CUDA 13: ask the attributes. */
  if (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrMemoryClockRate, info->device) == cudaSuccess
      && cudaDeviceGetAttribute (&bus_bits, cudaDevAttrGlobalMemoryBusWidth, info->device) == cudaSuccess)
    info->bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  cudaGetLastError ();
  return CTR_CUDA_OK;
fail:
  return st;
}
