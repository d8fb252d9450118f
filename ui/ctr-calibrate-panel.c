/* ctr-calibrate-panel.c — Calibrate… (see ctr-calibrate-panel.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout, top to bottom: the progress row (bar, status, Cancel / Calibrate
 * Again); the methods' table (one row per estimate, labels named
 * "centre-METHOD", "sigma-METHOD", "offset-METHOD", "quality-METHOD",
 * "note-METHOD" for the tests); the answer, tilt and agreement lines
 * ("answer", "tilt", "agreement"); the two plots (search, cross-check);
 * Apply and Save As….  The numbers are printed as `ctrecon-cli calibrate`
 * prints them (3 decimals of a column, 6 significant digits of an offset).
 */
#define G_LOG_DOMAIN "ctr-calibrate"

#include <math.h>
#include <unistd.h>

#include "ctr-calibrate-panel.h"
#include "ctr-calibrate-plot.h"

struct _CtrCalibratePanel
{
  GtkWidget         parent_instance;

  CtrSession       *session;
  GWeakRef          geometry_panel;   /* CtrGeometryPanel */
  GCancellable     *cancellable;      /* the running calibration's; NULL when idle */
  guint             pulse_id;
  gboolean          has_result;
  CtrCalibResult    result;
  CtrGeometry      *geometry;         /* the geometry the result is of */
  char             *source;           /* its geometry.json, nullable (DICOM, bare TIFF) */
  char             *error;
  char             *saved;            /* the last Save As…, nullable */

  GtkWidget        *box;
  GtkProgressBar   *progress;
  GtkLabel         *status;
  GtkGrid          *table;
  GtkLabel         *answer, *tilt, *agreement;
  CtrCalibratePlot *search_plot, *check_plot;
};

G_DEFINE_FINAL_TYPE (CtrCalibratePanel, ctr_calibrate_panel, GTK_TYPE_WIDGET)

/* ---- the worker -------------------------------------------------------------- */

typedef struct {
  CtrGeometry    *geometry;
  CtrProjections *projections;
  CtrCalibResult  result;
} Job;

static void
job_free (Job *job)
{
  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->projections, ctr_projections_unref);
  g_free (job);
}

static void
calibrate_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;
  if (ctr_calibrate (job->geometry, job->projections, NULL, &job->result, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* ---- showing a result -------------------------------------------------------- */

static const char *
unit_of (const CtrGeometry *g)
{
  return g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED ? "rad" : "mm";
}

static GtkWidget *
cell (CtrCalibratePanel *self, int column, int row, const char *name, const char *text, gboolean numeric)
{
  GtkWidget *label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  if (name != NULL)
    gtk_widget_set_name (label, name);
  gtk_label_set_wrap (GTK_LABEL (label), !numeric);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_grid_attach (self->table, label, column, row, 1, 1);
  return label;
}

static void
clear_table (CtrCalibratePanel *self)
{
  GtkWidget *child;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->table))) != NULL)
    gtk_grid_remove (self->table, child);
  static const char *const heads[] = { "Method", "Centre column", "±", "Offset u", "Quality", "" };
  for (guint i = 0; i < G_N_ELEMENTS (heads); i++)
    {
      GtkWidget *h = cell (self, (int) i, 0, NULL, heads[i], i > 0 && i < 5);
      gtk_widget_add_css_class (h, "heading");
    }
}

static void
show_estimate (CtrCalibratePanel *self, const CtrCalibEstimate *e, int row)
{
  const CtrGeometry *g = self->geometry;
  const char *m = ctr_calib_method_name (e->method);
  g_autofree char *title = g_strdup_printf ("%s%s", m, e->cross_check ? " (cross-check)" : "");
  g_autofree char *n_centre = g_strdup_printf ("centre-%s", m), *n_sigma = g_strdup_printf ("sigma-%s", m);
  g_autofree char *n_offset = g_strdup_printf ("offset-%s", m), *n_quality = g_strdup_printf ("quality-%s", m);
  g_autofree char *n_note = g_strdup_printf ("note-%s", m);
  cell (self, 0, row, NULL, title, FALSE);
  if (e->ok)
    {
      g_autofree char *c = g_strdup_printf ("%.3f", e->centre_col);
      g_autofree char *s = isfinite (e->sigma_col) ? g_strdup_printf ("%.3f", e->sigma_col) : g_strdup ("—");
      g_autofree char *o = g_strdup_printf ("%.6g %s", ((g->n_cols - 1) / 2.0 - e->centre_col) * g->pitch_u,
                                            unit_of (g));
      g_autofree char *q = g_strdup_printf ("%.3f", e->quality);
      cell (self, 1, row, n_centre, c, TRUE);
      cell (self, 2, row, n_sigma, s, TRUE);
      cell (self, 3, row, n_offset, o, TRUE);
      cell (self, 4, row, n_quality, q, TRUE);
      cell (self, 5, row, n_note, e->note, FALSE);
    }
  else
    {
      g_autofree char *why = g_strdup_printf ("not used: %s", e->note);
      GtkWidget *w = cell (self, 1, row, n_note, why, FALSE);
      g_object_ref (w);
      gtk_grid_remove (self->table, w);
      gtk_grid_attach (self->table, w, 1, row, 5, 1);
      g_object_unref (w);
    }
}

static void
show_result (CtrCalibratePanel *self)
{
  const CtrCalibResult *r = &self->result;
  const CtrGeometry *g = self->geometry;
  clear_table (self);
  for (guint i = 0; i < r->n_estimates; i++)
    show_estimate (self, &r->estimates[i], (int) i + 1);
  g_autofree char *answer = g_strdup_printf ("<b>%s column %.3f ± %.3f: detector offset u = %.6g ± %.3g %s</b> "
                                             "(the geometry states %.6g, column %.3f)",
                                             g->beam == CTR_BEAM_PARALLEL ? "Axis at" : "Central ray at",
                                             r->centre_col, r->sigma_col, r->offset_u, r->sigma_offset_u,
                                             unit_of (g), g->offset_u, r->stated_centre_col);
  gtk_label_set_markup (self->answer, answer);
  double stated = 0;
  if (self->source != NULL)
    ctr_calib_stated_tilt (self->source, &stated, NULL);
  const double written = ctr_calib_written_tilt (g, r, stated);
  g_autofree char *tilt = !isfinite (r->tilt_rad)
    ? g_strdup ("Detector tilt: not measured (it needs a parallel beam with rows in three blocks or more)")
    : g_strdup_printf ("Detector tilt %.4f° ± %.4f° left in the data (the geometry stated %.4f°): %s",
                       r->tilt_rad * 180 / G_PI, r->sigma_tilt_rad * 180 / G_PI, stated * 180 / G_PI,
                       isfinite (written) ? "Save As… writes detector_tilt_rad, Open Saved loads the "
                                            "projections turned by it"
                                          : fabs (r->tilt_rad) <= 2 * r->sigma_tilt_rad
                                          ? "not significant, detector_tilt_rad left as it was"
                                          : "under a quarter column over half the rows, detector_tilt_rad left as it "
                                            "was");
  gtk_label_set_label (self->tilt, tilt);
  const char *disagree = ctr_calib_disagreement (r);
  g_autofree char *agree = disagree != NULL ? g_strdup_printf ("⚠ %c%s", g_ascii_toupper (disagree[0]), disagree + 1)
                           : g_strdup ("The methods agree within their uncertainty");
  gtk_label_set_label (self->agreement, agree);
  if (disagree != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->agreement), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->agreement), "warning");
  ctr_calibrate_plot_set_result (self->search_plot, r);
  ctr_calibrate_plot_set_result (self->check_plot, r);
}

static void
update_actions (CtrCalibratePanel *self)
{
  const gboolean busy = self->cancellable != NULL;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "calibrate.run",
                                 !busy && self->session != NULL && ctr_session_get_dataset (self->session) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "calibrate.cancel", busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "calibrate.apply", !busy && self->has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "calibrate.save-as",
                                 !busy && self->has_result && self->source != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "calibrate.open-saved", !busy && self->saved != NULL);
}

static gboolean
pulse (gpointer data)
{
  gtk_progress_bar_pulse (GTK_PROGRESS_BAR (data));
  return G_SOURCE_CONTINUE;
}

static void
set_busy (CtrCalibratePanel *self, gboolean busy)
{
  if (busy && self->pulse_id == 0)
    self->pulse_id = g_timeout_add (100, pulse, self->progress);
  else if (!busy)
    {
      g_clear_handle_id (&self->pulse_id, g_source_remove);
      gtk_progress_bar_set_fraction (self->progress, self->has_result ? 1.0 : 0.0);
    }
  update_actions (self);
}

static void
calibrated (GObject *source, GAsyncResult *res, gpointer data)
{
  CtrCalibratePanel *self = data;   /* a reference held by the task */
  Job *job = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;
  GCancellable *mine = g_task_get_cancellable (G_TASK (res));

  if (self->cancellable == mine)   /* else a newer run replaced this one */
    {
      g_clear_object (&self->cancellable);
      if (g_task_propagate_boolean (G_TASK (res), &error))
        {
          self->has_result = TRUE;
          self->result = job->result;
          gtk_label_set_label (self->status, "Calibrated from the projections as loaded");
          show_result (self);
        }
      else
        {
          g_free (self->error);
          self->error = g_strdup (error->message);
          g_autofree char *msg = g_strdup_printf ("%s: %s", g_error_matches (error, G_IO_ERROR,
                                                  G_IO_ERROR_CANCELLED) ? "Cancelled" : "Could not calibrate",
                                                  error->message);
          gtk_label_set_label (self->status, msg);
        }
      set_busy (self, FALSE);
    }
  g_object_unref (self);
}

/* ---- public ------------------------------------------------------------------- */

void
ctr_calibrate_panel_run (CtrCalibratePanel *self)
{
  g_return_if_fail (CTR_IS_CALIBRATE_PANEL (self));
  CtrDataset *d = ctr_session_get_dataset (self->session);
  g_autoptr (GError) error = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->has_result = FALSE;
  g_clear_pointer (&self->error, g_free);
  self->error = g_strdup ("");
  clear_table (self);
  gtk_label_set_label (self->answer, "");
  gtk_label_set_label (self->tilt, "");
  gtk_label_set_label (self->agreement, "");
  ctr_calibrate_plot_set_result (self->search_plot, NULL);
  ctr_calibrate_plot_set_result (self->check_plot, NULL);
  g_clear_pointer (&self->geometry, ctr_geometry_free);
  g_clear_pointer (&self->source, g_free);
  if (d == NULL || (self->geometry = ctr_geometry_try_copy (d->geometry, &error)) == NULL)
    {
      gtk_label_set_label (self->status, d == NULL ? "No dataset is open" : error->message);
      set_busy (self, FALSE);
      return;
    }
  if (d->path != NULL && d->projection_spec == NULL && g_str_has_suffix (d->path, ".json")
      && g_file_test (d->path, G_FILE_TEST_IS_REGULAR))
    self->source = g_strdup (d->path);
  Job *job = g_new0 (Job, 1);
  job->geometry = ctr_geometry_try_copy (d->geometry, NULL);
  job->projections = ctr_projections_ref (d->projections);
  self->cancellable = g_cancellable_new ();
  GTask *task = g_task_new (NULL, self->cancellable, calibrated, g_object_ref (self));
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  if (job->geometry == NULL)
    {
      g_task_return_new_error (task, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "no memory for a copy of the geometry");
      g_object_unref (task);
      return;
    }
  gtk_label_set_label (self->status, d->geometry->beam == CTR_BEAM_PARALLEL
                       ? "Finding the rotation axis: 180° pairs registered, Vo 2014's metric, then the entropy "
                         "of FBP slices as a cross-check…"
                       : "Finding the central ray: the consistency of conjugate rays, then the entropy of FBP "
                         "slices as a cross-check…");
  set_busy (self, TRUE);
  g_task_run_in_thread (task, calibrate_thread);
  g_object_unref (task);
}

gboolean
ctr_calibrate_panel_get_busy (CtrCalibratePanel *self)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PANEL (self), FALSE);
  return self->cancellable != NULL;
}

const CtrCalibResult *
ctr_calibrate_panel_get_result (CtrCalibratePanel *self)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PANEL (self), NULL);
  return self->has_result ? &self->result : NULL;
}

const char *
ctr_calibrate_panel_get_error (CtrCalibratePanel *self)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PANEL (self), "");
  return self->error != NULL ? self->error : "";
}

gboolean
ctr_calibrate_panel_apply (CtrCalibratePanel *self)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PANEL (self), FALSE);
  g_autoptr (CtrGeometryPanel) gp = g_weak_ref_get (&self->geometry_panel);
  if (!self->has_result || gp == NULL)
    return FALSE;
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (text, sizeof text, "%.8g", self->result.offset_u);
  ctr_geometry_panel_set_text (gp, "offset-u", text);
  /* the tilt Save As… would write: the window's next runs read the data
   * turned by it (ctr_session_set_detector_tilt) */
  double stated = 0;
  if (self->source != NULL)
    ctr_calib_stated_tilt (self->source, &stated, NULL);
  const double tilt = self->source != NULL ? ctr_calib_written_tilt (self->geometry, &self->result, stated) : NAN;
  if (isfinite (tilt))
    ctr_session_set_detector_tilt (self->session, tilt);
  g_autofree char *msg = isfinite (tilt)
    ? g_strdup_printf ("Offset u set to %s %s on the Geometry page (Revert there returns to the file's); detector "
                       "tilt %.4f° applied: the next run reads the projections turned by it, Save geometry.json… "
                       "writes it", text, unit_of (self->geometry), tilt * 180 / G_PI)
    : g_strdup_printf ("Offset u set to %s %s on the Geometry page (Revert there returns to the file's)", text,
                       unit_of (self->geometry));
  gtk_label_set_label (self->status, msg);
  return TRUE;
}

gboolean
ctr_calibrate_panel_save (CtrCalibratePanel *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PANEL (self) && path != NULL, FALSE);
  if (!self->has_result || self->source == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "%s", !self->has_result
                   ? "Nothing to save: calibrate first"
                   : "This dataset has no geometry.json to copy: Apply, then save the Geometry page's geometry");
      return FALSE;
    }
  /* the dataset's files and everything its geometry.json names are inputs */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (ctr_session_get_dataset (self->session));
  const guint index = ctr_output_set_add (outputs, path, CTR_OUTPUT_FILE, "Save As");
  if (!ctr_output_set_add_geometry (outputs, self->source, error) || !ctr_output_set_check (outputs, error))
    return FALSE;
  if (!ctr_calib_stage_geometry (outputs, index, self->source, self->geometry, &self->result, NULL, error)
      || !ctr_output_set_commit (outputs, error))
    return FALSE;
  g_autofree char *msg = g_strdup_printf ("Saved %s: Open Saved loads it (with its tilt, when written)", path);
  gtk_label_set_label (self->status, msg);
  g_free (self->saved);
  self->saved = g_canonicalize_filename (path, NULL);
  update_actions (self);
  return TRUE;
}

/* ---- actions ------------------------------------------------------------------ */

static void
run_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ctr_calibrate_panel_run (CTR_CALIBRATE_PANEL (widget));
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrCalibratePanel *self = CTR_CALIBRATE_PANEL (widget);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static void
apply_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ctr_calibrate_panel_apply (CTR_CALIBRATE_PANEL (widget));
}

static void
save_response (GtkNativeDialog *native, int response, CtrCalibratePanel *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr (GError) error = NULL;
      if (path != NULL && !ctr_calibrate_panel_save (self, path, &error))
        {
          g_autofree char *msg = g_strdup_printf ("Could not save %s: %s", path, error->message);
          gtk_label_set_label (self->status, msg);
        }
    }
  g_object_unref (native);
  g_object_unref (self);
}

/* Save As…: a chooser over the main window, in the dataset's folder, named
 * after the dataset's geometry.json ("geometry-calibrated.json"). */
static void
save_as_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrCalibratePanel *self = CTR_CALIBRATE_PANEL (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWindow *parent = GTK_IS_WINDOW (root) ? gtk_window_get_transient_for (GTK_WINDOW (root)) : NULL;
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Save Calibrated Geometry", parent != NULL ? parent : GTK_WINDOW (root),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
  if (self->source != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self->source);
      g_autoptr (GFile) folder = g_file_new_for_path (dir);
      if (g_file_test (dir, G_FILE_TEST_IS_DIR) && access (dir, W_OK) == 0)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), "geometry-calibrated.json");
  g_signal_connect (native, "response", G_CALLBACK (save_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* Open Saved: the main window opens the calibrated geometry.json (its
 * projections loaded again, turned by a tilt it states). */
static void
open_saved_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrCalibratePanel *self = CTR_CALIBRATE_PANEL (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWindow *parent = GTK_IS_WINDOW (root) ? gtk_window_get_transient_for (GTK_WINDOW (root)) : NULL;
  if (self->saved == NULL || parent == NULL)
    return;
  g_autofree char *uri = g_filename_to_uri (self->saved, NULL, NULL);
  if (uri != NULL)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.open-recent", "s", uri);
}

/* Another dataset: the result was the last one's. */
static void
on_dataset (CtrCalibratePanel *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->has_result = FALSE;
  g_clear_pointer (&self->source, g_free);
  g_clear_pointer (&self->saved, g_free);
  clear_table (self);
  gtk_label_set_label (self->answer, "");
  gtk_label_set_label (self->tilt, "");
  gtk_label_set_label (self->agreement, "");
  gtk_label_set_label (self->status, "Another dataset is open: calibrate it again");
  ctr_calibrate_plot_set_result (self->search_plot, NULL);
  ctr_calibrate_plot_set_result (self->check_plot, NULL);
  set_busy (self, FALSE);
}

/* ---- GObject ------------------------------------------------------------------- */

static void
ctr_calibrate_panel_dispose (GObject *object)
{
  CtrCalibratePanel *self = CTR_CALIBRATE_PANEL (object);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->pulse_id, g_source_remove);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_object (&self->session);
  g_weak_ref_set (&self->geometry_panel, NULL);
  G_OBJECT_CLASS (ctr_calibrate_panel_parent_class)->dispose (object);
}

static void
ctr_calibrate_panel_finalize (GObject *object)
{
  CtrCalibratePanel *self = CTR_CALIBRATE_PANEL (object);
  g_clear_pointer (&self->geometry, ctr_geometry_free);
  g_free (self->source);
  g_free (self->error);
  g_free (self->saved);
  g_weak_ref_clear (&self->geometry_panel);
  G_OBJECT_CLASS (ctr_calibrate_panel_parent_class)->finalize (object);
}

static void
ctr_calibrate_panel_class_init (CtrCalibratePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  object_class->dispose = ctr_calibrate_panel_dispose;
  object_class->finalize = ctr_calibrate_panel_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_install_action (widget_class, "calibrate.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "calibrate.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "calibrate.apply", NULL, apply_action);
  gtk_widget_class_install_action (widget_class, "calibrate.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "calibrate.open-saved", NULL, open_saved_action);
}

static GtkWidget *
button (const char *label, const char *action, const char *tooltip)
{
  GtkWidget *b = gtk_button_new_with_mnemonic (label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tooltip);
  return b;
}

static GtkWidget *
line (GtkLabel **out, const char *name)
{
  GtkWidget *l = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  gtk_widget_set_name (l, name);
  *out = GTK_LABEL (l);
  return l;
}

static void
ctr_calibrate_panel_init (CtrCalibratePanel *self)
{
  g_weak_ref_init (&self->geometry_panel, NULL);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 10);
  gtk_widget_set_margin_start (self->box, 16);
  gtk_widget_set_margin_end (self->box, 16);
  gtk_widget_set_margin_top (self->box, 12);
  gtk_widget_set_margin_bottom (self->box, 12);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *status_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  self->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->progress), GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (status_box), GTK_WIDGET (self->progress));
  gtk_box_append (GTK_BOX (status_box), line (&self->status, "status"));
  gtk_label_set_selectable (self->status, FALSE);
  gtk_widget_set_hexpand (status_box, TRUE);
  gtk_box_append (GTK_BOX (top), status_box);
  gtk_box_append (GTK_BOX (top), button ("_Cancel", "calibrate.cancel", "Stop the calibration"));
  gtk_box_append (GTK_BOX (top), button ("Calibrate _Again", "calibrate.run",
                                         "Find the centre again from the open dataset's projections"));
  gtk_box_append (GTK_BOX (self->box), top);

  self->table = GTK_GRID (gtk_grid_new ());
  gtk_grid_set_column_spacing (self->table, 18);
  gtk_grid_set_row_spacing (self->table, 4);
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->table));
  clear_table (self);
  gtk_box_append (GTK_BOX (self->box), line (&self->answer, "answer"));
  gtk_box_append (GTK_BOX (self->box), line (&self->tilt, "tilt"));
  gtk_box_append (GTK_BOX (self->box), line (&self->agreement, "agreement"));

  GtkWidget *plots = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  self->search_plot = CTR_CALIBRATE_PLOT (ctr_calibrate_plot_new (FALSE));
  self->check_plot = CTR_CALIBRATE_PLOT (ctr_calibrate_plot_new (TRUE));
  gtk_box_append (GTK_BOX (plots), GTK_WIDGET (self->search_plot));
  gtk_box_append (GTK_BOX (plots), GTK_WIDGET (self->check_plot));
  gtk_widget_set_vexpand (plots, TRUE);
  gtk_box_append (GTK_BOX (self->box), plots);

  GtkWidget *bottom = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *apply = button ("_Apply", "calibrate.apply",
                             "Put the offset found into the Geometry page (Revert there returns to the file's)");
  gtk_widget_add_css_class (apply, "suggested-action");
  gtk_widget_set_halign (bottom, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (bottom), button ("_Save As…", "calibrate.save-as",
                                            "Write a new geometry.json: the dataset's with the offset (and a "
                                            "significant tilt) replaced; never over the dataset's own"));
  gtk_box_append (GTK_BOX (bottom), button ("_Open Saved", "calibrate.open-saved",
                                            "Open the calibrated geometry.json saved last: its projections load "
                                            "again, turned by the tilt it states"));
  gtk_box_append (GTK_BOX (bottom), apply);
  gtk_box_append (GTK_BOX (self->box), bottom);
  update_actions (self);
}

GtkWidget *
ctr_calibrate_panel_new (CtrSession *session, CtrGeometryPanel *geometry)
{
  g_return_val_if_fail (CTR_IS_SESSION (session), NULL);
  CtrCalibratePanel *self = g_object_new (CTR_TYPE_CALIBRATE_PANEL, NULL);
  self->session = g_object_ref (session);
  g_weak_ref_set (&self->geometry_panel, geometry);
  g_signal_connect_object (session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
  update_actions (self);
  return GTK_WIDGET (self);
}

CtrCalibratePanel *
ctr_calibrate_panel_present (GtkWindow *parent, CtrSession *session, CtrGeometryPanel *geometry)
{
  GtkWindow *window = g_object_get_data (G_OBJECT (parent), "ctr-calibrate-window");
  if (window == NULL)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      window = GTK_WINDOW (adw_window_new ());
      gtk_window_set_title (window, "Calibrate");
      gtk_window_set_transient_for (window, parent);
      gtk_window_set_destroy_with_parent (window, TRUE);
      gtk_window_set_hide_on_close (window, TRUE);
      gtk_window_set_default_size (window, 1100, 760);
      gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
      gtk_box_append (GTK_BOX (box), ctr_calibrate_panel_new (session, geometry));
      adw_window_set_content (ADW_WINDOW (window), box);
      g_object_set_data (G_OBJECT (parent), "ctr-calibrate-window", window);
    }
  CtrCalibratePanel *panel =
    CTR_CALIBRATE_PANEL (gtk_widget_get_last_child (adw_window_get_content (ADW_WINDOW (window))));
  gtk_window_present (window);
  if (!panel->has_result && panel->cancellable == NULL)
    ctr_calibrate_panel_run (panel);
  return panel;
}
