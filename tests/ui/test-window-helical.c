/* test-window-helical.c — /ui/window/helical: a helical scan in the window
 * (issue 19): head-helical-ctpd opens with its geometry kept as read
 * (fields read-only: the source z per view is not in them), FDK not
 * offered, the slices to reconstruct as table positions (by default the
 * reference's: 63 to 99 mm every 1.5 mm), the fully sampled range stated;
 * a narrower range typed in gives that many slices, and FBP (180LI
 * rebinning) reconstructs them.  Screenshot ui-helical-geometry.png (the
 * sketch's z bar).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_HELICAL (head-helical-ctpd's geometry.json), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-geometry-panel.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"

static void
type (CtrGeometryPanel *gp, const char *name, const char *text)
{
  GtkWidget *entry = ui_find (GTK_WIDGET (gp), GTK_TYPE_ENTRY, name);
  if (entry != NULL)
    gtk_editable_set_text (GTK_EDITABLE (entry), text);
}

static GtkWidget *
row_of (CtrGeometryPanel *gp, const char *name)
{
  GtkWidget *entry = ui_find (GTK_WIDGET (gp), GTK_TYPE_ENTRY, name);
  return entry ? gtk_widget_get_ancestor (entry, ADW_TYPE_ACTION_ROW) : NULL;
}

void
test_window_helical (void)
{
  const char *path = g_getenv ("CTR_UI_HELICAL");
  CtrWindow *w;
  CtrSession *session;
  CtrGeometryPanel *gp;
  CtrMethodPanel *mp;
  CtrDataset *d;
  CtrGrid grid;
  CtrRun *run;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no helical dataset ($CTR_UI_HELICAL)");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
  mp = ctr_run_page_get_method_panel (ui_child (w, CTR_TYPE_WINDOW, "run_page"));
  ctr_method_panel_set_method (mp, CTR_METHOD_SIRT);
  CHECK (ui_open_and_wait (w, path, 240), "head-helical-ctpd opened");
  d = ctr_session_get_dataset (session);
  if (d == NULL)
    {
      ui_close_window (w);
      return;
    }

  /* the geometry as read: helical, fields read-only, slices as table z */
  {
    GtkWidget *sod = row_of (gp, "sod"), *first = row_of (gp, "z-first");
    const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);

    CHECK (g != NULL && ctr_geometry_is_helical (g) && sod != NULL && !gtk_widget_is_sensitive (sod),
           "the helical geometry is kept as read (source z per view), its fields read-only");
    CHECK (first != NULL && gtk_widget_get_visible (first), "the slice rows are shown for a helical scan");
  }
  memset (&grid, 0, sizeof grid);
  ctr_geometry_panel_get_grid (gp, &grid);
  CHECK (d->reference != NULL && grid.nz == d->reference->grid.nz &&
             fabs (grid.dz - d->reference->grid.dz) < 1e-9 && fabs (grid.cz - d->reference->grid.cz) < 1e-6,
         "by default the reference's slices: %u slices of %.3g mm about z = %.2f mm", grid.nz, grid.dz, grid.cz);
  CHECK (ctr_method_panel_get_method (mp) == CTR_METHOD_SIRT, "SIRT kept (it fits a helical scan)");
  ctr_method_panel_set_method (mp, CTR_METHOD_FDK);
  ctr_method_panel_set_geometry (mp, d->geometry);
  CHECK (ctr_method_panel_get_method (mp) == CTR_METHOD_FBP, "FDK gives way to FBP (rebinned to fan slices)");

  adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "geometry");
  ui_screenshot (GTK_WIDGET (w), "ui-helical-geometry.png");

  /* three slices at 81, 82.5 and 84 mm; a bad step is refused in words */
  type (gp, "z-step", "0");
  CHECK (!ctr_geometry_panel_get_grid (gp, &grid), "a slice spacing of 0 is refused");
  type (gp, "z-first", "81");
  type (gp, "z-last", "84");
  type (gp, "z-step", "1.5");
  memset (&grid, 0, sizeof grid);
  ctr_geometry_panel_get_grid (gp, &grid);
  CHECK (grid.nz == 3 && fabs (grid.dz - 1.5) < 1e-12,
         "81 to 84 mm every 1.5 mm: %u slices", grid.nz);
  ctr_method_panel_set_param (mp, "window", CTR_FILTER_HANN, NULL);
  gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
  ui_wait_idle (w, 300, "helical FBP");
  run = ctr_session_get_latest_result (session);
  {
    CtrVolume *v = run ? ctr_run_get_result (run) : NULL;
    double sum = 0;
    gboolean finite = v != NULL;

    for (gsize i = 0; v != NULL && i < (gsize) v->grid.nx * v->grid.ny * v->grid.nz; i++)
      {
        finite = finite && isfinite (v->data[i]);
        sum += v->data[i];
      }
    CHECK (v != NULL && v->grid.nz == 3 && finite && sum > 0,
           "FBP reconstructed the 3 slices (finite, mean %.4g /mm): %s",
           v ? sum / ((double) v->grid.nx * v->grid.ny * v->grid.nz) : 0, ctr_session_get_status (session));
  }
  ui_close_window (w);
}
