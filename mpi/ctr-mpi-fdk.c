/* ctr-mpi-fdk.c — FDK across ranks after iFDK §4.1.1 (Chen et al., SC19,
 * ../shared/papers/ifdk-sc19.txt, Fig. 3).
 *
 * The ranks form an R × C grid (rank = c·R + r):
 *
 *             view group c = 0    c = 1   …  C − 1
 *   slab r = 0   rank 0          rank R
 *   slab r = 1   rank 1          rank R+1
 *     …
 *
 * Rank (r, c) filters 1/R of view group c (ctr_fdk_filter_views: the
 * weights of the whole scan), the R ranks of a group all-gather their
 * filtered views (MPI_Allgatherv in the column), each back-projects its
 * group's views into slab r, and the C partial slabs of a slab are summed
 * (MPI_Reduce in the row, iFDK's single reduction); the slabs are gathered
 * on rank 0.  R is the smallest divisor of the rank count whose slab, with a
 * group's filtered views, fits in half the memory a rank has on its node
 * (iFDK §4.1.5: as few slabs as memory allows, so that views, the cost that
 * scales, are split C ways); CTR_MPI_SLABS sets it.
 *
 * On GPUs (the options' backend has an FDK, ctr_backend_fdk, and a device
 * answers on some rank): each rank drives its own device (the node-local
 * rank's, chosen when the program started MPI) and the column all-gathers
 * the group's views unfiltered (dead pixels filled, as the filter does);
 * every rank filters and back-projects its group into its slab on its
 * device (CtrBackendRunFdk with the group's first view: the whole scan's
 * weights), so filtering, cheap beside the back-projection, is done R
 * times.  A rank without a device, or whose device cannot run it (too
 * little memory, a failed call), does the same on its CPU and says why.
 * The notes name the device of every rank.
 */
#include "ctr-mpi-private.h"
#include "data/ctr-geometry-vectors.h"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include "analytic/ctr-fdk.h"
#include "plan/ctr-backend.h"

/* iFDK §4.1.5: the fewest slabs that fit. */
static int
choose_slabs (CtrMpiJob *job, const CtrMpiShared *sh)
{
  const char *env = g_getenv ("CTR_MPI_SLABS");
  if (env != NULL && *env != '\0')
    {
      const int r = (int) g_ascii_strtoll (env, NULL, 10);
      if (r >= 1 && job->size % r == 0 && (guint) r <= sh->grid.nz)
        return r;
    }
  MPI_Comm node;
  MPI_Comm_split_type (job->comm, MPI_COMM_TYPE_SHARED, job->rank, MPI_INFO_NULL, &node);
  int per_node = 1;
  MPI_Comm_size (node, &per_node);
  MPI_Comm_free (&node);
  const double mem = (double) sysconf (_SC_PHYS_PAGES) * (double) sysconf (_SC_PAGESIZE);
  const double budget = 0.5 * mem / per_node;
  const CtrGeometry *g = sh->geometry;
  const double vol = 4.0 * ctr_grid_size (&sh->grid), view = 4.0 * g->n_rows * g->n_cols;
  int best = job->size;
  for (int r = job->size; r >= 1; r--)
    if (job->size % r == 0 && (guint) r <= sh->grid.nz
        && vol / r + view * g->n_views / (job->size / r) <= budget)
      best = r;
  /* Every rank must use the same R: the rank with the least memory per
   * rank decides (the largest of the ranks' choices). */
  int out = best;
  MPI_Allreduce (&best, &out, 1, MPI_INT, MPI_MAX, job->comm);
  return out;
}

/* Sums @n floats of every row rank into the row's rank c = 0, in chunks
 * (MPI counts are ints; MPI_SUM works on predefined types only). */
static void
reduce_floats (MPI_Comm comm, int me, float *data, gsize n)
{
  const gsize chunk = (gsize) 1 << 28;
  for (gsize o = 0; o < n; o += chunk)
    {
      const int c = (int) MIN (chunk, n - o);
      if (me == 0)
        MPI_Reduce (MPI_IN_PLACE, data + o, c, MPI_FLOAT, MPI_SUM, 0, comm);
      else
        MPI_Reduce (data + o, NULL, c, MPI_FLOAT, MPI_SUM, 0, comm);
    }
}

/* Where this rank runs its FDK: the options' backend's FDK (NULL: the
 * CPU's) and, for the notes, "cuda on <device> (device 1 of 2)" or
 * "cpu (<why not the device>)". */
typedef struct {
  const CtrBackend *backend;  /* nullable */
  CtrBackendRunFdk fdk;       /* nullable: the CPU */
  char where[CTR_MPI_DEVICE_LEN];
} RankFdk;

static void
rank_fdk (const CtrReconOptions *o, RankFdk *d)
{
  g_autofree char *why = NULL;
  const CtrBackend *b = ctr_backend_select (o->backend, &why, NULL);
  *d = (RankFdk) { 0 };
  if (b != NULL && b != ctr_backend_cpu ())
    {
      d->fdk = ctr_backend_fdk (b);
      if (d->fdk != NULL)
        d->backend = b;
      else
        why = g_strdup_printf ("backend %s has no FDK", b->name);
    }
  g_autofree char *device = d->backend != NULL && b->device_name != NULL ? b->device_name (b) : NULL;
  if (d->backend != NULL)
    g_snprintf (d->where, sizeof d->where, "%s on %s", b->name, device != NULL ? device : "its device");
  else
    g_snprintf (d->where, sizeof d->where, "cpu%s%s%s", why != NULL ? " (" : "", why != NULL ? why : "",
                why != NULL ? ")" : "");
}

/* FDK of the group's unfiltered views @q (views @first … of @g; @group_g
 * their geometry) into a new volume on @slab_grid: on @d's device, or on
 * the CPU when it has none or its device cannot run it (then @d says why). */
static CtrVolume *
group_fdk (RankFdk *d, const CtrGeometry *g, guint first, const CtrGeometry *group_g, const CtrProjections *q,
           const CtrGrid *slab_grid, const CtrReconOptions *o, GCancellable *cancellable, GError **error)
{
  if (d->fdk != NULL)
    {
      GError *e = NULL;
      CtrVolume *v = d->fdk (d->backend, g, first, q, slab_grid, o, NULL, cancellable, &e);
      if (v != NULL)
        return v;
      if (!ctr_error_cpu_may_run_instead (e))
        {
          g_propagate_error (error, e);
          return NULL;
        }
      g_snprintf (d->where, sizeof d->where, "cpu (FDK on %s could not run: %s)", d->backend->name, e->message);
      g_error_free (e);
      d->fdk = NULL;
    }
  g_autoptr (CtrProjections) f = ctr_fdk_filter_views (g, q, first, o->window, o->cutoff, cancellable, error);
  g_autoptr (CtrVolume) v = f != NULL ? ctr_volume_new (slab_grid, error) : NULL;
  if (v == NULL || !ctr_fdk_backproject (group_g, f, v, cancellable, error))
    return NULL;
  return g_steal_pointer (&v);
}

/* Collective: rank 0 notes the grid and every rank's views, slices,
 * device (@where, this rank's) and seconds (@t: 4, this rank's). */
static void
report_ranks (CtrMpiJob *job, const CtrGeometry *g, int R, const CtrMpiBlock *filter,
              const CtrMpiBlock *slabs, gboolean unfiltered, const char *where, const double *t)
{
  const int size = job->size, C = size / R;
  g_autofree double *times = g_new (double, 4 * size);
  MPI_Gather (t, 4, MPI_DOUBLE, times, 4, MPI_DOUBLE, 0, job->comm);
  g_autofree char *devices = ctr_mpi_gather_lines (job, where);
  if (job->rank != 0)
    return;
  const char *threads = g_getenv ("OMP_NUM_THREADS");
  ctr_mpi_note (job, "MPI: %d ranks (OMP_NUM_THREADS %s), iFDK grid of %d z-slab%s × %d view group%s (§4.1.1): %s",
                size, threads ? threads : "unset", R, R == 1 ? "" : "s", C, C == 1 ? "" : "s",
                unfiltered ? "each rank reads its share of its group's views, the group's views are all-gathered "
                             "unfiltered, each rank filters and back-projects them into its slab on its own device; "
                             "slabs summed over groups"
                           : "each rank filters its share of its group's views, back-projects the group into its "
                             "slab; slabs summed over groups");
  for (int k = 0; k < size; k++)
    {
      const CtrMpiBlock gk = ctr_mpi_block (g->n_views, (guint) C, (guint) (k / R));
      const CtrMpiBlock sk = slabs[k % R];
      ctr_mpi_note (job, "  rank %d: %s views %u-%u, %s views %u-%u into slices %u-%u; %s %.3f s, all-gather %.3f s, "
                    "%s %.3f s, reduce+gather %.3f s; %s",
                    k, unfiltered ? "takes" : "filters", filter[k].first, filter[k].first + filter[k].count - 1,
                    unfiltered ? "filters and back-projects" : "back-projects", gk.first, gk.first + gk.count - 1,
                    sk.first, sk.first + sk.count - 1, unfiltered ? "dead-pixel fill" : "filter", times[4 * k],
                    times[4 * k + 1], unfiltered ? "filter+back-projection" : "back-projection", times[4 * k + 2],
                    times[4 * k + 3], devices + (gsize) k * CTR_MPI_DEVICE_LEN);
    }
}

gboolean
ctr_mpi_run_fdk (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *sh, CtrVolume **result, GError **error)
{
  const gint64 t_start = g_get_monotonic_time ();
  const int size = job->size, me = job->rank;
  GError *e = NULL;
  /* Per-view vectors: FDK runs on their circular description, or refuses. */
  g_autoptr (CtrGeometry) circular = NULL;
  if (ctr_geometry_has_vectors (sh->geometry))
    circular = ctr_geometry_circular_from_vectors (sh->geometry, NULL, &e);
  const CtrGeometry *g = circular != NULL ? circular : sh->geometry;
  if (e == NULL && ctr_fdk_check_geometry (g, &e) && ctr_grid_validate (&sh->grid, &e)
      && (me != 0 || job->reader != NULL || ctr_fdk_check_input (g, in->projections, &e))
      && (guint) size > g->n_views)
    g_set_error (&e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%d ranks for %u views: give at most one rank per view",
                 size, g->n_views);
  /* Rank 0's reference on the grid, refused before the run when it cannot
   * measure quality (ctr_reference_check, as a plan's execute does). */
  g_autoptr (CtrVolume) ref = NULL;
  if (e == NULL && me == 0 && in->reference != NULL)
    {
      ref = ctr_volume_resample (in->reference, &sh->grid, CTR_RESAMPLE_VOLUME, &e);
      if (ref != NULL && !ctr_reference_check (ref, &e))
        g_clear_pointer (&ref, ctr_volume_unref);
    }
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_PLAN, &e, error))
    return FALSE;
  const int R = choose_slabs (job, sh), C = size / R, r = me % R, c = me / R;
  /* Devices: when one rank has one, the column exchanges unfiltered views. */
  RankFdk dev;
  rank_fdk (&sh->options, &dev);
  int on_device = dev.fdk != NULL, unfiltered = 0;
  MPI_Allreduce (&on_device, &unfiltered, 1, MPI_INT, MPI_MAX, job->comm);

  /* Shares: the views each rank filters (ascending with the rank), the
   * group's views, the slabs. */
  g_autofree CtrMpiBlock *filter = g_new (CtrMpiBlock, size), *slabs = g_new (CtrMpiBlock, R);
  g_autofree CtrMpiBlock *in_group = g_new (CtrMpiBlock, R);
  const CtrMpiBlock group = ctr_mpi_block (g->n_views, (guint) C, (guint) c);
  for (int k = 0; k < size; k++)
    {
      const CtrMpiBlock gk = ctr_mpi_block (g->n_views, (guint) C, (guint) (k / R));
      const CtrMpiBlock sub = ctr_mpi_block (gk.count, (guint) R, (guint) (k % R));
      filter[k] = (CtrMpiBlock) { gk.first + sub.first, sub.count };
    }
  for (int k = 0; k < R; k++)
    {
      slabs[k] = ctr_mpi_block (sh->grid.nz, (guint) R, (guint) k);
      in_group[k] = ctr_mpi_block (group.count, (guint) R, (guint) k);
    }
  const CtrGrid slab_grid = ctr_mpi_grid_slices (&sh->grid, slabs[r].first, slabs[r].count);
  g_autoptr (CtrProjections) raw = NULL, q = NULL;
  g_autoptr (CtrVolume) slab = NULL, whole = NULL;
  g_autoptr (CtrGeometry) group_g = ctr_mpi_geometry_views (g, group.first, group.count, &e);
  if (group_g != NULL
      && (job->reader != NULL
          || (raw = ctr_projections_new (filter[me].count, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &e)) != NULL)
      && (q = ctr_projections_new (group.count, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &e)) != NULL
      && (unfiltered || (slab = ctr_volume_new (&slab_grid, &e)) != NULL) && me == 0)
    whole = ctr_volume_new (&sh->grid, &e);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_SHARE, &e, error))
    return FALSE;

  /* Filter this rank's views (iFDK: each rank of a column its 1/R); on
   * devices only fill their dead pixels. */
  if (job->reader != NULL)
    {
      if (!ctr_mpi_read_share (job, CTR_DATASET_VIEWS, filter, &raw, error))
        return FALSE;
    }
  else
    ctr_mpi_scatter_views (job, me == 0 ? in->projections : NULL, filter, raw);
  double t[4];
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrProjections) filtered = unfiltered ? ctr_projections_filled (raw, &e)
                                                   : ctr_fdk_filter_views (g, raw, filter[me].first, sh->options.window,
                                                                           sh->options.cutoff, job->inner, &e);
  t[0] = (g_get_monotonic_time () - t0) / 1e6;
  g_clear_pointer (&raw, ctr_projections_unref);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_FILTERED, &e, error))
    return FALSE;

  /* All-gather the group's views in the column (filtered, or unfiltered
   * for the devices). */
  t0 = g_get_monotonic_time ();
  MPI_Comm column, row;
  MPI_Comm_split (job->comm, c, r, &column);
  MPI_Comm_split (job->comm, r, c, &row);
  MPI_Datatype view;
  MPI_Type_contiguous ((int) ((gsize) g->n_rows * g->n_cols), MPI_FLOAT, &view);
  MPI_Type_commit (&view);
  g_autofree int *counts = g_new (int, R), *displs = g_new (int, R);
  for (int k = 0; k < R; k++)
    {
      counts[k] = (int) in_group[k].count;
      displs[k] = (int) in_group[k].first;
    }
  MPI_Allgatherv (filtered->data, (int) filtered->n_views, view, q->data, counts, displs, view, column);
  MPI_Type_free (&view);
  g_clear_pointer (&filtered, ctr_projections_unref);
  t[1] = (g_get_monotonic_time () - t0) / 1e6;

  /* Back-project the group's views into this rank's slab (on devices:
   * filter and back-project). */
  t0 = g_get_monotonic_time ();
  if (unfiltered)
    slab = group_fdk (&dev, g, group.first, group_g, q, &slab_grid, &sh->options, job->inner, &e);
  else
    ctr_fdk_backproject (group_g, q, slab, job->inner, &e);
  t[2] = (g_get_monotonic_time () - t0) / 1e6;
  g_clear_pointer (&q, ctr_projections_unref);
  gboolean ok = ctr_mpi_settle (job, CTR_MPI_PHASE_DONE, &e, error);
  if (ok)
    {
      /* One reduction per slab (the row), then the slabs to rank 0. */
      t0 = g_get_monotonic_time ();
      reduce_floats (row, c, slab->data, ctr_grid_size (&slab_grid));
      if (c == 0)
        ctr_mpi_gather_slices (&(CtrMpiJob) { .comm = column, .rank = r, .size = R }, slab->data,
                               me == 0 ? whole->data : NULL, ctr_grid_slice_size (&sh->grid), slabs, FALSE);
      t[3] = (g_get_monotonic_time () - t0) / 1e6;
      report_ranks (job, g, R, filter, slabs, unfiltered, dev.where, t);
    }
  MPI_Comm_free (&column);
  MPI_Comm_free (&row);
  if (!ok)
    return FALSE;
  /* Rank 0 checks the whole image (never a non-finite result) and reports
   * it; every rank hears whether that failed. */
  if (me == 0)
    {
      ctr_volume_set_unit (whole, g->pixel_size_known ? "1/mm" : "1/pixel");
      ctr_iter_report_single_pass (CTR_METHOD_FDK, whole, ref, sh->options.metrics_radius_mm,
                                   (g_get_monotonic_time () - t_start) / 1e6, job->callback, job->user_data, &e);
    }
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_CHECKED_RESULT, &e, error))
    return FALSE;
  if (me == 0)
    *result = g_steal_pointer (&whole);
  return TRUE;
}
