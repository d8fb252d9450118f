/* ctr-dataset-check.c — a loaded dataset checked against what its files
 * claim (see ctr_dataset_check_claims in ctr-dataset.h).  The loaders refuse
 * what cannot be a scan (ctr-projections.h, ctr-geometry.h, ctr-json.h);
 * what may still be one but probably is not becomes a warning here, with
 * the figure that gave it away, once for every loader (geometry.json,
 * DICOM, the window's drafts). */
#include "io/ctr-dataset.h"

#include <math.h>

/* Pixels with flat − dark ≤ 0 are filled from their row's neighbours: a few
 * are dead pixels, more than this fraction a flat field that is wrong. */
#define MASKED_WARN_FRACTION 0.01

static void
check_masked (CtrDataset *d)
{
  const double f = ctr_projections_masked_fraction (d->projections);
  if (f > MASKED_WARN_FRACTION)
    ctr_dataset_add_warning (d, "%.1f %% of the detector pixels (%.0f of %u × %u) have an open beam (flat − dark) "
                             "≤ 0 and are filled from their neighbours along the row; is the flat field right?",
                             100 * f, f * d->projections->n_rows * d->projections->n_cols,
                             d->projections->n_rows, d->projections->n_cols);
}

void
ctr_dataset_check_claims (CtrDataset *d)
{
  g_return_if_fail (d != NULL);
  if (d->projections == NULL || d->geometry == NULL)
    return;
  check_masked (d);
}
