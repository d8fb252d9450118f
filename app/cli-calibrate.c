/* cli-calibrate.c — `ctrecon-cli calibrate GEOMETRY.json --output
 * CALIBRATED.json [--json REPORT.json]`: where the rotation axis (parallel
 * beam) or the central ray (fan, cone) meets the detector, found from the
 * projections (core/calib/ctr-calib.h), written as a new geometry.json with
 * the detector offset along u replaced and every other key kept.
 *
 * REPORT.json: {"geometry", "type", "centre_column", "centre_column_uncertainty",
 *   "detector_offset_u_mm" (or "_rad"), "detector_offset_u_uncertainty",
 *   "stated_centre_column", "stated_detector_offset_u", "detector_tilt_rad",
 *   "detector_tilt_uncertainty_rad" (parallel beam with rows in 3 blocks:
 *   the tilt left in the loaded data), "stated_detector_tilt_rad" (the
 *   input's "detector_tilt_rad", 0 when absent), "written_detector_tilt_rad"
 *   (stated + measured when the measured tilt exceeds twice its
 *   uncertainty, else null: the key is then left as it was), "methods_disagree",
 *   "methods": [{"method", "cross_check", "ok", "centre_column", "uncertainty", "quality",
 *   "used", "detector_offset_u", "centre_column_per_row",
 *   "centre_column_per_row_uncertainty", "note"}]}; unknown numbers are null.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "cli-signals.h"
#include "io/ctr-json.h"

static void
add_estimate (JsonBuilder *b, const CtrGeometry *g, const CtrCalibEstimate *e)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, ctr_calib_method_name (e->method));
  json_builder_set_member_name (b, "cross_check");
  json_builder_add_boolean_value (b, e->cross_check);
  json_builder_set_member_name (b, "ok");
  json_builder_add_boolean_value (b, e->ok);
  ctr_cli_json_number (b, "centre_column", e->centre_col);
  ctr_cli_json_number (b, "uncertainty", e->sigma_col);
  ctr_cli_json_number (b, "quality", e->ok ? e->quality : NAN);
  json_builder_set_member_name (b, "used");
  json_builder_add_int_value (b, (gint64) e->used);
  ctr_cli_json_number (b, "detector_offset_u", ((g->n_cols - 1) / 2.0 - e->centre_col) * g->pitch_u);
  ctr_cli_json_number (b, "centre_column_per_row", e->slope);
  ctr_cli_json_number (b, "centre_column_per_row_uncertainty", e->sigma_slope);
  json_builder_set_member_name (b, "note");
  json_builder_add_string_value (b, e->note);
  json_builder_end_object (b);
}

static char *
report_text (const char *path, const CtrGeometry *g, const CtrCalibResult *r, double stated_tilt,
             double written_tilt)
{
  const gboolean curved = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "geometry");
  json_builder_add_string_value (b, path);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, g->beam == CTR_BEAM_PARALLEL ? "parallel" : g->beam == CTR_BEAM_FAN ? "fan" : "cone");
  ctr_cli_json_number (b, "centre_column", r->centre_col);
  ctr_cli_json_number (b, "centre_column_uncertainty", r->sigma_col);
  ctr_cli_json_number (b, curved ? "detector_offset_u_rad" : "detector_offset_u_mm", r->offset_u);
  ctr_cli_json_number (b, "detector_offset_u_uncertainty", r->sigma_offset_u);
  ctr_cli_json_number (b, "stated_centre_column", r->stated_centre_col);
  ctr_cli_json_number (b, "stated_detector_offset_u", g->offset_u);
  ctr_cli_json_number (b, "detector_tilt_rad", r->tilt_rad);
  ctr_cli_json_number (b, "detector_tilt_uncertainty_rad", r->sigma_tilt_rad);
  ctr_cli_json_number (b, "stated_detector_tilt_rad", stated_tilt);
  ctr_cli_json_number (b, "written_detector_tilt_rad", written_tilt);
  json_builder_set_member_name (b, "methods_disagree");
  json_builder_add_boolean_value (b, r->disagree);
  json_builder_set_member_name (b, "methods");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->n_estimates; i++)
    add_estimate (b, g, &r->estimates[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

static void
print_result (const CtrGeometry *g, const CtrCalibResult *r, double stated_tilt, double written_tilt)
{
  const char *unit = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED ? "rad" : "mm";
  for (guint i = 0; i < r->n_estimates; i++)
    {
      const CtrCalibEstimate *e = &r->estimates[i];
      if (e->ok)
        printf ("%-9s%s centre column %.3f ± %.3f (quality %.3f)%s%s\n", ctr_calib_method_name (e->method),
                e->cross_check ? " (cross-check)" : "", e->centre_col, e->sigma_col, e->quality, e->note[0] ? ": " : "", e->note);
      else
        printf ("%-9s not used: %s\n", ctr_calib_method_name (e->method), e->note);
    }
  printf ("%s column %.3f ± %.3f: detector_offset_u_%s = %.6g ± %.3g (the geometry stated %.6g, column %.3f)\n",
          g->beam == CTR_BEAM_PARALLEL ? "axis at" : "central ray at", r->centre_col, r->sigma_col, unit, r->offset_u,
          r->sigma_offset_u, g->offset_u, r->stated_centre_col);
  if (isfinite (r->tilt_rad))
    printf ("detector tilt %.4f° ± %.4f° left in the data (the axis's image leans towards +u as v grows when "
            "positive; the geometry stated %.4f°): %s\n", r->tilt_rad * 180 / G_PI, r->sigma_tilt_rad * 180 / G_PI,
            stated_tilt * 180 / G_PI, isfinite (written_tilt) ? "detector_tilt_rad written"
            : fabs (r->tilt_rad) <= 2 * r->sigma_tilt_rad ? "not significant, detector_tilt_rad left as it was"
            : "it moves the axis by less than a quarter column over half the rows, detector_tilt_rad left as it was");
  if (isfinite (written_tilt))
    printf ("detector_tilt_rad = %.6g (%.4f°)\n", written_tilt, written_tilt * 180 / G_PI);
  if (r->disagree)
    fprintf (stderr, "ctrecon-cli: warning: %s (see each method's estimate above)\n", ctr_calib_disagreement (r));
}

int
ctr_cli_calibrate (int argc, char **argv)
{
  g_autofree char *output = NULL, *report = NULL;
  double search = 0;
  gboolean no_check = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "write the calibrated geometry.json here (required; never the input)", "PATH" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &report, "write the report (each method's estimate) here", "PATH" },
    { "search-cols", 0, 0, G_OPTION_ARG_DOUBLE, &search,
      "search within ± this many columns of the detector's middle (default: a quarter of the columns)", "N" },
    { "no-cross-check", 0, 0, G_OPTION_ARG_NONE, &no_check,
      "skip the cross-check (the image entropy of FBP slices for centres around the answer)", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json — find the centre of rotation / detector offset");
  g_option_context_set_description (ctx,
    "Parallel beam: the views 180° apart registered as mirror images, and Vo et al. 2014's Fourier\n"
    "metric of the 360° sinogram made from the 180° one; both are reported and a disagreement is said.\n"
    "Fan and cone beam (central row): the consistency of conjugate rays (β, γ) and (β + π − 2γ, −γ).\n"
    "Cross-check: the least histogram entropy of FBP slices for centres within ± 3 columns of the answer\n"
    "(reported, not part of the answer; a disagreement is said).\n"
    "The output is the input geometry with detector_offset_u_mm (detector_offset_u_rad when curved)\n"
    "and, when a tilt is measured beyond twice its uncertainty, detector_tilt_rad replaced (the stated\n"
    "tilt plus the one measured; parallel beam, rows in 3 or more blocks) replaced; relative file\n"
    "names are made absolute when it is written to another folder.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || output == NULL)
    {
      fprintf (stderr, "ctrecon-cli calibrate: give one GEOMETRY.json and --output PATH\n");
      return 2;
    }
  if (!(search >= 0) || !isfinite (search))
    {
      fprintf (stderr, "ctrecon-cli calibrate: --search-cols must be a positive number of columns\n");
      return 2;
    }
  const char *input = argv[1];
  g_autoptr (GError) error = NULL;
  /* The output is a copy of a geometry.json: a DICOM series has none. */
  g_autoptr (JsonParser) parser = NULL;
  if (g_file_test (input, G_FILE_TEST_IS_DIR) || (parser = ctr_json_parse_file (input, &error)) == NULL)
    {
      fprintf (stderr, "ctrecon-cli calibrate: %s is not a geometry.json%s%s (calibration writes a copy of one with "
               "the offset replaced; a DICOM series has none: describe it by a geometry.json first)\n", input,
               error != NULL ? ": " : "", error != NULL ? error->message : "");
      return 1;
    }
  /* The geometry and every file it names are inputs: never replaced. */
  g_autoptr (CtrOutputSet) outputs = ctr_output_set_new (NULL);
  const guint out_index = ctr_output_set_add (outputs, output, CTR_OUTPUT_FILE, "--output");
  const guint json_index = report != NULL ? ctr_output_set_add (outputs, report, CTR_OUTPUT_FILE, "--json") : 0;
  if (!ctr_output_set_add_geometry (outputs, input, &error) || !ctr_output_set_check (outputs, &error))
    return ctr_cli_fail (error);
  g_autoptr (CtrDataset) d = ctr_dataset_load (input, NULL, NULL, &error);
  if (d == NULL)
    return ctr_cli_fail (error);
  ctr_cli_print_warnings (d);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  ctr_cli_signals_watch (cancellable);
  const CtrCalibOptions opt = { .search_cols = search, .no_cross_check = no_check };
  CtrCalibResult r;
  const gboolean ok = ctr_calibrate (d->geometry, d->projections, &opt, &r, cancellable, &error);
  ctr_cli_signals_watch (NULL);
  if (!ok)
    return ctr_cli_fail (error);
  const CtrGeometry *g = d->geometry;
  /* The loader has turned the data by the stated tilt: what is measured is left over. */
  double stated_tilt = 0, written_tilt = NAN;
  gboolean written = ctr_calib_stated_tilt (input, &stated_tilt, &error)
                     && ctr_calib_stage_geometry (outputs, out_index, input, g, &r, &written_tilt, &error);
  if (written && report != NULL)
    {
      g_autofree char *text = report_text (d->path, g, &r, stated_tilt, written_tilt);
      written = ctr_output_set_write_text (outputs, json_index, text, -1, &error);
    }
  if (!written || !ctr_output_set_commit (outputs, &error))
    {
      ctr_output_set_explain (outputs, error);
      return ctr_cli_fail (error);
    }
  print_result (g, &r, stated_tilt, written_tilt);
  printf ("%s: written\n", output);
  return 0;
}
