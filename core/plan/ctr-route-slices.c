/* ctr-route-slices.c — the slice-stack route (ctr-plan-route.h): iterative
 * methods on fan and parallel beam, one 2-D slice per detector row.
 *
 * The operator is made once: with matrix none the rows on the fly
 * (sysmat/ctr-fly-op.h, with the subsets the SCSR matrix would have: orbits
 * unless one view per subset is asked for or the method is ART; on a GPU
 * backend's on-the-fly operator when it has one and runs the method, else
 * on the CPU, which is also the fall-back at execute); ART on the CSR matrix (row-sequential, on the CPU); the CSR matrix
 * when asked for (by view, or by symmetry orbit for PART); else the SCSR
 * matrix (from the disk cache when it is there), on a GPU backend's operator
 * when the backend has one and runs the method, with the CPU's operator on
 * the same matrix as the fall-back at execute.
 */
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "base/ctr-error.h"
#include "data/ctr-helix.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-blocking.h"
#include "sysmat/ctr-csr-op.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-matrix-cache.h"
#include "sysmat/ctr-scsr-op.h"

#include <math.h>

typedef struct {
  CtrRouteState base;
  CtrOperator *op;
  CtrScsr *scsr;        /* the SCSR matrix when the operator is made of one */
  char *operator_key;   /* what the operator was made for (operator_key ()) */
} SlicesState;

static void
slices_free (CtrRouteState *rs)
{
  if (rs == NULL)
    return;
  SlicesState *s = (SlicesState *) rs;
  ctr_operator_unref (s->op);
  if (s->scsr)
    ctr_scsr_unref (s->scsr);
  g_free (s->operator_key);
  ctr_route_state_clear (rs);
  g_free (s);
}

static gboolean
slices_applies (const CtrGeometry *g, const CtrReconOptions *o)
{
  return !ctr_helix_applies (g) && g->beam != CTR_BEAM_CONE && ctr_method_is_iterative (o->method);
}

/* The operator an iterative method with @o needs on fan or parallel beam,
 * as a key: two option sets with the same key run on the same operator. */
static char *
operator_key (const CtrReconOptions *o)
{
  const char *backend = o->backend != NULL && *o->backend ? o->backend : "best";
  const guint model = o->ray_model;
  if (o->matrix == CTR_MATRIX_NONE)
    return g_strdup_printf ("fly-%s:%u", ctr_plan_fly_orbits (o) ? "orbit" : "view", model);
  if (o->method == CTR_METHOD_ART
      || (o->matrix == CTR_MATRIX_CSR && !(o->method == CTR_METHOD_PART && o->subsets == CTR_SUBSETS_ORBIT)))
    return g_strdup_printf ("csr-view:%u", model);
  if (o->matrix == CTR_MATRIX_CSR)
    return g_strdup_printf ("csr-orbit:%u", model);
  return g_strdup_printf ("scsr:%u:%s", model, backend);
}

static CtrOperator *
csr_operator (SlicesState *s, gboolean orbits, GCancellable *cancellable, GError **error)
{
  CtrRouteState *rs = &s->base;
  const gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (rs->g, &rs->grid, rs->o.ray_model, cancellable, error);
  if (a == NULL)
    return NULL;
  rs->info.setup_s = (g_get_monotonic_time () - t0) / 1e6;
  rs->info.matrix_bytes = ctr_sysmat_bytes (a);
  rs->info.nnz = rs->info.nnz_expanded = ctr_sysmat_nnz (a);
  rs->info.stored_views = rs->g->n_views;
  CtrSymmetry *sy = NULL;
  if (orbits && (sy = ctr_symmetry_find (rs->g, &rs->grid, CTR_SYM_ALL, error)) == NULL)
    return NULL;
  rs->info.symmetry = sy ? sy->group.name : "none";
  return ctr_csr_op_new (a, sy, rs->g, &rs->grid, error);
}

/* The SCSR operator on the plan's backend, or the CPU's with a note. */
static gboolean
scsr_operator (SlicesState *s, GCancellable *cancellable, GError **error)
{
  CtrRouteState *rs = &s->base;
  const CtrReconOptions *o = &rs->o;
  const CtrGeometry *g = rs->g;
  const gint64 t0 = g_get_monotonic_time ();
  g_autofree char *cache_note = NULL;
  s->scsr = ctr_matrix_cache_get_scsr_full (g, &rs->grid, o->ray_model, &rs->info.from_cache,
                                            &cache_note, cancellable, error);
  if (s->scsr == NULL)
    return FALSE;
  if (cache_note != NULL)
    ctr_route_state_add_note (rs, g_steal_pointer (&cache_note));
  const CtrScsr *m = s->scsr;
  /* Without symmetry the SCSR matrix stores every view (one orbit each):
   * still one build, cached, and no second CSR copy (it used to be thrown
   * away and the matrix built again as CSR). */
  rs->info.setup_s = (g_get_monotonic_time () - t0) / 1e6;
  rs->info.matrix_bytes = ctr_scsr_bytes (m);
  rs->info.nnz = ctr_scsr_nnz (m);
  rs->info.nnz_expanded = ctr_scsr_nnz_expanded (m);
  rs->info.stored_views = ctr_scsr_n_orbits (m);
  rs->info.symmetry = ctr_scsr_symmetry (m)->group.name;

  const CtrBackend *b = rs->backend;
  if (b->methods != 0 && !(b->methods & (1u << o->method)))
    {
      ctr_route_state_add_note (rs, g_strdup_printf ("backend %s does not run %s; the CPU runs it", b->name,
                                                     ctr_method_name (o->method)));
      b = rs->backend = ctr_backend_cpu ();
    }
  if (b != ctr_backend_cpu () && b->scsr_operator != NULL)
    {
      g_autoptr (GError) e = NULL;
      s->op = b->scsr_operator (b, s->scsr, g, &rs->grid, &e);
      if (s->op != NULL)
        return TRUE;
      if (!ctr_error_cpu_may_run_instead (e))
        {
          g_propagate_error (error, g_steal_pointer (&e));
          return FALSE;
        }
      ctr_route_state_add_note (rs, g_strdup_printf ("backend %s could not start (%s); the CPU runs instead",
                                                     b->name, e->message));
      rs->backend = ctr_backend_cpu ();
    }
  else if (b != ctr_backend_cpu ())
    {
      ctr_route_state_add_note (rs, g_strdup_printf ("backend %s has no SCSR operator; the CPU runs it", b->name));
      rs->backend = ctr_backend_cpu ();
    }
  s->op = ctr_scsr_op_new (s->scsr, g, &rs->grid, error);
  /* The CPU operator may have moved the elements into the compact store. */
  rs->info.matrix_bytes = ctr_scsr_bytes (s->scsr);
  return s->op != NULL;
}

/* The symmetry of the on-the-fly subsets (NULL: one view each, or @error). */
static gboolean
fly_orbits (SlicesState *s, CtrSymmetry **sy, GError **error)
{
  CtrRouteState *rs = &s->base;
  *sy = NULL;
  if (ctr_plan_fly_orbits (&rs->o) && (*sy = ctr_symmetry_find (rs->g, &rs->grid, CTR_SYM_ALL, error)) == NULL)
    return FALSE;
  rs->info.symmetry = *sy ? (*sy)->group.name : "none";
  return TRUE;
}

/* The CPU's on-the-fly operator. */
static CtrOperator *
fly_cpu_operator (SlicesState *s, GError **error)
{
  CtrSymmetry *sy = NULL;
  if (!fly_orbits (s, &sy, error))
    return NULL;
  CtrOperator *op = ctr_fly_op_new (s->base.g, &s->base.grid, s->base.o.ray_model, sy, error);
  if (op != NULL && !ctr_plan_fly_overlaps (&s->base.o))
    ctr_fly_op_skip_overlaps (op);
  return op;
}

/* The backend's on-the-fly operator when it has one and runs the method;
 * otherwise (or when it cannot start) NULL, the CPU chosen and a note
 * saying why; FALSE on an error that is not the device's. */
static gboolean
fly_device_operator (SlicesState *s, GError **error)
{
  CtrRouteState *rs = &s->base;
  const CtrReconOptions *o = &rs->o;
  const CtrBackend *b = rs->backend;
  if (b == ctr_backend_cpu ())
    return TRUE;
  CtrBackendFlyOperator make = ctr_backend_fly (b);
  if (o->method == CTR_METHOD_ART)
    ctr_route_state_add_note (rs, g_strdup_printf ("ART is row-sequential; the CPU runs it, not %s", b->name));
  else if (b->methods != 0 && !(b->methods & (1u << o->method)))
    ctr_route_state_add_note (rs, g_strdup_printf ("backend %s does not run %s; the CPU runs it", b->name,
                                                   ctr_method_name (o->method)));
  else if (make == NULL)
    ctr_route_state_add_note (rs, g_strdup_printf ("backend %s has no on-the-fly operator; without a stored "
                                                   "matrix the CPU runs", b->name));
  else
    {
      CtrSymmetry *sy = NULL;
      if (!fly_orbits (s, &sy, error))
        return FALSE;
      g_autoptr (GError) e = NULL;
      s->op = make (b, rs->g, &rs->grid, o->ray_model, sy, &e);
      if (s->op != NULL)
        return TRUE;
      if (!ctr_error_cpu_may_run_instead (e) && !g_error_matches (e, CTR_ERROR, CTR_ERROR_UNSUPPORTED))
        {
          g_propagate_error (error, g_steal_pointer (&e));
          return FALSE;
        }
      ctr_route_state_add_note (rs, g_strdup_printf ("backend %s could not start its on-the-fly operator (%s); the "
                                                     "CPU runs instead", b->name, e->message));
    }
  rs->backend = ctr_backend_cpu ();
  return TRUE;
}

/* The rows on the fly: on the backend's device when it has the operator,
 * else on the CPU. */
static gboolean
fly_operator (SlicesState *s, GError **error)
{
  CtrRouteState *rs = &s->base;
  const gint64 t0 = g_get_monotonic_time ();
  if (!fly_device_operator (s, error))
    return FALSE;
  if (s->op == NULL)
    s->op = fly_cpu_operator (s, error);
  rs->info.setup_s = (g_get_monotonic_time () - t0) / 1e6;
  rs->info.matrix_bytes = 0;
  rs->info.nnz = rs->info.nnz_expanded = 0;
  rs->info.stored_views = 0;
  if (s->op != NULL)
    ctr_route_state_add_note (rs, g_strdup_printf ("no stored matrix: the operator computes every row on the fly at "
                                                   "each product (%s)", s->op->klass->name));
  return s->op != NULL;
}

/* The CPU's operator on the same rows: the stored SCSR matrix's, or the
 * one on the fly. */
static CtrOperator *
cpu_fallback (gpointer data, GError **error)
{
  SlicesState *s = data;
  if (s->scsr == NULL)
    return fly_cpu_operator (s, error);
  return ctr_scsr_op_new (s->scsr, s->base.g, &s->base.grid, error);
}

/* The operator, made once. */
static gboolean
slices_operator (SlicesState *s, GCancellable *cancellable, GError **error)
{
  CtrRouteState *rs = &s->base;
  const CtrReconOptions *o = &rs->o;
  if (o->matrix == CTR_MATRIX_NONE)
    return fly_operator (s, error);
  if (o->method == CTR_METHOD_ART)
    {
      if (rs->backend != ctr_backend_cpu ())
        ctr_route_state_add_note (rs, g_strdup_printf ("ART is row-sequential; the CPU runs it, not %s",
                                                       rs->backend->name));
      rs->backend = ctr_backend_cpu ();
      ctr_route_state_add_note (rs, g_strdup ("ART is row-sequential: it runs on the CSR matrix, ray by ray"));
      s->op = csr_operator (s, FALSE, cancellable, error);
      return s->op != NULL;
    }
  if (o->matrix == CTR_MATRIX_CSR)
    {
      if (rs->backend != ctr_backend_cpu ())
        ctr_route_state_add_note (rs, g_strdup_printf ("the GPU backends run the SCSR matrix; the CPU runs CSR, "
                                                       "not %s", rs->backend->name));
      rs->backend = ctr_backend_cpu ();
      s->op = csr_operator (s, o->subsets == CTR_SUBSETS_ORBIT, cancellable, error);
      return s->op != NULL;
    }
  return scsr_operator (s, cancellable, error);
}

static CtrRouteState *
slices_make (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
             GCancellable *cancellable, GError **error)
{
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error) || !ctr_recon_options_validate (o, error))
    return NULL;
  CtrReconOptions resolved = *o;
  g_autofree char *choice = ctr_plan_resolve_matrix (g, grid, &resolved);
  o = &resolved;
  if (!ctr_plan_check (g, grid, o, error))
    return NULL;
  SlicesState *s = g_new0 (SlicesState, 1);
  g_autoptr (CtrRouteState) rs = &s->base;
  if (!ctr_route_state_init (rs, &ctr_route_slices, g, grid, o, error))
    return NULL;
  if (choice != NULL)
    ctr_route_state_add_note (rs, g_steal_pointer (&choice));
  s->operator_key = operator_key (o);
  if (!ctr_route_state_select_backend (rs, error) || !slices_operator (s, cancellable, error))
    return NULL;
  rs->info.operator_name = s->op->klass->name;
  ctr_route_state_add_note (rs, g_strdup (s->op->description));
  ctr_route_state_add_note (rs, g_strdup_printf ("backend: %s", rs->backend->name));
  return g_steal_pointer (&rs);
}

static CtrVolume *
slices_execute (CtrRouteState *rs, const CtrProjections *p, const CtrVolume *reference,
                CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  SlicesState *s = (SlicesState *) rs;
  g_autoptr (CtrVolume) ref = NULL;
  if (!ctr_route_state_reference (rs, reference, CTR_RESAMPLE_SLICES, &ref, error))
    return NULL;
  g_autofree char *note = NULL;
  const gboolean on_cpu = rs->backend == ctr_backend_cpu ();
  CtrVolume *img = ctr_iterate_run (s->op, ctr_solver_class (rs->o.method), on_cpu ? NULL : cpu_fallback, s, p,
                                    &rs->o, ref,
                                    callback, user_data, cancellable, &note, error);
  if (note != NULL)
    {
      /* The device failed before the first iteration: the CPU from now on. */
      ctr_route_state_add_note (rs, g_steal_pointer (&note));
      g_autoptr (GError) e = NULL;
      CtrOperator *cpu = cpu_fallback (s, &e);
      if (cpu != NULL)
        {
          ctr_operator_unref (s->op);
          s->op = cpu;
          rs->backend = ctr_backend_cpu ();
          rs->info.operator_name = cpu->klass->name;
        }
    }
  return img;
}

static gboolean
slices_options_fit (const CtrRouteState *rs, const CtrReconOptions *o, GError **error)
{
  const SlicesState *s = (const SlicesState *) rs;
  CtrReconOptions resolved = *o;
  if (resolved.matrix == CTR_MATRIX_AUTO)
    resolved.matrix = rs->o.matrix;   /* what this plan chose (ctr_recon_plan_set_options keeps it) */
  if (!ctr_plan_check (rs->g, &rs->grid, &resolved, error))
    return FALSE;
  g_autofree char *key = operator_key (&resolved);
  return ctr_plan_options_verdict (ctr_route_state_iterative_why (rs, o, g_strcmp0 (key, s->operator_key) == 0),
                                   error);
}

static void
slices_get_info (CtrRouteState *rs, gboolean blocking, CtrPlanInfo *info)
{
  SlicesState *s = (SlicesState *) rs;
  if (blocking && s->scsr != NULL && isnan (rs->info.padding_view))
    {
      /* Out of memory: the paddings stay unknown (NaN). */
      g_autoptr (CtrBlocked) view = ctr_blocked_new (s->scsr, CTR_BLOCKING_VIEW, NULL);
      g_autoptr (CtrBlocked) global = view ? ctr_blocked_new (s->scsr, CTR_BLOCKING_GLOBAL, NULL) : NULL;
      if (global != NULL)
        {
          rs->info.padding_view = ctr_blocked_padding (view);
          rs->info.padding_global = ctr_blocked_padding (global);
        }
    }
  *info = rs->info;
}

static CtrOperator *
slices_get_operator (CtrRouteState *rs)
{
  return ((SlicesState *) rs)->op;
}

const CtrPlanRoute ctr_route_slices = {
  .name = "slices",
  .applies = slices_applies,
  .make = slices_make,
  .estimate = ctr_plan_estimate_notes,
  .free = slices_free,
  .execute = slices_execute,
  .options_fit = slices_options_fit,
  .get_notes = ctr_route_state_get_notes,
  .get_backend = ctr_route_state_get_backend,
  .get_info = slices_get_info,
  .get_operator = slices_get_operator,
};
