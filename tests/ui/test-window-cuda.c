/* test-window-cuda.c — the window's volume runs on a CUDA device (issue 37:
 * "the window's volume runs go to CUDA when a device answers, with the live
 * view as on the CPU").
 *
 * /ui/window/volume-cuda: a small simulated cone-beam scan ($CTR_UI_CONE),
 *   SIRT with the backend "Best available": the plan's notes say
 *   "backend: cuda" and the cone pair "on the GPU", no fall-back; every
 *   live report shows a volume in the main view, and the view changes from
 *   one report to the next; the result equals the same run on the CPU
 *   within SIRT's device tolerance (tests/test-gpu-cone.c: 1e-4 of the
 *   maximum).  The window asks for the three planes through the crosshair
 *   (CTR_REPORT_PLANES): before the last report the view holds those
 *   planes, zeros elsewhere, the device's equal to the CPU's of the same
 *   iteration within that tolerance; the last view is the result itself;
 *   ui-volume-cuda-live.png (mid-run), ui-volume-cuda.png (after).  Every
 *   live report's slice toolbar names the plane and slice the view shows
 *   (before: "Slice 1" beside "Axial 4 / 6").  Skipped where no CUDA
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
  CtrRunPage   *page;
  guint         live;      /* reports with an image while running */
  guint         shown;     /* ... shown as a whole volume in the main view */
  guint         changed;   /* ... whose view differs from the report before */
  double        last_sum;
  CtrVolume    *seen[ITERATIONS + 1];  /* the volume shown after iteration k (a copy), or NULL */
  guint         voxel[3];  /* the crosshair's voxel (the planes reported) */
  GtkWidget    *window;    /* nullable: a screenshot of the live view mid-run */
  gboolean      shot;
  guint         toolbar_bad; /* reports whose slice toolbar said another slice */
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
  {
    g_autofree char *said = NULL;
    if (!ui_slice_field_agrees (CTR_WINDOW (gtk_widget_get_root (GTK_WIDGET (l->page))), &said))
      {
        l->toolbar_bad++;
        ui_note ("report of iteration %u: %s", s->iteration, said);
      }
  }
  v = ctr_slice_view_get_image (l->main);
  if (v == NULL || v->grid.nz <= 1)
    return;
  l->shown++;
  if (s->iteration <= ITERATIONS)
    {
      g_clear_pointer (&l->seen[s->iteration], ctr_volume_unref);
      l->seen[s->iteration] = ctr_volume_copy (v);
      ctr_run_page_get_voxel (l->page, &v->grid, l->voxel);
    }
  if (l->window != NULL && !l->shot && s->iteration >= ITERATIONS / 2 && s->iteration < ITERATIONS)
    {
      l->shot = TRUE;
      ui_screenshot (l->window, "ui-volume-cuda-live.png");
    }
  for (gsize i = 0; i < ctr_grid_size (&v->grid); i++)
    sum += v->data[i];
  if (l->live > 1 && sum != l->last_sum)
    l->changed++;
  l->last_sum = sum;
}

static void
live_clear (CudaLive *l)
{
  for (guint k = 0; k <= ITERATIONS; k++)
    g_clear_pointer (&l->seen[k], ctr_volume_unref);
}

/* Whether voxel (x, y, z) lies on one of the three planes through @c. */
static gboolean
on_planes (const guint c[3], guint x, guint y, guint z)
{
  return x == c[0] || y == c[1] || z == c[2];
}

/* A live run reporting planes (CTR_REPORT_PLANES, the window's choice for
 * a volume): before the last report the view shows the three planes
 * through the crosshair, zeros elsewhere (nothing else came back); the last
 * shows the result itself.  Returns the largest |difference| of @a's
 * planes against @b's (same iteration, another backend) relative to @b's
 * largest value over the iterations both showed, or -1 when a check fails. */
static double
check_live_planes (const CudaLive *a, const CudaLive *b, const CtrVolume *result)
{
  double d = 0, m = 0;
  guint compared = 0;

  for (guint k = 1; k <= ITERATIONS; k++)
    {
      const CtrVolume *v = a->seen[k], *w = b->seen[k];
      const CtrGrid *g;

      if (v == NULL)
        continue;
      g = &v->grid;
      if (k == ITERATIONS)
        {
          if (!ctr_grid_equal (g, &result->grid) ||
              memcmp (v->data, result->data, ctr_grid_size (g) * sizeof (float)) != 0)
            {
              ui_note ("the last view is not the result");
              return -1;
            }
          continue;
        }
      for (guint z = 0; z < g->nz; z++)
        for (guint y = 0; y < g->ny; y++)
          for (guint x = 0; x < g->nx; x++)
            {
              const gsize i = x + (gsize) g->nx * (y + (gsize) g->ny * z);
              if (!on_planes (a->voxel, x, y, z))
                {
                  if (v->data[i] != 0.f)
                    {
                      ui_note ("iteration %u: voxel (%u, %u, %u) off the planes is %g", k, x, y, z, v->data[i]);
                      return -1;
                    }
                  continue;
                }
              if (w == NULL || !ctr_grid_equal (&w->grid, g))
                continue;
              d = MAX (d, fabs ((double) v->data[i] - w->data[i]));
              m = MAX (m, fabs ((double) w->data[i]));
              compared++;
            }
    }
  for (guint k = 1; k <= ITERATIONS; k++)
    ui_note ("iteration %u: shown %s, other run %s", k, a->seen[k] ? "yes" : "no", b->seen[k] ? "yes" : "no");
  ui_note ("live planes compared at %u voxels: max |difference| %.3g of max %.3g", compared, d, m);
  return compared > 0 && m > 0 ? d / m : -1;
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
  CudaLive l = { 0 }, lc = { 0 };
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
  l.page = lc.page = page;
  l.window = GTK_WIDGET (w);
  lc.main = l.main;
  ctr_method_panel_set_backend (ctr_run_page_get_method_panel (page), "best");
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_cuda_live), &l);
  gpu = ui_run_method (w, CTR_METHOD_SIRT, "iterations", ITERATIONS);
  g_signal_handlers_disconnect_by_data (session, &l);
  CHECK (gpu != NULL && ctr_run_get_result (gpu) != NULL, "SIRT ran on the best backend");
  if (gpu == NULL || ctr_run_get_result (gpu) == NULL)
    {
      live_clear (&l);
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
  CHECK (l.toolbar_bad == 0, "every live report's slice toolbar names the slice the view shows (%u of %u did "
         "not; before: “Slice 1” beside “Axial 4 / 6”)", l.toolbar_bad, l.live);
  ui_screenshot (GTK_WIDGET (w), "ui-volume-cuda.png");
  CHECK (ctr_method_panel_set_backend (ctr_run_page_get_method_panel (page), "cpu"), "the CPU chosen");
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_cuda_live), &lc);
  cpu = ui_run_method (w, CTR_METHOD_SIRT, "iterations", ITERATIONS);
  g_signal_handlers_disconnect_by_data (session, &lc);
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
      /* the live view: the planes through the crosshair, the device's
       * equal to the CPU's of the same iteration, the last the result */
      CHECK (memcmp (l.voxel, lc.voxel, sizeof l.voxel) == 0, "both runs reported the planes through (%u, %u, %u)",
             l.voxel[0], l.voxel[1], l.voxel[2]);
      d = check_live_planes (&l, &lc, a);
      CHECK (d >= 0 && d <= 1e-4, "the device's live planes equal the CPU's (%.3g of the maximum), zeros "
             "elsewhere; its last view is its result", d);
      CHECK (check_live_planes (&lc, &l, c) >= 0, "the CPU's live view: its planes, zeros elsewhere, the result last");
    }
  live_clear (&l);
  live_clear (&lc);
  g_object_unref (gpu);
  ui_close_window (w);
}
