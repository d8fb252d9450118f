/* ctr-nps.h — the noise power spectrum (NPS) of a CT image.
 *
 * AAPM Task Group 233 (Samei et al., "Performance evaluation of computed
 * tomography systems", Med. Phys. 46(11), 2019), section on noise: the 2-D
 * NPS of square ROIs of a uniform region,
 *
 *   NPS(fx, fy) = dx·dy / (Nx·Ny) · ⟨ |DFT₂(ROI − trend)|² ⟩        (TG-233, NPS eq.)
 *
 * averaged over every ROI of every slice (⟨⟩), each ROI detrended by its
 * mean (or a least-squares plane a + b·x + c·y).  With this normalisation
 * Σ NPS·Δf² = (1/N²) Σ (ROI − trend)², the pixel variance of the detrended
 * ROIs (Parseval), Δf = 1/(N·dx).  From the difference of two noise
 * realisations of the same object, (A − B) carries twice the noise power
 * and the NPS is divided by 2 (TG-233).  The radial NPS averages the 2-D
 * samples in rings of width Δf; noise magnitude = sqrt(∫∫ NPS), f_peak = the
 * frequency of the radial NPS's maximum, f_avg = ∫ f·NPS(f) df / ∫ NPS(f) df
 * over the radial NPS (TG-233's peak and average frequency; Solomon et al.,
 * Med. Phys. 39(7), 2012).
 *
 * Units: values in the image's unit u (HU when the caller converts first),
 * pixel size in mm; NPS in u²·mm², frequencies in cycles/mm, variance in u².
 * FFT: FFTW3 single precision, plans made under ctr_fft_planner_lock, all
 * sums in double.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CTR_NPS_DETREND_MEAN,  /* subtract each ROI's mean */
  CTR_NPS_DETREND_PLANE  /* subtract each ROI's least-squares plane a + b·x + c·y */
} CtrNpsDetrend;

/**
 * CtrNps:
 * @n: ROI side in pixels; the 2-D NPS is n × n.
 * @pixel_mm: pixel size (square pixels), mm.
 * @n_rois: ROIs averaged (ROIs × slices).
 * @nps2d: n·n values, row-major [iy][ix], zero frequency at index (n/2, n/2)
 *   (fft-shifted): fx = (ix − n/2)/(n·dx), fy = (iy − n/2)/(n·dx); u²·mm².
 * @n_radial: radial bins, k = 0 … n/2 (Nyquist).
 * @radial_f: bin centres k·Δf, cycles/mm (n_radial values).
 * @radial_nps: mean of the 2-D samples with |f| in [(k − ½)Δf, (k + ½)Δf); u²·mm².
 *   Bin 0 (the zero frequency alone, which the detrending removes) takes bin
 *   1's value, so that the NPS under a task's low frequencies is not
 *   underestimated; @variance still sums the 2-D samples as they are.
 * @variance: ∫∫ NPS dfx dfy = Σ nps2d·Δf², u².
 * @noise_sd: sqrt(@variance), u.
 * @f_peak, @f_avg: cycles/mm (see the file comment; f_peak ≥ Δf).
 * Owned by the caller: ctr_nps_free().
 */
typedef struct {
  guint n;
  double pixel_mm;
  guint n_rois;
  double *nps2d;
  guint n_radial;
  double *radial_f;
  double *radial_nps;
  double variance, noise_sd, f_peak, f_avg;
} CtrNps;

void ctr_nps_free (CtrNps *nps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrNps, ctr_nps_free)

/**
 * ctr_nps_tile:
 * Corners of non-overlapping n × n squares that lie wholly inside @mask
 * (nx·ny, row-major, non-zero inside), tiled row by row from the mask's
 * bounding box.  Counted first, then allocated at once.
 * Returns: (transfer full): 2·count guints (x0, y0 pairs, pixels; g_free);
 *   NULL with *@count = 0 and no error when none fits; NULL with
 *   CTR_ERROR_OUT_OF_MEMORY (naming the corners and their number) when
 *   they cannot be allocated.
 */
guint *ctr_nps_tile (const guint8 *mask, guint nx, guint ny, guint n, guint *count, GError **error);

/* The number of squares ctr_nps_tile() would return; allocates nothing. */
guint64 ctr_nps_tile_count (const guint8 *mask, guint nx, guint ny, guint n);

/**
 * ctr_nps_compute:
 * The NPS of the n × n ROIs with corners @corners (2·@n_corners guints: x0,
 * y0, column and row of the ROI's first pixel) on each of the @n_slices
 * images @slices (each nx·ny floats, row-major, image unit u), multiplied
 * by @scale (1 for ROIs of one image, 0.5 for the difference of two
 * realisations).  @pixel_mm: pixel size in mm.
 * Returns: a new CtrNps, or NULL with CTR_ERROR_INVALID_ARGUMENT (n < 4,
 *   no ROI or slice, an ROI outside the image, pixel size or scale not
 *   positive), CTR_ERROR_INVALID_DATA (a NaN/Inf pixel inside an ROI) or
 *   CTR_ERROR_OUT_OF_MEMORY (the ROI buffers, the spectrum or its radial
 *   arrays cannot be allocated).
 */
CtrNps *ctr_nps_compute (const float *const *slices, guint n_slices, guint nx, guint ny,
                         double pixel_mm, const guint *corners, guint n_corners, guint n,
                         CtrNpsDetrend detrend, double scale, GError **error);

/**
 * ctr_nps_difference:
 * The NPS from two noise realisations @a and @b (nx·ny each, same object):
 * ctr_nps_compute on a − b with scale ½ (TG-233).  Errors as ctr_nps_compute.
 */
CtrNps *ctr_nps_difference (const float *a, const float *b, guint nx, guint ny, double pixel_mm,
                            const guint *corners, guint n_corners, guint n, CtrNpsDetrend detrend,
                            GError **error);

/**
 * ctr_nps_radial_at:
 * The radial NPS at @f cycles/mm, linear between bin centres; the last bin's
 * value beyond Nyquist.
 */
double ctr_nps_radial_at (const CtrNps *nps, double f);

G_END_DECLS
