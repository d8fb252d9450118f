/* ctr-roi-panel.h — the Run page's ROI section: the drawing tools (window,
 * circle, rectangle, ruler), the ruler's length, the table of every ROI on
 * every run (mean, SD, pixel count, CNR), the background and water ROIs,
 * the μ_water in use with a warning when HU look uncalibrated, and Export
 * ROI CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-roi-set.h"
#include "ctr-roi-table.h"
#include "ctr-session.h"
#include "ctr-slice-view.h"

G_BEGIN_DECLS

#define CTR_TYPE_ROI_PANEL (ctr_roi_panel_get_type ())

G_DECLARE_FINAL_TYPE (CtrRoiPanel, ctr_roi_panel, CTR, ROI_PANEL, GtkWidget)

GtkWidget *ctr_roi_panel_new              (void);
/* What the panel measures and edits: the window's ROI set, the session
 * (its results and reference; when a dataset loads, its stored water
 * calibration applies, else the μ_water its data state, else the default),
 * and the view whose image a water calibration
 * reads (the Run page's).  Each nullable; references kept. */
void       ctr_roi_panel_set_roi_set      (CtrRoiPanel  *self,
                                           CtrRoiSet    *set);
void       ctr_roi_panel_set_session      (CtrRoiPanel  *self,
                                           CtrSession   *session);
void       ctr_roi_panel_set_view         (CtrRoiPanel  *self,
                                           CtrSliceView *view);
/* Whether a Hounsfield preset is active: without one the table also shows
 * the values in 1/mm. */
void       ctr_roi_panel_set_hu           (CtrRoiPanel  *self,
                                           gboolean      hu);
/* The rows the table shows (ctr-roi-table.h), transfer full. */
GPtrArray *ctr_roi_panel_measure          (CtrRoiPanel  *self);
/* The text of the table cell of ROI @position on @image ("mean", "sd",
 * "n" or "cnr" column), as shown; NULL when there is none.  For tests. */
char      *ctr_roi_panel_get_cell         (CtrRoiPanel  *self,
                                           guint         position,
                                           const char   *image,
                                           const char   *column);
/* Water calibration from ROI @position on the view's image
 * (ctr_roi_water_calibration), stored for the dataset and applied to every
 * HU display.  Returns: FALSE with the errors of ctr_roi_water_calibration,
 * or CTR_ERROR_INVALID_ARGUMENT without an image or ROI. */
gboolean   ctr_roi_panel_calibrate_water  (CtrRoiPanel  *self,
                                           guint         position,
                                           GError      **error);
/* Back to the default μ_water (CTR_MU_WATER_PER_MM), forgetting the
 * dataset's stored calibration. */
void       ctr_roi_panel_reset_water      (CtrRoiPanel  *self);
/* Writes the table as CSV (ctr_roi_table_write_csv). */
gboolean   ctr_roi_panel_write_csv        (CtrRoiPanel  *self,
                                           const char   *path,
                                           GError      **error);
/* The warning shown when HU look uncalibrated; NULL when none.  (transfer none) */
const char *ctr_roi_panel_get_warning     (CtrRoiPanel  *self);

G_END_DECLS
