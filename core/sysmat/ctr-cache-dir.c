/* ctr-cache-dir.c — the matrix cache's folder (see ctr-cache-dir.h). */
#include "sysmat/ctr-cache-dir.h"
#include "base/ctr-error.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_LEN 64
#define TEMP_TAG ".tmp-"
#define TEMP_RAND 6

int
ctr_cache_dir_temp_new (const char *path, char **tmp_path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf (".%s" TEMP_TAG "XXXXXX", base);
  char *tmpl = g_build_filename (dir, name, NULL);
  int fd = g_mkstemp_full (tmpl, O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 && flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      /* Ours a moment ago and locked by someone else: never happens unless
       * the folder is not ours; give up rather than write unlocked. */
      int e = errno;
      close (fd);
      g_unlink (tmpl);
      fd = -1;
      errno = e;
    }
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write in %s: %s", dir, g_strerror (e));
      g_free (tmpl);
      return -1;
    }
  *tmp_path = tmpl;
  return fd;
}

gboolean
ctr_cache_dir_is_temp_name (const char *name, const char *suffix)
{
  const gsize ls = strlen (suffix), lt = strlen (TEMP_TAG);
  if (strlen (name) != 1 + KEY_LEN + ls + lt + TEMP_RAND || name[0] != '.')
    return FALSE;
  for (guint i = 0; i < KEY_LEN; i++)
    if (!g_ascii_isxdigit (name[1 + i]) || g_ascii_isupper (name[1 + i]))
      return FALSE;
  const char *p = name + 1 + KEY_LEN;
  if (strncmp (p, suffix, ls) != 0 || strncmp (p + ls, TEMP_TAG, lt) != 0)
    return FALSE;
  for (const char *r = p + ls + lt; *r; r++)
    if (!g_ascii_isalnum (*r))
      return FALSE;
  return TRUE;
}

/* Removes @dir/@name when it is an orphaned temporary of ours (see
 * ctr_cache_dir_clean). */
static gboolean
remove_orphan (const char *dir, const char *name, const void *magic, gsize magic_len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  gboolean removed = FALSE;
  struct stat st, now;
  guchar head[64];
  if (magic_len <= sizeof head && fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
      && flock (fd, LOCK_EX | LOCK_NB) == 0
      && pread (fd, head, magic_len, 0) == (ssize_t) magic_len && memcmp (head, magic, magic_len) == 0
      /* still the file we locked, not one renamed into its place */
      && lstat (path, &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev)
    removed = g_unlink (path) == 0;
  close (fd);   /* drops the lock */
  return removed;
}

guint
ctr_cache_dir_clean (const char *dir, const char *suffix, const void *magic, gsize magic_len)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return 0;
  guint n = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    if (ctr_cache_dir_is_temp_name (name, suffix) && remove_orphan (dir, name, magic, magic_len))
      n++;
  g_dir_close (d);
  return n;
}

gboolean
ctr_cache_dir_check_folder (const char *dir, GError **error)
{
  struct stat st;
  if (stat (dir, &st) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot examine %s: %s", dir, g_strerror (e));
      return FALSE;
    }
  const char *why = NULL;
  if (!S_ISDIR (st.st_mode))
    why = "is not a folder";
  else if (st.st_uid != geteuid () && st.st_uid != 0)
    why = "belongs to another user";
  else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
    why = "is writable by others without the sticky bit";
  if (why != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s %s (owner %u, mode %04o)", dir, why,
                   (guint) st.st_uid, (guint) (st.st_mode & 07777));
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_cache_dir_check_file (const struct stat *st, const char *path, GError **error)
{
  const char *why = st->st_uid != geteuid () ? "belongs to another user"
                    : (st->st_mode & (S_IWGRP | S_IWOTH)) != 0 ? "is writable by others"
                    : NULL;
  if (why != NULL)
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s %s (owner %u, mode %04o)", path, why,
                 (guint) st->st_uid, (guint) (st->st_mode & 07777));
  return why == NULL;
}

guint64
ctr_cache_dir_cap_bytes (void)
{
  const char *v = g_getenv ("CTR_CACHE_MAX_MB");
  guint64 mb = CTR_CACHE_DIR_DEFAULT_MAX_MB;
  if (v != NULL && *v != '\0')
    {
      char *end = NULL;
      const guint64 n = g_ascii_strtoull (v, &end, 10);
      if (end != v && *end == '\0' && v[0] != '-')
        mb = n;
    }
  return mb > G_MAXUINT64 / 1048576 ? G_MAXUINT64 : mb * 1048576;
}

void
ctr_cache_dir_touch (const char *path)
{
  const struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
  utimensat (AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
}

/* Whether @name is exactly a cache file's name, "KEY@suffix". */
static gboolean
is_cache_name (const char *name, const char *suffix)
{
  if (strlen (name) != KEY_LEN + strlen (suffix) || strcmp (name + KEY_LEN, suffix) != 0)
    return FALSE;
  for (guint i = 0; i < KEY_LEN; i++)
    if (!g_ascii_isxdigit (name[i]) || g_ascii_isupper (name[i]))
      return FALSE;
  return TRUE;
}

/* Whether @path is a cache file of ours (see ctr_cache_dir_trim); @st: its
 * lstat. */
static gboolean
is_ours (const char *path, const void *magic, gsize magic_len, struct stat *st)
{
  guchar head[64];
  if (magic_len > sizeof head || lstat (path, st) != 0 || !S_ISREG (st->st_mode) || st->st_uid != geteuid ())
    return FALSE;
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  const gboolean ok = pread (fd, head, magic_len, 0) == (ssize_t) magic_len && memcmp (head, magic, magic_len) == 0;
  close (fd);
  return ok;
}

typedef struct {
  char *path;
  guint64 bytes;
  struct timespec used;
} Entry;

static int
entry_cmp (const void *a, const void *b)
{
  const Entry *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

guint64
ctr_cache_dir_trim (const char *dir, const char *suffix, const void *magic, gsize magic_len, guint64 room,
                    guint64 cap)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return 0;
  GArray *files = g_array_new (FALSE, FALSE, sizeof (Entry));
  guint64 total = 0, removed = 0;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      struct stat st;
      g_autofree char *path = is_cache_name (name, suffix) ? g_build_filename (dir, name, NULL) : NULL;
      if (path == NULL || !is_ours (path, magic, magic_len, &st))
        continue;
      Entry e = { g_steal_pointer (&path), (guint64) st.st_size, st.st_atim };
      g_array_append_val (files, e);
      total += e.bytes;
    }
  g_dir_close (d);
  g_array_sort (files, entry_cmp);   /* (qsort of an empty array would pass NULL) */
  for (guint i = 0; i < files->len; i++)
    {
      Entry *e = &g_array_index (files, Entry, i);
      if (total + room > cap && g_unlink (e->path) == 0)
        {
          total -= e->bytes;
          removed += e->bytes;
        }
      g_free (e->path);
    }
  g_array_free (files, TRUE);
  return removed;
}
