/* fuzz-common.c — see fuzz-common.h. */
#include "fuzz-common.h"

#include <glib/gstdio.h>
#include <stdlib.h>

static char *dir;

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *d = g_dir_open (path, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      if (d != NULL)
        g_dir_close (d);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
remove_dir (void)
{
  if (dir != NULL)
    remove_tree (dir);
}

const char *
fuzz_dir (void)
{
  if (dir == NULL)
    {
      dir = g_dir_make_tmp ("ctr-fuzz-XXXXXX", NULL);
      g_assert (dir != NULL);
      atexit (remove_dir);
    }
  return dir;
}

char *
fuzz_write (const char *name, const uint8_t *data, size_t size)
{
  char *path = g_build_filename (fuzz_dir (), name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  g_mkdir_with_parents (parent, 0700);
  if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL))
    g_error ("cannot write %s", path);
  return path;
}

void
fuzz_remove (const char *name)
{
  g_autofree char *path = g_build_filename (fuzz_dir (), name, NULL);
  remove_tree (path);
}

void
fuzz_setup (void)
{
  static gboolean done = FALSE;
  if (done)
    return;
  done = TRUE;
  g_setenv ("CTR_MEMORY_LIMIT_MB", "1024", FALSE);
  g_setenv ("OMP_NUM_THREADS", "1", FALSE);
  g_setenv ("CTR_MATRIX_CACHE", "0", TRUE);
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  fuzz_init ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_setup ();
  return 0;
}
