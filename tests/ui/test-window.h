/* test-window.h — what the window tests share: waiting on the main loop,
 * finding widgets, answering file choosers, screenshots, and one line per
 * check.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "ctr-window.h"

G_BEGIN_DECLS

/* One line per check, "ok   …" or "FAIL …"; a failed check fails the test
 * case (g_test_fail) and the run goes on, so every check is reported. */
#define CHECK(cond, ...) ui_check ((cond), #cond, __VA_ARGS__)
void        ui_check            (gboolean     ok,
                                 const char  *expr,
                                 const char  *format,
                                 ...) G_GNUC_PRINTF (3, 4);
/* A line of information under the checks. */
void        ui_note             (const char  *format,
                                 ...) G_GNUC_PRINTF (1, 2);

/* The folder of screenshots and exports ($CTR_UI_OUT), and a path in it. */
const char *ui_out_dir          (void);
char       *ui_out_path         (const char  *name);

/* Iterates the main loop until @cond (@data) holds; fails the test after
 * @timeout_s seconds, naming @what. */
void        ui_wait             (gboolean   (*cond) (gpointer data),
                                 gpointer     data,
                                 double       timeout_s,
                                 const char  *what);
/* Iterates the main loop for @ms milliseconds. */
void        ui_spin             (guint        ms);
/* Waits until the window's session is neither loading nor running. */
void        ui_wait_idle        (CtrWindow   *window,
                                 double       timeout_s,
                                 const char  *what);

/* A new window of the test application, shown; the caller owns a reference
 * and ends with ui_close_window(). */
CtrWindow  *ui_new_window       (void);
/* Destroys @window and asserts it is finalized with the last reference. */
void        ui_close_window     (CtrWindow   *window);
/* Opens @path and waits until the session has loaded it. */
gboolean    ui_open_and_wait    (CtrWindow   *window,
                                 const char  *path,
                                 double       timeout_s);

/* Sets @method (with its defaults) and, when @param is given, @param =
 * @value on the Run page's method panel, reconstructs and waits for the
 * end (up to 240 s).  Returns: (transfer none) (nullable): the newest
 * result. */
CtrRun     *ui_run_method       (CtrWindow   *window,
                                 CtrMethod    method,
                                 const char  *param,
                                 double       value);

/* Whether the Run page's slice toolbar says what its main view shows: the
 * plane drop-down, the Slice field's value and its upper bound are the
 * plane, index and count of the view's read-out ("Axial 4 / 6 · …");
 * *@said (nullable): both, for the check's line (g_free). */
gboolean    ui_slice_field_agrees (CtrWindow  *window,
                                   char      **said);

/* A template child of @widget as its class @type declared it. */
gpointer    ui_child            (gpointer     widget,
                                 GType        type,
                                 const char  *name);
/* The first descendant of @root of @type (and, when @name is given, named
 * so: gtk_widget_get_name), depth first; NULL when none. */
GtkWidget  *ui_find             (GtkWidget   *root,
                                 GType        type,
                                 const char  *name);
/* Every descendant of @root of @type, depth first (transfer container). */
GPtrArray  *ui_find_all         (GtkWidget   *root,
                                 GType        type);
/* A visible toplevel of @type transient for @parent (NULL: any), waiting up
 * to @timeout_s for it to appear. */
GtkWidget  *ui_wait_toplevel    (GtkWindow   *parent,
                                 GType        type,
                                 double       timeout_s);
/* Whether action @name of @window is enabled, read from the header button
 * bound to it (template child @button of CtrWindow). */
gboolean    ui_button_enabled   (CtrWindow   *window,
                                 const char  *button);

/* Activates @action of @window, answers the file chooser it opens with
 * @path (SAVE: a file; SELECT_FOLDER: an existing folder), and waits until
 * @path exists.  FALSE when no chooser appeared or nothing was written. */
gboolean    ui_export           (CtrWindow   *window,
                                 const char  *action,
                                 const char  *path);

/* As ui_export(), with @action activated on @widget (a page's own action
 * group) and done once @written exists (a file the export writes into the
 * folder @path, for a folder chooser). */
gboolean    ui_export_from      (GtkWidget   *widget,
                                 CtrWindow   *window,
                                 const char  *action,
                                 const char  *path,
                                 const char  *written);

/* CPU time (user + system) of the calling thread so far, µs
 * (getrusage RUSAGE_THREAD; 0 where it fails). */
gint64      ui_thread_cpu_us    (void);

/* Whether a toast is shown (AdwToastOverlay's message). */
gboolean    ui_has_toast        (gpointer     window);

/* Closes the toasts of a window (as a user would), lets a few frames be
 * drawn, then saves @widget as PNG @name in the output
 * folder; one check. */
void        ui_screenshot       (GtkWidget   *widget,
                                 const char  *name);

/* tests/ui/test-window-dicom.c */
/* tests/ui/test-window-cuda.c */
void        test_window_volume_cuda (void);

void        test_window_dicom    (void);
void        test_window_dicom_xa (void);

/* tests/ui/test-window-study.c */
void        test_window_study        (void);
void        test_window_no_reference (void);
void        test_window_open_tiff    (void);
void        test_window_hig          (void);

/* tests/ui/test-window-helical.c */
void        test_window_helical      (void);

/* tests/ui/test-window-grid.c */
void        test_window_default_grid (void);

/* tests/ui/test-window-runs.c */
void        test_window_variants     (void);

/* tests/ui/test-window-compare.c: Compare with chosen runs and difference
 * (part of /ui/window/study; at least four results, with a reference). */
void        ui_study_compare         (CtrWindow *window);

/* tests/ui/test-window-roi.c */
void        test_window_roi          (void);

/* tests/ui/test-window-store.c */
void        test_window_runs_many    (void);
void        test_window_metric       (void);

/* tests/ui/test-window-dose.c */
void        test_window_dose         (void);
void        test_window_dose_estimate (void);

/* tests/ui/test-window-small.c */
void        test_window_default_method     (void);
void        test_window_fit_methods        (void);
void        test_window_failed_run         (void);
void        test_window_open_unsupported   (void);
void        test_window_recent_underscore  (void);
void        test_window_dicom_window       (void);
void        test_window_tiff_summary       (void);

/* tests/ui/test-window-session.c */
void        test_window_session            (void);
void        test_window_session_close      (void);

/* tests/ui/test-window-volume.c */
void        test_window_volume_run         (void);
void        test_window_volume_window      (void);
void        test_window_plane_memory       (void);

/* tests/ui/test-window-study-rois.c */
void        test_window_study_drawn_rois   (void);

/* tests/ui/test-window-study-runs.c */
void        test_window_study_images       (void);
void        test_window_study_session      (void);

/* tests/ui/test-window-memory.c (a measurement: CTR_UI_MEMORY=1) */
void        test_window_memory             (void);

/* tests/ui/test-window-iq.c */
void        test_window_iq                 (void);
void        test_window_study_detectability (void);

/* tests/ui/test-window-fit.c */
void        test_window_fit_1280           (void);
void        test_window_keys               (void);
void        test_window_prefs_build_tree   (void);

/* tests/ui/test-window-projections.c */
void        test_window_projections        (void);
/* tests/ui/test-window-calibrate.c */
void        test_window_calibrate          (void);

/* tests/ui/test-window-pipeline.c */
void        test_window_pipeline           (void);
void        test_window_tilt_apply         (void);
void        test_window_geometry_tilt      (void);

G_END_DECLS
