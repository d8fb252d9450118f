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
/* Appends the numbers of one report (->image is not kept); notifies n-stats. */
void    _ctr_run_add_stats   (CtrRun                *self,
                              const CtrIterStats    *stats);
/* The plan's notes (copied); notifies notes. */
void    _ctr_run_set_notes   (CtrRun                *self,
                              const char *const     *notes);
/* Ends the run: @result (nullable, a reference is taken) for FINISHED. */
void    _ctr_run_finish      (CtrRun                *self,
                              CtrRunState            state,
                              CtrVolume             *result,
                              double                 wall_s);
/* Lets go of the result (memory), keeping the numbers. */
void    _ctr_run_drop_result (CtrRun                *self);

G_END_DECLS
