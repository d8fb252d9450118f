/* ctr-run-list.h — the session's runs as a list to rename and delete.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"

G_BEGIN_DECLS

/* Shows every run of @session (nullable: none) in @box, oldest first: an
 * entry row titled "Run N" holding its label (Enter or the apply button renames it,
 * ctr_run_set_label) in the run's colour, a colour button
 * (ctr_run_set_color: "run-N-color"), a hide toggle (ctr_run_set_hidden:
 * "run-N-hide") and a delete button
 * (ctr_session_remove_run; a refusal is shown as a toast).  The row is
 * named "run-N-label" after the run's number, its button "run-N-delete".
 * Runs are grouped by the data they ran on (ctr_run_get_dataset): a header
 * names it above the first run of each group (named "runs-header-N" after
 * that run's number). */
void ctr_run_list_bind (GtkListBox *box,
                        CtrSession *session);

G_END_DECLS
