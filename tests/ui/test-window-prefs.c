/* test-window-prefs.c — Preferences from the build tree, and one name per
 * backend (issue 31, item 8: "Preferences greyed out and showing wrong
 * defaults when run from the build tree as the README says"; "backend
 * names differ between Preferences and the Run page"):
 *
 * /ui/window/prefs-build-tree: run with GSETTINGS_SCHEMA_DIR empty (as
 *   build/app/ctrecon runs from a shell), the window still keeps its
 *   settings (the schema compiled beside the build) and Preferences' rows
 *   can be changed; every backend the Run page lists is named as
 *   Preferences names it.  The header is drawn as it settles from the
 *   first frames (before, the one page's switcher button "General" and the
 *   title "Preferences" were drawn over each other while the header
 *   cross-faded): ui-prefs-header-first.png, ui-prefs-header.png.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>

#include "test-window.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"

/* The strings of combo row @row's model. */
static GPtrArray *
row_labels (AdwComboRow *row)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  GListModel *m = adw_combo_row_get_model (row);
  for (guint i = 0; m != NULL && i < g_list_model_get_n_items (m); i++)
    {
      g_autoptr(GtkStringObject) s = g_list_model_get_item (m, i);
      const char *t = gtk_string_object_get_string (s);
      const char *cut = strstr (t, " (unavailable");
      g_ptr_array_add (out, cut != NULL ? g_strndup (t, cut - t) : g_strdup (t));
    }
  return out;
}

void
test_window_prefs_build_tree (void)
{
  CtrWindow *w = ui_new_window ();
  CHECK (g_strcmp0 (g_getenv ("GSETTINGS_SCHEMA_DIR"), "") == 0 || g_getenv ("GSETTINGS_SCHEMA_DIR") == NULL,
         "GSETTINGS_SCHEMA_DIR is empty or unset (“%s”)", g_getenv ("GSETTINGS_SCHEMA_DIR"));
  g_action_group_activate_action (G_ACTION_GROUP (gtk_window_get_application (GTK_WINDOW (w))), "preferences",
                                  NULL);
  GtkWidget *prefs = ui_wait_toplevel (NULL, ADW_TYPE_PREFERENCES_WINDOW, 10);
  CHECK (prefs != NULL, "Preferences opened");
  if (prefs == NULL)
    {
      ui_close_window (w);
      return;
    }
  GtkWidget *backend = ui_find (prefs, ADW_TYPE_COMBO_ROW, "backend");
  GtkWidget *method = ui_find (prefs, ADW_TYPE_COMBO_ROW, "default-method");
  CHECK (backend != NULL && method != NULL && gtk_widget_is_sensitive (backend) && gtk_widget_is_sensitive (method),
         "Preferences' method and backend rows can be changed (the build's schema found)");

  CtrMethodPanel *panel = ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page"));
  GtkWidget *run_row = ui_find (GTK_WIDGET (panel), ADW_TYPE_COMBO_ROW, "backend");
  g_autoptr(GPtrArray) run = run_row ? row_labels (ADW_COMBO_ROW (run_row)) : g_ptr_array_new ();
  g_autoptr(GPtrArray) pref = backend ? row_labels (ADW_COMBO_ROW (backend)) : g_ptr_array_new ();
  guint missing = 0;
  for (guint i = 0; i < run->len; i++)
    {
      gboolean found = FALSE;
      for (guint k = 0; k < pref->len; k++)
        found = found || g_str_equal (run->pdata[i], pref->pdata[k]);
      if (!found)
        {
          ui_note ("the Run page's backend “%s” is not named so in Preferences", (char *) run->pdata[i]);
          missing++;
        }
    }
  CHECK (run->len >= 2 && missing == 0, "the Run page's %u backends are named as in Preferences (%u differ)",
         run->len, missing);
  {
    /* the header as first drawn and once settled: the same (before, the
     * page switcher's "General" and the title "Preferences" were drawn
     * over each other while the header cross-faded) */
    g_autofree char *first = ui_out_path ("ui-prefs-header-first.png");
    g_autofree char *settled = ui_out_path ("ui-prefs-header.png");
    g_autoptr(GdkPixbuf) a = NULL;
    g_autoptr(GdkPixbuf) b = NULL;
    guint differ = 0;

    ui_screenshot (prefs, "ui-prefs-header-first.png");
    ui_spin (1500);
    ui_screenshot (prefs, "ui-prefs-header.png");
    a = gdk_pixbuf_new_from_file (first, NULL);
    b = gdk_pixbuf_new_from_file (settled, NULL);
    if (a != NULL && b != NULL && gdk_pixbuf_get_width (a) == gdk_pixbuf_get_width (b) &&
        gdk_pixbuf_get_rowstride (a) == gdk_pixbuf_get_rowstride (b) && gdk_pixbuf_get_height (a) >= 46 &&
        gdk_pixbuf_get_height (b) >= 46)
      for (int y = 0; y < 46; y++)
        {
          const guint8 *pa = gdk_pixbuf_get_pixels (a) + (gsize) y * gdk_pixbuf_get_rowstride (a);
          const guint8 *pb = gdk_pixbuf_get_pixels (b) + (gsize) y * gdk_pixbuf_get_rowstride (b);
          for (int x = 0; x < gdk_pixbuf_get_width (a) * gdk_pixbuf_get_n_channels (a); x++)
            differ += pa[x] != pb[x];
        }
    else
      differ = G_MAXUINT;
    CHECK (differ == 0, "the header is drawn once, as it settles (%u samples of its top 46 rows differ)", differ);
  }
  gtk_window_destroy (GTK_WINDOW (prefs));
  ui_spin (50);
  ui_close_window (w);
}
