/* ctr-preprocess-params.c — the pipeline's parameter readers (see
 * ctr-preprocess-private.h). */
#include "preprocess/ctr-preprocess-private.h"
#include "preprocess/ctr-flux.h"
#include "base/ctr-error.h"

#include <math.h>

/* An odd integer ≥ 3 under @key of step @i. */
gboolean
ctr_prep_get_size (JsonObject *o, guint i, const char *where, int *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, "size");
  if (n == NULL)
    return TRUE;
  const double v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_STRING
                   && json_node_get_value_type (n) != G_TYPE_BOOLEAN ? json_node_get_double (n) : NAN;
  if (!(v >= 3) || v > 4096 || v != floor (v) || fmod (v, 2) != 1)
    {
      char got[G_ASCII_DTOSTR_BUF_SIZE] = "a non-number";
      if (!isnan (v))
        g_ascii_formatd (got, sizeof got, "%g", v);
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u: “size” must be an odd integer of at least 3, got %s",
                   where, i + 1, got);
      return FALSE;
    }
  *out = (int) v;
  return TRUE;
}

gboolean
ctr_prep_get_threshold (JsonObject *o, guint i, const char *where, double *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, "threshold");
  if (n == NULL)
    return TRUE;
  const double v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) != G_TYPE_STRING
                   && json_node_get_value_type (n) != G_TYPE_BOOLEAN ? json_node_get_double (n) : NAN;
  if (!(v > 0) || !isfinite (v))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u: “threshold” must be a positive number of standard deviations",
                   where, i + 1);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Every member of @o is "op" or one of @allowed. */
gboolean
ctr_prep_check_members (JsonObject *o, guint i, const char *op, const char *const *allowed, const char *where,
               GError **error)
{
  g_autoptr (GList) names = json_object_get_members (o);
  for (GList *l = names; l != NULL; l = l->next)
    {
      if (g_str_equal (l->data, "op") || g_strv_contains (allowed, l->data))
        continue;
      g_autofree char *valid = g_strjoinv (", ", (char **) allowed);
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“%s”): unknown parameter “%s”; valid: %s",
                   where, i + 1, op, (const char *) l->data, valid);
      return FALSE;
    }
  return TRUE;
}


/* A JSON number (not a string or boolean), else NaN. */
static double
number (JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  const GType t = json_node_get_value_type (n);
  return t == G_TYPE_DOUBLE || t == G_TYPE_INT64 ? json_node_get_double (n) : NAN;
}

gboolean
ctr_prep_get_integer (JsonObject *o, const char *key, guint i, const char *op, double lo, double hi,
                      const char *where, guint *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  if (n == NULL)
    return TRUE;
  const double v = number (n);
  if (!(v >= lo && v <= hi) || v != floor (v))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“%s”): “%s” must be an integer from %g to %g", where, i + 1, op,
                   key, lo, hi);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

gboolean
ctr_prep_get_positive (JsonObject *o, const char *key, guint i, const char *op, const char *where,
                       double *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  if (n == NULL)
    return TRUE;
  const double v = number (n);
  if (!(v > 0) || !isfinite (v))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“%s”): “%s” must be a positive number", where, i + 1, op, key);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
ctr_prep_get_columns (JsonObject *o, guint i, const char *where, guint **ranges, guint *n_ranges,
                      GError **error)
{
  JsonNode *n = json_object_get_member (o, "columns");
  if (n == NULL)
    return TRUE;
  JsonArray *a = JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
  const guint len = a != NULL ? json_array_get_length (a) : 0;
  gboolean ok = len >= 1 && len <= CTR_FLUX_MAX_RANGES;
  g_autofree guint *r = g_new0 (guint, 2 * MAX (len, 1));
  for (guint k = 0; ok && k < len; k++)
    {
      JsonNode *e = json_array_get_element (a, k);
      JsonArray *pair = JSON_NODE_HOLDS_ARRAY (e) ? json_node_get_array (e) : NULL;
      ok = pair != NULL && json_array_get_length (pair) == 2;
      for (guint j = 0; ok && j < 2; j++)
        {
          const double v = number (json_array_get_element (pair, j));
          ok = v >= 0 && v <= G_MAXINT32 && v == floor (v);
          if (ok)
            r[2 * k + j] = (guint) v;
        }
      ok = ok && r[2 * k] <= r[2 * k + 1];
    }
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“flux”): “columns” must be a list of 1 to %d [first, last] "
                   "pairs of 0-based detector columns, first ≤ last (e.g. [[0, 9], [118, 127]])",
                   where, i + 1, CTR_FLUX_MAX_RANGES);
      return FALSE;
    }
  *ranges = g_steal_pointer (&r);
  *n_ranges = len;
  return TRUE;
}

gboolean
ctr_prep_get_boolean (JsonObject *o, const char *key, guint i, const char *op, const char *where,
                      gboolean *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“%s”): “%s” must be true or false", where, i + 1, op, key);
      return FALSE;
    }
  *out = json_node_get_boolean (n);
  return TRUE;
}
