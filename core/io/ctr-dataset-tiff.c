/* ctr-dataset-tiff.c — a TIFF opened without its geometry.json (see
 * ctr_dataset_load_bare_tiff in ctr-dataset.h). */
#include "io/ctr-dataset.h"
#include "base/ctr-error.h"
#include "io/ctr-tiff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

gboolean
ctr_tiff_is_tiff (const char *path)
{
  guint8 magic[4] = { 0 };
  FILE *f;
  gboolean yes;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR) || (f = fopen (path, "rb")) == NULL)
    return FALSE;
  yes = fread (magic, 1, 4, f) == 4 &&
        ((magic[0] == 'I' && magic[1] == 'I' && (magic[2] == 42 || magic[2] == 43) && magic[3] == 0) ||
         (magic[0] == 'M' && magic[1] == 'M' && magic[2] == 0 && (magic[3] == 42 || magic[3] == 43)));
  fclose (f);
  return yes;
}

/* The "kind" and "projections" keys of a geometry.json that reads @path as
 * it was read here (FORMAT.md), the file named by its absolute path. */
static char *
projection_spec (const char *path, const CtrTiffInfo *info, gboolean counts, double i0)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  const char *dtype = info->sample_format == 3 ? (info->bits_per_sample == 64 ? "float64" : "float32")
                    : info->sample_format == 2 ? (info->bits_per_sample == 16 ? "int16" : "int32")
                    : info->bits_per_sample == 8 ? "uint8" : info->bits_per_sample == 16 ? "uint16" : "uint32";

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, counts ? "counts" : "line_integrals");
  if (counts)
    {
      json_builder_set_member_name (b, "I0");
      json_builder_add_double_value (b, i0);
    }
  json_builder_set_member_name (b, "projections");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, abs);
  json_builder_set_member_name (b, "layout");
  json_builder_add_string_value (b, info->pages == 1 ? "sinogram" : "view_pages");
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, dtype);
  json_builder_end_object (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

CtrDataset *
ctr_dataset_load_bare_tiff (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr(CtrDataset) d = NULL;
  g_autofree float *pixels = NULL;
  CtrTiffInfo info;
  guint views, rows, cols;
  gboolean counts;
  double i0 = 0;

  g_return_val_if_fail (path != NULL, NULL);
  pixels = ctr_tiff_read (path, &info, error);
  if (pixels == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  /* one page: a sinogram (a line per view, one detector row); several: a
   * page per view (a line per detector row) */
  views = info.pages == 1 ? info.height : info.pages;
  rows = info.pages == 1 ? 1 : info.height;
  cols = info.width;
  if (views < 2 || cols < 2)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %u × %u pixels on %u page(s) is too small for projections (a sinogram needs a line "
                   "per view, one page per view needs two pages or more)",
                   path, info.height, info.width, info.pages);
      return NULL;
    }

  d = g_new0 (CtrDataset, 1);
  d->path = g_canonicalize_filename (path, NULL);
  d->name = g_path_get_basename (path);
  counts = info.sample_format != 3;
  d->projections = ctr_projections_new (views, rows, cols, counts ? CTR_PROJ_COUNTS : CTR_PROJ_LINE_INTEGRALS, error);
  if (d->projections == NULL)
    return NULL;
  /* pages are views (line = row); a sinogram is views × columns already */
  memcpy (d->projections->data, pixels, (gsize) views * rows * cols * sizeof (float));
  if (counts)
    {
      for (gsize i = 0; i < (gsize) views * rows * cols; i++)
        if (isfinite (pixels[i]))
          i0 = MAX (i0, pixels[i]);
      d->projections->i0 = i0;
      ctr_dataset_add_warning (d, "integer samples read as counts, the brightest (%g) taken as the open beam I0", i0);
      if (!ctr_projections_to_line_integrals (d->projections, error))
        return NULL;
    }
  else if (!ctr_projections_check_finite (d->projections, error))
    return NULL;

  /* the draft: fan beam, flat detector, views over 360°; what a TIFF cannot
   * say (SOD, SDD, pitch) is 0, which ctr_geometry_validate refuses */
  d->geometry = ctr_geometry_try_new (CTR_BEAM_FAN, views, error);
  if (d->geometry == NULL)
    return NULL;
  d->geometry->shape = CTR_DETECTOR_FLAT;
  d->geometry->sod_mm = d->geometry->sdd_mm = 0;
  d->geometry->pitch_u = 0;
  d->geometry->n_rows = rows;
  d->geometry->n_cols = cols;
  d->geometry->pitch_v_mm = rows > 1 ? 0 : 1;
  ctr_geometry_set_uniform_angles (d->geometry, 0, 2 * G_PI / views);
  d->geometry_missing = TRUE;
  d->projection_spec = projection_spec (path, &info, counts, i0);
  ctr_dataset_add_input (d, path);
  ctr_dataset_check_claims (d);
  return g_steal_pointer (&d);
}
