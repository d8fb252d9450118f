/* ctr-dataset-foreign.c — scan files that are not a geometry.json read as
 * a dataset: NeXus NXtomo (ctr-nexus.h), Nikon .xtekct and SkyScan .log
 * (ctr-vendor.h). */
#include "io/ctr-dataset.h"

#include "io/ctr-nexus.h"
#include "io/ctr-vendor.h"

CtrDataset *
ctr_dataset_load_foreign (const char *path, gboolean *handled, GCancellable *cancellable, GError **error)
{
  *handled = TRUE;
  if (ctr_xtekct_is_xtekct (path))
    return ctr_xtekct_load_dataset (path, cancellable, error);
  if (ctr_skyscan_is_log (path))
    return ctr_skyscan_load_dataset (path, cancellable, error);
  if (ctr_nexus_is_nexus (path))
    return ctr_nexus_load_dataset (path, cancellable, error);
  *handled = FALSE;
  return NULL;
}
