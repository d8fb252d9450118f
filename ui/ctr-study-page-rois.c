/* ctr-study-page-rois.c — the Dose study's ROIs taken from those drawn on
 * the image (the window's CtrRoiSet): study.use-drawn-rois fills the
 * page's three ROI rows with the drawn regions, written exactly (each
 * number with the fewest digits that read back to the same double), so
 * the study measures the same pixels as the Run page's ROI table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-study-page"

#include "ctr-study-page-private.h"

/* @v in the fewest significant digits (6 to 17) that read back as @v, in
 * the C locale (transfer full). */
static char *
exact_number (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  for (int digits = 6; digits <= 17; digits++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  return g_strdup (buf);
}

/* "circle:X,Y,R" or "rect:X,Y,W,H" (ctr_roi_parse's form; transfer full). */
static char *
roi_text (const CtrRoi *roi)
{
  g_autofree char *x = exact_number (roi->x_mm);
  g_autofree char *y = exact_number (roi->y_mm);

  if (roi->shape == CTR_ROI_CIRCLE)
    {
      g_autofree char *r = exact_number (roi->radius_mm);
      return g_strdup_printf ("circle:%s,%s,%s", x, y, r);
    }
  else
    {
      g_autofree char *w = exact_number (roi->width_mm);
      g_autofree char *h = exact_number (roi->height_mm);
      return g_strdup_printf ("rect:%s,%s,%s,%s", x, y, w, h);
    }
}

/* Sets @row to the ROI at @position of @set, or empties it (-1). */
static void
set_row (AdwEntryRow *row, CtrRoiSet *set, int position)
{
  g_autoptr(CtrRoiItem) item = NULL;
  g_autofree char *text = NULL;

  if (position >= 0)
    item = g_list_model_get_item (G_LIST_MODEL (set), (guint) position);
  if (item != NULL)
    text = roi_text (ctr_roi_item_get_roi (item));
  gtk_editable_set_text (GTK_EDITABLE (row), text != NULL ? text : "");
}

/* The first ROI of @set other than @not (-1: none). */
static int
first_other (CtrRoiSet *set, int not)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (set));

  for (guint i = 0; i < n; i++)
    if ((int) i != not)
      return (int) i;
  return -1;
}

static const char *
name_at (CtrRoiSet *set, int position)
{
  g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (set), (guint) position);
  return ctr_roi_item_get_name (item);   /* the set keeps the item */
}

void
_ctr_study_page_use_drawn_rois_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  CtrStudyPage *self = CTR_STUDY_PAGE (widget);
  CtrRoiSet *set = self->roi_set;
  int marked, measured, background, selected;
  g_autofree char *status = NULL;

  if (set == NULL || g_list_model_get_n_items (G_LIST_MODEL (set)) == 0)
    return;
  /* measured: the ROI picked on the image unless it is the background,
   * else the first that is not the background; background (and noise, a
   * uniform region): the one marked as background, else another ROI */
  marked = ctr_roi_set_get_background (set);
  selected = ctr_roi_set_get_selected (set);
  measured = selected >= 0 && selected != marked ? selected : first_other (set, marked);
  background = marked >= 0 ? marked : first_other (set, measured);
  set_row (self->measure_roi_row, set, measured);
  set_row (self->background_roi_row, set, background);
  set_row (self->noise_roi_row, set, background);
  if (measured >= 0 && background >= 0)
    status = g_strdup_printf ("Drawn ROIs used: %s measured, %s as background and noise.", name_at (set, measured),
                              name_at (set, background));
  else if (measured >= 0)
    status = g_strdup_printf ("Drawn ROI used: %s measured; draw a second ROI for the background and noise.",
                              name_at (set, measured));
  else
    status = g_strdup_printf ("Drawn ROI used: %s as background and noise; draw a second ROI to measure.",
                              name_at (set, background));
  _ctr_study_page_set_status (self, status, FALSE);
}

void
_ctr_study_page_update_rois_action (CtrStudyPage *self)
{
  gboolean drawn = self->roi_set != NULL && g_list_model_get_n_items (G_LIST_MODEL (self->roi_set)) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "study.use-drawn-rois", drawn && !self->running);
}

void
ctr_study_page_set_roi_set (CtrStudyPage *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_STUDY_PAGE (self));
  g_return_if_fail (set == NULL || CTR_IS_ROI_SET (set));

  if (self->roi_set == set)
    return;
  if (self->roi_set != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->roi_set, self);
      g_clear_object (&self->roi_set);
    }
  if (set != NULL)
    {
      self->roi_set = g_object_ref (set);
      g_signal_connect_object (set, "items-changed", G_CALLBACK (_ctr_study_page_update_rois_action), self,
                               G_CONNECT_SWAPPED);
    }
  _ctr_study_page_update_rois_action (self);
}
