/* cuda_runtime.h — the CUDA runtime subset that the gpu/ .cu files use, for the CPU
 * emulation harness of tests/gpu-emu (never part of the product; see
 * tests/gpu-emu/README.md).  The .cu sources are compiled unchanged by g++
 * against this header after tests/gpu-emu/cu2cc.py rewrote their launches
 * `k<<<g, b, s, st>>>(args)` into `::ctr_emu::launcher (k, "k", …)(args)`.
 *
 * Device side: every CUDA thread runs as a fiber with its own stack
 * (emu-exec.cc); threadIdx/blockIdx are per-fiber values, __shared__ is per
 * block (a thread_local static: the blocks of one worker run one after
 * another), __syncthreads is a block barrier, warp shuffles an exchange
 * plus a warp barrier, atomics are CPU atomics.  Host side: a device-memory
 * table with bounds checks, streams, events and graphs recorded and replayed
 * in issue order (emu-runtime.cc).  Names, types and enum values are those
 * of the CUDA 12/13 runtime for the calls used here; nothing else exists.
 */
#pragma once

#ifndef __cplusplus
#error "the CUDA emulation headers are C++ (the .cu files are compiled as C++)"
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tuple>
#include <type_traits>
#include <utility>

/* ------------------------------------------------------ qualifiers -- */

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline __attribute__ ((always_inline))
#define __launch_bounds__(...)
/* One block's shared memory: the blocks a worker runs follow each other, and
 * a block's fibers never leave their worker, so a thread_local static is
 * exactly "per block" (uninitialised at block start, as on the device). */
#define __shared__ static thread_local
#define CUDART_VERSION 12080

static constexpr int warpSize = 32;

/* --------------------------------------------------- vector types -- */

struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  constexpr dim3 (unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x (vx), y (vy), z (vz) {}
  constexpr dim3 (uint3 v) : x (v.x), y (v.y), z (v.z) {}
};
struct __attribute__ ((aligned (8))) float2 { float x, y; };
struct __attribute__ ((aligned (16))) float4 { float x, y, z, w; };
static inline float2 make_float2 (float x, float y) { return float2 { x, y }; }
static inline float4 make_float4 (float x, float y, float z, float w) { return float4 { x, y, z, w }; }

/* -------------------------------------------------------- errors -- */

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureUnmatched = 903,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureImplicit = 906,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

/* --------------------------------------------------- host handles -- */

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct cudaArray *cudaArray_t;
typedef unsigned long long cudaTextureObject_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaHostAllocDefault 0x00
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaEventDefault 0x00

enum cudaDeviceAttr {
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor;
  int multiProcessorCount;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t sharedMemPerBlock;
  size_t textureAlignment;
  int maxTexture2DLayered[3];
  int l2CacheSize;
};

/* ------------------------------------------------ arrays, textures -- */

enum cudaChannelFormatKind { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1, cudaChannelFormatKindFloat = 2 };
struct cudaChannelFormatDesc { int x, y, z, w; enum cudaChannelFormatKind f; };
template <class T> cudaChannelFormatDesc cudaCreateChannelDesc (void);
template <> inline cudaChannelFormatDesc
cudaCreateChannelDesc<float> (void)
{
  return cudaChannelFormatDesc { 32, 0, 0, 0, cudaChannelFormatKindFloat };
}

struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
static inline cudaExtent make_cudaExtent (size_t w, size_t h, size_t d) { return cudaExtent { w, h, d }; }
static inline cudaPos make_cudaPos (size_t x, size_t y, size_t z) { return cudaPos { x, y, z }; }
static inline cudaPitchedPtr make_cudaPitchedPtr (void *p, size_t pitch, size_t xs, size_t ys) { return cudaPitchedPtr { p, pitch, xs, ys }; }

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  enum cudaMemcpyKind kind;
};

enum cudaResourceType { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1, cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { void *devPtr; cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
  } res;
};
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
};
struct cudaResourceViewDesc;

/* ------------------------------------------------------- host API -- */

extern "C" {
cudaError_t cudaGetLastError (void);
cudaError_t cudaPeekAtLastError (void);
const char *cudaGetErrorString (cudaError_t e);
const char *cudaGetErrorName (cudaError_t e);
cudaError_t cudaDriverGetVersion (int *v);
cudaError_t cudaRuntimeGetVersion (int *v);
cudaError_t cudaGetDeviceCount (int *n);
cudaError_t cudaSetDevice (int dev);
cudaError_t cudaGetDevice (int *dev);
cudaError_t cudaGetDeviceProperties (cudaDeviceProp *prop, int dev);
cudaError_t cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int dev);
cudaError_t cudaDeviceSynchronize (void);
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes);

cudaError_t cudaMalloc (void **p, size_t n);
cudaError_t cudaFree (void *p);
cudaError_t cudaHostAlloc (void **p, size_t n, unsigned flags);
cudaError_t cudaMallocHost (void **p, size_t n);
cudaError_t cudaFreeHost (void *p);
cudaError_t cudaMemcpy (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t st);
/* @height rows of @width bytes, row r from @src + r·@spitch to @dst + r·@dpitch
 * (counted as one copy of width·height bytes). */
cudaError_t cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                               size_t height, enum cudaMemcpyKind kind, cudaStream_t st);
cudaError_t cudaMemset (void *p, int value, size_t n);
cudaError_t cudaMemsetAsync (void *p, int value, size_t n, cudaStream_t st);
cudaError_t cudaMemcpyToSymbol (const void *symbol, const void *src, size_t n, size_t offset, enum cudaMemcpyKind kind);

cudaError_t cudaStreamCreate (cudaStream_t *st);
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *st, unsigned flags);
cudaError_t cudaStreamDestroy (cudaStream_t st);
cudaError_t cudaStreamSynchronize (cudaStream_t st);
cudaError_t cudaStreamWaitEvent (cudaStream_t st, cudaEvent_t ev, unsigned flags);
cudaError_t cudaEventCreate (cudaEvent_t *ev);
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *ev, unsigned flags);
cudaError_t cudaEventDestroy (cudaEvent_t ev);
cudaError_t cudaEventRecord (cudaEvent_t ev, cudaStream_t st);
cudaError_t cudaEventSynchronize (cudaEvent_t ev);
cudaError_t cudaEventQuery (cudaEvent_t ev);
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaStreamBeginCapture (cudaStream_t st, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture (cudaStream_t st, cudaGraph_t *graph);
cudaError_t cudaGraphInstantiate (cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch (cudaGraphExec_t exec, cudaStream_t st);
cudaError_t cudaGraphDestroy (cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy (cudaGraphExec_t exec);

cudaError_t cudaMalloc3DArray (cudaArray_t *a, const cudaChannelFormatDesc *desc, cudaExtent ext, unsigned flags);
cudaError_t cudaFreeArray (cudaArray_t a);
cudaError_t cudaMemcpy3DAsync (const cudaMemcpy3DParms *p, cudaStream_t st);
cudaError_t cudaCreateTextureObject (cudaTextureObject_t *tex, const cudaResourceDesc *res,
                                     const cudaTextureDesc *td, const cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject (cudaTextureObject_t tex);
}

/* The C++ conveniences of the real cuda_runtime.h. */
template <class T>
static inline cudaError_t
cudaMalloc (T **p, size_t n)
{
  return ::cudaMalloc ((void **) (void *) p, n);
}
template <class T>
static inline cudaError_t
cudaMemcpyToSymbol (const T &symbol, const void *src, size_t n, size_t offset = 0,
                    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
  return ::cudaMemcpyToSymbol ((const void *) &symbol, src, n, offset, kind);
}

/* ---------------------------------------------------- device side -- */

namespace ctr_emu {
/* The running fiber's indices (set by the scheduler at every switch). */
extern __thread uint3 tl_thread_idx, tl_block_idx;
extern __thread dim3 tl_block_dim, tl_grid_dim;
void block_barrier (const char *file, int line);
/* One warp-synchronous exchange: every lane of @mask deposits @v; returns
 * what @op gives this lane (lane index, width and @arg as the intrinsic). */
enum WarpOp { WARP_SHFL, WARP_SHFL_XOR, WARP_SHFL_DOWN, WARP_SHFL_UP, WARP_BALLOT, WARP_ANY, WARP_ALL, WARP_SYNC };
uint64_t warp_exchange (WarpOp op, unsigned mask, uint64_t v, int arg, int width, const char *site);
void check_atomic (const void *p, size_t size, const char *what);
void check_load_float (const float *values, size_t n, const void *addr);
float tex2d_layered (cudaTextureObject_t tex, float x, float y, int layer);
}

#define threadIdx (::ctr_emu::tl_thread_idx)
#define blockIdx (::ctr_emu::tl_block_idx)
#define blockDim (::ctr_emu::tl_block_dim)
#define gridDim (::ctr_emu::tl_grid_dim)

#define CTR_EMU_STR2(x) #x
#define CTR_EMU_STR(x) CTR_EMU_STR2 (x)
#define __syncthreads() ::ctr_emu::block_barrier (__FILE__, __LINE__)
#define __syncwarp(...) ((void) ::ctr_emu::warp_exchange (::ctr_emu::WARP_SYNC, ctr_emu_mask_or_all (__VA_ARGS__), 0, 0, 32, __FILE__ ":" CTR_EMU_STR (__LINE__)))
static inline unsigned ctr_emu_mask_or_all (unsigned m = 0xffffffffu) { return m; }

template <class T>
static inline uint64_t
ctr_emu_bits (T v)
{
  static_assert (sizeof (T) <= 8 && std::is_trivially_copyable<T>::value, "warp exchange of at most 8 bytes");
  uint64_t u = 0;
  memcpy (&u, &v, sizeof v);
  return u;
}
template <class T>
static inline T
ctr_emu_from_bits (uint64_t u)
{
  T v;
  memcpy (&v, &u, sizeof v);
  return v;
}
#define CTR_EMU_SHFL(NAME, OP)                                                              \
  template <class T>                                                                        \
  static inline T NAME##_at (unsigned mask, T v, int arg, int width, const char *site)      \
  {                                                                                         \
    return ctr_emu_from_bits<T> (::ctr_emu::warp_exchange (::ctr_emu::OP, mask, ctr_emu_bits (v), arg, width, site)); \
  }
CTR_EMU_SHFL (ctr_emu_shfl, WARP_SHFL)
CTR_EMU_SHFL (ctr_emu_shfl_xor, WARP_SHFL_XOR)
CTR_EMU_SHFL (ctr_emu_shfl_down, WARP_SHFL_DOWN)
CTR_EMU_SHFL (ctr_emu_shfl_up, WARP_SHFL_UP)
#undef CTR_EMU_SHFL
#define CTR_EMU_SITE __FILE__ ":" CTR_EMU_STR (__LINE__)
#define __shfl_sync(m, v, l, ...) ctr_emu_shfl_at ((m), (v), (l), ctr_emu_width (__VA_ARGS__), CTR_EMU_SITE)
#define __shfl_xor_sync(m, v, l, ...) ctr_emu_shfl_xor_at ((m), (v), (l), ctr_emu_width (__VA_ARGS__), CTR_EMU_SITE)
#define __shfl_down_sync(m, v, l, ...) ctr_emu_shfl_down_at ((m), (v), (l), ctr_emu_width (__VA_ARGS__), CTR_EMU_SITE)
#define __shfl_up_sync(m, v, l, ...) ctr_emu_shfl_up_at ((m), (v), (l), ctr_emu_width (__VA_ARGS__), CTR_EMU_SITE)
#define __ballot_sync(m, p) ((unsigned) ::ctr_emu::warp_exchange (::ctr_emu::WARP_BALLOT, (m), (p) ? 1 : 0, 0, 32, CTR_EMU_SITE))
#define __any_sync(m, p) ((int) ::ctr_emu::warp_exchange (::ctr_emu::WARP_ANY, (m), (p) ? 1 : 0, 0, 32, CTR_EMU_SITE))
#define __all_sync(m, p) ((int) ::ctr_emu::warp_exchange (::ctr_emu::WARP_ALL, (m), (p) ? 1 : 0, 0, 32, CTR_EMU_SITE))
static inline int ctr_emu_width (int w = 32) { return w; }

/* Round-to-nearest float add and multiply that are never contracted into an
 * FMA (CUDA's __fadd_rn/__fmul_rn); the emulated code is built with
 * -ffp-contract=fast, so the result goes through a volatile. */
static inline float __fadd_rn (float a, float b) { volatile float r = a + b; return r; }
static inline float __fmul_rn (float a, float b) { volatile float r = a * b; return r; }
static inline float __fsub_rn (float a, float b) { volatile float r = a - b; return r; }

/* Read-only loads: the harness checks float loads for never-written device
 * memory (new allocations hold a NaN pattern: compute-sanitizer's initcheck,
 * for the loads that go through __ldg). */
template <class T>
static __forceinline__ T
__ldg (const T *p)
{
  T v = *p;
  if constexpr (std::is_same<T, float>::value)
    ::ctr_emu::check_load_float (&v, 1, p);
  else if constexpr (std::is_same<T, float2>::value)
    ::ctr_emu::check_load_float (&v.x, 2, p);
  else if constexpr (std::is_same<T, float4>::value)
    ::ctr_emu::check_load_float (&v.x, 4, p);
  return v;
}

/* Atomics: CPU atomics (compare-and-swap on the bit pattern for floats). */
template <class T, class U>
static __forceinline__ T
ctr_emu_atomic_add_cas (T *p, T v)
{
  static_assert (sizeof (T) == sizeof (U), "size");
  U old = __atomic_load_n ((U *) p, __ATOMIC_RELAXED), upd;
  do
    {
      T o, n;
      memcpy (&o, &old, sizeof o);
      n = o + v;
      memcpy (&upd, &n, sizeof n);
    }
  while (!__atomic_compare_exchange_n ((U *) p, &old, upd, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  T r;
  memcpy (&r, &old, sizeof r);
  return r;
}
static __forceinline__ float
atomicAdd (float *p, float v)
{
  ::ctr_emu::check_atomic (p, 4, "atomicAdd(float)");
  return ctr_emu_atomic_add_cas<float, uint32_t> (p, v);
}
static __forceinline__ double
atomicAdd (double *p, double v)
{
  ::ctr_emu::check_atomic (p, 8, "atomicAdd(double)");
  return ctr_emu_atomic_add_cas<double, uint64_t> (p, v);
}
static __forceinline__ int
atomicAdd (int *p, int v)
{
  ::ctr_emu::check_atomic (p, 4, "atomicAdd(int)");
  return __atomic_fetch_add (p, v, __ATOMIC_RELAXED);
}
static __forceinline__ unsigned
atomicAdd (unsigned *p, unsigned v)
{
  ::ctr_emu::check_atomic (p, 4, "atomicAdd(unsigned)");
  return __atomic_fetch_add (p, v, __ATOMIC_RELAXED);
}
static __forceinline__ unsigned long long
atomicAdd (unsigned long long *p, unsigned long long v)
{
  ::ctr_emu::check_atomic (p, 8, "atomicAdd(unsigned long long)");
  return __atomic_fetch_add (p, v, __ATOMIC_RELAXED);
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* sm_90's vector atomics: one L2 operation per vector; each component is an
 * atomic read-modify-write. */
static __forceinline__ float2
atomicAdd (float2 *p, float2 v)
{
  ::ctr_emu::check_atomic (p, 8, "atomicAdd(float2)");
  float *q = &p->x;
  return make_float2 (ctr_emu_atomic_add_cas<float, uint32_t> (q, v.x), ctr_emu_atomic_add_cas<float, uint32_t> (q + 1, v.y));
}
static __forceinline__ float4
atomicAdd (float4 *p, float4 v)
{
  ::ctr_emu::check_atomic (p, 16, "atomicAdd(float4)");
  float *q = &p->x;
  return make_float4 (ctr_emu_atomic_add_cas<float, uint32_t> (q, v.x), ctr_emu_atomic_add_cas<float, uint32_t> (q + 1, v.y),
                      ctr_emu_atomic_add_cas<float, uint32_t> (q + 2, v.z), ctr_emu_atomic_add_cas<float, uint32_t> (q + 3, v.w));
}
#endif

/* The integer/float min and max overloads of the device math library. */
#define CTR_EMU_MINMAX(T)                                              \
  static inline T min (T a, T b) { return b < a ? b : a; }             \
  static inline T max (T a, T b) { return a < b ? b : a; }
CTR_EMU_MINMAX (int)
CTR_EMU_MINMAX (unsigned)
CTR_EMU_MINMAX (long long)
CTR_EMU_MINMAX (unsigned long long)
CTR_EMU_MINMAX (float)
CTR_EMU_MINMAX (double)
#undef CTR_EMU_MINMAX

/* Layered 2-D texture fetch (hardware bilinear at 1.8 fixed-point weights). */
template <class T> T tex2DLayered (cudaTextureObject_t tex, float x, float y, int layer);
template <>
inline float
tex2DLayered<float> (cudaTextureObject_t tex, float x, float y, int layer)
{
  return ::ctr_emu::tex2d_layered (tex, x, y, layer);
}

/* ---------------------------------------------------------- launch -- */

namespace ctr_emu {
/* A kernel with its argument values, run once per CUDA thread. */
struct KernelCall {
  const char *name = nullptr;
  virtual ~KernelCall () {}
  virtual void run_thread () = 0;
};
template <class... P>
struct KernelCallOf final : KernelCall {
  void (*fn) (P...);
  std::tuple<typename std::decay<P>::type...> args;
  void run_thread () override { std::apply (fn, args); }
};
/* Queues the launch on @st (or its capture); owns @call.  @ptrs: the
 * pointer-typed arguments, checked against the device-memory table. */
void submit_launch (KernelCall *call, dim3 grid, dim3 block, size_t shmem, cudaStream_t st,
                    const char *file, int line, const void *const *ptrs, const int *ptr_index, int n_ptrs);

template <class T>
static inline void
collect_ptr (const T &v, const void **ptrs, int *index, int &n, int &i)
{
  if constexpr (std::is_pointer<T>::value)
    {
      ptrs[n] = (const void *) v;
      index[n++] = i;
    }
  i++;
}

template <class... P>
struct Launcher {
  void (*fn) (P...);
  const char *name, *file;
  int line;
  dim3 grid, block;
  size_t shmem;
  cudaStream_t stream;
  void operator() (P... a) const
  {
    auto *call = new KernelCallOf<P...> ();
    call->name = name;
    call->fn = fn;
    call->args = std::make_tuple (a...);
    const void *ptrs[sizeof... (P) + 1];
    int index[sizeof... (P) + 1], n = 0, i = 0;
    (collect_ptr (a, ptrs, index, n, i), ...);
    (void) i;
    submit_launch (call, grid, block, shmem, stream, file, line, ptrs, index, n);
  }
};

template <class... P>
static inline Launcher<P...>
launcher (void (*fn) (P...), const char *name, const char *file, int line, dim3 grid, dim3 block,
          size_t shmem = 0, cudaStream_t stream = nullptr)
{
  return Launcher<P...> { fn, name, file, line, grid, block, shmem, stream };
}
}  /* namespace ctr_emu */
