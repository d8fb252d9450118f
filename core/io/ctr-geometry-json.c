/* ctr-geometry-json.c — write a CtrGeometry as a geometry.json (FORMAT.md). */
#include "io/ctr-geometry-json.h"
#include "io/ctr-output-set.h"
#include "base/ctr-error.h"
#include "io/ctr-json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const geometry_keys[] = {
  "type", "detector_shape", "views", "detector_cols", "detector_rows",
  "source_to_isocenter_mm", "source_to_detector_mm",
  "detector_pitch_u_mm", "detector_pitch_u_rad", "detector_pitch_v_mm",
  "detector_offset_u_mm", "detector_offset_u_rad", "detector_offset_v_mm",
  "rows_increase_with_v", "pixel_size_known", "angles_rad",
  "angle_start_rad", "angle_step_rad", "vectors",
  "source_z_mm", "source_z_start_mm", "source_z_step_mm", "table_feed_per_rotation_mm", "pitch_factor",
  "focal_shift_angle_rad", "focal_shift_z_mm", "focal_shift_radial_mm", "table_reversed",
};

JsonObject *
ctr_geometry_to_json_object (const CtrGeometry *g)
{
  g_return_val_if_fail (g != NULL, NULL);

  JsonObject *o = json_object_new ();
  const char *type = g->beam == CTR_BEAM_PARALLEL ? "parallel" : g->beam == CTR_BEAM_FAN ? "fan"
                     : ctr_geometry_is_helical (g) ? "helical" : "cone";
  gboolean curved = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED;

  json_object_set_string_member (o, "type", type);
  if (g->beam != CTR_BEAM_PARALLEL)
    json_object_set_string_member (o, "detector_shape", curved ? "curved" : "flat");
  json_object_set_int_member (o, "views", g->n_views);
  json_object_set_int_member (o, "detector_cols", g->n_cols);
  json_object_set_int_member (o, "detector_rows", g->n_rows);
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      json_object_set_double_member (o, "source_to_isocenter_mm", g->sod_mm);
      json_object_set_double_member (o, "source_to_detector_mm", g->sdd_mm);
    }
  json_object_set_double_member (o, curved ? "detector_pitch_u_rad" : "detector_pitch_u_mm", g->pitch_u);
  json_object_set_double_member (o, "detector_pitch_v_mm", g->pitch_v_mm);
  json_object_set_double_member (o, curved ? "detector_offset_u_rad" : "detector_offset_u_mm", g->offset_u);
  json_object_set_double_member (o, "detector_offset_v_mm", g->offset_v_mm);
  json_object_set_boolean_member (o, "rows_increase_with_v", g->rows_increase_with_v);
  json_object_set_boolean_member (o, "pixel_size_known", g->pixel_size_known);

  JsonArray *angles = json_array_sized_new (g->n_views);
  for (guint k = 0; k < g->n_views; k++)
    json_array_add_double_element (angles, g->angles[k]);
  json_object_set_array_member (o, "angles_rad", angles);
  if (g->vectors != NULL)
    ctr_geometry_json_add_vectors (o, g);
  ctr_geometry_json_add_helix (o, g);
  return o;
}

/* Makes a relative file name in @o[@key] absolute against @base_dir. */
static void
rebase_member (JsonObject *o, const char *key, const char *base_dir)
{
  JsonNode *n = json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;
  if (n == NULL || json_node_get_value_type (n) != G_TYPE_STRING)
    return;
  const char *file = json_node_get_string (n);
  if (file == NULL || g_path_is_absolute (file))
    return;
  g_autofree char *abs = g_build_filename (base_dir, file, NULL);
  json_object_set_string_member (o, key, abs);
}

static void
rebase_spec (JsonNode *n, const char *base_dir)
{
  static const char *const keys[] = { "file", "pattern", "folder", "flat", "dark" };
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return;
  JsonObject *o = json_node_get_object (n);
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    rebase_member (o, keys[k], base_dir);
}

static void
rebase_paths (JsonObject *root, const char *base_dir)
{
  rebase_member (root, "flat", base_dir);
  rebase_member (root, "dark", base_dir);
  if (json_object_has_member (root, "projections"))
    rebase_spec (json_object_get_member (root, "projections"), base_dir);
  if (json_object_has_member (root, "reference"))
    rebase_spec (json_object_get_member (root, "reference"), base_dir);
  JsonNode *variants = json_object_has_member (root, "variants") ? json_object_get_member (root, "variants") : NULL;
  if (variants != NULL && JSON_NODE_HOLDS_OBJECT (variants))
    {
      JsonObject *v = json_node_get_object (variants);
      GList *names = json_object_get_members (v);
      for (GList *l = names; l != NULL; l = l->next)
        rebase_spec (json_object_get_member (v, l->data), base_dir);
      g_list_free (names);
    }
}

static gboolean
same_folder (const char *a, const char *b)
{
  g_autofree char *da = g_path_get_dirname (a);
  g_autofree char *db = g_path_get_dirname (b);
  g_autofree char *ca = g_canonicalize_filename (da, NULL);
  g_autofree char *cb = g_canonicalize_filename (db, NULL);
  return g_strcmp0 (ca, cb) == 0;
}

gboolean
ctr_geometry_json_write (const CtrGeometry *g, const char *name, const char *source_path,
                         const char *path, GError **error)
{
  g_return_val_if_fail (g != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ctr_geometry_validate (g, error))
    return FALSE;

  g_autoptr (JsonParser) parser = NULL;
  JsonObject *root = NULL; /* owned below */
  if (source_path != NULL)
    {
      parser = ctr_json_parse_file (source_path, error);
      if (parser == NULL)
        return FALSE;
      JsonNode *node = json_parser_get_root (parser);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the file does not hold one JSON object",
                       source_path);
          return FALSE;
        }
      root = json_object_ref (json_node_get_object (node));
      for (guint k = 0; k < G_N_ELEMENTS (geometry_keys); k++)
        if (json_object_has_member (root, geometry_keys[k]))
          json_object_remove_member (root, geometry_keys[k]);
      if (!same_folder (source_path, path))
        {
          g_autofree char *dir = g_path_get_dirname (source_path);
          g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
          rebase_paths (root, abs_dir);
        }
    }

  /* Order: name first, then the geometry, then what the source carried. */
  JsonObject *out = json_object_new ();
  if (name != NULL)
    json_object_set_string_member (out, "name", name);
  else if (root != NULL && json_object_has_member (root, "name"))
    json_object_set_member (out, "name", json_node_copy (json_object_get_member (root, "name")));

  JsonObject *geo = ctr_geometry_to_json_object (g);
  ctr_json_object_merge (out, geo, TRUE);
  json_object_unref (geo);
  if (root != NULL)
    {
      ctr_json_object_merge (out, root, FALSE);
      json_object_unref (root);
    }
  gboolean ok = ctr_json_object_write (out, path, error);
  json_object_unref (out);
  return ok;
}

gboolean
ctr_geometry_json_write_offset_u (const char *source_path, gboolean curved, double offset_u, double tilt_rad,
                                  const char *path, GError **error)
{
  g_return_val_if_fail (source_path != NULL && path != NULL, FALSE);
  g_autoptr (JsonParser) parser = ctr_json_parse_file (source_path, error);
  if (parser == NULL)
    return FALSE;
  JsonNode *node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the file does not hold one JSON object", source_path);
      return FALSE;
    }
  JsonObject *root = json_node_get_object (node);
  const char *key = curved ? "detector_offset_u_rad" : "detector_offset_u_mm";
  const char *other = curved ? "detector_offset_u_mm" : "detector_offset_u_rad";
  if (json_object_has_member (root, other))
    json_object_remove_member (root, other);
  json_object_set_double_member (root, key, offset_u);
  if (isfinite (tilt_rad))
    json_object_set_double_member (root, "detector_tilt_rad", tilt_rad);
  if (!same_folder (source_path, path))
    {
      g_autofree char *dir = g_path_get_dirname (source_path);
      g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
      rebase_paths (root, abs_dir);
    }
  return ctr_json_object_write (root, path, error);
}

void
ctr_json_object_merge (JsonObject *dst, JsonObject *src, gboolean replace)
{
  g_return_if_fail (dst != NULL && src != NULL);
  GList *keys = json_object_get_members (src);
  for (GList *l = keys; l != NULL; l = l->next)
    if (replace || !json_object_has_member (dst, l->data))
      json_object_set_member (dst, l->data, json_node_copy (json_object_get_member (src, l->data)));
  g_list_free (keys);
}

gboolean
ctr_json_object_write (JsonObject *o, const char *path, GError **error)
{
  g_return_val_if_fail (o != NULL && path != NULL, FALSE);
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, o);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_indent (gen, 1);
  json_generator_set_root (gen, node);
  gsize length = 0;
  g_autofree char *text = json_generator_to_data (gen, &length);

  /* A registered temporary beside @path, fsync'ed and renamed over @path:
   * readers see the old file or the new one; a signal leaves no temporary. */
  return ctr_output_write_file (path, text, (gssize) length, error);
}
