/* ctr-flux.h — flux normalisation: a drifting source corrected view by view
 * from an air region of the detector (as CIL's FluxNormaliser divides each
 * projection by the mean of a region of interest).
 *
 * A source whose output drifts between views scales every view's
 * transmission T = (I − dark)/(flat − dark) by its own factor f_v; after the
 * log each view is offset by −ln f_v, which FBP turns into rings and
 * streaks.  Detector columns that see air in every view (outside the
 * object's shadow) measure f_v directly: f_v = mean over the air pixels of
 * T.  Dividing the view's transmission by f_v before the log removes the
 * drift and normalises air to T = 1 (line integral 0).
 *
 * The loader applies flat/dark correction and the log first
 * (ctr_projections_to_line_integrals) and the pipeline then works on line
 * integrals p = −ln T; this step computes exactly the same thing there:
 * f_v = mean exp(−p) over the air pixels and p ← p + ln f_v, so it
 * corrects the transmission before the log whatever form the data came in
 * (counts with flat/dark, or line integrals).  Run it before the steps that
 * model the transmission ("beam-hardening", "truncation"); the pipeline
 * refuses it after them.
 *
 * The step of the "preprocess" pipeline (preprocess/ctr-preprocess.h):
 *   { "op": "flux" }                                  air found automatically
 *   { "op": "flux", "columns": [[0, 9], [118, 127]] } air stated: 0-based
 *                                                     inclusive column ranges
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

/* At most this many stated column ranges. */
#define CTR_FLUX_MAX_RANGES 8

/**
 * ctr_flux_find_air:
 * @p: line integrals [view][row][col].
 * @ranges: (out): room for 4 guints: up to two ranges [first, last]
 *   (0-based, inclusive), the left then the right one.
 * @n_ranges: (out): 1 or 2.
 *
 * Finds the columns that see air in every view: a view's air level b_v is
 * the median of the k = max(3, cols/64) outermost columns at both edges
 * (all rows); the noise σ of a row mean is the robust SD (1.4826 · median
 * |·|) of the second differences along those columns divided by √6 and by
 * √rows (a smooth shadow cancels in a second difference, noise does not).
 * From each edge inwards, a column is air while, in every view, its mean
 * over rows exceeds b_v by at most 6σ + 0.002; the two columns nearest the
 * object are then dropped as a margin (the shadow's tangent rays).  An edge
 * is air only when at least its k seed columns and the margin are (the
 * object's shadow does not reach it in any view).
 *
 * Returns: FALSE with CTR_ERROR_INVALID_DATA when neither edge is air (a
 *   truncated object, or no open beam beside it: state the columns) or the
 *   detector has fewer than 8 columns, CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_flux_find_air (const CtrProjections *p, guint ranges[4], guint *n_ranges, GError **error);

/**
 * ctr_flux_normalise:
 * @p: line integrals, float32 [view][row][col]; changed in place.
 * @ranges: (array length=2*n_ranges): column ranges [first, last], 0-based,
 *   inclusive, first ≤ last < @p->n_cols; every row of them is the air region.
 * @factors: (out) (optional) (array fixed-size=n_views): each view's
 *   flux factor f_v (the mean transmission of its air pixels; 1 = no drift).
 *
 * For each view, f_v = mean of exp(−p) over the air pixels (dead pixels,
 * @p->mask 0, left out) and every pixel of the view gets p ← p + ln f_v:
 * the view's transmission divided by f_v before the log.
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (a range outside the
 *   detector, first > last, no ranges), CTR_ERROR_INVALID_DATA (counts, not
 *   line integrals; a view whose air pixels are all dead or whose f_v is not
 *   a positive finite number); @p is then unchanged.
 */
gboolean ctr_flux_normalise (CtrProjections *p, const guint *ranges, guint n_ranges, double *factors,
                             GError **error);

G_END_DECLS
