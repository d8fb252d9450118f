/* ctr-temp.c — the temporaries a process is writing (see ctr-temp.h). */
#include "io/ctr-temp.h"
#include "io/ctr-file.h"

#include <glib/gstdio.h>

static GRecMutex lock;
static GHashTable *temps;  /* path → GINT_TO_POINTER (folder) */

void
ctr_temp_lock (void)
{
  g_rec_mutex_lock (&lock);
}

void
ctr_temp_unlock (void)
{
  g_rec_mutex_unlock (&lock);
}

void
ctr_temp_register (const char *path, gboolean folder)
{
  g_return_if_fail (path != NULL);
  g_rec_mutex_lock (&lock);
  if (temps == NULL)
    temps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_insert (temps, g_strdup (path), GINT_TO_POINTER (folder ? 1 : 0));
  g_rec_mutex_unlock (&lock);
}

void
ctr_temp_forget (const char *path)
{
  g_return_if_fail (path != NULL);
  g_rec_mutex_lock (&lock);
  if (temps != NULL)
    g_hash_table_remove (temps, path);
  g_rec_mutex_unlock (&lock);
}

guint
ctr_temp_remove_all (void)
{
  g_rec_mutex_lock (&lock);  /* never released: the process is ending */
  guint n = 0;
  if (temps == NULL)
    return 0;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, temps);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      if (GPOINTER_TO_INT (value))
        ctr_file_remove_folder (key);
      else
        g_unlink (key);
      n++;
    }
  g_hash_table_remove_all (temps);
  return n;
}
