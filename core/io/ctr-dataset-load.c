/* ctr-dataset-load.c — geometry.json (shared/data/FORMAT.md) → CtrDataset,
 * and ctr_dataset_load's dispatch to the DICOM reader (ctr-dicom.h).
 *
 * Keys and conventions are FORMAT.md's; every error names the file and the
 * key.  Unknown keys are ignored, as FORMAT.md asks of readers.
 */
#include "io/ctr-dataset.h"
#include "io/ctr-geometry-json.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"
#include "io/ctr-tiff.h"
#include "io/ctr-dicom.h"
#include "io/ctr-nexus.h"
#include "io/ctr-json.h"
#include "io/ctr-json-get.h"
#include "io/ctr-dataset-correct.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Geometry                                                                  */

static JsonParser *
parse_json (const char *text, gssize length, const char *where, JsonObject **root_out, GError **error)
{
  g_autoptr (JsonParser) parser = ctr_json_parse (text, length, where, error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the file must hold one JSON object ({ \"type\": ..., \"views\": ..., ... })", where);
      return NULL;
    }
  *root_out = json_node_get_object (root);
  return g_steal_pointer (&parser);
}

static CtrGeometry *
geometry_from_object (JsonObject *o, const char *where, GError **error)
{
  const char *type, *shape = NULL;
  if (!ctr_json_get_string (o, "type", TRUE, &type, where, error))
    return NULL;

  CtrBeam beam;
  const gboolean helical = g_str_equal (type, "helical");
  if (g_str_equal (type, "parallel"))
    beam = CTR_BEAM_PARALLEL;
  else if (g_str_equal (type, "fan"))
    beam = CTR_BEAM_FAN;
  else if (g_str_equal (type, "cone") || helical)
    beam = CTR_BEAM_CONE;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “type” is “%s”; expected “parallel”, “fan”, “cone” or “helical”", where, type);
      return NULL;
    }

  guint views, cols, rows;
  if (!ctr_json_get_size (o, "views", TRUE, 0, &views, where, error)
      || !ctr_json_get_size (o, "detector_cols", TRUE, 0, &cols, where, error)
      || !ctr_json_get_size (o, "detector_rows", FALSE, 1, &rows, where, error))
    return NULL;
  /* Sizes before allocations: "views": 1e9 must not take the machine's
   * memory (or abort in the allocator) before it is refused.  What the
   * dataset needs at least: the angles and the projections as float32. */
  g_autofree char *what = g_strdup_printf ("%s: %u views × %u rows × %u columns", where, views, rows, cols);
  const guint64 need = ctr_memory_add (ctr_memory_mul (views, sizeof (double)),
                                       ctr_memory_mul (ctr_memory_mul (views, rows), ctr_memory_mul (cols, sizeof (float))));
  if (!ctr_memory_check (need, what, error))
    return NULL;
  if (json_object_has_member (o, "vectors") && (helical || ctr_geometry_json_has_helix (o)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: “vectors” and a helical source path (“type”: “helical”, source z, feed, focal-spot "
                   "shifts) do not go together; put the helix into the vectors, or leave them out",
                   where);
      return NULL;
    }
  if (json_object_has_member (o, "vectors"))  /* per-view vectors: ctr-geometry-vectors.h */
    return ctr_geometry_json_read_vectors (o, beam, views, rows, cols, where, error);
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (beam, views, error);
  if (g == NULL)
    return NULL;
  g->n_cols = cols;
  g->n_rows = rows;

  g->shape = CTR_DETECTOR_FLAT;
  if (beam == CTR_BEAM_FAN || beam == CTR_BEAM_CONE)
    {
      if (!ctr_json_get_string (o, "detector_shape", TRUE, &shape, where, error))
        return NULL;
      if (g_str_equal (shape, "curved"))
        g->shape = CTR_DETECTOR_CURVED;
      else if (!g_str_equal (shape, "flat"))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “detector_shape” is “%s”; expected “flat” or “curved”", where, shape);
          return NULL;
        }
      if (!ctr_json_get_double (o, "source_to_isocenter_mm", TRUE, 0, &g->sod_mm, where, error)
          || !ctr_json_get_double (o, "source_to_detector_mm", TRUE, 0, &g->sdd_mm, where, error))
        return NULL;
      if (g->sod_mm <= 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “source_to_isocenter_mm” must be positive, got %g", where, g->sod_mm);
          return NULL;
        }
      if (g->sdd_mm <= g->sod_mm)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “source_to_detector_mm” (%g) must exceed “source_to_isocenter_mm” (%g)",
                       where, g->sdd_mm, g->sod_mm);
          return NULL;
        }
    }

  /* Columns: radians on a curved detector, mm otherwise (FORMAT.md). */
  const char *pitch_u_key = g->shape == CTR_DETECTOR_CURVED ? "detector_pitch_u_rad" : "detector_pitch_u_mm";
  const char *offset_u_key = g->shape == CTR_DETECTOR_CURVED ? "detector_offset_u_rad" : "detector_offset_u_mm";
  if (!ctr_json_get_double (o, pitch_u_key, TRUE, 0, &g->pitch_u, where, error)
      || !ctr_json_get_double (o, offset_u_key, FALSE, 0, &g->offset_u, where, error))
    return NULL;
  if (g->pitch_u <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “%s” must be positive, got %g", where, pitch_u_key, g->pitch_u);
      return NULL;
    }
  /* The row pitch matters only with several rows; a single-row (2-D) fan or
   * parallel-beam file may leave it out: its slice is then as thick as the
   * file's "slice_thickness_mm" states (at the isocentre), else 1 mm. */
  double thickness = 1.0;
  if (g->n_rows == 1 && g->beam != CTR_BEAM_CONE
      && !ctr_json_get_double (o, "slice_thickness_mm", FALSE, 1.0, &thickness, where, error))
    return NULL;
  if (!(isfinite (thickness) && thickness > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “slice_thickness_mm” must be positive, got %g", where, thickness);
      return NULL;
    }
  if (!ctr_json_get_double (o, "detector_pitch_v_mm", g->n_rows > 1, thickness, &g->pitch_v_mm, where, error)
      || !ctr_json_get_double (o, "detector_offset_v_mm", FALSE, 0, &g->offset_v_mm, where, error)
      || !ctr_json_get_bool (o, "rows_increase_with_v", TRUE, &g->rows_increase_with_v, where, error)
      || !ctr_json_get_bool (o, "pixel_size_known", TRUE, &g->pixel_size_known, where, error))
    return NULL;
  if (g->pitch_v_mm <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “detector_pitch_v_mm” must be positive, got %g", where, g->pitch_v_mm);
      return NULL;
    }

  /* Angles: the explicit list, else start + k·step. */
  guint n_angles = 0;
  g_autofree double *angles = NULL;
  if (!ctr_json_get_numbers (o, "angles_rad", &angles, &n_angles, where, error))
    return NULL;
  if (angles != NULL)
    {
      if (n_angles != views)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                       "%s: the key “angles_rad” has %u entries but “views” is %u", where, n_angles, views);
          return NULL;
        }
      memcpy (g->angles, angles, views * sizeof (double));
    }
  else if (json_object_has_member (o, "angle_start_rad") && json_object_has_member (o, "angle_step_rad"))
    {
      double start, step;
      if (!ctr_json_get_double (o, "angle_start_rad", TRUE, 0, &start, where, error)
          || !ctr_json_get_double (o, "angle_step_rad", TRUE, 0, &step, where, error))
        return NULL;
      ctr_geometry_set_uniform_angles (g, start, step);
    }
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “angles_rad” is missing (nor are “angle_start_rad” and “angle_step_rad” given)",
                   where);
      return NULL;
    }

  if (beam == CTR_BEAM_CONE && !ctr_geometry_json_read_helix (o, g, helical, where, error))
    return NULL;

  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  if (helical && !ctr_geometry_json_check_feed (o, g, where, error))
    return NULL;
  return g_steal_pointer (&g);
}

CtrGeometry *
ctr_dataset_parse_geometry (const char *json_text, gssize length, GError **error)
{
  g_return_val_if_fail (json_text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  JsonObject *root = NULL;
  g_autoptr (JsonParser) parser = parse_json (json_text, length, "geometry text", &root, error);
  if (parser == NULL)
    return NULL;
  return geometry_from_object (root, "geometry text", error);
}

CtrGeometry *
ctr_dataset_read_geometry (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autofree char *abs_path = g_canonicalize_filename (path, NULL);
  g_autoptr (JsonParser) parser = ctr_json_parse_file (abs_path, error);
  if (parser == NULL)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the file must hold one JSON object ({ \"type\": ..., \"views\": ..., ... })", abs_path);
      return NULL;
    }
  return geometry_from_object (json_node_get_object (root), abs_path, error);
}

/* ------------------------------------------------------------------------ */
/* Projection files                                                          */

static gboolean
check_cancelled (GCancellable *cancellable, GError **error)
{
  return g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* Splits a printf-style file pattern with exactly one integer conversion
 * (%d, %i, %u, optionally zero-padded with a width: %05d) into prefix and
 * suffix; "%%" is a literal percent sign.  The pattern itself is never given
 * to printf. */
static gboolean
parse_pattern (const char *pattern, char **prefix, char **suffix, int *width, gboolean *zero_pad)
{
  g_autoptr (GString) pre = g_string_new (NULL), post = g_string_new (NULL);
  gboolean seen = FALSE;
  *width = 0;
  *zero_pad = FALSE;
  for (const char *c = pattern; *c != '\0'; c++)
    {
      GString *out = seen ? post : pre;
      if (*c != '%')
        {
          g_string_append_c (out, *c);
          continue;
        }
      c++;
      if (*c == '%')
        {
          g_string_append_c (out, '%');
          continue;
        }
      if (seen)
        return FALSE;
      if (*c == '0')
        {
          *zero_pad = TRUE;
          c++;
        }
      while (g_ascii_isdigit (*c))
        {
          *width = *width * 10 + (*c - '0');
          if (*width > 32)
            return FALSE;
          c++;
        }
      if (*c != 'd' && *c != 'i' && *c != 'u')
        return FALSE;
      seen = TRUE;
    }
  if (!seen)
    return FALSE;
  *prefix = g_string_free (g_steal_pointer (&pre), FALSE);
  *suffix = g_string_free (g_steal_pointer (&post), FALSE);
  return TRUE;
}

/* The path of @file named in the JSON, recorded as one of @d's inputs. */
static char *
resolve (CtrDataset *d, const char *base_dir, const char *file)
{
  char *path = g_path_is_absolute (file) ? g_strdup (file) : g_build_filename (base_dir, file, NULL);
  ctr_dataset_add_input (d, path);
  return path;
}

/* What the geometry.json claims of the projection files' samples: its
 * "kind" and "dtype" (FORMAT.md), and the format of the first file read,
 * which every other view's file must share. */
typedef struct {
  CtrProjKind kind;
  const char *dtype;   /* nullable */
  guint format, bits;  /* of the first file; 0 before it */
} SampleClaim;

static const char *
sample_name (guint format, guint bits)
{
  static const struct { guint format, bits; const char *name; } names[] = {
    { 1, 8, "uint8" }, { 2, 8, "int8" }, { 1, 16, "uint16" }, { 2, 16, "int16" }, { 1, 32, "uint32" },
    { 2, 32, "int32" }, { 3, 32, "float32" }, { 3, 64, "float64" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i].format == format && names[i].bits == bits)
      return names[i].name;
  return "another sample type";
}

/* The samples of @path (@info) against @c: the stated "dtype", integers
 * stated as line integrals, and the same format in every file. */
static gboolean
check_samples (const CtrTiffInfo *info, const char *path, SampleClaim *c, const char *where, GError **error)
{
  const char *found = sample_name (info->sample_format, info->bits_per_sample);
  if (c->format != 0 && (c->format != info->sample_format || c->bits != info->bits_per_sample))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %s samples but the views before it hold %s; every view must be stored alike",
                   where, path, found, sample_name (c->format, c->bits));
      return FALSE;
    }
  c->format = info->sample_format;
  c->bits = info->bits_per_sample;
  if (c->dtype != NULL && !g_str_equal (c->dtype, found))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “dtype” is “%s” but %s holds %s samples",
                   where, c->dtype, path, found);
      return FALSE;
    }
  if (c->kind == CTR_PROJ_LINE_INTEGRALS && info->sample_format != 3)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %s samples, but the key “kind” says “line_integrals”; integer samples are "
                   "detector counts: give “kind”: “counts” with a “flat” (and “dark”) or “I0”",
                   where, path, found);
      return FALSE;
    }
  return TRUE;
}

/* Reads a whole TIFF and checks it is @pages × @height × @width, with the
 * samples @claim allows (NULL: any).  @what says which key named it. */
static float *
read_checked (const char *path, guint pages, guint height, guint width, SampleClaim *claim,
              const char *where, const char *what, GError **error)
{
  CtrTiffInfo info;
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read (path, &info, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: %s: ", where, what);
      return NULL;
    }
  if (claim != NULL && !check_samples (&info, path, claim, where, error))
    return NULL;
  if (info.pages != pages || info.height != height || info.width != width)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s: %s holds %u page(s) of %u lines × %u samples, expected %u page(s) of "
                   "%u × %u", where, what, path, info.pages, info.height, info.width,
                   pages, height, width);
      return NULL;
    }
  return g_steal_pointer (&data);
}

/* "layout": "nexus": the frames of an NXtomo file (ctr-nexus.h) with the
 * JSON's geometry; its median flat and dark serve counts unless the JSON
 * names its own "flat" / "dark" (load_counts_fields). */
static CtrProjections *
load_nexus (CtrDataset *d, JsonObject *spec, const CtrGeometry *g, CtrProjKind kind, const char *base_dir,
            const char *ctx, GCancellable *cancellable, GError **error)
{
  const char *file;
  if (!ctr_json_get_string (spec, "file", TRUE, &file, ctx, error))
    return NULL;
  g_autofree char *path = resolve (d, base_dir, file);
  g_autoptr (CtrNexusScan) scan = ctr_nexus_read (path, cancellable, error);
  if (scan == NULL)
    {
      g_prefix_error (error, "%s, the key “file”: ", ctx);
      return NULL;
    }
  CtrProjections *p = scan->projections;
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %s holds %u projections of %u rows × %u columns; the geometry states %u views of "
                   "%u rows × %u columns", ctx, path, p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows,
                   g->n_cols);
      return NULL;
    }
  p->kind = kind;
  if (kind == CTR_PROJ_LINE_INTEGRALS && (p->flat != NULL || p->dark != NULL))
    {
      ctr_dataset_add_warning (d, "%s: “kind” is “line_integrals”: the %u flat and %u dark frames of %s are not "
                               "used", ctx, scan->n_flats, scan->n_darks, path);
      g_clear_pointer (&p->flat, g_free);
      g_clear_pointer (&p->dark, g_free);
    }
  return ctr_projections_ref (p);
}

/* Loads the projections described by @spec ("projections" or a variant). */
static CtrProjections *
load_projections (CtrDataset *d, JsonObject *spec, const char *spec_key, const CtrGeometry *g, CtrProjKind kind,
                  const char *base_dir, const char *where, GCancellable *cancellable,
                  GError **error)
{
  g_autofree char *ctx = g_strdup_printf ("%s, “%s”", where, spec_key);
  const char *layout;
  if (!ctr_json_get_string (spec, "layout", TRUE, &layout, ctx, error))
    return NULL;

  const guint V = g->n_views, R = g->n_rows, C = g->n_cols;
  const gsize plane = (gsize) R * C;

  if (g_str_equal (layout, "dicom"))
    {
      /* A folder of DICOM projections (ctr-dicom.h); the JSON's geometry wins. */
      const char *folder;
      if (!ctr_json_get_string (spec, "folder", TRUE, &folder, ctx, error))
        return NULL;
      g_autofree char *path = resolve (d, base_dir, folder);
      CtrProjections *dp = ctr_dicom_load_projections (path, g, cancellable, error);
      if (dp == NULL)
        g_prefix_error (error, "%s, the key “folder”: ", ctx);
      return dp;
    }

  if (g_str_equal (layout, "nexus"))
    return load_nexus (d, spec, g, kind, base_dir, ctx, cancellable, error);

  SampleClaim claim = { kind, NULL, 0, 0 };
  if (!ctr_json_get_string (spec, "dtype", FALSE, &claim.dtype, ctx, error))
    return NULL;
  g_autoptr (CtrProjections) p = NULL;
  if (g_str_equal (layout, "sinogram") || g_str_equal (layout, "view_pages"))
    {
      const char *file;
      if (!ctr_json_get_string (spec, "file", TRUE, &file, ctx, error))
        return NULL;
      g_autofree char *path = resolve (d, base_dir, file);
      if (check_cancelled (cancellable, error))
        return NULL;
      const gboolean sino = g_str_equal (layout, "sinogram");
      /* sinogram: a page per row, line = view; view_pages: a page per view, line = row. */
      g_autofree float *data = sino ? read_checked (path, R, V, C, &claim, ctx, "the key “file”", error)
                                    : read_checked (path, V, R, C, &claim, ctx, "the key “file”", error);
      if (data == NULL)
        return NULL;
      p = ctr_projections_new (V, R, C, kind, error);
      if (p == NULL)
        return NULL;
      if (!sino || R == 1)
        {
          g_free (p->data);
          p->data = g_steal_pointer (&data);
        }
      else
        {
          for (guint r = 0; r < R; r++)
            for (guint v = 0; v < V; v++)
              memcpy (p->data + (gsize) v * plane + (gsize) r * C,
                      data + ((gsize) r * V + v) * C, C * sizeof (float));
        }
    }
  else if (g_str_equal (layout, "one_file_per_view"))
    {
      const char *pattern;
      gint64 first, count;
      if (!ctr_json_get_string (spec, "pattern", TRUE, &pattern, ctx, error)
          || !ctr_json_get_int (spec, "first_index", FALSE, 0, &first, ctx, error)
          || !ctr_json_get_int (spec, "count", FALSE, V, &count, ctx, error))
        return NULL;
      g_autofree char *prefix = NULL, *suffix = NULL;
      int width;
      gboolean zero_pad;
      if (!parse_pattern (pattern, &prefix, &suffix, &width, &zero_pad))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “pattern” (“%s”) must hold exactly one integer conversion such as "
                       "%%d or %%05d (and %%%% for a percent sign)", ctx, pattern);
          return NULL;
        }
      if (first < 0 || first > G_MAXINT32)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “first_index” must be between 0 and %d, got %" G_GINT64_FORMAT,
                       ctx, G_MAXINT32, first);
          return NULL;
        }
      if (count != V)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “count” is %" G_GINT64_FORMAT " but “views” is %u", ctx, count, V);
          return NULL;
        }
      p = ctr_projections_new (V, R, C, kind, error);
      if (p == NULL)
        return NULL;
      for (guint v = 0; v < V; v++)
        {
          if (check_cancelled (cancellable, error))
            return NULL;
          gint64 index = first + v;
          g_autofree char *name = zero_pad
            ? g_strdup_printf ("%s%0*" G_GINT64_FORMAT "%s", prefix, width, index, suffix)
            : g_strdup_printf ("%s%*" G_GINT64_FORMAT "%s", prefix, width, index, suffix);
          g_autofree char *path = resolve (d, base_dir, name);
          g_autofree char *what = g_strdup_printf ("view %u (key “pattern”)", v);
          g_autofree float *img = read_checked (path, 1, R, C, &claim, ctx, what, error);
          if (img == NULL)
            return NULL;
          memcpy (ctr_projections_view (p, v), img, plane * sizeof (float));
        }
    }
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “layout” is “%s”; expected “sinogram”, “view_pages”, "
                   "“one_file_per_view”, “dicom” or “nexus”", ctx, layout);
      return NULL;
    }
  return g_steal_pointer (&p);
}

/* A flat or dark image: @R × @C, several pages are averaged. */
static float *
load_field (const char *path, guint R, guint C, const char *where, const char *key, GError **error)
{
  CtrTiffInfo info;
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read (path, &info, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: the key “%s”: ", where, key);
      return NULL;
    }
  if (info.height != R || info.width != C)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “%s”: %s is %u lines × %u samples, expected the detector's %u rows × %u columns",
                   where, key, path, info.height, info.width, R, C);
      return NULL;
    }
  const gsize plane = (gsize) R * C;
  for (guint k = 1; k < info.pages; k++)
    for (gsize i = 0; i < plane; i++)
      data[i] += data[k * plane + i];
  if (info.pages > 1)
    {
      for (gsize i = 0; i < plane; i++)
        data[i] /= info.pages;
      data = g_realloc_n (g_steal_pointer (&data), plane, sizeof (float));
    }
  return g_steal_pointer (&data);
}

/* flat / dark / I0 for raw counts: looked up in @spec first, then at the top. */
static gboolean
load_counts_fields (CtrDataset *d, CtrProjections *p, JsonObject *root, JsonObject *spec, const char *base_dir,
                    const char *where, GCancellable *cancellable, GError **error)
{
  const char *keys[] = { "flat", "dark" };
  float **dst[] = { &p->flat, &p->dark };
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      const char *file = NULL;
      JsonObject *o = json_object_has_member (spec, keys[k]) ? spec : root;
      if (!ctr_json_get_string (o, keys[k], FALSE, &file, where, error))
        return FALSE;
      if (file == NULL)
        continue;
      if (check_cancelled (cancellable, error))
        return FALSE;
      g_autofree char *path = resolve (d, base_dir, file);
      g_free (*dst[k]);   /* a NeXus file's own, replaced */
      *dst[k] = load_field (path, p->n_rows, p->n_cols, where, keys[k], error);
      if (*dst[k] == NULL)
        return FALSE;
    }
  JsonObject *o = json_object_has_member (spec, "I0") ? spec : root;
  if (!ctr_json_get_double (o, "I0", FALSE, 0.0, &p->i0, where, error))
    return FALSE;
  if (p->i0 < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “I0” must be positive, got %g",
                   where, p->i0);
      return FALSE;
    }
  if (p->flat == NULL && p->i0 <= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “kind” is “counts” but neither “flat” nor “I0” is given", where);
      return FALSE;
    }
  return TRUE;
}

/* "I0" beside line integrals: the photons per bin of the scan behind them
 * (low-dose statistics: ctr-noise.h, ctr-dose.h); optional, positive. */
static gboolean
load_photon_count (CtrProjections *p, JsonObject *root, JsonObject *spec, const char *where,
                   GError **error)
{
  JsonObject *o = json_object_has_member (spec, "I0") ? spec : root;
  if (!json_object_has_member (o, "I0"))
    return TRUE;   /* keeps what the projections brought (DICOM PhotonStatistics) */
  double i0;
  if (!ctr_json_get_double (o, "I0", TRUE, 0.0, &i0, where, error))
    return FALSE;
  if (!(i0 > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “I0” must be positive, got %g",
                   where, i0);
      return FALSE;
    }
  p->i0 = i0;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Reference image                                                           */

static CtrVolume *
load_reference (CtrDataset *d, JsonObject *ref, const CtrGeometry *g, const char *base_dir, const char *where,
                GError **error)
{
  g_autofree char *ctx = g_strdup_printf ("%s, “reference”", where);
  const char *file, *unit;
  if (!ctr_json_get_string (ref, "file", TRUE, &file, ctx, error)
      || !ctr_json_get_string (ref, "unit", FALSE, &unit, ctx, error))
    return NULL;
  g_autofree char *path = resolve (d, base_dir, file);
  CtrTiffInfo info;
  g_autoptr (GError) local = NULL;
  g_autofree float *data = ctr_tiff_read (path, &info, &local);
  if (data == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: the key “file”: ", ctx);
      return NULL;
    }

  /* Pages = slices from the lowest z up, row 0 = +y, column 0 = -x (FORMAT.md). */
  CtrGrid grid = { info.width, info.height, info.pages, 0, 0, g->pitch_v_mm, 0, 0, 0 };
  guint n;
  g_autofree double *shape = NULL, *spacing = NULL, *center = NULL;
  if (!ctr_json_get_numbers (ref, "shape_zyx", &shape, &n, ctx, error))
    return NULL;
  if (shape != NULL)
    {
      if (n != 3 || shape[0] != info.pages || shape[1] != info.height || shape[2] != info.width)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “shape_zyx” disagrees with %s (%u pages of %u × %u)",
                       ctx, path, info.pages, info.height, info.width);
          return NULL;
        }
    }
  const char *dims[] = { "rows", "cols" };
  const guint found[] = { info.height, info.width };
  for (guint k = 0; k < 2; k++)
    {
      gint64 v;
      if (!ctr_json_get_int (ref, dims[k], FALSE, found[k], &v, ctx, error))
        return NULL;
      if (v != found[k])
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “%s” is %" G_GINT64_FORMAT " but %s has %u %s",
                       ctx, dims[k], v, path, found[k], k == 0 ? "lines" : "samples");
          return NULL;
        }
    }

  if (!ctr_json_get_numbers (ref, "spacing_xyz_mm", &spacing, &n, ctx, error))
    return NULL;
  if (spacing != NULL)
    {
      if (n != 3)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “spacing_xyz_mm” must hold 3 numbers, got %u", ctx, n);
          return NULL;
        }
      grid.dx = spacing[0];
      grid.dy = spacing[1];
      grid.dz = spacing[2];
    }
  else
    {
      if (!ctr_json_get_double (ref, "pixel_size_mm", TRUE, 0, &grid.dx, ctx, error))
        {
          g_prefix_error (error, "(or “spacing_xyz_mm”) ");
          return NULL;
        }
      grid.dy = grid.dx;
    }
  if (!(grid.dx > 0 && grid.dy > 0 && grid.dz > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “%s” must give positive sizes", ctx,
                   spacing != NULL ? "spacing_xyz_mm" : "pixel_size_mm");
      return NULL;
    }

  g_autofree double *zs = NULL;
  if (!ctr_json_get_numbers (ref, "z_mm", &zs, &n, ctx, error))
    return NULL;
  if (zs != NULL)
    {
      /* The slices' z (a helical scan's reference): uniform, one per page. */
      const double dz = n > 1 ? (zs[n - 1] - zs[0]) / (n - 1) : grid.dz;
      gboolean ok = n == info.pages && dz > 0;
      for (guint k = 0; ok && k < n; k++)
        ok = fabs (zs[k] - (zs[0] + k * dz)) <= 1e-3 * dz;
      if (!ok || (spacing != NULL && fabs (dz - grid.dz) > 1e-3 * dz))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “z_mm” must list one increasing, evenly spaced z per page (%u pages%s)",
                       ctx, info.pages, spacing != NULL ? ", spaced as “spacing_xyz_mm” says" : "");
          return NULL;
        }
      grid.dz = dz;
      grid.cz = 0.5 * (zs[0] + zs[n - 1]);
    }
  if (!ctr_json_get_numbers (ref, "center_mm", &center, &n, ctx, error))
    return NULL;
  if (center != NULL)
    {
      if (n != 2 && n != 3)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “center_mm” must hold 2 or 3 numbers, got %u", ctx, n);
          return NULL;
        }
      grid.cx = center[0];
      grid.cy = center[1];
      if (n == 3)
        grid.cz = center[2];
    }

  g_autoptr (CtrVolume) vol = ctr_volume_new (&grid, &local);
  if (vol == NULL)
    {
      g_set_error (error, CTR_ERROR, local->code == CTR_ERROR_OUT_OF_MEMORY ? CTR_ERROR_OUT_OF_MEMORY
                                                                            : CTR_ERROR_FORMAT,
                   "%s: %s", ctx, local->message);
      return NULL;
    }
  g_free (vol->data);
  vol->data = g_steal_pointer (&data);
  ctr_volume_set_unit (vol, unit != NULL ? unit : g->pixel_size_known ? "1/mm" : "1/pixel");
  return g_steal_pointer (&vol);
}


CtrDataset *
ctr_dataset_load (const char *path, const char *variant, GCancellable *cancellable, GError **error)
{
  return ctr_dataset_load_preprocessed (path, variant, NULL, cancellable, error);
}

CtrDataset *
ctr_dataset_load_preprocessed (const char *path, const char *variant, const CtrPipeline *replace,
                               GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (check_cancelled (cancellable, error))
    return NULL;

  /* A dataset's folder stands for its geometry.json (as the data's folders
   * are named in their README); a folder without one may be DICOM. */
  g_autofree char *in_folder = g_build_filename (path, "geometry.json", NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && g_file_test (in_folder, G_FILE_TEST_IS_REGULAR))
    path = in_folder;

  /* A DICOM file or folder (DICM preamble) instead of a geometry.json. */
  if (ctr_dicom_is_dicom (path))
    {
      if (variant != NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: DICOM input has no variants (asked for “%s”)",
                       path, variant);
          return NULL;
        }
      g_autoptr (CtrDataset) dd = ctr_dicom_load_dataset (path, NULL, cancellable, error);
      if (dd == NULL || (replace != NULL && !ctr_dataset_apply_pipeline (dd, replace, error)))
        return NULL;
      return g_steal_pointer (&dd);
    }

  /* A NeXus, Nikon or SkyScan scan file: read as DICOM is. */
  gboolean foreign = FALSE;
  g_autoptr (GError) foreign_error = NULL;
  g_autoptr (CtrDataset) fd = ctr_dataset_load_foreign (path, &foreign, cancellable, &foreign_error);
  if (foreign)
    {
      if (fd == NULL)
        g_propagate_error (error, g_steal_pointer (&foreign_error));
      else if (variant != NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: a scan file has no variants (asked for “%s”)",
                     path, variant);
      else if (replace == NULL || ctr_dataset_apply_pipeline (fd, replace, error))
        return g_steal_pointer (&fd);
      return NULL;
    }

  g_autofree char *abs_path = g_canonicalize_filename (path, NULL);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!ctr_file_check_regular (abs_path, error))   /* a FIFO would block the read */
    return NULL;
  if (!g_file_get_contents (abs_path, &text, &length, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", abs_path, local->message);
      return NULL;
    }
  JsonObject *root = NULL;
  g_autoptr (JsonParser) parser = parse_json (text, (gssize) length, abs_path, &root, error);
  if (parser == NULL)
    return NULL;

  g_autoptr (CtrDataset) d = g_new0 (CtrDataset, 1);
  d->path = g_strdup (abs_path);
  ctr_dataset_add_input (d, abs_path);
  const char *name;
  if (!ctr_json_get_string (root, "name", FALSE, &name, abs_path, error))
    return NULL;
  d->name = name != NULL ? g_strdup (name) : g_path_get_basename (abs_path);
  if (!ctr_json_get_double (root, "mu_water_per_mm", FALSE, 0.0, &d->mu_water, abs_path, error))
    return NULL;
  if (d->mu_water < 0 || (json_object_has_member (root, "mu_water_per_mm") && d->mu_water == 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “mu_water_per_mm” must be positive, got %g",
                   abs_path, d->mu_water);
      return NULL;
    }

  /* Geometry first: no point reading pixels for an impossible acquisition. */
  d->geometry = geometry_from_object (root, abs_path, error);
  if (d->geometry == NULL)
    return NULL;

  const char *kind_s;
  if (!ctr_json_get_string (root, "kind", TRUE, &kind_s, abs_path, error))
    return NULL;
  CtrProjKind kind;
  if (g_str_equal (kind_s, "line_integrals"))
    kind = CTR_PROJ_LINE_INTEGRALS;
  else if (g_str_equal (kind_s, "counts"))
    kind = CTR_PROJ_COUNTS;
  else
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “kind” is “%s”; expected “line_integrals” or “counts”", abs_path, kind_s);
      return NULL;
    }

  JsonObject *variants = ctr_json_get_object (root, "variants", FALSE, abs_path, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (variants != NULL)
    {
      GList *names = json_object_get_members (variants);
      GStrvBuilder *b = g_strv_builder_new ();
      for (GList *l = names; l != NULL; l = l->next)
        g_strv_builder_add (b, l->data);
      d->variants = g_strv_builder_end (b);
      g_strv_builder_unref (b);
      g_list_free (names);
    }

  JsonObject *spec;
  const char *spec_key;
  g_autofree char *variant_key = NULL;
  if (variant != NULL)
    {
      if (variants == NULL || !json_object_has_member (variants, variant))
        {
          g_autofree char *valid = d->variants != NULL && d->variants[0] != NULL
                                   ? g_strjoinv (", ", d->variants) : g_strdup ("none");
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “variants” has no entry “%s”; valid variants: %s",
                       abs_path, variant, valid);
          return NULL;
        }
      variant_key = g_strdup_printf ("variants.%s", variant);
      spec = ctr_json_get_object (variants, variant, TRUE, abs_path, error);
      spec_key = variant_key;
      d->variant = g_strdup (variant);
    }
  else
    {
      spec = ctr_json_get_object (root, "projections", TRUE, abs_path, error);
      spec_key = "projections";
    }
  if (spec == NULL)
    return NULL;

  g_autofree char *base_dir = g_path_get_dirname (abs_path);
  d->projections = load_projections (d, spec, spec_key, d->geometry, kind, base_dir, abs_path,
                                     cancellable, error);
  if (d->projections == NULL)
    return NULL;
  if (kind == CTR_PROJ_COUNTS
      && !load_counts_fields (d, d->projections, root, spec, base_dir, abs_path, cancellable, error))
    return NULL;
  if (kind == CTR_PROJ_LINE_INTEGRALS && !load_photon_count (d->projections, root, spec, abs_path, error))
    return NULL;

  if (!ctr_projections_check_finite (d->projections, error)
      || !ctr_projections_to_line_integrals (d->projections, error))
    {
      g_prefix_error (error, "%s, “%s”: ", abs_path, spec_key);
      return NULL;
    }
  if (!ctr_dataset_correct (d, root, replace, abs_path, error))
    return NULL;

  JsonObject *ref = ctr_json_get_object (root, "reference", FALSE, abs_path, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (ref != NULL)
    {
      if (check_cancelled (cancellable, error))
        return NULL;
      d->reference = load_reference (d, ref, d->geometry, base_dir, abs_path, error);
      if (d->reference == NULL)
        return NULL;
    }
  ctr_dataset_check_claims (d);
  return g_steal_pointer (&d);
}
