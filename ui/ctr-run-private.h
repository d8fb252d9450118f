/* ctr-run-private.h — what the session changes in its runs (ctr-session.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-run.h"

G_BEGIN_DECLS

/* A running run on @dataset; @options and @grid are copied.  Its label is
 * "N · " and ctr_recon_options_describe (@options), then " · VARIANT" when
 * a variant of the dataset was loaded; its dataset "NAME[ · VARIANT]". */
CtrRun *_ctr_run_new         (guint                  number,
                              const CtrReconOptions *options,
                              const CtrGrid         *grid,
                              const CtrDataset      *dataset);
/* As _ctr_run_new() with the data named by their parts: @dataset_name
 * (nullable: "dataset"), @data_label (nullable: none; "0.25 × dose
 * (study)", a variant) and @dataset_path (what ctr_run_is_of compares). */
CtrRun *_ctr_run_new_for_data (guint                  number,
                               const CtrReconOptions *options,
                               const CtrGrid         *grid,
                               const char            *dataset_name,
                               const char            *data_label,
                               const char            *dataset_path);
/* A run read back from a saved session (ctr-session-save.c): as
 * _ctr_run_new(), with the data it ran on named by @dataset (its label)
 * and @dataset_path; finish it with _ctr_run_finish(). */
CtrRun *_ctr_run_new_restored (guint                  number,
                               const CtrReconOptions *options,
                               const CtrGrid         *grid,
                               const char            *dataset,
                               const char            *dataset_path);
/* Appends the numbers of one report (->image is not kept); notifies n-stats. */
void    _ctr_run_add_stats   (CtrRun                *self,
                              const CtrIterStats    *stats);
/* The plan's notes (copied); notifies notes. */
void    _ctr_run_set_notes   (CtrRun                *self,
                              const char *const     *notes);
/* Ends the run: @result (nullable, a reference is taken) for FINISHED, or
 * a cancelled volume run's newest iterate. */
void    _ctr_run_finish      (CtrRun                *self,
                              CtrRunState            state,
                              CtrVolume             *result,
                              double                 wall_s);
/* Lets go of the result (memory and its file on disk), keeping the numbers. */
void    _ctr_run_drop_result (CtrRun                *self);

/* The run store (ctr-session-store.c).  Called with the run whose image
 * ctr_run_get_result() has just read back from disk. */
typedef void (*CtrRunReloaded) (CtrRun *run, gpointer data);
void     _ctr_run_set_reloaded  (CtrRun         *self,
                                 CtrRunReloaded  func,
                                 gpointer        data);
/* Writes the result's image to FOLDER/run-N.f32 (float32 [z][y][x], native
 * byte order, mode 0600; once: a later spill reuses the file) and lets
 * memory go of it; ctr_run_get_result() reads it back.  GFileError when the
 * file cannot be written (the image then stays in memory). */
gboolean _ctr_run_spill         (CtrRun         *self,
                                 const char     *folder,
                                 GError        **error);
gboolean _ctr_run_in_memory     (CtrRun         *self);
gboolean _ctr_run_is_spilled    (CtrRun         *self);
/* Bytes of the result's image (0 without one), in memory or on disk. */
guint64  _ctr_run_image_bytes   (CtrRun         *self);
/* A counter of ctr_run_get_result() calls: larger is more recent. */
guint64  _ctr_run_get_last_used (CtrRun         *self);

G_END_DECLS
