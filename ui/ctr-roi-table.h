/* ctr-roi-table.h — the window's ROIs measured on every run: one row per
 * ROI and image (the session's results, then the reference), with mean, SD,
 * pixel count and CNR against the background ROI; the ROI CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Statistics are core/quality/ctr-roi.h's (ctr_roi_stats, ctr_roi_cnr) on the
 * middle slice (nz / 2) of each image, the slice the Run and Compare pages
 * show, with the set's μ_water.  No GTK here.
 */
#pragma once

#include <gio/gio.h>
#include "ctr-roi-set.h"

G_BEGIN_DECLS

/**
 * CtrRoiRow:
 * @image: the run's label, or "reference".
 * @roi_name: "ROI 1", …; @roi: its region (mm).
 * @position: the ROI's position in the set.
 * @background: whether it is the set's background ROI.
 * @ok: whether @stats hold (FALSE: @error says why, e.g. fewer than 2
 *   pixels inside).
 * @stats: mean and SD in 1/mm and HU, pixel count.
 * @cnr: |mean − mean(background)| / SD(background) on the same image; NaN
 *   without a background ROI, for the background itself, or when either
 *   has no statistics.
 */
typedef struct {
  char        *image;
  char        *roi_name;
  CtrRoi       roi;
  guint        position;
  gboolean     background;
  gboolean     ok;
  CtrRoiStats  stats;
  double       cnr;
  char        *error;
} CtrRoiRow;

void       ctr_roi_row_free        (CtrRoiRow   *row);

/**
 * ctr_roi_table_measure:
 * @set: the ROIs, background and μ_water.
 * @runs: (nullable): CtrRun results (ui/ctr-run.h), each with a volume.
 * @dataset: (nullable): the open dataset: only its runs are measured
 *   (ctr_run_is_of; runs of other datasets lie on other images), and its
 *   reference, last.
 * Returns: (transfer full): CtrRoiRow, ROI-major (every image of ROI 1,
 *   then of ROI 2, …); freed with g_ptr_array_unref.
 */
GPtrArray *ctr_roi_table_measure   (CtrRoiSet        *set,
                                    GListModel       *runs,
                                    const CtrDataset *dataset);

/**
 * ctr_roi_table_write_csv:
 * Writes @rows as CSV to @path through a temporary file renamed into place
 * (g_file_set_contents): a header, then one line per row: image, roi,
 * shape, x_mm, y_mm, width_mm, height_mm (a circle: its diameter),
 * n_pixels, mean_hu, sd_hu, mean_per_mm, sd_per_mm, cnr, background,
 * mu_water_per_mm, calibrated.  Empty fields where a statistic is missing.
 * Returns: FALSE with a G_FILE_ERROR.
 */
gboolean   ctr_roi_table_write_csv (GPtrArray   *rows,
                                    double       mu_water,
                                    gboolean     calibrated,
                                    const char  *path,
                                    GError     **error);

/**
 * ctr_roi_water_suspect:
 * Whether the HU of @v with @mu_water (1/mm) look uncalibrated: the median
 * HU of the object (pixels of slice nz / 2 above a quarter of @mu_water,
 * at least 1 % of the slice) further than 300 HU from 0, as water or soft
 * tissue never is.  @median_hu (optional) receives the median.
 */
gboolean   ctr_roi_water_suspect   (const CtrVolume *v,
                                    double           mu_water,
                                    double          *median_hu);

G_END_DECLS
