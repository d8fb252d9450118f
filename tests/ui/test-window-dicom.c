/* test-window-dicom.c — DICOM in the real window: the series dialog, the
 * summary, recent files, HU, DICOM export, dropped files; and the geometry
 * dialog of an X-ray angiography file without geometry.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   CTR_UI_DICOM_MIXED  a folder holding two projection series:
 *                       run-ui-test.sh links gel-fan's 72 DICOM-CT-PD views
 *                       and 37 of head-fan-lowdose's first 40 (views 10, 20
 *                       and 30 left out), so the dialog must state the gap
 *   CTR_UI_DICOM_XA     an XA file of 36 frames without SOD, SDD, pixel
 *                       spacing and angles, written by pydicom
 * The dialogs are answered through their own widgets (check buttons,
 * entries, responses), found in the dialog's widget tree.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

static CtrRunPage *
run_page (CtrWindow *w)
{
  return ui_child (w, CTR_TYPE_WINDOW, "run_page");
}

static const char *
summary (CtrWindow *w)
{
  return adw_action_row_get_subtitle (ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "dataset_row"));
}

static guint
count_files (const char *dir, const char *suffix)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, suffix))
      n++;
  return n;
}

typedef struct {
  const char *dir;
  guint       n;
} FileCount;

static gboolean
has_files (gpointer data)
{
  FileCount *c = data;
  return count_files (c->dir, ".dcm") >= c->n;
}

/* Entries of the open button's "Recent" section. */
static guint
n_recent (CtrWindow *w)
{
  GMenuModel *menu = adw_split_button_get_menu_model (ui_child (w, CTR_TYPE_WINDOW, "open_button"));
  g_autoptr(GMenuModel) recent = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
  return recent ? g_menu_model_get_n_items (recent) : 0;
}

static gboolean
has_recent (gpointer w)
{
  return n_recent (w) >= 1;
}

/* Which row of the dialog shows @s: its title is the series' description. */
static GtkWidget *
row_of (GPtrArray *rows, const CtrDicomSeries *s)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const char *title = adw_preferences_row_get_title (rows->pdata[i]);
      if (g_strcmp0 (title, s->description) == 0)
        return rows->pdata[i];
    }
  return NULL;
}

/* Drops @paths on the window as a file manager would. */
static gboolean
drop_files (CtrWindow *w, const char *const *paths)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (w));
  GtkDropTarget *target = NULL;
  GSList *files = NULL;
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers) && target == NULL; i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);
      if (GTK_IS_DROP_TARGET (c))
        target = GTK_DROP_TARGET (c);
    }
  if (target == NULL)
    return FALSE;
  for (guint i = 0; paths[i] != NULL; i++)
    files = g_slist_prepend (files, g_file_new_for_path (paths[i]));
  files = g_slist_reverse (files);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  g_slist_free_full (files, g_object_unref);
  return handled;
}

void
test_window_dicom (void)
{
  const char *mixed = g_getenv ("CTR_UI_DICOM_MIXED");
  g_autoptr(CtrDicomResolution) expect = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) gel_files = NULL;
  const CtrDicomSeries *gel = NULL;
  CtrSession *session;
  GtkWidget *dialog;
  CtrWindow *w;
  gint64 t0;

  if (mixed == NULL || !g_file_test (mixed, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no DICOM folder ($CTR_UI_DICOM_MIXED)");
      return;
    }
  /* what the dialog has to offer, as core resolves it */
  expect = ctr_dicom_resolve (mixed, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (expect->outcome, ==, CTR_DICOM_OUTCOME_CHOOSE_SERIES);

  w = ui_new_window ();
  session = ctr_window_get_session (w);
  {
    g_autoptr(GFile) folder = g_file_new_for_path (mixed);
    ctr_window_open (w, folder);
  }
  dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 60);
  CHECK (dialog != NULL, "the series dialog appeared within 60 s");
  if (dialog == NULL)
    {
      ui_close_window (w);
      return;
    }

  /* the series dialog: both series with their reports */
  {
    g_autoptr(GPtrArray) checks = ui_find_all (dialog, GTK_TYPE_CHECK_BUTTON);
    g_autoptr(GPtrArray) rows = ui_find_all (dialog, ADW_TYPE_ACTION_ROW);
    gboolean gap = FALSE;

    CHECK (ctr_session_get_dataset (session) == NULL && !ctr_session_get_busy (session),
           "waiting for the choice: no dataset, not busy");
    CHECK (checks->len == 2 && rows->len == 2 && expect->series->len == 2,
           "the dialog lists the 2 projection series");
    for (guint i = 0; i < expect->series->len; i++)
      {
        const CtrDicomSeries *s = expect->series->pdata[i];
        GtkWidget *row = row_of (rows, s);
        const char *shown = row ? adw_action_row_get_subtitle (ADW_ACTION_ROW (row)) : NULL;

        ui_note ("series %u: %s", i + 1, s->report);
        gap = gap || (s->n_missing > 0 && shown != NULL && strstr (shown, "missing") != NULL);
        if (s->n_views == 72 && s->n_missing == 0)
          gel = s;
      }
    CHECK (gap, "one report states the missing views");
    ui_screenshot (dialog, "ui-dicom-series.png");

    /* choose gel-fan's series (72 views) with its check button */
    CHECK (gel != NULL, "gel-fan's 72-view series is offered");
    if (gel == NULL)
      {
        adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
        ui_close_window (w);
        return;
      }
    gel_files = g_strdupv (gel->files);
    {
      GtkWidget *row = row_of (rows, gel);
      GtkWidget *check = row ? ui_find (row, GTK_TYPE_CHECK_BUTTON, NULL) : NULL;
      g_assert_nonnull (check);
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
    }
    t0 = g_get_monotonic_time ();
    adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "open");
    CHECK (ctr_session_get_busy (session), "choosing the series starts loading it");
  }
  ui_wait_idle (w, 120, "the chosen series");
  CHECK (ctr_session_get_dataset (session) != NULL, "the chosen series loaded in %.2f s",
         (g_get_monotonic_time () - t0) / 1e6);
  if (ctr_session_get_dataset (session) == NULL)
    {
      ui_close_window (w);
      return;
    }

  /* the summary, recent files, then SIRT */
  CHECK (summary (w) && strstr (summary (w), "DICOM") && strstr (summary (w), "72 views"),
         "the summary shows the DICOM report (72 views)");
  /* GtkRecentManager tells of the new entry from an idle once its file is
   * written: under the sanitizers that can take a while */
  ui_wait (has_recent, w, 20, "the recent files menu");
  CHECK (n_recent (w) >= 1, "the folder is in the recent files (%u entries)", n_recent (w));
  CHECK (ui_button_enabled (w, "reconstruct_button"), "Reconstruct is enabled");
  {
    CtrMethodPanel *mp = ctr_run_page_get_method_panel (run_page (w));
    ctr_method_panel_set_method (mp, CTR_METHOD_SIRT);
    ctr_method_panel_set_param (mp, "iterations", 5, NULL);
  }
  t0 = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 240, "SIRT on the DICOM series");
  CHECK (ctr_session_get_latest_result (session) != NULL, "SIRT on the DICOM series finished in %.2f s",
         (g_get_monotonic_time () - t0) / 1e6);

  /* the result: HU read-out, HU preset, DICOM export */
  {
    CtrRun *run = ctr_session_get_latest_result (session);
    CtrVolume *v = run ? ctr_run_get_result (run) : NULL;
    CtrSliceView *view = ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "slice_view");
    GtkDropDown *presets = ui_child (run_page (w), CTR_TYPE_RUN_PAGE, "preset_dropdown");
    g_autofree char *folder = ui_out_path ("dicom-export");
    gboolean hu_unit;

    CHECK (v != NULL && g_list_model_get_n_items (ctr_session_get_results (session)) == 1, "one result");
    if (v == NULL)
      {
        ui_close_window (w);
        return;
      }
    hu_unit = g_strcmp0 (v->unit, "1/mm") == 0;
    {
      guint ix = v->grid.nx / 2, iy = v->grid.ny / 2;
      g_autofree char *info = ctr_slice_view_describe_pixel (view, ix, iy);
      float mu = v->data[(gsize) iy * v->grid.nx + ix];
      double hu = 1000.0 * (mu - 0.0192) / 0.0192;
      g_autofree char *want = g_strdup_printf ("%+.0f HU", hu);

      ui_note ("pointer read-out at the centre: %s", info ? info : "(none)");
      if (hu_unit)
        CHECK (info && strstr (info, want) && strstr (info, "0.0192"), "the read-out states %s with μ_water 0.0192 /mm",
               want);
      else
        CHECK (info && !strstr (info, "HU"), "no HU for an image in %s", v->unit ? v->unit : "no unit");
    }
    /* the toolbar's last preset is HU (W 2000, L 0); a refused one snaps back */
    gtk_drop_down_set_selected (presets, 5);
    CHECK ((gtk_drop_down_get_selected (presets) == 5) == hu_unit, "the HU preset %s",
           hu_unit ? "applies" : "is refused for this unit");

    /* a fresh folder: leftovers of an earlier run would be counted */
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
    {
      FileCount c = { folder, v->grid.nz };
      gboolean ok = ui_export (w, "win.export-dicom", folder);
      g_autoptr(GPtrArray) back = NULL;

      if (ok)
        {
          ui_wait (has_files, &c, 60, "the DICOM slices");
          ui_wait (ui_has_toast, w, 10, "the export's message");
        }
      CHECK (ok, "DICOM series exported to %s", folder);
      back = ctr_dicom_scan (folder, NULL, &error);
      CHECK (back && back->len == 1 && ((CtrDicomSeries *) back->pdata[0])->kind == CTR_DICOM_KIND_IMAGE &&
                 ((CtrDicomSeries *) back->pdata[0])->n_files == v->grid.nz && count_files (folder, ".dcm") == v->grid.nz,
             "it scans back as one image series of %u file(s)%s%s", v->grid.nz, error ? ": " : "",
             error ? error->message : "");
      g_clear_error (&error);
    }
    ui_screenshot (GTK_WIDGET (w), "ui-dicom.png");
  }

  /* drag and drop of many files: every other view of gel-fan */
  {
    g_autoptr(GPtrArray) half = g_ptr_array_new ();
    for (guint i = 0; gel_files[i] != NULL; i += 2)
      g_ptr_array_add (half, gel_files[i]);
    g_ptr_array_add (half, NULL);
    CHECK (half->len == 37, "36 of the 72 files to drop");
    CtrDataset *before = ctr_session_get_dataset (session);
    guint n_runs = g_list_model_get_n_items (ctr_session_get_runs (session));

    t0 = g_get_monotonic_time ();
    CHECK (drop_files (w, (const char *const *) half->pdata) && ctr_session_get_busy (session),
           "the dropped files are loading");
    ui_wait_idle (w, 120, "the dropped files");
    CHECK (ctr_session_get_dataset (session) != NULL && ctr_session_get_dataset (session) != before &&
               g_list_model_get_n_items (ctr_session_get_runs (session)) == n_runs,
           "the dropped files loaded in %.2f s (the %u runs before stay)", (g_get_monotonic_time () - t0) / 1e6,
           n_runs);
    CHECK (summary (w) && strstr (summary (w), "36 files, 36 views") && strstr (summary (w), "missing"),
           "the summary reports 36 views and the missing ones");
    ui_note ("summary: %s", summary (w) ? summary (w) : "(none)");
  }
  ui_close_window (w);
}

/* Types @text into field @name of the XA dialog; the reason shown beside it
 * ("" when valid), or NULL without such a field. */
static const char *
xa_type (GtkWidget *dialog, const char *name, const char *text)
{
  GtkWidget *entry = ui_find (dialog, GTK_TYPE_ENTRY, name);
  g_autofree char *reason_name = g_strdup_printf ("%s-reason", name);
  GtkWidget *reason = ui_find (dialog, GTK_TYPE_LABEL, reason_name);

  if (entry == NULL || reason == NULL)
    return NULL;
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  return gtk_label_get_text (GTK_LABEL (reason));
}

void
test_window_dicom_xa (void)
{
  const char *xa = g_getenv ("CTR_UI_DICOM_XA");
  CtrSession *session;
  GtkWidget *dialog;
  CtrWindow *w;
  const char *r;

  if (xa == NULL || !g_file_test (xa, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no XA file ($CTR_UI_DICOM_XA)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  {
    g_autoptr(GFile) file = g_file_new_for_path (xa);
    ctr_window_open (w, file);
  }
  dialog = ui_wait_toplevel (GTK_WINDOW (w), ADW_TYPE_MESSAGE_DIALOG, 60);
  CHECK (dialog != NULL, "the geometry dialog appeared within 60 s");
  if (dialog == NULL)
    {
      ui_close_window (w);
      return;
    }

  CHECK (ctr_session_get_dataset (session) == NULL &&
             !adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "load"),
         "the geometry dialog is shown, Load disabled while the fields are empty");
  {
    /* nothing typed yet: no field is marked in red */
    g_autoptr(GPtrArray) entries = ui_find_all (dialog, GTK_TYPE_ENTRY);
    g_autoptr(GPtrArray) labels = ui_find_all (dialog, GTK_TYPE_LABEL);
    guint red = 0, said = 0;

    for (guint i = 0; i < entries->len; i++)
      red += gtk_widget_has_css_class (entries->pdata[i], "error");
    for (guint i = 0; i < labels->len; i++)
      said += g_str_has_suffix (gtk_widget_get_name (labels->pdata[i]), "-reason") &&
              *gtk_label_get_text (labels->pdata[i]) != '\0';
    CHECK (entries->len >= 4 && red == 0 && said == 0,
           "before anything is typed no field is red (%u of %u) and no reason is shown (%u)", red, entries->len, said);
  }
  r = xa_type (dialog, "sod", "75o");
  CHECK (r && strstr (r, "not a number"), "SOD “75o” refused: “%s”", r ? r : "(no field)");
  r = xa_type (dialog, "sod", "750");
  CHECK (r && *r == '\0', "SOD 750 mm accepted");
  r = xa_type (dialog, "sdd", "500");
  CHECK (r && strstr (r, "exceed"), "SDD 500 mm (< SOD) refused: “%s”", r ? r : "(no field)");
  xa_type (dialog, "sdd", "1200");
  r = xa_type (dialog, "pitch-u", "-0.3");
  CHECK (r && strstr (r, "positive"), "pixel width −0.3 mm refused: “%s”", r ? r : "(no field)");
  xa_type (dialog, "pitch-u", "0.6");
  xa_type (dialog, "pitch-v", "0.6");
  xa_type (dialog, "start", "0");
  r = xa_type (dialog, "step", "0");
  CHECK (r && *r != '\0', "angle step 0 refused: “%s”", r ? r : "(no field)");
  xa_type (dialog, "step", "10");
  CHECK (adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "load"),
         "all fields valid: Load enabled");
  ui_screenshot (dialog, "ui-dicom-xa.png");

  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "load");
  CHECK (ctr_session_get_busy (session), "Load starts loading the frames");
  ui_wait_idle (w, 60, "the frames");
  CHECK (ctr_session_get_dataset (session) != NULL, "the frames loaded");
  ui_note ("summary: %s", summary (w) ? summary (w) : "(none)");
  CHECK (summary (w) && strstr (summary (w), "cone") && strstr (summary (w), "SOD 750") &&
             strstr (summary (w), "SDD 1200") && strstr (summary (w), "36 views"),
         "the summary shows a cone beam of 36 views with SOD 750 and SDD 1200 mm");
  CHECK (ui_button_enabled (w, "reconstruct_button"), "Reconstruct is enabled");
  ui_close_window (w);
}
