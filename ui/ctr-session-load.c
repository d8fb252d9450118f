/* ctr-session-load.c — CtrSession: loading a dataset in a worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A geometry.json, a dataset folder, DICOM (ctr_dicom_resolve: the
 * series, or the question the files raise: which series, which geometry),
 * or a bare TIFF of projections with a draft geometry to complete
 * (ctr_dataset_load_bare_tiff); any other file (a PNG, a README) is
 * refused as not supported before it is parsed.
 * The thread also computes the value range and a sinogram preview, so the
 * main thread only wraps bytes.  A newer load supersedes an older one; a
 * load replaces a running reconstruction (its run ends cancelled).
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>

#include "ctr-session-private.h"
#include "io/ctr-nexus.h"
#include "io/ctr-vendor.h"

/* The sinogram preview's largest side. */
#define PREVIEW_MAX 320

struct _CtrLoadJob {
  CtrSession          *session;      /* a reference until the job ends on the main thread */
  GTask               *outer;        /* the caller's task, until returned */
  GCancellable        *cancellable;  /* the thread's */
  GCancellable        *caller;
  gulong               caller_id;
  /* what to load */
  char                *path;
  char               **files;
  char                *series_uid;
  gboolean             draft;        /* a geometry.json with a wrong geometry, to edit */
  gboolean             with_variant; /* the geometry.json @path with @variant */
  char                *variant;      /* nullable: its "projections" */
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
  CtrLoadJob *job = data;

  g_clear_object (&job->session);   /* only when the main loop never ended the job */
  g_clear_object (&job->outer);
  _ctr_unlink_cancellable (&job->cancellable, &job->caller, &job->caller_id);
  g_free (job->path);
  g_strfreev (job->files);
  g_free (job->series_uid);
  g_free (job->variant);
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
make_preview (CtrLoadJob *job)
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

/* Whether @path can be a geometry.json: named *.json, or its first
 * character (after blanks and a UTF-8 byte-order mark) opens a JSON object.
 * Decided before parsing, so that a PNG or a README is "not a supported
 * file" rather than "not valid JSON". */
static gboolean
looks_like_json (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileInputStream) in = NULL;
  guchar head[256];
  gssize n;

  if (g_str_has_suffix (lower, ".json"))
    return TRUE;
  file = g_file_new_for_path (path);
  in = g_file_read (file, NULL, NULL);
  if (in == NULL)
    return TRUE;   /* the loader says why it cannot be read */
  n = g_input_stream_read (G_INPUT_STREAM (in), head, sizeof head, NULL, NULL);
  for (gssize i = n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf ? 3 : 0; i < n; i++)
    if (!g_ascii_isspace (head[i]))
      return head[i] == '{';
  return FALSE;
}

/* Worker thread: the dataset, or the question the files raise. */
static gboolean
load_in_thread (CtrLoadJob *job, GCancellable *cancellable, GError **error)
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
  else if (job->with_variant)
    job->dataset = ctr_dataset_load (path, job->variant, cancellable, error);
  else if (job->draft)
    job->dataset = ctr_dataset_load_draft (path, cancellable, error);
  else if (ctr_tiff_is_tiff (path))
    /* projections without their geometry.json: a draft to complete */
    job->dataset = ctr_dataset_load_bare_tiff (path, cancellable, error);
  else if (ctr_nexus_is_nexus (path) || ctr_xtekct_is_xtekct (path) || ctr_skyscan_is_log (path))
    /* a scanner's own file: NeXus, Nikon, SkyScan (io/ctr-nexus.h, io/ctr-vendor.h) */
    job->dataset = ctr_dataset_load (path, NULL, cancellable, error);
  else if (!looks_like_json (path))
    {
      g_autofree char *name = g_path_get_basename (path);
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "“%s” is not a supported file: CT Recon opens a dataset's geometry.json, a TIFF of projections, "
                   "DICOM files, a NeXus, Nikon .xtekct or SkyScan .log scan, or a dataset folder", name);
      return FALSE;
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

  _ctr_lower_thread_priority ();
  if (load_in_thread (data, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Main thread: the new dataset replaces the old one; its runs stay (their
 * numbers go on) unless the session is told not to keep them. */
static void
adopt_dataset (CtrSession *self, CtrLoadJob *job)
{
  if (!self->keep_runs)
    {
      ctr_session_clear_runs (self);
      self->next_run = 0;
    }
  _ctr_session_drop_plan (self);
  _ctr_session_drop_preprocessed (self);
  ctr_session_set_preprocess (self, NULL, TRUE);   /* the new data's own list, until told */
  self->detector_tilt = NAN;                          /* and its own tilt */
  _ctr_session_set_latest_stats (self, NULL);
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
  _ctr_session_sync_open_results (self);
  _ctr_session_notify (self, CTR_SESSION_PROP_DATASET);
}

static void
load_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CtrLoadJob *job = data;
  CtrSession *self = job->session;
  g_autoptr(GTask) outer = g_steal_pointer (&job->outer);
  g_autoptr(GError) error = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (result), &error);

  /* the caller's task holds the session from here: the worker's task,
   * which the thread may drop last, holds no reference to it */
  g_clear_object (&job->session);

  if (self->load != job)
    {
      g_task_return_new_error (outer, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Superseded by another dataset");
      return;
    }
  self->load = NULL;
  _ctr_session_set_fraction (self, 0);
  if (!ok)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _ctr_session_set_status (self, "Cancelled", "Loading was cancelled");
      else
        _ctr_session_set_status (self, "Idle", "The dataset could not be opened");
      _ctr_session_notify_busy (self, CTR_SESSION_PROP_LOADING);
      g_task_return_error (outer, g_steal_pointer (&error));
      return;
    }
  if (job->question != NULL)
    {
      _ctr_session_set_status (self, NULL, job->question->outcome == CTR_DICOM_OUTCOME_CHOOSE_SERIES
                                            ? "Choose a series" : "The file lacks its acquisition geometry");
      _ctr_session_notify_busy (self, CTR_SESSION_PROP_LOADING);
      g_task_return_pointer (outer, g_steal_pointer (&job->question), (GDestroyNotify) ctr_dicom_resolution_free);
      return;
    }
  adopt_dataset (self, job);
  _ctr_session_set_status (self, "Idle", "Dataset loaded");
  _ctr_session_notify_busy (self, CTR_SESSION_PROP_LOADING);
  g_task_return_pointer (outer, NULL, NULL);   /* loaded, no question */
}

static void
start_load (CtrSession *self, CtrLoadJob *job, GCancellable *cancellable, GAsyncReadyCallback callback,
            gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *status = NULL;
  gboolean was_busy = _ctr_session_busy (self);

  _ctr_session_detach_reconstruction (self);
  if (self->load != NULL)
    g_cancellable_cancel (self->load->cancellable);

  job->outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (job->outer, ctr_session_load_async);
  job->caller = cancellable ? g_object_ref (cancellable) : NULL;
  job->cancellable = _ctr_link_cancellable (cancellable, &job->caller_id);
  self->load = job;

  if (job->files != NULL)
    status = g_strdup_printf ("Loading %u files…", g_strv_length (job->files));
  else
    status = g_strdup_printf ("Loading %s…", job->path);
  _ctr_session_set_fraction (self, -1);
  _ctr_session_set_status (self, "Loading…", status);
  _ctr_session_notify (self, CTR_SESSION_PROP_LOADING);
  if (!was_busy)
    _ctr_session_notify (self, CTR_SESSION_PROP_BUSY);

  job->session = g_object_ref (self);
  task = g_task_new (NULL, job->cancellable, load_done, job);
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
  CtrLoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (path != NULL || (files != NULL && files[0] != NULL));

  job = g_new0 (CtrLoadJob, 1);
  job->path = g_strdup (path);
  job->files = files ? g_strdupv ((char **) files) : NULL;
  job->series_uid = g_strdup (series_uid);
  start_load (self, job, cancellable, callback, user_data);
}

void
ctr_session_load_draft_async (CtrSession          *self,
                              const char          *path,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  CtrLoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (path != NULL);

  job = g_new0 (CtrLoadJob, 1);
  job->path = g_strdup (path);
  job->draft = TRUE;
  start_load (self, job, cancellable, callback, user_data);
}

void
ctr_session_load_variant_async (CtrSession          *self,
                                const char          *variant,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  CtrLoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));

  if (self->dataset == NULL || self->dataset->path == NULL)
    {
      g_task_report_new_error (self, callback, user_data, ctr_session_load_async, CTR_ERROR, CTR_ERROR_IO,
                               "No dataset is open: there is no variant to load");
      return;
    }
  job = g_new0 (CtrLoadJob, 1);
  job->path = g_strdup (self->dataset->path);
  job->with_variant = TRUE;
  job->variant = variant != NULL && *variant != '\0' ? g_strdup (variant) : NULL;
  start_load (self, job, cancellable, callback, user_data);
}

void
ctr_session_load_resolution_async (CtrSession          *self,
                                   CtrDicomResolution  *resolution,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  CtrLoadJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (resolution != NULL);

  job = g_new0 (CtrLoadJob, 1);
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

  GError *local = NULL;
  CtrDicomResolution *asked = g_task_propagate_pointer (G_TASK (result), &local);

  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  if (question != NULL)
    *question = asked;
  else
    ctr_dicom_resolution_free (asked);
  return TRUE;
}

void
_ctr_session_cancel_load (CtrSession *self)
{
  if (self->load != NULL)
    g_cancellable_cancel (self->load->cancellable);
}
