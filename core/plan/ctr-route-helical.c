/* ctr-route-helical.c — the helical route (ctr-plan-route.h): helical and
 * curved multi-row cone-beam data (ctr_helix_applies), every method but FDK.
 *
 * Two ways, chosen by CtrReconOptions.rebin:
 *  - 180LI / 360LI: make = the rebinning to the grid's slices
 *    (ctr-rebin-helical.h) and a state of the fan-beam routes on the
 *    rebinned stack (the analytic route's FBP; the slice-stack route's PART
 *    on SCSR with one matrix for every slice, SIRT, PWLS, …), made through
 *    that route's table; execute = rebin the projections, run that state.
 *  - none: the cone-beam projector pair (ctr-cone-projector.h) on a slab
 *    of the volume: the grid's slices widened by the z distance a ray travels
 *    inside the grid's circle, the views with a ray inside that slab, and only
 *    the rays whose whole path through the grid's circle stays in it (the
 *    others are left out: ctr_cone_op_new_masked), so every ray through the
 *    requested slices is modelled in full.  SART, SIRT, CGLS, PWLS and
 *    ASD-POCS run on it; the output is the requested slices.
 * The grid's slices are at their true z (cz, dz; ctr_helix_grid), one image
 * per slice, from the lowest z up.  A helical state takes no other options
 * (options_fit refuses every set).
 *
 * The slab of the iterative way, seen from the side (z up):
 *
 *     z ^  model slices ┌───────────┐  margin: the largest z a ray travels
 *       |               │░░░░░░░░░░░│  between its closest approach to the
 *       |   requested   │███████████│  axis and the edge of the grid's circle
 *       |   slices      │███████████│
 *       |               │░░░░░░░░░░░│  a ray is used when its whole path in
 *       |               └───────────┘  the circle lies between the outer
 *       +──────────────────────────▶ x model slices
 */
#include "plan/ctr-plan-route.h"
#include "plan/ctr-plan-common.h"
#include "plan/ctr-backend.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "data/ctr-helix.h"
#include "analytic/ctr-rebin-helical.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"
#include "sysmat/ctr-cone-op.h"

#include <math.h>
#include <string.h>

typedef struct
{
  CtrRouteState base;    /* g, grid (the output: slices at their z), o, this route's notes */
  GPtrArray *all;        /* borrowed strings, NULL-terminated: base's notes + inner's */
  /* rebinning */
  CtrRebinPlan *rebin;
  CtrRouteState *inner;  /* the fan-beam stack's state (slices or analytic route), on inner_grid */
  CtrGrid inner_grid;    /* grid with cz = 0 (a fan stack's slices are its rows) */
  /* slab */
  guint *views;          /* the views used, n_sub */
  guint n_sub;
  CtrGrid model;         /* the slab's volume */
  CtrOperator *op;
  double setup_s;
  const CtrBackend *slab_backend;  /* where the slab's operator runs */
  /* for the CPU fall-back when the device fails before the first report */
  CtrGeometry *sub_geometry;
  guint8 *sub_mask;
  char *backend_line;    /* "backend: NAME" of the slab, for the notes */
} HelicalState;

static void
helical_free (CtrRouteState *rs)
{
  if (rs == NULL)
    return;
  HelicalState *hp = (HelicalState *) rs;
  if (hp->all != NULL)
    g_ptr_array_unref (hp->all);
  ctr_rebin_plan_free (hp->rebin);
  ctr_route_state_free (hp->inner);
  g_free (hp->views);
  if (hp->op != NULL)
    ctr_operator_unref (hp->op);
  ctr_geometry_free (hp->sub_geometry);
  g_free (hp->sub_mask);
  g_free (hp->backend_line);
  ctr_route_state_clear (rs);
  g_free (hp);
}

static void
note (HelicalState *hp, char *text)
{
  ctr_route_state_add_note (&hp->base, text);
}

/* ------------------------------------------------------------------------ */
/* Rebinned (180LI, 360LI): a fan-beam stack                               */

/* The fan-beam route that reconstructs the rebinned stack: the analytic
 * one for FBP, the slice stack's for the iterative methods (the rebinned
 * geometry is an ordinary fan beam: never this route again). */
static const CtrPlanRoute *
stack_route (const CtrReconOptions *o)
{
  return ctr_method_is_iterative (o->method) ? &ctr_route_slices : &ctr_route_analytic;
}

static gboolean
rebin_make (HelicalState *hp, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = hp->base.g;
  const CtrGrid *grid = &hp->base.grid;
  const CtrReconOptions *o = &hp->base.o;
  hp->rebin = ctr_rebin_plan_new_for_grid (g, o->rebin, grid, error);
  if (hp->rebin == NULL)
    return FALSE;
  const CtrGeometry *fan = ctr_rebin_plan_get_geometry (hp->rebin);
  note (hp, g_strdup_printf ("helical scan rebinned (%s: %s) to %u fan-beam slice%s of %u views over 360°, "
                             "table %.2f … %.2f mm", ctr_rebin_mode_name (o->rebin),
                             o->rebin == CTR_REBIN_180LI ? "direct and conjugate rays"
                                                         : "direct rays, between rows and turns",
                             grid->nz, grid->nz == 1 ? "" : "s", fan->n_views,
                             ctr_geometry_table_mm (g, ctr_grid_z (grid, 0)), ctr_geometry_table_mm (g, ctr_grid_z (grid, grid->nz - 1))));
  const guint n_out = ctr_rebin_plan_n_extrapolated (hp->rebin);
  if (n_out > 0)
    note (hp, g_strdup_printf ("%u slice%s lie outside the fully sampled z range of %s rebinning: filled "
                               "from the nearest rays (not a full data set)", n_out, n_out == 1 ? "" : "s",
                               ctr_rebin_mode_name (o->rebin)));
  hp->inner_grid = *grid;
  hp->inner_grid.cz = 0.0;
  hp->inner = stack_route (o)->make (fan, &hp->inner_grid, o, cancellable, error);
  return hp->inner != NULL;
}

/* The fan plan's report with the images at their true z. */
typedef struct {
  CtrIterFunc callback;
  gpointer user_data;
  const CtrGrid *grid;
  guint slice;   /* the slice a CTR_REPORT_SLICE report shows */
} RebinReport;

static void
rebin_report (const CtrIterStats *stats, gpointer data)
{
  RebinReport *r = data;
  CtrIterStats st = *stats;
  CtrVolume shown, planes[G_N_ELEMENTS (st.planes)];
  /* CTR_REPORT_PLANES: the planes at their true z (the fan plan's grid is
   * the same one centred at z 0) */
  for (guint k = 0; k < G_N_ELEMENTS (st.planes); k++)
    if (stats->planes[k] != NULL)
      {
        planes[k] = *stats->planes[k];
        planes[k].grid.cz += r->grid->cz;
        st.planes[k] = &planes[k];
      }
  if (stats->image != NULL)
    {
      shown = *stats->image;
      shown.grid = *r->grid;
      if (stats->image->grid.nz != r->grid->nz)
        {
          /* one slice (CTR_REPORT_SLICE): its plane at its true z */
          shown.grid.nz = 1;
          shown.grid.cz = ctr_grid_z (r->grid, r->slice);
        }
      st.image = &shown;
    }
  r->callback (&st, r->user_data);
}

static CtrVolume *
rebin_execute (HelicalState *hp, const CtrProjections *p, const CtrVolume *ref, CtrIterFunc callback,
               gpointer user_data, GCancellable *cancellable, GError **error)
{
  g_autoptr (CtrProjections) fan = ctr_rebin_run (hp->rebin, p, cancellable, error);
  if (fan == NULL)
    return NULL;
  g_autoptr (CtrVolume) flat_ref = NULL;
  if (ref != NULL)
    {
      flat_ref = ctr_volume_copy (ref);
      flat_ref->grid = hp->inner_grid;
    }
  RebinReport r = { callback, user_data, &hp->base.grid, MIN (hp->base.o.report_slice, hp->base.grid.nz - 1) };
  /* fan's sizes are the stack's geometry's (the rebinning makes them so) */
  CtrVolume *img = hp->inner->route->execute (hp->inner, fan, flat_ref, callback ? rebin_report : NULL, &r,
                                              cancellable, error);
  if (img != NULL)
    img->grid = hp->base.grid;
  return img;
}

/* ------------------------------------------------------------------------ */
/* Not rebinned: the slab                                                    */

/* Radius (mm) of the circle about the axis that holds the whole grid. */
static double
grid_radius (const CtrGrid *g)
{
  const double hx = 0.5 * g->nx * g->dx + fabs (g->cx), hy = 0.5 * g->ny * g->dy + fabs (g->cy);
  return sqrt (hx * hx + hy * hy);
}

/* The z interval of the ray's path inside the cylinder of radius @rv; FALSE
 * when it misses the cylinder. */
static gboolean
ray_z_extent (const double o[3], const double d[3], double rv, double *z0, double *z1)
{
  const double dxy2 = d[0] * d[0] + d[1] * d[1];
  const double t = -(o[0] * d[0] + o[1] * d[1]) / dxy2;
  const double px = o[0] + t * d[0], py = o[1] + t * d[1];
  const double s2 = px * px + py * py;
  if (s2 >= rv * rv)
    return FALSE;
  const double half = sqrt ((rv * rv - s2) / dxy2);
  const double zc = o[2] + t * d[2];
  *z0 = zc - half * fabs (d[2]);
  *z1 = zc + half * fabs (d[2]);
  return TRUE;
}

/* The slab around a grid's slices and the rays whose whole path in the
 * grid's circle stays inside it (the picture at the top of this file). */
typedef struct
{
  CtrGrid model;     /* the slab's volume */
  double dzm;        /* its slice spacing (mm) */
  guint n_margin;    /* slices of margin below and above the requested ones */
  guint8 *mask;      /* [view][row][column]: 1 where the ray is used */
  guint8 *used;      /* [view]: 1 where the view has a used ray */
  guint n_sub;       /* views used */
  guint64 n_rays;    /* rays used */
} SlabRays;

static void
slab_rays_clear (SlabRays *s)
{
  g_clear_pointer (&s->mask, g_free);
  g_clear_pointer (&s->used, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SlabRays, slab_rays_clear)

/* @s (zeroed by the caller; slab_rays_clear after, whatever the result)
 * for @g's rays and @grid's slices.  FALSE with CTR_ERROR_INVALID_ARGUMENT
 * (a slab too thick, or no ray in it), CTR_ERROR_OUT_OF_MEMORY (the mask)
 * or G_IO_ERROR_CANCELLED. */
static gboolean
slab_rays (const CtrGeometry *g, const CtrGrid *grid, SlabRays *s, GCancellable *cancellable, GError **error)
{
  const guint V = g->n_views, R = g->n_rows, C = g->n_cols;
  const gsize per_view = (gsize) R * C;
  const double width = ctr_geometry_slice_width_mm (g), step = grid->dz;
  const double dzm = grid->nz > 1 && step <= 2.0 * width ? step : MIN (width, grid->nz > 1 ? step : width);
  const double rv = grid_radius (grid);

  /* The margin: the largest z travel from a ray's closest approach to the
   * edge of the circle (the outer rows; view 0, and view 1 for a focal spot
   * that alternates). */
  double travel = 0;
  for (guint k = 0; k < MIN (V, 2u); k++)
    for (guint i = 0; i < R; i += MAX (R - 1, 1u))
      for (guint j = 0; j < C; j++)
        {
          double o[3], d[3];
          ctr_cone_ray (g, k, j, i, o, d);
          travel = MAX (travel, rv * fabs (d[2]) / sqrt (d[0] * d[0] + d[1] * d[1]));
        }
  const double z_first = ctr_grid_z (grid, 0), z_last = ctr_grid_z (grid, grid->nz - 1);
  s->dzm = dzm;
  s->n_margin = (guint) ceil ((travel + 1e-6) / dzm) + 1;
  s->model = *grid;
  s->model.dz = dzm;
  s->model.nz = (guint) ceil ((z_last - z_first) / dzm - 1e-9) + 1 + 2 * s->n_margin;
  s->model.cz = 0.5 * (z_first + z_last);
  if (s->model.nz > 4096)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the slab of %g mm would need %u slices of %g mm; reconstruct a thinner slab",
                   z_last - z_first, s->model.nz, dzm);
      return FALSE;
    }
  const double zb_lo = ctr_grid_z (&s->model, 0), zb_hi = ctr_grid_z (&s->model, s->model.nz - 1);

  g_autofree char *what = g_strdup_printf ("the slab's ray mask of %u views × %u rows × %u columns", V, R, C);
  s->mask = ctr_memory_try_new (V, per_view, FALSE, what, error);
  s->used = s->mask == NULL ? NULL : ctr_memory_try_new (V, 1, TRUE, what, error);
  if (s->used == NULL)
    return FALSE;
  guint8 *mask = s->mask, *used = s->used;
  guint64 n_rays = 0;
#pragma omp parallel for schedule(dynamic, 8) reduction(+:n_rays)
  for (gint64 k = 0; k < (gint64) V; k++)
    {
      guint8 *m = mask + (gsize) k * per_view;
      for (guint i = 0; i < R; i++)
        for (guint j = 0; j < C; j++)
          {
            double o[3], d[3], z0, z1;
            ctr_cone_ray (g, (guint) k, j, i, o, d);
            const gboolean in = ray_z_extent (o, d, rv, &z0, &z1) && z0 >= zb_lo && z1 <= zb_hi;
            m[(gsize) i * C + j] = in;
            n_rays += in;
            if (in)
              used[k] = 1;
          }
    }
  s->n_rays = n_rays;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  for (guint k = 0; k < V; k++)
    s->n_sub += used[k];
  if (s->n_sub == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "no ray of the scan stays inside the slab at table %.2f … %.2f mm: it lies outside the "
                   "scanned z range", ctr_geometry_table_mm (g, z_first), ctr_geometry_table_mm (g, z_last));
      return FALSE;
    }
  return TRUE;
}

/* The geometry of @s's views: @g's with only those views (angles, source
 * z and focal shifts copied).  (transfer full), or NULL with
 * CTR_ERROR_OUT_OF_MEMORY. */
static CtrGeometry *
slab_geometry (const CtrGeometry *g, const SlabRays *s, GError **error)
{
  const char *what = "the slab's views";
  g_autoptr (CtrGeometry) sub = ctr_geometry_try_new (CTR_BEAM_CONE, s->n_sub, error);
  if (sub == NULL)
    return NULL;
  double *angles = sub->angles;
  *sub = *g;
  sub->n_views = s->n_sub;
  sub->angles = angles;
  sub->source_z_mm = NULL;
  sub->focal_shift = NULL;
  sub->vectors = NULL;
  if ((g->source_z_mm != NULL
       && (sub->source_z_mm = ctr_memory_try_new (s->n_sub, sizeof (double), FALSE, what, error)) == NULL)
      || (g->focal_shift != NULL
          && (sub->focal_shift = ctr_memory_try_new (s->n_sub, 3 * sizeof (double), FALSE, what, error)) == NULL))
    return NULL;
  for (guint k = 0, n = 0; k < g->n_views; k++)
    if (s->used[k])
      {
        sub->angles[n] = g->angles[k];
        if (sub->source_z_mm)
          sub->source_z_mm[n] = g->source_z_mm[k];
        if (sub->focal_shift)
          memcpy (sub->focal_shift + 3 * n, g->focal_shift + 3 * k, 3 * sizeof (double));
        n++;
      }
  return g_steal_pointer (&sub);
}

/* The slab's memory notes into @notes (char *, transfer full): what is
 * held beside the slab's run (the helical projections, the ray masks),
 * then the run on @sub and @s's volume (ctr_plan_estimate_notes, with its
 * checks: FALSE with their errors, CTR_ERROR_OUT_OF_MEMORY when it does
 * not fit). */
static gboolean
slab_memory_notes (const CtrGeometry *g, const SlabRays *s, const CtrGeometry *sub, const CtrReconOptions *o,
                   GPtrArray *notes, GError **error)
{
  const guint64 rays = ctr_memory_mul (g->n_rows, g->n_cols);
  const guint64 raw = ctr_memory_mul (ctr_memory_mul (g->n_views, rays), sizeof (float));
  const guint64 masks = ctr_memory_add (ctr_memory_mul (g->n_views, rays), ctr_memory_mul (s->n_sub, rays));
  g_autofree char *raw_s = g_format_size_full (raw, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *masks_s = g_format_size_full (masks, G_FORMAT_SIZE_IEC_UNITS);
  g_ptr_array_add (notes, g_strdup_printf ("memory: the helical projections (%s) and the slab's ray masks (%s) "
                                           "are held beside the slab's run, whose estimate follows",
                                           raw_s, masks_s));
  return ctr_plan_estimate_notes (sub, &s->model, o, notes, error);
}

static gboolean
slab_make (HelicalState *hp, GCancellable *cancellable, GError **error)
{
  const CtrGeometry *g = hp->base.g;
  const CtrGrid *grid = &hp->base.grid;
  const gint64 t0 = g_get_monotonic_time ();
  const guint V = g->n_views;
  const gsize per_view = (gsize) g->n_rows * g->n_cols;
  g_auto (SlabRays) s = { 0 };
  if (!slab_rays (g, grid, &s, cancellable, error))
    return FALSE;
  hp->model = s.model;
  hp->n_sub = s.n_sub;
  const double zb_lo = ctr_grid_z (&s.model, 0), zb_hi = ctr_grid_z (&s.model, s.model.nz - 1);
  g_autoptr (CtrGeometry) sub = slab_geometry (g, &s, error);
  if (sub == NULL)
    return FALSE;
  /* the estimate, and the refusal when it does not fit, before the
   * volume, the views' data and the operator are allocated (its notes
   * follow the slab's) */
  g_autoptr (GPtrArray) memory = g_ptr_array_new_with_free_func (g_free);
  if (!slab_memory_notes (g, &s, sub, &hp->base.o, memory, error))
    return FALSE;
  const char *what = "the slab's views";
  hp->views = ctr_memory_try_new (hp->n_sub, sizeof (guint), FALSE, what, error);
  guint8 *sub_mask = hp->views == NULL ? NULL : ctr_memory_try_new (hp->n_sub, per_view, FALSE, what, error);
  if (sub_mask == NULL)
    return FALSE;
  for (guint k = 0, n = 0; k < V; k++)
    if (s.used[k])
      {
        hp->views[n] = k;
        memcpy (sub_mask + (gsize) n * per_view, s.mask + (gsize) k * per_view, per_view);
        n++;
      }
  slab_rays_clear (&s);   /* the whole scan's mask is not needed any more */
  if (hp->slab_backend != ctr_backend_cpu ())
    {
      /* the backend's pair; it copies the mask, kept here for a fall-back */
      g_autoptr (GError) e = NULL;
      hp->op = ctr_backend_cone (hp->slab_backend) (hp->slab_backend, sub, &hp->model, sub_mask, &e);
      if (hp->op != NULL)
        {
          hp->sub_mask = sub_mask;
          if ((hp->sub_geometry = ctr_geometry_try_copy (sub, error)) == NULL)
            return FALSE;
        }
      else
        {
          note (hp, g_strdup_printf ("%s; the CPU runs %s", e->message, ctr_method_name (hp->base.o.method)));
          hp->slab_backend = ctr_backend_cpu ();
        }
    }
  if (hp->op == NULL)
    {
      CtrConeProjector *cp = ctr_cone_projector_new (sub, &hp->model, error);
      if (cp == NULL)
        {
          g_free (sub_mask);
          return FALSE;
        }
      hp->op = ctr_cone_op_new_masked (cp, sub_mask, error);
      if (hp->op == NULL)
        return FALSE;
    }
  hp->setup_s = (g_get_monotonic_time () - t0) / 1e6;

  const double z_first = ctr_grid_z (grid, 0), z_last = ctr_grid_z (grid, grid->nz - 1);
  note (hp, g_strdup_printf ("helical iterative: %u of %u views, %" G_GUINT64_FORMAT " rays whose path stays in "
                             "a slab of %u slices of %.3g mm (table %.2f … %.2f mm: the %u requested slices and "
                             "%.3g mm of margin)", hp->n_sub, V, s.n_rays, hp->model.nz, s.dzm,
                             ctr_geometry_table_mm (g, zb_lo), ctr_geometry_table_mm (g, zb_hi), grid->nz,
                             s.n_margin * s.dzm));
  for (guint i = 0; i < memory->len; i++)
    note (hp, g_steal_pointer (&memory->pdata[i]));
  double lo, hi;
  if (!ctr_helix_z_coverage (g, FALSE, &lo, &hi) || z_first < lo - 1e-6 || z_last > hi + 1e-6)
    note (hp, g_strdup ("some slices lie outside the range the scan samples over 360°: they are not fully "
                        "determined by the data"));
  note (hp, g_strdup (hp->op->description));
  return TRUE;
}

/* The slab's estimate (ctr_recon_plan_estimate): its rays and views, as
 * slab_make finds them (the mask is computed: tens of milliseconds for a
 * clinical scan), then slab_memory_notes. */
static gboolean
slab_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GPtrArray *notes,
               GError **error)
{
  g_auto (SlabRays) s = { 0 };
  if (!slab_rays (g, grid, &s, NULL, error))
    return FALSE;
  g_autoptr (CtrGeometry) sub = slab_geometry (g, &s, error);
  return sub != NULL && slab_memory_notes (g, &s, sub, o, notes, error);
}

/* The CPU's pair on the slab (the fall-back of a device that failed). */
static CtrOperator *
slab_cpu_fallback (gpointer data, GError **error)
{
  HelicalState *hp = data;
  CtrConeProjector *cp = ctr_cone_projector_new (hp->sub_geometry, &hp->model, error);
  if (cp == NULL)
    return NULL;
  const gsize n = (gsize) hp->n_sub * hp->sub_geometry->n_rows * hp->sub_geometry->n_cols;
  guint8 *mask = ctr_memory_try_new (n, 1, FALSE, "the slab's ray mask", error);
  if (mask == NULL)
    {
      ctr_cone_projector_free (cp);
      return NULL;
    }
  memcpy (mask, hp->sub_mask, n);
  return ctr_cone_op_new_masked (cp, mask, error);
}

/* The output slices sampled from the slab's volume (linear in z). */
static void
crop_slab (const HelicalState *hp, const CtrVolume *model, CtrVolume *out)
{
  const CtrGrid *m = &hp->model, *o = &hp->base.grid;
  const gsize plane = ctr_grid_slice_size (o);
  for (guint s = 0; s < o->nz; s++)
    {
      const double f = (ctr_grid_z (o, s) - ctr_grid_z (m, 0)) / m->dz;
      guint k0 = (guint) CLAMP (floor (f + 1e-9), 0, m->nz - 1);
      const guint k1 = MIN (k0 + 1, m->nz - 1);
      const float w = (float) CLAMP (f - k0, 0.0, 1.0);
      const float *a = ctr_volume_slice (model, k0), *b = ctr_volume_slice (model, k1);
      float *dst = ctr_volume_slice (out, s);
      for (gsize q = 0; q < plane; q++)
        dst[q] = w < 1e-6f ? a[q] : (1.0f - w) * a[q] + w * b[q];
    }
}

typedef struct {
  HelicalState *hp;
  CtrIterFunc callback;
  gpointer user_data;
  const CtrVolume *reference;   /* on the output grid, or NULL */
  CtrVolume *shown;             /* the output slices of the iterate */
} SlabReport;

static void
slab_report (const CtrIterStats *stats, gpointer data)
{
  SlabReport *r = data;
  CtrIterStats st = *stats;
  crop_slab (r->hp, stats->image, r->shown);
  ctr_iter_stats_set_quality (&st, r->shown, r->reference, r->hp->base.o.metrics_radius_mm);
  st.image = r->shown;
  r->callback (&st, r->user_data);
}

static CtrVolume *
slab_execute (HelicalState *hp, const CtrProjections *p, const CtrVolume *ref, CtrIterFunc callback,
              gpointer user_data, GCancellable *cancellable, GError **error)
{
  const gsize per_view = (gsize) p->n_rows * p->n_cols;
  g_autoptr (CtrProjections) sub = ctr_projections_new (hp->n_sub, p->n_rows, p->n_cols, p->kind, error);
  if (sub == NULL)
    return NULL;
  for (guint n = 0; n < hp->n_sub; n++)
    memcpy (ctr_projections_view (sub, n), ctr_projections_view (p, hp->views[n]), per_view * sizeof (float));
  if (!ctr_projections_copy_planes (sub, p, error))
    return NULL;

  g_autoptr (CtrVolume) shown = ctr_volume_new (&hp->base.grid, error);
  if (shown == NULL)
    return NULL;
  ctr_volume_set_unit (shown, hp->base.g->pixel_size_known ? "1/mm" : "1/pixel");
  SlabReport r = { hp, callback, user_data, ref, shown };
  /* slab_report crops the output slices from the whole slab and measures
   * them: the slab's every report carries the whole slab */
  CtrReconOptions whole = hp->base.o;
  whole.report_image = CTR_REPORT_VOLUME;
  const CtrReconOptions *o = &whole;
  g_autofree char *fell_back = NULL;
  g_autoptr (CtrVolume) model = ctr_iterate_run (hp->op, ctr_solver_class (o->method),
                                                 hp->sub_geometry != NULL ? slab_cpu_fallback : NULL, hp, sub, o,
                                                 NULL, callback ? slab_report : NULL, &r, cancellable, &fell_back,
                                                 error);
  if (fell_back != NULL)
    {
      /* The device failed before the first iteration: the CPU from now on. */
      note (hp, g_steal_pointer (&fell_back));
      g_autoptr (GError) e = NULL;
      CtrOperator *cpu = slab_cpu_fallback (hp, &e);
      if (cpu != NULL)
        {
          ctr_operator_unref (hp->op);
          hp->op = cpu;
          hp->slab_backend = ctr_backend_cpu ();
          g_clear_pointer (&hp->sub_geometry, ctr_geometry_free);
        }
    }
  if (model == NULL)
    return NULL;
  crop_slab (hp, model, shown);
  return g_steal_pointer (&shown);
}

/* ------------------------------------------------------------------------ */

static gboolean
helical_applies (const CtrGeometry *g, const CtrReconOptions *o)
{
  (void) o;
  return ctr_helix_applies (g);
}

/* The methods this route runs: FALSE with CTR_ERROR_UNSUPPORTED for FDK,
 * and for FBP, ART and PART without rebinning. */
static gboolean
method_fits (const CtrGeometry *g, const CtrReconOptions *o, GError **error)
{
  const CtrMethod m = o->method;
  if (m == CTR_METHOD_FDK)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "FDK reconstructs a circular orbit with a flat panel; this %s scan is rebinned to fan-beam "
                   "slices: use fbp (or an iterative method)", ctr_geometry_is_helical (g) ? "helical" : "multi-row");
      return FALSE;
    }
  if (o->rebin == CTR_REBIN_NONE
      && (m == CTR_METHOD_FBP || m == CTR_METHOD_ART || m == CTR_METHOD_PART))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s runs on rebinned fan-beam slices (rebin 180li or 360li); without rebinning the "
                   "helical scan is reconstructed by sart, sirt, cgls, pwls or asd-pocs", ctr_method_name (m));
      return FALSE;
    }
  return TRUE;
}

/* A rebinned run's estimate: the fan-beam stack's notes, as rebin_make
 * makes it (the rebinned geometry, the grid centred in z), after the
 * helical projections it rebins from. */
static gboolean
rebin_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GPtrArray *notes,
                GError **error)
{
  CtrRebinPlan *rebin = ctr_rebin_plan_new_for_grid (g, o->rebin, grid, error);
  if (rebin == NULL)
    return FALSE;
  const guint64 raw = ctr_memory_mul (ctr_memory_mul (g->n_views, g->n_rows), ctr_memory_mul (g->n_cols, sizeof (float)));
  g_autofree char *raw_s = g_format_size_full (raw, G_FORMAT_SIZE_IEC_UNITS);
  g_ptr_array_add (notes, g_strdup_printf ("memory: the helical projections (%s) are held beside the rebinned "
                                           "fan-beam stack, whose run follows", raw_s));
  CtrGrid inner = *grid;
  inner.cz = 0.0;
  const gboolean ok = ctr_plan_estimate_notes (ctr_rebin_plan_get_geometry (rebin), &inner, o, notes, error);
  ctr_rebin_plan_free (rebin);
  return ok;
}

static gboolean
helical_estimate (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GPtrArray *notes,
                  GError **error)
{
  if (!method_fits (g, o, error))
    return FALSE;
  if (o->rebin == CTR_REBIN_NONE)
    return slab_estimate (g, grid, o, notes, error);
  return rebin_estimate (g, grid, o, notes, error);
}

static CtrRouteState *
helical_make (const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o,
              GCancellable *cancellable, GError **error)
{
  if (!ctr_geometry_validate (g, error) || !ctr_grid_validate (grid, error)
      || !ctr_recon_options_validate (o, error))
    return NULL;
  if (!method_fits (g, o, error))
    return NULL;
  const CtrMethod m = o->method;
  HelicalState *hp = g_new0 (HelicalState, 1);
  g_autoptr (CtrRouteState) rs = &hp->base;
  hp->all = g_ptr_array_new ();
  if (!ctr_route_state_init (rs, &ctr_route_helical, g, grid, o, error))
    return NULL;
  if (o->rebin == CTR_REBIN_NONE)
    {
      const CtrBackend *b = NULL;
      g_autofree char *why = NULL;
      hp->slab_backend = ctr_backend_cpu ();
      if (o->backend != NULL && strcmp (o->backend, "cpu") != 0
          && (b = ctr_backend_select (o->backend, &why, NULL)) != NULL && b != ctr_backend_cpu ())
        {
          if (ctr_backend_cone (b) != NULL)
            hp->slab_backend = b;
          else
            note (hp, g_strdup_printf ("backend %s has no cone-beam projector; the CPU runs %s", b->name,
                                       ctr_method_name (m)));
        }
      if (why != NULL && o->backend != NULL && strcmp (o->backend, "best") != 0)
        note (hp, g_steal_pointer (&why));
      if (!slab_make (hp, cancellable, error))
        return NULL;
    }
  else if (!rebin_make (hp, cancellable, error))
    return NULL;
  return g_steal_pointer (&rs);
}

static CtrVolume *
helical_execute (CtrRouteState *rs, const CtrProjections *p, const CtrVolume *reference,
                 CtrIterFunc callback, gpointer user_data, GCancellable *cancellable, GError **error)
{
  HelicalState *hp = (HelicalState *) rs;
  /* the projections' sizes: checked by ctr_recon_plan_execute */
  g_autoptr (CtrVolume) ref = NULL;
  if (reference != NULL)
    {
      if (!ctr_reference_covers (reference, &rs->grid, error))
        return NULL;
      ref = ctr_volume_resample (reference, &rs->grid, CTR_RESAMPLE_VOLUME, error);
      if (ref == NULL)
        return NULL;
    }
  if (hp->inner != NULL)
    return rebin_execute (hp, p, ref, callback, user_data, cancellable, error);
  return slab_execute (hp, p, ref, callback, user_data, cancellable, error);
}

static gboolean
helical_options_fit (const CtrRouteState *rs, const CtrReconOptions *o, GError **error)
{
  (void) rs;
  (void) o;
  return ctr_plan_options_verdict ("a helical plan is made for its rebinning and method", error);
}

/* This route's notes (rebinning or slab), then the stack's. */
static const char *const *
helical_get_notes (CtrRouteState *rs)
{
  HelicalState *hp = (HelicalState *) rs;
  g_ptr_array_set_size (hp->all, 0);
  for (guint i = 0; i + 1 < rs->notes->len; i++)   /* not the terminator */
    g_ptr_array_add (hp->all, rs->notes->pdata[i]);
  if (hp->inner != NULL)
    for (const char *const *n = hp->inner->route->get_notes (hp->inner); *n != NULL; n++)
      g_ptr_array_add (hp->all, (gpointer) *n);
  else
    {
      g_free (hp->backend_line);
      hp->backend_line = g_strdup_printf ("backend: %s",
                                          (hp->slab_backend != NULL ? hp->slab_backend : ctr_backend_cpu ())->name);
      g_ptr_array_add (hp->all, hp->backend_line);
    }
  g_ptr_array_add (hp->all, NULL);
  return (const char *const *) hp->all->pdata;
}

static const char *
helical_get_backend (CtrRouteState *rs)
{
  HelicalState *hp = (HelicalState *) rs;
  if (hp->inner != NULL)
    return hp->inner->route->get_backend (hp->inner);
  return (hp->slab_backend != NULL ? hp->slab_backend : ctr_backend_cpu ())->name;
}

static void
helical_get_info (CtrRouteState *rs, gboolean blocking, CtrPlanInfo *info)
{
  HelicalState *hp = (HelicalState *) rs;
  if (hp->inner != NULL)
    {
      hp->inner->route->get_info (hp->inner, blocking, info);
      return;
    }
  memset (info, 0, sizeof *info);
  info->operator_name = hp->op->klass->name;
  info->setup_s = hp->setup_s;
  info->stored_views = hp->n_sub;
  info->symmetry = "none";
  info->padding_view = info->padding_global = NAN;
}

const CtrPlanRoute ctr_route_helical = {
  .name = "helical",
  .applies = helical_applies,
  .make = helical_make,
  .estimate = helical_estimate,
  .free = helical_free,
  .execute = helical_execute,
  .options_fit = helical_options_fit,
  .get_notes = helical_get_notes,
  .get_backend = helical_get_backend,
  .get_info = helical_get_info,
  .get_operator = ctr_route_state_no_operator,
};
