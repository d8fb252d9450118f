/* ctr-iterate.h — the one iteration driver of every iterative method
 * (docs/design.md §6).
 *
 * The driver owns what all methods share: the checks of the inputs, the data
 * and the image in the operator's native layout (ctr-operator.h), the
 * cancellation, the data residual, the metrics against a reference, the
 * report after every iteration (CtrIterFunc), and the fall-back to a CPU
 * operator when a device fails before the first iteration.  A method
 * (CtrSolverClass) only says how it prepares (its coefficients, scales and
 * subsets) and what one iteration does with the operator; the methods are
 * listed in ctr-solvers.h.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "sysmat/ctr-operator.h"
#include "recon/ctr-progress.h"
#include "data/ctr-projections.h"
#include "recon/ctr-recon-types.h"
#include "sysmat/ctr-vecops.h"

G_BEGIN_DECLS

/**
 * CtrIterate:
 * The state of one run, as a method sees it.
 * @op: the operator.
 * @o: the options (method, iterations, relaxation, …).
 * @p: the projections as given (with their statistics: I0, flat and dark
 *   fields, the dead-pixel mask), for methods that need more than @B.
 * @X: the image, native (image_size floats; the method updates it).
 * @B: the measured line integrals, native (data_size floats).
 * @valid: 1 for an acquired ray on a live detector pixel, else 0 (native).
 * @iteration: the iteration running now, from 1.
 * @report: TRUE when the run reports its iterations (a callback or a
 *   stopping rule is set), the same for the whole run: SIRT on the host
 *   then keeps A X from one iteration to the next.
 * @residual_wanted: TRUE when this iteration's residual is reported: every
 *   iteration of a reported run under CTR_RESIDUAL_EVERY or a stopping
 *   rule, else only the last (CtrReconOptions.residual).  A method whose
 *   residual costs a forward product (a device pass's, PWLS's, ASD-POCS's)
 *   computes it only then; the driver likewise.
 * @residual: a method that has ||B − A X|| / ||B|| over the valid rays of
 *   the image it leaves sets it (NaN otherwise: the driver computes it when
 *   @residual_wanted); one that has it at no cost (SIRT on the host, CGLS)
 *   sets it also when it is not wanted, and the report shows it.
 * @update_s, @residual_s: a method that times its pass and residual on a
 *   device sets them (NaN otherwise: the driver's clock).
 * @cancellable: check it between subsets with ctr_iterate_cancelled().
 */
typedef struct {
  CtrOperator *op;
  const CtrReconOptions *o;
  const CtrProjections *p;
  float *X;
  const float *B;
  const float *valid;
  guint iteration;
  gboolean report;
  gboolean residual_wanted;
  double residual;
  double update_s, residual_s;
  GCancellable *cancellable;
} CtrIterate;

/**
 * CtrSolverClass:
 * One iterative method.
 * @method: which.
 * @setup: prepares @state (coefficients, scales); CTR_ERROR_UNSUPPORTED when
 *   the operator cannot run the method.
 * @iterate: one full pass over the subsets (one "iteration").
 * @sync: (nullable) brings native floats [@offset, @offset + @n) of a
 *   device-held image into it->X + @offset before a report (the whole
 *   image: 0, image_size; one slice of a report: only that part, where the
 *   device can).
 * @free: releases @state (also after a failed setup).
 * @vecs: (nullable) the run's vectors (solve/ctr-vec.h) and, in *@X, the
 *   vector of the image a report shows (the one @sync brings back); NULL
 *   when the method has none.  With a table that computes the metrics
 *   where the image is (CtrVecOps.quality) the driver measures the image
 *   against the reference there, and copies back only what the report
 *   shows.
 * @sync_runs: (nullable) brings the native floats of @runs (CtrImageRuns:
 *   the planes of a CTR_REPORT_PLANES report) of a device-held image into
 *   the same places of it->X, in few copies; NULL: the driver syncs the
 *   whole image.
 */
typedef struct {
  CtrMethod method;
  gboolean (*setup) (CtrIterate *it, gpointer *state, GError **error);
  gboolean (*iterate) (CtrIterate *it, gpointer state, GError **error);
  gboolean (*sync) (CtrIterate *it, gpointer state, gsize offset, gsize n, GError **error);
  void (*free) (CtrIterate *it, gpointer state);
  CtrVecs *(*vecs) (gpointer state, const CtrVec **X);
  gboolean (*sync_runs) (CtrIterate *it, gpointer state, const CtrImageRuns *runs, GError **error);
} CtrSolverClass;

/* FALSE with G_IO_ERROR_CANCELLED when the run was cancelled. */
static inline gboolean
ctr_iterate_cancelled (const CtrIterate *it, GError **error)
{
  return g_cancellable_set_error_if_cancelled (it->cancellable, error);
}

/* ||@B − @R|| / ||@B|| over the rays where @valid is not 0 (@n native
 * data floats each; ||B − R|| when B is 0 there). */
double ctr_iterate_relative_residual (const float *B, const float *R, const float *valid, gsize n);

/* Makes the CPU operator a run falls back to; NULL with an error. */
typedef CtrOperator *(*CtrOperatorFallback) (gpointer data, GError **error);

/**
 * ctr_iterate_run:
 * @op: the operator (its geometry and grid describe the run).
 * @solver: the method (ctr_solver_class, ctr-solvers.h); it must be @o's.
 * @fallback: (nullable): when @op fails with CTR_ERROR_BACKEND_UNAVAILABLE
 *   or CTR_ERROR_OUT_OF_MEMORY before the first report, the run starts again
 *   on the operator this makes (once), and @note says why.
 * @p: line integrals [view][row][col] of @op's geometry; p->mask marks dead
 *   detector pixels (their rays carry no weight).
 * @o: the options; the method must be iterative.
 * @reference: (nullable): a reference on @op's grid for the metrics.
 * @callback: (nullable): called after every iteration, from this thread.
 * @note: (out) (optional) (transfer full): the fall-back's reason, or NULL.
 * Returns: (transfer full): the image on @op's grid in 1/mm (1/pixel when
 *   the pixel size is unknown), or NULL with CTR_ERROR_INVALID_ARGUMENT (the
 *   inputs disagree), CTR_ERROR_UNSUPPORTED (the method does not run on this
 *   operator), CTR_ERROR_OUT_OF_MEMORY, CTR_ERROR_BACKEND_UNAVAILABLE,
 *   G_IO_ERROR_CANCELLED.
 */
CtrVolume *ctr_iterate_run (CtrOperator *op, const CtrSolverClass *solver,
                            CtrOperatorFallback fallback, gpointer fallback_data,
                            const CtrProjections *p, const CtrReconOptions *o,
                            const CtrVolume *reference, CtrIterFunc callback, gpointer user_data,
                            GCancellable *cancellable, char **note, GError **error);

G_END_DECLS
