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
 * Isotropic potential (CTR_PENALTY_ISOTROPIC): the hyperbola of the
 * gradient's magnitude,
 *     R(x) = (1 + √2) Σ_s Σ_j ψ(|D_j x|),  |D_j x|² = (x_r − x_j)² + (x_d − x_j)²
 * with the forward differences to the right (r) and lower (d) neighbours
 * (0 at the last column or row) and ψ the hyperbola above: the smoothed
 * isotropic TV of Rudin, Osher & Fatemi (1992) in Chambolle's (2004)
 * discretisation, δ·TV as δ → 0.  The weight 1 + √2 is the pair weight an
 * axis-aligned gradient meets in the 8-neighbourhood, so a strength b means
 * the same for both.  The pair potentials charge a long straight edge by the
 * pairs it cuts: (1 + √2) per unit length along the grid, 3/√2 (12 % less)
 * at 45°.  Its surrogate
 * (Huber's curvature for the vector |D_j x|, ω_j = ψ'(|D_j x|)/|D_j x|) is
 * Σ_j (1 + √2) ω_j |D_j x|²/2, whose separable form has the curvature
 * 2 (1 + √2) (2 ω_j + ω_left + ω_up) at pixel j (fewer at the border).
 *
 * Total variation (ASD-POCS; Sidky & Pan 2008, Phys. Med. Biol. 53, 4777,
 * their image TV and its gradient): TV(x) = Σ_{s,iy,ix} sqrt ((x − x_left)² + (x − x_up)² + ε²) with
 * the forward differences inside the slice.
 */
#pragma once

#include <glib.h>
#include "recon/ctr-recon-types.h"

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

/* The curvature bound where every ω is 1, reached at an interior pixel:
 * 2 Σ_k w_jk = 2 (4 + 2√2) for the pair potentials, 8 (1 + √2) for the
 * isotropic one. */
double ctr_penalty_max_curvature (CtrPenalty kind);

/**
 * ctr_tv_gradient:
 * @eps: the smoothing ε of the TV (image unit), > 0.
 * @grad: (out caller-allocates): ∂TV/∂x (the smoothed gradient of Sidky & Pan 2008), overwritten.
 * Returns: TV(x).
 */
double ctr_tv_gradient (const float *x, guint nx, guint ny, guint nz, double eps, float *grad);

G_END_DECLS
