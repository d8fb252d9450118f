/* ctr-recon-plan.h — the facade of libctrecon: plan once, execute many
 * (FFTW's plan/execute, STYLE.md).
 *
 * ctr_recon_plan_new() decides everything that does not depend on the
 * measured data: it checks method × beam × matrix × backend once, builds or
 * loads the operator (the system matrix, from the disk cache when it is
 * there; the cone-beam projector pair), picks the backend, and keeps what it
 * decided and why as notes (fallbacks, the symmetry found) — data the CLI
 * prints and the window shows; the library prints nothing.
 * ctr_recon_plan_execute() reconstructs one set of projections with it; it
 * is cheap and repeatable (the window keeps one plan per geometry, grid and
 * operator options).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "recon/ctr-recon-types.h"
#include "recon/ctr-progress.h"
#include "plan/ctr-plan-info.h"
#include "sysmat/ctr-operator.h"

G_BEGIN_DECLS

typedef struct _CtrReconPlan CtrReconPlan;

/**
 * ctr_method_fits_geometry:
 * Whether @method reconstructs data of @g: FBP, ART and parallel ART fan
 * and parallel beam; FDK a circular cone beam; SART, SIRT, CGLS, PWLS and
 * ASD-POCS every beam (cone beam on the cone-beam projector pair); a
 * helical or curved multi-row scan (ctr_helix_applies) every method but
 * FDK, after its default rebinning to fan-beam slices.  What
 * ctr_recon_plan_new() checks first (CTR_ERROR_UNSUPPORTED or
 * CTR_ERROR_INVALID_GEOMETRY otherwise), and what the window offers.
 */
gboolean ctr_method_fits_geometry (CtrMethod method, const CtrGeometry *g);

/**
 * ctr_recon_plan_new:
 * @g: fan, parallel or cone geometry (copied).
 * @grid: the output grid (fan/parallel: nz = g->n_rows, one slice per
 *   detector row; cone: any 3-D grid; helical: slices at their z, any number).
 *   ctr_grid_default() gives the usual one.
 * @o: the method and its parameters (copied).
 * @cancellable: (nullable): checked while the operator is built.
 *
 * Methods by beam: fan and parallel beam fbp, art, part, sart, sirt, cgls,
 * pwls, asd-pocs; cone beam with a flat panel or per-view vectors fdk (on
 * a circular orbit), sart, sirt, cgls, pwls, asd-pocs.  Helical cone beam (a source z per
 * view, a flying focal spot) and curved multi-row detectors
 * (ctr_helix_applies) take the helical route (ctr-plan-route.h):
 * with o->rebin 180li (default) or 360li the data are rebinned to the grid's
 * slices (ctr-rebin-helical.h) and any fan-beam method runs on the stack
 * (PART on SCSR: one matrix for every slice); with rebin none the cone-beam
 * projector pair runs sart, sirt, cgls, pwls or asd-pocs on the slab of the
 * grid.  The grid's slices then sit at their true z (cz, dz: ctr_helix_grid
 * or ctr_grid_default), from the lowest up.  The matrix (o->matrix) serves the iterative
 * methods on fan and parallel beam; auto (the default) is resolved first
 * (ctr_plan_resolve_matrix: stored when the run fits in memory, else on
 * the fly, with a note); art runs on CSR or on the fly (it is row-sequential).  SCSR needs a symmetric
 * geometry; without one the plan runs CSR and says why.  A backend that
 * cannot run the method (cusparse: parallel ART only; cone beam: no GPU
 * projector) or is unavailable leaves the CPU to it, with a note.
 *
 * Before anything is built it refuses what cannot give a meaningful image:
 * an implausible geometry (ctr_geometry_validate), a grid whose pixel is
 * wider than the field of view, and a run whose image, data and work
 * arrays need more memory than the machine has (ctr-memory.h).
 *
 * Returns: (transfer full): the plan, or NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT (a parameter out of range, a combination that
 *   does not exist, grid and geometry that disagree, a field of view
 *   smaller than a pixel), CTR_ERROR_UNSUPPORTED (a method for another
 *   beam), CTR_ERROR_OUT_OF_MEMORY (with the figures), G_IO_ERROR_CANCELLED.
 */
CtrReconPlan *ctr_recon_plan_new (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                                  GCancellable *cancellable, GError **error);
CtrReconPlan *ctr_recon_plan_ref (CtrReconPlan *plan);
void ctr_recon_plan_unref (CtrReconPlan *plan);

/**
 * ctr_recon_plan_execute:
 * @p: projections of the plan's geometry; line integrals [view][row][col]
 *   (ctr_projections_to_line_integrals converts counts); p->mask marks dead
 *   detector pixels.
 * @reference: (nullable): a reference image on any grid, resampled onto the
 *   plan's grid (fan/parallel: slice by slice, ctr_volume_resample) for the
 *   metrics of every report.
 * @callback: (nullable): the report after every iteration (one-pass methods:
 *   once), called from this thread.
 * @cancellable: (nullable): checked between subsets of views.
 *
 * One execute at a time per plan (a second waits for the first).  A device
 * that fails before the first iteration leaves the run, and the plan's later
 * runs, to the CPU, with a note.  A run never hands back, nor reports, a
 * plausible-looking wrong image: an image or metrics that are not finite
 * fail it (ctr_iter_stats_check), and a reference that cannot measure
 * quality on the grid (constant, non-finite, smaller than SSIM's window) is
 * refused before it starts (ctr_reference_check).
 * Returns: (transfer full): the image in 1/mm (1/pixel when the geometry's
 *   pixel size is unknown), or NULL with CTR_ERROR_INVALID_ARGUMENT (the
 *   projections or the reference do not fit the plan, a reference that
 *   cannot measure quality), CTR_ERROR_INVALID_DATA (NaN or infinity in the
 *   image or the metrics: the data or the geometry are wrong),
 *   CTR_ERROR_OUT_OF_MEMORY, CTR_ERROR_BACKEND_UNAVAILABLE (a device failed
 *   after the first iteration), G_IO_ERROR_CANCELLED.
 */
CtrVolume *ctr_recon_plan_execute (CtrReconPlan *plan, const CtrProjections *p,
                                   const CtrVolume *reference, CtrIterFunc callback,
                                   gpointer user_data, GCancellable *cancellable, GError **error);

/**
 * ctr_recon_plan_set_options:
 * Runs the plan's next executes with @o when @o needs no other operator
 * than the plan has: another iterative method on the same matrix (ray
 * model, matrix format, subset kind, backend), other iterations, relaxation,
 * penalty or stopping rule; FBP with another window.  Not during an execute.
 * A helical plan (the helical route of ctr-plan-route.h) takes no other
 * options: make a new plan.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT ("these options need a new
 * plan: …") or the errors of ctr_recon_plan_new's checks; the plan is then
 * unchanged.
 */
gboolean ctr_recon_plan_set_options (CtrReconPlan *plan, const CtrReconOptions *o, GError **error);

/**
 * ctr_recon_plan_estimate:
 * What ctr_recon_plan_new(@g, @grid, @o) would need and choose, without
 * building anything (milliseconds: the stored matrix's size is estimated
 * from a few thousand sampled rays): the plan's "memory: …" note (the
 * estimate of ctr_plan_memory_estimate and the memory this process may
 * use, base/ctr-memory.h) and, for --matrix auto on fan and parallel beam,
 * its "matrix: auto …" choice; for iterative cone beam on a backend with a
 * device, its "device memory: …" line (CtrBackendConeMemory: whole or in
 * z-slabs, and why).  A helical scan: what is held beside its run (the
 * helical projections; the slab's ray masks), then the estimate of the
 * rebinned fan-beam stack or of the slab (rebin none: its views and rays
 * found as the plan finds them, one pass over the scan's rays).
 * Returns: (transfer full): a NULL-terminated array of notes, g_strfreev;
 *   NULL with the errors of ctr_recon_plan_new's checks
 *   (CTR_ERROR_INVALID_GEOMETRY, CTR_ERROR_UNSUPPORTED,
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_OUT_OF_MEMORY with both figures)
 *   when the plan would be refused.
 */
char **ctr_recon_plan_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                                GError **error);

/* What the plan decided and why, one line each, oldest first: the operator
 * ("SCSR (cuART §3): D4 …; 91 of 720 views stored, 617.2 MiB"), the backend,
 * every fall-back with its reason.  NULL-terminated, borrowed; valid until
 * the next execute (which may add a fall-back). */
const char *const *ctr_recon_plan_get_notes (CtrReconPlan *plan);

/* The backend that runs ("cpu", "cuda", …). */
const char *ctr_recon_plan_get_backend (CtrReconPlan *plan);
const CtrGrid *ctr_recon_plan_get_grid (CtrReconPlan *plan);
const CtrReconOptions *ctr_recon_plan_get_options (CtrReconPlan *plan);

/**
 * ctr_recon_plan_get_operator:
 * The system matrix the plan's iterative method runs on: the operator the
 * plan chose for the geometry, grid, matrix, ray model and backend (SCSR,
 * CSR or on the fly; the cone pair; a GPU backend's, or the CPU's after a
 * fall-back), whose products on natural arrays are
 * ctr_operator_forward_natural and ctr_operator_adjoint_natural
 * (sysmat/ctr-operator-natural.h).  The operator serves one product at a
 * time and the plan's executes use it: not during an execute.
 * Returns: (transfer full) (nullable): a reference (ctr_operator_unref), or
 *   NULL for the one-pass methods (FBP, FDK) and helical scans (their
 *   operators act on rebinned slices or a slab, not on the scan's data).
 */
CtrOperator *ctr_recon_plan_get_operator (CtrReconPlan *plan);

/* The plan's operator in figures (CtrPlanInfo, ctr-plan-info.h). */
void ctr_recon_plan_get_info (CtrReconPlan *plan, gboolean blocking, CtrPlanInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrReconPlan, ctr_recon_plan_unref)

G_END_DECLS
