/* ctr-cuda-fdk.h — cone-beam FDK on the GPU, GLib side (no CUDA header,
 * no GTK).  Kernels and streaming: ctr-cuda-fdk.cu (see its header comment
 * and ctr-cuda-api.h).  Registered as the FDK of the "cuda" backend
 * (ctr_backend_register_fdk), so ctr_reconstruct of a cone-beam scan with
 * method fdk runs here when CtrReconOptions.backend selects "cuda" (or
 * "best" with a device) and falls back to the CPU's ctr_fdk_run otherwise.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "analytic/ctr-fdk.h"
#include "ctr-cuda-api.h"

G_BEGIN_DECLS

/**
 * CtrCudaFdkOptions:
 * @kernel: CTR_CUDA_FDK_AUTO (iFDK Table 4 rule), _L1TRAN or _TEXTURE;
 *   the environment variable CTR_CUDA_FDK_KERNEL=l1tran|texture overrides AUTO.
 * @max_slab_nz: at most this many slices per device slab (0: as free
 *   memory allows); for tests of the slab split.
 * @view_batch: views per streamed filtering batch, a power of two ≤ 64
 *   (0: 32); anything else is CTR_ERROR_INVALID_ARGUMENT.
 */
typedef struct {
  CtrCudaFdkKernel kernel;
  guint max_slab_nz;
  guint view_batch;
} CtrCudaFdkOptions;

/**
 * ctr_cuda_fdk_run:
 * @g, @p, @grid, @window, @cutoff: as ctr_fdk_run (core/analytic/ctr-fdk.h).
 * @opt: (nullable): defaults when NULL.
 * @times: (out) (optional): device seconds of filtering, back-projection and
 *   transfers, wall seconds in total, slabs and the kernel that ran.
 *
 * ctr_fdk_run on this process's device (device 0; under mpirun its
 * node-local rank's, ctr_cuda_device_set_local_rank): the same weights (ctr_fdk_weights), the same ramp
 * filter (the impulse response of core's CtrRampFilter, applied with cuFFT)
 * and the same back-projection formula (bilinear, samples outside the
 * panel 0, weight (SOD/U)²), evaluated in float from P_grid rounded to
 * float where the CPU uses double — equal to the CPU's result up to that
 * rounding (L1-Tran) and the texture unit's 8-bit interpolation weights
 * (texture).
 * Returns: (transfer full): the volume [z][y][x] (unit 1/mm, or 1/pixel),
 *   or NULL with the errors of ctr_fdk_run, CTR_ERROR_BACKEND_UNAVAILABLE
 *   (no device, a failed CUDA/cuFFT call, a geometry whose matrices depend
 *   on z in the column), CTR_ERROR_OUT_OF_MEMORY (too little device
 *   memory for the filtered projections, the FFT buffers and one slice) or
 *   CTR_ERROR_INVALID_ARGUMENT (@opt's view_batch).
 */
CtrVolume *ctr_cuda_fdk_run (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                             CtrFilterWindow window, double cutoff, const CtrCudaFdkOptions *opt,
                             CtrCudaFdkTimes *times, GCancellable *cancellable, GError **error);

/**
 * ctr_cuda_fdk_run_views:
 * @g: the whole scan's cone geometry.
 * @first_view: @p holds the @p->n_views (≥ 1) consecutive views
 *   @first_view … of @g, [view][row][col] line integrals.
 * @grid: any grid: the whole volume's or a z-slab of it
 *   (ctr_fdk_backproject's "any grid").
 *
 * ctr_cuda_fdk_run of a part of the views into a part of the volume (one
 * MPI rank's view group and z-slab, iFDK §4.1.1, mpi/ctr-mpi-fdk.c): the
 * views are weighted as views of @g (Δβ and the redundancy weights of the
 * whole scan, as ctr_fdk_filter_views), so the volumes of consecutive view
 * parts sum to the whole's, and the volumes of z-slabs are its slices.  On
 * the device this process uses (ctr_cuda_device_set_local_rank).
 * Returns: (transfer full): the volume on @grid, or NULL with the errors of
 *   ctr_cuda_fdk_run (CTR_ERROR_INVALID_ARGUMENT also for views outside @g).
 */
CtrVolume *ctr_cuda_fdk_run_views (const CtrGeometry *g, guint first_view, const CtrProjections *p,
                                   const CtrGrid *grid, CtrFilterWindow window, double cutoff,
                                   const CtrCudaFdkOptions *opt, CtrCudaFdkTimes *times,
                                   GCancellable *cancellable, GError **error);

G_END_DECLS
