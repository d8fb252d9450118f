/* cli-signals.h — the one signal policy of ctrecon-cli.
 *
 *  - SIGPIPE is ignored: progress written to a closed pipe (`… 2>&1 | head
 *    -2`) fails with EPIPE and is dropped; the run goes on and its outputs
 *    are written.
 *  - SIGINT, SIGTERM and SIGHUP (Ctrl-C, a batch system's stop or a
 *    shutdown, a closed terminal or ssh session) are one request: "cancel".
 *    While a cancellable work runs (ctr_cli_signals_watch), the first one
 *    cancels it (the work stops between views, nothing is written, except
 *    what a command keeps on purpose: a study's finished rows, marked
 *    incomplete); a second one, or one at any other moment (loading,
 *    writing, committing the outputs), removes every temporary the writers
 *    registered (io/ctr-temp.h; a commit in progress is finished first) and
 *    ends the process at once.
 *  - A cancelled run exits with 130 (128 + SIGINT, what shells expect),
 *    whichever of the three signals asked for it.
 * The signals are received by a thread of their own (sigwait), so they
 * are handled the same whether the main thread waits, computes or writes.
 */
#pragma once

#include <gio/gio.h>

/* The exit status of a cancelled run. */
#define CTR_CLI_EXIT_CANCELLED 130

/* Installs the policy: call first in main(), before any thread starts
 * (the signals are blocked in every thread but the receiving one). */
void ctr_cli_signals_init (void);

/* @cancellable (nullable: none) is the work a signal cancels from now on. */
void ctr_cli_signals_watch (GCancellable *cancellable);

/* Whether a signal asked this run to stop. */
gboolean ctr_cli_signals_cancelled (void);
