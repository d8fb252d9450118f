/* ctr-vec-host.c — the host's vector operations (ctr-vec.h): the
 * arithmetic CGLS, PWLS and ASD-POCS did on host arrays, the same loops in
 * the same order, and the choice of a run's table. */
#include "solve/ctr-vec.h"
#include "solve/ctr-penalty.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

static gsize
kind_size (const CtrVecs *vs, CtrVecKind kind)
{
  return kind == CTR_VEC_IMAGE ? vs->op->image_size : vs->op->data_size;
}

/* The natural scratch image @i (ctr_grid_size floats), allocated on first use. */
static float *
scratch (CtrVecs *vs, guint i)
{
  if (vs->nat[i] == NULL)
    vs->nat[i] = g_try_new (float, MAX (ctr_grid_size (&vs->op->grid), 1));
  return vs->nat[i];
}

static gboolean
scratch_ok (CtrVecs *vs, guint n, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (scratch (vs, i) == NULL)
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the penalty's natural images");
        return FALSE;
      }
  return TRUE;
}

static void
host_end (CtrVecs *vs)
{
  for (guint i = 0; i < G_N_ELEMENTS (vs->nat); i++)
    g_clear_pointer (&vs->nat[i], g_free);
}

static CtrVec *
host_alloc (CtrVecs *vs, CtrVecKind kind, GError **error)
{
  const gsize n = kind_size (vs, kind);
  float *a = g_try_new0 (float, MAX (n, 1));
  if (a == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate a work vector of %" G_GSIZE_FORMAT " floats", n);
      return NULL;
    }
  CtrVec *v = g_new0 (CtrVec, 1);
  *v = (CtrVec) { .kind = kind, .n = n, .host = a, .owned = TRUE };
  return v;
}

static CtrVec *
host_bind (CtrVecs *vs, CtrVecKind kind, const float *host, GError **error)
{
  CtrVec *v = g_new0 (CtrVec, 1);
  *v = (CtrVec) { .kind = kind, .n = kind_size (vs, kind), .host = (float *) host, .owned = FALSE };
  return v;
}

static void
host_free (CtrVecs *vs, CtrVec *v)
{
  if (v == NULL)
    return;
  if (v->owned)
    g_free (v->host);
  g_free (v);
}

static gboolean
host_download (CtrVecs *vs, const CtrVec *v, float *host, GError **error)
{
  if (host != v->host)
    memcpy (host, v->host, v->n * sizeof (float));
  return TRUE;
}

static gboolean
host_download_part (CtrVecs *vs, const CtrVec *v, gsize offset, gsize n, float *host, GError **error)
{
  g_return_val_if_fail (offset <= v->n && n <= v->n - offset, FALSE);
  if (host != v->host)
    memcpy (host + offset, v->host + offset, n * sizeof (float));
  return TRUE;
}

static gboolean
host_download_runs (CtrVecs *vs, const CtrVec *v, const CtrImageRuns *runs, float *host, GError **error)
{
  g_return_val_if_fail (ctr_image_runs_valid (runs, v->n), FALSE);
  if (host != v->host)
    ctr_image_runs_copy (runs, v->host, host);
  return TRUE;
}

static gboolean
host_fill (CtrVecs *vs, CtrVec *y, float value, GError **error)
{
  float *a = y->host;
  if (value == 0.f)
    memset (a, 0, y->n * sizeof (float));
  else
    for (gsize q = 0; q < y->n; q++)
      a[q] = value;
  return TRUE;
}

static gboolean
host_copy (CtrVecs *vs, CtrVec *dst, const CtrVec *src, GError **error)
{
  if (dst->host != src->host)
    memcpy (dst->host, src->host, dst->n * sizeof (float));
  return TRUE;
}

/* y = a x + b y; the forms with a or b = 1 as CGLS wrote them. */
static gboolean
host_axpby (CtrVecs *vs, CtrVec *yv, float a, const CtrVec *xv, float b, GError **error)
{
  float *y = yv->host;
  const float *x = xv->host;
  const gint64 n = (gint64) yv->n;
  if (b == 1.f)
    {
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < n; q++)
        y[q] += a * x[q];
    }
  else if (a == 1.f)
    {
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < n; q++)
        y[q] = x[q] + b * y[q];
    }
  else
    {
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < n; q++)
        y[q] = a * x[q] + b * y[q];
    }
  return TRUE;
}

static gboolean
host_mul (CtrVecs *vs, CtrVec *yv, const CtrVec *xv, GError **error)
{
  float *y = yv->host;
  const float *x = xv->host;
  for (gsize q = 0; q < yv->n; q++)
    y[q] = x[q] != 0.f ? y[q] * x[q] : 0.f;
  return TRUE;
}

static gboolean
host_dot (CtrVecs *vs, const CtrVec *av, const CtrVec *bv, double *out, GError **error)
{
  if (av->kind == CTR_VEC_IMAGE)
    {
      *out = ctr_operator_image_dot (vs->op, av->host, bv->host);
      return TRUE;
    }
  const float *a = av->host, *b = bv->host;
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static)
  for (gint64 q = 0; q < (gint64) av->n; q++)
    acc += (double) a[q] * b[q];
  *out = acc;
  return TRUE;
}

static gboolean
host_diff_dot (CtrVecs *vs, const CtrVec *av, const CtrVec *bv, const CtrVec *cv, const CtrVec *dv, double *out,
               GError **error)
{
  const float *w = vs->op->image_weight;
  const float *a = av->host, *b = bv->host, *c = cv->host, *d = dv->host;
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static)
  for (gint64 q = 0; q < (gint64) av->n; q++)
    acc += (w ? w[q] : 1.0) * ((double) a[q] - b[q]) * ((double) c[q] - d[q]);
  *out = acc;
  return TRUE;
}

static gboolean
host_data_norms (CtrVecs *vs, const CtrVec *Yv, const CtrVec *Bv, const CtrVec *Wv, const CtrVec *validv,
                 double out[3], GError **error)
{
  const float *Y = Yv->host, *B = Bv->host, *W = Wv != NULL ? Wv->host : NULL, *valid = validv->host;
  double fit = 0.0, num = 0.0, den = 0.0;
#pragma omp parallel for reduction(+:fit,num,den) schedule(static)
  for (gint64 q = 0; q < (gint64) Yv->n; q++)
    {
      const double d = (double) Y[q] - B[q];
      if (W != NULL)
        fit += W[q] * d * d;
      if (valid[q] != 0.f)
        {
          num += d * d;
          den += (double) B[q] * B[q];
        }
    }
  out[0] = fit;
  out[1] = num;
  out[2] = den;
  return TRUE;
}

static gboolean
host_forward (CtrVecs *vs, guint subset, const CtrVec *X, CtrVec *Y, GError **error)
{
  return vs->op->klass->forward (vs->op, subset, X->host, Y->host, error);
}

static gboolean
host_adjoint (CtrVecs *vs, guint subset, const CtrVec *Y, CtrVec *D, GError **error)
{
  return vs->op->klass->adjoint (vs->op, subset, Y->host, D->host, error);
}

static gboolean
host_update (CtrVecs *vs, guint subset, CtrVec *X, const CtrVec *B, const CtrVec *coef, float step, CtrVec *D,
             CtrUpdateFlags flags, GError **error)
{
  return vs->op->klass->update (vs->op, subset, X->host, B->host, coef->host, step, D ? D->host : NULL, flags, error);
}

static gboolean
host_reduce (CtrVecs *vs, CtrVec *D, GError **error)
{
  if (vs->op->klass->reduce != NULL)
    vs->op->klass->reduce (vs->op, D->host);
  return TRUE;
}

static gboolean
host_sqs_step (CtrVecs *vs, CtrVec *Xv, const CtrVec *Zv, const CtrVec *Gv, const CtrVec *GRv, const CtrVec *CRv,
               const CtrVec *Ddv, float M, float beta, gboolean nonneg, GError **error)
{
  float *X = Xv->host;
  const float *Z = Zv->host, *G = Gv->host, *GR = GRv->host, *CR = CRv->host, *Dd = Ddv->host;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) Xv->n; q++)
    {
      const float den = Dd[q] + beta * CR[q];
      float x = Z[q];
      if (den > 0.f)
        x += (M * G[q] - beta * GR[q]) / den;
      X[q] = nonneg && x < 0.f ? 0.f : x;
    }
  return TRUE;
}

static gboolean
host_extrapolate (CtrVecs *vs, CtrVec *Zv, const CtrVec *Xv, const CtrVec *Xoldv, float c, GError **error)
{
  float *Z = Zv->host;
  const float *X = Xv->host, *Xold = Xoldv->host;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) Zv->n; q++)
    Z[q] = X[q] + c * (X[q] - Xold[q]);
  return TRUE;
}

static gboolean
host_penalty_gradient (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, CtrVec *grad, CtrVec *curv,
                       GError **error)
{
  CtrOperator *op = vs->op;
  if (!scratch_ok (vs, 3, error))
    return FALSE;
  op->klass->image_from_native (op, X->host, vs->nat[0]);
  ctr_penalty_gradient (kind, delta, vs->nat[0], op->grid.nx, op->grid.ny, op->grid.nz, vs->nat[1],
                        curv != NULL ? vs->nat[2] : NULL);
  op->klass->image_to_native (op, vs->nat[1], grad->host);
  if (curv != NULL)
    op->klass->image_to_native (op, vs->nat[2], curv->host);
  return TRUE;
}

static gboolean
host_penalty_value (CtrVecs *vs, CtrPenalty kind, double delta, const CtrVec *X, double *out, GError **error)
{
  CtrOperator *op = vs->op;
  if (!scratch_ok (vs, 1, error))
    return FALSE;
  op->klass->image_from_native (op, X->host, vs->nat[0]);
  *out = ctr_penalty_value (kind, delta, vs->nat[0], op->grid.nx, op->grid.ny, op->grid.nz);
  return TRUE;
}

static gboolean
host_tv_descent (CtrVecs *vs, CtrVec *X, guint n_steps, double dtvg, GError **error)
{
  CtrOperator *op = vs->op;
  if (!scratch_ok (vs, 2, error))
    return FALSE;
  float *x = vs->nat[0], *g = vs->nat[1];
  const gsize nat = ctr_grid_size (&op->grid);
  op->klass->image_from_native (op, X->host, x);
  float xmax = 0.f;
  for (gsize q = 0; q < nat; q++)
    xmax = MAX (xmax, fabsf (x[q]));
  const double eps = 1e-5 * (xmax > 0 ? xmax : 1.0);
  for (guint k = 0; k < n_steps; k++)
    {
      ctr_tv_gradient (x, op->grid.nx, op->grid.ny, op->grid.nz, eps, g);
      double gg = 0.0;
#pragma omp parallel for reduction(+:gg) schedule(static)
      for (gint64 q = 0; q < (gint64) nat; q++)
        gg += (double) g[q] * g[q];
      if (gg <= 0.0)
        break;
      const float step = (float) (dtvg / sqrt (gg));
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < (gint64) nat; q++)
        x[q] -= step * g[q];
    }
  op->klass->image_to_native (op, x, X->host);
  return TRUE;
}

const CtrVecOps ctr_vec_host_ops = {
  .name = "host",
  .end = host_end,
  .alloc = host_alloc,
  .bind = host_bind,
  .free = host_free,
  .download = host_download,
  .download_part = host_download_part,
  .download_runs = host_download_runs,
  .fill = host_fill,
  .copy = host_copy,
  .axpby = host_axpby,
  .mul = host_mul,
  .dot = host_dot,
  .diff_dot = host_diff_dot,
  .data_norms = host_data_norms,
  .forward = host_forward,
  .adjoint = host_adjoint,
  .update = host_update,
  .reduce = host_reduce,
  .sqs_step = host_sqs_step,
  .extrapolate = host_extrapolate,
  .penalty_gradient = host_penalty_gradient,
  .penalty_value = host_penalty_value,
  .tv_descent = host_tv_descent,
  /* no metrics here: the driver measures the host's image itself */
  .set_reference = NULL,
  .quality = NULL,
};

gboolean
ctr_vecs_init (CtrVecs *vs, CtrOperator *op, GError **error)
{
  memset (vs, 0, sizeof *vs);
  vs->op = op;
  vs->ops = op->klass->vec != NULL && g_strcmp0 (g_getenv ("CTR_VECOPS"), "host") != 0 ? op->klass->vec
                                                                                       : &ctr_vec_host_ops;
  return vs->ops->begin == NULL || vs->ops->begin (vs, error);
}

void
ctr_vecs_clear (CtrVecs *vs)
{
  if (vs->ops != NULL && vs->ops->end != NULL)
    vs->ops->end (vs);
  vs->ops = NULL;
}

void
ctr_vec_clear (CtrVecs *vs, CtrVec **v)
{
  if (*v != NULL)
    vs->ops->free (vs, *v);
  *v = NULL;
}
