/* preprocess-dump: a test driver (tests/cli/test_preprocess.py).
 *
 *   preprocess-dump GEOMETRY.json OUT.raw [PIPELINE.json]
 *
 * Loads the dataset as every entry point does (ctr_dataset_load: flat/dark,
 * then the file's "preprocess" pipeline, or PIPELINE.json's instead) and
 * writes its line integrals as raw float32 [view][row][col], native byte
 * order; the loader's warnings (each step's effect) go to stderr.  Exit 1
 * with the error's message and code when the load fails.
 */
#include "ctrecon.h"

#include <stdio.h>

int
main (int argc, char **argv)
{
  if (argc != 3 && argc != 4)
    {
      fprintf (stderr, "usage: preprocess-dump GEOMETRY.json OUT.raw [PIPELINE.json]\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPipeline) pl = NULL;
  if (argc == 4)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      if (!json_parser_load_from_file (parser, argv[3], &error)
          || (pl = ctr_pipeline_from_json (json_parser_get_root (parser), argv[3], &error)) == NULL)
        {
          fprintf (stderr, "error %d: %s\n", error->code, error->message);
          return 1;
        }
    }
  g_autoptr (CtrDataset) d = ctr_dataset_load_preprocessed (argv[1], NULL, pl, NULL, &error);
  if (d == NULL)
    {
      fprintf (stderr, "error %d: %s\n", error->code, error->message);
      return 1;
    }
  for (guint i = 0; d->warnings != NULL && d->warnings[i] != NULL; i++)
    fprintf (stderr, "warning: %s\n", d->warnings[i]);
  const CtrProjections *p = d->projections;
  const gsize n = (gsize) p->n_views * p->n_rows * p->n_cols;
  if (!g_file_set_contents (argv[2], (const char *) p->data, (gssize) (n * sizeof (float)), &error))
    {
      fprintf (stderr, "error %d: %s\n", error->code, error->message);
      return 1;
    }
  return 0;
}
