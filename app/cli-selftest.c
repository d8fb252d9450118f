/* cli-selftest.c — `ctrecon-cli selftest`: which backends this build has,
 * the device, each GPU backend's run-time self-check (a small known problem
 * on the device and on the CPU, compared; core/plan/ctr-backend.h) with its
 * differences, and the backend a reconstruction would choose ("best").
 * Exit status: 0 when what runs is sound (a GPU that passed, or no GPU),
 * 1 when a device answered but failed its self-check (the CPU runs
 * instead), 2 on bad usage. */
#include <stdio.h>
#include "cli-common.h"
#include "plan/ctr-backend.h"

int
ctr_cli_selftest (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— check the GPU backends against the CPU on a small known problem");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  guint n = 0;
  const CtrBackend *const *list = ctr_backend_list (&n);
  gboolean failed = FALSE;
  g_autofree char *shown = NULL;
  for (guint i = 0; i < n; i++)
    {
      const CtrBackend *b = list[i];
      g_autofree char *device = b->device_name ? b->device_name (b) : NULL;
      printf ("backend %s: %s\n", b->name, b->description);
      if (b->self_check == NULL)
        continue;
      if (device == NULL)
        {
          g_autofree char *why = NULL;
          b->available (b, &why);
          printf ("  device: none (%s)\n", why ? why : "no reason given");
          continue;
        }
      printf ("  device: %s\n", device);
      gboolean passed = FALSE;
      g_autofree char *report = b->self_check (b, &passed);
      failed |= !passed;
      if (shown != NULL && g_str_equal (shown, report))
        {
          printf ("  self-check: the same as above (one device, one check)\n");
          continue;
        }
      g_auto (GStrv) lines = g_strsplit (report, "\n", -1);
      for (guint l = 0; lines[l]; l++)
        printf ("  %s\n", lines[l]);
      g_free (shown);
      shown = g_strdup (report);
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL;
  const CtrBackend *best = ctr_backend_select ("best", &note, &error);
  if (best == NULL)
    return ctr_cli_fail (error);
  printf ("backend chosen: %s%s%s\n", best->name, note ? " — " : "", note ? note : "");
  return failed ? 1 : 0;
}
