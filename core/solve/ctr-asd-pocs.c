/* ctr-asd-pocs.c — ASD-POCS: adaptive steepest descent on the total
 * variation alternating with projections onto the data and positivity
 * (Sidky & Pan 2008, "Image reconstruction in circular cone-beam computed
 * tomography by constrained, total-variation minimization", Phys. Med. Biol.
 * 53, 4777-4807: the ASD-POCS pseudo-code of the paper).  One iteration:
 *
 *   f₀ = f;  f = SART pass (relaxation β);  f = max (f, 0)      (POCS)
 *   dd = ||A f − b||;  dp = ||f − f₀||;  (first iteration: dtvg = α dp)
 *   f₀ = f;  N_grad times: f −= dtvg · ∇TV(f) / ||∇TV(f)||       (ASD)
 *   dg = ||f − f₀||;  if dg > r_max dp and dd > ε: dtvg ·= α_red
 *   β ·= β_red
 *
 * with the paper's constants r_max = 0.95, α_red = 0.95, β_red = 0.995,
 * N_grad = CtrReconOptions.tv_iterations (20), and β₀ = the relaxation.
 * The data step here is SART (one update per subset of views), weaker per
 * pass than the paper's ray-by-ray ART: so α = 0.002 (TIGRE's ASD-POCS,
 * Biguri et al. 2016, Biomed. Phys. Eng. Express 2 055010, which also steps
 * with SART; the paper's 0.2 let the TV descent dominate our SART passes:
 * measured on a 20-view Shepp-Logan, RMSE 3.0e-3 against 1.7e-3 after 20
 * iterations), and by default β₀ = 1.9 and 100 iterations (ctr-recon-types.c).  ε, the data residual the TV descent
 * may keep, is the noise's: sqrt (Σᵢ var(bᵢ)) over the valid rays, from the
 * noise level estimated from the data (ctr-noise.h), unless given.  The SART
 * steps are the operator's (SCSR orbits, CSR views, cone views) with
 * COLUMN_SCALE, the TV is 2-D per slice (ctr-penalty.h).
 */
#include "solve/ctr-iterate.h"
#include "solve/ctr-penalty.h"
#include "base/ctr-error.h"
#include "data/ctr-noise.h"

#include <math.h>
#include <string.h>

#define ASD_ALPHA 0.002
#define ASD_R_MAX 0.95
#define ASD_ALPHA_RED 0.95
#define ASD_BETA_RED 0.995

typedef struct {
  float *coef;        /* native data: valid / row sums (SART) */
  float *X0;          /* native image */
  float *R;           /* native data: A f */
  float *x, *g;       /* natural images: f and ∇TV(f) */
  double beta, dtvg, epsilon;
  gsize nat;
} Asd;

static void
asd_free (CtrIterate *it, gpointer data)
{
  Asd *a = data;
  if (a == NULL)
    return;
  g_free (a->coef);
  g_free (a->X0);
  g_free (a->R);
  g_free (a->x);
  g_free (a->g);
  g_free (a);
}

static gboolean
asd_setup (CtrIterate *it, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  Asd *a = g_new0 (Asd, 1);
  *state = a;
  a->nat = ctr_grid_size (&op->grid);
  a->coef = g_try_new (float, op->data_size);
  a->R = g_try_new (float, op->data_size);
  a->X0 = g_try_new (float, op->image_size);
  a->x = g_try_new (float, a->nat);
  a->g = g_try_new (float, a->nat);
  if (!a->coef || !a->R || !a->X0 || !a->x || !a->g)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "ASD-POCS: cannot allocate its work space");
      return FALSE;
    }
  op->klass->row_sums (op, NULL, a->coef);
  for (gsize q = 0; q < op->data_size; q++)
    a->coef[q] = a->coef[q] > 0.f && it->valid[q] != 0.f ? 1.f / a->coef[q] : 0.f;
  a->beta = it->o->relaxation;
  a->dtvg = NAN;
  a->epsilon = it->o->epsilon;
  if (a->epsilon <= 0)
    {
      CtrNoiseLevel level;
      g_autoptr (GError) e = NULL;
      /* ||noise|| = σ_rms sqrt (n); a noiseless sinogram gives 0 (the TV
       * descent then always shrinks with the data step). */
      a->epsilon = ctr_noise_estimate (op->geometry, it->p, &level, &e) && isfinite (level.sigma)
                     ? level.sigma * sqrt ((double) level.n_rays) : 0.0;
    }
  return TRUE;
}

static double
image_distance (const CtrOperator *op, const float *a, const float *b)
{
  const float *w = op->image_weight;
  double acc = 0.0;
#pragma omp parallel for reduction(+:acc) schedule(static)
  for (gint64 q = 0; q < (gint64) op->image_size; q++)
    {
      const double d = (double) a[q] - b[q];
      acc += (w ? w[q] : 1.0) * d * d;
    }
  return sqrt (acc);
}

static gboolean
asd_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Asd *a = data;
  CtrOperator *op = it->op;
  float *X = it->X;
  memcpy (a->X0, X, op->image_size * sizeof (float));
  /* POCS: one SART pass, then positivity. */
  for (guint t = 0; t < op->n_subsets; t++)
    {
      if (ctr_iterate_cancelled (it, error))
        return FALSE;
      const guint s = ctr_operator_subset_at (op, t);
      if (!op->klass->update (op, s, X, it->B, a->coef, (float) a->beta, NULL,
                              CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, error))
        return FALSE;
    }
  if (!op->klass->forward (op, CTR_SUBSET_ALL, X, a->R, error))
    return FALSE;
  double dd = 0.0;
  for (gsize q = 0; q < op->data_size; q++)
    if (it->valid[q] != 0.f)
      {
        const double d = (double) a->R[q] - it->B[q];
        dd += d * d;
      }
  dd = sqrt (dd);
  const double dp = image_distance (op, X, a->X0);
  if (isnan (a->dtvg))
    a->dtvg = ASD_ALPHA * dp;
  memcpy (a->X0, X, op->image_size * sizeof (float));

  /* ASD: N_grad normalised steepest-descent steps on the TV. */
  op->klass->image_from_native (op, X, a->x);
  float xmax = 0.f;
  for (gsize q = 0; q < a->nat; q++)
    xmax = MAX (xmax, fabsf (a->x[q]));
  const double eps = 1e-5 * (xmax > 0 ? xmax : 1.0);
  for (guint k = 0; k < it->o->tv_iterations; k++)
    {
      ctr_tv_gradient (a->x, op->grid.nx, op->grid.ny, op->grid.nz, eps, a->g);
      double gg = 0.0;
#pragma omp parallel for reduction(+:gg) schedule(static)
      for (gint64 q = 0; q < (gint64) a->nat; q++)
        gg += (double) a->g[q] * a->g[q];
      if (gg <= 0.0)
        break;
      const float step = (float) (a->dtvg / sqrt (gg));
#pragma omp parallel for schedule(static)
      for (gint64 q = 0; q < (gint64) a->nat; q++)
        a->x[q] -= step * a->g[q];
    }
  op->klass->image_to_native (op, a->x, X);
  const double dg = image_distance (op, X, a->X0);
  if (dg > ASD_R_MAX * dp && dd > a->epsilon)
    a->dtvg *= ASD_ALPHA_RED;
  a->beta *= ASD_BETA_RED;
  return TRUE;
}

const CtrSolverClass ctr_asd_pocs_solver = { CTR_METHOD_ASD_POCS, asd_setup, asd_iterate, NULL, asd_free };
