/* test-mpi-rounds.c — the status rounds of mpi/ (ctr-mpi-private.h), run by
 * tests/mpi/test_mpi_rounds.py as `mpirun -np 3`: sums and maxima reduced;
 * one rank's error reaches every rank with its message; a real error wins
 * over a cancellation; a rank that failed while the others still report
 * iterations makes them see a mismatch, and all end with its message; a
 * cancel request reaches every rank.  Exit 0 on every rank when all hold.
 * With the argument "stop": rank 2 stops itself (SIGSTOP) and the others'
 * round must end the job by its watchdog, naming rank 2.  Also the
 * node-local rank (all three ranks share this machine) and the GPU device
 * each rank would take from it. */
#include "ctr-mpi-private.h"
#include "ctr-cuda-api.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static int failures;

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

  int total = 0;
  MPI_Allreduce (&failures, &total, 1, MPI_INT, MPI_SUM, job.comm);
  if (job.rank == 0)
    printf ("%s: %d check(s) failed over 3 ranks\n", total ? "FAIL" : "ok", total);
  g_object_unref (job.inner);
  ctr_mpi_finalize ();
  return total ? 1 : 0;
}
