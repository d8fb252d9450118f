/* ctr-outliers.h — outlier (zinger) removal on line integrals.
 *
 * A zinger is one detector pixel in one view hit by a stray photon or a
 * cosmic ray: a spike in the sinogram that a reconstruction turns into a
 * streak.  The filter works on each detector row's sinogram [view][col]
 * separately (the spike is alone in its view and its column, the object is
 * smooth along both), as TomoPy's remove_outlier and CIL's outlier mask do.
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_OUTLIERS_DEFAULT_THRESHOLD 5.0
#define CTR_OUTLIERS_DEFAULT_SIZE 3

/**
 * ctr_outliers_remove:
 * @p: line integrals, float32 [view][row][col], col fastest; changed in place.
 * @threshold: in robust standard deviations, > 0 (default
 *   CTR_OUTLIERS_DEFAULT_THRESHOLD).
 * @size: the odd width ≥ 3 of the square neighbourhood in view × column
 *   (default CTR_OUTLIERS_DEFAULT_SIZE: 3 × 3), edges replicated.
 * @n_changed: (out) (optional): the number of pixels replaced.
 *
 * For every detector row, r = x − med(x) where med is the median of the
 * @size × @size neighbourhood of the pixel in (view, column); the row's
 * robust SD is σ = 1.4826 · median |r − median r| (the MAD, scaled to the
 * SD of a normal distribution).  A pixel whose |r| exceeds @threshold · σ
 * (and is not 0) is replaced by med(x).  Dead pixels (@p->mask 0, already
 * filled along their row) are left alone.  Units: those of @p (the filter is
 * scale-free).
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (threshold not a positive
 *   finite number, size even, < 3 or larger than the views or columns),
 *   CTR_ERROR_INVALID_DATA (@p holds counts, not line integrals) or
 *   CTR_ERROR_OUT_OF_MEMORY; @p is then unchanged.
 */
gboolean ctr_outliers_remove (CtrProjections *p, double threshold, int size,
                              guint64 *n_changed, GError **error);

G_END_DECLS
