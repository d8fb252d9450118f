/* test-window-fit.c — the window fits a 1280×720 screen (issue 31, item 8):
 *
 * /ui/window/fit-1280: with a dataset open and a run done, the window's
 *   minimum width (gtk_widget_measure, horizontal) is at most 1280 px on
 *   every page, and its minimum height at most 720 px; the window is then
 *   sized 1280×720 and shown on the Run page: ui-1280.png.  Before, a page
 *   asked for 1,299 px and the window did not fit.  When a page is too
 *   wide, the chain of its widest widgets is printed (type, minimum width
 *   and the minimum widths of their children), to name the culprit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_DATASET (a fan-beam geometry.json), CTR_UI_OUT.
 */
#include <string.h>

#include "test-window.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"

#define FIT_WIDTH  1280
#define FIT_HEIGHT 720

static int
min_size (GtkWidget *widget, GtkOrientation orientation)
{
  int min = 0;

  gtk_widget_measure (widget, orientation, -1, &min, NULL, NULL, NULL);
  return min;
}

/* Prints, from @widget down, the widest child at each level and the
 * minimum widths of its siblings. */
static void
note_widest_chain (GtkWidget *widget)
{
  for (guint depth = 0; widget != NULL && depth < 40; depth++)
    {
      GString *line = g_string_new (NULL);
      GtkWidget *widest = NULL;
      int widest_min = -1;

      g_string_append_printf (line, "%*s%s%s%s: %d px; children", (int) depth, "", G_OBJECT_TYPE_NAME (widget),
                              gtk_widget_get_css_classes (widget)[0] != NULL ? "." : "",
                              gtk_widget_get_css_classes (widget)[0] != NULL ? gtk_widget_get_css_classes (widget)[0] : "",
                              min_size (widget, GTK_ORIENTATION_HORIZONTAL));
      for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
        {
          int m;
          if (!gtk_widget_get_visible (c))
            continue;
          m = min_size (c, GTK_ORIENTATION_HORIZONTAL);
          g_string_append_printf (line, " %s:%d", G_OBJECT_TYPE_NAME (c), m);
          if (m > widest_min)
            {
              widest_min = m;
              widest = c;
            }
        }
      ui_note ("%s", line->str);
      g_string_free (line, TRUE);
      widget = widest;
    }
}

void
test_window_fit_1280 (void)
{
  static const char *pages[] = { "reconstruct", "geometry", "profile", "compare", "study", "projections" };
  const char *path = g_getenv ("CTR_UI_DATASET");
  AdwViewStack *stack;
  CtrWindow *w;
  CtrRun *run;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no dataset ($CTR_UI_DATASET)");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, path, 120), "%s opened", path);
  run = ui_run_method (w, CTR_METHOD_FBP, NULL, 0);
  CHECK (run != NULL && ctr_run_get_state (run) == CTR_RUN_FINISHED, "an FBP run finished");
  stack = ui_child (w, CTR_TYPE_WINDOW, "stack");
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      GtkWidget *page;
      int width, height;

      adw_view_stack_set_visible_child_name (stack, pages[i]);
      ui_spin (200);
      page = adw_view_stack_get_visible_child (stack);
      width = min_size (GTK_WIDGET (w), GTK_ORIENTATION_HORIZONTAL);
      height = min_size (GTK_WIDGET (w), GTK_ORIENTATION_VERTICAL);
      ui_note ("page %s: the page asks for %d px, the window for %d × %d px", pages[i],
               min_size (page, GTK_ORIENTATION_HORIZONTAL), width, height);
      CHECK (width <= FIT_WIDTH, "page %s: the window's minimum width %d px ≤ %d", pages[i], width, FIT_WIDTH);
      CHECK (height <= FIT_HEIGHT, "page %s: the window's minimum height %d px ≤ %d", pages[i], height, FIT_HEIGHT);
      if (width > FIT_WIDTH)
        note_widest_chain (GTK_WIDGET (w));
    }

  /* the window at 1280×720, on the Run page with its run */
  adw_view_stack_set_visible_child_name (stack, "reconstruct");
  gtk_window_set_default_size (GTK_WINDOW (w), FIT_WIDTH, FIT_HEIGHT);
  ui_spin (500);
  {
    /* the surface, frame included: what the screen must hold */
    GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (w));
    CHECK (gdk_surface_get_width (surface) == FIT_WIDTH && gdk_surface_get_height (surface) == FIT_HEIGHT,
           "the window is %d × %d px on the screen", gdk_surface_get_width (surface),
           gdk_surface_get_height (surface));
  }
  ui_screenshot (GTK_WIDGET (w), "ui-1280.png");
  ui_close_window (w);
}
