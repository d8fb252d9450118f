/* ctr-fdk.h — Feldkamp-Davis-Kress (FDK) reconstruction for circular
 * cone-beam CT with a flat panel.
 *
 * Feldkamp, Davis & Kress, J. Opt. Soc. Am. A 1 (1984); Kak & Slaney (1988)
 * §3.6, Eqs. (176)-(180); the iFDK formulation (Chen et al., SC19,
 * ../shared/papers/ifdk-sc19.txt): Algorithm 1 (filtering) and Algorithm 4 /
 * §3.2 (back-projection with per-view 3×4 projection matrices, Eqs. 1-3).
 *
 * Two steps, each usable alone (a GPU backend replaces either):
 *   1. ctr_fdk_filter: cosine weight SDD/√(SDD² + u² + v²), view weight Δβ
 *      times the redundancy weight (½ for a full scan, Parker 1982 for a short
 *      scan), row-wise ramp filter (discrete Ram-Lak, zero padding >= 2N,
 *      windows; ctr-filter.h) at the virtual detector's pitch τ = pitch_u·SOD/SDD.
 *   2. ctr_fdk_backproject: voxel driven, f(x) = Σ_v (SOD / U_v(x))² ·
 *      Q_v(col(x), row(x)) with U the depth of x along the central ray,
 *      (col, row) from the projection matrix and bilinear interpolation.
 *
 * Scaling: a uniform object of attenuation μ reconstructs to μ within 2 %
 * (tested on a cylinder).  Output unit 1/mm (1/pixel when the geometry's
 * pixel size is unknown).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "analytic/ctr-filter.h"

G_BEGIN_DECLS

/**
 * CtrFdkTimings:
 * Wall-clock seconds of the two FDK steps of one ctr_fdk_run() and their sum
 * with the set-up (allocation, the final volume transposition).
 */
typedef struct {
  double filter_s;
  double backproject_s;
  double total_s;
} CtrFdkTimings;

/**
 * ctr_fdk_check_geometry:
 * FDK needs a valid CTR_BEAM_CONE geometry with a flat panel and a fixed
 * source on a circle.  Returns FALSE with CTR_ERROR_INVALID_GEOMETRY (invalid
 * fields, not cone beam) or CTR_ERROR_UNSUPPORTED (a curved cone-beam
 * detector, a source z per view or a flying focal spot: a helical scan).
 */
gboolean ctr_fdk_check_geometry (const CtrGeometry *g, GError **error);
/* ctr_fdk_check_geometry, and @p line integrals of g's size
 * (CTR_ERROR_INVALID_ARGUMENT otherwise). */
gboolean ctr_fdk_check_input (const CtrGeometry *g, const CtrProjections *p, GError **error);

/**
 * ctr_fdk_filter:
 * @g: cone geometry (any view angles; full or short scan; offsets).
 * @p: line integrals [view][row][col].
 * @window, @cutoff: apodisation of the ramp, cutoff in (0, 1] of Nyquist.
 *
 * Step 1 of FDK (see above).  Redundancy: a scan whose angular range reaches
 * 2π is weighted ½; a shorter scan of range π + 2δ gets Parker weights
 * (ctr_parker_weight) with the fan angle γ = atan(u / SDD).  The view weight
 * Δβ is half the distance to the neighbouring angles in sorted order.
 *
 * Returns: (transfer full): filtered projections [view][row][col], same shape
 *   as @p, or NULL with CTR_ERROR_INVALID_GEOMETRY, CTR_ERROR_UNSUPPORTED,
 *   CTR_ERROR_INVALID_ARGUMENT (shape mismatch, counts, bad window),
 *   CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrProjections *ctr_fdk_filter (const CtrGeometry *g, const CtrProjections *p,
                                CtrFilterWindow window, double cutoff,
                                GCancellable *cancellable, GError **error);

/**
 * ctr_fdk_filter_views:
 * @g: the whole scan's cone geometry.
 * @p: line integrals of the @p->n_views consecutive views @first_view ..
 *   @first_view + @p->n_views − 1 of @g, [view][row][col].
 *
 * ctr_fdk_filter for a part of the views (one rank's share in iFDK §4.1.1):
 * the view weights Δβ and the redundancy weights are those of the whole
 * scan @g, so the parts' filtered views are exactly the rows of the whole's.
 * Returns: (transfer full): @p's filtered views, or NULL with the errors of
 *   ctr_fdk_filter (CTR_ERROR_INVALID_ARGUMENT also for views outside @g).
 */
CtrProjections *ctr_fdk_filter_views (const CtrGeometry *g, const CtrProjections *p, guint first_view,
                                      CtrFilterWindow window, double cutoff,
                                      GCancellable *cancellable, GError **error);

/**
 * ctr_fdk_weights:
 * @g: cone geometry (checked as ctr_fdk_filter does).
 * @cosw: (out caller-allocates): n_rows × n_cols floats, [row][col]: the
 *   cosine weight SDD/√(SDD² + u² + v²).
 * @view_col: (out caller-allocates): n_views × n_cols floats, [view][col]:
 *   Δβ_view · w_red(view, γ(col)) (½ for a full scan, Parker otherwise).
 *
 * The host-side weights of step 1 exactly as ctr_fdk_filter applies them
 * (pixel (v, r, c) is multiplied by cosw[r][c] · view_col[v][c] before the
 * ramp filter), for a backend that filters elsewhere (gpu/ctr-cuda-fdk.c).
 * Returns: FALSE with the errors of ctr_fdk_check_geometry, or
 *   CTR_ERROR_OUT_OF_MEMORY (the per-view and per-column tables).
 */
gboolean ctr_fdk_weights (const CtrGeometry *g, float *cosw, float *view_col, GError **error);

/**
 * ctr_fdk_backproject:
 * @g: cone geometry of @q.
 * @q: filtered projections from ctr_fdk_filter ([view][row][col]).
 * @vol: volume to add to (any grid: size, voxel size, centre), [z][y][x].
 *
 * Step 2 of FDK after iFDK §3.2: for each (x, y) column and view, the depth
 * U, the weight (SOD/U)² and the detector column are computed once (iFDK
 * Theorems 2-3: they do not depend on z) and the row is stepped linearly
 * along z; when the grid is centred on the orbit plane and offset_v = 0 the
 * z-mirror symmetry (Theorem 1) gives the row of slice nz-1-k from that of
 * slice k.  The working volume is z-contiguous ([y][x][z]); projections are
 * transposed to [col][row] per batch of views; OpenMP over columns.
 * Detector samples outside the panel count as 0.
 *
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (shape mismatch),
 *   CTR_ERROR_OUT_OF_MEMORY or G_IO_ERROR_CANCELLED (checked between view
 *   batches; @vol is then partial).
 */
gboolean ctr_fdk_backproject (const CtrGeometry *g, const CtrProjections *q,
                              CtrVolume *vol, GCancellable *cancellable,
                              GError **error);

/**
 * ctr_fdk_run:
 * @grid: any grid (nz independent of the detector rows).
 * @timings: (out) (optional): seconds per step.
 *
 * ctr_fdk_filter followed by ctr_fdk_backproject into a new volume.
 * Returns: (transfer full): the volume, or NULL with the errors above.
 */
CtrVolume *ctr_fdk_run (const CtrGeometry *g, const CtrProjections *p,
                        const CtrGrid *grid, CtrFilterWindow window, double cutoff,
                        CtrFdkTimings *timings, GCancellable *cancellable,
                        GError **error);

G_END_DECLS
