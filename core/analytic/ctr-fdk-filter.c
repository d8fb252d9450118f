/* ctr-fdk-filter.c — FDK step 1: the checks, the weights and the ramp filtering
 * (step 2 is ctr-fdk-backproject.c, the two together ctr-fdk.c).
 *
 * Geometry at view angle β (FORMAT.md; e_u = (cos β, sin β, 0), d0 the
 * central ray, e_v = +z):
 *
 *                        flat panel at SDD from S
 *             v ^   ===========+===========>  u      (col grows with u,
 *               |              |                      row with v unless
 *               |        (u,v) .                      rows_increase_with_v
 *                \            /|                      is false)
 *                 \   x  .  /  |
 *                  \  U  . /   |  U = (x - S)·d0: depth of the voxel x
 *                   \    ./    |
 *                    \   o isocentre, SOD from S
 *                     \  |
 *                        S  source (SOD sin β, -SOD cos β, 0)
 *
 * FDK (Feldkamp et al. 1984; Kak & Slaney §3.6, Eqs. 176-180) written on the
 * virtual detector through the isocentre (p = u·SOD/SDD, ζ = v·SOD/SDD):
 *   R'_β(p, ζ) = R_β(p, ζ) · SOD / √(SOD² + p² + ζ²)        (cosine weight)
 *              = R_β · SDD / √(SDD² + u² + v²)
 *   Q_β = (w_red · Δβ · R'_β) ⊛_p h,  h = discrete Ram-Lak at τ = pitch_u·SOD/SDD
 *   f(x) = Σ_β (SOD / U)² · Q_β(p(x), ζ(x))                  (ctr-fdk-backproject.c)
 * Kak & Slaney's ½ (a full scan measures every ray twice) is the redundancy
 * weight w_red = ½; a short scan of range π + 2δ uses Parker's (1982) weights
 * instead, on the fan angle γ = atan(u/SDD) of each column (exact in the
 * orbit plane, the usual approximation off it).
 */
#include "analytic/ctr-fdk.h"
#include "data/ctr-geometry-vectors.h"
#include "analytic/ctr-redundancy.h"
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-filter.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif


gboolean
ctr_fdk_check_geometry (const CtrGeometry *g, GError **error)
{
  if (!ctr_geometry_validate (g, error))
    return FALSE;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "FDK reconstructs cone-beam data; this geometry is %s beam (use FBP)",
                   g->beam == CTR_BEAM_FAN ? "fan" : "parallel");
      return FALSE;
    }
  if (g->shape != CTR_DETECTOR_FLAT)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "FDK handles a flat panel; a curved (cylindrical) cone-beam detector is rebinned to "
                   "fan-beam slices (use fbp) or reconstructed iteratively");
      return FALSE;
    }
  if (g->source_z_mm != NULL || g->focal_shift != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "FDK reconstructs a circular orbit with a fixed source; a helical scan (or a moving "
                   "focal spot) is rebinned to fan-beam slices (use fbp) or reconstructed iteratively");
      return FALSE;
    }
  if (ctr_geometry_has_vectors (g))
    {
      /* FDK's filter and weights assume a circular orbit: callers pass the
       * circular description (ctr_fdk_run and the plan make it). */
      g_autoptr (CtrGeometry) c = ctr_geometry_circular_from_vectors (g, NULL, error);
      if (c != NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                     "FDK takes the circular description of per-view vectors (ctr_geometry_circular_from_vectors)");
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_fdk_check_input (const CtrGeometry *g, const CtrProjections *p, GError **error)
{
  if (!ctr_fdk_check_geometry (g, error))
    return FALSE;
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "FDK needs line integrals; convert the counts first");
      return FALSE;
    }
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections are %u views × %u rows × %u columns but the geometry says "
                   "%u × %u × %u", p->n_views, p->n_rows, p->n_cols,
                   g->n_views, g->n_rows, g->n_cols);
      return FALSE;
    }
  return TRUE;
}

CtrProjections *
ctr_fdk_filter (const CtrGeometry *g, const CtrProjections *p, CtrFilterWindow window,
                double cutoff, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!ctr_fdk_check_input (g, p, error))
    return NULL;
  return ctr_fdk_filter_views (g, p, 0, window, cutoff, cancellable, error);
}

CtrProjections *
ctr_fdk_filter_views (const CtrGeometry *g, const CtrProjections *p, guint first_view,
                      CtrFilterWindow window, double cutoff, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!ctr_fdk_check_geometry (g, error))
    return NULL;
  if (p->kind != CTR_PROJ_LINE_INTEGRALS || p->n_rows != g->n_rows || p->n_cols != g->n_cols
      || first_view > g->n_views || p->n_views > g->n_views - first_view)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "FDK: %u views × %u rows × %u columns of %s from view %u do not fit the geometry's "
                   "%u × %u × %u", p->n_views, p->n_rows, p->n_cols,
                   p->kind == CTR_PROJ_LINE_INTEGRALS ? "line integrals" : "counts", first_view,
                   g->n_views, g->n_rows, g->n_cols);
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  const guint nv = p->n_views, nr = g->n_rows, nc = g->n_cols;
  const double tau = g->pitch_u * g->sod_mm / g->sdd_mm;
  g_autoptr (CtrRampFilter) filter = ctr_ramp_filter_new (nc, tau, window, cutoff, NULL, error);
  if (filter == NULL)
    return NULL;
  CtrProjections *q = ctr_projections_new (nv, nr, nc, CTR_PROJ_LINE_INTEGRALS, error);
  if (q == NULL)
    return NULL;

  g_autofree double *dbeta = ctr_view_spacing (g, error);
  CtrRedundancy red;
  ctr_redundancy_init (&red, g);
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  /* Per column γ; per detector pixel the cosine weight (the same for every
   * view), [row][col]; per thread one view's column weights. */
  g_autofree char *what = g_strdup_printf ("FDK's weights of %u rows × %u columns and %d threads", nr, nc, threads);
  g_autofree double *gam = dbeta == NULL ? NULL : ctr_memory_try_new (nc, sizeof (double), FALSE, what, error);
  g_autofree float *cosw = gam == NULL ? NULL : ctr_memory_try_new ((gsize) nr * nc, sizeof (float), FALSE, what, error);
  g_autofree float *wcs = cosw == NULL ? NULL
                                       : ctr_memory_try_new (ctr_memory_mul ((guint64) threads, nc), sizeof (float),
                                                             FALSE, what, error);
  if (wcs == NULL)
    {
      ctr_projections_unref (q);
      return NULL;
    }
  for (guint c = 0; c < nc; c++)
    gam[c] = atan2 (ctr_geometry_col_u (g, c), g->sdd_mm);
  const double sdd2 = g->sdd_mm * g->sdd_mm;
  for (guint r = 0; r < nr; r++)
    {
      const double v = ctr_geometry_row_v (g, r);
      for (guint c = 0; c < nc; c++)
        {
          const double u = ctr_geometry_col_u (g, c);
          cosw[(gsize) r * nc + c] = (float) (g->sdd_mm / sqrt (sdd2 + u * u + v * v));
        }
    }

#pragma omp parallel num_threads(threads)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num ();
#endif
    float *wc = wcs + (gsize) nc * t;
#pragma omp for schedule(static)
    for (gint64 v = 0; v < (gint64) nv; v++)
      {
        for (guint c = 0; c < nc; c++)
          wc[c] = (float) (dbeta[first_view + v] * ctr_redundancy_weight (&red, first_view + (guint) v, gam[c]));
        const float *src = ctr_projections_view (p, (guint) v);
        float *dst = ctr_projections_view (q, (guint) v);
        for (guint r = 0; r < nr; r++)
          {
            const float *cw = cosw + (gsize) r * nc;
            const gsize o = (gsize) r * nc;
            if (p->mask != NULL)
              {
                /* dead pixels: filled along the row, whatever value they hold */
                memcpy (dst + o, src + o, nc * sizeof (float));
                ctr_projections_fill_row (dst + o, p->mask + o, nc);
                for (guint c = 0; c < nc; c++)
                  dst[o + c] *= cw[c] * wc[c];
              }
            else
              for (guint c = 0; c < nc; c++)
                dst[o + c] = src[o + c] * cw[c] * wc[c];
          }
      }
  }
  if (!ctr_ramp_filter_apply (filter, q->data, nv * nr, error))
    {
      ctr_projections_unref (q);
      return NULL;
    }
  return q;
}

gboolean
ctr_fdk_weights (const CtrGeometry *g, float *cosw, float *view_col, GError **error)
{
  g_return_val_if_fail (g != NULL && cosw != NULL && view_col != NULL, FALSE);
  if (!ctr_fdk_check_geometry (g, error))
    return FALSE;
  const guint nv = g->n_views, nr = g->n_rows, nc = g->n_cols;
  g_autofree double *dbeta = ctr_view_spacing (g, error);
  g_autofree double *gam = dbeta == NULL ? NULL
                                         : ctr_memory_try_new (nc, sizeof (double), FALSE, "FDK's column angles", error);
  if (gam == NULL)
    return FALSE;
  CtrRedundancy red;
  ctr_redundancy_init (&red, g);
  for (guint c = 0; c < nc; c++)
    gam[c] = atan2 (ctr_geometry_col_u (g, c), g->sdd_mm);
  const double sdd2 = g->sdd_mm * g->sdd_mm;
  for (guint r = 0; r < nr; r++)
    {
      const double v = ctr_geometry_row_v (g, r);
      for (guint c = 0; c < nc; c++)
        {
          const double u = ctr_geometry_col_u (g, c);
          cosw[(gsize) r * nc + c] = (float) (g->sdd_mm / sqrt (sdd2 + u * u + v * v));
        }
    }
  for (guint v = 0; v < nv; v++)
    for (guint c = 0; c < nc; c++)
      view_col[(gsize) v * nc + c] = (float) (dbeta[v] * ctr_redundancy_weight (&red, v, gam[c]));
  return TRUE;
}
