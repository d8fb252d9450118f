/* ctr-roi.h — statistics inside regions of interest, in Hounsfield units.
 *
 * The figures a dose study reports: mean and standard deviation in HU inside
 * a circular or rectangular ROI on one slice, the contrast-to-noise ratio of
 * an ROI against a background ROI, and the noise of a uniform region.
 * ROIs are given in mm in the volume's frame (ctr-volume.h: x grows with the
 * column, y with decreasing row, the grid centre at (cx, cy)); a pixel
 * belongs to the ROI when its centre lies inside (on the edge counts), and
 * only pixels of the image count.  HU = 1000·(μ − μ_water)/μ_water with the
 * caller's μ_water (CTR_MU_WATER_PER_MM by default, ctr-hu.h, or a water
 * calibration, ctr_roi_water_calibration).  All sums in double precision,
 * two passes (mean, then deviations).
 */
#pragma once

#include <glib.h>
#include "data/ctr-volume.h"

G_BEGIN_DECLS

typedef enum {
  CTR_ROI_CIRCLE,
  CTR_ROI_RECTANGLE
} CtrRoiShape;

/**
 * CtrRoi:
 * @shape: circle or rectangle (sides along x and y).
 * @x_mm, @y_mm: centre, mm.
 * @radius_mm: circle radius, mm (> 0).
 * @width_mm, @height_mm: rectangle sides along x and y, mm (> 0).
 * Plain value type.
 */
typedef struct {
  CtrRoiShape shape;
  double x_mm, y_mm;
  double radius_mm;
  double width_mm, height_mm;
} CtrRoi;

/**
 * CtrRoiStats:
 * @n_pixels: pixels inside the ROI.
 * @mean_mu, @sd_mu: mean and sample standard deviation (n − 1) of the
 *   values, in the image's unit (1/mm).
 * @mean_hu, @sd_hu: the same in HU (sd_hu = 1000·sd_mu/μ_water).
 */
typedef struct {
  gsize n_pixels;
  double mean_mu, sd_mu;
  double mean_hu, sd_hu;
} CtrRoiStats;

/* Convenience constructors. */
CtrRoi ctr_roi_circle (double x_mm, double y_mm, double radius_mm);
CtrRoi ctr_roi_rectangle (double x_mm, double y_mm, double width_mm, double height_mm);

/* CTR_ERROR_INVALID_ARGUMENT unless the centre is finite and the sizes positive. */
gboolean ctr_roi_validate (const CtrRoi *roi, GError **error);

/**
 * ctr_roi_parse:
 * An ROI from its text form, the CLI's and the window's: "circle:X,Y,R" or
 * "rect:X,Y,W,H" (centre and sizes in mm, sizes positive).  @roi is set
 * only on success.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT naming the text and the
 *   expected forms.
 */
gboolean ctr_roi_parse (const char *text, CtrRoi *roi, GError **error);

/* New nx·ny mask (g_free; one byte a pixel, row-major) of the ROI on the
 * x/y grid of @grid, 1 inside; @n_pixels (optional) receives the count.
 * NULL with CTR_ERROR_OUT_OF_MEMORY (the mask's size and the bound) when
 * the mask cannot be allocated. */
guint8 *ctr_roi_mask (const CtrGrid *grid, const CtrRoi *roi, gsize *n_pixels, GError **error);

/**
 * ctr_roi_stats:
 * Mean and SD of slice @z of @v inside @roi, HU with @mu_water (1/mm).
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (invalid ROI, @z outside
 *   the volume, @mu_water not positive, or fewer than 2 pixels inside),
 *   CTR_ERROR_INVALID_DATA (a pixel inside is NaN or infinite) or
 *   CTR_ERROR_OUT_OF_MEMORY (the slice's mask, ctr_roi_mask).
 */
gboolean ctr_roi_stats (const CtrVolume *v, guint z, const CtrRoi *roi, double mu_water,
                        CtrRoiStats *out, GError **error);

/**
 * ctr_roi_cnr:
 * Contrast-to-noise ratio |mean(ROI) − mean(background)| / SD(background),
 * the background's standard deviation standing for the image noise (the
 * usual definition for low-contrast objects in dose studies).  NaN when the
 * background's SD is 0.
 */
double ctr_roi_cnr (const CtrRoiStats *roi, const CtrRoiStats *background);

/**
 * ctr_roi_noise_sd:
 * Noise of a uniform region: the standard deviation, in HU, of slice @z of
 * @v inside @roi after removing the least-squares plane a + b·x + c·y fitted
 * over the ROI (so a slow shading, e.g. cupping, does not count as noise),
 * with n − 3 degrees of freedom.
 * Returns: FALSE with the errors of ctr_roi_stats (fewer than 4 pixels, or
 *   pixels on one line, give CTR_ERROR_INVALID_ARGUMENT).
 */
gboolean ctr_roi_noise_sd (const CtrVolume *v, guint z, const CtrRoi *roi, double mu_water,
                           double *sd_hu, GError **error);

/**
 * ctr_roi_water_calibration:
 * μ_water for this image: the mean of slice @z inside @water, an ROI placed
 * in water (or a water-equivalent region), so that it reads 0 HU.
 * Returns: FALSE with the errors of ctr_roi_stats, or
 *   CTR_ERROR_INVALID_DATA when the mean is not positive.
 */
gboolean ctr_roi_water_calibration (const CtrVolume *v, guint z, const CtrRoi *water,
                                    double *mu_water, GError **error);

G_END_DECLS
