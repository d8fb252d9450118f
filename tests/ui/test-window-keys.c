/* test-window-keys.c — keys for pages, slices and zoom; no tooltip over the
 * image (issue 31, item 8: "no keys for page switching, slice stepping or
 * zoom fit"; "a tooltip covers the image centre"):
 *
 * /ui/window/keys: the window's class shortcuts bind Alt+1 … Alt+6 to
 *   win.show-page with the pages in the header's order, Page Down / Page Up
 *   to win.slice-step ±1 and Ctrl+0 to win.zoom-fit (read from the
 *   window's shortcut controllers, as GTK dispatches them); activated on
 *   head-cone-small's reference volume they show the page, step the Run
 *   page's slice and keep it inside the volume, do nothing to the slice
 *   while another page is shown, and bring a zoomed and panned view back
 *   to zoom 1 without pan; the image views carry no tooltip and the slice
 *   toolbar holds the hints.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_CONE (head-cone-small's geometry.json; skips
 * without it).
 */
#include <string.h>

#include "test-window.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"

#define HELP_OVERLAY "/org/ctrecon/CtRecon/gtk/help-overlay.ui"

/* "TRIGGER ACTION ARGS" for every shortcut of @widget's controllers. */
static GPtrArray *
shortcut_lines (GtkWidget *widget)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);
      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (c)); k++)
        {
          g_autoptr(GtkShortcut) s = g_list_model_get_item (G_LIST_MODEL (c), k);
          GtkShortcutAction *a = gtk_shortcut_get_action (s);
          GVariant *args = gtk_shortcut_get_arguments (s);
          if (!GTK_IS_NAMED_ACTION (a))
            continue;
          g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (s));
          g_autofree char *arg = args != NULL ? g_variant_print (args, FALSE) : g_strdup ("");
          g_ptr_array_add (lines, g_strdup_printf ("%s %s %s", trigger,
                                                   gtk_named_action_get_action_name (GTK_NAMED_ACTION (a)), arg));
        }
    }
  return lines;
}

static gboolean
has_line (GPtrArray *lines, const char *want)
{
  for (guint i = 0; i < lines->len; i++)
    if (g_str_equal (lines->pdata[i], want))
      return TRUE;
  return FALSE;
}

void
test_window_keys (void)
{
  static const char *const pages[] = { "reconstruct", "geometry", "profile", "compare", "study", "projections" };
  const char *cone = g_getenv ("CTR_UI_CONE");
  CtrWindow *w;

  if (cone == NULL || !g_file_test (cone, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, cone, 120), "head-cone-small opened (its reference is a volume)");
  AdwViewStack *stack = ui_child (w, CTR_TYPE_WINDOW, "stack");
  CtrRunPage *page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  CtrSliceView *main_view = ui_child (page, CTR_TYPE_RUN_PAGE, "slice_view");

  g_autoptr(GPtrArray) lines = shortcut_lines (GTK_WIDGET (w));
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *want = g_strdup_printf ("<Alt>%u win.show-page '%s'", i + 1, pages[i]);
      CHECK (has_line (lines, want), "bound: %s", want);
    }
  {
    /* the Keyboard Shortcuts window lists the six pages' keys */
    g_autoptr(GtkBuilder) help = gtk_builder_new_from_resource (HELP_OVERLAY);
    GObject *item = gtk_builder_get_object (help, "pages-keys");
    g_autofree char *title = NULL, *accel = NULL;

    if (item != NULL)
      g_object_get (item, "title", &title, "accelerator", &accel, NULL);
    CHECK (title != NULL && strstr (title, "Projections") != NULL && g_strcmp0 (accel, "<Alt>1...<Alt>6") == 0,
           "the shortcuts window lists “%s” as %s", title ? title : "(none)", accel ? accel : "(none)");
  }
  CHECK (has_line (lines, "Page_Down win.slice-step 1") && has_line (lines, "Page_Up win.slice-step -1"),
         "bound: Page Down / Page Up step the slice");
  CHECK (has_line (lines, "<Control>0 win.zoom-fit "), "bound: Ctrl+0 fits the view");

  for (guint i = G_N_ELEMENTS (pages); i-- > 0;)
    {
      gtk_widget_activate_action (GTK_WIDGET (w), "win.show-page", "s", pages[i]);
      ui_spin (20);
      CHECK (g_strcmp0 (adw_view_stack_get_visible_child_name (stack), pages[i]) == 0, "Alt+%u shows %s", i + 1,
             pages[i]);
    }

  guint n = ctr_slice_view_get_n_slices (main_view), s0 = ctr_slice_view_get_slice (main_view);
  CHECK (n > 2, "the reference volume has %u slices", n);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.slice-step", "i", 1);
  ui_spin (20);
  CHECK (ctr_slice_view_get_slice (main_view) == s0 + 1, "Page Down: slice %u → %u", s0,
         ctr_slice_view_get_slice (main_view));
  for (guint k = 0; k < n + 3; k++)
    gtk_widget_activate_action (GTK_WIDGET (w), "win.slice-step", "i", 1);
  ui_spin (20);
  CHECK (ctr_slice_view_get_slice (main_view) == n - 1, "Page Down at the end stays on the last slice (%u of %u)",
         ctr_slice_view_get_slice (main_view) + 1, n);
  for (guint k = 0; k < n + 3; k++)
    gtk_widget_activate_action (GTK_WIDGET (w), "win.slice-step", "i", -1);
  ui_spin (20);
  CHECK (ctr_slice_view_get_slice (main_view) == 0, "Page Up at the start stays on the first slice (%u)",
         ctr_slice_view_get_slice (main_view) + 1);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.show-page", "s", "compare");
  gtk_widget_activate_action (GTK_WIDGET (w), "win.slice-step", "i", 1);
  ui_spin (20);
  CHECK (ctr_slice_view_get_slice (main_view) == 0, "on Compare, Page Down leaves the Run page's slice");
  gtk_widget_activate_action (GTK_WIDGET (w), "win.show-page", "s", "reconstruct");

  double zoom, px, py;
  ctr_slice_view_set_zoom_pan (main_view, 4.0, 30.0, -12.0);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.zoom-fit", NULL);
  ctr_slice_view_get_zoom_pan (main_view, &zoom, &px, &py);
  CHECK (zoom == 1.0 && px == 0.0 && py == 0.0, "Ctrl+0: zoom %g, pan (%g, %g) after zoom 4, pan (30, -12)", zoom,
         px, py);

  g_autoptr(GPtrArray) views = ui_find_all (GTK_WIDGET (w), CTR_TYPE_SLICE_VIEW);
  guint with_tip = 0;
  for (guint i = 0; i < views->len; i++)
    with_tip += gtk_widget_get_tooltip_text (views->pdata[i]) != NULL;
  CHECK (views->len > 0 && with_tip == 0, "no tooltip over the image: %u of %u views have one", with_tip,
         views->len);
  g_autoptr(GPtrArray) boxes = ui_find_all (GTK_WIDGET (page), GTK_TYPE_BOX);
  gboolean hint = FALSE;
  for (guint i = 0; i < boxes->len; i++)
    {
      const char *t = gtk_widget_get_tooltip_text (boxes->pdata[i]);
      hint = hint || (t != NULL && strstr (t, "Page Up/Down") != NULL && strstr (t, "Ctrl+0") != NULL);
    }
  CHECK (hint, "the slice toolbar's tooltip names the image's gestures and keys");
  ui_close_window (w);
}
