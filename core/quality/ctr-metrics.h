/* ctr-metrics.h — image quality against a reference, and line profiles.
 *
 * Definitions (docs/design.md §8):
 *  - RMSE = sqrt(mean((img - ref)²)) over the pixels of @mask (all when NULL).
 *  - PSNR = 10·log10(data_range² / MSE), data_range = max(ref) - min(ref).
 *  - SSIM: Wang, Bovik, Sheikh & Simoncelli 2004 (IEEE TIP 13(4), Eq. 13) with a
 *    Gaussian window σ = 1.5 truncated at 3.5σ (11×11), K1 = 0.01, K2 = 0.03,
 *    population covariances, the mean taken over the pixels at least 5 from the
 *    border — numerically the same as scikit-image's
 *    structural_similarity(gaussian_weights=True, sigma=1.5,
 *    use_sample_covariance=False, data_range=...) (tested to 1e-4).
 * All sums in double precision.  Arrays are [y][x], x fastest.
 */
#pragma once

#include <glib.h>
#include "data/ctr-volume.h"

G_BEGIN_DECLS

double ctr_metrics_rmse (const float *img, const float *ref, gsize n, const guint8 *mask);
double ctr_metrics_psnr (const float *img, const float *ref, gsize n, double data_range,
                         const guint8 *mask);
/* SSIM of two nx×ny images, in [-1, 1]; NaN if either side is smaller than 11
 * pixels or @data_range is not positive (SSIM is then undefined). */
double ctr_metrics_ssim (const float *img, const float *ref, guint nx, guint ny,
                         double data_range);
/* ctr_metrics_ssim into @ssim (NaN where undefined, as above); FALSE with
 * CTR_ERROR_OUT_OF_MEMORY when its buffers (the five moment planes of a
 * band of rows, about 4 MiB (at least 16 rows and 10 more), ny
 * row sums and a few rows a thread, allocated up front) cannot be had;
 * ctr_metrics_ssim returns NaN then. */
gboolean ctr_metrics_ssim_full (const float *img, const float *ref, guint nx, guint ny,
                                double data_range, double *ssim, GError **error);
/* Pearson correlation over @mask (all when NULL). */
double ctr_metrics_pearson (const float *a, const float *b, gsize n, const guint8 *mask);

/* New nx·ny mask (g_free): 1 where the pixel centre lies within @radius_mm of
 * the grid centre; NULL with CTR_ERROR_OUT_OF_MEMORY when it cannot be had. */
guint8 *ctr_metrics_disc_mask (const CtrGrid *grid, double radius_mm, GError **error);

typedef struct {
  double rmse, psnr, ssim;
} CtrQuality;

/**
 * ctr_quality_work_bytes:
 * What ctr_quality_compute holds beside its two volumes on @grid, bytes:
 * with @radius_mm > 0 a slice's disc mask and masked copy, and SSIM's
 * buffers (ctr_metrics_ssim_full: the five moment planes of a band of
 * rows, the row sums, a few rows a thread) — what a memory plan counts for
 * metrics against a reference.
 */
guint64 ctr_quality_work_bytes (const CtrGrid *grid, double radius_mm);

/**
 * ctr_quality_compute:
 * Quality of @img against @ref (same grid, checked: FALSE otherwise), averaged
 * over slices.  With @radius_mm > 0 the protocol of shared/data (head-fan-lowdose
 * README): @img is set to 0 outside the disc, RMSE over the disc's pixels,
 * SSIM over the whole masked image; data_range from @ref.  Errors:
 * CTR_ERROR_INVALID_DATA (not the same grid), CTR_ERROR_OUT_OF_MEMORY (the
 * mask or the SSIM buffers, named in the message).
 */
gboolean ctr_quality_compute (const CtrVolume *img, const CtrVolume *ref,
                              double radius_mm, CtrQuality *out, GError **error);

/**
 * ctr_quality_sum_slices:
 * The per-slice RMSE, PSNR and SSIM of ctr_quality_compute summed (not
 * averaged) over the slices of @img against @ref (same grid, checked), with
 * the data range given: @data_range = max − min of the whole reference.  For
 * a part of a stack (one rank's slice block, mpi/): the parts' sums added
 * and divided by the whole stack's slice count give ctr_quality_compute of
 * the whole.  Errors as ctr_quality_compute.
 */
gboolean ctr_quality_sum_slices (const CtrVolume *img, const CtrVolume *ref, double radius_mm,
                                 double data_range, CtrQuality *sums, GError **error);

/* SSIM's window: 2 · 5 + 1 taps (σ = 1.5 truncated at 3.5σ). */
#define CTR_SSIM_TAPS 11

/**
 * ctr_metrics_ssim_window:
 * What SSIM of @nx × @ny slices with @data_range needs besides the images,
 * for an implementation elsewhere (a device's): the normalised Gaussian
 * window @w (CTR_SSIM_TAPS weights, tap k at offset k − 5) and Wang et
 * al.'s constants C1 = (0.01 R)², C2 = (0.03 R)² (Eq. 13).  FALSE (and C1 =
 * C2 = 0) where SSIM is undefined: a side under CTR_SSIM_TAPS pixels or a
 * data range that is not finite and positive.
 */
gboolean ctr_metrics_ssim_window (guint nx, guint ny, double data_range, double w[CTR_SSIM_TAPS], double *c1,
                                  double *c2);

/**
 * ctr_quality_from_slices:
 * ctr_quality_compute's result from per-slice sums made where the image is
 * (a device's CtrVecOps.quality): @ssd[z] = Σ (x − r)² over the pixels of
 * slice z within @radius_mm of the grid centre (<= 0: all), x set to 0
 * outside the disc; @ssim_sum[z] = the sum of SSIM's map of that masked
 * slice against the reference's (ctr_metrics_ssim's terms, over the pixels
 * at least 5 from every border); @grid->nz entries each; @data_range = max
 * − min of the whole reference.  Per slice RMSE and PSNR as
 * ctr_metrics_rmse / ctr_metrics_psnr (NaN when the disc holds no pixel),
 * SSIM the map's mean clamped to [−1, 1] (NaN where undefined: see
 * ctr_metrics_ssim_window); then each averaged over the slices.  No
 * allocation.
 */
void ctr_quality_from_slices (const CtrGrid *grid, double radius_mm, const double *ssd, const double *ssim_sum,
                              double data_range, CtrQuality *out);

/**
 * ctr_profile_sample:
 * @n samples (>= 2) of slice @z along the segment (x0, y0) → (x1, y1) in mm,
 * bilinear interpolation, 0 outside the grid.  @out has @n floats; @out_s
 * (optional, n doubles) receives the distance from the start in mm.
 */
void ctr_profile_sample (const CtrVolume *v, guint z, double x0, double y0,
                         double x1, double y1, guint n, float *out, double *out_s);

G_END_DECLS
