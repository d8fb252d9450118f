/* ctr-window.h — the main window: Run (dataset, method, live slice,
 * convergence of every run), Geometry (editor and sketch), Profile (line
 * profile of every result and the reference), Compare (side by side with a
 * difference image).  The functions after ctr_window_cancel() serve the
 * application's test options (ui/ctr-test-driver.c) and export actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"
#include "ctr-geometry-panel.h"
#include "ctr-method-panel.h"
#include "ctr-slice-view.h"

G_BEGIN_DECLS

#define CTR_TYPE_WINDOW (ctr_window_get_type ())

G_DECLARE_FINAL_TYPE (CtrWindow, ctr_window, CTR, WINDOW, AdwApplicationWindow)

CtrWindow  *ctr_window_new            (GtkApplication *application);
void        ctr_window_open           (CtrWindow      *self,
                                       GFile          *file);
void        ctr_window_open_files     (CtrWindow      *self,
                                       const char *const *paths);
GtkWidget  *ctr_window_get_dialog     (CtrWindow      *self);
const char *ctr_window_get_summary    (CtrWindow      *self);
guint       ctr_window_get_n_recent   (CtrWindow      *self);
gboolean    ctr_window_apply_preset   (CtrWindow      *self,
                                       const char     *name);
char       *ctr_window_describe_pixel (CtrWindow      *self,
                                       guint           ix,
                                       guint           iy);
gboolean    ctr_window_export_dicom   (CtrWindow      *self,
                                       const char     *folder,
                                       GError        **error);
gboolean    ctr_window_has_dataset    (CtrWindow      *self);
gboolean    ctr_window_is_busy        (CtrWindow      *self);
gboolean    ctr_window_is_running     (CtrWindow      *self);
void        ctr_window_set_orientation (CtrWindow     *self,
                                       CtrSliceOrientation orientation);
void        ctr_window_set_method     (CtrWindow      *self,
                                       CtrMethod       method);
void        ctr_window_set_iterations (CtrWindow      *self,
                                       guint           iterations);
void        ctr_window_set_run_on_load (CtrWindow     *self,
                                       gboolean        run_on_load);
void        ctr_window_reconstruct    (CtrWindow      *self);
void        ctr_window_cancel         (CtrWindow      *self);
CtrGeometryPanel *ctr_window_get_geometry_panel (CtrWindow *self);
CtrMethodPanel   *ctr_window_get_method_panel   (CtrWindow *self);

/* Pages: "reconstruct", "geometry", "profile", "compare". */
void        ctr_window_show_page      (CtrWindow      *self,
                                       const char     *name);
gboolean    ctr_window_can_reconstruct (CtrWindow     *self);
const char *ctr_window_get_status     (CtrWindow      *self);
const char *ctr_window_get_progress_text (CtrWindow   *self);
guint       ctr_window_get_n_runs     (CtrWindow      *self);
guint       ctr_window_get_n_plot_runs (CtrWindow     *self);
gboolean    ctr_window_save_geometry  (CtrWindow      *self,
                                       const char     *path,
                                       GError        **error);
gboolean    ctr_window_save_png       (CtrWindow      *self,
                                       const char     *path,
                                       GError        **error);
void        ctr_window_set_profile_segment (CtrWindow *self,
                                       double          x0,
                                       double          y0,
                                       double          x1,
                                       double          y1);
guint       ctr_window_get_profile_n_curves (CtrWindow *self);
gboolean    ctr_window_export_profile (CtrWindow      *self,
                                       const char     *path,
                                       GError        **error);
gboolean    ctr_window_export_volume  (CtrWindow      *self,
                                       const char     *path,
                                       GError        **error);
CtrVolume  *ctr_window_get_result     (CtrWindow      *self);
gboolean    ctr_window_export_metrics (CtrWindow      *self,
                                       const char     *path,
                                       GError        **error);
guint       ctr_window_get_n_compare_tiles (CtrWindow *self);
void        ctr_window_zoom_compare   (CtrWindow      *self,
                                       double          zoom,
                                       double          pan_x,
                                       double          pan_y);
double      ctr_window_get_compare_zoom (CtrWindow    *self,
                                       guint           i);

G_END_DECLS
