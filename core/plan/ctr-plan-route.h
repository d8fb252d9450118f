/* ctr-plan-route.h — the plan's routes: how the facade (ctr-recon-plan.h)
 * reconstructs each kind of scan.  Internal to the plan: not in ctrecon.h.
 *
 * A route is a table of operations (CtrPlanRoute) and the state it makes
 * for one geometry, grid and set of options (CtrRouteState, the head of
 * each route's own struct).  ctr_recon_plan_new() asks every route in turn
 * whether it applies, keeps the first one's state, and from then on calls
 * only through the state's table; the facade holds the lock, the reference
 * count and the check that the projections fit.  Four routes, one file each:
 *
 *   slices    ctr-route-slices.c    fan and parallel beam, iterative: ART,
 *             PART, SART, SIRT, CGLS, PWLS, ASD-POCS on the CSR or SCSR matrix
 *             of the detector rows' stack of slices, on the CPU or a GPU
 *             backend's SCSR operator (with the CPU as its fall-back).
 *   cone      ctr-route-cone.c      circular or per-view-vector cone beam,
 *             iterative: SART, SIRT, CGLS, PWLS, ASD-POCS on the cone-beam
 *             projector pair over the 3-D grid, on the CPU.
 *   analytic  ctr-route-analytic.c  one pass: FBP (fan, parallel) and FDK
 *             (cone; a backend's FDK when it has one).
 *   helical   ctr-route-helical.c   helical and curved multi-row cone beam
 *             (ctr_helix_applies), every method but FDK: rebinned (180LI,
 *             360LI) to fan-beam slices at the grid's z, which a state of the
 *             slices or the analytic route reconstructs; or, with rebin none,
 *             the cone-beam projector pair on a slab around the requested
 *             slices.
 *
 * A route makes what it needs of another route through that route's table
 * (the helical route's fan-beam stack), never through the facade; what the
 * routes share is ctr-plan-common.h.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "recon/ctr-recon-types.h"
#include "recon/ctr-progress.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-plan-info.h"
#include "sysmat/ctr-operator.h"

G_BEGIN_DECLS

typedef struct _CtrPlanRoute CtrPlanRoute;
typedef struct _CtrRouteState CtrRouteState;

/**
 * CtrRouteState:
 * What a route made for one geometry, grid and set of options: the first
 * member of each route's own struct (which the route's operations cast to).
 * Set up by ctr_route_state_init() and released by ctr_route_state_clear()
 * (ctr-plan-common.h).
 * @route: the route's operations (static).
 * @g: the geometry the route runs on (owned): a copy of the plan's, or its
 *   circular description (FBP and FDK on per-view vectors).  Its sizes are
 *   those of the projections an execute takes.
 * @grid: the output grid, as the plan was given it.
 * @o: the options of the next execute (ctr_recon_plan_set_options changes
 *   them, under the facade's lock).
 * @backend: the backend that runs (static); the CPU until the route picks.
 * @notes: char * (owned), NULL-terminated: what the route decided and why.
 * @info: the operator in figures, for routes that keep them here.
 */
struct _CtrRouteState {
  const CtrPlanRoute *route;
  CtrGeometry *g;
  CtrGrid grid;
  CtrReconOptions o;
  const CtrBackend *backend;
  GPtrArray *notes;
  CtrPlanInfo info;
};

/**
 * CtrPlanRoute:
 * The operations of one route.  Every member is set; all but @applies and
 * @make take the state @make returned (the route's own, cast from its head).
 *
 * @name: "slices", "cone", "analytic", "helical".
 * @applies: whether the route reconstructs @o's method on @g (before any
 *   check: it looks at the beam, ctr_helix_applies and whether the method
 *   is iterative only).  For any @g and @o exactly one route applies.
 * @make: checks @g, @grid and @o (as ctr_recon_plan_new documents) and makes
 *   everything that does not depend on the data: the operator (the matrix,
 *   from the disk cache when it is there; the cone-beam projector pair),
 *   the rebinning, the backend, the notes.  @g, @grid and @o are copied
 *   (@o's strings are borrowed, as the plan's are).  @cancellable
 *   (nullable) is checked while the operator is built.  Returns (transfer
 *   full) the state, or NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_UNSUPPORTED (a method the route
 *   or the beam does not run), CTR_ERROR_OUT_OF_MEMORY (with the figures),
 *   G_IO_ERROR_CANCELLED, or a device's own error when its operator fails
 *   otherwise than unavailable or out of memory (those two leave the run
 *   to the CPU, with a note).
 * @estimate: what @make would need, without building anything
 *   (ctr_recon_plan_estimate): the checks of @make and the memory notes
 *   appended to @notes (char *, transfer full); FALSE with @make's errors
 *   (nothing appended that the caller must keep).  The fan-beam and cone
 *   routes use ctr_plan_estimate_notes (ctr-plan-common.h).
 * @free: frees the state and everything it owns.
 * @execute: reconstructs @p (its sizes are @g's: the facade checks them),
 *   with @reference (nullable, on any grid; the route resamples it onto its
 *   grid and, but for the helical slab, refuses one that cannot measure
 *   quality: ctr_reference_check) for the metrics and
 *   @callback (nullable) after every iteration with images on @grid.  May
 *   add a note and change @backend (a device that fails before the first
 *   iteration leaves this run and the later ones to the CPU).  The caller
 *   holds the plan's lock.  Returns (transfer full) the image in 1/mm
 *   (1/pixel when the pixel size is unknown), or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_INVALID_DATA,
 *   CTR_ERROR_OUT_OF_MEMORY, CTR_ERROR_BACKEND_UNAVAILABLE,
 *   G_IO_ERROR_CANCELLED (as ctr_recon_plan_execute).
 * @options_fit: whether the state runs @o without another operator (the
 *   checks of ctr_recon_plan_set_options); changes nothing: the facade then
 *   copies @o into the state's options under its lock.  FALSE with
 *   CTR_ERROR_INVALID_ARGUMENT ("these options need a new plan: …") or the
 *   errors of @make's checks.
 * @get_notes: the notes, oldest first, NULL-terminated, borrowed: valid
 *   until the next execute or get_notes.
 * @get_backend: the name of the backend that runs, static.
 * @get_info: fills @info; @blocking asks for the SCSR matrix's padding
 *   figures (computed once, kept).
 * @get_operator: the operator an execute runs on the scan's own data
 *   (borrowed), or NULL (one-pass methods; the helical route, whose
 *   operators act on rebinned slices or a slab).
 */
struct _CtrPlanRoute {
  const char *name;
  gboolean (*applies) (const CtrGeometry *g, const CtrReconOptions *o);
  CtrRouteState *(*make) (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                          GCancellable *cancellable, GError **error);
  gboolean (*estimate) (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GPtrArray *notes,
                        GError **error);
  void (*free) (CtrRouteState *rs);
  CtrVolume *(*execute) (CtrRouteState *rs, const CtrProjections *p, const CtrVolume *reference,
                         CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                         GError **error);
  gboolean (*options_fit) (const CtrRouteState *rs, const CtrReconOptions *o, GError **error);
  const char *const *(*get_notes) (CtrRouteState *rs);
  const char *(*get_backend) (CtrRouteState *rs);
  void (*get_info) (CtrRouteState *rs, gboolean blocking, CtrPlanInfo *info);
  CtrOperator *(*get_operator) (CtrRouteState *rs);
};

/* The routes (static tables, one per file). */
extern const CtrPlanRoute ctr_route_slices;    /* ctr-route-slices.c */
extern const CtrPlanRoute ctr_route_cone;      /* ctr-route-cone.c */
extern const CtrPlanRoute ctr_route_analytic;  /* ctr-route-analytic.c */
extern const CtrPlanRoute ctr_route_helical;   /* ctr-route-helical.c */

G_END_DECLS
