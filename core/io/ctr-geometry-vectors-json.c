/* ctr-geometry-vectors-json.c — the "vectors" form of geometry.json (see
 * ctr-geometry-json.h and the README's "Per-view vector geometry"). */
#include "io/ctr-geometry-json.h"
#include "data/ctr-geometry-vectors.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>

static gboolean
number_at (JsonArray *a, guint i, double *out)
{
  JsonNode *n = json_array_get_element (a, i);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  const GType t = json_node_get_value_type (n);
  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_double (n);
  return TRUE;
}

/* Optional number member @key of @o into @out (kept when absent). */
static gboolean
optional_number (JsonObject *o, const char *key, double *out, const char *where, GError **error)
{
  if (!json_object_has_member (o, key))
    return TRUE;
  JsonNode *n = json_object_get_member (o, key);
  const GType t = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a number", where, key);
      return FALSE;
    }
  *out = json_node_get_double (n);
  return TRUE;
}

CtrGeometry *
ctr_geometry_json_read_vectors (JsonObject *o, CtrBeam beam, guint views, guint rows, guint cols,
                                const char *where, GError **error)
{
  if (beam == CTR_BEAM_PARALLEL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "%s: “vectors” describe fan or cone beam; parallel-beam vectors are not supported", where);
      return NULL;
    }
  JsonNode *node = json_object_get_member (o, "vectors");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: the key “vectors” must be an array with one array of numbers per view", where);
      return NULL;
    }
  JsonArray *a = json_node_get_array (node);
  if (json_array_get_length (a) != views)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “vectors” has %u entries but “views” is %u", where, json_array_get_length (a), views);
      return NULL;
    }
  g_autofree char *what = g_strdup_printf ("%s: the vectors of %u views", where, views);
  g_autofree double *vec = ctr_memory_try_new ((gsize) views * CTR_GEOMETRY_VECTOR_LEN, sizeof (double), TRUE,
                                               what, error);
  if (vec == NULL)
    return NULL;
  /* Fan: 6 numbers (ASTRA fanflat_vec: S_x S_y D_x D_y u_x u_y) or 12 with
   * zero z; cone: 12 (cone_vec). */
  for (guint k = 0; k < views; k++)
    {
      JsonNode *e = json_array_get_element (a, k);
      JsonArray *row = e != NULL && JSON_NODE_HOLDS_ARRAY (e) ? json_node_get_array (e) : NULL;
      const guint n = row != NULL ? json_array_get_length (row) : 0;
      const gboolean fan6 = beam == CTR_BEAM_FAN && n == 6;
      if (!fan6 && n != CTR_GEOMETRY_VECTOR_LEN)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: “vectors” entry %u must be an array of %s numbers (source, detector centre, u step%s, mm)",
                       where, k, beam == CTR_BEAM_FAN ? "6 (or 12)" : "12", beam == CTR_BEAM_FAN ? "" : ", v step");
          return NULL;
        }
      double *w = vec + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      for (guint i = 0; i < n; i++)
        {
          /* fan6: x, y of S, D, u into slots 0,1 / 3,4 / 6,7 */
          const guint slot = fan6 ? (i / 2) * 3 + i % 2 : i;
          if (!number_at (row, i, &w[slot]))
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “vectors” entry %u, element %u is not a number",
                           where, k, i);
              return NULL;
            }
        }
      if (beam == CTR_BEAM_FAN && fan6)
        w[11] = 1.0;
    }
  g_autoptr (CtrGeometry) g = ctr_geometry_new_from_vectors (beam, views, rows, cols, vec, error);
  if (g == NULL)
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  /* A fan-beam stack's rows are slices: their pitch and offset as usual. */
  if (beam == CTR_BEAM_FAN
      && (!optional_number (o, "detector_pitch_v_mm", &g->pitch_v_mm, where, error)
          || !optional_number (o, "detector_offset_v_mm", &g->offset_v_mm, where, error)))
    return NULL;
  if (json_object_has_member (o, "pixel_size_known"))
    g->pixel_size_known = json_object_get_boolean_member (o, "pixel_size_known");
  if (!ctr_geometry_validate (g, error))
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  return g_steal_pointer (&g);
}

void
ctr_geometry_json_add_vectors (JsonObject *o, const CtrGeometry *g)
{
  JsonArray *a = json_array_sized_new (g->n_views);
  for (guint k = 0; k < g->n_views; k++)
    {
      JsonArray *row = json_array_sized_new (CTR_GEOMETRY_VECTOR_LEN);
      const double *w = g->vectors + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      for (guint i = 0; i < CTR_GEOMETRY_VECTOR_LEN; i++)
        json_array_add_double_element (row, w[i]);
      json_array_add_array_element (a, row);
    }
  json_object_set_array_member (o, "vectors", a);
}
