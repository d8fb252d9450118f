/* test-window-session.c — sessions that survive closing (issue 31,
 * "Sessions"), on the real window.
 *
 * /ui/window/session: an FBP and a 3-iteration SIRT of CTR_UI_DATASET, the
 *   FBP renamed, a circle ROI drawn on the slice view with the Circle tool
 *   and used as the water calibration, a rectangle and the ruler; Save
 *   Session… (its file chooser answered) writes NAME.ctrsession; the window
 *   is closed and the stored calibration forgotten; a new window's Open
 *   Session… (its folder chooser answered) brings back every run (number,
 *   label, iteration numbers, image values bitwise), the ROIs (names and mm
 *   exactly), the ruler, the calibrated μ_water, and the dataset;
 *   screenshot ui-session-restored.png.  A folder that is not a session is
 *   refused with a dialog, the window unchanged.
 * /ui/window/session-close: closing a window with an unsaved run asks
 *   (Save… / Discard / Cancel); Cancel keeps it; a 1000-iteration SIRT
 *   started, closing again says the run will be cancelled, Discard closes
 *   the window, the run ends cancelled and the window is finalized.  A
 *   window whose runs were saved closes without asking and leaves the last
 *   session in $XDG_STATE_HOME; a new window offers it on its empty page
 *   and Restore Last Session brings the runs back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET, CTR_UI_OUT; XDG_STATE_HOME and
 * XDG_CACHE_HOME are the test's (run-ui-test.sh).
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-method-panel.h"
#include "ctr-roi-panel.h"
#include "ctr-roi-set.h"
#include "ctr-run-page.h"
#include "ctr-session-file.h"
#include "ctr-slice-view.h"
#include "ctr-water-store.h"

/* Removes a session folder an earlier run of the test left. */
static void
remove_session (const char *path)
{
  g_autoptr(GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      g_unlink (p);
    }
  g_rmdir (path);
}

static CtrRunPage *
run_page_of (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

/* A dialog's button, as a click does: the response, then the dialog goes. */
static void
answer (AdwMessageDialog *dialog, const char *response)
{
  adw_message_dialog_response (dialog, response);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static gboolean
drag_mm (CtrSliceView *view, double x0, double y0, double x1, double y1)
{
  double a, b, c, d;

  return ctr_slice_view_mm_to_point (view, x0, y0, &a, &b) && ctr_slice_view_mm_to_point (view, x1, y1, &c, &d) &&
         ctr_slice_view_tool_drag (view, a, b, c, d);
}

/* A copy of every run's numbers and image, to compare after reopening. */
typedef struct {
  guint      number;
  char      *label;
  guint      n_stats;
  double     last_rmse;
  double     last_residual;
  CtrVolume *image;
} Kept;

static void
kept_free (gpointer data)
{
  Kept *k = data;
  g_free (k->label);
  g_clear_pointer (&k->image, ctr_volume_unref);
  g_free (k);
}

static GPtrArray *
keep_runs (CtrSession *session)
{
  GPtrArray *kept = g_ptr_array_new_with_free_func (kept_free);
  GListModel *runs = ctr_session_get_runs (session);

  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      Kept *k = g_new0 (Kept, 1);
      guint n = ctr_run_get_n_stats (run);
      CtrVolume *v = ctr_run_get_result (run);

      k->number = ctr_run_get_number (run);
      k->label = g_strdup (ctr_run_get_label (run));
      k->n_stats = n;
      k->last_rmse = n > 0 ? ctr_run_get_stats (run, n - 1)->rmse : NAN;
      k->last_residual = n > 0 ? ctr_run_get_stats (run, n - 1)->residual : NAN;
      k->image = v != NULL ? ctr_volume_copy (v) : NULL;
      g_ptr_array_add (kept, k);
    }
  return kept;
}

static gboolean
same (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0 || (isnan (a) && isnan (b));
}

/* Every kept run is back: number, label, numbers, image bitwise. */
static void
check_runs (CtrSession *session, GPtrArray *kept)
{
  GListModel *runs = ctr_session_get_runs (session);
  guint n = g_list_model_get_n_items (runs), identical = 0;

  CHECK (n == kept->len, "%u runs back (%u saved)", n, kept->len);
  for (guint i = 0; i < MIN (n, kept->len); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      Kept *k = kept->pdata[i];
      CtrVolume *v = ctr_run_get_result (run);
      guint ns = ctr_run_get_n_stats (run);
      gboolean same_image = v != NULL && k->image != NULL && ctr_grid_equal (&v->grid, &k->image->grid) &&
                            memcmp (v->data, k->image->data, ctr_grid_size (&v->grid) * sizeof (float)) == 0;
      gboolean same_numbers = ns == k->n_stats && ns > 0 && same (ctr_run_get_stats (run, ns - 1)->rmse, k->last_rmse) &&
                              same (ctr_run_get_stats (run, ns - 1)->residual, k->last_residual);

      CHECK (ctr_run_get_number (run) == k->number && g_strcmp0 (ctr_run_get_label (run), k->label) == 0 &&
                 same_numbers && same_image,
             "run %u “%s”: %u iterations' numbers (last RMSE %.6g), image %u × %u × %u %s", k->number,
             ctr_run_get_label (run), ns, k->last_rmse, v ? v->grid.nx : 0, v ? v->grid.ny : 0, v ? v->grid.nz : 0,
             same_image ? "bitwise identical" : "DIFFERENT");
      identical += same_image;
    }
  CHECK (identical == kept->len && kept->len >= 2, "every run image is bitwise identical (%u of %u)", identical,
         kept->len);
}

static gboolean
runs_back (gpointer data)
{
  CtrSession *s = ctr_window_get_session (data);
  return g_list_model_get_n_items (ctr_session_get_runs (s)) > 0 && ctr_session_get_dataset (s) != NULL &&
         !ctr_session_get_busy (s);
}

static gboolean
saved (gpointer data)
{
  return !ctr_session_get_unsaved (ctr_window_get_session (data));
}

/* The window's runs, ROIs and calibration; a session saved at @path. */
static void
make_session (CtrWindow *w, const char *path, double *mu_out)
{
  CtrSliceView *view = ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "slice_view");
  CtrRoiPanel *panel = ctr_run_page_get_roi_panel (run_page_of (w));
  CtrRoiSet *set = ctr_slice_view_get_roi_set (view);
  CtrRun *fbp = ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  CtrRun *sirt = ui_run_method (w, CTR_METHOD_SIRT, "iterations", 3);
  g_autoptr(GError) error = NULL;
  double r_mm, ruler[4] = { -9, -6, 3, 10 };

  CHECK (fbp != NULL && sirt != NULL, "an FBP and a SIRT run finished");
  if (fbp == NULL || sirt == NULL)
    return;
  ctr_run_set_label (fbp, "FBP before the session");
  r_mm = 8 * ctr_run_get_result (sirt)->grid.dx;
  ctr_roi_set_set_tool (set, CTR_ROI_TOOL_CIRCLE);
  CHECK (drag_mm (view, 0, 0, r_mm, 0) && g_list_model_get_n_items (G_LIST_MODEL (set)) == 1,
         "the Circle tool draws ROI 1 at the centre, radius %.2f mm", r_mm);
  ctr_roi_set_set_tool (set, CTR_ROI_TOOL_RECTANGLE);
  CHECK (drag_mm (view, 3 * r_mm, -2 * r_mm, 5 * r_mm, -r_mm) && g_list_model_get_n_items (G_LIST_MODEL (set)) == 2,
         "the Rectangle tool draws ROI 2");
  ctr_roi_set_set_tool (set, CTR_ROI_TOOL_NONE);
  ctr_roi_set_set_background (set, 1);
  ctr_roi_set_set_ruler (set, ruler);
  CHECK (ctr_roi_panel_calibrate_water (panel, 0, &error), "ROI 1 calibrates μ_water: %s",
         error ? error->message : "ok");
  {
    gboolean calibrated = FALSE;
    *mu_out = ctr_roi_set_get_mu_water (set, &calibrated);
    CHECK (calibrated && *mu_out > 0, "μ_water %.6f /mm, calibrated", *mu_out);
  }
  CHECK (ctr_session_get_unsaved (ctr_window_get_session (w)), "the runs are unsaved");
  CHECK (ui_export (w, "win.save-session", path), "Save Session… writes %s", path);
  ui_wait (saved, w, 60, "the session saved");
  CHECK (!ctr_session_get_unsaved (ctr_window_get_session (w)), "the runs are saved");
}

static void
check_rois (CtrRoiSet *a_names_rois, GArray *rois, GPtrArray *names)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (a_names_rois)), same_rois = 0;

  for (guint i = 0; i < MIN (n, rois->len); i++)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (a_names_rois), i);
      const CtrRoi *a = ctr_roi_item_get_roi (item), *b = &g_array_index (rois, CtrRoi, i);
      /* exactly the same numbers (a circle's unused sides aside) */
      gboolean same_shape = a->shape == b->shape && same (a->x_mm, b->x_mm) && same (a->y_mm, b->y_mm) &&
                            (a->shape == CTR_ROI_CIRCLE ? same (a->radius_mm, b->radius_mm)
                                                        : same (a->width_mm, b->width_mm) && same (a->height_mm, b->height_mm));
      same_rois += same_shape && g_strcmp0 (ctr_roi_item_get_name (item), names->pdata[i]) == 0;
    }
  CHECK (n == rois->len && same_rois == n, "%u ROIs back, %u with the same name, shape and mm", n, same_rois);
}

void
test_window_session (void)
{
  const char *dataset = g_getenv ("CTR_UI_DATASET");
  g_autofree char *path = ui_out_path ("ui-session-test" CTR_SESSION_FILE_SUFFIX);
  g_autoptr(GPtrArray) kept = NULL;
  g_autoptr(GArray) rois = g_array_new (FALSE, FALSE, sizeof (CtrRoi));
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dataset_path = NULL;
  double ruler[4] = { 0 }, ruler2[4] = { 0 }, mu = 0;
  int background = -1;
  CtrWindow *w;

  if (dataset == NULL || !g_file_test (dataset, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no CTR_UI_DATASET");
      return;
    }
  remove_session (path);
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  make_session (w, path, &mu);
  kept = keep_runs (ctr_window_get_session (w));
  {
    CtrRoiSet *set = ctr_slice_view_get_roi_set (ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "slice_view"));
    for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (set)); i++)
      {
        g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (set), i);
        g_array_append_vals (rois, ctr_roi_item_get_roi (item), 1);
        g_ptr_array_add (names, g_strdup (ctr_roi_item_get_name (item)));
      }
    background = ctr_roi_set_get_background (set);
    ctr_roi_set_get_ruler (set, ruler);
  }
  dataset_path = g_strdup (ctr_session_get_dataset (ctr_window_get_session (w))->path);
  ui_close_window (w);
  /* the calibration must come from the session, not the per-dataset store */
  ctr_water_store_save (dataset_path, 0, NULL);

  w = ui_new_window ();
  {
    /* a folder that is not a session: a dialog, nothing changed */
    g_autofree char *not_session = ui_out_path ("ui-session-not-a-session");
    GtkWidget *dialog;
    g_mkdir_with_parents (not_session, 0700);
    CHECK (ui_export_from (GTK_WIDGET (w), w, "win.open-session", not_session, not_session),
           "Open Session… answered with a folder that is not a session");
    dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 20);
    CHECK (dialog != NULL && g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w))) == 0,
           "it is refused with a dialog (“%s”), the window unchanged",
           dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "none");
    if (dialog != NULL)
      answer (ADW_MESSAGE_DIALOG (dialog), "close");
    ui_spin (200);
  }
  CHECK (ui_export_from (GTK_WIDGET (w), w, "win.open-session", path, path), "Open Session… answered with %s", path);
  ui_wait (runs_back, w, 120, "the session's runs and dataset");
  {
    CtrSession *s = ctr_window_get_session (w);
    CtrRoiSet *set = ctr_slice_view_get_roi_set (ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "slice_view"));
    gboolean calibrated = FALSE;
    double mu2 = ctr_roi_set_get_mu_water (set, &calibrated);
    CtrDataset *d = ctr_session_get_dataset (s);

    check_runs (s, kept);
    CHECK (d != NULL && g_strcmp0 (d->path, dataset_path) == 0, "the dataset is open again: %s",
           d ? d->path : "none");
    CHECK (g_list_model_get_n_items (ctr_session_get_open_results (s)) == kept->len,
           "Compare, Profile and the ROI table have all %u runs", kept->len);
    check_rois (set, rois, names);
    CHECK (ctr_roi_set_get_background (set) == background, "ROI %d is the background again", background + 1);
    gboolean have_ruler = ctr_roi_set_get_ruler (set, ruler2);
    CHECK (have_ruler && memcmp (ruler, ruler2, sizeof ruler) == 0 && ruler[0] == -9,
           "the ruler is back: (%.2f, %.2f) – (%.2f, %.2f) mm", ruler2[0], ruler2[1], ruler2[2], ruler2[3]);
    CHECK (calibrated && same (mu, mu2), "the water calibration is back: μ_water %.6f /mm (saved %.6f), calibrated",
           mu2, mu);
    CHECK (!ctr_session_get_unsaved (s), "the opened runs count as saved");
    CHECK (g_str_has_prefix (ctr_session_get_status (s), "Opened the session ui-session-test.ctrsession: 2 runs"),
           "the status line says so: “%s”", ctr_session_get_status (s));
  }
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  ui_spin (300);
  ui_screenshot (GTK_WIDGET (w), "ui-session-restored.png");

  /* a new run, unsaved: opening the session again asks before replacing */
  ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  {
    GtkWidget *dialog;
    guint n = g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w)));
    CHECK (n == kept->len + 1 && ctr_session_get_unsaved (ctr_window_get_session (w)),
           "a run after opening is run %u, unsaved", n);
    ui_export_from (GTK_WIDGET (w), w, "win.open-session", path, path);
    dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 20);
    CHECK (dialog != NULL && adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (dialog), "replace"),
           "Open Session… over unsaved runs asks first: “%s”",
           dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "no question");
    if (dialog != NULL)
      answer (ADW_MESSAGE_DIALOG (dialog), "cancel");
    ui_spin (500);
    CHECK (g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w))) == n,
           "Cancel keeps the window's %u runs", n);
    /* Save Session (Ctrl+S) saves the opened session again, no chooser */
    gtk_widget_activate_action (GTK_WIDGET (w), "win.save-session", NULL);
    ui_wait (saved, w, 60, "the session saved again");
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CtrSessionFile) f = ctr_session_file_read (path, NULL, &error);
      CHECK (f != NULL && f->runs->len == n && ui_wait_toplevel (GTK_WINDOW (w), GTK_TYPE_FILE_CHOOSER_DIALOG, 0.5) == NULL,
             "Save Session writes the opened session again without asking where: %u runs in %s",
             f ? f->runs->len : 0, path);
    }
  }
  ui_close_window (w);
}

/* ---- /ui/window/session-close --------------------------------------------------- */

static gboolean
first_iteration (gpointer data)
{
  const CtrIterStats *s = ctr_session_get_latest_stats (ctr_window_get_session (data));
  return s != NULL && s->iteration >= 1;
}

static gboolean
only_ours (gpointer data)
{
  return G_OBJECT (data)->ref_count == 1;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

/* Closes @w as the title bar's button does; returns the question asked
 * within @timeout_s, or NULL. */
static AdwMessageDialog *
close_and_ask (CtrWindow *w, double timeout_s)
{
  GtkWidget *dialog;

  gtk_window_close (GTK_WINDOW (w));
  dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, timeout_s);
  return dialog != NULL ? ADW_MESSAGE_DIALOG (dialog) : NULL;
}

void
test_window_session_close (void)
{
  const char *dataset = g_getenv ("CTR_UI_DATASET");
  g_autofree char *last = g_build_filename (g_get_user_state_dir (), "ctrecon", "last-session.ctrsession",
                                            "session.json", NULL);
  g_autofree char *saved_path = ui_out_path ("ui-session-close" CTR_SESSION_FILE_SUFFIX);
  g_autoptr(CtrRun) running = NULL;
  AdwMessageDialog *ask;
  CtrWindow *w;

  if (dataset == NULL || !g_file_test (dataset, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no CTR_UI_DATASET");
      return;
    }
  {
    g_autofree char *folder = g_path_get_dirname (last);
    remove_session (folder);
  }
  remove_session (saved_path);
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  ask = close_and_ask (w, 10);
  CHECK (ask != NULL && gtk_widget_get_visible (GTK_WIDGET (w)) &&
             adw_message_dialog_has_response (ask, "save") && adw_message_dialog_has_response (ask, "discard") &&
             adw_message_dialog_has_response (ask, "cancel"),
         "closing with an unsaved run asks first (Save… / Discard / Cancel): “%s”",
         ask ? adw_message_dialog_get_body (ask) : "no question");
  if (ask != NULL)
    answer (ask, "cancel");
  ui_spin (200);
  CHECK (gtk_widget_get_visible (GTK_WIDGET (w)) &&
             g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w))) == 1,
         "Cancel keeps the window and its run");

  /* a long run in progress: Discard closes, the run ends cancelled */
  ctr_method_panel_set_method (ctr_run_page_get_method_panel (run_page_of (w)), CTR_METHOD_SIRT);
  ctr_method_panel_set_param (ctr_run_page_get_method_panel (run_page_of (w)), "iterations", 1000, NULL);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait (first_iteration, w, 120, "the SIRT's first iteration");
  {
    GListModel *runs = ctr_session_get_runs (ctr_window_get_session (w));
    running = g_list_model_get_item (runs, g_list_model_get_n_items (runs) - 1);
  }
  ask = close_and_ask (w, 10);
  CHECK (ask != NULL && strstr (adw_message_dialog_get_body (ask), "will be cancelled") != NULL,
         "closing during a run says it will be cancelled: “%s”", ask ? adw_message_dialog_get_body (ask) : "");
  if (ask != NULL)
    ui_screenshot (GTK_WIDGET (ask), "ui-session-close-ask.png");
  if (ask != NULL)
    answer (ask, "discard");
  ui_wait (only_ours, w, 60, "the window to be released");
  CHECK (G_OBJECT (w)->ref_count == 1 && ctr_run_get_state (running) == CTR_RUN_CANCELLED &&
             ctr_run_get_n_stats (running) < 1000,
         "Discard closes the window; the run ended cancelled after %u of 1000 iterations",
         ctr_run_get_n_stats (running));
  g_assert_finalize_object (w);
  CHECK (!g_file_test (last, G_FILE_TEST_EXISTS), "discarded runs are not kept as the last session");

  /* saved runs: no question; the last session is kept and offered */
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded again");
  ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  CHECK (ui_export (w, "win.save-session", saved_path), "Save Session… writes %s", saved_path);
  ui_wait (saved, w, 60, "the session saved");
  ask = close_and_ask (w, 1);
  CHECK (ask == NULL, "a window whose runs are saved closes without a question");
  ui_wait (file_exists, last, 60, "the last session");
  CHECK (g_file_test (last, G_FILE_TEST_IS_REGULAR), "the last session is kept in %s", last);
  ui_wait (only_ours, w, 60, "the window to be released");
  g_assert_finalize_object (w);

  w = ui_new_window ();
  {
    GtkWidget *button = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (w), CTR_TYPE_WINDOW, "restore_button");
    CHECK (button != NULL && gtk_widget_get_visible (button), "a new window offers Restore Last Session");
    ui_screenshot (GTK_WIDGET (w), "ui-session-offer.png");
    gtk_widget_activate_action (GTK_WIDGET (w), "win.restore-session", NULL);
    ui_wait (runs_back, w, 120, "the last session's run and dataset");
    CHECK (g_list_model_get_n_items (ctr_session_get_results (ctr_window_get_session (w))) == 1,
           "Restore Last Session brings the run back");
  }
  ui_close_window (w);
  {
    /* the next cases start without a last session */
    g_autofree char *folder = g_path_get_dirname (last);
    remove_session (folder);
  }
}
