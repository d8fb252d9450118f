/* ctr-mpi-round.c — the status rounds and the notes of a run (see
 * ctr-mpi-private.h); called by ctr-mpi-stack.c and ctr-mpi-fdk.c.
 *
 * The status round is what keeps a failing rank from hanging the others.
 * Every step of a run that could fail on one rank ends with a round, and a
 * round is always the same pair of collectives (MPI_Allreduce sum, then max),
 * whichever phase a rank is in; so a rank that failed in step k and one that
 * is still reporting iteration i meet in the same collective, see that their
 * phases differ (Σ phase² · size ≠ (Σ phase)²), and the one still running
 * cancels its plan and comes to the end, where they meet again in the same
 * phase and read the failing rank's message (one MPI_Bcast from it).
 */
#include "ctr-mpi-private.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void
ctr_mpi_note (CtrMpiJob *job, const char *format, ...)
{
  if (job->rank != 0 || job->note == NULL)
    return;
  va_list ap;
  va_start (ap, format);
  g_autofree char *line = g_strdup_vprintf (format, ap);
  va_end (ap);
  job->note (line, job->user_data);
}

/* Status slots of the summed buffer: phase, phase², cancel requests, then
 * one per rank (0 fine, 1 failed, 2 cancelled). */
enum { SLOT_PHASE, SLOT_PHASE2, SLOT_CANCEL, SLOT_RANKS };

/* The failing rank broadcasts its error: domain name, code, message. */
static void
bcast_error (CtrMpiJob *job, int root, const GError *local, GError **error)
{
  int head[3] = { 0, 0, 0 };
  const char *domain = local ? g_quark_to_string (local->domain) : "";
  if (job->rank == root)
    {
      head[0] = (int) strlen (domain) + 1;
      head[1] = local ? local->code : 0;
      head[2] = local ? (int) strlen (local->message) + 1 : 1;
    }
  MPI_Bcast (head, 3, MPI_INT, root, job->comm);
  g_autofree char *d = g_malloc0 (head[0]), *msg = g_malloc0 (head[2]);
  if (job->rank == root)
    {
      memcpy (d, domain, head[0]);
      memcpy (msg, local ? local->message : "", head[2]);
    }
  MPI_Bcast (d, head[0], MPI_CHAR, root, job->comm);
  MPI_Bcast (msg, head[2], MPI_CHAR, root, job->comm);
  const GQuark q = g_quark_from_string (d);
  if (q == G_IO_ERROR && head[1] == G_IO_ERROR_CANCELLED)
    g_set_error_literal (error, q, head[1], msg);
  else if (job->size > 1)
    g_set_error (error, q, head[1], "rank %d: %s", root, msg);
  else
    g_set_error_literal (error, q, head[1], msg);
}

CtrMpiRound
ctr_mpi_round (CtrMpiJob *job, int phase, const GError *local, gboolean cancel_request, double *sum,
               double *max, gboolean *cancel_out, GError **error)
{
  const int n = SLOT_RANKS + job->size + CTR_MPI_N_SUM;
  g_autofree double *in = g_new0 (double, n), *out = g_new (double, n);
  in[SLOT_PHASE] = phase;
  in[SLOT_PHASE2] = (double) phase * phase;
  in[SLOT_CANCEL] = cancel_request ? 1 : 0;
  const gboolean cancelled = local != NULL && g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  in[SLOT_RANKS + job->rank] = local == NULL ? 0 : cancelled ? 2 : 1;
  if (sum != NULL)
    memcpy (in + SLOT_RANKS + job->size, sum, CTR_MPI_N_SUM * sizeof (double));
  MPI_Allreduce (in, out, n, MPI_DOUBLE, MPI_SUM, job->comm);
  double mx[CTR_MPI_N_MAX] = { 0 }, mx_out[CTR_MPI_N_MAX];
  if (max != NULL)
    memcpy (mx, max, sizeof mx);
  MPI_Allreduce (mx, mx_out, CTR_MPI_N_MAX, MPI_DOUBLE, MPI_MAX, job->comm);
  if (sum != NULL)
    memcpy (sum, out + SLOT_RANKS + job->size, CTR_MPI_N_SUM * sizeof (double));
  if (max != NULL)
    memcpy (max, mx_out, sizeof mx_out);
  if (cancel_out != NULL)
    *cancel_out = out[SLOT_CANCEL] > 0;

  /* Phases are whole numbers below 2²⁶: these sums are exact in double. */
  if (job->size * out[SLOT_PHASE2] != out[SLOT_PHASE] * out[SLOT_PHASE])
    return CTR_MPI_ROUND_MISMATCH;
  int failed = -1, cancelled_rank = -1;
  for (int r = 0; r < job->size; r++)
    {
      const double s = out[SLOT_RANKS + r];
      if (s == 1 && failed < 0)
        failed = r;
      else if (s == 2 && cancelled_rank < 0)
        cancelled_rank = r;
    }
  const int root = failed >= 0 ? failed : cancelled_rank;
  if (root < 0)
    return CTR_MPI_ROUND_OK;
  bcast_error (job, root, job->rank == root ? local : NULL, error);
  return CTR_MPI_ROUND_FAILED;
}

gboolean
ctr_mpi_settle (CtrMpiJob *job, int phase, GError **local, GError **error)
{
  g_autoptr (GError) mine = g_steal_pointer (local);
  for (;;)
    {
      const CtrMpiRound r = ctr_mpi_round (job, phase, mine, FALSE, NULL, NULL, NULL, error);
      if (r == CTR_MPI_ROUND_OK)
        return TRUE;
      if (r == CTR_MPI_ROUND_FAILED)
        return FALSE;
    }
}
