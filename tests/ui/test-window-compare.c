/* test-window-compare.c — the Compare page with the runs and the difference
 * the user chooses (issue 15, "Compare"), on the real window: the "Runs"
 * menu adds an older run and hides the reference, the "Difference"
 * drop-downs give run − run and run − reference (checked pixel by pixel
 * against the runs' images), every run's tile names its RMSE and SSIM (the
 * run's own last report), the pointer read-out is linked across tiles, and
 * "Newest Three" returns to the default.  Screenshot ui-compare-choice.png.
 * Part of /ui/window/study (test-window-study.c), which leaves four results
 * of gel-fan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-slice-view.h"

typedef struct {
  CtrComparePage *page;
  GtkWidget      *grid;
} Compare;

static GPtrArray *
tiles_of (Compare *c)
{
  return ui_find_all (c->grid, CTR_TYPE_SLICE_VIEW);
}

static char *
caption_of (gpointer tile)
{
  char *caption = NULL;
  g_object_get (tile, "caption", &caption, NULL);
  return caption;
}

/* (transfer none) the tile whose caption starts with @prefix, or NULL. */
static CtrSliceView *
tile_with (Compare *c, const char *prefix)
{
  g_autoptr(GPtrArray) tiles = tiles_of (c);

  for (guint i = 0; i < tiles->len; i++)
    {
      g_autofree char *caption = caption_of (tiles->pdata[i]);
      if (caption != NULL && g_str_has_prefix (caption, prefix))
        return tiles->pdata[i];
    }
  return NULL;
}

/* The drop-down entry that reads @text, or GTK_INVALID_LIST_POSITION. */
static guint
entry_of (GtkDropDown *drop, const char *text)
{
  GListModel *model = gtk_drop_down_get_model (drop);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (model), i), text) == 0)
      return i;
  return GTK_INVALID_LIST_POSITION;
}

/* The centre pixel of the middle slice. */
static float
centre (const CtrVolume *v)
{
  return ctr_volume_slice (v, v->grid.nz / 2)[(gsize) (v->grid.ny / 2) * v->grid.nx + v->grid.nx / 2];
}

/* The read-out without its value: "x +1.0 mm  y −2.0 mm". */
static char *
position_of (CtrSliceView *tile)
{
  g_autofree char *info = NULL;
  const char *end;

  g_object_get (tile, "pointer-info", &info, NULL);
  end = info ? strstr (info, "   ") : NULL;
  return end ? g_strndup (info, end - info) : NULL;
}

static void
check_captions (Compare *c, GListModel *results)
{
  guint good = 0, n = g_list_model_get_n_items (results);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      const CtrIterStats *s = ctr_run_get_n_stats (run) ? ctr_run_get_stats (run, ctr_run_get_n_stats (run) - 1) : NULL;
      CtrSliceView *tile = tile_with (c, ctr_run_get_label (run));
      g_autofree char *caption = tile ? caption_of (tile) : NULL;
      g_autofree char *expected = NULL;

      if (tile == NULL || s == NULL || !s->has_reference)
        continue;
      /* as every page writes them (ctr-quality-text.h): HU, the 1/mm
       * figure, SSIM and the mask */
      expected = g_strdup_printf ("HU (%.3g /mm) · SSIM %.3f · field-of-view disc, r %.1f mm", s->rmse, s->ssim,
                                  ctr_run_get_options (run)->metrics_radius_mm);
      good += caption != NULL && g_str_has_prefix (caption, ctr_run_get_label (run)) && strstr (caption, expected);
      if (caption == NULL || strstr (caption, expected) == NULL)
        ui_note ("caption “%s”, expected it to hold “%s”", caption, expected);
    }
  CHECK (good == 3, "the three run tiles name their run's RMSE and SSIM against the reference (%u of 3)", good);
}

void
ui_study_compare (CtrWindow *w)
{
  CtrSession *session = ctr_window_get_session (w);
  GListModel *results = ctr_session_get_results (session);
  CtrVolume *ref = ctr_session_get_dataset (session)->reference;
  Compare c = { ui_child (w, CTR_TYPE_WINDOW, "compare_page"), NULL };
  GtkMenuButton *runs_button = ui_child (c.page, CTR_TYPE_COMPARE_PAGE, "runs_button");
  GtkDropDown *drop_a = ui_child (c.page, CTR_TYPE_COMPARE_PAGE, "diff_a_drop");
  GtkDropDown *drop_b = ui_child (c.page, CTR_TYPE_COMPARE_PAGE, "diff_b_drop");
  g_autoptr(CtrRun) oldest = NULL, second = NULL, newest = NULL;
  GtkWidget *menu;
  guint n = g_list_model_get_n_items (results);

  c.grid = ui_child (c.page, CTR_TYPE_COMPARE_PAGE, "compare_grid");
  if (n < 4 || ref == NULL)
    {
      CHECK (FALSE, "Compare needs four results and a reference (%u results)", n);
      return;
    }
  oldest = g_list_model_get_item (results, 0);
  second = g_list_model_get_item (results, 1);
  newest = g_list_model_get_item (results, n - 1);
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
  ui_spin (100);

  /* the default: the three newest, the reference, newest − the one before */
  CHECK (ctr_compare_page_get_n_tiles (c.page) == 5 && tile_with (&c, ctr_run_get_label (oldest)) == NULL &&
             tile_with (&c, "reference") != NULL,
         "by default the three newest runs, the reference and a difference (%u tiles)",
         ctr_compare_page_get_n_tiles (c.page));
  check_captions (&c, results);

  /* the Runs menu: add the oldest run, hide the reference */
  gtk_menu_button_popup (runs_button);
  ui_spin (100);
  menu = gtk_popover_get_child (gtk_menu_button_get_popover (runs_button));
  {
    g_autofree char *name = g_strdup_printf ("compare-run-%u", ctr_run_get_number (oldest));
    GtkWidget *check = ui_find (menu, GTK_TYPE_CHECK_BUTTON, name);
    GtkWidget *reference = ui_find (menu, GTK_TYPE_CHECK_BUTTON, "compare-reference");

    CHECK (check != NULL && reference != NULL && !gtk_check_button_get_active (GTK_CHECK_BUTTON (check)) &&
               gtk_check_button_get_active (GTK_CHECK_BUTTON (reference)),
           "the Runs menu lists every result (the oldest unchecked) and the reference (checked)");
    if (check != NULL)
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
    CHECK (ctr_compare_page_get_n_tiles (c.page) == 6 && tile_with (&c, ctr_run_get_label (oldest)) != NULL,
           "checking the oldest run adds its tile (%u tiles: four runs, reference, difference)",
           ctr_compare_page_get_n_tiles (c.page));
    /* the menu is rebuilt only when the results change: same widgets */
    reference = ui_find (gtk_popover_get_child (gtk_menu_button_get_popover (runs_button)), GTK_TYPE_CHECK_BUTTON,
                         "compare-reference");
    if (reference != NULL)
      gtk_check_button_set_active (GTK_CHECK_BUTTON (reference), FALSE);
    CHECK (ctr_compare_page_get_n_tiles (c.page) == 5 && tile_with (&c, "reference") == NULL &&
               g_strcmp0 (gtk_menu_button_get_label (runs_button), "Runs: 4 Chosen") == 0,
           "unchecking the reference removes its tile; the button reads “%s”", gtk_menu_button_get_label (runs_button));
  }
  gtk_menu_button_popdown (runs_button);

  /* Difference: oldest − second, then oldest − reference, pixel by pixel */
  {
    guint ia = entry_of (drop_a, ctr_run_get_label (oldest));
    guint ib = entry_of (drop_b, ctr_run_get_label (second));
    CtrSliceView *tile;
    double expect, got;

    CHECK (ia != GTK_INVALID_LIST_POSITION && ib != GTK_INVALID_LIST_POSITION,
           "the Difference drop-downs list the runs");
    if (ia == GTK_INVALID_LIST_POSITION || ib == GTK_INVALID_LIST_POSITION)
      return;
    gtk_drop_down_set_selected (drop_a, ia);
    gtk_drop_down_set_selected (drop_b, ib);
    tile = tile_with (&c, "difference: ");
    expect = (double) centre (ctr_run_get_result (oldest)) - centre (ctr_run_get_result (second));
    got = tile ? centre (ctr_slice_view_get_image (tile)) : NAN;
    {
      g_autofree char *caption = tile ? caption_of (tile) : NULL;
      g_autofree char *title = g_strdup_printf ("difference: %s − %s · RMS ", ctr_run_get_label (oldest),
                                                ctr_run_get_label (second));
      CHECK (caption && g_str_has_prefix (caption, title) && fabs (got - expect) <= 1e-6 * fabs (expect) + 1e-9,
             "run − run: “%s”, centre %.6g (expected %.6g)", caption ? caption : "none", got, expect);
    }
    gtk_drop_down_set_selected (drop_b, entry_of (drop_b, "reference"));
    tile = tile_with (&c, "difference: ");
    expect = (double) centre (ctr_run_get_result (oldest)) - centre (ref);
    got = tile ? centre (ctr_slice_view_get_image (tile)) : NAN;
    {
      g_autofree char *caption = tile ? caption_of (tile) : NULL;
      CHECK (caption && strstr (caption, "− reference · RMS ") && fabs (got - expect) <= 1e-6 * fabs (expect) + 1e-9,
             "run − reference: “%s”, centre %.6g (expected %.6g)", caption ? caption : "none", got, expect);
    }
  }

  /* the pointer over one tile reads out the same point on the others */
  {
    g_autoptr(GPtrArray) tiles = tiles_of (&c);
    guint same = 0;
    g_autofree char *here = NULL;

    ui_spin (100);
    ctr_slice_view_point_at (tiles->pdata[0], gtk_widget_get_width (tiles->pdata[0]) * 0.4,
                             gtk_widget_get_height (tiles->pdata[0]) * 0.45);
    here = position_of (tiles->pdata[0]);
    for (guint i = 1; i < tiles->len; i++)
      {
        g_autofree char *there = position_of (tiles->pdata[i]);
        same += here != NULL && g_strcmp0 (here, there) == 0;
      }
    CHECK (here != NULL && same == tiles->len - 1, "the read-out “%s” is shown on all %u tiles (%u follow)",
           here ? here : "", tiles->len, same);
    ui_screenshot (GTK_WIDGET (w), "ui-compare-choice.png");
  }

  /* back to the default */
  gtk_drop_down_set_selected (drop_a, 0);
  ctr_compare_page_choose_runs (c.page, NULL, 0, TRUE);
  CHECK (ctr_compare_page_get_n_tiles (c.page) == 5 && tile_with (&c, ctr_run_get_label (newest)) != NULL &&
             g_strcmp0 (gtk_menu_button_get_label (runs_button), "Runs: Newest") == 0,
         "Newest Three and Automatic return to the default (%u tiles)", ctr_compare_page_get_n_tiles (c.page));
}
