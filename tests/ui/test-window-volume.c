/* test-window-volume.c — volumes on the Run page as issue 31 asks (items 5
 * and 6): three views with one window/level, the live view of an iterative
 * volume run, a cancelled volume run kept as a volume.
 *
 * /ui/window/volume-run: cone SIRT on head-cone-small with the coronal
 *   plane and a slice chosen before the run: every live report shows that
 *   coronal slice of the whole current iterate (before: the middle axial
 *   slice whatever the selector said); cancelled after two iterations, the
 *   run keeps its last iterate as a volume (before: nothing, only the 2-D
 *   slice on screen), shown in three views, every plane viewable, its
 *   values those of a SIRT run of as many iterations.  Every live report
 *   and every plane and slice of the kept volume: the slice toolbar says
 *   the plane, slice and count the view shows (before: "Slice 1" beside
 *   "Coronal 33 / 64" when nothing was shown before the run).
 *   Without the dataset's reference (the reports then carry the three
 *   planes through the crosshair, CTR_REPORT_PLANES): the slice is chosen
 *   after the first report, as a user does; a later report brings that
 *   slice (before: zeros off the run's first planes until the run ended),
 *   the live slice of the kept iteration is the kept volume's
 *   (ui-volume-live-noref.png, ui-volume-cancelled-noref.png).
 * /ui/window/volume-window: one window/level across slices and planes:
 *   paging and changing plane keep the automatic window (before: one per
 *   slice, brightness jumping), a Hounsfield preset's and "Custom (HU)"
 *   (before: the automatic window again on every slice); the three views
 *   share it.  A click on the axial view moves the coronal and sagittal
 *   slices to the clicked voxel (the linked crosshair): ui-three-views.png.
 * /ui/window/plane-memory: the memory the process may use lowered to 10 KiB
 *   (CTR_MEMORY_LIMIT_MB) while head-cone-small's reference is shown: a
 *   coronal plane's copy (128 × 128 floats) and the pictures do not fit,
 *   and each view says so in place of its image (ui-plane-memory.png;
 *   before: GLib's abort where the memory was really short); the limit
 *   lifted, the planes are drawn again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_CONE (head-cone-small's geometry.json; skips
 * without it), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-compare-page.h"
#include "ctr-hu-preset.h"
#include "ctr-profile-page.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

static const char *
cone_path (void)
{
  const char *p = g_getenv ("CTR_UI_CONE");
  return p != NULL && g_file_test (p, G_FILE_TEST_IS_REGULAR) ? p : NULL;
}

static CtrRunPage *
page_of (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

/* The Run page's slice views showing a volume (nz > 1), main view first. */
static GPtrArray *
volume_views (CtrWindow *w)
{
  g_autoptr(GPtrArray) all = ui_find_all (GTK_WIDGET (page_of (w)), CTR_TYPE_SLICE_VIEW);
  GPtrArray *shown = g_ptr_array_new ();

  for (guint i = 0; i < all->len; i++)
    {
      CtrVolume *v = ctr_slice_view_get_image (all->pdata[i]);
      if (gtk_widget_is_visible (all->pdata[i]) && v != NULL && v->grid.nz > 1)
        g_ptr_array_add (shown, all->pdata[i]);
    }
  return shown;
}

static void
set_orientation (CtrWindow *w, CtrSliceOrientation o)
{
  gtk_drop_down_set_selected (ui_child (page_of (w), CTR_TYPE_RUN_PAGE, "orientation_dropdown"), o);
}

static void
set_slice (CtrWindow *w, guint one_based)
{
  gtk_adjustment_set_value (ui_child (page_of (w), CTR_TYPE_RUN_PAGE, "slice_adjustment"), one_based);
}

static void
set_preset (CtrWindow *w, const char *name)
{
  gtk_drop_down_set_selected (ui_child (page_of (w), CTR_TYPE_RUN_PAGE, "preset_dropdown"), ctr_hu_preset_find (name));
}

/* ---- /ui/window/volume-run ---------------------------------------------------- */

typedef struct {
  CtrWindow    *w;
  CtrSliceView *main;
  CtrGrid       grid;
  gboolean      noref;         /* no reference: the reports carry planes */
  guint         slice;         /* the coronal slice chosen (0-based) */
  gboolean      moved;         /* noref: the slice was chosen (after the first report) */
  guint         live;          /* reports with an image */
  guint         live_coronal;  /* ... shown as that coronal slice of the whole iterate */
  guint         filled;        /* noref: ... with that slice reported (not zeros off the other planes) */
  guint         toolbar_bad;   /* ... whose slice toolbar said another slice */
  float        *row;           /* noref: the chosen slice as last shown (nx × nz floats), nullable */
  guint         row_iteration; /* ... at this iteration */
  gboolean      cancelled;
} Live;

/* The chosen coronal slice of @v (nx × nz floats, x fastest) into l->row;
 * returns how many of its voxels off the crosshair's other planes are not 0. */
static guint
keep_row (Live *l, const CtrVolume *v, guint iteration)
{
  const CtrGrid *g = &v->grid;
  guint cross[3], nonzero = 0;

  ctr_run_page_get_voxel (page_of (l->w), g, cross);
  if (l->row == NULL)
    l->row = g_new (float, (gsize) g->nx * g->nz);
  for (guint z = 0; z < g->nz; z++)
    for (guint x = 0; x < g->nx; x++)
      {
        float f = v->data[x + (gsize) g->nx * (l->slice + (gsize) g->ny * z)];
        l->row[x + (gsize) g->nx * z] = f;
        nonzero += x != cross[0] && z != cross[2] && f != 0.f;
      }
  l->row_iteration = iteration;
  return nonzero;
}

static void
on_live (CtrSession *session, GParamSpec *pspec, Live *l)
{
  const CtrIterStats *s = ctr_session_get_latest_stats (session);
  CtrVolume *shown;
  g_autofree char *said = NULL;

  if (s == NULL || s->image == NULL || ctr_session_get_running (session) == FALSE)
    return;
  l->live++;
  shown = ctr_slice_view_get_image (l->main);
  if (!ui_slice_field_agrees (l->w, &said))
    {
      l->toolbar_bad++;
      ui_note ("report %u (iteration %u): %s", l->live, s->iteration, said);
    }
  if (l->noref && !l->moved)
    {
      /* without a reference nothing was shown before this first report:
       * the slice is chosen now, as a user does, mid-run */
      l->moved = TRUE;
      set_slice (l->w, l->slice + 1);
      return;
    }
  if (shown != NULL && ctr_grid_equal (&shown->grid, &l->grid) &&
      ctr_slice_view_get_n_slices (l->main) == l->grid.ny && ctr_slice_view_get_slice (l->main) == l->slice)
    {
      l->live_coronal++;
      if (l->noref && keep_row (l, shown, s->iteration) > l->grid.nx * l->grid.nz / 10 && l->filled++ == 0)
        ui_screenshot (GTK_WIDGET (l->w), "ui-volume-live-noref.png");   /* the slice chosen mid-run, filled */
    }
  /* without a reference: on once a report brought the chosen slice (the
   * one after the move, or the next when the worker had already begun it) */
  if (s->iteration >= 2 && !l->cancelled && (!l->noref || l->filled > 0 || s->iteration >= 12))
    {
      l->cancelled = TRUE;
      gtk_widget_activate_action (GTK_WIDGET (l->w), "win.cancel-reconstruction", NULL);
    }
}

static double
max_abs_diff (const CtrVolume *a, const CtrVolume *b, double *norm)
{
  double d = 0;

  *norm = 0;
  for (gsize i = 0; i < ctr_grid_size (&a->grid); i++)
    {
      d = MAX (d, fabs (a->data[i] - b->data[i]));
      *norm = MAX (*norm, fabs (b->data[i]));
    }
  return d;
}

static void
check_planes (CtrWindow *w, const CtrVolume *kept)
{
  static const char *names[] = { "axial", "coronal", "sagittal" };
  guint want[3] = { kept->grid.nz, kept->grid.ny, kept->grid.nx };
  g_autoptr(GPtrArray) views = volume_views (w);
  guint counts[3] = { 0 };

  for (guint i = 0; i < views->len; i++)
    for (guint o = 0; o < 3; o++)
      if (ctr_slice_view_get_image (views->pdata[i]) == kept && ctr_slice_view_get_n_slices (views->pdata[i]) == want[o] &&
          (o != 2 || counts[1] > 0 || want[1] != want[2]))
        {
          counts[o]++;
          break;
        }
  CHECK (views->len == 3 && counts[0] == 1 && counts[1] + counts[2] == 2,
         "the kept volume is shown in three views (axial, coronal, sagittal): %u views", views->len);
  for (guint o = 0; o < 3; o++)
    {
      CtrSliceView *main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page_of (w)), CTR_TYPE_SLICE_VIEW, NULL));
      set_orientation (w, o);
      ui_spin (50);
      CHECK (ctr_slice_view_get_image (main) == kept && ctr_slice_view_get_n_slices (main) == want[o],
             "the %s plane of the kept volume is viewable: %u slices", names[o], ctr_slice_view_get_n_slices (main));
      for (guint q = 0; q < 3; q++)
        {
          const guint at = q == 0 ? 1 : q == 1 ? want[o] : (want[o] + 1) / 2;   /* the middle last */
          g_autofree char *said = NULL;
          gboolean agrees;
          set_slice (w, at);
          ui_spin (20);
          agrees = ui_slice_field_agrees (w, &said);
          CHECK (agrees, "%s slice %u: the toolbar says the view's slice: %s", names[o], at, said);
        }
    }
}

/* Compare's volume tiles and Profile's plane follow the Run page's plane
 * and crosshair; their own Slice controls move the Run page. */
static void
check_linked_pages (CtrWindow *w, gboolean noref)
{
  CtrComparePage *compare = ui_child (w, CTR_TYPE_WINDOW, "compare_page");
  CtrProfilePage *profile = ui_child (w, CTR_TYPE_WINDOW, "profile_page");
  CtrSliceView *main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page_of (w)), CTR_TYPE_SLICE_VIEW, NULL));
  CtrSliceView *profile_view = ui_child (profile, CTR_TYPE_PROFILE_PAGE, "profile_view");
  g_autoptr(GPtrArray) tiles = ui_find_all (GTK_WIDGET (compare), CTR_TYPE_SLICE_VIEW);
  guint volumes = 0, following = 0;

  set_orientation (w, CTR_SLICE_CORONAL);
  set_slice (w, 21);
  ui_spin (50);
  g_ptr_array_unref (tiles);
  tiles = ui_find_all (GTK_WIDGET (compare), CTR_TYPE_SLICE_VIEW);
  for (guint i = 0; i < tiles->len; i++)
    {
      CtrVolume *v = ctr_slice_view_get_image (tiles->pdata[i]);
      if (v == NULL || v->grid.nz <= 1)
        continue;
      volumes++;
      if (ctr_slice_view_get_orientation (tiles->pdata[i]) == CTR_SLICE_CORONAL &&
          ctr_slice_view_get_slice (tiles->pdata[i]) == 20)
        following++;
    }
  CHECK (volumes >= (noref ? 2u : 3u) && following == volumes,
         "Compare's volume tiles (runs%s) follow the Run page's coronal slice 21: %u of %u",
         noref ? "" : ", reference, difference", following, volumes);
  gtk_adjustment_set_value (ui_child (compare, CTR_TYPE_COMPARE_PAGE, "slice_adj"), 35);
  ui_spin (50);
  CHECK (ctr_slice_view_get_orientation (main) == CTR_SLICE_CORONAL && ctr_slice_view_get_slice (main) == 34,
         "Compare's Slice control moves the Run page to coronal slice 35: slice %u",
         ctr_slice_view_get_slice (main) + 1);
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "compare");
  ui_screenshot (GTK_WIDGET (w), noref ? "ui-compare-volume-noref.png" : "ui-compare-volume.png");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  set_orientation (w, CTR_SLICE_AXIAL);
  set_slice (w, 11);
  ui_spin (50);
  CHECK (ctr_slice_view_get_slice (profile_view) == 10,
         "the Profile page shows and samples the Run page's axial slice 11: slice %u",
         ctr_slice_view_get_slice (profile_view) + 1);
  set_orientation (w, CTR_SLICE_SAGITTAL);
  set_slice (w, 25);
  ui_spin (50);
  CHECK (ctr_slice_view_get_orientation (profile_view) == CTR_SLICE_SAGITTAL &&
             ctr_slice_view_get_slice (profile_view) == 24 &&
             ctr_profile_page_get_n_curves (profile) >= (noref ? 2u : 3u),
         "the Profile page follows to sagittal slice 25 with a line across it: %u curves (runs%s)",
         ctr_profile_page_get_n_curves (profile), noref ? "" : " and reference");
  gtk_adjustment_set_value (ui_child (profile, CTR_TYPE_PROFILE_PAGE, "slice_adj"), 40);
  ui_spin (50);
  CHECK (ctr_slice_view_get_orientation (main) == CTR_SLICE_SAGITTAL && ctr_slice_view_get_slice (main) == 39,
         "Profile's Slice control moves the Run page to sagittal slice 40: slice %u",
         ctr_slice_view_get_slice (main) + 1);
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "profile");
  ui_screenshot (GTK_WIDGET (w), noref ? "ui-profile-volume-noref.png" : "ui-profile-volume.png");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
}

void
test_window_volume_run (void)
{
  Live l = { 0 };
  CtrSession *session;
  CtrRun *run, *again;
  guint n0, k = 0;

  if (cone_path () == NULL)
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  l.w = ui_new_window ();
  session = ctr_window_get_session (l.w);
  CHECK (ui_open_and_wait (l.w, cone_path (), 120), "head-cone-small opened");
  l.main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page_of (l.w)), CTR_TYPE_SLICE_VIEW, NULL));
  l.noref = ctr_session_get_dataset (session)->reference == NULL;
  set_orientation (l.w, CTR_SLICE_CORONAL);
  l.slice = 20;
  if (!l.noref)
    set_slice (l.w, l.slice + 1);   /* the reference's planes are shown: chosen before the run */
  ctr_method_panel_set_method (ctr_run_page_get_method_panel (page_of (l.w)), CTR_METHOD_SIRT);
  ctr_method_panel_set_param (ctr_run_page_get_method_panel (page_of (l.w)), "iterations", 40, NULL);
  n0 = g_list_model_get_n_items (ctr_session_get_runs (session));
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_live), &l);
  gtk_widget_activate_action (GTK_WIDGET (l.w), "win.reconstruct", NULL);
  /* the run's grid, once it exists */
  run = g_list_model_get_n_items (ctr_session_get_runs (session)) > n0
    ? g_list_model_get_item (ctr_session_get_runs (session), n0) : NULL;
  if (run != NULL)
    {
      l.grid = *ctr_run_get_grid (run);
      g_object_unref (run);   /* the session keeps it */
    }
  ui_wait_idle (l.w, 240, "the cancelled cone SIRT");
  g_signal_handlers_disconnect_by_data (session, &l);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), >, n0);
  run = g_list_model_get_item (ctr_session_get_runs (session), n0);
  g_object_unref (run);   /* the session keeps it */
  ui_note ("live reports with an image: %u, shown as coronal slice %u of the whole iterate: %u", l.live, l.slice + 1,
           l.live_coronal);
  CHECK (l.toolbar_bad == 0, "every live report's slice toolbar names the plane and slice the view shows "
         "(%u of %u did not)", l.toolbar_bad, l.live);
  if (!l.noref)
    CHECK (l.grid.nz > 1 && l.live >= 2 && l.live_coronal == l.live,
           "every live report shows the chosen coronal slice %u of the whole current iterate (%u of %u)", l.slice + 1,
           l.live_coronal, l.live);
  else
    CHECK (l.grid.nz > 1 && l.live >= 3 && l.live_coronal + 1 == l.live && l.filled >= 1,
           "no reference: coronal slice %u chosen after the first report is shown by every later one (%u of %u), "
           "and a report after the move brought it (%u reports did; before: zeros off the planes until the end)",
           l.slice + 1, l.live_coronal, l.live - 1, l.filled);
  CHECK (ctr_run_get_state (run) == CTR_RUN_CANCELLED, "the run ended cancelled: %s", ctr_run_get_label (run));
  if (ctr_run_get_n_stats (run) > 0)
    k = ctr_run_get_stats (run, ctr_run_get_n_stats (run) - 1)->iteration;
  {
    CtrVolume *kept = ctr_run_get_result (run);
    CHECK (kept != NULL && ctr_grid_equal (&kept->grid, &l.grid),
           "the cancelled volume run keeps its last iterate (iteration %u) as a %u × %u × %u volume", k,
           kept ? kept->grid.nx : 0, kept ? kept->grid.ny : 0, kept ? kept->grid.nz : 0);
    if (kept != NULL)
      {
        ctr_volume_ref (kept);
        if (l.noref && l.row != NULL && l.row_iteration == k)
          {
            /* the live slice of the kept iteration is the kept volume's */
            double d = 0, norm = 0;
            for (guint z = 0; z < kept->grid.nz; z++)
              for (guint x = 0; x < kept->grid.nx; x++)
                {
                  double a = l.row[x + (gsize) kept->grid.nx * z];
                  double b = kept->data[x + (gsize) kept->grid.nx * (l.slice + (gsize) kept->grid.ny * z)];
                  d = MAX (d, fabs (a - b));
                  norm = MAX (norm, fabs (b));
                }
            CHECK (norm > 0 && d <= 1e-6 * norm, "the live coronal slice %u of iteration %u equals the kept "
                   "volume's: max |difference| %.3g of max %.3g", l.slice + 1, k, d, norm);
          }
        else if (l.noref)
          ui_note ("the last live slice shown is of iteration %u, the kept volume of %u: not compared",
                   l.row_iteration, k);
        check_planes (l.w, kept);
        ui_screenshot (GTK_WIDGET (l.w), l.noref ? "ui-volume-cancelled-noref.png" : "ui-volume-cancelled.png");
        /* its values: those of SIRT run for as many iterations */
        again = ui_run_method (l.w, CTR_METHOD_SIRT, "iterations", k);
        if (again != NULL && ctr_run_get_result (again) != NULL && k >= 2)
          {
            double norm, d = max_abs_diff (kept, ctr_run_get_result (again), &norm);
            CHECK (d <= 1e-5 * norm, "the kept volume equals SIRT of %u iterations: max |difference| %.3g of max %.3g",
                   k, d, norm);
            check_linked_pages (l.w, l.noref);
          }
        else
          CHECK (FALSE, "SIRT of %u iterations ran for the comparison", k);
        ctr_volume_unref (kept);
      }
  }
  g_free (l.row);
  ui_close_window (l.w);
}

/* ---- /ui/window/volume-window ------------------------------------------------- */

/* Whether every volume view of the page has window [lo, hi]. */
static gboolean
window_held (CtrWindow *w, double lo, double hi, const char *what)
{
  g_autoptr(GPtrArray) views = volume_views (w);
  gboolean same = views->len > 0;

  for (guint i = 0; i < views->len; i++)
    {
      double a, b;
      ctr_slice_view_get_window (views->pdata[i], &a, &b);
      if (fabs (a - lo) > 1e-9 * fabs (hi - lo) || fabs (b - hi) > 1e-9 * fabs (hi - lo))
        {
          ui_note ("%s: view %u window [%.6g, %.6g], want [%.6g, %.6g]", what, i, a, b, lo, hi);
          same = FALSE;
        }
    }
  return same;
}

/* Pages slices and planes; TRUE when the window never moved. */
static gboolean
page_around (CtrWindow *w, double lo, double hi, const char *what)
{
  static const guint slices[] = { 3, 30, 50 };
  gboolean held = TRUE;

  for (guint o = 0; o < 3; o++)
    {
      set_orientation (w, o);
      for (guint s = 0; s < G_N_ELEMENTS (slices); s++)
        {
          set_slice (w, slices[s]);
          held = window_held (w, lo, hi, what) && held;
        }
    }
  set_orientation (w, CTR_SLICE_AXIAL);
  return held;
}

/* The view of plane @o among the page's volume views. */
static CtrSliceView *
view_of (CtrWindow *w, CtrSliceOrientation o)
{
  g_autoptr(GPtrArray) views = volume_views (w);

  for (guint i = 0; i < views->len; i++)
    if (ctr_slice_view_get_orientation (views->pdata[i]) == o)
      return views->pdata[i];
  return NULL;
}

/* Whether every volume view shows the slice through @voxel and draws the
 * crosshair there. */
static gboolean
at_voxel (CtrWindow *w, const guint voxel[3])
{
  CtrSliceView *axial = view_of (w, CTR_SLICE_AXIAL), *coronal = view_of (w, CTR_SLICE_CORONAL),
               *sagittal = view_of (w, CTR_SLICE_SAGITTAL);

  return axial != NULL && coronal != NULL && sagittal != NULL && ctr_slice_view_get_slice (axial) == voxel[2] &&
         ctr_slice_view_get_slice (coronal) == voxel[1] && ctr_slice_view_get_slice (sagittal) == voxel[0];
}

/* A click on one view moves the other two views' slices to the voxel
 * clicked; the slice read-out names index and position. */
static void
check_crosshair (CtrWindow *w, CtrSliceView *main)
{
  const CtrGrid *g;
  guint target[3] = { 20, 40, 0 }, second[3] = { 30, 40, 10 };
  double x, y;
  g_autofree char *where = NULL;
  g_autofree char *want = NULL;

  set_orientation (w, CTR_SLICE_AXIAL);
  set_slice (w, 30);
  ui_spin (100);
  g = &ctr_slice_view_get_image (main)->grid;
  target[2] = ctr_slice_view_get_slice (main);
  CHECK (ctr_slice_view_voxel_to_point (main, target, &x, &y) && ctr_slice_view_click_at (main, x, y) &&
             at_voxel (w, target),
         "a click on the axial view at voxel (%u, %u, %u) moves the coronal view to row %u and the sagittal view "
         "to column %u", target[0], target[1], target[2], target[1] + 1, target[0] + 1);
  /* and from a small view back: the main view's slice and the spin button follow */
  CHECK (ctr_slice_view_voxel_to_point (view_of (w, CTR_SLICE_CORONAL), second, &x, &y) &&
             ctr_slice_view_click_at (view_of (w, CTR_SLICE_CORONAL), x, y) && at_voxel (w, second) &&
             (guint) gtk_adjustment_get_value (ui_child (page_of (w), CTR_TYPE_RUN_PAGE, "slice_adjustment")) ==
               second[2] + 1,
         "a click on the coronal view at voxel (%u, %u, %u) moves the axial view and the slice field to slice %u",
         second[0], second[1], second[2], second[2] + 1);
  where = ctr_slice_view_describe_slice (main);
  want = g_strdup_printf ("Axial %u / %u · z %+.1f mm", second[2] + 1, g->nz, ctr_grid_z (g, second[2]));
  CHECK (g_strcmp0 (where, want) == 0, "the slice read-out: “%s” (want “%s”)", where, want);
  {
    g_autofree char *side = ctr_slice_view_describe_slice (view_of (w, CTR_SLICE_SAGITTAL));
    g_autofree char *side_want = g_strdup_printf ("Sagittal %u / %u · x %+.1f mm", second[0] + 1, g->nx,
                                                  ctr_grid_x (g, second[0]));
    CHECK (g_strcmp0 (side, side_want) == 0, "the sagittal view's read-out: “%s”", side);
  }
  ui_screenshot (GTK_WIDGET (w), "ui-three-views.png");
}

void
test_window_volume_window (void)
{
  CtrWindow *w;
  CtrSliceView *main;
  double lo, hi;
  int min_empty, min_volume;

  if (cone_path () == NULL)
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  w = ui_new_window ();
  gtk_widget_measure (GTK_WIDGET (w), GTK_ORIENTATION_HORIZONTAL, -1, &min_empty, NULL, NULL, NULL);
  CHECK (ui_open_and_wait (w, cone_path (), 120), "head-cone-small opened (its reference is a volume)");
  main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page_of (w)), CTR_TYPE_SLICE_VIEW, NULL));
  ui_spin (100);
  gtk_widget_measure (GTK_WIDGET (w), GTK_ORIENTATION_HORIZONTAL, -1, &min_volume, NULL, NULL, NULL);
  /* the window's own minimum (issue 31 item 8) is another matter: the
   * three views must add nothing to it */
  CHECK (min_volume <= min_empty,
         "a volume's three views leave the window's minimum width as it was: %d px (%d px without data)",
         min_volume, min_empty);
  set_slice (w, 10);
  ctr_slice_view_get_window (main, &lo, &hi);
  CHECK (page_around (w, lo, hi, "automatic"),
         "the automatic window [%.4g, %.4g] is one for the volume: held while paging slices and planes", lo, hi);

  set_preset (w, "soft-tissue");
  ctr_slice_view_get_window (main, &lo, &hi);
  CHECK (page_around (w, lo, hi, "soft tissue"), "the soft-tissue preset's window is held across slices and planes");

  set_preset (w, "auto");
  set_preset (w, "custom");
  ctr_slice_view_get_window (main, &lo, &hi);
  CHECK (g_str_equal (ctr_run_page_get_preset (page_of (w)), "custom") && page_around (w, lo, hi, "custom"),
         "“Custom (HU)” holds its window [%.4g, %.4g] across slices and planes", lo, hi);
  set_preset (w, "soft-tissue");
  check_crosshair (w, main);
  ui_close_window (w);
}

/* ---- /ui/window/plane-memory --------------------------------------------------- */

/* Sets $CTR_MEMORY_LIMIT_MB (NULL: unsets it); the limit is read again
 * after 100 ms (core/base/ctr-memory.h). */
static void
set_memory_limit (const char *mb)
{
  if (mb != NULL)
    g_setenv ("CTR_MEMORY_LIMIT_MB", mb, TRUE);
  else
    g_unsetenv ("CTR_MEMORY_LIMIT_MB");
  g_usleep (150 * 1000);
}

void
test_window_plane_memory (void)
{
  CtrWindow *w;
  CtrSliceView *main;

  if (cone_path () == NULL)
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, cone_path (), 120), "head-cone-small opened (its reference is a volume)");
  main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page_of (w)), CTR_TYPE_SLICE_VIEW, NULL));
  ui_spin (100);
  CHECK (ctr_slice_view_get_problem (main) == NULL, "the reference is drawn");
  set_memory_limit ("0.01");
  set_orientation (w, CTR_SLICE_CORONAL);
  ui_spin (200);
  {
    const char *why = ctr_slice_view_get_problem (main);
    CHECK (why != NULL && strstr (why, "the shown plane of") != NULL && strstr (why, "CTR_MEMORY_LIMIT_MB") != NULL,
           "10 KiB of memory: the coronal view says why it shows nothing: “%s”", why ? why : "(drawn)");
  }
  ui_screenshot (GTK_WIDGET (w), "ui-plane-memory.png");
  set_memory_limit (NULL);
  set_orientation (w, CTR_SLICE_SAGITTAL);
  ui_spin (200);
  CHECK (ctr_slice_view_get_problem (main) == NULL && ctr_slice_view_get_orientation (main) == CTR_SLICE_SAGITTAL,
         "the limit lifted: the sagittal plane is drawn");
  ui_close_window (w);
}
