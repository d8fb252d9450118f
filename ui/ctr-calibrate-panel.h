/* ctr-calibrate-panel.h — Calibrate… on the Geometry page: the centre of
 * rotation (parallel beam) or the detector offset (fan, cone) and the
 * detector tilt found from the open dataset's projections by core
 * (core/calib/ctr-calib.h), in a window of its own over the main one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The calibration runs in a worker thread on the geometry as loaded and
 * the dataset's projections (as `ctrecon-cli calibrate` does), with a
 * progress bar and Cancel.  Then it shows each method's centre column, its
 * uncertainty, the offset it means and its quality, the combined answer,
 * the tilt when measured, whether the methods agree (the CLI's warning),
 * and the curves of the search (ctr-calibrate-plot.h).  Apply types the
 * offset into the Geometry page's "Offset u" field (an edit like a typed
 * one: Revert on that page returns to the file's); Save As… writes a new
 * geometry.json, the file's with the offset and a significant tilt
 * replaced (core/calib/ctr-calib-output.h), through the output set that
 * never replaces an input; Open Saved then opens that file in the main
 * window (the loader turns the projections by a tilt it states: a tilt is
 * not applied to the projections already loaded).  Actions: calibrate.run,
 * calibrate.cancel, calibrate.apply, calibrate.save-as, calibrate.open-saved.
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"
#include "ctr-geometry-panel.h"

G_BEGIN_DECLS

#define CTR_TYPE_CALIBRATE_PANEL (ctr_calibrate_panel_get_type ())

G_DECLARE_FINAL_TYPE (CtrCalibratePanel, ctr_calibrate_panel, CTR, CALIBRATE_PANEL, GtkWidget)

GtkWidget            *ctr_calibrate_panel_new        (CtrSession        *session,
                                                      CtrGeometryPanel  *geometry);
/* Starts a calibration of the open dataset (cancels a running one). */
void                  ctr_calibrate_panel_run        (CtrCalibratePanel *self);
/* Whether a calibration is running. */
gboolean              ctr_calibrate_panel_get_busy   (CtrCalibratePanel *self);
/* (nullable): the last calibration's result; NULL before one ended well. */
const CtrCalibResult *ctr_calibrate_panel_get_result (CtrCalibratePanel *self);
/* The error of the last calibration ("" when none). */
const char           *ctr_calibrate_panel_get_error  (CtrCalibratePanel *self);
/* Apply: the found offset into the Geometry page's field; FALSE without a
 * result. */
gboolean              ctr_calibrate_panel_apply      (CtrCalibratePanel *self);
/* Save As… to @path without the chooser: FALSE with the output set's
 * error (CTR_ERROR_INVALID_ARGUMENT when @path is an input: the dataset's
 * own geometry.json), CTR_ERROR_UNSUPPORTED when the dataset has no
 * geometry.json to copy (DICOM, a bare TIFF), or the writer's. */
gboolean              ctr_calibrate_panel_save       (CtrCalibratePanel *self,
                                                      const char        *path,
                                                      GError           **error);

/* The panel in a window of its own over @parent (one per @parent: shown
 * again when open, with a calibration started when it has no result);
 * destroyed with @parent.  (transfer none): the panel. */
CtrCalibratePanel    *ctr_calibrate_panel_present    (GtkWindow         *parent,
                                                      CtrSession        *session,
                                                      CtrGeometryPanel  *geometry);

G_END_DECLS
