/* ctr-iterate.c — the one iteration driver (see ctr-iterate.h). */
#include "solve/ctr-iterate.h"
#include "base/ctr-error.h"
#include "data/ctr-noise.h"
#include "base/ctr-memory.h"
#include "quality/ctr-metrics.h"
#include "solve/ctr-report-planes.h"

/* The stopping rule (CTR_STOP_AUTO): stop at the first iteration whose data
 * residual ||b − A x|| is at most CTR_DISCREPANCY_TAU times the noise
 * level sqrt (Σ var(bᵢ)) estimated from the data (ctr-noise.h) — Morozov's
 * discrepancy principle (Morozov 1966, Soviet Math. Dokl. 7, 414-417) —
 * or that lowers it by less than CTR_STAGNATION (the residual has reached
 * its floor: noise the image cannot absorb plus the model's own error,
 * which can keep it above the noise level for ever).  τ slightly below 1
 * because the iterate absorbs part of the noise (the least-squares solution's
 * residual lies below the noise level by the image's degrees of freedom);
 * measured on head-fan-lowdose (quarter dose), the RMSE minima of parallel
 * ART, SART and CGLS lay at 0.967-0.985 of the noise level. */
#define CTR_DISCREPANCY_TAU 0.98
#define CTR_STAGNATION 0.01

#include <math.h>
#include <string.h>

/* The discrepancy principle's target τ · sqrt (Σ var(bᵢ)) for ||B − A X||
 * (ctr-noise.h), NaN where it is not estimated: for the stopping rule
 * (CTR_STOP_AUTO; out of memory in the estimate fails the run, which must
 * not run on without its stop) and, without it, for an unregularised run
 * of more than one iteration, to tell when its image fits the noise
 * (CtrIterStats.noise_residual; a failed estimate then only leaves that
 * untold).  PWLS and ASD-POCS have their own regularisation. */
static gboolean
discrepancy_target (const CtrOperator *op, const CtrProjections *p, const CtrReconOptions *o, double *target,
                    GError **error)
{
  *target = NAN;
  const gboolean regularised = o->method == CTR_METHOD_PWLS || o->method == CTR_METHOD_ASD_POCS;
  if (o->stop != CTR_STOP_AUTO && (regularised || o->iterations < 2))
    return TRUE;
  CtrNoiseLevel level;
  g_autoptr (GError) e = NULL;
  if (ctr_noise_estimate (op->geometry, p, &level, &e) && isfinite (level.sigma))
    *target = CTR_DISCREPANCY_TAU * level.sigma * sqrt ((double) level.n_rays);
  if (o->stop == CTR_STOP_AUTO && g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
    {
      g_propagate_error (error, g_steal_pointer (&e));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_inputs (const CtrOperator *op, const CtrProjections *p, const CtrReconOptions *o,
              const CtrVolume *reference, GError **error)
{
  const CtrGeometry *g = op->geometry;
  if (!ctr_recon_options_validate (o, error))
    return FALSE;
  if (!ctr_method_is_iterative (o->method))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "%s is not an iterative method", ctr_method_name (o->method));
      return FALSE;
    }
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "projections (%u × %u × %u) and geometry (%u × %u × %u) disagree",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols);
      return FALSE;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the solvers need line integrals; convert the counts first");
      return FALSE;
    }
  if (reference != NULL && !ctr_grid_equal (&reference->grid, &op->grid))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the reference is on another grid than the reconstruction");
      return FALSE;
    }
  return TRUE;
}

double
ctr_iterate_relative_residual (const float *B, const float *R, const float *valid, gsize n)
{
  double num = 0.0, den = 0.0;
#pragma omp parallel for reduction(+:num,den) schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    if (valid[q] != 0.f)
      {
        const double d = (double) B[q] - R[q];
        num += d * d;
        den += (double) B[q] * B[q];
      }
  return den > 0 ? sqrt (num / den) : sqrt (num);
}

/* The native data and validity of @p. */
static gboolean
gather_data (CtrOperator *op, const CtrProjections *p, float *B, float *valid, GError **error)
{
  const gsize per_view = (gsize) p->n_rows * p->n_cols, n = per_view * p->n_views;
  float *alive = g_try_new (float, n);
  if (alive == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the validity of %" G_GSIZE_FORMAT " rays", n);
      return FALSE;
    }
  for (guint v = 0; v < p->n_views; v++)
    for (gsize i = 0; i < per_view; i++)
      alive[(gsize) v * per_view + i] = p->mask == NULL || p->mask[i] != 0 ? 1.f : 0.f;
  op->klass->data_gather (op, p->data, B);
  op->klass->data_gather (op, alive, valid);
  g_free (alive);
  return TRUE;
}

/* Brings what a report shows to the host (CtrReportImage): the whole image
 * into @vol when @whole (the last report, metrics against a reference) or
 * under CTR_REPORT_VOLUME; one slice into *@slice (made on first use) under
 * CTR_REPORT_SLICE, copying only that slice back from a device when the
 * native image is the natural one; nothing under CTR_REPORT_NONE.
 * *@shown: the image to report (NULL: none). */
static gboolean
fetch_report (CtrIterate *it, const CtrSolverClass *solver, gpointer state, gboolean whole, CtrVolume *vol,
              CtrVolume **slice, const CtrVolume **shown, GError **error)
{
  CtrOperator *op = it->op;
  const CtrGrid *g = &op->grid;
  const CtrReportImage want = whole ? CTR_REPORT_VOLUME : it->o->report_image;
  const guint z = MIN (it->o->report_slice, g->nz - 1);
  const gsize plane = (gsize) g->nx * g->ny;
  const gboolean part = want == CTR_REPORT_SLICE && op->klass->natural_image;
  *shown = NULL;
  if (want == CTR_REPORT_NONE)
    return TRUE;
  if (solver->sync != NULL
      && !solver->sync (it, state, part ? z * plane : 0, part ? plane : op->image_size, error))
    return FALSE;
  if (want == CTR_REPORT_VOLUME)
    {
      op->klass->image_from_native (op, it->X, vol->data);
      *shown = vol;
      return TRUE;
    }
  if (*slice == NULL)
    {
      CtrGrid sg = *g;
      sg.nz = 1;
      sg.cz = ctr_grid_z (g, z);
      if ((*slice = ctr_volume_new (&sg, error)) == NULL)
        return FALSE;
      ctr_volume_set_unit (*slice, vol->unit);
    }
  if (!part)
    op->klass->image_from_native (op, it->X, vol->data);
  memcpy ((*slice)->data, (part ? it->X : vol->data) + z * plane, plane * sizeof (float));
  *shown = *slice;
  return TRUE;
}

typedef enum { REF_UNSENT, REF_SENT, REF_ON_HOST } RefState;

/* The metrics of the iterate against @reference measured where the image
 * is (CtrVecOps.quality; issue 37), so that a report copies back only the
 * image it shows: @reference goes to the method's table once a run
 * (*@ref), then each report brings back two doubles a slice.
 * *@measured: FALSE (nothing done) without a reference, when the method
 * has no vectors or its table no such entry (the host's), or when the
 * reference does not fit in the table's memory (CTR_ERROR_OUT_OF_MEMORY:
 * the run goes on there, and the driver measures on the host for the rest
 * of the run): the driver then measures the image it copies back
 * (ctr_iter_stats_set_quality). */
static gboolean
quality_in_place (CtrIterate *it, const CtrSolverClass *solver, gpointer state, const CtrVolume *reference,
                  double data_range, RefState *ref, CtrIterStats *stats, gboolean *measured, GError **error)
{
  const CtrVec *X = NULL;
  CtrVecs *vs = reference != NULL && solver->vecs != NULL && *ref != REF_ON_HOST ? solver->vecs (state, &X) : NULL;
  *measured = FALSE;
  if (vs == NULL || X == NULL || vs->ops->quality == NULL)
    return TRUE;
  const CtrGrid *g = &it->op->grid;
  const double radius = it->o->metrics_radius_mm;
  g_autofree double *sums = ctr_memory_try_new (2 * (gsize) g->nz, sizeof (double), FALSE,
                                                "the metrics' sums per slice", error);
  if (sums == NULL)
    return FALSE;
  if (*ref == REF_UNSENT)
    {
      GError *e = NULL;
      if (!vs->ops->set_reference (vs, reference, radius, &e))
        {
          const gboolean fits_not = g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
          if (fits_not)
            {
              g_debug ("the metrics' reference stays on the host: %s", e->message);
              *ref = REF_ON_HOST;
              g_error_free (e);
            }
          else
            g_propagate_error (error, e);
          return fits_not;
        }
      *ref = REF_SENT;
    }
  if (!vs->ops->quality (vs, X, data_range, sums, sums + g->nz, error))
    return FALSE;
  CtrQuality q;
  ctr_quality_from_slices (g, radius, sums, sums + g->nz, data_range, &q);
  stats->has_reference = TRUE;
  stats->rmse = q.rmse;
  stats->psnr = q.psnr;
  stats->ssim = q.ssim;
  *measured = TRUE;
  return TRUE;
}

/* A report under CTR_REPORT_PLANES: the three planes through the voxel
 * (CtrReconOptions.report_cursor's at this report when set) into *@planes
 * (made on first use, moved when the voxel moved), copying back only those planes
 * (three strided copies, CtrImageRuns) from a device when the native image
 * is the natural one; the whole image into @vol when @whole (the last
 * report, metrics against a reference), the planes then read from it.
 * *@shown: the image to report (@vol when @whole, else the axial plane). */
static gboolean
fetch_planes (CtrIterate *it, const CtrSolverClass *solver, gpointer state, gboolean whole, CtrVolume *vol,
              CtrReportPlanes **planes, const CtrVolume **shown, GError **error)
{
  CtrOperator *op = it->op;
  const CtrReconOptions *o = it->o;
  guint at[3] = { o->report_x, o->report_y, o->report_slice };
  if (o->report_cursor != NULL)
    ctr_report_cursor_get (o->report_cursor, at);   /* the caller's voxel now */
  if (*planes == NULL
      && (*planes = ctr_report_planes_new (&op->grid, at[0], at[1], at[2], vol->unit, error)) == NULL)
    return FALSE;
  ctr_report_planes_move (*planes, at[0], at[1], at[2]);
  if (!whole && op->klass->natural_image && solver->sync_runs != NULL)
    {
      for (guint p = 0; p < CTR_REPORT_N_PLANES; p++)
        {
          const CtrImageRuns runs = ctr_report_planes_runs (*planes, p);
          if (!solver->sync_runs (it, state, &runs, error))
            return FALSE;
        }
      ctr_report_planes_read (*planes, it->X);
      *shown = (*planes)->plane[CTR_REPORT_PLANE_AXIAL];
      return TRUE;
    }
  if (solver->sync != NULL && !solver->sync (it, state, 0, op->image_size, error))
    return FALSE;
  op->klass->image_from_native (op, it->X, vol->data);
  ctr_report_planes_read (*planes, vol->data);
  *shown = whole ? vol : (*planes)->plane[CTR_REPORT_PLANE_AXIAL];
  return TRUE;
}

/* The extra report of a run cancelled after its iteration @done (> 0)
 * whose last report carried less than the whole image (CtrIterStats.cancelled):
 * the whole image as the cancellation left it, @partial when it came during
 * iteration @done + 1.  Nothing when it cannot be had (a device's copy
 * failed) or holds a non-finite voxel: the run is cancelled all the same. */
static void
report_cancelled (CtrIterate *it, const CtrSolverClass *solver, gpointer state, CtrVolume *vol,
                  CtrReportPlanes *planes, guint done, gboolean partial, CtrIterFunc callback, gpointer user_data)
{
  CtrOperator *op = it->op;
  if (callback == NULL || it->o->report_image == CTR_REPORT_VOLUME || done == 0)
    return;
  if (solver->sync != NULL && !solver->sync (it, state, 0, op->image_size, NULL))
    return;
  op->klass->image_from_native (op, it->X, vol->data);
  CtrIterStats stats = { .method = it->o->method, .iteration = done, .n_iterations = it->o->iterations,
                         .residual = NAN, .data_sq = NAN, .rmse = NAN, .psnr = NAN, .ssim = NAN,
                         .cancelled = TRUE, .partial = partial, .image = vol };
  if (!ctr_iter_stats_check (&stats, vol, NULL))
    return;
  if (planes != NULL)
    {
      ctr_report_planes_read (planes, vol->data);
      for (guint k = 0; k < CTR_REPORT_N_PLANES; k++)
        stats.planes[k] = planes->plane[k];
    }
  callback (&stats, user_data);
}

/* One run on @op; *@n_reported counts the reports made. */
static CtrVolume *
run_once (CtrOperator *op, const CtrSolverClass *solver, const CtrProjections *p,
          const CtrReconOptions *o, const CtrVolume *reference, CtrIterFunc callback,
          gpointer user_data, GCancellable *cancellable, guint *n_reported, GError **error)
{
  g_autoptr (CtrVolume) vol = ctr_volume_new (&op->grid, error);
  if (vol == NULL)
    return NULL;
  ctr_volume_set_unit (vol, op->geometry->pixel_size_known ? "1/mm" : "1/pixel");
  g_autofree float *X = g_try_new0 (float, op->image_size);
  g_autofree float *B = g_try_new (float, op->data_size);
  g_autofree float *valid = g_try_new (float, op->data_size);
  g_autofree float *R = NULL;
  g_autoptr (CtrVolume) slice = NULL;
  g_autoptr (CtrReportPlanes) planes = NULL;
  /* the last report carried the whole image: a cancellation after it
   * needs no extra report (the caller has that image; a cancelled
   * iteration's image would be a partial one) */
  gboolean whole_reported = FALSE;
  if (X == NULL || B == NULL || valid == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the solver's image and data (%" G_GSIZE_FORMAT " + 2 × %" G_GSIZE_FORMAT " floats)",
                   op->image_size, op->data_size);
      return NULL;
    }
  if (!gather_data (op, p, B, valid, error))
    return NULL;

  /* ||B||² over the valid rays (reported: CtrIterStats.data_sq). */
  double b_sq = 0.0;
  for (gsize q = 0; q < op->data_size; q++)
    b_sq += valid[q] != 0.f ? (double) B[q] * B[q] : 0.0;
  const double b_norm = sqrt (b_sq);
  double target;
  if (!discrepancy_target (op, p, o, &target, error))
    return NULL;
  /* what the stopping rule stops at; the last image's residual against it, reported */
  const double stop_target = o->stop == CTR_STOP_AUTO ? target : NAN;
  const double noise_residual = b_norm > 0 ? target / b_norm : NAN;
  CtrIterate it = { .op = op, .o = o, .p = p, .X = X, .B = B, .valid = valid, .residual = NAN,
                    .report = callback != NULL || !isnan (stop_target), .cancellable = cancellable };
  /* The exact residual of every iteration's image when the stopping rule
   * or the caller (CTR_RESIDUAL_EVERY) asks for it; else of the last one
   * only, and of the others where the method has it at no cost
   * (ctr-recon-types.h, CtrResidualReport). */
  const gboolean every = !isnan (stop_target) || o->residual == CTR_RESIDUAL_EVERY;
  gpointer state = NULL;
  CtrVolume *result = NULL;
  /* The metrics' data range: max − min of the whole reference (ctr_quality_compute). */
  float ref_lo = 0.f, ref_hi = 0.f;
  RefState ref_state = REF_UNSENT;
  if (reference != NULL)
    ctr_volume_range (reference, &ref_lo, &ref_hi);
  if (!solver->setup (&it, &state, error))
    goto out;

  const gint64 t_start = g_get_monotonic_time ();
  double previous = NAN;
  for (guint i = 1; i <= o->iterations; i++)
    {
      it.iteration = i;
      it.residual = it.update_s = it.residual_s = NAN;
      it.residual_wanted = it.report && (every || i == o->iterations);
      if (ctr_iterate_cancelled (&it, error))
        {
          if (!whole_reported)
            report_cancelled (&it, solver, state, vol, planes, i - 1, FALSE, callback, user_data);
          goto out;
        }
      const gint64 t0 = g_get_monotonic_time ();
      if (!solver->iterate (&it, state, error))
        {
          if (g_cancellable_is_cancelled (cancellable))
            if (!whole_reported)
              report_cancelled (&it, solver, state, vol, planes, i - 1, TRUE, callback, user_data);
          goto out;
        }
      const gint64 t1 = g_get_monotonic_time ();
      gboolean last = i == o->iterations;
      CtrIterStats stats = { 0 };
      stats.residual = it.residual;
      stats.data_sq = b_sq;
      stats.residual_s = isnan (it.residual_s) ? 0.0 : it.residual_s;
      if (it.residual_wanted && isnan (stats.residual))
        {
          const gint64 r0 = g_get_monotonic_time ();
          if (R == NULL && (R = g_try_new (float, op->data_size)) == NULL)
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the residual");
              goto out;
            }
          if (solver->sync != NULL && !solver->sync (&it, state, 0, op->image_size, error))
            goto out;
          if (!op->klass->forward (op, CTR_SUBSET_ALL, X, R, error))
            goto out;
          stats.residual = ctr_iterate_relative_residual (B, R, valid, op->data_size);
          stats.residual_s = (g_get_monotonic_time () - r0) / 1e6;
        }
      stats.noise_residual = noise_residual;
      if (!isnan (stop_target) && !last
          && (stats.residual * (b_norm > 0 ? b_norm : 1.0) <= stop_target
              || (!isnan (previous) && stats.residual > (1.0 - CTR_STAGNATION) * previous)))
        last = stats.stopped = TRUE;
      previous = stats.residual;
      if (callback == NULL && !last)
        continue;
      const CtrVolume *shown = NULL;
      gboolean measured = FALSE;
      if (callback != NULL
          && !quality_in_place (&it, solver, state, reference, (double) ref_hi - (double) ref_lo, &ref_state, &stats,
                                &measured, error))
        goto out;
      const gboolean whole = last || callback == NULL || (reference != NULL && !measured);
      const gboolean in_planes = o->report_image == CTR_REPORT_PLANES && callback != NULL;
      if (in_planes ? !fetch_planes (&it, solver, state, whole, vol, &planes, &shown, error)
                    : !fetch_report (&it, solver, state, whole, vol, &slice, &shown, error))
        goto out;
      whole_reported = shown == vol;
      stats.method = o->method;
      stats.iteration = i;
      stats.n_iterations = o->iterations;
      if (callback == NULL)
        {
          /* The last iteration, unreported: still never a non-finite image. */
          if (!ctr_iter_stats_check (&stats, vol, error))
            goto out;
          break;
        }
      stats.iteration_s = isnan (it.update_s) ? (t1 - t0) / 1e6 : it.update_s;
      if (!measured)
        ctr_iter_stats_set_quality (&stats, vol, reference, o->metrics_radius_mm);
      /* Diverged (NaN, infinity) or unmeasurable: fail, report nothing
       * (what the report shows, the whole image at the end; the metrics). */
      if ((shown != NULL || measured) && !ctr_iter_stats_check (&stats, shown, error))
        goto out;
      for (guint k = 0; in_planes && k < CTR_REPORT_N_PLANES; k++)
        if (!ctr_iter_stats_check (&stats, stats.planes[k] = planes->plane[k], error))
          goto out;
      stats.elapsed_s = (g_get_monotonic_time () - t_start) / 1e6;
      stats.image = shown;
      callback (&stats, user_data);
      (*n_reported)++;
      if (last)
        break;
    }
  result = g_steal_pointer (&vol);

out:
  if (solver->free != NULL)
    solver->free (&it, state);
  return result;
}

CtrVolume *
ctr_iterate_run (CtrOperator *op, const CtrSolverClass *solver, CtrOperatorFallback fallback,
                 gpointer fallback_data, const CtrProjections *p, const CtrReconOptions *o, const CtrVolume *reference,
                 CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, char **note,
                 GError **error)
{
  g_return_val_if_fail (op != NULL && solver != NULL && p != NULL && o != NULL, NULL);
  if (note != NULL)
    *note = NULL;
  if (!check_inputs (op, p, o, reference, error))
    return NULL;
  if (solver->method != o->method)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "the solver runs %s, the options ask for %s",
                   ctr_method_name (solver->method), ctr_method_name (o->method));
      return NULL;
    }
  guint n_reported = 0;
  GError *e = NULL;
  CtrVolume *v = run_once (op, solver, p, o, reference, callback, user_data, cancellable, &n_reported, &e);
  if (v != NULL)
    return v;
  if (fallback == NULL || n_reported > 0 || !ctr_error_cpu_may_run_instead (e))
    {
      g_propagate_error (error, e);
      return NULL;
    }
  g_autoptr (CtrOperator) cpu = fallback (fallback_data, error);
  if (cpu == NULL)
    {
      g_error_free (e);
      return NULL;
    }
  if (note != NULL)
    *note = g_strdup_printf ("%s could not run (%s); %s runs instead", op->klass->name, e->message,
                             cpu->klass->name);
  g_error_free (e);
  return run_once (cpu, solver, p, o, reference, callback, user_data, cancellable, &n_reported, error);
}
