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
 *
 * The vectors are the operator's (ctr-vec.h): on a device they stay there
 * for the whole run, and only the inner products (and, for a report, the
 * image) come back.
 */
#include "solve/ctr-iterate.h"
#include "solve/ctr-vec.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  CtrVecs vs;
  CtrVec *X, *B, *valid;   /* the driver's image and data */
  CtrVec *R, *Q;           /* native data */
  CtrVec *S, *P;           /* native images */
  double gamma, b_norm;
} Cgls;

static void
cgls_free (CtrIterate *it, gpointer data)
{
  Cgls *c = data;
  if (c == NULL)
    return;
  if (c->vs.ops != NULL)
    {
      CtrVec **v[] = { &c->X, &c->B, &c->valid, &c->R, &c->Q, &c->S, &c->P };
      for (guint i = 0; i < G_N_ELEMENTS (v); i++)
        ctr_vec_clear (&c->vs, v[i]);
      ctr_vecs_clear (&c->vs);
    }
  g_free (c);
}

static gboolean
cgls_setup (CtrIterate *it, gpointer *state, GError **error)
{
  Cgls *c = g_new0 (Cgls, 1);
  *state = c;
  if (!ctr_vecs_init (&c->vs, it->op, error))
    return FALSE;
  CtrVecs *vs = &c->vs;
  const CtrVecOps *f = vs->ops;
  if ((c->X = f->bind (vs, CTR_VEC_IMAGE, it->X, error)) == NULL
      || (c->B = f->bind (vs, CTR_VEC_DATA, it->B, error)) == NULL
      || (c->valid = f->bind (vs, CTR_VEC_DATA, it->valid, error)) == NULL
      || (c->R = f->alloc (vs, CTR_VEC_DATA, error)) == NULL || (c->Q = f->alloc (vs, CTR_VEC_DATA, error)) == NULL
      || (c->S = f->alloc (vs, CTR_VEC_IMAGE, error)) == NULL || (c->P = f->alloc (vs, CTR_VEC_IMAGE, error)) == NULL)
    return FALSE;
  /* x₀ = 0 (it->X is zero): r = b on the valid rays. */
  double rr;
  return f->copy (vs, c->R, c->B, error) && f->mul (vs, c->R, c->valid, error)
         && f->dot (vs, c->R, c->R, &rr, error) && (c->b_norm = sqrt (rr), TRUE)
         && f->adjoint (vs, CTR_SUBSET_ALL, c->R, c->S, error) && f->copy (vs, c->P, c->S, error)
         && f->dot (vs, c->S, c->S, &c->gamma, error);
}

static gboolean
cgls_residual (Cgls *c, CtrIterate *it, GError **error)
{
  double rr;
  if (!c->vs.ops->dot (&c->vs, c->R, c->R, &rr, error))
    return FALSE;
  it->residual = c->b_norm > 0 ? sqrt (rr) / c->b_norm : 0.0;
  return TRUE;
}

static gboolean
cgls_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Cgls *c = data;
  CtrVecs *vs = &c->vs;
  const CtrVecOps *f = vs->ops;
  if (ctr_iterate_cancelled (it, error))
    return FALSE;
  if (c->gamma <= 0.0)   /* converged exactly (or nothing to fit) */
    return cgls_residual (c, it, error);
  double qq;
  if (!f->fill (vs, c->Q, 0.f, error) || !f->forward (vs, CTR_SUBSET_ALL, c->P, c->Q, error)
      || !f->mul (vs, c->Q, c->valid, error) || !f->dot (vs, c->Q, c->Q, &qq, error))
    return FALSE;
  if (qq <= 0.0)
    return TRUE;
  const float alpha = (float) (c->gamma / qq);
  if (!f->axpby (vs, c->X, alpha, c->P, 1.f, error) || !f->axpby (vs, c->R, -alpha, c->Q, 1.f, error))
    return FALSE;
  if (ctr_iterate_cancelled (it, error))
    return FALSE;
  double gamma;
  if (!f->adjoint (vs, CTR_SUBSET_ALL, c->R, c->S, error) || !f->dot (vs, c->S, c->S, &gamma, error))
    return FALSE;
  const float beta = (float) (gamma / c->gamma);
  c->gamma = gamma;
  return f->axpby (vs, c->P, 1.f, c->S, beta, error) && cgls_residual (c, it, error);
}

/* The image into it->X for a report (a device's comes back). */
static gboolean
cgls_sync (CtrIterate *it, gpointer data, gsize offset, gsize n, GError **error)
{
  Cgls *c = data;
  return c->vs.ops->download_part (&c->vs, c->X, offset, n, it->X, error);
}

/* The vectors and the reported image (the one cgls_sync brings back). */
static CtrVecs *
cgls_vecs (gpointer data, const CtrVec **X)
{
  Cgls *c = data;
  *X = c->X;
  return &c->vs;
}

/* The planes of a report into it->X (strided; a device's come back). */
static gboolean
cgls_sync_runs (CtrIterate *it, gpointer data, const CtrImageRuns *runs, GError **error)
{
  Cgls *c = data;
  return c->vs.ops->download_runs (&c->vs, c->X, runs, it->X, error);
}

const CtrSolverClass ctr_cgls_solver = { CTR_METHOD_CGLS, cgls_setup, cgls_iterate, cgls_sync, cgls_free,
                                          cgls_vecs, cgls_sync_runs };
