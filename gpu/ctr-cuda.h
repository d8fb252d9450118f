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
#include "plan/ctr-backend.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-sysmat.h"
#include "ctr-cuda-api.h"

G_BEGIN_DECLS

/**
 * ctr_cuda_probe:
 * The name, memory and peak bandwidth of the device this process uses
 * (device 0, or under mpirun its node-local rank's: ctr_cuda_device_set_local_rank); the answer (and the reason
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
/* As ctr_cuda_scsr_apply and _adjoint, walking the orbit-level blocked
 * layout (ctr-blocking.h, CTR_BLOCKING_ORBIT; cuART Algorithm 2: one thread
 * per blocked row, ctr-cuda-blocked.cu) instead of the stored rows.  The
 * operator (ctr_cuda_op_new) walks the layout CTR_CUDA_KERNEL=rows|blocked
 * names, by default the one gpu/README.md's traffic model chose. */
gboolean ctr_cuda_scsr_apply_blocked (const CtrScsr *m, const float *x, float *y, guint n_slices, GError **error);
gboolean ctr_cuda_scsr_apply_adjoint_blocked (const CtrScsr *m, const float *y, float *x, guint n_slices,
                                              GError **error);
/* cuSPARSE SpMV and transposed SpMV on the CSR matrix @a. */
gboolean ctr_cuda_csr_apply (const CtrSysmat *a, const float *x, float *y, guint n_slices, GError **error);
gboolean ctr_cuda_csr_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint n_slices, GError **error);

/**
 * ctr_cuda_op_new:
 * The SCSR matrix @m as an operator on the device (ctr-operator.h): whole
 * passes of parallel ART, SART and SIRT on the SCSR orbit kernel (@cusparse
 * FALSE, "cuda-scsr"), or parallel ART on the expanded CSR matrix with
 * cuSPARSE (@cusparse TRUE, "cusparse-csr"; the CSR matrix is built on first
 * use with ctr_sysmat_build), with the same orbit subsets.  The pass brings
 * back the residual (two doubles) when asked, and the image when the driver
 * reports.  Whole forward and adjoint products run on sessions of their own.
 * "cuda-scsr"'s class has a vector table (ctr-cuda-scsr-op.h): CGLS, PWLS
 * and ASD-POCS keep their vectors in device memory for the run.
 * Returns: (transfer full): the operator, or NULL with
 *   CTR_ERROR_BACKEND_UNAVAILABLE (no device) or CTR_ERROR_INVALID_ARGUMENT
 *   (@m built for another geometry or grid).
 */
CtrOperator *ctr_cuda_op_new (CtrScsr *m, gboolean cusparse, const CtrGeometry *g, const CtrGrid *grid,
                              GError **error);

/**
 * CtrCudaSelfCheck:
 * The run-time self-check of the CUDA backend (ctr-cuda-selfcheck.c): a
 * small known problem on the device and on the CPU, compared.
 * @ran: a device answered and the check ran.
 * @passed: every difference within its tolerance.
 * @forward, @adjoint: the operator's products, max |GPU − CPU| / max |CPU|.
 * @solver: 3 iterations of parallel ART, the same measure on the image.
 * @fdk_l1tran, @fdk_texture: the FDK volume, relative L2 difference.
 * @cone_forward, @cone_adjoint: the cone-beam projector pair's products
 *   (ctr-cuda-cone.h), max |GPU − CPU| / max |CPU|.
 * @tol_*: the tolerances of tests/test-gpu.c and tests/test-gpu-fdk.c.
 * @seconds: wall time of the check.
 * @reason: why it did not pass, or did not run.
 */
typedef struct {
  gboolean ran, passed;
  double forward, adjoint, solver, fdk_l1tran, fdk_texture, cone_forward, cone_adjoint;
  double tol_products, tol_solver, tol_fdk_l1tran, tol_fdk_texture;
  double seconds;
  char reason[256];
} CtrCudaSelfCheck;

/**
 * ctr_cuda_selfcheck:
 * Runs the self-check the first time a process asks (the backends' probes
 * ask before anything runs on the device), then answers from the cache.
 * A check that fails makes "cuda" and "cusparse" unavailable with the
 * reason: the plan runs the CPU and its notes say why.
 * Returns: (transfer none): the result, valid for the process.
 */
const CtrCudaSelfCheck *ctr_cuda_selfcheck (void);
/* The result in lines for people: (transfer full). */
char *ctr_cuda_selfcheck_report (const CtrCudaSelfCheck *r);

/* @st (from a function of ctr-cuda-api.h) as a GError: TRUE for
 * CTR_CUDA_OK; else FALSE with CTR_ERROR_OUT_OF_MEMORY (CTR_CUDA_NO_MEMORY),
 * CTR_ERROR_INVALID_ARGUMENT (CTR_CUDA_INVALID) or
 * CTR_ERROR_BACKEND_UNAVAILABLE, the message "CUDA: " + @err. */
gboolean ctr_cuda_status_error (CtrCudaStatus st, const char *err, GError **error);

/* CTR_CUDA_TRY (call): runs a device call that takes CTR_CUDA_ERR (its
 * message buffer) and returns ctr_cuda_status_error's FALSE from the
 * calling function, whose GError ** is named `error`, when it failed. */
#define CTR_CUDA_TRY(call)                                       \
  do {                                                           \
    char err_[CTR_CUDA_ERR_LEN] = "";                            \
    CtrCudaStatus st_ = (call);                                  \
    if (st_ != CTR_CUDA_OK)                                      \
      return ctr_cuda_status_error (st_, err_, error);           \
  } while (0)
#define CTR_CUDA_ERR err_

/* Registers "cuda" and "cusparse" with ctr_backend_register (also done by a
 * constructor of this library; calling it again is harmless). */
void ctr_cuda_backend_register (void);

G_END_DECLS
