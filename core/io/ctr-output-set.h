/* ctr-output-set.h — the outputs of one run: checked before, committed together.
 *
 * A run (a reconstruction, a simulation, a projection, a study) may write
 * several outputs: an image and its metrics, a dataset folder, a series.
 * They are all decided before any computation (so that a folder that
 * cannot be written, an output that would replace an input, or a DICOM
 * folder holding other files is said at once, not after 20 iterations),
 * then each is written under a hidden staging name beside its target, and
 * only when every one is complete are they renamed into place, one after
 * another, under ctr_temp_lock() (ctr-temp.h): a failed write (a full disk,
 * a CSV that cannot be written) replaces nothing, and Ctrl-C during the
 * writes leaves the old outputs as they were and no temporary behind.
 *
 *   g_autoptr (CtrOutputSet) s = ctr_output_set_new (dataset);
 *   ctr_output_set_add_input (s, reference_path);
 *   guint img = ctr_output_set_add (s, output, CTR_OUTPUT_FILE, "--output");
 *   guint csv = ctr_output_set_add (s, metrics, CTR_OUTPUT_FILE, "--metrics");
 *   if (!ctr_output_set_check (s, &error)) fail;
 *   ... compute ...
 *   write the image to ctr_output_set_stage (s, img, &error);
 *   ctr_output_set_write_text (s, csv, text, &error);
 *   ctr_output_set_commit (s, &error);
 */
#pragma once

#include <glib.h>
#include "io/ctr-dataset.h"
#include "io/ctr-output-path.h"

G_BEGIN_DECLS

typedef struct _CtrOutputSet CtrOutputSet;

/* A run reading @dataset (nullable): its ->inputs are off limits. */
CtrOutputSet *ctr_output_set_new (const CtrDataset *dataset);

/* Removes every staged output not committed, then frees @s. */
void ctr_output_set_free (CtrOutputSet *s);

/* @path (a file or a folder) is read by the run: no output may replace it. */
void ctr_output_set_add_input (CtrOutputSet *s, const char *path);

/**
 * ctr_output_set_add_geometry:
 * The geometry.json at @path and every file it names
 * (ctr_dataset_named_files) are inputs: what a command given a geometry
 * without loading its data (project) keeps off limits.
 * Returns: FALSE with CTR_ERROR_IO when @path cannot be read.
 */
gboolean ctr_output_set_add_geometry (CtrOutputSet *s, const char *path, GError **error);

/* An output at @path of @kind; @option names it in messages ("--output").
 * Returns its index for ctr_output_set_stage(). */
guint ctr_output_set_add (CtrOutputSet *s, const char *path, CtrOutputKind kind, const char *option);

/**
 * ctr_output_set_check:
 * Before any computation, every output: ctr_output_path_check() against
 * the inputs and the other outputs; the folder it goes into writable (a
 * file is created there and removed: permissions, a read-only file
 * system); for CTR_OUTPUT_FOLDER (a DICOM series) an existing folder empty
 * or holding a series of ours only (ctr_dicom_export_check_folder); for
 * CTR_OUTPUT_DATASET a folder that does not exist or is empty.  Creates
 * nothing (a probe file is created and removed at once): the folders above
 * a FOLDER or DATASET output are made by ctr_output_set_stage().
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT or CTR_ERROR_IO, the
 *   message prefixed by the output's option.
 */
gboolean ctr_output_set_check (CtrOutputSet *s, GError **error);

/**
 * ctr_output_set_stage:
 * The hidden path beside output @i (".NAME.new-XXXXXX", created: an empty
 * file, or an empty folder for a FOLDER or DATASET output) where the writer
 * puts it (the writers of core/io replace an empty file or folder).
 * Registered as a temporary until the commit.
 * Returns: (transfer none): the path, or NULL with CTR_ERROR_IO.
 */
const char *ctr_output_set_stage (CtrOutputSet *s, guint i, GError **error);

/* Writes @text (@length bytes, -1: NUL-terminated) as output @i's staged
 * file, fsync'ed.  FALSE with CTR_ERROR_IO ("No space left on device"). */
gboolean ctr_output_set_write_text (CtrOutputSet *s, guint i, const char *text, gssize length, GError **error);

/* Rewrites @error's message (nullable) so that it names each output by its
 * path, not by its staged name: "cannot write out.tif: No space left on
 * device", not ".out.tif.new-4Qx1". */
void ctr_output_set_explain (CtrOutputSet *s, GError *error);

/**
 * ctr_output_set_commit:
 * Renames every staged output into place (a FOLDER that exists is
 * exchanged with its new content, the old content removed).  Outputs that
 * were never staged are skipped.
 * Returns: FALSE with CTR_ERROR_IO when a rename fails (the outputs not yet
 *   renamed keep their old content and their staged files are removed).
 */
gboolean ctr_output_set_commit (CtrOutputSet *s, GError **error);

/**
 * ctr_output_write_file:
 * Writes @text (@length bytes, -1: NUL-terminated) as @path on its own,
 * atomically: a registered temporary beside it (ctr-temp.h), fsync, rename.
 * For an output rewritten while a run goes on (a study's CSV after each
 * run), where a staged commit at the end would lose the finished rows to a
 * kill.  FALSE with CTR_ERROR_IO naming @path ("No space left on device").
 */
gboolean ctr_output_write_file (const char *path, const char *text, gssize length, GError **error);

/**
 * ctr_output_swap_in:
 * Puts the complete folder @tmp in the place of @folder (which @exists or
 * not) and removes what was there: renameat2 RENAME_EXCHANGE, or two
 * renames where the file system lacks it (on failure the old folder comes
 * back).  The one primitive by which a folder output is committed.
 * Returns: FALSE with CTR_ERROR_IO.
 */
gboolean ctr_output_swap_in (const char *tmp, const char *folder, gboolean exists, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrOutputSet, ctr_output_set_free)

G_END_DECLS
