/* cli-montage.c — `ctrecon-cli montage --reference REF.tif IMAGE.tif… -o
 * OUT.png`: the reference and the images side by side in HU, each captioned
 * with its display window, optionally followed by the difference of the last
 * image and the reference (core/study/ctr-montage.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-common.h"
#include "study/ctr-montage.h"

typedef struct {
  char *reference, *reference_caption, *output, *window, *title, *difference_caption, *dataset;
  char **captions;
  double mu_water, difference_window;
  gboolean difference;
  int zoom, slice;
} MontageArgs;

static void
args_clear (MontageArgs *a)
{
  g_free (a->reference);
  g_free (a->reference_caption);
  g_free (a->output);
  g_free (a->window);
  g_free (a->title);
  g_free (a->difference_caption);
  g_free (a->dataset);
  g_strfreev (a->captions);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (MontageArgs, args_clear)

/* "L,W" in HU. */
static gboolean
parse_window (const char *text, double *level, double *width)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  if (g_strv_length (parts) != 2)
    return FALSE;
  char *end1 = NULL, *end2 = NULL;
  *level = g_ascii_strtod (parts[0], &end1);
  *width = g_ascii_strtod (parts[1], &end2);
  return end1 != parts[0] && *end1 == '\0' && end2 != parts[1] && *end2 == '\0' && isfinite (*level)
         && isfinite (*width) && *width > 0;
}

/* Slice @slice of the TIFF @path as a volume (its own shape). */
static CtrVolume *
read_slice (const char *path, int slice, GError **error)
{
  CtrTiffInfo info;
  g_autoptr (CtrVolume) v = ctr_cli_read_volume (path, 1.0, &info, error);
  if (v == NULL)
    return NULL;
  if (slice < 0 || (guint) slice >= v->grid.nz)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s has %u slice%s: no slice %d", path,
                   v->grid.nz, v->grid.nz == 1 ? "" : "s", slice);
      return NULL;
    }
  CtrGrid g = v->grid;
  g.nz = 1;
  CtrVolume *s = ctr_volume_new (&g, error);
  if (s != NULL)
    memcpy (s->data, ctr_volume_slice (v, (guint) slice), ctr_grid_slice_size (&g) * sizeof (float));
  return s;
}

static int
usage_error (const char *message)
{
  fprintf (stderr, "ctrecon-cli montage: %s\n", message);
  return 2;
}

/* Reads the images, checks their shapes, writes the PNG. */
static int
run (MontageArgs *a, int n_images, char **images)
{
  double level, width;
  if (!parse_window (a->window, &level, &width))
    return usage_error ("--window: expected LEVEL,WIDTH in HU with a positive width (e.g. 40,80)");
  g_autoptr (GPtrArray) volumes = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_volume_unref);
  g_autoptr (GError) error = NULL;
  for (int i = -1; i < n_images; i++)
    {
      const char *path = i < 0 ? a->reference : images[i];
      CtrVolume *v = read_slice (path, a->slice, &error);
      if (v == NULL)
        return ctr_cli_fail (error);
      g_ptr_array_add (volumes, v);
      const CtrVolume *ref = g_ptr_array_index (volumes, 0);
      if (v->grid.nx != ref->grid.nx || v->grid.ny != ref->grid.ny)
        {
          fprintf (stderr, "ctrecon-cli montage: %s is %u × %u pixels, the reference %u × %u\n", path,
                   v->grid.nx, v->grid.ny, ref->grid.nx, ref->grid.ny);
          return 1;
        }
    }
  const CtrVolume *ref = g_ptr_array_index (volumes, 0), *last = g_ptr_array_index (volumes, n_images);
  const gsize n = ctr_grid_slice_size (&ref->grid);
  g_autofree float *diff = g_new (float, n);
  for (gsize k = 0; k < n; k++)
    diff[k] = last->data[k] - ref->data[k];

  g_autofree char *diff_caption = g_strdup_printf ("%s − %s", a->captions[n_images - 1],
                                                   a->reference_caption ? a->reference_caption : "reference");
  g_autofree CtrMontageTile *tiles = g_new0 (CtrMontageTile, n_images + 2);
  guint n_tiles = 0;
  for (int i = -1; i < n_images; i++)
    {
      const CtrVolume *v = g_ptr_array_index (volumes, i + 1);
      tiles[n_tiles++] = (CtrMontageTile) { v->data, v->grid.nx, v->grid.ny,
                                            i < 0 ? (a->reference_caption ? a->reference_caption : "Reference")
                                                  : a->captions[i],
                                            level, width, FALSE };
    }
  if (a->difference)
    tiles[n_tiles++] = (CtrMontageTile) { diff, ref->grid.nx, ref->grid.ny,
                                          a->difference_caption ? a->difference_caption : diff_caption, 0,
                                          a->difference_window, TRUE };
  const char *others[n_images + 3];
  others[0] = a->reference;
  for (int i = 0; i < n_images; i++)
    others[i + 1] = images[i];
  others[n_images + 1] = NULL;
  if (!ctr_output_path_check (a->output, CTR_OUTPUT_FILE, NULL, others, &error)
      || !ctr_montage_write_png (tiles, n_tiles, a->mu_water, (guint) a->zoom, a->title, a->output, &error))
    return ctr_cli_fail (error);
  fprintf (stderr, "wrote %s (%u images)\n", a->output, n_tiles);
  return 0;
}

int
ctr_cli_montage (int argc, char **argv)
{
  g_auto (MontageArgs) a = { .difference_window = 200, .zoom = 2 };
  GOptionEntry entries[] = {
    { "reference", 'r', 0, G_OPTION_ARG_FILENAME, &a.reference, "the first image, and what --difference subtracts (float32 TIFF, 1/mm)", "REF.tif" },
    { "reference-caption", 0, 0, G_OPTION_ARG_STRING, &a.reference_caption, "its caption (default \"Reference\")", "TEXT" },
    { "caption", 'c', 0, G_OPTION_ARG_STRING_ARRAY, &a.captions, "caption of the next IMAGE (repeat: one per image, in order)", "TEXT" },
    { "window", 'w', 0, G_OPTION_ARG_STRING, &a.window, "display window of the images, LEVEL,WIDTH in HU (default 40,80: brain)", "L,W" },
    { "difference", 'd', 0, G_OPTION_ARG_NONE, &a.difference, "add the last image minus the reference, centred on 0 HU", NULL },
    { "difference-window", 0, 0, G_OPTION_ARG_DOUBLE, &a.difference_window, "width of the difference's window in HU (default 200: ±100 HU)", "W" },
    { "difference-caption", 0, 0, G_OPTION_ARG_STRING, &a.difference_caption, "its caption (default \"LAST − Reference\")", "TEXT" },
    { "mu-water", 0, 0, G_OPTION_ARG_DOUBLE, &a.mu_water, "μ_water in 1/mm for HU (default: --dataset's, else 0.0192)", "MU" },
    { "dataset", 0, 0, G_OPTION_ARG_FILENAME, &a.dataset, "take μ_water from this dataset (geometry.json \"mu_water_per_mm\" or DICOM HUCalibrationFactor), as reconstruct and study do", "GEOMETRY.json" },
    { "zoom", 0, 0, G_OPTION_ARG_INT, &a.zoom, "screen pixels per image pixel, 1 to 8 (default 2)", "K" },
    { "slice", 0, 0, G_OPTION_ARG_INT, &a.slice, "page of the TIFFs (default 0)", "Z" },
    { "title", 't', 0, G_OPTION_ARG_STRING, &a.title, "a line above the images", "TEXT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &a.output, "the PNG to write", "OUT.png" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("IMAGE.tif… — images side by side in HU, captioned with their window (PNG)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "The reference, then every IMAGE (float32 TIFFs of one size, 1/mm), in one row, each captioned\n"
      "and with its window stated under it; --difference adds the last image minus the reference.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (a.reference == NULL || a.output == NULL)
    return usage_error ("give --reference REF.tif and --output OUT.png");
  if (argc < 2)
    return usage_error ("give at least one IMAGE.tif besides the reference");
  if (a.captions == NULL || g_strv_length (a.captions) != (guint) (argc - 1))
    {
      fprintf (stderr, "ctrecon-cli montage: %d image%s and %u --caption: give one caption per image\n", argc - 1,
               argc == 2 ? "" : "s", a.captions ? g_strv_length (a.captions) : 0);
      return 2;
    }
  if (!(a.difference_window > 0) || !isfinite (a.difference_window))
    return usage_error ("--difference-window must be a positive number of HU");
  if (a.window == NULL)
    a.window = g_strdup ("40,80");
  if (a.dataset != NULL && a.mu_water == 0)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrDataset) d = ctr_dataset_load (a.dataset, NULL, NULL, &error);
      if (d == NULL)
        return ctr_cli_fail (error);
      a.mu_water = d->mu_water > 0 ? d->mu_water : CTR_MU_WATER_PER_MM;
    }
  else if (a.mu_water == 0)
    a.mu_water = CTR_MU_WATER_PER_MM;
  return run (&a, argc - 1, argv + 1);
}
