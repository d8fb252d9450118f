/* ctr-session.c — one dataset and the runs made on it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Threading (docs/design.md §11).  Loading (ctr-session-load.c) and
 * reconstructing (ctr-session-reconstruct.c) each run in a GTask thread;
 * the session itself is only read and changed on the main thread.
 *
 * Each async call is two tasks: the caller's (returned when the work is
 * done and the session updated) and the thread's, whose cancellable is the
 * job's own — cancelled by ctr_session_cancel(), by a newer load, and by the
 * caller's cancellable, to which it is linked.
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>

#include <string.h>

#include "ctr-session-private.h"
#include "ctr-study-row.h"
#include "base/ctr-hu.h"

G_DEFINE_FINAL_TYPE (CtrSession, ctr_session, G_TYPE_OBJECT)

void
ctr_session_set_status (CtrSession *self, const char *progress_text, const char *status)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  _ctr_session_set_status (self, progress_text, status);
}

void
ctr_session_cancel (CtrSession *self)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  _ctr_session_cancel_reconstruction (self);
  _ctr_session_cancel_load (self);
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
  double     window[2];   /* lo, hi in the volume's unit; hi <= lo: none */
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

  _ctr_lower_thread_priority ();
  ctr_dicom_export_options_init (&o);
  o.series_description = e->description;
  o.derivation = e->derivation;
  o.series_number = e->series_number;
  /* the window shown, in HU with the μ_water the pixels are written with */
  if (e->window[1] > e->window[0])
    {
      o.window_center_hu = ctr_hu_from_mu (0.5 * (e->window[0] + e->window[1]), o.mu_water);
      o.window_width_hu = 1000.0 * (e->window[1] - e->window[0]) / o.mu_water;
    }
  if (ctr_dicom_export_series (e->volume, e->folder, &o, &error))
    g_task_return_int (task, 1);
  else
    g_task_return_error (task, error);
}

void
ctr_session_export_dicom_async (CtrSession          *self,
                                CtrRun              *run,
                                const char          *folder,
                                const double        *window,
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
    /* the run's own dataset: runs stay when another one is opened */
    g_auto(GStrv) data = g_strsplit (ctr_run_get_dataset (run), " · ", 2);
    e->description = g_strdup_printf ("ctrecon %s: %s", label, data[0] ? data[0] : "reconstruction");
  }
  e->derivation = g_strdup (ctr_run_get_derivation (run));
  e->series_number = ctr_run_get_number (run);
  if (window != NULL && isfinite (window[0]) && isfinite (window[1]))
    memcpy (e->window, window, sizeof e->window);
  _ctr_session_run_in_worker (task, "[ctrecon] export DICOM", e, dicom_export_free, dicom_export_thread);
}

gboolean
ctr_session_export_dicom_finish (CtrSession *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_int (G_TASK (result), error) > 0;
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

const char *
ctr_session_get_image_unit (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  if (self->dataset == NULL)
    return NULL;
  return self->dataset->geometry->pixel_size_known ? "1/mm" : "1/pixel";
}

GListModel *
ctr_session_get_runs (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return G_LIST_MODEL (self->runs);
}

GListModel *
ctr_session_get_results (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return G_LIST_MODEL (self->results);
}

gboolean
ctr_session_remove_run (CtrSession *self, CtrRun *run, GError **error)
{
  guint i;

  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  g_return_val_if_fail (CTR_IS_RUN (run), FALSE);
  if (ctr_run_get_state (run) == CTR_RUN_RUNNING)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "“%s” is running: cancel it first",
                   ctr_run_get_label (run));
      return FALSE;
    }
  if (!g_list_store_find (self->runs, run, &i))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "“%s” is not a run of this session",
                   ctr_run_get_label (run));
      return FALSE;
    }
  g_object_ref (run);
  if (g_list_store_find (self->results, run, &i))
    g_list_store_remove (self->results, i);
  _ctr_session_store_removed (self, run);
  if (g_list_store_find (self->runs, run, &i))
    g_list_store_remove (self->runs, i);
  g_object_unref (run);
  return TRUE;
}

void
ctr_session_clear_runs (CtrSession *self)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (self->runs)); i-- > 0;)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (G_LIST_MODEL (self->runs), i);
      if (ctr_run_get_state (run) != CTR_RUN_RUNNING)
        ctr_session_remove_run (self, run, NULL);
    }
}

void
_ctr_session_runs_changed (CtrSession *self)
{
  self->changes++;
}

void
_ctr_session_mark_saved (CtrSession *self)
{
  self->saved_changes = self->changes;
}

gboolean
ctr_session_get_unsaved (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return self->changes != self->saved_changes && g_list_model_get_n_items (G_LIST_MODEL (self->runs)) > 0;
}

void
ctr_session_set_keep_runs (CtrSession *self, gboolean keep)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  self->keep_runs = keep;
}

gboolean
ctr_session_get_keep_runs (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return self->keep_runs;
}

CtrRun *
ctr_session_get_latest_result (CtrSession *self)
{
  g_autoptr(CtrRun) run = NULL;
  guint n;

  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->results));
  if (n == 0)
    return NULL;
  run = g_list_model_get_item (G_LIST_MODEL (self->results), n - 1);
  return run;   /* the store keeps its reference */
}

CtrReconPlan *
ctr_session_get_plan (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->plan;
}

gboolean
ctr_session_get_busy (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), FALSE);
  return _ctr_session_busy (self);
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
  _ctr_session_store_dispose (self);
  g_clear_object (&self->results);
  g_clear_object (&self->runs);
  g_clear_object (&self->study_table);
  g_clear_pointer (&self->study_form, ctr_study_form_free);
  g_clear_pointer (&self->preprocess, json_node_unref);
  _ctr_session_drop_preprocessed (self);
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
  _ctr_session_drop_plan (self);
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
    case CTR_SESSION_PROP_DATASET:
      g_value_set_pointer (value, self->dataset);
      break;
    case CTR_SESSION_PROP_BUSY:
      g_value_set_boolean (value, ctr_session_get_busy (self));
      break;
    case CTR_SESSION_PROP_LOADING:
      g_value_set_boolean (value, self->load != NULL);
      break;
    case CTR_SESSION_PROP_RUNNING:
      g_value_set_boolean (value, self->recon != NULL);
      break;
    case CTR_SESSION_PROP_FRACTION:
      g_value_set_double (value, self->fraction);
      break;
    case CTR_SESSION_PROP_PROGRESS_TEXT:
      g_value_set_string (value, self->progress_text);
      break;
    case CTR_SESSION_PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    case CTR_SESSION_PROP_LATEST_STATS:
      g_value_set_boxed (value, self->latest_stats);
      break;
    case CTR_SESSION_PROP_STORE_SUMMARY:
      g_value_set_string (value, self->store_summary);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_session_class_init (CtrSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ctr_session_dispose;
  object_class->finalize = ctr_session_finalize;
  object_class->get_property = ctr_session_get_property;

  _ctr_session_install_properties (object_class);
}

static void
ctr_session_init (CtrSession *self)
{
  self->runs = g_list_store_new (CTR_TYPE_RUN);
  g_signal_connect_swapped (self->runs, "items-changed", G_CALLBACK (_ctr_session_runs_changed), self);
  self->results = g_list_store_new (CTR_TYPE_RUN);
  self->study_table = g_list_store_new (CTR_TYPE_STUDY_ROW_ITEM);
  self->progress_text = g_strdup ("Idle");
  self->status = g_strdup ("Ready");
  self->keep_runs = TRUE;
  self->detector_tilt = NAN;
  _ctr_session_store_init (self);
}

CtrSession *
ctr_session_new (void)
{
  return g_object_new (CTR_TYPE_SESSION, NULL);
}
