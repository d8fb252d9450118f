/* ctr-progress.c — filling CtrIterStats the same way for every method
 * (see ctr-progress.h). */
#include "recon/ctr-progress.h"
#include "quality/ctr-metrics.h"

#include <math.h>

#include "base/ctr-error.h"

gboolean
ctr_iter_stats_below_noise (const CtrIterStats *stats)
{
  g_return_val_if_fail (stats != NULL, FALSE);
  return stats->noise_residual > 0 && stats->residual < stats->noise_residual;
}

gboolean
ctr_iter_stats_check (const CtrIterStats *stats, const CtrVolume *img, GError **error)
{
  const gsize n = img != NULL ? ctr_grid_size (&img->grid) : 0;
  gsize bad = 0;
#pragma omp parallel for reduction(+:bad) schedule(static)
  for (gint64 i = 0; i < (gint64) n; i++)
    bad += !isfinite (img->data[i]);   /* n is 0 without an image */
  if (bad > 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s, iteration %u: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " voxels are not finite "
                   "(NaN or infinity); the geometry or the data are wrong (values beyond float32's range?)",
                   ctr_method_name (stats->method), stats->iteration, bad, n);
      return FALSE;
    }
  if (stats->has_reference
      && !(isfinite (stats->rmse) && isfinite (stats->ssim) && stats->ssim <= 1.0 && stats->ssim >= -1.0
           && !isnan (stats->psnr)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s, iteration %u: the metrics against the reference are not finite (RMSE %g, PSNR %g, "
                   "SSIM %g)", ctr_method_name (stats->method), stats->iteration, stats->rmse, stats->psnr,
                   stats->ssim);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_iter_report_single_pass (CtrMethod method, const CtrVolume *img, const CtrVolume *reference,
                             double radius_mm, double seconds, CtrIterFunc callback, gpointer user_data,
                             GError **error)
{
  CtrIterStats st = { 0 };
  st.method = method;
  st.iteration = st.n_iterations = 1;
  st.elapsed_s = st.iteration_s = seconds;
  st.residual = st.data_sq = NAN;
  st.rmse = st.psnr = st.ssim = NAN;
  if (callback != NULL || reference != NULL)
    ctr_iter_stats_set_quality (&st, img, reference, radius_mm);
  st.image = img;
  if (!ctr_iter_stats_check (&st, img, error))
    return FALSE;
  if (callback != NULL)
    callback (&st, user_data);
  return TRUE;
}

gboolean
ctr_reference_covers (const CtrVolume *reference, const CtrGrid *grid, GError **error)
{
  const CtrGrid *r = &reference->grid;
  if (r->nz <= 1)
    return TRUE;
  const double lo = MIN (ctr_grid_z (r, 0), ctr_grid_z (r, r->nz - 1));
  const double hi = MAX (ctr_grid_z (r, 0), ctr_grid_z (r, r->nz - 1));
  const double slack = 0.5 * fabs (r->dz) + 1e-6;
  guint outside = 0;
  for (guint k = 0; k < grid->nz; k++)
    {
      const double z = ctr_grid_z (grid, k);
      outside += z < lo - slack || z > hi + slack;
    }
  if (outside == 0)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "the reference holds z %.2f … %.2f mm, but %u of the image's %u slices (z %.2f … %.2f mm) lie "
               "outside it: metrics would count them as empty; reconstruct the slices it holds, or give "
               "no reference", lo, hi, outside, grid->nz,
               MIN (ctr_grid_z (grid, 0), ctr_grid_z (grid, grid->nz - 1)),
               MAX (ctr_grid_z (grid, 0), ctr_grid_z (grid, grid->nz - 1)));
  return FALSE;
}

gboolean
ctr_reference_check (const CtrVolume *reference, GError **error)
{
  const CtrGrid *g = &reference->grid;
  const gsize n = ctr_grid_size (g);
  float lo = INFINITY, hi = -INFINITY;
  for (gsize i = 0; i < n; i++)
    {
      const float v = reference->data[i];
      if (!isfinite (v))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "the reference holds a non-finite value (NaN or infinity) at voxel %" G_GSIZE_FORMAT, i);
          return FALSE;
        }
      lo = MIN (lo, v);
      hi = MAX (hi, v);
    }
  if (!(hi > lo))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the reference is constant (%g) on the image's grid of %u × %u × %u voxels of %g mm: "
                   "PSNR and SSIM against it are undefined; choose a grid that covers more of it, or no "
                   "reference", hi, g->nx, g->ny, g->nz, g->dx);
      return FALSE;
    }
  if (g->nx < 11 || g->ny < 11)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "an image of %u × %u pixels is smaller than SSIM's 11 × 11 window: no metrics against "
                   "a reference (give a larger image, or no reference)", g->nx, g->ny);
      return FALSE;
    }
  return TRUE;
}

void
ctr_iter_stats_set_quality (CtrIterStats *stats, const CtrVolume *img,
                            const CtrVolume *reference, double radius_mm)
{
  CtrQuality q;
  stats->rmse = stats->psnr = stats->ssim = NAN;
  /* Out of memory for the metrics' buffers: no figures this iteration
   * (has_reference FALSE), the run goes on. */
  stats->has_reference = reference != NULL && ctr_quality_compute (img, reference, radius_mm, &q, NULL);
  if (stats->has_reference)
    {
      stats->rmse = q.rmse;
      stats->psnr = q.psnr;
      stats->ssim = q.ssim;
    }
}
