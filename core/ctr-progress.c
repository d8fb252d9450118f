/* ctr-progress.c — filling CtrIterStats the same way for every method
 * (see ctr-progress.h). */
#include "ctr-progress.h"
#include "ctr-metrics.h"

#include <math.h>

void
ctr_iter_report_single_pass (CtrMethod method, const CtrVolume *img, const CtrVolume *reference,
                             double radius_mm, double seconds, CtrIterFunc callback, gpointer user_data)
{
  if (callback == NULL)
    return;
  CtrIterStats st = { 0 };
  st.method = method;
  st.iteration = st.n_iterations = 1;
  st.elapsed_s = st.iteration_s = seconds;
  st.residual = st.data_sq = NAN;
  ctr_iter_stats_set_quality (&st, img, reference, radius_mm);
  st.image = img;
  callback (&st, user_data);
}

void
ctr_iter_stats_set_quality (CtrIterStats *stats, const CtrVolume *img,
                            const CtrVolume *reference, double radius_mm)
{
  CtrQuality q;
  stats->rmse = stats->psnr = stats->ssim = NAN;
  stats->has_reference = reference != NULL && ctr_quality_compute (img, reference, radius_mm, &q);
  if (stats->has_reference)
    {
      stats->rmse = q.rmse;
      stats->psnr = q.psnr;
      stats->ssim = q.ssim;
    }
}
