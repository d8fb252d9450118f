/* cli-calibrate-water.c — `ctrecon-cli calibrate-water WATER.json --output
 * STEP.json [--degree D] [--mu-per-mm MU] [--cylinder X,Y,R]`: beam-hardening coefficients
 * measured from a scan of a water cylinder (core/preprocess/ctr-beamhard-water.h),
 * written as a "preprocess" pipeline of one step,
 *   [{"op": "beam-hardening", "coefficients": [a1, …], "note": …}]
 * that `reconstruct --preprocess STEP.json` (or a geometry.json's
 * "preprocess") applies to other scans of the same spectrum and filtration.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "base/ctr-hu.h"
#include "preprocess/ctr-beamhard.h"
#include "preprocess/ctr-beamhard-water.h"

static char *
step_text (const double *a, int degree)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "op");
  json_builder_add_string_value (b, "beam-hardening");
  json_builder_set_member_name (b, "coefficients");
  json_builder_begin_array (b);
  for (int k = 0; k < degree; k++)
    json_builder_add_double_value (b, a[k]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

int
ctr_cli_calibrate_water (int argc, char **argv)
{
  g_autofree char *output = NULL;
  int degree = CTR_BEAMHARD_DEFAULT_DEGREE;
  double mu = CTR_MU_WATER_PER_MM;
  g_autofree char *cylinder_arg = NULL;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "write the \"preprocess\" step (a JSON list for --preprocess) here (required)", "PATH" },
    { "degree", 0, 0, G_OPTION_ARG_INT, &degree, "degree of the polynomial, 1 to 6 (default 3)", "D" },
    { "mu-per-mm", 0, 0, G_OPTION_ARG_DOUBLE, &mu, "μ of water the corrected data should have, 1/mm (default 0.0192)", "MU" },
    { "cylinder", 0, 0, G_OPTION_ARG_STRING, &cylinder_arg,
      "the cylinder stated: centre x, y and radius in mm (default: found from its shadow)", "X,Y,R" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("WATER.json — beam-hardening coefficients from a water-cylinder scan");
  g_option_context_set_description (ctx,
    "WATER.json is a scan of one water cylinder standing along z (centred or not, nothing else in the\n"
    "beam): parallel, fan (flat or curved detector) or circular cone beam. The edges of its shadow in\n"
    "every view are rays touching it: they give its centre and radius (or --cylinder states them).\n"
    "The ideal line integrals μ·L, L each ray's path through the cylinder in the scan's geometry,\n"
    "are fitted by p' = a1 p + … + aD p^D over the rays through the water (least squares,\n"
    "Herman 1979; the water-scan calibration of Kachelrieß et al. 2006). The residual is reported.\n"
    "Apply the result to scans of the same tube and filter: reconstruct SCAN.json --preprocess PATH.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, "ctrecon-cli calibrate-water: give one WATER.json and --output PATH\n");
      return 2;
    }
  if (degree < 1 || degree > CTR_BEAMHARD_MAX_DEGREE || !(mu > 0 && mu < 100))
    {
      fprintf (stderr, "ctrecon-cli calibrate-water: --degree must be 1 to %d and --mu-per-mm a positive number\n",
               CTR_BEAMHARD_MAX_DEGREE);
      return 2;
    }
  double cylinder[3];
  if (cylinder_arg != NULL
      && (sscanf (cylinder_arg, "%lf,%lf,%lf", &cylinder[0], &cylinder[1], &cylinder[2]) != 3
          || !isfinite (cylinder[0]) || !isfinite (cylinder[1]) || !(cylinder[2] > 0 && cylinder[2] < 1e6)))
    {
      fprintf (stderr, "ctrecon-cli calibrate-water: --cylinder takes X,Y,R in mm (a finite centre, a radius above 0)\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (NULL);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_FILE, "--output");
  if (!ctr_output_set_add_geometry (outputs, argv[1], &error) || !ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);
  g_autoptr (CtrDataset) d = ctr_dataset_load (argv[1], NULL, NULL, &error);
  if (d == NULL)
    return ctr_cli_fail (error);
  ctr_cli_print_warnings (d);
  double a[CTR_BEAMHARD_MAX_DEGREE];
  CtrWaterFit fit;
  if (!ctr_beamhard_fit_water_scan (d->geometry, d->projections, mu, degree, cylinder_arg != NULL ? cylinder : NULL, a,
                                    &fit, &error))
    {
      g_prefix_error (&error, "%s: ", argv[1]);
      return ctr_cli_fail (error);
    }
  g_autofree char *text = step_text (a, degree);
  if (!ctr_output_set_write_text (outputs, out_index, text, -1, &error) || !ctr_output_set_commit (outputs, &error))
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  g_autofree char *how = cylinder_arg != NULL ? g_strdup ("stated")
                          : g_strdup_printf ("its shadow's edges %.2f %% of the radius off its circle, RMS",
                                             100 * fit.edge_spread);
  printf ("water cylinder: centre (%.2f, %.2f) mm, radius %.2f mm (%s), largest line integral %.4f\n",
          fit.centre_mm[0], fit.centre_mm[1], fit.radius_mm, how, fit.p_max);
  printf ("fit over %" G_GUINT64_FORMAT " rays: RMS residual %.3g, largest %.3g (line-integral units)\n",
          fit.n_rays, fit.rms_residual, fit.max_residual);
  printf ("coefficients:");
  for (int k = 0; k < degree; k++)
    printf (" %.6g", a[k]);
  printf ("\n%s: written\n", output);
  return 0;
}
