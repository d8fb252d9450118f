/* ctr-cuda-quality.c — GLib glue of the metrics against a reference on the
 * device (ctr-cuda-quality.cu; core/sysmat/ctr-vecops.h's set_reference
 * and quality entries of every device table): the reference, its disc and
 * SSIM's per-slice offsets go up once a run; each measurement brings back
 * two doubles a slice, which core/quality/ctr-metrics.c turns into RMSE,
 * PSNR and SSIM (ctr_quality_from_slices). */
#include "ctr-cuda-vecops.h"
#include "ctr-cuda.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "quality/ctr-metrics.h"

G_STATIC_ASSERT (CTR_SSIM_TAPS == CTR_CUDA_SSIM_TAPS);

/* The reference slices' means (SSIM's offsets, summed as ctr_metrics_ssim_full
 * sums them) into @off (nz doubles). */
static void
slice_means (const CtrVolume *reference, double *off)
{
  const CtrGrid *g = &reference->grid;
  const gsize per = ctr_grid_slice_size (g);
  for (guint z = 0; z < g->nz; z++)
    {
      const float *r = ctr_volume_slice (reference, z);
      double sum = 0.0;
      for (gsize i = 0; i < per; i++)
        sum += r[i];
      off[z] = sum / (double) per;
    }
}

gboolean
ctr_cuda_vecop_set_reference (CtrVecs *vs, const CtrVolume *reference, double radius_mm, GError **error)
{
  CtrCudaVecState *s = vs->priv;
  const CtrGrid *g = &vs->op->grid;
  g_return_val_if_fail (reference != NULL && ctr_grid_equal (&reference->grid, g), FALSE);
  ctr_cuda_quality_destroy (s->quality);
  s->quality = NULL;
  const gsize per = ctr_grid_slice_size (g);
  g_autofree float *mask = NULL;
  g_autofree double *off = ctr_memory_try_new (MAX (g->nz, 1), sizeof (double), FALSE,
                                              "the reference slices' means", error);
  if (off == NULL)
    return FALSE;
  if (radius_mm > 0)
    {
      g_autofree guint8 *disc = ctr_metrics_disc_mask (g, radius_mm, error);
      if (disc == NULL
          || (mask = ctr_memory_try_new (MAX (per, 1), sizeof (float), FALSE, "the metrics' disc", error)) == NULL)
        return FALSE;
      for (gsize i = 0; i < per; i++)
        mask[i] = disc[i] ? 1.f : 0.f;
    }
  slice_means (reference, off);
  double w[CTR_SSIM_TAPS], c1, c2;
  ctr_metrics_ssim_window (g->nx, g->ny, 1.0, w, &c1, &c2);
  CTR_CUDA_TRY (ctr_cuda_quality_create (ctr_cuda_vecs_stream (s->dev), reference->data, mask, off, w, g->nx, g->ny,
                                         g->nz, &s->quality, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_quality (CtrVecs *vs, const CtrVec *X, double data_range, double *ssd, double *ssim_sum,
                        GError **error)
{
  CtrCudaVecState *s = vs->priv;
  const CtrGrid *g = &vs->op->grid;
  g_return_val_if_fail (s->quality != NULL, FALSE);
  double w[CTR_SSIM_TAPS], c1, c2;
  ctr_metrics_ssim_window (g->nx, g->ny, data_range, w, &c1, &c2);
  const float *x = ctr_cuda_vecs_natural_of (vs, X, error);
  if (x == NULL)
    return FALSE;
  CTR_CUDA_TRY (ctr_cuda_quality_measure (s->quality, x, c1, c2, ssd, ssim_sum, CTR_CUDA_ERR));
  return TRUE;
}
