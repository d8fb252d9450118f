/* ctr-geometry-helix-json.c — the helical keys of geometry.json (see
 * ctr-geometry-json.h and the README's "Helical scans"): the source z of
 * every view, the flying focal spot, the table direction. */
#include "io/ctr-geometry-json.h"
#include "data/ctr-helix.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>

static const char *const shift_keys[3] = { "focal_shift_angle_rad", "focal_shift_z_mm", "focal_shift_radial_mm" };

/* A number member @key into @out (TRUE, @out kept, when absent). */
static gboolean
get_number (JsonObject *o, const char *key, double *out, const char *where, GError **error)
{
  if (!json_object_has_member (o, key))
    return TRUE;
  JsonNode *n = json_object_get_member (o, key);
  const GType t = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  if ((t != G_TYPE_DOUBLE && t != G_TYPE_INT64) || !isfinite (json_node_get_double (n)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a finite number", where, key);
      return FALSE;
    }
  *out = json_node_get_double (n);
  return TRUE;
}

/* An optional list of exactly @n finite numbers (*@out NULL when absent). */
static gboolean
get_view_list (JsonObject *o, const char *key, guint n, double **out, const char *where, GError **error)
{
  *out = NULL;
  if (!json_object_has_member (o, key))
    return TRUE;
  JsonNode *node = json_object_get_member (o, key);
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a list of numbers", where, key);
      return FALSE;
    }
  JsonArray *a = json_node_get_array (node);
  const guint len = json_array_get_length (a);
  if (len != n)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “%s” has %u entries but “views” is %u", where, key, len, n);
      return FALSE;
    }
  g_autofree char *what = g_strdup_printf ("%s: the key “%s” (%u numbers)", where, key, n);
  g_autofree double *v = ctr_memory_try_new (MAX (n, 1), sizeof (double), FALSE, what, error);
  if (v == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      const GType t = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_value_type (e) : G_TYPE_INVALID;
      if ((t != G_TYPE_DOUBLE && t != G_TYPE_INT64) || !isfinite (json_node_get_double (e)))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: entry %u of the key “%s” is not a finite number",
                       where, i, key);
          return FALSE;
        }
      v[i] = json_node_get_double (e);
    }
  *out = g_steal_pointer (&v);
  return TRUE;
}

gboolean
ctr_geometry_json_has_helix (JsonObject *o)
{
  static const char *const keys[] = { "source_z_mm", "source_z_start_mm", "source_z_step_mm",
                                      "table_feed_per_rotation_mm", "pitch_factor" };
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    if (json_object_has_member (o, keys[k]))
      return TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (shift_keys); k++)
    if (json_object_has_member (o, shift_keys[k]))
      return TRUE;
  return FALSE;
}

gboolean
ctr_geometry_json_read_helix (JsonObject *o, CtrGeometry *g, gboolean helical, const char *where, GError **error)
{
  const guint V = g->n_views;
  g_autofree double *z = NULL;
  if (!get_view_list (o, "source_z_mm", V, &z, where, error))
    return FALSE;
  if (json_object_has_member (o, "table_reversed"))
    {
      JsonNode *n = json_object_get_member (o, "table_reversed");
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “table_reversed” must be true or false",
                       where);
          return FALSE;
        }
      g->table_reversed = json_node_get_boolean (n);
    }
  if (z != NULL)
    g->source_z_mm = g_steal_pointer (&z);
  else if (json_object_has_member (o, "source_z_start_mm"))
    {
      double start = 0, step = 0, feed = 0;
      if (!get_number (o, "source_z_start_mm", &start, where, error))
        return FALSE;
      if (json_object_has_member (o, "source_z_step_mm"))
        {
          if (!get_number (o, "source_z_step_mm", &step, where, error))
            return FALSE;
          if (!ctr_geometry_set_source_z (g, start, step, error))
            return FALSE;
        }
      else if (json_object_has_member (o, "table_feed_per_rotation_mm"))
        {
          if (!get_number (o, "table_feed_per_rotation_mm", &feed, where, error))
            return FALSE;
          if (!ctr_geometry_set_source_z (g, start, 0.0, error))
            return FALSE;
          for (guint k = 0; k < V; k++)
            g->source_z_mm[k] = start + feed * fabs (g->angles[k] - g->angles[0]) / (2.0 * G_PI);
        }
      else
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: the key “source_z_start_mm” needs “source_z_step_mm” (mm per view) or "
                       "“table_feed_per_rotation_mm”", where);
          return FALSE;
        }
    }
  else if (helical)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: a helical geometry needs the source z of every view: “source_z_mm” (a list), or "
                   "“source_z_start_mm” with “source_z_step_mm” or “table_feed_per_rotation_mm”", where);
      return FALSE;
    }
  for (guint c = 0; c < 3; c++)
    {
      g_autofree double *list = NULL;
      if (!get_view_list (o, shift_keys[c], V, &list, where, error))
        return FALSE;
      if (list == NULL)
        continue;
      if (g->focal_shift == NULL
          && (g->focal_shift = ctr_memory_try_new (V, 3 * sizeof (double), TRUE, "the focal spot's shifts", error))
               == NULL)
        return FALSE;
      for (guint k = 0; k < V; k++)
        g->focal_shift[3 * k + c] = list[k];
    }
  return TRUE;
}

gboolean
ctr_geometry_json_check_feed (JsonObject *o, const CtrGeometry *g, const char *where, GError **error)
{
  if (!ctr_geometry_is_helical (g))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “type” is “helical” but the source z does not move", where);
      return FALSE;
    }
  double feed = 0, pitch = 0;
  if (!get_number (o, "table_feed_per_rotation_mm", &feed, where, error)
      || !get_number (o, "pitch_factor", &pitch, where, error))
    return FALSE;
  const double measured = ctr_helix_feed_mm (g);
  if (feed != 0 && fabs (fabs (feed) - fabs (measured)) > MAX (0.01, 0.01 * fabs (feed)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: inconsistent feed: the key “table_feed_per_rotation_mm” is %g mm, but the source z "
                   "moves %.4g mm per rotation", where, feed, measured);
      return FALSE;
    }
  if (pitch != 0 && fabs (pitch - ctr_helix_pitch (g)) > 0.02 * fabs (pitch))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: inconsistent feed: the key “pitch_factor” is %g, but the feed over the detector rows "
                   "gives %.4g", where, pitch, ctr_helix_pitch (g));
      return FALSE;
    }
  return TRUE;
}

static void
set_list (JsonObject *o, const char *key, const double *v, guint n, guint stride)
{
  JsonArray *a = json_array_sized_new (n);
  for (guint k = 0; k < n; k++)
    json_array_add_double_element (a, v[(gsize) k * stride]);
  json_object_set_array_member (o, key, a);
}

void
ctr_geometry_json_add_helix (JsonObject *o, const CtrGeometry *g)
{
  if (g->source_z_mm != NULL)
    set_list (o, "source_z_mm", g->source_z_mm, g->n_views, 1);
  if (ctr_geometry_is_helical (g))
    {
      json_object_set_double_member (o, "table_feed_per_rotation_mm", ctr_helix_feed_mm (g));
      json_object_set_double_member (o, "pitch_factor", ctr_helix_pitch (g));
    }
  for (guint c = 0; g->focal_shift != NULL && c < 3; c++)
    set_list (o, shift_keys[c], g->focal_shift + c, g->n_views, 3);
  if (g->table_reversed)
    json_object_set_boolean_member (o, "table_reversed", TRUE);
}
