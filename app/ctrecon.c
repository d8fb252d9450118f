/* ctrecon.c — the CT Recon window application (GTK 4 + libadwaita).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: ctrecon [DATASET.json ...]
 * Hidden options for automated tests: --method NAME, --iterations N, --run,
 * --screenshot FILE.png, --page NAME, --view PLANE, --test-scenario DIR,
 * --probe-responsiveness (see ui/ctr-application.c and ui/ctr-test-driver.c).
 */
#include "ctr-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(CtrApplication) app = NULL;
  int status;

  g_set_application_name ("CT Recon");

  app = ctr_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  if (status == 0)
    status = ctr_application_get_exit_status (app);

  return status;
}
