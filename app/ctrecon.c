/* ctrecon.c — the CT Recon window application (GTK 4 + libadwaita).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: ctrecon [--version] [DATASET.json | DICOM file or folder …]
 */
#include <stdio.h>

#include "ctr-application.h"
#include "ctr-config.h"

/* --version: answered here, before the application's own option handling,
 * without a display and without contacting a running instance. */
static int
on_handle_local_options (GApplication *app,
                         GVariantDict *options,
                         gpointer      user_data)
{
  if (g_variant_dict_contains (options, "version"))
    {
      printf ("ctrecon %s\n", CTR_VERSION);
      return 0;
    }
  return -1;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(CtrApplication) app = NULL;

  g_set_application_name ("CT Recon");
  app = ctr_application_new ();
  g_application_set_option_context_parameter_string (G_APPLICATION (app),
                                                     "[DATASET.json | DICOM file or folder…]");
  g_application_set_option_context_summary (G_APPLICATION (app),
    "The CT Recon window: open a dataset (a geometry.json with its projections, or DICOM "
    "projections), check its geometry, reconstruct with FBP, FDK or an iterative method "
    "(ART, parallel ART, SART, SIRT) and compare the results.");
  g_application_add_main_option (G_APPLICATION (app), "version", 0, G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_NONE, "Show the version and exit", NULL);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (on_handle_local_options), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
