/* test-mpi-rounds.c — the status rounds of mpi/ (ctr-mpi-private.h), run by
 * tests/mpi/test_mpi_rounds.py as `mpirun -np 3`: sums and maxima reduced;
 * one rank's error reaches every rank with its message; a real error wins
 * over a cancellation; a rank that failed while the others still report
 * iterations makes them see a mismatch, and all end with its message; a
 * cancel request reaches every rank.  Exit 0 on every rank when all hold.
 * With the argument "stop": rank 2 stops itself (SIGSTOP) and the others'
 * round must end the job by its watchdog, naming rank 2.  Also the
 * node-local rank (all three ranks share this machine) and the GPU device
 * each rank would take from it; the geometry every rank gets from rank 0.
 * With the argument "memory": rank 1 has no room for its copy of a large
 * geometry, and every rank must end with its error (issue 38). */
#include "ctr-mpi-private.h"
#include "ctr-cuda-api.h"
#include "ctr-test-memory.h"
#include "data/ctr-geometry-vectors.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static int failures;

/* The checks failed on every rank, summed: "ok" or "FAIL" on rank 0; ends
 * MPI.  Returns: the exit status. */
static int
finish (CtrMpiJob *job)
{
  int total = 0;
  MPI_Allreduce (&failures, &total, 1, MPI_INT, MPI_SUM, job->comm);
  if (job->rank == 0)
    printf ("%s: %d check(s) failed over 3 ranks\n", total ? "FAIL" : "ok", total);
  g_object_unref (job->inner);
  ctr_mpi_finalize ();
  return total ? 1 : 0;
}

/* A geometry of @n views with every per-view array set to values of the
 * view (the same on every rank that makes it). */
static CtrGeometry *
test_geometry (guint n)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, n);
  g->n_rows = 3;
  g->n_cols = 5;
  g->vectors = g_new (double, (gsize) n * CTR_GEOMETRY_VECTOR_LEN);
  g->source_z_mm = g_new (double, n);
  g->focal_shift = g_new (double, (gsize) n * 3);
  for (guint k = 0; k < n; k++)
    {
      g->angles[k] = 0.1 * k;
      g->source_z_mm[k] = 2.0 * k + 1;
      for (guint i = 0; i < CTR_GEOMETRY_VECTOR_LEN; i++)
        g->vectors[(gsize) k * CTR_GEOMETRY_VECTOR_LEN + i] = k * 100.0 + i;
      for (guint i = 0; i < 3; i++)
        g->focal_shift[(gsize) k * 3 + i] = -(k * 10.0 + i);
    }
  return g;
}

#define EXPECT(cond, what)                                                     \
  do {                                                                         \
    if (!(cond))                                                               \
      {                                                                        \
        fprintf (stderr, "rank %d: FAIL %s (%s:%d)\n", job.rank, what, __FILE__, __LINE__); \
        failures++;                                                            \
      }                                                                        \
  } while (0)

int
main (int argc, char **argv)
{
  g_autoptr (GError) e = NULL;
  if (!ctr_mpi_init (&argc, &argv, &e))
    {
      fprintf (stderr, "%s\n", e->message);
      return 1;
    }
  CtrMpiJob job = { .comm = MPI_COMM_WORLD, .inner = g_cancellable_new () };
  MPI_Comm_rank (job.comm, &job.rank);
  MPI_Comm_size (job.comm, &job.size);
  if (job.size != 3)
    {
      fprintf (stderr, "run with mpirun -np 3\n");
      ctr_mpi_finalize ();
      return 2;
    }
  if (argc > 1 && strcmp (argv[1], "stop") == 0)
    {
      /* The watchdog (run with a short CTR_MPI_TIMEOUT_S): rank 2 stops
       * itself before a round; ranks 0 and 1 must not wait for it forever:
       * rank 0 names it and ends the job. */
      if (job.rank == 2)
        raise (SIGSTOP);
      ctr_mpi_round (&job, 1, NULL, FALSE, NULL, NULL, NULL, &e);
      fprintf (stderr, "rank %d: FAIL the round with a stopped rank returned\n", job.rank);
      ctr_mpi_finalize ();
      return 3;
    }

  if (argc > 1 && strcmp (argv[1], "memory") == 0)
    {
      /* Rank 1 has 16 MiB of address space to spare; its copy of a
       * geometry of 2²² views needs 32 MiB of angles and 32 MiB of source
       * z.  Before the change it died in GLib's allocator (g_new: "failed
       * to allocate", SIGTRAP) and mpirun ended the job. */
      const guint n = 1u << 22;
      g_autoptr (CtrGeometry) g = NULL;
      if (job.rank == 0)
        {
          g = ctr_geometry_new (CTR_BEAM_CONE, n);
          g_assert_true (ctr_geometry_set_source_z (g, 0.0, 1e-3, NULL));
        }
      const CtrMpiInput in = { .geometry = g, .grid = ctr_grid_square (8, 1.0, 1, 1.0) };
      if (job.rank == 1)
        test_limit_room (16u << 20);
      CtrMpiShared sh;
      const gboolean ok = ctr_mpi_share_inputs (&job, job.rank == 0 ? &in : NULL, &sh, &e);
      EXPECT (!ok && sh.geometry == NULL, "rank 1 out of memory: FALSE everywhere, nothing shared");
      EXPECT (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY) && g_str_has_prefix (e->message, "rank 1: ")
              && strstr (e->message, "copy of the geometry's angles of 4194304 views") != NULL,
              "rank 1 out of memory: its message everywhere");
      if (e != NULL)
        fprintf (stderr, "rank %d: %s\n", job.rank, e->message);
      return finish (&job);
    }

  /* 0. The node-local rank: one node, so the world rank; the device of
   * each rank with 2 devices on the node: alternating; with 1: shared. */
  const int local = (int) ctr_mpi_local_rank ();
  EXPECT (local == job.rank, "the node-local rank of one node is the world rank");
  EXPECT (ctr_mpi_local_rank () == (guint) local, "the node-local rank is stable");
  EXPECT (ctr_cuda_device_for_rank (local, 2) == job.rank % 2, "ranks alternate over 2 devices");
  EXPECT (ctr_cuda_device_for_rank (local, 1) == 0, "ranks share 1 device");
  EXPECT (ctr_cuda_device_for_rank (local, 0) == 0 && ctr_cuda_device_for_rank (-1, 4) == 0,
          "no devices or no rank: device 0");
  EXPECT (ctr_cuda_device_for_rank (7, 4) == 3, "local rank 7 of 4 devices: device 3");

  /* 1. Every rank fine: sums and maxima of every rank. */
  double sum[CTR_MPI_N_SUM] = { job.rank + 1.0, 10.0 * job.rank, 0, 0, 0.5 }, max[CTR_MPI_N_MAX] = { job.rank };
  gboolean cancel = TRUE;
  CtrMpiRound r = ctr_mpi_round (&job, 5, NULL, FALSE, sum, max, &cancel, &e);
  EXPECT (r == CTR_MPI_ROUND_OK && e == NULL, "all fine: OK");
  EXPECT (sum[0] == 6 && sum[1] == 30 && sum[4] == 1.5 && max[0] == 2 && !cancel, "all fine: sums and maximum");

  /* 2. Rank 2 fails: every rank gets "rank 2: …" with its domain and code. */
  g_autoptr (GError) boom = NULL;
  if (job.rank == 2)
    g_set_error (&boom, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the volume");
  r = ctr_mpi_round (&job, 7, boom, FALSE, NULL, NULL, NULL, &e);
  EXPECT (r == CTR_MPI_ROUND_FAILED, "rank 2 fails: FAILED everywhere");
  EXPECT (g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY)
          && g_strcmp0 (e->message, "rank 2: cannot allocate the volume") == 0, "rank 2 fails: its message everywhere");
  g_clear_error (&e);
  g_clear_error (&boom);

  /* 3. Rank 0 cancelled, rank 2 failed: the failure is reported. */
  if (job.rank == 0)
    g_set_error_literal (&boom, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  if (job.rank == 2)
    g_set_error (&boom, CTR_ERROR, CTR_ERROR_IO, "disk full");
  EXPECT (!ctr_mpi_settle (&job, 8, &boom, &e) && boom == NULL, "cancel + failure: FALSE, local error consumed");
  EXPECT (g_error_matches (e, CTR_ERROR, CTR_ERROR_IO) && strstr (e->message, "rank 2: disk full") != NULL,
          "cancel + failure: the real error wins");
  g_clear_error (&e);

  /* 4. Only cancellations: G_IO_ERROR_CANCELLED without a rank prefix. */
  if (job.rank == 1)
    g_set_error_literal (&boom, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
  EXPECT (!ctr_mpi_settle (&job, 9, &boom, &e) && g_error_matches (e, G_IO_ERROR, G_IO_ERROR_CANCELLED),
          "a cancelled rank cancels all");
  g_clear_error (&e);

  /* 5. Rank 1 fails during iteration 3 and goes to the end of the run while
   * ranks 0 and 2 report iterations 3, 4, …: they see a mismatch, stop,
   * and every rank ends with rank 1's message. */
  gboolean ok;
  if (job.rank == 1)
    {
      g_set_error (&boom, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "device lost");
      ok = ctr_mpi_settle (&job, CTR_MPI_PHASE_DONE, &boom, &e);
    }
  else
    {
      guint it = 3, rounds = 0;
      for (; it < 100; it++, rounds++)
        if (ctr_mpi_round (&job, (int) it, NULL, FALSE, NULL, NULL, NULL, &e) != CTR_MPI_ROUND_OK)
          break;
      EXPECT (rounds == 0 && e == NULL, "mismatch seen at the first round, no error yet");
      ok = ctr_mpi_settle (&job, CTR_MPI_PHASE_DONE, &boom, &e);
    }
  EXPECT (!ok && e != NULL && g_strcmp0 (e->message, "rank 1: device lost") == 0,
          "a rank that left mid-run: all end with its message");
  g_clear_error (&e);

  /* 6. A cancel request from rank 0 reaches every rank (and is no failure). */
  cancel = FALSE;
  r = ctr_mpi_round (&job, 11, NULL, job.rank == 0, NULL, NULL, &cancel, &e);
  EXPECT (r == CTR_MPI_ROUND_OK && cancel, "a cancel request reaches every rank");

  /* 7. Everyone fine at the end. */
  EXPECT (ctr_mpi_settle (&job, CTR_MPI_PHASE_DONE, &boom, &e) && e == NULL, "all fine at the end");

  /* 8. Rank 0's geometry reaches every rank whole: its header and every
   * per-view array (angles, vectors, source z, focal-spot shifts). */
  g_autoptr (CtrGeometry) want = test_geometry (7);
  const CtrMpiInput in = { .geometry = want, .grid = ctr_grid_square (8, 1.0, 1, 1.0) };
  CtrMpiShared sh;
  EXPECT (ctr_mpi_share_inputs (&job, job.rank == 0 ? &in : NULL, &sh, &e) && e == NULL, "the geometry is shared");
  const CtrGeometry *got = sh.geometry;
  EXPECT (got != NULL && got->n_views == 7 && got->n_rows == 3 && got->n_cols == 5
          && memcmp (got->angles, want->angles, 7 * sizeof (double)) == 0
          && memcmp (got->vectors, want->vectors, 7 * CTR_GEOMETRY_VECTOR_LEN * sizeof (double)) == 0
          && memcmp (got->source_z_mm, want->source_z_mm, 7 * sizeof (double)) == 0
          && memcmp (got->focal_shift, want->focal_shift, 7 * 3 * sizeof (double)) == 0,
          "every rank's copy of the geometry equals rank 0's");
  ctr_mpi_shared_clear (&sh);

  return finish (&job);
}
