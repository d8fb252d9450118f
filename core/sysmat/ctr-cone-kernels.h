/* ctr-cone-kernels.h — private to the CPU cone-beam projector
 * (ctr-cone-projector.c): a tabled ray, the volume strides its interior run
 * walks, and the interior kernels (scalar and AVX2) that walk it.
 *
 * Not installed; no GTK, no CUDA.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One ray of the Joseph model (ctr-cone-projector.c's module comment): the
 * transverse and z indices as affine functions of the plane, its step
 * length, and its plane ranges. */
typedef struct {
  float a0, ad;   /* transverse in-plane index (j for x-dominant, i for y) = a0 + ad·plane */
  float b0, bd;   /* z index = b0 + bd·plane */
  float w;        /* step length per plane, mm */
  gint32 p_lo, p_hi;  /* planes that can touch the grid (both ends included) */
  gint32 q_lo, q_hi;  /* planes whose four neighbours all lie inside (the interior run) */
  gint32 r_lo, r_hi;  /* planes whose stencil touches the grid with room to spare (the band run:
                       * [q_lo, q_hi] inside it, or it is empty; empty: r_lo > r_hi) */
} CtrConeRay;

/* The interior run of a ray: planes [p0, p1] (inside [q_lo, q_hi]) whose
 * bilinear stencils lie wholly inside the grid, voxel (a, b, p) at
 * b·sxy + a·sa + p·sp.  The forward kernel returns Σ_p Σ_c wt_c·vol; the
 * adjoint one adds val·w·wt_c to vol (and w·wt_c to weights).  A scalar and
 * an AVX2 version of each; the projector picks one pair, so the forward and
 * adjoint of one process always use the same arithmetic.
 *
 * The band kernels do the same on planes [p0, p1] inside [r_lo, r_hi],
 * where a neighbour may lie outside (a stencil index in (−1, 0) or in
 * (n − 1, n)): the index is clamped to [0, n − 2] and the weight of the
 * neighbour outside is moved off, so the voxels inside get the weights the
 * per-plane edge path (stencil and corners) gives them, and the one outside
 * weight 0.  They need n ≥ 2 on both axes (amax, bmax ≥ 0). */
typedef struct {
  gint64 sa, sp, sxy;  /* 64-bit for the edge planes; the kernels (vector_ok) take them as 32-bit */
  gint32 amax, bmax;   /* the band kernels' largest (0, 0) neighbour: n_a − 2 and n_z − 2 */
} CtrConeStrides;
typedef float (*CtrConeInteriorForward) (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol,
                                         const CtrConeStrides *st);
typedef void (*CtrConeInteriorAdjoint) (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol,
                                        float *weights, const CtrConeStrides *st);

/* The planes [p0, p1] of ray @r that the block kernel leaves to the
 * projector's per-plane path (those outside the band run), with the
 * caller's @ctx. */
typedef void (*CtrConeEdgeSpread) (gconstpointer ctx, const CtrConeRay *r, gint32 p0, gint32 p1, float val);

/* The adjoint of the rays list[0..n) (indices into @rays and @proj) on the
 * planes [b0, b1] of one block: each ray's part there by the interior or
 * the band kernel when it lies in the interior or band run, else by @edge.
 * One call a block instead of one a ray and block. */
typedef void (*CtrConeBlockAdjoint) (const CtrConeRay *rays, const guint *list, gsize n, const float *proj, gint32 b0,
                                     gint32 b1, float *vol, float *weights, const CtrConeStrides *st,
                                     CtrConeEdgeSpread edge, gconstpointer ctx);

/* The kernels one projector uses, all of one arithmetic. */
typedef struct {
  CtrConeInteriorForward interior_forward, band_forward;
  CtrConeInteriorAdjoint interior_adjoint, band_adjoint;
  CtrConeBlockAdjoint block_adjoint;
} CtrConeKernels;

/**
 * _ctr_cone_kernels_pick:
 * The kernels this process uses for both directions (so the forward and
 * the adjoint share one arithmetic): AVX2 with FMA where the CPU has them
 * and CTR_CONE_SIMD is not "generic", else the scalar ones.  The kernels
 * take their strides as 32-bit: call them only where the volume's voxel
 * indices fit (the projector's vector_ok); the band kernels only where
 * every axis has 2 voxels or more.
 */
void _ctr_cone_kernels_pick (CtrConeKernels *k);

G_END_DECLS
