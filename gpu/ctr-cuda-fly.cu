/* ctr-cuda-fly.cu — the on-the-fly fan/parallel projector pair on the GPU
 * (ctr-cuda-fly-api.h): no stored matrix, every row computed again at
 * every product, one CUDA thread per (ray, slice).
 *
 * The ray model is the CPU's (core/sysmat/ctr-ray.c, the rows of
 * ctr_ray_weights that core/sysmat/ctr-fly-op.c computes on the fly), walked
 * here the same way from the ray table of core/sysmat/ctr-fly-rays.h:
 *   Joseph, P. M. (1982). An improved algorithm for reprojecting rays through
 *     pixel images. IEEE TMI 1(3), 192-196: one step per pixel column (or
 *     row) along the major axis, linear interpolation between the two
 *     nearest pixel centres of the minor axis, weight = step length ×
 *     interpolation weight (ray_joseph);
 *   Siddon, R. L. (1985). Fast calculation of the exact radiological path for
 *     a three-dimensional CT array. Med. Phys. 12(2), 252-255, the cell walk
 *     of Amanatides & Woo (1987): exact intersection lengths (ray_siddon);
 *   the area model of Yu et al. (2018), cuART §2.1 and Fig. 2: the area of
 *     the pixel inside the strip between the rays through the bin's edges,
 *     over the strip's width at the pixel centre, by the closed form of
 *     core/sysmat/ctr-ray-area.h (ctr_area_ray_weight) over the slabs'
 *     ranges (closed_slab_range).  Rays for which the closed form does not
 *     hold are refused on the host (ctr_fly_ray_table).
 * The weights are computed in double and rounded to float as on the CPU;
 * the products sum in float, in the ray's order (forward) or by atomics
 * (adjoint), so GPU and CPU agree to float rounding, not to the bit.
 */
#include "ctr-cuda-common.cuh"
#include "ctr-cuda-fly-api.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { FLY_JOSEPH = 0, FLY_SIDDON = 1, FLY_AREA = 2 };
enum { FLY_LINE_DOUBLES = 4, FLY_AREA_DOUBLES = 24 };

/* What every kernel reads: the slice grid and the device tables. */
struct FlyGeo {
  unsigned nv, nc, nx, ny, ns;
  int model, half_line;
  double dx, dy, cx, cy, xmin, xmax, ymin, ymax;
  const double *rays;        /* [view][col][stride] */
  const unsigned *views;     /* the subsets' views, concatenated */
};

struct CtrCudaFly {
  FlyGeo g;
  cudaStream_t stream;
  double *rays;
  unsigned *views;
  unsigned *ptr;             /* host copy of the subsets' pointers, n_subsets + 1 */
  unsigned *vhost;           /* host copy of the subsets' views */
  unsigned n_subsets;
  float *buf[CTR_CUDA_FLY_N_BUFS];
  size_t nimg, ndata, bytes;
};

static size_t
buf_floats (const CtrCudaFly *f, CtrCudaFlyBuf which)
{
  return which >= CTR_CUDA_FLY_Y ? f->ndata : f->nimg;
}

static unsigned
fly_stride (int model)
{
  return model == FLY_AREA ? FLY_AREA_DOUBLES : FLY_LINE_DOUBLES;
}

/* ------------------------------------------------------- the ray walks -- */

/* ray_joseph of ctr-ray.c: f (pixel, weight) for each weight of the row. */
template <class F>
__device__ static inline void
walk_joseph (const FlyGeo &g, const double *p, F &f)
{
  const double o0 = p[0], o1 = p[1], d0 = p[2], d1 = p[3];
  const bool x_major = fabs (d0) >= fabs (d1);
  const unsigned n_major = x_major ? g.nx : g.ny;
  const unsigned n_minor = x_major ? g.ny : g.nx;
  const double step = x_major ? g.dx / fabs (d0) : g.dy / fabs (d1);
  for (unsigned k = 0; k < n_major; k++)
    {
      double t, fm;
      if (x_major)
        {
          const double xc = g.cx + (k - (g.nx - 1) * 0.5) * g.dx;
          t = (xc - o0) / d0;
          const double y = o1 + t * d1;
          fm = (g.ny - 1) * 0.5 - (y - g.cy) / g.dy;
        }
      else
        {
          const double yc = g.cy + ((g.ny - 1) * 0.5 - k) * g.dy;
          t = (yc - o1) / d1;
          const double x = o0 + t * d0;
          fm = (x - g.cx) / g.dx + (g.nx - 1) * 0.5;
        }
      if (g.half_line && t <= 0)
        continue;
      if (fm <= -1.0 || fm >= (double) n_minor)
        continue;
      const double f0 = floor (fm);
      const double w1 = fm - f0;
      const long m0 = (long) f0;
      for (int q = 0; q <= 1; q++)
        {
          const long m = m0 + q;
          const double w = q ? w1 : 1.0 - w1;
          if (m < 0 || m >= (long) n_minor || w <= 0.0)
            continue;
          f (x_major ? (unsigned) (m * g.nx + k) : (unsigned) (k * g.nx + m), (float) (w * step));
        }
    }
}

/* ray_siddon of ctr-ray.c. */
template <class F>
__device__ static inline void
walk_siddon (const FlyGeo &g, const double *p, F &f)
{
  const double o[2] = { p[0], p[1] }, d[2] = { p[2], p[3] };
  double t0 = g.half_line ? 0.0 : -DBL_MAX, t1 = DBL_MAX;
  const double lo[2] = { g.xmin, g.ymin }, hi[2] = { g.xmax, g.ymax };
  for (int a = 0; a < 2; a++)
    {
      if (fabs (d[a]) < 1e-15)
        {
          if (o[a] <= lo[a] || o[a] >= hi[a])
            return;
          continue;
        }
      const double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
      t0 = fmax (t0, fmin (ta, tb));
      t1 = fmin (t1, fmax (ta, tb));
    }
  if (!(t1 > t0))
    return;
  const double tm = t0 + 1e-9 * (t1 - t0);
  const double px = o[0] + tm * d[0], py = o[1] + tm * d[1];
  long ix = (long) floor ((px - g.xmin) / g.dx);
  long iyb = (long) floor ((py - g.ymin) / g.dy);
  ix = ix < 0 ? 0 : ix > (long) g.nx - 1 ? (long) g.nx - 1 : ix;
  iyb = iyb < 0 ? 0 : iyb > (long) g.ny - 1 ? (long) g.ny - 1 : iyb;
  const int sx = d[0] > 0 ? 1 : -1, sy = d[1] > 0 ? 1 : -1;
  const double tdx = fabs (d[0]) > 1e-15 ? g.dx / fabs (d[0]) : DBL_MAX;
  const double tdy = fabs (d[1]) > 1e-15 ? g.dy / fabs (d[1]) : DBL_MAX;
  double tnx = fabs (d[0]) > 1e-15 ? (g.xmin + (ix + (sx > 0)) * g.dx - o[0]) / d[0] : DBL_MAX;
  double tny = fabs (d[1]) > 1e-15 ? (g.ymin + (iyb + (sy > 0)) * g.dy - o[1]) / d[1] : DBL_MAX;
  double t = t0;
  while (t < t1 && ix >= 0 && ix < (long) g.nx && iyb >= 0 && iyb < (long) g.ny)
    {
      const double tn = fmin (fmin (tnx, tny), t1);
      const double len = tn - t;
      if (len > 0)
        f ((unsigned) ((g.ny - 1 - iyb) * g.nx + ix), (float) len);
      t = tn;
      if (tnx <= tny)
        {
          ix += sx;
          tnx += tdx;
        }
      else
        {
          iyb += sy;
          tny += tdy;
        }
    }
}

/* ctr_area_edge_area of ctr-ray-area.h; @e: nx, ny, k, a, b, inv_8ab, inv_2a. */
__device__ static inline double
area_edge (const double *e, double full, double xc, double yc)
{
  const double d = e[2] - e[0] * xc - e[1] * yc, ad = fabs (d);
  double tail;
  if (ad >= e[3] + e[4])
    tail = 0.0;
  else if (ad > e[3] - e[4])
    tail = full * (e[3] + e[4] - ad) * (e[3] + e[4] - ad) * e[5];
  else
    tail = full * (0.5 - ad * e[6]);
  return d >= 0 ? tail : full - tail;
}

/* ctr_area_ray_weight of ctr-ray-area.h. */
__device__ static inline float
area_weight (const double *p, double full, double min_side, double xc, double yc)
{
  const double area = area_edge (p, full, xc, yc) + area_edge (p + 7, full, xc, yc) - full;
  if (!(area > 0))
    return 0.f;
  const double t = (xc - p[14]) * p[16] + (yc - p[15]) * p[17];
  const double width = p[18] + t * p[19];
  if (width <= 0)
    return 0.f;
  const double w = area / width;
  return w > 1e-6 * min_side ? (float) w : 0.f;
}

/* ray_area's closed form of ctr-ray.c (closed_slab_range, closed_pixel),
 * the slabs along the major axis in index order (the CPU visits them in
 * the order the ray meets them: the same set of weights). */
template <class F>
__device__ static inline void
walk_area (const FlyGeo &g, const double *p, F &f)
{
  const bool x_major = fabs (p[16]) >= fabs (p[17]);
  const double hx = 0.5 * g.dx, hy = 0.5 * g.dy, full = g.dx * g.dy, min_side = fmin (g.dx, g.dy);
  const long nmaj = x_major ? g.nx : g.ny;
  for (long k = 0; k < nmaj; k++)
    {
      const double a0 = x_major ? g.xmin + k * g.dx : g.ymax - (k + 1) * g.dy;
      const double a1 = x_major ? a0 + g.dx : a0 + g.dy;
      double lo = DBL_MAX, hi = -DBL_MAX;
      for (int i = 0; i < 2; i++)
        {
          const double v0 = p[22 + i] - p[20 + i] * a0, v1 = p[22 + i] - p[20 + i] * a1;
          lo = fmin (lo, fmin (v0, v1));
          hi = fmax (hi, fmax (v0, v1));
        }
      long i0, i1;
      if (x_major)
        {
          if (hi <= g.ymin || lo >= g.ymax)
            continue;
          i0 = (long) floor ((g.ymax - hi) / g.dy);
          i1 = (long) floor ((g.ymax - lo) / g.dy);
          i0 = i0 < 0 ? 0 : i0;
          i1 = i1 > (long) g.ny - 1 ? (long) g.ny - 1 : i1;
        }
      else
        {
          if (hi <= g.xmin || lo >= g.xmax)
            continue;
          i0 = (long) floor ((lo - g.xmin) / g.dx);
          i1 = (long) floor ((hi - g.xmin) / g.dx);
          i0 = i0 < 0 ? 0 : i0;
          i1 = i1 > (long) g.nx - 1 ? (long) g.nx - 1 : i1;
        }
      for (long i = i0; i <= i1; i++)
        {
          const long ix = x_major ? k : i, row = x_major ? i : k;
          const double xc = g.xmin + ix * g.dx + hx, yc = g.ymax - row * g.dy - hy;
          const float w = area_weight (p, full, min_side, xc, yc);
          if (w != 0.f)
            f ((unsigned) (row * g.nx + ix), w);
        }
    }
}

template <class F>
__device__ static inline void
walk_ray (const FlyGeo &g, unsigned v, unsigned j, F &f)
{
  const size_t r = (size_t) v * g.nc + j;
  if (g.model == FLY_AREA)
    walk_area (g, g.rays + r * FLY_AREA_DOUBLES, f);
  else if (g.model == FLY_SIDDON)
    walk_siddon (g, g.rays + r * FLY_LINE_DOUBLES, f);
  else
    walk_joseph (g, g.rays + r * FLY_LINE_DOUBLES, f);
}

/* ------------------------------------------------------------- kernels -- */

/* The view of ray @q of the subset starting at @v0 in g.views (@all: view q / nc). */
__device__ static inline unsigned
ray_view (const FlyGeo &g, unsigned q, unsigned v0, int all)
{
  return all ? q / g.nc : g.views[v0 + q / g.nc];
}

/* Y = A_S X, a thread per (ray q of S, slice blockIdx.y); @X NULL: row
 * sums into Y and, with @Y2, squared row sums into Y2. */
__global__ static void
fly_forward_kernel (FlyGeo g, unsigned v0, unsigned nrays, int all, const float *__restrict__ X,
                    float *__restrict__ Y, float *__restrict__ Y2)
{
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nrays)
    return;
  const unsigned s = blockIdx.y, v = ray_view (g, q, v0, all), j = q % g.nc;
  const size_t at = (size_t) s * g.nv * g.nc + (size_t) v * g.nc + j;
  if (X == nullptr)
    {
      float sum = 0.f, sq = 0.f;
      auto rows = [&] (unsigned pix, float w) { sum += w; sq += w * w; };
      walk_ray (g, v, j, rows);
      Y[at] = sum;
      if (Y2 != nullptr)
        Y2[at] = sq;
      return;
    }
  const float *x = X + (size_t) s * g.nx * g.ny;
  float acc = 0.f;
  auto gather = [&] (unsigned pix, float w) { acc += w * __ldg (x + pix); };
  walk_ray (g, v, j, gather);
  Y[at] = acc;
}

/* D += A_Sᵀ Y, a thread per (ray q of S, slice blockIdx.y); @Y NULL: the
 * column sums of S into one slice of D. */
__global__ static void
fly_adjoint_kernel (FlyGeo g, unsigned v0, unsigned nrays, int all, const float *__restrict__ Y, float *D)
{
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nrays)
    return;
  const unsigned s = blockIdx.y, v = ray_view (g, q, v0, all), j = q % g.nc;
  const float y = Y == nullptr ? 1.f : __ldg (Y + (size_t) s * g.nv * g.nc + (size_t) v * g.nc + j);
  if (y == 0.f)
    return;
  float *d = D + (size_t) s * g.nx * g.ny;
  auto scatter = [&] (unsigned pix, float w) { atomicAdd (d + pix, w * y); };
  walk_ray (g, v, j, scatter);
}

/* R = step · COEF ∘ (B − Y) on ray q of S, slice blockIdx.y. */
__global__ static void
fly_residual_kernel (FlyGeo g, unsigned v0, unsigned nrays, int all, float step, const float *__restrict__ B,
                     const float *__restrict__ coef, const float *__restrict__ Y, float *__restrict__ R)
{
  const unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nrays)
    return;
  const unsigned v = ray_view (g, q, v0, all), j = q % g.nc;
  const size_t at = (size_t) blockIdx.y * g.nv * g.nc + (size_t) v * g.nc + j;
  R[at] = step * coef[at] * (B[at] - Y[at]);
}

/* X += D, D / CS or CS ∘ D (CS one slice of @np pixels), then the clip. */
__global__ static void
fly_apply_kernel (size_t n, size_t np, int mode, int nonneg, float *X, const float *__restrict__ D,
                  const float *__restrict__ CS)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = X[i];
  if (mode == 0)
    x += D[i];
  else if (mode == 1)
    {
      const float c = CS[i % np];
      if (c > 0.f)
        x += D[i] / c;
    }
  else
    x += CS[i % np] * D[i];
  X[i] = nonneg && x < 0.f ? 0.f : x;
}

/* ------------------------------------------------------------- session -- */

static size_t
table_bytes (const CtrCudaFlyDesc *d)
{
  return (size_t) d->n_views * d->n_cols * fly_stride (d->model) * sizeof (double);
}

extern "C" size_t
ctr_cuda_fly_estimate_bytes (const CtrCudaFlyDesc *d)
{
  const size_t nimg = (size_t) d->ns * d->nx * d->ny, ndata = (size_t) d->ns * d->n_views * d->n_cols;
  const size_t nsv = d->subset_ptr != nullptr ? d->subset_ptr[d->n_subsets] : 0;
  return table_bytes (d) + nsv * sizeof (unsigned) + (3 * nimg + 5 * ndata) * sizeof (float) + 16;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_create (const CtrCudaFlyDesc *desc, CtrCudaFly **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  if (desc->model < FLY_JOSEPH || desc->model > FLY_AREA || desc->n_views == 0 || desc->n_cols == 0
      || desc->nx == 0 || desc->ny == 0 || desc->ns == 0 || desc->ns > 65535
      || (desc->n_subsets > 0 && (desc->subset_ptr == nullptr || desc->subset_views == nullptr)))
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "the on-the-fly projector's description is out of range (model %d, %u views, "
                "%u columns, %u × %u × %u pixels)", desc->model, desc->n_views, desc->n_cols, desc->nx, desc->ny,
                desc->ns);
      return CTR_CUDA_INVALID;
    }
  const unsigned nsv = desc->n_subsets > 0 ? desc->subset_ptr[desc->n_subsets] : 0;
  for (unsigned k = 0; k < nsv; k++)
    if (desc->subset_views[k] >= desc->n_views)
      {
        snprintf (err, CTR_CUDA_ERR_LEN, "subset view %u out of range (%u views)", desc->subset_views[k],
                  desc->n_views);
        return CTR_CUDA_INVALID;
      }
  const size_t need = ctr_cuda_fly_estimate_bytes (desc);
  if ((st = ctr_cuda_check_free (need, "the on-the-fly projector's ray table and work arrays", err)) != CTR_CUDA_OK)
    return st;
  CtrCudaFly *f = (CtrCudaFly *) calloc (1, sizeof *f);
  unsigned *ptr = (unsigned *) malloc ((desc->n_subsets + 1) * sizeof (unsigned));
  unsigned *vhost = (unsigned *) malloc ((nsv > 0 ? nsv : 1) * sizeof (unsigned));
  if (f == nullptr || ptr == nullptr || vhost == nullptr)
    {
      free (f);
      free (ptr);
      free (vhost);
      snprintf (err, CTR_CUDA_ERR_LEN, "cannot allocate the on-the-fly projector's session");
      return CTR_CUDA_NO_MEMORY;
    }
  f->ptr = ptr;
  f->vhost = vhost;
  if (nsv > 0)
    memcpy (vhost, desc->subset_views, nsv * sizeof (unsigned));
  f->n_subsets = desc->n_subsets;
  if (desc->n_subsets > 0)
    memcpy (ptr, desc->subset_ptr, (desc->n_subsets + 1) * sizeof (unsigned));
  else
    ptr[0] = 0;
  FlyGeo &g = f->g;
  g.nv = desc->n_views;
  g.nc = desc->n_cols;
  g.nx = desc->nx;
  g.ny = desc->ny;
  g.ns = desc->ns;
  g.model = desc->model;
  g.half_line = desc->half_line;
  g.dx = desc->dx;
  g.dy = desc->dy;
  g.cx = desc->cx;
  g.cy = desc->cy;
  /* as ctr_ray_grid_init */
  g.xmin = desc->cx - desc->nx * desc->dx * 0.5;
  g.xmax = desc->cx + desc->nx * desc->dx * 0.5;
  g.ymin = desc->cy - desc->ny * desc->dy * 0.5;
  g.ymax = desc->cy + desc->ny * desc->dy * 0.5;
  f->nimg = (size_t) g.ns * g.nx * g.ny;
  f->ndata = (size_t) g.ns * g.nv * g.nc;
  CK (cudaStreamCreateWithFlags (&f->stream, cudaStreamNonBlocking));
  CK (cudaMalloc ((void **) &f->rays, table_bytes (desc)));
  CK (cudaMalloc ((void **) &f->views, (nsv > 0 ? nsv : 1) * sizeof (unsigned)));
  for (int k = 0; k < CTR_CUDA_FLY_N_BUFS; k++)
    CK (cudaMalloc ((void **) &f->buf[k], buf_floats (f, (CtrCudaFlyBuf) k) * sizeof (float)));
  CK (cudaMemcpyAsync (f->rays, desc->rays, table_bytes (desc), cudaMemcpyHostToDevice, f->stream));
  if (nsv > 0)
    CK (cudaMemcpyAsync (f->views, desc->subset_views, nsv * sizeof (unsigned), cudaMemcpyHostToDevice, f->stream));
  for (int k = 0; k < CTR_CUDA_FLY_N_BUFS; k++)
    CK (cudaMemsetAsync (f->buf[k], 0, buf_floats (f, (CtrCudaFlyBuf) k) * sizeof (float), f->stream));
  /* the host arrays are pageable: the copies are done when this returns */
  CK (cudaStreamSynchronize (f->stream));
  g.rays = f->rays;
  g.views = f->views;
  f->bytes = need;
  *out = f;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_fly_destroy (f);
  return st;
}

extern "C" void
ctr_cuda_fly_destroy (CtrCudaFly *f)
{
  if (f == nullptr)
    return;
  if (f->stream != nullptr)
    cudaStreamSynchronize (f->stream);
  for (int k = 0; k < CTR_CUDA_FLY_N_BUFS; k++)
    cudaFree (f->buf[k]);
  cudaFree (f->rays);
  cudaFree (f->views);
  if (f->stream != nullptr)
    cudaStreamDestroy (f->stream);
  free (f->ptr);
  free (f->vhost);
  free (f);
  /* a failed synchronisation here is not the caller's error: no stale
   * error for the next launch check */
  ctr_cuda_clear_error ();
}

extern "C" size_t
ctr_cuda_fly_device_bytes (const CtrCudaFly *f)
{
  return f->bytes;
}

extern "C" size_t
ctr_cuda_fly_image_floats (const CtrCudaFly *f)
{
  return f->nimg;
}

extern "C" size_t
ctr_cuda_fly_data_floats (const CtrCudaFly *f)
{
  return f->ndata;
}

extern "C" float *
ctr_cuda_fly_buffer (CtrCudaFly *f, CtrCudaFlyBuf which)
{
  return f->buf[which];
}

extern "C" void *
ctr_cuda_fly_stream (CtrCudaFly *f)
{
  return f->stream;
}

/* Copies floats [@offset, @offset + @n) of a buffer (@up: from @host). */
static CtrCudaStatus
copy_range (CtrCudaFly *f, CtrCudaFlyBuf which, size_t offset, float *host, size_t n, int up, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if ((int) which < 0 || which >= CTR_CUDA_FLY_N_BUFS || offset > buf_floats (f, which)
      || n > buf_floats (f, which) - offset)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "floats [%zu, %zu) are outside buffer %d of the on-the-fly projector", offset,
                offset + n, (int) which);
      return CTR_CUDA_INVALID;
    }
  if (up)
    CK (cudaMemcpyAsync (f->buf[which] + offset, host, n * sizeof (float), cudaMemcpyHostToDevice, f->stream));
  else
    CK (cudaMemcpyAsync (host, f->buf[which] + offset, n * sizeof (float), cudaMemcpyDeviceToHost, f->stream));
  CK (cudaStreamSynchronize (f->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_upload (CtrCudaFly *f, CtrCudaFlyBuf which, size_t offset, const float *host, size_t n, char *err)
{
  return copy_range (f, which, offset, (float *) host, n, 1, err);
}

extern "C" CtrCudaStatus
ctr_cuda_fly_download (CtrCudaFly *f, CtrCudaFlyBuf which, size_t offset, float *host, size_t n, char *err)
{
  return copy_range (f, which, offset, host, n, 0, err);
}

/* The rays of @subset of data buffer @which, every slice (@up: from @host). */
static CtrCudaStatus
copy_rays (CtrCudaFly *f, CtrCudaFlyBuf which, unsigned subset, float *host, int up, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (which < CTR_CUDA_FLY_Y || which >= CTR_CUDA_FLY_N_BUFS)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "buffer %d of the on-the-fly projector holds no rays", (int) which);
      return CTR_CUDA_INVALID;
    }
  if (subset >= f->n_subsets)
    return copy_range (f, which, 0, host, f->ndata, up, err);
  {
    const size_t per_slice = (size_t) f->g.nv * f->g.nc;
    for (unsigned s = 0; s < f->g.ns; s++)
      for (unsigned k = f->ptr[subset]; k < f->ptr[subset + 1]; k++)
        {
          const size_t at = s * per_slice + (size_t) f->vhost[k] * f->g.nc, n = f->g.nc * sizeof (float);
          if (up)
            CK (cudaMemcpyAsync (f->buf[which] + at, host + at, n, cudaMemcpyHostToDevice, f->stream));
          else
            CK (cudaMemcpyAsync (host + at, f->buf[which] + at, n, cudaMemcpyDeviceToHost, f->stream));
        }
  }
  CK (cudaStreamSynchronize (f->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_upload_rays (CtrCudaFly *f, CtrCudaFlyBuf which, unsigned subset, const float *host, char *err)
{
  return copy_rays (f, which, subset, (float *) host, 1, err);
}

extern "C" CtrCudaStatus
ctr_cuda_fly_download_rays (CtrCudaFly *f, CtrCudaFlyBuf which, unsigned subset, float *host, char *err)
{
  return copy_rays (f, which, subset, host, 0, err);
}

/* The rays of @subset: the offset of its views in g.views, the ray count,
 * whether it is every view. */
static void
subset_rays (const CtrCudaFly *f, unsigned subset, unsigned *v0, unsigned *nrays, int *all)
{
  *all = subset >= f->n_subsets;
  *v0 = *all ? 0 : f->ptr[subset];
  *nrays = (*all ? f->g.nv : f->ptr[subset + 1] - f->ptr[subset]) * f->g.nc;
}

enum { FLY_THREADS = 128 };

extern "C" CtrCudaStatus
ctr_cuda_fly_forward (CtrCudaFly *f, unsigned subset, const float *X, float *Y, float *Y2, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  unsigned v0, nrays;
  int all;
  subset_rays (f, subset, &v0, &nrays, &all);
  if (nrays == 0)
    return CTR_CUDA_OK;
  {
    const dim3 grid ((nrays + FLY_THREADS - 1) / FLY_THREADS, f->g.ns);
    fly_forward_kernel<<<grid, FLY_THREADS, 0, f->stream>>> (f->g, v0, nrays, all, X, Y, Y2);
  }
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_adjoint (CtrCudaFly *f, unsigned subset, const float *Y, float *D, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  unsigned v0, nrays;
  int all;
  subset_rays (f, subset, &v0, &nrays, &all);
  if (nrays == 0)
    return CTR_CUDA_OK;
  {
    const dim3 grid ((nrays + FLY_THREADS - 1) / FLY_THREADS, Y == nullptr ? 1 : f->g.ns);
    fly_adjoint_kernel<<<grid, FLY_THREADS, 0, f->stream>>> (f->g, v0, nrays, all, Y, D);
  }
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_residual (CtrCudaFly *f, unsigned subset, float step, const float *B, const float *coef, const float *Y,
                       float *R, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  unsigned v0, nrays;
  int all;
  subset_rays (f, subset, &v0, &nrays, &all);
  if (nrays == 0)
    return CTR_CUDA_OK;
  {
    const dim3 grid ((nrays + FLY_THREADS - 1) / FLY_THREADS, f->g.ns);
    fly_residual_kernel<<<grid, FLY_THREADS, 0, f->stream>>> (f->g, v0, nrays, all, step, B, coef, Y, R);
  }
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_apply (CtrCudaFly *f, int mode, int nonneg, float *X, const float *D, const float *CS, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  {
    const size_t n = f->nimg, np = (size_t) f->g.nx * f->g.ny;
    fly_apply_kernel<<<(unsigned) ((n + 255) / 256), 256, 0, f->stream>>> (n, np, mode, nonneg, X, D, CS);
  }
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_zero (CtrCudaFly *f, CtrCudaFlyBuf which, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaMemsetAsync (f->buf[which], 0, buf_floats (f, which) * sizeof (float), f->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_fly_sync (CtrCudaFly *f, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaStreamSynchronize (f->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}
