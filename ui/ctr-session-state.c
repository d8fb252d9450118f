/* ctr-session-state.c — the session's properties and the helpers its
 * files share to change them and to run their threads: the bottom of
 * CtrSession (ctr-session.c, -load.c and -reconstruct.c call these; these
 * call none of them).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-session"

#include <errno.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "ctr-session-private.h"

static GParamSpec *properties[CTR_SESSION_N_PROPS];

/* g_set_str() is GLib 2.76. */
static gboolean
replace_str (char **ptr, const char *value)
{
  if (g_strcmp0 (*ptr, value) == 0)
    return FALSE;
  g_free (*ptr);
  *ptr = g_strdup (value);
  return TRUE;
}

void
_ctr_session_notify (CtrSession *self, guint prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void
_ctr_session_set_fraction (CtrSession *self, double fraction)
{
  if (self->fraction == fraction)
    return;
  self->fraction = fraction;
  _ctr_session_notify (self, CTR_SESSION_PROP_FRACTION);
}

void
_ctr_session_set_status (CtrSession *self, const char *progress_text, const char *status)
{
  if (progress_text != NULL && replace_str (&self->progress_text, progress_text))
    _ctr_session_notify (self, CTR_SESSION_PROP_PROGRESS_TEXT);
  if (status != NULL && replace_str (&self->status, status))
    _ctr_session_notify (self, CTR_SESSION_PROP_STATUS);
}

void
_ctr_session_set_latest_stats (CtrSession *self, const CtrIterStats *stats)
{
  if (stats == NULL && self->latest_stats == NULL)
    return;
  g_clear_pointer (&self->latest_stats, ctr_run_stats_free);
  if (stats != NULL)
    self->latest_stats = ctr_run_stats_copy (stats);
  _ctr_session_notify (self, CTR_SESSION_PROP_LATEST_STATS);
}

void
_ctr_session_notify_busy (CtrSession *self, guint prop)
{
  _ctr_session_notify (self, prop);
  _ctr_session_notify (self, CTR_SESSION_PROP_BUSY);
}

/* Background work yields the CPU to the main thread: on a machine with as
 * many busy cores as the solver has threads, an equal-priority worker would
 * starve the main loop (measured: 150-500 ms gaps between 10 ms ticks on 2
 * cores).  Linux nice values are per thread and inherited by the threads a
 * thread creates, so setting it here, before the first OpenMP region of this
 * GTask thread, also lowers the OpenMP team it spawns.  Only ever raised
 * (an unprivileged thread cannot lower it back), which is right for a pool
 * thread that only runs background jobs. */
#define WORKER_NICE 10

void
_ctr_lower_thread_priority (void)
{
#ifdef __linux__
  pid_t tid = (pid_t) syscall (SYS_gettid);
  errno = 0;
  int current = getpriority (PRIO_PROCESS, (id_t) tid);
  if (errno == 0 && current < WORKER_NICE)
    setpriority (PRIO_PROCESS, (id_t) tid, WORKER_NICE);
#endif
}

static void
caller_cancelled (GCancellable *caller, GCancellable *own)
{
  g_cancellable_cancel (own);
}

GCancellable *
_ctr_link_cancellable (GCancellable *caller, gulong *handler)
{
  GCancellable *own = g_cancellable_new ();

  *handler = 0;
  if (caller != NULL)
    *handler = g_cancellable_connect (caller, G_CALLBACK (caller_cancelled), g_object_ref (own),
                                      g_object_unref);
  return own;
}

void
_ctr_unlink_cancellable (GCancellable **own, GCancellable **caller, gulong *handler)
{
  if (*caller != NULL && *handler != 0)
    g_cancellable_disconnect (*caller, *handler);
  *handler = 0;
  g_clear_object (caller);
  g_clear_object (own);
}

static void
worker_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;
  gssize value = g_task_propagate_int (G_TASK (result), &error);

  if (error != NULL)
    g_task_return_error (outer, error);
  else
    g_task_return_int (outer, value);
}

void
_ctr_session_run_in_worker (GTask *outer, const char *name, gpointer data, GDestroyNotify destroy,
                            GTaskThreadFunc func)
{
  g_autoptr(GTask) task = g_task_new (NULL, g_task_get_cancellable (outer), worker_done, g_object_ref (outer));

  g_task_set_name (task, name);
  g_task_set_task_data (task, data, destroy);
  g_task_run_in_thread (task, func);
}

gboolean
_ctr_session_busy (CtrSession *self)
{
  return self->load != NULL || self->recon != NULL;
}

void
_ctr_session_install_properties (GObjectClass *object_class)
{
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  properties[CTR_SESSION_PROP_DATASET] = g_param_spec_pointer ("dataset", NULL, NULL, flags);
  properties[CTR_SESSION_PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, flags);
  properties[CTR_SESSION_PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  properties[CTR_SESSION_PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, flags);
  properties[CTR_SESSION_PROP_FRACTION] = g_param_spec_double ("fraction", NULL, NULL, -1, 1, 0, flags);
  properties[CTR_SESSION_PROP_PROGRESS_TEXT] = g_param_spec_string ("progress-text", NULL, NULL, "Idle", flags);
  properties[CTR_SESSION_PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, "Ready", flags);
  properties[CTR_SESSION_PROP_LATEST_STATS] = g_param_spec_boxed ("latest-stats", NULL, NULL, CTR_TYPE_RUN_STATS, flags);
  properties[CTR_SESSION_PROP_STORE_SUMMARY] = g_param_spec_string ("store-summary", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, CTR_SESSION_N_PROPS, properties);
}
