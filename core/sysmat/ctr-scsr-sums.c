/* ctr-scsr-sums.c — column sums and subset overlaps of the symmetry-
 * compressed matrix (see ctr-scsr.h): what SART, SIRT and parallel ART
 * normalise with, computed from the stored rows. */
#include "sysmat/ctr-scsr-private.h"

#include <string.h>

/* out = Σ_{o ∈ [o0, o1)} A_oᵀ 1 over the acquired lanes, one slice, packed. */
static void
column_sums (const CtrScsr *m, guint o0, guint o1, float *out)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), nc = ctr_scsr_n_cols (m), P = ctr_scsr_n_parts (m);
  const gsize psize = ctr_scsr_packed_size (m, 1), lsz = (gsize) nc * K;
  memset (out, 0, psize * sizeof (float));
  float *D = g_new0 (float, psize);
  float *mask = g_new (float, lsz * (o1 - o0));
  for (guint o = o0; o < o1; o++)
    for (guint j = 0; j < nc; j++)
      for (guint k = 0; k < K; k++)
        mask[(o - o0) * lsz + (gsize) j * K + k] = sy->lane_view[(gsize) o * K + k] >= 0;
#pragma omp parallel for schedule(static, 1)
  for (guint p = 0; p < P; p++)
    {
      for (guint o = o0; o < o1; o++)
        ctr_scsr_orbit_adjoint (m, o, p, 1, mask + (o - o0) * lsz, D);
      ctr_scsr_finish_part (m, p, 1, out, D, NULL, FALSE, NULL);
    }
  g_free (mask);
  g_free (D);
}

void
ctr_scsr_column_sums_orbit (const CtrScsr *m, guint orbit, float *out)
{
  g_return_if_fail (orbit < ctr_scsr_n_orbits (m));
  column_sums (m, orbit, orbit + 1, out);
}

void
ctr_scsr_column_sums_all (const CtrScsr *m, float *out)
{
  column_sums (m, 0, ctr_scsr_n_orbits (m), out);
}

void
ctr_scsr_inverse_column_sums (const CtrScsr *m, float *out)
{
  const gsize psize = ctr_scsr_packed_size (m, 1);
  for (guint o = 0; o < ctr_scsr_n_orbits (m); o++)
    {
      float *c = out + psize * o;
      column_sums (m, o, o + 1, c);
      for (gsize q = 0; q < psize; q++)
        c[q] = c[q] > 0.f ? 1.f / c[q] : 0.f;
    }
}

/* κ of orbit o: the largest number of the subset's rays crossing one pixel. */
static float
orbit_overlap (const CtrScsr *m, guint o, guint32 *count_rep, guint32 *count_px)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m);
  ctr_scsr_count_reps (m, o, count_rep);
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

void
ctr_scsr_orbit_overlaps (const CtrScsr *m, float *kappa)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), no = ctr_scsr_n_orbits (m);
#pragma omp parallel
  {
    guint32 *cr = g_new (guint32, (gsize) sy->n_reps * K);
    guint32 *cp = g_new (guint32, ctr_scsr_n_pixels (m));
#pragma omp for schedule(dynamic, 1)
    for (guint o = 0; o < no; o++)
      kappa[o] = orbit_overlap (m, o, cr, cp);
    g_free (cr);
    g_free (cp);
  }
}
