/* ctr-session-save.c — CtrSession saved to a session folder and restored
 * from one (ctr-session-file.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Saving takes a snapshot on the main thread (the runs' numbers and a
 * reference on every image, read back from the run store when spilled),
 * then writes it in a worker thread.  Opening reads and checks the folder
 * in a worker thread; ctr_session_restore() then replaces the runs on the
 * main thread.
 */
#define G_LOG_DOMAIN "ctr-session"

#include "ctr-session-file-private.h"
#include "ctr-session-private.h"
#include "ctr-study-row.h"

/* ---- the snapshot ------------------------------------------------------------ */

static CtrSessionRunRecord *
record_of (CtrRun *run)
{
  CtrSessionRunRecord *r = g_new0 (CtrSessionRunRecord, 1);
  CtrVolume *image = ctr_run_has_image (run) ? ctr_run_get_result (run) : NULL;

  r->number = ctr_run_get_number (run);
  r->label = g_strdup (ctr_run_get_label (run));
  r->dataset = g_strdup (ctr_run_get_dataset (run));
  r->dataset_path = g_strdup (ctr_run_get_dataset_path (run));
  r->color = g_strdup (ctr_run_get_color (run));
  r->hidden = ctr_run_get_hidden (run);
  r->state = ctr_run_get_state (run);
  r->wall_s = ctr_run_get_wall_s (run);
  r->options = *ctr_run_get_options (run);
  r->grid = *ctr_run_get_grid (run);
  r->stats = g_array_new (FALSE, TRUE, sizeof (CtrIterStats));
  for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
    g_array_append_vals (r->stats, ctr_run_get_stats (run, i), 1);
  r->notes = g_strdupv ((char **) ctr_run_get_notes (run));
  r->image = image != NULL ? ctr_volume_ref (image) : NULL;
  return r;
}

static void
snapshot_rois (CtrSessionFile *f, CtrRoiSet *rois)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (rois));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (rois), i);
      g_array_append_vals (f->rois, ctr_roi_item_get_roi (item), 1);
      g_ptr_array_add (f->roi_names, g_strdup (ctr_roi_item_get_name (item)));
    }
  f->background = ctr_roi_set_get_background (rois);
  f->have_ruler = ctr_roi_set_get_ruler (rois, f->ruler);
  f->mu_water = ctr_roi_set_get_mu_water (rois, &f->calibrated);
}

/* The Dose Study's table: copies of its rows; a row whose run is not saved
 * (deleted, or running) names none. */
static void
snapshot_study (CtrSessionFile *f, GListStore *table)
{
  g_autoptr(GHashTable) saved = g_hash_table_new (NULL, NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (table));

  for (guint i = 0; i < f->runs->len; i++)
    g_hash_table_add (saved, GUINT_TO_POINTER (((CtrSessionRunRecord *) f->runs->pdata[i])->number));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (G_LIST_MODEL (table), i);
      CtrStudyRowItem *copy = ctr_study_row_item_new (ctr_study_row_item_get (item), ctr_study_row_item_get_cnr (item));
      guint run = ctr_study_row_item_get_run_number (item);

      ctr_study_row_item_set_run_number (copy, g_hash_table_contains (saved, GUINT_TO_POINTER (run)) ? run : 0);
      g_ptr_array_add (f->study_rows, copy);
    }
}

/* Every run but a running one, the ROIs and the open dataset; NULL with
 * CTR_ERROR_IO when a run's image is gone (its spilled file unreadable):
 * never a session that silently lacks an image. */
static CtrSessionFile *
snapshot (CtrSession *self, CtrRoiSet *rois, GError **error)
{
  g_autoptr(CtrSessionFile) f = _ctr_session_file_new ();
  GListModel *runs = G_LIST_MODEL (self->runs);

  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      CtrSessionRunRecord *r;

      if (ctr_run_get_state (run) == CTR_RUN_RUNNING)
        continue;
      r = record_of (run);
      g_ptr_array_add (f->runs, r);
      if (ctr_run_has_image (run) && r->image == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_IO,
                       "The image of “%s” could not be read back from the session's folder %s: nothing was saved",
                       ctr_run_get_label (run), self->spill_dir ? self->spill_dir : "");
          return NULL;
        }
    }
  if (rois != NULL)
    snapshot_rois (f, rois);
  snapshot_study (f, self->study_table);
  f->study_form = self->study_form != NULL ? ctr_study_form_copy (self->study_form) : NULL;
  if (self->dataset != NULL)
    {
      f->dataset_path = g_strdup (self->dataset->path);
      f->variant = g_strdup (self->dataset->variant);
      if (self->preprocess != NULL)
        f->preprocess = json_node_copy (self->preprocess);
    }
  return g_steal_pointer (&f);
}

/* ---- saving ------------------------------------------------------------------- */

typedef struct {
  CtrSessionFile *file;
  char           *path;
} SaveJob;

static void
save_job_free (gpointer data)
{
  SaveJob *job = data;
  g_clear_pointer (&job->file, ctr_session_file_free);
  g_free (job->path);
  g_free (job);
}

static void
save_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  SaveJob *job = data;
  GError *error = NULL;

  _ctr_lower_thread_priority ();
  if (_ctr_session_file_write (job->file, job->path, cancellable, &error))
    g_task_return_int (task, job->file->runs->len);
  else
    g_task_return_error (task, error);
}

void
ctr_session_save_async (CtrSession          *self,
                        CtrRoiSet           *rois,
                        const char          *path,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  SaveJob *job;

  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (rois == NULL || CTR_IS_ROI_SET (rois));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ctr_session_save_async);
  g_task_set_name (task, "[ctrecon] save session");
  /* never over the dataset's inputs, a device or a FIFO */
  if (!ctr_output_path_check (path, CTR_OUTPUT_FILE, self->dataset, NULL, &error) &&
      !(g_file_test (path, G_FILE_TEST_IS_DIR) &&
        ctr_output_path_check (path, CTR_OUTPUT_FOLDER, self->dataset, NULL, NULL)))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  job = g_new0 (SaveJob, 1);
  job->file = snapshot (self, rois, &error);
  if (job->file == NULL)
    {
      save_job_free (job);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  job->path = g_strdup (path);
  /* the caller's task keeps the count of changes the snapshot holds */
  g_task_set_task_data (task, g_memdup2 (&self->changes, sizeof self->changes), g_free);
  _ctr_session_run_in_worker (task, "[ctrecon] save session", job, save_job_free, save_thread);
}

int
ctr_session_save_finish (CtrSession *self, GAsyncResult *result, GError **error)
{
  GTask *task = G_TASK (result);
  const guint64 *changes;
  gssize n;

  g_return_val_if_fail (CTR_IS_SESSION (self), -1);
  g_return_val_if_fail (g_task_is_valid (result, self), -1);
  changes = g_task_get_task_data (task);
  n = g_task_propagate_int (task, error);
  /* what changed while it was written is still unsaved */
  if (n >= 0 && changes != NULL && self->changes == *changes)
    _ctr_session_mark_saved (self);
  return (int) n;
}

/* ---- opening ----------------------------------------------------------------- */

static void
read_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  CtrSessionFile *f;

  _ctr_lower_thread_priority ();
  f = ctr_session_file_read (data, cancellable, &error);
  if (f != NULL)
    g_task_return_pointer (task, f, (GDestroyNotify) ctr_session_file_free);
  else
    g_task_return_error (task, error);
}

void
ctr_session_file_read_async (const char          *path,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (path != NULL);
  g_task_set_source_tag (task, ctr_session_file_read_async);
  g_task_set_name (task, "[ctrecon] open session");
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, read_thread);
}

CtrSessionFile *
ctr_session_file_read_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- restoring --------------------------------------------------------------- */

static CtrRun *
run_of (CtrSessionRunRecord *r)
{
  CtrRun *run = _ctr_run_new_restored (r->number, &r->options, &r->grid, r->dataset, r->dataset_path);

  for (guint i = 0; r->stats != NULL && i < r->stats->len; i++)
    _ctr_run_add_stats (run, &g_array_index (r->stats, CtrIterStats, i));
  if (r->notes != NULL)
    _ctr_run_set_notes (run, (const char *const *) r->notes);
  _ctr_run_finish (run, r->state, r->image, r->wall_s);
  ctr_run_set_label (run, r->label);
  ctr_run_set_color (run, r->color);
  ctr_run_set_hidden (run, r->hidden);
  return run;
}

static void
restore_rois (CtrRoiSet *rois, CtrSessionFile *f)
{
  ctr_roi_set_clear (rois);
  for (guint i = 0; i < f->rois->len; i++)
    ctr_roi_set_add_named (rois, f->roi_names->pdata[i], &g_array_index (f->rois, CtrRoi, i));
  ctr_roi_set_set_background (rois, f->background);
  ctr_roi_set_set_selected (rois, -1);
  ctr_roi_set_set_ruler (rois, f->have_ruler ? f->ruler : NULL);
  ctr_roi_set_set_mu_water (rois, f->mu_water, f->calibrated);
}

gboolean
ctr_session_restore (CtrSession *self, CtrSessionFile *file, CtrRoiSet *rois, GError **error)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  g_return_val_if_fail (file != NULL, FALSE);
  g_return_val_if_fail (rois == NULL || CTR_IS_ROI_SET (rois), FALSE);

  if (_ctr_session_busy (self))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "A dataset is loading or a reconstruction is running: cancel it before opening a session");
      return FALSE;
    }
  ctr_session_clear_runs (self);
  self->next_run = 0;
  for (guint i = 0; i < file->runs->len; i++)
    {
      CtrSessionRunRecord *r = file->runs->pdata[i];
      g_autoptr(CtrRun) run = run_of (r);

      g_list_store_append (self->runs, run);
      if (ctr_run_has_image (run))
        _ctr_session_store_add (self, run);
      /* the image belongs to the run (and the store) now */
      g_clear_pointer (&r->image, ctr_volume_unref);
      self->next_run = MAX (self->next_run, r->number);
    }
  if (rois != NULL)
    restore_rois (rois, file);
  g_list_store_splice (self->study_table, 0, g_list_model_get_n_items (G_LIST_MODEL (self->study_table)),
                       file->study_rows->pdata, file->study_rows->len);
  ctr_session_set_study_form (self, file->study_form);
  _ctr_session_mark_saved (self);
  return TRUE;
}
