/* ctr-run.h — one reconstruction of a session: its method and parameters,
 * the numbers of every iteration, and the result.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A CtrRun is created by ctr_session_reconstruct_async() and lives in the
 * session's list of runs (ctr_session_get_runs); only the session changes
 * it, on the main thread.  GIO only: no widget here.
 */
#pragma once

#include <gio/gio.h>
#include "ctrecon.h"

G_BEGIN_DECLS

typedef enum {
  CTR_RUN_RUNNING,
  CTR_RUN_FINISHED,
  CTR_RUN_CANCELLED,
  CTR_RUN_FAILED
} CtrRunState;

#define CTR_TYPE_RUN_STATE (ctr_run_state_get_type ())
GType ctr_run_state_get_type (void);

/* CtrIterStats as a boxed type (the session's "latest-stats"): the copy
 * holds a reference on ->image, which is NULL or a 2-D copy of the slice
 * shown. */
#define CTR_TYPE_RUN_STATS (ctr_run_stats_get_type ())
GType         ctr_run_stats_get_type (void);
CtrIterStats *ctr_run_stats_copy     (const CtrIterStats *stats);
void          ctr_run_stats_free     (CtrIterStats       *stats);

#define CTR_TYPE_RUN (ctr_run_get_type ())

G_DECLARE_FINAL_TYPE (CtrRun, ctr_run, CTR, RUN, GObject)

/* 1-based, in the order the session started its runs. */
guint                  ctr_run_get_number       (CtrRun *self);
/* "2 · SIRT · 8 it", "3 · FBP"; " (cancelled)" appended when cancelled,
 * " (failed)" when it failed (the reason is in the session's status). */
const char            *ctr_run_get_label        (CtrRun *self);
/* The data it ran on: the dataset's name, and its variant when one was
 * loaded ("head-fan-lowdose · full_dose"); the runs list groups by it. */
const char            *ctr_run_get_dataset      (CtrRun *self);
/* The path of the file it ran on (CtrDataset->path). */
const char            *ctr_run_get_dataset_path (CtrRun *self);
/* Whether the run was made on @dataset's file (any of its variants: they
 * share the reference, so their figures compare); FALSE for NULL. */
gboolean               ctr_run_is_of            (CtrRun           *self,
                                                 const CtrDataset *dataset);
/* Renames the run (property "label"): the user's name for it, shown in
 * the legend, on Compare and Profile and in the CSV.  Surrounding blanks are
 * dropped; an empty @label is ignored. */
void                   ctr_run_set_label        (CtrRun     *self,
                                                 const char *label);
/* The colour the user picked for the run, "#rrggbb" (property "color"),
 * or NULL for the palette's by its number (ctr_plot_color_of_run); NULL
 * resets.  Anything but "#rrggbb" is a programming error. */
void                   ctr_run_set_color        (CtrRun     *self,
                                                 const char *color);
const char            *ctr_run_get_color        (CtrRun *self);
/* Whether the plots and Profile leave the run out (property "hidden"); its
 * numbers and image stay (Compare shows it when chosen). */
void                   ctr_run_set_hidden       (CtrRun   *self,
                                                 gboolean  hidden);
gboolean               ctr_run_get_hidden       (CtrRun *self);
/* "SIRT: iterations 8, relaxation 1, ..." from the parameter table (DICOM
 * DerivationDescription). */
const char            *ctr_run_get_derivation   (CtrRun *self);
const CtrReconOptions *ctr_run_get_options      (CtrRun *self);
const CtrGrid         *ctr_run_get_grid         (CtrRun *self);
CtrRunState            ctr_run_get_state        (CtrRun *self);
/* Iterations planned: options->iterations, or 1 for a single-pass method. */
guint                  ctr_run_get_n_iterations (CtrRun *self);
/* (transfer none) (nullable): the reconstruction, once finished (or a
 * cancelled volume run's newest iterate).  The
 * session's run store keeps every result for the session: in memory, or
 * on disk and read back here (ctr-session-store.c); NULL once the run is
 * deleted, or when its spilled file can no longer be read.  The pointer
 * stays valid until the main loop runs again (take a reference to keep
 * it longer). */
CtrVolume             *ctr_run_get_result       (CtrRun *self);
/* Whether the run holds a result image (in memory or spilled to disk),
 * without reading it back. */
gboolean               ctr_run_has_image        (CtrRun *self);
/* The reports received, oldest first (->image NULL). */
guint                  ctr_run_get_n_stats      (CtrRun *self);
const CtrIterStats    *ctr_run_get_stats        (CtrRun *self,
                                                 guint   index);
/* What the reconstruction plan decided and why (ctr_recon_plan_get_notes:
 * the operator, the symmetry found, the backend, every fall-back), one line
 * each, then for a run whose data were read again the "preprocess" list
 * and detector tilt they were read with ("data read again with …"); NULL
 * until the plan is made.  Property "notes" (GStrv). */
const char *const     *ctr_run_get_notes        (CtrRun *self);
/* Wall-clock seconds from the start to the end of the run (0 while running). */
double                 ctr_run_get_wall_s       (CtrRun *self);

G_END_DECLS
