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
  guint M;              /* ordered subsets */
  guint *group;         /* [operator subset] → its group (0 … M−1) */
  float *group_scale;   /* [group] operator subsets in all / in the group (M for equal groups) */
  float *W;             /* native data: statistical weights (0: dead or padding) */
  float *Ddata;         /* native image: Aᵀ W A 1 */
  float *Z, *Xold, *G;  /* native images */
  float *zn, *gn, *cn;  /* natural images: z, ∇R(z), curvature */
  float *GR, *CR;       /* native: ∇R, curvature */
  double beta, delta;
  double t;             /* momentum sequence */
  double phi;           /* the objective after the last iteration (NaN before) */
  gboolean momentum_ok; /* subsets large enough for momentum */
  gboolean watch;       /* subsets small enough to watch Φ (function restart) */
  float *Ax;            /* native data: A x for the objective */
  gsize nat;            /* floats of a natural image */
  guint nx, ny, nz;
} Pwls;

static void
pwls_free (CtrIterate *it, gpointer data)
{
  Pwls *s = data;
  if (s == NULL)
    return;
  g_free (s->group);
  g_free (s->group_scale);
  g_free (s->W);
  g_free (s->Ddata);
  g_free (s->Z);
  g_free (s->Xold);
  g_free (s->G);
  g_free (s->zn);
  g_free (s->gn);
  g_free (s->cn);
  g_free (s->GR);
  g_free (s->CR);
  g_free (s->Ax);
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

static gboolean
pwls_setup (CtrIterate *it, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  const CtrReconOptions *o = it->o;
  Pwls *s = g_new0 (Pwls, 1);
  *state = s;
  s->nx = op->grid.nx;
  s->ny = op->grid.ny;
  s->nz = op->grid.nz;
  s->nat = ctr_grid_size (&op->grid);
  s->W = g_try_new (float, op->data_size);
  s->Ddata = g_try_new (float, op->image_size);
  s->Z = g_try_new (float, op->image_size);
  s->Xold = g_try_new (float, op->image_size);
  s->G = g_try_new (float, op->image_size);
  s->GR = g_try_new (float, op->image_size);
  s->CR = g_try_new (float, op->image_size);
  s->zn = g_try_new (float, s->nat);
  s->gn = g_try_new (float, s->nat);
  s->cn = g_try_new (float, s->nat);
  if (!s->W || !s->Ddata || !s->Z || !s->Xold || !s->G || !s->GR || !s->CR || !s->zn || !s->gn || !s->cn)
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
  if (!start_image (it, s->zn, error))
    return FALSE;
  op->klass->image_to_native (op, s->zn, it->X);
  const double mu = object_attenuation (s->zn, s->nat);
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
  s->group = g_new (guint, op->n_subsets);
  s->group_scale = g_new0 (float, M);
  for (guint k = 0; k < op->n_subsets; k++)
    {
      s->group[k] = k % M;
      s->group_scale[k % M] += 1.f;
    }
  for (guint m = 0; m < M; m++)
    s->group_scale[m] = (float) op->n_subsets / s->group_scale[m];
  s->momentum_ok = op->geometry->n_views >= CTR_PWLS_MOMENTUM_MIN_VIEWS * M;
  s->watch = op->geometry->n_views < CTR_PWLS_WATCH_BELOW_VIEWS * M;
  memcpy (s->Z, it->X, op->image_size * sizeof (float));
  s->t = 1.0;
  s->phi = NAN;
  s->Ax = g_try_new (float, op->data_size);
  if (s->Ax == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "PWLS: cannot allocate its work space");
      return FALSE;
    }
  return TRUE;
}

/* Φ(x) = ½ ||A x − b||²_W + β R(x); also it->residual. */
static gboolean
objective (CtrIterate *it, Pwls *s, double *phi, GError **error)
{
  CtrOperator *op = it->op;
  if (!op->klass->forward (op, CTR_SUBSET_ALL, it->X, s->Ax, error))
    return FALSE;
  double fit = 0.0, num = 0.0, den = 0.0;
#pragma omp parallel for reduction(+:fit,num,den) schedule(static)
  for (gint64 q = 0; q < (gint64) op->data_size; q++)
    {
      const double d = (double) s->Ax[q] - it->B[q];
      fit += s->W[q] * d * d;
      if (it->valid[q] != 0.f)
        {
          num += d * d;
          den += (double) it->B[q] * it->B[q];
        }
    }
  it->residual = den > 0 ? sqrt (num / den) : sqrt (num);
  op->klass->image_from_native (op, it->X, s->zn);
  *phi = 0.5 * fit + s->beta * ctr_penalty_value (it->o->penalty, s->delta, s->zn, s->nx, s->ny, s->nz);
  return TRUE;
}

/* (z − x)·(x − x_old) with the operator's inner-product weights. */
static double
dot_of_differences (const CtrOperator *op, const float *z, const float *x, const float *xold)
{
  const float *w = op->image_weight;
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static)
  for (gint64 q = 0; q < (gint64) op->image_size; q++)
    acc += (w ? w[q] : 1.0) * ((double) z[q] - x[q]) * ((double) x[q] - xold[q]);
  return acc;
}

static gboolean
pwls_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Pwls *s = data;
  CtrOperator *op = it->op;
  const gboolean nonneg = it->o->nonnegative;
  const gboolean momentum = it->o->momentum && s->momentum_ok;
  const gsize n = op->image_size;
  for (guint m = 0; m < s->M; m++)
    {
      if (ctr_iterate_cancelled (it, error))
        return FALSE;
      /* G = A_mᵀ W (b − A_m z), the data part of the subset's gradient. */
      memset (s->G, 0, n * sizeof (float));
      for (guint k = 0; k < op->n_subsets; k++)
        if (s->group[k] == m
            && !op->klass->update (op, k, s->Z, it->B, s->W, 1.f, s->G, 0, error))
          return FALSE;
      if (op->klass->reduce != NULL)
        op->klass->reduce (op, s->G);
      /* ∇R(z) and the surrogate's curvature. */
      op->klass->image_from_native (op, s->Z, s->zn);
      ctr_penalty_gradient (it->o->penalty, s->delta, s->zn, s->nx, s->ny, s->nz, s->gn, s->cn);
      op->klass->image_to_native (op, s->gn, s->GR);
      op->klass->image_to_native (op, s->cn, s->CR);
      const float M = s->group_scale[m], beta = (float) s->beta;
      float *X = it->X;
      memcpy (s->Xold, X, n * sizeof (float));
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < (gint64) n; q++)
        {
          const float den = s->Ddata[q] + beta * s->CR[q];
          float x = s->Z[q];
          if (den > 0.f)
            x += (M * s->G[q] - beta * s->GR[q]) / den;
          X[q] = nonneg && x < 0.f ? 0.f : x;
        }
      if (!momentum)
        {
          memcpy (s->Z, X, n * sizeof (float));
          continue;
        }
      /* Nesterov's momentum with the gradient restart. */
      const double uphill = dot_of_differences (op, s->Z, X, s->Xold);
      if (uphill > 0)
        {
          s->t = 1.0;
          memcpy (s->Z, X, n * sizeof (float));
          continue;
        }
      const double t1 = 0.5 * (1.0 + sqrt (1.0 + 4.0 * s->t * s->t));
      const float c = (float) ((s->t - 1.0) / t1);
      s->t = t1;
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < (gint64) n; q++)
        s->Z[q] = X[q] + c * (X[q] - s->Xold[q]);
    }
  /* With small subsets, an iteration that raised the objective restarts the
   * momentum (O'Donoghue & Candès 2015, function restart): ordered subsets
   * add errors that the momentum accumulates otherwise.  It costs a forward
   * product per iteration, so only there. */
  if (!momentum || !s->watch)
    return TRUE;
  double phi;
  if (!objective (it, s, &phi, error))
    return FALSE;
  if (!isnan (s->phi) && phi > s->phi)
    {
      s->t = 1.0;
      memcpy (s->Z, it->X, n * sizeof (float));
    }
  s->phi = phi;
  return TRUE;
}

const CtrSolverClass ctr_pwls_solver = { CTR_METHOD_PWLS, pwls_setup, pwls_iterate, NULL, pwls_free };
