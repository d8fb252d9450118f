/* ctr-mpi-stack.c — slice blocks (fan and parallel beam) and z-slabs with
 * halo slices (cone-beam SART/SIRT) across ranks (see ctr-mpi.h).
 *
 * Fan and parallel beam: slice s is detector row ctr_geometry_slice_row (s)
 * and nothing else, so a block of slices is an independent problem on the
 * block's rows with the same system matrix (the cache key ignores the rows):
 * MemXCT §3 / petascale XCT §3, the matrix replicated, the slices
 * distributed.  Every rank plans and executes its block; the whole stack's
 * report is reduced from the blocks' partial sums in a status round
 * (ctr-mpi.c) after every iteration.
 *
 * Cone beam: a ray crosses slices, so slabs are coupled.  Each rank takes
 * its slab plus `halo` slices on either side and the detector rows that
 * this thicker slab projects onto (over all views), reconstructs that, and
 * keeps its slab.  The halo is the z distance a ray travels while it
 * crosses the grid in x-y (diagonal · |v|max / SDD), so every ray through
 * the slab stays inside slab + halo; what the rays bring from outside lands
 * in the halo.  It is an approximation that improves with the halo.
 */
#include "ctr-mpi-private.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

typedef struct {
  CtrMpiJob *job;
  const CtrVolume *ref_part;  /* this rank's kept slices of the reference */
  guint keep_offset;          /* first kept slice in the rank's own grid */
  guint nz_total;
  double data_range, radius_mm;
} StackRun;

/* The kept slices of @img as a volume of their own. */
static CtrVolume *
kept_slices (const CtrVolume *img, guint offset, guint count)
{
  CtrGrid g = ctr_mpi_grid_slices (&img->grid, offset, count);
  CtrVolume *v = ctr_volume_new (&g, NULL);
  if (v != NULL)
    memcpy (v->data, ctr_volume_slice (img, offset), ctr_grid_size (&g) * sizeof (float));
  return v;
}

static void
on_iteration (const CtrIterStats *s, gpointer data)
{
  StackRun *run = data;
  CtrMpiJob *job = run->job;
  double sum[CTR_MPI_N_SUM] = { s->residual * s->residual * s->data_sq, s->data_sq, 0, 0, 0 };
  if (run->ref_part != NULL && s->image != NULL)
    {
      g_autoptr (CtrVolume) mine = kept_slices (s->image, run->keep_offset, run->ref_part->grid.nz);
      CtrQuality q;
      if (mine != NULL && ctr_quality_sum_slices (mine, run->ref_part, run->radius_mm, run->data_range, &q, NULL))
        {
          sum[2] = q.rmse;
          sum[3] = q.psnr;
          sum[4] = q.ssim;
        }
    }
  double max[CTR_MPI_N_MAX] = { s->iteration_s, s->residual_s };
  gboolean cancel_all = FALSE;
  g_autoptr (GError) e = NULL;
  const gboolean asked = job->outer != NULL && g_cancellable_is_cancelled (job->outer);
  if (ctr_mpi_round (job, (int) s->iteration, NULL, asked, sum, max, &cancel_all, &e) != CTR_MPI_ROUND_OK
      || cancel_all)
    {
      /* A rank left the run, failed or was cancelled: stop at the next
       * view; the end of the run reads why. */
      g_cancellable_cancel (job->inner);
      return;
    }
  if (job->rank != 0 || job->callback == NULL)
    return;
  CtrIterStats st = *s;
  st.data_sq = sum[1];
  st.residual = sum[1] > 0 ? sqrt (sum[0] / sum[1]) : NAN;
  st.has_reference = run->ref_part != NULL;
  st.rmse = st.has_reference ? sum[2] / run->nz_total : NAN;
  st.psnr = st.has_reference ? sum[3] / run->nz_total : NAN;
  st.ssim = st.has_reference ? sum[4] / run->nz_total : NAN;
  st.iteration_s = max[0];
  st.residual_s = max[1];
  st.image = NULL;
  memset (st.planes, 0, sizeof st.planes);   /* one rank's part: no image */
  job->callback (&st, job->user_data);
}

/* The halo (slices) of a cone-beam slab: CTR_MPI_HALO when set, else the z
 * distance a ray travels across the grid's x-y diagonal. */
static guint
cone_halo (const CtrGeometry *g, const CtrGrid *grid)
{
  const char *env = g_getenv ("CTR_MPI_HALO");
  if (env != NULL && *env != '\0')
    return (guint) g_ascii_strtoull (env, NULL, 10);
  const double vmax = MAX (fabs (ctr_geometry_row_v (g, -0.5)), fabs (ctr_geometry_row_v (g, g->n_rows - 0.5)));
  const double diag = hypot (grid->nx * grid->dx, grid->ny * grid->dy);
  return (guint) ceil (diag * vmax / g->sdd_mm / grid->dz) + 1;
}

/* Detector rows that slices [lo, hi) of @grid project onto in any view:
 * the extremes of a linear-fractional map over a box are at its corners. */
static CtrMpiBlock
cone_rows (const CtrGeometry *g, const CtrGrid *grid, guint lo, guint hi)
{
  const double x[2] = { ctr_grid_x (grid, -0.5), ctr_grid_x (grid, grid->nx - 0.5) };
  const double y[2] = { ctr_grid_y (grid, -0.5), ctr_grid_y (grid, grid->ny - 0.5) };
  const double z[2] = { ctr_grid_z (grid, lo - 0.5), ctr_grid_z (grid, hi - 0.5) };
  double rmin = INFINITY, rmax = -INFINITY;
  for (guint v = 0; v < g->n_views; v++)
    {
      double P[12];
      ctr_geometry_projection_matrix (g, v, P);
      for (int c = 0; c < 8; c++)
        {
          const double X = x[c & 1], Y = y[(c >> 1) & 1], Z = z[c >> 2];
          const double h1 = P[4] * X + P[5] * Y + P[6] * Z + P[7], h2 = P[8] * X + P[9] * Y + P[10] * Z + P[11];
          if (h2 <= 0)
            rmin = -INFINITY, rmax = INFINITY;  /* a corner behind the source: every row */
          else
            {
              rmin = MIN (rmin, h1 / h2);
              rmax = MAX (rmax, h1 / h2);
            }
        }
    }
  const double first = MAX (0.0, floor (rmin) - 1), last = MIN ((double) g->n_rows - 1, ceil (rmax) + 1);
  CtrMpiBlock b = { (guint) first, last >= first ? (guint) (last - first + 1) : 0 };
  return b;
}

typedef struct {
  CtrMpiBlock keep;   /* slices of the whole grid this rank returns */
  CtrMpiBlock slab;   /* slices it reconstructs (keep + halo) */
  CtrMpiBlock rows;   /* detector rows it needs */
} Share;

static void
plan_shares (const CtrMpiShared *sh, int size, Share *s, guint *halo)
{
  const CtrGeometry *g = sh->geometry;
  const guint nz = sh->grid.nz;
  *halo = g->beam == CTR_BEAM_CONE ? cone_halo (g, &sh->grid) : 0;
  for (int r = 0; r < size; r++)
    {
      s[r].keep = ctr_mpi_block (nz, (guint) size, (guint) r);
      if (g->beam != CTR_BEAM_CONE)
        {
          s[r].slab = s[r].keep;
          /* Slice 0 is the row of the lowest v (ctr_geometry_slice_row). */
          s[r].rows.count = s[r].keep.count;
          s[r].rows.first = g->rows_increase_with_v ? s[r].keep.first : nz - s[r].keep.first - s[r].keep.count;
          continue;
        }
      const guint lo = s[r].keep.first > *halo ? s[r].keep.first - *halo : 0;
      const guint hi = MIN (nz, s[r].keep.first + s[r].keep.count + *halo);
      s[r].slab = (CtrMpiBlock) { lo, hi - lo };
      s[r].rows = cone_rows (g, &sh->grid, lo, hi);
    }
}

/* The node's first rank plans first (it fills the matrix cache, or loads
 * it), then the others (they load what it wrote: one build per node; the
 * cache writes to a temporary file renamed into place, so nodes sharing a
 * cache folder never read a partial file). */
static CtrReconPlan *
plan_in_turn (CtrMpiJob *job, const CtrGeometry *g, const CtrGrid *grid, const CtrReconOptions *o, GError **error)
{
  MPI_Comm node;
  MPI_Comm_split_type (job->comm, MPI_COMM_TYPE_SHARED, job->rank, MPI_INFO_NULL, &node);
  int node_rank = 0;
  MPI_Comm_rank (node, &node_rank);
  MPI_Comm_free (&node);
  CtrReconPlan *plan = NULL;
  GError *e = NULL;
  if (node_rank == 0)
    plan = ctr_recon_plan_new (g, grid, o, job->inner, &e);
  /* Every rank sees the same outcome of a round, so all leave together. */
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_PLAN, &e, error))
    {
      g_clear_pointer (&plan, ctr_recon_plan_unref);
      return NULL;
    }
  e = NULL;
  if (node_rank != 0)
    plan = ctr_recon_plan_new (g, grid, o, job->inner, &e);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_PLANNED, &e, error))
    g_clear_pointer (&plan, ctr_recon_plan_unref);
  return plan;
}

/* How the work was split, every rank's plan (rank 0). */
static void
describe (CtrMpiJob *job, const CtrMpiShared *sh, const Share *s, guint halo, const double *setup)
{
  const char *threads = g_getenv ("OMP_NUM_THREADS");
  if (sh->geometry->beam == CTR_BEAM_CONE)
    ctr_mpi_note (job, "MPI: %d ranks (OMP_NUM_THREADS %s), z-slabs of the %u-slice volume with %u halo slices on "
                  "either side (an approximation: the halo absorbs the rays that leave the slab)",
                  job->size, threads ? threads : "unset", sh->grid.nz, halo);
  else
    ctr_mpi_note (job, "MPI: %d ranks (OMP_NUM_THREADS %s), contiguous blocks of the %u slices, one system matrix "
                  "per rank (MemXCT: the matrix replicated, the slices distributed)",
                  job->size, threads ? threads : "unset", sh->grid.nz);
  for (int r = 0; r < job->size; r++)
    ctr_mpi_note (job, "  rank %d: slices %u-%u (%u)%s%u detector rows from %u; plan %.2f s%s", r, s[r].keep.first,
                  s[r].keep.first + s[r].keep.count - 1, s[r].keep.count,
                  halo > 0 ? ", slab with halo " : ", ", s[r].rows.count, s[r].rows.first, setup[2 * r],
                  setup[2 * r + 1] > 0 ? ", matrix from the cache" : "");
}

gboolean
ctr_mpi_run_stack (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *sh, CtrVolume **result, GError **error)
{
  const CtrGeometry *g = sh->geometry;
  const int size = job->size, me = job->rank;
  g_autofree Share *s = g_new0 (Share, size);
  guint halo = 0;
  GError *e = NULL;
  if ((guint) size > sh->grid.nz)
    g_set_error (&e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%d ranks for %u slices: give at most one rank per slice",
                 size, sh->grid.nz);
  else
    plan_shares (sh, size, s, &halo);
  const Share my = s[me];

  /* Allocate every share before anything moves. */
  g_autoptr (CtrGeometry) my_g = NULL;
  g_autoptr (CtrProjections) my_p = NULL;
  g_autoptr (CtrVolume) ref_full = NULL, ref_part = NULL, whole = NULL;
  CtrGrid my_grid = { 0 };
  if (e == NULL)
    {
      my_g = ctr_mpi_geometry_rows (g, my.rows.first, my.rows.count, &e);
      my_grid = ctr_mpi_grid_slices (&sh->grid, my.slab.first, my.slab.count);
      if (my_g != NULL && job->reader == NULL)
        my_p = ctr_projections_new (g->n_views, my.rows.count, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &e);
      if (my_p != NULL && sh->has_mask)
        my_p->mask = ctr_memory_try_new ((gsize) my.rows.count * g->n_cols, 1, FALSE,
                                         "this rank's rows of the dead-pixel mask", &e);
    }
  if (e == NULL && sh->has_reference)
    {
      CtrGrid kg = ctr_mpi_grid_slices (&sh->grid, my.keep.first, my.keep.count);
      ref_part = ctr_volume_new (&kg, &e);
      /* Refused before the run when it cannot measure quality
       * (ctr_reference_check, as a plan's execute does). */
      if (e == NULL && me == 0
          && (ref_full = ctr_volume_resample (in->reference, &sh->grid,
                                              g->beam == CTR_BEAM_CONE ? CTR_RESAMPLE_VOLUME : CTR_RESAMPLE_SLICES,
                                              &e)) != NULL
          && !ctr_reference_check (ref_full, &e))
        g_clear_pointer (&ref_full, ctr_volume_unref);
    }
  if (e == NULL && me == 0)
    {
      whole = ctr_volume_new (&sh->grid, &e);
      if (whole != NULL)
        ctr_volume_set_unit (whole, g->pixel_size_known ? "1/mm" : "1/pixel");
    }
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_SHARE, &e, error))
    return FALSE;

  /* Move the shares. */
  g_autofree CtrMpiBlock *rows = g_new (CtrMpiBlock, size), *keep = g_new (CtrMpiBlock, size);
  for (int r = 0; r < size; r++)
    {
      rows[r] = s[r].rows;
      keep[r] = s[r].keep;
    }
  double t[4];   /* seconds: scatter (or read), plan, run, gather */
  gint64 t0 = g_get_monotonic_time ();
  if (job->reader != NULL)
    {
      if (!ctr_mpi_read_share (job, CTR_DATASET_ROWS, rows, &my_p, error))
        return FALSE;
    }
  else
    ctr_mpi_scatter_rows (job, me == 0 ? in->projections : NULL, rows, my_p);
  StackRun run = { .job = job, .ref_part = ref_part,
                   .keep_offset = my.keep.first - my.slab.first, .nz_total = sh->grid.nz,
                   .radius_mm = sh->options.metrics_radius_mm };
  if (sh->has_reference)
    {
      if (me == 0)
        {
          float lo, hi;
          ctr_volume_range (ref_full, &lo, &hi);
          run.data_range = (double) hi - (double) lo;
        }
      MPI_Bcast (&run.data_range, 1, MPI_DOUBLE, 0, job->comm);
      ctr_mpi_gather_slices (job, ref_part->data, me == 0 ? ref_full->data : NULL, ctr_grid_slice_size (&sh->grid),
                             keep, TRUE);
      g_clear_pointer (&ref_full, ctr_volume_unref);
    }
  t[0] = (g_get_monotonic_time () - t0) / 1e6;

  /* Plan (the node's first rank first), then run. */
  t0 = g_get_monotonic_time ();
  g_autoptr (CtrReconPlan) plan = plan_in_turn (job, my_g, &my_grid, &sh->options, error);
  if (plan == NULL)
    return FALSE;
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  t[1] = (g_get_monotonic_time () - t0) / 1e6;
  double mine[2] = { info.setup_s, info.from_cache ? 1 : 0 };
  g_autofree double *setup = g_new (double, 2 * size);
  MPI_Gather (mine, 2, MPI_DOUBLE, setup, 2, MPI_DOUBLE, 0, job->comm);
  g_autofree char *devices = ctr_mpi_gather_devices (job, ctr_recon_plan_get_backend (plan));
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n != NULL; n++)
    ctr_mpi_note (job, "%s", *n);
  describe (job, sh, s, halo, setup);
  t0 = g_get_monotonic_time ();
  g_autoptr (CtrVolume) img = ctr_recon_plan_execute (plan, my_p, NULL, on_iteration, &run, job->inner, &e);
  t[2] = (g_get_monotonic_time () - t0) / 1e6;
  g_autoptr (CtrVolume) part = NULL;
  if (img != NULL)
    part = my.keep.count == my.slab.count ? ctr_volume_ref (img) : kept_slices (img, run.keep_offset, my.keep.count);
  if (img != NULL && part == NULL)
    g_set_error (&e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot keep the slab's slices");
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_DONE, &e, error))
    return FALSE;
  t0 = g_get_monotonic_time ();
  ctr_mpi_gather_slices (job, part->data, me == 0 ? whole->data : NULL, ctr_grid_slice_size (&sh->grid), keep, FALSE);
  t[3] = (g_get_monotonic_time () - t0) / 1e6;
  g_autofree double *times = g_new (double, 4 * size);
  MPI_Gather (t, 4, MPI_DOUBLE, times, 4, MPI_DOUBLE, 0, job->comm);
  for (int r = 0; r < size; r++)
    ctr_mpi_note (job, "  rank %d: %s %.3f s, plan %.3f s (its matrix %.3f s), run %.3f s, gather %.3f s; %s",
                  r, job->reader != NULL ? "read" : "scatter", times[4 * r], times[4 * r + 1], setup[2 * r], times[4 * r + 2], times[4 * r + 3],
                  devices + (gsize) r * CTR_MPI_DEVICE_LEN);
  if (me == 0)
    *result = g_steal_pointer (&whole);
  return TRUE;
}
