/* test-window-cuda.c — the window's volume runs on a CUDA device (issue 37:
 * "the window's volume runs go to CUDA when a device answers, with the live
 * view as on the CPU").
 *
 * /ui/window/volume-cuda: a small simulated cone-beam scan ($CTR_UI_CONE),
 *   SIRT with the backend "Best available": the plan's notes say
 *   "backend: cuda" and the cone pair "on the GPU", no fall-back; every
 *   live report shows the whole current iterate in the main view, and the
 *   view changes from one report to the next; the result equals the same
 *   run on the CPU within SIRT's device tolerance (tests/test-gpu-cone.c:
 *   1e-4 of the maximum); ui-volume-cuda.png.  Skipped where no CUDA
 *   device answers: tests/gpu-emu builds it against the emulated device
 *   (test-window-emu: the real .cu sources on the CPU, not a GPU).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Environment: CTR_UI_CONE (a cone-beam dataset's geometry.json; skips
 * without it), CTR_UI_OUT.
 */
#include <math.h>
#include <string.h>

#include "test-window.h"
#include "ctr-method-panel.h"
#include "ctr-run-page.h"
#include "ctr-slice-view.h"
#include "plan/ctr-backend.h"

#define ITERATIONS 8

typedef struct {
  CtrSliceView *main;
  guint         live;      /* reports with an image while running */
  guint         shown;     /* ... shown as a whole volume in the main view */
  guint         changed;   /* ... whose view differs from the report before */
  double        last_sum;
} CudaLive;

static void
on_cuda_live (CtrSession *session, GParamSpec *pspec, CudaLive *l)
{
  const CtrIterStats *s = ctr_session_get_latest_stats (session);
  CtrVolume *v;
  double sum = 0;

  if (s == NULL || s->image == NULL || !ctr_session_get_running (session))
    return;
  l->live++;
  v = ctr_slice_view_get_image (l->main);
  if (v == NULL || v->grid.nz <= 1)
    return;
  l->shown++;
  for (gsize i = 0; i < ctr_grid_size (&v->grid); i++)
    sum += v->data[i];
  if (l->live > 1 && sum != l->last_sum)
    l->changed++;
  l->last_sum = sum;
}

static gboolean
notes_say (CtrRun *run, const char *what)
{
  const char *const *n = ctr_run_get_notes (run);

  for (; n != NULL && *n != NULL; n++)
    if (strstr (*n, what) != NULL)
      return TRUE;
  return FALSE;
}

void
test_window_volume_cuda (void)
{
  const char *cone = g_getenv ("CTR_UI_CONE");
  g_autofree char *why = NULL;
  const CtrBackend *b = ctr_backend_select ("cuda", &why, NULL);
  CudaLive l = { 0 };
  CtrWindow *w;
  CtrSession *session;
  CtrRunPage *page;
  CtrRun *gpu, *cpu;

  if (cone == NULL || !g_file_test (cone, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("no cone-beam dataset ($CTR_UI_CONE)");
      return;
    }
  if (b == NULL || strcmp (b->name, "cuda") != 0)
    {
      g_test_skip (why != NULL ? why : "no CUDA device");
      return;
    }
  w = ui_new_window ();
  session = ctr_window_get_session (w);
  page = ui_child (w, CTR_TYPE_WINDOW, "run_page");
  CHECK (ui_open_and_wait (w, cone, 120), "the cone-beam scan opened");
  l.main = CTR_SLICE_VIEW (ui_find (GTK_WIDGET (page), CTR_TYPE_SLICE_VIEW, NULL));
  ctr_method_panel_set_backend (ctr_run_page_get_method_panel (page), "best");
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_cuda_live), &l);
  gpu = ui_run_method (w, CTR_METHOD_SIRT, "iterations", ITERATIONS);
  g_signal_handlers_disconnect_by_data (session, &l);
  CHECK (gpu != NULL && ctr_run_get_result (gpu) != NULL, "SIRT ran on the best backend");
  if (gpu == NULL || ctr_run_get_result (gpu) == NULL)
    {
      ui_close_window (w);
      return;
    }
  g_object_ref (gpu);
  for (const char *const *n = ctr_run_get_notes (gpu); n != NULL && *n != NULL; n++)
    ui_note ("note: %s", *n);
  CHECK (notes_say (gpu, "backend: cuda") && notes_say (gpu, "on the GPU") && !notes_say (gpu, "instead"),
         "the volume run went to the device (backend: cuda, the cone pair on the GPU), no fall-back");
  ui_note ("live reports with an image: %u, shown as the whole volume: %u, changed: %u", l.live, l.shown,
           l.changed);
  CHECK (l.live >= 2 && l.shown == l.live && l.changed + 1 >= l.live,
         "every live report showed the whole current iterate, changing each time (%u, %u, %u)", l.live, l.shown,
         l.changed);
  ui_screenshot (GTK_WIDGET (w), "ui-volume-cuda.png");
  CHECK (ctr_method_panel_set_backend (ctr_run_page_get_method_panel (page), "cpu"), "the CPU chosen");
  cpu = ui_run_method (w, CTR_METHOD_SIRT, "iterations", ITERATIONS);
  for (const char *const *n = cpu != NULL ? ctr_run_get_notes (cpu) : NULL; n != NULL && *n != NULL; n++)
    ui_note ("CPU run's note: %s", *n);
  CHECK (cpu != NULL && cpu != gpu && ctr_run_get_result (cpu) != NULL && !notes_say (cpu, "on the GPU")
         && !notes_say (cpu, "backend: cuda"), "the same SIRT ran on the CPU");
  if (cpu != NULL && ctr_run_get_result (cpu) != NULL)
    {
      const CtrVolume *a = ctr_run_get_result (gpu), *c = ctr_run_get_result (cpu);
      double d = 0, m = 0;
      gboolean same = ctr_grid_equal (&a->grid, &c->grid);

      for (gsize i = 0; same && i < ctr_grid_size (&c->grid); i++)
        {
          d = MAX (d, fabs ((double) a->data[i] - c->data[i]));
          m = MAX (m, fabs ((double) c->data[i]));
        }
      CHECK (same && a->grid.nz > 1 && d <= 1e-4 * m,
             "the device's volume equals the CPU's: max |difference| %.3g of max %.3g (%u × %u × %u)", d, m,
             a->grid.nx, a->grid.ny, a->grid.nz);
    }
  g_object_unref (gpu);
  ui_close_window (w);
}
