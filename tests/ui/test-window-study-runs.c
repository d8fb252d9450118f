/* test-window-study-runs.c — every Dose Study reconstruction viewable, and
 * the study's results kept in a session (issue 31, item 4 and "Sessions").
 *
 * /ui/window/study-images: a two-dose FBP study (0.5 and 0.25 × the dose,
 *   128 × 128) of the open dataset; each of its reconstructions must then
 *   be a run of that dataset: listed in Runs, offered by Compare's Runs
 *   menu; activating the 0.25 row of the study's table (as a double-click
 *   does) shows that run on Compare beside the reference, and the image
 *   shown measures, against the reference inside the field of view, the
 *   RMSE and SSIM the table states (ctr_quality_compute on the run's
 *   image: the same figures, not a re-run).  Before, the study's images
 *   were dropped once measured: double-click did nothing, Runs and Compare
 *   never saw them.  Screenshot ui-study-images.png (Compare with the
 *   study's run).
 *
 * /ui/window/study-session: the same study, the session saved, the window
 *   closed, the session opened in a new window: the study's table is back
 *   with identical figures (every column, bit for bit), and its rows open
 *   their reconstructions, restored as runs with identical pixels.  The
 *   form the study was set up with (doses, I0, seed, realisations, image
 *   size, the configurations listed, the ROI and d′ task rows; changed
 *   after the run, so the saved form is not the run's) is back as it was
 *   saved, and the study's figure is drawn from the restored table (its
 *   first configuration's line, the palette's blue, in the figure).
 *   Before, the form came back empty and the figure blank.
 *   Screenshots ui-study-session.png (the page with the restored table and
 *   form), ui-study-figure-restored.png (the figure alone).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (a fan-beam geometry.json with a
 * reference), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-session-file.h"
#include "ctr-slice-view.h"
#include "ctr-study-page.h"
#include "ctr-study-row.h"

static const double doses[] = { 0.5, 0.25 };

static gboolean
not_running (gpointer data)
{
  return !ctr_study_page_get_running (data);
}

static gboolean
saved (gpointer data)
{
  return !ctr_session_get_unsaved (ctr_window_get_session (data));
}

/* The finished run whose label names the study's dose @dose; NULL when none
 * (transfer none: the session's list holds it). */
static CtrRun *
study_run (CtrSession *session, double dose)
{
  GListModel *runs = ctr_session_get_runs (session);
  g_autofree char *tag = g_strdup_printf ("study %g × dose", dose);
  CtrRun *found = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      if (strstr (ctr_run_get_label (run), tag) != NULL)
        found = run;
    }
  return found;
}

/* Every field of the Dose Study's form, as the page shows it, in one text. */
static char *
form_text (CtrStudyPage *page)
{
  static const char *const rows[] = { "doses_row", "noise_roi_row", "background_roi_row", "measure_roi_row",
                                      "iq_task_row", "iq_nps_row", "iq_insert_row" };
  static const char *const spins[] = { "i0_spin", "seed_spin", "realisations_spin", "size_spin" };
  GString *s = g_string_new (NULL);
  g_autoptr(GPtrArray) methods = ui_find_all (ui_child (page, CTR_TYPE_STUDY_PAGE, "methods_list"),
                                              ADW_TYPE_ACTION_ROW);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    g_string_append_printf (s, "%s=“%s”; ", rows[i],
                            gtk_editable_get_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, rows[i]))));
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    g_string_append_printf (s, "%s=%.17g; ", spins[i],
                            gtk_spin_button_get_value (ui_child (page, CTR_TYPE_STUDY_PAGE, spins[i])));
  g_string_append_printf (s, "%u methods:", ctr_study_page_get_n_methods (page));
  for (guint i = 0; i < methods->len; i++)
    g_string_append_printf (s, " [%s]", adw_preferences_row_get_title (methods->pdata[i]));
  return g_string_free (s, FALSE);
}

/* A form unlike the one the study ran with: other doses, seed,
 * realisations and image size, ROIs, a d′ task, a second configuration. */
static void
change_form (CtrStudyPage *page)
{
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "doses_row")), "1, 0.5, 0.125");
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "seed_spin"), 4242);
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "realisations_spin"), 3);
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "size_spin"), 96);
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "noise_roi_row")), "rect:20,-5,15,15");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "background_roi_row")), "circle:-20,10,6");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "measure_roi_row")), "circle:-17,-22,4");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_task_row")), "disc:5,120");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_nps_row")), "circle:0,0,20");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_insert_row")), "circle:-30,0,8");
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "pwls");
}

/* Pixels of the study figure's first colour (the palette's blue, 0 114
 * 178) in the PNG @path: its lines and markers. */
static guint
blue_pixels (const char *path)
{
  g_autoptr(GdkPixbuf) pb = gdk_pixbuf_new_from_file (path, NULL);
  guint n = 0;

  if (pb == NULL)
    return 0;
  for (int y = 0; y < gdk_pixbuf_get_height (pb); y++)
    for (int x = 0; x < gdk_pixbuf_get_width (pb); x++)
      {
        const guint8 *p = gdk_pixbuf_get_pixels (pb) + (gsize) y * gdk_pixbuf_get_rowstride (pb) +
                          (gsize) x * gdk_pixbuf_get_n_channels (pb);
        n += p[0] < 40 && abs (p[1] - 114) < 30 && abs (p[2] - 178) < 30;
      }
  return n;
}

/* The row of the study's table at @dose, and its position. */
static CtrStudyRowItem *
study_row (CtrStudyPage *page, double dose, guint *position)
{
  GListModel *rows = ctr_study_page_get_rows (page);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (rows, i);
      if (ctr_study_row_item_get (item)->dose == dose)
        {
          *position = i;
          return item;   /* the page's store keeps it */
        }
    }
  return NULL;
}

/* The run numbers the Compare page's Runs menu offers. */
static GArray *
menu_numbers (CtrComparePage *page)
{
  GtkMenuButton *button = ui_child (page, CTR_TYPE_COMPARE_PAGE, "runs_button");
  GtkPopover *popover = gtk_menu_button_get_popover (button);
  g_autoptr(GPtrArray) checks = popover ? ui_find_all (GTK_WIDGET (popover), GTK_TYPE_CHECK_BUTTON) : NULL;
  GArray *numbers = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; checks != NULL && i < checks->len; i++)
    {
      guint n = GPOINTER_TO_UINT (g_object_get_data (checks->pdata[i], "ctr-run-number"));
      if (n > 0)
        g_array_append_val (numbers, n);
    }
  return numbers;
}

static gboolean
offers (GArray *numbers, guint number)
{
  for (guint i = 0; i < numbers->len; i++)
    if (g_array_index (numbers, guint, i) == number)
      return TRUE;
  return FALSE;
}

/* Compare's tiles showing @run; @caption: the last one's caption. */
static guint
tiles_of (CtrComparePage *page, CtrRun *run, char **caption)
{
  g_autoptr(GPtrArray) tiles = ui_find_all (GTK_WIDGET (page), CTR_TYPE_SLICE_VIEW);
  guint n = 0;

  for (guint i = 0; i < tiles->len; i++)
    if (g_object_get_data (tiles->pdata[i], "ctr-run") == (gpointer) run)
      {
        n++;
        if (caption != NULL)
          {
            g_free (*caption);
            g_object_get (tiles->pdata[i], "caption", caption, NULL);
          }
      }
  return n;
}

/* A two-dose FBP study of the open dataset, 128 × 128; FALSE when it did
 * not give its two rows. */
static gboolean
run_study (CtrWindow *w)
{
  CtrStudyPage *page = ui_child (w, CTR_TYPE_WINDOW, "study_page");

  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "doses_row")), "0.5, 0.25");
  /* a typed I0: no wait for the estimate */
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "i0_spin"), 1e5);
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "size_spin"), 128);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "fbp");
  gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
  CHECK (ctr_study_page_get_running (page), "the study runs: “%s”", ctr_study_page_get_status (page));
  ui_wait (not_running, page, 240, "the study to end");
  CHECK (g_list_model_get_n_items (ctr_study_page_get_rows (page)) == G_N_ELEMENTS (doses),
         "the study's table has %u rows (“%s”)", g_list_model_get_n_items (ctr_study_page_get_rows (page)),
         ctr_study_page_get_status (page));
  return g_list_model_get_n_items (ctr_study_page_get_rows (page)) == G_N_ELEMENTS (doses);
}

/* The row at @dose activated: Compare shows its run, whose image measures
 * the row's figures.  Returns the run (transfer none) or NULL. */
static CtrRun *
open_row (CtrWindow *w, double dose)
{
  CtrSession *session = ctr_window_get_session (w);
  CtrStudyPage *page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
  CtrRun *run = study_run (session, dose);
  guint position = 0;
  CtrStudyRowItem *item = study_row (page, dose, &position);
  const CtrStudyRow *row = item != NULL ? ctr_study_row_item_get (item) : NULL;
  CtrDataset *d = ctr_session_get_dataset (session);
  const char *shown;

  CHECK (run != NULL && row != NULL, "the study's %g × dose has a row and a run (“%s”)", dose,
         run ? ctr_run_get_label (run) : "none");
  if (run == NULL || row == NULL)
    return NULL;
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
  ui_spin (100);
  {
    /* what a double-click or Enter on the row does: the rows' list view
     * activates the item (GtkListBase's list.activate-item) */
    GtkWidget *rows = ui_find (GTK_WIDGET (ui_child (page, CTR_TYPE_STUDY_PAGE, "table")), GTK_TYPE_LIST_VIEW, NULL);
    CHECK (rows != NULL && gtk_widget_activate_action (rows, "list.activate-item", "u", position),
           "the table's row %u activated", position + 1);
  }
  ui_spin (300);
  shown = adw_view_stack_get_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"));
  CHECK (g_strcmp0 (shown, "compare") == 0 && tiles_of (compare, run, NULL) == 1,
         "the row activated shows “%s” on Compare (page “%s”, %u tile(s) of it)", ctr_run_get_label (run), shown,
         tiles_of (compare, run, NULL));
  {
    /* its caption states the table's RMSE, measured in the same disc */
    g_autofree char *caption = NULL;
    g_autofree char *rmse = ctr_study_row_item_format (item, CTR_STUDY_COLUMN_RMSE);
    g_autofree char *in_caption = g_strdup_printf ("(%s /mm)", rmse);

    tiles_of (compare, run, &caption);
    CHECK (caption != NULL && strstr (caption, in_caption) != NULL && strstr (caption, "field-of-view disc") != NULL,
           "its caption states the table's RMSE %s in the field-of-view disc: “%s”", rmse, caption);
  }
  {
    CtrVolume *image = ctr_run_get_result (run);
    const CtrGrid *g = image != NULL ? &image->grid : NULL;
    g_autoptr(CtrVolume) ref = g != NULL && d->reference != NULL
                                 ? ctr_volume_resample (d->reference, g, CTR_RESAMPLE_SLICES, NULL) : NULL;
    CtrQuality q = { 0 };
    gboolean ok = ref != NULL && ctr_quality_compute (image, ref, ctr_geometry_fov_radius_mm (d->geometry), &q, NULL);

    CHECK (ok && g->nx == 128 && q.rmse == row->rmse && q.ssim == row->ssim,
           "its image (%u × %u) measures the table's figures: RMSE %.9g /mm (table %.9g), SSIM %.9g (table %.9g)",
           g ? g->nx : 0, g ? g->ny : 0, q.rmse, row->rmse, q.ssim, row->ssim);
  }
  return run;
}

void
test_window_study_images (void)
{
  const char *path = g_getenv ("CTR_UI_DATASET");
  CtrSession *session;
  CtrComparePage *compare;
  CtrWindow *w;
  guint before;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
  CHECK (ui_open_and_wait (w, path, 120), "%s opened", path);
  before = g_list_model_get_n_items (ctr_session_get_runs (session));
  if (!run_study (w))
    {
      ui_close_window (w);
      return;
    }
  {
    g_autoptr(GArray) offered = NULL;
    guint n_runs = g_list_model_get_n_items (ctr_session_get_runs (session)), of_dataset = 0, in_menu = 0;

    adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
    ui_spin (200);
    offered = menu_numbers (compare);
    for (guint k = 0; k < G_N_ELEMENTS (doses); k++)
      {
        CtrRun *run = study_run (session, doses[k]);
        of_dataset += run != NULL && ctr_run_is_of (run, ctr_session_get_dataset (session)) &&
                      ctr_run_get_state (run) == CTR_RUN_FINISHED && ctr_run_has_image (run);
        in_menu += run != NULL && offers (offered, ctr_run_get_number (run));
        ui_note ("  %s", run != NULL ? ctr_run_get_label (run) : "(no run)");
      }
    CHECK (n_runs == before + G_N_ELEMENTS (doses) && of_dataset == G_N_ELEMENTS (doses),
           "Runs lists the study's %u reconstructions as finished runs of the open dataset (%u runs, %u of them)",
           (guint) G_N_ELEMENTS (doses), n_runs, of_dataset);
    CHECK (in_menu == G_N_ELEMENTS (doses), "Compare's Runs menu offers them (%u of %u; %u offered)", in_menu,
           (guint) G_N_ELEMENTS (doses), offered->len);
  }
  open_row (w, 0.5);
  if (open_row (w, 0.25) != NULL)
    ui_screenshot (GTK_WIDGET (w), "ui-study-images.png");
  ui_close_window (w);
}

/* The figures of a row, every column as the table shows it and as numbers. */
static char *
row_text (CtrStudyRowItem *item)
{
  const CtrStudyRow *r = ctr_study_row_item_get (item);
  GString *s = g_string_new (NULL);

  for (int c = 0; c < CTR_STUDY_N_COLUMNS; c++)
    {
      g_autofree char *cell = ctr_study_row_item_format (item, c);
      g_string_append_printf (s, "%s|", cell);
    }
  g_string_append_printf (s, "%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%u|%u|%.17g|%.17g", r->dose, r->i0, r->rmse,
                          r->psnr, r->ssim, r->hu_rmse, r->noise_sd_hu, r->iterations, r->best_iteration,
                          r->best_rmse, ctr_study_row_item_get_cnr (item));
  return g_string_free (s, FALSE);
}

static gboolean
dataset_back (gpointer data)
{
  CtrSession *s = ctr_window_get_session (data);
  return ctr_session_get_dataset (s) != NULL && !ctr_session_get_busy (s);
}

void
test_window_study_session (void)
{
  const char *path = g_getenv ("CTR_UI_DATASET");
  g_autofree char *session_path = ui_out_path ("ui-study-session" CTR_SESSION_FILE_SUFFIX);
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) images = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_volume_unref);
  g_autofree char *form = NULL;
  CtrStudyPage *page;
  CtrWindow *w;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  {
    /* a session folder left by an earlier run: ours only */
    g_autoptr(GDir) dir = g_dir_open (session_path, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *p = g_build_filename (session_path, name, NULL);
        g_unlink (p);
      }
    g_rmdir (session_path);
  }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, path, 120), "%s opened", path);
  if (!run_study (w))
    {
      ui_close_window (w);
      return;
    }
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  for (guint i = 0; i < g_list_model_get_n_items (ctr_study_page_get_rows (page)); i++)
    {
      g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (ctr_study_page_get_rows (page), i);
      g_ptr_array_add (texts, row_text (item));
    }
  for (guint k = 0; k < G_N_ELEMENTS (doses); k++)
    {
      CtrRun *run = study_run (ctr_window_get_session (w), doses[k]);
      CtrVolume *image = run != NULL ? ctr_run_get_result (run) : NULL;
      g_ptr_array_add (images, image != NULL ? ctr_volume_copy (image) : NULL);
    }
  change_form (page);
  form = form_text (page);
  ui_note ("  the form saved: %s", form);
  CHECK (ui_export (w, "win.save-session", session_path), "Save Session… writes %s", session_path);
  ui_wait (saved, w, 60, "the session saved");
  ui_close_window (w);

  w = ui_new_window ();
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  CHECK (ui_export_from (GTK_WIDGET (w), w, "win.open-session", session_path, session_path),
         "Open Session… answered with %s", session_path);
  ui_wait (dataset_back, w, 120, "the session's runs and dataset");
  {
    GListModel *rows = ctr_study_page_get_rows (page);
    guint n = g_list_model_get_n_items (rows), same = 0;

    for (guint i = 0; i < MIN (n, texts->len); i++)
      {
        g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (rows, i);
        g_autofree char *text = row_text (item);
        same += g_str_equal (text, texts->pdata[i]);
        ui_note ("  row %u: %s", i + 1, text);
      }
    CHECK (n == texts->len && same == n && n > 0,
           "the reopened session's study table has the %u rows with identical figures (%u rows, %u identical)",
           texts->len, n, same);
    CHECK (strstr (ctr_study_page_get_status (page), "from the session") != NULL,
           "the page says where its table came from: “%s”", ctr_study_page_get_status (page));
    adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
    ui_screenshot (GTK_WIDGET (w), "ui-study-session.png");
  }
  {
    g_autofree char *back = form_text (page);
    CHECK (g_str_equal (back, form), "the Dose Study's form is back as saved: “%s”", back);
  }
  {
    g_autofree char *png = ui_out_path ("ui-study-figure-restored.png");
    guint blue;
    ui_screenshot (ui_child (page, CTR_TYPE_STUDY_PAGE, "plot"), "ui-study-figure-restored.png");
    blue = blue_pixels (png);
    CHECK (blue > 30, "the study's figure is drawn from the restored table (%u pixels of its first line's blue)",
           blue);
  }
  for (guint k = 0; k < G_N_ELEMENTS (doses); k++)
    {
      CtrRun *run = open_row (w, doses[k]);
      CtrVolume *image = run != NULL ? ctr_run_get_result (run) : NULL;
      CtrVolume *before = images->pdata[k];
      gboolean same = image != NULL && before != NULL && ctr_grid_equal (&image->grid, &before->grid) &&
                      memcmp (image->data, before->data, ctr_grid_size (&image->grid) * sizeof (float)) == 0;
      CHECK (same, "the %g × dose reconstruction is back with identical pixels", doses[k]);
    }
  ui_close_window (w);
}
