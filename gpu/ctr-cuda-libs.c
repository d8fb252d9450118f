/* ctr-cuda-libs.c — ctr_cuda_lib_require: the run-time loader of
 * ctr-cuda-libs.cu called once per library and process, its answer kept. */
#include "ctr-cuda-libs.h"

#include "base/ctr-error.h"

static struct {
  gsize once;
  CtrCudaStatus status;
  char err[CTR_CUDA_ERR_LEN];
} libs[2];

gboolean
ctr_cuda_lib_require (CtrCudaLib lib, GError **error)
{
  if ((unsigned) lib >= G_N_ELEMENTS (libs))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "no CUDA library %d", (int) lib);
      return FALSE;
    }
  if (g_once_init_enter (&libs[lib].once))
    {
      libs[lib].status = ctr_cuda_lib_load (lib, libs[lib].err);
      g_once_init_leave (&libs[lib].once, 1);
    }
  if (libs[lib].status == CTR_CUDA_OK)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "%s", libs[lib].err);
  return FALSE;
}
