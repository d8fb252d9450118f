/* test-window-runs.c — /ui/window/variants: runs stay across datasets and
 * doses (issue 15, "Runs"), on the real window.  A run of gel-fan, then
 * head-fan-lowdose opened: the gel's run stays, grouped under its dataset;
 * the "Projections" row lists the dataset's dose variants; FBP of the
 * quarter dose, then the full dose chosen in the row and FBP again: three
 * groups, the full dose's run labelled so, and its RMSE against the
 * reference below the quarter dose's (more photons, less noise: a
 * property of the data, not of the window); Compare draws full − quarter;
 * Clear empties the list.  Then parallel ART with its defaults: above the
 * noise level on the full dose, below it on the quarter dose, said in the
 * run's line.  Screenshots ui-runs-kept.png (the window),
 * ui-runs-groups.png (the runs list) and ui-runs-noise.png (the quarter
 * dose's parallel ART).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (gel-fan), CTR_UI_BIG (head-fan-lowdose's
 * geometry.json, with "variants"), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-method-panel.h"
#include "ctr-metrics-plot.h"
#include "ctr-plot-draw.h"
#include "ctr-run-page.h"

/* FBP with the Hann window. */
static CtrRun *
fbp (CtrWindow *w)
{
  return ui_run_method (w, CTR_METHOD_FBP, "window", CTR_FILTER_HANN);
}

static double
last_rmse (CtrRun *run)
{
  guint n = run ? ctr_run_get_n_stats (run) : 0;
  return n > 0 ? ctr_run_get_stats (run, n - 1)->rmse : NAN;
}

static guint
n_headers (CtrWindow *w)
{
  GtkWidget *list = ui_child (ui_child (w, CTR_TYPE_WINDOW, "run_page"), CTR_TYPE_RUN_PAGE, "runs_list");
  guint n = 0;

  for (GtkWidget *c = gtk_widget_get_first_child (list); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LIST_BOX_ROW (c) && gtk_list_box_row_get_header (GTK_LIST_BOX_ROW (c)) != NULL)
      n++;
  return n;
}

/* Chooses the dose variant @name in the Projections row as a user would
 * and waits for its projections; FALSE (checked) when it is not listed. */
static gboolean
choose_variant (CtrWindow *w, AdwComboRow *row, const char *name)
{
  GListModel *model = adw_combo_row_get_model (row);
  guint found = GTK_INVALID_LIST_POSITION;

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (model), i), name) == 0)
      found = i;
  CHECK (found != GTK_INVALID_LIST_POSITION, "%s is listed", name);
  if (found == GTK_INVALID_LIST_POSITION)
    return FALSE;
  adw_combo_row_set_selected (row, found);
  ui_spin (50);
  ui_wait_idle (w, 120, "the variant's projections");
  return TRUE;
}

/* Parallel ART with its defaults on the variant loaded; the run's line. */
static const char *
part_line (CtrWindow *w, CtrRunPage *page, CtrRun **run)
{
  *run = ui_run_method (w, CTR_METHOD_PART, NULL, 0);
  return gtk_label_get_label (ui_child (page, CTR_TYPE_RUN_PAGE, "latest_label"));
}

void
test_window_variants (void)
{
  const char *gel = g_getenv ("CTR_UI_DATASET");
  const char *big = g_getenv ("CTR_UI_BIG");
  CtrWindow *w;
  CtrSession *session;
  CtrRunPage *page;
  AdwComboRow *row;
  g_autoptr(CtrRun) quarter = NULL;
  g_autoptr(CtrRun) full = NULL;
  GListModel *runs;

  if (gel == NULL || big == NULL || !g_file_test (big, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no datasets ($CTR_UI_DATASET, $CTR_UI_BIG)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  runs = ctr_session_get_runs (session);
  page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  row = ui_child (page, CTR_TYPE_RUN_PAGE, "variant_row");

  /* a limited-angle copy (run-ui-test.sh: the views squeezed into 20°):
   * said on opening and kept in the dataset's summary */
  if (g_getenv ("CTR_UI_LIMITED") != NULL && *g_getenv ("CTR_UI_LIMITED") != '\0')
    {
      AdwActionRow *summary = ui_child (page, CTR_TYPE_RUN_PAGE, "dataset_row");
      const char *text;

      CHECK (ui_open_and_wait (w, g_getenv ("CTR_UI_LIMITED"), 120), "the 20° copy opened");
      text = adw_action_row_get_subtitle (summary);
      CHECK (text != NULL && strstr (text, "Limited angle: the views cover 20.0°") && ui_has_toast (w),
             "a 20° scan is said to be limited-angle (toast, and in the summary)");
      ui_screenshot (GTK_WIDGET (w), "ui-limited-angle.png");
    }
  CHECK (ui_open_and_wait (w, gel, 120) && fbp (w) != NULL, "a run of gel-fan");
  CHECK (!gtk_widget_get_visible (GTK_WIDGET (row)), "gel-fan has no variants: no Projections row");

  /* another dataset: the run stays, under its dataset's name */
  CHECK (ui_open_and_wait (w, big, 120), "head-fan-lowdose opened");
  CHECK (g_list_model_get_n_items (runs) == 1, "the gel's run stays (%u runs)", g_list_model_get_n_items (runs));
  CHECK (gtk_widget_get_visible (GTK_WIDGET (row)) && adw_combo_row_get_model (row) != NULL &&
             g_list_model_get_n_items (adw_combo_row_get_model (row)) == 4 && adw_combo_row_get_selected (row) == 0,
         "the Projections row offers the default and three variants (%u entries)",
         adw_combo_row_get_model (row) ? g_list_model_get_n_items (adw_combo_row_get_model (row)) : 0);
  quarter = g_object_ref (fbp (w));

  /* the full dose, chosen as a user would */
  if (!choose_variant (w, row, "full_dose"))
    {
      ui_close_window (w);
      return;
    }
  CHECK (g_strcmp0 (ctr_session_get_dataset (session)->variant, "full_dose") == 0 &&
             g_list_model_get_n_items (runs) == 2,
         "the full dose loaded (variant “%s”), both runs kept", ctr_session_get_dataset (session)->variant);
  full = g_object_ref (fbp (w));
  CHECK (strstr (ctr_run_get_label (full), "full_dose") != NULL &&
             g_strcmp0 (ctr_run_get_dataset (full), "head-fan-lowdose · full_dose") == 0,
         "the full-dose run says so: “%s” (%s)", ctr_run_get_label (full), ctr_run_get_dataset (full));
  CHECK (last_rmse (full) < last_rmse (quarter),
         "FBP RMSE falls with four times the dose: full %.4g < quarter %.4g 1/mm", last_rmse (full),
         last_rmse (quarter));
  CHECK (n_headers (w) == 3, "the runs list groups them under 3 data headers (%u)", n_headers (w));
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  ui_screenshot (GTK_WIDGET (w), "ui-runs-kept.png");
  ui_screenshot (ui_child (page, CTR_TYPE_RUN_PAGE, "runs_group"), "ui-runs-groups.png");

  /* Compare: full − quarter on their common grid */
  {
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    GtkWidget *grid = ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid");
    g_autoptr(GPtrArray) tiles = NULL;
    guint found = 0;

    ctr_compare_page_choose_difference (compare, ctr_run_get_number (full), ctr_run_get_number (quarter));
    tiles = ui_find_all (grid, g_type_from_name ("CtrSliceView"));
    for (guint t = 0; t < tiles->len; t++)
      {
        g_autofree char *caption = NULL;
        g_autofree char *title = g_strdup_printf ("difference: %s − %s", ctr_run_get_label (full),
                                                  ctr_run_get_label (quarter));
        g_object_get (tiles->pdata[t], "caption", &caption, NULL);
        found += caption != NULL && g_str_has_prefix (caption, title);
      }
    CHECK (found == 1, "Compare draws full dose − quarter dose");
  }

  /* hide the quarter dose from the plots; give the full dose a colour */
  {
    CtrMetricsPlot *plot = ui_child (page, CTR_TYPE_RUN_PAGE, "metrics_plot");
    g_autofree char *hide_name = g_strdup_printf ("run-%u-hide", ctr_run_get_number (quarter));
    g_autofree char *color_name = g_strdup_printf ("run-%u-color", ctr_run_get_number (full));
    GtkWidget *hide = ui_find (GTK_WIDGET (page), GTK_TYPE_TOGGLE_BUTTON, hide_name);
    GtkWidget *pick = ui_find (GTK_WIDGET (page), GTK_TYPE_COLOR_BUTTON, color_name);
    guint before = ctr_metrics_plot_get_n_runs (plot);

    CHECK (hide != NULL && pick != NULL, "each run has a hide toggle and a colour button");
    if (hide != NULL)
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (hide), TRUE);
    CHECK (ctr_run_get_hidden (quarter) && before == 2 && ctr_metrics_plot_get_n_runs (plot) == 1,
           "hiding the quarter dose leaves %u of %u curves on the plots", ctr_metrics_plot_get_n_runs (plot), before);
    if (pick != NULL)
      {
        GdkRGBA red = { 0.8, 0.1, 0.1, 1 };
        gtk_color_chooser_set_rgba (GTK_COLOR_CHOOSER (pick), &red);
        g_signal_emit_by_name (pick, "color-set");
      }
    {
      GdkRGBA drawn;
      ctr_plot_color_of_run (full, &drawn);
      CHECK (g_strcmp0 (ctr_run_get_color (full), "#cc1a1a") == 0 && fabs (drawn.red - 0.8) < 0.01,
             "the full dose is drawn in the colour picked: %s", ctr_run_get_color (full));
    }
    ui_screenshot (ui_child (page, CTR_TYPE_RUN_PAGE, "runs_group"), "ui-runs-hidden.png");
    if (hide != NULL)
      gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (hide), FALSE);
    CHECK (ctr_metrics_plot_get_n_runs (plot) == 2, "shown again: 2 curves");
  }

  /* Clear: every run goes */
  gtk_widget_activate_action (GTK_WIDGET (w), "win.clear-runs", NULL);
  ui_spin (50);
  CHECK (g_list_model_get_n_items (runs) == 0 &&
             !gtk_widget_get_visible (ui_child (page, CTR_TYPE_RUN_PAGE, "runs_group")),
         "Clear deletes every run (%u left)", g_list_model_get_n_items (runs));

  /* Semi-convergence told (issue 36): parallel ART's default 10
   * iterations end above the noise level on the full dose and below it on
   * the quarter dose, where the run's line says the image fits the noise
   * (the CLI's note; --stop auto's level). */
  {
    CtrRun *run = NULL;
    const char *line = part_line (w, page, &run);
    CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED && strstr (line, "residual ") != NULL
               && strstr (line, "below the noise level") == NULL,
           "full dose, parallel ART: “%s”", line);
    if (choose_variant (w, row, "quarter_dose"))
      {
        line = part_line (w, page, &run);
        CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED
                   && strstr (line, "(below the noise level: fitting noise)") != NULL,
               "quarter dose, parallel ART: “%s”", line);
        ui_screenshot (GTK_WIDGET (w), "ui-runs-noise.png");
      }
  }
  ui_close_window (w);
}
