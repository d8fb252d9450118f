/* cli-simulate-dose.c — `ctrecon-cli simulate-dose DATASET --fraction F
 * --output DIR`: the same scan at F × the dose (core/sim/ctr-dose.h), written as
 * a new dataset (geometry.json + TIFFs, core/io/ctr-dataset-write.h) that
 * `reconstruct` reads.  The input is only read.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"

/* The "dose" record of the new geometry.json: where it came from and how. */
static JsonObject *
dose_record (const CtrDataset *d, const CtrDoseOptions *o, const CtrDoseReport *r)
{
  JsonObject *dose = json_object_new ();
  json_object_set_string_member (dose, "source", d->path);
  if (d->variant != NULL)
    json_object_set_string_member (dose, "source_variant", d->variant);
  json_object_set_double_member (dose, "fraction", o->fraction);
  json_object_set_string_member (dose, "model", ctr_dose_model_name (r->model));
  json_object_set_string_member (dose, "reason", r->reason);
  json_object_set_double_member (dose, "source_I0_photons_per_bin", r->i0_in);
  json_object_set_double_member (dose, "I0_photons_per_bin", r->i0_out);
  json_object_set_double_member (dose, "electronic_noise_sd_counts", o->electronic_sd);
  json_object_set_int_member (dose, "seed", (gint64) o->seed);
  json_object_set_int_member (dose, "zero_count_rays", (gint64) r->n_zero);

  JsonObject *extra = json_object_new ();
  json_object_set_object_member (extra, "dose", dose);
  if (d->mu_water > 0)
    json_object_set_double_member (extra, "mu_water_per_mm", d->mu_water);
  JsonArray *notes = json_array_new ();
  g_autofree char *n1 = g_strdup_printf ("Simulated by ctrecon-cli simulate-dose from %s: %g x the dose "
                                         "(%s), I0 %.6g -> %.6g photons per bin, seed %" G_GUINT64_FORMAT ".",
                                         d->path, o->fraction, ctr_dose_model_name (r->model), r->i0_in,
                                         r->i0_out, o->seed);
  json_array_add_string_element (notes, n1);
  json_array_add_string_element (notes, "Bins left without a count read as half a photon: "
                                        "b = -ln(0.5 / I0).");
  json_object_set_array_member (extra, "notes", notes);
  return extra;
}

int
ctr_cli_simulate_dose (int argc, char **argv)
{
  g_autofree char *output = NULL, *variant = NULL, *model = NULL;
  double fraction = 0, electronic = 0, i0 = 0;
  gint64 seed = 1;
  GOptionEntry entries[] = {
    { "fraction", 'f', 0, G_OPTION_ARG_DOUBLE, &fraction, "the new dose as a fraction of the data's, in (0, 1] (required)", "F" },
    { "electronic-noise", 0, 0, G_OPTION_ARG_DOUBLE, &electronic, "standard deviation of Gaussian electronic noise added to every count (default 0)", "SIGMA" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "random seed (default 1); the same seed gives the same scan", "N" },
    { "i0", 0, 0, G_OPTION_ARG_DOUBLE, &i0, "photons per bin of the data's open beam, for line integrals whose dataset does not state \"I0\"", "PHOTONS" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "auto (default), thin (binomial thinning of the counts) or resample (Poisson re-sampling of noiseless line integrals)", "M" },
    { "variant", 0, 0, G_OPTION_ARG_STRING, &variant, "start from this entry of the dataset's \"variants\"", "NAME" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "new dataset folder (must not exist or be empty)", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json|DICOM — simulate the same scan at a lower dose");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "Raw counts are thinned binomially (exactly Poisson at F x I0); line integrals need I0 (the\n"
      "dataset's \"I0\", DICOM-CT-PD PhotonStatistics or --i0): their counts I0 exp(-b) are thinned\n"
      "when the data are a noisy scan, re-sampled from Poisson(F I0 exp(-b)) when noiseless.\n"
      "Writes DIR/geometry.json, DIR/projections.tif (and flat.tif, reference.tif).");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || output == NULL || fraction == 0)
    {
      fprintf (stderr, "ctrecon-cli simulate-dose: give one GEOMETRY.json or DICOM, --fraction F and --output DIR\n");
      return 2;
    }
  if (seed < 0)
    {
      fprintf (stderr, "ctrecon-cli simulate-dose: --seed must be at least 0\n");
      return 2;
    }

  g_autoptr (GError) error = NULL;
  CtrDoseOptions o;
  ctr_dose_options_init (&o);
  o.fraction = fraction;
  o.electronic_sd = electronic;
  o.seed = (guint64) seed;
  o.i0 = i0;
  if (model != NULL && !ctr_dose_model_from_name (model, &o.model, &error))
    return ctr_cli_fail (error);

  /* Before any work: the output folder must be new or empty. */
  if (!ctr_dataset_write_check (output, &error))
    return ctr_cli_fail (error);
  fprintf (stderr, "loading %s…\n", argv[1]);
  g_autoptr (CtrDataset) d = ctr_dataset_load (argv[1], variant, NULL, &error);
  if (d == NULL)
    return ctr_cli_fail (error);
  ctr_cli_print_warnings (d);
  /* The new dataset never replaces an input; written under a hidden name
   * and renamed into place (io/ctr-output-set.h). */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (d);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_DATASET, "--output");
  if (!ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);

  CtrDoseReport report;
  g_autofree float *counts = NULL;
  g_autoptr (CtrProjections) low = ctr_dose_simulate (d->projections, &o, &report, &counts, &error);
  if (low == NULL)
    {
      int status = ctr_cli_fail (error);
      if (g_error_matches (error, CTR_ERROR, CTR_ERROR_INVALID_DATA) && i0 == 0)
        fprintf (stderr, "ctrecon-cli: give --i0 PHOTONS when you know the photons per bin of this scan\n");
      return status;
    }
  fprintf (stderr, "%s: %s\n", ctr_dose_model_name (report.model), report.reason);
  if (report.warning != NULL)
    fprintf (stderr, "ctrecon-cli: warning: %s\n", report.warning);
  fprintf (stderr, "I0 %.6g → %.6g photons per bin (sinogram's own estimate %.4g); %" G_GSIZE_FORMAT
           " ray(s) left without a count\n", report.i0_in, report.i0_out, report.i0_sinogram, report.n_zero);

  g_autofree char *name = g_strdup_printf ("%s at %g x dose", d->name, fraction);
  JsonObject *extra = dose_record (d, &o, &report);
  const char *stage = ctr_output_set_stage (outputs, out_index, &error);
  gboolean ok = stage != NULL && ctr_dataset_write (stage, name, d->geometry, low, counts, d->reference, extra, &error)
                && ctr_output_set_commit (outputs, &error);
  json_object_unref (extra);
  ctr_dose_report_clear (&report);
  if (!ok)
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  fprintf (stderr, "wrote %s/geometry.json\n", output);
  return 0;
}
