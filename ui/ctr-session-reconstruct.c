/* ctr-session-reconstruct.c — CtrSession: a run in a worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The job owns what its thread reads (a reference on the projections and
 * the reference image, a copy of the small geometry), so replacing the
 * dataset while the worker is still winding down is safe.  After every
 * iteration the core calls on_iteration() on the worker thread with a
 * borrowed image; we copy the whole iterate (the worker's time, one memcpy,
 * never the main thread's) and the numbers into a Progress message and hand
 * it to the main context with g_main_context_invoke_full(), as GLib's gfile.c
 * does for copy progress.  The window then shows any plane and slice of the
 * current iterate, and pages through it between reports.  A volume run
 * keeps the copy of its newest iterate, so that when it is cancelled the
 * run keeps that iterate as its (cancelled) result.  A volume run whose
 * reports carry only the three planes through the crosshair
 * (CTR_REPORT_PLANES, what the window asks for: a device then copies back
 * those planes alone) writes them into a live volume shown in their place
 * (zeros where no report has been yet, until the last report brings the
 * whole image); the planes follow the window's crosshair
 * (ctr_session_follow_voxel: the next report brings the planes through
 * it, those reported before keep their last values); when it is
 * cancelled the core's extra report (CtrIterStats.cancelled) brings the
 * whole image as the cancellation left it, which the run keeps.
 *
 * Plan once, execute many (ctr-recon-plan.h): the session keeps the plan of
 * its last run and executes it again when the next run has the same
 * geometry, grid and options, so the system matrix is built once; any
 * change makes a new plan in the worker thread (from the disk cache when the
 * matrix is there).  The plan's notes (operator, symmetry, backend,
 * fall-backs) go to the run.
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "ctr-session-private.h"
#include "solve/ctr-report-planes.h"

/* Never keep more than this many image copies queued for the main thread:
 * if drawing falls behind a fast solver, intermediate images are skipped
 * (their numbers still reach the runs).  A volume's copies are large: one
 * at a time, so that a volume run holds at most three (the one shown, the
 * one queued, the worker's newest). */
#define MAX_PENDING_IMAGES 2
#define MAX_PENDING_VOLUMES 1

struct _CtrReconJob {
  CtrSession      *session;      /* a reference until recon_done, then NULL: the worker's
                                  * task never holds the session (its last unref would
                                  * end it on the worker thread) */
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
  gint             pending_images;
  CtrVolume       *last_iterate; /* a volume run's newest iterate (worker's copy), or NULL */
  guint            last_iteration; /* its number */
  gboolean         last_partial; /* it holds part of the next iteration (CtrIterStats.partial) */
  CtrVolume       *live;         /* reports of planes (CTR_REPORT_PLANES): the planes so far, in place */
  gint64           start_us;
  CtrReconPlan    *plan;         /* the kept plan reused, or the one the thread made */
  gboolean         new_plan;     /* made by this job: the session keeps it */
  char           **notes;        /* the plan's notes after the run (thread) */
  gboolean         reread_data;  /* the data are read again (the session's list or tilt) */
  CtrPipeline     *pipeline;     /* with the window's "preprocess" list; NULL: the file's */
  double           tilt;         /* and this detector_tilt_rad; NaN: the file's */
  char            *prep_key;     /* the session's key of the data so read */
  char            *path, *variant; /* the dataset to read again */
  gboolean         reread;       /* the thread read them (the session keeps them) */
};

static void
recon_job_free (gpointer data)
{
  CtrReconJob *job = data;

  g_clear_object (&job->session);   /* only when the main loop never ended the job */
  g_clear_object (&job->outer);
  _ctr_unlink_cancellable (&job->cancellable, &job->caller, &job->caller_id);
  g_clear_object (&job->run);
  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->projections, ctr_projections_unref);
  g_clear_pointer (&job->reference, ctr_volume_unref);
  g_clear_pointer (&job->last_iterate, ctr_volume_unref);
  g_clear_pointer (&job->live, ctr_volume_unref);
  g_clear_pointer (&job->plan, ctr_recon_plan_unref);
  g_strfreev (job->notes);
  g_clear_pointer (&job->pipeline, ctr_pipeline_free);
  g_free (job->prep_key);
  g_free (job->path);
  g_free (job->variant);
  g_free (job);
}

/* ---- the kept plan ---------------------------------------------------------- */

static gboolean
geometry_equal (const CtrGeometry *a, const CtrGeometry *b)
{
  return a->beam == b->beam && a->shape == b->shape && a->sod_mm == b->sod_mm && a->sdd_mm == b->sdd_mm &&
         a->n_views == b->n_views && a->n_rows == b->n_rows && a->n_cols == b->n_cols &&
         a->pitch_u == b->pitch_u && a->pitch_v_mm == b->pitch_v_mm && a->offset_u == b->offset_u &&
         a->offset_v_mm == b->offset_v_mm && a->rows_increase_with_v == b->rows_increase_with_v &&
         a->pixel_size_known == b->pixel_size_known &&
         memcmp (a->angles, b->angles, sizeof (double) * a->n_views) == 0;
}

/* The kept plan when it is for the job's geometry and grid (a reference),
 * else NULL; whether its operator suits the job's options the worker asks
 * the plan (ctr_recon_plan_set_options), off the main thread. */
static CtrReconPlan *
kept_plan (CtrSession *self, const CtrReconJob *job)
{
  if (self->plan == NULL || !geometry_equal (self->plan_geometry, job->geometry) ||
      !ctr_grid_equal (ctr_recon_plan_get_grid (self->plan), &job->grid))
    return NULL;
  return ctr_recon_plan_ref (self->plan);
}

static void
keep_plan (CtrSession *self, CtrReconJob *job)
{
  _ctr_session_drop_plan (self);
  /* a geometry that cannot be copied: the plan is not kept (the next run
   * makes its own) */
  if ((self->plan_geometry = ctr_geometry_try_copy (job->geometry, NULL)) != NULL)
    self->plan = ctr_recon_plan_ref (job->plan);
}

void
_ctr_session_drop_plan (CtrSession *self)
{
  g_clear_pointer (&self->plan, ctr_recon_plan_unref);
  g_clear_pointer (&self->plan_geometry, ctr_geometry_free);
}

typedef struct {
  GTask        *task;    /* owned: keeps the session and the job alive */
  CtrIterStats  stats;   /* ->image: a reference on the iterate's copy, or NULL */
} Progress;

static void
progress_free (gpointer data)
{
  Progress *p = data;
  CtrReconJob *job = g_task_get_task_data (p->task);

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
  CtrReconJob *job = g_task_get_task_data (p->task);
  CtrSession *self = job->session;
  const CtrIterStats *stats = &p->stats;
  guint n = MAX (stats->n_iterations, 1);
  guint k = MIN (stats->iteration, n);
  g_autofree char *text = NULL;

  if (self == NULL || self->recon != job)
    return G_SOURCE_REMOVE;

  _ctr_run_add_stats (job->run, stats);
  _ctr_session_set_fraction (self, (double) k / n);
  text = g_strdup_printf ("iteration %u / %u", k, n);
  _ctr_session_set_status (self, text, NULL);
  if (k < n && k > 0 && stats->elapsed_s > 0)
    {
      double left = stats->elapsed_s / k * (n - k);
      g_autofree char *status =
        left < 90 ? g_strdup_printf ("%s: about %.0f s left", ctr_method_label (stats->method), MAX (left, 1))
                  : g_strdup_printf ("%s: about %.0f min left", ctr_method_label (stats->method), left / 60);
      _ctr_session_set_status (self, NULL, status);
    }
  _ctr_session_set_latest_stats (self, stats);
  return G_SOURCE_REMOVE;
}

typedef struct {
  GTask  *task;    /* owned */
  char  **notes;
} Notes;

static void
notes_free (gpointer data)
{
  Notes *n = data;
  g_object_unref (n->task);
  g_strfreev (n->notes);
  g_free (n);
}

static gboolean
notes_dispatch (gpointer data)
{
  Notes *n = data;
  CtrReconJob *job = g_task_get_task_data (n->task);

  if (job->session != NULL && job->session->recon == job)
    _ctr_run_set_notes (job->run, (const char *const *) n->notes);
  return G_SOURCE_REMOVE;
}

/* The plan's notes, then how the data were read when read again (the
 * session's list and tilt), so that a saved run says what made it
 * (transfer full). */
static char **
run_notes (CtrReconJob *job)
{
  const char *const *plan = ctr_recon_plan_get_notes (job->plan);
  GPtrArray *all = g_ptr_array_new ();

  for (guint i = 0; plan != NULL && plan[i] != NULL; i++)
    g_ptr_array_add (all, g_strdup (plan[i]));
  if (job->reread_data)
    g_ptr_array_add (all, g_strdup_printf ("data read again with %s", job->prep_key));
  g_ptr_array_add (all, NULL);
  return (char **) g_ptr_array_free (all, FALSE);
}

/* Worker thread: the plan's notes to the run, before the first iteration. */
static void
post_notes (CtrReconJob *job)
{
  Notes *n = g_new0 (Notes, 1);

  n->task = g_object_ref (job->task);
  n->notes = run_notes (job);
  g_main_context_invoke_full (g_task_get_context (job->task), G_PRIORITY_DEFAULT, notes_dispatch, n, notes_free);
}

/* Worker thread: a report of the three planes (CTR_REPORT_PLANES) written
 * into the run's live volume (made on first use, zeros elsewhere), which
 * the window shows with its crosshair on the planes' voxel; NULL when the
 * planes do not fit it. */
static CtrVolume *
live_planes (CtrReconJob *job, const CtrIterStats *stats)
{
  const CtrVolume *const *planes = stats->planes;
  CtrGrid g = planes[0]->grid;

  /* the run's grid: the axial plane's in x and y, the coronal plane's in z */
  g.nz = planes[1]->grid.nz;
  g.dz = planes[1]->grid.dz;
  g.cz = planes[1]->grid.cz;
  if (job->live != NULL && !ctr_grid_equal (&job->live->grid, &g))
    g_clear_pointer (&job->live, ctr_volume_unref);
  if (job->live == NULL && (job->live = ctr_volume_new (&g, NULL)) != NULL)
    ctr_volume_set_unit (job->live, planes[0]->unit);
  if (job->live == NULL || !ctr_report_planes_paste (planes, job->live, NULL))
    return NULL;
  return job->live;
}

/* Worker thread: the whole image of a cancelled run whose reports carried
 * planes (CtrIterStats.cancelled), kept as its result. */
static void
keep_cancelled (CtrReconJob *job, const CtrIterStats *stats)
{
  CtrVolume *copy;

  if (stats->image == NULL || stats->image->grid.nz <= 1 || (copy = ctr_volume_copy (stats->image)) == NULL)
    return;
  g_clear_pointer (&job->last_iterate, ctr_volume_unref);
  job->last_iterate = copy;
  job->last_iteration = stats->iteration;
  job->last_partial = stats->partial;
}

/* Worker thread: copy what we keep, post it to the session's main context.
 * A volume run copies every iterate it gets whole (kept for a
 * cancellation); a 2-D run only those it posts; a run reporting planes
 * writes them into its live volume and posts a copy of that. */
static void
on_iteration (const CtrIterStats *stats, gpointer user_data)
{
  CtrReconJob *job = user_data;
  Progress *p;
  gboolean last = stats->iteration >= stats->n_iterations;
  gboolean volume = stats->image != NULL && stats->image->grid.nz > 1;
  const CtrVolume *shown = stats->image;
  gboolean post;
  CtrVolume *copy = NULL;

  if (stats->cancelled)
    {
      keep_cancelled (job, stats);
      return;
    }
  if (!volume && stats->planes[0] != NULL)
    shown = live_planes (job, stats);
  post = shown != NULL && (last || g_atomic_int_get (&job->pending_images) <
                                      (shown->grid.nz > 1 ? MAX_PENDING_VOLUMES : MAX_PENDING_IMAGES));
  p = g_new0 (Progress, 1);
  p->task = g_object_ref (job->task);
  p->stats = *stats;
  p->stats.image = NULL;
  memset (p->stats.planes, 0, sizeof p->stats.planes);   /* borrowed: the core's */
  if (volume || post)
    copy = ctr_volume_copy (shown);
  if (volume && copy != NULL)
    {
      g_clear_pointer (&job->last_iterate, ctr_volume_unref);
      job->last_iterate = ctr_volume_ref (copy);
      job->last_iteration = stats->iteration;
      job->last_partial = FALSE;
    }
  if (post && copy != NULL)
    {
      p->stats.image = g_steal_pointer (&copy);
      g_atomic_int_inc (&job->pending_images);
    }
  g_clear_pointer (&copy, ctr_volume_unref);
  g_main_context_invoke_full (g_task_get_context (job->task), G_PRIORITY_DEFAULT,
                              progress_dispatch, p, progress_free);
}

void
ctr_session_follow_voxel (CtrSession *self, const CtrGrid *grid, const guint voxel[3])
{
  g_return_if_fail (CTR_IS_SESSION (self) && grid != NULL && voxel != NULL);
  if (self->recon == NULL || self->recon->options.report_cursor == NULL ||
      !ctr_grid_equal (&self->recon->grid, grid))
    return;
  ctr_report_cursor_set (&self->report_cursor, voxel[0], voxel[1], voxel[2]);
}

/* Worker thread: a copy of the dataset's geometry.json stating the job's
 * tilt and detector offset (as `ctrecon-cli calibrate --output` writes it),
 * in a temporary file (transfer full), or NULL with CTR_ERROR_IO. */
static char *
tilted_copy (CtrReconJob *job, GError **error)
{
  const CtrGeometry *g = job->geometry;
  GError *local = NULL;
  char *tmp = NULL;
  int fd = g_file_open_tmp ("ctrecon-tilt-XXXXXX.json", &tmp, &local);

  if (fd < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "Cannot write a temporary file: %s", local->message);
      g_error_free (local);
      return NULL;
    }
  close (fd);
  if (!ctr_geometry_json_write_offset_u (job->path, g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED,
                                         g->offset_u, job->tilt, tmp, error))
    {
      g_unlink (tmp);
      g_free (tmp);
      return NULL;
    }
  return tmp;
}

/* Worker thread: the data read again with the window's pipeline (and
 * tilt), as the CLI's --preprocess reads them (ctr_dataset_load_preprocessed),
 * unless the session kept them; a pipeline that widened the detector
 * ("truncation") widens the job's geometry as it widens the loaded one (its
 * columns only), and the kept plan, made for the narrower one, is dropped. */
static gboolean
preprocessed_data (CtrReconJob *job, GCancellable *cancellable, GError **error)
{
  if (job->reread_data && job->projections == NULL)
    {
      g_autofree char *tilted = isfinite (job->tilt) ? tilted_copy (job, error) : NULL;
      CtrDataset *d = isfinite (job->tilt) && tilted == NULL
                      ? NULL
                      : ctr_dataset_load_preprocessed (tilted != NULL ? tilted : job->path, job->variant,
                                                       job->pipeline, cancellable, error);

      if (tilted != NULL)
        g_unlink (tilted);
      if (d == NULL)
        {
          g_prefix_error (error, "Reading the data with the Projections page's pipeline%s: ",
                          isfinite (job->tilt) ? " and the detector tilt" : "");
          return FALSE;
        }
      job->projections = ctr_projections_ref (d->projections);
      job->reread = TRUE;
      ctr_dataset_free (d);
    }
  if (job->projections->n_cols != job->geometry->n_cols)
    {
      job->geometry->n_cols = job->projections->n_cols;
      g_clear_pointer (&job->plan, ctr_recon_plan_unref);
    }
  return TRUE;
}

static void
recon_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CtrReconJob *job = data;
  GError *error = NULL;
  CtrVolume *volume = NULL;

  _ctr_lower_thread_priority ();
  if (!preprocessed_data (job, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* The kept plan runs these options when they need no other operator. */
  if (job->plan != NULL && !ctr_recon_plan_set_options (job->plan, &job->options, NULL))
    g_clear_pointer (&job->plan, ctr_recon_plan_unref);
  if (job->plan == NULL)
    {
      job->plan = ctr_recon_plan_new (job->geometry, &job->grid, &job->options, cancellable, &error);
      job->new_plan = job->plan != NULL;
    }
  if (job->plan != NULL)
    {
      post_notes (job);
      volume = ctr_recon_plan_execute (job->plan, job->projections, job->reference, on_iteration, job, cancellable,
                                       &error);
      /* an execute may add a fall-back */
      job->notes = run_notes (job);
    }
  if (volume == NULL)
    {
      if (error == NULL)
        error = g_error_new_literal (CTR_ERROR, CTR_ERROR_FAILED, "The reconstruction failed (no reason given)");
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, volume, (GDestroyNotify) ctr_volume_unref);
}

static void
finish_run (CtrSession *self, CtrReconJob *job, CtrVolume *volume, const GError *error)
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
      _ctr_session_set_fraction (self, 1.0);
      _ctr_session_set_status (self, text, status);
      _ctr_run_finish (job->run, CTR_RUN_FINISHED, volume, wall_s);
      _ctr_session_store_add (self, job->run);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && job->last_iterate != NULL)
    {
      /* a volume run keeps its newest iterate: every plane stays viewable */
      const CtrGrid *g = &job->last_iterate->grid;
      g_autofree char *status =
        job->last_partial
          ? g_strdup_printf ("Cancelled during iteration %u: the %u × %u × %u volume as it stood is kept",
                             job->last_iteration + 1, g->nx, g->ny, g->nz)
          : g_strdup_printf ("Cancelled: the %u × %u × %u volume of iteration %u is kept", g->nx, g->ny, g->nz,
                             job->last_iteration);
      _ctr_session_set_status (self, "Cancelled", status);
      _ctr_run_finish (job->run, CTR_RUN_CANCELLED, job->last_iterate, wall_s);
      _ctr_session_store_add (self, job->run);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      _ctr_session_set_status (self, "Cancelled", "Cancelled");
      _ctr_run_finish (job->run, CTR_RUN_CANCELLED, NULL, wall_s);
    }
  else
    {
      g_autofree char *why = g_strdup_printf ("The reconstruction failed: %s",
                                              error != NULL ? error->message : "no reason given");
      _ctr_session_set_status (self, "Failed", why);
      _ctr_run_finish (job->run, CTR_RUN_FAILED, NULL, wall_s);
    }
  if (self->fraction < 0)
    _ctr_session_set_fraction (self, 0);
}

static void
recon_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtrReconJob *job = data;
  CtrSession *self = job->session;
  g_autoptr(GTask) outer = g_steal_pointer (&job->outer);
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrVolume) volume = g_task_propagate_pointer (G_TASK (result), &error);

  /* the caller's task holds the session from here (progress posted
   * after this point finds job->session NULL and is dropped) */
  g_clear_object (&job->session);

  if (self->recon != job)
    {
      /* detached: its dataset was replaced, the run already ended */
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The dataset was replaced");
      return;
    }
  self->recon = NULL;
  if (job->reread && volume != NULL)
    _ctr_session_keep_preprocessed (self, job->prep_key, job->projections);
  if (job->notes != NULL)
    _ctr_run_set_notes (job->run, (const char *const *) job->notes);
  if (job->new_plan)
    keep_plan (self, job);
  finish_run (self, job, volume, error);
  /* the live copy of the iterate is shown by now; the result (or the kept
   * iterate) is the run's: no second copy stays with the numbers */
  if (self->latest_stats != NULL && self->latest_stats->image != NULL)
    {
      ctr_volume_unref ((CtrVolume *) self->latest_stats->image);
      self->latest_stats->image = NULL;
    }
  _ctr_session_notify_busy (self, CTR_SESSION_PROP_RUNNING);
  if (volume != NULL)
    g_task_return_pointer (outer, g_object_ref (job->run), g_object_unref);
  else
    g_task_return_error (outer, g_steal_pointer (&error));
}

void
_ctr_session_detach_reconstruction (CtrSession *self)
{
  CtrReconJob *job = self->recon;

  if (job == NULL)
    return;
  g_cancellable_cancel (job->cancellable);
  self->recon = NULL;
  _ctr_run_finish (job->run, CTR_RUN_CANCELLED, NULL, (g_get_monotonic_time () - job->start_us) / 1e6);
  _ctr_session_notify (self, CTR_SESSION_PROP_RUNNING);
}

/* The progress text before the first iteration: what the plan prepares. */
static char *
describe_preparation (const CtrGeometry *geometry, const CtrReconOptions *options)
{
  const char *name = ctr_method_label (options->method);

  if (options->method == CTR_METHOD_FBP)
    return g_strdup_printf ("Preparing %s: ramp filter and weights…", name);
  if (options->method == CTR_METHOD_FDK)
    return g_strdup_printf ("Preparing %s: cone-beam weights and ramp filter…", name);
  if (geometry->beam == CTR_BEAM_CONE)
    return g_strdup_printf ("Preparing %s: the cone-beam projector…", name);
  if (options->matrix == CTR_MATRIX_NONE)
    return g_strdup_printf ("Preparing %s: the on-the-fly projector (no stored matrix)…", name);
  if (options->matrix == CTR_MATRIX_AUTO)   /* the plan's note says which it chose */
    return g_strdup_printf ("Preparing %s: the system matrix (kept, cached or built)…", name);
  return g_strdup_printf ("Preparing %s: the %s system matrix (kept, cached or built)…", name,
                          options->matrix == CTR_MATRIX_CSR ? "CSR" : "SCSR");
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
  g_autoptr(CtrGeometry) copy = NULL;
  g_autofree char *status = NULL;
  g_autoptr(CtrPipeline) pipeline = NULL;
  g_autofree char *prep_key = NULL;
  CtrProjections *kept = NULL;
  gboolean reread = FALSE;
  CtrReconJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (geometry != NULL && grid != NULL && options != NULL);

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, ctr_session_reconstruct_async);
  if (self->dataset == NULL || _ctr_session_busy (self))
    {
      g_task_return_new_error (outer, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                               self->dataset == NULL ? "No dataset to reconstruct"
                                                     : "Busy: wait for the running job or cancel it");
      return;
    }
  /* the job's own geometry: a copy that cannot be had ends the run with
   * CTR_ERROR_OUT_OF_MEMORY (ctr_geometry_copy aborted the window) */
  if (!ctr_recon_options_validate (options, &error) ||
      (copy = ctr_geometry_try_copy (geometry, &error)) == NULL ||
      !_ctr_session_preprocess_job (self, geometry, &reread, &pipeline, &prep_key, &kept, &error))
    {
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }

  job = g_new0 (CtrReconJob, 1);
  job->session = g_object_ref (self);
  job->outer = g_steal_pointer (&outer);
  job->caller = cancellable ? g_object_ref (cancellable) : NULL;
  job->cancellable = _ctr_link_cancellable (cancellable, &job->caller_id);
  job->geometry = g_steal_pointer (&copy);
  job->tilt = self->detector_tilt;
  if (!reread)
    job->projections = ctr_projections_ref (self->dataset->projections);
  else
    {
      /* the data read again in the thread, or those read for the last run */
      job->reread_data = TRUE;
      job->projections = kept;
      job->pipeline = g_steal_pointer (&pipeline);
      job->prep_key = g_steal_pointer (&prep_key);
      job->path = g_strdup (self->dataset->path);
      job->variant = g_strdup (self->dataset->variant);
    }
  job->reference = self->dataset->reference ? ctr_volume_ref (self->dataset->reference) : NULL;
  job->grid = *grid;
  job->options = *options;
  job->options.with_reference = job->reference != NULL;  /* the memory estimate counts it */
  /* the metrics' mask, as the CLI and the Dose Study count them: the
   * field-of-view disc unless the caller chose another radius */
  if (!(job->options.metrics_radius_mm > 0))
    job->options.metrics_radius_mm = ctr_geometry_fov_radius_mm (geometry);
  job->start_us = g_get_monotonic_time ();
  job->run = _ctr_run_new (++self->next_run, &job->options, grid, self->dataset);
  /* the planes follow the crosshair (ctr_session_follow_place); the run's
   * own options keep none of that */
  if (job->options.report_image == CTR_REPORT_PLANES)
    {
      ctr_report_cursor_set (&self->report_cursor, options->report_x, options->report_y, options->report_slice);
      job->options.report_cursor = &self->report_cursor;
    }
  job->plan = kept_plan (self, job);
  self->recon = job;

  _ctr_session_set_latest_stats (self, NULL);
  g_list_store_append (self->runs, job->run);
  status = g_strdup_printf ("%s on a %u × %u grid of %.3g mm pixels…", ctr_method_label (options->method),
                            grid->nx, grid->ny, grid->dx);
  _ctr_session_set_fraction (self, -1);
  {
    g_autofree char *preparing = describe_preparation (geometry, options);
    _ctr_session_set_status (self, preparing, status);
  }
  _ctr_session_notify_busy (self, CTR_SESSION_PROP_RUNNING);

  task = g_task_new (NULL, job->cancellable, recon_done, job);
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
_ctr_session_cancel_reconstruction (CtrSession *self)
{
  if (self->recon == NULL)
    return;
  g_cancellable_cancel (self->recon->cancellable);
  _ctr_session_set_status (self, "Cancelling…", NULL);
}

