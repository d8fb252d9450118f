/* ctr-cuda-vecops.c — GLib glue of the device's vector operations (see
 * ctr-cuda-vecops.h): vectors in device memory, GError conversion, and
 * ASD-POCS's descent on the total variation as a series of device steps
 * (only the norms come back). */
#include "ctr-cuda-vecops.h"
#include "ctr-cuda.h"
#include "base/ctr-error.h"

#include <math.h>


static CtrCudaVecs *
dev_of (const CtrVecs *vs)
{
  return ((CtrCudaVecState *) vs->priv)->dev;
}

static gsize
kind_size (const CtrVecs *vs, CtrVecKind kind)
{
  return kind == CTR_VEC_IMAGE ? vs->op->image_size : vs->op->data_size;
}

gboolean
ctr_cuda_vecs_begin_on (CtrVecs *vs, void *stream, gpointer session, GError **error)
{
  CtrCudaVecState *s = g_new0 (CtrCudaVecState, 1);
  vs->priv = s;
  s->session = session;
  CTR_CUDA_TRY (ctr_cuda_vecs_create (stream, &s->dev, CTR_CUDA_ERR));
  if (vs->op->image_weight != NULL)
    {
      CTR_CUDA_TRY (ctr_cuda_vec_alloc (s->dev, vs->op->image_size, &s->weight, CTR_CUDA_ERR));
      CTR_CUDA_TRY (ctr_cuda_vec_upload (s->dev, s->weight, vs->op->image_weight, vs->op->image_size, CTR_CUDA_ERR));
    }
  return TRUE;
}

gboolean
ctr_cuda_vecs_set_layout (CtrVecs *vs, const guint32 *to_natural, const guint32 *to_native, GError **error)
{
  CtrCudaVecState *s = vs->priv;
  CTR_CUDA_TRY (ctr_cuda_vec_upload_index (s->dev, to_natural, ctr_grid_size (&vs->op->grid), &s->to_natural,
                                           CTR_CUDA_ERR));
  CTR_CUDA_TRY (ctr_cuda_vec_upload_index (s->dev, to_native, vs->op->image_size, &s->to_native, CTR_CUDA_ERR));
  return TRUE;
}

void
ctr_cuda_vecs_end (CtrVecs *vs)
{
  CtrCudaVecState *s = vs->priv;
  if (s == NULL)
    return;
  if (s->dev != NULL)
    {
      ctr_cuda_quality_destroy (s->quality);
      ctr_cuda_vec_free (s->dev, s->weight);
      for (guint i = 0; i < G_N_ELEMENTS (s->nat); i++)
        ctr_cuda_vec_free (s->dev, s->nat[i]);
      ctr_cuda_vec_free_index (s->dev, s->to_natural);
      ctr_cuda_vec_free_index (s->dev, s->to_native);
      ctr_cuda_vecs_destroy (s->dev);
    }
  g_free (s);
  vs->priv = NULL;
}

static CtrVec *
alloc_error (CtrCudaStatus st, const char *err, GError **error)
{
  ctr_cuda_status_error (st, err, error);
  return NULL;
}

CtrVec *
ctr_cuda_vecop_alloc (CtrVecs *vs, CtrVecKind kind, GError **error)
{
  char err[CTR_CUDA_ERR_LEN] = "";
  float *p = NULL;
  const gsize n = kind_size (vs, kind);
  const CtrCudaStatus st = ctr_cuda_vec_alloc (dev_of (vs), n, &p, err);
  if (st != CTR_CUDA_OK)
    return alloc_error (st, err, error);
  CtrVec *v = g_new0 (CtrVec, 1);
  *v = (CtrVec) { .kind = kind, .n = n, .dev = p, .owned = TRUE };
  return v;
}

CtrVec *
ctr_cuda_vecop_bind (CtrVecs *vs, CtrVecKind kind, const float *host, GError **error)
{
  CtrVec *v = ctr_cuda_vecop_alloc (vs, kind, error);
  if (v == NULL)
    return NULL;
  char err[CTR_CUDA_ERR_LEN] = "";
  const CtrCudaStatus st = ctr_cuda_vec_upload (dev_of (vs), v->dev, host, v->n, err);
  if (st != CTR_CUDA_OK)
    {
      ctr_cuda_vecop_free (vs, v);
      return alloc_error (st, err, error);
    }
  return v;
}

void
ctr_cuda_vecop_free (CtrVecs *vs, CtrVec *v)
{
  if (v == NULL)
    return;
  ctr_cuda_vec_free (dev_of (vs), v->dev);
  g_free (v);
}

gboolean
ctr_cuda_vecop_download (CtrVecs *vs, const CtrVec *v, float *host, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_download (dev_of (vs), host, v->dev, v->n, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_download_part (CtrVecs *vs, const CtrVec *v, gsize offset, gsize n, float *host, GError **error)
{
  g_return_val_if_fail (offset <= v->n && n <= v->n - offset, FALSE);
  CTR_CUDA_TRY (ctr_cuda_vec_download (dev_of (vs), host + offset, ctr_cuda_vec_ptr (v) + offset, n, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_download_runs (CtrVecs *vs, const CtrVec *v, const CtrImageRuns *runs, float *host, GError **error)
{
  g_return_val_if_fail (ctr_image_runs_valid (runs, v->n), FALSE);
  CTR_CUDA_TRY (ctr_cuda_vec_download_pitched (dev_of (vs), host + runs->offset, ctr_cuda_vec_ptr (v) + runs->offset,
                                               runs->run, runs->count, runs->count > 1 ? runs->stride : runs->run,
                                               CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_fill (CtrVecs *vs, CtrVec *y, float value, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_fill (dev_of (vs), y->dev, y->n, value, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_copy (CtrVecs *vs, CtrVec *dst, const CtrVec *src, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_copy (dev_of (vs), dst->dev, src->dev, dst->n, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_axpby (CtrVecs *vs, CtrVec *y, float a, const CtrVec *x, float b, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_axpby (dev_of (vs), y->dev, a, x->dev, b, y->n, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_mul (CtrVecs *vs, CtrVec *y, const CtrVec *x, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_mul (dev_of (vs), y->dev, x->dev, y->n, CTR_CUDA_ERR));
  return TRUE;
}

/* The weights of an image inner product (NULL for data or none). */
static const float *
weight_of (const CtrVecs *vs, const CtrVec *a)
{
  return a->kind == CTR_VEC_IMAGE ? ((CtrCudaVecState *) vs->priv)->weight : NULL;
}

gboolean
ctr_cuda_vecop_dot (CtrVecs *vs, const CtrVec *a, const CtrVec *b, double *out, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_dot (dev_of (vs), a->dev, b->dev, weight_of (vs, a), a->n, out, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_diff_dot (CtrVecs *vs, const CtrVec *a, const CtrVec *b, const CtrVec *c, const CtrVec *d,
                         double *out, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_diff_dot (dev_of (vs), a->dev, b->dev, c->dev, d->dev, weight_of (vs, a), a->n, out, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_data_norms (CtrVecs *vs, const CtrVec *Y, const CtrVec *B, const CtrVec *W, const CtrVec *valid,
                           double out[3], GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_data_norms (dev_of (vs), Y->dev, B->dev, W != NULL ? W->dev : NULL, valid->dev, Y->n, out, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_sqs_step (CtrVecs *vs, CtrVec *X, const CtrVec *Z, const CtrVec *G, const CtrVec *GR, const CtrVec *CR,
                         const CtrVec *Dd, float M, float beta, gboolean nonneg, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_sqs_step (dev_of (vs), X->dev, Z->dev, G->dev, GR->dev, CR->dev, Dd->dev, M, beta, nonneg != 0,
                              X->n, CTR_CUDA_ERR));
  return TRUE;
}

gboolean
ctr_cuda_vecop_extrapolate (CtrVecs *vs, CtrVec *Z, const CtrVec *X, const CtrVec *Xold, float c, GError **error)
{
  CTR_CUDA_TRY (ctr_cuda_vec_extrapolate (dev_of (vs), Z->dev, X->dev, Xold->dev, c, Z->n, CTR_CUDA_ERR));
  return TRUE;
}

/* The natural scratch images 0 … @n − 1 on the device (made on first use). */
static gboolean
natural_scratch (CtrVecs *vs, guint n, GError **error)
{
  CtrCudaVecState *s = vs->priv;
  for (guint i = 0; i < n; i++)
    if (s->nat[i] == NULL)
      CTR_CUDA_TRY (ctr_cuda_vec_alloc (s->dev, ctr_grid_size (&vs->op->grid), &s->nat[i], CTR_CUDA_ERR));
  return TRUE;
}

/* ctr-cuda-vecops.h: natural scratch 0 when native is not natural. */
const float *
ctr_cuda_vecs_natural_of (CtrVecs *vs, const CtrVec *X, GError **error)
{
  CtrCudaVecState *s = vs->priv;
  if (s->to_natural == NULL)
    return X->dev;
  if (!natural_scratch (vs, 1, error))
    return NULL;
  char err[CTR_CUDA_ERR_LEN] = "";
  const CtrCudaStatus st = ctr_cuda_vec_gather (s->dev, s->nat[0], X->dev, s->to_natural,
                                                ctr_grid_size (&vs->op->grid), err);
  return ctr_cuda_status_error (st, err, error) ? s->nat[0] : NULL;
}

gboolean
ctr_cuda_vecop_penalty_gradient (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, CtrVec *grad,
                                 CtrVec *curv, GError **error)
{
  const CtrGrid *g = &vs->op->grid;
  CtrCudaVecState *s = vs->priv;
  const float *x = ctr_cuda_vecs_natural_of (vs, X, error);
  if (x == NULL || (s->to_natural != NULL && !natural_scratch (vs, 3, error)))
    return FALSE;
  const gboolean perm = s->to_natural != NULL;
  float *gn = perm ? s->nat[1] : grad->dev;
  float *cn = curv == NULL ? NULL : perm ? s->nat[2] : curv->dev;
  CTR_CUDA_TRY (ctr_cuda_vec_penalty_gradient (dev_of (vs), (int) kind, (float) delta, x, g->nx, g->ny, g->nz, gn, cn,
                                               CTR_CUDA_ERR));
  if (perm)
    {
      CTR_CUDA_TRY (ctr_cuda_vec_gather (dev_of (vs), grad->dev, gn, s->to_native, grad->n, CTR_CUDA_ERR));
      if (curv != NULL)
        CTR_CUDA_TRY (ctr_cuda_vec_gather (dev_of (vs), curv->dev, cn, s->to_native, curv->n, CTR_CUDA_ERR));
    }
  return TRUE;
}

gboolean
ctr_cuda_vecop_penalty_value (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, double *out,
                              GError **error)
{
  const CtrGrid *g = &vs->op->grid;
  const float *x = ctr_cuda_vecs_natural_of (vs, X, error);
  if (x == NULL)
    return FALSE;
  CTR_CUDA_TRY (ctr_cuda_vec_penalty_value (dev_of (vs), (int) kind, delta, x, g->nx, g->ny, g->nz, out, CTR_CUDA_ERR));
  return TRUE;
}

/* ctr-vecops.h's tv_descent on the natural image @x (@n floats, device
 * memory): the gradient in a work image of the device, its norm back (8
 * bytes a step), the step on the device. */
static gboolean
tv_descent_natural (CtrVecs *vs, float *x, gsize n, guint n_steps, double dtvg, GError **error)
{
  const CtrGrid *g = &vs->op->grid;
  CtrCudaVecs *d = dev_of (vs);
  float xmax = 0.f;
  CTR_CUDA_TRY (ctr_cuda_vec_max_abs (d, x, n, &xmax, CTR_CUDA_ERR));
  const double eps = 1e-5 * (xmax > 0 ? xmax : 1.0);
  if (n_steps == 0)
    return TRUE;
  float *G = NULL;
  CTR_CUDA_TRY (ctr_cuda_vec_alloc (d, n, &G, CTR_CUDA_ERR));
  gboolean ok = TRUE;
  for (guint k = 0; k < n_steps && ok; k++)
    {
      double gg = 0.0;
      char err[CTR_CUDA_ERR_LEN] = "";
      CtrCudaStatus st = ctr_cuda_vec_tv_gradient (d, x, g->nx, g->ny, g->nz, eps, G, err);
      if (st == CTR_CUDA_OK)
        st = ctr_cuda_vec_dot (d, G, G, NULL, n, &gg, err);
      if (st == CTR_CUDA_OK && gg <= 0.0)
        break;
      if (st == CTR_CUDA_OK)
        st = ctr_cuda_vec_axpby (d, x, (float) -(dtvg / sqrt (gg)), G, 1.f, n, err);
      ok = ctr_cuda_status_error (st, err, error);
    }
  ctr_cuda_vec_free (d, G);
  return ok;
}

/* ctr-vecops.h's tv_descent: on X itself, or on its natural copy and back. */
gboolean
ctr_cuda_vecop_tv_descent (CtrVecs *vs, CtrVec *X, guint n_steps, double dtvg, GError **error)
{
  CtrCudaVecState *s = vs->priv;
  if (s->to_natural == NULL)
    return tv_descent_natural (vs, X->dev, X->n, n_steps, dtvg, error);
  float *x = (float *) ctr_cuda_vecs_natural_of (vs, X, error);
  if (x == NULL || !tv_descent_natural (vs, x, ctr_grid_size (&vs->op->grid), n_steps, dtvg, error))
    return FALSE;
  CTR_CUDA_TRY (ctr_cuda_vec_gather (dev_of (vs), X->dev, x, s->to_native, X->n, CTR_CUDA_ERR));
  return TRUE;
}
