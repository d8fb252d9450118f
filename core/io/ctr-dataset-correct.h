/* ctr-dataset-correct.h — a loaded dataset's corrections as geometry.json
 * states them: its "preprocess" pipeline (preprocess/ctr-preprocess.h), then
 * its "detector_tilt_rad" (data/ctr-detector-tilt.h).  Internal to io/. */
#pragma once

#include <json-glib/json-glib.h>
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

/**
 * ctr_dataset_correct:
 * @d: a dataset whose projections are line integrals
 * @root: its geometry.json's object
 * @replace: (nullable): a pipeline run instead of @root's "preprocess"
 * @where: the file, to name in errors
 *
 * Runs the pipeline on the projections (each step's effect a warning of
 * @d), then resamples them onto an untilted detector when @root states
 * "detector_tilt_rad" (a warning says so; one detector row: ignored with a
 * warning).
 * Returns: FALSE with the pipeline's errors (CTR_ERROR_FORMAT for a bad
 *   step or key, the steps' own), or ctr_projections_untilt's, prefixed
 *   with @where.
 */
gboolean ctr_dataset_correct (CtrDataset *d, JsonObject *root, const CtrPipeline *replace, const char *where,
                              GError **error);

G_END_DECLS
