/* ctr-temp.h — the temporaries a process is writing, removable at any time.
 *
 * Every writer of core/io grows its output under a hidden temporary name
 * beside the target (".OUT.tif.XXXXXX", ".SERIES.tmp-XXXXXX/",
 * ".DIR.partial-XXXXXX/", a staged output of ctr-output-set.h) and renames
 * it into place.  A process stopped in between (Ctrl-C, SIGTERM, SIGHUP)
 * must not leave them behind: each writer registers its temporary here
 * from its creation until its rename, and the CLI's signal policy calls
 * ctr_temp_remove_all() before it exits.  Thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @path (a file, or a folder of files when @folder) is a temporary of this
 * process from now on. */
void ctr_temp_register (const char *path, gboolean folder);

/* @path is no longer a temporary (renamed into place, or removed). */
void ctr_temp_forget (const char *path);

/**
 * ctr_temp_remove_all:
 * Removes every registered temporary (a folder with the files inside) and
 * keeps the registry locked from then on, so that no writer of another
 * thread registers, renames or commits anything after it: call it only on
 * the way out of the process (then _exit).  Returns the number removed.
 */
guint ctr_temp_remove_all (void);

/* Held while a writer renames its temporaries into place (a commit of
 * several outputs): ctr_temp_remove_all() waits until the commit is done. */
void ctr_temp_lock (void);
void ctr_temp_unlock (void);

G_END_DECLS
