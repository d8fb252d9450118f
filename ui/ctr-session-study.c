/* ctr-session-study.c — CtrSession: reconstructions made elsewhere (a dose
 * study's) joined to the runs, and the study's table kept with the
 * session.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A dose study reconstructs simulated lower doses of the open dataset in
 * its own thread (core/study/ctr-study.h).  Each of its images becomes a
 * finished run of the dataset it was made from (the same path, so
 * ctr_run_is_of holds: Compare, Profile and the ROI table show it with the
 * dataset's own runs), numbered after the session's others and labelled by
 * its dose; its image joins the run store like any run's, so it is kept,
 * spilled, deleted and saved the same way.  The study's table (one
 * CtrStudyRowItem per run) is the session's too: saved and restored with
 * it (ctr-session-file.h), as is the page's form (the doses, methods, ROIs
 * and d′ task it was set up with).
 */
#define G_LOG_DOMAIN "ctr-session"

#include "ctr-session-private.h"

GListStore *
ctr_session_get_study_table (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->study_table;
}

void
ctr_session_set_study_form (CtrSession *self, const CtrStudyForm *form)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  g_clear_pointer (&self->study_form, ctr_study_form_free);
  self->study_form = form != NULL ? ctr_study_form_copy (form) : NULL;
}

const CtrStudyForm *
ctr_session_get_study_form (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->study_form;
}

CtrRun *
ctr_session_add_result (CtrSession            *self,
                        const CtrDataset      *dataset,
                        const char            *data_label,
                        const CtrReconOptions *options,
                        CtrVolume             *image,
                        const CtrIterStats    *stats,
                        double                 wall_s)
{
  g_autoptr(CtrRun) run = NULL;

  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  g_return_val_if_fail (dataset != NULL && options != NULL && image != NULL, NULL);

  run = _ctr_run_new_for_data (++self->next_run, options, &image->grid, dataset->name, data_label, dataset->path);
  if (stats != NULL)
    _ctr_run_add_stats (run, stats);
  _ctr_run_finish (run, CTR_RUN_FINISHED, image, wall_s);
  g_list_store_append (self->runs, run);
  _ctr_session_store_add (self, run);
  return run;   /* the session's list holds it */
}
