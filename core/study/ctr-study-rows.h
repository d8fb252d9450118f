/* ctr-study-rows.h — a dose study rebuilt from its rows alone: what a
 * saved table (a window's session, a study.csv read back) needs to draw the
 * study's figure (ctr_study_plot_draw) and compute its equal-d′ dose
 * (ctr_study_equal_dose) without the study that made them.
 */
#pragma once

#include <glib.h>
#include "study/ctr-study.h"

G_BEGIN_DECLS

/**
 * ctr_study_new_from_rows:
 * @rows: (array length=n_rows): the rows, in run order; only their figures
 *   (dose, realisation, i0, method_index, method, label, rmse, psnr, ssim,
 *   hu_rmse, noise_sd_hu, iterations, best_iteration, best_rmse, seconds,
 *   nps_*, dprime_*) are read: their ROI and TTF arrays are not (the study
 *   rebuilt has no ROI and no insert).
 * @title: (nullable): the dataset's name, the figure's title.
 * @metrics_radius_mm: the disc the rows' RMSE and SSIM were measured in
 *   (< 0: the field of view, 0: the whole image), as
 *   ctr_study_set_metrics_radius.
 *
 * A study holding copies of @rows: its doses are the rows' distinct doses
 * in order of appearance, its configurations one per method_index
 * (0 … the largest; labelled by their rows, "configuration N (no run)"
 * for an index no row has), its realisations one more than the largest
 * realisation, and it has a d′ task when a row has a finite d′ NPW (the
 * figure's third panel, the equal-d′ dose against configuration 0).
 * Its configurations hold their method with default parameters only, so it
 * cannot be run: ctr_study_run refuses it.
 *
 * Returns: (transfer full): the study (ctr_study_free), or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT when @n_rows is 0, a dose is not above 0 or
 *   not finite, or a method_index is over 1000 (a table from elsewhere).
 */
CtrStudy *ctr_study_new_from_rows (const CtrStudyRow *rows, guint n_rows, const char *title,
                                   double metrics_radius_mm, GError **error);

G_END_DECLS
