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
#include "solve/ctr-vec.h"
#include "base/ctr-error.h"
#include "data/ctr-noise.h"

#include <math.h>
#include <string.h>

#define ASD_ALPHA 0.002
#define ASD_R_MAX 0.95
#define ASD_ALPHA_RED 0.95
#define ASD_BETA_RED 0.995

typedef struct {
  CtrVecs vs;         /* the operator's vectors (ctr-vec.h) */
  float *coef;        /* host, native data: valid / row sums (SART) */
  CtrVec *X, *B, *valid, *C;   /* the driver's image and data; coef */
  CtrVec *X0;         /* native image */
  CtrVec *R;          /* native data: A f */
  double beta, dtvg, epsilon;
} Asd;

static void
asd_free (CtrIterate *it, gpointer data)
{
  Asd *a = data;
  if (a == NULL)
    return;
  if (a->vs.ops != NULL)
    {
      CtrVec **v[] = { &a->X, &a->B, &a->valid, &a->C, &a->X0, &a->R };
      for (guint i = 0; i < G_N_ELEMENTS (v); i++)
        ctr_vec_clear (&a->vs, v[i]);
      ctr_vecs_clear (&a->vs);
    }
  g_free (a->coef);
  g_free (a);
}

static gboolean
asd_setup (CtrIterate *it, gpointer *state, GError **error)
{
  CtrOperator *op = it->op;
  Asd *a = g_new0 (Asd, 1);
  *state = a;
  a->coef = g_try_new (float, op->data_size);
  if (!a->coef)
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
      if (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
        {
          g_propagate_error (error, g_steal_pointer (&e));   /* not ε = 0 in its place */
          return FALSE;
        }
    }
  if (!ctr_vecs_init (&a->vs, op, error))
    return FALSE;
  CtrVecs *vs = &a->vs;
  const CtrVecOps *f = vs->ops;
  return (a->X = f->bind (vs, CTR_VEC_IMAGE, it->X, error)) != NULL
         && (a->B = f->bind (vs, CTR_VEC_DATA, it->B, error)) != NULL
         && (a->valid = f->bind (vs, CTR_VEC_DATA, it->valid, error)) != NULL
         && (a->C = f->bind (vs, CTR_VEC_DATA, a->coef, error)) != NULL
         && (a->X0 = f->alloc (vs, CTR_VEC_IMAGE, error)) != NULL
         && (a->R = f->alloc (vs, CTR_VEC_DATA, error)) != NULL;
}

/* ||a − b|| with the operator's inner-product weights. */
static gboolean
image_distance (CtrVecs *vs, const CtrVec *a, const CtrVec *b, double *out, GError **error)
{
  double acc;
  if (!vs->ops->diff_dot (vs, a, b, a, b, &acc, error))
    return FALSE;
  *out = sqrt (acc);
  return TRUE;
}

/* A f into R, and data_norms of R against B over the valid rays into @n3. */
static gboolean
data_distance (CtrVecs *vs, Asd *a, double n3[3], GError **error)
{
  return vs->ops->forward (vs, CTR_SUBSET_ALL, a->X, a->R, error)
         && vs->ops->data_norms (vs, a->R, a->B, NULL, a->valid, n3, error);
}

static gboolean
asd_iterate (CtrIterate *it, gpointer data, GError **error)
{
  Asd *a = data;
  CtrOperator *op = it->op;
  CtrVecs *vs = &a->vs;
  const CtrVecOps *f = vs->ops;
  if (!f->copy (vs, a->X0, a->X, error))
    return FALSE;
  /* POCS: one SART pass, then positivity. */
  for (guint t = 0; t < op->n_subsets; t++)
    {
      if (ctr_iterate_cancelled (it, error))
        return FALSE;
      const guint s = ctr_operator_subset_at (op, t);
      if (!f->update (vs, s, a->X, a->B, a->C, (float) a->beta, NULL, CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG,
                      error))
        return FALSE;
    }
  double n3[3], dp, dg;
  if (!data_distance (vs, a, n3, error) || !image_distance (vs, a->X, a->X0, &dp, error))
    return FALSE;
  const double dd = sqrt (n3[1]);
  if (isnan (a->dtvg))
    a->dtvg = ASD_ALPHA * dp;
  /* ASD: N_grad normalised steepest-descent steps on the TV. */
  if (!f->copy (vs, a->X0, a->X, error) || !f->tv_descent (vs, a->X, it->o->tv_iterations, a->dtvg, error)
      || !image_distance (vs, a->X, a->X0, &dg, error))
    return FALSE;
  if (dg > ASD_R_MAX * dp && dd > a->epsilon)
    a->dtvg *= ASD_ALPHA_RED;
  a->beta *= ASD_BETA_RED;
  /* The residual of the image after the descent, for a report that shows
   * it (one more forward product: the next pass's starts from another
   * image). */
  if (it->residual_wanted)
    {
      if (!data_distance (vs, a, n3, error))
        return FALSE;
      it->residual = n3[2] > 0 ? sqrt (n3[1] / n3[2]) : sqrt (n3[1]);
    }
  return TRUE;
}

/* The image into it->X for a report (a device's comes back). */
static gboolean
asd_sync (CtrIterate *it, gpointer data, gsize offset, gsize n, GError **error)
{
  Asd *a = data;
  return a->vs.ops->download_part (&a->vs, a->X, offset, n, it->X, error);
}

/* The vectors and the reported image (the one asd_sync brings back). */
static CtrVecs *
asd_vecs (gpointer data, const CtrVec **X)
{
  Asd *a = data;
  *X = a->X;
  return &a->vs;
}

/* The planes of a report into it->X (strided; a device's come back). */
static gboolean
asd_sync_runs (CtrIterate *it, gpointer data, const CtrImageRuns *runs, GError **error)
{
  Asd *a = data;
  return a->vs.ops->download_runs (&a->vs, a->X, runs, it->X, error);
}

const CtrSolverClass ctr_asd_pocs_solver = { CTR_METHOD_ASD_POCS, asd_setup, asd_iterate, asd_sync, asd_free,
                                          asd_vecs, asd_sync_runs };
