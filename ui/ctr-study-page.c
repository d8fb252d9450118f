/* ctr-study-page.c — the Dose study page (ctr-study-page.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run builds a CtrStudy from the form (doses, I0, seed, grid, the listed
 * method configurations, the ROIs) and runs it with ctr_study_run() in a
 * GTask thread on a private view of the dataset (geometry copied,
 * projections and reference referenced), so opening another dataset
 * meanwhile cannot pull the data from under it.  The study's progress
 * callback copies what it reports (the stage, the fraction, a finished row)
 * into a message that g_main_context_invoke_full() hands to the main
 * thread, as GLib's gfile.c reports progress; iterations are posted at most
 * every 50 ms, rows and stages always.  The table (GtkColumnView over a
 * GListStore of CtrStudyRowItem) grows a row per finished run and the
 * figure (ctr_study_plot_draw, which locks the study's rows) is redrawn.
 * Cancel cancels the study's GCancellable: the solvers stop between views
 * and the rows that finished stay.  Export writes the study's
 * ctr_study_write_csv and ctr_study_plot_write_png (1400 × 620, the CLI's
 * default size) into a folder, each to a temporary file renamed into place,
 * after ctr_output_path_check keeps them off the dataset's files.  The form
 * (doses, ROIs, the list of methods) is read in ctr-study-page-form.c, the
 * I0 row (stated, or estimated in a worker thread) is ctr-study-page-dose.c.
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include <math.h>
#include <string.h>

#include "ctr-study-page-private.h"
#include "ctr-study-row.h"
#include "study/ctr-study-plot.h"
#include "study/ctr-study-rows.h"

#define PNG_WIDTH 1400
#define PNG_HEIGHT 620
#define ITERATION_POST_US (50 * 1000)

/* One run of the study: shared by the page (the one shown) and its thread. */
struct _CtrStudyJob {
  CtrStudy     *study;
  CtrDataset   *dataset;      /* a private view of the session's dataset */
  GCancellable *cancellable;
  GWeakRef      page;
  GMainContext *context;
  int           cnr_roi;      /* the measure ROI whose CNR the table shows; -1: none */
  GArray       *options;      /* CtrReconOptions of every method configuration, by index */
  gint64        last_post_us; /* worker thread only */
  gint64        start_us;
};
typedef CtrStudyJob Job;

static void
job_clear (Job *job)
{
  ctr_study_free (job->study);
  ctr_dataset_free (job->dataset);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->options, g_array_unref);
  g_weak_ref_clear (&job->page);
  g_main_context_unref (job->context);
}

static Job *
job_ref (Job *job)
{
  return g_atomic_rc_box_acquire (job);
}

static void
job_unref (Job *job)
{
  g_atomic_rc_box_release_full (job, (GDestroyNotify) job_clear);
}

G_DEFINE_FINAL_TYPE (CtrStudyPage, ctr_study_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_RUNNING,
  PROP_STATUS,
  PROP_ESTIMATING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_OPEN_RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- state ------------------------------------------------------------------- */

static void
update_actions (CtrStudyPage *self)
{
  gboolean have_data = self->session != NULL && ctr_session_get_dataset (self->session) != NULL;
  gboolean busy = self->session != NULL && ctr_session_get_busy (self->session);
  /* the data's I0 is being estimated: Run waits for it, unless one is typed */
  gboolean dose_known = !self->estimating || gtk_spin_button_get_value (self->i0_spin) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "study.run", have_data && !busy && !self->running && dose_known);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "study.cancel", self->running);
  /* a table restored from a saved session has no study to export */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "study.export",
                                 !self->running && self->job != NULL &&
                                 g_list_model_get_n_items (G_LIST_MODEL (self->rows)) > 0);
  _ctr_study_page_update_rois_action (self);
}

/* The status line; @error styles it as a refusal. */
void
_ctr_study_page_set_status (CtrStudyPage *self, const char *text, gboolean error)
{
  if (g_strcmp0 (self->status, text) != 0)
    {
      g_free (self->status);
      self->status = g_strdup (text);
      gtk_label_set_label (self->status_label, text);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
    }
  if (error)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
}

void
_ctr_study_page_set_estimating (CtrStudyPage *self, gboolean estimating)
{
  if (self->estimating == estimating)
    return;
  self->estimating = estimating;
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ESTIMATING]);
}

static void
set_running (CtrStudyPage *self, gboolean running)
{
  if (self->running == running)
    return;
  self->running = running;
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
show_error (CtrStudyPage *self, const char *heading, const char *message)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  AdwMessageDialog *dialog;

  _ctr_study_page_set_status (self, message, TRUE);
  if (!GTK_IS_WINDOW (root))
    return;
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (root), heading, NULL));
  adw_message_dialog_format_body (dialog, "%s", message);
  adw_message_dialog_add_response (dialog, "close", "_Close");
  adw_message_dialog_set_default_response (dialog, "close");
  adw_message_dialog_set_close_response (dialog, "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- progress: worker thread → main thread ------------------------------------ */

typedef struct {
  Job         *job;
  guint        run, n_runs;
  double       fraction;
  char        *stage;
  gboolean     has_row;
  CtrStudyRow  row;         /* label owned; arrays NULL */
  double       cnr;
  CtrVolume   *image;       /* with a row: its reconstruction (a copy); nullable */
} Message;

static void
message_free (gpointer data)
{
  Message *m = data;

  job_unref (m->job);
  g_free (m->stage);
  g_free ((char *) m->row.label);
  g_clear_pointer (&m->image, ctr_volume_unref);
  g_free (m);
}

/* The row's reconstruction as a run of the session (its dose in the
 * label), so it opens in Compare like any run: the study's figures are its
 * one report. */
static guint
add_run (CtrStudyPage *self, Job *job, const CtrStudyRow *row, CtrVolume *image)
{
  CtrIterStats stats = { 0 };
  CtrReconOptions options;
  g_autofree char *data = NULL;
  const char *variant = job->dataset->variant;
  CtrRun *run;

  if (self->session == NULL || image == NULL || job->options == NULL || row->method_index >= job->options->len)
    return 0;
  stats.method = row->method;
  stats.iteration = stats.n_iterations = row->iterations;
  stats.elapsed_s = row->seconds;
  stats.residual = stats.data_sq = NAN;
  stats.has_reference = isfinite (row->rmse);
  stats.rmse = row->rmse;
  stats.psnr = row->psnr;
  stats.ssim = row->ssim;
  data = ctr_study_get_realisations (job->study) > 1
    ? g_strdup_printf ("%s%sstudy %g × dose, realisation %u", variant ? variant : "", variant ? ", " : "",
                       row->dose, row->realisation + 1)
    : g_strdup_printf ("%s%sstudy %g × dose", variant ? variant : "", variant ? ", " : "", row->dose);
  /* the disc the study measured in (its default: the field of view) */
  options = g_array_index (job->options, CtrReconOptions, row->method_index);
  options.metrics_radius_mm = ctr_geometry_fov_radius_mm (job->dataset->geometry);
  run = ctr_session_add_result (self->session, job->dataset, data, &options, image, &stats, row->seconds);
  return run != NULL ? ctr_run_get_number (run) : 0;
}

static void
append_row (CtrStudyPage *self, Job *job, const CtrStudyRow *row, double cnr, CtrVolume *image)
{
  g_autoptr(CtrStudyRowItem) item = ctr_study_row_item_new (row, cnr);

  ctr_study_row_item_set_run_number (item, add_run (self, job, row, image));
  g_list_store_append (self->rows, item);
}

/* Main thread: the page shows what the thread reported. */
static gboolean
deliver (gpointer data)
{
  Message *m = data;
  g_autoptr(CtrStudyPage) self = g_weak_ref_get (&m->job->page);

  if (self == NULL || self->job != m->job || !self->running)
    return G_SOURCE_REMOVE;
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (m->fraction, 0, 1));
  if (m->has_row)
    {
      append_row (self, m->job, &m->row, m->cnr, m->image);
      gtk_widget_queue_draw (GTK_WIDGET (self->plot));
    }
  if (m->stage != NULL)
    {
      g_autofree char *text = g_strdup_printf ("Run %u of %u: %s…", MIN (m->run + 1, m->n_runs), m->n_runs, m->stage);
      _ctr_study_page_set_status (self, text, FALSE);
    }
  return G_SOURCE_REMOVE;
}

/* Worker thread: copy what is kept, post it. */
static void
on_progress (const CtrStudyProgress *p, gpointer data)
{
  Job *job = data;
  Message *m;
  gint64 now = g_get_monotonic_time ();

  if (p->row == NULL && p->iteration != NULL && now - job->last_post_us < ITERATION_POST_US)
    return;
  job->last_post_us = now;
  m = g_new0 (Message, 1);
  m->job = job_ref (job);
  m->run = p->run;
  m->n_runs = p->n_runs;
  m->fraction = p->fraction;
  m->stage = g_strdup (p->stage);
  m->cnr = NAN;
  if (p->row != NULL)
    {
      m->has_row = TRUE;
      m->row = *p->row;
      m->row.label = g_strdup (p->row->label);
      m->row.parameters = NULL;
      m->row.roi_mean_hu = m->row.roi_sd_hu = m->row.roi_cnr = NULL;
      m->row.ttf_f50 = m->row.ttf_f50_pooled = m->row.ttf_cnr_pooled = NULL;
      if (job->cnr_roi >= 0)
        m->cnr = p->row->roi_cnr[job->cnr_roi];
      /* the image is valid during the call only: copied here, off the
       * main thread (NULL when memory is short: the row stays, no run) */
      if (p->image != NULL)
        m->image = ctr_volume_copy (p->image);
    }
  g_main_context_invoke_full (job->context, G_PRIORITY_DEFAULT, deliver, m, message_free);
}

static void
run_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (ctr_study_run (job->study, job->dataset, on_progress, job, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The table as the study holds it (the thread has ended): a message still
 * queued, or dropped, cannot leave it short.  The rows delivered stay (with
 * their runs); a row whose message was lost comes without a run (its image
 * went with the message). */
static void
sync_rows (CtrStudyPage *self)
{
  guint n = 0, have = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  const CtrStudyRow *rows = ctr_study_get_rows (self->job->study, &n);

  if (have == n)
    return;
  if (have > n)
    {
      g_list_store_remove_all (self->rows);
      have = 0;
    }
  for (guint i = have; i < n; i++)
    append_row (self, self->job, &rows[i], self->job->cnr_roi >= 0 ? rows[i].roi_cnr[self->job->cnr_roi] : NAN,
                NULL);
}

static void
run_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Job *job = data;
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);
  g_autoptr(CtrStudyPage) self = g_weak_ref_get (&job->page);
  guint n_runs, n_rows;
  g_autofree char *text = NULL;
  double seconds = (g_get_monotonic_time () - job->start_us) / 1e6;

  /* the callback's reference; the page keeps its own while it shows the job */
  job_unref (job);
  if (self == NULL || self->job != job)
    return;
  sync_rows (self);
  n_rows = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  n_runs = ctr_study_get_n_runs (job->study);
  set_running (self, FALSE);
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));
  if (ok)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 1);
      text = g_strdup_printf ("Finished: %u run%s in %.1f s.", n_rows, n_rows == 1 ? "" : "s", seconds);
      _ctr_study_page_set_status (self, text, FALSE);
      _ctr_study_page_show_equal_dose (self, job->study);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      text = g_strdup_printf ("Cancelled: %u of %u runs finished; they are kept.", n_rows, n_runs);
      _ctr_study_page_set_status (self, text, FALSE);
    }
  else
    {
      text = g_strdup_printf ("%s (%u of %u runs finished)", error->message, n_rows, n_runs);
      show_error (self, "Dose Study Failed", text);
    }
}

/* The session's dataset for a thread: its own geometry, the same data (the
 * session may replace or free its dataset meanwhile).  NULL with
 * CTR_ERROR_OUT_OF_MEMORY when the geometry cannot be copied. */
static CtrDataset *
dataset_view (const CtrDataset *d, GError **error)
{
  CtrGeometry *g = ctr_geometry_try_copy (d->geometry, error);
  if (g == NULL)
    return NULL;
  CtrDataset *c = g_new0 (CtrDataset, 1);

  c->name = g_strdup (d->name);
  c->path = g_strdup (d->path);
  c->variant = g_strdup (d->variant);
  c->geometry = g;
  c->projections = ctr_projections_ref (d->projections);
  c->reference = d->reference != NULL ? ctr_volume_ref (d->reference) : NULL;
  c->mu_water = d->mu_water;
  c->inputs = g_strdupv (d->inputs);
  return c;
}

static void
run_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  CtrDataset *d = self->session ? ctr_session_get_dataset (self->session) : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTask) task = NULL;
  CtrStudy *study;
  CtrDataset *view;
  int cnr_roi = -1;
  Job *job;

  if (d == NULL || self->running || ctr_session_get_busy (self->session) ||
      (self->estimating && gtk_spin_button_get_value (self->i0_spin) <= 0))
    return;
  study = _ctr_study_page_build_study (self, d, &cnr_roi, &error);
  if (study == NULL || (view = dataset_view (d, &error)) == NULL)
    {
      _ctr_study_page_set_status (self, error->message, TRUE);
      if (study != NULL)
        ctr_study_free (study);
      return;
    }
  job = g_atomic_rc_box_new0 (Job);
  job->study = study;
  job->dataset = view;
  job->cancellable = g_cancellable_new ();
  g_weak_ref_init (&job->page, self);
  job->context = g_main_context_ref_thread_default ();
  job->cnr_roi = cnr_roi;
  /* the configurations as they are now (the list may change while it runs) */
  job->options = g_array_sized_new (FALSE, FALSE, sizeof (CtrReconOptions), self->methods->len);
  for (guint i = 0; i < self->methods->len; i++)
    g_array_append_vals (job->options, &g_array_index (self->methods, Method, i).options, 1);
  job->start_us = g_get_monotonic_time ();

  if (self->job != NULL)
    job_unref (self->job);
  self->job = job;
  /* running first: the table's change is the study's own (on_rows_changed) */
  set_running (self, TRUE);
  g_list_store_remove_all (self->rows);
  g_clear_pointer (&self->restored, ctr_study_free);
  gtk_widget_set_visible (GTK_WIDGET (self->equal_dose_label), FALSE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  _ctr_study_page_set_status (self, "Starting…", FALSE);
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));

  task = g_task_new (NULL, job->cancellable, run_done, job_ref (job));
  g_task_set_source_tag (task, run_action);
  g_task_set_task_data (task, job_ref (job), (GDestroyNotify) job_unref);
  g_task_run_in_thread (task, run_thread);
}

static void
cancel (CtrStudyPage *self)
{
  if (self->running && self->job != NULL)
    {
      g_cancellable_cancel (self->job->cancellable);
      _ctr_study_page_set_status (self, "Cancelling…", FALSE);
    }
}

static void
cancel_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  cancel (CTR_STUDY_PAGE (widget));
}

/* ---- export ---------------------------------------------------------------------- */

static gboolean
export_to (CtrStudyPage *self, const char *folder, GError **error)
{
  g_autofree char *csv = g_build_filename (folder, "study.csv", NULL);
  g_autofree char *png = g_build_filename (folder, "study.png", NULL);
  const char *others_csv[] = { png, NULL }, *others_png[] = { csv, NULL };

  return ctr_output_path_check (csv, CTR_OUTPUT_FILE, self->job->dataset, others_csv, error) &&
         ctr_output_path_check (png, CTR_OUTPUT_FILE, self->job->dataset, others_png, error) &&
         ctr_study_write_csv (self->job->study, csv, error) &&
         ctr_study_plot_write_png (self->job->study, png, PNG_WIDTH, PNG_HEIGHT, error);
}

static void
export_response (GtkNativeDialog *native, int response, CtrStudyPage *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->job != NULL && !self->running)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *folder = file != NULL ? g_file_get_path (file) : NULL;
      g_autoptr(GError) error = NULL;

      if (folder == NULL)
        show_error (self, "Could Not Export the Study", "Only a local folder can hold the study's files");
      else if (!export_to (self, folder, &error))
        show_error (self, "Could Not Export the Study", error->message);
      else
        {
          g_autofree char *text = g_strdup_printf ("Exported study.csv and study.png to %s.", folder);
          _ctr_study_page_set_status (self, text, FALSE);
          g_free (self->last_folder);
          self->last_folder = g_steal_pointer (&folder);
        }
    }
  g_object_unref (native);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkFileChooserNative *native;
  const char *start = self->last_folder;

  if (self->job == NULL || self->running)
    return;
  native = gtk_file_chooser_native_new ("Export Dose Study (choose a folder)",
                                        GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Export", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  /* a writable folder: the last one used, else Documents, else home */
  if (start == NULL)
    start = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);
  if (start == NULL || !g_file_test (start, G_FILE_TEST_IS_DIR))
    start = g_get_home_dir ();
  {
    g_autoptr(GFile) dir = g_file_new_for_path (start);
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
  }
  g_signal_connect (native, "response", G_CALLBACK (export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* ---- table and figure -------------------------------------------------------------- */

static void
cell_setup (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer column)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (column) == CTR_STUDY_COLUMN_METHOD ? 0 : 1);
  if (GPOINTER_TO_INT (column) != CTR_STUDY_COLUMN_METHOD)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer column)
{
  CtrStudyRowItem *row = gtk_list_item_get_item (item);
  g_autofree char *text = ctr_study_row_item_format (row, GPOINTER_TO_INT (column));

  gtk_label_set_label (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

/* The name of the dataset a restored row's run was made from, as the
 * study's title (transfer full; "" when its run is gone): the run's data
 * without what follows the name ("gel-fan · study 0.5 × dose"). */
static char *
dataset_of_row (CtrStudyPage *self, CtrStudyRowItem *item)
{
  GListModel *runs = self->session != NULL ? ctr_session_get_runs (self->session) : NULL;
  guint number = ctr_study_row_item_get_run_number (item);

  for (guint i = 0; number > 0 && runs != NULL && i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      if (ctr_run_get_number (run) == number)
        {
          const char *data = ctr_run_get_dataset (run);
          const char *cut = strstr (data, " · ");
          return cut != NULL ? g_strndup (data, cut - data) : g_strdup (data);
        }
    }
  return g_strdup ("");
}

/* The figure (and equal-d′ dose) of a restored table: a study rebuilt from
 * its rows (core's ctr_study_new_from_rows; measured in the field-of-view
 * disc, as every study run in the window is).  FALSE with the reason in
 * @error when the rows cannot make one. */
static gboolean
rebuild_study (CtrStudyPage *self, GError **error)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->rows));
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree CtrStudyRow *rows = g_new0 (CtrStudyRow, MAX (n, 1));
  g_autofree char *title = NULL;

  g_clear_pointer (&self->restored, ctr_study_free);
  gtk_widget_set_visible (GTK_WIDGET (self->equal_dose_label), FALSE);
  if (n == 0)
    return TRUE;
  for (guint i = 0; i < n; i++)
    {
      CtrStudyRowItem *item = g_list_model_get_item (G_LIST_MODEL (self->rows), i);
      g_ptr_array_add (items, item);   /* keeps the row's label alive */
      rows[i] = *ctr_study_row_item_get (item);
    }
  title = dataset_of_row (self, items->pdata[0]);
  self->restored = ctr_study_new_from_rows (rows, n, title, -1, error);
  if (self->restored == NULL)
    return FALSE;
  _ctr_study_page_show_equal_dose (self, self->restored);
  return TRUE;
}

/* The table changed while no study runs: a saved session's restore
 * replaced the session's table.  The study shown before is not its, so its
 * export goes; its figure is redrawn from the table's rows; the status
 * says where the table came from. */
static void
on_rows_changed (GListModel *rows, guint position, guint removed, guint added, CtrStudyPage *self)
{
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  guint n = g_list_model_get_n_items (rows);

  if (self->running || (added == 0 && removed == 0))
    return;
  g_clear_pointer (&self->job, job_unref);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  if (!rebuild_study (self, &error))
    g_message ("the study's figure cannot be redrawn from its table: %s", error->message);
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));
  text = n > 0 ? g_strdup_printf ("%u run%s of a study, from the session opened (double-click a row to see its "
                                  "image; the figure is drawn from the table; Run Study again to export).", n,
                                  n == 1 ? "" : "s")
               : g_strdup ("List the doses, add methods, then Run Study.");
  _ctr_study_page_set_status (self, text, FALSE);
  update_actions (self);
}

/* The table shows @rows (the session's study table, or the page's own). */
static void
set_rows (CtrStudyPage *self, GListStore *rows)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  if (self->rows == rows)
    return;
  if (self->rows != NULL)
    g_signal_handlers_disconnect_by_func (self->rows, on_rows_changed, self);
  g_set_object (&self->rows, rows);
  g_signal_connect_object (rows, "items-changed", G_CALLBACK (on_rows_changed), self, 0);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (rows)));
  gtk_column_view_set_model (self->table, GTK_SELECTION_MODEL (selection));
  gtk_widget_queue_draw (GTK_WIDGET (self->plot));
}

/* A row activated (double-click, Enter): its reconstruction is opened
 * ("open-run"), or the status says why it cannot be. */
static void
row_activated (GtkColumnView *view, guint position, CtrStudyPage *self)
{
  g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (G_LIST_MODEL (self->rows), position);
  guint number = item != NULL ? ctr_study_row_item_get_run_number (item) : 0;
  GListModel *runs = self->session != NULL ? ctr_session_get_results (self->session) : NULL;
  gboolean found = FALSE;

  for (guint i = 0; number > 0 && runs != NULL && i < g_list_model_get_n_items (runs) && !found; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      found = ctr_run_get_number (run) == number;
    }
  if (!found)
    {
      _ctr_study_page_set_status (self, number > 0 ? "That reconstruction was deleted from the runs."
                                                    : "That row's reconstruction was not kept.", TRUE);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_OPEN_RUN], 0, number);
}

static void
build_table (CtrStudyPage *self)
{
  GListStore *own = self->rows;

  self->rows = NULL;
  set_rows (self, own);
  g_object_unref (own);
  g_signal_connect (self->table, "activate", G_CALLBACK (row_activated), self);
  for (int c = 0; c < CTR_STUDY_N_COLUMNS; c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr(GtkColumnViewColumn) column = NULL;

      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup), GINT_TO_POINTER (c));
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind), GINT_TO_POINTER (c));
      column = gtk_column_view_column_new (ctr_study_column_title (c), factory);
      gtk_column_view_column_set_expand (column, c == CTR_STUDY_COLUMN_METHOD);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (self->table, column);
    }
}

static void
draw_plot (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CtrStudyPage *self = data;

  CtrStudy *study = self->job != NULL ? self->job->study : self->restored;

  if (study != NULL && width > 0 && height > 0)
    ctr_study_plot_draw (study, cr, width, height);
}

/* ---- session -------------------------------------------------------------------- */

/* A new dataset: a running study (of the previous one) stops; the form
 * takes the dataset's image size and I0 (an estimate of it comes later,
 * from a worker thread: ctr-study-page-dose.c).  The method panel is
 * updated in place (the Algorithm list's model replaced only when the
 * methods that fit differ, rows shown or hidden): this runs from the
 * session's load callback, outside the frame clock's layout and paint, so
 * the next frame allocates whatever changed before anything is drawn. */
static void
on_dataset (CtrStudyPage *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);

  cancel (self);
  if (d != NULL)
    {
      CtrGrid grid = ctr_dataset_default_grid (d);

      /* only the methods that fit these data (no FDK for fan data) */
      ctr_method_panel_set_geometry (self->method_panel, d->geometry);
      gtk_spin_button_set_value (self->size_spin, grid.nx);
      _ctr_study_page_show_dose (self, d);
      /* a table from a saved session keeps saying so */
      if (!self->running && (self->job != NULL || g_list_model_get_n_items (G_LIST_MODEL (self->rows)) == 0))
        _ctr_study_page_set_status (self, "List the doses, add methods, then Run Study.", FALSE);
    }
  else
    _ctr_study_page_stop_dose (self);
  update_actions (self);
}

void
ctr_study_page_set_session (CtrStudyPage *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_STUDY_PAGE (self));
  g_return_if_fail (session == NULL || CTR_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    {
      g_autoptr(GListStore) own = g_list_store_new (CTR_TYPE_STUDY_ROW_ITEM);

      g_signal_handlers_disconnect_by_data (self->session, self);
      g_clear_object (&self->session);
      if (self->table != NULL)
        set_rows (self, own);
    }
  if (session != NULL)
    {
      self->session = g_object_ref (session);
      set_rows (self, ctr_session_get_study_table (session));
      g_signal_connect_object (session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::busy", G_CALLBACK (update_actions), self, G_CONNECT_SWAPPED);
      if (ctr_session_get_dataset (session) != NULL)
        on_dataset (self);
    }
  update_actions (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

CtrMethodPanel *
ctr_study_page_get_method_panel (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), NULL);
  return self->method_panel;
}

GListModel *
ctr_study_page_get_rows (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), NULL);
  return G_LIST_MODEL (self->rows);
}

guint
ctr_study_page_get_n_methods (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), 0);
  return self->methods->len;
}

gboolean
ctr_study_page_get_running (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), FALSE);
  return self->running;
}

const char *
ctr_study_page_get_status (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), NULL);
  return self->status;
}

gboolean
ctr_study_page_get_estimating (CtrStudyPage *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), FALSE);
  return self->estimating;
}

/* ---- GObject ---------------------------------------------------------------------- */

static void
ctr_study_page_dispose (GObject *object)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (object);

  /* the thread winds down on its own (it holds the job) */
  if (self->job != NULL)
    {
      g_cancellable_cancel (self->job->cancellable);
      g_clear_pointer (&self->job, job_unref);
    }
  /* a running estimate's result is dropped */
  if (self->dose_cancellable != NULL)
    {
      g_cancellable_cancel (self->dose_cancellable);
      g_clear_object (&self->dose_cancellable);
    }
  ctr_study_page_set_session (self, NULL);
  ctr_study_page_set_roi_set (self, NULL);
  g_clear_object (&self->rows);
  g_clear_pointer (&self->restored, ctr_study_free);
  g_clear_pointer (&self->methods, g_array_unref);
  g_clear_pointer (&self->status, g_free);
  g_clear_pointer (&self->last_folder, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_STUDY_PAGE);
  G_OBJECT_CLASS (ctr_study_page_parent_class)->dispose (object);
}

static void
ctr_study_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    case PROP_ESTIMATING:
      g_value_set_boolean (value, self->estimating);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_study_page_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SESSION:
      ctr_study_page_set_session (CTR_STUDY_PAGE (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_study_page_class_init (CtrStudyPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_study_page_dispose;
  object_class->get_property = ctr_study_page_get_property;
  object_class->set_property = ctr_study_page_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, CTR_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] =
    g_param_spec_string ("status", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* TRUE while the open dataset's I0 is estimated from its sinogram (a
   * worker thread); the I0 row then says so. */
  properties[PROP_ESTIMATING] =
    g_param_spec_boolean ("estimating", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* "open-run" (guint number): a row of the table was activated; its
   * reconstruction is the session's run @number (the window shows it). */
  signals[SIGNAL_OPEN_RUN] =
    g_signal_new ("open-run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  g_type_ensure (CTR_TYPE_METHOD_PANEL);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-study-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, content);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, doses_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, i0_spin);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, seed_spin);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, size_spin);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, method_panel);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, methods_list);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, noise_roi_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, background_roi_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, measure_roi_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, run_button);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, export_button);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, table);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, plot);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, realisations_spin);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, iq_task_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, iq_nps_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, iq_insert_row);
  gtk_widget_class_bind_template_child (widget_class, CtrStudyPage, equal_dose_label);

  gtk_widget_class_install_action (widget_class, "study.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "study.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "study.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "study.add-current", NULL, _ctr_study_page_add_current_action);
  gtk_widget_class_install_action (widget_class, "study.add-preset", "s", _ctr_study_page_add_preset_action);
  gtk_widget_class_install_action (widget_class, "study.use-drawn-rois", NULL, _ctr_study_page_use_drawn_rois_action);
  gtk_widget_class_install_action (widget_class, "study.use-iq-phantom", NULL, _ctr_study_page_use_iq_action);
}

static void
ctr_study_page_init (CtrStudyPage *self)
{
  self->methods = g_array_new (FALSE, TRUE, sizeof (Method));
  g_array_set_clear_func (self->methods, (GDestroyNotify) _ctr_study_page_method_clear);
  self->rows = g_list_store_new (CTR_TYPE_STUDY_ROW_ITEM);
  gtk_widget_init_template (GTK_WIDGET (self));
  build_table (self);
  gtk_drawing_area_set_draw_func (self->plot, draw_plot, self, NULL);
  /* an I0 typed while the estimate runs lets Run go ahead */
  g_signal_connect_swapped (self->i0_spin, "value-changed", G_CALLBACK (update_actions), self);
  update_actions (self);
}
