/* ctr-cone-solve.c — cone-beam SART and SIRT with the on-the-fly Joseph pair
 * (see ctr-cone-solve.h for the update equations). */
#include "ctr-cone-solve.h"
#include "ctr-error.h"

#include <math.h>
#include <string.h>

typedef struct {
  const CtrConeProjector *cp;
  const CtrProjections *p;
  const CtrReconOptions *o;
  gsize nvox, per_view;
  float *x;        /* the image, [z][y][x] */
  float *inv_row;  /* 1 / row sums, [view][row][col] (0 where the sum is 0) */
  float *ax;       /* scratch: A x, one view or all */
  float *bp;       /* scratch: Aᵀ r */
  float *cs;       /* scratch: Aᵀ 1 */
  guint *order;    /* SART's view order */
} Solve;

static int
cmp_by_key (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const double *key = user_data;
  double x = key[*(const guint *) a], y = key[*(const guint *) b];
  return x < y ? -1 : x > y ? 1 : 0;
}

/* SART's view order: view k goes to the place of frac(k·φ) among all views
 * (the golden-ratio sequence), so consecutive updates come from views far
 * apart in angle — the usual remedy for SART's slow progress when
 * neighbouring views, which carry nearly the same information, follow each
 * other (Herman & Meyer 1993, "Algebraic reconstruction techniques can be
 * made computationally efficient").  Deterministic; every view once. */
static guint *
spread_order (guint n)
{
  g_autofree double *key = g_new (double, n);
  guint *order = g_new (guint, n);
  const double phi = 0.5 * (sqrt (5.0) - 1.0);
  for (guint k = 0; k < n; k++)
    {
      double x = k * phi;
      key[k] = x - floor (x);
      order[k] = k;
    }
  g_qsort_with_data (order, (gint) n, sizeof (guint), cmp_by_key, key);
  /* order[] now lists k by increasing frac(kφ); invert the roles: the i-th
   * update takes the view whose slot is i when views are spread by φ. */
  guint *visit = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    visit[order[i]] = i;
  g_free (order);
  return visit;
}

static float *
try_floats (gsize n, const char *what, GError **error)
{
  float *p = g_try_malloc0_n (n, sizeof (float));
  if (p == NULL)
    g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                 "cone solver: cannot allocate %s (%" G_GSIZE_FORMAT " floats)", what, n);
  return p;
}

static void
clip_nonnegative (float *x, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) n; i++)
    if (x[i] < 0.0f)
      x[i] = 0.0f;
}

/* x += λ bp / cs where cs > 0. */
static void
apply_update (float *x, const float *bp, const float *cs, gsize n, float lambda)
{
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) n; i++)
    if (cs[i] > 0.0f)
      x[i] += lambda * bp[i] / cs[i];
}

static gboolean
sart_iteration (Solve *s, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = ctr_cone_projector_geometry (s->cp);
  const float lambda = (float) s->o->relaxation;
  for (guint t = 0; t < g->n_views; t++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      const guint v = s->order[t];
      const float *b = ctr_projections_view (s->p, v);
      const float *ir = s->inv_row + s->per_view * v;
      ctr_cone_projector_forward_view (s->cp, s->x, v, s->ax);
      for (gsize i = 0; i < s->per_view; i++)
        s->ax[i] = (b[i] - s->ax[i]) * ir[i];
      memset (s->bp, 0, s->nvox * sizeof (float));
      memset (s->cs, 0, s->nvox * sizeof (float));
      ctr_cone_projector_adjoint_view (s->cp, s->ax, v, s->bp, s->cs);
      apply_update (s->x, s->bp, s->cs, s->nvox, lambda);
      if (s->o->nonnegative)
        clip_nonnegative (s->x, s->nvox);
    }
  return TRUE;
}

static gboolean
sirt_iteration (Solve *s, const float *inv_col, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = ctr_cone_projector_geometry (s->cp);
  memset (s->bp, 0, s->nvox * sizeof (float));
  for (guint v = 0; v < g->n_views; v++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      const float *b = ctr_projections_view (s->p, v);
      const float *ir = s->inv_row + s->per_view * v;
      ctr_cone_projector_forward_view (s->cp, s->x, v, s->ax);
      for (gsize i = 0; i < s->per_view; i++)
        s->ax[i] = (b[i] - s->ax[i]) * ir[i];
      ctr_cone_projector_adjoint_view (s->cp, s->ax, v, s->bp, NULL);
    }
  const float lambda = (float) s->o->relaxation;
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) s->nvox; i++)
    s->x[i] += lambda * s->bp[i] * inv_col[i];
  if (s->o->nonnegative)
    clip_nonnegative (s->x, s->nvox);
  return TRUE;
}

/* ||b - A x|| / ||b|| over all rays. */
static gboolean
residual (Solve *s, double *out, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = ctr_cone_projector_geometry (s->cp);
  double num = 0.0, den = 0.0;
  for (guint v = 0; v < g->n_views; v++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      const float *b = ctr_projections_view (s->p, v);
      ctr_cone_projector_forward_view (s->cp, s->x, v, s->ax);
      for (gsize i = 0; i < s->per_view; i++)
        {
          double d = (double) b[i] - s->ax[i];
          num += d * d;
          den += (double) b[i] * b[i];
        }
    }
  *out = den > 0.0 ? sqrt (num / den) : sqrt (num);
  return TRUE;
}

CtrVolume *
ctr_cone_solve_run (const CtrConeProjector *cp, const CtrProjections *p,
                    const CtrReconOptions *o, const CtrVolume *reference,
                    CtrIterFunc callback, gpointer user_data,
                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (cp != NULL && p != NULL && o != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  const CtrGeometry *g = ctr_cone_projector_geometry (cp);
  const CtrGrid *grid = ctr_cone_projector_grid (cp);
  if (o->method != CTR_METHOD_SART && o->method != CTR_METHOD_SIRT)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the cone-beam solver runs SART or SIRT, not %s", ctr_method_name (o->method));
      return NULL;
    }
  if (!ctr_recon_options_validate (o, error))
    return NULL;
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols
      || p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "cone solver: projections are %u × %u × %u (%s) but the geometry says %u × %u × %u",
                   p->n_views, p->n_rows, p->n_cols,
                   p->kind == CTR_PROJ_LINE_INTEGRALS ? "line integrals" : "counts",
                   g->n_views, g->n_rows, g->n_cols);
      return NULL;
    }
  if (reference != NULL && !ctr_grid_equal (&reference->grid, grid))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "cone solver: the reference is not on the reconstruction grid");
      return NULL;
    }

  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");

  Solve s = { .cp = cp, .p = p, .o = o, .nvox = ctr_grid_size (grid),
              .per_view = (gsize) g->n_rows * g->n_cols, .x = vol->data };
  const gsize nrays = s.per_view * g->n_views;
  g_autofree float *inv_row = try_floats (nrays, "row sums", error);
  g_autofree float *ax = inv_row ? try_floats (s.per_view, "a view", error) : NULL;
  g_autofree float *bp = ax ? try_floats (s.nvox, "a volume", error) : NULL;
  g_autofree float *cs = bp ? try_floats (s.nvox, "a volume", error) : NULL;
  if (cs == NULL)
    return NULL;
  g_autofree guint *order = spread_order (g->n_views);
  s.order = order;
  s.inv_row = inv_row;
  s.ax = ax;
  s.bp = bp;
  s.cs = cs;

  /* Row sums: A·1, one view at a time; dead detector pixels get no weight. */
  {
    g_autofree float *ones = try_floats (s.nvox, "a volume", error);
    if (ones == NULL)
      return NULL;
    for (gsize i = 0; i < s.nvox; i++)
      ones[i] = 1.0f;
    for (guint v = 0; v < g->n_views; v++)
      {
        if (g_cancellable_set_error_if_cancelled (cancellable, error))
          return NULL;
        float *ir = inv_row + s.per_view * v;
        ctr_cone_projector_forward_view (cp, ones, v, ir);
        for (gsize i = 0; i < s.per_view; i++)
          {
            gboolean dead = p->mask != NULL && p->mask[i] == 0;
            ir[i] = ir[i] > 1e-6f && !dead ? 1.0f / ir[i] : 0.0f;
          }
      }
  }
  g_autofree float *inv_col = NULL;
  if (o->method == CTR_METHOD_SIRT)
    {
      /* Column sums Aᵀ·1 over the rays that carry weight. */
      inv_col = try_floats (s.nvox, "column sums", error);
      if (inv_col == NULL)
        return NULL;
      for (guint v = 0; v < g->n_views; v++)
        {
          for (gsize i = 0; i < s.per_view; i++)
            ax[i] = inv_row[s.per_view * v + i] > 0.0f ? 1.0f : 0.0f;
          ctr_cone_projector_adjoint_view (cp, ax, v, inv_col, NULL);
        }
      for (gsize i = 0; i < s.nvox; i++)
        inv_col[i] = inv_col[i] > 0.0f ? 1.0f / inv_col[i] : 0.0f;
    }

  const gint64 t0 = g_get_monotonic_time ();
  for (guint it = 1; it <= o->iterations; it++)
    {
      const gint64 ti = g_get_monotonic_time ();
      gboolean ok = o->method == CTR_METHOD_SART ? sart_iteration (&s, cancellable, error)
                                                 : sirt_iteration (&s, inv_col, cancellable, error);
      if (!ok)
        return NULL;
      const double it_s = (g_get_monotonic_time () - ti) / 1e6;
      if (callback != NULL)
        {
          CtrIterStats st = { 0 };
          st.method = o->method;
          st.iteration = it;
          st.n_iterations = o->iterations;
          st.iteration_s = it_s;
          if (!residual (&s, &st.residual, cancellable, error))
            return NULL;
          ctr_iter_stats_set_quality (&st, vol, reference, o->metrics_radius_mm);
          st.elapsed_s = (g_get_monotonic_time () - t0) / 1e6;
          st.image = vol;
          callback (&st, user_data);
        }
    }
  return g_steal_pointer (&vol);
}
