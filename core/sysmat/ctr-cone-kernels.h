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
} CtrConeRay;

/* The interior run of a ray: planes [p0, p1] (inside [q_lo, q_hi]) whose
 * bilinear stencils lie wholly inside the grid, voxel (a, b, p) at
 * b·sxy + a·sa + p·sp.  The forward kernel returns Σ_p Σ_c wt_c·vol; the
 * adjoint one adds val·w·wt_c to vol (and w·wt_c to weights).  A scalar and
 * an AVX2 version of each; the projector picks one pair, so the forward and
 * adjoint of one process always use the same arithmetic. */
typedef struct {
  gint64 sa, sp, sxy;  /* 64-bit for the edge planes; the kernels (vector_ok) take them as 32-bit */
} CtrConeStrides;
typedef float (*CtrConeInteriorForward) (const CtrConeRay *r, gint32 p0, gint32 p1, const float *vol,
                                         const CtrConeStrides *st);
typedef void (*CtrConeInteriorAdjoint) (const CtrConeRay *r, gint32 p0, gint32 p1, float val, float *vol,
                                        float *weights, const CtrConeStrides *st);

/**
 * _ctr_cone_kernels_pick:
 * The interior kernels this process uses for both directions (so the
 * forward and the adjoint share one arithmetic): AVX2 with FMA where the
 * CPU has them and CTR_CONE_SIMD is not "generic", else the scalar pair.
 * The kernels take their strides as 32-bit: call them only where the
 * volume's voxel indices fit (the projector's vector_ok).
 */
void _ctr_cone_kernels_pick (CtrConeInteriorForward *forward, CtrConeInteriorAdjoint *adjoint);

G_END_DECLS
