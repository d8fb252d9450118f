/* test-window-calibrate.c — /ui/window/calibrate: Calibrate… on the
 * Geometry page (issue 34) driven as a user would.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On savu-parallel-tiff ($CTR_UI_SAVU) the Geometry page's Calibrate…
 * button opens the calibration window, which starts at once; Cancel stops
 * it (no result, "cancelled" said), Calibrate Again runs it to the end.
 * Every figure the window holds must equal core's ctr_calibrate on the
 * same dataset loaded apart, and the report `ctrecon-cli calibrate --json`
 * writes ($CTR_CLI); the table shows them to the digits printed; the
 * centre lies within 0.3 column of the README's 85.85; the search plot
 * draws the mirror and Vo curves, the cross-check plot the entropy one.
 * Apply changes the Geometry page's offset to the one found (Revert returns
 * to the file's); Save As… onto the dataset's own geometry.json is refused
 * and leaves it as it was; Save As… through the chooser writes the same
 * bytes as the CLI's --output, and Open Saved opens it in the window.
 * On gel-fan ($CTR_UI_GEL) the conjugate-ray offset must equal core's and
 * lie within 0.25 column of the geometry's.  Screenshots ui-calibrate.png (savu),
 * ui-calibrate-applied.png (the Geometry page after Apply),
 * ui-calibrate-fan.png (gel-fan).
 *
 * /ui/window/geometry-tilt: a geometry.json stating detector_tilt_rad,
 * opened and saved again by Save Geometry (the geometry from memory), keeps
 * the key and its value.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "test-window.h"
#include "ctr-calibrate-panel.h"
#include "ctr-calibrate-plot.h"
#include "ctr-geometry-panel.h"

static gboolean
panel_idle (gpointer data)
{
  return !ctr_calibrate_panel_get_busy (data);
}

/* Whether label @name under @root shows @value as printed with @format
 * ("—" for NaN). */
static gboolean
shows (GtkWidget *root, const char *name, const char *format, double value)
{
  GtkWidget *label = ui_find (root, GTK_TYPE_LABEL, name);
  g_autofree char *want = isfinite (value) ? g_strdup_printf (format, value) : g_strdup ("—");
  return label != NULL && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), want);
}

/* The report of `ctrecon-cli calibrate GEOMETRY --output OUT --json
 * REPORT`, NULL without $CTR_CLI or when it fails. */
static JsonParser *
cli_report (const char *geometry, const char *out, const char *report)
{
  const char *cli = g_getenv ("CTR_CLI");
  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    return NULL;
  const char *argv[] = { cli, "calibrate", geometry, "--output", out, "--json", report, NULL };
  int status = -1;
  g_autofree char *err = NULL;
  g_unlink (out);
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL)
      || !g_spawn_check_wait_status (status, NULL))
    {
      ui_note ("ctrecon-cli calibrate failed: %s", err != NULL ? err : "");
      return NULL;
    }
  JsonParser *p = json_parser_new ();
  if (!json_parser_load_from_file (p, report, NULL))
    g_clear_object (&p);
  return p;
}

static double
number (JsonObject *o, const char *key)
{
  JsonNode *n = json_object_get_member (o, key);
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_double (n) : NAN;
}

static gboolean
same (double a, double b)
{
  return (isnan (a) && isnan (b)) || fabs (a - b) <= 1e-9 * MAX (1.0, fabs (b));
}

/* The window's result against core's on @path, estimate by estimate, and
 * against the CLI's report; the table to its digits. */
static void
check_figures (CtrCalibratePanel *panel, const char *path, const char *tag)
{
  const CtrCalibResult *r = ctr_calibrate_panel_get_result (panel);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  CtrCalibResult ref;
  g_assert_nonnull (d);
  g_assert_true (ctr_calibrate (d->geometry, d->projections, NULL, &ref, NULL, &error));
  CHECK (r != NULL && r->n_estimates == ref.n_estimates, "%s: the window has %u estimates, core %u", tag,
         r != NULL ? r->n_estimates : 0, ref.n_estimates);
  if (r == NULL)
    return;
  CHECK (same (r->centre_col, ref.centre_col) && same (r->sigma_col, ref.sigma_col) && same (r->offset_u, ref.offset_u)
         && r->disagree == ref.disagree && same (r->tilt_rad, ref.tilt_rad),
         "%s: the window's answer column %.4f ± %.4f, offset %.6g, tilt %.3g rad equals core's (%.4f ± %.4f, %.6g, "
         "%.3g)", tag, r->centre_col, r->sigma_col, r->offset_u, r->tilt_rad, ref.centre_col, ref.sigma_col,
         ref.offset_u, ref.tilt_rad);
  GtkWidget *root = GTK_WIDGET (panel);
  for (guint i = 0; i < MIN (r->n_estimates, ref.n_estimates); i++)
    {
      const CtrCalibEstimate *e = &r->estimates[i], *f = &ref.estimates[i];
      const char *m = ctr_calib_method_name (e->method);
      g_autofree char *nc = g_strdup_printf ("centre-%s", m), *ns = g_strdup_printf ("sigma-%s", m);
      g_autofree char *nq = g_strdup_printf ("quality-%s", m);
      CHECK (e->method == f->method && e->ok == f->ok && same (e->centre_col, f->centre_col)
             && same (e->sigma_col, f->sigma_col) && same (e->quality, f->quality),
             "%s %s: column %.4f ± %.4f quality %.3f equals core's", tag, m, e->centre_col, e->sigma_col, e->quality);
      CHECK (!e->ok || (shows (root, nc, "%.3f", e->centre_col) && shows (root, ns, "%.3f", e->sigma_col)
                        && shows (root, nq, "%.3f", e->quality)),
             "%s %s: the table shows %.3f ± %.3f, quality %.3f", tag, m, e->centre_col, e->sigma_col, e->quality);
    }
  g_autofree char *out = ui_out_path ("calibrate-cli.json"), *rep = ui_out_path ("calibrate-cli-report.json");
  g_autoptr (JsonParser) p = cli_report (path, out, rep);
  if (p == NULL)
    {
      ui_note ("%s: no CLI report ($CTR_CLI unset)", tag);
      return;
    }
  JsonObject *o = json_node_get_object (json_parser_get_root (p));
  CHECK (same (number (o, "centre_column"), r->centre_col)
         && same (number (o, "centre_column_uncertainty"), r->sigma_col)
         && json_object_get_boolean_member (o, "methods_disagree") == r->disagree,
         "%s: the CLI's report says column %.4f ± %.4f as the window", tag, number (o, "centre_column"),
         number (o, "centre_column_uncertainty"));
}

static GtkWindow *
calibrate_window (CtrWindow *w)
{
  for (guint i = 0; i < 50; i++)
    {
      GtkWindow *cw = g_object_get_data (G_OBJECT (w), "ctr-calibrate-window");
      if (cw != NULL && gtk_widget_get_visible (GTK_WIDGET (cw)))
        return cw;
      ui_spin (100);
    }
  return NULL;
}

static char *
contents (const char *path)
{
  char *text = NULL;
  g_file_get_contents (path, &text, NULL, NULL);
  return text;
}

typedef struct {
  CtrSession *session;
  char       *path;
} OpenedFile;

static gboolean
opened (gpointer data)
{
  OpenedFile *o = data;
  CtrDataset *d = ctr_session_get_dataset (o->session);
  return d != NULL && g_strcmp0 (d->path, o->path) == 0;
}

static void
savu_case (CtrWindow *w, const char *savu)
{
  CtrGeometryPanel *gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  g_assert_true (ui_open_and_wait (w, savu, 120));
  gtk_widget_activate_action (GTK_WIDGET (w), "win.show-page", "s", "geometry");
  GtkWidget *button = ui_find (GTK_WIDGET (gp), GTK_TYPE_BUTTON, "calibrate_button");
  CHECK (button != NULL && gtk_widget_is_sensitive (button), "the Geometry page has a Calibrate… button");
  if (button == NULL)
    return;
  gtk_widget_activate (button);
  GtkWindow *cw = calibrate_window (w);
  CHECK (cw != NULL, "Calibrate… opens the calibration window");
  if (cw == NULL)
    return;
  CtrCalibratePanel *panel = CTR_CALIBRATE_PANEL (ui_find (GTK_WIDGET (cw), CTR_TYPE_CALIBRATE_PANEL, NULL));
  CHECK (ctr_calibrate_panel_get_busy (panel), "the calibration starts at once");
  gtk_widget_activate_action (GTK_WIDGET (panel), "calibrate.cancel", NULL);
  ui_wait (panel_idle, panel, 30, "the cancelled calibration");
  CHECK (ctr_calibrate_panel_get_result (panel) == NULL
         && strstr (gtk_label_get_text (GTK_LABEL (ui_find (GTK_WIDGET (panel), GTK_TYPE_LABEL, "status"))),
                    "Cancelled") != NULL,
         "Cancel stops it: no result, “%s”",
         gtk_label_get_text (GTK_LABEL (ui_find (GTK_WIDGET (panel), GTK_TYPE_LABEL, "status"))));
  gtk_widget_activate_action (GTK_WIDGET (panel), "calibrate.run", NULL);
  ui_wait (panel_idle, panel, 240, "the calibration of savu-parallel-tiff");
  const CtrCalibResult *r = ctr_calibrate_panel_get_result (panel);
  CHECK (r != NULL, "savu: a result (%s)", ctr_calibrate_panel_get_error (panel));
  if (r == NULL)
    return;
  check_figures (panel, savu, "savu");
  CHECK (fabs (r->centre_col - 85.85) <= 0.3 && !r->disagree, "savu: axis at column %.3f ± %.3f, within 0.3 of "
         "the README's 85.85, the methods agreeing", r->centre_col, r->sigma_col);
  CtrCalibratePlot *search = CTR_CALIBRATE_PLOT (ui_find (GTK_WIDGET (panel), CTR_TYPE_CALIBRATE_PLOT,
                                                          "calibrate_search_plot"));
  CtrCalibratePlot *check = CTR_CALIBRATE_PLOT (ui_find (GTK_WIDGET (panel), CTR_TYPE_CALIBRATE_PLOT,
                                                         "calibrate_cross_check_plot"));
  CHECK (ctr_calibrate_plot_get_n_curves (search) == 2 && ctr_calibrate_plot_get_n_curves (check) == 1,
         "the search plot draws mirror and Vo, the cross-check plot the entropy (%u, %u curves)",
         ctr_calibrate_plot_get_n_curves (search), ctr_calibrate_plot_get_n_curves (check));
  /* each curve's least sample lies within a step and a half of its method's estimate */
  for (guint i = 0; i < r->n_estimates; i++)
    {
      const CtrCalibEstimate *e = &r->estimates[i];
      guint k = 0;
      for (guint j = 1; j < e->curve_n; j++)
        if (e->curve_y[j] < e->curve_y[k])
          k = j;
      const double x = e->curve_x0 + k * e->curve_dx;
      CHECK (e->curve_n > 2 && fabs (x - e->centre_col) <= 1.5 * e->curve_dx + 0.05,
             "savu %s: the curve (%u points, step %.3f) is least at %.3f, the estimate %.3f",
             ctr_calib_method_name (e->method), e->curve_n, e->curve_dx, x, e->centre_col);
    }
  ui_screenshot (GTK_WIDGET (cw), "ui-calibrate.png");

  /* Apply: the Geometry page's offset becomes the one found */
  const double before = ctr_geometry_panel_get_geometry (gp)->offset_u;
  gtk_widget_activate_action (GTK_WIDGET (panel), "calibrate.apply", NULL);
  ui_spin (100);
  const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);
  CHECK (g != NULL && fabs (g->offset_u - r->offset_u) <= 1e-6 * MAX (1.0, fabs (r->offset_u))
         && fabs (g->offset_u - before) > 0.01,
         "Apply: the Geometry page's offset u %.6g → %.6g mm (found %.6g)", before, g ? g->offset_u : NAN, r->offset_u);
  gtk_window_present (GTK_WINDOW (w));
  ui_screenshot (GTK_WIDGET (w), "ui-calibrate-applied.png");
  gtk_window_present (cw);
  ctr_geometry_panel_revert (gp);
  CHECK (fabs (ctr_geometry_panel_get_geometry (gp)->offset_u - before) < 1e-12, "Revert returns to the file's offset");

  /* Save As…: never over the dataset's own file; else the CLI's bytes */
  g_autofree char *own = contents (savu);
  g_autoptr (GError) refused = NULL, error = NULL;
  const gboolean written = ctr_calibrate_panel_save (panel, savu, &refused);
  CHECK (!written && refused != NULL, "Save As… onto the dataset's geometry.json is refused: %s",
         refused ? refused->message : "");
  g_autofree char *own_after = contents (savu);
  CHECK (g_strcmp0 (own, own_after) == 0, "the dataset's geometry.json is unchanged");
  g_autofree char *saved = ui_out_path ("calibrate-window.json"), *cli = ui_out_path ("calibrate-cli.json");
  g_unlink (saved);
  CHECK (ui_export_from (GTK_WIDGET (panel), w, "calibrate.save-as", saved, saved), "Save As… through its chooser");
  g_autofree char *a = contents (saved), *b = contents (cli);
  CHECK (a != NULL && (b == NULL || g_strcmp0 (a, b) == 0), "the window's calibrated geometry.json %s the CLI's",
         b == NULL ? "written (no CLI to compare with)" : "has the same bytes as");
  g_autoptr (CtrDataset) back = ctr_dataset_load (saved, NULL, NULL, &error);
  CHECK (back != NULL && fabs (ctr_calib_stated_centre (back->geometry) - r->centre_col) < 1e-6,
         "it loads, with u = 0 at column %.4f", back ? ctr_calib_stated_centre (back->geometry) : NAN);

  /* Open Saved: the main window opens it */
  const double found = r->offset_u;
  OpenedFile o = { ctr_window_get_session (w), g_canonicalize_filename (saved, NULL) };
  gtk_widget_activate_action (GTK_WIDGET (panel), "calibrate.open-saved", NULL);
  ui_wait (opened, &o, 60, "the calibrated geometry.json opened");
  ui_wait_idle (w, 60, "its loading");
  ui_spin (200);
  g = ctr_geometry_panel_get_geometry (gp);
  /* the page shows 8 significant digits (and its geometry is what it shows) */
  CHECK (g != NULL && fabs (g->offset_u - found) < 1e-6, "Open Saved: the window shows %s with offset u %.8g mm",
         o.path, g ? g->offset_u : NAN);
  g_free (o.path);
}

static void
gel_case (CtrWindow *w, const char *gel)
{
  g_assert_true (ui_open_and_wait (w, gel, 120));
  GtkWindow *cw = g_object_get_data (G_OBJECT (w), "ctr-calibrate-window");
  CtrCalibratePanel *panel = CTR_CALIBRATE_PANEL (ui_find (GTK_WIDGET (cw), CTR_TYPE_CALIBRATE_PANEL, NULL));
  CHECK (ctr_calibrate_panel_get_result (panel) == NULL, "another dataset: the last one's result is gone");
  gtk_widget_activate_action (GTK_WIDGET (w), "win.calibrate", NULL);
  ui_wait (panel_idle, panel, 240, "the calibration of gel-fan");
  const CtrCalibResult *r = ctr_calibrate_panel_get_result (panel);
  CHECK (r != NULL, "gel-fan: a result (%s)", ctr_calibrate_panel_get_error (panel));
  if (r == NULL)
    return;
  check_figures (panel, gel, "gel-fan");
  CHECK (r->estimates[0].method == CTR_CALIB_CONJUGATE && r->estimates[0].ok
         && fabs (r->estimates[0].centre_col - r->stated_centre_col) <= 0.25,
         "gel-fan: central ray at column %.3f, within 0.25 of the geometry's %.3f; offset %.4f mm",
         r->estimates[0].centre_col, r->stated_centre_col, r->offset_u);
  ui_screenshot (GTK_WIDGET (cw), "ui-calibrate-fan.png");
}

void
test_window_calibrate (void)
{
  const char *savu = g_getenv ("CTR_UI_SAVU"), *gel = g_getenv ("CTR_UI_GEL");
  if (savu == NULL || !g_file_test (savu, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no savu-parallel-tiff ($CTR_UI_SAVU)");
      return;
    }
  CtrWindow *w = ui_new_window ();
  savu_case (w, savu);
  if (gel != NULL && g_file_test (gel, G_FILE_TEST_EXISTS))
    gel_case (w, gel);
  else
    ui_note ("no gel-fan ($CTR_UI_GEL): its case not run");
  ui_close_window (w);
}

void
test_window_geometry_tilt (void)
{
  const char *savu = g_getenv ("CTR_UI_SAVU");
  if (savu == NULL || !g_file_test (savu, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no savu-parallel-tiff ($CTR_UI_SAVU)");
      return;
    }
  g_autofree char *tilted = ui_out_path ("geometry-tilted.json"), *saved = ui_out_path ("geometry-tilted-saved.json");
  g_autoptr (GError) error = NULL;
  /* savu's geometry.json stating a tilt of 0.004 rad, its file names made absolute */
  g_assert_true (ctr_geometry_json_write_offset_u (savu, FALSE, -6.35, 0.004, tilted, &error));
  CtrWindow *w = ui_new_window ();
  g_assert_true (ui_open_and_wait (w, tilted, 120));
  g_unlink (saved);
  CHECK (ui_export (w, "win.save-geometry", saved), "Save Geometry writes the geometry from memory");
  g_autoptr (JsonParser) p = json_parser_new ();
  JsonObject *o = json_parser_load_from_file (p, saved, NULL) ? json_node_get_object (json_parser_get_root (p)) : NULL;
  CHECK (o != NULL && json_object_has_member (o, "detector_tilt_rad") && number (o, "detector_tilt_rad") == 0.004,
         "the saved geometry.json keeps detector_tilt_rad = 0.004 (%s)",
         o != NULL && json_object_has_member (o, "detector_tilt_rad") ? "present" : "absent");
  ui_close_window (w);
}
