/* ctr-fly-sums.c — the on-the-fly pair's row sums and the subsets'
 * overlaps κ (the sparsity bound of Censor, Gordon & Gordon 2001), made in
 * one pass over the canonical rows and folded over each orbit (see
 * ctr-fly-op.h and ctr-fly-op-private.h).
 */
#include "sysmat/ctr-fly-op-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>

/* κ of one subset, without orbits: the largest number of its rays crossing
 * one pixel, counted in @count (zero on entry and on return: cleared over
 * the range of pixels touched, not by computing the rows again). */
static float
view_overlap (FlyOp *c, guint t, guint32 *count, CtrRowBuf *b)
{
  guint32 mx = 1, lo = G_MAXUINT32, hi = 0;
  for (guint col = 0; col < c->nc; col++)
    {
      b->len = 0;
      ctr_ray_weights (c->parent.geometry, &c->gi, c->model, t, col, b);
      for (gsize k = 0; k < b->len; k++)
        {
          const guint32 p = b->col[k], n_here = ++count[p];
          mx = MAX (mx, n_here);
          lo = MIN (lo, p);
          hi = MAX (hi, p);
        }
    }
  if (lo <= hi)
    memset (count + lo, 0, ((gsize) hi - lo + 1) * sizeof (guint32));
  return (float) mx;
}

/* κ of orbit @o from @count ([pixel] the elements of the canonical view's
 * rows at each pixel, zeroed here as they are read): lane g's row holds
 * the pixel of slot compose[g][h] where the canonical row holds slot h, so
 * a pixel's count sums the canonical counts of the slots the acquired lanes
 * map onto it (as ctr_scsr_orbit_overlaps, from the same rows).  A pixel
 * that two slots of its rep share (a stabilised rep) counts once, in its
 * first slot (pixel_slot), and the sums are per pixel. */
static float
orbit_fold (const FlyOp *c, guint o, guint32 *count)
{
  const CtrSymmetry *sy = c->orbits;
  const guint K = c->K;
  const gint32 *lanes = sy->lane_view + (gsize) o * K;
  guint32 best = 1;
  for (guint32 r = 0; r < sy->n_reps; r++)
    {
      const guint32 *px = sy->rep_pixel + (gsize) r * K;
      guint32 cr[8];
      for (guint h = 0; h < K; h++)
        cr[h] = sy->pixel_slot[px[h]] == h ? count[px[h]] : 0;
      for (guint h = 0; h < K; h++)
        count[px[h]] = 0;
      guint32 acc[8] = { 0 };
      for (guint g = 0; g < K; g++)
        if (lanes[g] >= 0)
          for (guint h = 0; h < K; h++)
            acc[sy->group.compose[g][h]] += cr[h];
      for (guint k = 0; k < K; k++)
        {
          guint32 n = acc[k];
          if (sy->rep_stabilised[r])
            for (guint q = 0; q < K; q++)
              n += q != k && px[q] == px[k] ? acc[q] : 0;
          best = MAX (best, n);
        }
    }
  return (float) best;
}

/* The canonical rows of orbit @o: their sums Σ a² and Σ a into @sq and
 * @sum (each nullable; every slice, every ray the row maps to) and their
 * elements counted by pixel into @count for orbit_fold. */
static gboolean
orbit_rows (FlyOp *c, guint o, CtrRowBuf *b, float *sq, float *sum, guint32 *count)
{
  gboolean lost = FALSE;
  gint32 views[8];
  const RaySet rs = ray_set (c, o, views);
  for (guint j = 0; j < c->nc; j++)
    {
      guint32 ray[8];
      guint lane[8];
      const guint n_rays = unit_row (c, &rs, j, b, ray, lane);
      double s2 = 0, s1 = 0;
      for (gsize k = 0; k < b->len; k++)
        {
          s2 += (double) b->val[k] * b->val[k];
          s1 += b->val[k];
        }
      for (gsize k = 0; k < b->len; k++)
        count[b->col[k]]++;
      if (b->failed)
        {
          /* a row that lost elements: no sum rather than a wrong one (the
           * method's image turns non-finite and the run fails) */
          s2 = s1 = NAN;
          b->failed = FALSE;
          lost = TRUE;
        }
      for (guint r = 0; r < n_rays; r++)
        for (guint s = 0; s < c->ns; s++)
          {
            if (sq)
              sq[(gsize) s * c->nr + ray[r]] = (float) s2;
            if (sum)
              sum[(gsize) s * c->nr + ray[r]] = (float) s1;
          }
    }
  return !lost;
}

/* Each thread's counts for the overlaps, one a pixel; NULL with
 * CTR_ERROR_OUT_OF_MEMORY. */
static guint32 *
overlap_counts (FlyOp *c, gsize *per, GError **error)
{
  *per = MAX ((gsize) c->np, 1);
  g_autofree char *what = g_strdup_printf ("the subset overlaps' counts of %u threads × %" G_GSIZE_FORMAT " pixels",
                                           c->nt, *per);
  return ctr_memory_try_new (ctr_memory_mul (c->nt, *per), sizeof (guint32), TRUE, what, error);
}

/* κ of every subset: the largest number of its rays crossing one pixel;
 * FALSE with CTR_ERROR_OUT_OF_MEMORY when the threads' counts cannot be
 * had.  Each row is computed once; with orbits only the canonical view's
 * (the rows the products use and the SCSR matrix stores), and with @sq or
 * @sum their row sums are made in the same pass (fly_row_sums). */
static gboolean
overlaps (FlyOp *c, float *kappa, float *sq, float *sum, GError **error)
{
  const guint n_sub = c->parent.n_subsets;
  gsize per;
  g_autofree guint32 *counts = overlap_counts (c, &per, error);
  if (counts == NULL)
    return FALSE;
  gboolean lost = FALSE;
#pragma omp parallel num_threads(c->nt) reduction(||:lost)
  {
    guint32 *count = counts + per * (gsize) omp_get_thread_num ();
    CtrRowBuf *b = &c->rows[omp_get_thread_num ()];
#pragma omp for schedule(dynamic, 1)
    for (guint t = 0; t < n_sub; t++)
      {
        if (c->orbits == NULL)
          {
            kappa[t] = view_overlap (c, t, count, b);
            continue;
          }
        lost = !orbit_rows (c, t, b, sq, sum, count) || lost;
        kappa[t] = orbit_fold (c, t, count);
      }
  }
  if (lost)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "the on-the-fly projector's row buffers (%u threads) could not grow", c->nt);
      return FALSE;
    }
  return ctr_fly_rows_ok (c, error);
}

/* Row sums Σ_p a_ip² and Σ_p a_ip of every ray, the same for every slice.
 * With orbits each canonical row is computed once and its sums given to
 * the rays it maps to (their rows are its elements, permuted). */
void
ctr_fly_row_sums (CtrOperator *op, float *sq, float *sum)
{
  FlyOp *c = (FlyOp *) op;
  /* Parallel ART asks for ‖a_i‖² (@sq), then for the orbits' overlaps:
   * with orbit subsets both come from one pass over the canonical rows
   * (computing the rows is what costs), κ kept for fly_subset_overlap.
   * Where the counts cannot be had, the sums alone (κ then fails with its
   * error when asked for); and where the run said it wants no κ (the
   * cuART step), the sums alone too. */
  if (c->orbits != NULL && sq != NULL && c->kappa == NULL && !c->no_kappa)
    {
      float *k = g_try_new (float, op->n_subsets);
      if (k != NULL && overlaps (c, k, sq, sum, NULL))
        {
          c->kappa = k;
          return;
        }
      g_free (k);
    }
  gint32 views[8];
  const RaySet rs = ray_set (c, CTR_SUBSET_ALL, views);
  const gint64 n = ray_set_units (c, &rs);
#pragma omp parallel num_threads(c->nt)
  {
    CtrRowBuf *b = &c->rows[omp_get_thread_num ()];
#pragma omp for schedule(dynamic, 16)
    for (gint64 q = 0; q < n; q++)
      {
        guint32 ray[8];
        guint lane[8];
        const guint n_rays = unit_row (c, &rs, q, b, ray, lane);
        double s2 = 0, s1 = 0;
        for (gsize k = 0; k < b->len; k++)
          {
            s2 += (double) b->val[k] * b->val[k];
            s1 += b->val[k];
          }
        if (b->failed)
          {
            /* a row that lost elements: no sum rather than a wrong one (the
             * method's image turns non-finite and the run fails) */
            s2 = s1 = NAN;
            b->failed = FALSE;
          }
        for (guint r = 0; r < n_rays; r++)
          for (guint s = 0; s < c->ns; s++)
            {
              if (sq)
                sq[(gsize) s * c->nr + ray[r]] = (float) s2;
              if (sum)
                sum[(gsize) s * c->nr + ray[r]] = (float) s1;
            }
      }
  }
}

gboolean
ctr_fly_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  if (c->kappa == NULL)
    {
      float *k = ctr_memory_try_new (op->n_subsets, sizeof (float), FALSE, "the subsets' overlaps", error);
      if (k == NULL || !overlaps (c, k, NULL, NULL, error))
        {
          g_free (k);
          return FALSE;
        }
      c->kappa = k;
    }
  *kappa = c->kappa[subset];
  return TRUE;
}
