/* ctr-session.c — one dataset and the runs made on it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Threading (DESIGN.md §5).  Loading and reconstructing each run in a GTask
 * thread; the session itself is only read and changed on the main thread.
 * Each job owns what its thread reads (a reference on the projections and
 * the reference image, a copy of the small geometry), so replacing the
 * dataset while a worker is still winding down is safe.  After every
 * iteration the core calls on_iteration() on the worker thread with a
 * borrowed image; we copy the shown slice and the numbers into a Progress
 * message and hand it to the main context with g_main_context_invoke_full(),
 * as GLib's gfile.c does for copy progress.
 *
 * Each async call is two tasks: the caller's (returned when the work is
 * done and the session updated) and the thread's, whose cancellable is the
 * job's own — cancelled by ctr_session_cancel(), by a newer load, and by the
 * caller's cancellable, to which it is linked.
 */
#define G_LOG_DOMAIN "ctr-session"

#include <errno.h>
#include <math.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ctr-session.h"
#include "ctr-run-private.h"

/* Never keep more than this many slice copies queued for the main thread:
 * if drawing falls behind a fast solver, intermediate images are skipped
 * (their numbers still reach the runs). */
#define MAX_PENDING_IMAGES 2

/* Results kept in memory (older runs keep their numbers, not their image). */
#define MAX_RESULTS 6

/* The sinogram preview's largest side. */
#define PREVIEW_MAX 320

typedef struct _LoadJob LoadJob;
typedef struct _ReconJob ReconJob;

struct _CtrSession
{
  GObject       parent_instance;

  CtrDataset   *dataset;
  char         *report;
  GBytes       *preview;
  guint         preview_width;
  guint         preview_height;
  double        data_min;
  double        data_max;
  GListStore   *runs;

  CtrIterStats *latest_stats;
  double        fraction;
  char         *progress_text;
  char         *status;

  LoadJob      *load;     /* the current load, or NULL */
  ReconJob     *recon;    /* the current reconstruction, or NULL */
};

G_DEFINE_FINAL_TYPE (CtrSession, ctr_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_DATASET,
  PROP_BUSY,
  PROP_LOADING,
  PROP_RUNNING,
  PROP_FRACTION,
  PROP_PROGRESS_TEXT,
  PROP_STATUS,
  PROP_LATEST_STATS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- helpers -------------------------------------------------------------- */

/* g_set_str() is GLib 2.76. */
static gboolean
replace_str (char **ptr, const char *value)
{
  if (g_strcmp0 (*ptr, value) == 0)
    return FALSE;
  g_free (*ptr);
  *ptr = g_strdup (value);
  return TRUE;
}

static void
notify (CtrSession *self, guint prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_fraction (CtrSession *self, double fraction)
{
  if (self->fraction == fraction)
    return;
  self->fraction = fraction;
  notify (self, PROP_FRACTION);
}

void
ctr_session_set_status (CtrSession *self, const char *progress_text, const char *status)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  if (progress_text != NULL && replace_str (&self->progress_text, progress_text))
    notify (self, PROP_PROGRESS_TEXT);
  if (status != NULL && replace_str (&self->status, status))
    notify (self, PROP_STATUS);
}

static void
set_latest_stats (CtrSession *self, const CtrIterStats *stats)
{
  if (stats == NULL && self->latest_stats == NULL)
    return;
  g_clear_pointer (&self->latest_stats, ctr_run_stats_free);
  if (stats != NULL)
    self->latest_stats = ctr_run_stats_copy (stats);
  notify (self, PROP_LATEST_STATS);
}

/* Notifies loading/running and busy after either changed. */
static void
notify_busy (CtrSession *self, guint prop)
{
  notify (self, prop);
  notify (self, PROP_BUSY);
}

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

/* A job's own cancellable, cancelled with the caller's. */
static void
caller_cancelled (GCancellable *caller, GCancellable *own)
{
  g_cancellable_cancel (own);
}

static GCancellable *
link_cancellable (GCancellable *caller, gulong *handler)
{
  GCancellable *own = g_cancellable_new ();

  *handler = 0;
  if (caller != NULL)
    *handler = g_cancellable_connect (caller, G_CALLBACK (caller_cancelled), g_object_ref (own),
                                      g_object_unref);
  return own;
}

static void
unlink_cancellable (GCancellable **own, GCancellable **caller, gulong *handler)
{
  if (*caller != NULL && *handler != 0)
    g_cancellable_disconnect (*caller, *handler);
  *handler = 0;
  g_clear_object (caller);
  g_clear_object (own);
}

/* ---- loading --------------------------------------------------------------- */

struct _LoadJob {
  GTask               *outer;        /* the caller's task, until returned */
  GCancellable        *cancellable;  /* the thread's */
  GCancellable        *caller;
  gulong               caller_id;
  /* what to load */
  char                *path;
  char               **files;
  char                *series_uid;
  CtrDicomResolution  *resolution;   /* completed XA frames */
  /* what the thread found */
  CtrDataset          *dataset;
  char                *report;
  CtrDicomResolution  *question;
  GBytes              *preview;
  guint                pw, ph;
  double               vmin, vmax;
};

static void
load_job_free (gpointer data)
{
  LoadJob *job = data;

  g_clear_object (&job->outer);
  unlink_cancellable (&job->cancellable, &job->caller, &job->caller_id);
  g_free (job->path);
  g_strfreev (job->files);
  g_free (job->series_uid);
  g_clear_pointer (&job->resolution, ctr_dicom_resolution_free);
  g_clear_pointer (&job->dataset, ctr_dataset_free);
  g_free (job->report);
  g_clear_pointer (&job->question, ctr_dicom_resolution_free);
  g_clear_pointer (&job->preview, g_bytes_unref);
  g_free (job);
}

/* The value range of the projections and an 8-bit preview of the middle
 * detector row's sinogram, so the main thread only wraps the bytes. */
static void
make_preview (LoadJob *job)
{
  const CtrProjections *p = job->dataset->projections;
  guint row = p->n_rows / 2;
  guint step_c = MAX (1u, (p->n_cols + PREVIEW_MAX - 1) / PREVIEW_MAX);
  guint step_v = MAX (1u, (p->n_views + PREVIEW_MAX - 1) / PREVIEW_MAX);
  gsize plane = (gsize) p->n_rows * p->n_cols;
  guint8 *px;

  job->vmin = INFINITY;
  job->vmax = -INFINITY;
  for (gsize i = 0; i < plane * p->n_views; i++)
    if (isfinite (p->data[i]))
      {
        job->vmin = MIN (job->vmin, p->data[i]);
        job->vmax = MAX (job->vmax, p->data[i]);
      }
  job->pw = (p->n_cols + step_c - 1) / step_c;
  job->ph = (p->n_views + step_v - 1) / step_v;
  px = g_malloc ((gsize) job->pw * job->ph * 3);
  for (guint v = 0; v < job->ph; v++)
    for (guint c = 0; c < job->pw; c++)
      {
        float x = p->data[(gsize) v * step_v * plane + (gsize) row * p->n_cols + (gsize) c * step_c];
        double t = job->vmax > job->vmin ? (x - job->vmin) / (job->vmax - job->vmin) : 0;
        guint8 g = isfinite (t) ? (guint8) CLAMP (t * 255 + 0.5, 0, 255) : 0;
        guint8 *o = px + ((gsize) v * job->pw + c) * 3;
        o[0] = o[1] = o[2] = g;
      }
  job->preview = g_bytes_new_take (px, (gsize) job->pw * job->ph * 3);
}

/* Worker thread: the dataset, or the question the files raise. */
static gboolean
load_in_thread (LoadJob *job, GCancellable *cancellable, GError **error)
{
  const char *path = job->path != NULL ? job->path : job->files != NULL ? job->files[0] : NULL;

  if (job->resolution != NULL)
    {
      job->report = g_strdup_printf ("%s; geometry entered by hand (the file lacks it)",
                                     job->resolution->report ? job->resolution->report : "X-ray angiography");
      job->dataset = ctr_dicom_resolution_take_dataset (job->resolution, error);
    }
  else if (job->files != NULL || ctr_dicom_is_dicom (path))
    {
      CtrDicomResolution *r = ctr_dicom_resolve (job->path, (const char *const *) job->files,
                                                 job->series_uid, cancellable, error);
      if (r == NULL)
        return FALSE;
      if (r->outcome != CTR_DICOM_OUTCOME_DATASET)
        {
          job->question = r;
          return TRUE;
        }
      job->report = g_steal_pointer (&r->report);
      job->dataset = ctr_dicom_resolution_take_dataset (r, error);
      ctr_dicom_resolution_free (r);
    }
  else if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      /* a dataset folder without DICOM: its geometry.json */
      g_autofree char *json = g_build_filename (path, "geometry.json", NULL);
      if (g_file_test (json, G_FILE_TEST_IS_REGULAR))
        job->dataset = ctr_dataset_load (json, NULL, cancellable, error);
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s holds neither DICOM files nor a geometry.json", path);
    }
  else
    job->dataset = ctr_dataset_load (path, NULL, cancellable, error);

  if (job->dataset == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FAILED, "Could not load “%s” (no reason given)",
                     path ? path : "the dataset");
      return FALSE;
    }
  make_preview (job);
  return TRUE;
}

static void
load_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;

  lower_thread_priority ();
  if (load_in_thread (data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Main thread: the new dataset replaces the old one and its runs. */
static void
adopt_dataset (CtrSession *self, LoadJob *job)
{
  g_list_store_remove_all (self->runs);
  set_latest_stats (self, NULL);
  g_clear_pointer (&self->dataset, ctr_dataset_free);
  self->dataset = g_steal_pointer (&job->dataset);
  g_free (self->report);
  self->report = g_steal_pointer (&job->report);
  g_clear_pointer (&self->preview, g_bytes_unref);
  self->preview = g_steal_pointer (&job->preview);
  self->preview_width = job->pw;
  self->preview_height = job->ph;
  self->data_min = job->vmin;
  self->data_max = job->vmax;
  notify (self, PROP_DATASET);
}

static void
load_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtrSession *self = CTR_SESSION (source);
  LoadJob *job = data;
  g_autoptr(GTask) outer = g_steal_pointer (&job->outer);
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  if (self->load != job)
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Superseded by another dataset");
      return;
    }
  self->load = NULL;
  set_fraction (self, 0);
  if (!ok)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        ctr_session_set_status (self, "Cancelled", "Loading was cancelled");
      else
        ctr_session_set_status (self, "Idle", "The dataset could not be opened");
      notify_busy (self, PROP_LOADING);
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }
  if (job->question != NULL)
    {
      ctr_session_set_status (self, NULL, job->question->outcome == CTR_DICOM_OUTCOME_CHOOSE_SERIES
                                            ? "Choose a series" : "The file lacks its acquisition geometry");
      notify_busy (self, PROP_LOADING);
      g_task_set_task_data (outer, g_steal_pointer (&job->question), (GDestroyNotify) ctr_dicom_resolution_free);
      g_task_return_boolean (outer, TRUE);
      return;
    }
  adopt_dataset (self, job);
  ctr_session_set_status (self, "Idle", "Dataset loaded");
  notify_busy (self, PROP_LOADING);
  g_task_return_boolean (outer, TRUE);
}

static void detach_reconstruction (CtrSession *self);

static void
start_load (CtrSession *self, LoadJob *job, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *status = NULL;
  gboolean was_busy = ctr_session_get_busy (self);

  detach_reconstruction (self);
  if (self->load != NULL)
    g_cancellable_cancel (self->load->cancellable);

  job->outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (job->outer, ctr_session_load_async);
  job->caller = cancellable ? g_object_ref (cancellable) : NULL;
  job->cancellable = link_cancellable (cancellable, &job->caller_id);
  self->load = job;

  if (job->files != NULL)
    status = g_strdup_printf ("Loading %u files…", g_strv_length (job->files));
  else
    status = g_strdup_printf ("Loading %s…", job->path);
  set_fraction (self, -1);
  ctr_session_set_status (self, "Loading…", status);
  notify (self, PROP_LOADING);
  if (!was_busy)
    notify (self, PROP_BUSY);

  task = g_task_new (self, job->cancellable, load_done, job);
  g_task_set_name (task, "[ctrecon] load dataset");
  g_task_set_task_data (task, job, load_job_free);
  g_task_run_in_thread (task, load_thread);
}

void
ctr_session_load_async (CtrSession          *self,
                        const char          *path,
                        const char *const   *files,
                        const char          *series_uid,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  LoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (path != NULL || (files != NULL && files[0] != NULL));

  job = g_new0 (LoadJob, 1);
  job->path = g_strdup (path);
  job->files = files ? g_strdupv ((char **) files) : NULL;
  job->series_uid = g_strdup (series_uid);
  start_load (self, job, cancellable, callback, user_data);
}

void
ctr_session_load_resolution_async (CtrSession          *self,
                                   CtrDicomResolution  *resolution,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  LoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (resolution != NULL);

  job = g_new0 (LoadJob, 1);
  job->path = g_strdup (resolution->path);
  job->resolution = resolution;
  start_load (self, job, cancellable, callback, user_data);
}

gboolean
ctr_session_load_finish (CtrSession          *self,
                         GAsyncResult        *result,
                         CtrDicomResolution **question,
                         GError             **error)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  if (question != NULL)
    {
      *question = g_task_get_task_data (G_TASK (result));
      g_task_set_task_data (G_TASK (result), NULL, NULL);
    }
  return TRUE;
}

/* ---- reconstruction ------------------------------------------------------ */

struct _ReconJob {
  CtrSession      *session;      /* unowned: the tasks hold it */
  GTask           *outer;        /* the caller's task, until returned */
  GTask           *task;         /* unowned: the thread's (the job is its data) */
  GCancellable    *cancellable;
  GCancellable    *caller;
  gulong           caller_id;
  CtrRun          *run;
  CtrGeometry     *geometry;     /* copy */
  CtrProjections  *projections;  /* reference */
  CtrVolume       *reference;    /* reference, nullable */
  CtrGrid          grid;
  CtrReconOptions  options;
  guint            slice;        /* the slice copied for display */
  gint             pending_images;
  gint64           start_us;
};

static void
recon_job_free (gpointer data)
{
  ReconJob *job = data;

  g_clear_object (&job->outer);
  unlink_cancellable (&job->cancellable, &job->caller, &job->caller_id);
  g_clear_object (&job->run);
  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->projections, ctr_projections_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_free (job);
}

/* A 2-D copy of slice @z of @v (the only part a window shows). */
static CtrVolume *
copy_slice (const CtrVolume *v, guint z)
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

typedef struct {
  GTask        *task;    /* owned: keeps the session and the job alive */
  CtrIterStats  stats;   /* ->image: the slice copy, owned, or NULL */
} Progress;

static void
progress_free (gpointer data)
{
  Progress *p = data;
  ReconJob *job = g_task_get_task_data (p->task);

  if (p->stats.image != NULL)
    {
      g_atomic_int_add (&job->pending_images, -1);
      ctr_volume_unref ((CtrVolume *) p->stats.image);
    }
  g_object_unref (p->task);
  g_free (p);
}

static gboolean
progress_dispatch (gpointer data)
{
  Progress *p = data;
  ReconJob *job = g_task_get_task_data (p->task);
  CtrSession *self = job->session;
  const CtrIterStats *stats = &p->stats;
  guint n = MAX (stats->n_iterations, 1);
  guint k = MIN (stats->iteration, n);
  g_autofree char *text = NULL;

  if (self->recon != job)
    return G_SOURCE_REMOVE;

  _ctr_run_add_stats (job->run, stats);
  set_fraction (self, (double) k / n);
  text = g_strdup_printf ("iteration %u / %u", k, n);
  ctr_session_set_status (self, text, NULL);
  if (k < n && k > 0 && stats->elapsed_s > 0)
    {
      double left = stats->elapsed_s / k * (n - k);
      g_autofree char *status =
        left < 90 ? g_strdup_printf ("%s: about %.0f s left", ctr_method_label (stats->method), MAX (left, 1))
                  : g_strdup_printf ("%s: about %.0f min left", ctr_method_label (stats->method), left / 60);
      ctr_session_set_status (self, NULL, status);
    }
  set_latest_stats (self, stats);
  return G_SOURCE_REMOVE;
}

/* Worker thread: copy what we keep, post it to the session's main context. */
static void
on_iteration (const CtrIterStats *stats, gpointer user_data)
{
  ReconJob *job = user_data;
  Progress *p = g_new0 (Progress, 1);
  gboolean last = stats->iteration >= stats->n_iterations;

  p->task = g_object_ref (job->task);
  p->stats = *stats;
  p->stats.image = NULL;
  if (stats->image != NULL && (last || g_atomic_int_get (&job->pending_images) < MAX_PENDING_IMAGES))
    {
      p->stats.image = copy_slice (stats->image, MIN (job->slice, stats->image->grid.nz - 1));
      if (p->stats.image != NULL)
        g_atomic_int_inc (&job->pending_images);
    }
  g_main_context_invoke_full (g_task_get_context (job->task), G_PRIORITY_DEFAULT,
                              progress_dispatch, p, progress_free);
}

static void
recon_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  ReconJob *job = data;
  GError *error = NULL;
  CtrVolume *volume;

  lower_thread_priority ();
  volume = ctr_reconstruct (job->geometry, job->projections, &job->grid, &job->options, job->reference,
                            on_iteration, job, cancellable, &error);
  if (volume == NULL)
    {
      if (error == NULL)
        error = g_error_new_literal (CTR_ERROR, CTR_ERROR_FAILED, "The reconstruction failed (no reason given)");
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, volume, (GDestroyNotify) ctr_volume_unref);
}

/* Keeps the newest MAX_RESULTS results in memory. */
static void
drop_old_results (CtrSession *self)
{
  guint kept = 0;

  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->runs)); i-- > 0;)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);
      if (ctr_run_get_result (run) != NULL && ++kept > MAX_RESULTS)
        _ctr_run_drop_result (run);
    }
}

static void
finish_run (CtrSession *self, ReconJob *job, CtrVolume *volume, const GError *error)
{
  double wall_s = (g_get_monotonic_time () - job->start_us) / 1e6;

  if (volume != NULL)
    {
      CtrMethod m = job->options.method;
      guint n = ctr_run_get_n_iterations (job->run);
      g_autofree char *text = g_strdup_printf ("iteration %u / %u", n, n);
      g_autofree char *status =
        ctr_method_is_iterative (m)
          ? g_strdup_printf ("Finished: %u iterations of %s in %.1f s (wall clock), %u × %u × %u voxels", n,
                             ctr_method_label (m), wall_s, volume->grid.nx, volume->grid.ny, volume->grid.nz)
          : g_strdup_printf ("Finished: %s in %.1f s (wall clock), %u × %u × %u voxels", ctr_method_label (m),
                             wall_s, volume->grid.nx, volume->grid.ny, volume->grid.nz);
      set_fraction (self, 1.0);
      ctr_session_set_status (self, text, status);
      _ctr_run_finish (job->run, CTR_RUN_FINISHED, volume, wall_s);
      drop_old_results (self);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      ctr_session_set_status (self, "Cancelled", "Cancelled");
      _ctr_run_finish (job->run, CTR_RUN_CANCELLED, NULL, wall_s);
    }
  else
    {
      ctr_session_set_status (self, "Failed", "The reconstruction failed");
      _ctr_run_finish (job->run, CTR_RUN_FAILED, NULL, wall_s);
    }
  if (self->fraction < 0)
    set_fraction (self, 0);
}

static void
recon_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtrSession *self = CTR_SESSION (source);
  ReconJob *job = data;
  g_autoptr(GTask) outer = g_steal_pointer (&job->outer);
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrVolume) volume = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->recon != job)
    {
      /* detached: its dataset was replaced, the run already ended */
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The dataset was replaced");
      return;
    }
  self->recon = NULL;
  finish_run (self, job, volume, error);
  notify_busy (self, PROP_RUNNING);
  if (volume != NULL)
    g_task_return_pointer (outer, g_object_ref (job->run), g_object_unref);
  else
    g_task_return_error (outer, g_steal_pointer (&error));
}

/* A newer dataset replaces the one being reconstructed: the run is
 * cancelled and its late reports and result are ignored. */
static void
detach_reconstruction (CtrSession *self)
{
  ReconJob *job = self->recon;

  if (job == NULL)
    return;
  g_cancellable_cancel (job->cancellable);
  self->recon = NULL;
  _ctr_run_finish (job->run, CTR_RUN_CANCELLED, NULL, (g_get_monotonic_time () - job->start_us) / 1e6);
  notify (self, PROP_RUNNING);
}

void
ctr_session_reconstruct_async (CtrSession            *self,
                               const CtrGeometry     *geometry,
                               const CtrGrid         *grid,
                               const CtrReconOptions *options,
                               GCancellable          *cancellable,
                               GAsyncReadyCallback    callback,
                               gpointer               user_data)
{
  g_autoptr(GTask) outer = NULL;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *status = NULL;
  ReconJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (geometry != NULL && grid != NULL && options != NULL);

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ctr_session_reconstruct_async);
  if (self->dataset == NULL || ctr_session_get_busy (self))
    {
      g_task_return_new_error (outer, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                               self->dataset == NULL ? "No dataset to reconstruct"
                                                     : "Busy: wait for the running job or cancel it");
      return;
    }
  if (!ctr_recon_options_validate (options, &error))
    {
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }

  job = g_new0 (ReconJob, 1);
  job->session = self;
  job->outer = g_steal_pointer (&outer);
  job->caller = cancellable ? g_object_ref (cancellable) : NULL;
  job->cancellable = link_cancellable (cancellable, &job->caller_id);
  job->geometry = ctr_geometry_copy (geometry);
  job->projections = ctr_projections_ref (self->dataset->projections);
  job->reference = self->dataset->reference ? ctr_volume_ref (self->dataset->reference) : NULL;
  job->grid = *grid;
  job->options = *options;
  job->slice = grid->nz / 2;
  job->start_us = g_get_monotonic_time ();
  job->run = _ctr_run_new (g_list_model_get_n_items (G_LIST_MODEL (self->runs)) + 1, options, grid);
  self->recon = job;

  set_latest_stats (self, NULL);
  g_list_store_append (self->runs, job->run);
  status = g_strdup_printf ("%s on a %u × %u grid of %.3g mm pixels…", ctr_method_label (options->method),
                            grid->nx, grid->ny, grid->dx);
  set_fraction (self, -1);
  ctr_session_set_status (self, "Preparing…", status);
  notify_busy (self, PROP_RUNNING);

  task = g_task_new (self, job->cancellable, recon_done, job);
  job->task = task;
  g_task_set_name (task, "[ctrecon] reconstruct");
  g_task_set_task_data (task, job, recon_job_free);
  g_task_run_in_thread (task, recon_thread);
}

CtrRun *
ctr_session_reconstruct_finish (CtrSession    *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

void
ctr_session_cancel (CtrSession *self)
{
  g_return_if_fail (CTR_IS_SESSION (self));

  if (self->recon != NULL)
    {
      g_cancellable_cancel (self->recon->cancellable);
      ctr_session_set_status (self, "Cancelling…", NULL);
    }
  if (self->load != NULL)
    g_cancellable_cancel (self->load->cancellable);
}

/* ---- exports ------------------------------------------------------------- */

gboolean
ctr_session_write_metrics (CtrSession *self, const char *path, GError **error)
{
  g_autoptr(GString) csv = g_string_new ("run,label,iteration,residual,rmse,psnr_db,ssim\n");
  guint n;

  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->runs));
  for (guint r = 0; r < n; r++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), r);
      g_autofree char *label = g_strdup (ctr_run_get_label (run));

      g_strdelimit (label, ",\"\n", ' ');
      for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
        {
          const CtrIterStats *s = ctr_run_get_stats (run, i);
          double v[4] = { s->residual, s->rmse, s->psnr, s->ssim };

          g_string_append_printf (csv, "%u,%s,%u", r + 1, label, s->iteration);
          for (guint k = 0; k < 4; k++)
            {
              char buf[G_ASCII_DTOSTR_BUF_SIZE];
              g_string_append_c (csv, ',');
              if (isfinite (v[k]))
                g_string_append (csv, g_ascii_dtostr (buf, sizeof buf, v[k]));
            }
          g_string_append_c (csv, '\n');
        }
    }
  return g_file_set_contents (path, csv->str, (gssize) csv->len, error);
}

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

void
ctr_session_export_dicom_async (CtrSession          *self,
                                CtrRun              *run,
                                const char          *folder,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  DicomExport *e;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (CTR_IS_RUN (run));
  g_return_if_fail (folder != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ctr_session_export_dicom_async);
  g_task_set_name (task, "[ctrecon] export DICOM");
  if (ctr_run_get_result (run) == NULL)
    {
      g_task_return_new_error (task, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "No reconstruction to export yet");
      return;
    }
  e = g_new0 (DicomExport, 1);
  e->volume = ctr_volume_ref (ctr_run_get_result (run));
  e->folder = g_strdup (folder);
  {
    /* SeriesDescription, method first (the attribute holds 64 characters),
     * in ASCII: "ctrecon 2 - SIRT - 8 it: gel-fan" */
    g_auto(GStrv) parts = g_strsplit (ctr_run_get_label (run), " · ", -1);
    g_autofree char *label = g_strjoinv (" - ", parts);
    e->description = g_strdup_printf ("ctrecon %s: %s", label, self->dataset ? self->dataset->name : "reconstruction");
  }
  e->derivation = g_strdup (ctr_run_get_derivation (run));
  e->series_number = ctr_run_get_number (run);
  g_task_set_task_data (task, e, dicom_export_free);
  g_task_run_in_thread (task, dicom_export_thread);
}

gboolean
ctr_session_export_dicom_finish (CtrSession *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- getters ---------------------------------------------------------- */

CtrDataset *
ctr_session_get_dataset (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->dataset;
}

const char *
ctr_session_get_report (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->report;
}

GBytes *
ctr_session_get_preview (CtrSession *self, guint *width, guint *height)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  if (width != NULL)
    *width = self->preview_width;
  if (height != NULL)
    *height = self->preview_height;
  return self->preview;
}

void
ctr_session_get_data_range (CtrSession *self, double *min, double *max)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  *min = self->data_min;
  *max = self->data_max;
}

GListModel *
ctr_session_get_runs (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return G_LIST_MODEL (self->runs);
}

CtrRun *
ctr_session_get_latest_result (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->runs)); i-- > 0;)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);
      if (ctr_run_get_result (run) != NULL)
        return run;   /* the store keeps its reference */
    }
  return NULL;
}

gboolean
ctr_session_get_busy (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return self->load != NULL || self->recon != NULL;
}

gboolean
ctr_session_get_loading (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return self->load != NULL;
}

gboolean
ctr_session_get_running (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return self->recon != NULL;
}

double
ctr_session_get_fraction (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), 0);
  return self->fraction;
}

const char *
ctr_session_get_progress_text (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->progress_text;
}

const char *
ctr_session_get_status (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->status;
}

const CtrIterStats *
ctr_session_get_latest_stats (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->latest_stats;
}

/* ---- GObject ------------------------------------------------------------ */

static void
ctr_session_dispose (GObject *object)
{
  CtrSession *self = CTR_SESSION (object);

  /* jobs hold the session while they run: none is left here */
  g_clear_object (&self->runs);
  G_OBJECT_CLASS (ctr_session_parent_class)->dispose (object);
}

static void
ctr_session_finalize (GObject *object)
{
  CtrSession *self = CTR_SESSION (object);

  g_clear_pointer (&self->dataset, ctr_dataset_free);
  g_free (self->report);
  g_clear_pointer (&self->preview, g_bytes_unref);
  g_clear_pointer (&self->latest_stats, ctr_run_stats_free);
  g_free (self->progress_text);
  g_free (self->status);
  G_OBJECT_CLASS (ctr_session_parent_class)->finalize (object);
}

static void
ctr_session_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CtrSession *self = CTR_SESSION (object);

  switch (prop_id)
    {
    case PROP_DATASET:
      g_value_set_pointer (value, self->dataset);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, ctr_session_get_busy (self));
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->load != NULL);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->recon != NULL);
      break;
    case PROP_FRACTION:
      g_value_set_double (value, self->fraction);
      break;
    case PROP_PROGRESS_TEXT:
      g_value_set_string (value, self->progress_text);
      break;
    case PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    case PROP_LATEST_STATS:
      g_value_set_boxed (value, self->latest_stats);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_session_class_init (CtrSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = ctr_session_dispose;
  object_class->finalize = ctr_session_finalize;
  object_class->get_property = ctr_session_get_property;

  properties[PROP_DATASET] = g_param_spec_pointer ("dataset", NULL, NULL, flags);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, flags);
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, flags);
  properties[PROP_FRACTION] = g_param_spec_double ("fraction", NULL, NULL, -1, 1, 0, flags);
  properties[PROP_PROGRESS_TEXT] = g_param_spec_string ("progress-text", NULL, NULL, "Idle", flags);
  properties[PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, "Ready", flags);
  properties[PROP_LATEST_STATS] = g_param_spec_boxed ("latest-stats", NULL, NULL, CTR_TYPE_RUN_STATS, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ctr_session_init (CtrSession *self)
{
  self->runs = g_list_store_new (CTR_TYPE_RUN);
  self->progress_text = g_strdup ("Idle");
  self->status = g_strdup ("Ready");
}

CtrSession *
ctr_session_new (void)
{
  return g_object_new (CTR_TYPE_SESSION, NULL);
}
