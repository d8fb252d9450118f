/* ctr-subset-methods.c — ART, parallel ART, SART and SIRT: the algebraic
 * methods that differ only in their coefficients, scales and subsets
 * (docs/design.md §6).  With the operator's subsets S visited in order:
 *
 *  ART   (Kaczmarz; cuART Eq. 1), ray by ray (SEQUENTIAL):
 *          x += λ (b_i − a_i·x) / ||a_i||² · a_i
 *  PART  (parallel ART; cuART Eq. 9), all rays of S at once:
 *          x += A_Sᵀ (c ∘ (b_S − A_S x)),  c_i = λ / (κ_S ||a_i||²)
 *        κ_S = the subset's sparsity bound (Censor, Gordon & Gordon 2001,
 *        Parallel Computing 27, 777-808: the largest number of rays of S
 *        crossing one pixel; convergent for 0 < λ < 2 and nearly as fast
 *        per view as ART), or M' = the rays of S as cuART prints it
 *        (CTR_PART_STEP_CUART, about M' times too small a step).
 *  SART  (Andersen & Kak 1984, Ultrasonic Imaging 6, 81-94, Eq. 5):
 *          x_j += λ / (Σ_{i∈S} a_ij) · Σ_{i∈S} a_ij (b_i − a_i·x) / (Σ_j a_ij)
 *  SIRT  (Gilbert 1972, in the row/column-normalised form of ASTRA and
 *        TIGRE): x += λ C Aᵀ R (b − A x), R = 1/row sums, C = 1/column sums,
 *        convergent for 0 < λ < 2.  On the host, when the iterations are
 *        reported: the forward projection A x is kept from one iteration to
 *        the next, so each iteration is one back-projection of R (b − A x)
 *        and one forward projection of the new image, whose residual the
 *        report then gets for free (the driver would otherwise project once
 *        more: a third of the time).  An operator with forward_update
 *        (the cone pair on the fly) projects the new image and
 *        back-projects its residual in one traversal, each ray set up once:
 *        an iteration applies the update the previous one computed
 *        (iteration 1 computes its own first: one back-projection more),
 *        then does that traversal (the last iteration only its forward
 *        projection) — the same images and residuals.  Unreported: the
 *        operator's fused update, subset by subset (each subset's rows read
 *        once while in cache), then one step.
 * Dead detector pixels and missing views carry coefficient 0; so, in ART
 * and PART, do rays that cross less than a quarter pixel of the grid
 * (drop_grazing_rays).
 *
 * A backend that keeps whole passes on its device (CtrOperatorPass) runs
 * PART, SART and SIRT there with the same coefficients.
 */
#include "solve/ctr-iterate.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

typedef enum { KIND_PART = 0, KIND_SART = 1, KIND_SIRT = 2, KIND_ART = 3 } Kind;

typedef struct {
  Kind kind;
  float *coef;       /* native data: the per-ray factor */
  float *step;       /* per subset: the step (λ, or λ/κ_S) */
  float *scale;      /* SIRT: λ / column sums, scale_size */
  float *D;          /* SIRT: the accumulated update, image_size */
  float *Y;          /* SIRT on the host: A X, data_size */
  float *V;          /* SIRT on the host without forward_update: R (B − A X), data_size */
  gboolean x_zero;   /* SIRT on the host: the first image is 0 (A X = 0 unprojected) */
  gboolean pending;  /* SIRT with forward_update: D holds the update of the image X is */
  CtrUpdateFlags flags;
  gboolean on_device;
} SubsetState;

static void
subset_free (CtrIterate *it, gpointer data)
{
  SubsetState *st = data;
  if (st == NULL)
    return;
  if (st->on_device)
    it->op->klass->pass->end (it->op);
  g_free (st->coef);
  g_free (st->step);
  g_free (st->scale);
  g_free (st->D);
  g_free (st->Y);
  g_free (st->V);
  g_free (st);
}

/* coef_i = valid_i / @sums_i (0 where the ray crosses nothing). */
static void
inverse_times_valid (float *coef, const float *valid, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    coef[q] = coef[q] > 0.f && valid[q] != 0.f ? 1.f / coef[q] : 0.f;
}

/* ART and PART divide a ray's residual by ||a_i||²: a ray that only grazes a
 * corner of the grid (length ε inside it) would put residual/ε into one
 * pixel, and its residual is data noise or the object outside the grid, not
 * a small number.  Such rays — shorter inside the grid than @min_length (a
 * quarter pixel, the rule of TIGRE's computeW: Biguri et al., Biomed. Phys.
 * Eng. Express 2, 055010, 2016) — get coefficient 0, i.e. are skipped like
 * dead detector pixels.  Sets @sq_sums_i to 0 for them. */
static void
drop_grazing_rays (float *sq_sums, const float *length, gsize n, float min_length)
{
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    if (length[q] < min_length)
      sq_sums[q] = 0.f;
}

static gboolean
subset_setup (CtrIterate *it, Kind kind, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  const CtrReconOptions *o = it->o;
  if (kind == KIND_ART && !op->can_update_sequential)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "ART is row-sequential and runs on the CSR matrix with one view per subset, not on %s",
                   op->klass->name);
      return FALSE;
    }
  SubsetState *st = g_new0 (SubsetState, 1);
  *state = st;
  st->kind = kind;
  st->coef = g_try_new (float, op->data_size);
  st->step = g_try_new (float, op->n_subsets);
  if (st->coef == NULL || st->step == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the solver's coefficients");
      return FALSE;
    }
  const double lambda = o->relaxation;
  if (kind == KIND_PART || kind == KIND_ART)
    {
      g_autofree float *length = g_try_new (float, op->data_size);
      if (length == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the solver's coefficients");
          return FALSE;
        }
      op->klass->row_sums (op, st->coef, length);
      drop_grazing_rays (st->coef, length, op->data_size, (float) (MIN (op->grid.dx, op->grid.dy) / 4));
    }
  else
    op->klass->row_sums (op, NULL, st->coef);
  inverse_times_valid (st->coef, it->valid, op->data_size);
  for (guint s = 0; s < op->n_subsets; s++)
    {
      double kappa = 1.0;
      if (kind == KIND_PART && o->part_step == CTR_PART_STEP_CUART)
        kappa = (double) op->klass->subset_rays (op, s);
      else if (kind == KIND_PART && !op->klass->subset_overlap (op, s, &kappa, error))
        return FALSE;
      st->step[s] = (float) (lambda / MAX (kappa, 1.0));
    }
  st->flags = o->nonnegative ? CTR_UPDATE_NONNEG : 0;
  if (kind == KIND_SART)
    st->flags |= CTR_UPDATE_COLUMN_SCALE;
  if (kind == KIND_ART)
    st->flags |= CTR_UPDATE_SEQUENTIAL;
  if (kind == KIND_SIRT)
    {
      /* One step λ C Aᵀ R r after all subsets: the subsets accumulate R r. */
      for (guint s = 0; s < op->n_subsets; s++)
        st->step[s] = 1.f;
      st->scale = g_try_new (float, op->scale_size);
      st->D = g_try_new0 (float, op->image_size);
      if (st->scale == NULL || st->D == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the SIRT update image");
          return FALSE;
        }
      if (!op->klass->column_sums (op, CTR_SUBSET_ALL, st->scale, error))
        return FALSE;
      for (gsize q = 0; q < op->scale_size; q++)
        st->scale[q] = st->scale[q] > 0.f ? (float) (lambda / st->scale[q]) : 0.f;
    }
  if (op->klass->pass != NULL && kind != KIND_ART)
    {
      if (!op->klass->pass->begin (op, kind, it->X, it->B, st->coef, it->valid,
                                   kind == KIND_SIRT ? NULL : st->step, st->scale, error))
        return FALSE;
      st->on_device = TRUE;
    }
  else if (kind == KIND_SIRT && it->report)
    {
      const gboolean fused = op->klass->forward_update != NULL;
      st->Y = g_try_new0 (float, op->data_size);
      st->V = fused ? NULL : g_try_new (float, op->data_size);
      if (st->Y == NULL || (!fused && st->V == NULL))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the SIRT projections");
          return FALSE;
        }
      st->x_zero = TRUE;
      for (gsize q = 0; q < op->image_size && st->x_zero; q++)
        st->x_zero = it->X[q] == 0.f;
      if (!fused && !st->x_zero && !op->klass->forward (op, CTR_SUBSET_ALL, it->X, st->Y, error))
        return FALSE;
    }
  return TRUE;
}

/* X += λ C D (D zeroed); FALSE when that fails or the run was cancelled. */
static gboolean
sirt_host_step (CtrIterate *it, SubsetState *st, GError **error)
{
  CtrOperator *op = it->op;
  /* The adjoint is consistent (a pixel held in several slots has the whole
   * sum in each); finish sums such slots again: give each its share. */
  if (op->image_weight != NULL)
    for (gsize q = 0; q < op->image_size; q++)
      st->D[q] *= op->image_weight[q];
  if (!op->klass->finish (op, it->X, st->D, st->scale, st->flags, error))
    return FALSE;
  return !ctr_iterate_cancelled (it, error);
}

/* One SIRT iteration on the host: D = Aᵀ R (B − Y), X += λ C D, Y = A X. */
static gboolean
sirt_host_iterate (CtrIterate *it, SubsetState *st, GError **error)
{
  CtrOperator *op = it->op;
  const gsize n = op->data_size;
  const float *B = it->B, *Y = st->Y, *c = st->coef;
  float *V = st->V;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    V[q] = c[q] * (B[q] - Y[q]);
  if (!op->klass->adjoint (op, CTR_SUBSET_ALL, V, st->D, error) || !sirt_host_step (it, st, error))
    return FALSE;
  /* A X for the next iteration, and this one's residual. */
  if (!op->klass->forward (op, CTR_SUBSET_ALL, it->X, st->Y, error))
    return FALSE;
  it->residual = ctr_iterate_relative_residual (B, st->Y, it->valid, n);
  it->residual_s = 0.0;
  return TRUE;
}

/* One SIRT iteration on the host with the operator's forward_update: X +=
 * λ C D (D = Aᵀ R (B − A X) of the image before, computed first in
 * iteration 1), then Y = A X and, unless this is the last iteration, the
 * next D in the same traversal. */
static gboolean
sirt_fused_iterate (CtrIterate *it, SubsetState *st, GError **error)
{
  CtrOperator *op = it->op;
  if (!st->pending && !op->klass->forward_update (op, st->x_zero ? NULL : it->X, it->B, st->coef, st->Y, st->D,
                                                  error))
    return FALSE;
  st->pending = FALSE;
  if (!sirt_host_step (it, st, error))
    return FALSE;
  if (it->iteration >= it->o->iterations)
    {
      if (!op->klass->forward (op, CTR_SUBSET_ALL, it->X, st->Y, error))
        return FALSE;
    }
  else if (!op->klass->forward_update (op, it->X, it->B, st->coef, st->Y, st->D, error))
    return FALSE;
  else
    st->pending = TRUE;
  it->residual = ctr_iterate_relative_residual (it->B, st->Y, it->valid, op->data_size);
  it->residual_s = 0.0;
  return TRUE;
}

static gboolean
subset_iterate (CtrIterate *it, gpointer data, GError **error)
{
  SubsetState *st = data;
  CtrOperator *op = it->op;
  if (st->on_device)
    {
      return op->klass->pass->run (op, st->kind, (st->flags & CTR_UPDATE_NONNEG) != 0, &it->update_s,
                                   it->residual_wanted ? &it->residual : NULL, &it->residual_s, error);
    }
  if (st->Y != NULL)
    return st->V != NULL ? sirt_host_iterate (it, st, error) : sirt_fused_iterate (it, st, error);
  for (guint t = 0; t < op->n_subsets; t++)
    {
      if (ctr_iterate_cancelled (it, error))
        return FALSE;
      const guint s = ctr_operator_subset_at (op, t);
      if (!op->klass->update (op, s, it->X, it->B, st->coef, st->step[s], st->D, st->flags, error))
        return FALSE;
    }
  if (st->kind == KIND_SIRT)
    return op->klass->finish (op, it->X, st->D, st->scale, st->flags, error);
  return TRUE;
}

static gboolean
subset_sync (CtrIterate *it, gpointer data, gsize offset, gsize n, GError **error)
{
  SubsetState *st = data;
  const CtrOperatorPass *pass = it->op->klass->pass;
  if (!st->on_device)
    return TRUE;
  if (pass->download_part != NULL && n < it->op->image_size)
    return pass->download_part (it->op, it->X, offset, n, error);
  return pass->download (it->op, it->X, error);
}

/* The planes of a report (strided) from the device pass, else the whole X. */
static gboolean
subset_sync_runs (CtrIterate *it, gpointer data, const CtrImageRuns *runs, GError **error)
{
  SubsetState *st = data;
  const CtrOperatorPass *pass = it->op->klass->pass;
  if (!st->on_device)
    return TRUE;
  if (pass->download_runs != NULL)
    return pass->download_runs (it->op, it->X, runs, error);
  return pass->download (it->op, it->X, error);
}

#define SUBSET_METHOD(name, KIND) \
  static gboolean name##_setup (CtrIterate *it, gpointer *state, GError **error) \
  { return subset_setup (it, KIND, state, error); }

SUBSET_METHOD (art, KIND_ART)
SUBSET_METHOD (part, KIND_PART)
SUBSET_METHOD (sart, KIND_SART)
SUBSET_METHOD (sirt, KIND_SIRT)

const CtrSolverClass ctr_art_solver = { CTR_METHOD_ART, art_setup, subset_iterate, subset_sync, subset_free,
                                        NULL, subset_sync_runs };
const CtrSolverClass ctr_part_solver = { CTR_METHOD_PART, part_setup, subset_iterate, subset_sync, subset_free,
                                        NULL, subset_sync_runs };
const CtrSolverClass ctr_sart_solver = { CTR_METHOD_SART, sart_setup, subset_iterate, subset_sync, subset_free,
                                        NULL, subset_sync_runs };
const CtrSolverClass ctr_sirt_solver = { CTR_METHOD_SIRT, sirt_setup, subset_iterate, subset_sync, subset_free,
                                        NULL, subset_sync_runs };
