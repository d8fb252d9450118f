/* test-window-pipeline.c — /ui/window/pipeline: the Projections page's
 * pipeline list is the window's runs' (issue 34: "the same list in the
 * window, the CLI and Python").
 *
 * A small parallel scan with noise is simulated ($CTR_CLI simulate: 120
 * views × 96 columns).  On the Projections page the list is built as a
 * user does with Add Step, the arrows and the bin: rings, outliers, beam
 * hardening added; outliers moved up; beam hardening removed; truncation
 * added; parameters set (outliers threshold 3.5, rings "large" with size
 * 15 and SNR 2, truncation 12 columns per end).  Then:
 *   - the form's list is that JSON, in that order, the defaults absent;
 *   - an FBP run of the window equals `ctrecon-cli reconstruct --preprocess
 *     LIST.json --method fbp` on the same grid within 1e-6 /mm (the data
 *     are read by the same core call; the FBP of the window and of the CLI
 *     differ by ~1e-7 /mm without any list too, which is noted), and
 *     differs from the run without the list by far more (the list is
 *     applied);
 *   - Save Geometry writes the list as "preprocess"; the saved file opened
 *     again shows the list on the page (the dataset's own), and an FBP run
 *     on it equals the first run;
 *   - Save Session keeps the list: a new window that opens the session
 *     shows it again;
 *   - ui-pipeline.png: the page with the list;
 *   - the Geometry page's Calibrate… button lies in the window without
 *     scrolling at 900 px (ui-geometry-buttons.png).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_CLI (skips without it).
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-projection-page.h"
#include "ctr-calibrate-panel.h"
#include "ctr-geometry-panel.h"

#define LIST "[{\"op\":\"outliers\",\"threshold\":3.5},{\"op\":\"rings\",\"method\":\"large\",\"size\":15," \
             "\"snr\":2.0},{\"op\":\"truncation\",\"width\":12}]"

static gboolean
cli (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      ui_note ("%s failed: %s %s", argv[1], error ? error->message : "", err ? err : "");
      return FALSE;
    }
  return TRUE;
}

static CtrPipelineForm *
form_of (CtrWindow *w)
{
  CtrProjectionPage *page = CTR_PROJECTION_PAGE (ui_find (GTK_WIDGET (w), CTR_TYPE_PROJECTION_PAGE, NULL));

  g_assert_nonnull (page);
  return ctr_projection_page_get_form (page);
}

static char *
form_text (CtrWindow *w)
{
  g_autoptr (JsonNode) list = ctr_pipeline_form_to_json (form_of (w));
  return json_to_string (list, FALSE);
}

/* Clicks the button @name ("up", "remove") of step @index's row. */
static void
click (CtrPipelineForm *form, guint index, const char *name)
{
  g_autoptr (GPtrArray) rows = ui_find_all (GTK_WIDGET (form), ADW_TYPE_EXPANDER_ROW);
  GtkWidget *b = index < rows->len ? ui_find (rows->pdata[index], GTK_TYPE_BUTTON, name) : NULL;

  g_assert_nonnull (b);
  g_signal_emit_by_name (b, "clicked");
}

/* The field @name of step @index's row. */
static gpointer
field (CtrPipelineForm *form, guint index, GType type, const char *name)
{
  g_autoptr (GPtrArray) rows = ui_find_all (GTK_WIDGET (form), ADW_TYPE_EXPANDER_ROW);
  GtkWidget *w = index < rows->len ? ui_find (rows->pdata[index], type, name) : NULL;

  if (w == NULL)
    g_error ("no field %s %s in step %u of %u", g_type_name (type), name, index + 1, rows->len);
  return w;
}

/* The ring step (the second) shows an SNR field: its method is not sorting. */
static gboolean
has_snr (gpointer data)
{
  g_autoptr (GPtrArray) rows = ui_find_all (GTK_WIDGET (data), ADW_TYPE_EXPANDER_ROW);
  return rows->len > 1 && ui_find (rows->pdata[1], GTK_TYPE_SPIN_BUTTON, "snr") != NULL;
}

static void
set_number (CtrPipelineForm *form, guint index, const char *key, double v)
{
  g_autoptr (JsonNode) n = json_node_new (JSON_NODE_VALUE);

  if (v == floor (v))
    json_node_set_int (n, (gint64) v);
  else
    json_node_set_double (n, v);
  g_assert_true (ctr_pipeline_form_set_param (form, index, key, n));
}

/* The list built as a user does, through the page's own controls where
 * they are simple to reach (Add Step's chooser, the row buttons). */
static void
build_list (CtrWindow *w)
{
  CtrPipelineForm *form = form_of (w);
  GtkDropDown *add_op = GTK_DROP_DOWN (ui_find (GTK_WIDGET (form), GTK_TYPE_DROP_DOWN, "add-op"));
  GtkWidget *add = ui_find (GTK_WIDGET (form), GTK_TYPE_BUTTON, "add-step");

  g_assert_nonnull (add_op);
  g_assert_nonnull (add);
  gtk_drop_down_set_selected (add_op, 2);   /* Rings */
  g_signal_emit_by_name (add, "clicked");
  gtk_drop_down_set_selected (add_op, 1);   /* Outliers */
  g_signal_emit_by_name (add, "clicked");
  gtk_drop_down_set_selected (add_op, 3);   /* Beam hardening */
  g_signal_emit_by_name (add, "clicked");
  CHECK (ctr_pipeline_form_get_n_steps (form) == 3, "Add Step added three steps");
  click (form, 1, "up");      /* outliers first */
  click (form, 2, "remove");  /* no beam hardening */
  ctr_pipeline_form_add_step (form, "truncation");
  /* the fields, as typed */
  gtk_spin_button_set_value (field (form, 0, GTK_TYPE_SPIN_BUTTON, "threshold"), 3.5);
  adw_combo_row_set_selected (field (form, 1, ADW_TYPE_COMBO_ROW, "method"), 1);   /* large */
  ui_wait (has_snr, form, 30, "the ring step's rows with the large method's fields");
  gtk_spin_button_set_value (field (form, 1, GTK_TYPE_SPIN_BUTTON, "size"), 15);
  gtk_spin_button_set_value (field (form, 1, GTK_TYPE_SPIN_BUTTON, "snr"), 2);
  set_number (form, 2, "width", 12);
}

/* max |a − b| over the image, and the image's range. */
static double
max_diff (const CtrVolume *a, const float *b, double *range)
{
  gsize n = (gsize) a->grid.nx * a->grid.ny * MAX (a->grid.nz, 1u);
  double worst = 0, lo = INFINITY, hi = -INFINITY;

  for (gsize i = 0; i < n; i++)
    {
      worst = MAX (worst, fabs ((double) a->data[i] - b[i]));
      lo = MIN (lo, a->data[i]);
      hi = MAX (hi, a->data[i]);
    }
  *range = hi - lo;
  return worst;
}

static CtrVolume *
fbp (CtrWindow *w, const char *what)
{
  CtrRun *run = ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  CtrVolume *v = run != NULL ? ctr_run_get_result (run) : NULL;

  CHECK (v != NULL, "%s: an FBP run with a result", what);
  return v != NULL ? ctr_volume_ref (v) : NULL;
}

/* The Geometry page's Calibrate… button is in sight at the window's height
 * (900 px under the tests' Xvfb screen): not in the form's scrolled part,
 * inside the window. */
static void
calibrate_in_sight (CtrWindow *w)
{
  GtkWidget *panel = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  GtkWidget *button = ui_find (panel, GTK_TYPE_BUTTON, "calibrate_button");
  graphene_rect_t r = { 0 };
  gboolean bounds;
  int height;

  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "geometry");
  gtk_window_set_default_size (GTK_WINDOW (w), 1280, 900);
  ui_spin (500);
  height = gtk_widget_get_height (GTK_WIDGET (w));
  bounds = button != NULL && gtk_widget_compute_bounds (button, GTK_WIDGET (w), &r);
  CHECK (bounds && gtk_widget_get_ancestor (button, GTK_TYPE_SCROLLED_WINDOW) == NULL && r.origin.y > 0 &&
           r.origin.y + r.size.height <= height && gtk_widget_get_mapped (button),
         "Calibrate… is in sight without scrolling: y %.0f–%.0f px of a %d px window", r.origin.y,
         r.origin.y + r.size.height, height);
  ui_screenshot (GTK_WIDGET (w), "ui-geometry-buttons.png");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "projections");
}

static gboolean
session_back (gpointer data)
{
  CtrWindow *w = data;
  return g_list_model_get_n_items (ctr_session_get_runs (ctr_window_get_session (w))) > 0 &&
         ctr_session_get_dataset (ctr_window_get_session (w)) != NULL && !ctr_session_get_busy (ctr_window_get_session (w));
}

static gboolean
saved (gpointer data)
{
  return !ctr_session_get_unsaved (ctr_window_get_session (data));
}

void
test_window_pipeline (void)
{
  const char *exe = g_getenv ("CTR_CLI");
  g_autofree char *dir = NULL;
  g_autofree char *geometry = NULL, *list_path = NULL, *cli_out = NULL, *saved_geometry = NULL, *session = NULL;
  g_autofree char *text = NULL;
  g_autoptr (CtrVolume) plain = NULL, with = NULL, again = NULL;
  g_autofree float *ref = NULL;
  CtrWindow *w;
  double range = 0, d;

  if (exe == NULL)
    {
      g_test_skip ("no $CTR_CLI to simulate the scan and to compare with");
      return;
    }
  dir = g_dir_make_tmp ("ctrecon-pipeline-XXXXXX", NULL);
  geometry = g_build_filename (dir, "scan", "geometry.json", NULL);
  {
    g_autofree char *out = g_build_filename (dir, "scan", NULL);
    const char *argv[] = { exe, "simulate", "--geometry", "parallel", "--views", "120", "--cols", "96",
                           "--output", out, NULL };
    if (!cli (argv))
      {
        g_test_skip ("ctrecon-cli simulate failed");
        return;
      }
  }

  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, geometry, 120), "the simulated scan opened");
  plain = fbp (w, "no pipeline");
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "projections");
  build_list (w);
  text = form_text (w);
  CHECK (g_strcmp0 (text, LIST) == 0, "the page's list: %s", text);
  CHECK (!ctr_pipeline_form_is_own (form_of (w)), "it is not the dataset's own list");
  {
    g_autoptr (GPtrArray) rows = ui_find_all (GTK_WIDGET (form_of (w)), ADW_TYPE_EXPANDER_ROW);
    adw_expander_row_set_expanded (rows->pdata[1], TRUE);   /* the ring step's fields */
  }
  ui_spin (1500);
  ui_screenshot (GTK_WIDGET (w), "ui-pipeline.png");
  with = fbp (w, "with the list");
  {
    /* the run says how its data were read */
    CtrRun *run = ctr_session_get_latest_result (ctr_window_get_session (w));
    const char *const *notes = run != NULL ? ctr_run_get_notes (run) : NULL;
    g_autofree char *want = g_strdup_printf ("data read again with \"preprocess\" %s", LIST);
    gboolean found = FALSE;
    for (guint i = 0; notes != NULL && notes[i] != NULL; i++)
      found = found || g_strcmp0 (notes[i], want) == 0;
    CHECK (found, "the run's notes say: %s", want);
  }

  calibrate_in_sight (w);

  /* the CLI with the same list, on the run's grid */
  list_path = g_build_filename (dir, "list.json", NULL);
  cli_out = g_build_filename (dir, "cli.tif", NULL);
  g_assert_true (g_file_set_contents (list_path, text, -1, NULL));
  if (with != NULL)
    {
      g_autofree char *size = g_strdup_printf ("%u", with->grid.nx);
      g_autofree char *pixel = g_strdup_printf ("%.17g", with->grid.dx);
      const char *argv[] = { exe, "reconstruct", geometry, "--preprocess", list_path, "--method", "fbp",
                             "--size", size, "--pixel-size", pixel, "--output", cli_out, NULL };
      CtrTiffInfo info;
      if (cli (argv))
        ref = ctr_tiff_read (cli_out, &info, NULL);
      CHECK (ref != NULL && info.width == with->grid.nx && info.height == with->grid.ny,
             "`reconstruct --preprocess` wrote a %u × %u image", ref ? info.width : 0, ref ? info.height : 0);
    }
  if (plain != NULL && with != NULL)
    {
      /* the same FBP without the list: what the window and the CLI differ by alone */
      g_autofree char *size = g_strdup_printf ("%u", with->grid.nx);
      g_autofree char *pixel = g_strdup_printf ("%.17g", with->grid.dx);
      g_autofree char *out0 = g_build_filename (dir, "cli-plain.tif", NULL);
      const char *argv[] = { exe, "reconstruct", geometry, "--method", "fbp",
                             "--size", size, "--pixel-size", pixel, "--output", out0, NULL };
      CtrTiffInfo info;
      g_autofree float *ref0 = cli (argv) ? ctr_tiff_read (out0, &info, NULL) : NULL;
      if (ref0 != NULL)
        {
          double r0;
          ui_note ("without the list: window vs CLI max |Δ| %.3g", max_diff (plain, ref0, &r0));
        }
    }
  if (ref != NULL)
    {
      d = max_diff (with, ref, &range);
      CHECK (d <= 1e-6, "the window's run equals the CLI's with the same list within 1e-6 /mm: max |Δ| %.3g /mm "
             "(image range %.3g /mm)", d, range);
      if (plain != NULL)
        {
          double r2;
          double change = max_diff (plain, with->data, &r2);
          CHECK (change > 1e-3 * r2, "the list changed the run: max |Δ| %.3g from the run without it", change);
        }
    }

  /* Save Geometry writes the list; opened again it is the dataset's own */
  saved_geometry = g_build_filename (dir, "saved-geometry.json", NULL);
  CHECK (ui_export (w, "win.save-geometry", saved_geometry), "Save Geometry wrote %s", saved_geometry);
  {
    g_autoptr (JsonParser) p = json_parser_new ();
    JsonObject *root = json_parser_load_from_file (p, saved_geometry, NULL)
                       ? json_node_get_object (json_parser_get_root (p)) : NULL;
    g_autofree char *written = root && json_object_has_member (root, "preprocess")
                               ? json_to_string (json_object_get_member (root, "preprocess"), FALSE) : NULL;
    CHECK (g_strcmp0 (written, LIST) == 0, "its “preprocess”: %s", written ? written : "none");
  }
  session = g_build_filename (dir, "pipeline.ctrsession", NULL);
  CHECK (ui_export (w, "win.save-session", session), "Save Session… writes %s", session);
  ui_wait (saved, w, 60, "the session saved");
  CHECK (ui_open_and_wait (w, saved_geometry, 120), "the saved geometry opened");
  {
    g_autofree char *shown = form_text (w);
    CHECK (g_strcmp0 (shown, LIST) == 0 && ctr_pipeline_form_is_own (form_of (w)),
           "the page shows its list as the dataset's own: %s", shown);
  }
  again = fbp (w, "the saved geometry");
  if (again != NULL && with != NULL)
    {
      d = max_diff (again, with->data, &range);
      CHECK (d == 0, "its run equals the first run with the list: max |Δ| %.3g", d);
    }
  ui_close_window (w);

  /* a new window opens the session: the list is back */
  w = ui_new_window ();
  CHECK (ui_export_from (GTK_WIDGET (w), w, "win.open-session", session, session), "Open Session… %s", session);
  ui_wait (session_back, w, 120, "the session's runs and dataset");
  ui_spin (300);
  {
    g_autofree char *shown = form_text (w);
    gboolean own = TRUE;
    JsonNode *runs_list = ctr_session_get_preprocess (ctr_window_get_session (w), &own);
    g_autofree char *runs_text = runs_list ? json_to_string (runs_list, FALSE) : NULL;
    CHECK (g_strcmp0 (shown, LIST) == 0, "the session's list is on the page again: %s", shown);
    CHECK (g_strcmp0 (runs_text, LIST) == 0 && !own, "and it is the runs' list (not the dataset's own)");
  }
  ui_close_window (w);
  {
    g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
    (void) !system (rm);
  }
}

/* ---- /ui/window/tilt-apply --------------------------------------------------- */

static gboolean
panel_idle (gpointer data)
{
  return !ctr_calibrate_panel_get_busy (data);
}

/* /ui/window/tilt-apply: savu-parallel-tiff's geometry.json stating a
 * detector tilt of 0.01 rad that the data do not have ($CTR_UI_SAVU):
 * Calibrate… finds the tilt left in the data; Apply sets the window's
 * runs' tilt to the one Save As… writes (the file's plus the one found);
 * the next FBP run equals `ctrecon-cli reconstruct` on the geometry.json
 * Save As… wrote within 1e-6 /mm and differs from the run before Apply;
 * Save geometry.json… writes that tilt; Revert drops it. */
void
test_window_tilt_apply (void)
{
  const char *savu = g_getenv ("CTR_UI_SAVU"), *exe = g_getenv ("CTR_CLI");
  g_autofree char *dir = NULL, *tilted = NULL, *calibrated = NULL, *out = NULL, *saved_geometry = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrVolume) before = NULL, after = NULL;
  g_autofree float *ref = NULL;
  CtrCalibratePanel *panel = NULL;
  GtkWindow *cw = NULL;
  double stated = NAN, expect = NAN, range = 0, d;
  CtrWindow *w;

  if (savu == NULL || !g_file_test (savu, G_FILE_TEST_EXISTS) || exe == NULL)
    {
      g_test_skip ("no savu-parallel-tiff ($CTR_UI_SAVU) or no $CTR_CLI");
      return;
    }
  dir = g_dir_make_tmp ("ctrecon-tilt-XXXXXX", NULL);
  tilted = g_build_filename (dir, "tilted.json", NULL);
  g_assert_true (ctr_geometry_json_write_offset_u (savu, FALSE, -6.35, 0.01, tilted, &error));
  w = ui_new_window ();
  g_assert_true (ui_open_and_wait (w, tilted, 120));
  before = fbp (w, "before Apply");
  gtk_widget_activate_action (GTK_WIDGET (w), "win.calibrate", NULL);
  for (guint i = 0; i < 50 && cw == NULL; i++)
    {
      cw = g_object_get_data (G_OBJECT (w), "ctr-calibrate-window");
      if (cw == NULL || !gtk_widget_get_visible (GTK_WIDGET (cw)))
        {
          cw = NULL;
          ui_spin (100);
        }
    }
  CHECK (cw != NULL, "Calibrate… opened");
  if (cw == NULL)
    return;
  panel = CTR_CALIBRATE_PANEL (ui_find (GTK_WIDGET (cw), CTR_TYPE_CALIBRATE_PANEL, NULL));
  ui_wait (panel_idle, panel, 240, "the calibration");
  {
    const CtrCalibResult *r = ctr_calibrate_panel_get_result (panel);
    CtrDataset *ds = ctr_session_get_dataset (ctr_window_get_session (w));
    ctr_calib_stated_tilt (tilted, &stated, NULL);
    expect = r != NULL ? ctr_calib_written_tilt (ds->geometry, r, stated) : NAN;
    CHECK (r != NULL && isfinite (expect), "a tilt of %.4f° found left in the data (stated %.4f°): written %.6f rad",
           r ? r->tilt_rad * 180 / G_PI : NAN, stated * 180 / G_PI, expect);
  }
  CHECK (ctr_calibrate_panel_apply (panel), "Apply");
  CHECK (ctr_session_get_detector_tilt (ctr_window_get_session (w)) == expect,
         "the window's runs take the tilt Save As… writes: %.6f rad",
         ctr_session_get_detector_tilt (ctr_window_get_session (w)));
  ui_screenshot (GTK_WIDGET (cw), "ui-calibrate-tilt-applied.png");
  calibrated = g_build_filename (dir, "calibrated.json", NULL);
  CHECK (ctr_calibrate_panel_save (panel, calibrated, &error), "Save As… %s", calibrated);
  gtk_window_destroy (cw);
  after = fbp (w, "after Apply");
  out = g_build_filename (dir, "cli.tif", NULL);
  if (after != NULL)
    {
      g_autofree char *size = g_strdup_printf ("%ux%ux%u", after->grid.nx, after->grid.ny, after->grid.nz);
      g_autofree char *voxel = g_strdup_printf ("%.17gx%.17gx%.17g", after->grid.dx, after->grid.dy, after->grid.dz);
      const char *argv[] = { exe, "reconstruct", calibrated, "--method", "fbp", "--size", size, "--voxel-size", voxel,
                             "--output", out, NULL };
      CtrTiffInfo info;
      if (cli (argv))
        ref = ctr_tiff_read (out, &info, NULL);
      CHECK (ref != NULL && info.width == after->grid.nx && info.height == after->grid.ny &&
               info.pages == after->grid.nz,
             "`reconstruct CALIBRATED.json` wrote the run's %u × %u × %u grid", after->grid.nx, after->grid.ny,
             after->grid.nz);
    }
  if (ref != NULL)
    {
      d = max_diff (after, ref, &range);
      CHECK (d <= 1e-6, "the run after Apply equals the CLI's on the calibrated geometry: max |Δ| %.3g (range %.3g)",
             d, range);
      if (before != NULL)
        {
          double change = max_diff (before, after->data, &range);
          CHECK (change > 1e-3 * range, "Apply changed the run: max |Δ| %.3g (range %.3g)", change, range);
        }
    }
  saved_geometry = g_build_filename (dir, "saved.json", NULL);
  CHECK (ui_export (w, "win.save-geometry", saved_geometry), "Save geometry.json… %s", saved_geometry);
  {
    g_autoptr (JsonParser) p = json_parser_new ();
    JsonObject *root = json_parser_load_from_file (p, saved_geometry, NULL)
                       ? json_node_get_object (json_parser_get_root (p)) : NULL;
    double t = root ? json_object_get_double_member_with_default (root, "detector_tilt_rad", NAN) : NAN;
    CHECK (t == expect, "it writes detector_tilt_rad %.6f", t);
  }
  ctr_geometry_panel_revert (ui_child (w, CTR_TYPE_WINDOW, "geometry_panel"));
  CHECK (isnan (ctr_session_get_detector_tilt (ctr_window_get_session (w))),
         "Revert on the Geometry page drops the applied tilt (the file's again)");
  ui_close_window (w);
  {
    g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
    (void) !system (rm);
  }
}
