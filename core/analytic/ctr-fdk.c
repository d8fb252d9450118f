/* ctr-fdk.c — FDK (Feldkamp, Davis & Kress 1984): weighting and ramp
 * filtering (ctr-fdk-filter.c), then voxel-driven back-projection
 * (ctr-fdk-backproject.c); see ctr-fdk.h. */
#include "analytic/ctr-fdk.h"
#include "data/ctr-geometry-vectors.h"

CtrVolume *
ctr_fdk_run (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
             CtrFilterWindow window, double cutoff, CtrFdkTimings *timings,
             GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && grid != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  const gint64 t0 = g_get_monotonic_time ();
  if (!ctr_grid_validate (grid, error))
    return NULL;
  /* Per-view vectors: FDK runs on their circular description, or refuses. */
  g_autoptr (CtrGeometry) circular = NULL;
  if ((g = ctr_geometry_as_circular (g, &circular, error)) == NULL)
    return NULL;
  g_autoptr (CtrProjections) q = ctr_fdk_filter (g, p, window, cutoff, cancellable, error);
  if (q == NULL)
    return NULL;
  const gint64 t1 = g_get_monotonic_time ();
  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");
  const gint64 t2 = g_get_monotonic_time ();
  if (!ctr_fdk_backproject (g, q, vol, cancellable, error))
    return NULL;
  const gint64 t3 = g_get_monotonic_time ();
  if (timings != NULL)
    {
      timings->filter_s = (t1 - t0) / 1e6;
      timings->backproject_s = (t3 - t2) / 1e6;
      timings->total_s = (t3 - t0) / 1e6;
    }
  return g_steal_pointer (&vol);
}
