/* ctr-memory.c — see ctr-memory.h. */
#include "base/ctr-memory.h"
#include "base/ctr-error.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cgroup v2 memory.max of this process's group, G_MAXUINT64 when there is
 * none ("max", no cgroup v2, unreadable). */
static guint64
cgroup_limit (void)
{
  g_autofree char *self = NULL, *text = NULL;
  if (!g_file_get_contents ("/proc/self/cgroup", &self, NULL, NULL))
    return G_MAXUINT64;
  /* v2: one line "0::/path". */
  const char *line = strstr (self, "0::");
  if (line == NULL)
    return G_MAXUINT64;
  g_autofree char *rel = g_strndup (line + 3, strcspn (line + 3, "\n"));
  g_autofree char *file = g_build_filename ("/sys/fs/cgroup", rel, "memory.max", NULL);
  if (!g_file_get_contents (file, &text, NULL, NULL))
    return G_MAXUINT64;
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  return end != text && v > 0 ? v : G_MAXUINT64;
}

guint64
ctr_memory_limit_bytes (void)
{
  static guint64 limit = 0;
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
      guint64 l = pages > 0 && page > 0 ? ctr_memory_mul ((guint64) pages, (guint64) page) : G_MAXUINT64;
      l = MIN (l, cgroup_limit ());
      const char *env = g_getenv ("CTR_MEMORY_LIMIT_MB");
      if (env != NULL && *env != '\0')
        {
          char *end = NULL;
          double mb = g_ascii_strtod (env, &end);
          if (end != env && *end == '\0' && mb > 0 && mb < 1e12)
            l = MIN (l, (guint64) (mb * 1048576.0));
        }
      limit = l;
      g_once_init_leave (&once, 1);
    }
  return limit;
}

gboolean
ctr_memory_check (guint64 bytes, const char *what, GError **error)
{
  const guint64 limit = ctr_memory_limit_bytes ();
  if (bytes <= limit)
    return TRUE;
  g_autofree char *have = g_format_size_full (limit, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *need = bytes == G_MAXUINT64 ? g_strdup ("more than 16 EiB")
                                               : g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s need%s %s of memory; this machine has %s",
               what != NULL ? what : "this", what != NULL ? "" : "s", need, have);
  return FALSE;
}

gpointer
ctr_memory_try_new (gsize n, gsize size, gboolean zero, const char *what, GError **error)
{
  guint64 bytes = ctr_memory_mul (n, size);
  if (bytes > G_MAXSIZE)
    bytes = G_MAXUINT64;
  if (!ctr_memory_check (bytes, what, error))
    return NULL;
  gpointer p = zero ? g_try_malloc0 (MAX (bytes, 1)) : g_try_malloc (MAX (bytes, 1));
  if (p == NULL)
    {
      g_autofree char *need = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate %s for %s", need,
                   what != NULL ? what : "this");
    }
  return p;
}
