/* ctr-cone-op.c — the on-the-fly cone-beam projector pair as a CPU
 * operator (see ctr-cone-op.h).
 *
 * One subset is one view.  They are visited in the golden-ratio order: view
 * k goes to the place of frac(k·φ) among all views, so consecutive updates
 * come from views far apart in angle — the usual remedy for SART's slow
 * progress when neighbouring views, which carry nearly the same information,
 * follow each other (Herman & Meyer 1993, "Algebraic reconstruction
 * techniques can be made computationally efficient").  Deterministic; every
 * view once.
 */
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "base/ctr-sort.h"

#include <math.h>
#include <string.h>

typedef struct {
  CtrOperator parent;
  CtrConeProjector *cp;
  gsize nvox, per_view;
  guint nv;
  guint vblock; /* views per pass over the volume (whole-set products) */
  float *ax;    /* vblock views */
  float *bp;    /* a volume: the update */
  float *cs;    /* a volume: column sums of one view */
  guint8 *mask; /* nullable: [view][row][col], 0 = a ray left out */
  CtrConeRays *rays; /* nullable: vblock views' rays, shared by an update's forward and adjoint */
  float *xt, *dt;    /* nullable (both or neither): the image and the update with x and y swapped,
                      * for the x-dominant rays of whole-set fused passes (ctr_cone_projector_forward_rays_xt) */
  guint64 set_up;    /* views whose rays were set up (ctr_cone_op_views_set_up) */
} ConeOp;

static inline const guint8 *
view_mask (const ConeOp *c, guint v)
{
  return c->mask != NULL ? c->mask + c->per_view * v : NULL;
}

/* The views [v, v + n) at once (n ≤ c->vblock where the data is c->ax),
 * 0 on the rays left out. */
static void
forward_views (ConeOp *c, const float *X, const float *xt, guint v, guint n, float *y)
{
  c->set_up += n;
  ctr_cone_projector_forward_views_xt (c->cp, X, xt, v, n, view_mask (c, v), y);
}

/* Through the operator's ray table where it has one (no table allocated
 * per call); the x-dominant rays into @dt where not NULL (then there is
 * a table). */
static void
adjoint_views (ConeOp *c, const float *y, guint v, guint n, float *vol, float *dt, float *weights)
{
  c->set_up += n;
  if (c->rays != NULL)
    {
      ctr_cone_rays_fill (c->cp, c->rays, v, n, view_mask (c, v));
      ctr_cone_projector_adjoint_rays_xt (c->cp, c->rays, y, vol, dt, weights);
    }
  else
    ctr_cone_projector_adjoint_views_masked (c->cp, y, v, n, view_mask (c, v), vol, weights);
}

/* Whole-set products put the x-dominant rays on the swapped volumes when
 * the operator has them and its ray table (CTR_CONE_SWAP=0: never, for
 * side-by-side timing). */
static gboolean
swap_on (const ConeOp *c)
{
  return c->rays != NULL && c->xt != NULL && g_strcmp0 (g_getenv ("CTR_CONE_SWAP"), "0") != 0;
}

static void
cone_op_finalize (CtrOperator *op)
{
  ConeOp *c = (ConeOp *) op;
  ctr_cone_rays_free (c->rays);
  ctr_cone_projector_free (c->cp);
  g_free (c->ax);
  g_free (c->bp);
  g_free (c->cs);
  g_free (c->xt);
  g_free (c->dt);
  g_free (c->mask);
  ctr_operator_clear (op);
  g_free (c);
}

void
ctr_cone_op_copy_image (CtrOperator *op, const float *from, float *to)
{
  if (from != to)
    memcpy (to, from, op->image_size * sizeof (float));
}

void
ctr_cone_op_gather_masked (const CtrOperator *op, const guint8 *mask, const float *proj, float *Y)
{
  if (proj != Y)
    memcpy (Y, proj, op->data_size * sizeof (float));
  for (gsize i = 0; mask != NULL && i < op->data_size; i++)
    if (mask[i] == 0)
      Y[i] = 0.0f;
}

void
ctr_cone_op_finish_host (const CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags)
{
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) op->image_size; i++)
    {
      float nv = X[i] + (scale ? scale[i] * D[i] : D[i]);
      X[i] = (flags & CTR_UPDATE_NONNEG) && nv < 0.f ? 0.f : nv;
      D[i] = 0.f;
    }
}

static void
cone_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  ctr_cone_op_gather_masked (op, ((ConeOp *) op)->mask, proj, Y);
}

static gboolean
cone_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  ConeOp *c = (ConeOp *) op;
  const guint v0 = subset == CTR_SUBSET_ALL ? 0 : subset, v1 = subset == CTR_SUBSET_ALL ? c->nv : subset + 1;
  const gboolean swap = subset == CTR_SUBSET_ALL && swap_on (c);
  if (swap)
    ctr_cone_volume_swap_xy (ctr_cone_projector_grid (c->cp), X, c->xt);
  forward_views (c, X, swap ? c->xt : NULL, v0, v1 - v0, Y + c->per_view * v0);
  return TRUE;
}

static gboolean
cone_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  ConeOp *c = (ConeOp *) op;
  memset (D, 0, c->nvox * sizeof (float));
  const guint v0 = subset == CTR_SUBSET_ALL ? 0 : subset, v1 = subset == CTR_SUBSET_ALL ? c->nv : subset + 1;
  const gboolean swap = subset == CTR_SUBSET_ALL && swap_on (c);
  for (guint v = v0; v < v1; v += c->vblock)
    adjoint_views (c, Y + c->per_view * v, v, MIN (c->vblock, v1 - v), D, swap ? c->dt : NULL, NULL);
  if (swap)
    ctr_cone_volume_add_swapped_xy (ctr_cone_projector_grid (c->cp), c->dt, D);
  return TRUE;
}

static void
clip (float *x, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) n; i++)
    if (x[i] < 0.0f)
      x[i] = 0.0f;
}

/* c->ax = step · coef ∘ (b − A_v X) for the views [v, v + n); with the ray
 * table, its rays stay set up for update_adjoint.  A_v X goes to @y (the
 * block's data; NULL: c->ax itself); @X NULL: the image of zeros (A_v X =
 * 0, not projected). */
static void
view_residual (ConeOp *c, guint v, guint n, const float *X, const float *xt, const float *B, const float *coef,
               float step, float *y)
{
  const float *b = B + c->per_view * v, *cc = coef + c->per_view * v;
  float *ax = y != NULL ? y : c->ax;
  if (c->rays != NULL)
    {
      c->set_up += n;
      ctr_cone_rays_fill (c->cp, c->rays, v, n, view_mask (c, v));
    }
  if (X == NULL)
    memset (ax, 0, c->per_view * n * sizeof (float));
  else if (c->rays != NULL)
    ctr_cone_projector_forward_rays_xt (c->cp, c->rays, X, xt, ax);
  else
    forward_views (c, X, NULL, v, n, ax);
  for (gsize i = 0; i < c->per_view * n; i++)
    c->ax[i] = step * cc[i] * (b[i] - ax[i]);
}

/* The adjoint of c->ax over the views of the last view_residual (the
 * x-dominant rays into @dt where not NULL: then the ray table is there). */
static void
update_adjoint (ConeOp *c, guint v, guint n, float *vol, float *dt, float *weights)
{
  if (c->rays != NULL)
    ctr_cone_projector_adjoint_rays_xt (c->cp, c->rays, c->ax, vol, dt, weights);
  else
    {
      c->set_up += n;
      ctr_cone_projector_adjoint_views_masked (c->cp, c->ax, v, n, view_mask (c, v), vol, weights);
    }
}

static gboolean
cone_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
             CtrUpdateFlags flags, GError **error)
{
  ConeOp *c = (ConeOp *) op;
  g_return_val_if_fail (!(flags & CTR_UPDATE_SEQUENTIAL), FALSE);
  if (subset == CTR_SUBSET_ALL)
    {
      float *target = D != NULL ? D : c->bp;
      float *cs = D == NULL && (flags & CTR_UPDATE_COLUMN_SCALE) ? c->cs : NULL;
      const gboolean swap = cs == NULL && swap_on (c);
      const CtrGrid *grid = ctr_cone_projector_grid (c->cp);
      if (D == NULL)
        memset (c->bp, 0, c->nvox * sizeof (float));
      if (cs != NULL)
        memset (cs, 0, c->nvox * sizeof (float));
      if (swap)
        ctr_cone_volume_swap_xy (grid, X, c->xt);
      for (guint v = 0; v < c->nv; v += c->vblock)
        {
          const guint n = MIN (c->vblock, c->nv - v);
          view_residual (c, v, n, X, swap ? c->xt : NULL, B, coef, step, NULL);
          update_adjoint (c, v, n, target, swap ? c->dt : NULL, cs);
        }
      if (swap)
        ctr_cone_volume_add_swapped_xy (grid, c->dt, target);
      if (D != NULL)
        return TRUE;
    }
  else
    {
      view_residual (c, subset, 1, X, NULL, B, coef, step, NULL);
      if (D != NULL)
        {
          update_adjoint (c, subset, 1, D, NULL, NULL);
          return TRUE;
        }
      memset (c->bp, 0, c->nvox * sizeof (float));
      if (flags & CTR_UPDATE_COLUMN_SCALE)
        memset (c->cs, 0, c->nvox * sizeof (float));
      /* One traversal for the update and, with COLUMN_SCALE, the column sums. */
      update_adjoint (c, subset, 1, c->bp, NULL, (flags & CTR_UPDATE_COLUMN_SCALE) ? c->cs : NULL);
    }
  const gboolean scaled = (flags & CTR_UPDATE_COLUMN_SCALE) != 0;
#pragma omp parallel for schedule(static)
  for (gint64 i = 0; i < (gint64) c->nvox; i++)
    {
      if (!scaled)
        X[i] += c->bp[i];
      else if (c->cs[i] > 0.0f)
        X[i] += c->bp[i] / c->cs[i];
    }
  if (flags & CTR_UPDATE_NONNEG)
    clip (X, c->nvox);
  return TRUE;
}

/* Y = A X and D += Aᵀ (coef ∘ (B − Y)) view block by view block: each
 * block's rays set up once for its forward and adjoint.  With the ray
 * table, the x-dominant rays read X with x and y swapped and add into a
 * swapped update, folded into D at the end (two copies of the volume a
 * pass for half the memory accesses of half the rays). */
static gboolean
cone_forward_update (CtrOperator *op, const float *X, const float *B, const float *coef, float *Y, float *D,
                     GError **error)
{
  ConeOp *c = (ConeOp *) op;
  const gboolean swap = swap_on (c);
  const CtrGrid *grid = ctr_cone_projector_grid (c->cp);
  if (swap && X != NULL)
    ctr_cone_volume_swap_xy (grid, X, c->xt);
  for (guint v = 0; v < c->nv; v += c->vblock)
    {
      const guint n = MIN (c->vblock, c->nv - v);
      view_residual (c, v, n, X, swap ? c->xt : NULL, B, coef, 1.0f, Y + c->per_view * v);
      update_adjoint (c, v, n, D, swap ? c->dt : NULL, NULL);
    }
  if (swap)
    ctr_cone_volume_add_swapped_xy (grid, c->dt, D);
  return TRUE;
}

static gboolean
cone_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  ctr_cone_op_finish_host (op, X, D, scale, flags);
  return TRUE;
}

static gboolean
cone_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  ConeOp *c = (ConeOp *) op;
  memset (out, 0, c->nvox * sizeof (float));
  for (gsize i = 0; i < c->per_view * c->vblock; i++)
    c->ax[i] = 1.0f;
  const guint v0 = subset == CTR_SUBSET_ALL ? 0 : subset, v1 = subset == CTR_SUBSET_ALL ? c->nv : subset + 1;
  const gboolean swap = subset == CTR_SUBSET_ALL && swap_on (c);
  for (guint v = v0; v < v1; v += c->vblock)
    adjoint_views (c, c->ax, v, MIN (c->vblock, v1 - v), out, swap ? c->dt : NULL, NULL);
  if (swap)
    ctr_cone_volume_add_swapped_xy (ctr_cone_projector_grid (c->cp), c->dt, out);
  return TRUE;
}

static void
cone_row_sums (CtrOperator *op, float *sq, float *sum)
{
  ConeOp *c = (ConeOp *) op;
  g_return_if_fail (sq == NULL);
  if (sum == NULL)
    return;
  /* The image of ones in the update's scratch image (allocated with the
   * operator; every update clears it before use): no allocation here. */
  float *ones = c->bp;
  for (gsize i = 0; i < c->nvox; i++)
    ones[i] = 1.0f;
  /* The image of ones with x and y swapped is itself. */
  forward_views (c, ones, swap_on (c) ? ones : NULL, 0, c->nv, sum);
}

static gboolean
cone_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  *kappa = 1.0;
  return TRUE;
}

static guint64
cone_subset_rays (CtrOperator *op, guint subset)
{
  return ((ConeOp *) op)->per_view;
}

static const CtrOperatorClass cone_class = {
  .name = "cpu-cone",
  .natural_image = TRUE,
  .finalize = cone_op_finalize,
  .image_to_native = ctr_cone_op_copy_image,
  .image_from_native = ctr_cone_op_copy_image,
  .data_gather = cone_data_gather,
  .data_scatter = ctr_operator_copy_data_scatter,
  .forward = cone_forward,
  .adjoint = cone_adjoint,
  .update = cone_update,
  .forward_update = cone_forward_update,
  .finish = cone_finish,
  .column_sums = cone_column_sums,
  .row_sums = cone_row_sums,
  .subset_overlap = cone_subset_overlap,
  .subset_rays = cone_subset_rays,
};

static int
cmp_by_key (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const double *key = user_data;
  double x = key[*(const guint *) a], y = key[*(const guint *) b];
  return x < y ? -1 : x > y ? 1 : 0;
}

guint *
ctr_cone_op_visit_order (guint n, GError **error)
{
  g_autofree char *what = g_strdup_printf ("the cone operator's visit order of %u views", n);
  g_autofree double *key = ctr_memory_try_new (n, sizeof (double), FALSE, what, error);
  g_autofree guint *order = key == NULL ? NULL : ctr_memory_try_new (n, sizeof (guint), FALSE, what, error);
  if (order == NULL)
    return NULL;
  const double phi = 0.5 * (sqrt (5.0) - 1.0);
  for (guint k = 0; k < n; k++)
    {
      double x = k * phi;
      key[k] = x - floor (x);
      order[k] = k;
    }
  if (!ctr_sort_stable (order, n, sizeof (guint), cmp_by_key, key, what, error))
    return NULL;
  g_clear_pointer (&key, g_free);
  /* order[] lists k by increasing frac(kφ); the i-th update takes the view
   * whose slot is i when views are spread by φ. */
  guint *visit = ctr_memory_try_new (n, sizeof (guint), FALSE, what, error);
  if (visit == NULL)
    return NULL;
  for (guint i = 0; i < n; i++)
    visit[order[i]] = i;
  return visit;
}

/* Views per pass: CTR_CONE_VIEW_BLOCK (1 to 64), else 8, at most @nv. */
static guint
view_block (guint nv)
{
  const char *vb = g_getenv ("CTR_CONE_VIEW_BLOCK");
  const guint64 want = vb != NULL ? g_ascii_strtoull (vb, NULL, 10) : 8;
  return (guint) CLAMP (want, 1, MIN (64, nv));
}

guint64
ctr_cone_op_views_set_up (const CtrOperator *op)
{
  g_return_val_if_fail (op != NULL && op->klass == &cone_class, 0);
  return ((const ConeOp *) op)->set_up;
}

guint64
ctr_cone_op_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid)
{
  const guint vblock = view_block (g->n_views);
  const guint64 nvox = ctr_grid_size (grid);
  const guint64 ax = (guint64) g->n_rows * g->n_cols * vblock * sizeof (float);
  return 4 * nvox * sizeof (float) + ax + ctr_cone_rays_estimate_bytes (g, vblock);
}

CtrOperator *
ctr_cone_op_new (CtrConeProjector *cp, GError **error)
{
  return ctr_cone_op_new_masked (cp, NULL, error);
}

CtrOperator *
ctr_cone_op_new_masked (CtrConeProjector *cp, guint8 *mask, GError **error)
{
  g_return_val_if_fail (cp != NULL, NULL);
  const CtrGeometry *g = ctr_cone_projector_geometry (cp);
  const CtrGrid *grid = ctr_cone_projector_grid (cp);
  ConeOp *c = g_new0 (ConeOp, 1);
  c->mask = mask;
  c->cp = cp;
  CtrOperator *op = &c->parent;
  if (!ctr_operator_init (op, &cone_class, g, grid, 1, error))
    {
      cone_op_finalize (op);
      return NULL;
    }
  c->nvox = ctr_grid_size (grid);
  c->per_view = (gsize) g->n_rows * g->n_cols;
  c->nv = g->n_views;
  op->image_size = op->scale_size = c->nvox;
  op->data_size = c->per_view * c->nv;
  op->n_subsets = c->nv;
  if ((op->order = ctr_cone_op_visit_order (c->nv, error)) == NULL)
    {
      ctr_operator_unref (op);
      return NULL;
    }
  op->description = g_strdup_printf ("cone-beam Joseph projector pair on the fly (%u × %u × %u voxels)",
                                     grid->nx, grid->ny, grid->nz);
  /* fewer views per pass when their data cannot be allocated */
  c->vblock = view_block (c->nv);
  c->ax = g_try_new0 (float, c->per_view * c->vblock);
  while (c->ax == NULL && c->vblock > 1)
    {
      c->vblock /= 2;
      c->ax = g_try_new0 (float, c->per_view * c->vblock);
    }
  c->bp = g_try_new0 (float, c->nvox);
  c->cs = g_try_new0 (float, c->nvox);
  c->rays = ctr_cone_rays_new (cp, c->vblock); /* NULL: each pass sets its rays up */
  c->xt = g_try_new (float, c->nvox);
  c->dt = c->xt == NULL ? NULL : g_try_new0 (float, c->nvox); /* kept zero between passes */
  if (c->dt == NULL)
    g_clear_pointer (&c->xt, g_free); /* the plain layout for all rays */
  if (!c->ax || !c->bp || !c->cs)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cone operator: cannot allocate its work space (%" G_GSIZE_FORMAT " voxels)", c->nvox);
      ctr_operator_unref (op);
      return NULL;
    }
  return op;
}
