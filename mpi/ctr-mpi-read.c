/* ctr-mpi-read.c — every rank reads its own share of the projections
 * (ctr_dataset_load_part through the caller's CtrMpiReader) instead of
 * rank 0 reading the whole and sending it; the claims check of the whole
 * scan from every rank's sample, judged on rank 0 (see ctr-mpi-private.h).
 */
#include "ctr-mpi-private.h"

#include <string.h>

#define NOTE_LEN 400

/* The first of @shares[@me]'s rows or views that no lower rank holds (the
 * cone slabs' halos overlap their neighbours'; shares rise with the rank
 * or do not overlap). */
static guint
own_first (const CtrDatasetPart *shares, int me)
{
  guint first = shares[me].first;
  for (int k = 0; k < me; k++)
    {
      const guint end = shares[k].first + shares[k].count;
      if (shares[k].first <= first && end > first)
        first = end;
    }
  return first;
}

/* Rank 0: the claims check over every rank's sample, then its dataset's
 * warnings as notes. */
static void
judge_claims (CtrMpiJob *job, CtrDataset *d, const float *mine, int n_mine)
{
  g_autofree int *counts = job->rank == 0 ? g_new0 (int, job->size) : NULL;
  g_autofree int *displs = job->rank == 0 ? g_new0 (int, job->size) : NULL;
  MPI_Gather (&n_mine, 1, MPI_INT, counts, 1, MPI_INT, 0, job->comm);
  gsize total = 0;
  for (int r = 0; job->rank == 0 && r < job->size; r++)
    {
      displs[r] = (int) total;
      total += (gsize) counts[r];
    }
  g_autofree float *all = job->rank == 0 ? g_try_new (float, total + 1) : NULL;
  MPI_Gatherv (mine, n_mine, MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, job->comm);
  if (job->rank != 0 || d == NULL)
    return;
  if (d->claims_pending)
    ctr_dataset_claims_judge (d, all, all != NULL ? total : 0);
  for (guint i = 0; d->warnings != NULL && d->warnings[i] != NULL; i++)
    ctr_mpi_note (job, "warning: %s", d->warnings[i]);
}

/* This rank's share read (NULL with @e set on failure), every rank's
 * read noted and the claims judged on rank 0. */
static CtrProjections *
read_and_note (CtrMpiJob *job, const CtrMpiReader *reader, const CtrDatasetPart *shares, GError **error)
{
  const int me = job->rank;
  GError *e = NULL;
  g_autoptr (CtrDataset) d = reader->read (&shares[me], reader->data, &e);
  char note[NOTE_LEN] = "";
  if (d != NULL)
    g_snprintf (note, sizeof note, "%s", d->read_note != NULL ? d->read_note : "read the whole dataset");
  else
    g_snprintf (note, sizeof note, "read nothing: %s", e->message);
  g_autofree char *notes = me == 0 ? g_malloc0 ((gsize) job->size * NOTE_LEN) : NULL;
  MPI_Gather (note, NOTE_LEN, MPI_CHAR, notes, NOTE_LEN, MPI_CHAR, 0, job->comm);
  for (int r = 0; me == 0 && r < job->size; r++)
    ctr_mpi_note (job, "  rank %d %s", r, notes + (gsize) r * NOTE_LEN);

  /* The claims check: every rank's sample of the rows or views it alone
   * holds (the halos' rows counted once). */
  gsize n = 0;
  g_autofree float *sample = NULL;
  if (d != NULL && d->claims_pending)
    {
      const guint first = own_first (shares, me), end = shares[me].first + shares[me].count;
      sample = ctr_dataset_claims_sample (d, first, end > first ? end - first : 0, &n);
    }
  judge_claims (job, d, sample, (int) MIN (n, (gsize) G_MAXINT));
  if (d == NULL)
    {
      g_propagate_error (error, e);
      return NULL;
    }
  if (d->projections == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "the reader gave no projections");
      return NULL;
    }
  return ctr_projections_ref (d->projections);
}

gboolean
ctr_mpi_read_share (CtrMpiJob *job, CtrDatasetAxis axis, const CtrMpiBlock *blocks, CtrProjections **mine,
                    GError **error)
{
  g_autofree CtrDatasetPart *parts = g_new (CtrDatasetPart, job->size);
  for (int r = 0; r < job->size; r++)
    parts[r] = (CtrDatasetPart) { axis, blocks[r].first, blocks[r].count };
  GError *e = NULL;
  *mine = read_and_note (job, job->reader, parts, &e);
  return ctr_mpi_settle (job, CTR_MPI_PHASE_READ, &e, error);
}
