/* test-window-small.c — the smaller defects of issue 31 (item 8), one short
 * case each, no reconstruction longer than one analytic pass:
 *
 * /ui/window/default-method: a new window's method fits the dataset it
 *   opens (FDK for head-cone-small, FBP for the fan-beam dataset); before,
 *   every new window started with SIRT 100, and Ctrl+R on a cone dataset
 *   started a long SIRT.
 * /ui/window/fit-methods: the Algorithm list offers only the methods that
 *   fit the open dataset (ctr_method_fits_geometry): no FDK for fan data, no
 *   FBP, ART or parallel ART for a circular cone beam.
 * /ui/window/failed-run: a run that fails (a pixel wider than the field of
 *   view) is listed as "(failed)", its reason in the status line; before,
 *   it was listed as a normal run and the status said only "failed".
 * /ui/window/open-unsupported: a PNG and a README are refused as "not a
 *   supported file", not as "not valid JSON".
 * /ui/window/recent-underscore: a dataset in a folder named with
 *   underscores is listed in Recent with its underscores (a menu label reads
 *   "_" as a mnemonic).
 * /ui/window/dicom-window: an FBP shown with W 2000 / L 1000 HU and
 *   exported as DICOM: WindowCenter/WindowWidth are the window shown (main
 *   wrote 40 / 400 whatever was shown).
 * /ui/window/tiff-summary: a bare TIFF ($CTR_UI_TIFF, the dataset's
 *   sinogram) whose geometry is typed on the Geometry page: the Run page's
 *   dataset summary describes the typed geometry (SOD, SDD, field of view)
 *   and says so while a field is invalid; before, it kept the draft's
 *   "SOD 0.0 mm, SDD 0.0 mm" whatever was typed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (a fan-beam geometry.json), CTR_UI_CONE
 * (head-cone-small's geometry.json; the cone parts skip without it),
 * CTR_UI_TIFF (the dataset's projections TIFF; tiff-summary skips without
 * it), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-geometry-panel.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

static CtrMethodPanel *
panel_of (CtrWindow *w)
{
  return ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page"));
}

static const char *
fan_path (void)
{
  const char *p = g_getenv ("CTR_UI_DATASET");
  return p != NULL && g_file_test (p, G_FILE_TEST_IS_REGULAR) ? p : NULL;
}

static const char *
cone_path (void)
{
  const char *p = g_getenv ("CTR_UI_CONE");
  return p != NULL && g_file_test (p, G_FILE_TEST_IS_REGULAR) ? p : NULL;
}

/* ---- /ui/window/default-method ---------------------------------------------- */

/* A new window opens @path; the method it then holds. */
static CtrMethod
method_after_open (const char *path)
{
  CtrWindow *w = ui_new_window ();
  CtrMethod m;

  CHECK (ui_open_and_wait (w, path, 120), "%s opened", path);
  m = ctr_method_panel_get_method (panel_of (w));
  ui_close_window (w);
  return m;
}

void
test_window_default_method (void)
{
  if (fan_path () == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  {
    CtrMethod m = method_after_open (fan_path ());
    CHECK (m == CTR_METHOD_FBP, "a new window on fan-beam data starts with FBP (%s)", ctr_method_name (m));
  }
  if (cone_path () != NULL)
    {
      CtrMethod m = method_after_open (cone_path ());
      CHECK (m == CTR_METHOD_FDK, "a new window on a circular cone beam starts with FDK (%s)", ctr_method_name (m));
    }
  else
    ui_note ("cone part skipped: no $CTR_UI_CONE");

  /* a method the user chose in the window is kept over the next dataset
   * when it fits */
  if (cone_path () != NULL)
    {
      CtrWindow *w = ui_new_window ();
      CHECK (ui_open_and_wait (w, fan_path (), 120), "fan data opened");
      ctr_method_panel_set_method (panel_of (w), CTR_METHOD_SIRT);
      CHECK (ui_open_and_wait (w, cone_path (), 120), "cone data opened");
      CHECK (ctr_method_panel_get_method (panel_of (w)) == CTR_METHOD_SIRT,
             "SIRT chosen by hand is kept for the cone data (%s)",
             ctr_method_name (ctr_method_panel_get_method (panel_of (w))));
      ui_close_window (w);
    }
}

/* ---- /ui/window/fit-methods -------------------------------------------------- */

/* Which methods the Algorithm row offers (by label), as a bit set. */
static guint
offered (CtrWindow *w)
{
  AdwComboRow *row = ADW_COMBO_ROW (ui_find (GTK_WIDGET (panel_of (w)), ADW_TYPE_COMBO_ROW, "method"));
  GListModel *model = adw_combo_row_get_model (row);
  guint set = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      const char *label = gtk_string_object_get_string (GTK_STRING_OBJECT (item));
      for (guint m = 0; m < CTR_N_METHODS; m++)
        if (g_str_equal (label, ctr_method_label (m)))
          set |= 1u << m;
    }
  return set;
}

static void
check_offered (CtrWindow *w, const char *what)
{
  CtrDataset *d = ctr_session_get_dataset (ctr_window_get_session (w));
  guint set = offered (w), wrong = 0, missing = 0;

  for (guint m = 0; m < CTR_N_METHODS; m++)
    {
      gboolean fits = ctr_method_fits_geometry (m, d->geometry);
      gboolean shown = (set >> m) & 1;
      if (shown && !fits)
        {
          ui_note ("%s: %s offered but does not fit", what, ctr_method_name (m));
          wrong++;
        }
      if (fits && !shown)
        missing++;
    }
  CHECK (wrong == 0 && missing == 0, "%s: the Algorithm list offers exactly the methods that fit "
         "(%u offered that do not fit, %u fitting left out)", what, wrong, missing);
}

void
test_window_fit_methods (void)
{
  CtrWindow *w;

  if (fan_path () == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, fan_path (), 120), "fan data opened");
  check_offered (w, "fan beam");
  CHECK (!((offered (w) >> CTR_METHOD_FDK) & 1), "FDK is not offered for fan data");
  if (cone_path () != NULL)
    {
      CHECK (ui_open_and_wait (w, cone_path (), 120), "cone data opened");
      check_offered (w, "cone beam");
      ctr_method_panel_set_method (panel_of (w), CTR_METHOD_SIRT);
      ctr_method_panel_set_param (panel_of (w), "iterations", 7, NULL);
      CHECK (ctr_method_panel_get_method (panel_of (w)) == CTR_METHOD_SIRT, "SIRT chosen on cone data");
      /* back to fan data: the choice survives the shorter list */
      CHECK (ui_open_and_wait (w, fan_path (), 120), "fan data opened again");
      check_offered (w, "fan beam again");
      {
        CtrReconOptions o;
        ctr_method_panel_get_options (panel_of (w), &o);
        CHECK (o.method == CTR_METHOD_SIRT && o.iterations == 7, "SIRT with its 7 iterations still chosen (%s, %u)",
               ctr_method_name (o.method), o.iterations);
      }
    }
  ui_close_window (w);
}

/* ---- /ui/window/open-unsupported ----------------------------------------------- */

static const char *
dialog_body (CtrWindow *w)
{
  GtkWidget *dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 10);
  static char *body;

  g_clear_pointer (&body, g_free);
  if (dialog == NULL)
    return "no dialog";
  body = g_strdup (adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)));
  gtk_window_destroy (GTK_WINDOW (dialog));
  return body;
}

void
test_window_open_unsupported (void)
{
  static const guchar png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R' };
  g_autofree char *png_path = ui_out_path ("not-a-dataset.png");
  g_autofree char *readme = ui_out_path ("README");
  CtrWindow *w = ui_new_window ();
  const char *body;

  g_assert_true (g_file_set_contents (png_path, (const char *) png, sizeof png, NULL));
  g_assert_true (g_file_set_contents (readme, "# A dataset\n\nSee geometry.json.\n", -1, NULL));

  CHECK (!ui_open_and_wait (w, png_path, 60), "a PNG is not opened");
  body = dialog_body (w);
  CHECK (strstr (body, "not a supported file") != NULL && strstr (body, "JSON") == NULL, "a PNG: “%s”", body);
  CHECK (!ui_open_and_wait (w, readme, 60), "a README is not opened");
  body = dialog_body (w);
  CHECK (strstr (body, "not a supported file") != NULL && strstr (body, "JSON") == NULL, "a README: “%s”", body);
  ui_close_window (w);
  g_unlink (png_path);
  g_unlink (readme);
}

/* ---- /ui/window/recent-underscore ----------------------------------------------- */

static GMenuModel *
recent_section (CtrWindow *w)
{
  GMenuModel *menu = adw_split_button_get_menu_model (ui_child (w, CTR_TYPE_WINDOW, "open_button"));
  return g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
}

/* Whether the recent section holds the entry of the folder "my_gel_scan"
 * (its label escaped for the menu): earlier cases of the script leave
 * their own entries, so "any entry" would not wait for this one. */
static gboolean
has_recent (gpointer w)
{
  g_autoptr(GMenuModel) recent = recent_section (w);
  if (recent == NULL)
    return FALSE;
  for (int i = 0; i < g_menu_model_get_n_items (recent); i++)
    {
      g_autofree char *label = NULL;
      if (g_menu_model_get_item_attribute (recent, i, G_MENU_ATTRIBUTE_LABEL, "s", &label)
          && strstr (label, "my__gel__scan") != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Whether the open menu, as GTK draws it, shows a label reading @text. */
static gboolean
menu_shows (CtrWindow *w, const char *text)
{
  GMenuModel *menu = adw_split_button_get_menu_model (ui_child (w, CTR_TYPE_WINDOW, "open_button"));
  GtkWidget *popover = gtk_popover_menu_new_from_model (menu);
  g_autoptr(GPtrArray) labels = NULL;
  gboolean found = FALSE;

  g_object_ref_sink (popover);
  labels = ui_find_all (popover, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *t = gtk_label_get_text (labels->pdata[i]);
      ui_note ("menu label “%s”", t);
      found |= g_str_equal (t, text);
    }
  g_object_unref (popover);
  return found;
}

void
test_window_recent_underscore (void)
{
  g_autofree char *tmp = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *json = NULL;
  g_autofree char *target = NULL;
  CtrWindow *w;

  if (fan_path () == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  tmp = g_dir_make_tmp ("ctrecon-recent-XXXXXX", NULL);
  g_assert_nonnull (tmp);
  /* the dataset's folder under a name with underscores */
  dir = g_build_filename (tmp, "my_gel_scan", NULL);
  target = g_path_get_dirname (fan_path ());
  if (!g_path_is_absolute (target))
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *abs = g_build_filename (cwd, target, NULL);
      g_free (target);
      target = g_steal_pointer (&abs);
    }
  g_assert_cmpint (symlink (target, dir), ==, 0);
  json = g_build_filename (dir, "geometry.json", NULL);

  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, json, 120), "the dataset opened through my_gel_scan/");
  ui_wait (has_recent, w, 20, "the recent files menu's my_gel_scan entry");
  CHECK (menu_shows (w, "my_gel_scan/geometry.json"), "Recent shows “my_gel_scan/geometry.json” with its underscores");
  ui_close_window (w);
  g_unlink (dir);
  g_rmdir (tmp);
}

/* ---- /ui/window/failed-run ------------------------------------------------------- */

/* A run that fails (a pixel of 500 mm: wider than the field of view) is
 * marked failed in the Runs list, with the reason in a dialog and in the
 * status line, and gives no result. */
void
test_window_failed_run (void)
{
  CtrWindow *w;
  CtrSession *session;
  CtrGeometryPanel *gp;
  GtkWidget *dialog;
  GListModel *runs;
  guint n_results;

  if (fan_path () == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  runs = ctr_session_get_runs (session);
  CHECK (ui_open_and_wait (w, fan_path (), 120), "fan data opened");
  ctr_geometry_panel_set_text (gp, "pixel-size", "500");
  n_results = g_list_model_get_n_items (ctr_session_get_results (session));
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 120, "the failing run");
  dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 10);
  CHECK (dialog != NULL, "the failure is shown in a dialog: “%s”",
         dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "none");
  {
    g_autoptr(CtrRun) run = g_list_model_get_n_items (runs) > 0
                              ? g_list_model_get_item (runs, g_list_model_get_n_items (runs) - 1) : NULL;
    const char *body = dialog ? adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog)) : "";
    const char *status = ctr_session_get_status (session);

    CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FAILED && g_str_has_suffix (ctr_run_get_label (run),
                                                                                          " (failed)"),
           "the run is listed as failed: “%s”", run ? ctr_run_get_label (run) : "no run");
    CHECK (status != NULL && body[0] != '\0' && strstr (status, body) != NULL,
           "the status line gives the reason: “%s”", status ? status : "");
    CHECK (g_list_model_get_n_items (ctr_session_get_results (session)) == n_results, "no result from it");
  }
  if (dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (dialog));
  ui_close_window (w);
}

/* ---- /ui/window/dicom-window ------------------------------------------------------ */

/* The value of DS attribute (@group,@element) in an explicit-VR little-endian
 * DICOM file; NAN when absent. */
static double
dicom_ds (const char *path, guint16 group, guint16 element)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  const guchar tag[6] = { group & 0xff, group >> 8, element & 0xff, element >> 8, 'D', 'S' };

  if (!g_file_get_contents (path, &bytes, &len, NULL))
    return NAN;
  for (gsize i = 132; i + 8 <= len; i++)
    if (memcmp (bytes + i, tag, sizeof tag) == 0)
      {
        guint n = (guchar) bytes[i + 6] | (guint) (guchar) bytes[i + 7] << 8;
        g_autofree char *value = i + 8 + n <= len ? g_strndup (bytes + i + 8, n) : NULL;
        return value ? g_ascii_strtod (value, NULL) : NAN;
      }
  return NAN;
}

/* An FBP shown with a bone-like window (0 to 2000 HU: W 2000, L 1000) and
 * exported as DICOM: the series opens with that window, not 40 / 400. */
void
test_window_dicom_window (void)
{
  g_autofree char *folder = ui_out_path ("dicom-window");
  g_autofree char *first = NULL;
  CtrWindow *w;
  CtrSliceView *view;
  const double mu_w = CTR_MU_WATER_PER_MM;
  double c, wd;

  if (fan_path () == NULL)
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, fan_path (), 120), "fan data opened");
  ctr_method_panel_set_method (panel_of (w), CTR_METHOD_FBP);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 120, "an FBP run");
  view = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (ui_child (w, CTR_TYPE_WINDOW, "run_page")), CTR_TYPE_SLICE_VIEW, NULL));
  g_assert_nonnull (view);
  /* 0 HU to 2000 HU in the image's unit */
  ctr_slice_view_set_window (view, mu_w, 3 * mu_w);
  {
    g_autoptr(GDir) d = g_dir_open (folder, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *f = g_build_filename (folder, name, NULL);
        g_unlink (f);
      }
    g_mkdir_with_parents (folder, 0755);
  }
  first = g_build_filename (folder, "CT0001.dcm", NULL);
  CHECK (ui_export (w, "win.export-dicom", folder), "the DICOM export chooser answered");
  ui_wait ((gboolean (*) (gpointer)) ui_has_toast, w, 60, "the export's message");
  c = dicom_ds (first, 0x0028, 0x1050);
  wd = dicom_ds (first, 0x0028, 0x1051);
  CHECK (fabs (c - 1000) < 0.5 && fabs (wd - 2000) < 0.5,
         "the series opens with the window shown: WindowCenter %g, WindowWidth %g (want 1000, 2000)", c, wd);
  ui_close_window (w);
}

/* ---- /ui/window/tiff-summary ----------------------------------------------------- */

static const char *
summary_of (CtrWindow *w)
{
  return adw_action_row_get_subtitle (ui_child (ui_child (w, CTR_TYPE_WINDOW, "run_page"), CTR_TYPE_RUN_PAGE,
                                                "dataset_row"));
}

static void
type_field (CtrGeometryPanel *gp, const char *field, double value)
{
  g_autofree char *text = g_strdup_printf ("%.10g", value);
  ctr_geometry_panel_set_text (gp, field, text);
}

void
test_window_tiff_summary (void)
{
  const char *tiff = g_getenv ("CTR_UI_TIFF");
  g_autoptr(CtrDataset) truth = NULL;
  CtrGeometryPanel *gp;
  CtrWindow *w;

  if (tiff == NULL || fan_path () == NULL || !g_file_test (tiff, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no TIFF ($CTR_UI_TIFF) or dataset ($CTR_UI_DATASET)");
      return;
    }
  truth = ctr_dataset_load (fan_path (), NULL, NULL, NULL);
  g_assert_nonnull (truth);
  w = ui_new_window ();
  gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  CHECK (ui_open_and_wait (w, tiff, 120), "the bare TIFF %s opens", tiff);
  CHECK (strstr (summary_of (w), "Geometry incomplete") != NULL,
         "before the geometry is typed the summary says it is incomplete: “%s”", summary_of (w));
  {
    const CtrGeometry *t = truth->geometry;
    type_field (gp, "sod", t->sod_mm);
    type_field (gp, "sdd", t->sdd_mm);
    type_field (gp, "pitch-u", t->pitch_u);
    type_field (gp, "offset-u", t->offset_u);
    type_field (gp, "angle-start", t->angles[0] * 180 / G_PI);
    type_field (gp, "angle-step", (t->angles[1] - t->angles[0]) * 180 / G_PI);
  }
  CHECK (ctr_geometry_panel_is_valid (gp), "with SOD, SDD, pitch and angles typed the geometry is valid");
  ui_spin (100);
  {
    const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);
    g_autofree char *sod = g_strdup_printf ("SOD %.1f mm, SDD %.1f mm", truth->geometry->sod_mm,
                                            truth->geometry->sdd_mm);
    g_autofree char *fov = g != NULL ? g_strdup_printf ("field of view Ø %.1f mm", 2 * ctr_geometry_fov_radius_mm (g))
                                     : g_strdup ("?");
    CHECK (strstr (summary_of (w), sod) != NULL && strstr (summary_of (w), fov) != NULL &&
               strstr (summary_of (w), "SOD 0.0 mm") == NULL,
           "the Run page's summary describes the typed geometry (“%s”, “%s”): “%s”", sod, fov, summary_of (w));
  }
  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "reconstruct");
  ui_screenshot (GTK_WIDGET (w), "ui-tiff-summary.png");

  /* a field made invalid: said, not the last valid one kept */
  ctr_geometry_panel_set_text (gp, "sdd", "10");
  ui_spin (100);
  CHECK (strstr (summary_of (w), "Geometry incomplete") != NULL,
         "an invalid field: the summary says so: “%s”", summary_of (w));
  ui_close_window (w);
}
