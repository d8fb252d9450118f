/* ctr-stripes.h — large and unresponsive (dead) stripe removal on line
 * integrals, the "large" and "dead" methods of the "rings" step.
 *
 * Source: N. T. Vo, R. C. Atwood & M. Drakopoulos, "Superior techniques for
 * eliminating ring artifacts in X-ray micro-tomography", Opt. Express
 * 26(22), 28396-28412 (2018): algorithm 4 (stripe detection), algorithm 5
 * (large stripes) and algorithm 6 (unresponsive and fluctuating stripes).
 * The small-stripe sorting filter (algorithm 3) is ctr-rings.h.
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_STRIPES_DEFAULT_SIZE 51
/* The detection thresholds' defaults: higher than the paper's 3, which on a
 * simulated 384-column head scan (docs/preprocess.md) flags the object's own
 * profile (a skull's tangent, the centre) as 10-30 % of the columns. */
#define CTR_STRIPES_DEFAULT_SNR_LARGE 20.0
#define CTR_STRIPES_DEFAULT_SNR_DEAD 10.0

/**
 * ctr_stripes_remove_large:
 * @p: line integrals, float32 [view][row][col], col fastest; changed in place.
 * @size: the odd width ≥ 3 of the median filter across detector columns,
 *   at most the number of columns (default CTR_STRIPES_DEFAULT_SIZE, as the
 *   paper's reference code); wider than the widest stripe.
 * @snr: the detection threshold (> 0; default CTR_STRIPES_DEFAULT_SNR_LARGE): a
 *   column is a stripe when its value lies more than @snr / 2 noise levels
 *   beyond the straight line fitted to the middle half of the sorted
 *   profile, and the profile's extreme lies ≥ @snr noise levels beyond it
 *   (algorithm 4; the noise level is the fitted line's rise over the
 *   columns).
 * @normalise: also subtract each column's stripe strength F (below) from
 *   the columns not detected (the paper's normalisation, its reference
 *   code's default; here off by default: on line integrals F carries the
 *   object's own profile where a skull's edge or the centre curves faster
 *   than @size columns, and subtracting it imprints that on clean data).
 * @n_stripes: (out) (optional): the (row, column) stripes found (after the
 *   check, before the widening).
 * @n_columns: (out) (optional): the detector columns detected in at least
 *   half of the rows.
 * @rms_change: (out) (optional): the RMS change over all pixels (units of @p).
 *
 * Algorithm 5 of Vo et al. 2018, on each detector row's
 * sinogram S[view][col]: each column is sorted along the views (remembering
 * where each value came from) and the sorted image is smoothed across
 * columns by a median of @size (edges mirrored).  The column profiles P1
 * (mean of each sorted column) and P2 (mean of each smoothed column), both
 * over the views between the lowest and highest 5 % (the paper's drop ratio
 * 0.1), give each column's stripe strength F = P1 − P2 (the paper's ratio
 * P1/P2 is for transmission; on line integrals a detector gain is an
 * offset, so the ratio becomes a difference).  The stripes are detected on F
 * by algorithm 4 and widened by one column on each side.  A detected column
 * stays a stripe only when the mean of its sorted values differs by more
 * than @snr / 2 noise levels from their linear interpolation, rank by rank,
 * across columns between the nearest undetected columns; the stripes left
 * are widened again.  Their sorted values are then replaced by that
 * interpolation and put back at the views they came from.  (The paper takes
 * the median-smoothed sorted image there and keeps every detection; a
 * median over a wide stripe's neighbourhood is shifted by the stripe itself
 * where the object's profile slopes, so the neighbours look striped and the
 * replacement is biased; the interpolation is not.)  Undetected columns are left as they are (unless @normalise).
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (size even, < 3 or larger
 *   than the columns; snr not positive), CTR_ERROR_INVALID_DATA (@p holds
 *   counts) or CTR_ERROR_OUT_OF_MEMORY; @p is then unchanged.
 */
gboolean ctr_stripes_remove_large (CtrProjections *p, int size, double snr, gboolean normalise, guint64 *n_stripes,
                                   guint *n_columns, double *rms_change, GError **error);

/**
 * ctr_stripes_remove_dead:
 * @p, @size, @snr, @normalise, @n_stripes, @n_columns, @rms_change: as
 *   ctr_stripes_remove_large() (@snr's default CTR_STRIPES_DEFAULT_SNR_DEAD);
 *   @size is here also the median filter of the fluctuation profile.
 * @residual: then run ctr_stripes_remove_large() on each row, with its own
 *   default threshold CTR_STRIPES_DEFAULT_SNR_LARGE (the paper's last step,
 *   for the stripes interpolation leaves, and the large stripes; the
 *   reference code reuses @snr, which here flags the object's profile).
 *
 * Algorithm 6 of Vo et al. 2018, on each detector row's sinogram: each
 * column is smoothed along the views (a moving mean of 10 views, ends
 * mirrored); the column's fluctuation D is the sum over the views of
 * |S − smoothed|; F = D / median_@size(D) across columns (1 where that
 * median is 0).  A dead (unresponsive) column has F ≈ 0, a fluctuating one
 * F ≫ 1: both are detected on F (algorithm 4), widened by one column on each
 * side (the two outermost columns at each edge never), and replaced, in
 * every view, by linear interpolation across columns between the nearest
 * undetected ones.
 *
 * Returns: as ctr_stripes_remove_large().
 */
gboolean ctr_stripes_remove_dead (CtrProjections *p, int size, double snr, gboolean residual, gboolean normalise,
                                  guint64 *n_stripes, guint *n_columns, double *rms_change, GError **error);

G_END_DECLS
