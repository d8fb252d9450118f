/* ctr-file.c — see ctr-file.h. */
#include "io/ctr-file.h"
#include "base/ctr-error.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

const char *
ctr_file_kind_name (unsigned int m)
{
  return S_ISREG (m) ? "a regular file" : S_ISDIR (m) ? "a folder" : S_ISFIFO (m) ? "a FIFO"
         : S_ISCHR (m) ? "a character device" : S_ISBLK (m) ? "a block device"
         : S_ISSOCK (m) ? "a socket" : "a special file";
}

void
ctr_file_remove_folder (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (dir, name, NULL);
          g_unlink (p);
        }
      g_dir_close (d);
    }
  g_rmdir (dir);
}

static gboolean
regular_or_error (const char *path, const struct stat *st, GError **error)
{
  if (S_ISREG (st->st_mode))
    return TRUE;
  if (S_ISDIR (st->st_mode))
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s is a folder, not a file", path);
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s is not a regular file (it is %s)", path,
                 ctr_file_kind_name (st->st_mode));
  return FALSE;
}

gboolean
ctr_file_check_regular (const char *path, GError **error)
{
  struct stat st;
  if (stat (path, &st) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot open %s: %s", path, g_strerror (e));
      return FALSE;
    }
  return regular_or_error (path, &st, error);
}

int
ctr_file_open_regular (const char *path, GError **error)
{
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot open %s: %s", path, g_strerror (e));
      return -1;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || !regular_or_error (path, &st, error))
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot open %s", path);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

gboolean
ctr_file_check_new_folder (const char *dir, GError **error)
{
  g_return_val_if_fail (dir != NULL, FALSE);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autoptr (GError) local = NULL;
  GDir *d = g_dir_open (dir, 0, &local);
  if (d == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s exists and is not a readable folder: %s", dir,
                   local->message);
      return FALSE;
    }
  gboolean empty = g_dir_read_name (d) == NULL;
  g_dir_close (d);
  if (!empty)
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO,
                 "%s exists and is not empty; choose a new folder (nothing was written)", dir);
  return empty;
}
