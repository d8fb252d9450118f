/* ctr-cuda.h — the CUDA backend's C interface (GLib side; no CUDA header,
 * no GTK).  Kernels: ctr-cuda-scsr.cu (SCSR orbit pass), ctr-cuda-csr.cu
 * (cuSPARSE baseline); device detection: ctr-cuda-device.cu.
 *
 * Errors: CTR_ERROR_BACKEND_UNAVAILABLE (no driver, no device, a failed CUDA
 * or cuSPARSE call, with its name and CUDA's message) and
 * CTR_ERROR_OUT_OF_MEMORY (too little free device memory, with the sizes).
 * Device memory is freed on every path.
 */
#pragma once

#include <glib.h>
#include "ctr-backend.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-sysmat.h"
#include "ctr-cuda-api.h"

G_BEGIN_DECLS

/**
 * ctr_cuda_probe:
 * Device 0's name, memory and peak bandwidth; the answer (and the reason
 * when there is none) is found once per process and cached.
 * Returns: FALSE with CTR_ERROR_BACKEND_UNAVAILABLE ("no CUDA driver", "no
 *   CUDA device", compute capability below 8.0).
 */
gboolean ctr_cuda_probe (CtrCudaDeviceInfo *info, GError **error);

/* Products on the device in the standard layouts of ctr-scsr.h / ctr-sysmat.h
 * (x [s][pixel], y [s][view·n_cols + col]); for tests: equal to
 * ctr_scsr_apply / ctr_scsr_apply_adjoint up to float rounding. */
gboolean ctr_cuda_scsr_apply (const CtrScsr *m, const float *x, float *y, guint n_slices, GError **error);
gboolean ctr_cuda_scsr_apply_adjoint (const CtrScsr *m, const float *y, float *x, guint n_slices, GError **error);
/* As ctr_cuda_scsr_apply, walking the view-level blocked layout
 * (ctr-blocking.h; cuART Algorithm 2: one thread per blocked row); *ms
 * (nullable): device time of the product's kernels. */
gboolean ctr_cuda_scsr_apply_blocked (const CtrScsr *m, const float *x, float *y, guint n_slices,
                                      double *ms, GError **error);
/* cuSPARSE SpMV and transposed SpMV on the CSR matrix @a. */
gboolean ctr_cuda_csr_apply (const CtrSysmat *a, const float *x, float *y, guint n_slices, GError **error);
gboolean ctr_cuda_csr_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint n_slices, GError **error);

/**
 * ctr_cuda_run_scsr:
 * ctr_solver_run_scsr on the GPU: parallel ART, SART or SIRT with orbit
 * subsets on the SCSR kernel (@cusparse FALSE), or parallel ART on the
 * expanded CSR matrix with cuSPARSE (@cusparse TRUE; the CSR matrix is built
 * here with ctr_sysmat_build).  The set-up (lane-ordered data, step
 * coefficients with the orbit's sparsity bound, SART/SIRT column sums) is the
 * CPU solver's, done once on the host; the iterations run on the device and
 * bring back the residual (two doubles) per iteration, and the image after
 * every iteration when @reference is set (RMSE/SSIM need it), else after
 * the first, every 5th and the last (CtrIterStats.image is the last one
 * brought back).  CtrIterStats.iteration_s is the device time of the
 * update (cudaEvent), without the residual.
 * Returns: (transfer full): as ctr_solver_run_scsr, plus
 *   CTR_ERROR_BACKEND_UNAVAILABLE / CTR_ERROR_OUT_OF_MEMORY from the device.
 */
CtrVolume *ctr_cuda_run_scsr (const CtrScsr *m, gboolean cusparse, const CtrGeometry *g,
                              const CtrProjections *p, const CtrGrid *grid,
                              const CtrReconOptions *options, const CtrVolume *reference,
                              CtrIterFunc callback, gpointer user_data,
                              GCancellable *cancellable, GError **error);

/* Registers "cuda" and "cusparse" with ctr_backend_register (also done by a
 * constructor of this library; calling it again is harmless). */
void ctr_cuda_backend_register (void);

G_END_DECLS
