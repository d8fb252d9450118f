/* ctr-art.c — ART (Kaczmarz) and parallel ART.
 *
 * ART, cuART Eq. 1 (Gordon, Bender & Herman 1970; Kaczmarz 1937):
 *     f_j ← f_j + λ (p_i − Σ_j f_j w_ij) / (Σ_j w_ij²) · w_ij,   i = 1 … M in order.
 * Row-sequential by nature: this is the CPU reference the cuART paper
 * compares with.  A stack of slices runs one slice per thread.
 *
 * Parallel ART, cuART Eq. 9 with view-level blocking:
 *     F ← F + W_vᵀ (C ∘ (P_v − W_v F)),   c_i = λ / (κ_v Σ_j w_ij²)
 * for one view v at a time.  cuART prints κ_v = M' (the rays per view), which
 * makes the step about M' times smaller than the rays' overlap requires;
 * the default κ_v = max_j #{i ∈ v : w_ij ≠ 0} is the sparsity bound of
 * Censor, Gordon & Gordon (2001, Parallel Computing 27, 777-808), which keeps
 * 0 < λ < 2 convergent while stepping as far as plain ART does.
 */
#include "ctr-solver-private.h"
#include "ctr-error.h"

#include <omp.h>
#include <string.h>

static gboolean
check_cancel (CtrSolve *st, GError **error)
{
  return !g_cancellable_set_error_if_cancelled (st->cancellable, error);
}

static void
art_view_slice (CtrSolve *st, guint v, guint s, double lambda)
{
  const gint64 *rp;
  const guint32 *ci;
  const float *va;
  ctr_sysmat_csr (st->a, &rp, &ci, &va);
  float *x = st->x + (gsize) s * st->np;
  const float *b = st->b + (gsize) s * st->nr;
  const gboolean clip = st->o->nonnegative;
  for (guint c = 0; c < st->n_cols; c++)
    {
      guint64 i = (guint64) v * st->n_cols + c;
      if (st->inv_sq[i] == 0.f || !st->valid[(gsize) s * st->n_cols + c])
        continue;
      float dot = 0.f;
      for (gint64 k = rp[i]; k < rp[i + 1]; k++)
        dot += va[k] * x[ci[k]];
      const float coef = (float) (lambda * (b[i] - dot) * st->inv_sq[i]);
      if (clip)
        for (gint64 k = rp[i]; k < rp[i + 1]; k++)
          {
            float nx = x[ci[k]] + coef * va[k];
            x[ci[k]] = nx > 0.f ? nx : 0.f;
          }
      else
        for (gint64 k = rp[i]; k < rp[i + 1]; k++)
          x[ci[k]] += coef * va[k];
    }
}

gboolean
ctr_art_iterate (CtrSolve *st, GError **error)
{
  const double lambda = st->o->relaxation;
  for (guint v = 0; v < st->n_views; v++)
    {
      if (!check_cancel (st, error))
        return FALSE;
#pragma omp parallel for schedule(static) if (st->ns > 1)
      for (guint s = 0; s < st->ns; s++)
        art_view_slice (st, v, s, lambda);
    }
  return TRUE;
}

float *
ctr_part_sparsity (const CtrSysmat *a)
{
  const gint64 *rp;
  const guint32 *ci;
  ctr_sysmat_csr (a, &rp, &ci, NULL);
  const guint nv = ctr_sysmat_n_views (a), nc = ctr_sysmat_n_cols (a);
  const guint64 np = ctr_sysmat_n_pixels (a);
  float *kappa = g_new (float, nv);
#pragma omp parallel
  {
    guint16 *count = g_new0 (guint16, np);
#pragma omp for schedule(dynamic, 4)
    for (guint v = 0; v < nv; v++)
      {
        guint64 b = (guint64) v * nc, e = b + nc;
        guint16 mx = 1;
        for (gint64 k = rp[b]; k < rp[e]; k++)
          {
            guint16 n = ++count[ci[k]];
            mx = MAX (mx, n);
          }
        for (gint64 k = rp[b]; k < rp[e]; k++)
          count[ci[k]] = 0;
        kappa[v] = mx;
      }
    g_free (count);
  }
  return kappa;
}

gboolean
ctr_part_iterate (CtrSolve *st, const float *kappa, GError **error)
{
  const double lambda = st->o->relaxation;
  const gboolean cuart = st->o->part_step == CTR_PART_STEP_CUART;
  const guint nc = st->n_cols;
  for (guint v = 0; v < st->n_views; v++)
    {
      if (!check_cancel (st, error))
        return FALSE;
      const guint64 b = (guint64) v * nc, e = b + nc;
      const float scale = (float) (lambda / (cuart ? (double) nc : (double) kappa[v]));
      ctr_sysmat_apply_rows (st->a, b, e, st->x, st->r, st->ns);
      for (guint s = 0; s < st->ns; s++)
        {
          float *r = st->r + (gsize) s * st->nr;
          const float *bb = st->b + (gsize) s * st->nr;
          const guint8 *val = st->valid + (gsize) s * nc;
          for (guint64 i = b; i < e; i++)
            r[i] = val[i - b] ? scale * (bb[i] - r[i]) * st->inv_sq[i] : 0.f;
        }
      ctr_sysmat_apply_adjoint_rows (st->a, b, e, st->r, st->x, st->ns);
      ctr_solve_clip (st);
    }
  return TRUE;
}

float *
ctr_part_orbit_sparsity (const CtrSolve *st)
{
  const CtrSymmetry *sy = st->orbits;
  const guint K = sy->group.order, nc = st->n_cols;
  const gint64 *rp;
  const guint32 *ci;
  ctr_sysmat_csr (st->a, &rp, &ci, NULL);
  float *kappa = g_new (float, sy->n_orbits);
#pragma omp parallel
  {
    guint32 *count = g_new0 (guint32, st->np);
#pragma omp for schedule(dynamic, 1)
    for (guint o = 0; o < sy->n_orbits; o++)
      {
        guint32 mx = 1;
        guint lanes = 0;
        for (int pass = 0; pass < 2; pass++)
          for (guint k = 0; k < K; k++)
            {
              gint32 v = sy->lane_view[(gsize) o * K + k];
              if (v < 0)
                continue;
              lanes += pass == 0;
              guint64 b = (guint64) v * nc, e = b + nc;
              for (gint64 q = rp[b]; q < rp[e]; q++)
                {
                  if (pass == 0)
                    {
                      guint32 n = ++count[ci[q]];
                      mx = MAX (mx, n);
                    }
                  else
                    count[ci[q]] = 0;
                }
            }
        kappa[o] = st->o->part_step == CTR_PART_STEP_CUART ? (float) lanes * nc : (float) mx;
      }
    g_free (count);
  }
  return kappa;
}

gboolean
ctr_part_iterate_orbits (CtrSolve *st, const float *kappa, GError **error)
{
  const CtrSymmetry *sy = st->orbits;
  const guint K = sy->group.order, nc = st->n_cols;
  const double lambda = st->o->relaxation;
  for (guint o = 0; o < sy->n_orbits; o++)
    {
      if (!check_cancel (st, error))
        return FALSE;
      const float scale = (float) (lambda / kappa[o]);
      /* All forward products of the subset before any update (Eq. 9). */
      for (guint k = 0; k < K; k++)
        {
          gint32 v = sy->lane_view[(gsize) o * K + k];
          if (v < 0)
            continue;
          const guint64 b = (guint64) v * nc, e = b + nc;
          ctr_sysmat_apply_rows (st->a, b, e, st->x, st->r, st->ns);
          for (guint s = 0; s < st->ns; s++)
            {
              float *r = st->r + (gsize) s * st->nr;
              const float *bb = st->b + (gsize) s * st->nr;
              const guint8 *val = st->valid + (gsize) s * nc;
              for (guint64 i = b; i < e; i++)
                r[i] = val[i - b] ? scale * (bb[i] - r[i]) * st->inv_sq[i] : 0.f;
            }
        }
      for (guint k = 0; k < K; k++)
        {
          gint32 v = sy->lane_view[(gsize) o * K + k];
          if (v >= 0)
            ctr_sysmat_apply_adjoint_rows (st->a, (guint64) v * nc, (guint64) (v + 1) * nc, st->r, st->x, st->ns);
        }
      ctr_solve_clip (st);
    }
  return TRUE;
}
