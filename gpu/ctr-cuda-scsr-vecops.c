/* ctr-cuda-scsr-vecops.c — the fan/parallel SCSR operator's vector
 * operations (core/sysmat/ctr-vecops.h; issue 37): CGLS, PWLS and ASD-POCS
 * keep image, data, weights and work vectors in device memory for the whole
 * run.  The arithmetic is the device's shared table (ctr-cuda-vecops.h);
 * this file adds the products and subset steps on the operator's product
 * session (ctr-cuda-scsr.cu): a vector goes into the session's buffers and
 * the result out of them by device-to-device copies on the session's
 * stream, so nothing crosses PCIe per subset but the inner products'
 * doubles (and, for a report, the image: the driver's sync).
 *
 * The native image is the packed one (X[rep][slice][K], ctr-scsr.h), not
 * the natural [z][y][x]: the penalties and the TV descent run on natural
 * copies through the permutation both ways (ctr_cuda_vecs_set_layout),
 * made here from the matrix's symmetry as ctr_scsr_pack / _unpack do it.
 * The acquired-lane mask (the adjoint's coefficients) and the inverse
 * column sums (COLUMN_SCALE) go up once for the run.
 */
#include "ctr-cuda-scsr-op.h"
#include "ctr-cuda-vecops.h"
#include "ctr-cuda.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "sysmat/ctr-scsr-op.h"

/* The table's own state (CtrCudaVecState.table). */
typedef struct {
  float *mask;        /* data_size: 1 on acquired lanes, 0 on padding */
  float *inv_orbit;   /* [orbit][rep][K]: 1 / A_oᵀ1 (0 where 0), made on first scaled step */
  float *inv_all;     /* [rep][K]: 1 / Aᵀ1 over every orbit, made on first use */
} ScsrVecs;

static CtrCudaVecState *
state_of (const CtrVecs *vs)
{
  return vs->priv;
}

static CtrCudaScsr *
session_of (const CtrVecs *vs)
{
  return state_of (vs)->session;
}

static const CtrScsr *
matrix_of (const CtrVecs *vs)
{
  return ((const CtrScsrOpBase *) vs->op)->m;
}

/* A device array of @n floats holding @host (NULL with an error). */
static float *
upload_new (CtrVecs *vs, const float *host, gsize n, GError **error)
{
  CtrCudaVecs *d = state_of (vs)->dev;
  float *p = NULL;
  char err[CTR_CUDA_ERR_LEN] = "";
  CtrCudaStatus st = ctr_cuda_vec_alloc (d, n, &p, err);
  if (st == CTR_CUDA_OK)
    st = ctr_cuda_vec_upload (d, p, host, n, err);
  if (st == CTR_CUDA_OK)
    return p;
  ctr_cuda_vec_free (d, p);
  ctr_cuda_status_error (st, err, error);
  return NULL;
}

/* The permutation of ctr_scsr_pack / _unpack both ways, uploaded. */
static gboolean
set_layout (CtrVecs *vs, GError **error)
{
  const CtrOperator *op = vs->op;
  const CtrScsr *m = matrix_of (vs);
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), ns = op->n_slices;
  const gsize nat = ctr_grid_size (&op->grid), np = nat / MAX (ns, 1);
  if (nat > G_MAXUINT32 || op->image_size > G_MAXUINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "device-resident vectors index images of up to 2^32 floats (%" G_GSIZE_FORMAT " here)",
                   MAX (nat, op->image_size));
      return FALSE;
    }
  g_autofree guint32 *to_natural = ctr_memory_try_new (MAX (nat, 1), sizeof (guint32), FALSE,
                                                       "the natural image's index map", error);
  g_autofree guint32 *to_native = to_natural == NULL ? NULL
                                  : ctr_memory_try_new (MAX (op->image_size, 1), sizeof (guint32), FALSE,
                                                        "the packed image's index map", error);
  if (to_native == NULL)
    return FALSE;
  for (gsize p = 0; p < np; p++)
    for (guint s = 0; s < ns; s++)
      to_natural[s * np + p] = (guint32) (((gsize) sy->pixel_rep[p] * ns + s) * K + sy->pixel_slot[p]);
  for (guint r = 0; r < sy->n_reps; r++)
    for (guint s = 0; s < ns; s++)
      for (guint k = 0; k < K; k++)
        to_native[((gsize) r * ns + s) * K + k] = (guint32) (s * np + sy->rep_pixel[(gsize) r * K + k]);
  return ctr_cuda_vecs_set_layout (vs, to_natural, to_native, error);
}

static void
scsr_vec_end (CtrVecs *vs)
{
  CtrCudaVecState *s = vs->priv;
  if (s != NULL && s->table != NULL)
    {
      ScsrVecs *t = s->table;
      ctr_cuda_vec_free (s->dev, t->mask);
      ctr_cuda_vec_free (s->dev, t->inv_orbit);
      ctr_cuda_vec_free (s->dev, t->inv_all);
      g_free (t);
      s->table = NULL;
    }
  ctr_cuda_vecs_end (vs);
}

static gboolean
scsr_vec_begin (CtrVecs *vs, GError **error)
{
  CtrCudaScsr *d = ctr_cuda_op_product_session (vs->op, error);
  if (d == NULL || !ctr_cuda_vecs_begin_on (vs, ctr_cuda_scsr_stream (d), d, error))
    return FALSE;
  ScsrVecs *t = g_new0 (ScsrVecs, 1);
  state_of (vs)->table = t;
  t->mask = upload_new (vs, ctr_cuda_op_lane_mask (vs->op), vs->op->data_size, error);
  return t->mask != NULL && set_layout (vs, error);
}

/* The orbits of @subset: [*o0, *o0 + *n), floats [*off, *off + *len) of the data. */
static void
subset_range (const CtrVecs *vs, guint subset, guint *o0, guint *n, gsize *off, gsize *len)
{
  const CtrOperator *op = vs->op;
  const gsize per_orbit = op->data_size / op->n_subsets;
  *o0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *n = subset == CTR_SUBSET_ALL ? op->n_subsets : 1;
  *off = per_orbit * *o0;
  *len = per_orbit * *n;
}

/* A session buffer's device memory, checked to hold floats [0, @need). */
static float *
buffer (CtrVecs *vs, CtrCudaBuf which, gsize need, GError **error)
{
  size_t n = 0;
  float *p = ctr_cuda_scsr_buffer (session_of (vs), which, &n);
  if (p == NULL || n < need)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE,
                   "CUDA: the SCSR session's buffer %d holds %zu floats, %" G_GSIZE_FORMAT " needed", (int) which, n,
                   need);
      return NULL;
    }
  return p;
}

/* dst = src, @n floats, queued on the session's stream. */
static gboolean
move (CtrVecs *vs, float *dst, const float *src, gsize n, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_copy (state_of (vs)->dev, dst, src, n, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
scsr_vec_forward (CtrVecs *vs, guint subset, const CtrVec *X, CtrVec *Y, GError **error)
{
  guint o0, n;
  gsize off, len;
  subset_range (vs, subset, &o0, &n, &off, &len);
  float *sx = buffer (vs, CTR_CUDA_BUF_X, X->n, error), *ax = sx ? buffer (vs, CTR_CUDA_BUF_AX, Y->n, error) : NULL;
  if (ax == NULL || !move (vs, sx, X->dev, X->n, error))
    return FALSE;
  CTR_CUDA_TRY (ctr_cuda_scsr_forward_queue (session_of (vs), o0, n, CTR_CUDA_ERR));
  return move (vs, ctr_cuda_vec_ptr (Y) + off, ax + off, len, error);
}

/* The session's b and coef of the subset's orbits: @B's, and @coef's (NULL:
 * the acquired-lane mask) times @step. */
static gboolean
set_data (CtrVecs *vs, gsize off, gsize len, const CtrVec *B, const float *coef, float step, GError **error)
{
  float *sb = buffer (vs, CTR_CUDA_BUF_B, B->n, error), *sc = sb ? buffer (vs, CTR_CUDA_BUF_COEF, B->n, error) : NULL;
  if (sc == NULL || !move (vs, sb + off, ctr_cuda_vec_ptr (B) + off, len, error)
      || !move (vs, sc + off, coef + off, len, error))
    return FALSE;
  /* step · coef as the host operator forms it: 0·c + step·c = step·c */
  if (step != 1.f)
    CTR_CUDA_TRY (ctr_cuda_vec_axpby (state_of (vs)->dev, sc + off, 0.f, sc + off, step, len, CTR_CUDA_ERR));
  return TRUE;
}

static gboolean
scsr_vec_adjoint (CtrVecs *vs, guint subset, const CtrVec *Y, CtrVec *D, GError **error)
{
  guint o0, n;
  gsize off, len;
  subset_range (vs, subset, &o0, &n, &off, &len);
  const ScsrVecs *t = state_of (vs)->table;
  float *sx = buffer (vs, CTR_CUDA_BUF_X, D->n, error);
  if (sx == NULL || !set_data (vs, off, len, Y, t->mask, 1.f, error))
    return FALSE;
  CTR_CUDA_TRY (ctr_cuda_scsr_adjoint_orbits (session_of (vs), o0, n, CTR_CUDA_ERR));
  return move (vs, D->dev, sx, D->n, error);
}

/* The inverse column sums of @subset's orbits on the device (made on first use). */
static const float *
inverse_colsums (CtrVecs *vs, guint subset, GError **error)
{
  ScsrVecs *t = state_of (vs)->table;
  const CtrScsr *m = matrix_of (vs);
  const gsize p1 = ctr_scsr_packed_size (m, 1);
  float **slot = subset == CTR_SUBSET_ALL ? &t->inv_all : &t->inv_orbit;
  if (*slot == NULL)
    {
      const gsize n = subset == CTR_SUBSET_ALL ? p1 : p1 * vs->op->n_subsets;
      g_autofree float *h = ctr_memory_try_new (MAX (n, 1), sizeof (float), FALSE, "the column sums", error);
      if (h == NULL)
        return NULL;
      if (subset == CTR_SUBSET_ALL)
        {
          if (!ctr_scsr_column_sums_all (m, h, error))
            return NULL;
          for (gsize q = 0; q < n; q++)
            h[q] = h[q] > 0.f ? 1.f / h[q] : 0.f;
        }
      else if (!ctr_scsr_inverse_column_sums (m, h, error))
        return NULL;
      *slot = upload_new (vs, h, n, error);
      if (*slot == NULL)
        return NULL;
    }
  return subset == CTR_SUBSET_ALL ? *slot : *slot + p1 * subset;
}

/* One subset step (ctr-operator.h's update) on the device's vectors: as
 * the operator's own (ctr-cuda.c) with device copies for the transfers;
 * with @D the step's consistent update is added to @D on the device. */
static gboolean
scsr_vec_update (CtrVecs *vs, guint subset, CtrVec *X, const CtrVec *B, const CtrVec *coef, float step, CtrVec *D,
                 CtrUpdateFlags flags, GError **error)
{
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "%s: ray-by-ray updates run on the CPU only",
                   vs->op->klass->name);
      return FALSE;
    }
  CtrCudaScsr *d = session_of (vs);
  guint o0, n;
  gsize off, len;
  subset_range (vs, subset, &o0, &n, &off, &len);
  float *sx = buffer (vs, CTR_CUDA_BUF_X, X->n, error);
  if (sx == NULL || !set_data (vs, off, len, B, ctr_cuda_vec_ptr (coef), step, error)
      || !move (vs, sx, X->dev, X->n, error))
    return FALSE;
  if (D != NULL)
    {
      CTR_CUDA_TRY (ctr_cuda_scsr_step_orbits (d, o0, n, 0, 0, 0, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_vec_axpby (state_of (vs)->dev, D->dev, 1.f, sx, 1.f, D->n, CTR_CUDA_ERR));
      return TRUE;
    }
  const gboolean scaled = (flags & CTR_UPDATE_COLUMN_SCALE) != 0;
  if (scaled)
    {
      const gsize p1 = ctr_scsr_packed_size (matrix_of (vs), 1);
      const float *inv = inverse_colsums (vs, subset, error);
      float *ss = inv ? buffer (vs, CTR_CUDA_BUF_SCALE, p1, error) : NULL;
      if (ss == NULL || !move (vs, ss, inv, p1, error))
        return FALSE;
    }
  CTR_CUDA_TRY (ctr_cuda_scsr_step_orbits (d, o0, n, 1, scaled, (flags & CTR_UPDATE_NONNEG) != 0, CTR_CUDA_ERR));
  return move (vs, X->dev, sx, X->n, error);
}

/* Each step's update is consistent as it lands (ctr_cuda_scsr_step_orbits
 * sums the slots of one pixel): nothing to reduce. */
static gboolean
scsr_vec_reduce (CtrVecs *vs, CtrVec *D, GError **error)
{
  return TRUE;
}

const CtrVecOps ctr_cuda_scsr_vecops = {
  .name = "cuda-scsr",
  CTR_CUDA_VECOPS_SHARED,
  .begin = scsr_vec_begin,
  .end = scsr_vec_end,
  .forward = scsr_vec_forward,
  .adjoint = scsr_vec_adjoint,
  .update = scsr_vec_update,
  .reduce = scsr_vec_reduce,
};
