/* cli-common.c — error reporting and option parsing shared by the subcommands. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "cli-signals.h"

void
ctr_cli_print_warnings (const CtrDataset *d)
{
  for (guint i = 0; d != NULL && d->warnings != NULL && d->warnings[i] != NULL; i++)
    fprintf (stderr, "ctrecon-cli: warning: %s\n", d->warnings[i]);
}

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
      return CTR_CLI_EXIT_CANCELLED;
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
} Worker;

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  w->work (w->data, w->cancellable);
  return NULL;
}

void
ctr_cli_run_cancellable (const char *name, void (*work) (gpointer data, GCancellable *cancellable),
                         gpointer data, GCancellable *cancellable)
{
  Worker w = { work, data, cancellable };
  /* Ctrl-C, SIGTERM and SIGHUP cancel between views (cli-signals.h): no
   * half-written output, no orphaned matrix-cache temporary. */
  ctr_cli_signals_watch (cancellable);
  GThread *thread = g_thread_new (name, worker_thread, &w);
  g_thread_join (thread);
  ctr_cli_signals_watch (NULL);
}
