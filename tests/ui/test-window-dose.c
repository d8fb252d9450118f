/* test-window-dose.c — /ui/window/dose: the Dose study page driven as a
 * user would (issue 15, "Dose study page").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * head-fan-lowdose (720 views; quarter dose, I0 = 2.5·10⁴ photons per bin)
 * is opened; bad entries are refused in words (a dose above 1, a dose of 0,
 * no method, a malformed ROI, a configuration listed twice); FBP (the
 * page's FBP button: the Hann window), parallel ART and PWLS (3 iterations each, from the page's
 * method panel) run on 0.5 and 0.25 × the dose on a 128 × 128 grid over the
 * reference's field, with a noise, a background and a measured ROI.  The
 * table must fill in while the study runs (a row seen before it ends), hold
 * every dose × method with finite RMSE and SSIM, and FBP's RMSE must grow
 * as the dose falls; the window's Reconstruct waits while the study runs
 * (the main loop's largest gap and most main-thread CPU between 10 ms ticks
 * are reported); Run is disabled while the session reconstructs; the
 * export writes study.csv with one line per table row and the same RMSE,
 * and study.png; the screenshots are ui-study.png and ui-method-pwls.png
 * (the method panel with PWLS's defaults).  A second study is
 * cancelled after its first rows: it must stop within a second and keep
 * the rows that finished.
 *
 * /ui/window/dose-estimate: the page's I0 of data that state none
 * (head-fan-lowdose, gel-fan: line integrals without an I0 or a flat field)
 * is estimated from the sinogram's noise in a worker thread, not in the
 * page's handler of the new dataset: when the load ends the I0 row says
 * "Estimating…", the value is 0 and Run Study waits; then the row shows
 * ctr_noise_estimate_i0's value and Run is enabled.  Opened one after the
 * other, the second dataset's estimate is the one shown; a window closed
 * while its estimate runs is finalized.  Screenshot
 * ui-dose-estimate.png (the page on head-fan-lowdose).
 *
 * Environment: CTR_UI_LOWDOSE (head-fan-lowdose's geometry.json),
 * CTR_UI_DATASET (gel-fan's, for dose-estimate), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"
#include "ctr-study-page.h"
#include "ctr-study-row.h"

typedef struct {
  CtrStudyPage *page;
  guint         rows;
} RowsWanted;

static gboolean
not_running (gpointer data)
{
  return !ctr_study_page_get_running (data);
}

static gboolean
has_rows (gpointer data)
{
  RowsWanted *w = data;
  return g_list_model_get_n_items (ctr_study_page_get_rows (w->page)) >= w->rows ||
         !ctr_study_page_get_running (w->page);
}

/* Between 10 ms ticks of the main loop while the study runs: the largest
 * gap (wall time: on a shared machine mostly the wait for a CPU) and the
 * most CPU time the main thread itself spent (getrusage RUSAGE_THREAD: the
 * window's own work, which the study must not make long). */
typedef struct {
  gint64 last_us, last_cpu_us, largest_us, most_cpu_us;
  guint  ticks;
} Gaps;

static gboolean
tick (gpointer data)
{
  Gaps *g = data;
  gint64 now = g_get_monotonic_time (), cpu = ui_thread_cpu_us ();

  if (g->last_us > 0)
    {
      g->largest_us = MAX (g->largest_us, now - g->last_us);
      g->most_cpu_us = MAX (g->most_cpu_us, cpu - g->last_cpu_us);
    }
  g->last_us = now;
  g->last_cpu_us = cpu;
  g->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
set_text (CtrStudyPage *page, const char *row, const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (ui_child (page, CTR_TYPE_STUDY_PAGE, row)), text);
}

/* Run is refused for @doses with a message naming @expect. */
static void
check_refused (CtrStudyPage *page, const char *doses, const char *expect, const char *what)
{
  set_text (page, "doses_row", doses);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
  CHECK (!ctr_study_page_get_running (page) && strstr (ctr_study_page_get_status (page), expect) != NULL,
         "%s is refused: “%s”", what, ctr_study_page_get_status (page));
}

static const CtrStudyRow *
row_at (CtrStudyPage *page, guint i)
{
  g_autoptr(CtrStudyRowItem) item = g_list_model_get_item (ctr_study_page_get_rows (page), i);
  return ctr_study_row_item_get (item);   /* the page's store keeps the item */
}

/* The row of @method at @dose, or NULL. */
static const CtrStudyRow *
find_row (CtrStudyPage *page, CtrMethod method, double dose)
{
  GListModel *rows = ctr_study_page_get_rows (page);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      const CtrStudyRow *r = row_at (page, i);
      if (r->method == method && r->dose == dose)
        return r;
    }
  return NULL;
}

static gboolean
session_running (gpointer data)
{
  return ctr_session_get_running (data);
}

/* study.csv: data lines and their rmse column, in order. */
static GArray *
csv_rmse (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *rmse = g_array_new (FALSE, FALSE, sizeof (double));
  int column = -1;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return rmse;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && *lines[i] != '\0'; i++)
    {
      /* no field of these rows is quoted: the labels hold no comma */
      g_auto(GStrv) fields = g_strsplit (lines[i], ",", -1);
      if (i == 0)
        {
          for (guint k = 0; fields[k] != NULL; k++)
            if (g_str_equal (fields[k], "rmse"))
              column = (int) k;
          continue;
        }
      if (column >= 0 && g_strv_length (fields) > (guint) column)
        {
          double v = g_ascii_strtod (fields[column], NULL);
          g_array_append_val (rmse, v);
        }
    }
  return rmse;
}

void
test_window_dose (void)
{
  const char *path = g_getenv ("CTR_UI_LOWDOSE");
  const CtrMethod methods[] = { CTR_METHOD_FBP, CTR_METHOD_PART, CTR_METHOD_PWLS };
  const double doses[] = { 0.5, 0.25 };
  CtrWindow *w;
  CtrSession *session;
  CtrStudyPage *page;
  CtrMethodPanel *panel;
  gint64 t0;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("CTR_UI_LOWDOSE (head-fan-lowdose) not given");
      return;
    }
  t0 = g_get_monotonic_time ();
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  CHECK (ui_open_and_wait (w, path, 60), "%s opened", path);
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  panel = ctr_study_page_get_method_panel (page);

  /* ---- bad entries, each refused in words ---- */
  check_refused (page, "0.5, 1.5", "1.5", "a dose above 1");
  check_refused (page, "0, 0.5", "greater than 0", "a dose of 0");
  check_refused (page, "half", "not a number", "a dose that is no number");
  check_refused (page, "0.5, 0.25", "Add at least one method", "a study without a method");

  /* ---- the study: FBP, PART and PWLS on 0.5 and 0.25 × the dose ---- */
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-preset", "s", "fbp");
  ctr_method_panel_set_method (panel, CTR_METHOD_PART);
  ctr_method_panel_set_param (panel, "iterations", 3, NULL);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-current", NULL);
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-current", NULL);
  CHECK (ctr_study_page_get_n_methods (page) == 2 && strstr (ctr_study_page_get_status (page), "already") != NULL,
         "a configuration listed twice is refused: “%s”", ctr_study_page_get_status (page));
  ctr_method_panel_set_method (panel, CTR_METHOD_PWLS);
  ctr_method_panel_set_param (panel, "iterations", 3, NULL);
  {
    /* The panel offers PWLS's parameters with their defaults (the whole
     * panel, also what its scrolled window hides: ui-method-pwls.png). */
    CtrReconOptions o;
    ctr_method_panel_get_options (panel, &o);
    CHECK (o.method == CTR_METHOD_PWLS && o.penalty == CTR_PENALTY_ISOTROPIC && o.beta == 0 && o.delta == 0,
           "PWLS in the panel with the default isotropic penalty, b and δ automatic (penalty %d)", (int) o.penalty);
    ui_screenshot (GTK_WIDGET (panel), "ui-method-pwls.png");
  }
  gtk_widget_activate_action (GTK_WIDGET (page), "study.add-current", NULL);
  CHECK (ctr_study_page_get_n_methods (page) == 3, "three methods listed (%u)", ctr_study_page_get_n_methods (page));

  /* the data state no I0: the quarter dose's, from the dataset's README */
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "i0_spin"), 25000);
  gtk_spin_button_set_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "size_spin"), 128);
  set_text (page, "noise_roi_row", "rect:40,-5,15,15");
  set_text (page, "background_roi_row", "circle:-40,20,6");
  set_text (page, "measure_roi_row", "circle:-17,-42");
  check_refused (page, "0.5, 0.25", "circle:X,Y,R", "a malformed ROI");
  set_text (page, "measure_roi_row", "circle:-17,-42,4");

  {
    RowsWanted first = { page, 1 };
    gint64 start = g_get_monotonic_time ();
    gboolean live;
    Gaps gaps = { 0 };
    guint probe;

    gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
    CHECK (ctr_study_page_get_running (page), "the study runs: “%s”", ctr_study_page_get_status (page));
    CHECK (!gtk_widget_get_sensitive (ui_child (page, CTR_TYPE_STUDY_PAGE, "run_button")) &&
               gtk_widget_get_sensitive (ui_child (page, CTR_TYPE_STUDY_PAGE, "cancel_button")),
           "Run is disabled and Cancel enabled while it runs");
    CHECK (!ui_button_enabled (w, "reconstruct_button"), "the window's Reconstruct waits for the study");
    probe = g_timeout_add (10, tick, &gaps);
    ui_wait (has_rows, &first, 120, "the study's first row");
    live = ctr_study_page_get_running (page) && g_list_model_get_n_items (ctr_study_page_get_rows (page)) >= 1;
    CHECK (live, "the table fills in while the study runs (%u row(s) seen, still running)",
           g_list_model_get_n_items (ctr_study_page_get_rows (page)));
    ui_wait (not_running, page, 180, "the study");
    g_source_remove (probe);
    /* reported, not judged: the most main-thread CPU comes in the first
     * frame after Run (the whole window redrawn, ~40-55 ms with the cairo
     * renderer here), as when the Run page starts a reconstruction; the
     * project's gap probe is /ui/window/responsiveness */
    ui_note ("the study: %.1f s (“%s”); %u main-loop ticks, largest gap %.0f ms (wall time), most main-thread "
             "CPU between two ticks %.1f ms",
             (g_get_monotonic_time () - start) / 1e6, ctr_study_page_get_status (page), gaps.ticks,
             gaps.largest_us / 1e3, gaps.most_cpu_us / 1e3);
    CHECK (ui_button_enabled (w, "reconstruct_button"), "Reconstruct is enabled again after the study");
  }
  {
    GListModel *rows = ctr_study_page_get_rows (page);
    guint n = g_list_model_get_n_items (rows), finite = 0;

    CHECK (n == 6, "six rows (3 methods × 2 doses): %u; “%s”", n, ctr_study_page_get_status (page));
    for (guint i = 0; i < n; i++)
      {
        const CtrStudyRow *r = row_at (page, i);
        ui_note ("  dose %g  %-22s RMSE %.1f HU  SSIM %.4f  noise %.1f HU  %u it  %.2f s", r->dose, r->label,
                 r->hu_rmse, r->ssim, r->noise_sd_hu, r->iterations, r->seconds);
        finite += isfinite (r->rmse) && isfinite (r->ssim) && r->ssim > 0 && r->ssim <= 1 && isfinite (r->noise_sd_hu);
      }
    CHECK (finite == n && n > 0, "every row has a finite RMSE, SSIM and noise SD (%u of %u)", finite, n);
    for (guint m = 0; m < G_N_ELEMENTS (methods); m++)
      for (guint k = 0; k < G_N_ELEMENTS (doses); k++)
        CHECK (find_row (page, methods[m], doses[k]) != NULL, "a row of %s at %g × the dose",
               ctr_method_name (methods[m]), doses[k]);
    {
      const CtrStudyRow *half = find_row (page, CTR_METHOD_FBP, 0.5), *quarter = find_row (page, CTR_METHOD_FBP, 0.25);
      CHECK (half && quarter && quarter->rmse > half->rmse, "FBP's RMSE grows as the dose falls: %.1f HU at 0.5, %.1f HU at 0.25",
             half ? half->hu_rmse : NAN, quarter ? quarter->hu_rmse : NAN);
      CHECK (half && quarter && quarter->noise_sd_hu > half->noise_sd_hu,
             "so does its noise SD: %.1f HU at 0.5, %.1f HU at 0.25", half ? half->noise_sd_hu : NAN,
             quarter ? quarter->noise_sd_hu : NAN);
    }
    CHECK (strstr (ctr_study_page_get_status (page), "Finished: 6 runs") != NULL, "status: “%s”",
           ctr_study_page_get_status (page));
  }
  ui_screenshot (GTK_WIDGET (w), "ui-study.png");

  /* ---- export: study.csv and study.png into a folder ---- */
  {
    g_autofree char *folder = ui_out_path ("ui-study-export");
    g_autofree char *csv = g_build_filename (folder, "study.csv", NULL);
    g_autofree char *png = g_build_filename (folder, "study.png", NULL);
    g_autoptr(GArray) rmse = NULL;
    guint n = g_list_model_get_n_items (ctr_study_page_get_rows (page)), same = 0;

    g_mkdir_with_parents (folder, 0755);
    g_unlink (csv);
    g_unlink (png);
    CHECK (ui_export_from (GTK_WIDGET (page), w, "study.export", folder, png), "Export… wrote %s", png);
    rmse = csv_rmse (csv);
    for (guint i = 0; i < rmse->len && i < n; i++)
      same += fabs (g_array_index (rmse, double, i) - row_at (page, i)->rmse) <= 1e-6 * row_at (page, i)->rmse;
    CHECK (rmse->len == n && same == n, "study.csv has the table's %u rows with the same RMSE (%u lines, %u equal)", n,
           rmse->len, same);
    CHECK (g_file_test (png, G_FILE_TEST_IS_REGULAR), "study.png written beside it");
  }

  /* ---- Run is disabled while the session reconstructs ---- */
  {
    /* a SIRT long enough to be seen running (a new window starts with
     * FBP on these data) */
    ctr_method_panel_set_method (ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page")),
                                 CTR_METHOD_SIRT);
    gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
    ui_wait (session_running, session, 30, "a reconstruction");
    CHECK (!gtk_widget_get_sensitive (ui_child (page, CTR_TYPE_STUDY_PAGE, "run_button")),
           "Run Study is disabled while the session reconstructs");
    gtk_widget_activate_action (GTK_WIDGET (w), "win.cancel-reconstruction", NULL);
    ui_wait_idle (w, 60, "the cancelled reconstruction");
    CHECK (gtk_widget_get_sensitive (ui_child (page, CTR_TYPE_STUDY_PAGE, "run_button")),
           "and enabled again once it ends");
  }

  /* ---- Cancel mid-study: stops within a second, the finished rows stay ---- */
  {
    RowsWanted three = { page, 3 };
    gint64 asked;
    double stop_s;
    guint n;

    gtk_widget_activate_action (GTK_WIDGET (page), "study.run", NULL);
    ui_wait (has_rows, &three, 120, "three rows of the second study");
    CHECK (ctr_study_page_get_running (page), "the second study is still running after %u rows",
           g_list_model_get_n_items (ctr_study_page_get_rows (page)));
    asked = g_get_monotonic_time ();
    gtk_widget_activate_action (GTK_WIDGET (page), "study.cancel", NULL);
    ui_wait (not_running, page, 30, "the study to stop");
    stop_s = (g_get_monotonic_time () - asked) / 1e6;
    n = g_list_model_get_n_items (ctr_study_page_get_rows (page));
    CHECK (stop_s < 1.0, "Cancel stopped the study in %.2f s", stop_s);
    CHECK (n >= 3 && n < 6, "the %u finished rows are kept", n);
    CHECK (strstr (ctr_study_page_get_status (page), "Cancelled") != NULL, "status: “%s”",
           ctr_study_page_get_status (page));
  }
  ui_note ("/ui/window/dose: %.1f s", (g_get_monotonic_time () - t0) / 1e6);
  ui_close_window (w);
}

/* ---- /ui/window/dose-estimate ------------------------------------------------ */

static const char *
i0_subtitle (CtrStudyPage *page)
{
  GtkWidget *row = gtk_widget_get_ancestor (ui_child (page, CTR_TYPE_STUDY_PAGE, "i0_spin"), ADW_TYPE_ACTION_ROW);
  return row != NULL ? adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) : NULL;
}

static double
i0_value (CtrStudyPage *page)
{
  return gtk_spin_button_get_value (ui_child (page, CTR_TYPE_STUDY_PAGE, "i0_spin"));
}

static gboolean
run_enabled (CtrStudyPage *page)
{
  return gtk_widget_get_sensitive (ui_child (page, CTR_TYPE_STUDY_PAGE, "run_button"));
}

/* The page as the load ends: the session's last notify::busy of the load,
 * in the same call as its notify::dataset (no main-loop iteration between:
 * whatever the page computed in its handler is there, nothing from a
 * thread yet). */
typedef struct {
  CtrStudyPage *page;
  gboolean      seen;
  char         *subtitle;
  double        i0;
  gboolean      run;
} LoadEnd;

static void
on_busy (CtrSession *session, GParamSpec *pspec, LoadEnd *e)
{
  if (e->seen || ctr_session_get_busy (session) || ctr_session_get_dataset (session) == NULL)
    return;
  e->seen = TRUE;
  e->subtitle = g_strdup (i0_subtitle (e->page));
  e->i0 = i0_value (e->page);
  e->run = run_enabled (e->page);
}

static gboolean
estimate_shown (gpointer data)
{
  const char *s = i0_subtitle (data);
  return s != NULL && !g_str_has_prefix (s, "Estimating");
}

/* The page shows the estimate of the session's dataset: the value of
 * ctr_noise_estimate_i0, rounded, and Run enabled. */
static void
check_estimate (CtrWindow *w, CtrStudyPage *page, const char *name)
{
  CtrDataset *d = ctr_session_get_dataset (ctr_window_get_session (w));
  double want = d != NULL ? round (ctr_noise_estimate_i0 (d->projections, NULL)) : NAN;

  ui_wait (estimate_shown, page, 60, "the I0 estimate");
  CHECK (i0_value (page) == want && g_str_has_prefix (i0_subtitle (page), "Estimated from the sinogram's noise"),
         "%s: I0 %.0f, the sinogram's estimate %.0f: “%s”", name, i0_value (page), want, i0_subtitle (page));
  CHECK (run_enabled (page), "%s: Run Study is enabled once the estimate is shown", name);
}

void
test_window_dose_estimate (void)
{
  const char *head = g_getenv ("CTR_UI_LOWDOSE"), *gel = g_getenv ("CTR_UI_DATASET");
  CtrWindow *w;
  CtrSession *session;
  CtrStudyPage *page;
  LoadEnd end = { 0 };

  if (head == NULL || gel == NULL || !g_file_test (head, G_FILE_TEST_EXISTS) || !g_file_test (gel, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("CTR_UI_LOWDOSE (head-fan-lowdose) or CTR_UI_DATASET (gel-fan) not given");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "study");

  /* head-fan-lowdose: 720 views × 736 columns, no I0 stated */
  end.page = page;
  g_signal_connect (session, "notify::busy", G_CALLBACK (on_busy), &end);
  CHECK (ui_open_and_wait (w, head, 60), "%s opened", head);
  g_signal_handlers_disconnect_by_func (session, on_busy, &end);
  CHECK (end.seen && end.subtitle != NULL && g_str_has_prefix (end.subtitle, "Estimating") && end.i0 == 0 && !end.run,
         "as the load ends the I0 is being estimated (not computed in the page's handler): “%s”, value %.0f, Run %s",
         end.subtitle ? end.subtitle : "", end.i0, end.run ? "enabled" : "waiting");
  check_estimate (w, page, "head-fan-lowdose");
  ui_screenshot (GTK_WIDGET (w), "ui-dose-estimate.png");

  /* gel-fan, then head-fan-lowdose as soon as gel-fan is loaded: the I0
   * shown is head-fan-lowdose's */
  {
    g_autoptr(GFile) file = g_file_new_for_path (gel);
    ctr_window_open (w, file);
    ui_wait_idle (w, 60, "gel-fan");
  }
  CHECK (ui_open_and_wait (w, head, 60), "%s opened right after gel-fan", head);
  check_estimate (w, page, "head-fan-lowdose after gel-fan");
  g_free (end.subtitle);
  ui_close_window (w);

  /* a window closed while its estimate runs goes away cleanly (the
   * estimate's late result is dropped; ui_close_window asserts the window
   * is finalized) */
  w = ui_new_window ();
  {
    g_autoptr(GFile) file = g_file_new_for_path (head);
    ctr_window_open (w, file);
    ui_wait_idle (w, 60, "head-fan-lowdose");
  }
  page = ui_child (w, CTR_TYPE_WINDOW, "study_page");
  CHECK (ctr_study_page_get_estimating (page), "a second window estimates the I0 as its load ends");
  ui_close_window (w);
}
