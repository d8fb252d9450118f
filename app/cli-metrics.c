/* cli-metrics.c — `ctrecon-cli metrics IMAGE.tif REFERENCE.tif`: RMSE, PSNR,
 * SSIM and Pearson correlation of an image against a reference, optionally
 * inside the field-of-view disc (the head-fan-lowdose protocol) and with a
 * line profile, as one JSON object on stdout.
 *
 *   {"image": "...", "reference": "...", "width": 256, "height": 256,
 *    "slices": 1, "slice": null, "pixel_size_mm": 1.0, "radius_mm": null,
 *    "mask_pixels": null, "data_range": ..., "rmse": ..., "psnr": ...,
 *    "ssim": ..., "pearson": ...,
 *    "profile": [{"s_mm": 0.0, "image": ..., "reference": ...}, ...]}
 *
 * Values that are not finite (PSNR of identical images, SSIM of images
 * smaller than the 11 × 11 window) are written as null, since JSON has no
 * infinity.  Without --slice the metrics are the means over all slices, with
 * one data range (max − min) over the whole reference; with --slice Z only
 * that slice counts, and so does its own data range.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cli-common.h"
#include "base/ctr-memory.h"

typedef struct {
  double pixel_mm;
  double radius_mm;
  gint slice;
  char *profile;
  gint samples;
} MetricsOptions;

static gboolean
parse_profile (const char *text, double xy[4], GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  if (g_strv_length (parts) != 4)
    goto bad;
  for (int i = 0; i < 4; i++)
    {
      char *end = NULL;
      const char *s = g_strstrip (parts[i]);
      xy[i] = g_ascii_strtod (s, &end);
      if (*s == '\0' || end == NULL || *end != '\0' || !isfinite (xy[i]))
        goto bad;
    }
  return TRUE;

bad:
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               "--profile '%s': expected four numbers X0,Y0,X1,Y1 in mm", text);
  return FALSE;
}

/* A one-slice volume holding slice @z of @v. */
static CtrVolume *
slice_volume (const CtrVolume *v, guint z)
{
  CtrGrid g = v->grid;
  g.nz = 1;
  CtrVolume *s = ctr_volume_new (&g, NULL);
  g_assert (s != NULL);
  memcpy (s->data, ctr_volume_slice (v, z), ctr_grid_slice_size (&g) * sizeof (float));
  return s;
}

static gboolean
has_non_finite (const CtrVolume *v)
{
  gsize n = ctr_grid_size (&v->grid);
  for (gsize i = 0; i < n; i++)
    if (!isfinite (v->data[i]))
      return TRUE;
  return FALSE;
}

static gboolean
run_metrics (const char *image_path, const char *ref_path, const MetricsOptions *opt,
             GError **error)
{
  double seg[4] = { 0, 0, 0, 0 };
  if (opt->profile != NULL && !parse_profile (opt->profile, seg, error))
    return FALSE;
  if (!(isfinite (opt->pixel_mm) && opt->pixel_mm > 0))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--pixel-size must be a positive number of mm, got %g", opt->pixel_mm);
      return FALSE;
    }
  if (!isfinite (opt->radius_mm) || opt->radius_mm < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--radius must be a non-negative number of mm (0: no mask), got %g",
                   opt->radius_mm);
      return FALSE;
    }
  if (opt->slice < -1)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--slice must be a page number from 0, got %d", opt->slice);
      return FALSE;
    }
  if (opt->profile != NULL && opt->samples != 0 && opt->samples < 2)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--samples must be at least 2, got %d", opt->samples);
      return FALSE;
    }

  CtrTiffInfo img_info, ref_info;
  g_autoptr (CtrVolume) img = ctr_cli_read_volume (image_path, opt->pixel_mm, &img_info, error);
  if (img == NULL)
    return FALSE;
  g_autoptr (CtrVolume) ref = ctr_cli_read_volume (ref_path, opt->pixel_mm, &ref_info, error);
  if (ref == NULL)
    return FALSE;
  if (img_info.width != ref_info.width || img_info.height != ref_info.height
      || img_info.pages != ref_info.pages)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s is %u × %u pixels × %u pages but the reference %s is %u × %u × %u; "
                   "both must have the same shape",
                   image_path, img_info.width, img_info.height, img_info.pages,
                   ref_path, ref_info.width, ref_info.height, ref_info.pages);
      return FALSE;
    }
  if (opt->slice >= 0 && (guint) opt->slice >= ref_info.pages)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--slice %d: the images have %u slice(s), 0 to %u",
                   opt->slice, ref_info.pages, ref_info.pages - 1);
      return FALSE;
    }
  if (has_non_finite (img) || has_non_finite (ref))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s contains NaN or infinite values",
                   has_non_finite (img) ? image_path : ref_path);
      return FALSE;
    }

  /* The images the metrics are taken over: all slices or the chosen one. */
  g_autoptr (CtrVolume) eval_img = opt->slice >= 0 ? slice_volume (img, opt->slice) : ctr_volume_ref (img);
  g_autoptr (CtrVolume) eval_ref = opt->slice >= 0 ? slice_volume (ref, opt->slice) : ctr_volume_ref (ref);
  const CtrGrid *g = &eval_ref->grid;

  CtrQuality q;
  if (!ctr_quality_compute (eval_img, eval_ref, opt->radius_mm, &q, error))
    return FALSE;
  float lo, hi;
  ctr_volume_range (eval_ref, &lo, &hi);

  g_autofree guint8 *mask = NULL;
  if (opt->radius_mm > 0 && (mask = ctr_metrics_disc_mask (g, opt->radius_mm, error)) == NULL)
    return FALSE;
  gsize mask_pixels = 0;
  if (mask != NULL)
    for (gsize i = 0; i < ctr_grid_slice_size (g); i++)
      mask_pixels += mask[i];
  if (mask != NULL && mask_pixels == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--radius %g mm contains no pixel centre", opt->radius_mm);
      return FALSE;
    }
  /* Pearson over every evaluated slice (inside the disc when masked). */
  g_autofree guint8 *vmask = NULL;
  if (mask != NULL)
    {
      vmask = ctr_memory_try_new (ctr_grid_size (g), 1, FALSE, "the mask of every evaluated slice", error);
      if (vmask == NULL)
        return FALSE;
      for (guint z = 0; z < g->nz; z++)
        memcpy (vmask + z * ctr_grid_slice_size (g), mask, ctr_grid_slice_size (g));
    }
  double pearson = ctr_metrics_pearson (eval_img->data, eval_ref->data, ctr_grid_size (g), vmask);

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "image");
  json_builder_add_string_value (b, image_path);
  json_builder_set_member_name (b, "reference");
  json_builder_add_string_value (b, ref_path);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, ref_info.width);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, ref_info.height);
  json_builder_set_member_name (b, "slices");
  json_builder_add_int_value (b, ref_info.pages);
  json_builder_set_member_name (b, "slice");
  if (opt->slice >= 0)
    json_builder_add_int_value (b, opt->slice);
  else
    json_builder_add_null_value (b);
  ctr_cli_json_number (b, "pixel_size_mm", opt->pixel_mm);
  json_builder_set_member_name (b, "radius_mm");
  if (mask != NULL)
    json_builder_add_double_value (b, opt->radius_mm);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "mask_pixels");
  if (mask != NULL)
    json_builder_add_int_value (b, mask_pixels);
  else
    json_builder_add_null_value (b);
  ctr_cli_json_number (b, "data_range", (double) hi - (double) lo);
  ctr_cli_json_number (b, "rmse", q.rmse);
  ctr_cli_json_number (b, "psnr", q.psnr);
  ctr_cli_json_number (b, "ssim", q.ssim);
  ctr_cli_json_number (b, "pearson", pearson);

  if (opt->profile != NULL)
    {
      /* Default: one sample per pixel along the segment. */
      double len = hypot (seg[2] - seg[0], seg[3] - seg[1]);
      guint n = opt->samples > 0 ? (guint) opt->samples
                                 : (guint) MAX (2.0, ceil (len / opt->pixel_mm) + 1);
      guint z = opt->slice >= 0 ? (guint) opt->slice : 0;
      g_autofree float *pi = g_new (float, n);
      g_autofree float *pr = g_new (float, n);
      g_autofree double *s = g_new (double, n);
      ctr_profile_sample (img, z, seg[0], seg[1], seg[2], seg[3], n, pi, s);
      ctr_profile_sample (ref, z, seg[0], seg[1], seg[2], seg[3], n, pr, NULL);
      json_builder_set_member_name (b, "profile_slice");
      json_builder_add_int_value (b, z);
      json_builder_set_member_name (b, "profile");
      json_builder_begin_array (b);
      for (guint k = 0; k < n; k++)
        {
          json_builder_begin_object (b);
          ctr_cli_json_number (b, "s_mm", s[k]);
          ctr_cli_json_number (b, "image", pi[k]);
          ctr_cli_json_number (b, "reference", pr[k]);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);

  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, FALSE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  fflush (stdout);
  return TRUE;
}

int
ctr_cli_metrics (int argc, char **argv)
{
  MetricsOptions opt = { .pixel_mm = 1.0, .radius_mm = 0.0, .slice = -1,
                         .profile = NULL, .samples = 0 };
  const GOptionEntry entries[] = {
    { "pixel-size", 0, 0, G_OPTION_ARG_DOUBLE, &opt.pixel_mm,
      "Pixel size in mm (default 1); sets the mm scale of --radius and --profile", "MM" },
    { "radius", 0, 0, G_OPTION_ARG_DOUBLE, &opt.radius_mm,
      "Evaluate inside the disc of this radius about the image centre: the image is set "
      "to 0 outside it, RMSE/PSNR/Pearson inside it, SSIM over the whole masked image "
      "(default 0: no mask)", "MM" },
    { "slice", 0, 0, G_OPTION_ARG_INT, &opt.slice,
      "Only this slice (page, 0-based; default: mean over all slices)", "Z" },
    { "profile", 0, 0, G_OPTION_ARG_STRING, &opt.profile,
      "Also sample both images along the segment X0,Y0 → X1,Y1 (mm, x to the right, "
      "y up, origin at the image centre), bilinear", "X0,Y0,X1,Y1" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &opt.samples,
      "Number of profile samples (>= 2; default one per pixel)", "N" },
    { NULL }
  };

  g_autoptr (GOptionContext) ctx = g_option_context_new ("IMAGE.tif REFERENCE.tif");
  g_option_context_set_summary (ctx,
    "RMSE, PSNR, SSIM (Wang et al. 2004, Gaussian σ = 1.5 window, as scikit-image) and "
    "Pearson correlation of IMAGE against REFERENCE, with data range = max − min of the "
    "reference.  Prints one JSON object on stdout.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    {
      g_free (opt.profile);
      return 2;
    }

  g_autoptr (GError) error = NULL;
  if (argc != 3)
    {
      g_set_error (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "metrics needs exactly two files, IMAGE.tif and REFERENCE.tif (got %d); "
                   "try 'ctrecon-cli metrics --help'", argc - 1);
      g_free (opt.profile);
      return ctr_cli_fail (error);
    }
  gboolean ok = run_metrics (argv[1], argv[2], &opt, &error);
  g_free (opt.profile);
  return ok ? 0 : ctr_cli_fail (error);
}
