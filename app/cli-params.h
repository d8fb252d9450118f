/* cli-params.h — a subcommand's method options made from the parameter
 * table (core/recon/ctr-params.h): one "--NAME VALUE" per parameter, described by
 * the table, parsed by it.  A parameter added to the table is an option of
 * every subcommand that uses this. */
#pragma once

#include <glib.h>
#include "ctrecon.h"

typedef struct _CtrCliParams CtrCliParams;

/* Options for every parameter of the table, or for those named in @only
 * (NULL-terminated; NULL: all).  Free with ctr_cli_params_free. */
CtrCliParams *ctr_cli_params_new (const char *const *only);
void ctr_cli_params_free (CtrCliParams *cp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrCliParams, ctr_cli_params_free)

/* The options, NULL-terminated, for g_option_context_add_main_entries
 * (borrowed: valid while @cp lives). */
const GOptionEntry *ctr_cli_params_entries (CtrCliParams *cp);

/* Stores the values given on the command line into @o (after
 * ctr_recon_options_init for the method); prints "ctrecon-cli @command:
 * --NAME: why" and returns FALSE for a value the table refuses. */
gboolean ctr_cli_params_apply (CtrCliParams *cp, CtrReconOptions *o, const char *command);
