/* ctr-cuda-quality-api.h — the plain C boundary of the metrics against a
 * reference on the device (ctr-cuda-quality.cu; the GLib side is
 * ctr-cuda-quality.c; issue 37): the reference stays in device memory for
 * the run, each measurement brings back two doubles a slice.  Status codes
 * and @err as in ctr-cuda-api.h.
 */
#pragma once

#include <stddef.h>
#include "ctr-cuda-api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SSIM's Gaussian window: 2 · 5 + 1 taps (core/quality/ctr-metrics.c). */
#define CTR_CUDA_SSIM_RADIUS 5
#define CTR_CUDA_SSIM_TAPS (2 * CTR_CUDA_SSIM_RADIUS + 1)

typedef struct CtrCudaQuality CtrCudaQuality;

/**
 * ctr_cuda_quality_create:
 * Uploads (blocking) what the metrics of stacks of @nz slices of @nx × @ny
 * pixels ([z][y][x], x fastest) need: the reference @ref (nx·ny·nz floats),
 * the disc @mask (nx·ny floats, 1 inside, 0 outside; NULL: every pixel),
 * SSIM's per-slice offsets @offset (nz doubles: the reference slice's mean,
 * about which the moments are taken) and window @w (CTR_CUDA_SSIM_TAPS
 * weights summing to 1).  Queued on @stream (a cudaStream_t, not owned).
 * Returns: CTR_CUDA_NO_MEMORY with the sizes when the device lacks the
 *   memory, CTR_CUDA_UNAVAILABLE on a failed call.
 */
CtrCudaStatus ctr_cuda_quality_create (void *stream, const float *ref, const float *mask, const double *offset,
                                       const double *w, unsigned nx, unsigned ny, unsigned nz, CtrCudaQuality **out,
                                       char *err);
void ctr_cuda_quality_destroy (CtrCudaQuality *q);

/**
 * ctr_cuda_quality_measure:
 * For each slice z of the natural image @x (device memory, the
 * reference's shape), with x set to 0 outside the disc:
 * @ssd[z] = Σ (x − r)² over the disc's pixels, and, when @c1 and @c2 are
 * not 0, @ssim_sum[z] = Σ over the pixels at least 5 from every border of
 * Wang, Bovik, Sheikh & Simoncelli's SSIM map (IEEE TIP 13(4), 2004,
 * Eq. 13; §III.B's Gaussian window, separable, rows then columns, in
 * double, moments about @offset[z]): S = (2μxμr + C1)(2σxr + C2) /
 * ((μx² + μr² + C1)(σx² + σr² + C2)); 0 otherwise.  Waits for the stream;
 * 2·nz doubles come back.
 */
CtrCudaStatus ctr_cuda_quality_measure (CtrCudaQuality *q, const float *x, double c1, double c2, double *ssd,
                                        double *ssim_sum, char *err);

#ifdef __cplusplus
}
#endif
