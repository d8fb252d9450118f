/* ctr-fbp-columns.h — pass 1 of the pixel-driven fan-beam back-projection
 * (private to core/analytic, used by ctr-fbp.c): the detector column and
 * the distance weight of each pixel of an image row in one view. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_fbp_columns_curved:
 * Equiangular (curved) detector: for pixel ix in [0, @nx) of a row,
 * a = @a_a + @a_d·ix (mm, source to pixel along the central ray),
 * b = @b_a + @b_d·ix (mm, across it), @colv[ix] = atan (b/a)·@inv_pitch +
 * @col0 (detector column; @inv_pitch in 1/rad) and @wv[ix] = 1/(a² + b²)
 * (1/mm², K&S Eq. 117); @colv[ix] = −1 where a <= 0 (at or behind the
 * source).  γ' through ctr_atanf (ctr-atanf.h).  @colv, @wv: @nx floats
 * each, caller-owned.
 */
void ctr_fbp_columns_curved (guint nx, double a_a, double a_d, double b_a, double b_d, double inv_pitch,
                             double col0, float *restrict colv, float *restrict wv);

/**
 * ctr_fbp_columns_flat:
 * Flat detector, a and b as above: @colv[ix] = @scale·b/a + @col0 (@scale
 * = SDD / pitch, so the column of s'·SDD/SOD), @wv[ix] = @sod²/a² (1/U²,
 * K&S Eqs. 154-155); @colv[ix] = −1 where a <= 0.
 */
void ctr_fbp_columns_flat (guint nx, double a_a, double a_d, double b_a, double b_d, double scale, double sod,
                           double col0, float *restrict colv, float *restrict wv);

G_END_DECLS
