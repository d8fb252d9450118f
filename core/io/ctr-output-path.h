/* ctr-output-path.h — may a run write here?  Outputs never replace inputs.
 *
 * The writers of core/io (TIFF, DICOM series, geometry.json) write a
 * temporary file and rename it over the target, so a failed write never
 * leaves a half-written file.  But a rename happily replaces the input
 * sinogram, the geometry.json, or a device node such as /dev/full with the
 * new file.  ctr_output_path_check() is the one decision, made before a run
 * starts, that the CLI (every --output, --metrics, DICOM folder, simulate
 * and bench output) and the window's save dialogs share.
 */
#pragma once

#include <glib.h>
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

typedef enum {
  CTR_OUTPUT_FILE,   /* one file (TIFF, CSV, JSON), written atomically over @path */
  CTR_OUTPUT_FOLDER, /* a folder of files (a DICOM series), swapped in as a whole */
  CTR_OUTPUT_DATASET /* a dataset folder: new or empty (never merged into another) */
} CtrOutputKind;

/**
 * ctr_output_path_check:
 * @path: where the output will be written.
 * @kind: a file or a folder.
 * @dataset: (nullable): the dataset the run reads; every file in
 *   dataset->inputs (the geometry.json, projections, flat, dark, reference,
 *   DICOM files; a folder there stands for everything inside it) is kept
 *   off limits.
 * @others: (nullable) (array zero-terminated=1): more paths of the same run
 *   to keep apart from @path: a --reference given separately, the run's
 *   other outputs (--output and --metrics must differ).  NULL entries end
 *   the list; empty strings are skipped.
 *
 * Decides whether writing @path can destroy something, before the run
 * starts.  Symbolic links are followed and hard links recognised (files
 * are compared by device and inode, not by name), so a link to the input
 * sinogram is the input sinogram.  Refused:
 *  - an existing @path that is not a regular file (@kind FILE: a FIFO, a
 *    device node like /dev/full, a socket, a folder) or not a folder
 *    (@kind FOLDER);
 *  - @path being one of the inputs or @others, or lying inside an input
 *    folder;
 *  - for @kind FOLDER, a folder that holds an input (a DICOM series is
 *    swapped in as a whole: the folder's old content goes).
 * Nothing is created or modified; a @path that does not exist yet is
 * judged by its parent folder, which must exist for @kind FILE (for
 * FOLDER, the nearest existing folder above it counts: the export creates
 * the rest).  A trailing "/" is ignored.
 *
 * The window calls it when its save dialog returns, before it writes, with
 * the session's dataset and, for an image, its other outputs:
 *   if (!ctr_output_path_check (path, CTR_OUTPUT_FILE, session->dataset, NULL, &error))
 *     show error->message in an AdwMessageDialog and keep the dialog's folder;
 *
 * Returns: TRUE when @path may be written; FALSE with
 *   CTR_ERROR_INVALID_ARGUMENT and a message naming @path and what it would
 *   replace ("... is an input of this run (the dataset's ...)", "... is not a
 *   regular file (a FIFO)"), or CTR_ERROR_IO when its folder does not exist.
 */
gboolean ctr_output_path_check (const char *path, CtrOutputKind kind, const CtrDataset *dataset,
                                const char *const *others, GError **error);

G_END_DECLS
