/* fuzz-replay-main.c — a harness of tests/fuzz without libFuzzer: runs
 * LLVMFuzzerTestOneInput on every file named on the command line and every
 * file in the folders named there (the committed corpus and reproducers),
 * so the normal and the sanitizer suites replay them with gcc. */
#include "fuzz-common.h"

#include <stdio.h>

static guint n_inputs;

static void
replay (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < names->len; i++)
        replay (names->pdata[i]);
      return;
    }
  g_autofree char *data = NULL;
  gsize size = 0;
  if (!g_file_get_contents (path, &data, &size, NULL))
    g_error ("cannot read %s", path);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, size);
  n_inputs++;
}

int
main (int argc, char **argv)
{
  fuzz_setup ();
  for (int i = 1; i < argc; i++)
    replay (argv[i]);
  printf ("replayed %u inputs\n", n_inputs);
  return n_inputs > 0 ? 0 : 1;
}
