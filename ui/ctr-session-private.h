/* ctr-session-private.h — what the files of CtrSession share: the
 * session's fields and the helpers that notify its properties.
 * ctr-session.c: the object and its exports; ctr-session-state.c: its
 * properties and the helpers below;
 * ctr-session-load.c: loading; ctr-session-reconstruct.c: reconstructing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-session.h"
#include "ctr-run-private.h"

G_BEGIN_DECLS

typedef struct _CtrLoadJob CtrLoadJob;
typedef struct _CtrReconJob CtrReconJob;

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
  GListStore   *results;  /* the runs that hold a result (the run store) */
  GListStore   *open_results; /* those of the open dataset (and its variants) */
  guint64       memory_budget; /* bytes of images kept in memory, the rest on disk */
  char         *spill_dir;    /* the session's folder of images on disk, or NULL */
  char         *store_summary;
  gboolean      spill_error;
  guint         balance_id;
  guint         next_run;  /* the number of the next run (runs can be deleted) */
  gboolean      keep_runs; /* runs stay when another dataset is loaded */
  GListStore   *study_table;   /* CtrStudyRowItem: the dose study's rows (ctr-session-study.c) */
  CtrStudyForm *study_form;    /* the Dose Study page's form, nullable (ctr-session-study.c) */
  JsonNode     *preprocess;    /* the runs' "preprocess" list, nullable (ctr-session-preprocess.c) */
  gboolean      preprocess_own; /* it is the dataset's own: the data as loaded */
  double        detector_tilt; /* the runs' detector_tilt_rad (Calibrate…'s Apply), NaN: the file's */
  CtrProjections *prep_projections; /* the data read again with the list ->prep_key, nullable */
  char         *prep_key;
  guint64       changes;       /* runs added, finished or deleted so far */
  guint64       saved_changes; /* ->changes when last saved or restored */

  CtrIterStats *latest_stats;
  double        fraction;
  char         *progress_text;
  char         *status;

  CtrLoadJob   *load;     /* the current load, or NULL */
  CtrReconJob  *recon;    /* the current reconstruction, or NULL */
  /* the voxel its CTR_REPORT_PLANES reports pass through (the job's
   * options point here: the session outlives the job and its plan) */
  CtrReportCursor report_cursor;

  /* The plan of the last run (ctr-recon-plan.h: its operator, e.g. the
   * system matrix), kept for the next run with the same geometry, grid and
   * options; dropped with the dataset. */
  CtrReconPlan *plan;
  CtrGeometry  *plan_geometry;
};

enum {
  CTR_SESSION_PROP_0,
  CTR_SESSION_PROP_DATASET,
  CTR_SESSION_PROP_BUSY,
  CTR_SESSION_PROP_LOADING,
  CTR_SESSION_PROP_RUNNING,
  CTR_SESSION_PROP_FRACTION,
  CTR_SESSION_PROP_PROGRESS_TEXT,
  CTR_SESSION_PROP_STATUS,
  CTR_SESSION_PROP_LATEST_STATS,
  CTR_SESSION_PROP_STORE_SUMMARY,
  CTR_SESSION_N_PROPS
};

/* ctr-session-state.c: the properties and the helpers below; calls no
 * other file of the session. */
void          _ctr_session_install_properties (GObjectClass       *object_class);
void          _ctr_session_notify             (CtrSession         *self,
                                               guint               prop);
/* ctr_session_set_status without the type check. */
void          _ctr_session_set_status         (CtrSession         *self,
                                               const char         *progress_text,
                                               const char         *status);
/* A load or a reconstruction is running. */
gboolean      _ctr_session_busy               (CtrSession         *self);
/* Notifies @prop (loading or running), then busy. */
void          _ctr_session_notify_busy        (CtrSession         *self,
                                               guint               prop);
void          _ctr_session_set_fraction       (CtrSession         *self,
                                               double              fraction);
void          _ctr_session_set_latest_stats   (CtrSession         *self,
                                               const CtrIterStats *stats);
/* ctr-session-load.c, ctr-session-reconstruct.c */
void          _ctr_session_cancel_load        (CtrSession         *self);
void          _ctr_session_cancel_reconstruction (CtrSession      *self);
/* A newer dataset replaces the one being reconstructed: the run ends
 * cancelled and its late reports and result are ignored. */
void          _ctr_session_detach_reconstruction (CtrSession      *self);

/* ctr-session-store.c: the run store. */
void          _ctr_session_store_init         (CtrSession         *self);
void          _ctr_session_store_dispose      (CtrSession         *self);
/* A finished run with a result joins the results (kept in memory, others
 * spilled to disk as the budget asks). */
void          _ctr_session_store_add          (CtrSession         *self,
                                               CtrRun             *run);
/* @run left the results: its image (memory and file) is deleted. */
void          _ctr_session_store_removed      (CtrSession         *self,
                                               CtrRun             *run);
/* Rebuilds the open dataset's results (a new dataset, a result added or
 * removed). */
void          _ctr_session_sync_open_results  (CtrSession         *self);

/* The runs changed (a run started, finished or deleted): they are
 * unsaved until the next save (ctr-session-save.c). */
void          _ctr_session_runs_changed       (CtrSession         *self);
/* Whatever the runs are now is saved. */
void          _ctr_session_mark_saved         (CtrSession         *self);

/* Forgets the kept plan (a new dataset). */
void          _ctr_session_drop_plan          (CtrSession         *self);

/* ctr-session-preprocess.c: the runs' "preprocess" list and detector
 * tilt.  What a run on @geometry needs: *@reread TRUE when the data are
 * read again (a list that is not the dataset's own, or a tilt set), with
 * *@pipeline (transfer full; NULL: the file's own list) and *@key, the
 * data's key (transfer full), and *@kept, a reference on the data already
 * read so (NULL: to read).  FALSE with CTR_ERROR_FORMAT (a bad step) or
 * CTR_ERROR_INVALID_ARGUMENT (a dataset that cannot be read again). */
gboolean      _ctr_session_preprocess_job     (CtrSession         *self,
                                               const CtrGeometry  *geometry,
                                               gboolean           *reread,
                                               CtrPipeline       **pipeline,
                                               char              **key,
                                               CtrProjections    **kept,
                                               GError            **error);
/* Keeps @p (a reference), the data read with the list @key. */
void          _ctr_session_keep_preprocessed  (CtrSession         *self,
                                               const char         *key,
                                               CtrProjections     *p);
/* Forgets them (a new dataset). */
void          _ctr_session_drop_preprocessed  (CtrSession         *self);

/* Worker threads yield the CPU to the main thread (see ctr-session.c). */
void          _ctr_lower_thread_priority      (void);
/* A job's own cancellable, cancelled with the caller's (nullable). */
GCancellable *_ctr_link_cancellable           (GCancellable       *caller,
                                               gulong             *handler);
void          _ctr_unlink_cancellable         (GCancellable      **own,
                                               GCancellable      **caller,
                                               gulong             *handler);
/* Runs @func on a worker thread for @outer (the caller's task, whose
 * source object is the session; not consumed).  The worker's own task has
 * no source object and holds only @data (freed with @destroy, on whichever
 * thread drops it last); the gssize it returns (g_task_return_int) or its
 * error is passed on to @outer on @outer's main context.  A worker never
 * holds the session, so the caller's last unref ends the session on the
 * main thread, there and then (its spill folder removed with it). */
void          _ctr_session_run_in_worker      (GTask              *outer,
                                               const char         *name,
                                               gpointer            data,
                                               GDestroyNotify      destroy,
                                               GTaskThreadFunc     func);

G_END_DECLS
