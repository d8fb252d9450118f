/* ctr-recon-plan.c — plan once, execute many (see ctr-recon-plan.h).
 *
 * Every check of method × beam × matrix × backend lives here, in
 * plan_check(); the operator is made once in plan_operator(); execute only
 * resamples the reference and runs the method (solve/ctr-iterate.h for the
 * iterative ones, analytic/ for FBP and FDK).
 */
#include "plan/ctr-recon-plan.h"
#include "plan/ctr-recon-plan-private.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "plan/ctr-backend.h"
#include "sysmat/ctr-operator.h"
#include "analytic/ctr-fbp.h"
#include "data/ctr-geometry-vectors.h"
#include "analytic/ctr-fdk.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-blocking.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-csr-op.h"
#include "sysmat/ctr-matrix-cache.h"
#include "sysmat/ctr-scsr-op.h"

#include <math.h>
#include <string.h>

struct _CtrReconPlan {
  gint ref_count;
  GMutex lock;               /* one execute at a time */
  CtrGeometry *g;
  CtrGrid grid;
  CtrReconOptions o;
  const CtrBackend *backend; /* the backend that runs */
  CtrOperator *op;           /* iterative methods; NULL for FBP/FDK */
  CtrScsr *scsr;             /* the SCSR matrix when the operator is made of one */
  GPtrArray *notes;          /* char *, NULL-terminated */
  CtrPlanInfo info;
  CtrHelicalPlan *helical;   /* helical and curved multi-row cone beam: the whole plan (ctr-recon-plan-private.h) */
  char *operator_key;        /* what the operator was made for (operator_key ()) */
};

static void
add_note (CtrReconPlan *plan, char *note)
{
  /* Keep the array NULL-terminated: replace the terminator, add a new one. */
  g_ptr_array_remove_index (plan->notes, plan->notes->len - 1);
  g_ptr_array_add (plan->notes, note);
  g_ptr_array_add (plan->notes, NULL);
}

#define FAIL(code, ...) do { g_set_error (error, CTR_ERROR, (code), __VA_ARGS__); return FALSE; } while (0)

/* A run that can give a meaningful image on this machine: the field of view
 * at least one pixel of the image wide, and the image, the data and the
 * solver's work arrays (iterative: image twice, data three times; the
 * matrix comes on top and is checked when it is built) within the memory
 * the machine has (ctr-memory.h), before anything is built. */
static gboolean
plan_plausible (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  const double fov = 2.0 * ctr_geometry_fov_radius_mm (g), px = MIN (grid->dx, grid->dy);
  if (!(fov >= px))
    FAIL (CTR_ERROR_INVALID_ARGUMENT,
          "the field of view (Ø %g mm) is smaller than one pixel of the image (%g mm): check the pixel size",
          fov, px);
  const gboolean iterative = ctr_method_is_iterative (o->method);
  const guint64 image = ctr_memory_mul (ctr_grid_size (grid), sizeof (float));
  const guint64 data = ctr_memory_mul (ctr_memory_mul (g->n_views, g->n_rows), ctr_memory_mul (g->n_cols, sizeof (float)));
  const guint64 need = ctr_memory_add (ctr_memory_mul (image, iterative ? 2 : 1), ctr_memory_mul (data, iterative ? 3 : 1));
  g_autofree char *what = g_strdup_printf ("%s on %u × %u × %u voxels from %u views × %u rows × %u columns",
                                           ctr_method_label (o->method), grid->nx, grid->ny, grid->nz,
                                           g->n_views, g->n_rows, g->n_cols);
  return ctr_memory_check (need, what, error);
}

gboolean
ctr_method_fits_geometry (CtrMethod m, const CtrGeometry *g)
{
  if (ctr_helix_applies (g))
    return m != CTR_METHOD_FDK;
  if (g->beam == CTR_BEAM_CONE)
    return m != CTR_METHOD_FBP && m != CTR_METHOD_ART && m != CTR_METHOD_PART;
  return m != CTR_METHOD_FDK;
}

/* The combinations that exist (the options' own ranges are
 * ctr_recon_options_validate's). */
static gboolean
plan_check (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error)
      || !ctr_recon_options_validate (o, error))
    return FALSE;
  const CtrMethod m = o->method;
  if (g->beam == CTR_BEAM_CONE)
    {
      if (!ctr_method_fits_geometry (m, g))
        FAIL (CTR_ERROR_UNSUPPORTED,
              "cone beam is reconstructed with fdk, sart, sirt, cgls, pwls or asd-pocs; %s is for fan and parallel beam",
              ctr_method_name (m));
      return plan_plausible (g, grid, o, error);
    }
  if (!ctr_method_fits_geometry (m, g))
    FAIL (CTR_ERROR_INVALID_GEOMETRY, "FDK reconstructs cone-beam data; use fbp for %s beam",
          g->beam == CTR_BEAM_FAN ? "fan" : "parallel");
  if (!plan_plausible (g, grid, o, error))
    return FALSE;
  if (grid->nz != g->n_rows)
    FAIL (CTR_ERROR_INVALID_ARGUMENT, "the image has %u slices but the detector %u rows", grid->nz, g->n_rows);
  if (!ctr_method_is_iterative (m))
    return TRUE;
  if (o->matrix == CTR_MATRIX_SCSR && o->subsets == CTR_SUBSETS_VIEW
      && (m == CTR_METHOD_PART || m == CTR_METHOD_SART))
    FAIL (CTR_ERROR_INVALID_ARGUMENT,
          "SCSR runs the views of one symmetry orbit together; one view per subset needs the CSR matrix");
  if (o->matrix == CTR_MATRIX_CSR && o->subsets == CTR_SUBSETS_ORBIT && m != CTR_METHOD_PART)
    FAIL (CTR_ERROR_INVALID_ARGUMENT, "orbit subsets on the CSR matrix are implemented for parallel ART only");
  return TRUE;
}

/* The operator an iterative method with @o needs, as a key: two option sets
 * with the same key run on the same operator ("" for FBP and FDK). */
static char *
operator_key (const CtrGeometry *g, const CtrReconOptions *o)
{
  if (!ctr_method_is_iterative (o->method))
    return g_strdup ("");
  const char *backend = o->backend != NULL && *o->backend ? o->backend : "best";
  if (g->beam == CTR_BEAM_CONE)
    return g_strdup ("cone");
  const guint model = o->ray_model;
  if (o->method == CTR_METHOD_ART
      || (o->matrix == CTR_MATRIX_CSR && !(o->method == CTR_METHOD_PART && o->subsets == CTR_SUBSETS_ORBIT)))
    return g_strdup_printf ("csr-view:%u", model);
  if (o->matrix == CTR_MATRIX_CSR)
    return g_strdup_printf ("csr-orbit:%u", model);
  return g_strdup_printf ("scsr:%u:%s", model, backend);
}

#undef FAIL

/* The backend asked for, or the CPU with a note saying why. */
static const CtrBackend *
plan_backend (CtrReconPlan *plan, GError **error)
{
  g_autofree char *why = NULL;
  const CtrBackend *b = ctr_backend_select (plan->o.backend, &why, error);
  if (b == NULL)
    return NULL;
  const gboolean asked = plan->o.backend != NULL && strcmp (plan->o.backend, "best") != 0;
  if (why != NULL && asked)
    add_note (plan, g_steal_pointer (&why));
  return b;
}

static CtrOperator *
csr_operator (CtrReconPlan *plan, gboolean orbits, GCancellable *cancellable, GError **error)
{
  const gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (plan->g, &plan->grid, plan->o.ray_model, cancellable, error);
  if (a == NULL)
    return NULL;
  plan->info.setup_s = (g_get_monotonic_time () - t0) / 1e6;
  plan->info.matrix_bytes = ctr_sysmat_bytes (a);
  plan->info.nnz = plan->info.nnz_expanded = ctr_sysmat_nnz (a);
  plan->info.stored_views = plan->g->n_views;
  CtrSymmetry *sy = orbits ? ctr_symmetry_find (plan->g, &plan->grid, CTR_SYM_ALL) : NULL;
  plan->info.symmetry = sy ? sy->group.name : "none";
  return ctr_csr_op_new (a, sy, plan->g, &plan->grid, error);
}

static CtrOperator *
cpu_fallback (gpointer data, GError **error)
{
  CtrReconPlan *plan = data;
  return ctr_scsr_op_new (plan->scsr, plan->g, &plan->grid, error);
}

/* The operator of an iterative method, made once. */
static gboolean
plan_operator (CtrReconPlan *plan, GCancellable *cancellable, GError **error)
{
  const CtrReconOptions *o = &plan->o;
  const CtrGeometry *g = plan->g;
  if (g->beam == CTR_BEAM_CONE)
    {
      if (plan->backend != ctr_backend_cpu ())
        add_note (plan, g_strdup_printf ("backend %s has no cone-beam projector; the CPU runs %s",
                                         plan->backend->name, ctr_method_name (o->method)));
      plan->backend = ctr_backend_cpu ();
      CtrConeProjector *cp = ctr_cone_projector_new (g, &plan->grid, error);
      if (cp == NULL)
        return FALSE;
      plan->op = ctr_cone_op_new (cp, error);
      plan->info.symmetry = "none";
      return plan->op != NULL;
    }
  if (o->method == CTR_METHOD_ART)
    {
      if (plan->backend != ctr_backend_cpu ())
        add_note (plan, g_strdup_printf ("ART is row-sequential; the CPU runs it, not %s", plan->backend->name));
      plan->backend = ctr_backend_cpu ();
      add_note (plan, g_strdup ("ART is row-sequential: it runs on the CSR matrix, ray by ray"));
      plan->op = csr_operator (plan, FALSE, cancellable, error);
      return plan->op != NULL;
    }
  if (o->matrix == CTR_MATRIX_CSR)
    {
      if (plan->backend != ctr_backend_cpu ())
        add_note (plan, g_strdup_printf ("the GPU backends run the SCSR matrix; the CPU runs CSR, not %s",
                                         plan->backend->name));
      plan->backend = ctr_backend_cpu ();
      plan->op = csr_operator (plan, o->subsets == CTR_SUBSETS_ORBIT, cancellable, error);
      return plan->op != NULL;
    }

  const gint64 t0 = g_get_monotonic_time ();
  g_autofree char *cache_note = NULL;
  plan->scsr = ctr_matrix_cache_get_scsr_full (g, &plan->grid, o->ray_model, &plan->info.from_cache,
                                               &cache_note, cancellable, error);
  if (plan->scsr == NULL)
    return FALSE;
  if (cache_note != NULL)
    add_note (plan, g_steal_pointer (&cache_note));
  const CtrScsr *m = plan->scsr;
  /* Without symmetry the SCSR matrix stores every view (one orbit each):
   * still one build, cached, and no second CSR copy (it used to be thrown
   * away and the matrix built again as CSR). */
  plan->info.setup_s = (g_get_monotonic_time () - t0) / 1e6;
  plan->info.matrix_bytes = ctr_scsr_bytes (m);
  plan->info.nnz = ctr_scsr_nnz (m);
  plan->info.nnz_expanded = ctr_scsr_nnz_expanded (m);
  plan->info.stored_views = ctr_scsr_n_orbits (m);
  plan->info.symmetry = ctr_scsr_symmetry (m)->group.name;

  const CtrBackend *b = plan->backend;
  if (b->methods != 0 && !(b->methods & (1u << o->method)))
    {
      add_note (plan, g_strdup_printf ("backend %s does not run %s; the CPU runs it", b->name,
                                       ctr_method_name (o->method)));
      b = plan->backend = ctr_backend_cpu ();
    }
  if (b != ctr_backend_cpu () && b->scsr_operator != NULL)
    {
      g_autoptr (GError) e = NULL;
      plan->op = b->scsr_operator (b, plan->scsr, g, &plan->grid, &e);
      if (plan->op != NULL)
        return TRUE;
      if (!g_error_matches (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE)
          && !g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
        {
          g_propagate_error (error, g_steal_pointer (&e));
          return FALSE;
        }
      add_note (plan, g_strdup_printf ("backend %s could not start (%s); the CPU runs instead", b->name, e->message));
      plan->backend = ctr_backend_cpu ();
    }
  else if (b != ctr_backend_cpu ())
    {
      add_note (plan, g_strdup_printf ("backend %s has no SCSR operator; the CPU runs it", b->name));
      plan->backend = ctr_backend_cpu ();
    }
  plan->op = ctr_scsr_op_new (plan->scsr, g, &plan->grid, error);
  /* The CPU operator may have moved the elements into the compact store. */
  plan->info.matrix_bytes = ctr_scsr_bytes (plan->scsr);
  return plan->op != NULL;
}

CtrReconPlan *
ctr_recon_plan_new (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
                    GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL && o != NULL, NULL);
  if (!ctr_helix_applies (g) && !plan_check (g, grid, o, error))
    return NULL;
  g_autoptr (CtrReconPlan) plan = g_new0 (CtrReconPlan, 1);
  plan->ref_count = 1;
  g_mutex_init (&plan->lock);
  plan->g = ctr_geometry_copy (g);
  plan->grid = *grid;
  plan->o = *o;
  plan->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (plan->notes, NULL);
  if (ctr_helix_applies (g))
    {
      plan->helical = ctr_helical_plan_new (g, grid, o, cancellable, error);
      if (plan->helical == NULL)
        return NULL;
      plan->backend = ctr_backend_cpu ();
      ctr_helical_plan_get_info (plan->helical, FALSE, &plan->info);
      return g_steal_pointer (&plan);
    }
  plan->info.symmetry = "none";
  plan->info.padding_view = plan->info.padding_global = NAN;
  plan->info.operator_name = ctr_method_name (o->method);
  plan->operator_key = operator_key (g, o);
  plan->backend = plan_backend (plan, error);
  if (plan->backend == NULL)
    return NULL;
  if (!ctr_method_is_iterative (o->method) && ctr_geometry_has_vectors (g))
    {
      /* FBP and FDK run on the circular description of per-view vectors. */
      double dev;
      CtrGeometry *c = ctr_geometry_circular_from_vectors (g, &dev, error);
      if (c == NULL)
        return NULL;
      ctr_geometry_free (plan->g);
      plan->g = c;
      add_note (plan, g_strdup_printf ("the per-view vectors are a circular orbit (SOD %.1f mm, SDD %.1f mm; "
                                       "largest deviation %.2g mm): %s runs on it", c->sod_mm, c->sdd_mm, dev,
                                       ctr_method_label (o->method)));
    }
  if (ctr_method_is_iterative (o->method))
    {
      if (!plan_operator (plan, cancellable, error))
        return NULL;
      plan->info.operator_name = plan->op->klass->name;
      add_note (plan, g_strdup (plan->op->description));
    }
  else if (o->method == CTR_METHOD_FBP && plan->backend != ctr_backend_cpu ())
    {
      add_note (plan, g_strdup_printf ("FBP runs on the CPU, not %s", plan->backend->name));
      plan->backend = ctr_backend_cpu ();
    }
  else if (o->method == CTR_METHOD_FDK && plan->backend != ctr_backend_cpu ()
           && ctr_backend_fdk (plan->backend) == NULL)
    {
      add_note (plan, g_strdup_printf ("backend %s has no FDK; the CPU runs it", plan->backend->name));
      plan->backend = ctr_backend_cpu ();
    }
  add_note (plan, g_strdup_printf ("backend: %s", plan->backend->name));
  return g_steal_pointer (&plan);
}

CtrReconPlan *
ctr_recon_plan_ref (CtrReconPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  g_atomic_int_inc (&plan->ref_count);
  return plan;
}

void
ctr_recon_plan_unref (CtrReconPlan *plan)
{
  if (plan == NULL || !g_atomic_int_dec_and_test (&plan->ref_count))
    return;
  ctr_helical_plan_free (plan->helical);
  ctr_operator_unref (plan->op);
  if (plan->scsr)
    ctr_scsr_unref (plan->scsr);
  ctr_geometry_free (plan->g);
  g_ptr_array_unref (plan->notes);
  g_free (plan->operator_key);
  g_mutex_clear (&plan->lock);
  g_free (plan);
}

/* FDK on the plan's backend when it has one, the CPU's otherwise and when the
 * device cannot run it (unavailable, too little memory), with a note. */
static CtrVolume *
fdk_run (CtrReconPlan *plan, const CtrProjections *p, CtrFdkTimings *t, GCancellable *cancellable,
         GError **error)
{
  const CtrBackend *b = plan->backend;
  CtrBackendRunFdk fdk = b != ctr_backend_cpu () ? ctr_backend_fdk (b) : NULL;
  if (fdk != NULL)
    {
      GError *e = NULL;
      CtrVolume *vol = fdk (b, plan->g, p, &plan->grid, &plan->o, t, cancellable, &e);
      if (vol != NULL)
        return vol;
      if (!g_error_matches (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE)
          && !g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
        {
          g_propagate_error (error, e);
          return NULL;
        }
      add_note (plan, g_strdup_printf ("FDK on backend %s could not run (%s); the CPU runs it", b->name, e->message));
      g_error_free (e);
      plan->backend = ctr_backend_cpu ();
    }
  return ctr_fdk_run (plan->g, p, &plan->grid, plan->o.window, plan->o.cutoff, t, cancellable, error);
}

static CtrVolume *
execute_locked (CtrReconPlan *plan, const CtrProjections *p, const CtrVolume *reference,
                CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = plan->g;
  const CtrReconOptions *o = &plan->o;
  g_autoptr (CtrVolume) ref = NULL;
  if (reference != NULL)
    {
      ref = ctr_volume_resample (reference, &plan->grid,
                                 g->beam == CTR_BEAM_CONE ? CTR_RESAMPLE_VOLUME : CTR_RESAMPLE_SLICES, error);
      if (ref == NULL || !ctr_reference_check (ref, error))
        return NULL;
    }
  if (o->method == CTR_METHOD_FBP || o->method == CTR_METHOD_FDK)
    {
      const gint64 t0 = g_get_monotonic_time ();
      CtrFdkTimings t = { 0 };
      CtrVolume *img = o->method == CTR_METHOD_FBP
                         ? ctr_fbp_run (g, p, &plan->grid, o->window, o->cutoff, cancellable, error)
                         : fdk_run (plan, p, &t, cancellable, error);
      const double seconds = o->method == CTR_METHOD_FDK ? t.total_s : (g_get_monotonic_time () - t0) / 1e6;
      if (img != NULL
          && !ctr_iter_report_single_pass (o->method, img, ref, o->metrics_radius_mm, seconds, callback,
                                           user_data, error))
        g_clear_pointer (&img, ctr_volume_unref);
      return img;
    }
  g_autofree char *note = NULL;
  const gboolean on_cpu = plan->backend == ctr_backend_cpu ();
  CtrVolume *img = ctr_iterate_run (plan->op, ctr_solver_class (o->method),
                                    on_cpu || plan->scsr == NULL ? NULL : cpu_fallback, plan, p, o, ref,
                                    callback, user_data, cancellable, &note, error);
  if (note != NULL)
    {
      /* The device failed before the first iteration: the CPU from now on. */
      add_note (plan, g_steal_pointer (&note));
      g_autoptr (GError) e = NULL;
      CtrOperator *cpu = ctr_scsr_op_new (plan->scsr, g, &plan->grid, &e);
      if (cpu != NULL)
        {
          ctr_operator_unref (plan->op);
          plan->op = cpu;
          plan->backend = ctr_backend_cpu ();
          plan->info.operator_name = cpu->klass->name;
        }
    }
  return img;
}

CtrVolume *
ctr_recon_plan_execute (CtrReconPlan *plan, const CtrProjections *p, const CtrVolume *reference,
                        CtrIterFunc callback, gpointer user_data, GCancellable *cancellable,
                        GError **error)
{
  g_return_val_if_fail (plan != NULL && p != NULL, NULL);
  const CtrGeometry *g = plan->g;
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the projections (%u views × %u rows × %u columns) do not fit the plan's geometry (%u × %u × %u)",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols);
      return NULL;
    }
  g_mutex_lock (&plan->lock);
  CtrVolume *img = plan->helical != NULL
    ? ctr_helical_plan_execute (plan->helical, p, reference, callback, user_data, cancellable, error)
    : execute_locked (plan, p, reference, callback, user_data, cancellable, error);
  g_mutex_unlock (&plan->lock);
  return img;
}

gboolean
ctr_recon_plan_set_options (CtrReconPlan *plan, const CtrReconOptions *o, GError **error)
{
  g_return_val_if_fail (plan != NULL && o != NULL, FALSE);
  if (plan->helical != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "these options need a new plan: a helical plan is made for its rebinning and method");
      return FALSE;
    }
  if (!plan_check (plan->g, &plan->grid, o, error))
    return FALSE;
  g_autofree char *key = operator_key (plan->g, o);
  const gboolean iterative = ctr_method_is_iterative (o->method);
  const char *why = NULL;
  if (iterative != ctr_method_is_iterative (plan->o.method))
    why = iterative ? "an iterative method needs an operator" : "the plan was made for an iterative method";
  else if (!iterative && o->method != plan->o.method)
    why = "another analytic method";
  else if (!iterative && g_strcmp0 (o->backend ? o->backend : "best", plan->o.backend ? plan->o.backend : "best") != 0)
    why = "another backend";
  else if (iterative && g_strcmp0 (key, plan->operator_key) != 0)
    why = "another matrix, ray model, subset kind or backend";
  else if (iterative && plan->backend->methods != 0 && !(plan->backend->methods & (1u << o->method)))
    why = "a method its backend does not run";
  if (why != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "these options need a new plan: %s", why);
      return FALSE;
    }
  g_mutex_lock (&plan->lock);
  plan->o = *o;
  g_mutex_unlock (&plan->lock);
  return TRUE;
}

const char *const *
ctr_recon_plan_get_notes (CtrReconPlan *plan)
{
  if (plan->helical != NULL)
    return ctr_helical_plan_get_notes (plan->helical);
  return (const char *const *) plan->notes->pdata;
}

const char *
ctr_recon_plan_get_backend (CtrReconPlan *plan)
{
  if (plan->helical != NULL)
    return ctr_helical_plan_get_backend (plan->helical);
  return plan->backend->name;
}

const CtrGrid *
ctr_recon_plan_get_grid (CtrReconPlan *plan)
{
  return &plan->grid;
}

const CtrReconOptions *
ctr_recon_plan_get_options (CtrReconPlan *plan)
{
  return &plan->o;
}

void
ctr_recon_plan_get_info (CtrReconPlan *plan, gboolean blocking, CtrPlanInfo *info)
{
  if (plan->helical != NULL)
    {
      ctr_helical_plan_get_info (plan->helical, blocking, info);
      return;
    }
  if (blocking && plan->scsr != NULL && isnan (plan->info.padding_view))
    {
      g_autoptr (CtrBlocked) view = ctr_blocked_new (plan->scsr, CTR_BLOCKING_VIEW);
      g_autoptr (CtrBlocked) global = ctr_blocked_new (plan->scsr, CTR_BLOCKING_GLOBAL);
      plan->info.padding_view = ctr_blocked_padding (view);
      plan->info.padding_global = ctr_blocked_padding (global);
    }
  *info = plan->info;
}
