/* ctr-rebin-helical.h — helical (and multi-row axial) cone-beam projections
 * rebinned to fan-beam slices: 360° and 180° linear interpolation (360LI,
 * 180LI).
 *
 * Every measured ray lies on a line of the plane of rotation, (β, γ): the
 * source angle and the fan angle of its column, and is given the z where it
 * passes closest to the axis (ctr_helix_ray_z; Kalender, "Computed
 * Tomography", 3rd ed. 2011, §2.3; Hu, Med. Phys. 26(1) 5-18, 1999, for the
 * multi-row case).  For one slice at z and one line (β_t, γ_j) of the output
 * fan sinogram the rebinning collects the rays on that line — the same
 * column of the views at β_t + 2πm (every row, every turn m of the helix),
 * and for 180LI also the conjugate rays, column −γ_j of the views at
 * β_t + π − 2γ_j + 2πm (the same line traversed the other way, which halves
 * the z distance to the nearest sample) — sorts them by z and interpolates
 * linearly between the two that bracket z.  View positions between measured
 * views are interpolated linearly in angle, fractional columns linearly in
 * the column.  The result is an ordinary full-scan fan-beam stack (one
 * detector row per slice), so FBP and every fan-beam solver apply to it.
 *
 * The output has V = 2π / (mean view step) views per rotation at
 * β_t = φ + t·2π/V, with φ the first view's angle modulo 2π/V (0 when it is
 * within 0.1 % of a step of 0, so symmetric scans keep their symmetry for
 * SCSR), the detector's columns, curve and distances.
 *
 * A flying focal spot (CtrGeometry.focal_shift) is handled per view: the
 * view's angle becomes the source's (β + Δβ), each nominal column is read at
 * the detector column whose ray from the shifted source has the nominal fan
 * angle, and each ray's z is computed from the shifted source.  Views whose
 * focal spot differs in z (or radius) are rebinned as helices of their own
 * (interpolating in angle between views of one focal-spot position only), so
 * a z flying focal spot adds z samples instead of mixing z positions.  A
 * radial shift moves a ray's line by at most Δρ/R·tan γ in angle, which is
 * ignored.
 *
 * The rays' tilt (the cone angle) is ignored: the rebinning is exact for
 * rays in the plane of rotation and approximate (a z error up to the ray's
 * z travel across the object) for tilted ones — the usual multi-row
 * rebinning error; the helical iterative path (ctr-recon-plan.h, rebin
 * "none") models every ray exactly.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "analytic/ctr-filter.h"

G_BEGIN_DECLS

typedef enum {
  CTR_REBIN_180LI,  /* direct and conjugate rays (default) */
  CTR_REBIN_360LI,  /* direct rays only: between rows and turns of the helix */
  CTR_REBIN_NONE,   /* no rebinning: the cone-beam projector on a z slab */
  CTR_N_REBIN
} CtrRebinMode;

/* "180li", "360li", "none". */
const char *ctr_rebin_mode_name (CtrRebinMode m);
/* CTR_ERROR_INVALID_ARGUMENT naming the choices. */
gboolean ctr_rebin_mode_from_name (const char *name, CtrRebinMode *out, GError **error);

typedef struct _CtrRebinPlan CtrRebinPlan;

/**
 * ctr_rebin_plan_new:
 * @g: a cone-beam geometry (copied): helical (source_z_mm) or circular with
 *   several rows; flat or curved; a flying focal spot allowed.
 * @mode: CTR_REBIN_180LI or CTR_REBIN_360LI.
 * @z_mm: (array length=n_slices): the slices' z (mm, FORMAT frame), strictly
 *   increasing.  Slices outside the fully sampled range
 *   (ctr_helix_z_coverage) are filled from the nearest ray (counted by
 *   ctr_rebin_plan_n_extrapolated).
 * Returns: (transfer full): the plan, or NULL with
 *   CTR_ERROR_INVALID_GEOMETRY (not a valid cone geometry),
 *   CTR_ERROR_INVALID_ARGUMENT (no slice, z not increasing or not finite,
 *   @mode not a rebinning), CTR_ERROR_UNSUPPORTED (angles that do not
 *   progress steadily, or a scan that misses some direction of the plane:
 *   less than a rotation, less than a half turn plus the fan for 180LI).
 */
CtrRebinPlan *ctr_rebin_plan_new (const CtrGeometry *g, CtrRebinMode mode, const double *z_mm,
                                  guint n_slices, GError **error);
/* ctr_rebin_plan_new for the slices of @grid (z of slice s:
 * ctr_grid_z); also CTR_ERROR_OUT_OF_MEMORY for their positions. */
CtrRebinPlan *ctr_rebin_plan_new_for_grid (const CtrGeometry *g, CtrRebinMode mode, const CtrGrid *grid,
                                           GError **error);
void ctr_rebin_plan_free (CtrRebinPlan *r);

/* The fan-beam stack the plan produces: CTR_BEAM_FAN, V views over 2π,
 * n_slices rows (row s = slice s, rows_increase_with_v TRUE, pitch_v = the
 * mean slice spacing), the detector's columns.  Borrowed. */
const CtrGeometry *ctr_rebin_plan_get_geometry (const CtrRebinPlan *r);
/* Slices outside the fully sampled z range of the mode. */
guint ctr_rebin_plan_n_extrapolated (const CtrRebinPlan *r);

/**
 * ctr_rebin_run:
 * @p: line integrals of the plan's cone geometry, [view][row][col] (dead
 *   pixels already filled, as ctr_projections_to_line_integrals leaves them).
 * Returns: (transfer full): the fan-beam stack [view][slice][col], with @p's
 *   photon statistics (->i0; ->flat averaged over the detector rows, one
 *   row per slice), no mask; or NULL with CTR_ERROR_INVALID_ARGUMENT (@p
 *   does not fit the geometry, or holds counts), CTR_ERROR_OUT_OF_MEMORY,
 *   G_IO_ERROR_CANCELLED.  OpenMP over the output views.
 */
CtrProjections *ctr_rebin_run (const CtrRebinPlan *r, const CtrProjections *p, GCancellable *cancellable,
                               GError **error);

/**
 * ctr_rebin_fbp:
 * Rebins @p (@mode 180LI or 360LI) to the slices of @grid (z of slice s:
 * ctr_grid_z (grid, s)) and reconstructs them with FBP (@window, @cutoff):
 * an analytic image of helical data on any grid, e.g. the start of an
 * iterative method.  Errors of ctr_rebin_plan_new, ctr_rebin_run and
 * ctr_fbp_run.
 * Returns: (transfer full): the image on @grid, 1/mm.
 */
CtrVolume *ctr_rebin_fbp (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid,
                          CtrRebinMode mode, CtrFilterWindow window, double cutoff,
                          GCancellable *cancellable, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrRebinPlan, ctr_rebin_plan_free)

G_END_DECLS
