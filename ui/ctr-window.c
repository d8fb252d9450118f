/* ctr-window.c — the main window: dataset, method, slice view, convergence plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Threading (DESIGN.md §5).  Loading a dataset and reconstructing both run in
 * a GTask thread; the window owns one GCancellable per job and cancels it when
 * the user asks, when another dataset replaces the current one and when the
 * window closes.  The worker never touches a widget: after every iteration the
 * core calls on_iteration() on the worker thread with a borrowed image; we copy
 * the shown slice and the numbers into a Progress message and hand it to the
 * main context with g_main_context_invoke_full(), as GLib's gfile.c does for
 * copy progress.  A job owns what it reads (a reference on the projections and
 * the reference image, a copy of the small geometry), so replacing the
 * dataset while a worker is still winding down is safe.
 */
#define G_LOG_DOMAIN "ctr-window"

#include <math.h>
#include <string.h>

#include "ctr-window.h"
#include "ctr-slice-view.h"
#include "ctr-metrics-plot.h"

/* Never keep more than this many image copies queued for the main thread:
 * if drawing falls behind a fast solver, intermediate images are skipped
 * (their numbers still reach the plot). */
#define MAX_PENDING_IMAGES 2

struct _CtrWindow
{
  AdwApplicationWindow  parent_instance;

  /* template children */
  AdwToastOverlay      *toast_overlay;
  AdwWindowTitle       *window_title;
  AdwActionRow         *dataset_row;
  AdwComboRow          *method_row;
  AdwActionRow         *iterations_row;
  GtkSpinButton        *iterations_spin;
  GtkProgressBar       *progress_bar;
  GtkLabel             *status_label;
  GtkLabel             *residual_label;
  GtkLabel             *rmse_label;
  GtkLabel             *psnr_label;
  GtkLabel             *ssim_label;
  GtkLabel             *elapsed_label;
  GtkPaned             *content_paned;
  CtrSliceView         *slice_view;
  CtrMetricsPlot       *metrics_plot;

  CtrDataset           *dataset;
  CtrVolume            *result;

  GCancellable         *load_cancellable;
  GCancellable         *recon_cancellable;
  guint                 load_serial;
  guint                 run_serial;
  guint                 pulse_id;

  guint                 loading : 1;
  guint                 running : 1;
  guint                 closed : 1;
  guint                 run_on_load : 1;
};

G_DEFINE_FINAL_TYPE (CtrWindow, ctr_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  DATASET_LOADED,
  RECONSTRUCTION_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- helpers ---------------------------------------------------------- */

static CtrMethod
selected_method (CtrWindow *self)
{
  guint i = adw_combo_row_get_selected (self->method_row);
  return i < CTR_N_METHODS ? (CtrMethod) i : CTR_METHOD_SIRT;
}

static void
update_actions (CtrWindow *self)
{
  gboolean can_run = self->dataset != NULL && !self->running && !self->loading;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reconstruct", can_run);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-reconstruction",
                                 self->running || self->loading);
  gtk_widget_set_sensitive (GTK_WIDGET (self->method_row), !self->running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->iterations_row),
                            !self->running && ctr_method_is_iterative (selected_method (self)));
}

static void
set_status (CtrWindow  *self,
            const char *progress_text,
            const char *status)
{
  if (progress_text != NULL)
    gtk_progress_bar_set_text (self->progress_bar, progress_text);
  if (status != NULL)
    gtk_label_set_label (self->status_label, status);
}

static void
stop_pulse (CtrWindow *self)
{
  g_clear_handle_id (&self->pulse_id, g_source_remove);
}

static gboolean
pulse_cb (gpointer data)
{
  gtk_progress_bar_pulse (GTK_PROGRESS_BAR (data));
  return G_SOURCE_CONTINUE;
}

static void
start_pulse (CtrWindow *self)
{
  stop_pulse (self);
  gtk_progress_bar_set_pulse_step (self->progress_bar, 0.08);
  self->pulse_id = g_timeout_add (120, pulse_cb, self->progress_bar);
}

static void
show_error (CtrWindow  *self,
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

static void
clear_numbers (CtrWindow *self)
{
  gtk_label_set_label (self->residual_label, "–");
  gtk_label_set_label (self->rmse_label, "–");
  gtk_label_set_label (self->psnr_label, "–");
  gtk_label_set_label (self->ssim_label, "–");
  gtk_label_set_label (self->elapsed_label, "–");
}

static void
set_number (GtkLabel   *label,
            const char *format,
            double      value)
{
  if (isfinite (value))
    {
      g_autofree char *text = g_strdup_printf (format, value);
      gtk_label_set_label (label, text);
    }
  else
    gtk_label_set_label (label, "–");
}

static const char *
image_unit (CtrWindow *self)
{
  if (self->dataset != NULL && !self->dataset->geometry->pixel_size_known)
    return "1/pixel";
  return "1/mm";
}

/* A 2-D copy of slice @z of @v (the only part the window shows). */
static CtrVolume *
copy_slice (const CtrVolume *v,
            guint            z)
{
  CtrGrid g;
  CtrVolume *s;

  if (v->grid.nz == 1)
    return ctr_volume_copy (v);

  g = v->grid;
  g.nz = 1;
  g.cz = ctr_grid_z (&v->grid, z);
  s = ctr_volume_new (&g, NULL);
  if (s == NULL)
    return NULL;
  memcpy (s->data, ctr_volume_slice (v, z), ctr_grid_slice_size (&g) * sizeof (float));
  ctr_volume_set_unit (s, v->unit);
  return s;
}

/* ---- loading ---------------------------------------------------------- */

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const char *path = task_data;
  GError *error = NULL;
  CtrDataset *dataset;

  dataset = ctr_dataset_load (path, NULL, cancellable, &error);
  if (dataset == NULL)
    {
      if (error == NULL)
        error = g_error_new (CTR_ERROR, CTR_ERROR_FAILED,
                             "Could not load “%s” (no reason given)", path);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, dataset, (GDestroyNotify) ctr_dataset_free);
}

static void
show_dataset (CtrWindow *self)
{
  CtrDataset *d = self->dataset;
  g_autofree char *description = ctr_geometry_describe (d->geometry);
  g_autofree char *subtitle = NULL;

  if (d->reference != NULL)
    subtitle = g_strdup_printf ("%s\nReference: %u × %u × %u, %.3g mm pixels",
                                description,
                                d->reference->grid.nx, d->reference->grid.ny,
                                d->reference->grid.nz, d->reference->grid.dx);
  else
    subtitle = g_strdup_printf ("%s\nNo reference image", description);

  adw_window_title_set_subtitle (self->window_title, d->name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dataset_row), d->name);
  adw_action_row_set_subtitle (self->dataset_row, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dataset_row), d->path);

  g_clear_pointer (&self->result, ctr_volume_unref);
  clear_numbers (self);
  ctr_metrics_plot_reset (self->metrics_plot, 1, d->reference != NULL, image_unit (self));

  if (d->reference != NULL)
    {
      ctr_slice_view_reset_window (self->slice_view);
      ctr_slice_view_set_image (self->slice_view, d->reference, d->reference->grid.nz / 2);
      ctr_slice_view_set_caption (self->slice_view, "Reference");
    }
  else
    {
      ctr_slice_view_set_image (self->slice_view, NULL, 0);
      ctr_slice_view_set_caption (self->slice_view, NULL);
    }
  ctr_slice_view_set_placeholder (self->slice_view, "Press Reconstruct (Ctrl+R)");
}

static void
load_cb (GObject      *source_object,
         GAsyncResult *result,
         gpointer      user_data)
{
  CtrWindow *self = CTR_WINDOW (source_object);
  guint serial = GPOINTER_TO_UINT (user_data);
  g_autoptr(GError) error = NULL;
  CtrDataset *dataset;

  dataset = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->closed || serial != self->load_serial)
    {
      /* superseded by a newer load, or the window is gone */
      g_clear_pointer (&dataset, ctr_dataset_free);
      return;
    }

  self->loading = FALSE;
  g_clear_object (&self->load_cancellable);
  stop_pulse (self);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);

  if (dataset == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        set_status (self, "Cancelled", "Loading was cancelled");
      else
        {
          set_status (self, "Idle", "The dataset could not be opened");
          show_error (self, "Could Not Open Dataset", error->message);
        }
      update_actions (self);
      g_signal_emit (self, signals[DATASET_LOADED], 0, error);
      return;
    }

  g_clear_pointer (&self->dataset, ctr_dataset_free);
  self->dataset = dataset;
  show_dataset (self);
  set_status (self, "Idle", "Dataset loaded");
  update_actions (self);

  g_signal_emit (self, signals[DATASET_LOADED], 0, NULL);

  if (self->run_on_load && !self->closed)
    {
      self->run_on_load = FALSE;
      ctr_window_reconstruct (self);
    }
}

/**
 * ctr_window_open:
 * @file: a geometry.json.
 *
 * Loads the dataset in a worker thread; a running reconstruction of the
 * previous dataset is cancelled.  Emits #CtrWindow::dataset-loaded when done.
 */
void
ctr_window_open (CtrWindow *self,
                 GFile     *file)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *path = NULL;
  g_autofree char *basename = NULL;
  g_autofree char *status = NULL;

  g_return_if_fail (CTR_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_autofree char *uri = g_file_get_uri (file);
      g_autoptr(GError) error =
        g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     "“%s” is not a local file; only local datasets can be opened", uri);
      show_error (self, "Could Not Open Dataset", error->message);
      g_signal_emit (self, signals[DATASET_LOADED], 0, error);
      return;
    }

  /* Detach a running reconstruction of the old dataset: it is cancelled, and
   * its late reports and result are ignored (serial mismatch). */
  if (self->running)
    {
      g_cancellable_cancel (self->recon_cancellable);
      g_clear_object (&self->recon_cancellable);
      self->running = FALSE;
      self->run_serial++;
    }
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->load_cancellable);
  self->load_cancellable = g_cancellable_new ();
  self->loading = TRUE;
  self->load_serial++;

  basename = g_file_get_basename (file);
  status = g_strdup_printf ("Loading %s…", path);
  set_status (self, "Loading…", status);
  start_pulse (self);
  update_actions (self);

  task = g_task_new (self, self->load_cancellable, load_cb,
                     GUINT_TO_POINTER (self->load_serial));
  g_task_set_source_tag (task, ctr_window_open);
  g_task_set_name (task, "[ctrecon] load dataset");
  g_task_set_task_data (task, g_steal_pointer (&path), g_free);
  g_task_run_in_thread (task, load_thread);
}

/* ---- reconstruction ---------------------------------------------------- */

typedef struct {
  CtrGeometry     *geometry;     /* copy */
  CtrProjections  *projections;  /* reference */
  CtrVolume       *reference;    /* reference, nullable */
  CtrGrid          grid;
  CtrReconOptions  options;
  guint            slice;        /* the slice the window shows */
  guint            serial;       /* the window's run_serial when started */
  gint64           start_us;     /* monotonic time at the start */
  GTask           *task;         /* unowned: the job is the task's data */
  gint             pending_images;
} ReconJob;

static void
recon_job_free (gpointer data)
{
  ReconJob *job = data;

  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->projections, ctr_projections_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_free (job);
}

typedef struct {
  GTask        *task;    /* owned: keeps the window and the job alive */
  CtrIterStats  stats;   /* stats.image is NULL */
  CtrVolume    *slice;   /* nullable: copy of the shown slice */
} Progress;

static void
progress_free (gpointer data)
{
  Progress *p = data;
  ReconJob *job = g_task_get_task_data (p->task);

  if (p->slice != NULL)
    {
      g_atomic_int_add (&job->pending_images, -1);
      ctr_volume_unref (p->slice);
    }
  g_object_unref (p->task);
  g_free (p);
}

static void
show_progress (CtrWindow          *self,
               const CtrIterStats *stats,
               CtrVolume          *slice)
{
  g_autofree char *text = NULL;
  g_autofree char *status = NULL;
  guint n = MAX (stats->n_iterations, 1);
  guint k = MIN (stats->iteration, n);

  stop_pulse (self);
  gtk_progress_bar_set_fraction (self->progress_bar, (double) k / n);
  text = g_strdup_printf ("iteration %u / %u", k, n);
  gtk_progress_bar_set_text (self->progress_bar, text);

  if (k < n && k > 0 && stats->elapsed_s > 0)
    {
      double left = stats->elapsed_s / k * (n - k);
      status = left < 90 ? g_strdup_printf ("%s: about %.0f s left", ctr_method_label (stats->method), MAX (left, 1))
                         : g_strdup_printf ("%s: about %.0f min left", ctr_method_label (stats->method), left / 60);
      gtk_label_set_label (self->status_label, status);
    }

  set_number (self->residual_label, "%.4g", stats->residual);
  set_number (self->rmse_label, "%.4g", stats->has_reference ? stats->rmse : NAN);
  set_number (self->psnr_label, "%.2f dB", stats->has_reference ? stats->psnr : NAN);
  set_number (self->ssim_label, "%.4f", stats->has_reference ? stats->ssim : NAN);
  set_number (self->elapsed_label, "%.2f s", stats->elapsed_s);

  ctr_metrics_plot_add (self->metrics_plot, stats);

  if (slice != NULL)
    {
      g_autofree char *caption =
        g_strdup_printf ("%s · iteration %u / %u", ctr_method_name (stats->method), k, n);
      g_autofree char *upper = g_ascii_strup (caption, -1);

      ctr_slice_view_set_image (self->slice_view, slice, 0);
      ctr_slice_view_set_caption (self->slice_view, upper);
    }
}

static gboolean
progress_dispatch (gpointer data)
{
  Progress *p = data;
  CtrWindow *self = g_task_get_source_object (p->task);
  ReconJob *job = g_task_get_task_data (p->task);

  if (!self->closed && self->running && job->serial == self->run_serial)
    show_progress (self, &p->stats, p->slice);

  return G_SOURCE_REMOVE;
}

/* Worker thread: copy what we keep, post it to the window's main context. */
static void
on_iteration (const CtrIterStats *stats,
              gpointer            user_data)
{
  ReconJob *job = user_data;
  Progress *p = g_new0 (Progress, 1);
  gboolean last = stats->iteration >= stats->n_iterations;

  p->task = g_object_ref (job->task);
  p->stats = *stats;
  p->stats.image = NULL;

  if (stats->image != NULL &&
      (last || g_atomic_int_get (&job->pending_images) < MAX_PENDING_IMAGES))
    {
      p->slice = copy_slice (stats->image, MIN (job->slice, stats->image->grid.nz - 1));
      if (p->slice != NULL)
        g_atomic_int_inc (&job->pending_images);
    }

  g_main_context_invoke_full (g_task_get_context (job->task), G_PRIORITY_DEFAULT,
                              progress_dispatch, p, progress_free);
}

static void
reconstruct_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  ReconJob *job = task_data;
  GError *error = NULL;
  CtrVolume *volume;

  volume = ctr_reconstruct (job->geometry, job->projections, &job->grid,
                            &job->options, job->reference, on_iteration, job,
                            cancellable, &error);
  if (volume == NULL)
    {
      if (error == NULL)
        error = g_error_new_literal (CTR_ERROR, CTR_ERROR_FAILED,
                                     "The reconstruction failed (no reason given)");
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, volume, (GDestroyNotify) ctr_volume_unref);
}

static void
reconstruct_cb (GObject      *source_object,
                GAsyncResult *result,
                gpointer      user_data)
{
  CtrWindow *self = CTR_WINDOW (source_object);
  guint serial = GPOINTER_TO_UINT (user_data);
  ReconJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrVolume) volume = NULL;

  volume = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->closed || serial != self->run_serial)
    return;

  self->running = FALSE;
  g_clear_object (&self->recon_cancellable);
  stop_pulse (self);
  update_actions (self);

  if (volume == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* not an error: the user asked for it */
          set_status (self, "Cancelled", "Cancelled");
          adw_toast_overlay_add_toast (self->toast_overlay,
                                       adw_toast_new ("Reconstruction cancelled"));
        }
      else
        {
          set_status (self, "Failed", "The reconstruction failed");
          show_error (self, "Reconstruction Failed", error->message);
        }
      g_signal_emit (self, signals[RECONSTRUCTION_FINISHED], 0, error);
      return;
    }

  {
    CtrMethod method = job->options.method;
    guint n = ctr_method_is_iterative (method) ? job->options.iterations : 1;
    g_autofree char *text = g_strdup_printf ("iteration %u / %u", n, n);
    g_autofree char *name = g_ascii_strup (ctr_method_name (method), -1);
    g_autofree char *caption = ctr_method_is_iterative (method)
      ? g_strdup_printf ("%s · %u iterations", name, n) : g_strdup (name);
    g_autofree char *full_caption = NULL;
    g_autofree char *status = NULL;
    gint64 elapsed_us = g_get_monotonic_time () - job->start_us;

    gtk_progress_bar_set_fraction (self->progress_bar, 1.0);
    gtk_progress_bar_set_text (self->progress_bar, text);
    if (ctr_method_is_iterative (method))
      status = g_strdup_printf ("Finished: %u iterations of %s in %.1f s (wall clock), %u × %u × %u voxels",
                                n, ctr_method_label (method), elapsed_us / 1e6,
                                volume->grid.nx, volume->grid.ny, volume->grid.nz);
    else
      status = g_strdup_printf ("Finished: %s in %.1f s (wall clock), %u × %u × %u voxels",
                                ctr_method_label (method), elapsed_us / 1e6,
                                volume->grid.nx, volume->grid.ny, volume->grid.nz);
    gtk_label_set_label (self->status_label, status);

    if (volume->grid.nz > 1)
      full_caption = g_strdup_printf ("%s · slice %u of %u", caption,
                                      volume->grid.nz / 2 + 1, volume->grid.nz);
    ctr_slice_view_set_image (self->slice_view, volume, volume->grid.nz / 2);
    ctr_slice_view_set_caption (self->slice_view, full_caption ? full_caption : caption);
  }

  g_clear_pointer (&self->result, ctr_volume_unref);
  self->result = g_steal_pointer (&volume);

  g_signal_emit (self, signals[RECONSTRUCTION_FINISHED], 0, NULL);
}

/**
 * ctr_window_reconstruct:
 *
 * Starts reconstructing the loaded dataset with the chosen method and
 * iteration count (the action win.reconstruct).  Emits
 * #CtrWindow::reconstruction-finished when done, failed or cancelled.
 */
void
ctr_window_reconstruct (CtrWindow *self)
{
  g_autoptr(GTask) task = NULL;
  CtrDataset *d;
  ReconJob *job;
  CtrMethod method;
  g_autofree char *status = NULL;

  g_return_if_fail (CTR_IS_WINDOW (self));

  if (self->dataset == NULL || self->running || self->loading)
    return;
  d = self->dataset;
  method = selected_method (self);

  job = g_new0 (ReconJob, 1);
  job->geometry = ctr_geometry_copy (d->geometry);
  job->projections = ctr_projections_ref (d->projections);
  job->reference = d->reference ? ctr_volume_ref (d->reference) : NULL;
  ctr_recon_options_init (&job->options, method);
  job->options.iterations = (guint) gtk_spin_button_get_value_as_int (self->iterations_spin);

  /* Compare like with like: on a 2-D reference's grid (size and pixel),
   * otherwise the grid a user expects for this geometry. */
  if (d->reference != NULL && d->reference->grid.nz == 1)
    job->grid = ctr_default_grid (d->geometry, d->reference->grid.nx, d->reference->grid.dx);
  else
    job->grid = ctr_default_grid (d->geometry, 0, 0);
  job->slice = job->grid.nz / 2;

  self->recon_cancellable = g_cancellable_new ();
  self->running = TRUE;
  self->run_serial++;

  task = g_task_new (self, self->recon_cancellable, reconstruct_cb,
                     GUINT_TO_POINTER (self->run_serial));
  job->task = task;
  g_task_set_source_tag (task, ctr_window_reconstruct);
  g_task_set_name (task, "[ctrecon] reconstruct");
  g_task_set_task_data (task, job, recon_job_free);
  job->serial = self->run_serial;
  job->start_us = g_get_monotonic_time ();

  ctr_metrics_plot_reset (self->metrics_plot,
                          ctr_method_is_iterative (method) ? job->options.iterations : 1,
                          d->reference != NULL, image_unit (self));
  clear_numbers (self);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  status = g_strdup_printf ("%s on a %u × %u grid of %.3g mm pixels…",
                            ctr_method_label (method), job->grid.nx, job->grid.ny,
                            job->grid.dx);
  set_status (self, "Preparing…", status);
  start_pulse (self);
  update_actions (self);

  g_task_run_in_thread (task, reconstruct_thread);
}

/**
 * ctr_window_cancel:
 *
 * Cancels the running reconstruction (win.cancel-reconstruction) or load.
 * The worker stops at its next check; the window reports "Cancelled".
 */
void
ctr_window_cancel (CtrWindow *self)
{
  g_return_if_fail (CTR_IS_WINDOW (self));

  if (self->recon_cancellable != NULL)
    {
      g_cancellable_cancel (self->recon_cancellable);
      set_status (self, "Cancelling…", NULL);
    }
  if (self->loading && self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
}

/* ---- actions ----------------------------------------------------------- */

static void
file_chooser_response (GtkNativeDialog *native,
                       int              response,
                       CtrWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT && !self->closed)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        ctr_window_open (self, file);
    }
  g_object_unref (native);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) json = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new ("Open Dataset", GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN,
                                        "_Open", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  gtk_file_filter_set_name (json, "Dataset geometry (*.json)");
  gtk_file_filter_add_pattern (json, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), json);
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (native), json);

  if (self->dataset != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_path (self->dataset->path);
      g_autoptr(GFile) dir = g_file_get_parent (file);

      if (dir != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
    }

  g_signal_connect (native, "response", G_CALLBACK (file_chooser_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
reconstruct_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  ctr_window_reconstruct (CTR_WINDOW (widget));
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  ctr_window_cancel (CTR_WINDOW (widget));
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
  ctr_window_open (self, G_FILE (files->data));
  g_slist_free (files);
  return TRUE;
}

static void
on_method_selected (CtrWindow *self)
{
  CtrReconOptions defaults;
  CtrMethod method = selected_method (self);

  ctr_recon_options_init (&defaults, method);
  if (ctr_method_is_iterative (method))
    gtk_spin_button_set_value (self->iterations_spin, CLAMP (defaults.iterations, 1, 500));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->method_row), ctr_method_description (method));
  update_actions (self);
}

/* ---- GObject ------------------------------------------------------------ */

static gboolean
ctr_window_close_request (GtkWindow *window)
{
  CtrWindow *self = CTR_WINDOW (window);

  self->closed = TRUE;
  if (self->recon_cancellable != NULL)
    g_cancellable_cancel (self->recon_cancellable);
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);

  return GTK_WINDOW_CLASS (ctr_window_parent_class)->close_request (window);
}

static void
ctr_window_dispose (GObject *object)
{
  CtrWindow *self = CTR_WINDOW (object);

  self->closed = TRUE;
  stop_pulse (self);
  if (self->recon_cancellable != NULL)
    g_cancellable_cancel (self->recon_cancellable);
  if (self->load_cancellable != NULL)
    g_cancellable_cancel (self->load_cancellable);
  g_clear_object (&self->recon_cancellable);
  g_clear_object (&self->load_cancellable);
  g_clear_pointer (&self->result, ctr_volume_unref);
  g_clear_pointer (&self->dataset, ctr_dataset_free);

  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_WINDOW);

  G_OBJECT_CLASS (ctr_window_parent_class)->dispose (object);
}

static void
ctr_window_class_init (CtrWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ctr_window_dispose;
  window_class->close_request = ctr_window_close_request;

  /**
   * CtrWindow::dataset-loaded:
   * @error: (nullable): why loading failed (G_IO_ERROR_CANCELLED when cancelled).
   */
  signals[DATASET_LOADED] =
    g_signal_new ("dataset-loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * CtrWindow::reconstruction-finished:
   * @error: (nullable): why it failed (G_IO_ERROR_CANCELLED when cancelled).
   */
  signals[RECONSTRUCTION_FINISHED] =
    g_signal_new ("reconstruction-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                  G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);

  g_type_ensure (CTR_TYPE_SLICE_VIEW);
  g_type_ensure (CTR_TYPE_METRICS_PLOT);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, dataset_row);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, method_row);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, iterations_row);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, iterations_spin);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, status_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, residual_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, rmse_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, psnr_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, ssim_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, content_paned);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, slice_view);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, metrics_plot);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.reconstruct", NULL, reconstruct_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-reconstruction", NULL, cancel_action);
}

static void
ctr_window_init (CtrWindow *self)
{
  g_autoptr(GtkStringList) methods = gtk_string_list_new (NULL);
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));

  /* The method list is the core's method table, in its order. */
  for (guint i = 0; i < CTR_N_METHODS; i++)
    gtk_string_list_append (methods, ctr_method_label ((CtrMethod) i));
  adw_combo_row_set_model (self->method_row, G_LIST_MODEL (methods));
  g_signal_connect_swapped (self->method_row, "notify::selected",
                            G_CALLBACK (on_method_selected), self);
  adw_combo_row_set_selected (self->method_row, CTR_METHOD_SIRT);
  on_method_selected (self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  ctr_metrics_plot_reset (self->metrics_plot, 1, FALSE, NULL);
  update_actions (self);
}

CtrWindow *
ctr_window_new (GtkApplication *application)
{
  return g_object_new (CTR_TYPE_WINDOW, "application", application, NULL);
}

gboolean
ctr_window_has_dataset (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return self->dataset != NULL;
}

gboolean
ctr_window_is_busy (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return self->loading || self->running;
}

void
ctr_window_set_method (CtrWindow *self,
                       CtrMethod  method)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  g_return_if_fail (method < CTR_N_METHODS);

  adw_combo_row_set_selected (self->method_row, method);
}

void
ctr_window_set_iterations (CtrWindow *self,
                           guint      iterations)
{
  g_return_if_fail (CTR_IS_WINDOW (self));

  gtk_spin_button_set_value (self->iterations_spin, CLAMP (iterations, 1, 500));
}

/* Start reconstructing as soon as the next dataset has loaded. */
void
ctr_window_set_run_on_load (CtrWindow *self,
                            gboolean   run_on_load)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  self->run_on_load = !!run_on_load;
}
