/* ctr-file.h — opening input files so that nothing hangs.
 *
 * An input path that names a FIFO (or a terminal, a socket, a device)
 * blocks a plain open() or read until something writes to it: a run that
 * never ends instead of an error.  Every reader of core/io opens its inputs
 * through these (or checks with them before a library opens the path by
 * name: libtiff, DCMTK, json-glib).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * ctr_file_check_regular:
 * TRUE when @path is, or links to, a regular file; else FALSE with
 * CTR_ERROR_IO: "cannot open PATH: No such file or directory", "PATH is a
 * folder, not a file", "PATH is not a regular file (a FIFO)".  Opens
 * nothing.
 */
gboolean ctr_file_check_regular (const char *path, GError **error);

/**
 * ctr_file_open_regular:
 * Opens @path read-only (close-on-exec) when it is a regular file: with
 * O_NONBLOCK, so that a FIFO cannot block the open, then fstat on what was
 * opened, then O_NONBLOCK cleared.  Returns the descriptor (close it), or
 * -1 with the errors of ctr_file_check_regular.
 */
int ctr_file_open_regular (const char *path, GError **error);

/* What a stat mode is, for messages: "a regular file", "a folder", "a FIFO",
 * "a character device", "a block device", "a socket", "a special file". */
const char *ctr_file_kind_name (unsigned int st_mode);

/* Removes the files in @dir and then @dir (a folder of files we made: a
 * temporary series or dataset; subfolders are not descended into). */
void ctr_file_remove_folder (const char *dir);

/* Whether @dir can receive a new folder's content: it does not exist, or
 * is an empty folder.  FALSE with CTR_ERROR_IO ("… exists and is not
 * empty; choose a new folder (nothing was written)"). */
gboolean ctr_file_check_new_folder (const char *dir, GError **error);

G_END_DECLS
