/* ctr-mpi-comm.c — moving the inputs and the shares between the ranks (see
 * ctr-mpi-private.h).  Shares of many slices or views travel as one element
 * of an MPI datatype per slice or view, so no count overflows an int. */
#include "ctr-mpi-private.h"
#include "data/ctr-geometry-vectors.h"
#include "plan/ctr-backend.h"
#include "base/ctr-memory.h"

#include <string.h>

/* This rank's copy of @g (rank 0's header, its pointers standing only for
 * whether an array is set): the header and room for every per-view array,
 * or NULL with CTR_ERROR_OUT_OF_MEMORY naming the array. */
static CtrGeometry *
geometry_room (const CtrGeometry *g, GError **error)
{
  g_autofree char *what = g_strdup_printf ("this rank's copy of the geometry's angles of %u views", g->n_views);
  double *angles = ctr_memory_try_new (MAX (g->n_views, 1), sizeof (double), FALSE, what, error);
  if (angles == NULL)
    return NULL;
  CtrGeometry *c = g_memdup2 (g, sizeof *g);
  c->angles = angles;
  c->vectors = c->source_z_mm = c->focal_shift = NULL;
  const struct {
    double **dst;
    gboolean set;
    gsize per_view;
    const char *name;
  } arrays[] = { { &c->vectors, g->vectors != NULL, CTR_GEOMETRY_VECTOR_LEN, "vectors" },
                 { &c->source_z_mm, g->source_z_mm != NULL, 1, "source z" },
                 { &c->focal_shift, g->focal_shift != NULL, 3, "focal-spot shifts" } };
  for (guint a = 0; a < G_N_ELEMENTS (arrays); a++)
    if (arrays[a].set)
      {
        g_autofree char *name = g_strdup_printf ("this rank's copy of the geometry's %s of %u views", arrays[a].name,
                                                 g->n_views);
        *arrays[a].dst = ctr_memory_try_new (g->n_views, arrays[a].per_view * sizeof (double), FALSE, name, error);
        if (*arrays[a].dst == NULL)
          {
            ctr_geometry_free (c);
            return NULL;
          }
      }
  return c;
}

/* Collective: broadcasts @n_views items of @per_view doubles (one element
 * of an MPI datatype a view: no count overflows an int) from rank 0. */
static void
bcast_views (CtrMpiJob *job, double *data, guint n_views, int per_view)
{
  MPI_Datatype view;
  MPI_Type_contiguous (per_view, MPI_DOUBLE, &view);
  MPI_Type_commit (&view);
  MPI_Bcast (data, (int) n_views, view, 0, job->comm);
  MPI_Type_free (&view);
}

gboolean
ctr_mpi_share_inputs (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *out, GError **error)
{
  memset (out, 0, sizeof *out);
  CtrGeometry g = { 0 };
  char backend[16] = { 0 };
  int flags[2] = { 0, 0 };   /* a reference; a dead-pixel mask */
  if (job->rank == 0)
    {
      g = *in->geometry;
      out->grid = in->grid;
      out->options = in->options;
      if (in->options.backend != NULL)
        g_strlcpy (backend, in->options.backend, sizeof backend);
      flags[0] = in->reference != NULL;
      flags[1] = in->projections != NULL && in->projections->mask != NULL;
    }
  MPI_Bcast (&g, sizeof g, MPI_BYTE, 0, job->comm);
  MPI_Bcast (&out->grid, sizeof out->grid, MPI_BYTE, 0, job->comm);
  MPI_Bcast (&out->options, sizeof out->options, MPI_BYTE, 0, job->comm);
  MPI_Bcast (backend, sizeof backend, MPI_CHAR, 0, job->comm);
  MPI_Bcast (flags, 2, MPI_INT, 0, job->comm);
  /* Every rank makes room for its copy, then all learn whether every rank
   * could before anything large moves. */
  GError *local = NULL;
  out->geometry = geometry_room (&g, &local);
  if (!ctr_mpi_settle (job, CTR_MPI_PHASE_GEOMETRY, &local, error))
    {
      ctr_mpi_shared_clear (out);
      return FALSE;
    }
  CtrGeometry *c = out->geometry;
  const gsize n = g.n_views;
  if (job->rank == 0)
    {
      memcpy (c->angles, in->geometry->angles, MAX (n, 1) * sizeof (double));
      if (c->vectors != NULL)
        memcpy (c->vectors, in->geometry->vectors, n * CTR_GEOMETRY_VECTOR_LEN * sizeof (double));
      if (c->source_z_mm != NULL)
        memcpy (c->source_z_mm, in->geometry->source_z_mm, n * sizeof (double));
      if (c->focal_shift != NULL)
        memcpy (c->focal_shift, in->geometry->focal_shift, n * 3 * sizeof (double));
    }
  MPI_Bcast (c->angles, (int) g.n_views, MPI_DOUBLE, 0, job->comm);
  if (c->vectors != NULL)
    bcast_views (job, c->vectors, g.n_views, CTR_GEOMETRY_VECTOR_LEN);
  if (c->source_z_mm != NULL)
    bcast_views (job, c->source_z_mm, g.n_views, 1);
  if (c->focal_shift != NULL)
    bcast_views (job, c->focal_shift, g.n_views, 3);
  /* The options hold a static backend name (ctr-recon-types.h). */
  static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };
  out->options.backend = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (backend, names[i]))
      out->options.backend = names[i];
  out->has_reference = flags[0];
  out->has_mask = flags[1];
  return TRUE;
}

void
ctr_mpi_shared_clear (CtrMpiShared *s)
{
  g_clear_pointer (&s->geometry, ctr_geometry_free);
}

CtrGeometry *
ctr_mpi_geometry_rows (const CtrGeometry *g, guint first, guint count, GError **error)
{
  CtrGeometry *s = ctr_geometry_try_copy (g, error);
  if (s == NULL)
    return NULL;
  /* v of row i: sign · (i − (n−1)/2) · pitch + offset (ctr_geometry_row_v). */
  const double sign = g->rows_increase_with_v ? 1.0 : -1.0;
  const double shift = first + (count - 1) * 0.5 - (g->n_rows - 1) * 0.5;
  s->n_rows = count;
  s->offset_v_mm = g->offset_v_mm + sign * shift * g->pitch_v_mm;
  /* Vectors: the detector centre moves by as many row steps. */
  for (guint k = 0; s->vectors != NULL && g->beam == CTR_BEAM_CONE && k < g->n_views; k++)
    {
      double *w = s->vectors + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      for (int c = 0; c < 3; c++)
        w[3 + c] += shift * w[9 + c];
    }
  return s;
}

CtrGeometry *
ctr_mpi_geometry_views (const CtrGeometry *g, guint first, guint count, GError **error)
{
  return ctr_geometry_select_views (g, first, count, error);
}

CtrGrid
ctr_mpi_grid_slices (const CtrGrid *grid, guint first, guint count)
{
  CtrGrid s = *grid;
  s.nz = count;
  s.cz = ctr_grid_z (grid, first + (count - 1) * 0.5);
  return s;
}

void
ctr_mpi_scatter_rows (CtrMpiJob *job, const CtrProjections *p, const CtrMpiBlock *rows, CtrProjections *mine)
{
  const int tag = 16;
  const gboolean has_mask = mine->mask != NULL;
  const gsize nc = mine->n_cols, mine_view = (gsize) rows[job->rank].count * nc;
  if (job->rank == 0)
    {
      const gsize per_view = (gsize) p->n_rows * nc;
      for (int r = 0; r < job->size; r++)
        {
          const CtrMpiBlock b = rows[r];
          const float *src = p->data + (gsize) b.first * nc;
          if (r == 0)
            {
              for (guint v = 0; v < p->n_views; v++)
                memcpy (mine->data + v * mine_view, src + v * per_view, mine_view * sizeof (float));
              if (has_mask)
                memcpy (mine->mask, p->mask + (gsize) b.first * nc, mine_view);
              continue;
            }
          MPI_Datatype t;
          MPI_Type_vector ((int) p->n_views, (int) (b.count * nc), (int) per_view, MPI_FLOAT, &t);
          MPI_Type_commit (&t);
          MPI_Send (src, 1, t, r, tag, job->comm);
          MPI_Type_free (&t);
          if (has_mask)
            MPI_Send (p->mask + (gsize) b.first * nc, (int) (b.count * nc), MPI_UNSIGNED_CHAR, r, tag + 1, job->comm);
        }
      return;
    }
  MPI_Datatype view;
  MPI_Type_contiguous ((int) mine_view, MPI_FLOAT, &view);
  MPI_Type_commit (&view);
  MPI_Recv (mine->data, (int) mine->n_views, view, 0, tag, job->comm, MPI_STATUS_IGNORE);
  MPI_Type_free (&view);
  if (has_mask)
    MPI_Recv (mine->mask, (int) mine_view, MPI_UNSIGNED_CHAR, 0, tag + 1, job->comm, MPI_STATUS_IGNORE);
}

/* Counts and displacements (in elements) of the blocks. */
static void
block_counts (const CtrMpiBlock *b, int size, int *counts, int *displs)
{
  for (int r = 0; r < size; r++)
    {
      counts[r] = (int) b[r].count;
      displs[r] = (int) b[r].first;
    }
}

void
ctr_mpi_scatter_views (CtrMpiJob *job, const CtrProjections *p, const CtrMpiBlock *views, CtrProjections *mine)
{
  MPI_Datatype view;
  MPI_Type_contiguous ((int) ((gsize) mine->n_rows * mine->n_cols), MPI_FLOAT, &view);
  MPI_Type_commit (&view);
  g_autofree int *counts = g_new (int, job->size), *displs = g_new (int, job->size);
  block_counts (views, job->size, counts, displs);
  MPI_Scatterv (job->rank == 0 ? p->data : NULL, counts, displs, view, mine->data, (int) mine->n_views, view, 0,
                job->comm);
  MPI_Type_free (&view);
}

void
ctr_mpi_gather_slices (CtrMpiJob *job, const float *part, float *whole, gsize slice_size,
                       const CtrMpiBlock *slices, gboolean scatter)
{
  MPI_Datatype slice;
  MPI_Type_contiguous ((int) slice_size, MPI_FLOAT, &slice);
  MPI_Type_commit (&slice);
  g_autofree int *counts = g_new (int, job->size), *displs = g_new (int, job->size);
  block_counts (slices, job->size, counts, displs);
  const int mine = (int) slices[job->rank].count;
  if (scatter)
    MPI_Scatterv (whole, counts, displs, slice, (float *) part, mine, slice, 0, job->comm);
  else
    MPI_Gatherv (part, mine, slice, whole, counts, displs, slice, 0, job->comm);
  MPI_Type_free (&slice);
}

char *
ctr_mpi_gather_lines (CtrMpiJob *job, const char *line)
{
  char mine[CTR_MPI_DEVICE_LEN] = "";
  g_strlcpy (mine, line, sizeof mine);
  char *all = job->rank == 0 ? g_malloc0 ((gsize) job->size * CTR_MPI_DEVICE_LEN) : NULL;
  MPI_Gather (mine, CTR_MPI_DEVICE_LEN, MPI_CHAR, all, CTR_MPI_DEVICE_LEN, MPI_CHAR, 0, job->comm);
  return all;
}

char *
ctr_mpi_gather_devices (CtrMpiJob *job, const char *backend)
{
  const CtrBackend *b = backend != NULL ? ctr_backend_by_name (backend, NULL) : NULL;
  g_autofree char *device = b != NULL && b->device_name != NULL ? b->device_name (b) : NULL;
  g_autofree char *mine = g_strdup_printf ("%s%s%s", backend != NULL ? backend : "cpu", device != NULL ? " on " : "",
                                           device != NULL ? device : "");
  return ctr_mpi_gather_lines (job, mine);
}
