/* ctr-cuda-cone.cu — the cone-beam projector pair on the GPU (see
 * ctr-cuda-api.h, cone part; the GLib side is ctr-cuda-cone.c).
 *
 * The ray model is the CPU's (core/sysmat/ctr-cone-projector.c): Joseph
 * (1982), "An improved algorithm for reprojecting rays through pixel
 * images", IEEE TMI 1(3).  A ray is sampled where it crosses the planes
 * perpendicular to its dominant in-plane axis; each sample is the bilinear
 * interpolation (other in-plane axis × z) of the four voxels around the
 * crossing, weighted by the step length between planes, voxel size /
 * |direction component| (mm); voxels outside the grid count as 0.  For an
 * x-dominant ray with unit direction d from the source S, plane i (x = x_i):
 *   t_i = (x_i − S_x)/d_x,  fj(i) = (y_0 − S_y − t_i d_y)/Δy,
 *   fk(i) = (S_z + t_i d_z − z_0)/Δz,          weight Δx/|d_x|,
 * the transverse index counted from y_0 downwards as the CPU's (FORMAT.md:
 * row j of the image at y_0 − j·Δy).  The ray parameters are set up in
 * double from the ray's ends, rounded to float as the CPU does, and the
 * plane walk is the CPU's checked stencil (the same floats; only the order
 * of the sums differs), so GPU = CPU to float rounding
 * (tests/test-gpu-cone.c states the tolerance).
 *
 * The ends: the host gives, per view, the source S_v and the detector point
 * of row 0 of every column, and the step of the detector point per row
 * (rows are straight lines on every detector ctr_cone_ray serves; the glue
 * checks it): the ray of (v, row, col) runs from S_v towards
 * P_v(col, 0) + row·R_v.  So nothing per ray is stored and any volume size
 * works.
 *
 * Forward: one thread per ray, the four voxels of each plane read through
 * the read-only cache (__ldg), the sum in a register, one coalesced store.
 * Adjoint: the exact transpose of the same weights, one thread per ray with
 * atomicAdd into the volume (rays of neighbouring detector columns, one
 * warp, touch neighbouring voxels plane by plane, so the atomics meet in few
 * L2 sectors); the float sums land in another order than on the CPU (to
 * rounding).  The column sums A_Sᵀ1 come from the same walk into a second
 * volume.
 *
 * Iterations on the device (SART, SIRT): image, data, coefficients and
 * work volumes stay in device memory for the whole run; a pass is a series
 * of kernels on one stream, timed with events.
 */
#include "ctr-cuda-cone-private.cuh"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct RayP {
  float a0, ad, b0, bd, w;
  long long p_lo, p_hi;   /* planes that can touch the grid */
  int q_lo, q_hi;         /* the interior run: all four neighbours inside (empty: q_lo > q_hi) */
};

/* clip_planes of the CPU: [lo, hi] narrowed to the planes where c0 + cd·p
 * lies in (−1, n), with one plane of margin. */
__device__ static void
clip_planes (double c0, double cd, double n, long long *lo, long long *hi)
{
  if (cd == 0.0)
    {
      if (!(c0 > -1.0 && c0 < n))
        *hi = *lo - 1;
      return;
    }
  double t1 = (-1.0 - c0) / cd, t2 = (n - c0) / cd;
  double a = floor (fmin (t1, t2)) - 1.0, b = ceil (fmax (t1, t2)) + 1.0;
  if (a > (double) *lo)
    *lo = a > (double) *hi ? *hi + 1 : (long long) a;
  if (b < (double) *hi)
    *hi = b < (double) *lo ? *lo - 1 : (long long) b;
}

/* narrow_interior of the CPU: [lo, hi] narrowed to the planes where
 * c0 + cd·p lies in [m, n − 1 − m], so that floor() is in [0, n − 2] and
 * both neighbours lie inside; the margin m covers the float rounding. */
__device__ static void
narrow_interior (double c0, double cd, double n, double np, double *lo, double *hi)
{
  const double m = 1e-3 + 1e-6 * (fabs (c0) + fabs (cd) * np), top = n - 1.0 - m;
  if (top < m)
    *hi = *lo - 1.0;
  else if (cd == 0.0)
    {
      if (!(c0 >= m && c0 <= top))
        *hi = *lo - 1.0;
    }
  else
    {
      const double t1 = (m - c0) / cd, t2 = (top - c0) / cd;
      *lo = fmax (*lo, ceil (fmin (t1, t2)));
      *hi = fmin (*hi, floor (fmax (t1, t2)));
    }
}

/* interior_run of the CPU (na, nb: sizes of the transverse and z axes, np
 * of the plane axis). */
__device__ static void
interior_run (RayP *r, long long na, long long nb, long long np, bool small)
{
  double lo = (double) r->p_lo, hi = (double) r->p_hi;
  if (!small)
    hi = lo - 1.0;
  narrow_interior (r->a0, r->ad, (double) na, (double) np, &lo, &hi);
  narrow_interior (r->b0, r->bd, (double) nb, (double) np, &lo, &hi);
  if (lo > hi)
    {
      r->q_lo = 1;
      r->q_hi = 0;
      return;
    }
  r->q_lo = (int) lo;
  r->q_hi = (int) hi;
}

/* The CPU's ray_setup from the ray's ends; TRUE for an x-dominant ray. */
__device__ static bool
ray_setup (const ConeGeo &g, unsigned v, unsigned row, unsigned col, RayP *r)
{
  const double *s = g.src + 3 * (size_t) v, *a = g.ray0 + 3 * ((size_t) v * g.nc + col), *b = g.drow + 3 * (size_t) v;
  double d0 = a[0] + row * b[0], d1 = a[1] + row * b[1], d2 = a[2] + row * b[2];
  const double n = sqrt (d0 * d0 + d1 * d1 + d2 * d2);
  d0 /= n;
  d1 /= n;
  d2 /= n;
  if (fabs (d0) >= fabs (d1))
    {
      const double t0 = (g.x0 - s[0]) / d0, dt = g.dx / d0;
      r->a0 = (float) ((g.y0 - s[1] - t0 * d1) / g.dy);
      r->ad = (float) (-dt * d1 / g.dy);
      r->b0 = (float) ((s[2] + t0 * d2 - g.z0) / g.dz);
      r->bd = (float) (dt * d2 / g.dz);
      r->w = (float) fabs (dt);
      r->p_lo = 0;
      r->p_hi = (long long) g.nx - 1;
      clip_planes (r->a0, r->ad, g.ny, &r->p_lo, &r->p_hi);
      clip_planes (r->b0, r->bd, g.nz, &r->p_lo, &r->p_hi);
      interior_run (r, g.ny, g.nz, g.nx, g.small);
      return true;
    }
  const double t0 = (g.y0 - s[1]) / d1, dt = -g.dy / d1;
  r->a0 = (float) ((s[0] + t0 * d0 - g.x0) / g.dx);
  r->ad = (float) (dt * d0 / g.dx);
  r->b0 = (float) ((s[2] + t0 * d2 - g.z0) / g.dz);
  r->bd = (float) (dt * d2 / g.dz);
  r->w = (float) fabs (dt);
  r->p_lo = 0;
  r->p_hi = (long long) g.ny - 1;
  clip_planes (r->a0, r->ad, g.nx, &r->p_lo, &r->p_hi);
  clip_planes (r->b0, r->bd, g.nz, &r->p_lo, &r->p_hi);
  interior_run (r, g.nx, g.nz, g.ny, g.small);
  return false;
}

/* The bilinear stencil of plane @p (the CPU's stencil + corners): the
 * voxels inside the grid and their weights wa·wb, in the CPU's order
 * (z outer, transverse inner), as indices into [z][y][x], or, with @tr (an
 * x-dominant ray), into the transposed [z][x][y], where the neighbours
 * across the ray (along y) are adjacent in memory as they are for
 * y-dominant rays in [z][y][x]: a warp's loads and atomics coalesce for
 * both.  Returns their number. */
__device__ static inline int
plane_stencil (const ConeGeo &g, const RayP &r, bool xdom, bool tr, long long p, size_t at[4], float wt[4])
{
  const long long na = xdom ? g.ny : g.nx;
  /* __fmul_rn/__fadd_rn: no contraction into an FMA, the CPU's floats */
  const float fa = __fadd_rn (r.a0, __fmul_rn (r.ad, (float) p));
  const float fb = __fadd_rn (r.b0, __fmul_rn (r.bd, (float) p));
  if (!(fa > -1.0f && fa < (float) na && fb > -1.0f && fb < (float) g.nz))
    return 0;
  const float fla = floorf (fa), flb = floorf (fb);
  const long long ia = (long long) fla, ib = (long long) flb;
  const float ea = fa - fla, eb = fb - flb;
  const float wa[2] = { 1.0f - ea, ea }, wb[2] = { 1.0f - eb, eb };
  const size_t sxy = (size_t) g.nx * g.ny;
  int n = 0;
  for (int db = 0; db < 2; db++)
    {
      const long long k = ib + db;
      if (k < 0 || k >= (long long) g.nz)
        continue;
      for (int da = 0; da < 2; da++)
        {
          const long long aa = ia + da;
          if (aa < 0 || aa >= na)
            continue;
          /* tr: an x-dominant ray on the transposed copy [z][x][y] */
          at[n] = tr     ? (size_t) k * sxy + (size_t) p * g.ny + (size_t) aa
                  : xdom ? (size_t) k * sxy + (size_t) aa * g.nx + (size_t) p
                         : (size_t) k * sxy + (size_t) p * g.nx + (size_t) aa;
          wt[n++] = wa[da] * wb[db];
        }
    }
  return n;
}

/* The interior run's strides: voxel (a, b) of plane p at b·sxy + a·sa + p·sp
 * (32 bits: g.small). */
struct Strides {
  int sa, sp, sxy;
};

__device__ static inline Strides
strides_of (const ConeGeo &g, bool xdom, bool tr)
{
  Strides st;
  st.sxy = (int) (g.nx * g.ny);
  st.sa = xdom && !tr ? (int) g.nx : 1;
  st.sp = tr ? (int) g.ny : xdom ? 1 : (int) g.nx;
  return st;
}

/* A plane of the interior run (the CPU's interior_stencil): the index of the
 * (0, 0) neighbour and the four weights, truncation for floor(). */
__device__ static inline int
interior_at (const RayP &r, int p, Strides st, float wt[4])
{
  const float fa = __fadd_rn (r.a0, __fmul_rn (r.ad, (float) p));
  const float fb = __fadd_rn (r.b0, __fmul_rn (r.bd, (float) p));
  const int ia = (int) fa, ib = (int) fb;
  const float ea = fa - (float) ia, eb = fb - (float) ib, ua = 1.0f - ea, ub = 1.0f - eb;
  wt[0] = ua * ub;
  wt[1] = ea * ub;
  wt[2] = ua * eb;
  wt[3] = ea * eb;
  return ib * st.sxy + ia * st.sa + p * st.sp;
}

/* The checked planes before and after the interior run: [p_lo, *e0] and
 * [*s1, p_hi] (the whole ray when the run is empty). */
__device__ static inline void
edges_of (const RayP &r, long long *e0, long long *s1)
{
  if (r.q_lo <= r.q_hi)
    {
      *e0 = r.q_lo - 1;
      *s1 = r.q_hi + 1;
    }
  else
    {
      *e0 = r.p_hi;
      *s1 = r.p_hi + 1;
    }
}

/* Ray i of views [v0, v0 + nviews): its view, row, column and whether the
 * mask leaves it out. */
__device__ static inline bool
ray_of (const ConeGeo &g, unsigned v0, size_t i, unsigned *v, unsigned *row, unsigned *col)
{
  const size_t per = (size_t) g.nr * g.nc;
  *v = v0 + (unsigned) (i / per);
  const size_t rc = i % per;
  *row = (unsigned) (rc / g.nc);
  *col = (unsigned) (rc % g.nc);
  return g.mask == nullptr || g.mask[(size_t) *v * per + rc] != 0;
}

/* y[ray] = A X on the rays of views [v0, v0 + nviews) (g.accumulate: y +=
 * A X, a z-slab's share); @y is the data buffer ([view][row][col], its
 * first view g.yv0), so the views land in place. */
__global__ void __launch_bounds__ (CONE_BLOCK)
cone_forward_k (ConeGeo g, unsigned v0, size_t nrays, const float *__restrict__ vol,
                const float *__restrict__ volt, float *__restrict__ y)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nrays)
    return;
  unsigned v, row, col;
  const size_t at_y = (size_t) (v0 - g.yv0) * g.nr * g.nc + i;
  if (!ray_of (g, v0, i, &v, &row, &col))
    {
      if (!g.accumulate)
        y[at_y] = 0.0f;
      return;
    }
  RayP r;
  const bool xdom = ray_setup (g, v, row, col, &r), tr = xdom && volt != nullptr;
  const float *src = tr ? volt : vol;
  long long e0, s1;
  edges_of (r, &e0, &s1);
  float acc = 0.0f;
  for (long long p = r.p_lo; p <= e0; p++)
    {
      size_t at[4];
      float wt[4];
      const int n = plane_stencil (g, r, xdom, tr, p, at, wt);
      float s = 0.0f;
      for (int c = 0; c < n; c++)
        s += wt[c] * __ldg (src + at[c]);
      acc += s;
    }
  if (r.q_lo <= r.q_hi)
    {
      const Strides st = strides_of (g, xdom, tr);
      for (int p = r.q_lo; p <= r.q_hi; p++)
        {
          float wt[4];
          const float *q = src + interior_at (r, p, st, wt);
          acc += wt[0] * __ldg (q) + wt[1] * __ldg (q + st.sa) + wt[2] * __ldg (q + st.sxy)
                 + wt[3] * __ldg (q + st.sxy + st.sa);
        }
    }
  for (long long p = s1; p <= r.p_hi; p++)
    {
      size_t at[4];
      float wt[4];
      const int n = plane_stencil (g, r, xdom, tr, p, at, wt);
      float s = 0.0f;
      for (int c = 0; c < n; c++)
        s += wt[c] * __ldg (src + at[c]);
      acc += s;
    }
  y[at_y] = g.accumulate ? y[at_y] + r.w * acc : r.w * acc;
}

/* vol += A_Sᵀ y (y NULL: Aᵀ1 into vol) and, when @weights, weights += A_Sᵀ1,
 * over the rays of views [v0, v0 + nviews); with @volt, the x-dominant rays
 * add into the transposed @volt and @weightst instead (folded afterwards). */
__global__ void __launch_bounds__ (CONE_BLOCK)
cone_adjoint_k (ConeGeo g, unsigned v0, size_t nrays, const float *__restrict__ y, float *vol, float *weights,
                float *volt, float *weightst)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nrays)
    return;
  unsigned v, row, col;
  if (!ray_of (g, v0, i, &v, &row, &col))
    return;
  const float val = y != nullptr ? y[(size_t) (v0 - g.yv0) * g.nr * g.nc + i] : 1.0f;
  if (val == 0.0f && weights == nullptr)
    return;
  RayP r;
  const bool xdom = ray_setup (g, v, row, col, &r), tr = xdom && volt != nullptr;
  float *dst = tr ? volt : vol, *dstw = tr ? weightst : weights;
  long long e0, s1;
  edges_of (r, &e0, &s1);
  for (long long p = r.p_lo; p <= r.p_hi; p++)
    {
      if (p == e0 + 1 && r.q_lo <= r.q_hi)
        {
          /* the interior run */
          const Strides st = strides_of (g, xdom, tr);
          const int off[4] = { 0, st.sa, st.sxy, st.sxy + st.sa };
          for (int q = r.q_lo; q <= r.q_hi; q++)
            {
              float wt[4];
              const int at = interior_at (r, q, st, wt);
              for (int c = 0; c < 4; c++)
                {
                  const float w = r.w * wt[c];
                  if (val != 0.0f)
                    atomicAdd (dst + at + off[c], w * val);
                  if (dstw != nullptr)
                    atomicAdd (dstw + at + off[c], w);
                }
            }
          p = s1 - 1;
          continue;
        }
      size_t at[4];
      float wt[4];
      const int n = plane_stencil (g, r, xdom, tr, p, at, wt);
      for (int c = 0; c < n; c++)
        {
          const float w = r.w * wt[c];
          if (val != 0.0f)
            atomicAdd (dst + at[c], w * val);
          if (dstw != nullptr)
            atomicAdd (dstw + at[c], w);
        }
    }
}

#define TILE 32

/* out[z][x][y] = in[z][y][x], through a shared tile (both sides coalesced);
 * blocks of 32 × 8 threads, grid (⌈nx/32⌉, ⌈ny/32⌉, nz). */
__global__ void
cone_transpose_k (unsigned nx, unsigned ny, const float *__restrict__ in, float *__restrict__ out)
{
  __shared__ float tile[TILE][TILE + 1];
  const size_t base = (size_t) blockIdx.z * nx * ny;
  const unsigned bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  for (unsigned j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      const unsigned x = bx + threadIdx.x, y = by + j;
      if (x < nx && y < ny)
        tile[j][threadIdx.x] = in[base + (size_t) y * nx + x];
    }
  __syncthreads ();
  for (unsigned j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      const unsigned x = bx + j, y = by + threadIdx.x;
      if (x < nx && y < ny)
        out[base + (size_t) x * ny + y] = tile[threadIdx.x][j];
    }
}

/* dst[z][y][x] += srct[z][x][y], and srct zeroed (the transposed adjoint
 * targets folded into the plain ones). */
__global__ void
cone_fold_k (unsigned nx, unsigned ny, float *__restrict__ dst, float *__restrict__ srct)
{
  __shared__ float tile[TILE][TILE + 1];
  const size_t base = (size_t) blockIdx.z * nx * ny;
  const unsigned bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  for (unsigned j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      const unsigned x = bx + j, y = by + threadIdx.x;
      if (x < nx && y < ny)
        {
          const size_t at = base + (size_t) x * ny + y;
          tile[j][threadIdx.x] = srct[at];
          srct[at] = 0.0f;
        }
    }
  __syncthreads ();
  for (unsigned j = threadIdx.y; j < TILE; j += blockDim.y)
    {
      const unsigned x = bx + threadIdx.x, y = by + j;
      if (x < nx && y < ny)
        dst[base + (size_t) y * nx + x] += tile[threadIdx.x][j];
    }
}

/* r = step · coef ∘ (b − y) on elements [o, o + n). */
__global__ void
cone_residual_k (size_t o, size_t n, float step, const float *__restrict__ b, const float *__restrict__ coef,
                 const float *__restrict__ y, float *__restrict__ r)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    r[o + i] = step * coef[o + i] * (b[o + i] - y[o + i]);
}

/* The image steps: mode 0  x += d;  1  x += d / cs where cs > 0 (SART);
 * 2  x += cs ∘ d (cs holds SIRT's scale); then clipped at 0 with @nonneg. */
__global__ void
cone_apply_k (size_t n, int mode, int nonneg, float *__restrict__ x, const float *__restrict__ d,
              const float *__restrict__ cs)
{
  const size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  if (mode == 0)
    v += d[i];
  else if (mode == 1)
    {
      if (cs[i] > 0.0f)
        v += d[i] / cs[i];
    }
  else
    v += cs[i] * d[i];
  x[i] = nonneg && v < 0.0f ? 0.0f : v;
}

/* norms[0] += Σ valid (b − y)², norms[1] += Σ valid b² (block sums in
 * double, one atomic per block). */
__global__ void __launch_bounds__ (CONE_BLOCK)
cone_norms_k (size_t n, const float *__restrict__ b, const float *__restrict__ y, const float *__restrict__ valid,
              double *norms)
{
  __shared__ double s0[CONE_BLOCK], s1[CONE_BLOCK];
  double r2 = 0.0, b2 = 0.0;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    if (valid[i] != 0.0f)
      {
        const double e = (double) b[i] - (double) y[i];
        r2 += e * e;
        b2 += (double) b[i] * b[i];
      }
  s0[threadIdx.x] = r2;
  s1[threadIdx.x] = b2;
  __syncthreads ();
  for (unsigned h = blockDim.x / 2; h > 0; h >>= 1)
    {
      if (threadIdx.x < h)
        {
          s0[threadIdx.x] += s0[threadIdx.x + h];
          s1[threadIdx.x] += s1[threadIdx.x + h];
        }
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    {
      atomicAdd (norms, s0[0]);
      atomicAdd (norms + 1, s1[0]);
    }
}

static inline unsigned
blocks_for (size_t n)
{
  return (unsigned) ((n + CONE_BLOCK - 1) / CONE_BLOCK);
}

extern "C" CtrCudaStatus
ctr_cuda_cone_create (const CtrCudaConeDesc *desc, CtrCudaCone **out, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  *out = nullptr;
  CtrCudaCone *c = (CtrCudaCone *) calloc (1, sizeof *c);
  if (c == nullptr)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cannot allocate the cone session");
      return CTR_CUDA_NO_MEMORY;
    }
  ConeGeo &g = c->g;
  g.nv = desc->n_views;
  g.nr = desc->n_rows;
  g.nc = desc->n_cols;
  g.nx = desc->nx;
  g.ny = desc->ny;
  g.nz = desc->nz;
  g.x0 = desc->x0;
  g.y0 = desc->y0;
  g.z0 = desc->z0;
  g.dx = desc->dx;
  g.dy = desc->dy;
  g.dz = desc->dz;
  c->nvox = (size_t) g.nx * g.ny * g.nz;
  g.small = !desc->checked_only && c->nvox + (size_t) g.nx * g.ny + g.nx < (size_t) INT32_MAX;
  c->per_view = (size_t) g.nr * g.nc;
  c->data_views = desc->data_views != 0 && desc->data_views < g.nv ? desc->data_views : g.nv;
  c->ndata = c->per_view * c->data_views;
  const size_t geo_bytes = (size_t) g.nv * 3 * 8 * 2 + (size_t) g.nv * g.nc * 3 * 8;
  const size_t mask_bytes = desc->mask != nullptr ? c->per_view * g.nv : 0;
  const size_t vol_bufs = desc->transposed ? 6 : 3, data_bufs = desc->products_only ? 2 : CTR_CUDA_CONE_N_BUFS - 3;
  const size_t need = geo_bytes + mask_bytes + (vol_bufs * c->nvox + data_bufs * c->ndata) * sizeof (float) + 16;
  if ((st = ctr_cuda_check_free (need, "the cone-beam projector's volumes and projections", err)) != CTR_CUDA_OK)
    {
      free (c);
      return st;
    }
  CK (cudaStreamCreateWithFlags (&c->stream, cudaStreamNonBlocking));
  for (int k = 0; k < 6; k++)
    CK (cudaEventCreate (&c->ev[k]));
  CK (cudaMalloc ((void **) &c->src, (size_t) g.nv * 3 * 8));
  CK (cudaMalloc ((void **) &c->drow, (size_t) g.nv * 3 * 8));
  CK (cudaMalloc ((void **) &c->ray0, (size_t) g.nv * g.nc * 3 * 8));
  CK (cudaMalloc ((void **) &c->norms, 2 * sizeof (double)));
  if (desc->mask != nullptr)
    CK (cudaMalloc ((void **) &c->mask, mask_bytes));
  for (int k = 0; k < (int) (3 + data_bufs); k++)
    CK (cudaMalloc ((void **) &c->buf[k], (k < 3 ? c->nvox : c->ndata) * sizeof (float)));
  if (desc->transposed)
    {
      CK (cudaMalloc ((void **) &c->xt, c->nvox * sizeof (float)));
      CK (cudaMalloc ((void **) &c->dt, c->nvox * sizeof (float)));
      CK (cudaMalloc ((void **) &c->cst, c->nvox * sizeof (float)));
      CK (cudaMemsetAsync (c->dt, 0, c->nvox * sizeof (float), c->stream));
      CK (cudaMemsetAsync (c->cst, 0, c->nvox * sizeof (float), c->stream));
    }
  CK (cudaMemcpyAsync (c->src, desc->src, (size_t) g.nv * 3 * 8, cudaMemcpyHostToDevice, c->stream));
  CK (cudaMemcpyAsync (c->drow, desc->drow, (size_t) g.nv * 3 * 8, cudaMemcpyHostToDevice, c->stream));
  CK (cudaMemcpyAsync (c->ray0, desc->ray0, (size_t) g.nv * g.nc * 3 * 8, cudaMemcpyHostToDevice, c->stream));
  if (desc->mask != nullptr)
    CK (cudaMemcpyAsync (c->mask, desc->mask, mask_bytes, cudaMemcpyHostToDevice, c->stream));
  for (int k = 0; k < (int) (3 + data_bufs); k++)
    CK (cudaMemsetAsync (c->buf[k], 0, (k < 3 ? c->nvox : c->ndata) * sizeof (float), c->stream));
  /* the host arrays are pageable: the copies are done when this returns */
  CK (cudaStreamSynchronize (c->stream));
  g.src = c->src;
  g.ray0 = c->ray0;
  g.drow = c->drow;
  g.mask = c->mask;
  c->bytes = need;
  *out = c;
  return CTR_CUDA_OK;
fail:
  ctr_cuda_cone_destroy (c);
  return st;
}

extern "C" void
ctr_cuda_cone_destroy (CtrCudaCone *c)
{
  if (c == nullptr)
    return;
  if (c->stream != nullptr)
    cudaStreamSynchronize (c->stream);
  for (int k = 0; k < CTR_CUDA_CONE_N_BUFS; k++)
    cudaFree (c->buf[k]);
  cudaFree (c->xt);
  cudaFree (c->dt);
  cudaFree (c->cst);
  cudaFree (c->src);
  cudaFree (c->drow);
  cudaFree (c->ray0);
  cudaFree (c->mask);
  cudaFree (c->norms);
  for (int k = 0; k < 6; k++)
    if (c->ev[k] != nullptr)
      cudaEventDestroy (c->ev[k]);
  if (c->stream != nullptr)
    cudaStreamDestroy (c->stream);
  ctr_cuda_clear_error ();
  free (c);
}

extern "C" size_t
ctr_cuda_cone_device_bytes (const CtrCudaCone *c)
{
  return c->bytes;
}

static size_t
buf_len (const CtrCudaCone *c, CtrCudaConeBuf which)
{
  return (int) which < 0 || which >= CTR_CUDA_CONE_N_BUFS || c->buf[which] == nullptr ? 0
         : which < 3 ? c->nvox : c->ndata;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_upload (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, const float *host, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (buf_len (c, which) == 0 || offset > buf_len (c, which) || n > buf_len (c, which) - offset)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone upload: floats [%zu, %zu) outside buffer %d", offset, offset + n, (int) which);
      return CTR_CUDA_INVALID;
    }
  if (which == CTR_CUDA_CONE_X)
    c->y_current = c->xt_current = 0;
  CK (cudaMemcpyAsync (c->buf[which] + offset, host, n * sizeof (float), cudaMemcpyHostToDevice, c->stream));
  CK (cudaStreamSynchronize (c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_download (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *host, size_t n, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (buf_len (c, which) == 0 || offset > buf_len (c, which) || n > buf_len (c, which) - offset)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone download: floats [%zu, %zu) outside buffer %d", offset, offset + n, (int) which);
      return CTR_CUDA_INVALID;
    }
  CK (cudaMemcpyAsync (host, c->buf[which] + offset, n * sizeof (float), cudaMemcpyDeviceToHost, c->stream));
  CK (cudaStreamSynchronize (c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_download_pitched (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *host, size_t width,
                                size_t height, size_t pitch, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  const size_t len = buf_len (c, which);
  if (width == 0 || height == 0)
    return CTR_CUDA_OK;
  if (len == 0 || (height > 1 && pitch < width) || width > len || offset > len - width
      || (height > 1 && pitch > (len - width - offset) / (height - 1)))
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone download: %zu runs of %zu floats from %zu (pitch %zu) outside buffer %d",
                height, width, offset, pitch, (int) which);
      return CTR_CUDA_INVALID;
    }
  if (height == 1)
    pitch = width;
  CK (cudaMemcpy2DAsync (host, pitch * sizeof (float), c->buf[which] + offset, pitch * sizeof (float),
                         width * sizeof (float), height, cudaMemcpyDeviceToHost, c->stream));
  CK (cudaStreamSynchronize (c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* Device-to-device copies between a buffer and device memory of the
 * caller (ctr-cuda-cone-vecops.c: the vectors of a device-resident run). */
extern "C" CtrCudaStatus
ctr_cuda_cone_exchange (CtrCudaCone *c, CtrCudaConeBuf which, size_t offset, float *dev, size_t n, int into,
                        char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if ((int) which < 0 || which >= CTR_CUDA_CONE_N_BUFS || offset > buf_len (c, which) || n > buf_len (c, which) - offset)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone exchange: floats [%zu, %zu) outside buffer %d", offset, offset + n,
                (int) which);
      return CTR_CUDA_INVALID;
    }
  if (into && which == CTR_CUDA_CONE_X)
    c->y_current = c->xt_current = 0;
  CK (cudaMemcpyAsync (into ? c->buf[which] + offset : dev, into ? dev : c->buf[which] + offset, n * sizeof (float),
                       cudaMemcpyDeviceToDevice, c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" void *
ctr_cuda_cone_stream (CtrCudaCone *c)
{
  return (void *) c->stream;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_zero (CtrCudaCone *c, CtrCudaConeBuf which, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (buf_len (c, which) == 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone zero: no buffer %d", (int) which);
      return CTR_CUDA_INVALID;
    }
  if (which == CTR_CUDA_CONE_X)
    c->y_current = c->xt_current = 0;
  CK (cudaMemsetAsync (c->buf[which], 0, buf_len (c, which) * sizeof (float), c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* The transposed layout pays for its transposes and folds (a few sweeps of
 * the volume) only over many views: the products of single views (SART's,
 * PWLS's subsets) keep the plain layout. */
#define TRANSPOSED_MIN_VIEWS 16

static bool
uses_transposed (const CtrCudaCone *c, unsigned nviews)
{
  return c->xt != nullptr && nviews >= TRANSPOSED_MIN_VIEWS;
}

static dim3
tile_grid (const CtrCudaCone *c)
{
  return dim3 ((c->g.nx + TILE - 1) / TILE, (c->g.ny + TILE - 1) / TILE, c->g.nz);
}

static bool
views_ok (const CtrCudaCone *c, unsigned v0, unsigned nviews, char *err)
{
  if (nviews == 0 || v0 >= c->g.nv || nviews > c->g.nv - v0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone: views [%u, %u) outside the %u views", v0, v0 + nviews, c->g.nv);
      return false;
    }
  if (v0 < c->g.yv0 || v0 + nviews > c->g.yv0 + c->data_views)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone: views [%u, %u) outside the data buffers' [%u, %u)", v0, v0 + nviews,
                c->g.yv0, c->g.yv0 + c->data_views);
      return false;
    }
  return true;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_forward (CtrCudaCone *c, unsigned v0, unsigned nviews, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!views_ok (c, v0, nviews, err))
    return CTR_CUDA_INVALID;
  {
    const size_t n = (size_t) nviews * c->per_view;
    const bool use_t = uses_transposed (c, nviews);
    if (use_t && !c->xt_current)
      {
        cone_transpose_k<<<tile_grid (c), dim3 (TILE, 8), 0, c->stream>>> (c->g.nx, c->g.ny, c->buf[CTR_CUDA_CONE_X],
                                                                          c->xt);
        CK_LAUNCH ();
        c->xt_current = 1;
      }
    cone_forward_k<<<blocks_for (n), CONE_BLOCK, 0, c->stream>>> (c->g, v0, n, c->buf[CTR_CUDA_CONE_X],
                                                                    use_t ? c->xt : nullptr, c->buf[CTR_CUDA_CONE_Y]);
    CK_LAUNCH ();
  }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_adjoint (CtrCudaCone *c, unsigned v0, unsigned nviews, int ones, int with_weights, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!views_ok (c, v0, nviews, err))
    return CTR_CUDA_INVALID;
  {
    const size_t n = (size_t) nviews * c->per_view;
    const bool use_t = uses_transposed (c, nviews);
    cone_adjoint_k<<<blocks_for (n), CONE_BLOCK, 0, c->stream>>> (
      c->g, v0, n, ones ? nullptr : c->buf[CTR_CUDA_CONE_R], c->buf[CTR_CUDA_CONE_D],
      with_weights ? c->buf[CTR_CUDA_CONE_CS] : nullptr, use_t ? c->dt : nullptr,
      use_t && with_weights ? c->cst : nullptr);
    CK_LAUNCH ();
    if (use_t)
      {
        cone_fold_k<<<tile_grid (c), dim3 (TILE, 8), 0, c->stream>>> (c->g.nx, c->g.ny, c->buf[CTR_CUDA_CONE_D], c->dt);
        CK_LAUNCH ();
        if (with_weights)
          {
            cone_fold_k<<<tile_grid (c), dim3 (TILE, 8), 0, c->stream>>> (c->g.nx, c->g.ny, c->buf[CTR_CUDA_CONE_CS],
                                                                         c->cst);
            CK_LAUNCH ();
          }
      }
  }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_residual (CtrCudaCone *c, unsigned v0, unsigned nviews, float step, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!views_ok (c, v0, nviews, err))
    return CTR_CUDA_INVALID;
  if (c->buf[CTR_CUDA_CONE_B] == nullptr || c->g.yv0 != 0)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone residual: a session of products only");
      return CTR_CUDA_INVALID;
    }
  {
    const size_t n = (size_t) nviews * c->per_view;
    cone_residual_k<<<blocks_for (n), CONE_BLOCK, 0, c->stream>>> (
      (size_t) v0 * c->per_view, n, step, c->buf[CTR_CUDA_CONE_B], c->buf[CTR_CUDA_CONE_COEF],
      c->buf[CTR_CUDA_CONE_Y], c->buf[CTR_CUDA_CONE_R]);
    CK_LAUNCH ();
  }
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_apply (CtrCudaCone *c, int mode, int nonneg, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (mode < 0 || mode > 2)
    {
      snprintf (err, CTR_CUDA_ERR_LEN, "cone apply: mode %d", mode);
      return CTR_CUDA_INVALID;
    }
  c->y_current = c->xt_current = 0;
  cone_apply_k<<<blocks_for (c->nvox), CONE_BLOCK, 0, c->stream>>> (
    c->nvox, mode, nonneg, c->buf[CTR_CUDA_CONE_X], c->buf[CTR_CUDA_CONE_D], c->buf[CTR_CUDA_CONE_CS]);
  CK_LAUNCH ();
  return CTR_CUDA_OK;
fail:
  return st;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_sync (CtrCudaCone *c, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  CK (cudaStreamSynchronize (c->stream));
  return CTR_CUDA_OK;
fail:
  return st;
}

/* ||B − A X|| / ||B|| over the valid rays, with Y = A X computed first. */
static CtrCudaStatus
relative_residual (CtrCudaCone *c, double *residual, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  double h[2] = { 0, 0 };
  if ((st = ctr_cuda_cone_forward (c, 0, c->g.nv, err)) != CTR_CUDA_OK)
    return st;
  c->y_current = 1;
  CK (cudaMemsetAsync (c->norms, 0, 2 * sizeof (double), c->stream));
  {
    const unsigned nb = blocks_for (c->ndata) < 1024 ? blocks_for (c->ndata) : 1024;
    cone_norms_k<<<nb, CONE_BLOCK, 0, c->stream>>> (c->ndata, c->buf[CTR_CUDA_CONE_B], c->buf[CTR_CUDA_CONE_Y],
                                                     c->buf[CTR_CUDA_CONE_VALID], c->norms);
    CK_LAUNCH ();
  }
  CK (cudaMemcpyAsync (h, c->norms, sizeof h, cudaMemcpyDeviceToHost, c->stream));
  CK (cudaStreamSynchronize (c->stream));
  *residual = h[1] > 0 ? sqrt (h[0] / h[1]) : sqrt (h[0]);
  return CTR_CUDA_OK;
fail:
  return st;
}

/* One SIRT pass: D = Aᵀ (coef ∘ (B − A X)), X += scale ∘ D (scale in CS). */
static CtrCudaStatus
sirt_pass (CtrCudaCone *c, int nonneg, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  if (!c->y_current && (st = ctr_cuda_cone_forward (c, 0, c->g.nv, err)) != CTR_CUDA_OK)
    return st;
  CK (cudaEventRecord (c->ev[4], c->stream));
  if ((st = ctr_cuda_cone_residual (c, 0, c->g.nv, 1.0f, err)) != CTR_CUDA_OK
      || (st = ctr_cuda_cone_zero (c, CTR_CUDA_CONE_D, err)) != CTR_CUDA_OK
      || (st = ctr_cuda_cone_adjoint (c, 0, c->g.nv, 0, 0, err)) != CTR_CUDA_OK)
    return st;
  CK (cudaEventRecord (c->ev[5], c->stream));
  return ctr_cuda_cone_apply (c, 2, nonneg, err);
fail:
  return st;
}

/* One SART pass, view by view in @order: X += A_vᵀ (step_v coef ∘ (B − A_v X)) / A_vᵀ1. */
static CtrCudaStatus
sart_pass (CtrCudaCone *c, const unsigned *order, const float *step, int nonneg, char *err)
{
  CtrCudaStatus st;
  for (unsigned t = 0; t < c->g.nv; t++)
    {
      const unsigned v = order != nullptr ? order[t] : t;
      if ((st = ctr_cuda_cone_forward (c, v, 1, err)) != CTR_CUDA_OK
          || (st = ctr_cuda_cone_residual (c, v, 1, step != nullptr ? step[v] : 1.0f, err)) != CTR_CUDA_OK
          || (st = ctr_cuda_cone_zero (c, CTR_CUDA_CONE_D, err)) != CTR_CUDA_OK
          || (st = ctr_cuda_cone_zero (c, CTR_CUDA_CONE_CS, err)) != CTR_CUDA_OK
          || (st = ctr_cuda_cone_adjoint (c, v, 1, 0, 1, err)) != CTR_CUDA_OK
          || (st = ctr_cuda_cone_apply (c, 1, nonneg, err)) != CTR_CUDA_OK)
        return st;
    }
  return CTR_CUDA_OK;
}

extern "C" CtrCudaStatus
ctr_cuda_cone_iterate (CtrCudaCone *c, int sart, const unsigned *order, const float *step, int nonneg,
                       double *update_ms, double *residual, double *residual_ms, double *phase_ms, char *err)
{
  CtrCudaStatus st = CTR_CUDA_OK;
  float ms = 0;
  CK (cudaEventRecord (c->ev[0], c->stream));
  if ((st = sart ? sart_pass (c, order, step, nonneg, err) : sirt_pass (c, nonneg, err)) != CTR_CUDA_OK)
    goto fail_quiet;
  CK (cudaEventRecord (c->ev[1], c->stream));
  CK (cudaEventSynchronize (c->ev[1]));
  CK (cudaEventElapsedTime (&ms, c->ev[0], c->ev[1]));
  *update_ms = ms;
  if (phase_ms != nullptr && !sart)
    {
      float a = 0, b = 0, d = 0;
      CK (cudaEventElapsedTime (&a, c->ev[0], c->ev[4]));
      CK (cudaEventElapsedTime (&b, c->ev[4], c->ev[5]));
      CK (cudaEventElapsedTime (&d, c->ev[5], c->ev[1]));
      phase_ms[0] = a;
      phase_ms[1] = b;
      phase_ms[2] = d;
    }
  if (residual_ms != nullptr)
    *residual_ms = 0;
  if (residual != nullptr)
    {
      CK (cudaEventRecord (c->ev[2], c->stream));
      if ((st = relative_residual (c, residual, err)) != CTR_CUDA_OK)
        goto fail_quiet;
      CK (cudaEventRecord (c->ev[3], c->stream));
      CK (cudaEventSynchronize (c->ev[3]));
      CK (cudaEventElapsedTime (&ms, c->ev[2], c->ev[3]));
      if (residual_ms != nullptr)
        *residual_ms = ms;
    }
  return CTR_CUDA_OK;
fail:
fail_quiet:
  return st;
}
