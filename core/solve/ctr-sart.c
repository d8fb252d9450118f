/* ctr-sart.c — SART and SIRT.
 *
 * SART, Andersen & Kak (1984, Ultrasonic Imaging 6, 81-94, Eq. 5), one view
 * (subset) at a time:
 *     x_j ← x_j + λ / (Σ_{i∈v} a_ij) · Σ_{i∈v} a_ij (b_i − a_i·x) / (Σ_j a_ij)
 * The column sums of each view are computed on the fly by the same adjoint
 * applied to a vector of ones (no per-view table of n_views × n_pixels).
 *
 * SIRT (Gilbert 1972) in the normalised form x ← x + λ C Aᵀ R (b − A x),
 * R = diag(1/row sums), C = diag(1/column sums): convergent for 0 < λ < 2
 * (the form ASTRA and TIGRE use).
 */
#include "ctr-solver-private.h"
#include "ctr-error.h"

#include <string.h>

gboolean
ctr_sart_iterate (CtrSolve *st, GError **error)
{
  const double lambda = st->o->relaxation;
  const guint nc = st->n_cols;
  const guint64 np = st->np;
  float *upd = g_new (float, (gsize) np * st->ns);
  float *cs = g_new (float, np);
  float *ones = g_new (float, st->nr);
  gboolean ok = TRUE;
  for (guint v = 0; v < st->n_views && ok; v++)
    {
      if (g_cancellable_set_error_if_cancelled (st->cancellable, error))
        {
          ok = FALSE;
          break;
        }
      const guint64 b = (guint64) v * nc, e = b + nc;
      ctr_sysmat_apply_rows (st->a, b, e, st->x, st->r, st->ns);
      for (guint s = 0; s < st->ns; s++)
        {
          float *r = st->r + (gsize) s * st->nr;
          const float *bb = st->b + (gsize) s * st->nr;
          const guint8 *val = st->valid + (gsize) s * nc;
          for (guint64 i = b; i < e; i++)
            r[i] = val[i - b] ? (bb[i] - r[i]) * st->inv_sum[i] : 0.f;
        }
      for (guint64 i = b; i < e; i++)
        ones[i] = 1.f;
      memset (upd, 0, (gsize) np * st->ns * sizeof (float));
      memset (cs, 0, np * sizeof (float));
      ctr_sysmat_apply_adjoint_rows (st->a, b, e, st->r, upd, st->ns);
      ctr_sysmat_apply_adjoint_rows (st->a, b, e, ones, cs, 1);
      for (guint s = 0; s < st->ns; s++)
        {
          float *x = st->x + (gsize) s * np;
          const float *u = upd + (gsize) s * np;
#pragma omp parallel for schedule(static)
          for (guint64 j = 0; j < np; j++)
            if (cs[j] > 0.f)
              x[j] += (float) lambda * u[j] / cs[j];
        }
      ctr_solve_clip (st);
    }
  g_free (upd);
  g_free (cs);
  g_free (ones);
  return ok;
}

float *
ctr_sirt_inverse_colsum (const CtrSolve *st)
{
  float *ones = g_new (float, st->nr);
  float *cs = g_new (float, st->np);
  for (guint64 i = 0; i < st->nr; i++)
    ones[i] = 1.f;
  ctr_sysmat_apply_adjoint (st->a, ones, cs, 1);
  for (guint64 j = 0; j < st->np; j++)
    cs[j] = cs[j] > 0.f ? 1.f / cs[j] : 0.f;
  g_free (ones);
  return cs;
}

gboolean
ctr_sirt_iterate (CtrSolve *st, const float *inv_colsum, GError **error)
{
  if (g_cancellable_set_error_if_cancelled (st->cancellable, error))
    return FALSE;
  const double lambda = st->o->relaxation;
  const guint nc = st->n_cols;
  const guint64 np = st->np;
  ctr_sysmat_apply (st->a, st->x, st->r, st->ns);
  for (guint s = 0; s < st->ns; s++)
    {
      float *r = st->r + (gsize) s * st->nr;
      const float *bb = st->b + (gsize) s * st->nr;
      const guint8 *val = st->valid + (gsize) s * nc;
#pragma omp parallel for schedule(static)
      for (guint64 i = 0; i < st->nr; i++)
        r[i] = val[i % nc] ? (bb[i] - r[i]) * st->inv_sum[i] : 0.f;
    }
  float *upd = g_new (float, (gsize) np * st->ns);
  ctr_sysmat_apply_adjoint (st->a, st->r, upd, st->ns);
  if (g_cancellable_set_error_if_cancelled (st->cancellable, error))
    {
      g_free (upd);
      return FALSE;
    }
  for (guint s = 0; s < st->ns; s++)
    {
      float *x = st->x + (gsize) s * np;
      const float *u = upd + (gsize) s * np;
#pragma omp parallel for schedule(static)
      for (guint64 j = 0; j < np; j++)
        x[j] += (float) lambda * inv_colsum[j] * u[j];
    }
  g_free (upd);
  ctr_solve_clip (st);
  return TRUE;
}
