/* ctr-ttf.h — the task transfer function (TTF) from a circular insert.
 *
 * AAPM Task Group 233 (Samei et al., Med. Phys. 46(11), 2019), section on
 * the TTF; method of Richard, Husarik, Yadava, Murphy and Samei (Med. Phys.
 * 39(7), 2012) and Chen et al. (Med. Phys. 41(7), 2014):
 *  1. the insert's centre to sub-pixel precision: the centroid of the
 *     contrast fraction w = clamp((v − bg)/(insert − bg), 0, 1) within
 *     R + 3 pixels, iterated (5 times) from the caller's guess;
 *  2. the radial edge-spread function ESF(r), every pixel binned by its
 *     distance r from that centre into bins of 0.1 pixel out to r_max =
 *     R + clamp(R, 10, 30) pixels (empty bins interpolated linearly);
 *  3. the edge r_e, where the ESF crosses half the contrast (the crossing
 *     nearest R; it must lie within max(2 pixels, R/5) of R); the
 *     line-spread function LSF = dESF/dr (central differences), kept within
 *     |r − r_e| ≤ W = min(r_e, r_max − r_e) and tapered by a cosine over
 *     W/2 < |r − r_e| ≤ W (so the truncation does not ring);
 *  4. TTF(f) = |∫ LSF(r) e^(−2πi f r) dr| / |∫ LSF(r) dr| (normalised at
 *     zero frequency), evaluated directly at 101 frequencies 0 … Nyquist;
 *  5. f50 and f10: the first frequencies where the TTF falls to 0.5 and 0.1
 *     (linear between samples), NaN when it does not before Nyquist.
 * The background is the mean over (R + r_max)/2 < r ≤ r_max, the insert's
 * value the mean over r ≤ R/2.  Several slices (or noise realisations) of
 * the same insert are averaged pixel by pixel first, which is the same as
 * pooling their ESFs: TG-233 asks for enough of them that the insert's
 * contrast-to-noise ratio times √(slices) reaches about 15 (Chen et al.
 * 2014); a single slice at CNR ≈ 8 gives f50 within about ±10 %.  The
 * CNR of the averaged image (which is the single slice's CNR × √slices) is
 * returned with the TTF, so a caller can say when it falls short.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The contrast-to-noise ratio of the averaged insert below which TG-233
 * (after Chen et al. 2014) calls its TTF unreliable. */
#define CTR_TTF_MIN_CNR 15.0

/**
 * CtrTtf:
 * @cx_px, @cy_px: the refined centre (column, row; pixel centres at
 *   integers).
 * @contrast: insert mean − background mean, image unit.
 * @noise_sd: the standard deviation (population) of the background ring's
 *   pixels in the averaged image, image unit.
 * @cnr: |@contrast| / @noise_sd (INFINITY on a noiseless image); below
 *   CTR_TTF_MIN_CNR the f50 and f10 vary from measurement to measurement.
 * @radius_px: r_e, the measured radius of the edge, pixels.
 * @n_esf, @esf_r, @esf: ESF bin centres (mm from the centre) and values.
 * @n_freq, @f, @ttf: frequencies (cycles/mm, 0 … 1/(2·dx)) and TTF (1 at 0).
 * @f50, @f10: cycles/mm (NaN when not reached).
 * Owned by the caller: ctr_ttf_free().
 */
typedef struct {
  double cx_px, cy_px;
  double contrast;
  double noise_sd, cnr;
  double radius_px;
  guint n_esf;
  double *esf_r, *esf;
  guint n_freq;
  double *f, *ttf;
  double f50, f10;
} CtrTtf;

void ctr_ttf_free (CtrTtf *ttf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrTtf, ctr_ttf_free)

/**
 * ctr_ttf_insert:
 * The TTF of the circular insert of radius @radius_px pixels near (@cx_px,
 * @cy_px) (column, row) on the mean of the @n_slices images @slices (each
 * nx·ny floats, row-major, the insert at the same place), pixel size
 * @pixel_mm mm.
 * Returns: a new CtrTtf, or NULL with CTR_ERROR_INVALID_ARGUMENT (radius
 *   under 2 pixels, no slice, non-finite centre, pixel size not positive, the ESF's
 *   disc r ≤ r_max not inside the image) or CTR_ERROR_INVALID_DATA (NaN/Inf
 *   pixels in the disc, no contrast between insert and background, no
 *   edge near @radius_px) or CTR_ERROR_OUT_OF_MEMORY (the mean image or
 *   the radial bins, 10 a pixel of radius, cannot be allocated).
 */
CtrTtf *ctr_ttf_insert (const float *const *slices, guint n_slices, guint nx, guint ny, double pixel_mm,
                        double cx_px, double cy_px, double radius_px, GError **error);

/**
 * ctr_ttf_at:
 * The TTF at @f cycles/mm, linear between samples; its last value beyond
 * Nyquist.
 */
double ctr_ttf_at (const CtrTtf *ttf, double f);

G_END_DECLS
