/* ctr-session-store.c — CtrSession: the run store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every finished run keeps its image for the whole session; nothing is
 * evicted.  Images stay in memory while their total is within the memory
 * budget (ctr_session_set_memory_budget); beyond it the least recently
 * used ones are written to the session's folder under the user's cache
 * (g_get_user_cache_dir()/ctrecon/session-PID-XXXXXX, mode 0700) and read
 * back when asked for (ctr_run_get_result).  The folder is removed when the
 * session ends; folders of sessions whose process is gone (a crash) are
 * removed when a new one is made.  A run's image is deleted only with the
 * run (ctr_session_remove_run).  When an image cannot be written to disk it
 * stays in memory and the status says so: the budget is then exceeded,
 * openly.
 *
 * Balancing runs from an idle callback after a read-back, so a pointer
 * ctr_run_get_result() returned stays valid until the main loop runs again.
 */
#define G_LOG_DOMAIN "ctr-session"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#ifdef G_OS_UNIX
#include <unistd.h>
#endif

#include "ctr-session-private.h"

#define CACHE_SUBDIR "ctrecon"
#define DIR_PREFIX "session-"

/* ---- the session's folder ------------------------------------------------------- */

/* Removes every file of @dir, then @dir (it holds only run images). */
static void
remove_folder (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* "session-1234-AbC123": whether process 1234 is gone (its folder is left
 * from a crash). */
static gboolean
owner_gone (const char *name)
{
#ifdef G_OS_UNIX
  char *end = NULL;
  long pid = strtol (name + strlen (DIR_PREFIX), &end, 10);

  if (end == NULL || *end != '-' || pid <= 0 || pid == (long) getpid ())
    return FALSE;
  return kill ((pid_t) pid, 0) != 0 && errno == ESRCH;
#else
  (void) name;
  return FALSE;
#endif
}

static void
sweep_stale_folders (const char *parent)
{
  g_autoptr(GDir) d = g_dir_open (parent, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, DIR_PREFIX) && owner_gone (name))
      {
        g_autofree char *path = g_build_filename (parent, name, NULL);
        remove_folder (path);
      }
}

/* The session's folder, made on the first spill; NULL with @error. */
static const char *
spill_folder (CtrSession *self, GError **error)
{
  g_autofree char *parent = NULL;
  g_autofree char *tmpl = NULL;

  if (self->spill_dir != NULL)
    return self->spill_dir;
  parent = g_build_filename (g_get_user_cache_dir (), CACHE_SUBDIR, NULL);
  if (g_mkdir_with_parents (parent, 0700) != 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "Cannot make the folder %s: %s", parent,
                   g_strerror (e));
      return NULL;
    }
  sweep_stale_folders (parent);
  tmpl = g_strdup_printf ("%s/" DIR_PREFIX "%ld-XXXXXX", parent, (long) getpid ());
  if (g_mkdtemp_full (tmpl, 0700) == NULL)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "Cannot make a folder in %s: %s", parent,
                   g_strerror (e));
      return NULL;
    }
  self->spill_dir = g_steal_pointer (&tmpl);
  return self->spill_dir;
}

/* ---- the summary ------------------------------------------------------------------ */

static char *
format_bytes (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_DEFAULT);
}

void
ctr_session_get_store_usage (CtrSession *self, guint *n_images, guint64 *in_memory, guint64 *on_disk)
{
  GListModel *results;
  guint n = 0;
  guint64 mem = 0, disk = 0;

  g_return_if_fail (CTR_IS_SESSION (self));
  results = G_LIST_MODEL (self->results);
  for (guint i = 0; results != NULL && i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      guint64 b = _ctr_run_image_bytes (run);
      if (b == 0)
        continue;
      n++;
      if (_ctr_run_in_memory (run))
        mem += b;
      else
        disk += b;
    }
  if (n_images)
    *n_images = n;
  if (in_memory)
    *in_memory = mem;
  if (on_disk)
    *on_disk = disk;
}

static void
update_summary (CtrSession *self)
{
  guint n;
  guint64 mem, disk;
  g_autofree char *m = NULL;
  g_autofree char *b = NULL;
  g_autofree char *text = NULL;

  ctr_session_get_store_usage (self, &n, &mem, &disk);
  m = format_bytes (mem);
  b = format_bytes (self->memory_budget);
  if (disk > 0)
    {
      g_autofree char *dsk = format_bytes (disk);
      text = g_strdup_printf ("%u run image%s kept: %s in memory (budget %s), %s on disk in %s", n,
                              n == 1 ? "" : "s", m, b, dsk, self->spill_dir);
    }
  else
    text = g_strdup_printf ("%u run image%s kept: %s in memory (budget %s)", n, n == 1 ? "" : "s", m, b);
  if (mem > self->memory_budget)
    {
      g_autofree char *over = format_bytes (mem - self->memory_budget);
      char *t = g_strdup_printf ("%s; %s over the budget%s", text, over,
                                 self->spill_error ? " (images could not be written to disk)" : "");
      g_free (text);
      text = t;
    }
  if (g_strcmp0 (text, self->store_summary) != 0)
    {
      g_free (self->store_summary);
      self->store_summary = g_steal_pointer (&text);
      _ctr_session_notify (self, CTR_SESSION_PROP_STORE_SUMMARY);
    }
}

const char *
ctr_session_get_store_summary (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->store_summary;
}

/* ---- balancing -------------------------------------------------------------------- */

/* The least recently used image in memory but @keep's; NULL when none. */
static CtrRun *
least_recent (CtrSession *self, CtrRun *keep)
{
  GListModel *results = G_LIST_MODEL (self->results);
  CtrRun *best = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      if (run == keep || !_ctr_run_in_memory (run))
        continue;
      if (best == NULL || _ctr_run_get_last_used (run) < _ctr_run_get_last_used (best))
        best = run;   /* the store keeps it */
    }
  return best;
}

/* Spills images until those in memory fit the budget; the newest result
 * (@keep) stays in memory. */
static void
balance (CtrSession *self, CtrRun *keep)
{
  guint64 mem;
  CtrRun *victim;

  self->spill_error = FALSE;
  ctr_session_get_store_usage (self, NULL, &mem, NULL);
  while (mem > self->memory_budget && (victim = least_recent (self, keep)) != NULL)
    {
      g_autoptr(GError) error = NULL;
      const char *dir = spill_folder (self, &error);
      guint64 bytes = _ctr_run_image_bytes (victim);

      if (dir == NULL || !_ctr_run_spill (victim, dir, &error))
        {
          g_autofree char *status =
            g_strdup_printf ("The image of “%s” could not be moved to disk (%s): every image stays in memory, "
                             "over the memory budget", ctr_run_get_label (victim), error->message);
          self->spill_error = TRUE;
          _ctr_session_set_status (self, NULL, status);
          break;
        }
      mem -= bytes;
    }
  update_summary (self);
}

static gboolean
balance_idle (gpointer data)
{
  CtrSession *self = data;

  self->balance_id = 0;
  balance (self, NULL);
  return G_SOURCE_REMOVE;
}

static void
on_reloaded (CtrRun *run, gpointer data)
{
  CtrSession *self = data;

  if (self->balance_id == 0)
    self->balance_id = g_idle_add_full (G_PRIORITY_LOW, balance_idle, self, NULL);
}

/* ---- the open dataset's results -------------------------------------------------- */

void
_ctr_session_sync_open_results (CtrSession *self)
{
  GListModel *results = G_LIST_MODEL (self->results);
  g_autoptr(GPtrArray) open = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->open_results));
  gboolean same;

  for (guint i = 0; i < g_list_model_get_n_items (results); i++)
    {
      CtrRun *run = g_list_model_get_item (results, i);
      if (ctr_run_is_of (run, self->dataset))
        g_ptr_array_add (open, run);
      else
        g_object_unref (run);
    }
  same = n_old == open->len;
  for (guint i = 0; same && i < open->len; i++)
    {
      g_autoptr(CtrRun) old = g_list_model_get_item (G_LIST_MODEL (self->open_results), i);
      same = old == g_ptr_array_index (open, i);
    }
  if (!same)
    g_list_store_splice (self->open_results, 0, n_old, open->pdata, open->len);
}

GListModel *
ctr_session_get_open_results (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return G_LIST_MODEL (self->open_results);
}

/* ---- the store's entry points ------------------------------------------------------ */

void
_ctr_session_store_add (CtrSession *self, CtrRun *run)
{
  _ctr_run_set_reloaded (run, on_reloaded, self);
  _ctr_session_runs_changed (self);
  (void) ctr_run_get_result (run);   /* the newest is the most recently used */
  g_list_store_append (self->results, run);
  balance (self, run);
  _ctr_session_sync_open_results (self);
}

void
_ctr_session_store_removed (CtrSession *self, CtrRun *run)
{
  _ctr_run_set_reloaded (run, NULL, NULL);
  _ctr_run_drop_result (run);
  update_summary (self);
  _ctr_session_sync_open_results (self);
}

void
_ctr_session_store_init (CtrSession *self)
{
  const char *mb = g_getenv ("CTR_RUN_MEMORY_MB");

  self->memory_budget = CTR_SESSION_DEFAULT_MEMORY_BUDGET;
  if (mb != NULL && g_ascii_strtoull (mb, NULL, 10) > 0)
    self->memory_budget = g_ascii_strtoull (mb, NULL, 10) << 20;
  self->open_results = g_list_store_new (CTR_TYPE_RUN);
  update_summary (self);
}

void
_ctr_session_store_dispose (CtrSession *self)
{
  g_clear_handle_id (&self->balance_id, g_source_remove);
  for (guint i = 0; self->results != NULL && i < g_list_model_get_n_items (G_LIST_MODEL (self->results)); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (G_LIST_MODEL (self->results), i);
      _ctr_run_set_reloaded (run, NULL, NULL);
      /* the images die with the session: a run still held elsewhere
       * keeps its numbers */
      _ctr_run_drop_result (run);
    }
  g_clear_object (&self->open_results);
  if (self->spill_dir != NULL)
    remove_folder (self->spill_dir);
  g_clear_pointer (&self->spill_dir, g_free);
  g_clear_pointer (&self->store_summary, g_free);
}

void
ctr_session_set_memory_budget (CtrSession *self, guint64 bytes)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  self->memory_budget = bytes;
  balance (self, ctr_session_get_latest_result (self));
}

guint64
ctr_session_get_memory_budget (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), 0);
  return self->memory_budget;
}

const char *
ctr_session_get_spill_folder (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  return self->spill_dir;
}
