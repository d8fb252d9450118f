/* test-window-grid.c — /ui/window/default-grid: the window and
 * `ctrecon-cli reconstruct` give the same default reconstruction grid for
 * every dataset in the shared data (issue 30: one grid rule, data/ctr-grid.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every entry point is tried: each geometry*.json one or two folders down
 * and each folder of DICOM files one folder down.  The window opens it and
 * its Geometry page's grid (ctr_geometry_panel_get_grid, what a run gets) is
 * compared with the "grid:" line of `ctrecon-cli reconstruct PATH --dry-run`
 * (sizes equal; spacing within 1e-5 relative, the fields show 6 digits;
 * centre within 1e-4 mm).  Before the grid module the helical DICOM series of
 * head-helical-ctpd got 31 slices in the window against the CLI's 44.
 * Screenshot ui-default-grid-helical.png: that series' Geometry page.
 *
 * Environment: CTR_UI_GRID_DATA (the shared data folder), CTR_CLI.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test-window.h"
#include "ctr-geometry-panel.h"

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* geometry*.json and DICOM folders under @dir, @depth folders down. */
static void
find_entries (const char *dir, guint depth, GPtrArray *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  gboolean dicom = FALSE;

  if (d == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = names->pdata[i];
      g_autofree char *path = g_build_filename (dir, n, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (depth > 0)
            find_entries (path, depth - 1, out);
        }
      else if (g_str_has_prefix (n, "geometry") && g_str_has_suffix (n, ".json"))
        g_ptr_array_add (out, g_steal_pointer (&path));
      else if (g_str_has_suffix (n, ".dcm"))
        dicom = TRUE;
    }
  if (dicom)
    g_ptr_array_add (out, g_strdup (dir));
}

/* The CLI's grid for @path (its "grid:" line); FALSE when it has none. */
static gboolean
cli_grid (const char *path, CtrGrid *grid)
{
  const char *cli = g_getenv ("CTR_CLI");
  const char *argv[] = { cli, "reconstruct", path, "--dry-run", NULL };
  g_autofree char *err = NULL;
  int status = -1;

  if (cli == NULL || !g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                                    &status, NULL))
    return FALSE;
  const char *line = err != NULL ? strstr (err, "\ngrid: ") : NULL;
  return g_spawn_check_wait_status (status, NULL) && line != NULL &&
         sscanf (line + 1, "grid: %u x %u x %u voxels of %lf x %lf x %lf mm, centre %lf %lf %lf mm", &grid->nx,
                 &grid->ny, &grid->nz, &grid->dx, &grid->dy, &grid->dz, &grid->cx, &grid->cy, &grid->cz) == 9;
}

static gboolean
close_rel (double a, double b)
{
  return fabs (a - b) <= 1e-5 * MAX (fabs (a), fabs (b));
}

void
test_window_default_grid (void)
{
  const char *data = g_getenv ("CTR_UI_GRID_DATA");
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);

  if (data == NULL || !g_file_test (data, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no shared data ($CTR_UI_GRID_DATA)");
      return;
    }
  find_entries (data, 2, entries);
  CHECK (entries->len >= 8, "%u dataset entry points under %s", entries->len, data);
  for (guint i = 0; i < entries->len; i++)
    {
      const char *path = entries->pdata[i];
      const char *shown = path + strlen (data) + (path[strlen (data)] == '/');
      CtrGrid want = { 0 }, got = { 0 };

      if (!cli_grid (path, &want))
        {
          ui_note ("%s: the CLI reconstructs no default grid (not a dataset on its own)", shown);
          continue;
        }
      CtrWindow *w = ui_new_window ();
      CtrGeometryPanel *gp = ui_child (w, CTR_TYPE_WINDOW, "geometry_panel");
      gboolean opened = ui_open_and_wait (w, path, 240);
      gboolean valid = opened && ctr_geometry_panel_get_grid (gp, &got);
      CHECK (valid && got.nx == want.nx && got.ny == want.ny && got.nz == want.nz && close_rel (got.dx, want.dx) &&
                 close_rel (got.dy, want.dy) && close_rel (got.dz, want.dz) && fabs (got.cx - want.cx) < 1e-4 &&
                 fabs (got.cy - want.cy) < 1e-4 && fabs (got.cz - want.cz) < 1e-4,
             "%s: window %u×%u×%u of %.6g×%.6g×%.6g mm at z %.4f mm, CLI %u×%u×%u of %.6g×%.6g×%.6g mm at z %.4f mm",
             shown, got.nx, got.ny, got.nz, got.dx, got.dy, got.dz, got.cz, want.nx, want.ny, want.nz, want.dx,
             want.dy, want.dz, want.cz);
      if (valid && g_str_has_suffix (path, "head-helical-ctpd/dicom"))
        {
          /* the helical series' slices as the Geometry page shows them */
          adw_view_stack_set_visible_child_name (ui_child (w, CTR_TYPE_WINDOW, "stack"), "geometry");
          ui_screenshot (GTK_WIDGET (w), "ui-default-grid-helical.png");
        }
      ui_close_window (w);
    }
}
