/* test-sketch.c — the geometry sketch draws per-view vector geometries as
 * they are (ui/ctr-geometry-sketch.c): a fan scan whose detector is shifted
 * 20 mm along u and turned 12° in its plane, drawn beside its nominal
 * circular description.  Writes ui-sketch-circular.png and
 * ui-sketch-vectors.png into $CTR_UI_OUT and checks that both drew and that
 * they differ (the tilted detector moved).  Needs a display (xvfb-run).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "ctr-geometry-sketch.h"
#include "ctr-widget-png.h"

static CtrGeometry *
nominal (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 360);
  g->n_cols = 400;
  g->sod_mm = 400;
  g->sdd_mm = 700;
  g->pitch_u = 0.8;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 360);
  return g;
}

static CtrGeometry *
calibrated (const CtrGeometry *n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) v = ctr_geometry_to_vectors (n, &error);
  g_assert_no_error (error);
  const double a = 12.0 * G_PI / 180.0;
  for (guint k = 0; k < v->n_views; k++)
    {
      double *w = v->vectors + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      const double ux = w[6], uy = w[7], len = hypot (ux, uy);
      w[3] += 20.0 * ux / len;
      w[4] += 20.0 * uy / len;
      w[6] = cos (a) * ux - sin (a) * uy;
      w[7] = sin (a) * ux + cos (a) * uy;
    }
  CtrGeometry *g = ctr_geometry_new_from_vectors (CTR_BEAM_FAN, v->n_views, 1, v->n_cols, v->vectors, &error);
  g_assert_no_error (error);
  return g;
}

static gboolean
quit_soon (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static GBytes *
shoot (GtkWindow *win, CtrGeometrySketch *sketch, const CtrGeometry *g, const char *name)
{
  const CtrGrid grid = ctr_grid_default (g, 256, 0);
  ctr_geometry_sketch_set (sketch, g, &grid);
  ctr_geometry_sketch_set_view (sketch, 40);
  gboolean done = FALSE;
  g_timeout_add (300, quit_soon, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  const char *out = g_getenv ("CTR_UI_OUT");
  g_autofree char *path = g_build_filename (out != NULL ? out : ".", name, NULL);
  g_autoptr (GError) error = NULL;
  if (!ctr_widget_save_png (GTK_WIDGET (win), path, &error))
    g_error ("%s: %s", path, error->message);
  g_print ("ok   %s written\n", path);
  gchar *data;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return g_bytes_new_take (data, len);
}

int
main (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  if (!gtk_init_check ())
    {
      g_print ("no display: skipped\n");
      return 77;
    }
  GtkWindow *win = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (win, 480, 480);
  GtkWidget *sketch = ctr_geometry_sketch_new ();
  gtk_window_set_child (win, sketch);
  gtk_window_present (win);
  g_autoptr (CtrGeometry) n = nominal ();
  g_autoptr (CtrGeometry) c = calibrated (n);
  g_autoptr (GBytes) a = shoot (win, CTR_GEOMETRY_SKETCH (sketch), n, "ui-sketch-circular.png");
  g_autoptr (GBytes) b = shoot (win, CTR_GEOMETRY_SKETCH (sketch), c, "ui-sketch-vectors.png");
  const gboolean differ = !g_bytes_equal (a, b);
  g_print ("%s the vector geometry is drawn differently from its nominal circle\n", differ ? "ok  " : "FAIL");
  gtk_window_destroy (win);
  return differ ? 0 : 1;
}
