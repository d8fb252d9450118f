/* emu-device.cc — the emulated device (tests/gpu-emu): configuration, the
 * API lock, device-side error reports, fault injection, last errors, the
 * device queries, and the ctr-emu.h calls of the tests. */
#include <string>
#include "emu-internal.h"

#include <execinfo.h>
#include <string>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

namespace ctr_emu {

std::recursive_mutex &
api_lock ()
{
  static std::recursive_mutex m;
  return m;
}

Config &
config ()
{
  static Config c;
  return c;
}

static std::atomic<unsigned long long> n_device_errors { 0 };
static std::atomic<int> jitter { 0 };

Jitter::~Jitter ()
{
  if (jitter.load (std::memory_order_relaxed))
    {
      static thread_local unsigned seed = 12345u + (unsigned) (uintptr_t) &seed;
      seed = seed * 1103515245u + 12345u;
      usleep ((seed >> 16) % 300);
    }
}

/* Kernel launches per emulated device (the launching thread's current
 * device; under the API lock), printed at exit when there are several. */
static unsigned long long launches_on[16];

static void
print_summary ()
{
  if (n_device_errors.load () > 0 && !config ().quiet)
    fprintf (stderr, "ctr-emu: %llu device-side error(s) found\n", n_device_errors.load ());
  if (config ().devices > 1)
    {
      /* One write, so that the lines of processes sharing a stream do not mix. */
      std::string line = "ctr-emu: kernel launches per emulated device:";
      for (int d = 0; d < config ().devices; d++)
        line += " " + std::to_string (d) + ":" + std::to_string (launches_on[d]);
      line += "\n";
      fputs (line.c_str (), stderr);
      fflush (stderr);
    }
}

/* Fault injection state (under the API lock). */
static unsigned long long fault_calls, fault_at;
static const char *fault_name;
static bool fault_record;
static std::vector<uint64_t> fault_sites;   /* the call stack of each call since the arm */

/* A failable call's place in the program: a hash of its call stack (the
 * return addresses, as glibc's backtrace() finds them).  Two calls made in
 * turn by the same loop share it; the same call reached from two places
 * does not. */
static uint64_t
call_stack_hash ()
{
  void *frames[64];
  const int n = backtrace (frames, 64);
  uint64_t h = 1469598103934665603ull;   /* FNV-1a over the addresses */
  for (int i = 0; i < n; i++)
    {
      h ^= (uint64_t) (uintptr_t) frames[i];
      h *= 1099511628211ull;
    }
  return h;
}

void
init ()
{
  static bool done = false;
  if (done)
    return;
  done = true;
  Config &c = config ();
  if (const char *e = getenv ("CTR_EMU_THREADS"))
    c.threads = (unsigned) strtoul (e, nullptr, 10);
  if (c.threads < 1)
    c.threads = 1;
  if (c.threads > 64)
    c.threads = 64;
#if defined(CTR_EMU_TRAFFIC)
  c.threads = 1;   /* the traffic model counts on one worker */
#endif
  if (const char *e = getenv ("CTR_EMU_DEVICE_MB"))
    c.device_bytes = (size_t) strtoull (e, nullptr, 10) << 20;
  if (const char *e = getenv ("CTR_EMU_DEVICES"))
    c.devices = (int) strtol (e, nullptr, 10);
  if (c.devices < 1)
    c.devices = 1;
  if (c.devices > 16)
    c.devices = 16;
  if (const char *e = getenv ("CTR_EMU_NO_DEVICE"))
    c.no_device = e[0] == '1';
  if (const char *e = getenv ("CTR_EMU_ON_ERROR"))
    c.abort_on_error = strcmp (e, "continue") != 0;
  if (const char *e = getenv ("CTR_EMU_QUIET"))
    c.quiet = e[0] == '1';
  if (const char *e = getenv ("CTR_EMU_CORRUPT_KERNEL"))
    c.corrupt_prefix = e;
  if (const char *e = getenv ("CTR_EMU_FAULT_AT"))
    fault_at = strtoull (e, nullptr, 10);
  atexit (print_summary);
  install_fault_handler ();
}

void
device_error (const char *fmt, ...)
{
  n_device_errors++;
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "ctr-emu: device-side error: ");
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n");
  va_end (ap);
  if (config ().abort_on_error)
    {
      fprintf (stderr, "ctr-emu: aborting (CTR_EMU_ON_ERROR=continue to go on)\n");
      abort ();
    }
}

bool
fault (const char *call)
{
  fault_calls++;
  if (fault_record)
    fault_sites.push_back (call_stack_hash ());
  if (fault_at != 0 && fault_calls == fault_at)
    {
      fault_at = 0;
      fault_name = call;
      return true;
    }
  return false;
}

static thread_local cudaError_t last_error = cudaSuccess;

cudaError_t
set_last (cudaError_t e)
{
  if (e != cudaSuccess)
    last_error = e;
  return e;
}

double
now_ms ()
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

}  /* namespace ctr_emu */

using namespace ctr_emu;

/* ------------------------------------------------------------- errors -- */

extern "C" cudaError_t
cudaGetLastError (void)
{
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

extern "C" cudaError_t
cudaPeekAtLastError (void)
{
  return last_error;
}

extern "C" const char *
cudaGetErrorName (cudaError_t e)
{
  switch (e)
    {
#define N(x) case x: return #x
      N (cudaSuccess); N (cudaErrorInvalidValue); N (cudaErrorMemoryAllocation);
      N (cudaErrorInitializationError); N (cudaErrorInvalidConfiguration); N (cudaErrorInvalidPitchValue);
      N (cudaErrorInvalidDevicePointer); N (cudaErrorInvalidMemcpyDirection);
      N (cudaErrorInsufficientDriver); N (cudaErrorNoDevice); N (cudaErrorInvalidDevice);
      N (cudaErrorInvalidResourceHandle); N (cudaErrorNotReady); N (cudaErrorIllegalAddress);
      N (cudaErrorLaunchOutOfResources); N (cudaErrorLaunchFailure);
      N (cudaErrorStreamCaptureUnsupported); N (cudaErrorStreamCaptureInvalidated);
      N (cudaErrorStreamCaptureUnmatched); N (cudaErrorStreamCaptureUnjoined);
      N (cudaErrorStreamCaptureImplicit); N (cudaErrorStreamCaptureWrongThread);
      N (cudaErrorUnknown);
#undef N
    }
  return "cudaErrorUnknown";
}

extern "C" const char *
cudaGetErrorString (cudaError_t e)
{
  switch (e)
    {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    default: return "unknown error";
    }
}

/* ------------------------------------------------------------- device -- */

extern "C" cudaError_t
cudaDriverGetVersion (int *v)
{
  EMU_API;
  if (fault ("cudaDriverGetVersion"))
    return set_last (cudaErrorUnknown);
  *v = 13000;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaRuntimeGetVersion (int *v)
{
  EMU_API;
  if (fault ("cudaRuntimeGetVersion"))
    return set_last (cudaErrorUnknown);
  *v = 12080;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaGetDeviceCount (int *n)
{
  EMU_API;
  if (fault ("cudaGetDeviceCount"))
    return set_last (cudaErrorUnknown);
  *n = config ().no_device ? 0 : config ().devices;
  return config ().no_device ? set_last (cudaErrorNoDevice) : cudaSuccess;
}

/* The current device of each host thread, as CUDA keeps it (0 until the
 * thread sets one).  The emulated devices share one memory: what differs
 * between them is only the id a thread reports. */
static thread_local int current_device = 0;

static bool
valid_device (int dev)
{
  return dev >= 0 && dev < config ().devices && !config ().no_device;
}

extern "C" cudaError_t
cudaSetDevice (int dev)
{
  EMU_API;
  if (fault ("cudaSetDevice"))
    return set_last (cudaErrorUnknown);
  if (!valid_device (dev))
    return set_last (cudaErrorInvalidDevice);
  current_device = dev;
  return cudaSuccess;
}

void
ctr_emu::count_launch ()
{
  launches_on[current_device]++;
}

extern "C" unsigned long long
ctr_emu_launches_on (int dev)
{
  EMU_API;
  return dev >= 0 && dev < 16 ? launches_on[dev] : 0;
}

extern "C" cudaError_t
cudaGetDevice (int *dev)
{
  EMU_API;
  if (config ().no_device)
    return set_last (cudaErrorNoDevice);
  *dev = current_device;
  return cudaSuccess;
}

/* What the harness answers as its device: the model of an H100 (SXM, 80 GB)
 * that the kernels are written for; the name says it is not one. */
extern "C" cudaError_t
cudaGetDeviceProperties (cudaDeviceProp *prop, int dev)
{
  EMU_API;
  if (fault ("cudaGetDeviceProperties"))
    return set_last (cudaErrorUnknown);
  if (!valid_device (dev))
    return set_last (cudaErrorInvalidDevice);
  memset (prop, 0, sizeof *prop);
  snprintf (prop->name, sizeof prop->name, "CTR emulated CUDA device (CPU harness, not a GPU)");
  prop->totalGlobalMem = config ().device_bytes;
#if defined(__CUDA_ARCH__)
  prop->major = __CUDA_ARCH__ / 100;
  prop->minor = (__CUDA_ARCH__ % 100) / 10;
#else
  prop->major = 9;
  prop->minor = 0;
#endif
  prop->multiProcessorCount = 132;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7fffffff;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->sharedMemPerBlock = 48 << 10;
  prop->textureAlignment = 512;
  prop->maxTexture2DLayered[0] = 32768;
  prop->maxTexture2DLayered[1] = 32768;
  prop->maxTexture2DLayered[2] = 2048;
  prop->l2CacheSize = 50 << 20;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int dev)
{
  EMU_API;
  if (fault ("cudaDeviceGetAttribute"))
    return set_last (cudaErrorUnknown);
  if (!valid_device (dev))
    return set_last (cudaErrorInvalidDevice);
  switch (attr)
    {
    case cudaDevAttrMemoryClockRate: *value = 2619000; return cudaSuccess;   /* kHz: HBM3 of an H100 SXM */
    case cudaDevAttrGlobalMemoryBusWidth: *value = 5120; return cudaSuccess;  /* bits: 2·2.619 GHz·640 B = 3.35 TB/s */
    }
  return set_last (cudaErrorInvalidValue);
}

extern "C" cudaError_t
cudaMemGetInfo (size_t *free_b, size_t *total_b)
{
  EMU_API;
  if (fault ("cudaMemGetInfo"))
    return set_last (cudaErrorUnknown);
  const size_t total = config ().device_bytes, used = device_used ();
  *free_b = used < total ? total - used : 0;
  *total_b = total;
  return cudaSuccess;
}

/* ------------------------------------------------------- test calls -- */

extern "C" void
ctr_emu_fault_arm (unsigned long long nth)
{
  EMU_API;
  fault_calls = 0;
  fault_at = nth;
  fault_name = nullptr;
  fault_sites.clear ();
}

extern "C" void
ctr_emu_fault_record_sites (int on)
{
  EMU_API;
  fault_record = on != 0;
  fault_sites.clear ();
}

extern "C" unsigned long long
ctr_emu_fault_site (unsigned long long i)
{
  EMU_API;
  return i >= 1 && i <= fault_sites.size () ? fault_sites[i - 1] : 0;
}

extern "C" unsigned long long
ctr_emu_fault_calls (void)
{
  EMU_API;
  return fault_calls;
}

extern "C" const char *
ctr_emu_fault_fired (void)
{
  EMU_API;
  return fault_name;
}

extern "C" void
ctr_emu_set_device_memory (size_t total)
{
  EMU_API;
  config ().device_bytes = total ? total : (size_t) 81559 << 20;
}

extern "C" size_t
ctr_emu_device_memory (void)
{
  EMU_API;
  return config ().device_bytes;
}

extern "C" void
ctr_emu_host_jitter (int on)
{
  jitter.store (on);
}

extern "C" void
ctr_emu_corrupt_kernel (const char *prefix)
{
  EMU_API;
  config ().corrupt_prefix = prefix ? prefix : "";
}

extern "C" unsigned long long
ctr_emu_device_errors (void)
{
  return n_device_errors.load ();
}

extern "C" void
ctr_emu_live (CtrEmuLive *l)
{
  EMU_API;
  memset (l, 0, sizeof *l);
  count_live (l);
  count_textures (l);
  count_streams (l);
  count_fft (l);
  count_sparse (l);
}

extern "C" int
ctr_emu_live_diff (const CtrEmuLive *a, const CtrEmuLive *b, char *buf, size_t len)
{
  static const char *const names[] = {
    "device_allocs", "device_bytes", "pinned_allocs", "pinned_bytes", "arrays", "array_bytes",
    "textures", "streams", "events", "graphs", "graph_execs", "fft_plans", "sparse_handles",
    "sparse_mats", "sparse_vecs",
  };
  static_assert (sizeof (CtrEmuLive) == sizeof names / sizeof names[0] * sizeof (unsigned long long), "fields");
  const unsigned long long *x = (const unsigned long long *) a, *y = (const unsigned long long *) b;
  int n = 0;
  size_t at = 0;
  if (len)
    buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (x[i] != y[i])
      {
        if (at < len)
          at += snprintf (buf + at, len - at, "%s%s %llu → %llu", n ? ", " : "", names[i], x[i], y[i]);
        n++;
      }
  return n;
}
