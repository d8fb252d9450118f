/* ctr-penalty.h — roughness penalties of an image stack: the edge-preserving
 * neighbourhood penalty of PWLS and the total variation of ASD-POCS.
 *
 * Images are natural stacks x[s][iy][ix] (CtrVolume data, x fastest) of nz
 * slices of nx × ny; every slice is penalised on its own, in-plane.
 *
 * Neighbourhood penalty (PWLS; Fessler's notation):
 *     R(x) = Σ_s Σ_{j} Σ_{k ∈ N(j), k > j} w_jk ψ(x_j − x_k)
 * over the 8-neighbourhood, each pair once, w_jk = 1 for the 4 nearest and
 * 1/√2 for the diagonal neighbours.  The potentials (CtrPenalty) all have
 * ψ''(0) = 1 and Huber's curvature ω(t) = ψ'(t)/t ≤ 1:
 *     quadratic  ψ = t²/2
 *     Huber      ψ = t²/2 (|t| ≤ δ), δ|t| − δ²/2 (above)     (Huber 1964)
 *     hyperbola  ψ = δ² (sqrt (1 + (t/δ)²) − 1)              (Charbonnier et al. 1997)
 * The separable quadratic surrogate of R at x (Erdogan & Fessler 1999,
 * "Ordered subsets algorithms for transmission tomography", Phys. Med. Biol.
 * 44, 2835-2851: Huber's curvature and De Pierro's convexity trick) has the
 * curvature 2 Σ_{k ∈ N(j)} w_jk ω(x_j − x_k) at pixel j.
 *
 * Total variation (ASD-POCS; Sidky & Pan 2008, Phys. Med. Biol. 53, 4777,
 * their image TV and its gradient): TV(x) = Σ_{s,iy,ix} sqrt ((x − x_left)² + (x − x_up)² + ε²) with
 * the forward differences inside the slice.
 */
#pragma once

#include <glib.h>
#include "ctr-recon-types.h"

G_BEGIN_DECLS

/* R(x) (see the top), in the square of the image's unit. */
double ctr_penalty_value (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz);

/**
 * ctr_penalty_gradient:
 * @grad: (out caller-allocates): ∂R/∂x_j = Σ_{k ∈ N(j)} w_jk ψ'(x_j − x_k),
 *   nx·ny·nz floats, overwritten.
 * @curv: (out caller-allocates) (nullable): the surrogate's curvature
 *   2 Σ_k w_jk ω(x_j − x_k) (dimensionless), overwritten.
 * OpenMP over rows.
 */
void ctr_penalty_gradient (CtrPenalty kind, double delta, const float *x, guint nx, guint ny, guint nz,
                           float *grad, float *curv);

/* 2 Σ_k w_jk at an interior pixel (4 + 2√2): the curvature bound where every
 * ω is 1. */
double ctr_penalty_max_curvature (void);

/**
 * ctr_tv_gradient:
 * @eps: the smoothing ε of the TV (image unit), > 0.
 * @grad: (out caller-allocates): ∂TV/∂x (the smoothed gradient of Sidky & Pan 2008), overwritten.
 * Returns: TV(x).
 */
double ctr_tv_gradient (const float *x, guint nx, guint ny, guint nz, double eps, float *grad);

G_END_DECLS
