/* ctr-scsr-sums.c — column sums and subset overlaps of the symmetry-
 * compressed matrix (see ctr-scsr.h): what SART, SIRT and parallel ART
 * normalise with, computed from the stored rows. */
#include "sysmat/ctr-scsr-private.h"

#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>

/* out = Σ_{o ∈ [o0, o1)} A_oᵀ 1 over the acquired lanes, one slice, packed;
 * FALSE with CTR_ERROR_OUT_OF_MEMORY when its buffers cannot be had. */
static gboolean
column_sums (const CtrScsr *m, guint o0, guint o1, float *out, GError **error)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), nc = ctr_scsr_n_cols (m), P = ctr_scsr_n_parts (m);
  const gsize psize = ctr_scsr_packed_size (m, 1), lsz = (gsize) nc * K;
  memset (out, 0, psize * sizeof (float));
  g_autofree char *what_d = g_strdup_printf ("the column sums' image of %" G_GSIZE_FORMAT " packed pixels", psize);
  float *D = ctr_memory_try_new (psize, sizeof (float), TRUE, what_d, error);
  if (D == NULL)
    return FALSE;
  g_autofree char *what_m = g_strdup_printf ("the column sums' lane mask of %u orbits × %u columns × %u lanes",
                                             o1 - o0, nc, K);
  float *mask = ctr_memory_try_new (lsz * (o1 - o0), sizeof (float), FALSE, what_m, error);
  if (mask == NULL)
    {
      g_free (D);
      return FALSE;
    }
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
  return TRUE;
}

gboolean
ctr_scsr_column_sums_orbit (const CtrScsr *m, guint orbit, float *out, GError **error)
{
  g_return_val_if_fail (orbit < ctr_scsr_n_orbits (m), FALSE);
  return column_sums (m, orbit, orbit + 1, out, error);
}

gboolean
ctr_scsr_column_sums_all (const CtrScsr *m, float *out, GError **error)
{
  return column_sums (m, 0, ctr_scsr_n_orbits (m), out, error);
}

gboolean
ctr_scsr_inverse_column_sums (const CtrScsr *m, float *out, GError **error)
{
  const gsize psize = ctr_scsr_packed_size (m, 1);
  for (guint o = 0; o < ctr_scsr_n_orbits (m); o++)
    {
      float *c = out + psize * o;
      if (!column_sums (m, o, o + 1, c, error))
        return FALSE;
      for (gsize q = 0; q < psize; q++)
        c[q] = c[q] > 0.f ? 1.f / c[q] : 0.f;
    }
  return TRUE;
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

gboolean
ctr_scsr_orbit_overlaps (const CtrScsr *m, float *kappa, GError **error)
{
  const CtrSymmetry *sy = ctr_scsr_symmetry (m);
  const guint K = ctr_scsr_order (m), no = ctr_scsr_n_orbits (m);
  const guint T = (guint) MAX (1, omp_get_max_threads ());
  /* Each thread its counts per rep slot and per pixel, allocated up front. */
  const gsize per = (gsize) sy->n_reps * K + ctr_scsr_n_pixels (m);
  g_autofree char *what = g_strdup_printf ("the subset overlaps' counts of %u threads × %" G_GUINT64_FORMAT " pixels",
                                           T, ctr_scsr_n_pixels (m));
  g_autofree guint32 *counts = ctr_memory_try_new (ctr_memory_mul (T, per), sizeof (guint32), FALSE, what, error);
  if (counts == NULL)
    return FALSE;
#pragma omp parallel num_threads(T)
  {
    guint32 *cr = counts + per * (gsize) omp_get_thread_num ();
    guint32 *cp = cr + (gsize) sy->n_reps * K;
#pragma omp for schedule(dynamic, 1)
    for (guint o = 0; o < no; o++)
      kappa[o] = orbit_overlap (m, o, cr, cp);
  }
  return TRUE;
}
