/* ctr-application.c — the GUI application: windows, accelerators, test options.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Besides opening the files given on the command line, the application takes
 * hidden options for automated tests (tests/ui/run-ui-test.sh):
 *   --method NAME      preselect a method of the core's table ("sirt", ...)
 *   --iterations N     preselect the iteration count (1-500)
 *   --run              reconstruct as soon as the dataset has loaded
 *   --view PLANE       axial, coronal or sagittal: the plane shown of a
 *                      volume result
 *   --page NAME        run, geometry, profile or compare: the page shown
 *   --screenshot FILE  once the run (or the load, without --run) has finished,
 *                      render the window to FILE (PNG) and quit; a load or
 *                      reconstruction error makes the process exit with 1 and
 *                      the message on stderr.
 *   --test-scenario DIR  drive the window through the scripted session of
 *                      ui/ctr-test-driver.c (geometry edit, run, cancel,
 *                      rerun, profile, comparison), screenshots and exports
 *                      into DIR; exit status 1 when a check failed.
 *   --test-dicom DIR   the DICOM session of ui/ctr-test-dicom.c (series
 *                      dialog, summary, recent files, HU, DICOM export).
 *   --test-dicom-xa DIR  the XA geometry dialog of the same file.
 *   --probe-responsiveness  a 10 ms timeout on the main loop records the
 *                      largest gap between its dispatches while a window is
 *                      loading or reconstructing, and prints it when a run
 *                      ends ("main loop: largest gap … ms"): the main thread
 *                      must never be blocked for long (DESIGN.md §5).
 * A screenshot or scenario run is NON_UNIQUE so it never hands its work to
 * (or waits for) an instance already running in the session.
 */
#define G_LOG_DOMAIN "ctr-application"

#define _GNU_SOURCE
#include <sys/resource.h>
#include <string.h>
#include "ctr-application.h"
#include "ctr-window.h"
#include "ctr-test-driver.h"

/* Frames to let pass after the last change before the screenshot, so that
 * layout and the final image have certainly been drawn once. */
#define SCREENSHOT_SETTLE_FRAMES 3

struct _CtrApplication
{
  AdwApplication  parent_instance;

  gboolean        have_method;
  CtrMethod       method;
  int             iterations;   /* 0 = the method's default */
  gboolean        run;
  int             orientation;  /* CtrSliceOrientation */
  char           *page;         /* --page, or NULL */
  char           *screenshot;   /* filename, or NULL */

  char           *scenario_dir; /* --test-scenario, or NULL */
  char           *dicom_dir;    /* --test-dicom(-xa), or NULL */
  gboolean        dicom_xa;     /* --test-dicom-xa */
  gboolean        probe;        /* --probe-responsiveness */
  gint64          probe_last_us;
  gint64          probe_max_gap_us;
  gint64          probe_cpu_us;
  gint64          probe_max_gap_cpu_us;
  gint64          probe_max_cpu_us;
  gint64          frame_t[4];       /* before-paint, layout, paint, after-paint */
  gint64          frame_worst[4];   /* phases of the longest frame while running */
  guint           probe_ticks;
  guint           probe_id;

  gboolean        screenshot_scheduled;
  guint           settle_frames;
  int             exit_status;
};

G_DEFINE_FINAL_TYPE (CtrApplication, ctr_application, ADW_TYPE_APPLICATION)

static const GOptionEntry test_options[] = {
  { "method", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, NULL,
    "Reconstruction method (fbp, art, part, sart, sirt)", "NAME" },
  { "iterations", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, NULL,
    "Number of iterations (1-500)", "N" },
  { "run", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, NULL,
    "Reconstruct as soon as the dataset is loaded", NULL },
  { "page", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, NULL,
    "Page to show: run, geometry, profile or compare", "NAME" },
  { "view", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, NULL,
    "Plane of a volume result: axial, coronal or sagittal", "PLANE" },
  { "screenshot", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, NULL,
    "When finished, save the window as PNG to FILE and quit", "FILE" },
  { "test-scenario", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, NULL,
    "Drive the window through the UI test scenario; results into DIR", "DIR" },
  { "test-dicom", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, NULL,
    "Drive the window through the DICOM test session; results into DIR", "DIR" },
  { "test-dicom-xa", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, NULL,
    "Drive the window through the XA geometry dialog test; results into DIR", "DIR" },
  { "probe-responsiveness", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, NULL,
    "Measure the largest main-loop gap while busy and print it", NULL },
  { NULL }
};

int
ctr_application_get_exit_status (CtrApplication *self)
{
  g_return_val_if_fail (CTR_IS_APPLICATION (self), 1);
  return self->exit_status;
}

static void
fail (CtrApplication *self,
      const char     *what,
      const char     *message)
{
  g_printerr ("ctrecon: %s: %s\n", what, message);
  self->exit_status = 1;
  g_application_quit (G_APPLICATION (self));
}

/* Renders @widget (a realized toplevel) with its own renderer into a PNG. */
static gboolean
save_widget_png (GtkWidget   *widget,
                 const char  *filename,
                 GError     **error)
{
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot;
  GskRenderer *renderer;

  renderer = gtk_native_get_renderer (GTK_NATIVE (widget));
  if (renderer == NULL || width <= 0 || height <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "The window is not realized; nothing to render");
      return FALSE;
    }

  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, GDK_SNAPSHOT (snapshot), width, height);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The window drew nothing");
      return FALSE;
    }

  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  if (texture == NULL || !gdk_texture_save_to_png (texture, filename))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "Could not write the screenshot to “%s”", filename);
      return FALSE;
    }
  return TRUE;
}

static gboolean
screenshot_tick (GtkWidget     *widget,
                 GdkFrameClock *frame_clock,
                 gpointer       user_data)
{
  CtrApplication *self = CTR_APPLICATION (user_data);
  g_autoptr(GError) error = NULL;

  if (++self->settle_frames < SCREENSHOT_SETTLE_FRAMES)
    return G_SOURCE_CONTINUE;

  if (!save_widget_png (widget, self->screenshot, &error))
    fail (self, "screenshot", error->message);
  else
    {
      g_print ("ctrecon: screenshot saved to %s\n", self->screenshot);
      g_application_quit (G_APPLICATION (self));
    }
  return G_SOURCE_REMOVE;
}

static void
schedule_screenshot (CtrApplication *self,
                     GtkWidget      *window)
{
  if (self->screenshot == NULL || self->screenshot_scheduled)
    return;
  self->screenshot_scheduled = TRUE;
  self->settle_frames = 0;
  gtk_widget_queue_draw (window);
  gtk_widget_add_tick_callback (window, screenshot_tick, g_object_ref (self), g_object_unref);
}

static void
on_dataset_loaded (CtrWindow      *window,
                   const GError   *error,
                   CtrApplication *self)
{
  if (error != NULL)
    fail (self, "could not load the dataset", error->message);
  else if (!self->run)
    schedule_screenshot (self, GTK_WIDGET (window));
}

static gboolean
any_window_running (CtrApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    if (CTR_IS_WINDOW (l->data) && ctr_window_is_running (CTR_WINDOW (l->data)))
      return TRUE;
  return FALSE;
}

static gint64
thread_cpu_us (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_THREAD, &ru) != 0)
    return 0;
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_USEC_PER_SEC + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Every 10 ms while a reconstruction runs: the time since the previous
 * dispatch (wall clock), and how much of it the main thread itself spent on
 * the CPU (getrusage RUSAGE_THREAD) — a long gap with little main-thread CPU
 * means the process was waiting for a CPU, not blocked by its own work. */
static gboolean
probe_tick (gpointer data)
{
  CtrApplication *self = data;
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();

  if (any_window_running (self))
    {
      if (self->probe_last_us > 0)
        {
          gint64 gap = now - self->probe_last_us;
          if (gap > self->probe_max_gap_us)
            {
              self->probe_max_gap_us = gap;
              self->probe_max_gap_cpu_us = cpu - self->probe_cpu_us;
            }
          self->probe_max_cpu_us = MAX (self->probe_max_cpu_us, cpu - self->probe_cpu_us);
          self->probe_ticks++;
        }
      self->probe_last_us = now;
    }
  else
    self->probe_last_us = 0;
  self->probe_cpu_us = cpu;
  return G_SOURCE_CONTINUE;
}

/* Frame phases while running: where does the main thread spend a frame? */
static void
frame_phase (GdkFrameClock *clock, gpointer data, int phase)
{
  CtrApplication *self = data;
  self->frame_t[phase] = g_get_monotonic_time ();
  if (phase == 3 && any_window_running (self) && self->frame_t[0] > 0)
    {
      gint64 total = self->frame_t[3] - self->frame_t[0];
      if (total > self->frame_worst[3] - self->frame_worst[0])
        memcpy (self->frame_worst, self->frame_t, sizeof self->frame_t);
    }
}
static void on_before_paint (GdkFrameClock *c, gpointer d) { frame_phase (c, d, 0); }
static void on_layout (GdkFrameClock *c, gpointer d) { frame_phase (c, d, 1); }
static void on_paint (GdkFrameClock *c, gpointer d) { frame_phase (c, d, 2); }
static void on_after_paint (GdkFrameClock *c, gpointer d) { frame_phase (c, d, 3); }

static void
probe_watch_frames (GtkWidget *window, CtrApplication *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
  if (clock == NULL)
    return;
  g_signal_connect_object (clock, "before-paint", G_CALLBACK (on_before_paint), self, 0);
  g_signal_connect_object (clock, "layout", G_CALLBACK (on_layout), self, 0);
  g_signal_connect_object (clock, "paint", G_CALLBACK (on_paint), self, 0);
  g_signal_connect_object (clock, "after-paint", G_CALLBACK (on_after_paint), self, 0);
}

static void
probe_report (CtrWindow      *window,
              const GError   *error,
              CtrApplication *self)
{
  g_print ("main loop: largest gap %.1f ms between 10 ms ticks (main thread on the CPU for %.1f ms of it); "
           "most main-thread CPU between two ticks %.1f ms; %u ticks during the run\n",
           self->probe_max_gap_us / 1000.0, self->probe_max_gap_cpu_us / 1000.0,
           self->probe_max_cpu_us / 1000.0, self->probe_ticks);
  if (self->frame_worst[0] > 0)
    g_print ("main loop: longest frame while running %.1f ms (update %.1f, layout %.1f, paint + render %.1f)\n",
             (self->frame_worst[3] - self->frame_worst[0]) / 1000.0,
             (self->frame_worst[1] - self->frame_worst[0]) / 1000.0,
             (self->frame_worst[2] - self->frame_worst[1]) / 1000.0,
             (self->frame_worst[3] - self->frame_worst[2]) / 1000.0);
}

static void
scenario_done (int      failures,
               gpointer user_data)
{
  CtrApplication *self = CTR_APPLICATION (user_data);

  g_print ("ctrecon: test scenario %s\n", failures == 0 ? "passed" : "FAILED");
  self->exit_status = failures == 0 ? 0 : 1;
  g_application_quit (G_APPLICATION (self));
}

static void
on_reconstruction_finished (CtrWindow      *window,
                            const GError   *error,
                            CtrApplication *self)
{
  if (error != NULL)
    fail (self, "reconstruction failed", error->message);
  else
    schedule_screenshot (self, GTK_WIDGET (window));
}

static CtrWindow *
new_window (CtrApplication *self)
{
  CtrWindow *window = ctr_window_new (GTK_APPLICATION (self));

  if (self->have_method)
    ctr_window_set_method (window, self->method);
  if (self->iterations > 0)
    ctr_window_set_iterations (window, self->iterations);
  ctr_window_set_orientation (window, self->orientation);
  if (self->page != NULL)
    ctr_window_show_page (window, self->page);

  if (self->probe)
    {
      g_signal_connect_object (window, "reconstruction-finished",
                               G_CALLBACK (probe_report), self, 0);
      g_signal_connect (window, "realize", G_CALLBACK (probe_watch_frames), self);
    }
  if (self->scenario_dir != NULL)
    ctr_test_driver_start (window, self->scenario_dir, scenario_done, self);
  if (self->dicom_dir != NULL)
    ctr_test_dicom_start (window, self->dicom_xa, self->dicom_dir, scenario_done, self);

  if (self->screenshot != NULL)
    {
      g_signal_connect_object (window, "dataset-loaded",
                               G_CALLBACK (on_dataset_loaded), self, 0);
      g_signal_connect_object (window, "reconstruction-finished",
                               G_CALLBACK (on_reconstruction_finished), self, 0);
    }
  return window;
}

static void
ctr_application_activate (GApplication *app)
{
  CtrApplication *self = CTR_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (new_window (self));
  gtk_window_present (window);

  /* Nothing to wait for: take the screenshot of the empty window. */
  if (self->screenshot != NULL)
    schedule_screenshot (self, GTK_WIDGET (window));
}

static void
ctr_application_open (GApplication  *app,
                      GFile        **files,
                      int            n_files,
                      const char    *hint)
{
  CtrApplication *self = CTR_APPLICATION (app);

  for (int i = 0; i < n_files; i++)
    {
      GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (app));
      CtrWindow *window;

      /* Reuse an idle empty window, else one window per dataset. */
      if (active != NULL && CTR_IS_WINDOW (active) &&
          !ctr_window_has_dataset (CTR_WINDOW (active)) &&
          !ctr_window_is_busy (CTR_WINDOW (active)))
        window = CTR_WINDOW (active);
      else
        window = new_window (self);

      ctr_window_set_run_on_load (window, self->run);
      ctr_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

static int
ctr_application_handle_local_options (GApplication *app,
                                      GVariantDict *options)
{
  CtrApplication *self = CTR_APPLICATION (app);
  const char *method = NULL;
  g_autofree char *screenshot = NULL;

  if (g_variant_dict_lookup (options, "method", "&s", &method))
    {
      g_autoptr(GError) error = NULL;

      if (!ctr_method_from_name (method, &self->method, &error))
        {
          g_printerr ("ctrecon: %s\n", error->message);
          return 2;
        }
      self->have_method = TRUE;
    }

  if (g_variant_dict_lookup (options, "iterations", "i", &self->iterations) &&
      (self->iterations < 1 || self->iterations > 500))
    {
      g_printerr ("ctrecon: --iterations must be between 1 and 500, not %d\n",
                  self->iterations);
      return 2;
    }

  self->run = g_variant_dict_contains (options, "run");
  {
    const char *page = NULL;
    if (g_variant_dict_lookup (options, "page", "&s", &page))
      {
        if (!g_str_equal (page, "run") && !g_str_equal (page, "geometry") &&
            !g_str_equal (page, "profile") && !g_str_equal (page, "compare"))
          {
            g_printerr ("ctrecon: --page must be run, geometry, profile or compare, not “%s”\n", page);
            return 2;
          }
        g_free (self->page);
        self->page = g_strdup (g_str_equal (page, "run") ? "reconstruct" : page);
      }
  }
  {
    const char *view = NULL;
    if (g_variant_dict_lookup (options, "view", "&s", &view))
      {
        static const char *names[] = { "axial", "coronal", "sagittal" };
        self->orientation = -1;
        for (guint i = 0; i < G_N_ELEMENTS (names); i++)
          if (g_str_equal (view, names[i]))
            self->orientation = i;
        if (self->orientation < 0)
          {
            g_printerr ("ctrecon: --view must be axial, coronal or sagittal, not “%s”\n", view);
            return 2;
          }
      }
  }
  self->probe = g_variant_dict_contains (options, "probe-responsiveness");

  {
    g_autofree char *dir = NULL;
    if (g_variant_dict_lookup (options, "test-scenario", "^ay", &dir))
      {
        g_free (self->scenario_dir);
        self->scenario_dir = g_steal_pointer (&dir);
        g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
      }
    if (g_variant_dict_lookup (options, "test-dicom-xa", "^ay", &dir))
      {
        g_free (self->dicom_dir);
        self->dicom_dir = g_steal_pointer (&dir);
        self->dicom_xa = TRUE;
        g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
      }
    if (g_variant_dict_lookup (options, "test-dicom", "^ay", &dir))
      {
        g_free (self->dicom_dir);
        self->dicom_dir = g_steal_pointer (&dir);
        g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
      }
  }

  if (g_variant_dict_lookup (options, "screenshot", "^ay", &screenshot))
    {
      g_free (self->screenshot);
      self->screenshot = g_steal_pointer (&screenshot);
      g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
    }

  return G_APPLICATION_CLASS (ctr_application_parent_class)->handle_local_options (app, options);
}

static void
ctr_application_startup (GApplication *app)
{
  static const char *reconstruct_accels[] = { "<Ctrl>r", NULL };
  static const char *cancel_accels[] = { "Escape", NULL };
  static const char *open_accels[] = { "<Ctrl>o", NULL };
  static const char *quit_accels[] = { "<Ctrl>q", NULL };

  G_APPLICATION_CLASS (ctr_application_parent_class)->startup (app);

  if (CTR_APPLICATION (app)->probe)
    CTR_APPLICATION (app)->probe_id = g_timeout_add (10, probe_tick, app);

  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.reconstruct", reconstruct_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.cancel-reconstruction", cancel_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  GApplication *app = G_APPLICATION (user_data);
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (app));

  /* Closing each window cancels its work (close-request). */
  for (GList *l = windows; l != NULL; )
    {
      GtkWindow *window = l->data;
      l = l->next;
      gtk_window_close (window);
    }
}

static void
ctr_application_finalize (GObject *object)
{
  CtrApplication *self = CTR_APPLICATION (object);

  g_free (self->screenshot);
  g_free (self->scenario_dir);
  g_free (self->dicom_dir);
  g_free (self->page);
  g_clear_handle_id (&self->probe_id, g_source_remove);

  G_OBJECT_CLASS (ctr_application_parent_class)->finalize (object);
}

static void
ctr_application_class_init (CtrApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = ctr_application_finalize;
  app_class->activate = ctr_application_activate;
  app_class->open = ctr_application_open;
  app_class->startup = ctr_application_startup;
  app_class->handle_local_options = ctr_application_handle_local_options;
}

static void
ctr_application_init (CtrApplication *self)
{
  static const GActionEntry app_actions[] = {
    { "quit", quit_activated, NULL, NULL, NULL, { 0 } },
  };

  g_application_add_main_option_entries (G_APPLICATION (self), test_options);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions,
                                   G_N_ELEMENTS (app_actions), self);
}

CtrApplication *
ctr_application_new (void)
{
  return g_object_new (CTR_TYPE_APPLICATION,
                       "application-id", "org.ctrecon.CtRecon",
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/org/ctrecon/CtRecon",
                       NULL);
}
