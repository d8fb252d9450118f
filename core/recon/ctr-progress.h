/* ctr-progress.h — what a reconstruction reports while it runs: one
 * CtrIterStats per iteration (one-pass methods report once, as iteration 1
 * of 1) through a CtrIterFunc, and the helpers that fill it in the same way
 * for every method and backend.
 */
#pragma once

#include <glib.h>
#include "recon/ctr-recon-types.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

/**
 * CtrIterStats:
 * What a solver reports after every iteration (and FBP/FDK once, as
 * iteration 1 of 1).
 * @residual: ||b - A x||₂ / ||b||₂ over the valid rays of all slices, of
 *   the image reported (@image), exact wherever it is a number (CGLS: its
 *   recursion's residual vector, equal to it up to rounding).  NaN for FBP
 *   and FDK, which build no operator, and, under CTR_RESIDUAL_FINAL
 *   (CtrReconOptions.residual), for the iterations before the last of a
 *   method that would pay a forward projection for it (ART, parallel ART,
 *   SART, PWLS, ASD-POCS, a device's pass): never an estimate in its place.
 * @data_sq: ||b||₂² over the same rays (NaN for FBP and FDK), so that the
 *   reports of runs over parts of one stack combine into the whole's:
 *   residual = sqrt (Σ residual_k² · data_sq_k / Σ data_sq_k) (mpi/).
 * @rmse, @psnr, @ssim: against the reference (NaN without one), computed as
 *   ctr-metrics.h states, averaged over slices.
 * @stopped: TRUE on the last report of a run that its stopping rule ended
 *   before n_iterations (CTR_STOP_AUTO: the residual reached the noise).
 * @noise_residual: the relative data residual (as @residual) at which the
 *   discrepancy principle stops a run (CTR_STOP_AUTO): 0.98 × the noise
 *   level sqrt (Σ var(bᵢ)) estimated from the data (ctr-noise.h) over
 *   ||b||.  Known (> 0) for ART, parallel ART, SART, SIRT and CGLS runs of
 *   more than one iteration with or without the rule; 0 or NaN elsewhere
 *   (PWLS, ASD-POCS, one iteration, noiseless data, no estimate).  A
 *   @residual below it on a run without the rule: the image fits the
 *   noise (semi-convergence: its error grows again with more iterations).
 * @image: borrowed; valid only during the callback (copy what you keep).
 *   What CtrReconOptions.report_image asks for: the whole image, one slice
 *   (a volume of nz = 1), or NULL; the last report always the whole image.
 *   Under CTR_REPORT_PLANES, the axial plane (planes[0]) before the last.
 * @planes: borrowed, as @image; under CTR_REPORT_PLANES (every report,
 *   the last too) the three orthogonal planes through the voxel (i, j, k)
 *   = (report_x, report_y, report_slice) clamped, each a one-voxel slab of
 *   the run's grid on its own grid (same pixel sizes, the slab's centre),
 *   floats x fastest, then y, then z, in the image's unit:
 *   [0] axial: nx × ny × 1 (cz the z of slice k), x[i + nx·j];
 *   [1] coronal: nx × 1 × nz (cy the y of row j), x[i + nx·k];
 *   [2] sagittal: 1 × ny × nz (cx the x of column i), x[j + ny·k].
 *   Each equals the whole image's voxels there exactly.  All NULL under
 *   the other modes.
 * @cancelled: TRUE on the one extra report of a run cancelled after its
 *   first report whose reports carried less than the whole image
 *   (CTR_REPORT_SLICE, _NONE, _PLANES), made just before it returns
 *   G_IO_ERROR_CANCELLED: @image is the whole image as the cancellation
 *   left it (@planes read from it under CTR_REPORT_PLANES), @iteration the
 *   last iteration finished (reported before); no residual, no metrics
 *   (NaN).  Not a row of the run's curves.
 * @partial: with @cancelled, TRUE when the cancellation came during
 *   iteration @iteration + 1 (between its subsets or steps): the image then
 *   may hold part of that iteration's update; FALSE: exactly iteration
 *   @iteration's image.
 */
typedef struct {
  CtrMethod method;
  guint iteration;
  guint n_iterations;
  double elapsed_s;      /* since the start of the run (operator set-up excluded) */
  double iteration_s;    /* this iteration's update alone (no residual, no metrics) */
  double residual;
  double data_sq;
  double residual_s;     /* what computing the residual took (a device's own
                          * forward pass, or the driver's), 0 when free or
                          * not computed */
  gboolean has_reference;
  double rmse;
  double psnr;
  double ssim;
  gboolean stopped;
  double noise_residual;
  const CtrVolume *image;
  const CtrVolume *planes[3];
  gboolean cancelled;
  gboolean partial;
} CtrIterStats;

/* Called from the thread that runs the reconstruction. */
typedef void (*CtrIterFunc) (const CtrIterStats *stats, gpointer user_data);

/* Sets @stats' rmse/psnr/ssim/has_reference from @img against @reference (same
 * grid; NULL → NaN) with ctr_quality_compute's protocol (ctr-metrics.h),
 * counting the pixels within @radius_mm of the grid centre (<= 0: all). */
void ctr_iter_stats_set_quality (CtrIterStats *stats, const CtrVolume *img,
                                 const CtrVolume *reference, double radius_mm);

/* TRUE when @stats' residual lies below its noise_residual (both known):
 * the image fits the noise (semi-convergence; see @noise_residual). */
gboolean ctr_iter_stats_below_noise (const CtrIterStats *stats);

/**
 * ctr_iter_stats_check:
 * A run never hands back, nor reports, a plausible-looking wrong image: FALSE
 * with CTR_ERROR_INVALID_DATA when @img (nullable: the metrics alone) holds
 * a NaN or infinite voxel, or when @stats' metrics (has_reference) are not
 * finite — except the PSNR of
 * an exact match (RMSE 0), which is +inf by definition.  @iteration names
 * the iteration in the message.
 */
gboolean ctr_iter_stats_check (const CtrIterStats *stats, const CtrVolume *img, GError **error);

/* Reports a one-pass method (FBP, FDK) through @callback (when non-NULL):
 * iteration 1 of 1, @seconds as elapsed and iteration time, no residual,
 * quality against @reference as ctr_iter_stats_set_quality.  Checks @img
 * and the metrics first (ctr_iter_stats_check, also without a callback):
 * FALSE with its error, nothing reported. */
gboolean ctr_iter_report_single_pass (CtrMethod method, const CtrVolume *img, const CtrVolume *reference,
                                      double radius_mm, double seconds, CtrIterFunc callback,
                                      gpointer user_data, GError **error);

/**
 * ctr_reference_check:
 * A reference resampled onto the reconstruction grid must be able to
 * measure quality: finite values, a data range (max − min) above 0 (a
 * constant reference makes PSNR and SSIM undefined: SSIM's constants
 * C1 = (0.01·range)², C2 = (0.03·range)² vanish), and at least SSIM's
 * 11 × 11 window.  FALSE with CTR_ERROR_INVALID_ARGUMENT saying which.
 */
gboolean ctr_reference_check (const CtrVolume *reference, GError **error);

/**
 * ctr_reference_covers:
 * Whether the reference @reference (on its own grid, before resampling)
 * holds every slice of @grid by position (half a slice of slack): outside
 * its slices the resampled reference is 0, and metrics would average empty
 * slices in (PSNR inf, RMSE diluted).  A reference of one slice serves every
 * z.  FALSE with CTR_ERROR_INVALID_ARGUMENT giving both z ranges and the
 * count of slices outside.
 */
gboolean ctr_reference_covers (const CtrVolume *reference, const CtrGrid *grid, GError **error);

G_END_DECLS
