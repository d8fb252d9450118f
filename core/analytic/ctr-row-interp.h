/* ctr-row-interp.h — pass 2 of the pixel-driven FBP back-projection
 * (private to core/analytic): a row of pixels adds the filtered detector
 * row, interpolated linearly at each pixel's column, without gathers.
 *
 * Neighbouring pixels project to neighbouring columns (|Δcolumn| per pixel
 * is about the pixel size over the detector pitch at the isocentre), so the
 * columns of 16 (AVX-512) or 8 (AVX2) consecutive pixels usually lie within
 * 31 (15) samples: the kernels load that window as two registers and pick
 * each pixel's two samples with a two-register permute (vpermt2ps; vpermps
 * twice and a blend under AVX2), the way ctr-fdk-zrun.h does for FDK.  A
 * chunk whose columns spread wider (an image coarser than the detector)
 * gathers its samples 8 at a time with the scalar loop's arithmetic.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Floats of the detector row that must be readable after its last sample
 * (values never used). */
#define CTR_ROW_INTERP_PAD 32

/**
 * CtrRowInterp:
 * For i in [0, @n) with 0 <= @col[i] <= @nc − 1 (others, NaN included, are
 * skipped): c = ⌊col⌋, f = col − c,
 *   @out[i] += @w[i] · (q[c] + f·(q[c+1] − q[c]))   (q[c] alone at c = nc − 1),
 * @w NULL meaning weights of 1.  @col: detector column coordinates (0 = the
 * centre of column 0); @q: the filtered row, @nc samples and
 * CTR_ROW_INTERP_PAD readable floats after them; @out: the image row
 * (1/mm).  Results equal the scalar loop's up to the FMA contraction.
 */
typedef void (*CtrRowInterp) (float *out, const float *col, const float *w, guint n,
                              const float *q, guint nc);

/**
 * ctr_row_interp_select:
 * The fastest kernel this CPU runs: AVX-512F, else AVX2 + FMA, else the
 * scalar loop (never NULL).  CTR_FBP_SIMD=generic|avx2|avx512 asks for one
 * (tests); a kernel the CPU lacks is never returned.  @name: (out)
 * (optional): "avx512", "avx2" or "generic", static.
 */
CtrRowInterp ctr_row_interp_select (const char **name);

G_END_DECLS
