/* ctr-csr-op.c — the plain CSR matrix (ctr-sysmat.h) as a CPU operator
 * (ctr-operator.h).
 *
 * Native layouts are the natural ones of the matrix: images x[slice][pixel],
 * data [slice][view·n_cols + col].  Subsets are single views in acquisition
 * order, or the views of one symmetry orbit (ctr-symmetry.h: the identical
 * algorithm the SCSR operator runs, as its reference).  The matrix products
 * are those of ctr-sysmat.c (SpMM over the slices, race-free adjoint); the
 * sequential update is ART (Kaczmarz, cuART Eq. 1), row by row, one slice
 * per thread.
 */
#include "sysmat/ctr-csr-op.h"
#include "base/ctr-error.h"
#include "base/ctr-format.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>

typedef struct {
  CtrOperator parent;
  CtrSysmat *a;
  CtrSymmetry *orbits;  /* NULL: one view per subset */
  guint K;              /* views per subset (1 without orbits) */
  guint ns, nc, nv;
  guint64 nr, np;
  float *r;             /* [slice][ray] scratch: residual weights */
  float *upd;           /* [slice][pixel] scratch: the update of a scaled step */
  float *cs;            /* [pixel] scratch: one subset's column sums */
  float *ones;          /* [ray] 1 */
  float *kappa;         /* [subset] κ, made on first use */
} CsrOp;

static void
csr_op_finalize (CtrOperator *op)
{
  CsrOp *c = (CsrOp *) op;
  ctr_sysmat_unref (c->a);
  if (c->orbits)
    ctr_symmetry_free (c->orbits);
  g_free (c->r);
  g_free (c->upd);
  g_free (c->cs);
  g_free (c->ones);
  g_free (c->kappa);
  ctr_operator_clear (op);
  g_free (c);
}

static void
csr_image_copy (CtrOperator *op, const float *from, float *to)
{
  if (from != to)
    memcpy (to, from, op->image_size * sizeof (float));
}

static void
csr_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  CsrOp *c = (CsrOp *) op;
  const CtrGeometry *g = op->geometry;
  const gsize per_view = (gsize) g->n_rows * g->n_cols;
  for (guint s = 0; s < c->ns; s++)
    {
      const guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < c->nv; v++)
        memcpy (Y + (gsize) s * c->nr + (gsize) v * c->nc, proj + (gsize) v * per_view + (gsize) row * c->nc,
                c->nc * sizeof (float));
    }
}

/* The views of subset @subset: @n_out of them into @views. */
static guint
subset_views (const CsrOp *c, guint subset, gint32 *views)
{
  if (c->orbits == NULL)
    {
      views[0] = (gint32) subset;
      return 1;
    }
  return ctr_symmetry_orbit_views (c->orbits, subset, views);
}

static gboolean
csr_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  if (subset == CTR_SUBSET_ALL)
    {
      ctr_sysmat_apply (c->a, X, Y, c->ns);
      return TRUE;
    }
  gint32 views[8];
  for (guint q = 0, n = subset_views (c, subset, views); q < n; q++)
    ctr_sysmat_apply_rows (c->a, (guint64) views[q] * c->nc, (guint64) (views[q] + 1) * c->nc, X, Y, c->ns);
  return TRUE;
}

/* D += A_Sᵀ Y */
static void
adjoint_add (CsrOp *c, guint subset, const float *Y, float *D)
{
  if (subset == CTR_SUBSET_ALL)
    {
      ctr_sysmat_apply_adjoint_rows (c->a, 0, c->nr, Y, D, c->ns);
      return;
    }
  gint32 views[8];
  for (guint q = 0, n = subset_views (c, subset, views); q < n; q++)
    ctr_sysmat_apply_adjoint_rows (c->a, (guint64) views[q] * c->nc, (guint64) (views[q] + 1) * c->nc, Y, D, c->ns);
}

static gboolean
csr_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  memset (D, 0, op->image_size * sizeof (float));
  adjoint_add (c, subset, Y, D);
  return TRUE;
}

static void
clip (float *x, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    x[q] = x[q] > 0.f ? x[q] : 0.f;
}

/* r = coef ∘ (B − r) on the rays of view @v, every slice. */
static void
residual_weights (CsrOp *c, guint v, const float *B, const float *coef, float step)
{
  const guint64 b = (guint64) v * c->nc, e = b + c->nc;
  for (guint s = 0; s < c->ns; s++)
    {
      float *r = c->r + (gsize) s * c->nr;
      const float *bb = B + (gsize) s * c->nr, *cc = coef + (gsize) s * c->nr;
      for (guint64 i = b; i < e; i++)
        r[i] = step * cc[i] * (bb[i] - r[i]);
    }
}

/* Kaczmarz over the rays of view @v for slice @s (ART, cuART Eq. 1):
 * x += λ coef_i (b_i − a_i·x) a_i, ray by ray. */
static void
art_view_slice (CsrOp *c, guint v, guint s, float *X, const float *B, const float *coef, float lambda,
                gboolean nonneg)
{
  const gint64 *rp;
  const guint32 *ci;
  const float *va;
  ctr_sysmat_csr (c->a, &rp, &ci, &va);
  float *x = X + (gsize) s * c->np;
  const float *b = B + (gsize) s * c->nr, *cc = coef + (gsize) s * c->nr;
  for (guint col = 0; col < c->nc; col++)
    {
      const guint64 i = (guint64) v * c->nc + col;
      if (cc[i] == 0.f)
        continue;
      float dot = 0.f;
      for (gint64 k = rp[i]; k < rp[i + 1]; k++)
        dot += va[k] * x[ci[k]];
      const float step = lambda * cc[i] * (b[i] - dot);
      if (nonneg)
        for (gint64 k = rp[i]; k < rp[i + 1]; k++)
          {
            float nx = x[ci[k]] + step * va[k];
            x[ci[k]] = nx > 0.f ? nx : 0.f;
          }
      else
        for (gint64 k = rp[i]; k < rp[i + 1]; k++)
          x[ci[k]] += step * va[k];
    }
}

static gboolean
csr_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
            CtrUpdateFlags flags, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  const gboolean nonneg = (flags & CTR_UPDATE_NONNEG) != 0;
  if (subset == CTR_SUBSET_ALL)
    {
      g_return_val_if_fail (!(flags & CTR_UPDATE_SEQUENTIAL), FALSE);
      ctr_sysmat_apply (c->a, X, c->r, c->ns);
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < (gint64) op->data_size; q++)
        c->r[q] = step * coef[q] * (B[q] - c->r[q]);
      float *target = D != NULL ? D : c->upd;
      if (D == NULL)
        memset (c->upd, 0, op->image_size * sizeof (float));
      ctr_sysmat_apply_adjoint_rows (c->a, 0, c->nr, c->r, target, c->ns);
      if (D != NULL)
        return TRUE;
      float *scale = NULL;
      if (flags & CTR_UPDATE_COLUMN_SCALE)
        {
          ctr_sysmat_apply_adjoint (c->a, c->ones, c->cs, 1);
          scale = c->cs;
        }
      for (guint s = 0; s < c->ns; s++)
        {
          float *x = X + (gsize) s * c->np;
          const float *u = c->upd + (gsize) s * c->np;
#pragma omp parallel for schedule(static)
          for (guint64 j = 0; j < c->np; j++)
            if (scale == NULL || scale[j] > 0.f)
              x[j] += scale ? u[j] / scale[j] : u[j];
        }
      if (nonneg)
        clip (X, op->image_size);
      return TRUE;
    }

  gint32 views[8];
  const guint n = subset_views (c, subset, views);
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      for (guint q = 0; q < n; q++)
        {
#pragma omp parallel for schedule(static) if (c->ns > 1)
          for (guint s = 0; s < c->ns; s++)
            art_view_slice (c, (guint) views[q], s, X, B, coef, step, nonneg);
        }
      return TRUE;
    }
  /* All forward products of the subset before any update (cuART Eq. 9). */
  for (guint q = 0; q < n; q++)
    {
      const guint64 b = (guint64) views[q] * c->nc;
      ctr_sysmat_apply_rows (c->a, b, b + c->nc, X, c->r, c->ns);
      residual_weights (c, (guint) views[q], B, coef, step);
    }
  if (D != NULL)
    {
      adjoint_add (c, subset, c->r, D);
      return TRUE;
    }
  if (!(flags & CTR_UPDATE_COLUMN_SCALE))
    {
      adjoint_add (c, subset, c->r, X);
      if (nonneg)
        clip (X, op->image_size);
      return TRUE;
    }
  /* SART: the update divided by the subset's column sums, made on the fly
   * (one table per view would be n_views × n_pixels). */
  memset (c->upd, 0, op->image_size * sizeof (float));
  memset (c->cs, 0, c->np * sizeof (float));
  adjoint_add (c, subset, c->r, c->upd);
  for (guint q = 0; q < n; q++)
    ctr_sysmat_apply_adjoint_rows (c->a, (guint64) views[q] * c->nc, (guint64) (views[q] + 1) * c->nc,
                                   c->ones, c->cs, 1);
  for (guint s = 0; s < c->ns; s++)
    {
      float *x = X + (gsize) s * c->np;
      const float *u = c->upd + (gsize) s * c->np;
#pragma omp parallel for schedule(static)
      for (guint64 j = 0; j < c->np; j++)
        if (c->cs[j] > 0.f)
          x[j] += u[j] / c->cs[j];
    }
  if (nonneg)
    clip (X, op->image_size);
  return TRUE;
}

static gboolean
csr_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  for (guint s = 0; s < c->ns; s++)
    {
      float *x = X + (gsize) s * c->np, *d = D + (gsize) s * c->np;
#pragma omp parallel for schedule(static)
      for (guint64 j = 0; j < c->np; j++)
        {
          float nv = x[j] + (scale ? scale[j] * d[j] : d[j]);
          x[j] = (flags & CTR_UPDATE_NONNEG) && nv < 0.f ? 0.f : nv;
          d[j] = 0.f;
        }
    }
  return TRUE;
}

static gboolean
csr_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  memset (out, 0, c->np * sizeof (float));
  if (subset == CTR_SUBSET_ALL)
    {
      ctr_sysmat_apply_adjoint_rows (c->a, 0, c->nr, c->ones, out, 1);
      return TRUE;
    }
  gint32 views[8];
  for (guint q = 0, n = subset_views (c, subset, views); q < n; q++)
    ctr_sysmat_apply_adjoint_rows (c->a, (guint64) views[q] * c->nc, (guint64) (views[q] + 1) * c->nc,
                                   c->ones, out, 1);
  return TRUE;
}

static void
csr_row_sums (CtrOperator *op, float *sq, float *sum)
{
  CsrOp *c = (CsrOp *) op;
  ctr_sysmat_row_sums (c->a, sq, sum);
  /* The same matrix for every slice. */
  for (guint s = 1; s < c->ns; s++)
    {
      if (sq)
        memcpy (sq + (gsize) s * c->nr, sq, c->nr * sizeof (float));
      if (sum)
        memcpy (sum + (gsize) s * c->nr, sum, c->nr * sizeof (float));
    }
}

static guint64
csr_subset_rays (CtrOperator *op, guint subset)
{
  CsrOp *c = (CsrOp *) op;
  gint32 views[8];
  return (guint64) subset_views (c, subset, views) * c->nc;
}

/* κ of every subset: the largest number of its rays crossing one pixel.
 * Each thread counts in a pixel-sized table; the threads run as many as
 * tables could be allocated, and where not even one could, κ is the bound
 * of cuART's step, the subset's ray count (csr_subset_rays: smaller steps,
 * never a larger one). */
static void
overlaps (CsrOp *c, float *kappa)
{
  const gint64 *rp;
  const guint32 *ci;
  ctr_sysmat_csr (c->a, &rp, &ci, NULL);
  const guint n_sub = c->parent.n_subsets;
  const guint T = (guint) MAX (1, omp_get_max_threads ());
  g_autofree guint32 **counts = g_new0 (guint32 *, T);
  guint n_ok = 0;
  while (n_ok < T && (counts[n_ok] = g_try_new0 (guint32, MAX (c->np, 1))) != NULL)
    n_ok++;
  if (n_ok == 0)
    {
      for (guint t = 0; t < n_sub; t++)
        kappa[t] = (float) csr_subset_rays (&c->parent, t);
      return;
    }
#pragma omp parallel num_threads(n_ok)
  {
    guint32 *count = counts[omp_get_thread_num ()];
#pragma omp for schedule(dynamic, 4)
    for (guint t = 0; t < n_sub; t++)
      {
        gint32 views[8];
        const guint n = subset_views (c, t, views);
        guint32 mx = 1;
        for (int pass = 0; pass < 2; pass++)
          for (guint q = 0; q < n; q++)
            {
              const guint64 b = (guint64) views[q] * c->nc, e = b + c->nc;
              for (gint64 k = rp[b]; k < rp[e]; k++)
                if (pass == 0)
                  {
                    const guint32 n_here = ++count[ci[k]];
                    mx = MAX (mx, n_here);
                  }
                else
                  count[ci[k]] = 0;
            }
        kappa[t] = (float) mx;
      }
  }
  for (guint i = 0; i < n_ok; i++)
    g_free (counts[i]);
}

static gboolean
csr_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  CsrOp *c = (CsrOp *) op;
  if (c->kappa == NULL)
    {
      float *k = ctr_memory_try_new (op->n_subsets, sizeof (float), FALSE, "the subsets' overlaps", error);
      if (k == NULL)
        return FALSE;
      overlaps (c, k);
      c->kappa = k;
    }
  *kappa = c->kappa[subset];
  return TRUE;
}

static const CtrOperatorClass csr_class = {
  .name = "cpu-csr",
  .finalize = csr_op_finalize,
  .image_to_native = csr_image_copy,
  .image_from_native = csr_image_copy,
  .data_gather = csr_data_gather,
  .data_scatter = ctr_operator_stack_data_scatter,
  .forward = csr_forward,
  .adjoint = csr_adjoint,
  .update = csr_update,
  .finish = csr_finish,
  .column_sums = csr_column_sums,
  .row_sums = csr_row_sums,
  .subset_overlap = csr_subset_overlap,
  .subset_rays = csr_subset_rays,
};

CtrOperator *
ctr_csr_op_new (CtrSysmat *a, CtrSymmetry *orbits, const CtrGeometry *g, const CtrGrid *grid,
                GError **error)
{
  g_return_val_if_fail (a != NULL && g != NULL && grid != NULL, NULL);
  if (ctr_sysmat_n_views (a) != g->n_views || ctr_sysmat_n_cols (a) != g->n_cols
      || ctr_sysmat_n_pixels (a) != (guint64) grid->nx * grid->ny || grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the system matrix was built for another geometry or grid");
      if (orbits)
        ctr_symmetry_free (orbits);
      return NULL;
    }
  CsrOp *c = g_new0 (CsrOp, 1);
  CtrOperator *op = &c->parent;
  c->a = ctr_sysmat_ref (a);
  c->orbits = orbits;
  if (!ctr_operator_init (op, &csr_class, g, grid, grid->nz, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  c->K = orbits ? orbits->group.order : 1;
  c->ns = grid->nz;
  c->nc = g->n_cols;
  c->nv = g->n_views;
  c->nr = ctr_sysmat_n_rays (a);
  c->np = ctr_sysmat_n_pixels (a);
  op->image_size = (gsize) c->np * c->ns;
  op->data_size = (gsize) c->nr * c->ns;
  op->scale_size = c->np;
  op->n_subsets = orbits ? orbits->n_orbits : c->nv;
  op->can_update_sequential = orbits == NULL;
  g_autofree char *size = ctr_format_bytes (ctr_sysmat_bytes (a));
  op->description = orbits
    ? g_strdup_printf ("CSR, %u orbit subsets (%s); %s", orbits->n_orbits, orbits->reason, size)
    : g_strdup_printf ("CSR, one view per subset; %s", size);
  c->r = g_try_new0 (float, op->data_size);
  c->upd = g_try_new0 (float, op->image_size);
  c->cs = g_try_new0 (float, c->np);
  c->ones = g_try_new (float, c->nr);
  if (!c->r || !c->upd || !c->cs || !c->ones)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the CSR operator's work space (%u slices × %" G_GUINT64_FORMAT " rays)",
                   c->ns, c->nr);
      ctr_operator_unref (op);
      return NULL;
    }
  for (guint64 i = 0; i < c->nr; i++)
    c->ones[i] = 1.f;
  return op;
}
