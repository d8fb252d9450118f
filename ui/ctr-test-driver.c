/* ctr-test-driver.c — a scripted session of the real window, for UI tests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A small state machine: each step acts on the window through its public
 * API (the same calls the widgets' handlers make), then waits for what a
 * user would wait for — a signal of the window (dataset-loaded, iteration,
 * reconstruction-finished) or a few drawn frames before a screenshot — and
 * checks the widgets' state.  Nothing is mocked: the reconstruction runs in
 * its worker thread exactly as with a user at the keyboard.
 */
#define G_LOG_DOMAIN "ctr-test-driver"

#include <math.h>
#include <string.h>

#include "ctr-test-driver.h"

typedef struct {
  CtrWindow *window;
  char      *out_dir;
  void     (*done) (int, gpointer);
  gpointer   user_data;
  int        failures;
  int        checks;
  guint      step;
  guint      frames;
  gboolean   cancel_sent;
  gint64     t0;
  char      *sdd_text;
} Driver;

static void next_step (Driver *d);

#define CHECK(d, cond, ...) check ((d), (cond), #cond, __VA_ARGS__)

static void
check (Driver *d, gboolean ok, const char *expr, const char *format, ...)
{
  va_list args;
  g_autofree char *what = NULL;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  d->checks++;
  if (!ok)
    d->failures++;
  g_print ("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : "   — failed: ", ok ? "" : expr);
}

static char *
out_path (Driver *d, const char *name)
{
  return g_build_filename (d->out_dir, name, NULL);
}

/* ---- screenshots ---------------------------------------------------------- */

gboolean
ctr_test_driver_save_png (GtkWidget *widget, const char *filename)
{
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (widget));
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot;

  if (renderer == NULL || width <= 0 || height <= 0)
    return FALSE;
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return FALSE;
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  return texture != NULL && gdk_texture_save_to_png (texture, filename);
}

typedef struct {
  Driver *d;
  char   *name;
} Shot;

static gboolean
shot_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  Shot *s = data;
  Driver *d = s->d;

  if (++d->frames < 4)
    return G_SOURCE_CONTINUE;
  {
    g_autofree char *path = out_path (d, s->name);
    gboolean ok = ctr_test_driver_save_png (widget, path);
    CHECK (d, ok, "screenshot %s", path);
  }
  g_free (s->name);
  g_free (s);
  next_step (d);
  return G_SOURCE_REMOVE;
}

/* Lets a few frames be drawn, saves the window, then goes on. */
static void
screenshot_then_next (Driver *d, const char *name)
{
  Shot *s = g_new0 (Shot, 1);

  s->d = d;
  s->name = g_strdup (name);
  d->frames = 0;
  gtk_widget_queue_draw (GTK_WIDGET (d->window));
  gtk_widget_add_tick_callback (GTK_WIDGET (d->window), shot_tick, s, NULL);
}

/* ---- signals ---------------------------------------------------------------- */

static void
on_loaded (CtrWindow *window, const GError *error, Driver *d)
{
  if (d->step != 0)
    return;
  CHECK (d, error == NULL, "dataset loaded%s%s", error ? ": " : "", error ? error->message : "");
  if (error != NULL)
    {
      d->done (d->failures, d->user_data);
      return;
    }
  next_step (d);
}

static void
on_iteration (CtrWindow *window, guint iteration, Driver *d)
{
  /* step 4: cancel as soon as the first iteration has been shown */
  if (d->step == 5 && !d->cancel_sent && iteration >= 1)
    {
      d->cancel_sent = TRUE;
      g_print ("     first iteration shown after %.2f s; cancelling (Escape)\n",
               (g_get_monotonic_time () - d->t0) / 1e6);
      gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-reconstruction", NULL);
    }
}

static void
on_finished (CtrWindow *window, const GError *error, Driver *d)
{
  double secs = (g_get_monotonic_time () - d->t0) / 1e6;

  switch (d->step)
    {
    case 5:
      CHECK (d, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED),
             "first run reports G_IO_ERROR_CANCELLED after %.2f s", secs);
      break;
    case 6:
    case 7:
      CHECK (d, error == NULL, "run %u finished in %.2f s%s%s", d->step - 4, secs,
             error ? ": " : "", error ? error->message : "");
      break;
    default:
      CHECK (d, FALSE, "unexpected reconstruction-finished at step %u", d->step);
      return;
    }
  /* leave the signal handler before starting the next run */
  g_idle_add_once ((GSourceOnceFunc) next_step, d);
}

/* ---- the scenario ---------------------------------------------------------- */

static void
next_step (Driver *d)
{
  CtrWindow *w = d->window;
  CtrGeometryPanel *gp = ctr_window_get_geometry_panel (w);
  CtrMethodPanel *mp = ctr_window_get_method_panel (w);

  d->step++;
  switch (d->step)
    {
    case 1: /* the geometry page as loaded */
      ctr_window_show_page (w, "geometry");
      CHECK (d, ctr_geometry_panel_is_valid (gp), "geometry page: the file's geometry is valid");
      CHECK (d, ctr_window_can_reconstruct (w), "Reconstruct is enabled");
      ctr_geometry_panel_set_view (gp, 9);
      screenshot_then_next (d, "ui-geometry.png");
      break;

    case 2: /* invalid values: refused with the reason beside the field */
      {
        const CtrGeometry *g = ctr_geometry_panel_get_geometry (gp);
        g_autofree char *sdd = g_strdup_printf ("%g", g->sod_mm * 0.5);
        g_autofree char *views = g_strdup_printf ("%u", g->n_views);
        const char *reason;

        ctr_geometry_panel_set_text (gp, "views", "7x");
        reason = ctr_geometry_panel_get_reason (gp, "views");
        CHECK (d, strstr (reason, "not a number") != NULL, "view count “7x” refused: “%s”", reason);
        ctr_geometry_panel_set_text (gp, "views", views);
        CHECK (d, ctr_geometry_panel_is_valid (gp), "view count %s accepted again", views);

        ctr_geometry_panel_set_text (gp, "sdd", sdd);
        reason = ctr_geometry_panel_get_reason (gp, "sdd");
        CHECK (d, strstr (reason, "source to isocentre") != NULL,
               "SDD %s mm (< SOD) refused beside the field: “%s”", sdd, reason);
        CHECK (d, !ctr_geometry_panel_is_valid (gp) && !ctr_window_can_reconstruct (w),
               "invalid geometry disables Reconstruct");
        ctr_geometry_panel_set_text (gp, "pixel-size", "-0.5");
        reason = ctr_geometry_panel_get_reason (gp, "pixel-size");
        CHECK (d, *reason != '\0', "pixel size −0.5 refused: “%s”", reason);
        screenshot_then_next (d, "ui-geometry-invalid.png");
      }
      break;

    case 3: /* revert, edit the offset, save, load back */
      {
        g_autofree char *path = out_path (d, "geometry-edited.json");
        g_autoptr(GError) error = NULL;
        g_autoptr(CtrDataset) back = NULL;

        ctr_geometry_panel_revert (gp);
        CHECK (d, ctr_geometry_panel_is_valid (gp) && ctr_window_can_reconstruct (w),
               "Revert restores a valid geometry");
        ctr_geometry_panel_set_text (gp, "offset-u", "0.25");
        CHECK (d, ctr_geometry_panel_is_valid (gp), "offset u 0.25 accepted");
        CHECK (d, ctr_window_save_geometry (w, path, &error), "geometry saved to %s%s%s", path,
               error ? ": " : "", error ? error->message : "");
        g_clear_error (&error);
        back = ctr_dataset_load (path, NULL, NULL, &error);
        CHECK (d, back != NULL && back->geometry->offset_u == 0.25 &&
                  back->geometry->n_views == ctr_geometry_panel_get_geometry (gp)->n_views &&
                  back->projections != NULL,
               "the saved geometry.json loads with its projections and offset u 0.25%s%s",
               error ? ": " : "", error ? error->message : "");
        ctr_geometry_panel_revert (gp);
        next_step (d);
      }
      break;

    case 4: /* method panel generated from the parameter table */
      ctr_window_show_page (w, "reconstruct");
      ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
      CHECK (d, gtk_widget_get_visible (ctr_method_panel_get_row (mp, "window")) &&
                !gtk_widget_get_visible (ctr_method_panel_get_row (mp, "iterations")),
             "FBP shows the filter window and hides iterations");
      ctr_method_panel_set_method (mp, CTR_METHOD_PART);
      CHECK (d, gtk_widget_get_visible (ctr_method_panel_get_row (mp, "matrix")) &&
                gtk_widget_get_visible (ctr_method_panel_get_row (mp, "part-step")) &&
                !gtk_widget_get_visible (ctr_method_panel_get_row (mp, "window")),
             "parallel ART shows matrix format and step, hides the window");
      next_step (d);
      break;

    case 5: /* a long SIRT run, cancelled after its first iteration */
      ctr_method_panel_set_method (mp, CTR_METHOD_SIRT);
      ctr_method_panel_set_param (mp, "iterations", 400, NULL);
      d->t0 = g_get_monotonic_time ();
      gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
      CHECK (d, ctr_window_is_busy (w) && !ctr_window_can_reconstruct (w),
             "running: Reconstruct disabled while busy");
      break; /* on_iteration cancels, on_finished goes on */

    case 6: /* after the cancel: idle again, a second run allowed */
      CHECK (d, !ctr_window_is_busy (w), "not busy after the cancel");
      CHECK (d, strstr (ctr_window_get_status (w), "ancel") != NULL,
             "status says “%s”", ctr_window_get_status (w));
      CHECK (d, ctr_window_can_reconstruct (w), "Reconstruct enabled again after the cancel");
      CHECK (d, ctr_window_get_n_runs (w) == 0, "a cancelled run leaves no result");
      ctr_method_panel_set_param (mp, "iterations", 8, NULL);
      d->t0 = g_get_monotonic_time ();
      gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
      break;

    case 7:
      CHECK (d, ctr_window_get_n_runs (w) == 1, "one result after the second run");
      CHECK (d, g_str_has_prefix (ctr_window_get_progress_text (w), "iteration 8 / 8"),
             "progress reads “%s”", ctr_window_get_progress_text (w));
      ctr_method_panel_set_method (mp, CTR_METHOD_FBP);
      ctr_method_panel_set_param (mp, "window", CTR_FILTER_HANN, NULL);
      d->t0 = g_get_monotonic_time ();
      gtk_widget_activate_action (GTK_WIDGET (w), "win.reconstruct", NULL);
      break;

    case 8:
      CHECK (d, ctr_window_get_n_runs (w) == 2, "two results after the FBP run");
      CHECK (d, ctr_window_get_n_plot_runs (w) == 3,
             "the convergence plot overlays 3 runs (cancelled, SIRT, FBP): %u",
             ctr_window_get_n_plot_runs (w));
      {
        g_autofree char *csv = out_path (d, "metrics.csv");
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        gboolean ok = ctr_window_export_metrics (w, csv, &error) && g_file_get_contents (csv, &text, NULL, NULL);
        g_auto(GStrv) lines = ok ? g_strsplit (text, "\n", -1) : NULL;
        guint rows[4] = { 0 };

        /* rows per run: the cancelled run has the iterations it finished
         * before the cancel reached it (1, or 2 on a small fast dataset),
         * the SIRT run 8, the FBP run 1 */
        for (guint i = 1; lines && lines[i]; i++)
          {
            guint64 run = g_ascii_strtoull (lines[i], NULL, 10);
            if (lines[i][0] != '\0')
              rows[MIN (run, 3)]++;
          }
        CHECK (d, ok && g_str_has_prefix (text, "run,label,iteration") && rows[1] >= 1 && rows[1] <= 3 &&
                  rows[2] == 8 && rows[3] == 1 && rows[0] == 0,
               "metrics CSV exported: %u rows of the cancelled run, %u of SIRT, %u of FBP",
               rows[1], rows[2], rows[3]);
      }
      {
        /* the volume TIFF reads back bit for bit */
        g_autofree char *tif = out_path (d, "reconstruction.tif");
        g_autoptr(GError) error = NULL;
        CtrVolume *v = ctr_window_get_result (w);
        CtrTiffInfo info;
        g_autofree float *back = NULL;
        gboolean ok = ctr_window_export_volume (w, tif, &error) &&
                      (back = ctr_tiff_read (tif, &info, &error)) != NULL;
        CHECK (d, ok && info.width == v->grid.nx && info.height == v->grid.ny && info.pages == v->grid.nz &&
                  memcmp (back, v->data, ctr_grid_size (&v->grid) * sizeof (float)) == 0,
               "volume TIFF exported and read back identical%s%s", error ? ": " : "", error ? error->message : "");
      }
      {
        /* preferences: the last method used is the next window's default */
        GSettingsSchemaSource *src = g_settings_schema_source_get_default ();
        g_autoptr(GSettingsSchema) schema = src ? g_settings_schema_source_lookup (src, "org.ctrecon.CtRecon", TRUE) : NULL;
        if (schema != NULL)
          {
            g_autoptr(GSettings) settings = g_settings_new ("org.ctrecon.CtRecon");
            g_autofree char *m = g_settings_get_string (settings, "default-method");
            CHECK (d, g_str_equal (m, "fbp") && g_settings_get_uint (settings, "iterations") == 8,
                   "GSettings keep method “%s” and %u iterations", m, g_settings_get_uint (settings, "iterations"));
          }
        else
          g_print ("skip GSettings check: schema org.ctrecon.CtRecon not found\n");
      }
      {
        GtkApplication *app = gtk_window_get_application (GTK_WINDOW (w));
        g_auto(GStrv) run = gtk_application_get_accels_for_action (app, "win.reconstruct");
        g_auto(GStrv) cancel = gtk_application_get_accels_for_action (app, "win.cancel-reconstruction");
        CHECK (d, run[0] && g_str_equal (run[0], "<Control>r") && cancel[0] && g_str_equal (cancel[0], "Escape"),
               "shortcuts: Reconstruct %s, Cancel %s", run[0] ? run[0] : "none", cancel[0] ? cancel[0] : "none");
      }
      screenshot_then_next (d, "ui-reconstruct.png");
      break;

    case 9: /* line profile across both results and the reference */
      /* the PNG export of the visible page, now that it has been laid out
       * and drawn (the screenshot step waited for frames) */
      {
        g_autofree char *png = out_path (d, "view.png");
        g_autoptr(GError) error = NULL;
        g_autoptr(GdkTexture) t = NULL;
        gboolean ok = ctr_window_save_png (w, png, &error);
        if (ok)
          t = gdk_texture_new_from_filename (png, &error);
        CHECK (d, t != NULL && gdk_texture_get_width (t) > 400,
               "PNG of the view exported (%d × %d)%s%s", t ? gdk_texture_get_width (t) : 0,
               t ? gdk_texture_get_height (t) : 0, error ? ": " : "", error ? error->message : "");
      }
      {
        g_autofree char *csv = out_path (d, "profile.csv");
        g_autofree char *text = NULL;
        g_autoptr(GError) error = NULL;
        guint expected = ctr_window_get_n_runs (w) + 1;
        gboolean ok;

        ctr_window_show_page (w, "profile");
        ctr_window_set_profile_segment (w, -30, -20, 35, 25);
        CHECK (d, ctr_window_get_profile_n_curves (w) >= expected - 1,
               "profile plot holds %u curves (2 runs + reference when the dataset has one)",
               ctr_window_get_profile_n_curves (w));
        ok = ctr_window_export_profile (w, csv, &error) && g_file_get_contents (csv, &text, NULL, NULL);
        if (ok)
          {
            g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
            guint n = g_strv_length (lines);
            g_auto(GStrv) header = g_strsplit (lines[0], ",", -1);
            CHECK (d, n >= 513 && g_strv_length (header) == ctr_window_get_profile_n_curves (w) + 1,
                   "profile CSV: %u lines, %u columns", n, g_strv_length (header));
          }
        else
          CHECK (d, FALSE, "profile CSV exported%s%s", error ? ": " : "", error ? error->message : "");
        screenshot_then_next (d, "ui-profile.png");
      }
      break;

    case 10: /* comparison: tiles, linked zoom */
      ctr_window_show_page (w, "compare");
      CHECK (d, ctr_window_get_n_compare_tiles (w) >= 3,
             "comparison shows %u tiles (2 runs, reference or not, and a difference)",
             ctr_window_get_n_compare_tiles (w));
      ctr_window_zoom_compare (w, 1.6, 0.05, -0.02);
      CHECK (d, fabs (ctr_window_get_compare_zoom (w, 1) - 1.6) < 1e-9 &&
                fabs (ctr_window_get_compare_zoom (w, ctr_window_get_n_compare_tiles (w) - 1) - 1.6) < 1e-9,
             "zoom on the first tile is followed by the others");
      screenshot_then_next (d, "ui-compare.png");
      break;

    default:
      g_print ("%d of %d checks failed\n", d->failures, d->checks);
      d->done (d->failures, d->user_data);
      break;
    }
}

static void
driver_free (gpointer data)
{
  Driver *d = data;
  g_free (d->out_dir);
  g_free (d->sdd_text);
  g_free (d);
}

void
ctr_test_driver_start (CtrWindow  *window,
                       const char *out_dir,
                       void      (*done) (int failures, gpointer user_data),
                       gpointer    user_data)
{
  Driver *d = g_new0 (Driver, 1);

  d->window = window;
  d->out_dir = g_strdup (out_dir);
  d->done = done;
  d->user_data = user_data;
  g_object_set_data_full (G_OBJECT (window), "ctr-test-driver", d, driver_free);
  g_signal_connect (window, "dataset-loaded", G_CALLBACK (on_loaded), d);
  g_signal_connect (window, "iteration", G_CALLBACK (on_iteration), d);
  g_signal_connect (window, "reconstruction-finished", G_CALLBACK (on_finished), d);
}
