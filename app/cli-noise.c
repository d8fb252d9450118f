/* cli-noise.c — `ctrecon-cli noise DATASET`: the noise level of the data
 * (core/data/ctr-noise.h) as one JSON object on stdout:
 *
 *   {"dataset": "...", "variant": null, "source": "statistics"|"sinogram",
 *    "i0": 25000.0, "i0_sinogram": 24953.1, "sigma": 0.0213, "rays": 529920}
 *
 * i0: photons per bin the data state (flat − dark or I0) or, without them,
 * the sinogram's estimate; infinite values (a noiseless sinogram) are null.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"

int
ctr_cli_noise (int argc, char **argv)
{
  g_autofree char *variant = NULL;
  GOptionEntry entries[] = {
    { "variant", 0, 0, G_OPTION_ARG_STRING, &variant, "load this entry of the dataset's \"variants\"", "NAME" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json|DICOM — noise level of the data (JSON on stdout)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2)
    {
      fprintf (stderr, "ctrecon-cli noise: give exactly one GEOMETRY.json or DICOM\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (argv[1], variant, NULL, &error);
  if (d == NULL)
    return ctr_cli_fail (error);
  ctr_cli_print_warnings (d);
  CtrNoiseLevel level;
  if (!ctr_noise_estimate (d->geometry, d->projections, &level, &error))
    return ctr_cli_fail (error);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "dataset");
  json_builder_add_string_value (b, d->path);
  json_builder_set_member_name (b, "variant");
  if (d->variant != NULL)
    json_builder_add_string_value (b, d->variant);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, level.source == CTR_NOISE_FROM_STATISTICS ? "statistics" : "sinogram");
  ctr_cli_json_number (b, "i0", level.i0);
  ctr_cli_json_number (b, "i0_sinogram", level.i0_sinogram);
  ctr_cli_json_number (b, "sigma", level.sigma);
  json_builder_set_member_name (b, "rays");
  json_builder_add_int_value (b, (gint64) level.n_rays);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  return 0;
}
