/* ctr-window-actions.c — the window's actions: open, reconstruct, cancel,
 * save and export.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   win.open                 Ctrl+O         a geometry.json, DICOM or TIFF file
 *   win.open-folder          Ctrl+Shift+O   a DICOM or dataset folder
 *   win.open-recent (s)                     a URI of the recent menu
 *   win.reconstruct          Ctrl+R         a run with the chosen method
 *   win.cancel-reconstruction  Esc          the running load or run
 *   win.save-geometry        Ctrl+Shift+S   the edited geometry.json
 *   win.export-png           Ctrl+E         the visible page
 *   win.export-volume                       the newest result, TIFF
 *   win.export-dicom                        the newest result, CT series
 *   win.export-metrics                      every run's numbers, CSV
 *   win.export-profile                      the line profile, CSV
 *   win.export-roi-csv                      every ROI on every run, CSV
 *   win.image-quality                       NPS, TTF and d′ of the runs
 *   win.calibrate                           centre / detector offset from the projections
 * (the session's actions are in ctr-window-session.c)
 * (Ctrl+R, Esc and Ctrl+O are the application's accelerators.)  Files are
 * chosen with GtkFileChooserNative; every write goes to a temporary file
 * renamed into place and ends with a toast saying what happened.
 */
#define G_LOG_DOMAIN "ctr-window"

#include <glib/gstdio.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctr-window-private.h"
#include "ctr-widget-png.h"
#include "ctr-iq-panel.h"
#include "ctr-calibrate-panel.h"

void
_ctr_window_update_actions (CtrWindow *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  gboolean busy = ctr_session_get_busy (self->session);
  gboolean valid = ctr_geometry_panel_is_valid (self->geometry_panel);
  gboolean has_result = ctr_session_get_latest_result (self->session) != NULL;

  /* one heavy job at a time: not while the Dose Study page runs a study */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reconstruct",
                                 d != NULL && !busy && valid && !ctr_study_page_get_running (self->study_page));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-reconstruction", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-variant",
                                 d != NULL && d->variants != NULL && !ctr_session_get_loading (self->session));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-geometry", d != NULL && valid);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-session",
                                 g_list_model_get_n_items (ctr_session_get_runs (self->session)) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-session-as",
                                 g_list_model_get_n_items (ctr_session_get_runs (self->session)) > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-session", !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.restore-session", !busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-volume", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-dicom", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-metrics", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-roi-csv", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.image-quality", d != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.calibrate", d != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-profile",
                                 ctr_profile_page_get_n_curves (self->profile_page) > 0);
}

/* ---- messages ---------------------------------------------------------------- */

void
_ctr_window_toast (CtrWindow  *self,
                   const char *message)
{
  AdwToast *t = adw_toast_new (message);
  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, t);
}

/* ---- open -------------------------------------------------------------------- */

static void
open_response (GtkNativeDialog *native,
               int              response,
               CtrWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *uri = file != NULL ? g_file_get_uri (file) : NULL;
      /* opened by the window (ctr_window_open), as a recent file is */
      if (uri != NULL)
        gtk_widget_activate_action (GTK_WIDGET (self), "win.open-recent", "s", uri);
    }
  g_object_unref (native);
}

/* A folder we may write to and that is meant to be written to: root may
 * write into a dr-xr-xr-x data folder, but should not. */
static gboolean
writable_folder (const char *path)
{
  GStatBuf st;

  return path != NULL && g_stat (path, &st) == 0 && S_ISDIR (st.st_mode) &&
         (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0 && g_access (path, W_OK | X_OK) == 0;
}

char *
_ctr_window_save_folder (CtrWindow *self, GUserDirectory fallback)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  const char *special = g_get_user_special_dir (fallback);

  if (writable_folder (self->last_folder))
    return g_strdup (self->last_folder);
  if (d != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (d->path);
      if (writable_folder (dir))
        return g_steal_pointer (&dir);
    }
  if (writable_folder (special))
    return g_strdup (special);
  return g_strdup (g_get_home_dir ());
}

/* Remembers where a save or export went (@path's folder). */
static void
remember_folder (CtrWindow *self, const char *path)
{
  g_free (self->last_folder);
  self->last_folder = g_path_get_dirname (path);
}

GtkFileChooserNative *
_ctr_window_new_chooser (CtrWindow *self, const char *title, GtkFileChooserAction action, const char *accept,
             GUserDirectory fallback)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept, "_Cancel");
  CtrDataset *d = ctr_session_get_dataset (self->session);
  gboolean opening = g_str_equal (accept, "_Open");
  g_autofree char *folder = NULL;

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  if (opening && d != NULL)
    folder = g_path_get_dirname (d->path);
  else if (!opening)
    folder = _ctr_window_save_folder (self, fallback);
  if (folder != NULL)
    {
      g_autoptr(GFile) dir = g_file_new_for_path (folder);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
    }
  return native;
}

/* Adds a filter of @pattern, @suffix and @mime_type (each nullable) and
 * returns it (owned by the chooser) for more. */
static GtkFileFilter *
add_filter (GtkFileChooserNative *native, const char *name, const char *pattern, const char *suffix,
            const char *mime_type, gboolean current)
{
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, name);
  if (pattern != NULL)
    gtk_file_filter_add_pattern (filter, pattern);
  if (suffix != NULL)
    gtk_file_filter_add_suffix (filter, suffix);
  if (mime_type != NULL)
    gtk_file_filter_add_mime_type (filter, mime_type);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), filter);
  if (current)
    gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (native), filter);
  return filter;
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native =
    _ctr_window_new_chooser (self, "Open Dataset", GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", G_USER_DIRECTORY_DOCUMENTS);

  /* DICOM files often have no extension: shared-mime-info recognises them
   * by "DICM" at offset 128 (application/dicom). */
  /* a bare TIFF of projections opens the geometry editor */
  gtk_file_filter_add_mime_type (add_filter (native, "Datasets (geometry.json, DICOM, TIFF)", "*.json", "dcm",
                                             "application/dicom", TRUE),
                                 "image/tiff");
  add_filter (native, "Dataset geometry (*.json)", "*.json", NULL, NULL, FALSE);
  add_filter (native, "DICOM (*.dcm, or without extension)", NULL, "dcm", "application/dicom", FALSE);
  add_filter (native, "TIFF projections without geometry.json", NULL, NULL, "image/tiff", FALSE);
  add_filter (native, "All files", "*", NULL, NULL, FALSE);
  g_signal_connect (native, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_folder_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native =
    _ctr_window_new_chooser (self, "Open DICOM Folder", GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Open", G_USER_DIRECTORY_DOCUMENTS);

  g_signal_connect (native, "response", G_CALLBACK (open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ---- reconstruct, cancel ------------------------------------------------------ */

static void
reconstruct_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(CtrWindow) self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = ctr_session_reconstruct_finish (CTR_SESSION (source), result, &error);

  if (run != NULL || self->session == NULL)
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new ("Reconstruction cancelled"));
  else
    _ctr_window_show_error (self, "Reconstruction Failed", error->message);
}

/* A run of the chosen method on the edited geometry and grid. */
static void
reconstruct_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  CtrReconOptions options;
  CtrGrid grid;

  if (ctr_session_get_dataset (self->session) == NULL || ctr_session_get_busy (self->session))
    return;
  if (!ctr_geometry_panel_is_valid (self->geometry_panel) ||
      !ctr_geometry_panel_get_grid (self->geometry_panel, &grid))
    {
      _ctr_window_toast (self, "The geometry has invalid fields; see the Geometry page");
      return;
    }
  ctr_method_panel_get_options (ctr_run_page_get_method_panel (self->run_page), &options);
  if (!ctr_recon_options_validate (&options, &error))
    {
      _ctr_window_toast (self, error->message);
      return;
    }
  if (grid.nz > 1)
    {
      /* a volume: the reports carry the three planes the view shows, a
       * device copies back those alone (the last report is the volume) */
      guint voxel[3];

      ctr_run_page_get_voxel (self->run_page, &grid, voxel);
      options.report_image = CTR_REPORT_PLANES;
      options.report_x = voxel[0];
      options.report_y = voxel[1];
      options.report_slice = voxel[2];
    }
  ctr_session_reconstruct_async (self->session, ctr_geometry_panel_get_geometry (self->geometry_panel), &grid,
                                 &options, self->cancellable, reconstruct_done, g_object_ref (self));
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ctr_session_cancel (CTR_WINDOW (widget)->session);
}

/* ---- saving and exporting ------------------------------------------------------ */

/* Writes to @path; FALSE with the error to show. */
typedef gboolean (*SaveFunc) (CtrWindow *self, const char *path, GError **error);

static void
save_response (GtkNativeDialog *native, int response, CtrWindow *self)
{
  SaveFunc func = g_object_get_data (G_OBJECT (native), "ctr-save-func");

  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      g_autoptr(GError) error = NULL;

      if (path == NULL)
        _ctr_window_toast (self, "Only local files can be written");
      /* outputs never replace the dataset's inputs, FIFOs or devices */
      else if (!ctr_output_path_check (path, CTR_OUTPUT_FILE, ctr_session_get_dataset (self->session), NULL,
                                       &error)
               || !func (self, path, &error))
        _ctr_window_toast (self, error->message);
      else
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *msg = g_strdup_printf ("Saved %s", base);
          remember_folder (self, path);
          _ctr_window_toast (self, msg);
        }
    }
  g_object_unref (native);
}

static void
ask_save_path (CtrWindow *self, const char *title, const char *name, SaveFunc func)
{
  GtkFileChooserNative *native =
    _ctr_window_new_chooser (self, title, GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
                 g_str_has_suffix (name, ".png") ? G_USER_DIRECTORY_PICTURES : G_USER_DIRECTORY_DOCUMENTS);

  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_object_set_data (G_OBJECT (native), "ctr-save-func", func);
  g_signal_connect (native, "response", G_CALLBACK (save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* A bare TIFF's geometry.json: the projections' keys the loader wrote
 * (d->projection_spec, a temporary source file) and the edited geometry. */
static gboolean
save_draft_geometry (CtrDataset *d, const CtrGeometry *g, const char *path, GError **error)
{
  g_autofree char *tmp = NULL;
  GError *local = NULL;
  int fd = g_file_open_tmp ("ctrecon-tiff-XXXXXX.json", &tmp, &local);
  gboolean ok;

  if (fd < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "Cannot write a temporary file: %s", local->message);
      g_error_free (local);
      return FALSE;
    }
  close (fd);
  ok = g_file_set_contents (tmp, d->projection_spec, -1, error) &&
       ctr_geometry_json_write (g, d->name, tmp, path, error);
  g_unlink (tmp);
  return ok;
}

/* The Projections page's "preprocess" list (none: the key removed) and the
 * detector tilt Calibrate… applied into the geometry.json just written at
 * @path, so that opening it, or `ctrecon-cli reconstruct` on it, reads the
 * data as the window's runs do. */
static gboolean
save_preprocess (CtrWindow *self, const char *path, GError **error)
{
  JsonNode *steps = ctr_session_get_preprocess (self->session, NULL);
  const double tilt = ctr_session_get_detector_tilt (self->session);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  JsonObject *root;

  if (steps == NULL && !isfinite (tilt))
    return TRUE;   /* the dataset's own list and tilt, carried over */
  if (!json_parser_load_from_file (parser, path, &local) || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "Cannot read back %s to add the pipeline: %s", path,
                   local != NULL ? local->message : "not a JSON object");
      return FALSE;
    }
  root = json_node_get_object (json_parser_get_root (parser));
  if (isfinite (tilt))   /* Calibrate…'s, applied */
    json_object_set_double_member (root, "detector_tilt_rad", tilt);
  if (steps != NULL && json_array_get_length (json_node_get_array (steps)) == 0)
    json_object_remove_member (root, "preprocess");
  else if (steps != NULL)
    json_object_set_member (root, "preprocess", json_node_copy (steps));
  return ctr_json_object_write (root, path, error);
}

/* A geometry.json at @path that still names the dataset's projections and
 * reference (ctr_geometry_json_write). */
static gboolean
save_geometry_to (CtrWindow *self, const char *path, GError **error)
{
  const CtrGeometry *g = ctr_geometry_panel_get_geometry (self->geometry_panel);
  CtrDataset *d = ctr_session_get_dataset (self->session);

  if (d == NULL || g == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "No valid geometry to save (fix the fields marked in red)");
      return FALSE;
    }
  if (!(d->projection_spec != NULL ? save_draft_geometry (d, g, path, error)
                                    : ctr_geometry_json_write (g, NULL, d->path, path, error)))
    return FALSE;
  return save_preprocess (self, path, error);
}

/* The visible page, drawn by the window's renderer. */
static gboolean
save_png_to (CtrWindow *self, const char *path, GError **error)
{
  GtkWidget *page = adw_view_stack_get_visible_child (self->stack);

  if (page == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Nothing is shown to export");
      return FALSE;
    }
  return ctr_widget_save_png (page, path, error);
}

/* The newest result as a float32 TIFF, one page per slice from the lowest z. */
static gboolean
save_volume_to (CtrWindow *self, const char *path, GError **error)
{
  CtrRun *run = ctr_session_get_latest_result (self->session);

  if (run == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "No reconstruction to export yet");
      return FALSE;
    }
  return ctr_tiff_write_volume (path, ctr_run_get_result (run), error);
}

static gboolean
save_metrics_to (CtrWindow *self, const char *path, GError **error)
{
  return ctr_session_write_metrics (self->session, path, error);
}

static gboolean
save_roi_csv_to (CtrWindow *self, const char *path, GError **error)
{
  return ctr_roi_panel_write_csv (ctr_run_page_get_roi_panel (self->run_page), path, error);
}

static gboolean
save_profile_to (CtrWindow *self, const char *path, GError **error)
{
  return ctr_profile_page_write_csv (self->profile_page, path, error);
}

typedef struct {
  CtrWindow *window;
  char      *folder;
  guint      n_slices;
} DicomExport;

static void
dicom_exported (GObject *source, GAsyncResult *result, gpointer data)
{
  DicomExport *e = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *msg = NULL;

  if (!ctr_session_export_dicom_finish (CTR_SESSION (source), result, &error))
    msg = g_strdup_printf ("DICOM export failed: %s", error->message);
  else
    msg = g_strdup_printf (g_dngettext (NULL, "Exported %u DICOM slice to %s", "Exported %u DICOM slices to %s",
                                        e->n_slices),
                           e->n_slices, e->folder);
  if (e->window->session != NULL)
    _ctr_window_toast (e->window, msg);
  g_object_unref (e->window);
  g_free (e->folder);
  g_free (e);
}

/* The newest result as a CT series into the chosen folder, in a thread. */
static void
dicom_folder_response (GtkNativeDialog *native, int response, CtrWindow *self)
{
  CtrRun *run = self->session ? ctr_session_get_latest_result (self->session) : NULL;

  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      g_autoptr(GError) error = NULL;

      if (path == NULL)
        _ctr_window_toast (self, "Only local files can be written");
      else if (run == NULL)
        _ctr_window_toast (self, "No reconstruction to export yet");
      else if (!ctr_output_path_check (path, CTR_OUTPUT_FOLDER, ctr_session_get_dataset (self->session), NULL,
                                       &error))
        _ctr_window_toast (self, error->message);
      else
        {
          DicomExport *e = g_new0 (DicomExport, 1);
          double window[2];
          /* the window shown is the one the series opens with */
          gboolean shown = ctr_run_page_get_window (self->run_page, window);
          remember_folder (self, path);
          e->window = g_object_ref (self);
          e->folder = g_strdup (path);
          e->n_slices = ctr_run_get_result (run)->grid.nz;
          ctr_session_export_dicom_async (self->session, run, path, shown ? window : NULL, self->cancellable,
                                          dicom_exported, e);
        }
    }
  g_object_unref (native);
}

static void
export_dicom_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native = _ctr_window_new_chooser (self, "Export DICOM Series (choose a folder)",
                                              GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Export",
                                              G_USER_DIRECTORY_DOCUMENTS);

  g_signal_connect (native, "response", G_CALLBACK (dicom_folder_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);

  if (g_str_equal (action_name, "win.save-geometry"))
    ask_save_path (self, "Save Geometry", "geometry-edited.json", save_geometry_to);
  else if (g_str_equal (action_name, "win.export-png"))
    ask_save_path (self, "Export Image", "view.png", save_png_to);
  else if (g_str_equal (action_name, "win.export-volume"))
    ask_save_path (self, "Export Volume", "reconstruction.tif", save_volume_to);
  else if (g_str_equal (action_name, "win.export-metrics"))
    ask_save_path (self, "Export Metrics", "metrics.csv", save_metrics_to);
  else if (g_str_equal (action_name, "win.export-roi-csv"))
    ask_save_path (self, "Export ROI Statistics", "roi.csv", save_roi_csv_to);
  else
    ask_save_path (self, "Export Line Profile", "profile.csv", save_profile_to);
}

/* "win.open-variant" (s): the open dataset with other projections ("" its
 * default ones); the runs made so far stay. */
static void
open_variant_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  _ctr_window_load_variant (CTR_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

/* "win.image-quality": the NPS, TTF and d′ of the open dataset's runs
 * (ctr-iq-panel.h), in a window of its own over this one. */
static void
image_quality_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  ctr_iq_panel_present (GTK_WINDOW (self), self->session, self->roi_set);
}

/* "win.calibrate": the centre of rotation or detector offset found from
 * the open dataset's projections (ctr-calibrate-panel.h). */
static void
calibrate_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  ctr_calibrate_panel_present (GTK_WINDOW (self), self->session, self->geometry_panel);
}

/* "win.show-page" (s): the page of that name (Alt+1 … Alt+6). */
static void
show_page_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  adw_view_stack_set_visible_child_name (CTR_WINDOW (widget)->stack, g_variant_get_string (parameter, NULL));
}

static gboolean
run_page_shown (CtrWindow *self)
{
  return g_strcmp0 (adw_view_stack_get_visible_child_name (self->stack), "reconstruct") == 0;
}

/* "win.slice-step" (i): the Run page's slice ± n (Page Down/Up), while
 * the Run page is shown. */
static void
slice_step_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  if (run_page_shown (self))
    ctr_run_page_step_slice (self->run_page, g_variant_get_int32 (parameter));
}

/* "win.zoom-fit": the Run page's views fit their frames (Ctrl+0). */
static void
zoom_fit_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  if (run_page_shown (self))
    ctr_run_page_zoom_fit (self->run_page);
}

/* The pages in the header's order, for Alt+1 … Alt+6. */
static const char *const page_names[] = { "reconstruct", "geometry", "profile", "compare", "study", "projections" };

static void
add_view_keys (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.show-page", "s", show_page_action);
  gtk_widget_class_install_action (widget_class, "win.slice-step", "i", slice_step_action);
  gtk_widget_class_install_action (widget_class, "win.zoom-fit", NULL, zoom_fit_action);
  for (guint i = 0; i < G_N_ELEMENTS (page_names); i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK, "win.show-page", "s",
                                         page_names[i]);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, 0, "win.slice-step", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, 0, "win.slice-step", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-fit", NULL);
}

/* "win.clear-runs": deletes every run but the running one. */
static void
clear_runs_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ctr_session_clear_runs (CTR_WINDOW (widget)->session);
}

void
_ctr_window_class_actions_init (CtrWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.reconstruct", NULL, reconstruct_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-reconstruction", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.open-variant", "s", open_variant_action);
  gtk_widget_class_install_action (widget_class, "win.clear-runs", NULL, clear_runs_action);
  gtk_widget_class_install_action (widget_class, "win.image-quality", NULL, image_quality_action);
  gtk_widget_class_install_action (widget_class, "win.calibrate", NULL, calibrate_action);
  gtk_widget_class_install_action (widget_class, "win.save-geometry", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-png", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-volume", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-dicom", NULL, export_dicom_action);
  gtk_widget_class_install_action (widget_class, "win.export-metrics", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-profile", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-roi-csv", NULL, export_action);
  add_view_keys (widget_class);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.open-folder", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.save-geometry", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export-png", NULL);
}
