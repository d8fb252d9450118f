/* emu-memory.cc — the device-memory table of the CUDA emulation harness
 * (tests/gpu-emu) and the copies, all bounds-checked.
 *
 * Every cudaMalloc, cudaHostAlloc, array and cuFFT work area is a row of
 * the table (base, size, kind).  Device memory is host memory: under ASan
 * each allocation is its own heap block of the exact size (ASan checks every
 * kernel access); otherwise it is mapped with an inaccessible page right
 * after its 256-byte-rounded end (an access past it faults).  New device
 * memory holds a NaN pattern (POISON): reading it through __ldg, cuFFT or
 * cuSPARSE is reported (compute-sanitizer's initcheck).  Every copy is
 * checked against the table: device ranges inside one live allocation, host
 * ranges not device memory, the direction as stated.
 *
 * Asynchronous copies follow CUDA's rules for pageable host memory: a
 * host-to-device copy reads the source at the call (staged), a
 * device-to-host copy completes before the call returns; with pinned memory
 * both happen in stream order, so a program that reuses a pinned buffer too
 * early reads or sends the wrong data here as on a device. */
#include "emu-internal.h"

#include <map>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ctr_emu {

static std::map<uintptr_t, Alloc> table;
static size_t used_bytes, peak_bytes;
static unsigned long long n_live[4], b_live[4];

static size_t
round_up (size_t n, size_t a)
{
  return (n + a - 1) / a * a;
}

const Alloc *
find_alloc (const void *p)
{
  const uintptr_t a = (uintptr_t) p;
  auto it = table.upper_bound (a);
  if (it == table.begin ())
    return nullptr;
  --it;
  const Alloc &al = it->second;
  return a < al.base + al.size || (a == al.base + al.size) ? &al : nullptr;
}

const Alloc *
device_range (const void *p, size_t n)
{
  const Alloc *a = find_alloc (p);
  if (a == nullptr || a->kind == ALLOC_PINNED)
    return nullptr;
  return (uintptr_t) p + n <= a->base + a->size ? a : nullptr;
}

bool
pinned_range (const void *p, size_t n)
{
  const Alloc *a = find_alloc (p);
  return a != nullptr && a->kind == ALLOC_PINNED && (uintptr_t) p + n <= a->base + a->size;
}

bool
is_poison (float f)
{
  uint32_t u;
  memcpy (&u, &f, 4);
  return u == POISON;
}

static void
fill_poison (void *p, size_t n)
{
  uint32_t *w = (uint32_t *) p;
  for (size_t i = 0; i < n / 4; i++)
    w[i] = POISON;
  memset ((char *) p + n / 4 * 4, 0xa5, n % 4);
}

void *
alloc_bytes (size_t n, size_t charged, AllocKind kind, cudaError_t *err)
{
  *err = cudaSuccess;
  const bool on_device = kind != ALLOC_PINNED;
  if (on_device && used_bytes + charged > config ().device_bytes)
    {
      *err = cudaErrorMemoryAllocation;
      return nullptr;
    }
  Alloc a = {};
#if defined(CTR_EMU_ASAN) || defined(CTR_EMU_TSAN) || defined(CTR_EMU_TRAFFIC)
  void *p = nullptr;
  if (posix_memalign (&p, 256, n ? n : 1) != 0)
    {
      *err = cudaErrorMemoryAllocation;
      return nullptr;
    }
  a.map = p;
  a.map_size = 0;
  a.base = (uintptr_t) p;
#else
  const size_t body = round_up (n ? n : 1, 256);
  const size_t page = (size_t) sysconf (_SC_PAGESIZE);
  const size_t span = round_up (body, page) + page;
  void *m = mmap (nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    {
      *err = cudaErrorMemoryAllocation;
      return nullptr;
    }
  mprotect ((char *) m + span - page, page, PROT_NONE);
  a.map = m;
  a.map_size = span;
  a.base = (uintptr_t) m + (span - page - body);
#endif
  a.size = n;
  a.charged = charged;
  a.kind = kind;
  if (on_device)
    fill_poison ((void *) a.base, n);
  table[a.base] = a;
  n_live[kind]++;
  b_live[kind] += on_device ? charged : n;
  if (on_device)
    {
      used_bytes += charged;
      if (used_bytes > peak_bytes)
        peak_bytes = used_bytes;
    }
  return (void *) a.base;
}

bool
free_bytes (void *p, AllocKind kind)
{
  auto it = table.find ((uintptr_t) p);
  if (it == table.end () || it->second.kind != kind)
    return false;
  Alloc a = it->second;
  table.erase (it);
  n_live[kind]--;
  b_live[kind] -= kind != ALLOC_PINNED ? a.charged : a.size;
  if (kind != ALLOC_PINNED)
    used_bytes -= a.charged;
#if defined(CTR_EMU_ASAN) || defined(CTR_EMU_TSAN) || defined(CTR_EMU_TRAFFIC)
  free (a.map);
#else
  munmap (a.map, a.map_size);
#endif
  return true;
}

size_t
device_used ()
{
  return used_bytes;
}

void
count_live (CtrEmuLive *l)
{
  l->device_allocs = n_live[ALLOC_DEVICE] + n_live[ALLOC_FFT_WORK];
  l->device_bytes = b_live[ALLOC_DEVICE] + b_live[ALLOC_FFT_WORK];
  l->pinned_allocs = n_live[ALLOC_PINNED];
  l->pinned_bytes = b_live[ALLOC_PINNED];
  l->arrays = n_live[ALLOC_ARRAY];
  l->array_bytes = b_live[ALLOC_ARRAY];
}

/* ------------------------------------------------------------ copies -- */

/* Copies done, by direction (ctr_emu_copies), counted when they run: a
 * copy in a graph counts at every launch of the graph. */
static std::atomic<unsigned long long> copy_calls[3], copy_bytes[3];

static void
count_copy (cudaMemcpyKind kind, size_t n)
{
  const int k = kind == cudaMemcpyHostToDevice ? 0 : kind == cudaMemcpyDeviceToHost ? 1 : 2;
  copy_calls[k]++;
  copy_bytes[k] += n;
}

struct CopyOp final : Op {
  void *dst;
  const void *src;
  size_t n;
  cudaMemcpyKind kind;
  std::vector<char> staged;   /* pageable host source, read at the call */
  void exec () override
  {
    memcpy (dst, staged.empty () ? src : staged.data (), n);
    count_copy (kind, n);
  }
  const char *what () const override { return "cudaMemcpyAsync"; }
};

/* A pitched copy (cudaMemcpy2DAsync): @height rows of @width bytes. */
struct Copy2DOp final : Op {
  char *dst;
  const char *src;
  size_t dpitch, spitch, width, height;
  cudaMemcpyKind kind;
  std::vector<char> staged;   /* pageable host source, read at the call (rows at @spitch) */
  void exec () override
  {
    const char *from = staged.empty () ? src : staged.data ();
    for (size_t r = 0; r < height; r++)
      memcpy (dst + r * dpitch, from + r * spitch, width);
    count_copy (kind, width * height);
  }
  const char *what () const override { return "cudaMemcpy2DAsync"; }
};

struct SetOp final : Op {
  void *dst;
  int value;
  size_t n;
  void exec () override
  {
    memset (dst, value, n);
    if (captured)
      traffic_memset (n);   /* a graph's memset is part of an iteration; a session's set-up is not */
  }
  const char *what () const override { return "cudaMemsetAsync"; }
};

/* Checks both ranges (@dn bytes at @dst, @sn at @src) for @kind; false (and
 * a device-side error) when a range is not what the kind says. */
static bool
check_ranges (const char *call, void *dst, size_t dn, const void *src, size_t sn, cudaMemcpyKind kind)
{
  const bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
    {
      device_error ("%s: copy kind %d is not supported by the harness", call, (int) kind);
      return false;
    }
  if (dst_dev ? device_range (dst, dn) == nullptr : device_range (dst, 0) != nullptr)
    {
      device_error ("%s: destination %p + %zu bytes is %s", call, dst, dn,
                    dst_dev ? "not inside one live device allocation" : "device memory, but the kind says host");
      return false;
    }
  if (src_dev ? device_range (src, sn) == nullptr : device_range (src, 0) != nullptr)
    {
      device_error ("%s: source %p + %zu bytes is %s", call, src, sn,
                    src_dev ? "not inside one live device allocation" : "device memory, but the kind says host");
      return false;
    }
  return true;
}

static bool
check_copy (const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
  return check_ranges (call, dst, n, src, n, kind);
}

/* Queues copy @op on @st; @blocking (a pageable host side, a blocking
 * call): not in a capture; @wait: done on return. */
static cudaError_t
submit_copy (const OpPtr &op, cudaStream_t st, bool blocking, bool wait)
{
  if (blocking && stream_capturing (st))
    {
      invalidate_capture (st);
      return set_last (cudaErrorStreamCaptureUnsupported);
    }
  cudaError_t e = enqueue (st, op);
  if (e != cudaSuccess)
    return set_last (e);
  if (wait)
    flush_stream (stream_of (st));
  return cudaSuccess;
}

static cudaError_t
copy_async (const char *call, void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t st, bool sync)
{
  if (fault (call))
    return set_last (cudaErrorLaunchFailure);
  if (!stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  if (n == 0)
    return cudaSuccess;
  if (!check_copy (call, dst, src, n, kind))
    return set_last (cudaErrorInvalidValue);
  const bool pageable_src = kind == cudaMemcpyHostToDevice && !pinned_range (src, n);
  const bool pageable_dst = kind == cudaMemcpyDeviceToHost && !pinned_range (dst, n);
  auto op = std::make_shared<CopyOp> ();
  op->dst = dst;
  op->src = src;
  op->n = n;
  op->kind = kind;
  if (pageable_src)
    op->staged.assign ((const char *) src, (const char *) src + n);
  return submit_copy (op, st, pageable_src || pageable_dst || sync, pageable_dst || sync);
}

static cudaError_t
copy_2d_async (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
               cudaMemcpyKind kind, cudaStream_t st)
{
  const char *call = "cudaMemcpy2DAsync";
  if (fault (call))
    return set_last (cudaErrorLaunchFailure);
  if (!stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  if (width == 0 || height == 0)
    return cudaSuccess;
  if (width > dpitch || width > spitch)
    return set_last (cudaErrorInvalidPitchValue);
  /* the bytes from the first row's start to the last row's end */
  const size_t dn = dpitch * (height - 1) + width, sn = spitch * (height - 1) + width;
  if (!check_ranges (call, dst, dn, src, sn, kind))
    return set_last (cudaErrorInvalidValue);
  const bool pageable_src = kind == cudaMemcpyHostToDevice && !pinned_range (src, sn);
  const bool pageable_dst = kind == cudaMemcpyDeviceToHost && !pinned_range (dst, dn);
  auto op = std::make_shared<Copy2DOp> ();
  op->dst = (char *) dst;
  op->src = (const char *) src;
  op->dpitch = dpitch;
  op->spitch = spitch;
  op->width = width;
  op->height = height;
  op->kind = kind;
  if (pageable_src)
    op->staged.assign ((const char *) src, (const char *) src + sn);
  return submit_copy (op, st, pageable_src || pageable_dst, pageable_dst);
}

#if !defined(CTR_EMU_ASAN) && !defined(CTR_EMU_TSAN) && !defined(CTR_EMU_TRAFFIC)
/* A fault on the guard page after an allocation: say whose it is. */
static void
on_segv (int sig, siginfo_t *si, void *ctx)
{
  const uintptr_t a = (uintptr_t) si->si_addr;
  for (const auto &kv : table)
    {
      const Alloc &al = kv.second;
      if (al.map_size && a >= (uintptr_t) al.map && a < (uintptr_t) al.map + al.map_size)
        {
          const char *k = current_kernel ();
          fprintf (stderr, "ctr-emu: device-side error: %s%s%saccess at %p, %zu bytes past the end of the %zu-byte "
                   "allocation at %p\n", k ? "kernel " : "", k ? k : "", k ? ": " : "", (void *) a,
                   (size_t) (a - (al.base + al.size)), al.size, (void *) al.base);
          abort ();
        }
    }
  signal (SIGSEGV, SIG_DFL);
  raise (SIGSEGV);
}
#endif

void
install_fault_handler ()
{
#if !defined(CTR_EMU_ASAN) && !defined(CTR_EMU_TSAN) && !defined(CTR_EMU_TRAFFIC)
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction (SIGSEGV, &sa, nullptr);
#endif
}

}  /* namespace ctr_emu */

using namespace ctr_emu;

extern "C" cudaError_t
cudaMalloc (void **p, size_t n)
{
  EMU_API;
  *p = nullptr;
  if (fault ("cudaMalloc"))
    return set_last (cudaErrorMemoryAllocation);
  if (capture_forbids ("cudaMalloc"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  cudaError_t e;
  *p = alloc_bytes (n, round_up (n ? n : 1, 512), ALLOC_DEVICE, &e);
  return set_last (e);
}

extern "C" cudaError_t
cudaFree (void *p)
{
  EMU_API;
  if (p == nullptr)
    return cudaSuccess;
  flush_all ();   /* cudaFree waits for the device */
  if (!free_bytes (p, ALLOC_DEVICE))
    {
      device_error ("cudaFree(%p): not the start of a live cudaMalloc allocation", p);
      return set_last (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}

extern "C" cudaError_t
cudaHostAlloc (void **p, size_t n, unsigned flags)
{
  EMU_API;
  *p = nullptr;
  if (fault ("cudaHostAlloc"))
    return set_last (cudaErrorMemoryAllocation);
  if (capture_forbids ("cudaHostAlloc"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  cudaError_t e;
  *p = alloc_bytes (n, 0, ALLOC_PINNED, &e);
  return set_last (e);
}

extern "C" cudaError_t
cudaMallocHost (void **p, size_t n)
{
  return cudaHostAlloc (p, n, 0);
}

extern "C" cudaError_t
cudaFreeHost (void *p)
{
  EMU_API;
  if (p == nullptr)
    return cudaSuccess;
  flush_all ();
  if (!free_bytes (p, ALLOC_PINNED))
    {
      device_error ("cudaFreeHost(%p): not a live cudaHostAlloc buffer", p);
      return set_last (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}

extern "C" cudaError_t
cudaMemcpy (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
  EMU_API;
  if (capture_forbids ("cudaMemcpy"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  flush_all ();   /* the legacy default stream waits for the blocking streams */
  return copy_async ("cudaMemcpy", dst, src, n, kind, nullptr, true);
}

extern "C" cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st)
{
  EMU_API;
  return copy_async ("cudaMemcpyAsync", dst, src, n, kind, st, false);
}

extern "C" cudaError_t
cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                   enum cudaMemcpyKind kind, cudaStream_t st)
{
  EMU_API;
  return copy_2d_async (dst, dpitch, src, spitch, width, height, kind, st);
}

static cudaError_t
memset_on (const char *call, void *p, int value, size_t n, cudaStream_t st, bool sync)
{
  if (fault (call))
    return set_last (cudaErrorLaunchFailure);
  if (!stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  if (n == 0)
    return cudaSuccess;
  if (device_range (p, n) == nullptr)
    {
      device_error ("%s(%p, %d, %zu): not inside one live device allocation", call, p, value, n);
      return set_last (cudaErrorInvalidValue);
    }
  auto op = std::make_shared<SetOp> ();
  op->dst = p;
  op->value = value;
  op->n = n;
  cudaError_t e = enqueue (st, op);
  if (e == cudaSuccess && sync)
    flush_stream (stream_of (st));
  return set_last (e);
}

extern "C" cudaError_t
cudaMemset (void *p, int value, size_t n)
{
  EMU_API;
  if (capture_forbids ("cudaMemset"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  return memset_on ("cudaMemset", p, value, n, nullptr, true);
}

extern "C" cudaError_t
cudaMemsetAsync (void *p, int value, size_t n, cudaStream_t st)
{
  EMU_API;
  return memset_on ("cudaMemsetAsync", p, value, n, st, false);
}

/* __constant__ memory is the host global itself: written at the call, in
 * the legacy stream's order (the kernels queued before it run first), read
 * by the kernels when they run — as on a device, where one process-wide
 * constant bank is shared by every host thread. */
extern "C" cudaError_t
cudaMemcpyToSymbol (const void *symbol, const void *src, size_t n, size_t offset, enum cudaMemcpyKind kind)
{
  EMU_API;
  if (fault ("cudaMemcpyToSymbol"))
    return set_last (cudaErrorLaunchFailure);
  if (capture_forbids ("cudaMemcpyToSymbol"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  if (kind != cudaMemcpyHostToDevice)
    {
      device_error ("cudaMemcpyToSymbol: kind %d (the harness supports host to device)", (int) kind);
      return set_last (cudaErrorInvalidValue);
    }
  flush_all ();
  memcpy ((char *) symbol + offset, src, n);
  count_copy (cudaMemcpyHostToDevice, n);
  return cudaSuccess;
}

extern "C" void
ctr_emu_copies (CtrEmuCopies *out)
{
  EMU_API;
  out->h2d_calls = copy_calls[0];
  out->h2d_bytes = copy_bytes[0];
  out->d2h_calls = copy_calls[1];
  out->d2h_bytes = copy_bytes[1];
  out->d2d_calls = copy_calls[2];
  out->d2d_bytes = copy_bytes[2];
}

extern "C" size_t
ctr_emu_peak_device_bytes (void)
{
  EMU_API;
  return peak_bytes;
}

extern "C" void
ctr_emu_reset_peak (void)
{
  EMU_API;
  peak_bytes = used_bytes;
}
