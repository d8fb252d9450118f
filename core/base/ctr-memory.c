/* ctr-memory.c — see ctr-memory.h. */
#include "base/ctr-memory.h"
#include "base/ctr-error.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A cgroup v1 memory.limit_in_bytes at or above this is "unlimited" (the
 * kernel writes PAGE_COUNTER_MAX × page size, 0x7FFFFFFFFFFFF000). */
#define V1_UNLIMITED (G_GUINT64_CONSTANT (1) << 62)

/* Lowers @out to @bytes when that is smaller, naming @bound. */
static void
lower (CtrMemoryLimit *out, guint64 bytes, const char *bound)
{
  if (bytes < out->bytes)
    {
      out->bytes = bytes;
      out->bound = bound;
    }
}

/* The number in @text (leading blanks skipped), or G_MAXUINT64 when there
 * is none ("max", empty). */
static guint64
parse_u64 (const char *text)
{
  while (*text == ' ' || *text == '\t')
    text++;
  char *end = NULL;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  return end != text ? v : G_MAXUINT64;
}

/* The value of "KEY: N kB" in a /proc file's @text, in bytes; G_MAXUINT64
 * when absent. */
static guint64
proc_kb (const char *text, const char *key)
{
  const gsize n = strlen (key);
  for (const char *l = text; l != NULL && *l != '\0';)
    {
      if (strncmp (l, key, n) == 0 && l[n] == ':')
        {
          guint64 kb = parse_u64 (l + n + 1);
          return kb == G_MAXUINT64 ? kb : ctr_memory_mul (kb, 1024);
        }
      l = strchr (l, '\n');
      if (l != NULL)
        l++;
    }
  return G_MAXUINT64;
}

/* The smallest @file (memory.max, memory.limit_in_bytes) from the group
 * @rel under the mount @mount up to the mount's root: a group is held to
 * its ancestors' limits too, and inside a container the path the kernel
 * reports may start above the mount's root (only the part that exists is
 * read).  Values of @ignore_from and above count as none. */
static guint64
hierarchy_min (const char *mount, const char *rel, const char *file, guint64 ignore_from)
{
  guint64 best = G_MAXUINT64;
  g_autofree char *path = g_strdup (rel);
  for (int depth = 0; depth < 64; depth++)
    {
      g_autofree char *name = g_build_filename (mount, path, file, NULL), *text = NULL;
      if (g_file_get_contents (name, &text, NULL, NULL))
        {
          guint64 v = parse_u64 (text);
          if (v < ignore_from)
            best = MIN (best, v);
        }
      if (strcmp (path, "/") == 0 || strcmp (path, ".") == 0 || *path == '\0')
        break;
      char *up = g_path_get_dirname (path);
      g_free (path);
      path = up;
    }
  return best;
}

/* The cgroup limits of /proc/self/cgroup under @root into @out. */
static void
cgroup_limits (const char *root, CtrMemoryLimit *out)
{
  g_autofree char *file = g_build_filename (root, "proc", "self", "cgroup", NULL), *text = NULL;
  if (!g_file_get_contents (file, &text, NULL, NULL))
    return;
  g_autofree char *v2 = g_build_filename (root, "sys", "fs", "cgroup", NULL);
  g_autofree char *v1 = g_build_filename (root, "sys", "fs", "cgroup", "memory", NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      /* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
      g_auto (GStrv) f = g_strsplit (*l, ":", 3);
      if (g_strv_length (f) != 3 || f[2][0] != '/')
        continue;
      if (strcmp (f[0], "0") == 0 && f[1][0] == '\0')
        lower (out, hierarchy_min (v2, f[2], "memory.max", G_MAXUINT64), "cgroup v2 limit");
      else
        {
          g_auto (GStrv) controllers = g_strsplit (f[1], ",", -1);
          if (g_strv_contains ((const char *const *) controllers, "memory"))
            lower (out, hierarchy_min (v1, f[2], "memory.limit_in_bytes", V1_UNLIMITED), "cgroup v1 limit");
        }
    }
}

void
ctr_memory_limit_parse (const char *root, guint64 rlimit_as, const char *env_mb, CtrMemoryLimit *out)
{
  out->bytes = G_MAXUINT64;
  out->bound = NULL;
  g_autofree char *meminfo = g_build_filename (root, "proc", "meminfo", NULL), *mi = NULL;
  if (g_file_get_contents (meminfo, &mi, NULL, NULL))
    {
      guint64 avail = proc_kb (mi, "MemAvailable");
      if (avail != G_MAXUINT64)
        lower (out, avail, "available memory");
      else
        lower (out, proc_kb (mi, "MemTotal"), "physical memory");
    }
  cgroup_limits (root, out);
  if (rlimit_as != G_MAXUINT64)
    {
      g_autofree char *status = g_build_filename (root, "proc", "self", "status", NULL), *st = NULL;
      guint64 vm = g_file_get_contents (status, &st, NULL, NULL) ? proc_kb (st, "VmSize") : G_MAXUINT64;
      if (vm == G_MAXUINT64)
        vm = 0;
      lower (out, rlimit_as > vm ? rlimit_as - vm : 0, "address-space limit, ulimit -v");
    }
  if (env_mb != NULL && *env_mb != '\0')
    {
      char *end = NULL;
      double mb = g_ascii_strtod (env_mb, &end);
      if (end != env_mb && *end == '\0' && mb > 0 && mb < 1e12)
        lower (out, (guint64) (mb * 1048576.0), "CTR_MEMORY_LIMIT_MB");
    }
}

void
ctr_memory_limit (CtrMemoryLimit *out)
{
  /* Re-read at most every 100 ms: the available memory changes, and a
   * loader may check many small blocks in a row. */
  static GMutex lock;
  static CtrMemoryLimit cached;
  static gint64 when = G_MININT64;
  g_mutex_lock (&lock);
  const gint64 now = g_get_monotonic_time ();
  if (when == G_MININT64 || now - when >= 100000)
    {
      struct rlimit rl;
      guint64 as = G_MAXUINT64;
      if (getrlimit (RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        as = (guint64) rl.rlim_cur;
      ctr_memory_limit_parse ("/", as, g_getenv ("CTR_MEMORY_LIMIT_MB"), &cached);
      if (cached.bound == NULL)
        {
          long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
          if (pages > 0 && page > 0)
            lower (&cached, ctr_memory_mul ((guint64) pages, (guint64) page), "physical memory");
        }
      if (cached.bound == NULL)
        cached.bound = "no known limit";
      when = now;
    }
  *out = cached;
  g_mutex_unlock (&lock);
}

guint64
ctr_memory_limit_bytes (void)
{
  CtrMemoryLimit l;
  ctr_memory_limit (&l);
  return l.bytes;
}

char *
ctr_memory_limit_describe (void)
{
  CtrMemoryLimit l;
  ctr_memory_limit (&l);
  g_autofree char *have = g_format_size_full (l.bytes, G_FORMAT_SIZE_IEC_UNITS);
  return g_strdup_printf ("%s available (%s)", have, l.bound);
}

gboolean
ctr_memory_check (guint64 bytes, const char *what, GError **error)
{
  CtrMemoryLimit l;
  ctr_memory_limit (&l);
  if (bytes <= l.bytes)
    return TRUE;
  g_autofree char *have = g_format_size_full (l.bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *need = bytes == G_MAXUINT64 ? g_strdup ("more than 16 EiB")
                                               : g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s need%s %s of memory; %s available (%s)",
               what != NULL ? what : "this", what != NULL ? "" : "s", need, have, l.bound);
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
    ctr_memory_set_error (error, bytes, what);
  return p;
}

void
ctr_memory_set_error (GError **error, guint64 bytes, const char *what)
{
  g_autofree char *need = bytes == G_MAXUINT64 ? g_strdup ("more than 16 EiB")
                                               : g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *have = ctr_memory_limit_describe ();
  g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate %s for %s; %s", need,
               what != NULL ? what : "this", have);
}
