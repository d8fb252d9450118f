/* cli-common.c — error reporting and option parsing shared by the subcommands. */
#include <stdio.h>

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
