/* ctr-truncation.h — truncation correction: each detector row extended
 * beyond both edges by a water cylinder fitted at the edge (Hsieh, Chao,
 * Thibault, Grekowicz, Horst, McOlash & Myers 2004, "A novel reconstruction
 * algorithm to extend the CT scan field-of-view", Med. Phys. 31(9):2385-2391).
 *
 * An object wider than the detector leaves every row cut off at non-zero
 * line integrals; FBP's ramp filter sees a step there and the image gets a
 * bright ring at the edge of the field of view and a cupped interior.
 * Extrapolating the rows smoothly to zero removes most of both (the image
 * outside the measured field of view is an estimate, not a measurement).
 *
 * At each end of each row of each view: a straight line fitted by least
 * squares to the outermost @fit columns gives the edge value p_e and the
 * slope s (per mm at the isocentre, outward).  The water cylinder
 * p(t) = 2μ√(R² − (t + d)²) (t outward from the edge, mm at the isocentre)
 * that matches both has d = −s·p_e/(4μ²) (clamped at 0 when the row rises
 * outward) and R² = d² + (p_e/2μ)²; it fills @width new columns, multiplied
 * over the outer half of the extension by a cos² taper that reaches 0 at
 * the last one (so every row ends at zero whatever the fit).
 *
 * With @consistent, the extensions are then made to agree with the total
 * attenuation of the row, which in parallel beam is the same in every view
 * (the mass consistency Hsieh et al. use as their constraint): the total is
 * the median of the measured sums of the views not cut off at either end
 * (edge values ≤ 0.01) when there are any, else the median over views of
 * measured + extended sums, and each
 * view's two extensions are stretched along the row by (total − measured) /
 * extended (within 1/10 to 10), keeping their value at the edge.  A water
 * cylinder alone over-extends a view whose edge ray crosses a long chord
 * (an elongated object, a skull's tangent); the median corrects it from the
 * other views.  In fan and cone beam the totals agree only approximately
 * (the same sums at the isocentre's scale); the step is the same.
 *
 * The detector grows by @width columns at each end, its centre unchanged:
 * the geometry's column count grows with it (offset and per-view vectors
 * stay), and the default image grid, which covers the field of view, grows
 * too — state the grid to keep it.
 *
 * The step of the "preprocess" pipeline (preprocess/ctr-preprocess.h):
 *   { "op": "truncation", "width": 64, "fit": 8, "mu_per_mm": 0.0192 }
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_TRUNCATION_DEFAULT_FIT 8
#define CTR_TRUNCATION_MAX_WIDTH 16384

/**
 * ctr_truncation_extend:
 * @p: line integrals, float32 [view][row][col]; replaced in place by
 *   [view][row][col + 2·@width] (its data, and its flat, dark and mask
 *   planes when present, reallocated: the new columns of the mask are
 *   valid, those of the flat and dark repeat the edge's value).
 * @g: the geometry of @p; its n_cols grows by 2·@width.
 * @width: new columns at each end, 1 to CTR_TRUNCATION_MAX_WIDTH; 0 = the
 *   default, half the detector's columns (at least 16).
 * @fit: columns fitted at each edge, 2 to the detector's columns.
 * @mu_per_mm: the cylinder's attenuation in the data's unit (1/mm; 1/pixel
 *   when the pixel size is unknown), > 0; water is CTR_MU_WATER_PER_MM.
 * @consistent: scale each extension to the views' common total attenuation
 *   (see above).
 * @n_truncated: (out) (optional): row ends (of 2 · views · rows) whose edge
 *   value exceeded 0.01 (a cut-off object).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (a parameter out of range,
 *   @g's columns not @p's, a width beyond CTR_TRUNCATION_MAX_WIDTH),
 *   CTR_ERROR_INVALID_DATA (counts) or CTR_ERROR_OUT_OF_MEMORY; @p and @g
 *   are then unchanged.
 */
gboolean ctr_truncation_extend (CtrProjections *p, CtrGeometry *g, guint width, guint fit, double mu_per_mm,
                                gboolean consistent, guint64 *n_truncated, GError **error);

G_END_DECLS
