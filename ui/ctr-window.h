/* ctr-window.h — the main window: Run, Geometry, Profile and Compare pages
 * over one CtrSession (the dataset and its runs).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"

G_BEGIN_DECLS

#define CTR_TYPE_WINDOW (ctr_window_get_type ())

G_DECLARE_FINAL_TYPE (CtrWindow, ctr_window, CTR, WINDOW, AdwApplicationWindow)

CtrWindow  *ctr_window_new         (GtkApplication *application);
/* Opens @file (a geometry.json, a DICOM file or folder, a dataset folder;
 * a saved session folder NAME.ctrsession opens as Open Session… does)
 * in this window; a running job is cancelled.  Several DICOM series ask
 * which one, an XA file without geometry asks for it; errors are shown. */
void        ctr_window_open        (CtrWindow      *self,
                                    GFile          *file);
/* (transfer none): the window's dataset and runs. */
CtrSession *ctr_window_get_session (CtrWindow      *self);

G_END_DECLS
