/* ctr-window.c — the main window over one CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pages (an AdwViewStack switched from the header bar), each a widget bound
 * to the session:
 *   Run — CtrRunPage: dataset, method, progress, live slice, convergence;
 *   Geometry — CtrGeometryPanel: the file's geometry, editable, validated as
 *     typed, drawn to scale; runs use the edited geometry and grid;
 *   Profile — CtrProfilePage: a line profile of every result and the
 *     reference;
 *   Compare — CtrComparePage: results side by side with a difference image;
 *   Dose Study — CtrStudyPage: lower doses of the dataset simulated, a list
 *     of methods run on each in the background, table and figure;
 *   Projections — CtrProjectionPage: views and rows of the data, the
 *     flat/dark check, the pipeline's before/after, a preview slice.
 *
 * This file opens datasets (files, folders, recent files, drops), asks
 * the questions DICOM input raises (ui/ctr-dicom-dialogs.c), shows the
 * loaded dataset in the header and on the Geometry page, keeps the recent
 * files and binds the preferences; the actions (reconstruct, cancel,
 * exports) are in ctr-window-actions.c.  The session does the work in its
 * threads; the window owns one GCancellable for its jobs and cancels it
 * when it closes.
 */
#define G_LOG_DOMAIN "ctr-window"

#include <math.h>

#include "ctr-window-private.h"
#include "ctr-settings.h"
#include "ctr-dicom-dialogs.h"
#include "ctr-session-file.h"
#include "ctr-projection-page.h"
#include "ctr-slice-plane.h"

G_DEFINE_FINAL_TYPE (CtrWindow, ctr_window, ADW_TYPE_APPLICATION_WINDOW)

#define MAX_RECENT 8
#define RECENT_GROUP "ctrecon-dataset"

void
_ctr_window_show_error (CtrWindow  *self,
                        const char *heading,
                        const char *message)
{
  AdwMessageDialog *dialog;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, NULL));
  adw_message_dialog_format_body (dialog, "%s", message);
  adw_message_dialog_add_response (dialog, "close", "_Close");
  adw_message_dialog_set_default_response (dialog, "close");
  adw_message_dialog_set_close_response (dialog, "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- loading ------------------------------------------------------------ */

static void load_done (GObject *source, GAsyncResult *result, gpointer data);
static void handle_loaded (CtrWindow *self, CtrDicomResolution *question);

/* The user declined a question a load asked: the load ends with @why. */
static void
load_declined (CtrWindow *self, const char *why)
{
  if (self->session != NULL)
    ctr_session_set_status (self->session, "Idle", why);
}

static void
series_chosen (GtkWindow *parent, char *uid, gpointer user_data)
{
  CtrWindow *self = CTR_WINDOW (parent);
  g_autoptr(CtrDicomResolution) question = user_data;
  g_autofree char *chosen = uid;

  if (self->session == NULL)
    return;
  if (chosen == NULL)
    {
      load_declined (self, "No series chosen");
      return;
    }
  ctr_session_load_async (self->session, question->path, NULL, chosen, self->cancellable, load_done,
                          g_object_ref (self));
}

static void
xa_completed (GtkWindow *parent, CtrDicomResolution *completed, gpointer user_data)
{
  CtrWindow *self = CTR_WINDOW (parent);

  if (self->session == NULL)
    {
      ctr_dicom_resolution_free (completed);
      return;
    }
  if (completed == NULL)
    {
      load_declined (self, "The acquisition geometry was not given");
      return;
    }
  ctr_session_load_resolution_async (self->session, completed, self->cancellable, load_done, g_object_ref (self));
}

static void
load_done (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(CtrWindow) self = data;
  g_autoptr(GError) error = NULL;
  CtrDicomResolution *question = NULL;

  if (!ctr_session_load_finish (CTR_SESSION (source), result, &question, &error))
    {
      /* cancelled: by the user, a newer load or the window closing */
      if (self->session != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _ctr_window_show_error (self, "Could Not Open Dataset", error->message);
      return;
    }
  handle_loaded (self, question);
}

/* A load ended: nothing more to do, or the question DICOM files raise. */
static void
handle_loaded (CtrWindow *self, CtrDicomResolution *question)
{
  if (question == NULL)
    return;
  if (self->session == NULL)
    ctr_dicom_resolution_free (question);
  else if (question->outcome == CTR_DICOM_OUTCOME_CHOOSE_SERIES)
    ctr_dicom_series_dialog (GTK_WINDOW (self), question->series, series_chosen, question);
  else
    ctr_dicom_xa_dialog (GTK_WINDOW (self), question, xa_completed, NULL);
}

/* A geometry.json refused for its geometry: every problem in words, and
 * "Edit Geometry" opens it with the file's geometry as a draft. */
typedef struct {
  CtrWindow *window;
  char      *path;
} PathLoad;

static void
path_load_free (PathLoad *p)
{
  g_object_unref (p->window);
  g_free (p->path);
  g_free (p);
}

static void
path_load_closure_free (gpointer data, GClosure *closure)
{
  path_load_free (data);
}

static void
geometry_problems_response (AdwMessageDialog *dialog, const char *response, PathLoad *p)
{
  if (g_str_equal (response, "edit") && p->window->session != NULL)
    ctr_session_load_draft_async (p->window->session, p->path, p->window->cancellable, load_done,
                                  g_object_ref (p->window));
}

static gboolean
show_geometry_problems (CtrWindow *self, const char *path, const GError *error)
{
  g_auto(GStrv) problems = NULL;
  g_autoptr(GString) body = NULL;
  AdwMessageDialog *dialog;
  PathLoad *p;

  if (!g_error_matches (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY) &&
      !g_error_matches (error, CTR_ERROR, CTR_ERROR_FORMAT))
    return FALSE;
  problems = ctr_dataset_geometry_problems (path);
  if (problems == NULL)
    return FALSE;
  body = g_string_new (NULL);
  g_string_append_printf (body, "%s:\n", path);
  for (guint i = 0; problems[i] != NULL; i++)
    g_string_append_printf (body, "\n• %c%s", g_ascii_toupper (problems[i][0]), problems[i] + 1);
  g_string_append (body, "\n\nEdit Geometry opens the data with these values in the geometry editor to correct them.");
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (
    GTK_WINDOW (self), g_strv_length (problems) == 1 ? "The Geometry Has a Problem" : "The Geometry Has Problems", NULL));
  adw_message_dialog_set_body (dialog, body->str);
  adw_message_dialog_add_responses (dialog, "close", "_Close", "edit", "_Edit Geometry", NULL);
  adw_message_dialog_set_response_appearance (dialog, "edit", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "edit");
  adw_message_dialog_set_close_response (dialog, "close");
  p = g_new0 (PathLoad, 1);
  p->window = g_object_ref (self);
  p->path = g_strdup (path);
  g_signal_connect_data (dialog, "response", G_CALLBACK (geometry_problems_response), p, path_load_closure_free, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static void
path_load_done (GObject *source, GAsyncResult *result, gpointer data)
{
  PathLoad *p = data;
  g_autoptr(GError) error = NULL;
  CtrDicomResolution *question = NULL;

  if (!ctr_session_load_finish (CTR_SESSION (source), result, &question, &error))
    {
      if (p->window->session != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
          (p->path == NULL || !show_geometry_problems (p->window, p->path, error)))
        _ctr_window_show_error (p->window, "Could Not Open Dataset", error->message);
      path_load_free (p);
      return;
    }
  /* loaded, or a DICOM question: as any other load */
  handle_loaded (p->window, question);
  path_load_free (p);
}

void
_ctr_window_load (CtrWindow *self, const char *path, const char *const *files)
{
  PathLoad *p = g_new0 (PathLoad, 1);

  p->window = g_object_ref (self);
  p->path = g_strdup (path);
  ctr_session_load_async (self->session, path, files, NULL, self->cancellable, path_load_done, p);
}

void
_ctr_window_load_variant (CtrWindow *self, const char *variant)
{
  PathLoad *p = g_new0 (PathLoad, 1);

  p->window = g_object_ref (self);
  ctr_session_load_variant_async (self->session, variant, self->cancellable, path_load_done, p);
}

void
ctr_window_open (CtrWindow *self,
                 GFile     *file)
{
  g_autofree char *path = NULL;

  g_return_if_fail (CTR_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autofree char *message =
        g_strdup_printf ("“%s” is not a local file; only local datasets can be opened", uri);
      _ctr_window_show_error (self, "Could Not Open Dataset", message);
      return;
    }
  if (ctr_session_file_is_session (path))
    _ctr_window_open_session (self, path);
  else
    _ctr_window_load (self, path, NULL);
}

static gboolean
on_drop (GtkDropTarget *target,
         const GValue  *value,
         double         x,
         double         y,
         CtrWindow     *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;
  if (files->next == NULL)
    ctr_window_open (self, G_FILE (files->data));
  else
    {
      /* several files: DICOM views of one or more series */
      g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
      for (GSList *l = files; l != NULL; l = l->next)
        {
          char *path = g_file_get_path (G_FILE (l->data));
          if (path != NULL)
            g_ptr_array_add (paths, path);
        }
      g_ptr_array_add (paths, NULL);
      if (paths->len > 1)
        _ctr_window_load (self, NULL, (const char *const *) paths->pdata);
      else
        _ctr_window_toast (self, "Only local files can be opened");
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- recent files (GtkRecentManager) -------------------------------------- */

static const char *
recent_app_name (void)
{
  const char *name = g_get_application_name ();
  return name != NULL ? name : "ctrecon";
}

static void
add_recent (const char *path)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GtkRecentData data = { 0 };
  gboolean dir = g_file_test (path, G_FILE_TEST_IS_DIR);
  /* static: under the sanitizers a list on the stack reached GTK empty
   * (the entry was saved without its group and never listed) */
  static const char *groups[] = { RECENT_GROUP, NULL };

  if (uri == NULL)
    return;
  data.mime_type = (char *) (dir ? "inode/directory"
                                 : g_str_has_suffix (path, ".json") ? "application/json"
                                 : ctr_tiff_is_tiff (path) ? "image/tiff" : "application/dicom");
  data.app_name = (char *) recent_app_name ();
  data.app_exec = (char *) "ctrecon %f";
  data.groups = (char **) groups;
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static int
compare_recent (gconstpointer a, gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);
  return -g_date_time_compare (ta, tb);
}

/* The open menu's recent section: the datasets this application opened,
 * newest first (file choosers also record what was saved or exported
 * under the application's name: the group tells datasets apart). */
static void
rebuild_recent_menu (CtrWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr(GPtrArray) mine = g_ptr_array_new ();

  for (GList *l = items; l != NULL; l = l->next)
    if (gtk_recent_info_has_group (l->data, RECENT_GROUP) && gtk_recent_info_is_local (l->data) &&
        gtk_recent_info_exists (l->data))
      g_ptr_array_add (mine, l->data);
  g_ptr_array_sort (mine, compare_recent);
  g_menu_remove_all (self->recent_section);
  for (guint i = 0; i < mine->len && i < MAX_RECENT; i++)
    {
      const char *uri = gtk_recent_info_get_uri (mine->pdata[i]);
      g_autoptr(GFile) file = g_file_new_for_uri (uri);
      g_autofree char *base = g_file_get_basename (file);
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autofree char *pbase = parent ? g_file_get_basename (parent) : NULL;
      /* "gel-fan/geometry.json": a file name alone says little */
      g_autofree char *label = pbase ? g_strdup_printf ("%s/%s", pbase, base) : g_strdup (base);
      /* a menu reads "_" as a mnemonic: "my_scan" would show "myscan" */
      g_auto(GStrv) parts = g_strsplit (label, "_", -1);
      g_autofree char *escaped = g_strjoinv ("__", parts);
      g_autoptr(GMenuItem) item = g_menu_item_new (escaped, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (uri));
      g_menu_append_item (self->recent_section, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

/* ---- the session --------------------------------------------------------- */

/* The Run page's summary describes the geometry a run uses: the edited one. */
/* Revert: the file's geometry, so the file's detector tilt too (not
 * Calibrate…'s applied one). */
static void
on_geometry_reverted (CtrWindow *self)
{
  ctr_session_set_detector_tilt (self->session, NAN);
}

static void
on_geometry_edited (CtrWindow *self)
{
  ctr_run_page_set_geometry (self->run_page, ctr_geometry_panel_get_geometry (self->geometry_panel));
}

/* A new dataset: its name in the header, its geometry on the Geometry page
 * with the grid a user expects, and the recent files. */
static void
on_dataset (CtrWindow *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  CtrGrid grid;

  if (d == NULL)
    return;
  gtk_stack_set_visible_child_name (self->content_stack, "pages");
  ctr_roi_set_set_dataset (self->roi_set, d->path);
  add_recent (d->path);
  adw_view_switcher_title_set_subtitle (self->window_title, d->name);
  /* compare like with like: the CLI's grid (a reference's, else the field
   * of view at the detector's resolution) */
  if (d->geometry_missing)
    grid = ctr_grid_default (d->geometry, d->geometry->n_cols, 1.0);   /* the draft has no field of view yet */
  else
    grid = ctr_dataset_default_grid (d);
  ctr_geometry_panel_load (self->geometry_panel, d->geometry, d->projections, &grid);
  /* the Run page forgot the last dataset's edit in its own notify::dataset
   * handler (connected before this one): the new data's */
  on_geometry_edited (self);
  _ctr_window_update_actions (self);
  if (d->geometry_missing)
    {
      /* a bare TIFF: the editor with its sketch, the missing fields in red */
      g_autofree char *msg =
        g_strdup_printf ("“%s” has no geometry.json: enter the source and detector distances, the pitch and the "
                         "angles (fields in red); Save Geometry keeps them",
                         d->name);
      adw_view_stack_set_visible_child_name (self->stack, "geometry");
      _ctr_window_toast (self, msg);
    }
  else
    {
      /* what the data lack (the Run page's summary keeps it in view) */
      g_autofree char *coverage = ctr_geometry_coverage_note (d->geometry);
      if (coverage != NULL)
        {
          g_autofree char *msg = g_strdup_printf ("Limited angle: %s", coverage);
          _ctr_window_toast (self, msg);
        }
    }
}

/* The Run page's window preset: Profile and Compare read HU with it. */
static void
on_preset (CtrWindow *self)
{
  const char *name = ctr_run_page_get_preset (self->run_page);

  ctr_profile_page_set_preset (self->profile_page, name);
  ctr_compare_page_set_preset (self->compare_page, name);
}

/* A running volume run's next report brings the planes through the
 * crosshair at @mm (its voxel on the run's grid). */
static void
follow_crosshair (CtrWindow *self, const double mm[3])
{
  GListModel *runs = ctr_session_get_runs (self->session);
  guint n = g_list_model_get_n_items (runs);
  g_autoptr(CtrRun) run = NULL;
  const CtrGrid *g;
  guint voxel[3];

  if (!ctr_session_get_running (self->session) || n == 0)
    return;
  run = g_list_model_get_item (runs, n - 1);
  g = ctr_run_get_grid (run);
  voxel[0] = ctr_slice_plane_index_at (g, CTR_SLICE_SAGITTAL, mm[0]);
  voxel[1] = ctr_slice_plane_index_at (g, CTR_SLICE_CORONAL, mm[1]);
  voxel[2] = ctr_slice_plane_index_at (g, CTR_SLICE_AXIAL, mm[2]);
  ctr_session_follow_voxel (self->session, g, voxel);
}

/* The Run page's plane and crosshair: Compare's volume tiles and Profile's
 * plane follow, and so do a running volume run's reported planes; their own
 * Plane and Slice controls move the Run page. */
static void
on_run_place (CtrWindow *self)
{
  CtrSliceOrientation plane;
  double mm[3];

  if (!ctr_run_page_get_place (self->run_page, &plane, mm))
    return;
  follow_crosshair (self, mm);
  ctr_compare_page_set_place (self->compare_page, plane, mm);
  ctr_profile_page_set_place (self->profile_page, plane, mm);
}

static void
on_compare_place (CtrWindow *self)
{
  CtrSliceOrientation plane;
  double mm[3];

  if (ctr_compare_page_get_place (self->compare_page, &plane, mm))
    ctr_run_page_set_place (self->run_page, plane, mm);
}

static void
on_profile_place (CtrWindow *self)
{
  CtrSliceOrientation plane;
  double mm[3];

  if (ctr_profile_page_get_place (self->profile_page, &plane, mm))
    ctr_run_page_set_place (self->run_page, plane, mm);
}

/* ---- preferences (org.ctrecon.CtRecon) ----------------------------------- */

static gboolean
iterations_from_setting (GValue *value, GVariant *variant, gpointer user_data)
{
  g_value_set_uint (value, g_variant_get_uint32 (variant));
  return TRUE;
}

/* A single-pass method has no iteration count to keep. */
static GVariant *
iterations_to_setting (const GValue *value, const GVariantType *type, gpointer user_data)
{
  guint n = g_value_get_uint (value);
  return n > 0 ? g_variant_new_uint32 (n) : NULL;
}

/* The method, iteration count and backend a new window starts with are
 * the last ones used (read once: other windows do not follow). */
static void
bind_settings (CtrWindow *self)
{
  const GSettingsBindFlags flags = G_SETTINGS_BIND_GET | G_SETTINGS_BIND_SET | G_SETTINGS_BIND_GET_NO_CHANGES;
  CtrMethodPanel *panel = ctr_run_page_get_method_panel (self->run_page);

  self->settings = ctr_settings_new ();
  if (self->settings == NULL)
    {
      g_debug ("GSettings schema org.ctrecon.CtRecon not installed; preferences are not kept");
      return;
    }
  /* the method first: choosing it resets the parameters to its defaults */
  g_settings_bind (self->settings, "default-method", panel, "method-name", flags);
  g_settings_bind_with_mapping (self->settings, "iterations", panel, "iterations", flags,
                                iterations_from_setting, iterations_to_setting, NULL, NULL);
  g_settings_bind (self->settings, "backend", panel, "backend", flags);
}

/* ---- GObject -------------------------------------------------------------- */

static gboolean
ctr_window_close_request (GtkWindow *window)
{
  CtrWindow *self = CTR_WINDOW (window);

  /* unsaved runs: the user answers first (ctr-window-session.c) */
  if (_ctr_window_ask_before_close (self))
    return TRUE;
  _ctr_window_keep_last_session (self);
  g_cancellable_cancel (self->cancellable);
  return GTK_WINDOW_CLASS (ctr_window_parent_class)->close_request (window);
}

static void
ctr_window_dispose (GObject *object)
{
  CtrWindow *self = CTR_WINDOW (object);
  GtkWindow *iq = g_object_steal_data (object, "ctr-iq-window");

  if (iq != NULL)   /* the image-quality window (ctr-iq-panel.h) holds the session */
    gtk_window_destroy (iq);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_results (self->session), self);
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_WINDOW);
  g_clear_object (&self->session);
  g_clear_object (&self->roi_set);
  g_clear_object (&self->settings);
  g_clear_object (&self->recent_section);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->last_folder, g_free);
  g_clear_pointer (&self->session_path, g_free);
  g_clear_pointer (&self->saving_path, g_free);

  G_OBJECT_CLASS (ctr_window_parent_class)->dispose (object);
}

/* Opens the dataset at a URI: the recent-files menu and the open dialogs. */
static void
open_recent_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));
  ctr_window_open (CTR_WINDOW (widget), file);
}

static void
ctr_window_class_init (CtrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ctr_window_dispose;
  window_class->close_request = ctr_window_close_request;

  g_type_ensure (CTR_TYPE_RUN_PAGE);
  g_type_ensure (CTR_TYPE_GEOMETRY_PANEL);
  g_type_ensure (CTR_TYPE_PROFILE_PAGE);
  g_type_ensure (CTR_TYPE_COMPARE_PAGE);
  g_type_ensure (CTR_TYPE_STUDY_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, stack);
  gtk_widget_class_bind_template_child_full (widget_class, "primary_menu_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "empty_page", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, run_page);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, geometry_panel);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, profile_page);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, compare_page);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, study_page);
  /* the header's buttons, named for accessibility tools and tests */
  gtk_widget_class_bind_template_child_full (widget_class, "reconstruct_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "cancel_button", FALSE, 0);

  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  _ctr_window_class_actions_init (klass);
  _ctr_window_session_actions_init (klass);
}

/* A Dose Study row activated: its reconstruction (run @number) beside the
 * reference on Compare, when it is of the open dataset (Compare shows only
 * those). */
static void
on_study_open_run (CtrWindow *self, guint number)
{
  GListModel *runs = ctr_session_get_results (self->session);
  CtrDataset *d = ctr_session_get_dataset (self->session);

  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);

      if (ctr_run_get_number (run) != number)
        continue;
      if (!ctr_run_is_of (run, d))
        {
          g_autofree char *text = g_strdup_printf ("“%s” is a run of %s: open it to compare the run",
                                                   ctr_run_get_label (run), ctr_run_get_dataset (run));
          _ctr_window_toast (self, text);
          return;
        }
      ctr_compare_page_choose_runs (self->compare_page, &number, 1, TRUE);
      adw_view_stack_set_visible_child_name (self->stack, "compare");
      return;
    }
}

static void
ctr_window_init (CtrWindow *self)
{
  GtkDropTarget *drop;

  self->session = ctr_session_new ();
  self->cancellable = g_cancellable_new ();
  gtk_widget_init_template (GTK_WIDGET (self));

  ctr_run_page_set_session (self->run_page, self->session);
  ctr_profile_page_set_session (self->profile_page, self->session);
  ctr_compare_page_set_session (self->compare_page, self->session);
  self->roi_set = ctr_roi_set_new ();
  ctr_run_page_set_roi_set (self->run_page, self->roi_set);
  ctr_profile_page_set_roi_set (self->profile_page, self->roi_set);
  ctr_compare_page_set_roi_set (self->compare_page, self->roi_set);
  ctr_study_page_set_roi_set (self->study_page, self->roi_set);
  ctr_study_page_set_session (self->study_page, self->session);
  g_signal_connect_object (self->session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "notify::busy", G_CALLBACK (_ctr_window_update_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (ctr_session_get_results (self->session), "items-changed",
                           G_CALLBACK (_ctr_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (ctr_session_get_runs (self->session), "items-changed",
                           G_CALLBACK (_ctr_window_update_actions), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->profile_page, "notify::n-curves", G_CALLBACK (_ctr_window_update_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->geometry_panel, "changed", G_CALLBACK (_ctr_window_update_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->geometry_panel, "changed", G_CALLBACK (on_geometry_edited), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->geometry_panel, "reverted", G_CALLBACK (on_geometry_reverted), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run_page, "notify::preset", G_CALLBACK (on_preset), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run_page, "place-changed", G_CALLBACK (on_run_place), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->compare_page, "place-changed", G_CALLBACK (on_compare_place), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->profile_page, "place-changed", G_CALLBACK (on_profile_place), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->study_page, "notify::running", G_CALLBACK (_ctr_window_update_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->study_page, "open-run", G_CALLBACK (on_study_open_run), self, G_CONNECT_SWAPPED);
  {
    /* the projections and sinograms, the pipeline's before and after (ctr-projection-page.h) */
    GtkWidget *projections = ctr_projection_page_new ();
    AdwViewStackPage *page = adw_view_stack_add_titled (self->stack, projections, "projections", "Projections");

    self->projection_page = CTR_PROJECTION_PAGE (projections);

    adw_view_stack_page_set_icon_name (page, "view-grid-symbolic");
    ctr_projection_page_follow_geometry (CTR_PROJECTION_PAGE (projections), self->geometry_panel);
    ctr_projection_page_set_session (CTR_PROJECTION_PAGE (projections), self->session);
  }
  bind_settings (self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  /* the open button's menu: Open Folder…, then recent datasets */
  {
    g_autoptr(GMenu) menu = g_menu_new ();
    g_autoptr(GMenu) folder = g_menu_new ();

    g_menu_append (folder, "Open _Folder…", "win.open-folder");
    g_menu_append_section (menu, NULL, G_MENU_MODEL (folder));
    self->recent_section = g_menu_new ();
    g_menu_append_section (menu, "Recent", G_MENU_MODEL (self->recent_section));
    adw_split_button_set_menu_model (self->open_button, G_MENU_MODEL (menu));
    rebuild_recent_menu (self);
    g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                             G_CALLBACK (rebuild_recent_menu), self, G_CONNECT_SWAPPED);
  }
  _ctr_window_update_actions (self);
  _ctr_window_offer_last_session (self);
}

CtrWindow *
ctr_window_new (GtkApplication *application)
{
  return g_object_new (CTR_TYPE_WINDOW, "application", application, NULL);
}

CtrSession *
ctr_window_get_session (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return self->session;
}
