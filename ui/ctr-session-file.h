/* ctr-session-file.h — a saved session: the runs of a CtrSession (their
 * parameters, numbers of every iteration and images), the window's ROIs,
 * ruler and water calibration, the Dose Study's table (its rows name the
 * runs holding their reconstructions) and the open dataset, in one folder
 * NAME.ctrsession holding session.json and one float32 TIFF per run image
 * (docs/session-format.md).  GIO and json-glib only: no widget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Saving writes the whole folder under a hidden temporary name beside the
 * target (registered with ctr_temp_register) and swaps it in
 * (ctr_output_swap_in); an existing target is replaced only when it is a
 * session folder of ours (session.json of format "ctrecon-session" and our
 * files only).  Opening reads and checks everything in a worker thread
 * before the session is touched; ctr_session_restore() then replaces the
 * session's runs.
 */
#pragma once

#include <gio/gio.h>
#include "ctrecon.h"
#include "ctr-roi-set.h"
#include "ctr-session.h"
#include "ctr-study-form.h"

G_BEGIN_DECLS

#define CTR_SESSION_FILE_FORMAT "ctrecon-session"
/* Version 2 added the Dose Study's table ("study"); version 1 files still
 * open (without one). */
#define CTR_SESSION_FILE_VERSION 2
#define CTR_SESSION_FILE_SUFFIX ".ctrsession"
#define CTR_SESSION_FILE_MANIFEST "session.json"

/* One run as saved. */
typedef struct {
  guint            number;
  char            *label;
  char            *dataset;       /* "gel-fan", "head-fan-lowdose · full_dose" */
  char            *dataset_path;  /* the geometry.json (or DICOM) it ran on */
  char            *color;         /* nullable "#rrggbb" */
  gboolean         hidden;
  CtrRunState      state;
  double           wall_s;
  CtrReconOptions  options;
  CtrGrid          grid;
  GArray          *stats;         /* CtrIterStats, ->image NULL */
  char           **notes;         /* nullable */
  CtrVolume       *image;         /* nullable: the run's result */
} CtrSessionRunRecord;

/**
 * CtrSessionFile:
 * What a session folder holds, read and checked.
 * @path: the folder.
 * @dataset_path, @variant: the dataset open when it was saved (nullable).
 * @runs: CtrSessionRunRecord, oldest first.
 * @rois, @roi_names: the ROIs (CtrRoi, mm) and their names.
 * @background: the background ROI's index, or -1.
 * @have_ruler, @ruler: the ruler's ends (x0, y0, x1, y1) in mm.
 * @mu_water, @calibrated: the μ_water of HU (1/mm) and whether it came from
 *   a water calibration.
 * @study_rows: CtrStudyRowItem (ctr-study-row.h), the Dose Study's table in
 *   run order (the session's ctr_session_get_study_table); each names the
 *   run of its reconstruction, one of @runs, or none (0).
 * @study_form: (nullable): the Dose Study page's form (none in files
 *   written before it was saved).
 * @preprocess: (nullable): the runs' "preprocess" list when it was saved
 *   (ctr_session_get_preprocess; a JSON array of step objects), none in
 *   files written before it was saved or when it was the dataset's own.
 */
typedef struct {
  char      *path;
  char      *dataset_path;
  char      *variant;
  GPtrArray *runs;
  GArray    *rois;
  GPtrArray *roi_names;
  int        background;
  gboolean   have_ruler;
  double     ruler[4];
  double     mu_water;
  gboolean   calibrated;
  GPtrArray *study_rows;
  CtrStudyForm *study_form;
  JsonNode  *preprocess;
} CtrSessionFile;

void            ctr_session_file_free        (CtrSessionFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrSessionFile, ctr_session_file_free)

/**
 * ctr_session_file_read:
 * Reads the session folder @path (or its session.json) and every run image,
 * checking each against the manifest (a float32 TIFF of the run's grid).
 * Thread-safe.  Returns: (transfer full): the contents, or NULL with
 * CTR_ERROR_IO (missing, unreadable), CTR_ERROR_FORMAT (not a session, a
 * newer version, a key missing or of the wrong type, an image of another
 * shape), each message naming the file and the key.
 */
CtrSessionFile *ctr_session_file_read        (const char      *path,
                                              GCancellable    *cancellable,
                                              GError         **error);

/* Whether @path is a session folder (holding session.json) or a
 * session.json; decides nothing about its validity. */
gboolean        ctr_session_file_is_session  (const char      *path);

/* @path with CTR_SESSION_FILE_SUFFIX appended unless it ends so
 * (transfer full). */
char           *ctr_session_file_with_suffix (const char      *path);

/**
 * ctr_session_save_async:
 * Saves @session's runs (every run but a running one; their images read
 * back from the run store when spilled), its study table
 * (ctr_session_get_study_table) and form (ctr_session_get_study_form),
 * @rois (nullable: its ROIs, ruler and
 * μ_water) and the open dataset as the folder @path, in a worker
 * thread.  An existing @path that is not a session folder of ours is
 * refused (CTR_ERROR_INVALID_ARGUMENT), as is a path that would replace an
 * input of the dataset (ctr_output_path_check).  Once saved the session
 * has no unsaved runs (ctr_session_get_unsaved).
 */
void            ctr_session_save_async       (CtrSession          *session,
                                              CtrRoiSet           *rois,
                                              const char          *path,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
/* Returns: the number of runs saved, or -1 with CTR_ERROR_IO (a write
 * failed: nothing was replaced), CTR_ERROR_INVALID_ARGUMENT. */
int             ctr_session_save_finish      (CtrSession          *session,
                                              GAsyncResult        *result,
                                              GError             **error);

/* ctr_session_file_read() in a worker thread. */
void            ctr_session_file_read_async  (const char          *path,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data);
/* (transfer full): NULL with the errors of ctr_session_file_read(). */
CtrSessionFile *ctr_session_file_read_finish (GAsyncResult        *result,
                                              GError             **error);

/**
 * ctr_session_restore:
 * Replaces the runs of @session by those of @file (their numbers, labels,
 * colours, numbers of every iteration, notes and images; the images join
 * the run store), its Dose Study table (ctr_session_get_study_table) by
 * the file's (none for a version-1 file), its Dose Study form
 * (ctr_session_get_study_form) by the file's (NULL when it has none), and
 * @rois' ROIs, ruler and
 * μ_water by the file's (@rois nullable).  The dataset is not loaded here: the caller loads
 * @file->dataset_path, then sets the μ_water again (a dataset's load sets
 * its own).  Afterwards the session has no unsaved runs.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT while @session is busy
 *   (nothing changed).
 */
gboolean        ctr_session_restore          (CtrSession          *session,
                                              CtrSessionFile      *file,
                                              CtrRoiSet           *rois,
                                              GError             **error);

G_END_DECLS
