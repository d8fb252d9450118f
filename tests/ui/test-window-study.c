/* test-window-study.c — /ui/window/study: the defects a low-dose study
 * meets in the window (issue 15, "Defects seen"), each checked on the real
 * window: runs labelled by what distinguishes them (legend, Compare,
 * Profile, CSV), "Preparing…" saying what, progress and the latest numbers
 * pinned in view, Hounsfield presets applied everywhere ("Custom" after a
 * drag), the pointer read-out clear of the window label, log-axis ticks,
 * Recent holding datasets only, save choosers in a writable folder, "1 DICOM
 * slice"; screenshot ui-hu.png.  /ui/window/no-reference: a dataset
 * without a reference gives the image the space (ui-no-reference.png).
 * /ui/window/open-tiff: a bare TIFF opens the geometry editor; a truncated
 * one is refused in words (ui-open-tiff.png).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (with a reference; gel-fan), CTR_UI_NOREF (a
 * geometry.json without a reference), CTR_UI_TIFF (CTR_UI_DATASET's
 * projections TIFF), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-geometry-panel.h"
#include "ctr-hu-preset.h"
#include "ctr-plot-draw.h"
#include "ctr-profile-page.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

static CtrRunPage *
run_page_of (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

/* Reconstructs with the method panel as it is. */
static CtrRun *
reconstruct (CtrWindow *w)
{
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 240, "a run");
  return ctr_session_get_latest_result (ctr_window_get_session (w));
}

/* ---- labels ----------------------------------------------------------------- */

/* (transfer none): the session keeps it */
static CtrRun *
run_at_results (GListModel *results, guint i)
{
  g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
  return run;
}

static gboolean
all_distinct (GPtrArray *labels)
{
  for (guint i = 0; i < labels->len; i++)
    for (guint j = i + 1; j < labels->len; j++)
      if (g_strcmp0 (labels->pdata[i], labels->pdata[j]) == 0)
        return FALSE;
  return labels->len >= 2;
}

/* A Compare tile's caption is the run's label, then its figures
 * (" · RMSE … · SSIM …") when it has a reference. */
static gboolean
caption_names (const char *caption, const char *label)
{
  return caption != NULL && g_str_has_prefix (caption, label) &&
         (caption[strlen (label)] == '\0' || g_str_has_prefix (caption + strlen (label), " · RMSE "));
}

static char *first_progress_text;

static void
on_progress_text (CtrSession *session, GParamSpec *pspec, gpointer data)
{
  if (first_progress_text == NULL)
    first_progress_text = g_strdup (ctr_session_get_progress_text (session));
}

static void
study_runs (CtrWindow *w)
{
  CtrSession *session = ctr_window_get_session (w);
  CtrMethodPanel *mp = ctr_run_page_get_method_panel (run_page_of (w));
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  GListModel *results = ctr_session_get_results (session);

  /* SIRT, then two FBPs that differ only in their window */
  g_signal_connect (session, "notify::progress-text", G_CALLBACK (on_progress_text), NULL);
  ui_run_method (w, CTR_METHOD_SIRT, "iterations", 3);
  g_signal_handlers_disconnect_by_func (session, on_progress_text, NULL);
  CHECK (first_progress_text && g_str_has_prefix (first_progress_text, "Preparing SIRT: ") &&
             strstr (first_progress_text, "matrix") != NULL,
         "before the first iteration the progress says what is prepared: “%s”",
         first_progress_text ? first_progress_text : "");
  g_clear_pointer (&first_progress_text, g_free);
  ui_run_method (w, CTR_METHOD_FBP, "window", CTR_FILTER_HANN);
  ctr_method_panel_set_param (mp, "window", CTR_FILTER_HAMMING, NULL);
  ctr_method_panel_set_param (mp, "cutoff", 0.8, NULL);
  reconstruct (w);
  CHECK (g_list_model_get_n_items (results) == 4, "four results (FBP, SIRT, FBP Hann, FBP Hamming 0.8)");
  for (guint i = 1; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      g_ptr_array_add (labels, (gpointer) ctr_run_get_label (run));
      ui_note ("run label: %s", ctr_run_get_label (run));
    }
  CHECK (all_distinct (labels) && strstr (labels->pdata[1], "Hann") && strstr (labels->pdata[2], "Hamming") &&
             strstr (labels->pdata[2], "cut-off 0.8") && strstr (labels->pdata[0], "3 it"),
         "the runs' labels name what distinguishes them (window, cut-off, iterations)");

  /* the same labels on Compare (tile captions) */
  {
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    GtkWidget *grid = ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid");
    g_autoptr(GPtrArray) tiles = ui_find_all (grid, CTR_TYPE_SLICE_VIEW);
    guint found = 0;

    for (guint t = 0; t < tiles->len; t++)
      {
        g_autofree char *caption = NULL;
        g_object_get (tiles->pdata[t], "caption", &caption, NULL);
        for (guint i = 0; i < labels->len; i++)
          found += caption_names (caption, labels->pdata[i]);
      }
    CHECK (found == labels->len, "Compare captions its tiles with the %u labels (%u found)", labels->len, found);
  }

  /* and in the metrics CSV */
  {
    g_autofree char *csv = ui_out_path ("study-metrics.csv");
    g_autofree char *text = NULL;
    guint found = 0;

    g_unlink (csv);
    if (ui_export (w, "win.export-metrics", csv) && g_file_get_contents (csv, &text, NULL, NULL))
      for (guint i = 0; i < labels->len; i++)
        found += strstr (text, labels->pdata[i]) != NULL;
    CHECK (found == labels->len, "the metrics CSV names the runs by their labels (%u of %u)", found, labels->len);
  }

  /* progress and the latest numbers pinned in view at the window's size */
  {
    CtrRunPage *page = run_page_of (w);
    GtkWidget *bar = ui_child (page, CTR_TYPE_RUN_PAGE, "progress_bar");
    GtkLabel *latest = ui_child (page, CTR_TYPE_RUN_PAGE, "latest_label");
    graphene_rect_t b;
    gboolean inside = gtk_widget_compute_bounds (bar, GTK_WIDGET (w), &b) &&
                      b.origin.y + b.size.height <= gtk_widget_get_height (GTK_WIDGET (w));

    CHECK (gtk_widget_get_ancestor (bar, GTK_TYPE_SCROLLED_WINDOW) == NULL && inside,
           "the progress bar is pinned (not scrolled), inside the %d px high window (bottom at %.0f px)",
           gtk_widget_get_height (GTK_WIDGET (w)), b.origin.y + b.size.height);
    CHECK (gtk_widget_get_ancestor (GTK_WIDGET (latest), GTK_TYPE_SCROLLED_WINDOW) == NULL &&
               strstr (gtk_label_get_label (latest), "RMSE") != NULL,
           "the latest numbers are pinned beside it: “%s”", gtk_label_get_label (latest));
  }

  /* rename run 4 in the runs list, delete run 1 */
  {
    GtkWidget *page = GTK_WIDGET (run_page_of (w));
    GtkWidget *entry = ui_find (page, ADW_TYPE_ENTRY_ROW, "run-4-label");
    GtkWidget *remove = ui_find (page, GTK_TYPE_BUTTON, "run-1-delete");
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    GtkWidget *grid = ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid");
    g_autoptr(CtrRun) fourth = g_list_model_get_item (results, 3);
    guint found = 0;

    CHECK (entry != NULL && remove != NULL, "the Run page lists the runs to rename and delete");
    if (entry != NULL)
      {
        gtk_editable_set_text (GTK_EDITABLE (entry), "  FBP Hamming, soft  ");
        g_signal_emit_by_name (entry, "apply");
      }
    {
      g_autoptr(GPtrArray) tiles = ui_find_all (grid, CTR_TYPE_SLICE_VIEW);
      for (guint t = 0; t < tiles->len; t++)
        {
          g_autofree char *caption = NULL;
          g_object_get (tiles->pdata[t], "caption", &caption, NULL);
          found += caption_names (caption, "FBP Hamming, soft");
        }
    }
    CHECK (g_strcmp0 (ctr_run_get_label (fourth), "FBP Hamming, soft") == 0 && found == 1,
           "run 4 renamed “%s”, its Compare tile too", ctr_run_get_label (fourth));
    if (remove != NULL)
      g_signal_emit_by_name (remove, "clicked");
    ui_spin (100);
    CHECK (g_list_model_get_n_items (ctr_session_get_runs (session)) == 3 && g_list_model_get_n_items (results) == 3 &&
               ctr_run_get_number (run_at_results (results, 0)) == 2,
           "run 1 deleted: %u runs, %u results", g_list_model_get_n_items (ctr_session_get_runs (session)),
           g_list_model_get_n_items (results));
    ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
    CHECK (ctr_run_get_number (ctr_session_get_latest_result (session)) == 5,
           "the next run is number 5 (numbers are not reused): “%s”",
           ctr_run_get_label (ctr_session_get_latest_result (session)));
  }
}

/* ---- Hounsfield presets --------------------------------------------------------- */

static void
study_hu (CtrWindow *w)
{
  CtrRunPage *page = run_page_of (w);
  CtrSliceView *view = ui_child (page, CTR_TYPE_RUN_PAGE, "slice_view");
  GtkDropDown *presets = ui_child (page, CTR_TYPE_RUN_PAGE, "preset_dropdown");
  CtrVolume *v = ctr_slice_view_get_image (view);
  gboolean mm = v != NULL && g_strcmp0 (v->unit, "1/mm") == 0;
  graphene_rect_t readout, label;

  if (!mm)
    {
      ui_note ("skip HU checks: the result is in %s", v && v->unit ? v->unit : "no unit");
      return;
    }
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  gtk_drop_down_set_selected (presets, ctr_hu_preset_find ("brain"));
  {
    g_autofree char *wl = ctr_slice_view_describe_window (view);
    double lo, hi;

    ctr_slice_view_get_window (view, &lo, &hi);
    CHECK (ctr_slice_view_get_hu (view) == CTR_SLICE_HU_VALUES && strstr (wl, "W 80  L 40 HU") &&
               fabs (lo - 0.0192) < 1e-9 && fabs (hi - 0.0192 * 1.08) < 1e-9,
           "Brain: window 0 to 80 HU in 1/mm, the label reads “%s”", wl);
  }
  /* the read-out in HU, above the window label, inside the view */
  ui_spin (100);
  ctr_slice_view_point_at (view, gtk_widget_get_width (GTK_WIDGET (view)) / 2.0,
                           gtk_widget_get_height (GTK_WIDGET (view)) / 2.0);
  {
    g_autofree char *info = NULL;
    g_object_get (view, "pointer-info", &info, NULL);
    CHECK (info && strstr (info, " HU") && strstr (info, " HU") < strstr (info, "1/mm"),
           "the read-out leads with HU: “%s”", info ? info : "");
  }
  ui_screenshot (GTK_WIDGET (w), "ui-hu.png");
  ctr_slice_view_get_overlay_boxes (view, &readout, &label);
  CHECK (readout.size.width > 0 && label.size.width > 0 && !graphene_rect_intersection (&readout, &label, NULL) && readout.origin.x >= 0 &&
             readout.origin.x + readout.size.width <= gtk_widget_get_width (GTK_WIDGET (view)),
         "read-out (%.0f,%.0f %.0f×%.0f) clear of the W/L label (%.0f,%.0f) and inside the view",
         readout.origin.x, readout.origin.y, readout.size.width, readout.size.height, label.origin.x, label.origin.y);

  /* a drag moves the window: the drop-down says Custom, still in HU */
  {
    double lo, hi;
    ctr_slice_view_get_window (view, &lo, &hi);
    ctr_slice_view_set_window (view, lo, hi + 0.3 * (hi - lo));
    g_signal_emit_by_name (view, "window-changed");
    CHECK (gtk_drop_down_get_selected (presets) == (guint) ctr_hu_preset_find ("custom") &&
               ctr_slice_view_get_hu (view) == CTR_SLICE_HU_VALUES,
           "after a drag the preset reads “%s”, values still in HU",
           ctr_hu_preset_label (gtk_drop_down_get_selected (presets)));
  }
  gtk_drop_down_set_selected (presets, ctr_hu_preset_find ("soft-tissue"));

  /* Profile and Compare follow */
  {
    CtrProfilePage *profile = ui_child (w, CTR_TYPE_WINDOW, "profile_page");
    g_autofree char *csv = ui_out_path ("study-profile.csv");
    g_autofree char *text = NULL;

    g_unlink (csv);
    CHECK (ctr_profile_page_get_n_curves (profile) > 0 && ui_export (w, "win.export-profile", csv) &&
               g_file_get_contents (csv, &text, NULL, NULL) && strstr (text, "[HU (μ_water 0.0192 /mm)]"),
           "the profile is in HU under the preset (its CSV header says so)");
  }
  {
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    GtkWidget *grid = ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid");
    g_autoptr(GPtrArray) tiles = ui_find_all (grid, CTR_TYPE_SLICE_VIEW);
    guint n_values = 0, n_diff = 0;

    for (guint t = 0; t < tiles->len; t++)
      {
        n_values += ctr_slice_view_get_hu (tiles->pdata[t]) == CTR_SLICE_HU_VALUES;
        n_diff += ctr_slice_view_get_hu (tiles->pdata[t]) == CTR_SLICE_HU_DIFFERENCE;
      }
    CHECK (tiles->len >= 3 && n_values == tiles->len - 1 && n_diff == 1,
           "Compare: %u image tiles in HU, %u difference in HU", n_values, n_diff);

    /* the read-out of the left tile, near its left edge: inside the tile */
    adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
    ui_spin (200);
    if (tiles->len > 0)
      {
        CtrSliceView *tile = tiles->pdata[0];
        ctr_slice_view_point_at (tile, gtk_widget_get_width (tiles->pdata[0]) * 0.3,
                                 gtk_widget_get_height (tiles->pdata[0]) / 2.0);
        ui_screenshot (GTK_WIDGET (w), "ui-compare-hu.png");
        ctr_slice_view_get_overlay_boxes (tile, &readout, &label);
        CHECK (readout.size.width > 0 && readout.origin.x >= 0 &&
                   readout.origin.x + readout.size.width <= gtk_widget_get_width (GTK_WIDGET (tile)) &&
                   !graphene_rect_intersection (&readout, &label, NULL),
               "Compare: the read-out lies inside its %d px tile (%.0f to %.0f), clear of the W/L label",
               gtk_widget_get_width (GTK_WIDGET (tile)), readout.origin.x, readout.origin.x + readout.size.width);
      }
  }
  gtk_drop_down_set_selected (presets, 0);
  CHECK (ctr_slice_view_get_hu (view) == CTR_SLICE_HU_OFF, "Automatic returns to 1/mm");

  /* an image per pixel (unknown pixel size): said so, not "1 mm" */
  {
    CtrGrid g = ctr_grid_default (ctr_session_get_dataset (ctr_window_get_session (w))->geometry, 64, 1.0);
    g_autoptr(CtrVolume) px = NULL;
    CtrSliceView *lone = CTR_SLICE_VIEW (g_object_ref_sink (ctr_slice_view_new ()));
    g_autofree char *text = NULL;

    g.nz = 1;
    px = ctr_volume_new (&g, NULL);
    ctr_volume_set_unit (px, "1/pixel");
    ctr_slice_view_set_image (lone, px, 0);
    text = ctr_slice_view_describe_window (lone);
    CHECK (strstr (text, "pixel size unknown") && !strstr (text, " mm"), "an image per pixel: “%s”", text);
    CHECK (!ctr_slice_view_apply_preset (lone, "brain"), "… and refuses Hounsfield presets");
    g_object_unref (lone);
  }
}

/* ---- plots, recent files, choosers, exports -------------------------------------- */

static void
study_log_ticks (void)
{
  /* (lo, hi) in decades: within one decade, one decade, six decades */
  static const double ranges[][2] = { { -1.68, -1.54 }, { -1.7, -1.4 }, { -3.1, -2.05 }, { -6.2, 0.1 } };

  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    {
      double values[256];
      gboolean labelled[256];
      guint n = ctr_plot_log_ticks (ranges[r][0], ranges[r][1], values, labelled, 256), n_labelled = 0;
      guint worst = G_MAXUINT;

      for (guint i = 0; i < n; i++)
        n_labelled += labelled[i];
      /* every whole decade inside the range holds three ticks or more */
      for (int e = (int) ceil (ranges[r][0]); e + 1 <= ranges[r][1]; e++)
        {
          guint in = 0;
          for (guint i = 0; i < n; i++)
            in += values[i] >= pow (10, e) * (1 - 1e-9) && values[i] < pow (10, e + 1) * (1 - 1e-9);
          worst = MIN (worst, in);
        }
      CHECK (n_labelled >= 3 && (worst == G_MAXUINT || worst >= 3),
             "log axis 10^%.2f to 10^%.2f: %u ticks, %u labelled, fewest in a whole decade %d", ranges[r][0],
             ranges[r][1], n, n_labelled, worst == G_MAXUINT ? -1 : (int) worst);
    }
}

static void
recent_labels (GMenuModel *model, GPtrArray *out)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      char *label = NULL;
      if (section != NULL)
        recent_labels (section, out);
      else if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        g_ptr_array_add (out, label);
    }
}

/* The folder the next save chooser of @action starts in (cancelled). */
static char *
chooser_folder (CtrWindow *w, const char *action)
{
  GtkWidget *dialog;
  g_autoptr(GFile) folder = NULL;

  gtk_widget_activate_action (GTK_WIDGET (w), action, NULL);
  dialog = ui_wait_toplevel (GTK_WINDOW (w), GTK_TYPE_FILE_CHOOSER_DIALOG, 10);
  if (dialog == NULL)
    return NULL;
  ui_spin (300);
  folder = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (dialog));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  ui_spin (300);
  return folder ? g_file_get_path (folder) : NULL;
}

static const char *
toast_title (CtrWindow *w)
{
  GType toast_type = g_type_from_name ("AdwToastWidget");
  GtkWidget *widget = toast_type ? ui_find (GTK_WIDGET (w), toast_type, NULL) : NULL;
  g_autoptr(AdwToast) toast = NULL;

  if (widget == NULL)
    return NULL;
  g_object_get (widget, "toast", &toast, NULL);
  return toast ? adw_toast_get_title (toast) : NULL;
}

static gboolean
dicom_toast_shown (gpointer data)
{
  const char *t = toast_title (data);
  return t != NULL && g_str_has_prefix (t, "Exported");
}

/* Writable and meant to be written to (root may write into dr-xr-xr-x). */
static gboolean
writable (const char *dir)
{
  GStatBuf st;
  return dir != NULL && g_stat (dir, &st) == 0 && (st.st_mode & 0222) != 0 && access (dir, W_OK) == 0;
}

/* Before anything was saved: the first save chooser. */
static void
study_first_chooser (CtrWindow *w, const char *dataset)
{
  g_autofree char *data_dir = g_path_get_dirname (dataset);
  g_autofree char *first = chooser_folder (w, "win.export-png");
  g_autofree char *csv = ui_out_path ("study-metrics-2.csv");
  g_autofree char *next = NULL;

  CHECK (writable (first) && (writable (data_dir) || g_strcmp0 (first, data_dir) != 0),
         "the first save chooser starts in a writable folder: %s (dataset folder %s)", first ? first : "none",
         writable (data_dir) ? "writable" : "read-only");
  g_unlink (csv);
  ui_export (w, "win.export-metrics", csv);
  next = chooser_folder (w, "win.export-volume");
  CHECK (g_strcmp0 (next, ui_out_dir ()) == 0, "the next one starts where the last export went: %s",
         next ? next : "none");
}

static void
study_files (CtrWindow *w)
{
  /* Recent: datasets only, after CSV exports */
  {
    AdwSplitButton *open = ui_child (w, CTR_TYPE_WINDOW, "open_button");
    g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
    guint datasets = 0, others = 0;

    ui_spin (300);
    recent_labels (adw_split_button_get_menu_model (open), labels);
    for (guint i = 0; i < labels->len; i++)
      {
        const char *l = labels->pdata[i];
        /* what this case saved and exported: CSV, PNG, the DICOM folder */
        if (g_str_has_suffix (l, ".csv") || g_str_has_suffix (l, ".png") || g_str_has_suffix (l, "/study-dicom"))
          others++;
        else
          datasets++;
      }
    CHECK (datasets >= 1 && others == 0, "Open › Recent lists %u dataset(s) and no exported file (%u)", datasets,
           others);
  }

  /* one slice exported: "1 DICOM slice" */
  {
    g_autofree char *folder = ui_out_path ("study-dicom");
    CtrRun *run = ctr_session_get_latest_result (ctr_window_get_session (w));
    guint nz = run ? ctr_run_get_result (run)->grid.nz : 0;

    g_mkdir_with_parents (folder, 0755);
    {
      g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *f = g_build_filename (folder, name, NULL);
          g_unlink (f);
        }
    }
    if (nz == 1 && ui_export (w, "win.export-dicom", folder))
      {
        ui_wait (dicom_toast_shown, w, 60, "the DICOM export's message");
        CHECK (g_str_has_prefix (toast_title (w), "Exported 1 DICOM slice to "), "“%s”", toast_title (w));
      }
    else
      ui_note ("skip the DICOM grammar check: %u slices", nz);
  }
}

void
test_window_study (void)
{
  const char *dataset = g_getenv ("CTR_UI_DATASET");
  CtrWindow *w;

  study_log_ticks ();
  if (dataset == NULL || !g_file_test (dataset, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  if (ctr_session_get_dataset (ctr_window_get_session (w)) != NULL)
    {
      ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
      study_first_chooser (w, dataset);
      study_runs (w);
      ui_study_compare (w);
      study_hu (w);
      study_files (w);
    }
  ui_close_window (w);
}

/* ---- /ui/window/no-reference --------------------------------------------------- */

void
test_window_no_reference (void)
{
  const char *dataset = g_getenv ("CTR_UI_NOREF");
  CtrWindow *w;
  GtkPaned *paned;

  if (dataset == NULL || !g_file_test (dataset, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset without a reference ($CTR_UI_NOREF)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "a dataset without a reference loaded");
  paned = ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "content_paned");
  ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  CHECK (!gtk_widget_get_visible (gtk_paned_get_end_child (paned)),
         "FBP without a reference: no empty convergence column, the image takes the space");
  ui_screenshot (GTK_WIDGET (w), "ui-no-reference.png");
  ui_run_method (w, CTR_METHOD_SIRT, "iterations", 3);
  CHECK (gtk_widget_get_visible (gtk_paned_get_end_child (paned)), "SIRT reports a residual: the plot comes back");
  ui_close_window (w);
}

/* ---- /ui/window/open-tiff --------------------------------------------------- */

static GtkWidget *
error_dialog_shown (CtrWindow *w, double timeout_s)
{
  return ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, timeout_s);
}

static void
set_field (CtrGeometryPanel *gp, const char *field, double value)
{
  g_autofree char *text = g_strdup_printf ("%.10g", value);
  ctr_geometry_panel_set_text (gp, field, text);
}

/* A bare TIFF (the dataset's sinogram, $CTR_UI_TIFF) opens the geometry
 * editor with the missing fields in red; typed in from the dataset's
 * geometry.json it reconstructs and saves a geometry.json that loads; a
 * truncated copy is refused in words. */
void
test_window_open_tiff (void)
{
  const char *tiff = g_getenv ("CTR_UI_TIFF");
  const char *dataset = g_getenv ("CTR_UI_DATASET");
  g_autoptr(CtrDataset) truth = NULL;
  CtrGeometryPanel *gp;
  CtrWindow *w;

  if (tiff == NULL || dataset == NULL || !g_file_test (tiff, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no TIFF ($CTR_UI_TIFF)");
      return;
    }
  truth = ctr_dataset_load (dataset, NULL, NULL, NULL);
  g_assert_nonnull (truth);
  w = ui_new_window ();
  gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  CHECK (ui_open_and_wait (w, tiff, 120) && error_dialog_shown (w, 0.5) == NULL,
         "the bare TIFF %s opens (no “not valid JSON”)", tiff);
  CHECK (g_strcmp0 (adw_view_stack_get_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack")), "geometry") == 0,
         "… on the Geometry page");
  CHECK (!ctr_geometry_panel_is_valid (gp) && *ctr_geometry_panel_get_reason (gp, "sod") &&
             *ctr_geometry_panel_get_reason (gp, "pitch-u") && !ui_button_enabled (w, "reconstruct_button"),
         "SOD (“%s”) and pitch (“%s”) are asked for; Reconstruct waits for them",
         ctr_geometry_panel_get_reason (gp, "sod"), ctr_geometry_panel_get_reason (gp, "pitch-u"));

  /* typed in from the dataset's own geometry.json */
  {
    const CtrGeometry *t = truth->geometry;
    set_field (gp, "sod", t->sod_mm);
    set_field (gp, "sdd", t->sdd_mm);
    set_field (gp, "pitch-u", t->pitch_u);
    set_field (gp, "offset-u", t->offset_u);
    set_field (gp, "angle-start", t->angles[0] * 180 / G_PI);
    set_field (gp, "angle-step", (t->angles[1] - t->angles[0]) * 180 / G_PI);
  }
  CHECK (ctr_geometry_panel_is_valid (gp) && ui_button_enabled (w, "reconstruct_button"),
         "with SOD, SDD, pitch and angles typed the geometry is valid");
  ctr_geometry_panel_set_view (gp, 9);
  ui_screenshot (GTK_WIDGET (w), "ui-open-tiff.png");
  {
    const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);
    double worst = 0;
    for (guint k = 0; g != NULL && k < g->n_views && k < truth->geometry->n_views; k++)
      worst = MAX (worst, fabs (g->angles[k] - truth->geometry->angles[k]));
    CHECK (g != NULL && g->n_views == truth->geometry->n_views && g->n_cols == truth->geometry->n_cols &&
               worst < 1e-6,
           "the typed geometry matches the dataset's (%u views, angles within %.1e rad)", g ? g->n_views : 0, worst);
  }
  {
    CtrMethodPanel *mp = ctr_run_page_get_method_panel (run_page_of (w));
    CtrRun *run;
    ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
    run = reconstruct (w);
    CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "FBP of the TIFF finished");
  }
  {
    g_autofree char *json = ui_out_path ("geometry-from-tiff.json");
    g_autoptr(GError) error = NULL;
    g_autoptr(CtrDataset) back = NULL;

    g_unlink (json);
    CHECK (ui_export (w, "win.save-geometry", json), "Save Geometry writes %s", json);
    back = ctr_dataset_load (json, NULL, NULL, &error);
    CHECK (back != NULL && back->projections->n_views == truth->projections->n_views &&
               fabs (back->geometry->sod_mm - truth->geometry->sod_mm) < 1e-6 &&
               memcmp (back->projections->data, truth->projections->data,
                       (gsize) truth->projections->n_views * truth->projections->n_rows *
                         truth->projections->n_cols * sizeof (float)) == 0,
           "… which loads the same projections and geometry%s%s", error ? ": " : "", error ? error->message : "");
  }

  /* a geometry.json with two bad fields: both listed, Edit Geometry opens
   * the data with them marked */
  {
    g_autofree char *bad = ui_out_path ("geometry-bad.json");
    g_autoptr(CtrGeometry) g = ctr_geometry_copy (truth->geometry);
    g_autoptr(GError) error = NULL;
    GtkWidget *dialog;

    g_unlink (bad);
    ctr_geometry_json_write (g, NULL, dataset, bad, &error);
    g_assert_no_error (error);
    {
      /* SDD below SOD and a negative pitch, written over the valid file */
      g_autofree char *text = NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;
      g_assert_true (json_parser_load_from_file (parser, bad, NULL));
      o = json_node_get_object (json_parser_get_root (parser));
      json_object_set_double_member (o, "source_to_detector_mm", g->sod_mm * 0.5);
      json_object_set_double_member (o, "detector_pitch_u_mm", -0.4);
      g_assert_true (ctr_json_object_write (o, bad, NULL));
    }
    ui_open_and_wait (w, bad, 60);
    dialog = error_dialog_shown (w, 10);
    {
      const char *body = dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "";
      CHECK (dialog != NULL && strstr (body, "source to detector") && strstr (body, "column pitch") &&
                 adw_message_dialog_has_response (ADW_MESSAGE_DIALOG (dialog), "edit"),
             "a bad geometry.json: every bad field listed, with Edit Geometry: “%s”", body);
    }
    if (dialog != NULL)
      {
        ui_screenshot (dialog, "ui-geometry-problems.png");
        /* what a click on the button does: the response, then the dialog closes */
        adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "edit");
        gtk_window_destroy (GTK_WINDOW (dialog));
        ui_spin (200);
        ui_wait_idle (w, 60, "the draft");
        ui_spin (200);
        CHECK (ctr_session_get_dataset (ctr_window_get_session (w)) != NULL &&
                   ctr_session_get_dataset (ctr_window_get_session (w))->geometry_missing &&
                   *ctr_geometry_panel_get_reason (gp, "sdd") && *ctr_geometry_panel_get_reason (gp, "pitch-u") &&
                   !ui_button_enabled (w, "reconstruct_button"),
               "Edit Geometry: the data open with SDD (“%s”) and pitch (“%s”) marked",
               ctr_geometry_panel_get_reason (gp, "sdd"), ctr_geometry_panel_get_reason (gp, "pitch-u"));
        ui_screenshot (GTK_WIDGET (w), "ui-edit-geometry.png");
      }
  }

  /* a truncated copy: said in words */
  {
    g_autofree char *cut = ui_out_path ("truncated.tif");
    g_autofree char *bytes = NULL;
    gsize len = 0;
    GtkWidget *dialog;

    g_file_get_contents (tiff, &bytes, &len, NULL);
    g_file_set_contents (cut, bytes, len / 2, NULL);
    ui_open_and_wait (w, cut, 60);
    dialog = error_dialog_shown (w, 10);
    CHECK (dialog != NULL && strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "truncated") &&
               !strstr (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)), "4294967295"),
           "a truncated TIFF: “%s”", dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "no dialog");
    if (dialog != NULL)
      gtk_window_destroy (GTK_WINDOW (dialog));
  }
  ui_close_window (w);
}

/* ---- /ui/window/hig ------------------------------------------------------------ */

static gboolean
menu_has_action (GMenuModel *model, const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autofree char *a = NULL;
      if (section != NULL && menu_has_action (section, action))
        return TRUE;
      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &a) && g_str_equal (a, action))
        return TRUE;
    }
  return FALSE;
}

/* @action opens a window of @type (saved as @shot, nullable); it is closed
 * again. */
static gboolean
opens (CtrWindow *w, const char *action, GType type, const char *shot)
{
  GtkWidget *shown;

  if (g_str_has_prefix (action, "app."))
    g_action_group_activate_action (G_ACTION_GROUP (gtk_window_get_application (GTK_WINDOW (w))), action + 4, NULL);
  else
    gtk_widget_activate_action (GTK_WIDGET (w), action, NULL);
  shown = ui_wait_toplevel (NULL, type, 10);
  if (shown == NULL)
    return FALSE;
  if (shot != NULL)
    ui_screenshot (shown, shot);
  gtk_window_destroy (GTK_WINDOW (shown));
  ui_spin (100);
  return TRUE;
}

/* The primary menu (Preferences, Keyboard Shortcuts, About) and the empty
 * state before a dataset is open. */
void
test_window_hig (void)
{
  CtrWindow *w = ui_new_window ();
  GtkStack *content = ui_child (w, CTR_TYPE_WINDOW, "content_stack");
  GtkMenuButton *menu = ui_child (w, CTR_TYPE_WINDOW, "primary_menu_button");
  GtkWidget *empty = ui_child (w, CTR_TYPE_WINDOW, "empty_page");
  GtkWidget *open = ui_find (empty, GTK_TYPE_BUTTON, NULL);
  const char *dataset = g_getenv ("CTR_UI_DATASET");

  CHECK (g_strcmp0 (gtk_stack_get_visible_child_name (content), "empty") == 0 && ADW_IS_STATUS_PAGE (empty) &&
             open != NULL && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (open)), "win.open") == 0,
         "before a dataset: an empty state with an Open button");
  ui_screenshot (GTK_WIDGET (w), "ui-empty.png");
  CHECK (gtk_menu_button_get_primary (menu) && menu_has_action (gtk_menu_button_get_menu_model (menu), "app.preferences") &&
             menu_has_action (gtk_menu_button_get_menu_model (menu), "win.show-help-overlay") &&
             menu_has_action (gtk_menu_button_get_menu_model (menu), "app.about"),
         "a primary menu (F10) with Preferences, Keyboard Shortcuts and About");
  CHECK (opens (w, "app.preferences", ADW_TYPE_PREFERENCES_WINDOW, "ui-preferences.png"), "Preferences opens an AdwPreferencesWindow");
  CHECK (opens (w, "win.show-help-overlay", GTK_TYPE_SHORTCUTS_WINDOW, "ui-shortcuts.png"), "Keyboard Shortcuts opens the shortcuts window");
  CHECK (opens (w, "app.about", ADW_TYPE_ABOUT_WINDOW, "ui-about.png"), "About opens an AdwAboutWindow");
  if (dataset != NULL && g_file_test (dataset, G_FILE_TEST_IS_REGULAR))
    CHECK (ui_open_and_wait (w, dataset, 120) && g_strcmp0 (gtk_stack_get_visible_child_name (content), "pages") == 0,
           "a dataset replaces the empty state by the pages");
  ui_close_window (w);
}
