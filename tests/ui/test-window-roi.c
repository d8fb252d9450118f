/* test-window-roi.c — /ui/window/roi: ROI statistics, the ruler and the
 * water calibration in the real window (issue 15, "ROI tools" and "HU done
 * right").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On CTR_UI_DATASET (gel-fan: an agarose gel, which reads about +1,000 HU
 * with the default μ_water): FBP and 3 SIRT iterations; the Circle tool
 * (its toggle button) draws an ROI by a drag through the slice view's own
 * code on the most uniform spot of the gel, and its mean and SD in the
 * table and in the exported CSV must equal ctr_roi_stats on each run's
 * volume to 1e-9 relative; a rectangle marked background (its Bg button)
 * gives the CNR, checked against |Δmean| / SD(background); an ROI is moved
 * and one deleted; the ruler between two known points reads their
 * Euclidean distance in mm; the Compare tiles show the same ROIs; the
 * Water button makes the water ROI read 0 HU (table and pointer read-out),
 * the labels say "calibrated", and a new window on the same dataset finds
 * the calibration again (a key file in $XDG_STATE_HOME, not in the
 * dataset's folder).  Screenshot ui-roi.png.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-hu-preset.h"
#include "ctr-profile-page.h"
#include "ctr-roi-panel.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

static CtrRunPage *
run_page_of (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

/* The most uniform disc of radius @r_mm inside the object (mean above half
 * the slice's largest disc mean), at least @away_mm from (@ax, @ay). */
static gboolean
uniform_spot (CtrVolume *v, double r_mm, double ax, double ay, double away_mm, double *x, double *y)
{
  const CtrGrid *g = &v->grid;
  double best = INFINITY, top = 0;

  for (int pass = 0; pass < 2; pass++)
    for (guint iy = 0; iy < g->ny; iy += 6)
      for (guint ix = 0; ix < g->nx; ix += 6)
        {
          CtrRoi roi = ctr_roi_circle (ctr_grid_x (g, ix), ctr_grid_y (g, iy), r_mm);
          CtrRoiStats s;
          if (hypot (roi.x_mm - ax, roi.y_mm - ay) < away_mm || hypot (roi.x_mm - g->cx, roi.y_mm - g->cy) > 0.35 * g->nx * g->dx ||
              !ctr_roi_stats (v, g->nz / 2, &roi, CTR_MU_WATER_PER_MM, &s, NULL))
            continue;
          if (pass == 0)
            top = MAX (top, s.mean_mu);
          else if (s.mean_mu > 0.5 * top && s.sd_mu < best)
            {
              best = s.sd_mu;
              *x = roi.x_mm;
              *y = roi.y_mm;
            }
        }
  return isfinite (best);
}

static gboolean
close_rel (double a, double b, double rel)
{
  return fabs (a - b) <= rel * MAX (fabs (a), fabs (b)) + 1e-300;
}

/* A drag from image point (x0, y0) to (x1, y1), mm, on @view. */
static gboolean
drag_mm (CtrSliceView *view, double x0, double y0, double x1, double y1)
{
  double a, b, c, d;

  return ctr_slice_view_mm_to_point (view, x0, y0, &a, &b) && ctr_slice_view_mm_to_point (view, x1, y1, &c, &d) &&
         ctr_slice_view_tool_drag (view, a, b, c, d);
}

/* The panel's buttons labelled @label, in the table's order. */
static GPtrArray *
buttons_labelled (GtkWidget *panel, GType type, const char *label)
{
  g_autoptr(GPtrArray) all = ui_find_all (panel, type);
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < all->len; i++)
    if (g_strcmp0 (gtk_button_get_label (all->pdata[i]), label) == 0)
      g_ptr_array_add (out, all->pdata[i]);
  return out;
}

static void
click_tool (GtkWidget *panel, guint tool)
{
  GtkWidget *tools = ui_find (panel, GTK_TYPE_BOX, "roi-tools");
  GtkWidget *b = gtk_widget_get_first_child (tools);

  for (guint i = 0; i < tool && b != NULL; i++)
    b = gtk_widget_get_next_sibling (b);
  g_signal_emit_by_name (b, "clicked");   /* as a click does */
}

static const CtrRoi *
roi_at (CtrRoiSet *set, guint i)
{
  g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (set), i);
  return ctr_roi_item_get_roi (item);   /* the set keeps it */
}

/* The point of the inner image (within 0.35 of its width of the centre)
 * farthest from every ROI of @set (its distance to a ROI: to the centre,
 * less the ROI's half-diagonal or radius), so that a drag there draws a new
 * ROI instead of moving one, whatever the dataset (gel-fan or the simulated
 * head of run-ui-test.sh). */
static void
free_spot (const CtrGrid *g, CtrRoiSet *set, double *x, double *y)
{
  double best = -INFINITY;
  const guint n = g_list_model_get_n_items (G_LIST_MODEL (set));

  for (guint iy = 0; iy < g->ny; iy += 4)
    for (guint ix = 0; ix < g->nx; ix += 4)
      {
        const double px = ctr_grid_x (g, ix), py = ctr_grid_y (g, iy);
        double d = INFINITY;
        if (hypot (px - g->cx, py - g->cy) > 0.35 * g->nx * g->dx)
          continue;
        for (guint k = 0; k < n; k++)
          {
            const CtrRoi *r = roi_at (set, k);
            const double ext = r->shape == CTR_ROI_CIRCLE ? r->radius_mm : 0.5 * hypot (r->width_mm, r->height_mm);
            d = MIN (d, hypot (px - r->x_mm, py - r->y_mm) - ext);
          }
        if (d > best)
          {
            best = d;
            *x = px;
            *y = py;
          }
      }
}

/* Every run's ROI @i in the table and in the rows, against ctr_roi_stats. */
static void
check_stats (CtrWindow *w, CtrRoiPanel *panel, CtrRoiSet *set, guint i, const char *what)
{
  GListModel *results = ctr_session_get_results (ctr_window_get_session (w));
  g_autoptr(GPtrArray) rows = ctr_roi_panel_measure (panel);
  double mu = ctr_roi_set_get_mu_water (set, NULL);
  guint matched = 0, n_runs = g_list_model_get_n_items (results);

  for (guint r = 0; r < n_runs; r++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, r);
      CtrVolume *v = ctr_run_get_result (run);
      CtrRoiStats want;
      g_autofree char *cell = ctr_roi_panel_get_cell (panel, i, ctr_run_get_label (run), "mean");
      g_autofree char *shown = NULL;

      if (!ctr_roi_stats (v, v->grid.nz / 2, roi_at (set, i), mu, &want, NULL))
        continue;
      shown = g_strdup_printf ("%+.1f", want.mean_hu);
      for (guint k = 0; k < rows->len; k++)
        {
          CtrRoiRow *row = rows->pdata[k];
          if (row->position == i && g_strcmp0 (row->image, ctr_run_get_label (run)) == 0 && row->ok &&
              row->stats.n_pixels == want.n_pixels && close_rel (row->stats.mean_hu, want.mean_hu, 1e-9) &&
              close_rel (row->stats.sd_hu, want.sd_hu, 1e-9) && close_rel (row->stats.mean_mu, want.mean_mu, 1e-9))
            matched++;
        }
      CHECK (cell != NULL && g_str_has_prefix (cell, shown), "%s, %s: the table shows mean “%s” (ctr_roi_stats: %.4f HU, SD %.3f, n %zu)",
             what, ctr_run_get_label (run), cell ? cell : "", want.mean_hu, want.sd_hu, want.n_pixels);
    }
  CHECK (n_runs >= 2 && matched == n_runs, "%s: mean, SD and n of all %u runs equal ctr_roi_stats to 1e-9 (%u matched)",
         what, n_runs, matched);
}

/* The CSV read back: a header and one line per row, numbers as computed. */
static void
check_csv (CtrWindow *w, CtrRoiPanel *panel, const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) rows = ctr_roi_panel_measure (panel);
  guint good = 0, n_lines = 0;

  g_remove (path);
  CHECK (ui_export (w, "win.export-roi-csv", path) && g_file_get_contents (path, &text, NULL, NULL),
         "Export ROI CSV writes %s", path);
  if (text == NULL)
    return;
  lines = g_strsplit (text, "\n", -1);
  CHECK (g_str_has_prefix (lines[0], "image,roi,shape,x_mm,y_mm,width_mm,height_mm,n_pixels,mean_hu,sd_hu,"),
         "the CSV header names image, ROI, shape, centre, size, n, mean, SD: “%s”", lines[0]);
  for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
    {
      g_auto(GStrv) f = g_strsplit (lines[l], ",", -1);
      CtrRoiRow *row = l - 1 < rows->len ? rows->pdata[l - 1] : NULL;
      n_lines++;
      if (row != NULL && g_strv_length (f) == 16 && g_strcmp0 (f[0], row->image) == 0 &&
          g_strcmp0 (f[1], row->roi_name) == 0 && strtoull (f[7], NULL, 10) == row->stats.n_pixels &&
          close_rel (g_ascii_strtod (f[8], NULL), row->stats.mean_hu, 1e-9) &&
          close_rel (g_ascii_strtod (f[9], NULL), row->stats.sd_hu, 1e-9) &&
          (isfinite (row->cnr) ? close_rel (g_ascii_strtod (f[12], NULL), row->cnr, 1e-9) : f[12][0] == '\0'))
        good++;
    }
  CHECK (n_lines == rows->len && good == rows->len, "the CSV read back: %u lines, %u equal to the table's %u rows to 1e-9",
         n_lines, good, rows->len);
}

void
test_window_roi (void)
{
  const char *dataset = g_getenv ("CTR_UI_DATASET");
  CtrWindow *w = NULL;
  CtrSliceView *view;
  CtrRoiPanel *panel;
  CtrRoiSet *set;
  CtrRun *run;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0, x2 = 0, y2 = 0, r_mm;

  if (dataset == NULL || !g_file_test (dataset, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no CTR_UI_DATASET");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, dataset, 120), "dataset loaded");
  if (ctr_session_get_dataset (ctr_window_get_session (w)) == NULL)
    {
      ui_close_window (w);
      return;
    }
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  view = ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "slice_view");
  panel = ctr_run_page_get_roi_panel (run_page_of (w));
  set = ctr_slice_view_get_roi_set (view);
  CHECK (set != NULL && g_list_model_get_n_items (G_LIST_MODEL (set)) == 0, "the Run page's view shows the window's ROI set");

  ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  run = ui_run_method (w, CTR_METHOD_SIRT, "iterations", 3);
  if (run == NULL || ctr_run_get_result (run) == NULL)
    {
      CHECK (FALSE, "two runs finished");
      ui_close_window (g_steal_pointer (&w));
      return;
    }
  {
    CtrVolume *v = ctr_run_get_result (run);
    r_mm = 10 * v->grid.dx;
    ui_note ("result %u x %u x %u, dx %g mm, unit %s", v->grid.nx, v->grid.ny, v->grid.nz, v->grid.dx, v->unit);
    gboolean found = uniform_spot (v, r_mm, 1e9, 1e9, 0, &x0, &y0) && uniform_spot (v, r_mm, x0, y0, 6 * r_mm, &x1, &y1);
    CHECK (found, "two uniform spots of the gel: (%.1f, %.1f) and (%.1f, %.1f) mm", x0, y0, x1, y1);
  }

  /* a circle: the Circle tool's button, then a drag from the centre */
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_CIRCLE);
  CHECK (ctr_roi_set_get_tool (set) == CTR_ROI_TOOL_CIRCLE, "the Circle button chooses the circle tool");
  CHECK (drag_mm (view, x0, y0, x0 + r_mm, y0) && g_list_model_get_n_items (G_LIST_MODEL (set)) == 1,
         "a drag on the slice draws ROI 1");
  {
    const CtrRoi *r = roi_at (set, 0);
    CHECK (r->shape == CTR_ROI_CIRCLE && fabs (r->x_mm - x0) < 1e-6 && fabs (r->y_mm - y0) < 1e-6 &&
               fabs (r->radius_mm - r_mm) < 1e-6,
           "ROI 1 is the circle dragged: centre (%.6f, %.6f) mm, radius %.6f mm", r->x_mm, r->y_mm, r->radius_mm);
  }
  check_stats (w, panel, set, 0, "ROI 1");

  /* a rectangle, marked background with its Bg button: CNR */
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_RECTANGLE);
  CHECK (drag_mm (view, x1 - r_mm, y1 - r_mm, x1 + r_mm, y1 + 0.6 * r_mm) && g_list_model_get_n_items (G_LIST_MODEL (set)) == 2,
         "a drag with the Rectangle tool draws ROI 2");
  {
    g_autofree char *unused = ctr_roi_panel_get_cell (panel, 0, "reference", "mean");
    g_autoptr(GPtrArray) bg = buttons_labelled (GTK_WIDGET (panel), GTK_TYPE_TOGGLE_BUTTON, "Bg");
    CHECK (bg->len == 2, "each ROI has a Bg button (%u)", bg->len);
    if (bg->len == 2)
      gtk_toggle_button_set_active (bg->pdata[1], TRUE);
    CHECK (ctr_roi_set_get_background (set) == 1, "ROI 2 is the background");
  }
  {
    CtrVolume *v = ctr_run_get_result (run);
    CtrRoiStats a, b;
    g_autoptr(GPtrArray) rows = ctr_roi_panel_measure (panel);
    g_autofree char *cell = ctr_roi_panel_get_cell (panel, 0, ctr_run_get_label (run), "cnr");
    g_autofree char *want_text = NULL;
    double want = NAN, got = NAN;
    guint n_runs = g_list_model_get_n_items (ctr_session_get_results (ctr_window_get_session (w)));

    if (ctr_roi_stats (v, v->grid.nz / 2, roi_at (set, 0), CTR_MU_WATER_PER_MM, &a, NULL) &&
        ctr_roi_stats (v, v->grid.nz / 2, roi_at (set, 1), CTR_MU_WATER_PER_MM, &b, NULL))
      want = fabs (a.mean_hu - b.mean_hu) / b.sd_hu;
    for (guint k = 0; k < rows->len; k++)
      {
        CtrRoiRow *row = rows->pdata[k];
        if (row->position == 0 && g_strcmp0 (row->image, ctr_run_get_label (run)) == 0)
          got = row->cnr;
      }
    want_text = g_strdup_printf ("%.2f", want);
    CHECK (close_rel (got, want, 1e-9) && g_strcmp0 (cell, want_text) == 0,
           "CNR of ROI 1 against the background on %s: %.4f (|Δmean| / SD(bg) = %.4f), shown “%s”",
           ctr_run_get_label (run), got, want, cell ? cell : "");
    CHECK (rows->len == 2 * (n_runs + 1), "the table has every ROI on every run and the reference: %u rows for %u runs",
           rows->len, n_runs);
  }
  check_stats (w, panel, set, 1, "ROI 2");

  /* move ROI 2 by a drag inside it; a third ROI deleted by its button */
  CHECK (drag_mm (view, x1, y1, x1 + 3, y1 - 2) && fabs (roi_at (set, 1)->x_mm - (x1 + 3)) < 1e-6 &&
             fabs (roi_at (set, 1)->y_mm - (y1 - 0.2 * r_mm - 2)) < 1e-6 && g_list_model_get_n_items (G_LIST_MODEL (set)) == 2,
         "a drag inside ROI 2 moves it by (+3, −2) mm");
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_CIRCLE);
  free_spot (&ctr_run_get_result (run)->grid, set, &x2, &y2);
  drag_mm (view, x2, y2, x2 + 2, y2);
  {
    g_autofree char *unused = ctr_roi_panel_get_cell (panel, 0, "reference", "mean");
    g_autoptr(GPtrArray) del = g_ptr_array_new ();
    g_autoptr(GPtrArray) all = ui_find_all (GTK_WIDGET (panel), GTK_TYPE_BUTTON);
    guint before = g_list_model_get_n_items (G_LIST_MODEL (set));

    for (guint i = 0; i < all->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (all->pdata[i]), "Delete this ROI") == 0)
        g_ptr_array_add (del, all->pdata[i]);
    if (del->len == 3)
      g_signal_emit_by_name (del->pdata[2], "clicked");
    CHECK (before == 3 && del->len == 3 && g_list_model_get_n_items (G_LIST_MODEL (set)) == 2 &&
               ctr_roi_set_get_background (set) == 1,
           "a third ROI is deleted by its button; ROI 2 stays the background");
  }
  /* Delete (roi.delete-selected) removes the ROI last drawn */
  drag_mm (view, x2, y2, x2 + 2, y2);
  {
    guint before = g_list_model_get_n_items (G_LIST_MODEL (set));
    int selected = ctr_roi_set_get_selected (set);
    gboolean done = gtk_widget_activate_action (GTK_WIDGET (panel), "roi.delete-selected", NULL);
    guint after = g_list_model_get_n_items (G_LIST_MODEL (set));
    gboolean again = gtk_widget_activate_action (GTK_WIDGET (panel), "roi.delete-selected", NULL);
    CHECK (before == 3 && selected == 2 && done && after == 2 && ctr_roi_set_get_selected (set) == -1 &&
               g_list_model_get_n_items (G_LIST_MODEL (set)) == 2,
           "Delete removes the ROI just drawn (%u → %u ROIs, selected %d), then has nothing to delete (%s)", before,
           after, selected, again ? "activated, nothing removed" : "disabled");
  }

  /* the ruler between two known points */
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_RULER);
  {
    double r[4] = { 0 };
    g_autofree char *text = NULL;
    double want = hypot (12.0, 16.0);

    drag_mm (view, -9, -6, 3, 10);
    text = ctr_slice_view_describe_ruler (view);
    CHECK (ctr_roi_set_get_ruler (set, r) && fabs (hypot (r[2] - r[0], r[3] - r[1]) - want) < 1e-9 &&
               g_strcmp0 (text, "20.00 mm") == 0,
           "the ruler from (−9, −6) to (3, 10) mm reads “%s” (Euclidean %.2f mm)", text ? text : "", want);
  }
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_NONE);

  /* an image whose pixel size is unknown: the ruler in pixels */
  {
    CtrGrid g = ctr_grid_square (32, 1.0, 1, 1.0);
    CtrVolume *per_pixel = ctr_volume_new (&g, NULL);
    GtkWidget *lone = ctr_slice_view_new ();
    g_autofree char *text = NULL;

    g_object_ref_sink (lone);
    ctr_volume_set_unit (per_pixel, "1/pixel");
    ctr_slice_view_set_image (CTR_SLICE_VIEW (lone), per_pixel, 0);
    ctr_slice_view_set_roi_set (CTR_SLICE_VIEW (lone), set);
    text = ctr_slice_view_describe_ruler (CTR_SLICE_VIEW (lone));
    CHECK (g_strcmp0 (text, "20.0 px") == 0, "on an image of unknown pixel size the same ruler reads “%s”", text ? text : "");
    ctr_slice_view_set_roi_set (CTR_SLICE_VIEW (lone), NULL);
    g_object_unref (lone);
    ctr_volume_unref (per_pixel);
  }

  /* the Compare tiles show the same set */
  {
    CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
    g_autoptr(GPtrArray) tiles = ui_find_all (ui_child (compare, CTR_TYPE_COMPARE_PAGE, "compare_grid"), CTR_TYPE_SLICE_VIEW);
    guint shown = 0;
    for (guint t = 0; t < tiles->len; t++)
      shown += ctr_slice_view_get_roi_set (tiles->pdata[t]) == set;
    CHECK (tiles->len >= 2 && shown == tiles->len, "every Compare tile shows the window's ROIs (%u of %u)", shown, tiles->len);
  }

  {
    g_autofree char *csv = ui_out_path ("roi.csv");
    check_csv (w, panel, csv);
  }

  /* water calibration: ROI 1 is in the gel, which is nearly water */
  {
    CtrVolume *v = ctr_slice_view_get_image (view);
    GtkDropDown *presets = ui_child (run_page_of (w), CTR_TYPE_RUN_PAGE, "preset_dropdown");
    g_autoptr(GPtrArray) water = buttons_labelled (GTK_WIDGET (panel), GTK_TYPE_BUTTON, "Water");
    const char *warning = ctr_roi_panel_get_warning (panel);
    double want_mu = NAN, px, py;
    gboolean calibrated = FALSE;
    CtrRoiStats s;

    gtk_drop_down_set_selected (presets, ctr_hu_preset_find ("soft-tissue"));
    ui_note ("before calibration: %s", warning ? warning : "no warning");
    {
      g_autofree char *wl = ctr_slice_view_describe_window (view);
      CHECK (strstr (wl, "μ_water 0.0192/mm (default)") != NULL, "uncalibrated, the HU label says “%s”", wl);
    }
    ctr_roi_water_calibration (v, v->grid.nz / 2, roi_at (set, 0), &want_mu, NULL);
    CHECK (water->len == 2, "each ROI has a Water button");
    if (water->len == 2)
      g_signal_emit_by_name (water->pdata[0], "clicked");
    CHECK (close_rel (ctr_roi_set_get_mu_water (set, &calibrated), want_mu, 1e-12) && calibrated,
           "Water on ROI 1: μ_water %.6g/mm for this dataset (ctr_roi_water_calibration: %.6g)",
           ctr_roi_set_get_mu_water (set, NULL), want_mu);
    s.mean_hu = NAN;
    ctr_roi_stats (v, v->grid.nz / 2, roi_at (set, 0), ctr_roi_set_get_mu_water (set, NULL), &s, NULL);
    CHECK (fabs (s.mean_hu) < 1e-6,
           "ROI 1 now reads %.2g HU on the image shown", s.mean_hu);
    {
      g_autofree char *wl = ctr_slice_view_describe_window (view);
      g_autofree char *info = NULL;
      const char *hu_at;
      double hu = NAN;

      ui_spin (50);
      ctr_slice_view_mm_to_point (view, roi_at (set, 0)->x_mm, roi_at (set, 0)->y_mm, &px, &py);
      ctr_slice_view_point_at (view, px, py);
      g_object_get (view, "pointer-info", &info, NULL);
      hu_at = info ? strstr (info, "mm   ") : NULL;
      if (hu_at != NULL)
        hu = g_ascii_strtod (hu_at + 5, NULL);
      CHECK (strstr (wl, "(calibrated)") != NULL && strstr (wl, "W 400  L 40 HU") != NULL,
             "the soft-tissue window label says “%s”", wl);
      CHECK (info && strstr (info, "(calibrated)") && fabs (hu) < 4 * s.sd_hu + 1,
             "the read-out at ROI 1's centre: “%s” (≈ 0 HU within 4 SD = %.0f HU)", info ? info : "", 4 * s.sd_hu);
    }
    {
      g_autofree char *cell = NULL;
      g_autofree char *label = g_strdup (ctr_run_get_label (ctr_session_get_latest_result (ctr_window_get_session (w))));
      cell = ctr_roi_panel_get_cell (panel, 0, label, "mean");
      CHECK (cell != NULL && (g_str_equal (cell, "+0.0") || g_str_equal (cell, "-0.0")),
             "the table's ROI 1 on %s reads “%s” HU", label, cell ? cell : "");
      CHECK (ctr_roi_panel_get_warning (panel) == NULL, "no uncalibrated-HU warning after the calibration");
    }
    /* the profile in HU follows the calibration (its CSV header says so) */
    {
      CtrProfilePage *profile = ui_child (w, CTR_TYPE_WINDOW, "profile_page");
      g_autofree char *csv = ui_out_path ("roi-profile.csv");
      g_autofree char *text = NULL;
      g_autofree char *want = g_strdup_printf ("[HU (calibrated μ_water %.4g /mm)]", ctr_roi_set_get_mu_water (set, NULL));

      g_unlink (csv);
      CHECK (ctr_profile_page_get_n_curves (profile) > 0 && ui_export (w, "win.export-profile", csv) &&
                 g_file_get_contents (csv, &text, NULL, NULL) && strstr (text, want),
             "the profile CSV is in HU with the calibrated μ_water: %s", want);
    }
    CHECK (warning != NULL || !ctr_roi_water_suspect (v, CTR_MU_WATER_PER_MM, NULL),
           "before it, a warning said HU may be off when the object read far from 0 HU");
  }
  /* the sidebar scrolled to the ROI table, the ruler inside the image */
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_RULER);
  drag_mm (view, roi_at (set, 0)->x_mm, roi_at (set, 0)->y_mm, roi_at (set, 1)->x_mm, roi_at (set, 1)->y_mm);
  click_tool (GTK_WIDGET (panel), CTR_ROI_TOOL_NONE);
  {
    GtkWidget *scrolled = gtk_widget_get_ancestor (GTK_WIDGET (panel), GTK_TYPE_SCROLLED_WINDOW);
    GtkWidget *content = scrolled ? gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)) : NULL;
    graphene_point_t at;

    if (content != NULL && gtk_widget_compute_point (GTK_WIDGET (panel), content, &GRAPHENE_POINT_INIT (0, 0), &at))
      gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)), at.y - 12);
  }
  ui_screenshot (GTK_WIDGET (w), "ui-roi.png");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
  ui_screenshot (GTK_WIDGET (w), "ui-roi-compare.png");
  {
    double mu = ctr_roi_set_get_mu_water (set, NULL);
    CtrWindow *again = NULL;
    g_autofree char *folder = g_path_get_dirname (dataset);
    g_autofree char *stored = g_build_filename (g_get_user_state_dir (), "ctrecon", "water-calibration.ini", NULL);
    gboolean calibrated = FALSE;
    CtrRoiSet *set2;

    ui_close_window (g_steal_pointer (&w));
    again = ui_new_window ();
    ui_open_and_wait (again, dataset, 120);
    set2 = ctr_slice_view_get_roi_set (ui_child (run_page_of (again), CTR_TYPE_RUN_PAGE, "slice_view"));
    CHECK (ctr_roi_set_get_mu_water (set2, &calibrated) == mu && calibrated && g_file_test (stored, G_FILE_TEST_EXISTS) &&
               !g_str_has_prefix (stored, folder),
           "a new window on the dataset uses its calibration again (%s)", stored);
    /* its Default button forgets it (and leaves the next tests the default) */
    {
      CtrRoiPanel *panel2 = ctr_run_page_get_roi_panel (run_page_of (again));
      g_autoptr(GPtrArray) reset = buttons_labelled (GTK_WIDGET (panel2), GTK_TYPE_BUTTON, "Default");
      g_autoptr(GKeyFile) kf = g_key_file_new ();
      g_auto(GStrv) groups = NULL;

      if (reset->len == 1)
        g_signal_emit_by_name (reset->pdata[0], "clicked");
      g_key_file_load_from_file (kf, stored, G_KEY_FILE_NONE, NULL);
      groups = g_key_file_get_groups (kf, NULL);
      CHECK (reset->len == 1 && ctr_roi_set_get_mu_water (set2, &calibrated) == CTR_MU_WATER_PER_MM && !calibrated &&
                 g_strv_length (groups) == 0,
             "Default returns to μ_water 0.0192/mm and forgets the dataset's calibration");
    }
    ui_close_window (g_steal_pointer (&again));
  }
}
