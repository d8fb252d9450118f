/* test-window-study-rois.c — the Dose study reuses the ROIs drawn on the
 * image (issue 31, item 4):
 *
 * /ui/window/study-drawn-rois: with no ROI drawn, Use Drawn is disabled;
 *   two ROIs drawn (a circle picked, a rectangle marked as background),
 *   Use Drawn fills the study's Measured row with the circle and its
 *   Background and Noise rows with the rectangle, written so that they
 *   read back to exactly the drawn regions; a one-dose FBP study then
 *   reports the measured ROI's CNR and the noise ROI's SD.  Before, the
 *   study's ROIs could only be typed as text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (a fan-beam geometry.json), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-roi-set.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"
#include "ctr-study-page.h"
#include "ctr-study-row.h"

static gboolean
not_running (gpointer data)
{
  return !ctr_study_page_get_running (data);
}

static gboolean
same_roi (const CtrRoi *a, const CtrRoi *b)
{
  return a->shape == b->shape && a->x_mm == b->x_mm && a->y_mm == b->y_mm &&
         (a->shape == CTR_ROI_CIRCLE ? a->radius_mm == b->radius_mm
                                     : a->width_mm == b->width_mm && a->height_mm == b->height_mm);
}

/* The ROI row @name of @page reads back to exactly @roi. */
static void
check_row (CtrStudyPage *page, const char *name, const CtrRoi *roi, const char *what)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, name)));
  g_autoptr(GError) error = NULL;
  CtrRoi got;
  gboolean ok = ctr_roi_parse (text, &got, &error);

  CHECK (ok && same_roi (&got, roi), "%s: the %s row reads “%s”%s%s", what, name, text, error ? ": " : "",
         error ? error->message : "");
}

void
test_window_study_drawn_rois (void)
{
  const char *path = g_getenv ("CTR_UI_DATASET");
  const CtrRoi circle = ctr_roi_circle (1.23456789, -2.5, 4.1);
  const CtrRoi rect = ctr_roi_rectangle (-5.5, 6.0 / 7.0, 3.3, 2.2);
  CtrStudyPage *page;
  GtkWidget *button;
  CtrRoiSet *set;
  CtrWindow *w;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, path, 120), "%s opened", path);
  set = ctr_slice_view_get_roi_set (ui_child (ui_child (w, CTR_TYPE_WINDOW, "run_page"), CTR_TYPE_RUN_PAGE,
                                              "slice_view"));
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
  button = ui_find (GTK_WIDGET (page), GTK_TYPE_BUTTON, "use_drawn_button");
  CHECK (button != NULL, "the Dose Study page has a Use Drawn button");
  if (button == NULL || set == NULL)
    {
      ui_close_window (w);
      return;
    }
  ui_spin (100);
  CHECK (!gtk_widget_is_sensitive (button), "Use Drawn is disabled while no ROI is drawn");

  ctr_roi_set_add (set, &circle);
  ctr_roi_set_add (set, &rect);
  ctr_roi_set_set_background (set, 1);
  ctr_roi_set_set_selected (set, 0);
  ui_spin (100);
  CHECK (gtk_widget_is_sensitive (button), "Use Drawn is enabled with two ROIs drawn");
  g_signal_emit_by_name (button, "clicked");   /* as a click does */
  check_row (page, "measure_roi_row", &circle, "the picked ROI is measured");
  check_row (page, "background_roi_row", &rect, "the ROI marked as background");
  check_row (page, "noise_roi_row", &rect, "the background ROI gives the noise");
  ui_note ("status: %s", ctr_study_page_get_status (page));

  /* the picked ROI is the background: the other one is measured */
  ctr_roi_set_set_selected (set, 1);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.use-drawn-rois", NULL);
  check_row (page, "measure_roi_row", &circle, "the background picked, the other ROI is measured");
  check_row (page, "background_roi_row", &rect, "the background stays");

  /* a one-dose FBP study measures them */
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "doses_row")), "1");
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "fbp");
  gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
  CHECK (ctr_study_page_get_running (page), "the study runs: “%s”", ctr_study_page_get_status (page));
  ui_wait (not_running, page, 240, "the study to end");
  {
    GListModel *rows = ctr_study_page_get_rows (page);
    g_autoptr(CtrStudyRowItem) item = g_list_model_get_n_items (rows) > 0 ? g_list_model_get_item (rows, 0) : NULL;
    const CtrStudyRow *r = item != NULL ? ctr_study_row_item_get (item) : NULL;
    double cnr = item != NULL ? ctr_study_row_item_get_cnr (item) : NAN;

    CHECK (r != NULL, "the study gave a row (“%s”)", ctr_study_page_get_status (page));
    /* the table shows the measured ROI's CNR against the background and
     * the noise ROI's SD: both need the drawn ROIs */
    CHECK (r != NULL && isfinite (cnr) && isfinite (r->noise_sd_hu) && r->noise_sd_hu > 0,
           "the study measured the drawn ROIs: CNR %.2f, noise SD %.1f HU", cnr, r != NULL ? r->noise_sd_hu : NAN);
  }
  {
    /* the form scrolled to its end, where the ROI rows are */
    GtkScrolledWindow *form = GTK_SCROLLED_WINDOW (ui_find (GTK_WIDGET (page), GTK_TYPE_SCROLLED_WINDOW, NULL));
    GtkAdjustment *a = gtk_scrolled_window_get_vadjustment (form);
    gtk_adjustment_set_value (a, gtk_adjustment_get_upper (a));
  }
  ui_screenshot (GTK_WIDGET (w), "ui-study-drawn-rois.png");
  ui_close_window (w);
}
