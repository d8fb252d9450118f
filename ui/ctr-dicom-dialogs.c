/* ctr-dicom-dialogs.c — the questions a DICOM folder or file can raise.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which series to read and what the files lack is core's
 * (ctr_dicom_resolve); this module only asks the user.
 */
#define G_LOG_DOMAIN "ctr-dicom-dialogs"

#include <math.h>
#include <string.h>

#include "ctr-dicom-dialogs.h"

/* ---- choosing a series --------------------------------------------------- */

typedef struct {
  GPtrArray            *series;
  GPtrArray            *checks;   /* GtkCheckButton*, one per series */
  CtrDicomSeriesChosen  callback;
  gpointer              user_data;
  GtkWindow            *parent;
} SeriesDialog;

static void
series_dialog_free (gpointer data)
{
  SeriesDialog *d = data;
  g_ptr_array_unref (d->series);
  g_ptr_array_unref (d->checks);
  g_free (d);
}

static void
series_response (AdwMessageDialog *dialog, const char *response, SeriesDialog *d)
{
  char *uid = NULL;

  if (g_str_equal (response, "open"))
    for (guint i = 0; i < d->checks->len; i++)
      if (gtk_check_button_get_active (d->checks->pdata[i]))
        uid = g_strdup (((CtrDicomSeries *) d->series->pdata[i])->series_uid);
  d->callback (d->parent, uid, d->user_data);
}

GtkWidget *
ctr_dicom_series_dialog (GtkWindow *parent, GPtrArray *series, CtrDicomSeriesChosen callback,
                         gpointer user_data)
{
  GtkWidget *dialog = adw_message_dialog_new (parent, "Choose a Series",
                                              "The folder holds several projection series. "
                                              "Which one should be reconstructed?");
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  SeriesDialog *d = g_new0 (SeriesDialog, 1);
  GtkCheckButton *group = NULL;

  d->series = g_ptr_array_ref (series);
  d->checks = g_ptr_array_new ();
  d->callback = callback;
  d->user_data = user_data;
  d->parent = parent;

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  for (guint i = 0; i < series->len; i++)
    {
      const CtrDicomSeries *s = series->pdata[i];
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();
      g_autofree char *title = g_markup_escape_text (s->description ? s->description : s->series_uid, -1);
      const char *report = s->report ? s->report : "";
      g_autofree char *subtitle = NULL;

      /* the report starts with the description the title already shows */
      if (s->description && g_str_has_prefix (report, s->description) &&
          g_str_has_prefix (report + strlen (s->description), ": "))
        report += strlen (s->description) + 2;
      subtitle = g_markup_escape_text (report, -1);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      gtk_widget_set_tooltip_text (row, s->series_uid);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      if (group != NULL)
        gtk_check_button_set_group (GTK_CHECK_BUTTON (check), group);
      else
        group = GTK_CHECK_BUTTON (check);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), i == 0);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      gtk_list_box_append (GTK_LIST_BOX (list), row);
      g_ptr_array_add (d->checks, check);
    }
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 400);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), MIN (series->len * 80, 400));
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), scrolled);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", "_Cancel", "open", "_Open", NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "open", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "open");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "ctr-series-dialog", d, series_dialog_free);
  g_signal_connect (dialog, "response", G_CALLBACK (series_response), d);
  gtk_window_set_default_size (GTK_WINDOW (dialog), 560, -1);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

/* ---- missing XA geometry ------------------------------------------------- */

enum { F_SOD, F_SDD, F_PITCH_U, F_PITCH_V, F_START, F_STEP, N_FIELDS };

static const struct {
  const char      *name;
  const char      *label;
  const char      *unit;
  CtrDicomMissing  flag;
} fields[N_FIELDS] = {
  { "sod", "Source to isocentre", "mm", CTR_DICOM_MISSING_SOD },
  { "sdd", "Source to detector", "mm", CTR_DICOM_MISSING_SDD },
  { "pitch-u", "Detector pixel width", "mm", CTR_DICOM_MISSING_PIXEL_SPACING },
  { "pitch-v", "Detector pixel height", "mm", CTR_DICOM_MISSING_PIXEL_SPACING },
  { "start", "First view angle", "°", CTR_DICOM_MISSING_ANGLES },
  { "step", "Angle step per view", "°", CTR_DICOM_MISSING_ANGLES },
};

typedef struct {
  CtrDicomResolution  *r;
  CtrDicomProjections *p;         /* r->frames */
  GtkEntry            *entry[N_FIELDS];
  GtkLabel            *reason[N_FIELDS];
  double               value[N_FIELDS];
  CtrDicomXaCompleted  callback;
  gpointer             user_data;
  GtkWindow           *parent;
} XaDialog;

static void
xa_dialog_free (gpointer data)
{
  XaDialog *d = data;
  ctr_dicom_resolution_free (d->r);
  g_free (d);
}

/* The reason field @i is invalid, or NULL; fills d->value[i]. */
static const char *
field_reason (XaDialog *d, guint i)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (d->entry[i]));
  char *end = NULL;
  double v;

  while (*text == ' ')
    text++;
  if (*text == '\0')
    return "required";
  v = g_ascii_strtod (text, &end);
  while (end && *end == ' ')
    end++;
  if (end == text || (end && *end != '\0'))
    return "not a number";
  if (!isfinite (v))
    return "not a finite number";
  d->value[i] = v;
  switch (i)
    {
    case F_SOD:
    case F_SDD:
    case F_PITCH_U:
    case F_PITCH_V:
      if (v <= 0)
        return "must be positive";
      break;
    case F_STEP:
      if (v == 0)
        return "must not be 0";
      if (fabs (v) * d->p->geometry->n_views > 360.0 * 1.0001)
        return "the views would turn more than one full circle";
      break;
    default:
      break;
    }
  if (i == F_SDD && d->entry[F_SOD] != NULL && field_reason (d, F_SOD) == NULL && v <= d->value[F_SOD])
    return "must exceed the source to isocentre distance";
  if (i == F_SDD && d->entry[F_SOD] == NULL && v <= d->p->geometry->sod_mm)
    return "must exceed the file's source to isocentre distance";
  if (i == F_SOD && d->entry[F_SDD] == NULL && v >= d->p->geometry->sdd_mm)
    return "must be below the file's source to detector distance";
  return NULL;
}

static gboolean
xa_validate (XaDialog *d, GtkWidget *dialog)
{
  gboolean ok = TRUE;

  for (guint i = 0; i < N_FIELDS; i++)
    if (d->entry[i] != NULL)
      {
        const char *reason = field_reason (d, i);
        /* a field is marked only once the user has typed in it; Load
         * stays disabled until every field is valid */
        gboolean touched = g_object_get_data (G_OBJECT (d->entry[i]), "ctr-touched") != NULL;

        gtk_label_set_text (d->reason[i], reason && touched ? reason : "");
        if (reason != NULL && touched)
          gtk_widget_add_css_class (GTK_WIDGET (d->entry[i]), "error");
        else
          gtk_widget_remove_css_class (GTK_WIDGET (d->entry[i]), "error");
        ok = ok && reason == NULL;
      }
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (dialog), "load", ok);
  return ok;
}

static void
xa_changed (GtkWidget *dialog)
{
  xa_validate (g_object_get_data (G_OBJECT (dialog), "ctr-xa-dialog"), dialog);
}

static void
xa_entry_changed (GtkEditable *entry, GtkWidget *dialog)
{
  g_object_set_data (G_OBJECT (entry), "ctr-touched", GINT_TO_POINTER (1));
  xa_changed (dialog);
}

static void
xa_response (AdwMessageDialog *dialog, const char *response, XaDialog *d)
{
  CtrDicomResolution *r = NULL;

  if (g_str_equal (response, "load") && xa_validate (d, GTK_WIDGET (dialog)))
    {
      g_autoptr(GError) error = NULL;
      double v[N_FIELDS] = { 0 };

      for (guint i = 0; i < N_FIELDS; i++)
        if (d->entry[i] != NULL)
          v[i] = d->value[i];
      if (ctr_dicom_xa_complete (d->p, v[F_SOD], v[F_SDD], v[F_PITCH_U], v[F_PITCH_V],
                                 v[F_START] * G_PI / 180, v[F_STEP] * G_PI / 180, &error))
        {
          r = g_steal_pointer (&d->r);
          d->p = NULL;
        }
      else
        {
          GtkWidget *err = adw_message_dialog_new (d->parent, "Invalid Geometry", error->message);
          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (err), "close", "_Close");
          gtk_window_present (GTK_WINDOW (err));
        }
    }
  d->callback (d->parent, r, d->user_data);
}

GtkWidget *
ctr_dicom_xa_dialog (GtkWindow *parent, CtrDicomResolution *r, CtrDicomXaCompleted callback,
                     gpointer user_data)
{
  CtrDicomProjections *p = r->frames;
  g_autofree char *body = g_strdup_printf ("%s\nThe file does not state the values below; "
                                           "enter them to reconstruct its %u views.",
                                           p->description ? p->description : "X-ray angiography run",
                                           p->geometry->n_views);
  GtkWidget *dialog = adw_message_dialog_new (parent, "Acquisition Geometry", body);
  GtkWidget *grid = gtk_grid_new ();
  XaDialog *d = g_new0 (XaDialog, 1);
  int row = 0;

  d->r = r;
  d->p = p;
  d->callback = callback;
  d->user_data = user_data;
  d->parent = parent;
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  g_object_set_data_full (G_OBJECT (dialog), "ctr-xa-dialog", d, xa_dialog_free);

  for (guint i = 0; i < N_FIELDS; i++)
    {
      GtkWidget *label, *entry, *unit, *reason;

      if (!(p->missing & fields[i].flag))
        continue;
      label = gtk_label_new (fields[i].label);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      entry = gtk_entry_new ();
      gtk_widget_set_name (entry, fields[i].name);
      gtk_entry_set_input_purpose (GTK_ENTRY (entry), GTK_INPUT_PURPOSE_NUMBER);
      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 10);
      unit = gtk_label_new (fields[i].unit);
      gtk_label_set_xalign (GTK_LABEL (unit), 0);
      reason = gtk_label_new ("");
      {
        g_autofree char *name = g_strdup_printf ("%s-reason", fields[i].name);
        gtk_widget_set_name (reason, name);
      }
      gtk_label_set_xalign (GTK_LABEL (reason), 0);
      gtk_widget_add_css_class (reason, "error");
      gtk_widget_add_css_class (reason, "caption");
      gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), entry, 1, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), unit, 2, row, 1, 1);
      gtk_grid_attach (GTK_GRID (grid), reason, 1, row + 1, 2, 1);
      row += 2;
      d->entry[i] = GTK_ENTRY (entry);
      d->reason[i] = GTK_LABEL (reason);
      g_signal_connect (entry, "changed", G_CALLBACK (xa_entry_changed), dialog);
    }
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), grid);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", "_Cancel", "load", "_Load", NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "load", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", G_CALLBACK (xa_response), d);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (dialog), TRUE);
  xa_validate (d, dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}
