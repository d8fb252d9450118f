/* ctr-mpi.c — starting MPI and the entry point (see ctr-mpi.h); the
 * status rounds that keep a failing rank from hanging the others are
 * ctr-mpi-round.c, the two decompositions ctr-mpi-stack.c and
 * ctr-mpi-fdk.c (they call the rounds; this file calls them).
 */
#include "ctr-mpi-private.h"
#include "data/ctr-helix.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static gboolean initialised;

gboolean
ctr_mpi_launched (void)
{
  return g_getenv ("OMPI_COMM_WORLD_SIZE") != NULL || g_getenv ("PMIX_RANK") != NULL
         || g_getenv ("PMI_RANK") != NULL;
}

gboolean
ctr_mpi_init (int *argc, char ***argv, GError **error)
{
  int provided = 0;
  if (MPI_Init_thread (argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "MPI could not start");
      return FALSE;
    }
  initialised = TRUE;
  if (provided < MPI_THREAD_SERIALIZED)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE,
                   "this MPI library does not allow calls from a worker thread (MPI_THREAD_SERIALIZED)");
      return FALSE;
    }
  return TRUE;
}

void
ctr_mpi_finalize (void)
{
  if (initialised)
    MPI_Finalize ();
  initialised = FALSE;
}

guint
ctr_mpi_rank (void)
{
  int r = 0;
  if (initialised)
    MPI_Comm_rank (MPI_COMM_WORLD, &r);
  return (guint) r;
}

guint
ctr_mpi_size (void)
{
  int n = 1;
  if (initialised)
    MPI_Comm_size (MPI_COMM_WORLD, &n);
  return (guint) n;
}

guint
ctr_mpi_local_rank (void)
{
  static int local = -1;
  if (!initialised)
    return 0;
  if (local < 0)
    {
      MPI_Comm node;
      MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      MPI_Comm_rank (node, &local);
      MPI_Comm_free (&node);
    }
  return (guint) local;
}

static void
on_outer_cancelled (GCancellable *outer, gpointer inner)
{
  g_cancellable_cancel (inner);
}

/* Methods whose iterations couple the slices of a stack (global inner
 * products or norms) would give another image per block than on the whole. */
static gboolean
check_splittable (const CtrMpiShared *sh, guint size, GError **error)
{
  const CtrMethod m = sh->options.method;
  if (size > 1 && (m == CTR_METHOD_CGLS || m == CTR_METHOD_PWLS || m == CTR_METHOD_ASD_POCS))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s couples all slices through its step sizes and norms; it runs on one process "
                   "(mpirun -np 1), not across %u ranks", ctr_method_name (m), size);
      return FALSE;
    }
  if (size > 1 && ctr_helix_applies (sh->geometry))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "a helical (or curved multi-row) scan is rebinned or reconstructed on its slab by one "
                   "process (mpirun -np 1), not split across %u ranks", size);
      return FALSE;
    }
  if (size > 1 && sh->options.stop == CTR_STOP_AUTO)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "--stop auto decides on the whole stack's residual; across ranks give the iterations");
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_mpi_reconstruct (const CtrMpiInput *input, const CtrMpiReader *reader, GError *input_error, CtrIterFunc callback,
                     CtrMpiNoteFunc note, gpointer user_data, GCancellable *cancellable, CtrVolume **result,
                     GError **error)
{
  g_return_val_if_fail (result != NULL, FALSE);
  *result = NULL;
  CtrMpiJob job = { .comm = MPI_COMM_WORLD, .callback = callback, .note = note, .user_data = user_data,
                    .outer = cancellable, .inner = g_cancellable_new (), .reader = reader };
  MPI_Comm_rank (job.comm, &job.rank);
  MPI_Comm_size (job.comm, &job.size);
  if (cancellable != NULL)
    job.outer_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_outer_cancelled), job.inner, NULL);
  g_autoptr (GError) local = input_error;
  if (job.rank == 0 && input == NULL && local == NULL)
    g_set_error (&local, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "rank 0 has no inputs");

  CtrMpiShared sh = { 0 };
  gboolean ok = ctr_mpi_settle (&job, CTR_MPI_PHASE_INPUT, &local, error);
  if (ok)
    ok = ctr_mpi_share_inputs (&job, input, &sh, error);
  if (ok)
    {
      check_splittable (&sh, (guint) job.size, &local);
      ok = ctr_mpi_settle (&job, CTR_MPI_PHASE_CHECKED, &local, error);
    }
  if (ok)
    ok = sh.options.method == CTR_METHOD_FDK ? ctr_mpi_run_fdk (&job, input, &sh, result, error)
                                             : ctr_mpi_run_stack (&job, input, &sh, result, error);
  if (!ok)
    g_clear_pointer (result, ctr_volume_unref);
  ctr_mpi_shared_clear (&sh);
  if (cancellable != NULL)
    g_cancellable_disconnect (cancellable, job.outer_handler);
  g_object_unref (job.inner);
  return ok;
}
