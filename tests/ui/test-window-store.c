/* test-window-store.c — the study window you can trust (issue 31, items
 * 1-4), on the real window.
 *
 * /ui/window/runs-many: ten FBP runs across three datasets (gel-fan,
 * shepp-logan-fan, head-fan-lowdose) under a 1 MiB memory budget for run
 * images ($CTR_RUN_MEMORY_MB), then gel-fan opened again: every run keeps
 * its image (all ten, most of them spilled to the session's folder under
 * $XDG_CACHE_HOME and read back), the runs list states the total; Compare
 * (its tiles, its Runs menu, its automatic difference), Profile and the
 * ROI table show gel-fan's three runs, all of them, and no run of another
 * dataset.  Screenshot ui-runs-many.png (Compare with gel-fan's runs while
 * the runs list holds those of three datasets).  Closing the window
 * removes the folder.
 *
 * /ui/window/metric: one FBP (Hann) of head-fan-lowdose: its RMSE and SSIM
 * on the Run page, on Compare, in the Dose Study at 1 × the dose and from
 * ctrecon-cli reconstruct are the same figures, each stated with its mask
 * (the field-of-view disc); the Dose Study takes the data's I0 (here the
 * estimate from the sinogram's noise, shown) without the user typing it
 * and runs at 0.5 × the dose.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (gel-fan), CTR_UI_SHEPP (shepp-logan-fan's
 * equilinear geometry.json), CTR_UI_LOWDOSE (head-fan-lowdose), CTR_CLI,
 * CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-method-panel.h"
#include "ctr-profile-page.h"
#include "ctr-roi-panel.h"
#include "ctr-roi-set.h"
#include "ctr-roi-table.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"
#include "ctr-study-page.h"
#include "ctr-study-row.h"

static CtrRun *
fbp (CtrWindow *w, CtrFilterWindow window, double cutoff)
{
  CtrMethodPanel *mp = ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page"));

  ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
  ctr_method_panel_set_param (mp, "window", window, NULL);
  ctr_method_panel_set_param (mp, "cutoff", cutoff, NULL);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 240, "an FBP run");
  return ctr_session_get_latest_result (ctr_window_get_session (w));
}

static void
show_page (CtrWindow *w, const char *name)
{
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), name);
  ui_spin (100);
}

static char *
caption_of (gpointer tile)
{
  char *caption = NULL;
  g_object_get (tile, "caption", &caption, NULL);
  return caption;
}

/* Whether @text names a run of @runs not of @d (its label). */
static gboolean
names_foreign_run (const char *text, GListModel *runs, const CtrDataset *d)
{
  for (guint i = 0; text != NULL && i < g_list_model_get_n_items (runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      /* a label starts the text, or follows "difference: " or "− " */
      g_autofree char *prefix = g_strdup_printf ("%u · ", ctr_run_get_number (run));
      g_autofree char *diff_a = g_strdup_printf (": %s", prefix);
      g_autofree char *diff_b = g_strdup_printf ("− %s", prefix);
      if (!ctr_run_is_of (run, d) &&
          (g_str_has_prefix (text, prefix) || strstr (text, diff_a) != NULL || strstr (text, diff_b) != NULL))
        return TRUE;
    }
  return FALSE;
}

/* Compare's tiles: those of runs (of @d or not), and whether any caption
 * names a foreign run (the difference tile's too). */
static void
count_tiles (CtrComparePage *page, const CtrDataset *d, GListModel *runs, guint *own, guint *foreign,
             gboolean *foreign_caption)
{
  g_autoptr(GPtrArray) tiles = ui_find_all (GTK_WIDGET (page), CTR_TYPE_SLICE_VIEW);

  *own = *foreign = 0;
  *foreign_caption = FALSE;
  for (guint i = 0; i < tiles->len; i++)
    {
      CtrRun *run = g_object_get_data (tiles->pdata[i], "ctr-run");
      g_autofree char *caption = caption_of (tiles->pdata[i]);

      if (run != NULL)
        {
          if (ctr_run_is_of (run, d))
            (*own)++;
          else
            (*foreign)++;
        }
      *foreign_caption |= names_foreign_run (caption, runs, d);
    }
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

static void
check_compare (CtrWindow *w, CtrSession *session, GArray *gel_numbers)
{
  CtrComparePage *page = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
  CtrDataset *d = ctr_session_get_dataset (session);
  GListModel *runs = ctr_session_get_runs (session);
  g_autoptr(GArray) offered = NULL;
  guint own, foreign, n_offered_own = 0;
  gboolean foreign_caption;

  show_page (w, "compare");
  /* as it opens: the newest runs of the open dataset, the automatic
   * difference of two of them */
  count_tiles (page, d, runs, &own, &foreign, &foreign_caption);
  CHECK (own >= 1 && foreign == 0 && !foreign_caption,
         "Compare as it opens: %u tiles of gel-fan's runs, %u of other datasets' runs, %s caption naming one",
         own, foreign, foreign_caption ? "a" : "no");
  offered = menu_numbers (page);
  for (guint i = 0; i < offered->len; i++)
    for (guint k = 0; k < gel_numbers->len; k++)
      n_offered_own += g_array_index (offered, guint, i) == g_array_index (gel_numbers, guint, k);
  CHECK (offered->len == gel_numbers->len && n_offered_own == gel_numbers->len,
         "the Runs menu offers gel-fan's %u runs and nothing else (%u offered, %u of them gel-fan's)",
         gel_numbers->len, offered->len, n_offered_own);
  /* all of gel-fan's runs chosen, the difference of the first two */
  ctr_compare_page_choose_runs (page, (const guint *) gel_numbers->data, gel_numbers->len, TRUE);
  ctr_compare_page_choose_difference (page, g_array_index (gel_numbers, guint, 1),
                                      g_array_index (gel_numbers, guint, 0));
  ui_spin (200);
  count_tiles (page, d, runs, &own, &foreign, &foreign_caption);
  CHECK (own == gel_numbers->len && foreign == 0 && ctr_compare_page_get_n_tiles (page) == own + 2,
         "all of gel-fan's %u runs chosen: %u of their tiles, %u foreign, %u tiles in all (+ reference, difference)",
         gel_numbers->len, own, foreign, ctr_compare_page_get_n_tiles (page));
  ui_screenshot (GTK_WIDGET (w), "ui-runs-many.png");
}

static void
check_profile_rois (CtrWindow *w, CtrSession *session, guint n_gel)
{
  CtrProfilePage *profile = ui_child (w, CTR_TYPE_WINDOW, "profile_page");
  CtrRunPage *page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  CtrRoiPanel *panel = ui_child (page, CTR_TYPE_RUN_PAGE, "roi_panel");
  CtrRoiSet *set = ctr_slice_view_get_roi_set (ui_child (page, CTR_TYPE_RUN_PAGE, "slice_view"));
  CtrDataset *d = ctr_session_get_dataset (session);
  GListModel *runs = ctr_session_get_runs (session);
  double seg[4] = { -30, -20, 35, 25 };
  g_autofree char *caption = NULL;
  CtrRoi roi;
  guint own = 0, foreign = 0;

  show_page (w, "profile");
  ctr_slice_view_set_segment (ui_child (profile, CTR_TYPE_PROFILE_PAGE, "profile_view"), seg);
  ui_spin (100);
  caption = caption_of (ui_child (profile, CTR_TYPE_PROFILE_PAGE, "profile_view"));
  CHECK (ctr_profile_page_get_n_curves (profile) == n_gel + 1 && !names_foreign_run (caption, runs, d),
         "Profile: %u curves (gel-fan's %u runs and the reference), under “%s”",
         ctr_profile_page_get_n_curves (profile), n_gel, caption);

  show_page (w, "reconstruct");
  CHECK (set != NULL && ctr_roi_parse ("circle:0,0,10", &roi, NULL), "a circle ROI");
  if (set == NULL)
    return;
  ctr_roi_set_add (set, &roi);
  ui_spin (200);
  {
    g_autoptr(GPtrArray) rows = ctr_roi_panel_measure (panel);
    for (guint i = 0; i < rows->len; i++)
      {
        const CtrRoiRow *r = g_ptr_array_index (rows, i);
        if (g_strcmp0 (r->image, "reference") == 0)
          continue;
        if (names_foreign_run (r->image, runs, d))
          foreign++;
        else
          own += r->ok;
      }
    CHECK (own == n_gel && foreign == 0, "the ROI table measures gel-fan's %u runs (%u rows) and no other (%u)",
           n_gel, own, foreign);
  }
  /* the runs list: three datasets' runs, the store's total */
  {
    GtkWidget *group = ui_child (page, CTR_TYPE_RUN_PAGE, "runs_group");
    GtkWidget *scrolled = gtk_widget_get_ancestor (group, GTK_TYPE_SCROLLED_WINDOW);
    graphene_rect_t b;
    if (scrolled != NULL && gtk_widget_compute_bounds (group, gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)), &b))
      gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)), b.origin.y);
    ui_screenshot (GTK_WIDGET (w), "ui-runs-store.png");
  }
}

void
test_window_runs_many (void)
{
  const char *gel = g_getenv ("CTR_UI_DATASET");
  const char *shepp = g_getenv ("CTR_UI_SHEPP");
  const char *head = g_getenv ("CTR_UI_LOWDOSE");
  g_autoptr(GArray) gel_numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *cache = NULL;
  CtrWindow *w;
  CtrSession *session;
  GListModel *results;
  guint kept = 0;

  if (gel == NULL || shepp == NULL || head == NULL || !g_file_test (shepp, G_FILE_TEST_IS_REGULAR) ||
      !g_file_test (head, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no datasets ($CTR_UI_DATASET, $CTR_UI_SHEPP, $CTR_UI_LOWDOSE)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  results = ctr_session_get_results (session);

  /* ten runs: gel-fan 3, shepp-logan-fan 4, head-fan-lowdose 3 */
  CHECK (ui_open_and_wait (w, gel, 60), "gel-fan opened");
  for (guint i = 0; i < 3; i++)
    {
      CtrRun *run = fbp (w, i == 0 ? CTR_FILTER_RAM_LAK : CTR_FILTER_HANN, 1.0 - 0.2 * i);
      guint n = run ? ctr_run_get_number (run) : 0;
      g_array_append_val (gel_numbers, n);
    }
  CHECK (ui_open_and_wait (w, shepp, 60), "shepp-logan-fan opened");
  for (guint i = 0; i < 4; i++)
    fbp (w, i % 2 ? CTR_FILTER_HANN : CTR_FILTER_RAM_LAK, 1.0 - 0.1 * i);
  CHECK (ui_open_and_wait (w, head, 60), "head-fan-lowdose opened");
  for (guint i = 0; i < 3; i++)
    fbp (w, CTR_FILTER_HANN, 1.0 - 0.2 * i);
  CHECK (g_list_model_get_n_items (ctr_session_get_runs (session)) == 10, "ten runs (%u)",
         g_list_model_get_n_items (ctr_session_get_runs (session)));

  /* every run keeps its image, most of them on disk */
  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      kept += ctr_run_get_result (run) != NULL;
    }
  CHECK (g_list_model_get_n_items (results) == 10 && kept == 10, "all ten runs keep their image (%u results, %u read)",
         g_list_model_get_n_items (results), kept);
  {
    CtrRunPage *page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
    AdwPreferencesGroup *group = ui_child (page, CTR_TYPE_RUN_PAGE, "runs_group");
    const char *text = adw_preferences_group_get_description (group);
    const char *xdg = g_getenv ("XDG_CACHE_HOME");
    const char *at = text ? strstr (text, " on disk in ") : NULL;

    CHECK (text != NULL && strstr (text, "10 run images kept") != NULL && at != NULL &&
               (xdg == NULL || strstr (at, xdg) != NULL),
           "the runs list states the total kept and where: “%s”", text);
    if (at != NULL)
      {
        cache = g_strdup (at + strlen (" on disk in "));
        cache[strcspn (cache, ";")] = '\0';
        if (g_str_has_suffix (cache, "."))
          cache[strlen (cache) - 1] = '\0';
      }
  }

  /* gel-fan again: its runs, all of them, and nobody else's */
  CHECK (ui_open_and_wait (w, gel, 60), "gel-fan opened again");
  check_compare (w, session, gel_numbers);
  check_profile_rois (w, session, gel_numbers->len);

  ui_close_window (w);
  CHECK (cache != NULL && !g_file_test (cache, G_FILE_TEST_EXISTS), "the session's folder %s is removed on close",
         cache ? cache : "(none)");
}

/* ---- one metric definition ----------------------------------------------------- */

static gboolean
not_running (gpointer data)
{
  return !ctr_study_page_get_running (data);
}

/* ctrecon-cli reconstruct's RMSE and SSIM against the reference. */
static gboolean
cli_metrics (const char *dataset, double *rmse, double *ssim)
{
  const char *cli = g_getenv ("CTR_CLI");
  g_autofree char *out = ui_out_path ("metric-fbp.tif");
  g_autofree char *stderr_text = NULL;
  const char *argv[] = { cli, "reconstruct", dataset, "--method", "fbp", "--window", "hann", "--output", out, NULL };
  const char *at;
  int status = 0;

  if (cli == NULL || !g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                                    &stderr_text, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return FALSE;
  at = strstr (stderr_text, "against the reference: RMSE ");
  return at != NULL && sscanf (at, "against the reference: RMSE %lf PSNR %*f dB SSIM %lf", rmse, ssim) == 2;
}

void
test_window_metric (void)
{
  const char *head = g_getenv ("CTR_UI_LOWDOSE");
  CtrWindow *w;
  CtrRunPage *run_page;
  CtrStudyPage *study;
  CtrRun *run;
  const CtrIterStats *s;
  g_autofree char *rmse_3g = NULL;
  g_autofree char *ssim_3f = NULL;
  double cli_rmse = NAN, cli_ssim = NAN;

  if (head == NULL || !g_file_test (head, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no head-fan-lowdose ($CTR_UI_LOWDOSE)");
      return;
    }
  w = ui_new_window ();
  run_page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  study = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  CHECK (ui_open_and_wait (w, head, 60), "head-fan-lowdose opened");

  /* the Dose Study knows the dose before any run */
  {
    GtkSpinButton *i0 = ui_child (study, CTR_TYPE_STUDY_PAGE, "i0_spin");
    GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (i0), ADW_TYPE_ACTION_ROW);
    const char *subtitle = row ? adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) : NULL;
    double v = gtk_spin_button_get_value (i0);

    CHECK (fabs (v - 25000) < 0.05 * 25000 && subtitle != NULL && strstr (subtitle, "stimated") != NULL,
           "the Dose Study's I0 before any run: %.0f photons per bin (the data's 25000), “%s”", v,
           subtitle ? subtitle : "");
  }

  run = ui_run_method (w, CTR_METHOD_FBP, "window", CTR_FILTER_HANN);
  s = run && ctr_run_get_n_stats (run) ? ctr_run_get_stats (run, ctr_run_get_n_stats (run) - 1) : NULL;
  CHECK (s != NULL && s->has_reference, "an FBP (Hann) with figures against the reference");
  if (s == NULL || !s->has_reference)
    {
      ui_close_window (w);
      return;
    }
  rmse_3g = g_strdup_printf ("%.3g", s->rmse);
  ssim_3f = g_strdup_printf ("%.3f", s->ssim);
  ui_note ("Run: RMSE %.6g /mm, SSIM %.6f", s->rmse, s->ssim);

  /* the CLI */
  /* the CLI prints 5 significant digits of the RMSE, 4 decimals of SSIM */
  gboolean cli_ok = cli_metrics (head, &cli_rmse, &cli_ssim);
  CHECK (cli_ok && fabs (cli_rmse - s->rmse) <= 1e-4 * s->rmse &&
             fabs (cli_ssim - s->ssim) <= 5e-5,
         "ctrecon-cli reconstruct: RMSE %.6g, SSIM %.6f; the window's %.6g, %.6f", cli_rmse, cli_ssim, s->rmse,
         s->ssim);

  /* the Run page states them with the mask */
  {
    GtkLabel *label = ui_child (run_page, CTR_TYPE_RUN_PAGE, "rmse_label");
    GtkLabel *latest = ui_child (run_page, CTR_TYPE_RUN_PAGE, "latest_label");
    g_autofree char *per_mm = g_strdup_printf ("(%s /mm)", rmse_3g);
    GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (label), ADW_TYPE_ACTION_ROW);
    const char *subtitle = row ? adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) : NULL;

    CHECK (strstr (gtk_label_get_label (label), per_mm) != NULL && strstr (gtk_label_get_label (label), " HU") &&
               subtitle != NULL && strstr (subtitle, "field-of-view disc") != NULL,
           "Run page: RMSE “%s” (“%s”)", gtk_label_get_label (label), subtitle ? subtitle : "");
    CHECK (strstr (gtk_label_get_label (latest), per_mm) != NULL &&
               strstr (gtk_label_get_label (latest), ssim_3f) != NULL &&
               strstr (gtk_label_get_label (latest), "field-of-view disc") != NULL,
           "Run page summary: “%s”", gtk_label_get_label (latest));
  }

  /* Compare */
  {
    CtrComparePage *page = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    g_autoptr(GPtrArray) tiles = NULL;
    g_autofree char *caption = NULL;
    g_autofree char *want = g_strdup_printf ("(%s /mm) · SSIM %s · field-of-view disc", rmse_3g, ssim_3f);

    show_page (w, "compare");
    tiles = ui_find_all (GTK_WIDGET (page), CTR_TYPE_SLICE_VIEW);
    for (guint i = 0; i < tiles->len && caption == NULL; i++)
      if (g_object_get_data (tiles->pdata[i], "ctr-run") == run)
        caption = caption_of (tiles->pdata[i]);
    CHECK (caption != NULL && strstr (caption, want) != NULL, "Compare: “%s”", caption ? caption : "(no tile)");
  }

  /* the Dose Study at 1 and 0.5 × the dose, I0 not typed */
  {
    gtk_editable_set_text (GTK_EDITABLE (ui_child (study, CTR_TYPE_STUDY_PAGE, "doses_row")), "1, 0.5");
    gtk_widget_activate_action (GTK_WIDGET (study), "study.add-preset", "s", "fbp");
    gtk_widget_activate_action (GTK_WIDGET (study), "study.run", NULL);
    ui_spin (100);
    ui_wait (not_running, study, 240, "the dose study");
    {
      GListModel *rows = ctr_study_page_get_rows (study);
      g_autofree char *at_1 = NULL;
      g_autofree char *ssim_1 = NULL;
      guint n = g_list_model_get_n_items (rows);
      double r_1 = NAN;

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (rows, i);
          const CtrStudyRow *r = ctr_study_row_item_get (item);
          if (r->dose == 1.0)
            {
              at_1 = ctr_study_row_item_format (item, CTR_STUDY_COLUMN_RMSE);
              ssim_1 = g_strdup_printf ("%.3f", r->ssim);
              r_1 = r->rmse;
            }
        }
      CHECK (n == 2, "the study ran without I0 typed: %u rows (“%s”)", n, ctr_study_page_get_status (study));
      CHECK (g_strcmp0 (at_1, rmse_3g) == 0 && g_strcmp0 (ssim_1, ssim_3f) == 0 &&
                 fabs (r_1 - s->rmse) <= 1e-6 * s->rmse &&
                 strstr (ctr_study_column_title (CTR_STUDY_COLUMN_RMSE), "FOV disc") != NULL,
             "Dose Study at 1 × the dose: RMSE %s (%.6g), SSIM %s under “%s”; the Run page's %s, %s", at_1, r_1,
             ssim_1, ctr_study_column_title (CTR_STUDY_COLUMN_RMSE), rmse_3g, ssim_3f);
    }
  }
  ui_close_window (w);
}
