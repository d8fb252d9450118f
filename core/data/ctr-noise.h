/* ctr-noise.h — the noise level of measured line integrals, from the data.
 *
 * Model (transmission CT, monoenergetic, no scatter): a detector bin whose
 * open beam delivers O photons (O = flat − dark per pixel, or the dataset's
 * I0) counts N ~ Poisson(O·exp(−b)); the line integral b̂ = −ln(N/O) then has,
 * to first order (delta method),
 *
 *     var(b̂ᵢ) ≈ 1 / N̄ᵢ = exp(bᵢ) / Oᵢ,           N̄ᵢ = Oᵢ·exp(−bᵢ),
 *
 * and with Gaussian electronic noise of σₑ counts added to N,
 *
 *     var(b̂ᵢ) ≈ (N̄ᵢ + σₑ²) / N̄ᵢ²
 *
 * (Sauer & Bouman 1993, IEEE Trans. Signal Process. 41(2) 534-548: the
 * quadratic approximation of the Poisson log-likelihood with weights = the
 * counts; Thibault, Sauer, Bouman & Hsieh 2007, Med. Phys. 34(11) 4526-4544:
 * the same with electronic noise, wᵢ = N̄ᵢ²/(N̄ᵢ + σₑ²)).  N̄ᵢ is taken from the measured bᵢ, as PWLS
 * weights are (wᵢ = the detected counts).
 *
 * When the data state no open-beam counts (line integrals without "I0"), the
 * Poisson scale is estimated from the sinogram itself: along every detector
 * row of every view, the fourth-order difference
 *     dⱼ = bⱼ − 4bⱼ₊₁ + 6bⱼ₊₂ − 4bⱼ₊₃ + bⱼ₊₄
 * removes the anatomy (any cubic along the row is annihilated), and under the
 * model above dⱼ / sqrt(Σₖ cₖ² exp(bⱼ₊ₖ)) has standard deviation 1/sqrt(I0)
 * (cₖ = 1, 4, 6, 4, 1).  Its scale is the median absolute value divided by
 * 0.6745, the robust estimator of Donoho & Johnstone (1994, Biometrika 81(3)
 * 425-455: the median absolute finest-scale coefficient / 0.6745); high-pass
 * residuals as the noise probe follow Immerkær (1996, CVIU 64(2) 300-302).
 * Windows on edges, where the anatomy survives the difference, are left out
 * first as Tai & Yang (2008, "A fast method for image noise estimation using
 * Laplacian operator and adaptive edge detection", ISCCSP) do for images:
 * the 30 % of windows with the steepest smoothed sinogram (|S(j+4) − S(j)|,
 * S = mean over 3 views × 5 columns) do not count, nor do windows of five
 * bit-identical samples (the exact-zero air of a simulated scan, a clip or a
 * saturated run: they show no noise whatever the dose, and where they were
 * half the windows the median read 0).  The result is the
 * effective I0 that explains the sinogram's noise: the photons per bin of a
 * Poisson scan with the same noise.  Measured on ../shared/data/head-fan-lowdose
 * (tests/test-noise.c states the tolerance): within a few per cent of the
 * known I0 at full and quarter dose, and orders of magnitude above it for the
 * noiseless sinogram.  Correlated detector noise (cross-talk between
 * neighbouring columns) makes the estimate too high.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

typedef enum {
  /* Open-beam counts stated by the data: a flat (minus dark) or I0. */
  CTR_NOISE_FROM_STATISTICS,
  /* No counts stated: the Poisson scale estimated from the sinogram. */
  CTR_NOISE_FROM_SINOGRAM
} CtrNoiseSource;

/**
 * CtrNoiseLevel:
 * @source: where @i0 comes from.
 * @i0: open-beam photons per detector bin: the data's I0, the mean of
 *   flat − dark over the valid pixels, or the sinogram estimate; +Inf when
 *   the sinogram shows no noise at all (no window varies, or the median
 *   fourth-order difference is 0).
 * @i0_sinogram: the sinogram estimate, computed in every case (NaN when the
 *   detector has fewer than 5 columns): beside stated counts it shows a
 *   detector gain other than one photon per count, or a wrong I0.
 * @sigma: root-mean-square standard deviation of the line integrals over the
 *   valid rays, sqrt(Σᵢ var(b̂ᵢ) / n_rays), dimensionless (like b); the
 *   expected ||b − A x_true||₂ is sigma·sqrt(n_rays) (the discrepancy
 *   principle's target).
 * @electronic_sd: σₑ in counts used in the variances (0 unless the caller
 *   sets it before ctr_noise_variance()).
 * @n_rays: rays counted (valid detector pixels × views).
 */
typedef struct {
  CtrNoiseSource source;
  double i0;
  double i0_sinogram;
  double sigma;
  double electronic_sd;
  gsize n_rays;
} CtrNoiseLevel;

/**
 * ctr_noise_estimate:
 * @g: the geometry of @p (its views, rows and columns must match @p).
 * @p: line integrals [view][row][col] as ctr_dataset_load() returns them,
 *   with the statistics the data stated (->flat, ->dark, ->i0, ->mask).
 * @out: (out): the noise level, electronic_sd = 0.
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (@g and @p disagree, or @p
 *   holds raw counts), CTR_ERROR_INVALID_DATA (no counts stated and fewer
 *   than 5 detector columns, or no valid ray), CTR_ERROR_OUT_OF_MEMORY (the
 *   open-beam plane, or the sinogram estimate's buffers, whether or not the
 *   data state counts).
 */
gboolean ctr_noise_estimate (const CtrGeometry *g, const CtrProjections *p,
                             CtrNoiseLevel *out, GError **error);

/**
 * ctr_noise_estimate_i0:
 * Only the sinogram estimate described above, whatever the data state.
 * Returns the effective I0 (photons per bin; +Inf for a noiseless sinogram),
 * or NaN with CTR_ERROR_INVALID_DATA (fewer than 5 columns: no window) or
 * CTR_ERROR_OUT_OF_MEMORY (its samples: two floats a window; a smoothed
 * row: 16 bytes a column; the sorted copy of the edge samples).
 * Samples at most about 4·10⁶ windows (evenly spread over views and rows).
 */
double ctr_noise_estimate_i0 (const CtrProjections *p, GError **error);

/**
 * ctr_noise_variance:
 * @level: from ctr_noise_estimate() (its electronic_sd may be changed).
 *
 * Returns: (transfer full): var(b̂ᵢ) for every ray, float [view][row][col]
 *   like @p->data (g_free): (N̄ᵢ + σₑ²)/N̄ᵢ² with N̄ᵢ = Oᵢ·exp(−bᵢ), Oᵢ the
 *   pixel's flat − dark (or I0) when the data state them, else level->i0;
 *   +Inf for dead pixels (@p->mask 0); 0 everywhere when level->i0 is +Inf.
 *   NULL with CTR_ERROR_OUT_OF_MEMORY or the errors of ctr_noise_estimate.
 */
float *ctr_noise_variance (const CtrGeometry *g, const CtrProjections *p,
                           const CtrNoiseLevel *level, GError **error);

/**
 * ctr_noise_weights:
 * Statistical weights wᵢ = 1 / var(b̂ᵢ) for PWLS (0 for dead pixels), float
 * [view][row][col] (g_free): the detected counts N̄ᵢ when σₑ = 0
 * (Thibault et al. 2007, Eq. 4).  A noiseless level (i0 = +Inf) gives
 * CTR_ERROR_INVALID_DATA: the weights are then undefined (use the
 * unweighted solver).  Other errors as ctr_noise_variance.
 */
float *ctr_noise_weights (const CtrGeometry *g, const CtrProjections *p,
                          const CtrNoiseLevel *level, GError **error);

G_END_DECLS
