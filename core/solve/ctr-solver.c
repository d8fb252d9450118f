/* ctr-solver.c — set-up, iteration loop and reporting common to every
 * algebraic solver; the update rules live in ctr-art.c and ctr-sart.c. */
#include "ctr-solver-private.h"
#include "ctr-error.h"
#include "ctr-metrics.h"

#include <math.h>
#include <string.h>

void
ctr_solve_clip (CtrSolve *st)
{
  if (!st->o->nonnegative)
    return;
  const gsize n = (gsize) st->ns * st->np;
  float *x = st->x;
#pragma omp parallel for schedule(static)
  for (gsize q = 0; q < n; q++)
    x[q] = x[q] > 0.f ? x[q] : 0.f;
}

/* ||b - A x|| / ||b|| over valid rays, all slices. */
static double
relative_residual (CtrSolve *st)
{
  if (st->m != NULL)
    ctr_scsr_apply (st->m, st->x, st->r, st->ns);
  else
    ctr_sysmat_apply (st->a, st->x, st->r, st->ns);
  double num = 0, den = 0;
  for (guint s = 0; s < st->ns; s++)
    {
      const float *b = st->b + (gsize) s * st->nr, *ax = st->r + (gsize) s * st->nr;
      const guint8 *val = st->valid + (gsize) s * st->n_cols;
      const guint nc = st->n_cols;
#pragma omp parallel for reduction(+:num,den) schedule(static)
      for (guint64 i = 0; i < st->nr; i++)
        if (val[i % nc])
          {
            double d = (double) b[i] - ax[i];
            num += d * d;
            den += (double) b[i] * b[i];
          }
    }
  return den > 0 ? sqrt (num / den) : sqrt (num);
}

static CtrVolume *
solver_run (const CtrSysmat *a, const CtrScsr *m, const CtrGeometry *g, const CtrProjections *p,
            const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *reference,
            CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
            GError **error)
{
  g_return_val_if_fail ((a || m) && g && p && grid && o, NULL);
  if (!ctr_recon_options_validate (o, error))
    return NULL;
  if (!ctr_method_is_iterative (o->method))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "%s is not an iterative method", ctr_method_name (o->method));
      return NULL;
    }
  const guint a_views = a ? ctr_sysmat_n_views (a) : ctr_scsr_n_views (m);
  const guint a_cols = a ? ctr_sysmat_n_cols (a) : ctr_scsr_n_cols (m);
  const guint64 a_pixels = a ? ctr_sysmat_n_pixels (a) : ctr_scsr_n_pixels (m);
  if (a_views != g->n_views || a_cols != g->n_cols || a_pixels != (guint64) grid->nx * grid->ny)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the system matrix was built for another geometry or grid");
      return NULL;
    }
  if (p->n_views != g->n_views || p->n_cols != g->n_cols || p->n_rows != g->n_rows
      || grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections (%u × %u × %u), geometry (%u × %u × %u) and %u image slices disagree",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols, grid->nz);
      return NULL;
    }
  if (m != NULL && o->method == CTR_METHOD_ART)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "ART is row-sequential and runs on CSR; SCSR serves parallel ART, SART and SIRT");
      return NULL;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the solvers need line integrals; convert the counts first");
      return NULL;
    }
  if (reference != NULL && !ctr_grid_equal (&reference->grid, grid))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the reference is on another grid than the reconstruction");
      return NULL;
    }

  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");

  CtrSolve st = { 0 };
  st.a = a;
  st.m = m;
  st.p = p;
  st.g = g;
  st.o = o;
  st.ns = grid->nz;
  st.n_views = g->n_views;
  st.n_cols = g->n_cols;
  st.nr = (guint64) a_views * a_cols;
  st.np = a_pixels;
  st.x = vol->data;
  st.cancellable = cancellable;
  st.b = g_try_new (float, (gsize) st.ns * st.nr);
  st.r = g_try_new0 (float, (gsize) st.ns * st.nr);
  st.valid = g_new (guint8, (gsize) st.ns * st.n_cols);
  /* Per-ray norms of the CSR path (SCSR keeps them per stored row). */
  if (a != NULL)
    {
      st.inv_sq = g_new (float, st.nr);
      st.inv_sum = g_new (float, st.nr);
    }
  g_autofree float *kappa = NULL, *inv_colsum = NULL;
  g_autoptr (CtrSymmetry) orbits = NULL;
  CtrScsrSolve *ss = NULL;
  g_autoptr (CtrVolume) ref_masked = NULL;
  CtrVolume *result = NULL;
  if (st.b == NULL || st.r == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the sinogram work space (%u slices × %" G_GUINT64_FORMAT " rays)",
                   st.ns, st.nr);
      goto out;
    }

  /* Sinograms in solver order: slice s ↔ detector row ctr_geometry_slice_row. */
  for (guint s = 0; s < st.ns; s++)
    {
      guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < st.n_views; v++)
        memcpy (st.b + (gsize) s * st.nr + (gsize) v * st.n_cols,
                ctr_projections_view (p, v) + (gsize) row * p->n_cols, p->n_cols * sizeof (float));
      for (guint c = 0; c < st.n_cols; c++)
        st.valid[(gsize) s * st.n_cols + c] = p->mask ? p->mask[(gsize) row * p->n_cols + c] : 1;
    }
  if (m != NULL)
    {
      ss = ctr_scsr_solve_new (&st, error);
      if (ss == NULL)
        goto out;
    }
  else
    {
      ctr_sysmat_row_sums (a, st.inv_sq, st.inv_sum);
      for (guint64 i = 0; i < st.nr; i++)
        {
          st.inv_sq[i] = st.inv_sq[i] > 0 ? 1.f / st.inv_sq[i] : 0.f;
          st.inv_sum[i] = st.inv_sum[i] > 0 ? 1.f / st.inv_sum[i] : 0.f;
        }
      if (o->method == CTR_METHOD_PART && o->subsets == CTR_SUBSETS_ORBIT)
        {
          orbits = ctr_symmetry_find (g, grid, CTR_SYM_ALL);
          st.orbits = orbits;
          kappa = ctr_part_orbit_sparsity (&st);
        }
      else if (o->method == CTR_METHOD_PART)
        kappa = ctr_part_sparsity (a);
      if (o->method == CTR_METHOD_SIRT)
        inv_colsum = ctr_sirt_inverse_colsum (&st);
    }

  gint64 t_start = g_get_monotonic_time ();
  for (guint it = 1; it <= o->iterations; it++)
    {
      gint64 t0 = g_get_monotonic_time ();
      gboolean ok = FALSE;
      if (ss != NULL)
        ok = ctr_scsr_solve_iterate (&st, ss, error);
      else switch (o->method)
        {
        case CTR_METHOD_ART:  ok = ctr_art_iterate (&st, error); break;
        case CTR_METHOD_PART:
          ok = st.orbits ? ctr_part_iterate_orbits (&st, kappa, error) : ctr_part_iterate (&st, kappa, error);
          break;
        case CTR_METHOD_SART: ok = ctr_sart_iterate (&st, error); break;
        case CTR_METHOD_SIRT: ok = ctr_sirt_iterate (&st, inv_colsum, error); break;
        case CTR_METHOD_FBP:
        case CTR_N_METHODS:
        default: g_assert_not_reached ();
        }
      if (!ok)
        goto out;
      gint64 t1 = g_get_monotonic_time ();

      if (callback != NULL)
        {
          CtrIterStats stats = { 0 };
          stats.method = o->method;
          stats.iteration = it;
          stats.n_iterations = o->iterations;
          stats.iteration_s = (t1 - t0) / 1e6;
          stats.residual = relative_residual (&st);
          ctr_iter_stats_set_quality (&stats, vol, reference, o->metrics_radius_mm);
          stats.elapsed_s = (g_get_monotonic_time () - t_start) / 1e6;
          stats.image = vol;
          callback (&stats, user_data);
        }
    }
  result = g_steal_pointer (&vol);

out:
  ctr_scsr_solve_free (ss);
  g_free (st.b);
  g_free (st.r);
  g_free (st.valid);
  g_free (st.inv_sq);
  g_free (st.inv_sum);
  return result;
}

CtrVolume *
ctr_solver_run (const CtrSysmat *a, const CtrGeometry *g, const CtrProjections *p,
                const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *reference,
                CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                GError **error)
{
  g_return_val_if_fail (a != NULL, NULL);
  return solver_run (a, NULL, g, p, grid, o, reference, callback, user_data, cancellable, error);
}

CtrVolume *
ctr_solver_run_scsr (const CtrScsr *m, const CtrGeometry *g, const CtrProjections *p,
                     const CtrGrid *grid, const CtrReconOptions *o, const CtrVolume *reference,
                     CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                     GError **error)
{
  g_return_val_if_fail (m != NULL, NULL);
  return solver_run (NULL, m, g, p, grid, o, reference, callback, user_data, cancellable, error);
}
