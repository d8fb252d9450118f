/* ctr-calib-private.h — what the calibration methods share (ctr-calib.h). */
#pragma once

#include "calib/ctr-calib.h"

G_BEGIN_DECLS

/* At most @max detector rows evenly spread over @n_rows into @rows (its
 * length ≥ @max); returns how many. */
guint ctr_calib_pick_rows (guint n_rows, guint max, guint *rows);

/* The median step between the sorted view angles into @step, radians (0
 * with one view).  FALSE with CTR_ERROR_OUT_OF_MEMORY when the sorted
 * copy of the angles cannot be allocated. */
gboolean ctr_calib_median_step (const CtrGeometry *g, double *step, GError **error);

/* The search range of the centre column [@lo, @hi] (ctr-calib.h's options). */
void ctr_calib_search_range (const CtrGeometry *g, const CtrCalibOptions *opt, double *lo, double *hi);

/* Fills @out with @method, not ok, and the printf-style note. */
void ctr_calib_fail (CtrCalibEstimate *out, CtrCalibMethod method, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* The sinogram @p would show at the continuous row @row (linear between
 * the two nearest rows) into @dst [view][col]. */
void ctr_calib_row_sinogram (const CtrProjections *p, double row, float *dst);

/* The continuous row index where v = 0 (the plane of a circular orbit). */
double ctr_calib_central_row (const CtrGeometry *g);

/**
 * ctr_calib_tilt_fit:
 * The detector's in-plane tilt (data/ctr-detector-tilt.h's t, radians)
 * from the view pairs 180° apart @pairs (2 view indices each, @n_pairs of
 * them) of @p (line integrals [view][row][col] of parallel-beam @g, at
 * least 3 rows), registered in 2-D: the first view against the second
 * reflected about the axis's image through column @centre (0-based, on
 * the middle row (rows − 1)/2) leaning by t (ctr-calib-tilt.c).  @tilt0:
 * a first guess (radians; NaN: none), widening the search beyond ±5°.
 * Fills @tilt, its jackknife uncertainty @sigma_tilt (radians) and the
 * refined centre @centre_out (column on the middle row).
 * Returns: FALSE (outputs NaN) when no minimum was found: too few rows, a
 *   flat cost, a tilt beyond CTR_DETECTOR_MAX_TILT_RAD, or no memory for
 *   the smoothed copies of up to 16 views (g_try_malloc).
 */
gboolean ctr_calib_tilt_fit (const CtrGeometry *g, const CtrProjections *p, const guint *pairs, guint n_pairs,
                             double centre, double tilt0, double *tilt, double *sigma_tilt, double *centre_out);

/* Angle @a wrapped into (−π, π]. */
double ctr_calib_wrap (double a);

G_END_DECLS
