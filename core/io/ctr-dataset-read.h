/* ctr-dataset-read.h — the projection files of a geometry.json, whole or a
 * part (ctr-dataset-read.c).  Internal to io/: ctr-dataset-load.c calls it. */
#pragma once

#include <json-glib/json-glib.h>
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

/* The path of @file named in the JSON (relative to @base_dir), recorded as
 * one of @d's inputs.  (transfer full). */
char *ctr_dataset_resolve (CtrDataset *d, const char *base_dir, const char *file);

/* TRUE when @spec's layout is read in parts ("sinogram", "view_pages",
 * "one_file_per_view": TIFF files whose pages and lines are rows or views);
 * "dicom" and "nexus" are read whole. */
gboolean ctr_dataset_layout_splits (JsonObject *spec);

/**
 * ctr_dataset_read_projections:
 * The projections @spec ("projections" or a variant, named @spec_key)
 * describes, of @g's views × rows × columns, with @kind: all of them, or
 * with @part (nullable; only for a layout ctr_dataset_layout_splits accepts)
 * its views (part->count × n_rows × n_cols) or its rows (n_views ×
 * part->count × n_cols), only the strips that hold them decoded
 * (ctr_tiff_read_part).  Every file read is added to @d's inputs and its
 * stored bytes decoded to *@bytes (nullable).
 * Returns: (transfer full): [view][row][col] floats as stored, or NULL with
 *   CTR_ERROR_IO, CTR_ERROR_FORMAT (a missing key, a shape or sample type
 *   other than the JSON states), CTR_ERROR_OUT_OF_MEMORY,
 *   G_IO_ERROR_CANCELLED, each naming @where and the key.
 */
CtrProjections *ctr_dataset_read_projections (CtrDataset *d, JsonObject *spec, const char *spec_key,
                                              const CtrGeometry *g, CtrProjKind kind, const char *base_dir,
                                              const char *where, const CtrDatasetPart *part, guint64 *bytes,
                                              GCancellable *cancellable, GError **error);

/* "flat", "dark" (@p's n_rows × n_cols; several pages averaged) and "I0"
 * of counts, from @spec first, then @root.  CTR_ERROR_FORMAT, CTR_ERROR_IO. */
gboolean ctr_dataset_read_counts_fields (CtrDataset *d, CtrProjections *p, JsonObject *root, JsonObject *spec,
                                         const char *base_dir, const char *where, GCancellable *cancellable,
                                         GError **error);

/* As ctr_dataset_read_counts_fields for @p holding @part of @g's
 * projections: the whole flat and dark are read and converted as one view
 * (so the open-beam checks and *@masked_fraction, the fraction of the whole
 * detector masked, are the whole read's), then @p gets their rows of @part.
 * Errors: ctr_dataset_read_counts_fields's, ctr_projections_to_line_integrals's. */
gboolean ctr_dataset_read_part_fields (CtrDataset *d, CtrProjections *p, const CtrGeometry *g,
                                       const CtrDatasetPart *part, JsonObject *root, JsonObject *spec,
                                       const char *base_dir, const char *where, double *masked_fraction,
                                       GCancellable *cancellable, GError **error);

/* "I0" beside line integrals: the photons per bin of the scan behind them
 * (low-dose statistics: ctr-noise.h, ctr-dose.h); optional, positive.
 * CTR_ERROR_FORMAT. */
gboolean ctr_dataset_read_photon_count (CtrProjections *p, JsonObject *root, JsonObject *spec, const char *where,
                                        GError **error);

G_END_DECLS
