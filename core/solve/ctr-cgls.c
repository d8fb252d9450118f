/* ctr-cgls.c — CGLS: conjugate gradients on the normal equations
 * AᵀA x = Aᵀb over the valid rays (Hestenes & Stiefel 1952, J. Res. NBS
 * 49(6) 409-436, §10; the "CGLS" arrangement of Björck 1996, Numerical
 * Methods for Least Squares Problems, Alg. 7.4.1), as ASTRA and MemXCT
 * offer it.  From x₀ = 0:
 *     r = b − A x,  s = Aᵀ r,  p = s,  γ = ||s||²
 *     q = A p,  α = γ / ||q||²,  x += α p,  r −= α q,
 *     s = Aᵀ r,  γ' = ||s||²,  p = s + (γ'/γ) p,  γ = γ'
 * One forward and one adjoint product per iteration; the residual ||r|| comes
 * for free.  Unconstrained (no clipping) and unregularised: semi-convergent
 * on noisy data, so stop early (CtrReconOptions.stop).  Image inner products
 * use the operator's weights (ctr_operator_image_dot).
 */
#include "solve/ctr-iterate.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  float *R, *Q;     /* native data */
  float *S, *P;     /* native images */
  double gamma, b_norm;
} Cgls;

static void
cgls_free (CtrIterate *it, gpointer data)
{
  Cgls *c = data;
  if (c == NULL)
    return;
  g_free (c->R);
  g_free (c->Q);
  g_free (c->S);
  g_free (c->P);
  g_free (c);
}

static double
data_dot (const float *a, const float *b, gsize n)
{
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    acc += (double) a[q] * b[q];
  return acc;
}

static gboolean
cgls_setup (CtrIterate *it, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  Cgls *c = g_new0 (Cgls, 1);
  *state = c;
  c->R = g_try_new (float, op->data_size);
  c->Q = g_try_new (float, op->data_size);
  c->S = g_try_new (float, op->image_size);
  c->P = g_try_new (float, op->image_size);
  if (!c->R || !c->Q || !c->S || !c->P)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "CGLS: cannot allocate its work space");
      return FALSE;
    }
  /* x₀ = 0 (it->X is zero): r = b on the valid rays. */
  for (gsize q = 0; q < op->data_size; q++)
    c->R[q] = it->valid[q] != 0.f ? it->B[q] : 0.f;
  c->b_norm = sqrt (data_dot (c->R, c->R, op->data_size));
  if (!op->klass->adjoint (op, CTR_SUBSET_ALL, c->R, c->S, error))
    return FALSE;
  memcpy (c->P, c->S, op->image_size * sizeof (float));
  c->gamma = ctr_operator_image_dot (op, c->S, c->S);
  return TRUE;
}

static gboolean
cgls_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Cgls *c = data;
  CtrOperator *op = it->op;
  if (ctr_iterate_cancelled (it, error))
    return FALSE;
  if (c->gamma <= 0.0)   /* converged exactly (or nothing to fit) */
    {
      it->residual = c->b_norm > 0 ? sqrt (data_dot (c->R, c->R, op->data_size)) / c->b_norm : 0.0;
      return TRUE;
    }
  memset (c->Q, 0, op->data_size * sizeof (float));
  if (!op->klass->forward (op, CTR_SUBSET_ALL, c->P, c->Q, error))
    return FALSE;
  for (gsize q = 0; q < op->data_size; q++)
    c->Q[q] = it->valid[q] != 0.f ? c->Q[q] : 0.f;
  const double qq = data_dot (c->Q, c->Q, op->data_size);
  if (qq <= 0.0)
    return TRUE;
  const float alpha = (float) (c->gamma / qq);
  float *X = it->X;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) op->image_size; q++)
    X[q] += alpha * c->P[q];
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) op->data_size; q++)
    c->R[q] -= alpha * c->Q[q];
  if (ctr_iterate_cancelled (it, error))
    return FALSE;
  if (!op->klass->adjoint (op, CTR_SUBSET_ALL, c->R, c->S, error))
    return FALSE;
  const double gamma = ctr_operator_image_dot (op, c->S, c->S);
  const float beta = (float) (gamma / c->gamma);
  c->gamma = gamma;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) op->image_size; q++)
    c->P[q] = c->S[q] + beta * c->P[q];
  it->residual = c->b_norm > 0 ? sqrt (data_dot (c->R, c->R, op->data_size)) / c->b_norm : 0.0;
  return TRUE;
}

const CtrSolverClass ctr_cgls_solver = { CTR_METHOD_CGLS, cgls_setup, cgls_iterate, NULL, cgls_free };
