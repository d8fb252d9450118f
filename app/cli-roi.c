/* cli-roi.c — `ctrecon-cli roi IMAGE.tif --roi SPEC …`: mean, standard
 * deviation and CNR in HU inside ROIs of one slice (core/quality/ctr-roi.h), as one
 * JSON object on stdout:
 *
 *   {"image": "...", "slice": 0, "pixel_size_mm": 0.957, "mu_water": 0.0192,
 *    "rois": [{"roi": "circle:10,20,5", "pixels": 81, "mean": ..., "sd": ...,
 *              "mean_hu": ..., "sd_hu": ..., "cnr": ...}, ...],
 *    "background": {...} | null, "noise_sd_hu": ... | null}
 *
 * SPEC is circle:X,Y,R or rect:X,Y,W,H in mm (x to the right, y up, origin at
 * the image centre).  "cnr" is against --background (null without one).
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>

#include "cli-common.h"

static void
add_stats (JsonBuilder *b, const char *spec, const CtrRoiStats *st, const CtrRoiStats *bg)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "roi");
  json_builder_add_string_value (b, spec);
  json_builder_set_member_name (b, "pixels");
  json_builder_add_int_value (b, (gint64) st->n_pixels);
  ctr_cli_json_number (b, "mean", st->mean_mu);
  ctr_cli_json_number (b, "sd", st->sd_mu);
  ctr_cli_json_number (b, "mean_hu", st->mean_hu);
  ctr_cli_json_number (b, "sd_hu", st->sd_hu);
  ctr_cli_json_number (b, "cnr", bg != NULL ? ctr_roi_cnr (st, bg) : NAN);
  json_builder_end_object (b);
}

int
ctr_cli_roi (int argc, char **argv)
{
  double pixel_mm = 1.0, mu_water = 0;
  int slice = 0;
  g_auto (GStrv) rois = NULL;
  g_autofree char *background = NULL, *noise_roi = NULL, *water_roi = NULL;
  GOptionEntry entries[] = {
    { "roi", 0, 0, G_OPTION_ARG_STRING_ARRAY, &rois, "an ROI (repeat for more): circle:X,Y,R or rect:X,Y,W,H in mm", "SPEC" },
    { "background", 0, 0, G_OPTION_ARG_STRING, &background, "background ROI for the CNR |mean − mean_bg| / SD_bg", "SPEC" },
    { "noise-roi", 0, 0, G_OPTION_ARG_STRING, &noise_roi, "uniform region: its SD in HU after removing a fitted plane", "SPEC" },
    { "mu-water", 0, 0, G_OPTION_ARG_DOUBLE, &mu_water, "μ_water in 1/mm for HU (default 0.0192)", "MU" },
    { "water-roi", 0, 0, G_OPTION_ARG_STRING, &water_roi, "calibrate μ_water as the mean inside this ROI (water reads 0 HU)", "SPEC" },
    { "pixel-size", 0, 0, G_OPTION_ARG_DOUBLE, &pixel_mm, "pixel size in mm (default 1)", "MM" },
    { "slice", 0, 0, G_OPTION_ARG_INT, &slice, "page of the TIFF (default 0)", "Z" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("IMAGE.tif — ROI mean, SD and CNR in HU (JSON on stdout)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  g_autoptr (GError) error = NULL;
  if (argc != 2 || (rois == NULL && noise_roi == NULL && water_roi == NULL))
    {
      fprintf (stderr, "ctrecon-cli roi: give one IMAGE.tif and at least one --roi, --noise-roi or --water-roi\n");
      return 2;
    }
  if (!(isfinite (pixel_mm) && pixel_mm > 0) || slice < 0 || mu_water < 0 || !isfinite (mu_water)
      || (mu_water > 0 && water_roi != NULL))
    {
      fprintf (stderr, "ctrecon-cli roi: need --pixel-size > 0, --slice >= 0, --mu-water > 0, "
               "and not both --mu-water and --water-roi\n");
      return 2;
    }
  guint n_rois = rois != NULL ? g_strv_length (rois) : 0;
  g_autofree CtrRoi *roi = g_new0 (CtrRoi, MAX (n_rois, 1));
  CtrRoi bg_roi, noise, water;
  for (guint i = 0; i < n_rois; i++)
    if (!ctr_cli_parse_roi (rois[i], "--roi", &roi[i], &error))
      return ctr_cli_fail (error);
  if ((background != NULL && !ctr_cli_parse_roi (background, "--background", &bg_roi, &error))
      || (noise_roi != NULL && !ctr_cli_parse_roi (noise_roi, "--noise-roi", &noise, &error))
      || (water_roi != NULL && !ctr_cli_parse_roi (water_roi, "--water-roi", &water, &error)))
    return ctr_cli_fail (error);

  CtrTiffInfo info;
  g_autoptr (CtrVolume) v = ctr_cli_read_volume (argv[1], pixel_mm, &info, &error);
  if (v == NULL)
    return ctr_cli_fail (error);
  if (mu_water == 0)
    mu_water = CTR_MU_WATER_PER_MM;
  if (water_roi != NULL && !ctr_roi_water_calibration (v, (guint) slice, &water, &mu_water, &error))
    return ctr_cli_fail (error);

  CtrRoiStats bg;
  if (background != NULL && !ctr_roi_stats (v, (guint) slice, &bg_roi, mu_water, &bg, &error))
    return ctr_cli_fail (error);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "image");
  json_builder_add_string_value (b, argv[1]);
  json_builder_set_member_name (b, "slice");
  json_builder_add_int_value (b, slice);
  ctr_cli_json_number (b, "pixel_size_mm", pixel_mm);
  ctr_cli_json_number (b, "mu_water", mu_water);
  json_builder_set_member_name (b, "rois");
  json_builder_begin_array (b);
  for (guint i = 0; i < n_rois; i++)
    {
      CtrRoiStats st;
      if (!ctr_roi_stats (v, (guint) slice, &roi[i], mu_water, &st, &error))
        return ctr_cli_fail (error);
      add_stats (b, rois[i], &st, background != NULL ? &bg : NULL);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "background");
  if (background != NULL)
    add_stats (b, background, &bg, NULL);
  else
    json_builder_add_null_value (b);
  double noise_sd = NAN;
  if (noise_roi != NULL && !ctr_roi_noise_sd (v, (guint) slice, &noise, mu_water, &noise_sd, &error))
    return ctr_cli_fail (error);
  ctr_cli_json_number (b, "noise_sd_hu", noise_sd);
  json_builder_end_object (b);

  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  return 0;
}
