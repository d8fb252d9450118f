/* ctr-study-page-iq.c — the Dose study's detectability (issue 33): the
 * noise realisations, the d′ task with its NPS region and insert
 * (ctr_study_set_iq_nps, ctr_study_add_iq_insert, ctr_study_set_iq_task),
 * the iq phantom's regions in one click, and the equal-d′ dose of a
 * finished study (ctr_study_equal_dose) under the figure, whose d′ panel
 * core's ctr_study_plot_draw adds.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include <math.h>

#include "ctr-study-page-private.h"
#include "ctr-iq-measure.h"
#include "study/ctr-equal-dose.h"

static char *
row_text (AdwEntryRow *row)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));
}

/* The region typed in @row, prefixed with the row's title when wrong. */
static gboolean
parse_region (AdwEntryRow *row, gboolean circle, CtrRoi *roi, GError **error)
{
  g_autofree char *text = row_text (row);
  const char *title = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));

  if (*text == '\0')
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "%s: a d′ task needs it (iq Phantom fills in the iq phantom's)", title);
      return FALSE;
    }
  if (!ctr_roi_parse (text, roi, error))
    {
      g_prefix_error (error, "%s: ", title);
      return FALSE;
    }
  if (circle && roi->shape != CTR_ROI_CIRCLE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s: the TTF needs a circular insert, circle:X,Y,R",
                   title);
      return FALSE;
    }
  return TRUE;
}

gboolean
_ctr_study_page_add_iq (CtrStudyPage *self, CtrStudy *s, const CtrGrid *grid, GError **error)
{
  g_autofree char *task_text = row_text (self->iq_task_row);
  g_autofree guint8 *mask = NULL;
  CtrRoi nps, insert;
  CtrTask task;
  guint size, count = 0;

  if (!ctr_study_set_realisations (s, (guint) gtk_spin_button_get_value_as_int (self->realisations_spin), error))
    return FALSE;
  if (*task_text == '\0')
    return TRUE;
  if (!ctr_task_parse (task_text, &task, error))
    {
      g_prefix_error (error, "Task: ");
      return FALSE;
    }
  if (!parse_region (self->iq_nps_row, FALSE, &nps, error) || !parse_region (self->iq_insert_row, TRUE, &insert, error))
    return FALSE;
  /* squares as the image-quality panel takes them on the study's grid */
  mask = ctr_roi_mask (grid, &nps, NULL, error);
  if (mask == NULL)
    return FALSE;
  size = ctr_iq_nps_size (mask, grid->nx, grid->ny, &count);
  if (size == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "NPS region: it holds no 8 × 8 pixel square of the study's grid (make it larger)");
      return FALSE;
    }
  return ctr_study_set_iq_nps (s, &nps, size, error) &&
         ctr_study_add_iq_insert (s, "task", insert.x_mm, insert.y_mm, insert.radius_mm, error) &&
         ctr_study_set_iq_task (s, &task, "task", error);
}

/* The iq phantom's centre and the insert whose CT number is nearest the
 * task's contrast (the task "disc:5,120" when none is typed). */
void
_ctr_study_page_use_iq_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  const double radius = 100;
  g_autofree char *task_text = row_text (self->iq_task_row);
  CtrTask task = { 5, 120, 0 };
  guint n = 0, best = 0;
  const CtrIqInsert *ins = ctr_phantom_iq_inserts (&n);
  char x[G_ASCII_DTOSTR_BUF_SIZE], y[G_ASCII_DTOSTR_BUF_SIZE];
  double cx, cy;

  if (*task_text == '\0' || !ctr_task_parse (task_text, &task, NULL))
    gtk_editable_set_text (GTK_EDITABLE (self->iq_task_row), "disc:5,120");
  for (guint i = 1; i < n; i++)
    if (fabs (ins[i].hu - task.contrast) < fabs (ins[best].hu - task.contrast))
      best = i;
  ctr_phantom_iq_insert_centre (best, radius, &cx, &cy);
  cx = round (cx * 1e6) / 1e6 + 0.0;   /* "-60", not "-60.0000000001" or "7e-15" */
  cy = round (cy * 1e6) / 1e6 + 0.0;
  g_ascii_formatd (x, sizeof x, "%.6g", cx);
  g_ascii_formatd (y, sizeof y, "%.6g", cy);
  {
    g_autofree char *nps = g_strdup_printf ("circle:0,0,%g", 0.4 * radius);
    g_autofree char *insert = g_strdup_printf ("circle:%s,%s,%g", x, y, CTR_IQ_INSERT_RADIUS * radius);
    gtk_editable_set_text (GTK_EDITABLE (self->iq_nps_row), nps);
    gtk_editable_set_text (GTK_EDITABLE (self->iq_insert_row), insert);
  }
}

/* "0.31 ± 0.04 × dose" and the like for one configuration. */
static void
describe (GString *s, const CtrEqualDose *e, gboolean reference)
{
  if (reference)
    g_string_append (s, "reference");
  else if (e->status == CTR_EQUAL_DOSE_REACHED && isfinite (e->dose_se))
    g_string_append_printf (s, "%.3g ± %.2g × dose", e->dose, e->dose_se);
  else if (e->status == CTR_EQUAL_DOSE_REACHED)
    g_string_append_printf (s, "%.3g × dose", e->dose);
  else if (e->status == CTR_EQUAL_DOSE_NOT_REACHED)
    g_string_append_printf (s, "%s (d′ %s the target at every dose studied)", ctr_equal_dose_status_name (e, FALSE),
                            e->above ? "above" : "below");
  else
    g_string_append (s, ctr_equal_dose_status_name (e, FALSE));
}

void
_ctr_study_page_show_equal_dose (CtrStudyPage *self, CtrStudy *study)
{
  const guint m = ctr_study_get_n_methods (study);
  g_autofree CtrEqualDose *npw = g_new0 (CtrEqualDose, MAX (m, 1));
  g_autofree CtrEqualDose *npwe = g_new0 (CtrEqualDose, MAX (m, 1));
  g_autoptr(GString) s = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  guint reference = 0;

  gtk_widget_set_visible (GTK_WIDGET (self->equal_dose_label), FALSE);
  if (!ctr_study_has_iq_task (study) || ctr_study_get_realisations (study) < 2 || m == 0)
    return;
  if (!ctr_study_get_reference (study, &reference, &error) ||
      !ctr_study_equal_dose (study, CTR_EQUAL_DOSE_NPW, npw, &error) ||
      !ctr_study_equal_dose (study, CTR_EQUAL_DOSE_NPWE, npwe, &error))
    {
      g_string_printf (s, "Equal-d′ dose: %s", error->message);
      gtk_label_set_text (self->equal_dose_label, s->str);
      gtk_widget_set_visible (GTK_WIDGET (self->equal_dose_label), TRUE);
      return;
    }
  g_string_append_printf (s, "Equal-d′ dose (where d′ reaches %s's at full dose: NPW %.3g, NPWE %.3g; ± the "
                          "standard error over %u realisations):",
                          ctr_study_get_method_label (study, reference), npw[reference].target,
                          npwe[reference].target, ctr_study_get_realisations (study));
  for (guint i = 0; i < m; i++)
    {
      g_string_append_printf (s, "\n%s — NPW ", ctr_study_get_method_label (study, i));
      describe (s, &npw[i], i == reference);
      g_string_append (s, ", NPWE ");
      describe (s, &npwe[i], i == reference);
    }
  gtk_label_set_text (self->equal_dose_label, s->str);
  gtk_widget_set_visible (GTK_WIDGET (self->equal_dose_label), TRUE);
}
