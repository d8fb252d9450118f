/* ctr-cuda-fly-vecops.c — the GPU on-the-fly operator's vector operations
 * (core/sysmat/ctr-vecops.h; issue 37): CGLS, PWLS and ASD-POCS keep image,
 * data, weights and work vectors in device memory for the whole run.  The
 * arithmetic is the device's shared table (ctr-cuda-vecops.h); the products
 * and subset steps run the kernels of ctr-cuda-fly.cu on the vectors
 * themselves (no copy), on the session's stream.  The native image is the
 * natural one, so the penalties and the TV descent need no permutation.
 */
#include "ctr-cuda-fly.h"
#include "ctr-cuda-vecops.h"
#include "ctr-cuda.h"
#include "base/ctr-error.h"

static CtrCudaFly *
session_of (const CtrVecs *vs)
{
  return ((CtrCudaVecState *) vs->priv)->session;
}

static gboolean
fly_vec_begin (CtrVecs *vs, GError **error)
{
  CtrCudaFly *f = ctr_cuda_fly_op_session (vs->op);
  return ctr_cuda_vecs_begin_on (vs, ctr_cuda_fly_stream (f), f, error);
}

static gboolean
fly_vec_forward (CtrVecs *vs, guint subset, const CtrVec *X, CtrVec *Y, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_fly_forward (session_of (vs), ctr_cuda_fly_subset (subset), ctr_cuda_vec_ptr (X),
                                      ctr_cuda_vec_ptr (Y), NULL, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
fly_vec_adjoint (CtrVecs *vs, guint subset, const CtrVec *Y, CtrVec *D, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_fill (((CtrCudaVecState *) vs->priv)->dev, ctr_cuda_vec_ptr (D), D->n, 0.f,
                                   CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_adjoint (session_of (vs), ctr_cuda_fly_subset (subset), ctr_cuda_vec_ptr (Y),
                                      ctr_cuda_vec_ptr (D), CTR_CUDA_ERR));
  return TRUE;
}

/* The fused subset step (ctr-operator.h's update) on the device's vectors:
 * the session's Y, R, D and CS buffers as work space. */
static gboolean
fly_vec_update (CtrVecs *vs, guint subset, CtrVec *X, const CtrVec *B, const CtrVec *coef, float step, CtrVec *D,
                CtrUpdateFlags flags, GError **error)
{
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the GPU's on-the-fly operator has no ray-sequential "
                   "update (ART runs on the CPU)");
      return FALSE;
    }
  CtrCudaFly *f = session_of (vs);
  const guint s = ctr_cuda_fly_subset (subset);
  float *y = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_Y), *r = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_R);
  float *d = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_D), *cs = ctr_cuda_fly_buffer (f, CTR_CUDA_FLY_CS);
  CTR_CUDA_TRY (ctr_cuda_fly_forward (f, s, ctr_cuda_vec_ptr (X), y, NULL, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_residual (f, s, step, ctr_cuda_vec_ptr (B), ctr_cuda_vec_ptr (coef), y, r,
                                       CTR_CUDA_ERR));
  if (D != NULL)
    {
      /* D += A_Sᵀ r: the adjoint adds into the vector itself */
      CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, r, ctr_cuda_vec_ptr (D), CTR_CUDA_ERR));
      return TRUE;
    }
  const gboolean scaled = (flags & CTR_UPDATE_COLUMN_SCALE) != 0;
  CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, r, d, CTR_CUDA_ERR));
  if (scaled)
    {
      CTR_CUDA_TRY (ctr_cuda_fly_zero (f, CTR_CUDA_FLY_CS, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_fly_adjoint (f, s, NULL, cs, CTR_CUDA_ERR));
    }
  CTR_CUDA_TRY (ctr_cuda_fly_apply (f, scaled ? 1 : 0, (flags & CTR_UPDATE_NONNEG) != 0, ctr_cuda_vec_ptr (X), d, cs,
                                    CTR_CUDA_ERR));
  return TRUE;
}

/* The adjoint is consistent as it lands: nothing to reduce. */
static gboolean
fly_vec_reduce (CtrVecs *vs, CtrVec *D, GError **error)
{
  return TRUE;
}

const CtrVecOps ctr_cuda_fly_vecops = {
  .name = "cuda-fly",
  CTR_CUDA_VECOPS_SHARED,
  .begin = fly_vec_begin,
  .end = ctr_cuda_vecs_end,
  .forward = fly_vec_forward,
  .adjoint = fly_vec_adjoint,
  .update = fly_vec_update,
  .reduce = fly_vec_reduce,
};
