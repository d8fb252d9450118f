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
 * value the mean over r ≤ R/2.
 *
 * Pooling (ctr_ttf_pooled).  One slice of a low-contrast insert at a
 * clinical dose has a CNR of 1–4, and its f50 varies by a factor of two
 * from one noise realisation to the next.  TG-233 (after Richard et al.
 * 2012 and Chen et al. 2014) pools the edge-spread samples of several
 * slices or realisations of the same insert before differentiating, until
 * the contrast-to-noise ratio of what is pooled reaches about 15.  Here
 * every image's pixels are binned by their distance from the insert's
 * centre (step 2) and the bins of all images pooled (each bin the mean of
 * all its samples from every image), then steps 3–5 run once on the
 * pooled ESF; the background and insert means are pooled the same way.
 * The centre is the one found on the images' pixel-wise mean (common: the
 * images are registered, as noise realisations of one scan or slices of a
 * rod are), or refined on each image from it (each: for an insert that
 * moves between slices; at a CNR under about 3 a single image's centroid
 * is itself noisy).  With a common centre the pooled ESF is the ESF of the
 * images' mean.  N identical images give the single image's TTF bit for
 * bit (the bins are merged as running means).
 *
 * The CNR reported (CtrTtf.cnr) is defined as for one image: |contrast| /
 * the population SD of the background ring's pixels, here in the images'
 * pixel-wise mean, which is the noise of the pooled ESF's samples; for N
 * independent realisations it is about the single image's CNR × √N, for
 * N identical images the single image's.  CtrTtf.cnr_single is the mean
 * of the images' own CNRs.  Below CTR_TTF_MIN_CNR a caller should say the
 * f50 and f10 are uncertain (a single slice at CNR ≈ 8 gives f50 within
 * about ±10 %).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The contrast-to-noise ratio of the pooled insert below which TG-233
 * (after Chen et al. 2014) calls its TTF unreliable. */
#define CTR_TTF_MIN_CNR 15.0

/**
 * CtrTtf:
 * @cx_px, @cy_px: the refined centre (column, row; pixel centres at
 *   integers); with CTR_TTF_CENTRE_EACH the mean of the images' centres.
 * @contrast: insert mean − background mean, image unit (pooled).
 * @noise_sd: the standard deviation (population) of the background ring's
 *   pixels in the images' pixel-wise mean, image unit.
 * @contrast: the pooled insert mean − the pooled background mean.
 * @cnr: |@contrast| / @noise_sd (INFINITY on a noiseless image): the
 *   pooled ESF's CNR (about the single image's × √@n_images for
 *   independent noise); below CTR_TTF_MIN_CNR the f50 and f10 vary from
 *   measurement to measurement.
 * @cnr_single: the mean over the images of each one's own CNR (|its
 *   insert − background means| / its background ring's SD), the CNR of
 *   one image; equal to @cnr for one image.
 * @n_images: how many images were pooled.
 * @radius_px: r_e, the measured radius of the edge, pixels.
 * @n_esf, @esf_r, @esf: ESF bin centres (mm from the centre) and values.
 * @n_freq, @f, @ttf: frequencies (cycles/mm, 0 … 1/(2·dx)) and TTF (1 at 0).
 * @f50, @f10: cycles/mm (NaN when not reached).
 * Owned by the caller: ctr_ttf_free().
 */
typedef struct {
  double cx_px, cy_px;
  double contrast;
  double noise_sd, cnr, cnr_single;
  guint n_images;
  double radius_px;
  guint n_esf;
  double *esf_r, *esf;
  guint n_freq;
  double *f, *ttf;
  double f50, f10;
} CtrTtf;

void ctr_ttf_free (CtrTtf *ttf);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrTtf, ctr_ttf_free)

/* Where the ESF of every pooled image is centred (see above). */
typedef enum {
  CTR_TTF_CENTRE_COMMON,  /* the centre found on the images' mean, for all */
  CTR_TTF_CENTRE_EACH     /* each image's own, refined from the common one */
} CtrTtfCentre;

/**
 * ctr_ttf_pooled:
 * The TTF of the circular insert of radius @radius_px pixels near (@cx_px,
 * @cy_px) (column, row) from the ESF pooled over the @n_slices images
 * @slices (each nx·ny floats, row-major, the same insert in each: slices
 * of a rod or noise realisations), pixel size @pixel_mm mm; @centre says
 * about which centre each image's samples are binned.
 * Returns: a new CtrTtf, or NULL with CTR_ERROR_INVALID_ARGUMENT (radius
 *   under 2 pixels, no slice, non-finite centre, pixel size not positive, the ESF's
 *   disc r ≤ r_max not inside the image) or CTR_ERROR_INVALID_DATA (NaN/Inf
 *   pixels in the disc, no contrast between insert and background, no
 *   edge near @radius_px, with CTR_TTF_CENTRE_EACH an image whose centre
 *   is not found within 2 pixels of the guess) or CTR_ERROR_OUT_OF_MEMORY
 *   (the mean image or the radial bins, 10 a pixel of radius, cannot be
 *   allocated).
 */
CtrTtf *ctr_ttf_pooled (const float *const *slices, guint n_slices, guint nx, guint ny, double pixel_mm,
                        double cx_px, double cy_px, double radius_px, CtrTtfCentre centre, GError **error);

/**
 * ctr_ttf_insert:
 * ctr_ttf_pooled with CTR_TTF_CENTRE_COMMON: the TTF of the insert on the
 * @n_slices images pooled about the centre found on their mean (one image:
 * its own TTF).
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
