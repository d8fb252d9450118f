/* ctr-file.c — see ctr-file.h. */
#include "ctr-file.h"
#include "ctr-error.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

static gboolean
regular_or_error (const char *path, const struct stat *st, GError **error)
{
  if (S_ISREG (st->st_mode))
    return TRUE;
  const char *what = S_ISDIR (st->st_mode) ? NULL : S_ISFIFO (st->st_mode) ? "a FIFO"
                     : S_ISCHR (st->st_mode) ? "a character device" : S_ISBLK (st->st_mode) ? "a block device"
                     : S_ISSOCK (st->st_mode) ? "a socket" : "a special file";
  if (what == NULL)
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s is a folder, not a file", path);
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s is not a regular file (it is %s)", path, what);
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
