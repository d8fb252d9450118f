/* ctr-scsr-solve.c — parallel ART, SART and SIRT on the symmetry-compressed
 * matrix, with the views of one symmetry orbit as one ordered subset.
 *
 * Parallel ART (cuART Eq. 9) over subset S = the K views of orbit o:
 *     F ← F + W_Sᵀ (C ∘ (P_S − W_S F)),  c_i = λ / (κ_S Σ_j w_ij²)
 * with κ_S the subset's sparsity bound (or M' = rays in S, cuART as printed;
 * see CtrPartStep).  Each stored row is read once per iteration: its forward
 * dot products for the K views and their back-projection read each stored
 * element for all K views at once (one SIMD vector), which is what makes the
 * orbit the cheap subset (DESIGN.md §3, "view order").  Each thread owns whole
 * parts of the pixel reps (ctr_symmetry_partition): phase 1 forward over its
 * parts, a barrier, residuals, phase 2 back-projection straight into the image
 * over its parts — no atomics and no per-thread image copies (the orbit's rows,
 * ~6 MB at W1, are read twice, the second time from cache).  SART (Andersen & Kak 1984, Eq. 5) uses the
 * same subsets with row- and column-sum normalisation (column sums of every
 * orbit computed once); SIRT accumulates all orbits before one update.
 *
 * The image lives in the packed layout for the whole run and is unpacked
 * into the output volume after every iteration (for the callback).
 */
#include "ctr-solver-private.h"
#include "ctr-error.h"
#include "sysmat/ctr-scsr-private.h"
#include "ctr-scsr-setup.h"

#include <omp.h>
#include <string.h>

struct _CtrScsrSolve {
  const CtrScsr *m;
  const CtrSymmetry *sy;
  guint K, P, nc, no, ns, T;
  gsize lane_size;      /* floats of one orbit's lane-ordered data: nc·ns·K */
  float *X;             /* packed image */
  float *D;             /* SART/SIRT: packed update (parts are disjoint) */
  float **acc;          /* per-thread forward partial sums, lane_size each */
  float *v;             /* residual weights of the current orbit, lane_size */
  float **saved;        /* per-part values of the reps on a symmetry axis */
  CtrScsrSetup su;      /* lane-ordered data, coefficients, column-sum scales */
};

CtrScsrSolve *
ctr_scsr_solve_new (CtrSolve *st, GError **error)
{
  const CtrScsr *m = st->m;
  CtrScsrSolve *ss = g_new0 (CtrScsrSolve, 1);
  ss->m = m;
  ss->sy = ctr_scsr_symmetry (m);
  ss->K = ctr_scsr_order (m);
  ss->P = ctr_scsr_n_parts (m);
  ss->nc = st->n_cols;
  ss->no = ctr_scsr_n_orbits (m);
  ss->ns = st->ns;
  ss->T = (guint) MAX (1, omp_get_max_threads ());
  ss->lane_size = (gsize) ss->nc * ss->ns * ss->K;
  const gsize psize = ctr_scsr_packed_size (m, ss->ns);
  const CtrMethod method = st->o->method;
  ss->X = g_try_new (float, psize);
  ss->v = g_try_new (float, ss->lane_size);
  gboolean ok = ss->X && ss->v;
  if (ok && method != CTR_METHOD_PART)
    ok = (ss->D = g_try_new0 (float, psize)) != NULL;
  ss->acc = g_new0 (float *, ss->T);
  for (guint t = 0; t < ss->T && ok; t++)
    ok = (ss->acc[t] = g_try_new (float, ss->lane_size)) != NULL;
  ss->saved = g_new0 (float *, ss->P);
  for (guint p = 0; p < ss->P && ok; p++)
    ss->saved[p] = g_new (float, MAX (1, ctr_scsr_stabilised_size (m, p, ss->ns)));
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the SCSR solver work space (%u slices)", ss->ns);
      ctr_scsr_solve_free (ss);
      return NULL;
    }
  if (!ctr_scsr_setup_init (&ss->su, m, st->g, st->p, st->o, ss->ns, error))
    {
      ctr_scsr_solve_free (ss);
      return NULL;
    }
  ctr_scsr_pack (m, st->x, ss->X, ss->ns);
  return ss;
}

void
ctr_scsr_solve_free (CtrScsrSolve *ss)
{
  if (ss == NULL)
    return;
  for (guint t = 0; ss->acc && t < ss->T; t++)
    g_free (ss->acc[t]);
  g_free (ss->acc);
  for (guint p = 0; ss->saved && p < ss->P; p++)
    g_free (ss->saved[p]);
  g_free (ss->saved);
  g_free (ss->D);
  g_free (ss->v);
  g_free (ss->X);
  ctr_scsr_setup_clear (&ss->su);
  g_free (ss);
}

/* One subset update: phase 1 forward (each thread its parts), residual
 * weights, phase 2 back-projection into the image (PART) or the update image
 * (SART: applied with the orbit's column sums; SIRT: kept for the end). */
static void
orbit_update (CtrScsrSolve *ss, guint o, CtrMethod method, gboolean nonneg)
{
  const float *b = ss->su.b + o * ss->lane_size, *c = ss->su.coef + o * ss->lane_size;
  const gsize psize1 = ctr_scsr_packed_size (ss->m, 1);
#pragma omp parallel num_threads(ss->T)
  {
    const guint t = (guint) omp_get_thread_num (), T = (guint) omp_get_num_threads ();
    float *acc = ss->acc[t];
    memset (acc, 0, ss->lane_size * sizeof (float));
    for (guint p = t; p < ss->P; p += T)
      ctr_scsr_orbit_forward (ss->m, o, p, ss->ns, ss->X, acc);
#pragma omp barrier
#pragma omp for schedule(static)
    for (gsize q = 0; q < ss->lane_size; q++)
      {
        float a = 0.f;
        for (guint u = 0; u < T; u++)
          a += ss->acc[u][q];
        ss->v[q] = c[q] * (b[q] - a);
      }
    for (guint p = t; p < ss->P; p += T)
      {
        if (method == CTR_METHOD_PART)
          {
            ctr_scsr_save_stabilised (ss->m, p, ss->ns, ss->X, ss->saved[p]);
            ctr_scsr_orbit_adjoint (ss->m, o, p, ss->ns, ss->v, ss->X);
            ctr_scsr_finish_part (ss->m, p, ss->ns, ss->X, NULL, NULL, nonneg, ss->saved[p]);
          }
        else
          {
            ctr_scsr_orbit_adjoint (ss->m, o, p, ss->ns, ss->v, ss->D);
            if (method == CTR_METHOD_SART)
              ctr_scsr_finish_part (ss->m, p, ss->ns, ss->X, ss->D, ss->su.scale + psize1 * o, nonneg, NULL);
          }
      }
  }
}

gboolean
ctr_scsr_solve_iterate (CtrSolve *st, CtrScsrSolve *ss, GError **error)
{
  const gboolean nonneg = st->o->nonnegative;
  const CtrMethod method = st->o->method;
  for (guint o = 0; o < ss->no; o++)
    {
      if (g_cancellable_set_error_if_cancelled (st->cancellable, error))
        return FALSE;
      orbit_update (ss, o, method, nonneg);
    }
  if (method == CTR_METHOD_SIRT)
    {
#pragma omp parallel for schedule(static, 1) num_threads(ss->T)
      for (guint p = 0; p < ss->P; p++)
        ctr_scsr_finish_part (ss->m, p, ss->ns, ss->X, ss->D, ss->su.scale, nonneg, NULL);
    }
  ctr_scsr_unpack (ss->m, ss->X, st->x, ss->ns);
  return TRUE;
}
