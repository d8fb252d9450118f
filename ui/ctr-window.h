/* ctr-window.h — the main window: dataset, method, slice view, convergence plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_WINDOW (ctr_window_get_type ())

G_DECLARE_FINAL_TYPE (CtrWindow, ctr_window, CTR, WINDOW, AdwApplicationWindow)

CtrWindow  *ctr_window_new            (GtkApplication *application);
void        ctr_window_open           (CtrWindow      *self,
                                       GFile          *file);
gboolean    ctr_window_has_dataset    (CtrWindow      *self);
gboolean    ctr_window_is_busy        (CtrWindow      *self);
void        ctr_window_set_method     (CtrWindow      *self,
                                       CtrMethod       method);
void        ctr_window_set_iterations (CtrWindow      *self,
                                       guint           iterations);
void        ctr_window_set_run_on_load (CtrWindow     *self,
                                       gboolean        run_on_load);
void        ctr_window_reconstruct    (CtrWindow      *self);
void        ctr_window_cancel         (CtrWindow      *self);

G_END_DECLS
