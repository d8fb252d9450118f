/* test-window-iq.c — /ui/window/iq: the image-quality panel (issue 33)
 * driven as a user would.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The iq phantom (water with six inserts, core/sim/ctr-phantom.h) is
 * simulated in a fan beam (`ctrecon-cli simulate --phantom iq`, $CTR_CLI;
 * 256 × 256 pixels, 360 views, I0 10⁷); FBP and SIRT (20 iterations) run
 * from the Run page; its Image Quality button opens the panel, which
 * measures both runs with the phantom's regions.  Every number the table
 * shows (noise SD, f_peak, f_avg, f50 / f10 of each insert, d′ NPW and
 * NPWE) must equal, to the digits shown, what core's ctr_nps_compute,
 * ctr_ttf_insert and ctr_dprime_measured give for the runs' images with the
 * regions placed here from the phantom's own definition; both plots must
 * hold one curve per run; SIRT's few iterations must show less noise and a
 * lower TTF of the teflon insert at 0.15 cycles/mm than FBP (FBP's f50
 * lies beyond Nyquist at 0.86 mm pixels).  Then a circle ROI drawn on
 * the uniform centre becomes the NPS region and the table follows it; and
 * Compare's Runs menu opens the panel on the runs Compare shows.
 * Screenshot ui-iq-nps-ttf.png (the panel's window).
 *
 * /ui/window/study-detectability: the Dose Study page with a d′ task on
 * the same phantom (see test_window_study_detectability).
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-iq-panel.h"
#include "ctr-iq-plot.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"
#include "ctr-study-page.h"
#include "ctr-study-row.h"
#include "study/ctr-equal-dose.h"

static gboolean
panel_idle (gpointer data)
{
  return !ctr_iq_panel_get_busy (data);
}

/* The number a table cell shows ("0.412", or the first of "0.412 / 0.731",
 * @second for the other); NaN for "—" or no cell. */
static double
shown (GtkWidget *root, const char *name, gboolean second)
{
  GtkWidget *label = ui_find (root, GTK_TYPE_LABEL, name);
  const char *text;

  if (label == NULL)
    return NAN;
  text = gtk_label_get_text (GTK_LABEL (label));
  if (second)
    {
      text = strstr (text, " / ");
      if (text == NULL)
        return NAN;
      text += 3;
    }
  if (g_str_has_prefix (text, "—"))
    return NAN;
  return g_ascii_strtod (text, NULL);
}

/* Whether the cell shows @value to @digits decimals (both NaN also). */
static gboolean
same (double displayed, double value, int digits)
{
  if (isnan (value))
    return isnan (displayed);
  return fabs (displayed - value) <= 0.5 * pow (10, -digits) + 1e-9 * fabs (value);
}

/* The first button of @root whose label is @label. */
static GtkButton *
button_labelled (GtkWidget *root, const char *label)
{
  g_autoptr(GPtrArray) all = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < all->len; i++)
    if (g_strcmp0 (gtk_button_get_label (all->pdata[i]), label) == 0)
      return all->pdata[i];
  return NULL;
}

/* Deletes the simulated datasets' folder (files one level down). */
static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) top = g_dir_open (dir, 0, NULL);
  const char *name;

  while (top != NULL && (name = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *sub = g_build_filename (dir, name, NULL);
      g_autoptr(GDir) d = g_dir_open (sub, 0, NULL);
      const char *file;
      while (d != NULL && (file = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (sub, file, NULL);
          g_unlink (p);
        }
      g_rmdir (sub);
      g_unlink (sub);
    }
  g_rmdir (dir);
}

/* `ctrecon-cli simulate --phantom iq` into @dir/@name: a flat-panel fan of
 * @views views onto @cols bins, a @size² reference, I0 @i0 (text);
 * (transfer full) its geometry.json, NULL without $CTR_CLI or on failure. */
static char *
simulate (const char *dir, const char *name, const char *views, const char *cols, const char *size,
          const char *i0)
{
  const char *cli = g_getenv ("CTR_CLI");
  g_autofree char *out = g_build_filename (dir, name, NULL);
  const char *args[] = { cli, "simulate", "--phantom", "iq", "--geometry", "fan-flat", "--views", views,
                         "--cols", cols, "--size", size, "--i0", i0, "--output", out, NULL };
  int wait = 0;

  if (cli == NULL || !g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                                    G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &wait, NULL)
      || !g_spawn_check_wait_status (wait, NULL))
    return NULL;
  return g_build_filename (out, "geometry.json", NULL);
}

typedef struct {
  double noise, f_peak, f_avg, f50[8], f10[8], cnr[8], npw, npwe;
} Expected;

/* Core's measures of @run's middle slice, the regions placed from the
 * phantom's definition (radius 100 mm): the NPS in the disc of 40 mm about
 * the centre with squares of @size, each insert's TTF, d′ of @task with
 * the TTF of insert @task_insert. */
static void
expect (CtrRun *run, guint size, const CtrTask *task, int task_insert, Expected *e)
{
  CtrVolume *v = ctr_run_get_result (run);
  const CtrGrid *g = &v->grid;
  const gsize n = (gsize) g->nx * g->ny;
  const float *mu = ctr_volume_slice (v, g->nz / 2);
  g_autofree float *hu = g_new (float, n);
  CtrRoi disc = ctr_roi_circle (0, 0, 40);
  g_autofree guint8 *mask = ctr_roi_mask (g, &disc, NULL, NULL);
  guint count = 0, n_ins = 0;
  g_autofree guint *corners = ctr_nps_tile (mask, g->nx, g->ny, size, &count, NULL);
  const float *slices[1] = { hu };
  g_autoptr(CtrTtf) task_ttf = NULL;

  for (gsize i = 0; i < n; i++)
    hu[i] = (float) (1000.0 * (mu[i] - CTR_MU_WATER_PER_MM) / CTR_MU_WATER_PER_MM);
  g_autoptr(CtrNps) nps = ctr_nps_compute (slices, 1, g->nx, g->ny, g->dx, corners, count, size,
                                           CTR_NPS_DETREND_MEAN, 1.0, NULL);
  g_assert_nonnull (nps);
  e->noise = nps->noise_sd;
  e->f_peak = nps->f_peak;
  e->f_avg = nps->f_avg;
  ctr_phantom_iq_inserts (&n_ins);
  for (guint i = 0; i < n_ins && i < 8; i++)
    {
      double x, y;
      ctr_phantom_iq_insert_centre (i, 100, &x, &y);
      CtrTtf *t = ctr_ttf_insert (slices, 1, g->nx, g->ny, g->dx, (x - g->cx) / g->dx + (g->nx - 1) * 0.5,
                                  (g->ny - 1) * 0.5 - (y - g->cy) / g->dy, CTR_IQ_INSERT_RADIUS * 100 / g->dx, NULL);
      e->f50[i] = t ? t->f50 : NAN;
      e->f10[i] = t ? t->f10 : NAN;
      e->cnr[i] = t ? t->cnr : NAN;
      if ((int) i == task_insert)
        task_ttf = t;
      else
        g_clear_pointer (&t, ctr_ttf_free);
    }
  CtrDprime d = { NAN, NAN };
  CtrEyeFilter eye = ctr_eye_filter_default ();
  g_assert_nonnull (task_ttf);
  g_assert_true (ctr_dprime_measured (task, task_ttf, nps, &eye, &d, NULL));
  e->npw = d.npw;
  e->npwe = d.npwe;
}

static void
check_run (GtkWidget *root, CtrRun *run, const CtrIqResult *r, const CtrIqSetup *setup)
{
  Expected e;
  guint n = ctr_run_get_number (run), n_ins = setup->inserts->len;
  g_autofree char *noise = g_strdup_printf ("iq-noise-%u", n);
  g_autofree char *fpeak = g_strdup_printf ("iq-fpeak-%u", n);
  g_autofree char *favg = g_strdup_printf ("iq-favg-%u", n);
  g_autofree char *npw = g_strdup_printf ("iq-npw-%u", n);
  g_autofree char *npwe = g_strdup_printf ("iq-npwe-%u", n);
  gboolean ttf_ok = TRUE, cnr_ok = TRUE;
  guint n_low = 0;

  expect (run, r->nps_size, &setup->task, r->task_insert, &e);
  ui_note ("run %u: noise %.3f HU, f_avg %.4f, f50 of teflon %.4f, d′ NPW %.3f NPWE %.3f (core)", n, e.noise,
           e.f_avg, e.f50[5], e.npw, e.npwe);
  CHECK (same (shown (root, noise, FALSE), e.noise, 2), "run %u: noise SD shown %.2f = core's %.4f", n,
         shown (root, noise, FALSE), e.noise);
  CHECK (same (shown (root, fpeak, FALSE), e.f_peak, 3), "run %u: f_peak shown = core's %.4f", n, e.f_peak);
  CHECK (same (shown (root, favg, FALSE), e.f_avg, 3), "run %u: f_avg shown = core's %.4f", n, e.f_avg);
  for (guint i = 0; i < n_ins; i++)
    {
      g_autofree char *name = g_strdup_printf ("iq-ttf-%u-%u", n, i);
      ttf_ok &= same (shown (root, name, FALSE), e.f50[i], 3) && same (shown (root, name, TRUE), e.f10[i], 3);
      ttf_ok &= r->ttf->pdata[i] != NULL;
    }
  CHECK (ttf_ok, "run %u: every insert's TTF measured, its f50 / f10 shown = core's (%u inserts)", n, n_ins);
  for (guint i = 0; i < n_ins; i++)
    {
      /* the TTF's CNR, marked below TG-233's 15 */
      g_autofree char *name = g_strdup_printf ("iq-cnr-%u-%u", n, i);
      GtkWidget *label = ui_find (root, GTK_TYPE_LABEL, name);
      const char *text = label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : "";
      gboolean low = e.cnr[i] < CTR_TTF_MIN_CNR;
      cnr_ok &= same (shown (root, name, FALSE), e.cnr[i], 1) && (strstr (text, "below") != NULL) == low &&
                gtk_widget_has_css_class (label != NULL ? label : root, "warning") == low;
      n_low += low;
      ui_note ("  run %u, %s: CNR “%s” (core %.2f)", n, g_array_index (setup->inserts, CtrIqInsertSpec, i).name, text,
               e.cnr[i]);
    }
  CHECK (cnr_ok, "run %u: every insert's TTF CNR shown = core's, the %u below %g marked", n, n_low, CTR_TTF_MIN_CNR);
  CHECK (same (shown (root, npw, FALSE), e.npw, 2) && same (shown (root, npwe, FALSE), e.npwe, 2),
         "run %u: d′ NPW %.2f, NPWE %.2f shown = core's", n, shown (root, npw, FALSE), shown (root, npwe, FALSE));
}

void
test_window_iq (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ctrecon-iq-XXXXXX", NULL);
  g_autofree char *path = simulate (dir, "iq", "360", "384", "256", "10000000");
  CtrWindow *w;
  CtrRun *fbp, *sirt;

  if (path == NULL)
    {
      g_test_skip ("no iq phantom dataset ($CTR_CLI simulate --phantom iq)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, path, 120), "the iq phantom opens");
  fbp = ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  sirt = ui_run_method (w, CTR_METHOD_SIRT, "iterations", 20);
  g_assert_nonnull (fbp);
  g_assert_nonnull (sirt);

  GtkButton *button = button_labelled (ui_child (w, CTR_TYPE_WINDOW, "run_page"), "Image Quality");
  CHECK (button != NULL && gtk_widget_is_sensitive (GTK_WIDGET (button)), "the Run page has Image Quality");
  if (button != NULL)
    g_signal_emit_by_name (button, "clicked");
  GtkWidget *iq_window = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_WINDOW, 10);
  CHECK (iq_window != NULL, "Image Quality opens a window over the main one");
  if (iq_window == NULL)
    {
      ui_close_window (w);
      return;
    }
  CtrIqPanel *panel = CTR_IQ_PANEL (ui_find (iq_window, CTR_TYPE_IQ_PANEL, NULL));
  ui_wait (panel_idle, panel, 60, "the measurement");
  GPtrArray *results = ctr_iq_panel_get_results (panel);
  g_autoptr(CtrIqSetup) setup = ctr_iq_panel_get_setup (panel);
  CHECK (results->len == 2, "the newest two runs are measured (%u)", results->len);
  g_autoptr(GPtrArray) plots = ui_find_all (iq_window, CTR_TYPE_IQ_PLOT);
  CHECK (plots->len == 2 && ctr_iq_plot_get_n_curves (plots->pdata[0]) == 2
         && ctr_iq_plot_get_n_curves (plots->pdata[1]) == 2, "the NPS and TTF plots hold a curve per run (%u, %u)",
         plots->len > 0 ? ctr_iq_plot_get_n_curves (plots->pdata[0]) : 0,
         plots->len > 1 ? ctr_iq_plot_get_n_curves (plots->pdata[1]) : 0);
  if (results->len == 2)
    {
      const CtrIqResult *a = results->pdata[0], *b = results->pdata[1];
      check_run (iq_window, fbp, a, setup);
      check_run (iq_window, sirt, b, setup);
      const CtrTtf *ta = a->ttf->pdata[5], *tb = b->ttf->pdata[5];
      CHECK (a->nps && b->nps && b->nps->noise_sd < a->nps->noise_sd, "SIRT (20 it) shows less noise than FBP");
      CHECK (ta != NULL && tb != NULL && ctr_ttf_at (tb, 0.15) < ctr_ttf_at (ta, 0.15),
             "SIRT (20 it) passes less of the teflon edge at 0.15 cycles/mm than FBP (TTF %.3f < %.3f)",
             tb ? ctr_ttf_at (tb, 0.15) : NAN, ta ? ctr_ttf_at (ta, 0.15) : NAN);
    }
  ui_screenshot (iq_window, "ui-iq-nps-ttf.png");

  /* a drawn circle on the uniform centre becomes the NPS region */
  {
    CtrRoi centre = ctr_roi_circle (0, 0, 30);
    CtrSliceView *view = ui_child (ui_child (w, CTR_TYPE_WINDOW, "run_page"), CTR_TYPE_RUN_PAGE, "slice_view");
    ctr_roi_set_add (ctr_slice_view_get_roi_set (view), &centre);
    ui_spin (50);
    GtkDropDown *drop = GTK_DROP_DOWN (ui_find (iq_window, GTK_TYPE_DROP_DOWN, "iq-nps-roi"));
    CHECK (g_list_model_get_n_items (gtk_drop_down_get_model (drop)) == 2, "the drawn circle is offered");
    gtk_drop_down_set_selected (drop, 1);
    ui_wait (panel_idle, panel, 60, "the measurement with the drawn ROI");
    results = ctr_iq_panel_get_results (panel);
    const CtrIqResult *r = results->len > 0 ? results->pdata[0] : NULL;
    CtrVolume *v = ctr_run_get_result (fbp);
    g_autofree guint8 *mask = ctr_roi_mask (&v->grid, &centre, NULL, NULL);
    guint count = 0;
    g_autofree guint *corners = r ? ctr_nps_tile (mask, v->grid.nx, v->grid.ny, r->nps_size, &count, NULL) : NULL;
    CHECK (r != NULL && r->nps != NULL && r->nps_squares == count && count > 0,
           "the NPS follows the drawn ROI (%u squares of %u px, core tiles %u)", r ? r->nps_squares : 0,
           r ? r->nps_size : 0, count);
  }
  {
    /* a drawn circle too small for an 8 × 8 square: said so, no number */
    CtrRoi tiny = ctr_roi_circle (0, 0, 2);
    CtrSliceView *view = ui_child (ui_child (w, CTR_TYPE_WINDOW, "run_page"), CTR_TYPE_RUN_PAGE, "slice_view");
    ctr_roi_set_add (ctr_slice_view_get_roi_set (view), &tiny);
    ui_spin (50);
    gtk_drop_down_set_selected (GTK_DROP_DOWN (ui_find (iq_window, GTK_TYPE_DROP_DOWN, "iq-nps-roi")), 2);
    ui_wait (panel_idle, panel, 60, "the measurement with the tiny ROI");
    results = ctr_iq_panel_get_results (panel);
    const CtrIqResult *r = results->len > 0 ? results->pdata[0] : NULL;
    g_autofree char *noise = r ? g_strdup_printf ("iq-noise-%u", r->number) : NULL;
    GtkWidget *cell = noise ? ui_find (iq_window, GTK_TYPE_LABEL, noise) : NULL;
    CHECK (r != NULL && r->nps == NULL && r->nps_problem != NULL && cell != NULL
           && g_str_equal (gtk_label_get_text (GTK_LABEL (cell)), "—") && !r->has_dprime,
           "an NPS ROI too small shows “—” and says why: %s", r && r->nps_problem ? r->nps_problem : "(nothing)");
  }
  {
    /* Compare: the runs it shows, opened in the panel */
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    guint number = ctr_run_get_number (fbp);
    adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
    ctr_compare_page_choose_runs (compare, &number, 1, TRUE);
    ui_spin (100);
    GtkWidget *iq = ui_find (GTK_WIDGET (compare), GTK_TYPE_BUTTON, "compare-image-quality");
    CHECK (iq != NULL, "Compare's Runs menu has Image Quality of These Runs");
    if (iq != NULL)
      g_signal_emit_by_name (iq, "clicked");
    ui_spin (50);
    ui_wait (panel_idle, panel, 60, "the measurement of Compare's runs");
    results = ctr_iq_panel_get_results (panel);
    CHECK (results->len == 1 && ((CtrIqResult *) results->pdata[0])->number == number,
           "the panel measures the run Compare shows (%u results)", results->len);
  }
  ui_close_window (w);
  remove_tree (dir);
}

/* ---- /ui/window/study-detectability ------------------------------------------ */

static gboolean
study_done (gpointer data)
{
  return !ctr_study_page_get_running (data);
}

/* The mean d′ NPW of configuration @method at @dose over the table's rows. */
static double
mean_dprime (GListModel *rows, guint method, double dose)
{
  double sum = 0;
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (rows, i);
      const CtrStudyRow *r = ctr_study_row_item_get (item);
      if (r->method_index == method && r->dose == dose && isfinite (r->dprime_npw))
        {
          sum += r->dprime_npw;
          n++;
        }
    }
  return n > 0 ? sum / n : NAN;
}

/* The iq phantom's Dose Study with a d′ task (the phantom simulated at
 * 128², 180 views, I0 2·10⁵: noise-limited): the iq Phantom button fills
 * the task, NPS region and insert; FBP (Hann) and PWLS at 1, 0.5 and 0.25 ×
 * the dose, 2 noise realisations, 128 × 128; every row must hold d′, FBP's
 * d′ must fall with the dose, and the equal-d′ dose under the figure must
 * be core's ctr_equal_dose_compute on the table's rows.  Screenshot
 * ui-study-detectability.png (the figure with its d′ panel). */
void
test_window_study_detectability (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ctrecon-iq-XXXXXX", NULL);
  g_autofree char *path = simulate (dir, "iq-study", "180", "192", "128", "200000");
  CtrStudyPage *page;
  CtrWindow *w;

  if (path == NULL)
    {
      g_test_skip ("no iq phantom dataset ($CTR_CLI simulate --phantom iq)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, path, 120), "the iq phantom opens");
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
  ui_spin (100);
  GtkButton *iq = button_labelled (GTK_WIDGET (page), "iq _Phantom");
  CHECK (iq != NULL, "the Dose Study page has iq Phantom");
  if (iq != NULL)
    g_signal_emit_by_name (iq, "clicked");
  const char *task = gtk_editable_get_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_task_row")));
  const char *insert = gtk_editable_get_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_insert_row")));
  CHECK (g_str_equal (task, "disc:5,120") && g_str_has_prefix (insert, "circle:"),
         "iq Phantom fills the task (“%s”) and the acrylic insert (“%s”)", task, insert);

  {
    /* a malformed task is refused in words before anything runs */
    GtkEditable *row = GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "iq_task_row"));
    gtk_editable_set_text (row, "disc:five,120");
    gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "fbp");
    gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
    CHECK (!ctr_study_page_get_running (page) && strstr (ctr_study_page_get_status (page), "Task") != NULL,
           "a malformed task is refused: “%s”", ctr_study_page_get_status (page));
    gtk_editable_set_text (row, "disc:5,120");
    gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "pwls");
  }
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, "doses_row")), "1, 0.5, 0.25");
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "realisations_spin"), 2);
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "size_spin"), 128);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
  CHECK (ctr_study_page_get_running (page), "the study runs: “%s”", ctr_study_page_get_status (page));
  ui_wait (study_done, page, 600, "the study to end");

  GListModel *rows = ctr_study_page_get_rows (page);
  guint n = g_list_model_get_n_items (rows), with_dprime = 0;
  g_autofree CtrStudyRow *copy = g_new0 (CtrStudyRow, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (rows, i);
      copy[i] = *ctr_study_row_item_get (item);
      with_dprime += isfinite (copy[i].dprime_npw) && isfinite (copy[i].dprime_npwe);
    }
  CHECK (n >= 10 && with_dprime == n, "every row holds d′ (%u of %u rows)", with_dprime, n);
  double d1 = mean_dprime (rows, 0, 1), dq = mean_dprime (rows, 0, 0.25);
  CHECK (d1 > dq, "FBP's d′ NPW falls with the dose: %.2f at 1, %.2f at 0.25", d1, dq);

  CtrEqualDose e[2];
  GtkLabel *label = ui_child (page, CTR_TYPE_STUDY_PAGE, "equal_dose_label");
  CHECK (ctr_equal_dose_compute (copy, n, 2, 0, CTR_EQUAL_DOSE_NPW, e, NULL), "core's equal-d′ dose");
  {
    const char *text = gtk_label_get_text (label);
    g_autofree char *want = e[1].status == CTR_EQUAL_DOSE_REACHED
      ? g_strdup_printf ("NPW %.3g", e[1].dose) : g_strdup_printf ("NPW %s", ctr_equal_dose_status_name (&e[1], FALSE));
    ui_note ("equal-d′ dose shown: %s", text);
    CHECK (gtk_widget_get_visible (GTK_WIDGET (label)) && strstr (text, want) != NULL,
           "the page shows PWLS's equal-d′ dose as core computes it (“%s”)", want);
  }
  {
    /* the form scrolled to its end, where the d′ rows are */
    GtkScrolledWindow *form = GTK_SCROLLED_WINDOW (ui_find (GTK_WIDGET (page), GTK_TYPE_SCROLLED_WINDOW, NULL));
    GtkAdjustment *a = gtk_scrolled_window_get_vadjustment (form);
    gtk_adjustment_set_value (a, gtk_adjustment_get_upper (a));
  }
  ui_screenshot (GTK_WIDGET (w), "ui-study-detectability.png");
  ui_close_window (w);
  remove_tree (dir);
}
