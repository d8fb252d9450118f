/* ctr-cuda-cone-vecops.c — the cone-beam operator's vector operations
 * (core/sysmat/ctr-vecops.h): CGLS, PWLS and ASD-POCS keep image, data,
 * weights and work vectors in device memory for the whole run.  The
 * products run on the operator's session (ctr-cuda-cone.cu): a vector goes
 * into the session's buffer and the result out of it by device-to-device
 * copies on the session's stream, so nothing crosses PCIe but the inner
 * products' doubles and, for a report, what it shows (the driver's sync:
 * the image, or one slice under CTR_REPORT_SLICE).
 */
#include "ctr-cuda-cone.h"
#include "ctr-cuda-vecops.h"
#include "ctr-cuda.h"
#include "base/ctr-error.h"


static CtrCudaCone *
session_of (const CtrVecs *vs)
{
  return ((CtrCudaVecState *) vs->priv)->session;
}

static gboolean
cone_vec_begin (CtrVecs *vs, GError **error)
{
  CtrCudaCone *c = ctr_cuda_cone_op_session (vs->op);
  return ctr_cuda_vecs_begin_on (vs, ctr_cuda_cone_stream (c), c, error);
}

/* The rays of @subset: floats [*o, *o + *n) of the data, views [*v0, *v0 + *nv). */
static void
subset_range (const CtrVecs *vs, guint subset, guint *v0, guint *nv, gsize *o, gsize *n)
{
  const CtrOperator *op = vs->op;
  const gsize per_view = op->data_size / op->n_subsets;
  *v0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *nv = subset == CTR_SUBSET_ALL ? op->n_subsets : 1;
  *o = per_view * *v0;
  *n = per_view * *nv;
}

static gboolean
cone_vec_forward (CtrVecs *vs, guint subset, const CtrVec *X, CtrVec *Y, GError **error)
{
  CtrCudaCone *c = session_of (vs);
  guint v0, nv;
  gsize o, n;
  subset_range (vs, subset, &v0, &nv, &o, &n);
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_X, 0, X->dev, X->n, 1, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_forward (c, v0, nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_Y, o, ctr_cuda_vec_ptr (Y) + o, n, 0, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
cone_vec_adjoint (CtrVecs *vs, guint subset, const CtrVec *Y, CtrVec *D, GError **error)
{
  CtrCudaCone *c = session_of (vs);
  guint v0, nv;
  gsize o, n;
  subset_range (vs, subset, &v0, &nv, &o, &n);
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_R, o, ctr_cuda_vec_ptr (Y) + o, n, 1, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_zero (c, CTR_CUDA_CONE_D, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c, v0, nv, 0, 0, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_D, 0, D->dev, D->n, 0, CTR_CUDA_ERR));
  return TRUE;
}

/* The fused subset step (ctr-operator.h's update) on the device's vectors. */
static gboolean
cone_vec_update (CtrVecs *vs, guint subset, CtrVec *X, const CtrVec *B, const CtrVec *coef, float step, CtrVec *D,
                 CtrUpdateFlags flags, GError **error)
{
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "the cone-beam operator has no ray-sequential update");
      return FALSE;
    }
  CtrCudaCone *c = session_of (vs);
  guint v0, nv;
  gsize o, n;
  subset_range (vs, subset, &v0, &nv, &o, &n);
  const gboolean scaled = D == NULL && (flags & CTR_UPDATE_COLUMN_SCALE);
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_X, 0, X->dev, X->n, 1, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_B, o, ctr_cuda_vec_ptr (B) + o, n, 1, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_COEF, o, ctr_cuda_vec_ptr (coef) + o, n, 1, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_forward (c, v0, nv, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_residual (c, v0, nv, step, CTR_CUDA_ERR));
  if (D != NULL)
    {
      /* D += A_Sᵀ r: the sum goes on in the session's D */
      CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_D, 0, D->dev, D->n, 1, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c, v0, nv, 0, 0, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_D, 0, D->dev, D->n, 0, CTR_CUDA_ERR));
      return TRUE;
    }
  CTR_CUDA_TRY (ctr_cuda_cone_zero (c, CTR_CUDA_CONE_D, CTR_CUDA_ERR));
  if (scaled)
    CTR_CUDA_TRY (ctr_cuda_cone_zero (c, CTR_CUDA_CONE_CS, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_adjoint (c, v0, nv, 0, scaled, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_apply (c, scaled ? 1 : 0, (flags & CTR_UPDATE_NONNEG) != 0, CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_cone_exchange (c, CTR_CUDA_CONE_X, 0, X->dev, X->n, 0, CTR_CUDA_ERR));
  return TRUE;
}

/* The cone pair's adjoint is consistent as it lands: nothing to reduce. */
static gboolean
cone_vec_reduce (CtrVecs *vs, CtrVec *D, GError **error)
{
  return TRUE;
}

const CtrVecOps ctr_cuda_cone_vecops = {
  .name = "cuda-cone",
  CTR_CUDA_VECOPS_SHARED,
  .begin = cone_vec_begin,
  .end = ctr_cuda_vecs_end,
  .forward = cone_vec_forward,
  .adjoint = cone_vec_adjoint,
  .update = cone_vec_update,
  .reduce = cone_vec_reduce,
};
