/* ctr-study-page-form.c — the Dose study page's form: the doses typed, the
 * ROIs, the list of method configurations, and the CtrStudy they make
 * (ctr-study-page-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include <math.h>

#include "ctr-study-page-private.h"

void
_ctr_study_page_method_clear (Method *m)
{
  g_free (m->parameters);
}

/* ---- the form ------------------------------------------------------------------ */

/* The dose fractions typed, each in (0, 1]; NULL with the reason. */
static GArray *
parse_doses (const char *text, GError **error)
{
  g_autoptr(GArray) doses = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto(GStrv) parts = g_strsplit_set (text, ",; \t", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      double f;

      if (*parts[i] == '\0')
        continue;
      f = g_ascii_strtod (parts[i], &end);
      if (end == parts[i] || *end != '\0' || !isfinite (f))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "“%s” is not a number: list dose fractions such as 1, 0.5, 0.25", parts[i]);
          return NULL;
        }
      if (!(f > 0 && f <= 1))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "The dose %g cannot be simulated: a fraction of the data's dose must be greater than 0 "
                       "and at most 1",
                       f);
          return NULL;
        }
      g_array_append_val (doses, f);
    }
  if (doses->len == 0)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                           "List at least one dose fraction, such as 1, 0.5, 0.25");
      return NULL;
    }
  return g_steal_pointer (&doses);
}

/* The ROI typed in @row into @s (nothing when empty). */
static gboolean
add_roi (CtrStudy *s, AdwEntryRow *row, const char *name, CtrStudyRoiRole role, GError **error)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));
  CtrRoi roi;

  if (*text == '\0')
    return TRUE;
  if (!ctr_roi_parse (text, &roi, error) || !ctr_study_add_roi (s, name, &roi, role, error))
    {
      g_prefix_error (error, "%s: ", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
      return FALSE;
    }
  return TRUE;
}

/* The study the form describes, or NULL with what is wrong in words. */
CtrStudy *
_ctr_study_page_build_study (CtrStudyPage *self, const CtrDataset *d, int *cnr_roi, GError **error)
{
  g_autoptr(CtrStudy) s = ctr_study_new ();
  g_autoptr(GArray) doses = parse_doses (gtk_editable_get_text (GTK_EDITABLE (self->doses_row)), error);
  CtrDoseOptions dose;
  CtrGrid grid = ctr_dataset_default_grid (d);
  guint size = (guint) gtk_spin_button_get_value_as_int (self->size_spin);

  if (doses == NULL)
    return NULL;
  for (guint i = 0; i < doses->len; i++)
    if (!ctr_study_add_dose (s, g_array_index (doses, double, i), error))
      return NULL;
  if (self->methods->len == 0)
    {
      g_set_error_literal (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                           "Add at least one method: the settings of the method panel (Add Settings), or FBP, "
                           "PART or PWLS");
      return NULL;
    }
  for (guint i = 0; i < self->methods->len; i++)
    {
      const Method *m = &g_array_index (self->methods, Method, i);
      if (!ctr_study_add_method (s, &m->options, m->parameters, error))
        return NULL;
    }
  if (!add_roi (s, self->noise_roi_row, "noise", CTR_STUDY_ROI_NOISE, error) ||
      !add_roi (s, self->background_roi_row, "background", CTR_STUDY_ROI_BACKGROUND, error) ||
      !add_roi (s, self->measure_roi_row, "measured", CTR_STUDY_ROI_MEASURE, error))
    return NULL;
  *cnr_roi = -1;
  for (guint i = 0; i < ctr_study_get_n_rois (s); i++)
    {
      CtrStudyRoiRole role;
      ctr_study_get_roi_name (s, i, &role);
      if (role == CTR_STUDY_ROI_MEASURE && *cnr_roi < 0)
        *cnr_roi = (int) i;
    }
  ctr_dose_options_init (&dose);
  dose.seed = (guint64) gtk_spin_button_get_value (self->seed_spin);
  dose.i0 = gtk_spin_button_get_value (self->i0_spin);
  ctr_study_set_dose_options (s, &dose);
  if (size > 0 && size != grid.nx)
    {
      /* the same field, @size pixels across */
      double extent = grid.nx * grid.dx;
      grid.nx = grid.ny = size;
      grid.dx = grid.dy = extent / size;
    }
  ctr_study_set_grid (s, &grid);
  if (!_ctr_study_page_add_iq (self, s, &grid, error))
    return NULL;
  return g_steal_pointer (&s);
}


/* ---- methods --------------------------------------------------------------------- */

/* "iterations=3;window=hann": the iteration count of an iterative method
 * and every parameter that differs from the method's default, in the
 * parameter table's order (ctr-params.h). */
static char *
describe_parameters (const CtrReconOptions *o)
{
  CtrReconOptions defaults;
  g_autoptr(GString) s = g_string_new (NULL);
  guint n = 0;
  const CtrParam *params = ctr_params_list (&n);

  ctr_recon_options_init (&defaults, o->method);
  for (guint i = 0; i < n; i++)
    {
      const CtrParam *p = &params[i];
      gboolean shown = g_str_equal (p->name, "iterations") && ctr_method_is_iterative (o->method);

      if (!ctr_param_applies (p, o->method))
        continue;
      if (shown || ctr_param_get (p, o) != ctr_param_get (p, &defaults))
        {
          g_autofree char *value = ctr_param_format (p, o);
          g_string_append_printf (s, "%s%s=%s", s->len > 0 ? ";" : "", p->name, value);
        }
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

static void
remove_clicked (GtkButton *button, CtrStudyPage *self)
{
  GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_LIST_BOX_ROW);
  int i = row != NULL ? gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row)) : -1;

  if (i < 0 || (guint) i >= self->methods->len)
    return;
  g_array_remove_index (self->methods, i);
  gtk_list_box_remove (self->methods_list, row);
}

/* Adds @o to the list, refusing a configuration already there. */
static void
add_method (CtrStudyPage *self, const CtrReconOptions *o)
{
  g_autoptr(GError) error = NULL;
  Method m = { *o, describe_parameters (o) };
  g_autofree char *spaced = g_strdelimit (g_strdup (m.parameters), ";", ' ');
  g_autofree char *label = *spaced ? g_strdup_printf ("%s %s", ctr_method_name (o->method), spaced)
                                   : g_strdup (ctr_method_name (o->method));
  GtkWidget *row, *remove;

  if (!ctr_recon_options_validate (o, &error))
    {
      _ctr_study_page_method_clear (&m);
      _ctr_study_page_set_status (self, error->message, TRUE);
      return;
    }
  for (guint i = 0; i < self->methods->len; i++)
    {
      const Method *other = &g_array_index (self->methods, Method, i);
      if (other->options.method == o->method && g_str_equal (other->parameters, m.parameters))
        {
          g_autofree char *text = g_strdup_printf ("“%s” is already in the study", label);
          _ctr_study_page_method_clear (&m);
          _ctr_study_page_set_status (self, text, TRUE);
          return;
        }
    }
  g_array_append_val (self->methods, m);

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), label);
  remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (remove, "Remove from the study");
  gtk_widget_add_css_class (remove, "flat");
  g_signal_connect (remove, "clicked", G_CALLBACK (remove_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), remove);
  gtk_list_box_append (self->methods_list, row);
  {
    g_autofree char *text = g_strdup_printf ("Added “%s”.", label);
    _ctr_study_page_set_status (self, text, FALSE);
  }
}

void
_ctr_study_page_add_current_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  CtrReconOptions o;

  ctr_method_panel_get_options (self->method_panel, &o);
  add_method (self, &o);
}

void
_ctr_study_page_add_preset_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  g_autoptr(GError) error = NULL;
  CtrMethod method;
  CtrReconOptions o;

  if (!ctr_method_from_name (g_variant_get_string (parameter, NULL), &method, &error))
    {
      _ctr_study_page_set_status (self, error->message, TRUE);
      return;
    }
  ctr_recon_options_init (&o, method);
  /* a low-dose comparison's FBP baseline is windowed: Ram-Lak (the
   * method's default) passes the noise at full strength (head-fan-lowdose's
   * best FBP at quarter dose is Hann, README of the data) */
  if (method == CTR_METHOD_FBP)
    o.window = CTR_FILTER_HANN;
  add_method (self, &o);
}

/* ---- the form as data (a session's) -------------------------------------------------- */

static char *
entry_text (AdwEntryRow *row)
{
  return g_strdup (gtk_editable_get_text (GTK_EDITABLE (row)));
}

CtrStudyForm *
ctr_study_page_get_form (CtrStudyPage *self)
{
  CtrStudyForm *form;

  g_return_val_if_fail (CTR_IS_STUDY_PAGE (self), NULL);
  form = ctr_study_form_new ();
  g_free (form->doses);
  form->doses = entry_text (self->doses_row);
  form->i0 = gtk_spin_button_get_value (self->i0_spin);
  form->seed = (guint64) gtk_spin_button_get_value (self->seed_spin);
  form->realisations = (guint) gtk_spin_button_get_value_as_int (self->realisations_spin);
  form->size = (guint) gtk_spin_button_get_value_as_int (self->size_spin);
  for (guint i = 0; i < self->methods->len; i++)
    g_array_append_vals (form->methods, &g_array_index (self->methods, Method, i).options, 1);
  g_free (form->noise_roi);
  form->noise_roi = entry_text (self->noise_roi_row);
  g_free (form->background_roi);
  form->background_roi = entry_text (self->background_roi_row);
  g_free (form->measure_roi);
  form->measure_roi = entry_text (self->measure_roi_row);
  g_free (form->iq_task);
  form->iq_task = entry_text (self->iq_task_row);
  g_free (form->iq_nps);
  form->iq_nps = entry_text (self->iq_nps_row);
  g_free (form->iq_insert);
  form->iq_insert = entry_text (self->iq_insert_row);
  return form;
}

void
ctr_study_page_set_form (CtrStudyPage *self, const CtrStudyForm *form)
{
  g_autofree char *status = NULL;
  GtkWidget *row;

  g_return_if_fail (CTR_IS_STUDY_PAGE (self));
  g_return_if_fail (form != NULL);
  status = g_strdup (self->status);
  gtk_editable_set_text (GTK_EDITABLE (self->doses_row), form->doses);
  /* 0 is "the data's": the dataset's own (stated or estimated) stays */
  if (form->i0 > 0)
    gtk_spin_button_set_value (self->i0_spin, form->i0);
  gtk_spin_button_set_value (self->seed_spin, (double) form->seed);
  gtk_spin_button_set_value (self->realisations_spin, form->realisations);
  if (form->size > 0)
    gtk_spin_button_set_value (self->size_spin, form->size);
  g_array_set_size (self->methods, 0);
  while ((row = gtk_widget_get_first_child (GTK_WIDGET (self->methods_list))) != NULL)
    gtk_list_box_remove (self->methods_list, row);
  for (guint i = 0; i < form->methods->len; i++)
    add_method (self, &g_array_index (form->methods, CtrReconOptions, i));
  gtk_editable_set_text (GTK_EDITABLE (self->noise_roi_row), form->noise_roi);
  gtk_editable_set_text (GTK_EDITABLE (self->background_roi_row), form->background_roi);
  gtk_editable_set_text (GTK_EDITABLE (self->measure_roi_row), form->measure_roi);
  gtk_editable_set_text (GTK_EDITABLE (self->iq_task_row), form->iq_task);
  gtk_editable_set_text (GTK_EDITABLE (self->iq_nps_row), form->iq_nps);
  gtk_editable_set_text (GTK_EDITABLE (self->iq_insert_row), form->iq_insert);
  /* what the status said (a restored table's origin), not "Added …" */
  _ctr_study_page_set_status (self, status, FALSE);
}
