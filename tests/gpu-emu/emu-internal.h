/* emu-internal.h — shared inside the CUDA emulation harness (tests/gpu-emu):
 * the API lock, device errors, fault injection, the device-memory table,
 * stream operations and kernel execution.  See README.md for the model. */
#pragma once

#include "cuda_runtime.h"
#include "ctr-emu.h"

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

/* CTR_EMU_ASAN / CTR_EMU_TSAN: the variant the harness serves (meson.build);
 * the harness itself is not instrumented, it annotates fibers for them. */

#if defined(CTR_EMU_TSAN)
extern "C" void __tsan_ignore_thread_begin (void);
extern "C" void __tsan_ignore_thread_end (void);
#endif

namespace ctr_emu {

/* The harness's own bookkeeping on a CUDA thread's fiber (barriers, warp
 * exchanges, checks) is not the program's: TSan does not look at it. */
struct TsanIgnore {
#if defined(CTR_EMU_TSAN)
  TsanIgnore () { __tsan_ignore_thread_begin (); }
  ~TsanIgnore () { __tsan_ignore_thread_end (); }
#else
  TsanIgnore () {}
#endif
};

/* ------------------------------------------------------------ global -- */

/* One recursive lock around every API call and the execution of queued
 * work (kernels run on the worker pool while the flushing thread holds it). */
std::recursive_mutex &api_lock ();
void init ();
/* After the lock is released: a short random sleep when host jitter is on
 * (ctr_emu_host_jitter), so that host threads interleave between calls. */
struct Jitter {
  ~Jitter ();
};
#define EMU_API                                                               \
  ::ctr_emu::Jitter emu_jitter_;                                              \
  std::lock_guard<std::recursive_mutex> emu_guard_ (::ctr_emu::api_lock ()); \
  ::ctr_emu::init ()

struct Config {
  unsigned threads = 2;
  size_t device_bytes = (size_t) 81559 << 20;   /* H100 80GB: 79.6 GiB */
  bool no_device = false;
  int devices = 1;                              /* CTR_EMU_DEVICES: ids 0 .. devices − 1 */
  bool abort_on_error = true;
  bool quiet = false;
  std::string corrupt_prefix;
};
Config &config ();

/* A device-side fault (out of bounds, never-written memory read, barrier
 * divergence, a copy in the wrong direction): printed with the kernel or
 * call; aborts unless CTR_EMU_ON_ERROR=continue. */
void device_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Counts one failable call named @call; true when it must fail now. */
bool fault (const char *call);
/* The calling thread's last error (cudaGetLastError). */
cudaError_t set_last (cudaError_t e);

/* ------------------------------------------------------------ memory -- */

enum AllocKind { ALLOC_DEVICE, ALLOC_PINNED, ALLOC_ARRAY, ALLOC_FFT_WORK };
struct Alloc {
  uintptr_t base;
  size_t size;        /* bytes asked for */
  size_t charged;     /* bytes counted against the device (arrays: padded) */
  AllocKind kind;
  void *map;          /* what to release */
  size_t map_size;
};
/* The allocation containing @p (base ≤ p < base + size, or p == base + size
 * for an empty range at the end), or nullptr. */
const Alloc *find_alloc (const void *p);
/* [p, p + n) inside one live allocation of a device kind (device, array,
 * work area): the allocation, else nullptr. */
const Alloc *device_range (const void *p, size_t n);
/* [p, p + n) inside one pinned host buffer. */
bool pinned_range (const void *p, size_t n);
void *alloc_bytes (size_t n, size_t charged, AllocKind kind, cudaError_t *err);
bool free_bytes (void *p, AllocKind kind);
size_t device_used ();
void count_live (CtrEmuLive *l);
/* Floats holding this pattern were never written (initcheck). */
enum : uint32_t { POISON = 0x7fa5a5a5u };
bool is_poison (float f);

/* ------------------------------------------------------------ streams -- */

struct Op {
  bool captured = false;     /* recorded into a graph (the traffic model counts those memsets) */
  virtual ~Op () {}
  virtual void exec () = 0;
  virtual const char *what () const = 0;
};
typedef std::shared_ptr<Op> OpPtr;

}  /* namespace ctr_emu */

struct CUstream_st {
  unsigned flags = 0;
  std::deque<ctr_emu::OpPtr> q;
  bool capturing = false, capture_invalid = false;
  cudaStreamCaptureMode capture_mode = cudaStreamCaptureModeGlobal;
  std::thread::id capture_thread;
  std::vector<ctr_emu::OpPtr> captured;
};
struct CUevent_st {
  bool recorded = false, complete = false;
  CUstream_st *stream = nullptr;
  double t_ms = 0;
  unsigned long long seq = 0;
};
struct CUgraph_st {
  std::vector<ctr_emu::OpPtr> ops;
};
struct CUgraphExec_st {
  std::vector<ctr_emu::OpPtr> ops;
};

namespace ctr_emu {

/* Null → the legacy default stream. */
CUstream_st *stream_of (cudaStream_t st);
bool stream_valid (cudaStream_t st);
/* Queues @op on @st, or adds it to the stream's capture. */
cudaError_t enqueue (cudaStream_t st, OpPtr op);
void flush_stream (CUstream_st *s);
void flush_all ();
/* True (and the capture invalidated) when this thread has a capture that
 * forbids @call (cudaStreamCaptureModeGlobal/ThreadLocal). */
bool capture_forbids (const char *call);
bool stream_capturing (cudaStream_t st);
void invalidate_capture (cudaStream_t st);
double now_ms ();

/* ---------------------------------------------------------- execution -- */

/* Counts a kernel launch on the calling thread's current device (under the
 * API lock; the counts are printed at exit with CTR_EMU_DEVICES > 1). */
void count_launch ();
void run_kernel (KernelCall *call, dim3 grid, dim3 block, const char *file, int line);
/* The kernel the calling worker runs now, or nullptr. */
const char *current_kernel ();
void install_fault_handler ();

/* Texture arrays (emu-texture.cc). */
void texture_forget_array (cudaArray_t a);
void count_textures (CtrEmuLive *l);
void count_streams (CtrEmuLive *l);
void count_fft (CtrEmuLive *l);
void count_sparse (CtrEmuLive *l);

/* Traffic model hooks (emu-traffic.cc; no-ops without CTR_EMU_TRAFFIC). */
void traffic_launch_begin (const char *name);
void traffic_launch_end ();
void traffic_block_begin (unsigned n_threads);
void traffic_warp_end (unsigned warp);
void traffic_atomic (const void *p, size_t n);
void traffic_memset (size_t n);
/* True when sampling skips this launch of @name. */
bool traffic_skip (const char *name);
bool traffic_skip_block (unsigned long long b);
/* The running CUDA thread's index in its block, or -1. */
int current_linear ();

}  /* namespace ctr_emu */
