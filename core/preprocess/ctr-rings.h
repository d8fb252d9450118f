/* ctr-rings.h — ring (stripe) removal on line integrals.
 *
 * A detector pixel whose gain or offset is wrong (miscalibrated, dead over
 * part of the scan) adds a vertical stripe to every sinogram it is in, and a
 * ring about the rotation axis to the reconstruction.
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_RINGS_DEFAULT_SIZE 21

/**
 * ctr_rings_remove:
 * @p: line integrals, float32 [view][row][col], col fastest; changed in place.
 * @size: the odd width ≥ 3 of the median filter across detector columns,
 *   at most the number of columns (default CTR_RINGS_DEFAULT_SIZE, as the
 *   paper's reference code; wider removes wider stripes and blurs more).
 * @n_stripes: (out) (optional): the number of (row, column) stripes the
 *   filter removed: columns of a row's sinogram whose mean change over the
 *   views (a stripe's offset, signed) lies more than 5 robust SDs (1.4826 ×
 *   MAD over the row's columns) from the row's median column, and > 1e-6.
 * @n_columns: (out) (optional): the detector columns that are such a
 *   stripe in at least half of the rows (a bad detector column).
 * @rms_change: (out) (optional): the RMS change over all pixels (units of @p).
 * @row_change: (out caller-allocates) (optional) (array length=p->n_rows):
 *   for each detector row, its largest change of one pixel beyond its
 *   column's mean change, |new − old − mean over the views of (new − old)|,
 *   over the range (largest − smallest value) of that row's sinogram before
 *   (0 for a constant row).  A stripe's correction is its column's constant
 *   offset, which this leaves out (a constant stripe gives 0, a partial
 *   one about half its offset); near a dense object's edge the method
 *   moves single views' values by a large part of the range
 *   (docs/preprocess.md, "sorting and the object's edges").
 *
 * The sorting-based stripe removal of Vo, Atwood & Drakopoulos, "Superior
 * techniques for eliminating ring artifacts in X-ray micro-tomography",
 * Opt. Express 26(22), 28396-28412 (2018), algorithm 3 ("sorting-based
 * approach"): for each detector row's sinogram S[view][col], each column is
 * sorted along the views (remembering where each value came from), the
 * sorted image is smoothed along the columns by a median filter of @size
 * (edges mirrored), and each value is put back where it came from.  A
 * stripe (a column whose values are all offset, or offset over a range of
 * views) is a step across columns in the sorted image, which the median
 * removes; the object, whose sorted columns vary smoothly across columns,
 * is left as it was.  Dead pixels (@p->mask 0) are treated as the others.
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (size even, < 3 or larger
 *   than the columns), CTR_ERROR_INVALID_DATA (@p holds counts) or
 *   CTR_ERROR_OUT_OF_MEMORY; @p is then unchanged.
 */
/* TRUE when @p holds line integrals and @size (a median window in
 * detector columns) is odd, at least 3 and at most @p's columns; else
 * FALSE with CTR_ERROR_INVALID_DATA (counts) or
 * CTR_ERROR_INVALID_ARGUMENT (the size), as every ring method checks. */
gboolean ctr_rings_check_size (const CtrProjections *p, int size, GError **error);

gboolean ctr_rings_remove (CtrProjections *p, int size, guint64 *n_stripes,
                           guint *n_columns, double *rms_change, double *row_change, GError **error);

/* The stripes a ring filter removed from one row's sinogram of @C columns:
 * @colchange [col], each column's mean change over the views (new − old);
 * a column is flagged 1 in @flag [col] when its change lies more than 5
 * robust SDs (1.4826 × MAD over the columns) from the median column's,
 * and by more than 1e-6.  Returns the number flagged. */
guint64 ctr_rings_flag_stripes (const double *colchange, guint C, guint8 *flag);

/* The detector columns flagged (ctr_rings_flag_stripes) in at least half
 * of @n_rows rows; @flags [row][col]. */
guint ctr_rings_count_columns (const guint8 *flags, guint n_rows, guint C);

G_END_DECLS
