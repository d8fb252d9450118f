/* ctr-rings-wavelet.h — the wavelet-FFT stripe removal, the "wavelet-fft"
 * method of the "rings" step.
 *
 * Source: B. Münch, P. Trtik, F. Marone & M. Stampanoni, "Stripe and ring
 * artifact removal with combined wavelet–Fourier filtering", Opt. Express
 * 17(10), 8567-8591 (2009), section 2: the wavelet decomposition of the
 * image, the Fourier transform of each level's vertical detail band along
 * the stripes' direction, its damping by the Gaussian high pass
 * ĝ(k) = 1 − exp(−k²/(2σ²)), and the reconstruction.  The defaults are
 * those of TomoPy's remove_stripe_fw (db5, σ 2, the views padded by an
 * eighth) but for the level: TomoPy's ⌈log₂ max(views, rows, columns)⌉
 * damps the object's own angular mean at the coarse levels (measured on
 * savu-parallel-tiff, docs/preprocess.md: level 8 multiplies the ring
 * energy by 25 where level 3 divides it by 3.9), so the default is 3.
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_RINGS_WAVELET_DEFAULT_NAME "db5"
#define CTR_RINGS_WAVELET_DEFAULT_SIGMA 2.0
#define CTR_RINGS_WAVELET_DEFAULT_LEVEL 3
#define CTR_RINGS_WAVELET_MAX_LEVEL 16

/**
 * ctr_rings_remove_wavelet:
 * @p: line integrals, float32 [view][row][col], col fastest; changed in place.
 * @level: the decomposition levels, 1 … CTR_RINGS_WAVELET_MAX_LEVEL
 *   (default CTR_RINGS_WAVELET_DEFAULT_LEVEL): level l holds structure
 *   about 2^l columns wide, so more levels remove wider stripes and more
 *   of the object's angular mean (a vertical structure too).
 * @wavelet: the Daubechies filter, "db1" … "db10" or "haar"
 *   (ctr-wavelet.h; default CTR_RINGS_WAVELET_DEFAULT_NAME).
 * @sigma: the damping's width in Fourier samples of each band's view axis
 *   (> 0; default CTR_RINGS_WAVELET_DEFAULT_SIGMA): larger removes more
 *   of a slowly varying (partial) stripe and more of the object.
 * @pad: pad each sinogram with ⌊views/8⌋ zero views, half of them
 *   (rounded down) before the first view and the rest after the last,
 *   before the transform (TomoPy's "pad"), so that the FFT does not treat
 *   the first and last views as neighbours.
 * @n_stripes, @n_columns, @rms_change: (out) (optional): as
 *   ctr_rings_remove(): the (row, column) stripes whose mean change lies
 *   more than 5 robust SDs from the row's median column's, the detector
 *   columns that are such a stripe in at least half of the rows, the RMS
 *   change over all pixels (units of @p).
 *
 * Each detector row's sinogram S[view][col] (views padded when @pad), in
 * double precision: @level levels of the 2-D discrete wavelet transform
 * (ctr_dwt2(), the symmetric extension of PyWavelets' default), each
 * level's vertical detail band V_l[i][j] (low pass along the views, high
 * pass across the columns: a stripe lives there) Fourier transformed along
 * i (FFTW, length n_l), multiplied by 1 − exp(−k²/(2 @sigma²)) at the
 * integer frequency k = min(m, n_l − m) of coefficient m, transformed
 * back; then the inverse transform (ctr_idwt2()), the padding dropped.
 * (TomoPy's remove_stripe_fw evaluates the damping at k + ½ for an even
 * n_l, which leaves 3 % of the mean of each band and an imaginary part it
 * drops; here k is the integer frequency of the MATLAB listing published
 * with the paper, which pads nothing.)
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (level 0 or above the maximum,
 *   @sigma not a positive number, an unknown @wavelet),
 *   CTR_ERROR_INVALID_DATA (@p holds counts) or CTR_ERROR_OUT_OF_MEMORY;
 *   @p is then unchanged.
 */
gboolean ctr_rings_remove_wavelet (CtrProjections *p, guint level, const char *wavelet, double sigma, gboolean pad,
                                   guint64 *n_stripes, guint *n_columns, double *rms_change, GError **error);

G_END_DECLS
