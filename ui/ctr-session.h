/* ctr-session.h — what the window works on: one dataset and the runs made
 * on it.  GIO only (no widget), so it is tested without a display and can
 * serve other windows (a study window, dose studies).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loading and reconstructing run in a GTask thread; the session is changed
 * on the main thread only.  Properties (all read-only, notified):
 *   dataset        (pointer, CtrDataset, nullable) the loaded dataset;
 *   busy           loading or reconstructing;
 *   loading, running  which of the two;
 *   fraction       progress in [0, 1], or -1 while it cannot be told
 *                  (loading, building a system matrix);
 *   progress-text  "iteration 3 / 8", "Loading…", "Cancelled", "Idle";
 *   status         one sentence: "SIRT: about 4 s left", "Finished: …";
 *   latest-stats   (CtrIterStats, CTR_TYPE_RUN_STATS, nullable) the newest
 *                  report of the running or last run; ->image is a copy of
 *                  the whole current iterate (every slice of a volume, made
 *                  in the worker thread), or NULL when drawing fell behind,
 *                  and NULL once the run ended (its result is the run's).
 * A volume run that is cancelled keeps its newest reported iterate as its
 * result (state CTR_RUN_CANCELLED, ctr_run_get_result, among the results);
 * a cancelled 2-D run keeps none.
 * ctr_session_get_runs() lists every run (CtrRun), oldest first; runs stay
 * when another dataset or variant is loaded (each names its data:
 * ctr_run_get_dataset) unless ctr_session_set_keep_runs (FALSE) was called;
 * ctr_session_clear_runs() empties the list.
 */
#pragma once

#include <gio/gio.h>
#include "ctrecon.h"
#include "ctr-run.h"
#include "ctr-study-form.h"

G_BEGIN_DECLS

#define CTR_TYPE_SESSION (ctr_session_get_type ())

G_DECLARE_FINAL_TYPE (CtrSession, ctr_session, CTR, SESSION, GObject)

CtrSession   *ctr_session_new              (void);

/* (transfer none) (nullable) */
CtrDataset   *ctr_session_get_dataset      (CtrSession    *self);
/* The DICOM series' report ("… 72 views; 3 missing …"), or NULL. */
const char   *ctr_session_get_report       (CtrSession    *self);
/* An 8-bit grey preview of the middle detector row's sinogram (views down,
 * columns across, at most 320 × 320, R8G8B8) and the value range of all
 * projections; NULL without a dataset. */
GBytes       *ctr_session_get_preview      (CtrSession    *self,
                                            guint         *width,
                                            guint         *height);
void          ctr_session_get_data_range   (CtrSession    *self,
                                            double        *min,
                                            double        *max);
/* The unit of its reconstructions: "1/mm", or "1/pixel" when the dataset
 * does not know its pixel size (NULL without a dataset). */
const char   *ctr_session_get_image_unit   (CtrSession    *self);
/* (transfer none): CtrRun items, oldest first. */
GListModel   *ctr_session_get_runs         (CtrSession    *self);
/* (transfer none): the runs that hold a result, oldest first: every
 * finished run of the session, of every dataset, until deleted (the run
 * store, ctr-session-store.c: nothing is evicted; images beyond the memory
 * budget wait on disk). */
GListModel   *ctr_session_get_results      (CtrSession    *self);
/* (transfer none): the results of the open dataset (and its variants:
 * ctr_run_is_of), oldest first: what Compare, Profile and the ROI table
 * show.  Updated when the dataset or the results change. */
GListModel   *ctr_session_get_open_results (CtrSession    *self);

/* The run store's memory budget (bytes; default
 * CTR_SESSION_DEFAULT_MEMORY_BUDGET): result images beyond it, least
 * recently used first, are written to the session's folder under the
 * user's cache (g_get_user_cache_dir()/ctrecon/session-PID-XXXXXX, removed
 * with the session) and read back when shown.  The newest result always
 * stays in memory.  Setting it balances at once.  $CTR_RUN_MEMORY_MB (a
 * whole number of MiB) sets a new session's budget. */
#define CTR_SESSION_DEFAULT_MEMORY_BUDGET ((guint64) 1 << 30)
void          ctr_session_set_memory_budget (CtrSession   *self,
                                             guint64       bytes);
guint64       ctr_session_get_memory_budget (CtrSession   *self);
/* The result images kept, and their bytes in memory and on disk. */
void          ctr_session_get_store_usage  (CtrSession    *self,
                                            guint         *n_images,
                                            guint64       *in_memory,
                                            guint64       *on_disk);
/* "12 run images kept: 48.0 MB in memory (budget 1.1 GB), 160 MB on disk
 * in FOLDER" (property "store-summary", notified), with the excess stated
 * when images could not be written to disk. */
const char   *ctr_session_get_store_summary (CtrSession   *self);
/* (nullable): the session's folder of spilled images, made on the first
 * spill. */
const char   *ctr_session_get_spill_folder (CtrSession    *self);
/**
 * ctr_session_remove_run:
 * Deletes @run from the runs (and the results): its numbers and image are
 * gone; later runs keep their numbers.  FALSE with
 * CTR_ERROR_INVALID_ARGUMENT for the running run (cancel it first) or a
 * run of another session.
 */
gboolean      ctr_session_remove_run       (CtrSession    *self,
                                            CtrRun        *run,
                                            GError       **error);
/* Deletes every run but the running one (their numbers go on). */
void          ctr_session_clear_runs       (CtrSession    *self);
/* Whether the session holds runs that changed (started, finished, deleted)
 * since it was last saved or opened (ctr-session-file.h): what the window
 * asks about before closing.  FALSE without runs. */
gboolean      ctr_session_get_unsaved      (CtrSession    *self);
/* Whether runs stay when another dataset is loaded (default TRUE). */
void          ctr_session_set_keep_runs    (CtrSession    *self,
                                            gboolean       keep);
gboolean      ctr_session_get_keep_runs    (CtrSession    *self);
/* (transfer none) (nullable): the newest run with a result. */
CtrRun       *ctr_session_get_latest_result (CtrSession   *self);
/* (transfer none) (nullable): the plan of the last run, kept for the next
 * run with the same geometry, grid and options (ctr-recon-plan.h); NULL
 * before the first run of a dataset. */
CtrReconPlan *ctr_session_get_plan         (CtrSession    *self);
gboolean      ctr_session_get_busy         (CtrSession    *self);
gboolean      ctr_session_get_loading      (CtrSession    *self);
gboolean      ctr_session_get_running      (CtrSession    *self);
double        ctr_session_get_fraction     (CtrSession    *self);
const char   *ctr_session_get_progress_text (CtrSession   *self);
const char   *ctr_session_get_status       (CtrSession    *self);
/* (transfer none) (nullable) */
const CtrIterStats *ctr_session_get_latest_stats (CtrSession *self);
/* Sets the two texts (NULL keeps one), e.g. when the user declines a
 * question a load asked. */
void          ctr_session_set_status       (CtrSession    *self,
                                            const char    *progress_text,
                                            const char    *status);

/**
 * ctr_session_load_async:
 * @path: (nullable): a geometry.json, a DICOM file or folder, or a dataset
 *   folder holding a geometry.json; NULL when @files is given.
 * @files: (nullable) (array zero-terminated=1): DICOM files dropped together.
 * @series_uid: (nullable): the DICOM series to load (the answer to a
 *   CTR_DICOM_OUTCOME_CHOOSE_SERIES question).
 * @cancellable: (nullable): cancels the load (the window's, on close).
 *
 * Loads in a worker thread; a running reconstruction is cancelled (its run
 * ends as cancelled), a running load is superseded.  On success the session
 * holds the new dataset, and the runs made so far unless it keeps none
 * (ctr_session_set_keep_runs).
 */
void          ctr_session_load_async       (CtrSession          *self,
                                            const char          *path,
                                            const char *const   *files,
                                            const char          *series_uid,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/**
 * ctr_session_load_draft_async:
 * As ctr_session_load_async() for a geometry.json whose geometry is wrong:
 * the dataset holds the file's geometry as a draft to fix
 * (ctr_dataset_load_draft, ->geometry_missing).
 */
void          ctr_session_load_draft_async (CtrSession          *self,
                                            const char          *path,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/**
 * ctr_session_load_variant_async:
 * @variant: (nullable): the name of an entry of the dataset's "variants"
 *   (CtrDataset->variants), or NULL / "" for its "projections".
 * As ctr_session_load_async() for the loaded geometry.json with other
 * projections (a dose of a low-dose dataset); the errors of
 * ctr_dataset_load (CTR_ERROR_FORMAT for an unknown variant; CTR_ERROR_IO
 * when nothing is loaded).
 */
void          ctr_session_load_variant_async (CtrSession        *self,
                                            const char          *variant,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/**
 * ctr_session_load_resolution_async:
 * @resolution: (transfer full): a CTR_DICOM_OUTCOME_GEOMETRY_MISSING answer
 *   whose ->frames the user completed (ctr_dicom_xa_complete).
 * As ctr_session_load_async() for those frames.
 */
void          ctr_session_load_resolution_async (CtrSession     *self,
                                            CtrDicomResolution  *resolution,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
/**
 * ctr_session_load_finish:
 * @question: (out) (optional) (transfer full): set when the files need the
 *   user's answer first (several series: CHOOSE_SERIES; XA without geometry:
 *   GEOMETRY_MISSING); the session keeps its dataset meanwhile.
 * Returns: TRUE when loaded or asking; FALSE with the errors of
 *   ctr_dataset_load / ctr_dicom_resolve, CTR_ERROR_FORMAT (a folder with
 *   neither DICOM nor a geometry.json), G_IO_ERROR_CANCELLED (cancelled or
 *   superseded by a newer load).
 */
gboolean      ctr_session_load_finish      (CtrSession          *self,
                                            GAsyncResult        *result,
                                            CtrDicomResolution **question,
                                            GError             **error);

/**
 * ctr_session_reconstruct_async:
 * @geometry: the geometry to use (the dataset's, or as edited); copied.
 * @grid: the reconstruction grid.
 * @options: method and parameters (validated here).
 * @cancellable: (nullable): cancels the run (the window's, on close);
 *   ctr_session_cancel() cancels it too.
 *
 * Appends a running CtrRun to the runs and reconstructs the dataset's
 * projections in a worker thread; after every iteration the run's numbers,
 * latest-stats, fraction and the texts are updated on the main thread.
 */
void          ctr_session_reconstruct_async (CtrSession            *self,
                                             const CtrGeometry     *geometry,
                                             const CtrGrid         *grid,
                                             const CtrReconOptions *options,
                                             GCancellable          *cancellable,
                                             GAsyncReadyCallback    callback,
                                             gpointer               user_data);
/**
 * ctr_session_follow_voxel:
 * @grid: the grid @voxel is on.
 * @voxel: (i, j, k), column, row and slice, where the window's volume views
 *   cross (each clamped to @grid).
 *
 * A running volume run on @grid whose reports carry the three planes
 * through a voxel (CTR_REPORT_PLANES, the window's choice): its next report
 * carries the planes through @voxel instead of those through the voxel it
 * started with.  Nothing when no such run on @grid goes on.
 */
void          ctr_session_follow_voxel       (CtrSession          *self,
                                              const CtrGrid       *grid,
                                              const guint          voxel[3]);

/**
 * ctr_session_reconstruct_finish:
 * Returns: (transfer full): the finished run (its result set); NULL with
 *   CTR_ERROR_INVALID_ARGUMENT (no dataset, busy, or options out of range:
 *   no run was started), the errors of ctr_reconstruct, or
 *   G_IO_ERROR_CANCELLED (cancelled, or its dataset replaced).
 */
CtrRun       *ctr_session_reconstruct_finish (CtrSession          *self,
                                              GAsyncResult        *result,
                                              GError             **error);

/**
 * ctr_session_add_result:
 * @dataset: the data @image was reconstructed from (its name and path name
 *   the run: a run of the open dataset when the paths are the same).
 * @data_label: (nullable): what tells those data apart ("0.25 × dose
 *   (study)"), appended to the run's label and dataset name.
 * @options: the method and parameters that made @image.
 * @image: the reconstruction (a reference is taken; its grid is the run's).
 * @stats: (nullable): its figures (rmse, ssim, … as the study measured
 *   them; ->image ignored), the run's one report.
 * @wall_s: the seconds it took.
 * Appends a finished run made outside the session (a dose study's
 * reconstruction, ctr-session-study.c), numbered after the others; its
 * image joins the run store.  Main thread only.
 * Returns: (transfer none): the run (the session's list holds it).
 */
CtrRun       *ctr_session_add_result       (CtrSession            *self,
                                            const CtrDataset      *dataset,
                                            const char            *data_label,
                                            const CtrReconOptions *options,
                                            CtrVolume             *image,
                                            const CtrIterStats    *stats,
                                            double                 wall_s);
/* (transfer none): the dose study's table, CtrStudyRowItem (ctr-study-row.h)
 * in run order: the Dose Study page's model, saved and restored with the
 * session (ctr-session-file.h). */
GListStore   *ctr_session_get_study_table  (CtrSession    *self);
/* The Dose Study page's form as last set (a copy; nullable @form: none),
 * saved with the session and replaced by a session's restore
 * (ctr-session-file.h).  Setting it does not count as an unsaved change
 * (closing asks about runs only).  The getter's result is transfer none,
 * NULL until set. */
void          ctr_session_set_study_form   (CtrSession         *self,
                                            const CtrStudyForm *form);
const CtrStudyForm *ctr_session_get_study_form (CtrSession    *self);

/**
 * ctr_session_set_preprocess:
 * @steps: (nullable): geometry.json's "preprocess" list (a JSON array of
 *   step objects, core/preprocess/ctr-preprocess.h; copied), or NULL for the
 *   dataset's own.
 * @own: whether @steps is the list the dataset was loaded with.
 * The pipeline of the next runs (the Projections page's).  A run whose list
 * is not the dataset's own reads the data again with it,
 * ctr_dataset_load_preprocessed() — what `ctrecon-cli reconstruct
 * --preprocess FILE.json` does — and reconstructs those (a "truncation"
 * step widens the run's detector as it widens the CLI's); the data are kept
 * for the next run with the same list.  Saved with the session
 * (ctr-session-file.h).  A new dataset starts with its own list (NULL)
 * until this is called again.
 */
void          ctr_session_set_preprocess   (CtrSession         *self,
                                            JsonNode           *steps,
                                            gboolean            own);
/* (transfer none) (nullable): the list set, and whether it is the
 * dataset's own (@own optional). */
JsonNode     *ctr_session_get_preprocess   (CtrSession         *self,
                                            gboolean           *own);
/**
 * ctr_session_set_detector_tilt:
 * @tilt_rad: the detector's in-plane tilt, geometry.json's
 *   "detector_tilt_rad" (data/ctr-detector-tilt.h; radians), or NaN for the
 *   file's own.
 * The tilt of the next runs (Calibrate…'s Apply): a run reads the data
 * again from a copy of the dataset's geometry.json stating @tilt_rad and
 * the run's detector offset (ctr_geometry_json_write_offset_u, as
 * `ctrecon-cli calibrate --output` writes it), with the runs' "preprocess"
 * list, so it equals `ctrecon-cli reconstruct` on that file.  A new dataset
 * starts with NaN.  A DICOM or scan-file dataset, which has no
 * geometry.json, refuses such a run (CTR_ERROR_INVALID_ARGUMENT).
 */
void          ctr_session_set_detector_tilt (CtrSession        *self,
                                             double             tilt_rad);
double        ctr_session_get_detector_tilt (CtrSession        *self);

/* Cancels the running load or reconstruction (it stops at its next check). */
void          ctr_session_cancel           (CtrSession    *self);

/**
 * ctr_session_write_metrics:
 * Every run's numbers as CSV (run, label, iteration, residual, rmse,
 * psnr_db, ssim; empty where not reported), written to a temporary file and
 * renamed.  GFileError on failure.
 */
gboolean      ctr_session_write_metrics    (CtrSession    *self,
                                            const char    *path,
                                            GError       **error);

/**
 * ctr_session_export_dicom_async:
 * Writes @run's result as a DICOM CT Image Storage series into @folder in a
 * worker thread (ctr_dicom_export_series: one file per slice, HU with
 * μ_water 0.0192 /mm; SeriesDescription "ctrecon LABEL: DATASET",
 * DerivationDescription the run's method and parameters, SeriesNumber the
 * run's number).  @window (nullable): the displayed window {lo, hi} in the
 * result's unit (1/mm), written as WindowCenter/WindowWidth in HU with the
 * same μ_water as the pixels; NULL (or hi <= lo) writes 40 / 400 HU.
 */
void          ctr_session_export_dicom_async (CtrSession          *self,
                                              CtrRun              *run,
                                              const char          *folder,
                                              const double        *window,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
/* Errors: CTR_ERROR_INVALID_ARGUMENT (no result), those of
 * ctr_dicom_export_series. */
gboolean      ctr_session_export_dicom_finish (CtrSession        *self,
                                               GAsyncResult      *result,
                                               GError           **error);

G_END_DECLS
