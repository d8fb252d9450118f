/* cli-signals.c — the one signal policy of ctrecon-cli (see cli-signals.h). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli-signals.h"
#include "io/ctr-temp.h"

static GMutex lock;
static GCancellable *watched;
static gint requests;
static sigset_t handled;

static void
say (const char *text)
{
  /* stderr may be a closed pipe: the result is of no interest */
  ssize_t r = write (STDERR_FILENO, text, strlen (text));
  (void) r;
}

static gpointer
receive (gpointer data)
{
  (void) data;
  for (;;)
    {
      int sig = 0;
      if (sigwait (&handled, &sig) != 0)
        continue;
      const int n = g_atomic_int_add (&requests, 1) + 1;
      g_mutex_lock (&lock);
      GCancellable *c = watched != NULL ? g_object_ref (watched) : NULL;
      g_mutex_unlock (&lock);
      if (c != NULL && n == 1)
        {
          say ("ctrecon-cli: cancelling…\n");
          g_cancellable_cancel (c);
          g_object_unref (c);
          continue;
        }
      g_clear_object (&c);
      ctr_temp_remove_all ();  /* waits for a commit in progress; never returns the lock */
      say ("ctrecon-cli: cancelled\n");
      _exit (CTR_CLI_EXIT_CANCELLED);
    }
  return NULL;
}

void
ctr_cli_signals_init (void)
{
  signal (SIGPIPE, SIG_IGN);
  sigemptyset (&handled);
  sigaddset (&handled, SIGINT);
  sigaddset (&handled, SIGTERM);
  sigaddset (&handled, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &handled, NULL);
  /* Without room for the thread's stack (an address-space limit just
   * above what the program maps) g_thread_new aborted: the signals keep
   * their default action instead (they end the program; its temporary
   * files are left), and the work goes on to refuse what does not fit. */
  GThread *t = g_thread_try_new ("signals", receive, NULL, NULL);
  if (t != NULL)
    g_thread_unref (t);
  else
    pthread_sigmask (SIG_UNBLOCK, &handled, NULL);
}

void
ctr_cli_signals_watch (GCancellable *cancellable)
{
  g_mutex_lock (&lock);
  g_clear_object (&watched);
  if (cancellable != NULL)
    watched = g_object_ref (cancellable);
  const gboolean late = cancellable != NULL && g_atomic_int_get (&requests) > 0;
  g_mutex_unlock (&lock);
  if (late)  /* asked before the work began */
    g_cancellable_cancel (cancellable);
}

gboolean
ctr_cli_signals_cancelled (void)
{
  return g_atomic_int_get (&requests) > 0;
}
