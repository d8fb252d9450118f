/* ctr-study-form.c — the Dose Study page's form as data (ctr-study-form.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include "ctr-study-form.h"

CtrStudyForm *
ctr_study_form_new (void)
{
  CtrStudyForm *f = g_new0 (CtrStudyForm, 1);

  f->doses = g_strdup ("");
  f->realisations = 1;
  f->methods = g_array_new (FALSE, TRUE, sizeof (CtrReconOptions));
  f->noise_roi = g_strdup ("");
  f->background_roi = g_strdup ("");
  f->measure_roi = g_strdup ("");
  f->iq_task = g_strdup ("");
  f->iq_nps = g_strdup ("");
  f->iq_insert = g_strdup ("");
  return f;
}

CtrStudyForm *
ctr_study_form_copy (const CtrStudyForm *form)
{
  CtrStudyForm *f;

  g_return_val_if_fail (form != NULL, NULL);
  f = g_new0 (CtrStudyForm, 1);
  *f = *form;
  f->doses = g_strdup (form->doses);
  f->methods = g_array_copy (form->methods);
  f->noise_roi = g_strdup (form->noise_roi);
  f->background_roi = g_strdup (form->background_roi);
  f->measure_roi = g_strdup (form->measure_roi);
  f->iq_task = g_strdup (form->iq_task);
  f->iq_nps = g_strdup (form->iq_nps);
  f->iq_insert = g_strdup (form->iq_insert);
  return f;
}

void
ctr_study_form_free (CtrStudyForm *f)
{
  if (f == NULL)
    return;
  g_free (f->doses);
  g_array_unref (f->methods);
  g_free (f->noise_roi);
  g_free (f->background_roi);
  g_free (f->measure_roi);
  g_free (f->iq_task);
  g_free (f->iq_nps);
  g_free (f->iq_insert);
  g_free (f);
}

/* Every parameter of the table that applies, and the backend. */
static gboolean
options_equal (const CtrReconOptions *a, const CtrReconOptions *b)
{
  guint n = 0;
  const CtrParam *params = ctr_params_list (&n);

  if (a->method != b->method || g_strcmp0 (a->backend, b->backend) != 0 || a->rebin != b->rebin)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (ctr_param_applies (&params[i], a->method) && ctr_param_get (&params[i], a) != ctr_param_get (&params[i], b))
      return FALSE;
  return TRUE;
}

gboolean
ctr_study_form_equal (const CtrStudyForm *a, const CtrStudyForm *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  if (g_strcmp0 (a->doses, b->doses) != 0 || a->i0 != b->i0 || a->seed != b->seed ||
      a->realisations != b->realisations || a->size != b->size || a->methods->len != b->methods->len ||
      g_strcmp0 (a->noise_roi, b->noise_roi) != 0 || g_strcmp0 (a->background_roi, b->background_roi) != 0 ||
      g_strcmp0 (a->measure_roi, b->measure_roi) != 0 || g_strcmp0 (a->iq_task, b->iq_task) != 0 ||
      g_strcmp0 (a->iq_nps, b->iq_nps) != 0 || g_strcmp0 (a->iq_insert, b->iq_insert) != 0)
    return FALSE;
  for (guint i = 0; i < a->methods->len; i++)
    if (!options_equal (&g_array_index (a->methods, CtrReconOptions, i),
                        &g_array_index (b->methods, CtrReconOptions, i)))
      return FALSE;
  return TRUE;
}
