/* ctr-roi-set.h — the window's measurements, shared by every slice view:
 * the regions of interest (a GListModel of CtrRoiItem), the background ROI
 * for contrast-to-noise ratios, the distance ruler, the drawing tool, and
 * the μ_water with which Hounsfield units are shown (default or a water
 * calibration of the dataset).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ROIs and the ruler are in mm in the volume's frame (core/quality/ctr-roi.h), so
 * one ROI lies on the same anatomy in every run of a dataset, whatever the
 * view's zoom.  Views attached to the set (ctr_slice_view_set_roi_set)
 * draw it and let the user draw in it; the ROI panel measures it.
 */
#pragma once

#include <gio/gio.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/* What a primary drag on a slice view does. */
typedef enum {
  CTR_ROI_TOOL_NONE,        /* window/level (or the profile line) */
  CTR_ROI_TOOL_CIRCLE,      /* draw a circle from its centre; drag inside an ROI moves it */
  CTR_ROI_TOOL_RECTANGLE,   /* draw a rectangle corner to corner; drag inside an ROI moves it */
  CTR_ROI_TOOL_RULER        /* measure a distance */
} CtrRoiTool;

#define CTR_TYPE_ROI_ITEM (ctr_roi_item_get_type ())
G_DECLARE_FINAL_TYPE (CtrRoiItem, ctr_roi_item, CTR, ROI_ITEM, GObject)

/* "ROI 1", "ROI 2", … (unique within the set, never reused). */
const char   *ctr_roi_item_get_name   (CtrRoiItem *self);
/* The region, mm (transfer none). */
const CtrRoi *ctr_roi_item_get_roi    (CtrRoiItem *self);

#define CTR_TYPE_ROI_SET (ctr_roi_set_get_type ())
G_DECLARE_FINAL_TYPE (CtrRoiSet, ctr_roi_set, CTR, ROI_SET, GObject)

CtrRoiSet  *ctr_roi_set_new            (void);
/* Appends a copy of @roi (valid: ctr_roi_validate); returns its position. */
guint       ctr_roi_set_add            (CtrRoiSet    *self,
                                        const CtrRoi *roi);
/* As ctr_roi_set_add() with the name @name ("ROI 3", as a saved session
 * gives it back); later ROIs are numbered after the largest "ROI N". */
guint       ctr_roi_set_add_named      (CtrRoiSet    *self,
                                        const char   *name,
                                        const CtrRoi *roi);
/* Removes every ROI and the ruler (the tool and μ_water stay); the next
 * ROI is "ROI 1" again. */
void        ctr_roi_set_clear          (CtrRoiSet    *self);
/* The dataset (its path, as CtrDataset.path) whose image the ROIs are
 * drawn on.  Another path puts the ROIs, the ruler and the background
 * aside under the previous one and brings back those drawn on @path (none
 * the first time), so regions drawn on one scan never land on another by
 * their mm position; the same path (a dose variant) changes nothing; the
 * first path keeps what the set holds.  The tool and μ_water stay. */
void        ctr_roi_set_set_dataset    (CtrRoiSet    *self,
                                        const char   *path);
/* Replaces the region of the ROI at @position (moved or redrawn). */
void        ctr_roi_set_update         (CtrRoiSet    *self,
                                        guint         position,
                                        const CtrRoi *roi);
void        ctr_roi_set_remove         (CtrRoiSet    *self,
                                        guint         position);
/* The ROI whose region contains the point (@x_mm, @y_mm), the last drawn
 * first; -1 when none. */
int         ctr_roi_set_find           (CtrRoiSet    *self,
                                        double        x_mm,
                                        double        y_mm);
/* The background ROI of contrast-to-noise ratios (-1: none). */
int         ctr_roi_set_get_background (CtrRoiSet    *self);
void        ctr_roi_set_set_background (CtrRoiSet    *self,
                                        int           position);
/* The ROI last drawn, moved or picked (-1: none); drawn highlighted. */
int         ctr_roi_set_get_selected   (CtrRoiSet    *self);
void        ctr_roi_set_set_selected   (CtrRoiSet    *self,
                                        int           position);

CtrRoiTool  ctr_roi_set_get_tool       (CtrRoiSet    *self);
void        ctr_roi_set_set_tool       (CtrRoiSet    *self,
                                        CtrRoiTool    tool);

/* The ruler's ends (x0, y0, x1, y1) in mm; FALSE when none. */
gboolean    ctr_roi_set_get_ruler      (CtrRoiSet    *self,
                                        double        ruler[4]);
/* Sets or (NULL) clears the ruler. */
void        ctr_roi_set_set_ruler      (CtrRoiSet    *self,
                                        const double  ruler[4]);

/* μ_water (1/mm, > 0) of every Hounsfield display of the dataset, and
 * whether it comes from a water calibration (FALSE: CTR_MU_WATER_PER_MM). */
double      ctr_roi_set_get_mu_water   (CtrRoiSet    *self,
                                        gboolean     *calibrated);
/* @mu_water ≤ 0 or not finite returns to the default. */
void        ctr_roi_set_set_mu_water   (CtrRoiSet    *self,
                                        double        mu_water,
                                        gboolean      calibrated);
/* "μ_water 0.0201/mm (calibrated)" or "μ_water 0.0192/mm (default)"
 * (transfer full). */
char       *ctr_roi_set_describe_mu_water (CtrRoiSet *self);

/* Signal "changed": anything drawn changed (tool, ruler, selection,
 * background, μ_water); ROIs added, moved or removed also emit
 * GListModel::items-changed. */

G_END_DECLS
