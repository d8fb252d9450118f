/* ctr-projection-page.h — the Projections page: the open dataset's
 * projections and sinograms stepped through by view and row, the
 * flat/dark check, the preprocessing pipeline's before, after and
 * difference on the shown row's sinogram, and a preview slice (FBP of that
 * row) made again, in a thread, whenever the row or the pipeline changes.
 *
 * Panes (widget names, for tests): "projection" (the view shown, rows ×
 * columns; a one-row scan's whole sinogram), "slice-before" and
 * "slice-after" (FBP of the row before and after the pipeline, 1/mm),
 * "sinogram-before", "sinogram-after", "difference" (after − before).
 * Controls: "view-scale", "row-scale", the pipeline form
 * (ctr-pipeline-form.h); labels "flat-dark" and "preview-status".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "ctr-session.h"
#include "ctr-pipeline-form.h"
#include "ctr-geometry-panel.h"

G_BEGIN_DECLS

#define CTR_TYPE_PROJECTION_PAGE (ctr_projection_page_get_type ())
G_DECLARE_FINAL_TYPE (CtrProjectionPage, ctr_projection_page, CTR, PROJECTION_PAGE, GtkWidget)

GtkWidget       *ctr_projection_page_new          (void);
/* The session whose dataset is shown; nullable. */
void             ctr_projection_page_set_session  (CtrProjectionPage *self,
                                                   CtrSession        *session);
/* The preview slices use @panel's edited geometry (ctr_geometry_panel_get_geometry)
 * while it is valid and fits the data shown, the dataset's otherwise, and
 * are made again when it changes: the centre of rotation typed there
 * shows at once. */
void             ctr_projection_page_follow_geometry (CtrProjectionPage *self,
                                                   CtrGeometryPanel  *panel);
/* The view and the row shown (the scales' values). */
void             ctr_projection_page_show         (CtrProjectionPage *self,
                                                   guint              view,
                                                   guint              row);
CtrPipelineForm *ctr_projection_page_get_form     (CtrProjectionPage *self);
/* How many previews have finished (a new one is started at each change of
 * row or pipeline; one superseded before it ends is not counted), and the
 * last one's pipeline and FBP wall times and the process's CPU time over
 * them, in seconds (its row: *@row).  Each out argument nullable. */
guint            ctr_projection_page_get_previews (CtrProjectionPage *self,
                                                   double            *pipeline_s,
                                                   double            *fbp_s,
                                                   double            *cpu_s,
                                                   guint             *row);

G_END_DECLS
