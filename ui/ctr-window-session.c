/* ctr-window-session.c — the window's sessions: Save Session… and Open
 * Session… (ctr-session-file.h), the question before closing with unsaved
 * runs, and the last session kept on close and offered on the next start.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   win.save-session     Ctrl+S        the runs, images, ROIs, calibration and the
 *                                      Dose Study's table and form: to
 *                                      the session saved or opened last, else as…
 *   win.save-session-as                to a folder chosen
 *   win.open-session     Ctrl+Alt+O    a NAME.ctrsession folder
 *   win.restore-session                the last session (the empty page's button)
 *
 * Closing a window whose runs changed since they were last saved asks
 * first (Save… / Discard / Cancel); a running reconstruction or load is then
 * cancelled.  A window that closes with runs, unless they were discarded,
 * leaves them in $XDG_STATE_HOME/ctrecon/last-session.ctrsession (the
 * application stays until it is written); a new window offers it on its
 * empty page.
 */
#define G_LOG_DOMAIN "ctr-window"

#include "ctr-window-private.h"
#include "ctr-session-file.h"

#define LAST_SESSION "last-session" CTR_SESSION_FILE_SUFFIX

/* $XDG_STATE_HOME/ctrecon/last-session.ctrsession (transfer full). */
static char *
last_session_path (void)
{
  return g_build_filename (g_get_user_state_dir (), "ctrecon", LAST_SESSION, NULL);
}

/* The Dose Study page's form into the session, which saves it. */
static void
sync_study_form (CtrWindow *self)
{
  g_autoptr(CtrStudyForm) form = ctr_study_page_get_form (self->study_page);

  ctr_session_set_study_form (self->session, form);
}

/* ---- opening ------------------------------------------------------------------ */

typedef struct {
  CtrWindow      *window;
  CtrSessionFile *file;
} Opening;

static void
opening_free (Opening *o)
{
  g_object_unref (o->window);
  ctr_session_file_free (o->file);
  g_free (o);
}

/* The saved μ_water and Dose Study form, once the dataset is loaded
 * (loading one sets its own μ_water, I0 and image size), and the newest run of the open dataset (else the newest) on the Run page. */
static void
apply_water (CtrWindow *self, CtrSessionFile *f)
{
  GListModel *open = ctr_session_get_open_results (self->session);
  GListModel *all = ctr_session_get_results (self->session);
  GListModel *shown = g_list_model_get_n_items (open) > 0 ? open : all;
  guint n = g_list_model_get_n_items (shown);

  ctr_roi_set_set_mu_water (self->roi_set, f->mu_water, f->calibrated);
  /* the Dose Study's form; again once the dataset is loaded (a load sets
   * the page's I0 and image size from the data) */
  if (ctr_session_get_study_form (self->session) != NULL)
    ctr_study_page_set_form (self->study_page, ctr_session_get_study_form (self->session));
  /* the pipeline of its runs, over the one the dataset's load showed */
  if (f->preprocess != NULL)
    ctr_pipeline_form_edit_steps (ctr_projection_page_get_form (self->projection_page), f->preprocess);
  {
    /* the status line says where the runs came from (a load said "Dataset loaded") */
    g_autofree char *base = g_path_get_basename (f->path);
    g_autofree char *status = g_strdup_printf (g_dngettext (NULL, "Opened the session %s: %u run",
                                                            "Opened the session %s: %u runs", f->runs->len),
                                               base, f->runs->len);
    ctr_session_set_status (self->session, NULL, status);
  }
  if (n > 0)
    {
      g_autoptr(CtrRun) newest = g_list_model_get_item (shown, n - 1);
      ctr_run_page_show_run (self->run_page, newest);
    }
}

static void dataset_loaded (GObject *source, GAsyncResult *result, gpointer data);

static void
dataset_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  Opening *o = data;
  CtrWindow *self = o->window;
  g_autoptr(GError) error = NULL;
  CtrDicomResolution *question = NULL;
  gboolean ok = ctr_session_load_finish (CTR_SESSION (source), result, &question, &error);
  CtrDataset *d = ok && self->session != NULL ? ctr_session_get_dataset (self->session) : NULL;

  g_clear_pointer (&question, ctr_dicom_resolution_free);
  if (self->session == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      opening_free (o);
      return;
    }
  if (!ok || d == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("The session’s runs, ROIs and calibration are back, but its dataset %s "
                                              "could not be opened: %s",
                                              o->file->dataset_path, error ? error->message : "no dataset");
      _ctr_window_show_error (self, "Dataset Not Opened", msg);
    }
  else if (o->file->variant != NULL && *o->file->variant != '\0' && g_strcmp0 (d->variant, o->file->variant) != 0)
    {
      /* the dose it was saved with: a second load, then the μ_water */
      ctr_session_load_variant_async (self->session, o->file->variant, self->cancellable, dataset_loaded, o);
      return;
    }
  apply_water (self, o->file);
  opening_free (o);
}

static void
session_read (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(CtrWindow) self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrSessionFile) f = ctr_session_file_read_finish (result, &error);
  g_autofree char *base = NULL;
  g_autofree char *msg = NULL;

  if (self->session == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (f == NULL || !ctr_session_restore (self->session, f, self->roi_set, &error))
    {
      _ctr_window_show_error (self, "Could Not Open Session", error->message);
      return;
    }
  base = g_path_get_basename (f->path);
  msg = g_strdup_printf (g_dngettext (NULL, "Opened the session %s: %u run", "Opened the session %s: %u runs",
                                      f->runs->len),
                         base, f->runs->len);
  _ctr_window_toast (self, msg);
  g_free (self->session_path);
  self->session_path = g_strdup (f->path);
  gtk_stack_set_visible_child_name (self->content_stack, "pages");
  apply_water (self, f);
  if (f->dataset_path != NULL)
    {
      Opening *o = g_new0 (Opening, 1);
      o->window = g_object_ref (self);
      o->file = g_steal_pointer (&f);
      ctr_session_load_async (self->session, o->file->dataset_path, NULL, NULL, self->cancellable, dataset_loaded, o);
    }
}

static void
replace_response (AdwMessageDialog *dialog, const char *response, CtrWindow *self)
{
  const char *path = g_object_get_data (G_OBJECT (dialog), "ctr-path");

  if (self->session != NULL && g_str_equal (response, "replace") && !ctr_session_get_busy (self->session) &&
      !ctr_study_page_get_running (self->study_page))
    ctr_session_file_read_async (path, self->cancellable, session_read, g_object_ref (self));
}

void
_ctr_window_open_session (CtrWindow *self, const char *path)
{
  AdwMessageDialog *dialog;
  guint n;
  g_autofree char *body = NULL;

  /* a running dose study would add its runs to the opened session's */
  if (ctr_session_get_busy (self->session) || ctr_study_page_get_running (self->study_page))
    {
      _ctr_window_toast (self, "Cancel the running job before opening a session");
      return;
    }
  if (!ctr_session_get_unsaved (self->session))
    {
      ctr_session_file_read_async (path, self->cancellable, session_read, g_object_ref (self));
      return;
    }
  /* the session's runs replace the window's: not without asking */
  n = g_list_model_get_n_items (ctr_session_get_runs (self->session));
  body = g_strdup_printf (g_dngettext (NULL, "The session’s runs replace the %u run of this window, which has not "
                                             "been saved (Save Session… keeps it).",
                                       "The session’s runs replace the %u runs of this window, which have not all "
                                       "been saved (Save Session… keeps them).", n),
                          n);
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), "Replace the Unsaved Runs?", body));
  adw_message_dialog_add_responses (dialog, "cancel", "_Cancel", "replace", "_Replace", NULL);
  adw_message_dialog_set_response_appearance (dialog, "replace", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "ctr-path", g_strdup (path), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (replace_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
open_session_response (GtkNativeDialog *native, int response, CtrWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path == NULL)
        _ctr_window_toast (self, "Only local sessions can be opened");
      else
        _ctr_window_open_session (self, path);
    }
  g_object_unref (native);
}

static void
open_session_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native =
    _ctr_window_new_chooser (self, "Open Session (a .ctrsession folder)", GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                             "_Open", G_USER_DIRECTORY_DOCUMENTS);

  if (self->session_path != NULL)
    {
      g_autoptr(GFile) f = g_file_new_for_path (self->session_path);
      g_autoptr(GFile) dir = g_file_get_parent (f);
      if (dir != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
    }
  g_signal_connect (native, "response", G_CALLBACK (open_session_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
restore_session_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  g_autofree char *path = last_session_path ();
  _ctr_window_open_session (CTR_WINDOW (widget), path);
}

/* ---- saving ------------------------------------------------------------------- */

static void
session_saved (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(CtrWindow) self = data;
  g_autoptr(GError) error = NULL;
  int n = ctr_session_save_finish (CTR_SESSION (source), result, &error);
  const char *path = self->saving_path;

  if (self->session == NULL)
    return;
  if (n < 0)
    {
      self->close_after_save = FALSE;
      _ctr_window_show_error (self, "Could Not Save Session", error->message);
      return;
    }
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *msg = g_strdup_printf (g_dngettext (NULL, "Saved the session %s: %d run",
                                                         "Saved the session %s: %d runs", n),
                                            base, n);
    _ctr_window_toast (self, msg);
  }
  g_free (self->session_path);
  self->session_path = g_strdup (path);
  if (self->close_after_save)
    gtk_window_close (GTK_WINDOW (self));
}

void
_ctr_window_save_session (CtrWindow *self, const char *chosen)
{
  g_autofree char *path = ctr_session_file_with_suffix (chosen);
  GCancellable *c = g_cancellable_new ();

  /* its own cancellable: closing after Save… must not stop the save */
  sync_study_form (self);
  ctr_session_save_async (self->session, self->roi_set, path, c, session_saved, g_object_ref (self));
  g_object_unref (c);
  g_free (self->saving_path);
  self->saving_path = g_steal_pointer (&path);
}

static void
save_session_response (GtkNativeDialog *native, int response, CtrWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path == NULL)
        _ctr_window_toast (self, "Only local files can be written");
      else
        _ctr_window_save_session (self, path);
    }
  else
    self->close_after_save = FALSE;
  g_object_unref (native);
}

/* win.save-session: the session saved or opened last, again (not the last
 * session kept on close: that one is the application's); else, and for
 * win.save-session-as, a name chosen. */
static void
save_session_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  g_autofree char *last = last_session_path ();
  GtkFileChooserNative *native;
  g_autofree char *name = NULL;

  if (g_str_equal (action_name, "win.save-session") && self->session_path != NULL &&
      g_strcmp0 (self->session_path, last) != 0 && ctr_session_file_is_session (self->session_path))
    {
      g_autofree char *again = g_strdup (self->session_path);
      _ctr_window_save_session (self, again);
      return;
    }
  native = _ctr_window_new_chooser (self, "Save Session", GTK_FILE_CHOOSER_ACTION_SAVE, "_Save",
                                    G_USER_DIRECTORY_DOCUMENTS);
  name = self->session_path ? g_path_get_basename (self->session_path) : g_strdup ("session" CTR_SESSION_FILE_SUFFIX);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_signal_connect (native, "response", G_CALLBACK (save_session_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ---- closing ------------------------------------------------------------------- */

static void
close_response (AdwMessageDialog *dialog, const char *response, CtrWindow *self)
{
  if (self->session == NULL)
    return;
  if (g_str_equal (response, "discard"))
    {
      self->close_confirmed = TRUE;
      self->discarded = TRUE;
      gtk_window_close (GTK_WINDOW (self));
    }
  else if (g_str_equal (response, "save"))
    {
      self->close_after_save = TRUE;
      gtk_widget_activate_action (GTK_WIDGET (self), "win.save-session", NULL);
    }
}

gboolean
_ctr_window_ask_before_close (CtrWindow *self)
{
  AdwMessageDialog *dialog;
  guint n;
  g_autoptr(GString) body = g_string_new (NULL);

  if (self->close_confirmed || self->session == NULL || !ctr_session_get_unsaved (self->session))
    return FALSE;
  n = g_list_model_get_n_items (ctr_session_get_runs (self->session));
  g_string_append_printf (body, g_dngettext (NULL, "The window holds %u run that has not been saved",
                                             "The window holds %u runs that have not all been saved", n), n);
  if (ctr_session_get_running (self->session))
    g_string_append (body, "; the running reconstruction will be cancelled");
  g_string_append_printf (body, ". Save %s as a session to open %s again later, with the images, ROIs and water "
                                "calibration.", n == 1 ? "it" : "them", n == 1 ? "it" : "them");
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), "Save the Runs Before Closing?", NULL));
  adw_message_dialog_set_body (dialog, body->str);
  adw_message_dialog_add_responses (dialog, "cancel", "_Cancel", "discard", "_Discard", "save", "_Save…", NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "save");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (close_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static void
last_saved (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr(GError) error = NULL;

  if (ctr_session_save_finish (CTR_SESSION (source), result, &error) < 0)
    g_message ("The last session could not be kept: %s", error->message);
  g_application_release (G_APPLICATION (data));
  g_object_unref (data);
}

void
_ctr_window_keep_last_session (CtrWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autofree char *path = last_session_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  gboolean has_runs = FALSE;
  GListModel *runs = ctr_session_get_runs (self->session);

  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      has_runs |= ctr_run_get_state (run) != CTR_RUN_RUNNING;
    }
  if (self->discarded || !has_runs || app == NULL || g_mkdir_with_parents (dir, 0700) != 0)
    return;
  /* the application stays until the session is written */
  g_application_hold (G_APPLICATION (app));
  sync_study_form (self);
  ctr_session_save_async (self->session, self->roi_set, path, NULL, last_saved, g_object_ref (app));
}

/* The empty page offers the last session when there is one. */
void
_ctr_window_offer_last_session (CtrWindow *self)
{
  g_autofree char *path = last_session_path ();
  g_autofree char *manifest = g_build_filename (path, CTR_SESSION_FILE_MANIFEST, NULL);
  GtkWidget *button = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (self), CTR_TYPE_WINDOW, "restore_button");
  GtkWidget *label = (GtkWidget *) gtk_widget_get_template_child (GTK_WIDGET (self), CTR_TYPE_WINDOW, "restore_label");
  g_autoptr(GFile) file = g_file_new_for_path (manifest);
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_TIME_MODIFIED, G_FILE_QUERY_INFO_NONE,
                                                 NULL, NULL);
  g_autoptr(GDateTime) when = info ? g_file_info_get_modification_date_time (info) : NULL;
  g_autoptr(GDateTime) local = when ? g_date_time_to_local (when) : NULL;
  g_autofree char *stamp = local ? g_date_time_format (local, "%x %H:%M") : NULL;
  g_autofree char *text = stamp ? g_strdup_printf ("The runs, images and ROIs of the window closed on %s", stamp)
                                : NULL;

  gtk_widget_set_visible (button, text != NULL);
  gtk_widget_set_visible (label, text != NULL);
  if (text != NULL)
    gtk_label_set_text (GTK_LABEL (label), text);
}

void
_ctr_window_session_actions_init (CtrWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_bind_template_child_full (widget_class, "restore_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "restore_label", FALSE, 0);
  gtk_widget_class_install_action (widget_class, "win.save-session", NULL, save_session_action);
  gtk_widget_class_install_action (widget_class, "win.save-session-as", NULL, save_session_action);
  gtk_widget_class_install_action (widget_class, "win.open-session", NULL, open_session_action);
  gtk_widget_class_install_action (widget_class, "win.restore-session", NULL, restore_session_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save-session", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK | GDK_ALT_MASK,
                                       "win.open-session", NULL);
}
