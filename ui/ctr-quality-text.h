/* ctr-quality-text.h — one way to write a run's quality figures, on every
 * page (Run, Compare, Dose Study): RMSE in HU where the image is in 1/mm
 * (with the 1/mm figure the CLI prints beside it), SSIM, and the mask the
 * figures were computed over (ctr_quality_compute, ctr-metrics.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_quality_text_rmse:
 * @rmse: RMSE in @unit (NaN: none).
 * @unit: (nullable): the image unit ("1/mm", "1/pixel").
 * @mu_water: μ_water in 1/mm for the HU figure.
 * Returns: (transfer full): "48.2 HU (9.26e-04 /mm)" for 1/mm images,
 *   "0.0123 1/pixel" otherwise, "–" for NaN.  The 1/mm figure is printed
 *   "%.3g" (as the CLI's "rmse" column reads to three digits).
 */
char *ctr_quality_text_rmse (double rmse, const char *unit, double mu_water);

/**
 * ctr_quality_text_mask:
 * @radius_mm: the radius of the disc the metrics counted (<= 0: all pixels).
 * Returns: (transfer full): "field-of-view disc, r 128.6 mm" or
 *   "whole image".
 */
char *ctr_quality_text_mask (double radius_mm);

G_END_DECLS
