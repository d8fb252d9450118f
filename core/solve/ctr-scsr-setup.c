/* ctr-scsr-setup.c — the once-per-run preparation of the SCSR solvers
 * (see ctr-scsr-setup.h). */
#include "ctr-scsr-setup.h"
#include "ctr-error.h"
#include "sysmat/ctr-scsr-private.h"

#include <string.h>

/* Column sums of orbit @o (all = every orbit) into @out [rep][K] as
 * @lambda / sum (0 where no ray), summing the slots that are one pixel. */
static void
inverse_column_sums (const CtrScsr *m, gint o_only, double lambda, float *out)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), nc = ctr_scsr_n_cols (m), no = ctr_scsr_n_orbits (m);
  const guint P = ctr_scsr_n_parts (m);
  const gsize psize = ctr_scsr_packed_size (m, 1);
  const gsize lsz = (gsize) nc * K;
  memset (out, 0, psize * sizeof (float));
  float *D = g_new0 (float, psize);
  float *mask = g_new (float, lsz * no);
  const guint o0 = o_only >= 0 ? (guint) o_only : 0, o1 = o_only >= 0 ? (guint) o_only + 1 : no;
  for (guint o = o0; o < o1; o++)
    for (guint j = 0; j < nc; j++)
      for (guint k = 0; k < K; k++)
        mask[o * lsz + (gsize) j * K + k] = sy->lane_view[(gsize) o * K + k] >= 0;
#pragma omp parallel for schedule(static, 1)
  for (guint p = 0; p < P; p++)
    {
      for (guint o = o0; o < o1; o++)
        ctr_scsr_orbit_adjoint (m, o, p, 1, mask + o * lsz, D);
      ctr_scsr_finish_part (m, p, 1, out, D, NULL, FALSE, NULL);
    }
  for (gsize q = 0; q < psize; q++)
    out[q] = out[q] > 0.f ? (float) (lambda / out[q]) : 0.f;
  g_free (mask);
  g_free (D);
}

/* κ of orbit o: the largest number of the subset's rays crossing one pixel. */
static float
orbit_sparsity (const CtrScsr *m, guint o, guint32 *count_rep, guint32 *count_px)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), nc = ctr_scsr_n_cols (m);
  const gint64 *seg;
  const CtrScsrElem *el;
  ctr_scsr_arrays (m, &seg, &el);
  memset (count_rep, 0, sizeof (guint32) * sy->n_reps * K);
  const guint PK = ctr_scsr_n_parts (m) * K;
  for (guint j = 0; j < nc; j++)
    {
      const gint64 *sg = seg + ((gsize) o * nc + j) * PK;
      for (guint q = 0; q < PK; q++)
        for (gint64 e = sg[q]; e < sg[q + 1]; e++)
          count_rep[(gsize) el[e].rep * K + q % K]++;
    }
  guint32 best = 1;
  for (guint32 r = 0; r < sy->n_reps; r++)
    {
      const guint32 *px = sy->rep_pixel + (gsize) r * K;
      for (guint k = 0; k < K; k++)
        count_px[px[k]] = 0;
      for (guint g = 0; g < K; g++)
        if (sy->lane_view[(gsize) o * K + g] >= 0)
          for (guint h = 0; h < K; h++)
            count_px[px[sy->group.compose[g][h]]] += count_rep[(gsize) r * K + h];
      for (guint k = 0; k < K; k++)
        best = MAX (best, count_px[px[k]]);
    }
  return (float) best;
}

gboolean
ctr_scsr_setup_init (CtrScsrSetup *su, const CtrScsr *m, const CtrGeometry *g,
                     const CtrProjections *p, const CtrReconOptions *o, guint ns, GError **error)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  su->K = ctr_scsr_order (m);
  su->nc = g->n_cols;
  su->no = ctr_scsr_n_orbits (m);
  su->ns = ns;
  su->lane_size = (gsize) su->nc * ns * su->K;
  su->lane_all = su->lane_size * su->no;
  su->b = g_try_new (float, su->lane_all);
  su->coef = g_try_new (float, su->lane_all);
  su->valid = g_try_new (float, su->lane_all);
  const CtrMethod method = o->method;
  const gsize ps1 = ctr_scsr_packed_size (m, 1);
  su->scale_n = method == CTR_METHOD_SART ? ps1 * su->no : method == CTR_METHOD_SIRT ? ps1 : 0;
  if (su->scale_n)
    su->scale = g_try_new (float, su->scale_n);
  if (!su->b || !su->coef || !su->valid || (su->scale_n && !su->scale))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the SCSR solver data (%u slices)", ns);
      return FALSE;
    }
  const guint K = su->K, nc = su->nc, no = su->no;
  const double lambda = o->relaxation;
  const float *row_sq = ctr_scsr_row_sq (m), *row_sum = ctr_scsr_row_sum (m);
  g_autofree float *kappa = g_new (float, no);
  if (method == CTR_METHOD_PART)
    {
#pragma omp parallel
      {
        guint32 *cr = g_new (guint32, (gsize) sy->n_reps * K);
        guint32 *cp = g_new (guint32, ctr_scsr_n_pixels (m));
#pragma omp for schedule(dynamic, 1)
        for (guint ob = 0; ob < no; ob++)
          {
            if (o->part_step == CTR_PART_STEP_CUART)
              {
                guint lanes = 0;
                for (guint k = 0; k < K; k++)
                  lanes += sy->lane_view[(gsize) ob * K + k] >= 0;
                kappa[ob] = (float) lanes * nc;
              }
            else
              kappa[ob] = orbit_sparsity (m, ob, cr, cp);
          }
        g_free (cr);
        g_free (cp);
      }
    }
#pragma omp parallel for schedule(dynamic, 1)
  for (guint ob = 0; ob < no; ob++)
    for (guint j = 0; j < nc; j++)
      {
        const gsize row = (gsize) ob * nc + j;
        float c;
        if (method == CTR_METHOD_PART)
          c = row_sq[row] > 0 ? (float) (lambda / (kappa[ob] * row_sq[row])) : 0.f;
        else
          c = row_sum[row] > 0 ? 1.f / row_sum[row] : 0.f;
        for (guint s = 0; s < ns; s++)
          {
            const guint prow = ctr_geometry_slice_row (g, s);
            for (guint k = 0; k < K; k++)
              {
                const gsize q = ob * su->lane_size + ((gsize) j * ns + s) * K + k;
                const gint32 v = sy->lane_view[(gsize) ob * K + k];
                if (v < 0)
                  {
                    su->b[q] = su->coef[q] = su->valid[q] = 0.f;
                    continue;
                  }
                const guint col = ctr_symmetry_lane_col (sy, k, j);
                const gboolean alive = p->mask ? p->mask[(gsize) prow * p->n_cols + col] != 0 : TRUE;
                su->b[q] = ctr_projections_view (p, (guint) v)[(gsize) prow * p->n_cols + col];
                su->coef[q] = alive ? c : 0.f;
                su->valid[q] = alive ? 1.f : 0.f;
              }
          }
      }
  if (method == CTR_METHOD_SART)
    for (guint ob = 0; ob < no; ob++)
      inverse_column_sums (m, (gint) ob, lambda, su->scale + ps1 * ob);
  else if (method == CTR_METHOD_SIRT)
    inverse_column_sums (m, -1, lambda, su->scale);
  return TRUE;
}

void
ctr_scsr_setup_clear (CtrScsrSetup *su)
{
  g_free (su->b);
  g_free (su->coef);
  g_free (su->valid);
  g_free (su->scale);
  memset (su, 0, sizeof *su);
}
