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
 *
 * The watchdog: a rank that is stopped (SIGSTOP, a frozen node) never
 * reaches its round, and a blocking collective would wait for it forever.
 * The round's collectives are non-blocking and polled against a timeout
 * (CTR_MPI_TIMEOUT_S, ctr_mpi_timeout_s); every other rank also tells rank 0
 * that it arrived (a one-int message), so that rank 0, when the time is up,
 * names the ranks that did not and ends the job (MPI_Abort).  The other
 * ranks give rank 0 a second timeout before they end the job themselves
 * (rank 0 itself may be the stopped one).
 */
#include "ctr-mpi-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

enum { TAG_ARRIVED = 7301 };

double
ctr_mpi_timeout_s (void)
{
  const char *v = g_getenv ("CTR_MPI_TIMEOUT_S");
  if (v != NULL && *v != '\0')
    {
      char *end = NULL;
      const double t = g_ascii_strtod (v, &end);
      if (end != v && *end == '\0' && isfinite (t) && t >= 0)
        return t;
    }
  return CTR_MPI_DEFAULT_TIMEOUT_S;
}

/* Ends the job: the watchdog's message on stderr, then MPI_Abort. */
static void G_GNUC_NORETURN
watchdog_abort (CtrMpiJob *job, const char *who, double timeout, int phase)
{
  fprintf (stderr, "ctrecon-cli: rank %d: %s within %g s (phase %d; CTR_MPI_TIMEOUT_S); "
           "ending the job\n", job->rank, who, timeout, phase);
  fflush (stderr);
  MPI_Abort (job->comm, 124);
  _exit (124);
}

/* Waits for @req, polling; rank 0 also collects the other ranks' arrival
 * messages (@arrived: job->size requests, NULL elsewhere).  Past the timeout
 * (0: none) it ends the job naming the ranks that did not arrive. */
static void
watch (CtrMpiJob *job, MPI_Request *req, MPI_Request *arrived, int phase)
{
  const double timeout = ctr_mpi_timeout_s ();
  /* Rank 0 names the missing; the others wait one timeout more. */
  const double limit = job->rank == 0 ? timeout : 2 * timeout;
  const gint64 t0 = g_get_monotonic_time ();
  gulong spins = 0;
  for (;;)
    {
      int done = 0;
      MPI_Test (req, &done, MPI_STATUS_IGNORE);
      if (done)
        break;
      if (timeout > 0 && (g_get_monotonic_time () - t0) / 1e6 > limit)
        {
          if (job->rank != 0 || arrived == NULL)
            watchdog_abort (job, "the status round did not complete (rank 0 or another rank is stopped or hung)",
                            limit, phase);
          GString *missing = g_string_new (NULL);
          for (int r = 1; r < job->size; r++)
            {
              int got = 0;
              MPI_Test (&arrived[r], &got, MPI_STATUS_IGNORE);
              if (!got)
                g_string_append_printf (missing, "%s%d", missing->len ? ", " : "", r);
            }
          g_autofree char *who = g_strdup_printf ("%s %s did not reach the status round (stopped or hung)",
                                                  strchr (missing->str, ',') ? "ranks" : "rank",
                                                  missing->len ? missing->str : "?");
          g_string_free (missing, TRUE);
          watchdog_abort (job, who, limit, phase);
        }
      /* Spin briefly (a round is usually met at once), then sleep. */
      if (++spins > 1000)
        g_usleep (spins > 20000 ? 2000 : 100);
    }
}

/* One collective of the round, watched: MPI_Iallreduce of @in into @out. */
static void
watched_allreduce (CtrMpiJob *job, const double *in, double *out, int n, MPI_Op op, MPI_Request *arrived,
                   int phase)
{
  MPI_Request req;
  MPI_Iallreduce (in, out, n, MPI_DOUBLE, op, job->comm, &req);
  watch (job, &req, arrived, phase);
}

/* The arrival messages of a round: each rank but 0 sends, rank 0 receives
 * one from each (@buf, @req: job->size each). */
static void
arrivals_post (CtrMpiJob *job, int *buf, MPI_Request *req)
{
  for (int r = 0; r < job->size; r++)
    req[r] = MPI_REQUEST_NULL;
  buf[job->rank] = job->rank;
  if (job->rank == 0)
    for (int r = 1; r < job->size; r++)
      MPI_Irecv (&buf[r], 1, MPI_INT, r, TAG_ARRIVED, job->comm, &req[r]);
  else
    MPI_Isend (&buf[job->rank], 1, MPI_INT, 0, TAG_ARRIVED, job->comm, &req[0]);
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
  g_autofree int *abuf = g_new0 (int, job->size);
  g_autofree MPI_Request *areq = g_new (MPI_Request, job->size);
  arrivals_post (job, abuf, areq);
  watched_allreduce (job, in, out, n, MPI_SUM, job->rank == 0 ? areq : NULL, phase);
  /* Every rank has arrived: its message was sent. */
  MPI_Waitall (job->size, areq, MPI_STATUSES_IGNORE);
  double mx[CTR_MPI_N_MAX] = { 0 }, mx_out[CTR_MPI_N_MAX];
  if (max != NULL)
    memcpy (mx, max, sizeof mx);
  watched_allreduce (job, mx, mx_out, CTR_MPI_N_MAX, MPI_MAX, NULL, phase);
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
