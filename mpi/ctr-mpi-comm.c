/* ctr-mpi-comm.c — moving the inputs and the shares between the ranks (see
 * ctr-mpi-private.h).  Shares of many slices or views travel as one element
 * of an MPI datatype per slice or view, so no count overflows an int. */
#include "ctr-mpi-private.h"
#include "data/ctr-geometry-vectors.h"
#include "plan/ctr-backend.h"

#include <string.h>

void
ctr_mpi_share_inputs (CtrMpiJob *job, const CtrMpiInput *in, CtrMpiShared *out)
{
  memset (out, 0, sizeof *out);
  CtrGeometry g = { 0 };
  char backend[16] = { 0 };
  int has_reference = 0;
  if (job->rank == 0)
    {
      g = *in->geometry;
      out->grid = in->grid;
      out->options = in->options;
      if (in->options.backend != NULL)
        g_strlcpy (backend, in->options.backend, sizeof backend);
      has_reference = in->reference != NULL;
    }
  MPI_Bcast (&g, sizeof g, MPI_BYTE, 0, job->comm);
  MPI_Bcast (&out->grid, sizeof out->grid, MPI_BYTE, 0, job->comm);
  MPI_Bcast (&out->options, sizeof out->options, MPI_BYTE, 0, job->comm);
  MPI_Bcast (backend, sizeof backend, MPI_CHAR, 0, job->comm);
  MPI_Bcast (&has_reference, 1, MPI_INT, 0, job->comm);
  out->geometry = ctr_geometry_new (g.beam, g.n_views);
  double *angles = out->geometry->angles;
  *out->geometry = g;
  out->geometry->angles = angles;
  if (job->rank == 0)
    memcpy (angles, in->geometry->angles, g.n_views * sizeof (double));
  MPI_Bcast (angles, (int) g.n_views, MPI_DOUBLE, 0, job->comm);
  /* Per-view vectors (a pointer of rank 0's: only whether it is set travels). */
  out->geometry->vectors = NULL;
  if (g.vectors != NULL)
    {
      const gsize n = (gsize) g.n_views * CTR_GEOMETRY_VECTOR_LEN;
      out->geometry->vectors = g_new (double, n);
      if (job->rank == 0)
        memcpy (out->geometry->vectors, in->geometry->vectors, n * sizeof (double));
      MPI_Datatype view;  /* one view's 12 doubles: no count overflows an int */
      MPI_Type_contiguous (CTR_GEOMETRY_VECTOR_LEN, MPI_DOUBLE, &view);
      MPI_Type_commit (&view);
      MPI_Bcast (out->geometry->vectors, (int) g.n_views, view, 0, job->comm);
      MPI_Type_free (&view);
    }
  /* A helix's source z and focal-spot shifts, likewise (1 and 3 per view). */
  double **motion[2] = { &out->geometry->source_z_mm, &out->geometry->focal_shift };
  const double *given[2] = { g.source_z_mm, g.focal_shift };
  for (guint m = 0; m < 2; m++)
    {
      *motion[m] = NULL;
      if (given[m] == NULL)
        continue;
      const int per_view = m == 0 ? 1 : 3;
      *motion[m] = g_new (double, (gsize) g.n_views * per_view);
      if (job->rank == 0)
        memcpy (*motion[m], m == 0 ? in->geometry->source_z_mm : in->geometry->focal_shift,
                (gsize) g.n_views * per_view * sizeof (double));
      MPI_Datatype view;
      MPI_Type_contiguous (per_view, MPI_DOUBLE, &view);
      MPI_Type_commit (&view);
      MPI_Bcast (*motion[m], (int) g.n_views, view, 0, job->comm);
      MPI_Type_free (&view);
    }
  /* The options hold a static backend name (ctr-recon-types.h). */
  static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };
  out->options.backend = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_str_equal (backend, names[i]))
      out->options.backend = names[i];
  out->has_reference = has_reference;
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
  int has_mask = job->rank == 0 && p->mask != NULL;
  MPI_Bcast (&has_mask, 1, MPI_INT, 0, job->comm);
  const gsize nc = mine->n_cols, mine_view = (gsize) rows[job->rank].count * nc;
  if (has_mask)
    mine->mask = g_new (guint8, mine_view);
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
ctr_mpi_gather_devices (CtrMpiJob *job, const char *backend)
{
  char mine[CTR_MPI_DEVICE_LEN] = "";
  const CtrBackend *b = backend != NULL ? ctr_backend_by_name (backend, NULL) : NULL;
  g_autofree char *device = b != NULL && b->device_name != NULL ? b->device_name (b) : NULL;
  g_snprintf (mine, sizeof mine, "%s%s%s", backend != NULL ? backend : "cpu", device != NULL ? " on " : "",
              device != NULL ? device : "");
  char *all = job->rank == 0 ? g_malloc0 ((gsize) job->size * CTR_MPI_DEVICE_LEN) : NULL;
  MPI_Gather (mine, CTR_MPI_DEVICE_LEN, MPI_CHAR, all, CTR_MPI_DEVICE_LEN, MPI_CHAR, 0, job->comm);
  return all;
}
