/* ctr-wavelet.h — the discrete wavelet transform with Daubechies filters
 * (db1 … db10) and symmetric boundary extension, in one and two dimensions,
 * for the wavelet-FFT ring removal (ctr-rings-wavelet.h).
 *
 * Conventions are PyWavelets' (pywt.dwt / idwt / dwt2 / idwt2 with
 * mode="symmetric", its default), so that PyWavelets is an independent
 * check of this code (tests/test-wavelet.c, tests/cli/test_wavelet_fft.py):
 *
 *   analysis: a signal x[0..n-1] is extended by half-sample symmetry,
 *     x[−1−m] = x[m], x[n+m] = x[n−1−m] (repeated for signals shorter than
 *     the filter); with the decomposition filters lo, hi of length F,
 *     a[o] = Σ_j lo[j] x[2o + 1 − j],  d[o] = Σ_j hi[j] x[2o + 1 − j],
 *     o = 0 … ⌊(n + F − 1)/2⌋ − 1 (ctr_dwt_length());
 *   synthesis: with a, d of length m upsampled (u[2k] = c[k], u[2k+1] = 0)
 *     and the reconstruction filters rlo, rhi,
 *     y[p] = Σ_k (ua[k] rlo[p + F − 2 − k] + ud[k] rhi[p + F − 2 − k]),
 *     p = 0 … 2m − F + 1; y[0..n−1] is x again (perfect reconstruction).
 *
 * The filters: rlo is Daubechies' scaling filter h (I. Daubechies, "Ten
 * Lectures on Wavelets", SIAM 1992, table 6.1, normalised to Σ h = √2),
 * lo[k] = rlo[F−1−k], hi[k] = (−1)^(k+1) rlo[k], rhi[k] = hi[F−1−k].
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CTR_WAVELET_MAX_LENGTH 20

typedef struct {
  char name[8];                             /* "db1" … "db10" */
  guint length;                             /* F = 2N for dbN */
  double lo[CTR_WAVELET_MAX_LENGTH];        /* decomposition low pass */
  double hi[CTR_WAVELET_MAX_LENGTH];        /* decomposition high pass */
  double rlo[CTR_WAVELET_MAX_LENGTH];       /* reconstruction low pass (Daubechies' h) */
  double rhi[CTR_WAVELET_MAX_LENGTH];       /* reconstruction high pass */
} CtrWavelet;

/* The names accepted by ctr_wavelet_init(), for messages: "db1 … db10". */
#define CTR_WAVELET_NAMES "db1 … db10 (haar = db1)"

/**
 * ctr_wavelet_init:
 * @name: "db1" … "db10", or "haar" (db1).
 * @w: (out caller-allocates): the filter bank.
 * Returns: FALSE when @name is not one of those (@w then untouched); no
 *   GError (the caller names the parameter).
 */
gboolean ctr_wavelet_init (const char *name, CtrWavelet *w);

/* The number of coefficients of each band of a one-level transform of @n
 * samples: ⌊(n + F − 1)/2⌋ (n ≥ 1). */
gsize ctr_dwt_length (gsize n, const CtrWavelet *w);

/**
 * ctr_dwt:
 * @x: @n ≥ 1 samples, @x[i·@xs].
 * @a, @d: (out): ctr_dwt_length(@n) approximation and detail coefficients,
 *   @a[o·@os], @d[o·@os].
 * One level of the analysis above.  No allocation.
 */
void ctr_dwt (const double *x, gsize n, gsize xs, const CtrWavelet *w, double *a, double *d, gsize os);

/**
 * ctr_idwt:
 * @a, @d: @m coefficients each (@a[k·@cs]), 2@m ≥ F.
 * @y: (out): the first @n ≤ 2@m − F + 2 samples of the synthesis above,
 *   @y[p·@ys] (@n = the analysed signal's length gives it back).
 */
void ctr_idwt (const double *a, const double *d, gsize m, gsize cs, const CtrWavelet *w, double *y, gsize n,
               gsize ys);

/**
 * ctr_dwt2:
 * @x: an image of @rows × @cols, row-major ([row][col], col fastest).
 * @a, @h, @v, @dd: (out): the four bands, each ctr_dwt_length(@rows) ×
 *   ctr_dwt_length(@cols), row-major: @a low pass along both axes, @h
 *   high pass along the rows axis (axis 0) and low pass along the columns,
 *   @v low pass along axis 0 and high pass along the columns (vertical
 *   structure: a column differing from its neighbours in every row), @dd
 *   high pass along both — pywt.dwt2's cA, cH, cV, cD.
 * @scratch: 2 · ctr_dwt_length(@rows) · @cols doubles.
 */
void ctr_dwt2 (const double *x, gsize rows, gsize cols, const CtrWavelet *w, double *a, double *h, double *v,
               double *dd, double *scratch);

/**
 * ctr_idwt2:
 * @a, @h, @v, @dd: four bands of @m_rows × @m_cols (row-major).
 * @y: (out): the first @rows × @cols of the synthesis (pywt.idwt2 cropped),
 *   row-major; @rows ≤ 2@m_rows − F + 2, @cols ≤ 2@m_cols − F + 2.
 * @scratch: 2 · @m_rows · @cols doubles.
 */
void ctr_idwt2 (const double *a, const double *h, const double *v, const double *dd, gsize m_rows, gsize m_cols,
                const CtrWavelet *w, double *y, gsize rows, gsize cols, double *scratch);

G_END_DECLS
