/* emu-selftest.cu — the CUDA emulation harness checked on its own
 * (tests/gpu-emu/README.md): warp intrinsics, block barriers, atomics, the
 * texture unit's 1.8 fixed-point weights, stream order and graphs give what
 * CUDA specifies; and the harness catches what it claims to catch.
 *
 *   emu-selftest             the checks below; exit 0
 *   emu-selftest race        a kernel with a data race between CUDA threads
 *                            (two blocks add to one counter without atomics):
 *                            ThreadSanitizer must report it (the TSan build
 *                            runs this as a test that must fail)
 *   emu-selftest divergence  threads of one block at different __syncthreads:
 *                            the harness must report and abort
 *   emu-selftest overrun     a kernel writes past its allocation: the guard
 *                            page or ASan must stop it
 *   emu-selftest stale       a pinned buffer read before its stream ran:
 *                            the value is not there yet (stream order)
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                 \
  do {                                                   \
    if (!(cond))                                         \
      {                                                  \
        fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
        fprintf (stderr, __VA_ARGS__);                   \
        fprintf (stderr, "\n");                          \
        failures++;                                      \
      }                                                  \
  } while (0)
#define CUDA(call) CHECK ((call) == cudaSuccess, "%s", #call)

__global__ void
warp_ops (int *out)
{
  const int lane = threadIdx.x & 31, w = threadIdx.x / 32;
  int s = lane;
  for (int d = 16; d > 0; d >>= 1)
    s += __shfl_xor_sync (0xffffffffu, s, d);
  const int down = __shfl_down_sync (0xffffffffu, lane * 10, 3);
  const int bcast = __shfl_sync (0xffffffffu, lane + 100, 5);
  const unsigned ballot = __ballot_sync (0xffffffffu, lane % 3 == 0);
  double dv = lane * 0.5;
  dv = __shfl_xor_sync (0xffffffffu, dv, 1);
  int *o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 5;
  o[0] = s;
  o[1] = down;
  o[2] = bcast;
  o[3] = (int) ballot;
  o[4] = (int) (dv * 2) + w * 0;
}

__global__ void
reverse_block (const float *in, float *out)
{
  __shared__ float tile[256];
  const unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads ();
  out[base + t] = tile[blockDim.x - 1 - t];
}

__global__ void
count_atomic (unsigned *counter, float *sum)
{
  atomicAdd (counter, 1u);
  atomicAdd (sum, 0.5f);
}

__global__ void
count_racy (unsigned *counter)
{
  /* every thread of every block adds to one word without an atomic */
  *counter = *counter + 1;
}

__global__ void
diverge (float *out)
{
  if (threadIdx.x < 32)
    __syncthreads ();
  else
    __syncthreads ();
  out[threadIdx.x] = 1.f;
}

__global__ void
overrun (float *out, int n)
{
  out[n + threadIdx.x * 1024] = 1.f;
}

__global__ void
fetch (cudaTextureObject_t tex, float *out)
{
  out[threadIdx.x] = tex2DLayered<float> (tex, 0.5f + threadIdx.x * 0.1f, 0.5f, 0);
}

__global__ void
add_one (float *x, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.f;
}

static int
check_all (void)
{
  /* warp intrinsics: two blocks of two warps */
  int *d_out;
  CUDA (cudaMalloc (&d_out, 2 * 64 * 5 * sizeof (int)));
  warp_ops<<<2, 64>>> (d_out);
  int h[2 * 64 * 5];
  CUDA (cudaMemcpy (h, d_out, sizeof h, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; t++)
    {
      const int lane = t % 32;
      CHECK (h[t * 5] == 496, "xor butterfly of lanes: %d", h[t * 5]);
      CHECK (h[t * 5 + 1] == (lane + 3 < 32 ? (lane + 3) * 10 : lane * 10), "shfl_down lane %d: %d", lane, h[t * 5 + 1]);
      CHECK (h[t * 5 + 2] == 105, "shfl from lane 5: %d", h[t * 5 + 2]);
      CHECK ((unsigned) h[t * 5 + 3] == 0x49249249u, "ballot: %#x", (unsigned) h[t * 5 + 3]);
      CHECK (h[t * 5 + 4] == (lane ^ 1), "double shfl_xor lane %d: %d", lane, h[t * 5 + 4]);
    }
  CUDA (cudaFree (d_out));

  /* block barrier and shared memory per block */
  float in[512], out[512], *d_in, *d_o;
  for (int i = 0; i < 512; i++)
    in[i] = (float) i;
  CUDA (cudaMalloc (&d_in, sizeof in));
  CUDA (cudaMalloc (&d_o, sizeof out));
  CUDA (cudaMemcpy (d_in, in, sizeof in, cudaMemcpyHostToDevice));
  reverse_block<<<2, 256>>> (d_in, d_o);
  CUDA (cudaMemcpy (out, d_o, sizeof out, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 512; i++)
    CHECK (out[i] == (float) (i / 256 * 256 + 255 - i % 256), "reverse %d: %g", i, out[i]);

  /* atomics from 64 blocks of 128 threads on two workers */
  unsigned *d_c;
  float *d_s;
  CUDA (cudaMalloc (&d_c, 4));
  CUDA (cudaMalloc (&d_s, 4));
  CUDA (cudaMemset (d_c, 0, 4));
  CUDA (cudaMemset (d_s, 0, 4));
  count_atomic<<<64, 128>>> (d_c, d_s);
  unsigned c;
  float sm;
  CUDA (cudaMemcpy (&c, d_c, 4, cudaMemcpyDeviceToHost));
  CUDA (cudaMemcpy (&sm, d_s, 4, cudaMemcpyDeviceToHost));
  CHECK (c == 8192 && sm == 4096.f, "atomics: %u, %g", c, sm);

  /* stream order and graph replay: x += 1 captured once, replayed 3 times */
  cudaStream_t st;
  cudaGraph_t g;
  cudaGraphExec_t gx;
  float *d_x, hx[100] = { 0 };
  CUDA (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  CUDA (cudaMalloc (&d_x, sizeof hx));
  CUDA (cudaMemsetAsync (d_x, 0, sizeof hx, st));
  CUDA (cudaStreamBeginCapture (st, cudaStreamCaptureModeThreadLocal));
  add_one<<<1, 128, 0, st>>> (d_x, 100);
  CHECK (cudaStreamSynchronize (st) == cudaErrorStreamCaptureUnsupported, "sync during capture must fail");
  CHECK (cudaStreamEndCapture (st, &g) == cudaErrorStreamCaptureInvalidated, "capture must be invalidated");
  CUDA (cudaStreamBeginCapture (st, cudaStreamCaptureModeThreadLocal));
  add_one<<<1, 128, 0, st>>> (d_x, 100);
  CUDA (cudaStreamEndCapture (st, &g));
  CUDA (cudaGraphInstantiate (&gx, g, 0));
  for (int i = 0; i < 3; i++)
    CUDA (cudaGraphLaunch (gx, st));
  CUDA (cudaMemcpyAsync (hx, d_x, sizeof hx, cudaMemcpyDeviceToHost, st));
  CHECK (hx[0] == 3.f && hx[99] == 3.f, "graph replayed 3 times: %g %g", hx[0], hx[99]);
  CUDA (cudaGraphExecDestroy (gx));
  CUDA (cudaGraphDestroy (g));

  /* texture: texels 0 and 1, x = 0.5 + 0.1 t → weight 0.1 t at 1/256 */
  cudaArray_t arr;
  cudaChannelFormatDesc cf = cudaCreateChannelDesc<float> ();
  CUDA (cudaMalloc3DArray (&arr, &cf, make_cudaExtent (2, 1, 1), cudaArrayLayered));
  float two[2] = { 0.f, 1.f }, *d_two;
  CUDA (cudaMalloc (&d_two, sizeof two));
  CUDA (cudaMemcpy (d_two, two, sizeof two, cudaMemcpyHostToDevice));
  cudaMemcpy3DParms p;
  memset (&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr (d_two, sizeof two, 2, 1);
  p.dstArray = arr;
  p.extent = make_cudaExtent (2, 1, 1);
  p.kind = cudaMemcpyDeviceToDevice;
  CUDA (cudaMemcpy3DAsync (&p, st));
  cudaResourceDesc rd;
  memset (&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td;
  memset (&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex;
  CUDA (cudaCreateTextureObject (&tex, &rd, &td, nullptr));
  CUDA (cudaStreamSynchronize (st));
  fetch<<<1, 10>>> (tex, d_o);
  CUDA (cudaMemcpy (out, d_o, 10 * sizeof (float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 10; t++)
    {
      const float want = rintf (t * 0.1f * 256.f) / 256.f;
      CHECK (out[t] == want, "texture fetch %d: %.8f, 1.8 fixed point gives %.8f", t, out[t], want);
    }
  CUDA (cudaDestroyTextureObject (tex));
  CUDA (cudaFreeArray (arr));
  CUDA (cudaStreamDestroy (st));
  cudaFree (d_two);
  cudaFree (d_x);
  cudaFree (d_c);
  cudaFree (d_s);
  cudaFree (d_in);
  cudaFree (d_o);
  printf ("%s\n", failures ? "harness self-test FAILED" : "harness self-test passed");
  return failures ? 1 : 0;
}

int
main (int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "";
  if (strcmp (what, "race") == 0)
    {
      unsigned *d_c, c = 0;
      cudaMalloc (&d_c, 4);
      cudaMemset (d_c, 0, 4);
      count_racy<<<16, 64>>> (d_c);
      cudaMemcpy (&c, d_c, 4, cudaMemcpyDeviceToHost);
      printf ("racy counter: %u of %u\n", c, 16 * 64);
      cudaFree (d_c);
      return 0;   /* only TSan can fail this run */
    }
  if (strcmp (what, "divergence") == 0 || strcmp (what, "overrun") == 0)
    {
      float *d;
      cudaMalloc (&d, 64 * sizeof (float));
      if (what[0] == 'd')
        diverge<<<1, 64>>> (d);
      else
        overrun<<<1, 64>>> (d, 64);
      cudaDeviceSynchronize ();
      cudaFree (d);
      return 0;   /* the harness must have stopped before */
    }
  if (strcmp (what, "stale") == 0)
    {
      float *pinned, *d;
      cudaStream_t st;
      cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking);
      cudaHostAlloc ((void **) &pinned, 4, cudaHostAllocDefault);
      cudaMalloc (&d, 4);
      pinned[0] = 0.f;
      cudaMemsetAsync (d, 0, 4, st);
      add_one<<<1, 32, 0, st>>> (d, 1);
      cudaMemcpyAsync (pinned, d, 4, cudaMemcpyDeviceToHost, st);
      const float early = pinned[0];   /* not waited for: the copy has not run */
      cudaStreamSynchronize (st);
      const float late = pinned[0];
      printf ("before the wait %g, after %g\n", early, late);
      cudaFree (d);
      cudaFreeHost (pinned);
      cudaStreamDestroy (st);
      return early == 0.f && late == 1.f ? 0 : 1;
    }
  return check_all ();
}
