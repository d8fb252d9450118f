/* ctr-plan-common.c — what the plan's routes share (see ctr-plan-common.h). */
#include "plan/ctr-plan-common.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "data/ctr-helix.h"
#include "quality/ctr-metrics.h"
#include "sysmat/ctr-cone-op.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-symmetry.h"
#include "sysmat/ctr-sysmat.h"

#include <math.h>
#include <string.h>

#define FAIL(code, ...) do { g_set_error (error, CTR_ERROR, (code), __VA_ARGS__); return FALSE; } while (0)

/* The stored matrix of an iterative fan- or parallel-beam run, in bytes, as
 * the build holds it at its peak (SCSR: the elements once, the row tables;
 * CSR: the elements twice), or 0 when the run has none; @kind: what it
 * is. */
static guint64
matrix_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, const char **kind)
{
  *kind = NULL;
  if (g->beam == CTR_BEAM_CONE || ctr_helix_applies (g) || !ctr_method_is_iterative (o->method))
    return 0;
  const gboolean csr = o->method == CTR_METHOD_ART || o->matrix == CTR_MATRIX_CSR;
  if (o->matrix == CTR_MATRIX_NONE || (!csr && o->matrix != CTR_MATRIX_SCSR))
    return 0;   /* no stored matrix (an operator on the fly) */
  *kind = csr ? "CSR matrix" : "SCSR matrix";
  return csr ? ctr_sysmat_estimate_bytes (g, grid, o->ray_model) : ctr_scsr_estimate_bytes (g, grid, o->ray_model);
}

void
ctr_plan_memory_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, CtrPlanMemory *m)
{
  memset (m, 0, sizeof *m);
  const guint64 image = ctr_memory_mul (ctr_grid_size (grid), sizeof (float));
  const guint64 data = ctr_memory_mul (ctr_memory_mul (g->n_views, g->n_rows), ctr_memory_mul (g->n_cols, sizeof (float)));
  m->image = image;
  m->data = data;
  m->matrix = matrix_estimate (g, grid, o, &m->matrix_kind);
  /* Work vectors beyond the image and the data themselves, per method
   * (solve/: the solver's image X and its validity mask and copy of the
   * data, then each method's own). */
  guint wi = 0, wd = 0;
  switch (o->method)
    {
    case CTR_METHOD_FBP:
    case CTR_METHOD_FDK:
      wd = 1;   /* the filtered projections */
      break;
    case CTR_METHOD_SIRT:
      wi = 3;   /* X, the scale (the column sums), the update D */
      /* the data's copy, validity, the rays' coefficients, Y = A X, and
       * V = R (B − A X) but with an operator's forward_update: the cone
       * pair's (circular or a helical slab) and the on-the-fly fan and
       * parallel pair's (solve/ctr-subset-methods.c) */
      wd = g->beam == CTR_BEAM_CONE || o->matrix == CTR_MATRIX_NONE ? 4 : 5;
      break;
    case CTR_METHOD_CGLS:
      wi = 3;   /* X, S, P */
      wd = 4;   /* the data's copy, validity, R, Q */
      break;
    case CTR_METHOD_PWLS:
      wi = 7;   /* X, the SQS denominator, Z, the previous X, G, GR, CR */
      wd = 3;   /* the data's copy, validity, A·1 while it starts */
      m->weights = data;
      break;
    case CTR_METHOD_ASD_POCS:
      wi = 5;   /* X, column sums, the previous image, the TV gradient, the update */
      wd = 3;
      break;
    default:    /* ART, PART, SART */
      wi = 3;   /* X, the column sums, the scale */
      wd = 4;   /* the data's copy, validity, the coefficients, and the
                 * rays' lengths while it starts or the reported residual */
      break;
    }
  m->work = ctr_memory_add (ctr_memory_mul (image, wi), ctr_memory_mul (data, wd));
  /* no stored matrix on fan/parallel beam: the on-the-fly operator's own
   * work space, tables and parallel ART's overlap counts (its default
   * step only: with the row norms on orbit subsets, alone on one view) */
  if (o->matrix == CTR_MATRIX_NONE && g->beam != CTR_BEAM_CONE && !ctr_helix_applies (g)
      && ctr_method_is_iterative (o->method))
    {
      const gboolean orbits = ctr_plan_fly_orbits (o);
      m->fly = ctr_fly_op_estimate_bytes (g, grid, o->ray_model, orbits, ctr_plan_fly_overlaps (o));
    }
  /* the CPU cone pair's own work space (a device's is the backend's line) */
  if (g->beam == CTR_BEAM_CONE && ctr_method_is_iterative (o->method))
    m->work = ctr_memory_add (m->work, ctr_cone_op_estimate_bytes (g, grid));
  /* SART's column scaling on the SCSR matrix keeps one slice's inverse
   * column sums per view orbit (ctr-scsr-op.c). */
  if (m->matrix_kind != NULL && o->matrix == CTR_MATRIX_SCSR
      && (o->method == CTR_METHOD_SART || o->method == CTR_METHOD_ASD_POCS))
    {
      const guint no = ctr_symmetry_count_orbits (g, grid, CTR_SYM_ALL, NULL);
      m->work = ctr_memory_add (m->work, ctr_memory_mul (ctr_memory_mul ((guint64) grid->nx * grid->ny, no), 4));
    }
  /* the metrics against a reference: the caller's copy (taken as one
   * image: the reference is resampled onto the grid from its own, which
   * the plan does not see), the resampled copy (ctr_route_state_reference)
   * and ctr_quality_compute's buffers */
  if (o->with_reference)
    m->reference = ctr_memory_add (ctr_memory_mul (image, 2), ctr_quality_work_bytes (grid, o->metrics_radius_mm));
  m->total = ctr_memory_add (ctr_memory_add (ctr_memory_add (m->image, m->data), ctr_memory_add (m->matrix, m->weights)),
                             ctr_memory_add (ctr_memory_add (m->work, m->fly), m->reference));
}

gboolean
ctr_plan_fly_overlaps (const CtrReconOptions *o)
{
  return o->method == CTR_METHOD_PART && o->part_step != CTR_PART_STEP_CUART;
}

gboolean
ctr_plan_fly_orbits (const CtrReconOptions *o)
{
  return o->method != CTR_METHOD_ART && o->subsets != CTR_SUBSETS_VIEW;
}

char *
ctr_plan_resolve_matrix (const CtrGeometry *g, const CtrGrid *grid, CtrReconOptions *o)
{
  if (o->matrix != CTR_MATRIX_AUTO)
    return NULL;
  o->matrix = CTR_MATRIX_SCSR;
  if (g->beam == CTR_BEAM_CONE || ctr_helix_applies (g) || !ctr_method_is_iterative (o->method))
    return NULL;
  const gboolean one_view = o->subsets == CTR_SUBSETS_VIEW
                            && (o->method == CTR_METHOD_PART || o->method == CTR_METHOD_SART);
  if (o->method == CTR_METHOD_ART || one_view)
    o->matrix = CTR_MATRIX_CSR;
  CtrPlanMemory stored, fly;
  ctr_plan_memory_estimate (g, grid, o, &stored);
  const guint64 limit = ctr_memory_limit_bytes ();
  g_autofree char *have = ctr_memory_limit_describe ();
  g_autofree char *need = g_format_size_full (stored.total, G_FORMAT_SIZE_IEC_UNITS);
  /* A tenth of the limit kept free: the estimate's error (0.94-1.03 of the
   * measured peak) and what else the machine runs. */
  if (stored.total <= limit - limit / 10)
    return g_strdup_printf ("matrix: auto chose the stored %s (the run needs %s with it)", stored.matrix_kind, need);
  const CtrMatrixFormat chosen = o->matrix;
  o->matrix = CTR_MATRIX_NONE;
  ctr_plan_memory_estimate (g, grid, o, &fly);
  g_autofree char *need_fly = g_format_size_full (fly.total, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("matrix: auto computes the rows on the fly: with the %s the run would need %s, more than "
                          "nine tenths of the %s; on the fly it needs %s%s",
                          chosen == CTR_MATRIX_CSR ? "CSR matrix" : "SCSR matrix", need, have, need_fly,
                          fly.total <= limit ? "" : ", which does not fit either");
}

gboolean
ctr_plan_estimate_notes (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GPtrArray *notes,
                         GError **error)
{
  CtrReconOptions resolved = *o;
  char *choice = ctr_plan_resolve_matrix (g, grid, &resolved);
  if (!ctr_plan_check (g, grid, &resolved, error))
    {
      g_free (choice);
      return FALSE;
    }
  CtrPlanMemory m;
  ctr_plan_memory_estimate (g, grid, &resolved, &m);
  g_ptr_array_add (notes, ctr_plan_memory_note (&m));
  if (choice != NULL)
    g_ptr_array_add (notes, choice);
  /* the device's share: the backend's cone pair whole or split, or its
   * on-the-fly fan/parallel pair */
  const gboolean iterative = ctr_method_is_iterative (resolved.method);
  const gboolean fly = g->beam != CTR_BEAM_CONE && resolved.matrix == CTR_MATRIX_NONE && !ctr_helix_applies (g)
                       && resolved.method != CTR_METHOD_ART;
  const CtrBackend *b = iterative && (g->beam == CTR_BEAM_CONE || fly)
                          ? ctr_backend_select (resolved.backend, NULL, NULL) : NULL;
  CtrBackendConeMemory device = g->beam == CTR_BEAM_CONE ? ctr_backend_cone_memory (b) : NULL;
  CtrBackendFlyMemory fly_device = fly ? ctr_backend_fly_memory (b) : NULL;
  char *line = device != NULL ? device (b, g, grid)
               : fly_device != NULL ? fly_device (b, g, grid, resolved.ray_model) : NULL;
  if (line != NULL)
    g_ptr_array_add (notes, line);
  return TRUE;
}

char *
ctr_plan_memory_note (const CtrPlanMemory *m)
{
  g_autofree char *total = g_format_size_full (m->total, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *image = g_format_size_full (m->image, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *data = g_format_size_full (m->data, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *work = g_format_size_full (m->work, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *have = ctr_memory_limit_describe ();
  GString *s = g_string_new (NULL);
  g_string_printf (s, "memory: %s estimated (", total);
  if (m->matrix_kind != NULL)
    {
      g_autofree char *mx = g_format_size_full (m->matrix, G_FORMAT_SIZE_IEC_UNITS);
      g_string_append_printf (s, "%s %s, ", m->matrix_kind, mx);
    }
  g_string_append_printf (s, "image %s, data %s, ", image, data);
  if (m->weights > 0)
    {
      g_autofree char *w = g_format_size_full (m->weights, G_FORMAT_SIZE_IEC_UNITS);
      g_string_append_printf (s, "statistical weights %s, ", w);
    }
  if (m->fly > 0)
    {
      g_autofree char *f = g_format_size_full (m->fly, G_FORMAT_SIZE_IEC_UNITS);
      g_string_append_printf (s, "on-the-fly operator %s, ", f);
    }
  if (m->reference > 0)
    {
      g_autofree char *r = g_format_size_full (m->reference, G_FORMAT_SIZE_IEC_UNITS);
      g_string_append_printf (s, "reference and metrics %s, ", r);
    }
  g_string_append_printf (s, "work vectors %s), %s", work, have);
  return g_string_free (s, FALSE);
}

/* A run that can give a meaningful image on this machine: the field of view
 * at least one pixel of the image wide, and the memory estimate of
 * ctr_plan_memory_estimate within the memory this process may count on
 * (ctr-memory.h), before anything is built. */
static gboolean
plan_plausible (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  const double fov = 2.0 * ctr_geometry_fov_radius_mm (g), px = MIN (grid->dx, grid->dy);
  if (!(fov >= px))
    FAIL (CTR_ERROR_INVALID_ARGUMENT,
          "the field of view (Ø %g mm) is smaller than one pixel of the image (%g mm): check the pixel size",
          fov, px);
  CtrPlanMemory m;
  ctr_plan_memory_estimate (g, grid, o, &m);
  g_autofree char *what = g_strdup_printf ("%s on %u × %u × %u voxels from %u views × %u rows × %u columns%s%s",
                                           ctr_method_label (o->method), grid->nx, grid->ny, grid->nz,
                                           g->n_views, g->n_rows, g->n_cols,
                                           m.matrix_kind != NULL ? " with its " : "",
                                           m.matrix_kind != NULL ? m.matrix_kind : "");
  return ctr_memory_check (m.total, what, error);
}

gboolean
ctr_plan_method_fits (CtrMethod m, const CtrGeometry *g)
{
  if (ctr_helix_applies (g))
    return m != CTR_METHOD_FDK;
  if (g->beam == CTR_BEAM_CONE)
    return m != CTR_METHOD_FBP && m != CTR_METHOD_ART && m != CTR_METHOD_PART;
  return m != CTR_METHOD_FDK;
}

/* The combinations that exist (the options' own ranges are
 * ctr_recon_options_validate's). */
gboolean
ctr_plan_check (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error)
      || !ctr_recon_options_validate (o, error))
    return FALSE;
  const CtrMethod m = o->method;
  if (g->beam == CTR_BEAM_CONE)
    {
      if (!ctr_plan_method_fits (m, g))
        FAIL (CTR_ERROR_UNSUPPORTED,
              "cone beam is reconstructed with fdk, sart, sirt, cgls, pwls or asd-pocs; %s is for fan and parallel beam",
              ctr_method_name (m));
      return plan_plausible (g, grid, o, error);
    }
  if (!ctr_plan_method_fits (m, g))
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

#undef FAIL

gboolean
ctr_route_state_init (CtrRouteState *rs, const CtrPlanRoute *route, const CtrGeometry *g,
                      const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  rs->route = route;
  rs->grid = *grid;
  rs->o = *o;
  rs->backend = ctr_backend_cpu ();
  rs->notes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (rs->notes, NULL);
  if (route != &ctr_route_helical)   /* its stack's route states its own */
    {
      CtrPlanMemory m;
      ctr_plan_memory_estimate (g, grid, o, &m);
      ctr_route_state_add_note (rs, ctr_plan_memory_note (&m));
    }
  rs->info.operator_name = ctr_method_name (o->method);
  rs->info.symmetry = "none";
  rs->info.padding_view = rs->info.padding_global = NAN;
  rs->g = ctr_geometry_try_copy (g, error);
  return rs->g != NULL;
}

void
ctr_route_state_clear (CtrRouteState *rs)
{
  g_clear_pointer (&rs->g, ctr_geometry_free);
  g_clear_pointer (&rs->notes, g_ptr_array_unref);
}

void
ctr_route_state_free (CtrRouteState *rs)
{
  if (rs != NULL)
    rs->route->free (rs);
}

void
ctr_route_state_add_note (CtrRouteState *rs, char *note)
{
  /* Keep the array NULL-terminated: replace the terminator, add a new one. */
  g_ptr_array_remove_index (rs->notes, rs->notes->len - 1);
  g_ptr_array_add (rs->notes, note);
  g_ptr_array_add (rs->notes, NULL);
}

gboolean
ctr_route_state_select_backend (CtrRouteState *rs, GError **error)
{
  g_autofree char *why = NULL;
  const CtrBackend *b = ctr_backend_select (rs->o.backend, &why, error);
  if (b == NULL)
    return FALSE;
  const gboolean asked = rs->o.backend != NULL && strcmp (rs->o.backend, "best") != 0;
  if (why != NULL && asked)
    ctr_route_state_add_note (rs, g_steal_pointer (&why));
  rs->backend = b;
  return TRUE;
}

gboolean
ctr_route_state_reference (const CtrRouteState *rs, const CtrVolume *reference, CtrResampleMode mode,
                           CtrVolume **out, GError **error)
{
  *out = NULL;
  if (reference == NULL)
    return TRUE;
  if (mode == CTR_RESAMPLE_VOLUME && !ctr_reference_covers (reference, &rs->grid, error))
    return FALSE;
  g_autoptr (CtrVolume) ref = ctr_volume_resample (reference, &rs->grid, mode, error);
  if (ref == NULL || !ctr_reference_check (ref, error))
    return FALSE;
  *out = g_steal_pointer (&ref);
  return TRUE;
}

CtrOperator *
ctr_route_state_no_operator (CtrRouteState *rs)
{
  return NULL;
}

const char *const *
ctr_route_state_get_notes (CtrRouteState *rs)
{
  return (const char *const *) rs->notes->pdata;
}

const char *
ctr_route_state_get_backend (CtrRouteState *rs)
{
  return rs->backend->name;
}

void
ctr_route_state_get_info (CtrRouteState *rs, gboolean blocking, CtrPlanInfo *info)
{
  (void) blocking;
  *info = rs->info;
}

const char *
ctr_route_state_iterative_why (const CtrRouteState *rs, const CtrReconOptions *o, gboolean same_operator)
{
  if (!ctr_method_is_iterative (o->method))
    return "the plan was made for an iterative method";
  if (!same_operator)
    return "another matrix, ray model, subset kind or backend";
  if (rs->backend->methods != 0 && !(rs->backend->methods & (1u << o->method)))
    return "a method its backend does not run";
  return NULL;
}

gboolean
ctr_plan_options_verdict (const char *why, GError **error)
{
  if (why == NULL)
    return TRUE;
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "these options need a new plan: %s", why);
  return FALSE;
}
