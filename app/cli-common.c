/* cli-common.c — error reporting and option parsing shared by the subcommands. */
#include <glib-unix.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"

int
ctr_cli_fail (const GError *error)
{
  if (error == NULL)
    {
      fprintf (stderr, "ctrecon-cli: failed (no reason given)\n");
      return 1;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      fprintf (stderr, "ctrecon-cli: cancelled\n");
      return 1;
    }
  fprintf (stderr, "ctrecon-cli: %s\n", error->message);
  return error->domain == G_OPTION_ERROR ? 2 : 1;
}

gboolean
ctr_cli_parse (GOptionContext *ctx, int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      fprintf (stderr, "ctrecon-cli %s: %s\nTry 'ctrecon-cli %s --help'.\n",
               (*argv)[0], error->message, (*argv)[0]);
      return FALSE;
    }
  return TRUE;
}

CtrVolume *
ctr_cli_read_volume (const char *path, double pixel_mm, CtrTiffInfo *info, GError **error)
{
  g_autofree float *data = ctr_tiff_read (path, info, error);
  if (data == NULL)
    return NULL;
  CtrGrid grid = { info->width, info->height, info->pages,
                   pixel_mm, pixel_mm, pixel_mm, 0, 0, 0 };
  CtrVolume *v = ctr_volume_new (&grid, error);
  if (v == NULL)
    return NULL;
  g_free (v->data);
  v->data = g_steal_pointer (&data);
  return v;
}

void
ctr_cli_json_number (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  if (isfinite (value))
    json_builder_add_double_value (b, value);
  else
    json_builder_add_null_value (b);
}

gboolean
ctr_cli_parse_roi (const char *text, const char *option, CtrRoi *roi, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (ctr_roi_parse (text, roi, &local))
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s %s", option, local->message);
  return FALSE;
}

typedef struct {
  void (*work) (gpointer data, GCancellable *cancellable);
  gpointer data;
  GCancellable *cancellable;
  GMainLoop *loop;
} Worker;

static gboolean
quit_loop (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  w->work (w->data, w->cancellable);
  /* Quit from inside the loop: a quit before g_main_loop_run() would be lost. */
  g_idle_add (quit_loop, w->loop);
  return NULL;
}

static gboolean
on_sigint (gpointer data)
{
  fprintf (stderr, "ctrecon-cli: cancelling…\n");
  g_cancellable_cancel (data);
  return G_SOURCE_CONTINUE;
}

void
ctr_cli_run_cancellable (const char *name, void (*work) (gpointer data, GCancellable *cancellable),
                         gpointer data, GCancellable *cancellable)
{
  Worker w = { work, data, cancellable, g_main_loop_new (NULL, FALSE) };
  /* Ctrl-C and SIGTERM (a batch system's stop, a shutdown, mpirun's Ctrl-C
   * forwarded to the ranks) cancel between views: no half-written output,
   * no orphaned matrix-cache temporary. */
  guint sig = g_unix_signal_add (SIGINT, on_sigint, cancellable);
  guint term = g_unix_signal_add (SIGTERM, on_sigint, cancellable);
  GThread *thread = g_thread_new (name, worker_thread, &w);
  g_main_loop_run (w.loop);
  g_thread_join (thread);
  g_source_remove (sig);
  g_source_remove (term);
  g_main_loop_unref (w.loop);
}
