/* ctr-fbp.c — filtered back-projection: parallel beam, equiangular (curved)
 * and equispaced (flat) fan beam, any set of view angles, short scans.
 *
 * Geometry (FORMAT.md), shown at view angle β; e_u = (cos β, sin β),
 * d0 = (-sin β, cos β):
 *
 *          detector (flat: plane at SDD; curved: arc of radius SDD about S)
 *        ====+============+============+====>  u (column index grows)
 *             \           |           /
 *              \       γ  |          /
 *               \    P •  | b = P·e_u
 *                \     \  |        /
 *                 \     \ |  a    /      a = (P - S)·d0  (along the central ray)
 *                  \     \|      /       L² = a² + b²    (source to pixel)
 *                   \     o isocentre    γ' = atan2 (b, a)
 *                    \    |    /
 *                     \   |   /
 *                      \  |  /   SOD
 *                       \ | /
 *                         S  source (SOD sin β, -SOD cos β)
 *
 * Parallel beam (Kak & Slaney 1988, §3.3, Eqs. 61-64):
 *   Q_β(nτ) = τ Σ_k h(nτ - kτ) P_β(kτ),  h = discrete Ram-Lak (Eq. 61)
 *   f(x, y) = Σ_v Δβ_v · w_red · Q_βv(x cos β + y sin β)
 * with w_red = π / (angular range): 1 for 180°, ½ for 360°.
 *
 * Equiangular fan (K&S §3.4.1, Eqs. 111-118; D = SOD, γ = column angle):
 *   R'_β(nα) = R_β(nα) · D cos(nα)                      (pre-weight, Eq. 116)
 *   Q_β = R'_β ⊛ g,  g(nα) = ½ (nα / sin nα)² h(nα)       (Eq. 118)
 *   f(x, y) = Σ_v Δβ_v · (1 / L²) · Q_βv(γ')             (Eq. 117)
 * Flat (equispaced) fan (K&S §3.4.2, Eqs. 143-155), data rescaled to a virtual
 * detector through the isocentre, s = u · SOD/SDD, spacing a = pitch·SOD/SDD:
 *   R'_β(s) = R_β(s) · D / √(D² + s²)                     (Eq. 152)
 *   Q_β = R'_β ⊛ g,  g(na) = ½ h(na)                      (Eq. 153)
 *   f(x, y) = Σ_v Δβ_v · (1 / U²) · Q_βv(s'),             (Eq. 154-155)
 *   U = a / SOD, s' = SOD · b / a.
 *
 * K&S integrate over a full 2π; their factor ½ in g is the weight of a ray
 * measured twice.  Here that ½ is the redundancy weight w_red and it is
 * applied to the data before filtering: ½ for a full scan (range >= 2π), or
 * for a fan-beam short scan of range π + 2δ the Parker (1982) weights
 * (ctr_parker_weight, w(β, γ) + w(conjugate) = 1), which replace the ½.
 *
 * Δβ_v: the angles may be non-uniform, unsorted or decreasing; each view
 * weighs half the distance to its neighbours in sorted order (the end views
 * the distance to their single neighbour), so Σ Δβ_v = the angular range.
 *
 * Back-projection is pixel driven: per image row (OpenMP) and view, a and b
 * are linear in x; the detector column is interpolated linearly; the column
 * position comes from ctr_geometry_u_col, so detector offsets need nothing
 * special.  Slice s of the output is detector row ctr_geometry_slice_row (s).
 * Two passes per (row, view): the columns (and fan-beam weights) of the
 * row's pixels (ctr-fbp-columns.h, vectorised), then the interpolation
 * (ctr-row-interp.h).
 */
#include "analytic/ctr-fbp.h"
#include "analytic/ctr-fbp-columns.h"
#include "analytic/ctr-row-interp.h"
#include "data/ctr-geometry-vectors.h"
#include "analytic/ctr-redundancy.h"
#include "analytic/ctr-filter.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Weights one detector row of view @v in place: Δβ · redundancy · pre-weight. */
static void
weight_row (const CtrGeometry *g, const CtrRedundancy *red, guint v, double dbeta, float *row)
{
  const double sod = g->sod_mm, sdd = g->sdd_mm;
  for (guint c = 0; c < g->n_cols; c++)
    {
      double u = ctr_geometry_col_u (g, c);
      double w, gamma;
      if (g->beam == CTR_BEAM_PARALLEL)
        {
          w = 1.0;
          gamma = 0.0;
        }
      else if (g->shape == CTR_DETECTOR_CURVED)
        {
          gamma = u;
          w = sod * cos (gamma);                    /* K&S Eq. 116 */
        }
      else
        {
          double s = u * sod / sdd;
          gamma = atan2 (u, sdd);
          w = sod / sqrt (sod * sod + s * s);       /* K&S Eq. 152 */
        }
      row[c] = (float) (row[c] * w * dbeta * ctr_redundancy_weight (red, v, gamma));
    }
}

/* Back-projects the filtered sinogram @q ([view][col]) into @img.  FALSE
 * when cancelled (@error unset: the caller says so) or, with
 * CTR_ERROR_OUT_OF_MEMORY, when the view tables or the threads' rows cannot
 * be allocated. */
static gboolean
backproject (const CtrGeometry *g, const CtrGrid *grid, const float *q,
             float *img, GCancellable *cancellable, GError **error)
{
  const guint nv = g->n_views, nc = g->n_cols, nx = grid->nx, ny = grid->ny;
  const double sod = g->sod_mm, sdd = g->sdd_mm;
  const gboolean parallel = g->beam == CTR_BEAM_PARALLEL;
  const gboolean curved = !parallel && g->shape == CTR_DETECTOR_CURVED;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  g_autofree char *what = g_strdup_printf ("the back-projection's tables of %u views and rows of %u pixels "
                                           "× %d threads", nv, nx, threads);
  /* sin and cos of each view; per thread the columns and weights of one
   * image row in one view */
  g_autofree double *sc = ctr_memory_try_new (nv, 2 * sizeof (double), FALSE, what, error);
  g_autofree float *rows = sc == NULL ? NULL
                                      : ctr_memory_try_new (ctr_memory_mul ((guint64) threads, nx),
                                                            2 * sizeof (float), FALSE, what, error);
  if (rows == NULL)
    return FALSE;
  double *sn = sc, *cs = sc + nv;
  for (guint v = 0; v < nv; v++)
    {
      sn[v] = sin (g->angles[v]);
      cs[v] = cos (g->angles[v]);
    }
  /* column = (u - offset)/pitch + (nc-1)/2 = u·inv_pitch + col0 */
  const double inv_pitch = 1.0 / g->pitch_u;
  const double col0 = ctr_geometry_u_col (g, 0.0);
  const double x0 = ctr_grid_x (grid, 0), dx = grid->dx;
  const CtrRowInterp interp = ctr_row_interp_select (NULL);
  gboolean cancelled = FALSE;

#pragma omp parallel num_threads(threads)
  {
    int t = 0;
#ifdef _OPENMP
    t = omp_get_thread_num ();
#endif
    float *colv = rows + 2 * (gsize) nx * t, *wv = colv + nx;
#pragma omp for schedule(dynamic, 4)
    for (gint64 iy = 0; iy < (gint64) ny; iy++)
      {
        if (g_atomic_int_get (&cancelled))
          continue;
        if (g_cancellable_is_cancelled (cancellable))
          {
            g_atomic_int_set (&cancelled, TRUE);
            continue;
          }
        const double y = ctr_grid_y (grid, iy);
        float *out = img + (gsize) iy * nx;
        for (guint v = 0; v < nv; v++)
          {
            const float *qv = q + (gsize) v * nc;
            const double s = sn[v], c = cs[v];
            if (parallel)
              {
                /* t = x cos β + y sin β (K&S Eq. 64) */
                const float col_a = (float) ((x0 * c + y * s) * inv_pitch + col0);
                const float col_d = (float) (dx * c * inv_pitch);
                for (guint ix = 0; ix < nx; ix++)
                  colv[ix] = col_a + col_d * ix;
                interp (out, colv, NULL, nx, qv, nc);
              }
            else
              {
                /* a = (P - S)·d0, b = P·e_u, both linear in x.  Pass 1:
                 * column and weight per pixel (-1: at or behind the source). */
                const double a_a = -x0 * s + y * c + sod, a_d = -dx * s;
                const double b_a = x0 * c + y * s, b_d = dx * c;
                if (curved)
                  ctr_fbp_columns_curved (nx, a_a, a_d, b_a, b_d, inv_pitch, col0, colv, wv);
                else
                  ctr_fbp_columns_flat (nx, a_a, a_d, b_a, b_d, sdd * inv_pitch, sod, col0, colv, wv);
                /* Pass 2: linear interpolation in the filtered row. */
                interp (out, colv, wv, nx, qv, nc);
              }
          }
      }
  }
  return !cancelled;
}

CtrVolume *
ctr_fbp_run (const CtrGeometry *g, const CtrProjections *p,
             const CtrGrid *grid, CtrFilterWindow window,
             double cutoff, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL, NULL);
  g_return_val_if_fail (p != NULL, NULL);
  g_return_val_if_fail (grid != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ctr_geometry_validate (g, error))
    return NULL;
  /* Per-view vectors: FBP runs on their circular description, or refuses. */
  g_autoptr (CtrGeometry) circular = NULL;
  if ((g = ctr_geometry_as_circular (g, &circular, error)) == NULL)
    return NULL;
  if (g->beam != CTR_BEAM_PARALLEL && g->beam != CTR_BEAM_FAN)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "FBP handles parallel and fan beam; cone-beam data need FDK");
      return NULL;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "FBP needs line integrals; convert the counts first");
      return NULL;
    }
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections are %u views × %u rows × %u columns but the geometry says "
                   "%u × %u × %u", p->n_views, p->n_rows, p->n_cols,
                   g->n_views, g->n_rows, g->n_cols);
      return NULL;
    }
  if (!ctr_grid_validate (grid, error))
    return NULL;
  if (grid->nz != g->n_rows)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the image has %u slices but the detector %u rows; FBP makes one slice per row",
                   grid->nz, g->n_rows);
      return NULL;
    }
  if ((int) window < 0 || window >= CTR_N_FILTERS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "unknown filter window %d", (int) window);
      return NULL;
    }
  if (!(cutoff > 0.0 && cutoff <= 1.0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "filter cut-off must be in (0, 1] of Nyquist, got %g", cutoff);
      return NULL;
    }

  const guint nv = g->n_views, nc = g->n_cols;
  const gboolean curved = g->beam == CTR_BEAM_FAN && g->shape == CTR_DETECTOR_CURVED;

  /* Filter: spacing of the (virtual) detector, (γ/sin γ)² for equiangular data. */
  double spacing = g->pitch_u;
  g_autofree double *kscale = NULL;
  if (g->beam == CTR_BEAM_FAN && !curved)
    spacing = g->pitch_u * g->sod_mm / g->sdd_mm;
  if (curved)
    {
      g_autofree char *what = g_strdup_printf ("the fan filter's kernel weights of %u columns", nc);
      kscale = ctr_memory_try_new (2 * (gsize) nc - 1, sizeof (double), FALSE, what, error);
      if (kscale == NULL)
        return NULL;
      for (gint64 k = -(gint64) (nc - 1); k <= (gint64) (nc - 1); k++)
        {
          double gam = k * g->pitch_u;
          double r = k == 0 ? 1.0 : gam / sin (gam);
          kscale[k + (nc - 1)] = r * r;
        }
    }
  g_autoptr (CtrRampFilter) filter = ctr_ramp_filter_new (nc, spacing, window, cutoff, kscale, error);
  if (filter == NULL)
    return NULL;

  g_autoptr (CtrVolume) vol = ctr_volume_new (grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, g->pixel_size_known ? "1/mm" : "1/pixel");

  gsize sino_n = (gsize) nv * nc;
  /* + the padding the interpolation kernels may read past the last row */
  g_autofree float *sino = g_try_malloc0_n (sino_n + CTR_ROW_INTERP_PAD, sizeof (float));
  if (sino == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate a sinogram of %u × %u floats", nv, nc);
      return NULL;
    }
  g_autofree double *dbeta = ctr_view_spacing (g, error);
  if (dbeta == NULL)
    return NULL;
  CtrRedundancy red;
  ctr_redundancy_init (&red, g);

  for (guint slice = 0; slice < grid->nz; slice++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      guint row = ctr_geometry_slice_row (g, slice);
      for (guint v = 0; v < nv; v++)
        {
          memcpy (sino + (gsize) v * nc,
                  ctr_projections_view (p, v) + (gsize) row * nc, nc * sizeof (float));
          /* dead pixels: filled along the row, whatever value they hold */
          if (p->mask != NULL)
            ctr_projections_fill_row (sino + (gsize) v * nc, p->mask + (gsize) row * nc, nc);
        }

#pragma omp parallel for schedule(static)
      for (gint64 v = 0; v < (gint64) nv; v++)
        weight_row (g, &red, (guint) v, dbeta[v], sino + (gsize) v * nc);

      if (!ctr_ramp_filter_apply (filter, sino, nv, error))
        return NULL;
      if (!backproject (g, grid, sino, ctr_volume_slice (vol, slice), cancellable, error))
        {
          if (error == NULL || *error == NULL)
            g_cancellable_set_error_if_cancelled (cancellable, error);
          return NULL;
        }
    }
  return g_steal_pointer (&vol);
}
