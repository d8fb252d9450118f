/* ctr-dataset-write.h — write a dataset (geometry.json + TIFFs) that
 * ctr_dataset_load() reads back.
 *
 * The folder is assembled under a temporary name beside it and renamed into
 * place at the end, so a failure (or a crash) leaves no half-written dataset
 * and never touches an existing one.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

/**
 * ctr_dataset_write:
 * @dir: the dataset folder; it must not exist or be empty (its parent is
 *   created when missing).
 * @name: the dataset's "name".
 * @g: the geometry (validated first).
 * @p: line integrals [view][row][col] with their statistics.  With a flat
 *   (@p->flat, open-beam counts per pixel after dark subtraction) the
 *   dataset is written as raw counts: "kind": "counts", projections.tif
 *   holding @counts (or @p->flat·exp(−b) when @counts is NULL) and flat.tif
 *   holding @p->flat, no dark.  Otherwise as "kind": "line_integrals"
 *   holding @p->data.  @p->i0 > 0 is written as the top-level "I0" in both
 *   cases (for line integrals: the photons per bin of the scan behind them,
 *   read back into ->i0 by ctr_dataset_load).  One detector row: layout
 *   "sinogram" (one page, line = view); several: "view_pages".
 * @counts: (nullable): float [view][row][col] counts for a counts dataset.
 * @reference: (nullable): written as reference.tif with its grid
 *   ("shape_zyx", "spacing_xyz_mm", "center_mm", "unit").
 * @extra: (nullable): members added at the top level of geometry.json
 *   (e.g. "notes", "dose"); copied.
 *
 * Returns: FALSE with CTR_ERROR_INVALID_GEOMETRY (@g invalid, or its sizes
 *   differ from @p's), CTR_ERROR_IO (@dir exists and is not empty, or a file
 *   cannot be written, with the path and the reason).
 */
gboolean ctr_dataset_write (const char *dir, const char *name, const CtrGeometry *g,
                            const CtrProjections *p, const float *counts,
                            const CtrVolume *reference, JsonObject *extra,
                            GError **error);

/* Whether @dir can receive a dataset (missing, or an empty folder), so a
 * caller can refuse before any work: FALSE with CTR_ERROR_IO otherwise. */
gboolean ctr_dataset_write_check (const char *dir, GError **error);

G_END_DECLS
