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
 */
#include "ctr-mpi-private.h"
#include "data/ctr-geometry-vectors.h"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include "analytic/ctr-fdk.h"

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
      && (slab = ctr_volume_new (&slab_grid, &e)) != NULL && me == 0)
    whole = ctr_volume_new (&sh->grid, &e);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_SHARE, &e, error))
    return FALSE;

  /* Filter this rank's views (iFDK: each rank of a column its 1/R). */
  if (job->reader != NULL)
    {
      if (!ctr_mpi_read_share (job, CTR_DATASET_VIEWS, filter, &raw, error))
        return FALSE;
    }
  else
    ctr_mpi_scatter_views (job, me == 0 ? in->projections : NULL, filter, raw);
  double t[4];
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrProjections) filtered = ctr_fdk_filter_views (g, raw, filter[me].first, sh->options.window,
                                                              sh->options.cutoff, job->inner, &e);
  t[0] = (g_get_monotonic_time () - t0) / 1e6;
  g_clear_pointer (&raw, ctr_projections_unref);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_FILTERED, &e, error))
    return FALSE;

  /* All-gather the group's filtered views in the column. */
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

  /* Back-project the group's views into this rank's slab. */
  t0 = g_get_monotonic_time ();
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
      g_autofree double *times = g_new (double, 4 * size);
      MPI_Gather (t, 4, MPI_DOUBLE, times, 4, MPI_DOUBLE, 0, job->comm);
      if (me == 0)
        {
          const char *threads = g_getenv ("OMP_NUM_THREADS");
          ctr_mpi_note (job, "MPI: %d ranks (OMP_NUM_THREADS %s), iFDK grid of %d z-slab%s × %d view "
                                                   "group%s (§4.1.1): each rank filters 1/%d of its group's views, "
                                                   "back-projects the group into its slab; slabs summed over groups",
                                                   size, threads ? threads : "unset", R, R == 1 ? "" : "s", C,
                                                   C == 1 ? "" : "s", R);
          for (int k = 0; k < size; k++)
            {
              const CtrMpiBlock gk = ctr_mpi_block (g->n_views, (guint) C, (guint) (k / R));
              const CtrMpiBlock sk = slabs[k % R];
              ctr_mpi_note (job, "  rank %d: filters views %u-%u, back-projects views %u-%u into "
                                                       "slices %u-%u; filter %.3f s, all-gather %.3f s, "
                                                       "back-projection %.3f s, reduce+gather %.3f s",
                                                       k, filter[k].first, filter[k].first + filter[k].count - 1,
                                                       gk.first, gk.first + gk.count - 1, sk.first,
                                                       sk.first + sk.count - 1, times[4 * k], times[4 * k + 1],
                                                       times[4 * k + 2], times[4 * k + 3]);
            }
        }
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
