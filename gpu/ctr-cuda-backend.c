/* ctr-cuda-backend.c — the "cuda" and "cusparse" backends (ctr-backend.h):
 * available when a device answers (ctr_cuda_probe) and passes the self-check
 * (ctr-cuda-selfcheck.c); their operators are ctr_cuda_op_new's (ctr-cuda.c).
 * The top of gpu/: it calls the self-check, which calls the operators and
 * the FDK, which call the probe. */
#include "ctr-cuda.h"
#include "ctr-cuda-libs.h"

#include <string.h>

/* ----------------------------------------------------------- backends -- */

/* A device that answers, the libraries its paths call (cuFFT: the FDK and
 * the self-check; cuSPARSE for "cusparse"; loaded here, once a device
 * answered: ctr-cuda-libs.h), and a passed self-check (ctr-cuda-selfcheck.c). */
static gboolean
cuda_available (const CtrBackend *self, char **reason)
{
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e) || !ctr_cuda_lib_require (CTR_CUDA_LIB_CUFFT, &e)
      || (strcmp (self->name, "cusparse") == 0 && !ctr_cuda_lib_require (CTR_CUDA_LIB_CUSPARSE, &e)))
    {
      if (reason)
        *reason = g_strdup (e->message);
      return FALSE;
    }
  const CtrCudaSelfCheck *c = ctr_cuda_selfcheck ();
  if (c->passed)
    return TRUE;
  if (reason)
    *reason = g_strdup_printf ("the CUDA self-check failed: %s", c->reason);
  return FALSE;
}

static char *
cuda_self_check (const CtrBackend *self, gboolean *passed)
{
  const CtrCudaSelfCheck *c = ctr_cuda_selfcheck ();
  if (passed)
    *passed = c->passed;
  return ctr_cuda_selfcheck_report (c);
}

static CtrOperator *
cuda_scsr_operator (const CtrBackend *self, CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid,
                    GError **error)
{
  return ctr_cuda_op_new (m, strcmp (self->name, "cusparse") == 0, g, grid, error);
}

static char *
cuda_device_name (const CtrBackend *self)
{
  CtrCudaDeviceInfo info;
  if (!ctr_cuda_probe (&info, NULL))
    return NULL;
  return g_strdup_printf ("%s (device %d of %d), cc %d.%d, %.1f GiB, driver %d, runtime %d", info.name,
                          info.device, info.count, info.cc_major, info.cc_minor, info.total_bytes / 1073741824.0, info.driver_version,
                          info.runtime_version);
}

static double
cuda_peak_gbs (const CtrBackend *self)
{
  CtrCudaDeviceInfo info;
  return ctr_cuda_probe (&info, NULL) ? info.bandwidth_gbs : 0.0;
}

static const CtrBackend cuda_backend = {
  .name = "cuda",
  .description = "GPU, SCSR orbit kernel (warps per stored row, atomic transposed product), cone-beam Joseph pair, FDK",
  .priority = 100,
  .available = cuda_available,
  .scsr_operator = cuda_scsr_operator,
  /* PART, SART, SIRT: whole passes on the device (CtrOperatorPass); CGLS,
   * PWLS, ASD-POCS: the operator's products, subset steps and vector
   * arithmetic on the device, vectors kept there for the run
   * (ctr-cuda-scsr-vecops.c) */
  .methods = (1u << CTR_METHOD_PART) | (1u << CTR_METHOD_SART) | (1u << CTR_METHOD_SIRT)
             | (1u << CTR_METHOD_CGLS) | (1u << CTR_METHOD_PWLS) | (1u << CTR_METHOD_ASD_POCS),
  .device_name = cuda_device_name,
  .peak_bandwidth_gbs = cuda_peak_gbs,
  .self_check = cuda_self_check,
};

static const CtrBackend cusparse_backend = {
  .name = "cusparse",
  .description = "GPU baseline, cuSPARSE CSR SpMV + transposed SpMV (cuART's baseline; parallel ART only)",
  .priority = 50,
  .methods = 1u << CTR_METHOD_PART,
  .available = cuda_available,
  .scsr_operator = cuda_scsr_operator,
  .device_name = cuda_device_name,
  .peak_bandwidth_gbs = cuda_peak_gbs,
  .self_check = cuda_self_check,
};

void
ctr_cuda_backend_register (void)
{
  ctr_backend_register (&cuda_backend);
  ctr_backend_register (&cusparse_backend);
}

/* Runs before main() when the library is linked whole (gpu/meson.build):
 * only records the vtables; the device is probed on first use. */
__attribute__ ((constructor)) static void
ctr_cuda_backend_constructor (void)
{
  ctr_cuda_backend_register ();
}
