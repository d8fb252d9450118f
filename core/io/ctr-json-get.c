/* ctr-json-get.c — typed access to the members of a JSON object, with
 * messages that name the file and the key (see ctr-json-get.h). */
#include "io/ctr-json-get.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

static JsonNode *
member (JsonObject *o, const char *key)
{
  return json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;
}

static gboolean
node_is_number (JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  GType t = json_node_get_value_type (n);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* A number member.  Missing: @def when !@required, else CTR_ERROR_FORMAT. */
gboolean
ctr_json_get_double (JsonObject *o, const char *key, gboolean required, double def, double *out,
                     const char *where, GError **error)
{
  JsonNode *n = member (o, key);
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    {
      if (required)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” is missing", where, key);
          return FALSE;
        }
      *out = def;
      return TRUE;
    }
  if (!node_is_number (n))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a number", where, key);
      return FALSE;
    }
  *out = json_node_get_double (n);
  if (!isfinite (*out))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a finite number",
                   where, key);
      return FALSE;
    }
  return TRUE;
}

/* An integer member (a JSON number with an integral value). */
gboolean
ctr_json_get_int (JsonObject *o, const char *key, gboolean required, gint64 def, gint64 *out,
                     const char *where, GError **error)
{
  double d;
  if (!ctr_json_get_double (o, key, required, (double) def, &d, where, error))
    return FALSE;
  if (d != floor (d) || fabs (d) > 9.0e15)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be an integer, got %g",
                   where, key, d);
      return FALSE;
    }
  *out = (gint64) d;
  return TRUE;
}

/* A size: an integer >= 1 (0 or less is CTR_ERROR_INVALID_GEOMETRY). */
gboolean
ctr_json_get_size (JsonObject *o, const char *key, gboolean required, guint def, guint *out,
                     const char *where, GError **error)
{
  gint64 v;
  if (!ctr_json_get_int (o, key, required, def, &v, where, error))
    return FALSE;
  if (v < 1 || v > G_MAXINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the key “%s” must be between 1 and %d, got %" G_GINT64_FORMAT, where, key,
                   G_MAXINT32, v);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

gboolean
ctr_json_get_bool (JsonObject *o, const char *key, gboolean def, gboolean *out, const char *where,
                     GError **error)
{
  JsonNode *n = member (o, key);
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    {
      *out = def;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be true or false",
                   where, key);
      return FALSE;
    }
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* A string member; NULL (and TRUE) when absent and not @required. */
gboolean
ctr_json_get_string (JsonObject *o, const char *key, gboolean required, const char **out,
                     const char *where, GError **error)
{
  JsonNode *n = member (o, key);
  *out = NULL;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    {
      if (required)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” is missing", where, key);
          return FALSE;
        }
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a string", where, key);
      return FALSE;
    }
  *out = json_node_get_string (n);
  return TRUE;
}

/* An optional list of numbers: *@out is NULL (and TRUE is returned) when the
 * key is absent; its length goes to @n_out. */
gboolean
ctr_json_get_numbers (JsonObject *o, const char *key, double **out, guint *n_out, const char *where,
             GError **error)
{
  JsonNode *n = member (o, key);
  *out = NULL;
  *n_out = 0;
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a list of numbers",
                   where, key);
      return FALSE;
    }
  JsonArray *a = json_node_get_array (n);
  guint len = json_array_get_length (a);
  g_autofree double *v = ctr_memory_try_new (MAX (len, 1), sizeof (double), TRUE, "a list of numbers", error);
  if (v == NULL)
    {
      g_prefix_error (error, "%s: the key “%s”: ", where, key);
      return FALSE;
    }
  for (guint i = 0; i < len; i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!node_is_number (e) || !isfinite (json_node_get_double (e)))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: entry %u of the key “%s” is not a finite number", where, i, key);
          return FALSE;
        }
      v[i] = json_node_get_double (e);
    }
  *out = g_steal_pointer (&v);
  *n_out = len;
  return TRUE;
}

JsonObject *
ctr_json_get_object (JsonObject *o, const char *key, gboolean required, const char *where, GError **error)
{
  JsonNode *n = member (o, key);
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    {
      if (required)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” is missing", where, key);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (n))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be an object", where, key);
      return NULL;
    }
  return json_node_get_object (n);
}

