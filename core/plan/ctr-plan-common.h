/* ctr-plan-common.h — what the plan's routes (ctr-plan-route.h) share: the
 * checks of method × beam × grid that ctr_recon_plan_new documents, the
 * state's head (notes, backend, reference), and the verdict on new options.
 * Internal to the plan: the facade and the routes include it; it calls
 * neither (only a state's own table, in ctr_route_state_free).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "plan/ctr-plan-route.h"

G_BEGIN_DECLS

/* What ctr_method_fits_geometry says (ctr-recon-plan.h). */
gboolean ctr_plan_method_fits (CtrMethod m, const CtrGeometry *g);

/**
 * ctr_plan_check:
 * The checks every route but the helical one makes first: @g, @grid and @o
 * valid (ctr_geometry_validate, ctr_grid_validate,
 * ctr_recon_options_validate); the method for the beam; a field of view at
 * least a pixel wide and the image, data and work arrays within the
 * machine's memory (ctr-memory.h); fan and parallel beam: one slice per
 * detector row and a matrix × subsets combination that exists.
 * Returns: FALSE with CTR_ERROR_INVALID_GEOMETRY (FDK for fan or parallel
 *   beam, or from the validation), CTR_ERROR_UNSUPPORTED (FBP, ART or PART
 *   for cone beam), CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_plan_check (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error);

/* The memory a run needs, in bytes (ctr_plan_memory_estimate). */
typedef struct
{
  guint64 matrix;           /* the stored system matrix; 0 when none */
  const char *matrix_kind;  /* "SCSR matrix", "CSR matrix" or NULL (static) */
  guint64 image;            /* the image (all slices) */
  guint64 data;             /* the projections */
  guint64 weights;          /* statistical weights (PWLS), else 0 */
  guint64 fly;              /* the on-the-fly operator's work space and tables, else 0 */
  guint64 work;             /* the method's work vectors */
  guint64 reference;        /* o->with_reference: the reference as loaded and on the grid, the metrics' buffers; else 0 */
  guint64 total;            /* the sum, saturated */
} CtrPlanMemory;

/**
 * ctr_plan_memory_estimate:
 * What a run of @o on @g and @grid will hold, before anything is built:
 * the stored matrix of an iterative fan/parallel run
 * (ctr_scsr_estimate_bytes or ctr_sysmat_estimate_bytes: a few thousand
 * sampled rays, milliseconds), the image, the data, PWLS's statistical
 * weights and the method's work vectors, with the CPU cone pair's work
 * space for iterative cone beam (ctr_cone_op_estimate_bytes) and the
 * on-the-fly fan/parallel operator's work space, symmetry tables and
 * overlap counts where the run has no stored matrix
 * (ctr_fly_op_estimate_bytes), and with o->with_reference the reference
 * (the caller's copy, counted as one image, and its copy resampled onto
 * @grid) with the metrics' buffers (ctr_quality_work_bytes).  @g, @grid
 * and @o valid.
 */
void ctr_plan_memory_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                               CtrPlanMemory *m);

/* Whether the on-the-fly operator of a fan/parallel run with @o takes
 * symmetry orbits as its subsets: as the SCSR matrix does (so the image
 * does not depend on the matrix), unless one view per subset is asked for
 * or the method is ART (row-sequential, view by view). */
gboolean ctr_plan_fly_orbits (const CtrReconOptions *o);

/* Whether a run with @o asks the on-the-fly operator for the subsets'
 * overlaps κ: parallel ART with its default (sparsity) step only
 * (ctr_fly_op_skip_overlaps otherwise; the estimate counts them then). */
gboolean ctr_plan_fly_overlaps (const CtrReconOptions *o);

/**
 * ctr_plan_resolve_matrix:
 * Replaces @o's CTR_MATRIX_AUTO by the matrix the run gets; other choices
 * stay as they are.  For an iterative fan- or parallel-beam run: the stored
 * matrix (SCSR; CSR for ART and for one-view subsets of parallel ART and
 * SART) when ctr_plan_memory_estimate of the run with it fits in nine
 * tenths of ctr_memory_limit_bytes() (the rest for the estimate's error and
 * the machine's other programs), else CTR_MATRIX_NONE (on the fly).  The stored
 * matrix is chosen whenever it fits because it pays back within the first
 * iteration: its build computes each stored row once (SCSR: the canonical
 * views' rows only), while an on-the-fly product recomputes every row at
 * every product (docs/design.md, "The automatic matrix", gives the
 * measured figures).  Cone beam, helical slabs and the analytic methods
 * store no matrix: @o->matrix becomes CTR_MATRIX_SCSR there, unused.
 * Returns: (transfer full) (nullable): the plan's note on the choice
 *   ("matrix: auto → …" with the two estimates), NULL when @o did not ask
 *   for auto or no matrix is involved.  g_free.
 */
char *ctr_plan_resolve_matrix (const CtrGeometry *g, const CtrGrid *grid, CtrReconOptions *o);

/**
 * ctr_plan_estimate_notes:
 * The estimate of a fan, parallel or circular cone-beam run (a route's
 * @estimate, ctr-plan-route.h; the helical route's fan-beam stack and
 * slab call it too): ctr_plan_check of @o with its matrix resolved, then
 * appended to @notes (char *, transfer full) the "memory: …" note of
 * ctr_plan_memory_estimate, the "matrix: auto …" choice when there is one,
 * and for iterative cone beam on a backend with a device its "device
 * memory: …" line.
 * Returns: FALSE with ctr_plan_check's errors (nothing appended).
 */
gboolean ctr_plan_estimate_notes (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                                  GPtrArray *notes, GError **error);

/* "memory: 1.2 GiB estimated (SCSR matrix 1.0 GiB, image …, data …, work
 * vectors …), 21.3 GiB available (available memory)": the plan's note.
 * (transfer full): g_free. */
char *ctr_plan_memory_note (const CtrPlanMemory *m);

/* Sets up the head @rs of a route's state (zeroed by the caller): @route,
 * a copy of @g, @grid and @o (@o's strings borrowed), the CPU backend, an
 * note list holding the memory estimate (ctr_plan_memory_note; not for
 * the helical route, whose stack's route states its own), @info with no operator yet (operator_name: the method's
 * name, symmetry "none", padding NaN).  FALSE with CTR_ERROR_OUT_OF_MEMORY
 * when the copy of @g cannot be allocated (@rs is then freed as usual). */
gboolean ctr_route_state_init (CtrRouteState *rs, const CtrPlanRoute *route, const CtrGeometry *g,
                               const CtrGrid *grid, const CtrReconOptions *o, GError **error);

/* Frees what ctr_route_state_init made (not @rs itself: the route's free
 * does). */
void ctr_route_state_clear (CtrRouteState *rs);

/* @rs's route's free; NULL does nothing. */
void ctr_route_state_free (CtrRouteState *rs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrRouteState, ctr_route_state_free)

/* Adds @note (transfer full) at the end of @rs's notes. */
void ctr_route_state_add_note (CtrRouteState *rs, char *note);

/**
 * ctr_route_state_select_backend:
 * Sets @rs->backend to the backend @rs->o asks for (ctr_backend_select),
 * the CPU when that one cannot run, with a note saying why when one was
 * named (not "best").
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT for a name that is not a
 *   backend.
 */
gboolean ctr_route_state_select_backend (CtrRouteState *rs, GError **error);

/**
 * ctr_route_state_reference:
 * @reference: (nullable): a reference image on any grid.
 * @out: (out) (transfer full): @reference resampled onto @rs->grid by
 *   @mode, or NULL when @reference is.
 * Returns: FALSE with the errors of ctr_volume_resample and
 *   ctr_reference_check (CTR_ERROR_INVALID_ARGUMENT: a reference that cannot
 *   measure quality on the grid).
 */
gboolean ctr_route_state_reference (const CtrRouteState *rs, const CtrVolume *reference,
                                    CtrResampleMode mode, CtrVolume **out, GError **error);

/* The operations of a route that keeps its notes, backend and figures in
 * the head (CtrPlanRoute's get_notes, get_backend, get_info; no padding
 * figures). */
const char *const *ctr_route_state_get_notes (CtrRouteState *rs);
const char *ctr_route_state_get_backend (CtrRouteState *rs);
/* A route's get_operator when it has none (NULL). */
CtrOperator *ctr_route_state_no_operator (CtrRouteState *rs);
void ctr_route_state_get_info (CtrRouteState *rs, gboolean blocking, CtrPlanInfo *info);

/* Why @o needs another plan than the iterative route's state @rs, or NULL:
 * a one-pass method, another operator (@same_operator FALSE), or a method
 * @rs's backend does not run.  Static strings. */
const char *ctr_route_state_iterative_why (const CtrRouteState *rs, const CtrReconOptions *o,
                                           gboolean same_operator);

/* TRUE when @why is NULL; else FALSE with CTR_ERROR_INVALID_ARGUMENT
 * "these options need a new plan: @why". */
gboolean ctr_plan_options_verdict (const char *why, GError **error);

G_END_DECLS
