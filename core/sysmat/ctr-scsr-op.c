/* ctr-scsr-op.c — the symmetry-compressed matrix as an operator on the CPU
 * (ctr-operator.h), with the views of one symmetry orbit as one subset.
 *
 * Native layouts are those of the orbit kernels (ctr-scsr.h): the packed
 * image X[rep][slice][K] and the lane order [orbit][stored column j][slice][K].
 * One subset update (cuART Eq. 9 for parallel ART; Andersen & Kak 1984
 * Eq. 5 with COLUMN_SCALE) reads each stored row once for the K views of the
 * orbit: each stored element is one SIMD FMA over K lanes.  Each OpenMP
 * thread owns whole parts of the pixel reps (ctr_symmetry_partition):
 * phase 1 forward over its parts into its own partial sums, a barrier,
 * every thread all the residuals (so no second barrier), phase 2
 * back-projection straight into the image (or the update image) over its
 * parts — no atomics and no per-thread image copies (the orbit's rows, ~6 MB
 * at W1, are read twice, the second time from cache).
 */
#include "sysmat/ctr-scsr-op.h"
#include "sysmat/ctr-scsr-private.h"
#include "base/ctr-error.h"
#include "base/ctr-format.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>

typedef struct {
  CtrScsrOpBase base;
  CtrScsr *m;           /* = base.m */
  const CtrSymmetry *sy;
  guint K, P, nc, no, ns, T;
  gsize lane_size;      /* floats of one orbit's lane-ordered data: nc·ns·K */
  gsize psize1;         /* packed size of one slice */
  float **acc;          /* per-thread forward partial sums, lane_size each */
  float **v;            /* per-thread residual weights of the current orbit, lane_size each */
  float *D;             /* update image of the fused steps (SART), packed */
  float **saved;        /* per-part values of the reps on a symmetry axis */
  float *inv_colsum;    /* [orbit][rep][K]: 1 / column sums of each orbit, made on first use */
} ScsrOp;

static void
scsr_op_finalize (CtrOperator *op)
{
  ScsrOp *s = (ScsrOp *) op;
  for (guint t = 0; s->acc && t < s->T; t++)
    {
      g_free (s->acc[t]);
      if (s->v)
        g_free (s->v[t]);
    }
  g_free (s->acc);
  for (guint p = 0; s->saved && p < s->P; p++)
    g_free (s->saved[p]);
  g_free (s->saved);
  g_free (s->v);
  g_free (s->D);
  g_free (s->inv_colsum);
  ctr_scsr_op_clear_common (&s->base);
  g_free (s);
}

void
ctr_scsr_op_image_to_native (CtrOperator *op, const float *x, float *X)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  ctr_scsr_pack (b->m, x, X, op->n_slices);
}

void
ctr_scsr_op_image_from_native (CtrOperator *op, const float *X, float *x)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  ctr_scsr_unpack (b->m, X, x, op->n_slices);
}

void
ctr_scsr_op_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  const CtrGeometry *g = op->geometry;
  const CtrSymmetry *sy = ctr_scsr_symmetry (b->m);
  const guint K = ctr_scsr_order (b->m), nc = g->n_cols, no = ctr_scsr_n_orbits (b->m), ns = op->n_slices;
  const gsize per_view = (gsize) g->n_rows * nc, lane_size = (gsize) nc * ns * K;
#pragma omp parallel for schedule(static)
  for (guint o = 0; o < no; o++)
    for (guint k = 0; k < K; k++)
      {
        const gint32 v = sy->lane_view[(gsize) o * K + k];
        for (guint j = 0; j < nc; j++)
          for (guint sl = 0; sl < ns; sl++)
            {
              const gsize q = o * lane_size + ((gsize) j * ns + sl) * K + k;
              if (v < 0)
                Y[q] = 0.f;
              else
                Y[q] = proj[(gsize) v * per_view + (gsize) ctr_geometry_slice_row (g, sl) * nc
                            + ctr_symmetry_lane_col (sy, k, j)];
            }
      }
}

/* Each view from the first lane that holds it (a view an element of the
 * group maps onto itself fills two lanes with the same rays). */
void
ctr_scsr_op_data_scatter (CtrOperator *op, const float *Y, float *proj)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  const CtrGeometry *g = op->geometry;
  const CtrSymmetry *sy = ctr_scsr_symmetry (b->m);
  const guint K = ctr_scsr_order (b->m), nc = g->n_cols, ns = op->n_slices;
  const gsize per_view = (gsize) g->n_rows * nc, lane_size = (gsize) nc * ns * K;
#pragma omp parallel for schedule(static)
  for (guint v = 0; v < g->n_views; v++)
    {
      const guint o = sy->view_orbit[v], k = sy->view_lane[v];
      float *out = proj + (gsize) v * per_view;
      memset (out, 0, per_view * sizeof (float));
      for (guint sl = 0; sl < ns; sl++)
        {
          float *row = out + (gsize) ctr_geometry_slice_row (g, sl) * nc;
          for (guint j = 0; j < nc; j++)
            row[ctr_symmetry_lane_col (sy, k, j)] = Y[o * lane_size + ((gsize) j * ns + sl) * K + k];
        }
    }
}

/* The orbits a subset names. */
static inline void
orbit_range (const ScsrOp *s, guint subset, guint *o0, guint *o1)
{
  *o0 = subset == CTR_SUBSET_ALL ? 0 : subset;
  *o1 = subset == CTR_SUBSET_ALL ? s->no : subset + 1;
}

static gboolean
scsr_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  ScsrOp *s = (ScsrOp *) op;
  guint o0, o1;
  orbit_range (s, subset, &o0, &o1);
#pragma omp parallel for schedule(dynamic, 1)
  for (guint o = o0; o < o1; o++)
    {
      float *y = Y + o * s->lane_size;
      memset (y, 0, s->lane_size * sizeof (float));
      for (guint p = 0; p < s->P; p++)
        ctr_scsr_orbit_forward (s->m, o, p, s->ns, X, y);
    }
  return TRUE;
}

static void
scsr_reduce (CtrOperator *op, float *D)
{
  ScsrOp *s = (ScsrOp *) op;
#pragma omp parallel for schedule(static, 1)
  for (guint p = 0; p < s->P; p++)
    ctr_scsr_reduce_part (s->m, p, s->ns, D);
}

static gboolean
scsr_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  ScsrOp *s = (ScsrOp *) op;
  guint o0, o1;
  orbit_range (s, subset, &o0, &o1);
  memset (D, 0, op->image_size * sizeof (float));
  /* Each thread its own parts: no two threads write one rep. */
#pragma omp parallel for schedule(static, 1)
  for (guint p = 0; p < s->P; p++)
    {
      for (guint o = o0; o < o1; o++)
        ctr_scsr_orbit_adjoint (s->m, o, p, s->ns, Y + o * s->lane_size, D);
      ctr_scsr_reduce_part (s->m, p, s->ns, D);
    }
  return TRUE;
}

/* 1 / column sums of every orbit, one slice ([orbit][rep][K]), once; NULL
 * with CTR_ERROR_OUT_OF_MEMORY when they cannot be had. */
static const float *
orbit_inverse_colsums (ScsrOp *s, GError **error)
{
  if (s->inv_colsum != NULL)
    return s->inv_colsum;
  float *out = ctr_memory_try_new ((gsize) s->psize1 * s->no, sizeof (float), FALSE,
                                   "the SCSR operator's per-orbit column sums", error);
  if (out == NULL)
    return NULL;
  if (!ctr_scsr_inverse_column_sums (s->m, out, error))
    {
      g_free (out);
      return NULL;
    }
  s->inv_colsum = out;
  return out;
}

typedef enum { IN_PLACE, SCALED, ACCUMULATE } Target;

/* One orbit: phase 1 forward (each thread its parts), residual weights
 * coef ∘ (b − A X), phase 2 back-projection over the thread's parts:
 * IN_PLACE into the image (parallel ART), SCALED into the update image then
 * X += scale ∘ update (SART), ACCUMULATE into @Dacc (raw). */
static void
orbit_update (ScsrOp *s, guint o, float *X, const float *B, const float *coef, float step,
              Target target, float *Dacc, const float *scale, gboolean nonneg)
{
  const float *b = B + o * s->lane_size, *c = coef + o * s->lane_size;
#pragma omp parallel num_threads(s->T)
  {
    const guint t = (guint) omp_get_thread_num (), nt = (guint) omp_get_num_threads ();
    float *acc = s->acc[t];
    memset (acc, 0, s->lane_size * sizeof (float));
    for (guint p = t; p < s->P; p += nt)
      ctr_scsr_orbit_forward (s->m, o, p, s->ns, X, acc);
#pragma omp barrier
    /* Every thread the whole residual, into its own buffer: one barrier
     * fewer per orbit (a barrier costs a time slice whenever a thread is
     * descheduled, as on a loaded machine), the same sums in the same order. */
    float *v = s->v[t];
    for (gsize q = 0; q < s->lane_size; q++)
      {
        float a = 0.f;
        for (guint u = 0; u < nt; u++)
          a += s->acc[u][q];
        v[q] = step * c[q] * (b[q] - a);
      }
    for (guint p = t; p < s->P; p += nt)
      switch (target)
        {
        case IN_PLACE:
          ctr_scsr_save_stabilised (s->m, p, s->ns, X, s->saved[p]);
          ctr_scsr_orbit_adjoint (s->m, o, p, s->ns, v, X);
          ctr_scsr_finish_part (s->m, p, s->ns, X, NULL, NULL, nonneg, s->saved[p]);
          break;
        case SCALED:
          ctr_scsr_orbit_adjoint (s->m, o, p, s->ns, v, s->D);
          ctr_scsr_finish_part (s->m, p, s->ns, X, s->D, scale, nonneg, NULL);
          break;
        case ACCUMULATE:
          ctr_scsr_orbit_adjoint (s->m, o, p, s->ns, v, Dacc);
          break;
        }
  }
}

static gboolean
scsr_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
             CtrUpdateFlags flags, GError **error)
{
  ScsrOp *s = (ScsrOp *) op;
  g_return_val_if_fail (!(flags & CTR_UPDATE_SEQUENTIAL), FALSE);
  const gboolean nonneg = (flags & CTR_UPDATE_NONNEG) != 0;
  guint o0, o1;
  orbit_range (s, subset, &o0, &o1);
  if (D != NULL)
    {
      for (guint o = o0; o < o1; o++)
        orbit_update (s, o, X, B, coef, step, ACCUMULATE, D, NULL, FALSE);
      return TRUE;
    }
  if (subset == CTR_SUBSET_ALL)
    {
      /* All rays at once: accumulate every orbit, then one step. */
      g_autofree float *acc = ctr_memory_try_new (op->image_size, sizeof (float), TRUE, "the update image", error);
      if (acc == NULL)
        return FALSE;
      for (guint o = o0; o < o1; o++)
        orbit_update (s, o, X, B, coef, step, ACCUMULATE, acc, NULL, FALSE);
      g_autofree float *inv = NULL;
      if (flags & CTR_UPDATE_COLUMN_SCALE)
        {
          inv = ctr_memory_try_new (s->psize1, sizeof (float), FALSE, "the column sums", error);
          if (inv == NULL)
            return FALSE;
          if (!ctr_scsr_column_sums_all (s->m, inv, error))
            return FALSE;
          for (gsize q = 0; q < s->psize1; q++)
            inv[q] = inv[q] > 0.f ? 1.f / inv[q] : 0.f;
        }
#pragma omp parallel for schedule(static, 1)
      for (guint p = 0; p < s->P; p++)
        ctr_scsr_finish_part (s->m, p, s->ns, X, acc, inv, nonneg, NULL);
      return TRUE;
    }
  if (flags & CTR_UPDATE_COLUMN_SCALE)
    {
      const float *inv = orbit_inverse_colsums (s, error);
      if (inv == NULL)
        return FALSE;
      orbit_update (s, subset, X, B, coef, step, SCALED, NULL, inv + s->psize1 * subset, nonneg);
    }
  else
    orbit_update (s, subset, X, B, coef, step, IN_PLACE, NULL, NULL, nonneg);
  return TRUE;
}

static gboolean
scsr_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  ScsrOp *s = (ScsrOp *) op;
  const gboolean nonneg = (flags & CTR_UPDATE_NONNEG) != 0;
#pragma omp parallel for schedule(static, 1) num_threads(s->T)
  for (guint p = 0; p < s->P; p++)
    ctr_scsr_finish_part (s->m, p, s->ns, X, D, scale, nonneg, NULL);
  return TRUE;
}

gboolean
ctr_scsr_op_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  if (subset == CTR_SUBSET_ALL)
    return ctr_scsr_column_sums_all (b->m, out, error);
  return ctr_scsr_column_sums_orbit (b->m, subset, out, error);
}

void
ctr_scsr_op_row_sums (CtrOperator *op, float *sq, float *sum)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  const CtrSymmetry *sy = ctr_scsr_symmetry (b->m);
  const guint K = ctr_scsr_order (b->m), nc = op->geometry->n_cols, no = ctr_scsr_n_orbits (b->m);
  const guint ns = op->n_slices;
  const gsize lane_size = (gsize) nc * ns * K;
  const float *row_sq = ctr_scsr_row_sq (b->m), *row_sum = ctr_scsr_row_sum (b->m);
#pragma omp parallel for schedule(static)
  for (guint o = 0; o < no; o++)
    for (guint j = 0; j < nc; j++)
      for (guint sl = 0; sl < ns; sl++)
        for (guint k = 0; k < K; k++)
          {
            const gsize q = o * lane_size + ((gsize) j * ns + sl) * K + k;
            const gboolean acquired = sy->lane_view[(gsize) o * K + k] >= 0;
            if (sq)
              sq[q] = acquired ? row_sq[(gsize) o * nc + j] : 0.f;
            if (sum)
              sum[q] = acquired ? row_sum[(gsize) o * nc + j] : 0.f;
          }
}

/* Serialises the first count of κ (operators shared between threads). */
G_LOCK_DEFINE_STATIC (kappa_lock);

gboolean
ctr_scsr_op_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  gboolean ok = TRUE;
  G_LOCK (kappa_lock);
  if (b->kappa == NULL)
    {
      float *k = ctr_memory_try_new (op->n_subsets, sizeof (float), FALSE, "the orbits' overlaps", error);
      if (k != NULL && ctr_scsr_orbit_overlaps (b->m, k, error))
        b->kappa = k;
      else
        {
          g_free (k);
          ok = FALSE;
        }
    }
  if (ok)
    *kappa = b->kappa[subset];
  G_UNLOCK (kappa_lock);
  return ok;
}

guint64
ctr_scsr_op_subset_rays (CtrOperator *op, guint subset)
{
  CtrScsrOpBase *b = (CtrScsrOpBase *) op;
  const CtrSymmetry *sy = ctr_scsr_symmetry (b->m);
  const guint K = ctr_scsr_order (b->m);
  guint lanes = 0;
  for (guint k = 0; k < K; k++)
    lanes += sy->lane_view[(gsize) subset * K + k] >= 0;
  return (guint64) lanes * op->geometry->n_cols;
}

static const CtrOperatorClass scsr_class = {
  .name = "cpu-scsr",
  .finalize = scsr_op_finalize,
  .image_to_native = ctr_scsr_op_image_to_native,
  .image_from_native = ctr_scsr_op_image_from_native,
  .data_gather = ctr_scsr_op_data_gather,
  .data_scatter = ctr_scsr_op_data_scatter,
  .forward = scsr_forward,
  .adjoint = scsr_adjoint,
  .update = scsr_update,
  .reduce = scsr_reduce,
  .finish = scsr_finish,
  .column_sums = ctr_scsr_op_column_sums,
  .row_sums = ctr_scsr_op_row_sums,
  .subset_overlap = ctr_scsr_op_subset_overlap,
  .subset_rays = ctr_scsr_op_subset_rays,
};

gboolean
ctr_scsr_op_check (const CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid, GError **error)
{
  if (ctr_scsr_n_views (m) != g->n_views || ctr_scsr_n_cols (m) != g->n_cols
      || ctr_scsr_n_pixels (m) != (guint64) grid->nx * grid->ny || grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the system matrix was built for another geometry or grid");
      return FALSE;
    }
  return TRUE;
}

void
ctr_scsr_op_clear_common (CtrScsrOpBase *b)
{
  g_free (b->kappa);
  ctr_scsr_unref (b->m);
  ctr_operator_clear (&b->parent);
}

gboolean
ctr_scsr_op_init_common (CtrScsrOpBase *b, const CtrOperatorClass *klass, CtrScsr *m,
                         const CtrGeometry *g, const CtrGrid *grid, GError **error)
{
  CtrOperator *op = &b->parent;
  const guint ns = grid->nz;
  b->m = ctr_scsr_ref (m);
  if (!ctr_operator_init (op, klass, g, grid, ns, error))
    return FALSE;
  op->image_size = ctr_scsr_packed_size (m, ns);
  op->data_size = ctr_scsr_lane_size (m, ns);
  op->scale_size = ctr_scsr_packed_size (m, 1);
  op->n_subsets = ctr_scsr_n_orbits (m);
  /* Inner-product weights: 1 / the number of slots that are one pixel. */
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m);
  gboolean any = FALSE;
  for (guint r = 0; r < sy->n_reps && !any; r++)
    any = sy->rep_stabilised[r] != 0;
  if (any)
    {
      op->image_weight = ctr_memory_try_new (op->image_size, sizeof (float), FALSE,
                                             "the SCSR operator's image weights", error);
      if (op->image_weight == NULL)
        return FALSE;
      for (guint r = 0; r < sy->n_reps; r++)
        {
          const guint32 *px = sy->rep_pixel + (gsize) r * K;
          for (guint k = 0; k < K; k++)
            {
              guint mult = 0;
              for (guint k2 = 0; k2 < K; k2++)
                mult += px[k2] == px[k];
              for (guint sl = 0; sl < ns; sl++)
                op->image_weight[((gsize) r * ns + sl) * K + k] = 1.f / (float) mult;
            }
        }
    }
  g_autofree char *size = ctr_format_bytes (ctr_scsr_bytes (m));
  op->description = g_strdup_printf ("SCSR (cuART §3): %s; %u of %u views stored, %s",
                                     sy->reason, ctr_scsr_n_orbits (m), ctr_scsr_n_views (m), size);
  return TRUE;
}

CtrOperator *
ctr_scsr_op_new (CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid, GError **error)
{
  g_return_val_if_fail (m != NULL && g != NULL && grid != NULL, NULL);
  if (!ctr_scsr_op_check (m, g, grid, error))
    return NULL;
  /* One slice of a K = 8 matrix: the orbit kernels stream the 6-byte
   * compact elements (lossless; W1 1.24–1.37× faster, README). */
  if (grid->nz == 1)
    ctr_scsr_compact (m);
  ScsrOp *s = g_new0 (ScsrOp, 1);
  CtrOperator *op = &s->base.parent;
  if (!ctr_scsr_op_init_common (&s->base, &scsr_class, m, g, grid, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  /* Every other case runs the kernels on the 8-byte elements: made here,
   * where an error can be returned, not on the first product. */
  if (!(ctr_scsr_order (m) == 8 && grid->nz == 1) && !ctr_scsr_expand (m, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  s->m = m;
  s->sy = ctr_scsr_symmetry (m);
  s->K = ctr_scsr_order (m);
  s->P = ctr_scsr_n_parts (m);
  s->nc = g->n_cols;
  s->no = ctr_scsr_n_orbits (m);
  s->ns = grid->nz;
  s->T = (guint) MAX (1, omp_get_max_threads ());
  s->lane_size = (gsize) s->nc * s->ns * s->K;
  s->psize1 = op->scale_size;
  s->D = g_try_new0 (float, op->image_size);
  s->acc = g_new0 (float *, s->T);
  s->v = g_new0 (float *, s->T);
  gboolean ok = s->D != NULL;
  for (guint t = 0; t < s->T && ok; t++)
    ok = (s->acc[t] = g_try_new (float, s->lane_size)) != NULL
         && (s->v[t] = g_try_new (float, s->lane_size)) != NULL;
  s->saved = g_new0 (float *, s->P);
  for (guint p = 0; p < s->P && ok; p++)
    ok = (s->saved[p] = g_try_new (float, MAX (1, ctr_scsr_stabilised_size (m, p, s->ns)))) != NULL;
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the SCSR operator's work space (%u slices)", s->ns);
      ctr_operator_unref (op);
      return NULL;
    }
  return op;
}
