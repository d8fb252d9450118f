/* cli-mpi.c — ctrecon-cli under mpirun (mpi/ctr-mpi.h).
 *
 * Launched by mpirun, the program starts MPI before the command runs and
 * stops it after; only `reconstruct` runs across ranks.  The ranks other
 * than 0 print nothing (their errors reach rank 0 through the run's status
 * rounds and are printed there, "rank R: …"); CTR_MPI_VERBOSE=1 keeps their
 * standard error.  A plain run never starts MPI.  Without MPI in the build,
 * a job of several ranks is refused: each would run the whole command and
 * write the same output.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli-common.h"
#ifdef CTR_HAVE_MPI
#include "ctr-mpi.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda-api.h"
#endif
#endif

static gboolean mpi_running;

int
ctr_cli_mpi_start (int *argc, char ***argv, const char *command)
{
#ifdef CTR_HAVE_MPI
  if (!ctr_mpi_launched ())
    return 0;
  g_autoptr (GError) error = NULL;
  if (!ctr_mpi_init (argc, argv, &error))
    return ctr_cli_fail (error);
  mpi_running = TRUE;
#ifdef CTR_HAVE_CUDA
  /* One GPU per rank of a node: device (node-local rank) mod (devices),
   * chosen when the backend first probes its device. */
  ctr_cuda_device_set_local_rank ((int) ctr_mpi_local_rank ());
#endif
  if (ctr_mpi_rank () != 0 && g_strcmp0 (g_getenv ("CTR_MPI_VERBOSE"), "1") != 0)
    {
      if (freopen ("/dev/null", "w", stderr) == NULL)
        return 0;
    }
  if (ctr_mpi_size () > 1 && g_strcmp0 (command, "reconstruct") != 0)
    {
      fprintf (stderr, "ctrecon-cli %s: runs on one process; under mpirun only 'reconstruct' runs across ranks\n",
               command);
      return 2;
    }
  return 0;
#else
  const char *n = g_getenv ("OMPI_COMM_WORLD_SIZE");
  if (n != NULL && atoi (n) > 1)
    {
      fprintf (stderr, "ctrecon-cli: started as one of %s ranks, but this build has no MPI: each rank would run "
               "the whole job (rebuild with libopenmpi-dev installed, -Dmpi=enabled)\n", n);
      return 2;
    }
  return 0;
#endif
}

void
ctr_cli_mpi_stop (void)
{
#ifdef CTR_HAVE_MPI
  if (mpi_running)
    ctr_mpi_finalize ();
#endif
  mpi_running = FALSE;
}

gboolean
ctr_cli_mpi_running (void)
{
  return mpi_running;
}
