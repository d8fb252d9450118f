/* ctr-pwls.c — penalised weighted least squares (PWLS) for low-dose CT.
 *
 * Minimises  Φ(x) = ½ Σ_i w_i ([A x]_i − b_i)² + β R(x),  x ≥ 0,
 * with statistical weights w_i = 1 / var(b_i) (ctr-noise.h: the detected
 * counts for a Poisson scan; Sauer & Bouman 1993, Thibault et al. 2007) and
 * the edge-preserving neighbourhood penalty R of ctr-penalty.h.
 *
 * Solver: ordered-subsets separable quadratic surrogates with Nesterov's
 * momentum (Kim, Ramani & Fessler, "Combining ordered subsets and momentum
 * for accelerated X-ray CT image reconstruction", IEEE TMI 34(1) 167-178,
 * 2015: OS-SQS with the first of Nesterov's two momentum sequences):
 *     for each subset m of M:   g = M A_mᵀ W_m (A_m z − b_m) + β ∇R(z)
 *                               x⁺ = [z − g ./ D]₊
 *                               t⁺ = (1 + sqrt (1 + 4 t²)) / 2
 *                               z  = x⁺ + (t − 1)/t⁺ (x⁺ − x)
 * D = Aᵀ W A 1 + β · curvature of R's surrogate at z (Erdogan & Fessler 1999,
 * the SQS of both terms).  The momentum restarts (t = 1, z = x⁺) when it
 * points uphill, (z − x⁺)·(x⁺ − x) > 0 (O'Donoghue & Candès 2015, gradient
 * restart): ordered subsets make the plain momentum unstable otherwise (as
 * Kim et al. 2015 report for many subsets).  Subsets are groups of the operator's subsets taken
 * round-robin (SCSR: orbits o, o+M, o+2M, … — views spread over the circle;
 * each stored row is read once per subset, so once per iteration).  The
 * iteration starts from FBP (Hann window), as Kim et al. do.
 *
 * Parameters (CtrReconOptions.delta = 0 and .beta = 0 for the defaults; a
 * given beta is the dimensionless strength b = β δ²), so that the
 * defaults work on data whose dose nobody wrote down.  Φ is the negative
 * log-posterior of a Gaussian data model with the noise of the data and a
 * fixed Gibbs prior exp (−β R) (the clinical MBIR arrangement, Thibault,
 * Sauer, Bouman & Hsieh 2007, Med. Phys. 34(11) 4526-4544):
 *  - the weights are the inverse noise variances estimated from the data
 *    (counts or I0 when stated, else the sinogram's own noise: ctr-noise.h),
 *    so the balance of data and penalty follows the noise level: a quarter
 *    of the dose weighs the data four times less and the same prior smooths
 *    more; a noiseless sinogram leaves the prior almost nothing to do;
 *  - the prior is fixed relative to the object's own attenuation μ̄ (the
 *    median of the FBP start over the object, object_attenuation()), so it
 *    does not depend on the unit (1/mm or 1/pixel) nor on the material:
 *        δ = CTR_PWLS_DELTA_REL · μ̄      (8 HU for water: soft-tissue
 *                                         contrast below it is smoothed,
 *                                         edges above it kept),
 *        β = b / δ²,  b = CTR_PWLS_BETA_DELTA2 (dimensionless).
 *  The two constants were chosen on ../shared/data/head-fan-lowdose (the
 *  same pair is best at quarter and at full dose, as a fixed prior should
 *  be) and checked on the real gel-fan scan and our analytic head phantom
 *  (README, low-dose table).
 * Potential: the isotropic one by default (the hyperbola of the gradient's
 * magnitude, ctr-penalty.h), since stop 28: against the hyperbola of each
 * 8-neighbour difference with the same δ and b it gave 21.4 against 22.2 HU
 * at quarter dose, 14.6 against 14.7 HU at full dose, 7.8 HU noiseless for
 * both, and Pearson 0.9762 against 0.9759 on gel-fan's 18 views (README).
 * Ray model: Joseph's (linear interpolation between pixel centres) by
 * default, not the area integral the algebraic methods use.  A penalised
 * fit reaches its model's floor, so the model decides the noiseless case:
 * on head-fan-lowdose, whose object is the bilinear interpolation of its
 * grid, PWLS gave 13.3 HU noiseless, 17.7 HU at full and 23.1 HU at
 * quarter dose with the area model and 7.8, 14.7 and 22.2 HU with
 * Joseph's; on the real gel-fan scan (18 views) both gave Pearson 0.9765.
 * Momentum needs subsets that are not too small: with fewer than
 * CTR_PWLS_MOMENTUM_MIN_VIEWS views per subset the iteration runs without it
 * (measured: 48 subsets of 15 views diverged with momentum, converged
 * without).  Besides the gradient restart per subset, with fewer than
 * CTR_PWLS_WATCH_BELOW_VIEWS views per subset an iteration that raises Φ
 * restarts the momentum (function restart: 24 subsets of 30 views diverged
 * without it; 12 and 16 subsets did not).
 */
#include "solve/ctr-iterate.h"
#include "solve/ctr-penalty.h"
#include "solve/ctr-vec.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "data/ctr-noise.h"
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-fdk.h"
#include "analytic/ctr-rebin-helical.h"
#include "data/ctr-helix.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define CTR_PWLS_BETA_DELTA2 0.085
#define CTR_PWLS_DELTA_REL 0.008
#define CTR_PWLS_MOMENTUM_MIN_VIEWS 30
#define CTR_PWLS_WATCH_BELOW_VIEWS 60
#define CTR_PWLS_SUBSETS_TARGET 12

typedef struct {
  CtrVecs vs;           /* the operator's vectors (ctr-vec.h) */
  guint M;              /* ordered subsets */
  guint *group;         /* [operator subset] → its group (0 … M−1) */
  float *group_scale;   /* [group] operator subsets in all / in the group (M for equal groups) */
  float *W;             /* host, native data: statistical weights (0: dead or padding) */
  float *Ddata;         /* host, native image: Aᵀ W A 1 */
  CtrVec *X, *B, *valid;        /* the driver's image and data */
  CtrVec *Wv, *Dd;              /* W and Ddata in the operator's memory */
  CtrVec *Z, *Xold, *G, *GR, *CR;   /* native images: z, x before the step, gradient, ∇R, curvature */
  CtrVec *Ax;           /* native data: A x for the objective and the residual */
  double beta, delta;
  double t;             /* momentum sequence */
  double phi;           /* the objective after the last iteration (NaN before) */
  gboolean momentum_ok; /* subsets large enough for momentum */
  gboolean watch;       /* subsets small enough to watch Φ (function restart) */
  gsize nat;            /* floats of a natural image */
} Pwls;

static void
pwls_free (CtrIterate *it, gpointer data)
{
  Pwls *s = data;
  if (s == NULL)
    return;
  if (s->vs.ops != NULL)
    {
      CtrVec **v[] = { &s->X, &s->B, &s->valid, &s->Wv, &s->Dd, &s->Z, &s->Xold, &s->G, &s->GR, &s->CR, &s->Ax };
      for (guint i = 0; i < G_N_ELEMENTS (v); i++)
        ctr_vec_clear (&s->vs, v[i]);
      ctr_vecs_clear (&s->vs);
    }
  g_free (s->group);
  g_free (s->group_scale);
  g_free (s->W);
  g_free (s->Ddata);
  g_free (s);
}

/* The FBP (fan, parallel), FDK (circular cone) or rebinned FBP (helical:
 * 180LI, ctr-rebin-helical.h) image with a Hann window, clipped at zero, as
 * the start. */
static gboolean
start_image (CtrIterate *it, float *x_nat, GError **error)
{
  const CtrGeometry *g = it->op->geometry;
  g_autoptr (CtrVolume) v = ctr_helix_applies (g)
    ? ctr_rebin_fbp (g, it->p, &it->op->grid, CTR_REBIN_180LI, CTR_FILTER_HANN, 1.0, it->cancellable, error)
    : g->beam == CTR_BEAM_CONE
    ? ctr_fdk_run (g, it->p, &it->op->grid, CTR_FILTER_HANN, 1.0, NULL, it->cancellable, error)
    : ctr_fbp_run (g, it->p, &it->op->grid, CTR_FILTER_HANN, 1.0, it->cancellable, error);
  if (v == NULL)
    return FALSE;
  const gsize n = ctr_grid_size (&it->op->grid);
  for (gsize q = 0; q < n; q++)
    x_nat[q] = v->data[q] > 0.f && isfinite (v->data[q]) ? v->data[q] : 0.f;
  return TRUE;
}

static int
cmp_float (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

/* The object's typical attenuation: the median of the start image over the
 * pixels above a quarter of its 99.5th percentile (soft tissue in a head,
 * water in a phantom), in the image's unit; -1 when its scratch copy
 * cannot be had. */
static double
object_attenuation (const float *x, gsize n)
{
  g_autofree float *v = g_try_new (float, MAX (n, 1));
  if (v == NULL)
    return -1.0;   /* out of memory: the caller fails */
  gsize m = 0;
  for (gsize q = 0; q < n; q++)
    if (x[q] > 0.f)
      v[m++] = x[q];
  if (m == 0)
    return 0.0;
  qsort (v, m, sizeof (float), cmp_float);
  const float cut = 0.25f * v[(gsize) (0.995 * (m - 1))];
  gsize first = 0;
  while (first < m && v[first] < cut)
    first++;
  return v[first + (m - first) / 2];
}

/* The run's vectors in the operator's memory (ctr-vec.h): the image (the
 * start), the data, W and Aᵀ W A 1 bound, the work images made, z = x. */
static gboolean
pwls_vectors (CtrIterate *it, Pwls *s, GError **error)
{
  if (!ctr_vecs_init (&s->vs, it->op, error))
    return FALSE;
  CtrVecs *vs = &s->vs;
  const CtrVecOps *f = vs->ops;
  if ((s->X = f->bind (vs, CTR_VEC_IMAGE, it->X, error)) == NULL
      || (s->B = f->bind (vs, CTR_VEC_DATA, it->B, error)) == NULL
      || (s->valid = f->bind (vs, CTR_VEC_DATA, it->valid, error)) == NULL
      || (s->Wv = f->bind (vs, CTR_VEC_DATA, s->W, error)) == NULL
      || (s->Dd = f->bind (vs, CTR_VEC_IMAGE, s->Ddata, error)) == NULL
      || (s->Ax = f->alloc (vs, CTR_VEC_DATA, error)) == NULL)
    return FALSE;
  CtrVec **img[] = { &s->Z, &s->Xold, &s->G, &s->GR, &s->CR };
  for (guint i = 0; i < G_N_ELEMENTS (img); i++)
    if ((*img[i] = f->alloc (vs, CTR_VEC_IMAGE, error)) == NULL)
      return FALSE;
  return f->copy (vs, s->Z, s->X, error);
}

static gboolean
pwls_setup (CtrIterate *it, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  const CtrReconOptions *o = it->o;
  Pwls *s = g_new0 (Pwls, 1);
  *state = s;
  s->nat = ctr_grid_size (&op->grid);
  s->W = g_try_new (float, op->data_size);
  s->Ddata = g_try_new (float, op->image_size);
  g_autofree float *zn = g_try_new (float, s->nat);
  if (!s->W || !s->Ddata || !zn)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "PWLS: cannot allocate its work space");
      return FALSE;
    }

  /* Statistical weights from the noise level of the data.  A sinogram that
   * shows no noise at all (i0 = +Inf) is trusted to the resolution it is
   * stored with: the weights of a Poisson scan whose noise is float32's
   * rounding of a line integral near 1 (I0 = 1/ε², σ = ε), so that the
   * prior has almost nothing to do, as for any noiseless sinogram.  (Equal
   * weights of 1 there made the fixed prior β outweigh the data by ~10⁸:
   * ctsim's noise-free Shepp-Logan went from SSIM 0.98 to 0.39 in 12
   * iterations.)  Only where the noise cannot be estimated at all (fewer
   * than 5 columns) does every valid ray weigh the same. */
  CtrNoiseLevel level;
  g_autoptr (GError) noise_error = NULL;
  g_autofree float *w_proj = NULL;
  if (ctr_noise_estimate (op->geometry, it->p, &level, &noise_error))
    {
      if (level.source == CTR_NOISE_FROM_SINOGRAM && isinf (level.i0))
        level.i0 = 1.0 / ((double) FLT_EPSILON * FLT_EPSILON);
      w_proj = ctr_noise_weights (op->geometry, it->p, &level, &noise_error);
    }
  if (g_error_matches (noise_error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
    {
      g_propagate_error (error, g_steal_pointer (&noise_error));   /* not equal weights in its place */
      return FALSE;
    }
  if (w_proj != NULL)
    {
      op->klass->data_gather (op, w_proj, s->W);
      for (gsize q = 0; q < op->data_size; q++)
        s->W[q] = it->valid[q] != 0.f && isfinite (s->W[q]) ? s->W[q] : 0.f;
    }
  else
    memcpy (s->W, it->valid, op->data_size * sizeof (float));

  /* Aᵀ W A 1. */
  {
    g_autofree float *ones = ctr_memory_try_new (s->nat, sizeof (float), FALSE, "PWLS's start-up image", error);
    g_autofree float *ones_n = ones == NULL ? NULL
                               : ctr_memory_try_new (op->image_size, sizeof (float), FALSE, "PWLS's start-up image", error);
    g_autofree float *a1 = ones_n == NULL ? NULL
                           : ctr_memory_try_new (op->data_size, sizeof (float), TRUE, "PWLS's start-up projections", error);
    if (a1 == NULL)
      return FALSE;
    for (gsize q = 0; q < s->nat; q++)
      ones[q] = 1.f;
    op->klass->image_to_native (op, ones, ones_n);
    if (!op->klass->forward (op, CTR_SUBSET_ALL, ones_n, a1, error))
      return FALSE;
    for (gsize q = 0; q < op->data_size; q++)
      a1[q] *= s->W[q];
    if (!op->klass->adjoint (op, CTR_SUBSET_ALL, a1, s->Ddata, error))
      return FALSE;
  }

  /* Start image and the penalty's parameters. */
  if (!start_image (it, zn, error))
    return FALSE;
  op->klass->image_to_native (op, zn, it->X);
  const double mu = object_attenuation (zn, s->nat);
  if (mu < 0)
    {
      ctr_memory_set_error (error, ctr_memory_mul (s->nat, sizeof (float)), "PWLS's copy of the start image");
      return FALSE;
    }
  s->delta = o->delta > 0 ? o->delta : CTR_PWLS_DELTA_REL * mu;
  if (!(s->delta > 0))
    s->delta = 1e-6;
  s->beta = (o->beta > 0 ? o->beta : CTR_PWLS_BETA_DELTA2) / (s->delta * s->delta);

  /* Ordered subsets: groups of the operator's subsets, round-robin. */
  guint M = o->n_subsets;
  if (M == 0)
    M = MIN (CTR_PWLS_SUBSETS_TARGET, op->n_subsets);
  M = CLAMP (M, 1, op->n_subsets);
  s->M = M;
  g_autofree char *what = g_strdup_printf ("PWLS's groups of %u subsets", op->n_subsets);
  if ((s->group = ctr_memory_try_new (op->n_subsets, sizeof (guint), FALSE, what, error)) == NULL
      || (s->group_scale = ctr_memory_try_new (M, sizeof (float), TRUE, what, error)) == NULL)
    return FALSE;
  for (guint k = 0; k < op->n_subsets; k++)
    {
      s->group[k] = k % M;
      s->group_scale[k % M] += 1.f;
    }
  for (guint m = 0; m < M; m++)
    s->group_scale[m] = (float) op->n_subsets / s->group_scale[m];
  s->momentum_ok = op->geometry->n_views >= CTR_PWLS_MOMENTUM_MIN_VIEWS * M;
  s->watch = op->geometry->n_views < CTR_PWLS_WATCH_BELOW_VIEWS * M;
  s->t = 1.0;
  s->phi = NAN;
  return pwls_vectors (it, s, error);
}

/* Φ(x) = ½ ||A x − b||²_W + β R(x) (@phi nullable: the residual only);
 * also it->residual. */
static gboolean
objective (CtrIterate *it, Pwls *s, double *phi, GError **error)
{
  CtrVecs *vs = &s->vs;
  double n3[3], r = 0.0;
  if (!vs->ops->forward (vs, CTR_SUBSET_ALL, s->X, s->Ax, error)
      || !vs->ops->data_norms (vs, s->Ax, s->B, phi != NULL ? s->Wv : NULL, s->valid, n3, error))
    return FALSE;
  it->residual = n3[2] > 0 ? sqrt (n3[1] / n3[2]) : sqrt (n3[1]);
  if (phi == NULL)
    return TRUE;
  if (!vs->ops->penalty_value (vs, it->o->penalty, s->delta, s->X, &r, error))
    return FALSE;
  *phi = 0.5 * n3[0] + s->beta * r;
  return TRUE;
}

/* One ordered subset m: x⁺ = [z − g ./ D]₊ and the momentum (see the top). */
static gboolean
pwls_subset (CtrIterate *it, Pwls *s, guint m, gboolean momentum, GError **error)
{
  CtrOperator *op = it->op;
  CtrVecs *vs = &s->vs;
  const CtrVecOps *f = vs->ops;
  /* G = A_mᵀ W (b − A_m z), the data part of the subset's gradient. */
  if (!f->fill (vs, s->G, 0.f, error))
    return FALSE;
  for (guint k = 0; k < op->n_subsets; k++)
    if (s->group[k] == m && !f->update (vs, k, s->Z, s->B, s->Wv, 1.f, s->G, 0, error))
      return FALSE;
  /* ∇R(z) and the surrogate's curvature; the step. */
  if (!f->reduce (vs, s->G, error)
      || !f->penalty_gradient (vs, it->o->penalty, s->delta, s->Z, s->GR, s->CR, error)
      || !f->copy (vs, s->Xold, s->X, error)
      || !f->sqs_step (vs, s->X, s->Z, s->G, s->GR, s->CR, s->Dd, s->group_scale[m], (float) s->beta,
                       it->o->nonnegative, error))
    return FALSE;
  if (!momentum)
    return f->copy (vs, s->Z, s->X, error);
  /* Nesterov's momentum with the gradient restart. */
  double uphill;
  if (!f->diff_dot (vs, s->Z, s->X, s->X, s->Xold, &uphill, error))
    return FALSE;
  if (uphill > 0)
    {
      s->t = 1.0;
      return f->copy (vs, s->Z, s->X, error);
    }
  const double t1 = 0.5 * (1.0 + sqrt (1.0 + 4.0 * s->t * s->t));
  const float c = (float) ((s->t - 1.0) / t1);
  s->t = t1;
  return f->extrapolate (vs, s->Z, s->X, s->Xold, c, error);
}

static gboolean
pwls_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Pwls *s = data;
  const gboolean momentum = it->o->momentum && s->momentum_ok;
  for (guint m = 0; m < s->M; m++)
    if (ctr_iterate_cancelled (it, error) || !pwls_subset (it, s, m, momentum, error))
      return FALSE;
  /* With small subsets, an iteration that raised the objective restarts the
   * momentum (O'Donoghue & Candès 2015, function restart): ordered subsets
   * add errors that the momentum accumulates otherwise.  It costs a forward
   * product per iteration, so only there. */
  if (!momentum || !s->watch)
    return !it->residual_wanted || objective (it, s, NULL, error);
  double phi;
  if (!objective (it, s, &phi, error))
    return FALSE;
  if (!isnan (s->phi) && phi > s->phi)
    {
      s->t = 1.0;
      if (!s->vs.ops->copy (&s->vs, s->Z, s->X, error))
        return FALSE;
    }
  s->phi = phi;
  return TRUE;
}

/* The image into it->X for a report (a device's comes back). */
static gboolean
pwls_sync (CtrIterate *it, gpointer data, gsize offset, gsize n, GError **error)
{
  Pwls *s = data;
  return s->vs.ops->download_part (&s->vs, s->X, offset, n, it->X, error);
}

/* The vectors and the reported image (the one pwls_sync brings back). */
static CtrVecs *
pwls_vecs (gpointer data, const CtrVec **X)
{
  Pwls *s = data;
  *X = s->X;
  return &s->vs;
}

/* The planes of a report into it->X (strided; a device's come back). */
static gboolean
pwls_sync_runs (CtrIterate *it, gpointer data, const CtrImageRuns *runs, GError **error)
{
  Pwls *s = data;
  return s->vs.ops->download_runs (&s->vs, s->X, runs, it->X, error);
}

const CtrSolverClass ctr_pwls_solver = { CTR_METHOD_PWLS, pwls_setup, pwls_iterate, pwls_sync, pwls_free,
                                          pwls_vecs, pwls_sync_runs };
