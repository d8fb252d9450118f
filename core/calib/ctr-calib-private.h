/* ctr-calib-private.h — what the calibration methods share (ctr-calib.h). */
#pragma once

#include "calib/ctr-calib.h"

G_BEGIN_DECLS

/* At most @max detector rows evenly spread over @n_rows into @rows (its
 * length ≥ @max); returns how many. */
guint ctr_calib_pick_rows (guint n_rows, guint max, guint *rows);

/* The median step between the sorted view angles, radians (0 with one view). */
double ctr_calib_median_step (const CtrGeometry *g);

/* The search range of the centre column [@lo, @hi] (ctr-calib.h's options). */
void ctr_calib_search_range (const CtrGeometry *g, const CtrCalibOptions *opt, double *lo, double *hi);

/* Fills @out with @method, not ok, and the printf-style note. */
void ctr_calib_fail (CtrCalibEstimate *out, CtrCalibMethod method, const char *format, ...) G_GNUC_PRINTF (3, 4);

/* Angle @a wrapped into (−π, π]. */
double ctr_calib_wrap (double a);

G_END_DECLS
