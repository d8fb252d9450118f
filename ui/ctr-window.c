/* ctr-window.c — the main window: dataset, geometry, method, run, profile, compare.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pages (an AdwViewStack switched from the header bar):
 *   Reconstruct — dataset summary, the method panel (generated from
 *     core/ctr-params), progress, latest numbers, the live slice and the
 *     convergence plot with every run of the session overlaid;
 *   Geometry — CtrGeometryPanel: the file's geometry, editable, validated as
 *     typed, drawn to scale; the reconstruction uses the edited geometry and
 *     grid, and "Save geometry…" writes them as a geometry.json;
 *   Profile — the newest result with a line tool; every run and the
 *     reference sampled along the line (ctr_profile_sample) on one plot;
 *   Compare — up to four results side by side with linked zoom, pan and
 *     window/level, and the difference of the two newest.
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

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ctr-window.h"
#include "ctr-slice-view.h"
#include "ctr-metrics-plot.h"
#include "ctr-profile-plot.h"
#include "ctr-geometry-panel.h"
#include "ctr-method-panel.h"
#include "ctr-dicom-open.h"

/* Never keep more than this many image copies queued for the main thread:
 * if drawing falls behind a fast solver, intermediate images are skipped
 * (their numbers still reach the plot). */
#define MAX_PENDING_IMAGES 2

/* Results kept for the profile and comparison pages (oldest dropped). */
#define MAX_RUNS 6

/* One finished reconstruction of the session. */
typedef struct {
  char      *label;     /* "2 · SIRT · 8 it" */
  char      *derivation; /* method and parameters, for DICOM export */
  CtrVolume *volume;
  guint      index;     /* run number in the metrics plot (0-based) */
} Run;

static void
run_free (gpointer data)
{
  Run *r = data;
  g_free (r->label);
  g_free (r->derivation);
  ctr_volume_unref (r->volume);
  g_free (r);
}

struct _CtrWindow
{
  AdwApplicationWindow  parent_instance;

  /* template children */
  AdwToastOverlay      *toast_overlay;
  AdwSplitButton       *open_button;
  GMenu                *recent_section;
  AdwViewSwitcherTitle *window_title;
  AdwViewStack         *stack;
  AdwActionRow         *dataset_row;
  CtrMethodPanel       *method_panel;
  CtrGeometryPanel     *geometry_panel;
  CtrSliceView         *profile_view;
  GtkWidget            *slice_toolbar;
  GtkDropDown          *orientation_dropdown;
  GtkDropDown          *preset_dropdown;
  GtkAdjustment        *slice_adjustment;
  CtrProfilePlot       *profile_plot;
  GtkGrid              *compare_grid;
  GtkLabel             *compare_label;
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
  char                 *dicom_report;  /* the DICOM series' report, or NULL */
  GtkWidget            *dialog;        /* weak: a series or XA geometry dialog */
  CtrVolume            *result;
  GSettings            *settings;      /* nullable: no schema installed */
  GtkPicture           *sinogram_picture;
  GdkTexture           *sinogram_texture;
  double                data_min, data_max;  /* of the projections */
  GPtrArray            *runs;          /* Run*, oldest first */
  guint                 n_runs_started;
  GPtrArray            *compare_views; /* CtrSliceView*, in compare_grid */
  guint                 n_compare_tiles;
  gboolean              linking;

  GCancellable         *load_cancellable;
  GCancellable         *recon_cancellable;
  guint                 load_serial;
  guint                 run_serial;
  guint                 pulse_id;

  guint                 loading : 1;
  guint                 running : 1;
  guint                 closed : 1;
  guint                 run_on_load : 1;
  guint                 frames_before_run;   /* run_after_frames' count */
};

G_DEFINE_FINAL_TYPE (CtrWindow, ctr_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  DATASET_LOADED,
  RECONSTRUCTION_FINISHED,
  ITERATION,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- helpers ---------------------------------------------------------- */

static CtrMethod
selected_method (CtrWindow *self)
{
  return ctr_method_panel_get_method (self->method_panel);
}

static gboolean
can_reconstruct (CtrWindow *self)
{
  return self->dataset != NULL && !self->running && !self->loading &&
         ctr_geometry_panel_is_valid (self->geometry_panel);
}

static void
update_actions (CtrWindow *self)
{
  gboolean has_result = self->runs->len > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reconstruct", can_reconstruct (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-reconstruction",
                                 self->running || self->loading);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-geometry",
                                 self->dataset != NULL && ctr_geometry_panel_is_valid (self->geometry_panel));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-volume", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-dicom", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-metrics", has_result);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-profile",
                                 ctr_profile_plot_get_n_curves (self->profile_plot) > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->method_panel), !self->running);
  /* The geometry panel stays editable during a run: the job owns a copy,
   * edits apply to the next run (and toggling its sixty widgets' state costs
   * a restyle on the main thread for nothing). */
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
toast (CtrWindow  *self,
       const char *message)
{
  AdwToast *t = adw_toast_new (message);
  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (self->toast_overlay, t);
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

static void refresh_result_pages (CtrWindow *self);
static void sync_slice_toolbar (CtrWindow *self);
typedef struct _Loaded Loaded;
static gboolean dataset_needs_answer (CtrWindow *self, guint serial, Loaded *l);
static void add_recent (CtrWindow *self, const char *path);

/* Background work yields the CPU to the main thread: on a machine with as
 * many busy cores as the solver has threads, an equal-priority worker would
 * starve the main loop (measured: 150-500 ms gaps between 10 ms ticks on 2
 * cores).  Linux nice values are per thread and inherited by the threads a
 * thread creates, so setting it here, before the first OpenMP region of this
 * GTask thread, also lowers the OpenMP team it spawns.  Only ever raised
 * (an unprivileged thread cannot lower it back), which is right for a pool
 * thread that only runs background jobs. */
#define WORKER_NICE 10

static void
lower_thread_priority (void)
{
#ifdef __linux__
  pid_t tid = (pid_t) syscall (SYS_gettid);
  errno = 0;
  int current = getpriority (PRIO_PROCESS, (id_t) tid);
  if (errno == 0 && current < WORKER_NICE)
    setpriority (PRIO_PROCESS, (id_t) tid, WORKER_NICE);
#endif
}

/* ---- loading ---------------------------------------------------------- */

/* What the loading thread hands back: the dataset, the value range of its
 * projections and an 8-bit preview of the middle detector row's sinogram
 * (views down, columns across, at most PREVIEW_MAX wide), so the main thread
 * only wraps the bytes in a texture. */
#define PREVIEW_MAX 320

struct _Loaded {
  CtrDataset *dataset;
  double      vmin, vmax;
  GBytes     *preview;     /* R8G8B8, pw × ph */
  guint       pw, ph;
  char       *report;      /* DICOM: the series' report */
  GPtrArray  *choices;     /* DICOM: several series, none loaded yet */
  CtrDicomProjections *xa; /* DICOM: XA frames that need their geometry */
  char       *path;        /* DICOM: the folder or file the choice belongs to */
};

static void
loaded_free (gpointer data)
{
  Loaded *l = data;
  g_clear_pointer (&l->dataset, ctr_dataset_free);
  g_clear_pointer (&l->preview, g_bytes_unref);
  g_free (l->report);
  g_clear_pointer (&l->choices, g_ptr_array_unref);
  g_clear_pointer (&l->xa, ctr_dicom_projections_free);
  g_free (l->path);
  g_free (l);
}

/* What to load: a path (geometry.json, DICOM file or folder), or dropped
 * DICOM files; for DICOM also the chosen series, or XA frames the user has
 * completed. */
typedef struct {
  char                *path;
  char               **files;
  char                *series_uid;
  CtrDicomProjections *xa;
  char                *report;
} LoadRequest;

static void
load_request_free (gpointer data)
{
  LoadRequest *r = data;
  g_free (r->path);
  g_strfreev (r->files);
  g_free (r->series_uid);
  g_clear_pointer (&r->xa, ctr_dicom_projections_free);
  g_free (r->report);
  g_free (r);
}

static void
make_preview (Loaded *l)
{
  const CtrProjections *p = l->dataset->projections;
  guint row = p->n_rows / 2;
  guint step_c = MAX (1u, (p->n_cols + PREVIEW_MAX - 1) / PREVIEW_MAX);
  guint step_v = MAX (1u, (p->n_views + PREVIEW_MAX - 1) / PREVIEW_MAX);
  gsize plane = (gsize) p->n_rows * p->n_cols;
  guint8 *px;

  l->vmin = INFINITY;
  l->vmax = -INFINITY;
  for (gsize i = 0; i < plane * p->n_views; i++)
    if (isfinite (p->data[i]))
      {
        l->vmin = MIN (l->vmin, p->data[i]);
        l->vmax = MAX (l->vmax, p->data[i]);
      }
  l->pw = (p->n_cols + step_c - 1) / step_c;
  l->ph = (p->n_views + step_v - 1) / step_v;
  px = g_malloc ((gsize) l->pw * l->ph * 3);
  for (guint v = 0; v < l->ph; v++)
    for (guint c = 0; c < l->pw; c++)
      {
        float x = p->data[(gsize) v * step_v * plane + (gsize) row * p->n_cols + (gsize) c * step_c];
        double t = l->vmax > l->vmin ? (x - l->vmin) / (l->vmax - l->vmin) : 0;
        guint8 g = isfinite (t) ? (guint8) CLAMP (t * 255 + 0.5, 0, 255) : 0;
        guint8 *o = px + ((gsize) v * l->pw + c) * 3;
        o[0] = o[1] = o[2] = g;
      }
  l->preview = g_bytes_new_take (px, (gsize) l->pw * l->ph * 3);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadRequest *req = task_data;
  const char *path = req->path ? req->path : req->files[0];
  GError *error = NULL;
  CtrDataset *dataset = NULL;
  g_autofree char *report = NULL;

  lower_thread_priority ();
  if (req->xa != NULL)
    {
      dataset = ctr_dicom_dataset_from_projections (req->xa, path, NULL);
      report = g_strdup (req->report);
    }
  else if (req->files != NULL || ctr_dicom_is_dicom (path))
    {
      CtrDicomOpenResult *r = ctr_dicom_open_resolve (req->path, (const char *const *) req->files,
                                                      req->series_uid, cancellable, &error);
      if (r != NULL && r->dataset == NULL)
        {
          /* the user has to answer first: which series, or which geometry */
          Loaded *l = g_new0 (Loaded, 1);
          l->choices = g_steal_pointer (&r->choices);
          l->xa = g_steal_pointer (&r->xa);
          l->report = g_steal_pointer (&r->report);
          l->path = g_steal_pointer (&r->path);
          ctr_dicom_open_result_free (r);
          g_task_return_pointer (task, l, loaded_free);
          return;
        }
      if (r != NULL)
        {
          dataset = g_steal_pointer (&r->dataset);
          report = g_steal_pointer (&r->report);
          ctr_dicom_open_result_free (r);
        }
    }
  else if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      /* Open Folder on a dataset folder without DICOM: its geometry.json */
      g_autofree char *json = g_build_filename (path, "geometry.json", NULL);
      if (g_file_test (json, G_FILE_TEST_IS_REGULAR))
        dataset = ctr_dataset_load (json, NULL, cancellable, &error);
      else
        error = g_error_new (CTR_ERROR, CTR_ERROR_FORMAT,
                             "%s holds neither DICOM files nor a geometry.json", path);
    }
  else
    dataset = ctr_dataset_load (path, NULL, cancellable, &error);
  if (dataset == NULL)
    {
      if (error == NULL)
        error = g_error_new (CTR_ERROR, CTR_ERROR_FAILED,
                             "Could not load “%s” (no reason given)", path);
      g_task_return_error (task, error);
    }
  else
    {
      Loaded *l = g_new0 (Loaded, 1);
      l->dataset = dataset;
      l->report = g_steal_pointer (&report);
      make_preview (l);
      g_task_return_pointer (task, l, loaded_free);
    }
}

static void
show_dataset (CtrWindow *self)
{
  CtrDataset *d = self->dataset;
  g_autofree char *description = ctr_geometry_describe (d->geometry);
  g_autofree char *subtitle = NULL;

  {
    const char *kind = d->projections->kind == CTR_PROJ_COUNTS ? "counts" : "line integrals";
    if (d->reference != NULL)
      subtitle = g_strdup_printf ("%s\nProjections: %s from %.4g to %.4g\nReference: %u × %u × %u, %.3g mm pixels",
                                  description, kind, self->data_min, self->data_max,
                                  d->reference->grid.nx, d->reference->grid.ny,
                                  d->reference->grid.nz, d->reference->grid.dx);
    else
      subtitle = g_strdup_printf ("%s\nProjections: %s from %.4g to %.4g\nNo reference image",
                                  description, kind, self->data_min, self->data_max);
    if (self->dicom_report != NULL)
      {
        char *with = g_strdup_printf ("%s\nDICOM: %s", subtitle, self->dicom_report);
        g_free (subtitle);
        subtitle = with;
      }
  }
  {
    /* the subtitle is markup */
    char *escaped = g_markup_escape_text (subtitle, -1);
    g_free (subtitle);
    subtitle = escaped;
  }
  gtk_picture_set_paintable (self->sinogram_picture, GDK_PAINTABLE (self->sinogram_texture));
  gtk_widget_set_visible (GTK_WIDGET (self->sinogram_picture), self->sinogram_texture != NULL);

  adw_view_switcher_title_set_subtitle (self->window_title, d->name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dataset_row), d->name);
  adw_action_row_set_subtitle (self->dataset_row, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dataset_row), d->path);

  g_clear_pointer (&self->result, ctr_volume_unref);
  g_ptr_array_set_size (self->runs, 0);
  self->n_runs_started = 0;
  clear_numbers (self);
  ctr_metrics_plot_reset (self->metrics_plot, 1, d->reference != NULL, image_unit (self));

  /* Compare like with like: on a 2-D reference's grid (size and pixel),
   * otherwise the grid a user expects for this geometry. */
  {
    CtrGrid grid;
    if (d->reference != NULL && d->reference->grid.nz == 1)
      grid = ctr_grid_default (d->geometry, d->reference->grid.nx, d->reference->grid.dx);
    else
      grid = ctr_grid_default (d->geometry, 0, 0);
    ctr_geometry_panel_load (self->geometry_panel, d->geometry, d->projections, &grid);
  }
  refresh_result_pages (self);

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
  sync_slice_toolbar (self);
}


/* Tick callback: starts the run on the second frame after the dataset
 * was shown. */
static gboolean
run_after_frames (GtkWidget     *widget,
                  GdkFrameClock *clock,
                  gpointer       data)
{
  CtrWindow *self = CTR_WINDOW (widget);
  if (++self->frames_before_run < 2)
    return G_SOURCE_CONTINUE;
  self->frames_before_run = 0;
  if (!self->closed)
    ctr_window_reconstruct (self);
  return G_SOURCE_REMOVE;
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
  g_autofree char *report = NULL;

  {
    Loaded *l = g_task_propagate_pointer (G_TASK (result), &error);
    dataset = NULL;
    if (l != NULL && dataset_needs_answer (self, serial, l))
      return;
    if (l != NULL)
      {
        dataset = g_steal_pointer (&l->dataset);
        report = g_steal_pointer (&l->report);
        if (!self->closed && serial == self->load_serial)
          {
            g_clear_object (&self->sinogram_texture);
            self->sinogram_texture = gdk_memory_texture_new (l->pw, l->ph, GDK_MEMORY_R8G8B8,
                                                             l->preview, (gsize) l->pw * 3);
            self->data_min = l->vmin;
            self->data_max = l->vmax;
          }
        loaded_free (l);
      }
  }

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
  g_free (self->dicom_report);
  self->dicom_report = g_steal_pointer (&report);
  add_recent (self, dataset->path);
  show_dataset (self);
  set_status (self, "Idle", "Dataset loaded");
  update_actions (self);

  g_signal_emit (self, signals[DATASET_LOADED], 0, NULL);

  if (self->run_on_load && !self->closed)
    {
      /* As a user would: reconstruct once the loaded dataset is on screen
       * (two frames later), not inside the frame that lays it out. */
      self->run_on_load = FALSE;
      gtk_widget_add_tick_callback (GTK_WIDGET (self), run_after_frames, NULL, NULL);
    }
}

/* Starts loading @req (taken) in a worker thread; a running reconstruction
 * of the previous dataset is cancelled. */
static void
start_load (CtrWindow *self, LoadRequest *req)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *status = NULL;

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

  if (req->files != NULL)
    status = g_strdup_printf ("Loading %u files…", g_strv_length (req->files));
  else
    status = g_strdup_printf ("Loading %s…", req->path);
  set_status (self, "Loading…", status);
  start_pulse (self);
  update_actions (self);

  task = g_task_new (self, self->load_cancellable, load_cb,
                     GUINT_TO_POINTER (self->load_serial));
  g_task_set_source_tag (task, ctr_window_open);
  g_task_set_name (task, "[ctrecon] load dataset");
  g_task_set_task_data (task, req, load_request_free);
  g_task_run_in_thread (task, load_thread);
}

/* The user declined a question a load asked (which series, which
 * geometry): the load ends as cancelled with @why. */
static void
load_declined (CtrWindow *self, LoadRequest *req, const char *why)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, why);
  load_request_free (req);
  if (!self->closed)
    {
      set_status (self, "Idle", why);
      g_signal_emit (self, signals[DATASET_LOADED], 0, error);
    }
}

static void
series_chosen (GtkWindow *parent, char *uid, gpointer user_data)
{
  CtrWindow *self = CTR_WINDOW (parent);
  LoadRequest *req = user_data;

  if (uid == NULL || self->closed)
    {
      g_free (uid);
      load_declined (self, req, "No series chosen");
      return;
    }
  req->series_uid = uid;
  start_load (self, req);
}

static void
xa_completed (GtkWindow *parent, CtrDicomProjections *p, gpointer user_data)
{
  CtrWindow *self = CTR_WINDOW (parent);
  LoadRequest *req = user_data;

  if (p == NULL || self->closed)
    {
      ctr_dicom_projections_free (p);
      load_declined (self, req, "The acquisition geometry was not given");
      return;
    }
  req->xa = p;
  start_load (self, req);
}

/* A DICOM load that needs the user's answer: shows the dialog and returns
 * TRUE (taking @l), or FALSE for an ordinary result. */
static gboolean
dataset_needs_answer (CtrWindow *self, guint serial, Loaded *l)
{
  LoadRequest *req;
  GtkWidget *dialog;

  if (l->choices == NULL && l->xa == NULL)
    return FALSE;
  if (self->closed || serial != self->load_serial)
    {
      loaded_free (l);
      return TRUE;
    }
  self->loading = FALSE;
  g_clear_object (&self->load_cancellable);
  stop_pulse (self);
  update_actions (self);

  req = g_new0 (LoadRequest, 1);
  req->path = g_strdup (l->path);
  if (l->choices != NULL)
    {
      set_status (self, "Idle", "Choose a series");
      dialog = ctr_dicom_series_dialog (GTK_WINDOW (self), l->choices, series_chosen, req);
    }
  else
    {
      set_status (self, "Idle", "The file lacks its acquisition geometry");
      req->report = g_strdup_printf ("%s; geometry entered by hand (the file lacks it)", l->report);
      dialog = ctr_dicom_xa_dialog (GTK_WINDOW (self), g_steal_pointer (&l->xa), xa_completed, req);
    }
  g_set_weak_pointer (&self->dialog, dialog);
  loaded_free (l);
  return TRUE;
}

/**
 * ctr_window_open:
 * @file: a geometry.json, a DICOM file or a folder of DICOM files.
 *
 * Loads the dataset in a worker thread; a running reconstruction of the
 * previous dataset is cancelled.  A DICOM folder with several projection
 * series asks which one (a dialog), an X-ray angiography file without its
 * geometry asks for the missing values.  Emits #CtrWindow::dataset-loaded
 * when done (G_IO_ERROR_CANCELLED when the user cancelled a dialog).
 */
void
ctr_window_open (CtrWindow *self,
                 GFile     *file)
{
  LoadRequest *req;
  char *path;

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
  req = g_new0 (LoadRequest, 1);
  req->path = path;
  start_load (self, req);
}

/**
 * ctr_window_open_files:
 * @paths: (array zero-terminated=1): DICOM files (dropped together), grouped
 *   by series as a folder would be.
 */
void
ctr_window_open_files (CtrWindow *self, const char *const *paths)
{
  LoadRequest *req;

  g_return_if_fail (CTR_IS_WINDOW (self));
  g_return_if_fail (paths != NULL && paths[0] != NULL);
  req = g_new0 (LoadRequest, 1);
  req->files = g_strdupv ((char **) paths);
  start_load (self, req);
}

/* The dialog a DICOM load is waiting on (series or XA geometry), or NULL. */
GtkWidget *
ctr_window_get_dialog (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return self->dialog;
}

/* Selects a window preset of the slice toolbar by name ("auto",
 * "soft-tissue", "brain", "bone", "lung", "hu"); FALSE when unknown. */
gboolean
ctr_window_apply_preset (CtrWindow *self, const char *name)
{
  static const char *names[] = { "auto", "soft-tissue", "brain", "bone", "lung", "hu" };

  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (names[i], name))
      {
        gtk_drop_down_set_selected (self->preset_dropdown, i);
        return gtk_drop_down_get_selected (self->preset_dropdown) == i;
      }
  return FALSE;
}

/* The pointer read-out of the Run page's slice at pixel (@ix, @iy) (tests). */
char *
ctr_window_describe_pixel (CtrWindow *self, guint ix, guint iy)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return ctr_slice_view_describe_pixel (self->slice_view, ix, iy);
}

/* The summary of the loaded dataset, as shown (tests). */
const char *
ctr_window_get_summary (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return adw_action_row_get_subtitle (self->dataset_row);
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
  char            *label;        /* the run's legend text */
  char            *derivation;   /* method and its parameters, one line */
} ReconJob;

/* "Parallel ART: iterations 3, relaxation 1, ..." from the parameter table. */
static char *
describe_options (const CtrReconOptions *o)
{
  GString *s = g_string_new (ctr_method_label (o->method));
  guint n = 0;
  const CtrParam *params = ctr_params_list (&n);
  const char *sep = ": ";

  for (guint i = 0; i < n; i++)
    if (ctr_param_applies (&params[i], o->method))
      {
        g_autofree char *value = ctr_param_format (&params[i], o);
        g_string_append_printf (s, "%s%s %s", sep, params[i].name, value);
        sep = ", ";
      }
  return g_string_free (s, FALSE);
}

static void
recon_job_free (gpointer data)
{
  ReconJob *job = data;

  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->projections, ctr_projections_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_free (job->label);
  g_free (job->derivation);
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
  g_signal_emit (self, signals[ITERATION], 0, k);

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

  lower_thread_priority ();
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
          g_autofree char *label = g_strdup_printf ("%s (cancelled)", job->label);
          ctr_metrics_plot_set_run_label (self->metrics_plot, label);
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
      full_caption = g_strdup_printf ("%s · %u × %u × %u volume", caption,
                                      volume->grid.nx, volume->grid.ny, volume->grid.nz);
    ctr_slice_view_set_image (self->slice_view, volume, volume->grid.nz / 2);
    ctr_slice_view_set_caption (self->slice_view, full_caption ? full_caption : caption);
    sync_slice_toolbar (self);
  }

  g_clear_pointer (&self->result, ctr_volume_unref);
  self->result = g_steal_pointer (&volume);
  {
    Run *run = g_new0 (Run, 1);
    run->label = g_strdup (job->label);
    run->derivation = g_strdup (job->derivation);
    run->volume = ctr_volume_ref (self->result);
    run->index = ctr_metrics_plot_get_n_runs (self->metrics_plot) - 1;
    g_ptr_array_add (self->runs, run);
    if (self->runs->len > MAX_RUNS)
      g_ptr_array_remove_index (self->runs, 0);
  }
  refresh_result_pages (self);
  update_actions (self);

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
  if (!ctr_geometry_panel_is_valid (self->geometry_panel))
    {
      toast (self, "The geometry has invalid fields; see the Geometry page");
      return;
    }
  d = self->dataset;
  method = selected_method (self);

  job = g_new0 (ReconJob, 1);
  job->geometry = ctr_geometry_copy (ctr_geometry_panel_get_geometry (self->geometry_panel));
  job->projections = ctr_projections_ref (d->projections);
  job->reference = d->reference ? ctr_volume_ref (d->reference) : NULL;
  ctr_method_panel_get_options (self->method_panel, &job->options);
  {
    g_autoptr(GError) error = NULL;
    if (!ctr_recon_options_validate (&job->options, &error))
      {
        recon_job_free (job);
        toast (self, error->message);
        return;
      }
  }
  ctr_geometry_panel_get_grid (self->geometry_panel, &job->grid);
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

  {
    g_autofree char *name = g_ascii_strup (ctr_method_name (method), -1);
    g_autofree char *label = ctr_method_is_iterative (method)
      ? g_strdup_printf ("%u · %s · %u it", self->n_runs_started + 1, name, job->options.iterations)
      : g_strdup_printf ("%u · %s", self->n_runs_started + 1, name);
    job->label = g_strdup (label);
    job->derivation = describe_options (&job->options);
    self->n_runs_started++;
    ctr_metrics_plot_begin_run (self->metrics_plot, label,
                                ctr_method_is_iterative (method) ? job->options.iterations : 1);
  }
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
  g_autoptr(GtkFileFilter) datasets = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) json = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) dicom = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new ("Open Dataset", GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN,
                                        "_Open", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  /* DICOM files often have no extension: shared-mime-info recognises them
   * by "DICM" at offset 128 (application/dicom). */
  gtk_file_filter_set_name (datasets, "Datasets (geometry.json, DICOM)");
  gtk_file_filter_add_pattern (datasets, "*.json");
  gtk_file_filter_add_suffix (datasets, "dcm");
  gtk_file_filter_add_mime_type (datasets, "application/dicom");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), datasets);
  gtk_file_filter_set_name (json, "Dataset geometry (*.json)");
  gtk_file_filter_add_pattern (json, "*.json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), json);
  gtk_file_filter_set_name (dicom, "DICOM (*.dcm, or without extension)");
  gtk_file_filter_add_suffix (dicom, "dcm");
  gtk_file_filter_add_mime_type (dicom, "application/dicom");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), dicom);
  gtk_file_filter_set_name (all, "All files");
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (native), datasets);

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
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new ("Open DICOM Folder", GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                        "_Open", "_Cancel");
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
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
open_recent_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));
  ctr_window_open (CTR_WINDOW (widget), file);
}

/* ---- recent files (GtkRecentManager) ------------------------------------- */

#define MAX_RECENT 8

static const char *
recent_app_name (void)
{
  const char *name = g_get_application_name ();
  return name != NULL ? name : "ctrecon";
}

static void
add_recent (CtrWindow *self, const char *path)
{
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GtkRecentData data = { 0 };
  gboolean dir = g_file_test (path, G_FILE_TEST_IS_DIR);

  if (uri == NULL)
    return;
  data.mime_type = (char *) (dir ? "inode/directory"
                                 : g_str_has_suffix (path, ".json") ? "application/json" : "application/dicom");
  data.app_name = (char *) recent_app_name ();
  data.app_exec = (char *) "ctrecon %f";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static int
compare_recent (gconstpointer a, gconstpointer b)
{
  GDateTime *ta = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *tb = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);
  return -g_date_time_compare (ta, tb);
}

/* The open menu's recent section: this application's datasets, newest first. */
static void
rebuild_recent_menu (CtrWindow *self)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr(GPtrArray) mine = g_ptr_array_new ();
  guint n = 0;

  for (GList *l = items; l != NULL; l = l->next)
    if (gtk_recent_info_has_application (l->data, recent_app_name ()) && gtk_recent_info_is_local (l->data) &&
        gtk_recent_info_exists (l->data))
      g_ptr_array_add (mine, l->data);
  g_ptr_array_sort (mine, compare_recent);
  g_menu_remove_all (self->recent_section);
  for (guint i = 0; i < mine->len && n < MAX_RECENT; i++, n++)
    {
      GtkRecentInfo *info = mine->pdata[i];
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GFile) file = g_file_new_for_uri (uri);
      g_autofree char *base = g_file_get_basename (file);
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autofree char *pbase = parent ? g_file_get_basename (parent) : NULL;
      /* "gel-fan/geometry.json": a file name alone says little */
      g_autofree char *label = pbase ? g_strdup_printf ("%s/%s", pbase, base) : g_strdup (base);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (uri));
      g_menu_append_item (self->recent_section, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

/* The entries of the open menu's recent section (tests). */
guint
ctr_window_get_n_recent (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  return g_menu_model_get_n_items (G_MENU_MODEL (self->recent_section));
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
        ctr_window_open_files (self, (const char *const *) paths->pdata);
      else
        toast (self, "Only local files can be opened");
    }
  g_slist_free (files);
  return TRUE;
}

/* ---- profile and comparison pages ------------------------------------- */

#define PROFILE_SAMPLES 512

static const GdkRGBA reference_color = { 0.35, 0.35, 0.35, 1 };

static void
update_profile (CtrWindow *self)
{
  double seg[4];
  double s[PROFILE_SAMPLES];
  float v[PROFILE_SAMPLES];

  ctr_profile_plot_clear (self->profile_plot);
  ctr_profile_plot_set_unit (self->profile_plot, image_unit (self));
  if (ctr_slice_view_get_segment (self->profile_view, seg) &&
      hypot (seg[2] - seg[0], seg[3] - seg[1]) > 0)
    {
      for (guint i = 0; i < self->runs->len; i++)
        {
          Run *run = g_ptr_array_index (self->runs, i);
          GdkRGBA color;
          ctr_metrics_plot_get_run_color (self->metrics_plot, run->index, &color);
          ctr_profile_sample (run->volume, run->volume->grid.nz / 2, seg[0], seg[1], seg[2], seg[3],
                              PROFILE_SAMPLES, v, s);
          ctr_profile_plot_add_curve (self->profile_plot, run->label, &color, FALSE, PROFILE_SAMPLES, s, v);
        }
      if (self->dataset != NULL && self->dataset->reference != NULL)
        {
          CtrVolume *ref = self->dataset->reference;
          ctr_profile_sample (ref, ref->grid.nz / 2, seg[0], seg[1], seg[2], seg[3], PROFILE_SAMPLES, v, s);
          ctr_profile_plot_add_curve (self->profile_plot, "reference", &reference_color, TRUE,
                                      PROFILE_SAMPLES, s, v);
        }
    }
  if (self->runs != NULL)
    update_actions (self);
}

static void
link_view (CtrSliceView *source, CtrWindow *self)
{
  double zoom, px, py;

  if (self->linking)
    return;
  self->linking = TRUE;
  ctr_slice_view_get_zoom_pan (source, &zoom, &px, &py);
  for (guint i = 0; i < self->compare_views->len; i++)
    if (g_ptr_array_index (self->compare_views, i) != source)
      ctr_slice_view_set_zoom_pan (g_ptr_array_index (self->compare_views, i), zoom, px, py);
  self->linking = FALSE;
}

/* Window/level is linked between the result tiles (not the difference,
 * whose values are centred on 0). */
static void
link_window (CtrSliceView *source, CtrWindow *self)
{
  double lo, hi;

  if (self->linking || g_object_get_data (G_OBJECT (source), "ctr-difference"))
    return;
  self->linking = TRUE;
  ctr_slice_view_get_window (source, &lo, &hi);
  for (guint i = 0; i < self->compare_views->len; i++)
    {
      CtrSliceView *v = g_ptr_array_index (self->compare_views, i);
      if (v != source && !g_object_get_data (G_OBJECT (v), "ctr-difference"))
        ctr_slice_view_set_window (v, lo, hi);
    }
  self->linking = FALSE;
}

static CtrSliceView *
add_compare_tile (CtrWindow *self, CtrVolume *image, const char *caption, gboolean difference)
{
  CtrSliceView *view = CTR_SLICE_VIEW (ctr_slice_view_new ());
  guint i = self->compare_views->len;

  gtk_widget_set_hexpand (GTK_WIDGET (view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (view), TRUE);
  ctr_slice_view_set_image (view, image, image->grid.nz / 2);
  ctr_slice_view_set_caption (view, caption);
  if (difference)
    g_object_set_data (G_OBJECT (view), "ctr-difference", GINT_TO_POINTER (1));
  g_signal_connect (view, "view-changed", G_CALLBACK (link_view), self);
  g_signal_connect (view, "window-changed", G_CALLBACK (link_window), self);
  gtk_grid_attach (self->compare_grid, GTK_WIDGET (view), i % 3, i / 3, 1, 1);
  g_ptr_array_add (self->compare_views, view);
  return view;
}

/* a − b on the same grid (the shown slice), or NULL when the grids differ. */
static CtrVolume *
difference_image (const CtrVolume *a, const CtrVolume *b)
{
  CtrGrid g;
  CtrVolume *d;
  const float *sa, *sb;

  if (a->grid.nx != b->grid.nx || a->grid.ny != b->grid.ny ||
      fabs (a->grid.dx - b->grid.dx) > 1e-9 * a->grid.dx ||
      fabs (a->grid.cx - b->grid.cx) > 1e-6 || fabs (a->grid.cy - b->grid.cy) > 1e-6)
    return NULL;
  g = a->grid;
  g.nz = 1;
  d = ctr_volume_new (&g, NULL);
  if (d == NULL)
    return NULL;
  sa = ctr_volume_slice (a, a->grid.nz / 2);
  sb = ctr_volume_slice (b, b->grid.nz / 2);
  for (gsize i = 0; i < ctr_grid_slice_size (&g); i++)
    d->data[i] = sa[i] - sb[i];
  ctr_volume_set_unit (d, a->unit);
  return d;
}

static void
refresh_compare (CtrWindow *self)
{
  GtkWidget *child;
  guint n = self->runs->len;
  guint first = n > 3 ? n - 3 : 0;
  CtrVolume *ref = self->dataset ? self->dataset->reference : NULL;
  double lo = 0, hi = 0;
  gboolean have_window = FALSE;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->compare_grid))) != NULL)
    gtk_grid_remove (self->compare_grid, child);
  g_ptr_array_set_size (self->compare_views, 0);

  /* up to three newest runs and the reference: four results; the linked
   * window starts as the reference's automatic one (else the newest run's) */
  for (guint i = first; i < n; i++)
    {
      Run *run = g_ptr_array_index (self->runs, i);
      CtrSliceView *v = add_compare_tile (self, run->volume, run->label, FALSE);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (ref != NULL)
    {
      CtrSliceView *v = add_compare_tile (self, ref, "reference", FALSE);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (have_window)
    for (guint i = 0; i < self->compare_views->len; i++)
      ctr_slice_view_set_window (g_ptr_array_index (self->compare_views, i), lo, hi);

  /* the difference of the two newest runs, else newest minus reference */
  if (n >= 1)
    {
      Run *a = g_ptr_array_index (self->runs, n - 1);
      g_autoptr(CtrVolume) diff = NULL;
      g_autofree char *caption = NULL;
      if (n >= 2)
        {
          Run *b = g_ptr_array_index (self->runs, n - 2);
          diff = difference_image (a->volume, b->volume);
          caption = g_strdup_printf ("difference: %s − %s", a->label, b->label);
        }
      if (diff == NULL && ref != NULL)
        {
          g_clear_pointer (&caption, g_free);
          diff = difference_image (a->volume, ref);
          caption = g_strdup_printf ("difference: %s − reference", a->label);
        }
      if (diff != NULL)
        {
          CtrSliceView *v = add_compare_tile (self, diff, caption, TRUE);
          double m = 0;
          for (gsize i = 0; i < ctr_grid_slice_size (&diff->grid); i++)
            if (isfinite (diff->data[i]))
              m = MAX (m, fabs (diff->data[i]));
          if (m > 0)
            ctr_slice_view_set_window (v, -m, m);
        }
    }
  self->n_compare_tiles = self->compare_views->len;
  gtk_label_set_label (self->compare_label, n == 0
    ? "Reconstruct to compare: each finished run appears here beside the reference."
    : "Newest runs and the reference side by side, with a difference image; zoom (scroll), pan (Shift+drag) and window/level (drag) are linked.");
}

static void
refresh_result_pages (CtrWindow *self)
{
  double seg[4];

  if (self->runs->len > 0)
    {
      Run *run = g_ptr_array_index (self->runs, self->runs->len - 1);
      ctr_slice_view_set_image (self->profile_view, run->volume, run->volume->grid.nz / 2);
      ctr_slice_view_set_caption (self->profile_view, run->label);
    }
  else if (self->dataset != NULL && self->dataset->reference != NULL)
    {
      ctr_slice_view_set_image (self->profile_view, self->dataset->reference,
                                self->dataset->reference->grid.nz / 2);
      ctr_slice_view_set_caption (self->profile_view, "reference");
    }
  else
    ctr_slice_view_set_image (self->profile_view, NULL, 0);

  /* a new dataset: a default line through the centre */
  if (!ctr_slice_view_get_segment (self->profile_view, seg) &&
      ctr_slice_view_get_image (self->profile_view) != NULL)
    {
      const CtrGrid *g = &ctr_slice_view_get_image (self->profile_view)->grid;
      double half = 0.45 * g->nx * g->dx;
      double def[4] = { g->cx - half, g->cy, g->cx + half, g->cy };
      ctr_slice_view_set_segment (self->profile_view, def);
    }
  else
    update_profile (self);
  refresh_compare (self);
}

/* ---- saving and exporting ---------------------------------------------- */

typedef void (*SaveFunc) (CtrWindow *self, const char *path);

static void
save_response (GtkNativeDialog *native, int response, CtrWindow *self)
{
  SaveFunc func = g_object_get_data (G_OBJECT (native), "ctr-save-func");

  if (response == GTK_RESPONSE_ACCEPT && !self->closed)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;
      if (path != NULL)
        func (self, path);
      else
        toast (self, "Only local files can be written");
    }
  g_object_unref (native);
}

static void
ask_save_path (CtrWindow *self, const char *title, const char *name, SaveFunc func)
{
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new (title, GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  if (self->dataset != NULL)
    {
      g_autoptr(GFile) f = g_file_new_for_path (self->dataset->path);
      g_autoptr(GFile) dir = g_file_get_parent (f);
      if (dir != NULL)
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), dir, NULL);
    }
  g_object_set_data (G_OBJECT (native), "ctr-save-func", func);
  g_signal_connect (native, "response", G_CALLBACK (save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
report_saved (CtrWindow *self, const char *path, GError *error)
{
  if (error != NULL)
    toast (self, error->message);
  else
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *msg = g_strdup_printf ("Saved %s", base);
      toast (self, msg);
    }
}

static void
save_geometry_to (CtrWindow *self, const char *path)
{
  g_autoptr(GError) error = NULL;
  ctr_window_save_geometry (self, path, &error);
  report_saved (self, path, error);
}

static void
save_png_to (CtrWindow *self, const char *path)
{
  g_autoptr(GError) error = NULL;
  ctr_window_save_png (self, path, &error);
  report_saved (self, path, error);
}

static void
save_volume_to (CtrWindow *self, const char *path)
{
  g_autoptr(GError) error = NULL;
  ctr_window_export_volume (self, path, &error);
  report_saved (self, path, error);
}

static void
save_metrics_to (CtrWindow *self, const char *path)
{
  g_autoptr(GError) error = NULL;
  ctr_metrics_plot_write_csv (self->metrics_plot, path, &error);
  report_saved (self, path, error);
}

static void
save_profile_to (CtrWindow *self, const char *path)
{
  g_autoptr(GError) error = NULL;
  ctr_profile_plot_write_csv (self->profile_plot, path, &error);
  report_saved (self, path, error);
}

/* SeriesDescription of an exported run, method first (the attribute holds
 * 64 characters), in ASCII: "ctrecon 2 - SIRT - 8 it: gel-fan". */
static char *
export_description (CtrWindow *self, const Run *run)
{
  g_auto(GStrv) parts = g_strsplit (run->label, " · ", -1);
  g_autofree char *label = g_strjoinv (" - ", parts);

  return g_strdup_printf ("ctrecon %s: %s", label, self->dataset ? self->dataset->name : "reconstruction");
}

/* DICOM export in a worker thread: a few hundred slice files take a while. */
typedef struct {
  CtrVolume *volume;
  char      *folder;
  char      *description;
  char      *derivation;
  guint      series_number;
} DicomExport;

static void
dicom_export_free (gpointer data)
{
  DicomExport *e = data;
  ctr_volume_unref (e->volume);
  g_free (e->folder);
  g_free (e->description);
  g_free (e->derivation);
  g_free (e);
}

static void
dicom_export_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  DicomExport *e = data;
  CtrDicomExportOptions o;
  GError *error = NULL;

  lower_thread_priority ();
  ctr_dicom_export_options_init (&o);
  o.series_description = e->description;
  o.derivation = e->derivation;
  o.series_number = e->series_number;
  if (ctr_dicom_export_series (e->volume, e->folder, &o, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
dicom_export_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  CtrWindow *self = CTR_WINDOW (source);
  DicomExport *e = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autofree char *msg = g_strdup_printf ("DICOM export failed: %s", error->message);
      if (!self->closed)
        toast (self, msg);
    }
  else if (!self->closed)
    {
      g_autofree char *msg = g_strdup_printf ("Exported %u DICOM slices to %s", e->volume->grid.nz, e->folder);
      toast (self, msg);
    }
}

static void
save_dicom_to (CtrWindow *self, const char *folder)
{
  const Run *run;
  DicomExport *e;
  g_autoptr(GTask) task = NULL;

  if (self->result == NULL || self->runs->len == 0)
    {
      toast (self, "No reconstruction to export yet");
      return;
    }
  run = self->runs->pdata[self->runs->len - 1];
  e = g_new0 (DicomExport, 1);
  e->volume = ctr_volume_ref (run->volume);
  e->folder = g_strdup (folder);
  e->description = export_description (self, run);
  e->derivation = g_strdup (run->derivation);
  e->series_number = run->index + 1;
  task = g_task_new (self, NULL, dicom_export_cb, NULL);
  g_task_set_name (task, "[ctrecon] export DICOM");
  g_task_set_task_data (task, e, dicom_export_free);
  g_task_run_in_thread (task, dicom_export_thread);
}

static void
export_dicom_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);
  GtkFileChooserNative *native =
    gtk_file_chooser_native_new ("Export DICOM Series (choose a folder)", GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Export", "_Cancel");

  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_object_set_data (G_OBJECT (native), "ctr-save-func", save_dicom_to);
  g_signal_connect (native, "response", G_CALLBACK (save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
save_geometry_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  ask_save_path (CTR_WINDOW (widget), "Save Geometry", "geometry-edited.json", save_geometry_to);
}

static void
export_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrWindow *self = CTR_WINDOW (widget);

  if (g_str_equal (action_name, "win.export-png"))
    ask_save_path (self, "Export Image", "view.png", save_png_to);
  else if (g_str_equal (action_name, "win.export-volume"))
    ask_save_path (self, "Export Volume", "reconstruction.tif", save_volume_to);
  else if (g_str_equal (action_name, "win.export-metrics"))
    ask_save_path (self, "Export Metrics", "metrics.csv", save_metrics_to);
  else
    ask_save_path (self, "Export Line Profile", "profile.csv", save_profile_to);
}

/* ---- public API for the application and tests ---------------------------- */

/**
 * ctr_window_save_geometry:
 * Writes the edited geometry as a geometry.json at @path that still names the
 * dataset's projections and reference (ctr_geometry_json_write).
 */
gboolean
ctr_window_save_geometry (CtrWindow *self, const char *path, GError **error)
{
  const CtrGeometry *g;

  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  g = ctr_geometry_panel_get_geometry (self->geometry_panel);
  if (self->dataset == NULL || g == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "No valid geometry to save (fix the fields marked in red)");
      return FALSE;
    }
  return ctr_geometry_json_write (g, NULL, self->dataset->path, path, error);
}

/* The visible page, drawn by the window's renderer, as PNG. */
gboolean
ctr_window_save_png (CtrWindow *self, const char *path, GError **error)
{
  GtkWidget *page;
  int w, h;
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot;
  GskRenderer *renderer;

  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  page = adw_view_stack_get_visible_child (self->stack);
  renderer = gtk_native_get_renderer (GTK_NATIVE (self));
  w = page ? gtk_widget_get_width (page) : 0;
  h = page ? gtk_widget_get_height (page) : 0;
  if (renderer == NULL || w <= 0 || h <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Nothing is shown to export");
      return FALSE;
    }
  paintable = gtk_widget_paintable_new (page);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node != NULL)
    texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  if (texture == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The view drew nothing");
      return FALSE;
    }
  {
    /* gdk_texture_save_to_png writes in place: go through a temp file */
    g_autofree char *tmp = g_strdup_printf ("%s.part", path);
    if (!gdk_texture_save_to_png (texture, tmp) || g_rename (tmp, path) != 0)
      {
        g_unlink (tmp);
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Could not write “%s”", path);
        return FALSE;
      }
  }
  return TRUE;
}

void
ctr_window_show_page (CtrWindow *self, const char *name)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  adw_view_stack_set_visible_child_name (self->stack, name);
}

CtrGeometryPanel *
ctr_window_get_geometry_panel (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return self->geometry_panel;
}

CtrMethodPanel *
ctr_window_get_method_panel (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return self->method_panel;
}

gboolean
ctr_window_can_reconstruct (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return can_reconstruct (self);
}

const char *
ctr_window_get_status (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return gtk_label_get_label (self->status_label);
}

const char *
ctr_window_get_progress_text (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return gtk_progress_bar_get_text (self->progress_bar);
}

guint
ctr_window_get_n_runs (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  return self->runs->len;
}

guint
ctr_window_get_n_plot_runs (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  return ctr_metrics_plot_get_n_runs (self->metrics_plot);
}

void
ctr_window_set_profile_segment (CtrWindow *self, double x0, double y0, double x1, double y1)
{
  double seg[4] = { x0, y0, x1, y1 };
  g_return_if_fail (CTR_IS_WINDOW (self));
  ctr_slice_view_set_segment (self->profile_view, seg);
}

guint
ctr_window_get_profile_n_curves (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  return ctr_profile_plot_get_n_curves (self->profile_plot);
}

gboolean
ctr_window_export_profile (CtrWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return ctr_profile_plot_write_csv (self->profile_plot, path, error);
}

/* The newest result as a float32 TIFF, one page per slice from the lowest z
 * (ctr_tiff_write_volume: temp file + rename). */
gboolean
ctr_window_export_volume (CtrWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  if (self->result == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "No reconstruction to export yet");
      return FALSE;
    }
  return ctr_tiff_write_volume (path, self->result, error);
}

/**
 * ctr_window_export_dicom:
 * Writes the newest result as a DICOM CT Image Storage series into @folder
 * (ctr_dicom_export_series: one file per slice, HU with μ_water 0.0192 /mm,
 * the run's method and parameters as DerivationDescription).
 */
gboolean
ctr_window_export_dicom (CtrWindow *self, const char *folder, GError **error)
{
  CtrDicomExportOptions o;
  const Run *run;
  g_autofree char *description = NULL;

  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  if (self->result == NULL || self->runs->len == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "No reconstruction to export yet");
      return FALSE;
    }
  run = self->runs->pdata[self->runs->len - 1];
  description = export_description (self, run);
  ctr_dicom_export_options_init (&o);
  o.series_description = description;
  o.derivation = run->derivation;
  o.series_number = run->index + 1;
  return ctr_dicom_export_series (run->volume, folder, &o, error);
}

/* (transfer none) (nullable): the newest result. */
CtrVolume *
ctr_window_get_result (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), NULL);
  return self->result;
}

gboolean
ctr_window_export_metrics (CtrWindow *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return ctr_metrics_plot_write_csv (self->metrics_plot, path, error);
}

guint
ctr_window_get_n_compare_tiles (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  return self->n_compare_tiles;
}

/* Zooms the first comparison tile as a user would; the others follow. */
void
ctr_window_zoom_compare (CtrWindow *self, double zoom, double pan_x, double pan_y)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  if (self->compare_views->len == 0)
    return;
  ctr_slice_view_set_zoom_pan (g_ptr_array_index (self->compare_views, 0), zoom, pan_x, pan_y);
  g_signal_emit_by_name (g_ptr_array_index (self->compare_views, 0), "view-changed");
}

/* The zoom of comparison tile @i (tests check the link). */
double
ctr_window_get_compare_zoom (CtrWindow *self, guint i)
{
  double z = 0, px, py;
  g_return_val_if_fail (CTR_IS_WINDOW (self), 0);
  if (i < self->compare_views->len)
    ctr_slice_view_get_zoom_pan (g_ptr_array_index (self->compare_views, i), &z, &px, &py);
  return z;
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
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_pointer (&self->compare_views, g_ptr_array_unref);
  g_clear_object (&self->settings);
  g_clear_object (&self->sinogram_texture);
  g_clear_pointer (&self->dataset, ctr_dataset_free);
  g_clear_pointer (&self->dicom_report, g_free);
  g_clear_weak_pointer (&self->dialog);
  g_clear_object (&self->recent_section);

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
  /**
   * CtrWindow::iteration:
   * @iteration: the iteration just shown (1-based).
   */
  signals[ITERATION] =
    g_signal_new ("iteration", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  g_type_ensure (CTR_TYPE_SLICE_VIEW);
  g_type_ensure (CTR_TYPE_METRICS_PLOT);
  g_type_ensure (CTR_TYPE_PROFILE_PLOT);
  g_type_ensure (CTR_TYPE_GEOMETRY_PANEL);
  g_type_ensure (CTR_TYPE_METHOD_PANEL);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, open_button);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, dataset_row);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, method_panel);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, geometry_panel);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, profile_view);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, slice_toolbar);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, sinogram_picture);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, orientation_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, preset_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, slice_adjustment);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, profile_plot);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, compare_grid);
  gtk_widget_class_bind_template_child (widget_class, CtrWindow, compare_label);
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
  gtk_widget_class_install_action (widget_class, "win.save-geometry", NULL, save_geometry_action);
  gtk_widget_class_install_action (widget_class, "win.export-png", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-volume", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-dicom", NULL, export_dicom_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.open-folder", NULL);
  gtk_widget_class_install_action (widget_class, "win.export-metrics", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.export-profile", NULL, export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.save-geometry", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK,
                                       "win.export-png", NULL);
}

/* Preferences (org.ctrecon.CtRecon): the method and iteration count a new
 * window starts with are the last ones used. */
static void
store_method_settings (CtrWindow *self)
{
  CtrReconOptions o;

  if (self->settings == NULL)
    return;
  ctr_method_panel_get_options (self->method_panel, &o);
  g_settings_set_string (self->settings, "default-method", ctr_method_name (o.method));
  g_settings_set_string (self->settings, "backend", ctr_method_panel_get_backend (self->method_panel));
  if (ctr_method_is_iterative (o.method))
    g_settings_set_uint (self->settings, "iterations", o.iterations);
}

static void
load_settings (CtrWindow *self)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autofree char *name = NULL;
  CtrMethod method;
  guint iterations;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, "org.ctrecon.CtRecon", TRUE);
  if (schema == NULL)
    {
      g_debug ("GSettings schema org.ctrecon.CtRecon not installed; preferences are not kept");
      return;
    }
  self->settings = g_settings_new ("org.ctrecon.CtRecon");
  name = g_settings_get_string (self->settings, "default-method");
  method = ctr_method_panel_get_method (self->method_panel);
  if (ctr_method_from_name (name, &method, NULL))
    ctr_method_panel_set_method (self->method_panel, method);
  {
    g_autofree char *backend = g_settings_get_string (self->settings, "backend");
    ctr_method_panel_set_backend (self->method_panel, backend);
  }
  iterations = g_settings_get_uint (self->settings, "iterations");
  if (iterations > 0 && ctr_method_is_iterative (method))
    ctr_method_panel_set_param (self->method_panel, "iterations", iterations, NULL);
  g_signal_connect_swapped (self->method_panel, "changed", G_CALLBACK (store_method_settings), self);
}

/* ---- slice toolbar: orientation, slice, window presets ------------------ */

static void
sync_slice_toolbar (CtrWindow *self)
{
  CtrVolume *v = ctr_slice_view_get_image (self->slice_view);
  gboolean volume = v != NULL && v->grid.nz > 1;
  guint n = ctr_slice_view_get_n_slices (self->slice_view);

  gtk_widget_set_sensitive (GTK_WIDGET (self->orientation_dropdown), volume);
  gtk_adjustment_configure (self->slice_adjustment, ctr_slice_view_get_slice (self->slice_view) + 1,
                            1, MAX (n, 1), 1, 10, 0);
}

static void
on_orientation (CtrWindow *self)
{
  ctr_slice_view_set_orientation (self->slice_view, gtk_drop_down_get_selected (self->orientation_dropdown));
  sync_slice_toolbar (self);
}

static void
on_slice_changed (CtrWindow *self)
{
  guint slice = (guint) gtk_adjustment_get_value (self->slice_adjustment) - 1;
  if (slice != ctr_slice_view_get_slice (self->slice_view))
    ctr_slice_view_set_slice (self->slice_view, slice);
}

static void
on_preset (CtrWindow *self)
{
  static const char *names[] = { "auto", "soft-tissue", "brain", "bone", "lung", "hu" };
  guint i = gtk_drop_down_get_selected (self->preset_dropdown);

  if (i < G_N_ELEMENTS (names) && !ctr_slice_view_apply_preset (self->slice_view, names[i]))
    {
      toast (self, "Hounsfield presets need an image in 1/mm");
      gtk_drop_down_set_selected (self->preset_dropdown, 0);
    }
}

static void
ctr_window_init (CtrWindow *self)
{
  GtkDropTarget *drop;

  self->runs = g_ptr_array_new_with_free_func (run_free);
  self->compare_views = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_swapped (self->geometry_panel, "changed", G_CALLBACK (update_actions), self);
  load_settings (self);
  g_signal_connect_swapped (self->orientation_dropdown, "notify::selected", G_CALLBACK (on_orientation), self);
  g_signal_connect_swapped (self->slice_adjustment, "value-changed", G_CALLBACK (on_slice_changed), self);
  g_signal_connect_swapped (self->preset_dropdown, "notify::selected", G_CALLBACK (on_preset), self);
  sync_slice_toolbar (self);
  ctr_slice_view_set_profile_tool (self->profile_view, TRUE);
  g_signal_connect_swapped (self->profile_view, "segment-changed", G_CALLBACK (update_profile), self);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  ctr_metrics_plot_reset (self->metrics_plot, 1, FALSE, NULL);

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

/* Axial, coronal or sagittal view of volume results (the toolbar's choice). */
void
ctr_window_set_orientation (CtrWindow *self, CtrSliceOrientation orientation)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  gtk_drop_down_set_selected (self->orientation_dropdown, orientation);
}

gboolean
ctr_window_is_running (CtrWindow *self)
{
  g_return_val_if_fail (CTR_IS_WINDOW (self), FALSE);
  return self->running;
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

  ctr_method_panel_set_method (self->method_panel, method);
}

void
ctr_window_set_iterations (CtrWindow *self,
                           guint      iterations)
{
  g_return_if_fail (CTR_IS_WINDOW (self));

  ctr_method_panel_set_param (self->method_panel, "iterations", MAX (iterations, 1), NULL);
}

/* Start reconstructing as soon as the next dataset has loaded. */
void
ctr_window_set_run_on_load (CtrWindow *self,
                            gboolean   run_on_load)
{
  g_return_if_fail (CTR_IS_WINDOW (self));
  self->run_on_load = !!run_on_load;
}
