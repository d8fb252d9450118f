/* test-window.c — the real window, driven through its actions and its
 * session under Xvfb (tests/ui/run-ui-test.sh), every step asserted on the
 * widgets and the session, with screenshots.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Nothing is mocked: reconstructions run in the session's worker threads
 * as with a user at the keyboard; exports go through the window's actions
 * and their file choosers (GtkFileChooserNative falls back to a
 * GtkFileChooserDialog without a portal, which the test answers).  Each
 * test case opens its own window and ends with g_assert_finalize_object.
 *
 * Environment (run-ui-test.sh sets it; a case whose input is missing skips):
 *   CTR_UI_OUT      folder for screenshots and exported files
 *   CTR_UI_DATASET  a fan-beam geometry.json with a reference (gel-fan, or
 *                   a simulated scan)
 *   CTR_UI_CONE     head-cone-small's geometry.json
 *   CTR_UI_BIG      head-fan-lowdose's geometry.json (720 views)
 *   CTR_UI_DICOM_MIXED, CTR_UI_DICOM_XA  see test-window-dicom.c
 *   CTR_UI_SAVU, CTR_UI_GEL  savu-parallel-tiff's and gel-fan's geometry.json
 *                   (test-window-calibrate.c)
 * Cases:
 *   /ui/window/run             SIRT, 8 iterations: ui-screenshot.png
 *   /ui/window/scenario        geometry page, invalid values, geometry saved
 *                              and loaded back, method rows, a run cancelled,
 *                              a second run, FBP, exports, preferences,
 *                              shortcuts, profile, comparison: ui-geometry.png,
 *                              ui-geometry-invalid.png, ui-import-geometry.png, ui-reconstruct.png,
 *                              ui-profile.png, ui-compare.png
 *   /ui/window/volume          FDK of a cone-beam scan, coronal plane:
 *                              ui-volume-coronal.png
 *   /ui/window/plane-memory    a plane that does not fit in memory: said in
 *                              its view, no abort (test-window-volume.c):
 *                              ui-plane-memory.png
 *   /ui/window/volume-run, /ui/window/volume-window  three views, one
 *                              window/level, live and cancelled volume runs
 *                              (test-window-volume.c): ui-three-views.png
 *   /ui/window/volume-cuda     a cone volume run on a CUDA device, live
 *                              view, CPU = device (test-window-cuda.c;
 *                              run by tests/gpu-emu on the emulated
 *                              device): ui-volume-cuda.png
 *   /ui/window/dicom, /ui/window/dicom-xa  (test-window-dicom.c)
 *   /ui/window/roi             ROIs, CNR, ruler, water calibration
 *                              (test-window-roi.c): ui-roi.png
 *   /ui/window/dose            the Dose study page (test-window-dose.c)
 *   /ui/window/responsiveness  parallel ART of a 720-view scan while a 10 ms
 *                              timeout measures the main loop; prints the
 *                              largest gap (run-ui-test.sh judges it):
 *                              ui-responsiveness.png
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-application.h"
#include "ctr-compare-page.h"
#include "ctr-geometry-panel.h"
#include "ctr-metrics-plot.h"
#include "ctr-profile-page.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"
#include "ctr-study-page.h"
#include "ctr-widget-png.h"

static CtrApplication *app;

/* ---- reporting ------------------------------------------------------------ */

void
ui_check (gboolean ok, const char *expr, const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  /* stdio, not g_print: the text is UTF-8 whatever the locale */
  printf ("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : "   — failed: ", ok ? "" : expr);
  fflush (stdout);
  if (!ok)
    g_test_fail ();
}

void
ui_note (const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  printf ("     %s\n", what);
  fflush (stdout);
}

const char *
ui_out_dir (void)
{
  const char *dir = g_getenv ("CTR_UI_OUT");
  return dir != NULL ? dir : g_get_tmp_dir ();
}

char *
ui_out_path (const char *name)
{
  return g_build_filename (ui_out_dir (), name, NULL);
}

/* ---- the main loop ----------------------------------------------------------- */

static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
ui_wait (gboolean (*cond) (gpointer data), gpointer data, double timeout_s, const char *what)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  guint id = g_timeout_add (10, wake, NULL);

  while (!cond (data))
    {
      if (g_get_monotonic_time () > end)
        {
          g_source_remove (id);
          g_error ("timed out after %.0f s waiting for %s", timeout_s, what);
        }
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
}

static gboolean
time_passed (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

void
ui_spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  ui_wait (time_passed, &end, ms / 1000.0 + 5, "time to pass");
}

static gboolean
session_idle (gpointer data)
{
  return !ctr_session_get_busy (ctr_window_get_session (data));
}

void
ui_wait_idle (CtrWindow *window, double timeout_s, const char *what)
{
  ui_wait (session_idle, window, timeout_s, what);
}

/* ---- windows ---------------------------------------------------------------- */

CtrWindow *
ui_new_window (void)
{
  CtrWindow *window = g_object_ref (ctr_window_new (GTK_APPLICATION (app)));
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static gboolean
only_our_reference (gpointer data)
{
  return G_OBJECT (data)->ref_count == 1;
}

void
ui_close_window (CtrWindow *window)
{
  /* jobs and toasts hold the window until they end */
  ui_wait_idle (window, 60, "the window's jobs");
  gtk_window_destroy (GTK_WINDOW (window));
  ui_wait (only_our_reference, window, 30, "the window to be released");
  g_assert_finalize_object (window);
}

static void wait_frames (GtkWidget *widget, guint n);

static gboolean
dose_known (gpointer data)
{
  return !ctr_study_page_get_estimating (ui_child (data, CTR_TYPE_WINDOW, "study_page"));
}

/* As a user would, the next step comes once the loaded dataset is on
 * screen (two frames later), not inside the frame that lays it out, and
 * its dose is known (the Dose Study page estimates it in a thread when the
 * data state none). */
gboolean
ui_open_and_wait (CtrWindow *window, const char *path, double timeout_s)
{
  CtrSession *session = ctr_window_get_session (window);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  CtrDataset *before = ctr_session_get_dataset (session);

  ctr_window_open (window, file);
  ui_wait_idle (window, timeout_s, "the dataset");
  ui_wait (dose_known, window, timeout_s, "the dataset's dose estimate");
  wait_frames (GTK_WIDGET (window), 2);
  return ctr_session_get_dataset (session) != NULL && ctr_session_get_dataset (session) != before;
}

/* ---- widgets ---------------------------------------------------------------- */

gpointer
ui_child (gpointer widget, GType type, const char *name)
{
  GObject *child = gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);
  g_assert_nonnull (child);
  return child;
}

static void
find_all (GtkWidget *root, GType type, const char *name, GPtrArray *out, gboolean first_only)
{
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      if (first_only && out->len > 0)
        return;
      if (G_TYPE_CHECK_INSTANCE_TYPE (c, type) && (name == NULL || g_strcmp0 (gtk_widget_get_name (c), name) == 0))
        g_ptr_array_add (out, c);
      find_all (c, type, name, out, first_only);
    }
}

GtkWidget *
ui_find (GtkWidget *root, GType type, const char *name)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();
  find_all (root, type, name, found, TRUE);
  return found->len > 0 ? found->pdata[0] : NULL;
}

GPtrArray *
ui_find_all (GtkWidget *root, GType type)
{
  GPtrArray *found = g_ptr_array_new ();
  find_all (root, type, NULL, found, FALSE);
  return found;
}

typedef struct {
  GtkWindow *parent;
  GType      type;
  GtkWidget *found;
} ToplevelQuery;

static gboolean
toplevel_shown (gpointer data)
{
  ToplevelQuery *q = data;
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels) && q->found == NULL; i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);
      if (G_TYPE_CHECK_INSTANCE_TYPE (w, q->type) && gtk_widget_get_visible (GTK_WIDGET (w)) &&
          (q->parent == NULL || gtk_window_get_transient_for (w) == q->parent))
        q->found = GTK_WIDGET (w);
    }
  return q->found != NULL;
}

static gboolean
toplevel_or_timeout (gpointer data)
{
  gpointer *args = data;
  return toplevel_shown (args[0]) || time_passed (args[1]);
}

GtkWidget *
ui_wait_toplevel (GtkWindow *parent, GType type, double timeout_s)
{
  ToplevelQuery q = { parent, type, NULL };
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  gpointer args[2] = { &q, &end };

  ui_wait (toplevel_or_timeout, args, timeout_s + 5, "a dialog");
  return q.found;
}

gboolean
ui_button_enabled (CtrWindow *window, const char *button)
{
  return gtk_widget_get_sensitive (ui_child (window, CTR_TYPE_WINDOW, button));
}

/* ---- file choosers ------------------------------------------------------------- */

typedef struct {
  GtkFileChooser *chooser;
  GFile          *want;
} ChooserFile;

static gboolean
chooser_has_file (gpointer data)
{
  ChooserFile *c = data;
  g_autoptr(GFile) file = gtk_file_chooser_get_file (c->chooser);
  return file != NULL && g_file_equal (file, c->want);
}

static gboolean
path_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

gboolean
ui_export (CtrWindow *window, const char *action, const char *path)
{
  return ui_export_from (GTK_WIDGET (window), window, action, path, path);
}

gboolean
ui_export_from (GtkWidget *widget, CtrWindow *window, const char *action, const char *path, const char *written)
{
  GtkWidget *dialog;
  GtkFileChooser *chooser;
  g_autoptr(GFile) file = g_file_new_for_path (path);

  if (!gtk_widget_activate_action (widget, action, NULL))
    return FALSE;
  dialog = ui_wait_toplevel (GTK_WINDOW (window), GTK_TYPE_FILE_CHOOSER_DIALOG, 10);
  if (dialog == NULL)
    return FALSE;
  chooser = GTK_FILE_CHOOSER (dialog);
  {
    /* the chooser lists the folder asynchronously and may reset the name
     * or the selection meanwhile: ask again until it shows @path */
    ChooserFile c = { chooser, file };
    gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
    while (!chooser_has_file (&c))
      {
        if (g_get_monotonic_time () > end)
          return FALSE;
        if (gtk_file_chooser_get_action (chooser) == GTK_FILE_CHOOSER_ACTION_SAVE)
          {
            g_autoptr(GFile) dir = g_file_get_parent (file);
            g_autofree char *name = g_file_get_basename (file);
            gtk_file_chooser_set_current_folder (chooser, dir, NULL);
            gtk_file_chooser_set_current_name (chooser, name);
          }
        else
          gtk_file_chooser_set_file (chooser, file, NULL);
        ui_spin (200);
      }
  }
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  ui_wait (path_exists, (gpointer) written, 30, written);
  return TRUE;
}

/* ---- screenshots ------------------------------------------------------------ */

typedef struct {
  guint frames;
  guint wanted;
} Frames;

static gboolean
count_frame (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  ((Frames *) data)->frames++;
  return G_SOURCE_CONTINUE;
}

static gboolean
frames_drawn (gpointer data)
{
  Frames *f = data;
  return f->frames >= f->wanted;
}

static void
wait_frames (GtkWidget *widget, guint n)
{
  Frames f = { 0, n };
  guint id;

  gtk_widget_queue_draw (widget);
  id = gtk_widget_add_tick_callback (widget, count_frame, &f, NULL);
  ui_wait (frames_drawn, &f, 30, "frames to be drawn");
  gtk_widget_remove_tick_callback (widget, id);
}

gboolean
ui_has_toast (gpointer window)
{
  GType toast_type = g_type_from_name ("AdwToastWidget");
  return toast_type != 0 && ui_find (window, toast_type, NULL) != NULL;
}

/* Closes the toasts shown or queued (their close button, as a user would),
 * so a screenshot shows the page, not the last export's message. */
static void
dismiss_toasts (GtkWidget *window)
{
  GType toast_type = g_type_from_name ("AdwToastWidget");

  for (guint round = 0; round < 20 && toast_type != 0; round++)
    {
      GtkWidget *widget = ui_find (window, toast_type, NULL);
      g_autoptr(AdwToast) toast = NULL;

      if (widget == NULL)
        return;
      ui_spin (400);   /* let it finish sliding in: libadwaita 1.2 crashes on a dismissal mid-animation */
      /* meanwhile it may have timed out and gone: look again */
      widget = ui_find (window, toast_type, NULL);
      if (widget == NULL)
        return;
      g_object_get (widget, "toast", &toast, NULL);
      if (toast != NULL)
        adw_toast_dismiss (toast);   /* what its close button does */
      ui_spin (600);                 /* it slides out, the next one in */
    }
}

void
ui_screenshot (GtkWidget *widget, const char *name)
{
  g_autofree char *path = ui_out_path (name);
  g_autoptr(GError) error = NULL;

  g_unlink (path);
  if (CTR_IS_WINDOW (widget))
    dismiss_toasts (widget);
  wait_frames (widget, 4);
  CHECK (ctr_widget_save_png (widget, path, &error), "screenshot %s%s%s", path, error ? ": " : "",
         error ? error->message : "");
}

/* ---- helpers of the cases ------------------------------------------------------- */

static CtrRunPage *
run_page (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

static CtrMethodPanel *
method_panel (CtrWindow *w)
{
  return ctr_run_page_get_method_panel (run_page (w));
}

static void
show_page (CtrWindow *w, const char *name)
{
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), name);
}

static guint
n_results (CtrWindow *w)
{
  return g_list_model_get_n_items (ctr_session_get_results (ctr_window_get_session (w)));
}

static CtrRun *
run_at (CtrWindow *w, guint i)
{
  GListModel *runs = ctr_session_get_runs (ctr_window_get_session (w));
  g_autoptr(CtrRun) run = i < g_list_model_get_n_items (runs) ? g_list_model_get_item (runs, i) : NULL;
  return run;   /* the session keeps it */
}

static gboolean
row_visible (CtrWindow *w, const char *name)
{
  GtkWidget *row = ui_find (GTK_WIDGET (method_panel (w)), GTK_TYPE_WIDGET, name);
  g_assert_nonnull (row);
  return gtk_widget_get_visible (row);
}

static const char *
dataset_path (void)
{
  const char *path = g_getenv ("CTR_UI_DATASET");
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return NULL;
  return path;
}

static double
elapsed_s (gint64 t0)
{
  return (g_get_monotonic_time () - t0) / 1e6;
}

gboolean
ui_slice_field_agrees (CtrWindow *w, char **said)
{
  static const char *names[] = { "Axial", "Coronal", "Sagittal" };
  CtrRunPage *page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  CtrSliceView *main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page), CTR_TYPE_SLICE_VIEW, NULL));
  GtkAdjustment *adj = ui_child (page, CTR_TYPE_RUN_PAGE, "slice_adjustment");
  guint plane = gtk_drop_down_get_selected (ui_child (page, CTR_TYPE_RUN_PAGE, "orientation_dropdown"));
  g_autofree char *shown = ctr_slice_view_describe_slice (main);
  g_autofree char *field = g_strdup_printf ("%s %u / %u · ", plane < 3 ? names[plane] : "?",
                                            (guint) gtk_adjustment_get_value (adj),
                                            (guint) gtk_adjustment_get_upper (adj));

  if (said != NULL)
    *said = g_strdup_printf ("view “%s”, toolbar “%s”", shown ? shown : "(no volume)", field);
  return shown != NULL && g_str_has_prefix (shown, field);
}

CtrRun *
ui_run_method (CtrWindow *w, CtrMethod method, const char *param, double value)
{
  CtrMethodPanel *mp = ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page"));

  ctr_method_panel_set_method (mp, method);
  if (param != NULL)
    ctr_method_panel_set_param (mp, param, value, NULL);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 240, "a run");
  return ctr_session_get_latest_result (ctr_window_get_session (w));
}

/* Reconstructs with the method panel as it is and waits for the end. */
static CtrRun *
reconstruct_and_wait (CtrWindow *w, double timeout_s)
{
  guint n = g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w)));

  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, timeout_s, "the run");
  return run_at (w, n);
}

/* ---- /ui/window/run: the first run ------------------------------------------ */

static void
test_run (void)
{
  const char *dataset = dataset_path ();
  CtrWindow *w;
  CtrRun *run;

  if (dataset == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  ui_note ("dataset: %s", dataset);
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  ctr_method_panel_set_method (method_panel (w), CTR_METHOD_SIRT);
  ctr_method_panel_set_param (method_panel (w), "iterations", 8, NULL);
  run = reconstruct_and_wait (w, 240);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "SIRT with 8 iterations finished: %s",
         ctr_session_get_status (ctr_window_get_session (w)));
  ui_screenshot (GTK_WIDGET (w), "ui-screenshot.png");
  ui_close_window (w);
}

/* ---- /ui/window/scenario ---------------------------------------------------- */

static gboolean first_report_cancelled;
/* Iterations the cancelled run kept (its metrics CSV must have as many). */
static guint cancelled_iterations;
/* The SIRT run the scenario cancels after its first report. */
#define CANCELLED_RUN_ITERATIONS 1000u

/* Cancels (Escape's action) as soon as the first iteration is shown. */
static void
cancel_after_first (CtrSession *session, GParamSpec *pspec, CtrWindow *w)
{
  const CtrIterStats *stats = ctr_session_get_latest_stats (session);

  if (stats != NULL && stats->iteration >= 1 && !first_report_cancelled)
    {
      first_report_cancelled = TRUE;
      gtk_widget_activate_action (GTK_WIDGET (w), "win.cancel-reconstruction", NULL);
    }
}

/* Import… (issue 17): the file's geometry written as an ASTRA fanflat_vec
 * proj_geom with the detector shifted 2 mm along u, imported on the
 * geometry page: valid, per-view vectors kept, the sketch drawn
 * (ui-import-geometry.png); an RTK file that does not fit the data refused;
 * then the file's geometry and grid again. */
static void
scenario_import_geometry (CtrWindow *w, CtrGeometryPanel *gp)
{
  CtrDataset *d = ctr_session_get_dataset (ctr_window_get_session (w));
  g_autoptr (CtrGeometry) keep = ctr_geometry_copy (ctr_geometry_panel_get_geometry (gp));
  CtrGrid grid;
  const gboolean have_grid = ctr_geometry_panel_get_grid (gp, &grid);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) v = ctr_geometry_to_vectors (keep, &error);
  if (v == NULL || d == NULL || keep->beam != CTR_BEAM_FAN)
    {
      ui_note ("Import… not checked: %s", error ? error->message : "not a flat fan-beam dataset");
      return;
    }
  GString *json = g_string_new (NULL);
  g_string_append_printf (json, "{\"type\": \"fanflat_vec\", \"DetectorCount\": %u, \"Vectors\": [", v->n_cols);
  for (guint k = 0; k < v->n_views; k++)
    {
      const double *x = v->vectors + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      const double n = hypot (x[6], x[7]);
      g_string_append_printf (json, "%s[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", k ? ", " : "", x[0], x[1],
                              x[3] + 2.0 * x[6] / n, x[4] + 2.0 * x[7] / n, x[6], x[7]);
    }
  g_string_append (json, "]}\n");
  g_autofree char *astra = ui_out_path ("astra-proj-geom.json");
  g_autofree char *rtk = ui_out_path ("rtk-geometry.xml");
  g_autofree char *text = g_string_free (json, FALSE);
  CHECK (g_file_set_contents (astra, text, -1, NULL), "ASTRA proj_geom written to %s", astra);

  show_page (w, "geometry");
  const gboolean ok = ctr_geometry_panel_import (gp, astra, &error);
  CHECK (ok, "Import… reads the ASTRA fanflat_vec geometry%s%s", error ? ": " : "", error ? error->message : "");
  g_clear_error (&error);
  const CtrGeometry *now = ctr_geometry_panel_get_geometry (gp);
  CHECK (ok && now != NULL && ctr_geometry_has_vectors (now) && ctr_geometry_panel_is_valid (gp)
             && ui_button_enabled (w, "reconstruct_button"),
         "the imported per-view vectors are the page's geometry, valid, Reconstruct enabled");
  ui_screenshot (GTK_WIDGET (w), "ui-import-geometry.png");

  const char *xml = "<RTKThreeDCircularGeometry version=\"3\"><SourceToIsocenterDistance>100</SourceToIsocenterDistance>"
                    "<SourceToDetectorDistance>300</SourceToDetectorDistance>"
                    "<Projection><GantryAngle>0</GantryAngle></Projection></RTKThreeDCircularGeometry>";
  CHECK (g_file_set_contents (rtk, xml, -1, NULL), "RTK geometry written");
  const gboolean refused = !ctr_geometry_panel_import (gp, rtk, &error);
  CHECK (refused && error != NULL && strstr (error->message, "projections") != NULL,
         "an RTK geometry of 1 view is refused for %u views: “%s”", keep->n_views, error ? error->message : "");
  g_clear_error (&error);

  ctr_geometry_panel_load (gp, keep, d->projections, have_grid ? &grid : NULL);
  CHECK (ctr_geometry_panel_is_valid (gp) && !ctr_geometry_has_vectors (ctr_geometry_panel_get_geometry (gp)),
         "the file's geometry again");
}

static void
scenario_geometry (CtrWindow *w, CtrGeometryPanel *gp)
{
  /* the geometry page as loaded */
  show_page (w, "geometry");
  CHECK (ctr_geometry_panel_is_valid (gp), "geometry page: the file's geometry is valid");
  CHECK (ui_button_enabled (w, "reconstruct_button"), "Reconstruct is enabled");
  ctr_geometry_panel_set_view (gp, 9);
  ui_screenshot (GTK_WIDGET (w), "ui-geometry.png");

  /* invalid values: refused with the reason beside the field */
  {
    const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);
    g_autofree char *sdd = g_strdup_printf ("%g", g->sod_mm * 0.5);
    g_autofree char *views = g_strdup_printf ("%u", g->n_views);
    const char *reason;

    ctr_geometry_panel_set_text (gp, "views", "7x");
    reason = ctr_geometry_panel_get_reason (gp, "views");
    CHECK (strstr (reason, "not a number") != NULL, "view count “7x” refused: “%s”", reason);
    ctr_geometry_panel_set_text (gp, "views", views);
    CHECK (ctr_geometry_panel_is_valid (gp), "view count %s accepted again", views);

    ctr_geometry_panel_set_text (gp, "sdd", sdd);
    reason = ctr_geometry_panel_get_reason (gp, "sdd");
    CHECK (strstr (reason, "source to isocentre") != NULL, "SDD %s mm (< SOD) refused beside the field: “%s”", sdd,
           reason);
    CHECK (!ctr_geometry_panel_is_valid (gp) && !ui_button_enabled (w, "reconstruct_button"),
           "invalid geometry disables Reconstruct");
    ctr_geometry_panel_set_text (gp, "pixel-size", "-0.5");
    reason = ctr_geometry_panel_get_reason (gp, "pixel-size");
    CHECK (*reason != '\0', "pixel size −0.5 refused: “%s”", reason);
    ui_screenshot (GTK_WIDGET (w), "ui-geometry-invalid.png");
  }

  /* revert, edit the offset, save (win.save-geometry), load back */
  {
    g_autofree char *path = ui_out_path ("geometry-edited.json");
    g_autoptr(GError) error = NULL;
    g_autoptr(CtrDataset) back = NULL;

    ctr_geometry_panel_revert (gp);
    CHECK (ctr_geometry_panel_is_valid (gp) && ui_button_enabled (w, "reconstruct_button"),
           "Revert restores a valid geometry");
    ctr_geometry_panel_set_text (gp, "offset-u", "0.25");
    CHECK (ctr_geometry_panel_is_valid (gp), "offset u 0.25 accepted");
    g_unlink (path);
    CHECK (ui_export (w, "win.save-geometry", path), "geometry saved to %s", path);
    back = ctr_dataset_load (path, NULL, NULL, &error);
    CHECK (back != NULL && back->geometry->offset_u == 0.25 &&
               back->geometry->n_views == ctr_geometry_panel_get_geometry (gp)->n_views && back->projections != NULL,
           "the saved geometry.json loads with its projections and offset u 0.25%s%s", error ? ": " : "",
           error ? error->message : "");
    ctr_geometry_panel_revert (gp);
  }

  scenario_import_geometry (w, gp);
}

static void
scenario_runs (CtrWindow *w)
{
  CtrSession *session = ctr_window_get_session (w);
  CtrMethodPanel *mp = method_panel (w);
  CtrRun *run;
  gint64 t0;

  /* the method panel generated from the parameter table */
  show_page (w, "reconstruct");
  ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
  CHECK (row_visible (w, "window") && !row_visible (w, "iterations"),
         "FBP shows the filter window and hides iterations");
  ctr_method_panel_set_method (mp, CTR_METHOD_PART);
  CHECK (row_visible (w, "matrix") && row_visible (w, "part-step") && !row_visible (w, "window"),
         "parallel ART shows matrix format and step, hides the window");
  {
    /* every method of the table that fits the dataset can be chosen, and
     * is kept as the preference (the schema's choices follow the table);
     * one that does not fit (FDK for fan data) is not offered and gives
     * way to the dataset's own */
    guint n_kept = 0, n_fit = 0;
    const CtrGeometry *g = ctr_session_get_dataset (ctr_window_get_session (w))->geometry;
    g_autoptr(GSettings) settings = NULL;
    GSettingsSchemaSource *src = g_settings_schema_source_get_default ();
    g_autoptr(GSettingsSchema) schema = src ? g_settings_schema_source_lookup (src, "org.ctrecon.CtRecon", TRUE) : NULL;

    if (schema != NULL)
      settings = g_settings_new ("org.ctrecon.CtRecon");
    for (guint m = 0; m < CTR_N_METHODS; m++)
      {
        g_autofree char *kept = NULL;
        gboolean fits = ctr_method_fits_geometry (m, g);
        ctr_method_panel_set_method (mp, m);
        kept = settings ? g_settings_get_string (settings, "default-method") : g_strdup (ctr_method_name (m));
        n_fit += fits;
        n_kept += fits ? g_str_equal (kept, ctr_method_name (m)) : ctr_method_panel_get_method (mp) != m;
      }
    CHECK (n_kept == CTR_N_METHODS, "each of the %u methods that fit can be chosen and is kept as the preference, "
           "the %u others give way (%u of %u right)", n_fit, (guint) CTR_N_METHODS - n_fit, n_kept,
           (guint) CTR_N_METHODS);
  }

  /* a long SIRT run, cancelled after its first iteration */
  ctr_method_panel_set_method (mp, CTR_METHOD_SIRT);
  ctr_method_panel_set_param (mp, "iterations", CANCELLED_RUN_ITERATIONS, NULL);
  first_report_cancelled = FALSE;
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (cancel_after_first), w);
  t0 = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  CHECK (ctr_session_get_busy (session) && !ui_button_enabled (w, "reconstruct_button"),
         "running: Reconstruct disabled while busy");
  ui_wait_idle (w, 240, "the cancelled run");
  g_signal_handlers_disconnect_by_func (session, cancel_after_first, w);
  run = run_at (w, 0);
  ui_note ("first iteration shown, then cancelled (Escape); the run ended after %.2f s", elapsed_s (t0));
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_CANCELLED,
         "first run reports G_IO_ERROR_CANCELLED after %.2f s", elapsed_s (t0));
  /* The worker goes on until the cancel reaches it between iterations: on
   * gel-fan an iteration takes milliseconds, so more may end while the main
   * thread handles the first report (4 seen at stop 24; 4, 18 and 45 at
   * stop 27, whose compact matrix store made an iteration ~4 ms).  The run
   * must stop within its first tenth. */
  cancelled_iterations = run != NULL ? ctr_run_get_n_stats (run) : 0;
  CHECK (cancelled_iterations >= 1 && cancelled_iterations <= CANCELLED_RUN_ITERATIONS / 10,
         "the cancel stopped the %u-iteration run after %u iteration(s)", CANCELLED_RUN_ITERATIONS,
         cancelled_iterations);

  /* after the cancel: idle again, a second run allowed */
  CHECK (!ctr_session_get_busy (session), "not busy after the cancel");
  CHECK (strstr (ctr_session_get_status (session), "ancel") != NULL, "status says “%s”",
         ctr_session_get_status (session));
  CHECK (ui_button_enabled (w, "reconstruct_button"), "Reconstruct enabled again after the cancel");
  CHECK (n_results (w) == 0 && ctr_run_get_result (run) == NULL, "a cancelled run leaves no result");
  ctr_method_panel_set_param (mp, "iterations", 8, NULL);
  t0 = g_get_monotonic_time ();
  run = reconstruct_and_wait (w, 240);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "run 2 finished in %.2f s", elapsed_s (t0));
  CHECK (n_results (w) == 1, "one result after the second run");
  {
    GtkLabel *notes = ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "notes_label");
    CHECK (gtk_widget_get_visible (GTK_WIDGET (notes)) && strstr (gtk_label_get_label (notes), "backend: ") != NULL,
           "the plan's notes are shown: “%s”", gtk_label_get_label (notes));
    /* the memory plan's note, with the reference's share where the
     * dataset has one (issue 36) */
    const gboolean with_ref = ctr_session_get_dataset (session)->reference != NULL;
    CHECK (strstr (gtk_label_get_label (notes), "memory: ") != NULL
               && (strstr (gtk_label_get_label (notes), ", reference and metrics ") != NULL) == with_ref,
           "the notes state the memory estimate%s", with_ref ? " with the reference's share" : "");
  }
  {
    GtkProgressBar *bar = ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "progress_bar");
    CHECK (g_str_has_prefix (ctr_session_get_progress_text (session), "iteration 8 / 8") &&
               g_strcmp0 (gtk_progress_bar_get_text (bar), ctr_session_get_progress_text (session)) == 0,
           "progress reads “%s”", gtk_progress_bar_get_text (bar));
  }

  /* FBP with the Hann window */
  ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
  ctr_method_panel_set_param (mp, "window", CTR_FILTER_HANN, NULL);
  t0 = g_get_monotonic_time ();
  run = reconstruct_and_wait (w, 240);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "run 3 finished in %.2f s", elapsed_s (t0));
  CHECK (n_results (w) == 2, "two results after the FBP run");
  {
    CtrMetricsPlot *plot = ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "metrics_plot");
    CHECK (ctr_metrics_plot_get_n_runs (plot) == 3, "the convergence plot overlays 3 runs (cancelled, SIRT, FBP): %u",
           ctr_metrics_plot_get_n_runs (plot));
  }
}

static void
scenario_exports (CtrWindow *w)
{
  /* metrics CSV (win.export-metrics): rows per run */
  {
    g_autofree char *csv = ui_out_path ("metrics.csv");
    g_autofree char *text = NULL;
    gboolean ok;
    g_auto(GStrv) lines = NULL;
    guint rows[4] = { 0 };

    g_unlink (csv);
    ok = ui_export (w, "win.export-metrics", csv) && g_file_get_contents (csv, &text, NULL, NULL);
    lines = ok ? g_strsplit (text, "\n", -1) : NULL;
    /* the cancelled run has the iterations it kept, SIRT 8, FBP 1 */
    for (guint i = 1; lines && lines[i]; i++)
      if (lines[i][0] != '\0')
        rows[MIN (g_ascii_strtoull (lines[i], NULL, 10), 3)]++;
    CHECK (ok && g_str_has_prefix (text, "run,label,iteration") && rows[1] >= 1 && rows[1] == cancelled_iterations && rows[2] == 8 &&
               rows[3] == 1 && rows[0] == 0,
           "metrics CSV exported: %u rows of the cancelled run, %u of SIRT, %u of FBP", rows[1], rows[2], rows[3]);
  }
  /* the volume TIFF (win.export-volume) reads back bit for bit */
  {
    g_autofree char *tif = ui_out_path ("reconstruction.tif");
    g_autoptr(GError) error = NULL;
    CtrVolume *v = ctr_run_get_result (ctr_session_get_latest_result (ctr_window_get_session (w)));
    CtrTiffInfo info;
    g_autofree float *back = NULL;
    gboolean ok;

    g_unlink (tif);
    ok = ui_export (w, "win.export-volume", tif) && (back = ctr_tiff_read (tif, &info, &error)) != NULL;
    CHECK (ok && info.width == v->grid.nx && info.height == v->grid.ny && info.pages == v->grid.nz &&
               memcmp (back, v->data, ctr_grid_size (&v->grid) * sizeof (float)) == 0,
           "volume TIFF exported and read back identical%s%s", error ? ": " : "", error ? error->message : "");
  }
  /* preferences: the last method used is the next window's default */
  {
    GSettingsSchemaSource *src = g_settings_schema_source_get_default ();
    g_autoptr(GSettingsSchema) schema = src ? g_settings_schema_source_lookup (src, "org.ctrecon.CtRecon", TRUE) : NULL;
    if (schema != NULL)
      {
        g_autoptr(GSettings) settings = g_settings_new ("org.ctrecon.CtRecon");
        g_autofree char *m = g_settings_get_string (settings, "default-method");
        CHECK (g_str_equal (m, "fbp") && g_settings_get_uint (settings, "iterations") == 8,
               "GSettings keep method “%s” and %u iterations", m, g_settings_get_uint (settings, "iterations"));
      }
    else
      ui_note ("skip GSettings check: schema org.ctrecon.CtRecon not found");
  }
  {
    g_auto(GStrv) run = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.reconstruct");
    g_auto(GStrv) cancel = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.cancel-reconstruction");
    CHECK (run[0] && g_str_equal (run[0], "<Control>r") && cancel[0] && g_str_equal (cancel[0], "Escape"),
           "shortcuts: Reconstruct %s, Cancel %s", run[0] ? run[0] : "none", cancel[0] ? cancel[0] : "none");
  }
  ui_screenshot (GTK_WIDGET (w), "ui-reconstruct.png");

  /* the PNG of the visible page (win.export-png), now that it is drawn */
  {
    g_autofree char *png = ui_out_path ("view.png");
    g_autoptr(GError) error = NULL;
    g_autoptr(GdkTexture) t = NULL;

    g_unlink (png);
    if (ui_export (w, "win.export-png", png))
      t = gdk_texture_new_from_filename (png, &error);
    CHECK (t != NULL && gdk_texture_get_width (t) > 400, "PNG of the view exported (%d × %d)%s%s",
           t ? gdk_texture_get_width (t) : 0, t ? gdk_texture_get_height (t) : 0, error ? ": " : "",
           error ? error->message : "");
  }
}

static void
scenario_profile_compare (CtrWindow *w)
{
  CtrProfilePage *profile = ui_child (w, CTR_TYPE_WINDOW, "profile_page");
  CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");

  /* a line profile across both results and the reference */
  {
    g_autofree char *csv = ui_out_path ("profile.csv");
    g_autofree char *text = NULL;
    guint expected = n_results (w) + 1;
    double seg[4] = { -30, -20, 35, 25 };

    show_page (w, "profile");
    ctr_slice_view_set_segment (ui_child (profile, CTR_TYPE_PROFILE_PAGE, "profile_view"), seg);
    CHECK (ctr_profile_page_get_n_curves (profile) >= expected - 1,
           "profile plot holds %u curves (2 runs + reference when the dataset has one)",
           ctr_profile_page_get_n_curves (profile));
    g_unlink (csv);
    if (ui_export (w, "win.export-profile", csv) && g_file_get_contents (csv, &text, NULL, NULL))
      {
        g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
        g_auto(GStrv) header = g_strsplit (lines[0], ",", -1);
        guint n = g_strv_length (lines);
        CHECK (n >= 513 && g_strv_length (header) == ctr_profile_page_get_n_curves (profile) + 1,
               "profile CSV: %u lines, %u columns", n, g_strv_length (header));
      }
    else
      CHECK (FALSE, "profile CSV exported to %s", csv);
    ui_screenshot (GTK_WIDGET (w), "ui-profile.png");
  }

  /* comparison: tiles, linked zoom */
  {
    GtkWidget *grid = ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid");
    g_autoptr(GPtrArray) tiles = NULL;
    double z1 = 0, zn = 0, px, py;

    show_page (w, "compare");
    tiles = ui_find_all (grid, CTR_TYPE_SLICE_VIEW);
    CHECK (ctr_compare_page_get_n_tiles (compare) >= 3 && tiles->len == ctr_compare_page_get_n_tiles (compare),
           "comparison shows %u tiles (2 runs, reference or not, and a difference)",
           ctr_compare_page_get_n_tiles (compare));
    if (tiles->len >= 2)
      {
        /* zoom the first tile as a user would (the scroll handler's signal) */
        ctr_slice_view_set_zoom_pan (tiles->pdata[0], 1.6, 0.05, -0.02);
        g_signal_emit_by_name (tiles->pdata[0], "view-changed");
        ctr_slice_view_get_zoom_pan (tiles->pdata[1], &z1, &px, &py);
        ctr_slice_view_get_zoom_pan (tiles->pdata[tiles->len - 1], &zn, &px, &py);
      }
    CHECK (fabs (z1 - 1.6) < 1e-9 && fabs (zn - 1.6) < 1e-9, "zoom on the first tile is followed by the others");
    ui_screenshot (GTK_WIDGET (w), "ui-compare.png");
  }
}

static void
test_scenario (void)
{
  const char *dataset = dataset_path ();
  CtrWindow *w;

  if (dataset == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  ui_note ("dataset: %s", dataset);
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  if (ctr_session_get_dataset (ctr_window_get_session (w)) != NULL)
    {
      scenario_geometry (w, ui_child (w, CTR_TYPE_WINDOW, "geometry_panel"));
      scenario_runs (w);
      scenario_exports (w);
      scenario_profile_compare (w);
    }
  ui_close_window (w);
}

/* ---- /ui/window/volume ------------------------------------------------------- */

static void
test_volume (void)
{
  const char *cone = g_getenv ("CTR_UI_CONE");
  CtrWindow *w;
  CtrRun *run;

  if (cone == NULL || !g_file_test (cone, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  w = ui_new_window ();
  gtk_drop_down_set_selected (ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "orientation_dropdown"),
                              CTR_SLICE_CORONAL);
  ctr_method_panel_set_method (method_panel (w), CTR_METHOD_PART);
  CHECK (ui_open_and_wait (w, cone, 120), "the cone-beam dataset loaded");
  {
    GtkWidget *matrix = ui_find (GTK_WIDGET (method_panel (w)), ADW_TYPE_COMBO_ROW, "matrix");
    CHECK (ctr_method_panel_get_method (method_panel (w)) == CTR_METHOD_FDK &&
               (matrix == NULL || !gtk_widget_get_visible (matrix)),
           "a cone-beam dataset turns parallel ART (fan and parallel beam only) into FDK; no matrix row");
  }
  ctr_method_panel_set_method (method_panel (w), CTR_METHOD_FDK);
  run = reconstruct_and_wait (w, 240);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED && ctr_run_get_result (run)->grid.nz > 1,
         "FDK reconstructed a volume: %s", ctr_session_get_status (ctr_window_get_session (w)));
  {
    const CtrVolume *ref = ctr_session_get_dataset (ctr_window_get_session (w))->reference;
    const CtrGrid *g = run ? &ctr_run_get_result (run)->grid : NULL;
    CHECK (ref != NULL && g != NULL && g->nx == ref->grid.nx && g->nz == ref->grid.nz &&
               fabs (g->dx - ref->grid.dx) < 1e-9 && fabs (g->dz - ref->grid.dz) < 1e-9,
           "FDK ran on the reference's voxels: %u × %u × %u of %.4g × %.4g mm", g ? g->nx : 0, g ? g->ny : 0,
           g ? g->nz : 0, g ? g->dx : 0, g ? g->dz : 0);
  }
  ui_screenshot (GTK_WIDGET (w), "ui-volume-coronal.png");
  ui_close_window (w);
}

/* ---- /ui/window/responsiveness --------------------------------------------------- */

/* Every 10 ms while a reconstruction runs: the time since the previous
 * dispatch (wall clock), and how much of it the main thread itself spent
 * on the CPU (getrusage RUSAGE_THREAD) — a long gap with little main-thread
 * CPU means the process was waiting for a CPU, not blocked by its own work.
 * Frame phases show where the longest frame went. */
typedef struct {
  CtrSession *session;
  gint64      last_us;
  gint64      cpu_us;
  gint64      max_gap_us;
  gint64      max_gap_cpu_us;
  gint64      max_cpu_us;
  char       *max_cpu_when;     /* the progress text when it happened */
  guint       ticks;
  gint64      frame_t[4];       /* before-paint, layout, paint, after-paint */
  gint64      frame_worst[4];
} Probe;

gint64
ui_thread_cpu_us (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_THREAD, &ru) != 0)
    return 0;
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_USEC_PER_SEC + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static gboolean
probe_tick (gpointer data)
{
  Probe *p = data;
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = ui_thread_cpu_us ();

  if (ctr_session_get_running (p->session))
    {
      if (p->last_us > 0)
        {
          gint64 gap = now - p->last_us;
          if (gap > p->max_gap_us)
            {
              p->max_gap_us = gap;
              p->max_gap_cpu_us = cpu - p->cpu_us;
            }
          if (cpu - p->cpu_us > p->max_cpu_us)
            {
              p->max_cpu_us = cpu - p->cpu_us;
              g_free (p->max_cpu_when);
              p->max_cpu_when = g_strdup (ctr_session_get_progress_text (p->session));
            }
          p->ticks++;
        }
      p->last_us = now;
    }
  else
    p->last_us = 0;
  p->cpu_us = cpu;
  return G_SOURCE_CONTINUE;
}

static void
frame_phase (Probe *p, int phase)
{
  p->frame_t[phase] = g_get_monotonic_time ();
  if (phase == 3 && ctr_session_get_running (p->session) && p->frame_t[0] > 0 &&
      p->frame_t[3] - p->frame_t[0] > p->frame_worst[3] - p->frame_worst[0])
    memcpy (p->frame_worst, p->frame_t, sizeof p->frame_t);
}
static void on_before_paint (GdkFrameClock *c, Probe *p) { frame_phase (p, 0); }
static void on_layout (GdkFrameClock *c, Probe *p) { frame_phase (p, 1); }
static void on_paint (GdkFrameClock *c, Probe *p) { frame_phase (p, 2); }
static void on_after_paint (GdkFrameClock *c, Probe *p) { frame_phase (p, 3); }

static void
test_responsiveness (void)
{
  const char *big = g_getenv ("CTR_UI_BIG");
  Probe p = { 0 };
  GdkFrameClock *clock;
  CtrWindow *w;
  CtrRun *run;
  guint id;

  if (big == NULL || !g_file_test (big, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no 720-view dataset ($CTR_UI_BIG)");
      return;
    }
  w = ui_new_window ();
  p.session = ctr_window_get_session (w);
  CHECK (ui_open_and_wait (w, big, 120), "the 720-view dataset loaded");
  ctr_method_panel_set_method (method_panel (w), CTR_METHOD_PART);
  /* 60 iterations: the run (matrix build included) must outlast the 1 s the
   * probe needs; 5 took 0.9 s on a 2-core VM of stop 26, and 20 with the
   * compact SCSR store 1.2–1.4 s on stop 27's (123–138 ticks of the 100) */
  ctr_method_panel_set_param (method_panel (w), "iterations", 60, NULL);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (w));
  g_signal_connect (clock, "before-paint", G_CALLBACK (on_before_paint), &p);
  g_signal_connect (clock, "layout", G_CALLBACK (on_layout), &p);
  g_signal_connect (clock, "paint", G_CALLBACK (on_paint), &p);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &p);
  id = g_timeout_add (10, probe_tick, &p);
  run = reconstruct_and_wait (w, 400);
  g_source_remove (id);
  g_signal_handlers_disconnect_by_data (clock, &p);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "parallel ART on the 720-view scan finished: %s",
         ctr_session_get_status (p.session));
  printf ("main loop: largest gap %.1f ms between 10 ms ticks (main thread on the CPU for %.1f ms of it); "
          "most main-thread CPU between two ticks %.1f ms (at “%s”); %u ticks during the run\n",
          p.max_gap_us / 1000.0, p.max_gap_cpu_us / 1000.0, p.max_cpu_us / 1000.0,
          p.max_cpu_when ? p.max_cpu_when : "", p.ticks);
  if (p.frame_worst[0] > 0)
    printf ("main loop: longest frame while running %.1f ms (update %.1f, layout %.1f, paint + render %.1f)\n",
            (p.frame_worst[3] - p.frame_worst[0]) / 1000.0, (p.frame_worst[1] - p.frame_worst[0]) / 1000.0,
            (p.frame_worst[2] - p.frame_worst[1]) / 1000.0, (p.frame_worst[3] - p.frame_worst[2]) / 1000.0);
  fflush (stdout);
  ui_screenshot (GTK_WIDGET (w), "ui-responsiveness.png");
  g_free (p.max_cpu_when);
  ui_close_window (w);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);
  g_set_application_name ("CT Recon");
  app = ctr_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("cannot register the application: %s", error->message);

  g_test_add_func ("/ui/window/run", test_run);
  g_test_add_func ("/ui/window/scenario", test_scenario);
  g_test_add_func ("/ui/window/volume", test_volume);
  g_test_add_func ("/ui/window/volume-run", test_window_volume_run);
  g_test_add_func ("/ui/window/volume-cuda", test_window_volume_cuda);
  g_test_add_func ("/ui/window/volume-window", test_window_volume_window);
  g_test_add_func ("/ui/window/plane-memory", test_window_plane_memory);
  g_test_add_func ("/ui/window/dicom", test_window_dicom);
  g_test_add_func ("/ui/window/dicom-xa", test_window_dicom_xa);
  g_test_add_func ("/ui/window/study", test_window_study);
  g_test_add_func ("/ui/window/no-reference", test_window_no_reference);
  g_test_add_func ("/ui/window/open-tiff", test_window_open_tiff);
  g_test_add_func ("/ui/window/hig", test_window_hig);
  g_test_add_func ("/ui/window/roi", test_window_roi);
  g_test_add_func ("/ui/window/dose", test_window_dose);
  g_test_add_func ("/ui/window/dose-estimate", test_window_dose_estimate);
  g_test_add_func ("/ui/window/runs-many", test_window_runs_many);
  g_test_add_func ("/ui/window/metric", test_window_metric);
  g_test_add_func ("/ui/window/responsiveness", test_responsiveness);
  g_test_add_func ("/ui/window/variants", test_window_variants);
  g_test_add_func ("/ui/window/helical", test_window_helical);
  g_test_add_func ("/ui/window/default-grid", test_window_default_grid);
  g_test_add_func ("/ui/window/default-method", test_window_default_method);
  g_test_add_func ("/ui/window/fit-methods", test_window_fit_methods);
  g_test_add_func ("/ui/window/failed-run", test_window_failed_run);
  g_test_add_func ("/ui/window/open-unsupported", test_window_open_unsupported);
  g_test_add_func ("/ui/window/recent-underscore", test_window_recent_underscore);
  g_test_add_func ("/ui/window/dicom-window", test_window_dicom_window);
  g_test_add_func ("/ui/window/tiff-summary", test_window_tiff_summary);
  g_test_add_func ("/ui/window/session", test_window_session);
  g_test_add_func ("/ui/window/session-close", test_window_session_close);
  g_test_add_func ("/ui/window/fit-1280", test_window_fit_1280);
  g_test_add_func ("/ui/window/keys", test_window_keys);
  g_test_add_func ("/ui/window/prefs-build-tree", test_window_prefs_build_tree);
  g_test_add_func ("/ui/window/study-drawn-rois", test_window_study_drawn_rois);
  g_test_add_func ("/ui/window/study-images", test_window_study_images);
  g_test_add_func ("/ui/window/study-session", test_window_study_session);
  g_test_add_func ("/ui/window/memory", test_window_memory);
  g_test_add_func ("/ui/window/iq", test_window_iq);
  g_test_add_func ("/ui/window/study-detectability", test_window_study_detectability);
  g_test_add_func ("/ui/window/projections", test_window_projections);
  g_test_add_func ("/ui/window/calibrate", test_window_calibrate);
  g_test_add_func ("/ui/window/geometry-tilt", test_window_geometry_tilt);
  g_test_add_func ("/ui/window/pipeline", test_window_pipeline);
  g_test_add_func ("/ui/window/tilt-apply", test_window_tilt_apply);
  status = g_test_run ();

  g_clear_object (&app);
  return status;
}
