/* ctr-run-page.h — the Run page: dataset, method, progress and the latest
 * numbers beside the live slice and the convergence of every run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-method-panel.h"
#include "ctr-session.h"

G_BEGIN_DECLS

#define CTR_TYPE_RUN_PAGE (ctr_run_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrRunPage, ctr_run_page, CTR, RUN_PAGE, GtkWidget)

/* The session shown (property "session"); nullable. */
void            ctr_run_page_set_session      (CtrRunPage *self,
                                               CtrSession *session);
/* The method form: the window reads the options for a run and binds the
 * preferences to it. */
CtrMethodPanel *ctr_run_page_get_method_panel (CtrRunPage *self);

G_END_DECLS
