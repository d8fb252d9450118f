/* ctr-dataset.c — the dataset itself (see ctr-dataset.h); reading one is
 * ctr-dataset-load.c. */
#include "ctr-dataset.h"

/* ------------------------------------------------------------------------ */
/* The dataset                                                               */

CtrGrid
ctr_dataset_default_grid (const CtrDataset *d)
{
  const CtrGeometry *g = d->geometry;
  if (d->reference == NULL)
    return ctr_grid_default (g, 0, 0);
  CtrGrid grid = d->reference->grid;
  if (g->beam != CTR_BEAM_CONE)  /* cone beam keeps the reference's 3-D grid */
    {
      grid.nz = g->n_rows;
      grid.dz = g->pitch_v_mm;
      grid.cz = 0;
    }
  return grid;
}

void
ctr_dataset_free (CtrDataset *d)
{
  if (d == NULL)
    return;
  g_free (d->name);
  g_free (d->path);
  ctr_geometry_free (d->geometry);
  if (d->projections != NULL)
    ctr_projections_unref (d->projections);
  if (d->reference != NULL)
    ctr_volume_unref (d->reference);
  g_strfreev (d->variants);
  g_free (d->variant);
  g_free (d);
}
