/* test-window-memory.c — the window's memory with many runs (issue 31, "Done
 * when": 30 runs of 512² and 5 volume runs of 128³ in one session keep the
 * process under 2 GB).  A measurement, not part of run-ui-test.sh: run it
 * by hand under Xvfb (docs/testing.md's window cases), with CTR_UI_MEMORY=1.
 *
 * /ui/window/memory: gel-fan opened, 30 FBP runs on a 512 × 512 grid, then
 *   head-cone-small opened, 5 FDK runs on a 128 × 128 × 128 grid, each
 *   through the window's session (its run store, its pages showing every
 *   new result); then the process's peak resident size (VmHWM) and the run
 *   store's use are printed and the peak checked against 2 GiB.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_MEMORY=1, CTR_UI_DATASET (gel-fan), CTR_UI_CONE
 * (head-cone-small), CTR_UI_OUT.  $CTR_RUN_MEMORY_MB sets the store's
 * budget (images beyond it spill to the cache folder).
 */
#include <math.h>
#include <string.h>

#include "test-window.h"

typedef struct {
  GAsyncResult *result;
} Done;

static void
done (GObject *source, GAsyncResult *result, gpointer data)
{
  ((Done *) data)->result = g_object_ref (result);
}

static gboolean
has_result (gpointer data)
{
  return ((Done *) data)->result != NULL;
}

/* One run on @grid through the window's session; FALSE when it failed. */
static gboolean
run_on (CtrWindow *w, CtrMethod method, const CtrGrid *grid)
{
  CtrSession *s = ctr_window_get_session (w);
  CtrReconOptions o;
  Done d = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = NULL;

  ctr_recon_options_init (&o, method);
  ctr_session_reconstruct_async (s, ctr_session_get_dataset (s)->geometry, grid, &o, NULL, done, &d);
  ui_wait (has_result, &d, 600, "a run");
  run = ctr_session_reconstruct_finish (s, d.result, &error);
  g_object_unref (d.result);
  if (run == NULL)
    ui_note ("the run failed: %s", error ? error->message : "?");
  ui_spin (50);   /* the pages show the new result */
  return run != NULL;
}

/* A line of /proc/self/status ("VmHWM") in KiB, or 0. */
static guint64
status_kib (const char *key)
{
  g_autofree char *text = NULL;
  const char *line;
  guint64 kib = 0;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return 0;
  line = strstr (text, key);
  if (line != NULL)
    kib = g_ascii_strtoull (line + strlen (key) + 1, NULL, 10);
  return kib;
}

void
test_window_memory (void)
{
  const char *gel = g_getenv ("CTR_UI_DATASET"), *cone = g_getenv ("CTR_UI_CONE");
  CtrWindow *w;
  guint ok2d = 0, ok3d = 0, n_images = 0;
  guint64 in_memory = 0, on_disk = 0, hwm;
  CtrGrid grid;

  if (g_strcmp0 (g_getenv ("CTR_UI_MEMORY"), "1") != 0 || gel == NULL || cone == NULL ||
      !g_file_test (gel, G_FILE_TEST_IS_REGULAR) || !g_file_test (cone, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("a measurement: CTR_UI_MEMORY=1, CTR_UI_DATASET and CTR_UI_CONE");
      return;
    }
  w = ui_new_window ();
  CHECK (ui_open_and_wait (w, gel, 120), "%s opened", gel);
  ui_note ("after opening: VmHWM %.1f MiB", status_kib ("VmHWM:") / 1024.0);
  grid = ctr_grid_default (ctr_session_get_dataset (ctr_window_get_session (w))->geometry, 512, 0);
  for (guint i = 0; i < 30; i++)
    ok2d += run_on (w, CTR_METHOD_FBP, &grid);
  ui_note ("after 30 runs of 512²: VmHWM %.1f MiB, VmRSS %.1f MiB", status_kib ("VmHWM:") / 1024.0,
           status_kib ("VmRSS:") / 1024.0);
  CHECK (ui_open_and_wait (w, cone, 120), "%s opened", cone);
  {
    const CtrGeometry *g = ctr_session_get_dataset (ctr_window_get_session (w))->geometry;
    const double px = 2 * ctr_geometry_fov_radius_mm (g) / 128;
    const CtrVolume *ref = ctr_session_get_dataset (ctr_window_get_session (w))->reference;
    /* 128 slices inside the reference's z extent (its figures need them) */
    const double dz = ref != NULL ? 0.99 * ref->grid.nz * ref->grid.dz / 128 : px;
    grid = ctr_grid_square (128, px, 128, dz);
  }
  for (guint i = 0; i < 5; i++)
    ok3d += run_on (w, CTR_METHOD_FDK, &grid);
  ctr_session_get_store_usage (ctr_window_get_session (w), &n_images, &in_memory, &on_disk);
  hwm = status_kib ("VmHWM:");
  ui_note ("after 5 volume runs of 128³: VmHWM %.1f MiB, VmRSS %.1f MiB; %s", hwm / 1024.0,
           status_kib ("VmRSS:") / 1024.0, ctr_session_get_store_summary (ctr_window_get_session (w)));
  CHECK (ok2d == 30 && ok3d == 5 && n_images == 35, "30 + 5 runs kept their images (%u + %u runs, %u images: "
         "%.1f MiB in memory, %.1f MiB on disk)", ok2d, ok3d, n_images, in_memory / 1048576.0, on_disk / 1048576.0);
  CHECK (hwm > 0 && hwm < 2 * 1024 * 1024, "the process's peak resident size is %.1f MiB (< 2 GiB)", hwm / 1024.0);
  ui_close_window (w);
}
