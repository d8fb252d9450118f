/* ctr-calib-curve.h — a cost curve over candidate centre columns, kept per
 * block of the data, and what the calibration methods read from it: the
 * minimum (parabolic refinement) and its delete-one-block jackknife
 * uncertainty (ctr-calib.h). */
#pragma once

#include <glib.h>
#include "calib/ctr-calib.h"

G_BEGIN_DECLS

/**
 * CtrCalibCurve:
 * @n_blocks, @n_points: sizes.
 * @x0, @dx: candidate i is the centre column x0 + i·dx.
 * @num: [block][point] the summed cost of each block.
 * @den: [block][point] the number of terms behind @num (the cost is then
 *   the mean Σnum / Σden), or NULL (the cost is Σnum).
 */
typedef struct {
  guint n_blocks, n_points;
  double x0, dx;
  double *num;
  double *den;
} CtrCalibCurve;

/* A zeroed curve; NULL with CTR_ERROR_OUT_OF_MEMORY.  @weighted: allocate @den. */
CtrCalibCurve *ctr_calib_curve_new (guint n_blocks, guint n_points, double x0, double dx, gboolean weighted,
                                    GError **error);
void ctr_calib_curve_free (CtrCalibCurve *c);

/* The cost at point @i over every block but @skip (−1: all blocks); NaN
 * where no term counts. */
double ctr_calib_curve_value (const CtrCalibCurve *c, int skip, guint i);

/* The index of the smallest finite cost without block @skip (−1: all); −1
 * when none is finite. */
int ctr_calib_curve_argmin (const CtrCalibCurve *c, int skip);

/**
 * ctr_calib_curve_minimum:
 * The centre column of the minimum of the cost without block @skip (−1:
 * all): the smallest sample refined by the vertex of the parabola through
 * it and its two neighbours (clamped to ± half a step).  NaN when the
 * smallest sample is the first or the last (the minimum may lie outside).
 */
double ctr_calib_curve_minimum (const CtrCalibCurve *c, int skip);

/* As ctr_calib_curve_minimum for block @b alone; its depth (the cost at
 * the minimum, negated) in @depth (nullable). */
double ctr_calib_curve_block_minimum (const CtrCalibCurve *c, guint b, double *depth);

/**
 * ctr_calib_curve_jackknife:
 * The delete-one-block jackknife standard error of ctr_calib_curve_minimum:
 * sqrt((B − 1)/B · Σ_b (x₍b₎ − mean)²).  NaN with fewer than two blocks or
 * when a leave-one-out minimum is NaN.
 */
double ctr_calib_curve_jackknife (const CtrCalibCurve *c);

/**
 * ctr_calib_curve_export:
 * The cost of @c over all its blocks into @out's curve (ctr-calib.h) at
 * every k-th point, k the least that keeps at most CTR_CALIB_CURVE_MAX;
 * exported candidate i is the centre column @scale · (x0 + i·k·dx) +
 * @offset (a curve over binned columns: @scale the bin width).
 */
void ctr_calib_curve_export (const CtrCalibCurve *c, double scale, double offset, CtrCalibEstimate *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrCalibCurve, ctr_calib_curve_free)

G_END_DECLS
