/* emu-texture.cc — CUDA arrays, layered 2-D textures and the kernel-side
 * checks of the CUDA emulation harness (tests/gpu-emu).
 *
 * Linear filtering as the CUDA Programming Guide's texture-fetching appendix
 * states it: x_B = x − 0.5, i = ⌊x_B⌋, α = frac(x_B) (same in y), and
 *   tex = (1−α)(1−β)T[i,j] + α(1−β)T[i+1,j] + (1−α)βT[i,j+1] + αβT[i+1,j+1]
 * with α, β held in 9-bit fixed point with 8 fractional bits (1.8): here
 * rounded to the nearest 1/256 (the guide does not say how the hardware
 * rounds; nearest is the model).  Clamp addressing, unnormalised
 * coordinates, element-type reads: what gpu/ctr-cuda-fdk.cu uses; anything
 * else is refused at cudaCreateTextureObject.
 *
 * Arrays are stored plainly ([layer][row][col] floats) but charged to the
 * device with the padding of a tiled layout (rows of 512 bytes, 16-row
 * tiles, 2 MiB granules): the harness's model of the opaque layout, so that
 * a free-memory check that counts only width × height × layers × 4 bytes
 * falls short here as it may on a device, and cudaMemGetInfo answers the
 * free memory with the charged size taken off.  cudaArrayGetMemoryRequirements
 * is left out: a device answers it only for arrays made with
 * cudaArrayDeferredMapping (an H100 refused it on our layered arrays with
 * "invalid argument", 2026-11-24). */
#include "emu-internal.h"

#include <map>
#include <stdio.h>

struct cudaArray {
  float *data;
  size_t w, h, layers, charged;
};

namespace ctr_emu {

struct Tex {
  cudaArray *arr;
  cudaTextureDesc td;
};

static std::map<cudaArray *, bool> arrays;
static std::map<unsigned long long, Tex> textures;
static unsigned long long next_tex = 1;

static size_t
array_charge (size_t w, size_t h, size_t layers)
{
  const size_t pitch = (w * 4 + 511) / 512 * 512, rows = (h + 15) / 16 * 16;
  const size_t bytes = pitch * rows * layers, granule = (size_t) 2 << 20;
  return (bytes + granule - 1) / granule * granule;
}

void
count_textures (CtrEmuLive *l)
{
  l->textures = textures.size ();
}

void
check_atomic (const void *p, size_t size, const char *what)
{
  TsanIgnore ignore;
  traffic_atomic (p, size);
  if ((uintptr_t) p % size != 0)
    device_error ("%s on %p, which is not aligned to %zu bytes", what, p, size);
  const Alloc *a = find_alloc (p);
  if (a != nullptr && a->kind != ALLOC_PINNED && (uintptr_t) p + size > a->base + a->size)
    device_error ("%s on %p (%zu bytes) runs past the end of the allocation at %p (%zu bytes)", what, p, size,
                  (void *) a->base, a->size);
}

void
check_load_float (const float *v, size_t n, const void *addr)
{
  TsanIgnore ignore;
  for (size_t i = 0; i < n; i++)
    if (is_poison (v[i]))
      {
        device_error ("__ldg reads never-written device memory at %p (float %zu of %zu)", addr, i, n);
        return;
      }
}

static float
texel (const cudaArray *a, long x, long y, size_t layer)
{
  x = x < 0 ? 0 : x >= (long) a->w ? (long) a->w - 1 : x;
  y = y < 0 ? 0 : y >= (long) a->h ? (long) a->h - 1 : y;
  return a->data[(layer * a->h + (size_t) y) * a->w + (size_t) x];
}

float
tex2d_layered (cudaTextureObject_t tex, float x, float y, int layer)
{
  TsanIgnore ignore;
  auto it = textures.find (tex);
  if (it == textures.end ())
    {
      device_error ("tex2DLayered on texture object %llu, which does not exist", (unsigned long long) tex);
      return 0.f;
    }
  const cudaArray *a = it->second.arr;
  if (layer < 0 || (size_t) layer >= a->layers)
    {
      device_error ("tex2DLayered: layer %d of a texture with %zu layers", layer, a->layers);
      return 0.f;
    }
  float v;
  if (it->second.td.filterMode == cudaFilterModePoint)
    v = texel (a, (long) floorf (x), (long) floorf (y), (size_t) layer);
  else
    {
      const float xb = x - 0.5f, yb = y - 0.5f;
      const float fi = floorf (xb), fj = floorf (yb);
      const float al = rintf ((xb - fi) * 256.f) / 256.f, be = rintf ((yb - fj) * 256.f) / 256.f;
      const long i = (long) fi, j = (long) fj;
      const float t00 = texel (a, i, j, layer), t10 = texel (a, i + 1, j, layer);
      const float t01 = texel (a, i, j + 1, layer), t11 = texel (a, i + 1, j + 1, layer);
      v = (1.f - al) * (1.f - be) * t00 + al * (1.f - be) * t10 + (1.f - al) * be * t01 + al * be * t11;
    }
  if (is_poison (v))
    device_error ("tex2DLayered reads a never-written texel (layer %d, x %g, y %g)", layer, x, y);
  return v;
}

struct Copy3DOp final : Op {
  cudaMemcpy3DParms p;
  void exec () override
  {
    cudaArray *a = p.dstArray;
    const size_t pitch = p.srcPtr.pitch, ysize = p.srcPtr.ysize;
    for (size_t z = 0; z < p.extent.depth; z++)
      for (size_t y = 0; y < p.extent.height; y++)
        {
          const char *src = (const char *) p.srcPtr.ptr + ((p.srcPos.z + z) * ysize + p.srcPos.y + y) * pitch
                            + p.srcPos.x * 4;
          float *dst = a->data + ((p.dstPos.z + z) * a->h + p.dstPos.y + y) * a->w + p.dstPos.x;
          memcpy (dst, src, p.extent.width * 4);
        }
  }
  const char *what () const override { return "cudaMemcpy3DAsync"; }
};

}  /* namespace ctr_emu */

using namespace ctr_emu;

extern "C" cudaError_t
cudaMalloc3DArray (cudaArray_t *out, const cudaChannelFormatDesc *desc, cudaExtent ext, unsigned flags)
{
  EMU_API;
  *out = nullptr;
  if (fault ("cudaMalloc3DArray"))
    return set_last (cudaErrorMemoryAllocation);
  if (capture_forbids ("cudaMalloc3DArray"))
    return set_last (cudaErrorStreamCaptureUnsupported);
  if (desc->f != cudaChannelFormatKindFloat || desc->x != 32 || desc->y || desc->z || desc->w
      || !(flags & cudaArrayLayered) || ext.width == 0 || ext.height == 0 || ext.depth == 0
      || ext.width > 32768 || ext.height > 32768 || ext.depth > 2048)
    return set_last (cudaErrorInvalidValue);
  cudaError_t e;
  const size_t n = ext.width * ext.height * ext.depth * 4;
  void *data = alloc_bytes (n, array_charge (ext.width, ext.height, ext.depth), ALLOC_ARRAY, &e);
  if (data == nullptr)
    return set_last (e);
  cudaArray *a = new cudaArray { (float *) data, ext.width, ext.height, ext.depth, array_charge (ext.width, ext.height, ext.depth) };
  arrays[a] = true;
  *out = a;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaFreeArray (cudaArray_t a)
{
  EMU_API;
  if (a == nullptr)
    return cudaSuccess;
  if (!arrays.count (a))
    {
      device_error ("cudaFreeArray(%p): not a live array", (void *) a);
      return set_last (cudaErrorInvalidValue);
    }
  flush_all ();
  for (const auto &t : textures)
    if (t.second.arr == a)
      device_error ("cudaFreeArray(%p) while texture object %llu still reads it", (void *) a, t.first);
  arrays.erase (a);
  free_bytes (a->data, ALLOC_ARRAY);
  delete a;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaMemcpy3DAsync (const cudaMemcpy3DParms *p, cudaStream_t st)
{
  EMU_API;
  if (fault ("cudaMemcpy3DAsync"))
    return set_last (cudaErrorLaunchFailure);
  if (!stream_valid (st))
    return set_last (cudaErrorInvalidResourceHandle);
  /* Only linear device memory → array, as the FDK uses it. */
  if (p->kind != cudaMemcpyDeviceToDevice || p->dstArray == nullptr || p->srcArray != nullptr
      || !arrays.count (p->dstArray))
    {
      device_error ("cudaMemcpy3DAsync: the harness supports pitched device memory to an array only");
      return set_last (cudaErrorInvalidValue);
    }
  const cudaArray *a = p->dstArray;
  const cudaExtent &e = p->extent;
  if (e.width == 0 || e.height == 0 || e.depth == 0)
    return cudaSuccess;
  if (p->dstPos.x + e.width > a->w || p->dstPos.y + e.height > a->h || p->dstPos.z + e.depth > a->layers)
    {
      device_error ("cudaMemcpy3DAsync: %zu × %zu × %zu at (%zu, %zu, %zu) is outside the %zu × %zu × %zu array",
                    e.width, e.height, e.depth, p->dstPos.x, p->dstPos.y, p->dstPos.z, a->w, a->h, a->layers);
      return set_last (cudaErrorInvalidValue);
    }
  const size_t pitch = p->srcPtr.pitch, ysize = p->srcPtr.ysize;
  if (pitch < (p->srcPos.x + e.width) * 4 || ysize < p->srcPos.y + e.height)
    {
      device_error ("cudaMemcpy3DAsync: source pitch %zu bytes / height %zu too small for the extent", pitch, ysize);
      return set_last (cudaErrorInvalidValue);
    }
  const size_t first = (p->srcPos.z * ysize + p->srcPos.y) * pitch + p->srcPos.x * 4;
  const size_t last = ((p->srcPos.z + e.depth - 1) * ysize + p->srcPos.y + e.height - 1) * pitch
                      + (p->srcPos.x + e.width) * 4;
  if (device_range ((const char *) p->srcPtr.ptr + first, last - first) == nullptr)
    {
      device_error ("cudaMemcpy3DAsync: source %p + [%zu, %zu) is not inside one live device allocation",
                    p->srcPtr.ptr, first, last);
      return set_last (cudaErrorInvalidValue);
    }
  auto op = std::make_shared<Copy3DOp> ();
  op->p = *p;
  return set_last (enqueue (st, op));
}

extern "C" cudaError_t
cudaCreateTextureObject (cudaTextureObject_t *tex, const cudaResourceDesc *res, const cudaTextureDesc *td,
                         const cudaResourceViewDesc *view)
{
  EMU_API;
  *tex = 0;
  if (fault ("cudaCreateTextureObject"))
    return set_last (cudaErrorLaunchOutOfResources);
  if (res->resType != cudaResourceTypeArray || !arrays.count (res->res.array.array) || view != nullptr
      || td->normalizedCoords || td->readMode != cudaReadModeElementType
      || td->addressMode[0] != cudaAddressModeClamp || td->addressMode[1] != cudaAddressModeClamp)
    {
      device_error ("cudaCreateTextureObject: the harness models arrays with clamp addressing, unnormalised "
                    "coordinates and element-type reads only");
      return set_last (cudaErrorInvalidValue);
    }
  const unsigned long long id = next_tex++;
  textures[id] = Tex { res->res.array.array, *td };
  *tex = id;
  return cudaSuccess;
}

extern "C" cudaError_t
cudaDestroyTextureObject (cudaTextureObject_t tex)
{
  EMU_API;
  if (tex == 0)
    return cudaSuccess;
  flush_all ();
  if (textures.erase (tex) == 0)
    {
      device_error ("cudaDestroyTextureObject(%llu): no such texture object", (unsigned long long) tex);
      return set_last (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}
