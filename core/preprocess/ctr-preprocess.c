/* ctr-preprocess.c — the "preprocess" pipeline (see ctr-preprocess.h). */
#include "preprocess/ctr-preprocess.h"
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-rings.h"
#include "base/ctr-error.h"

#include <math.h>

static const char *const op_names[] = { "outliers", "rings", "beam-hardening" };

/* An odd integer ≥ 3 under @key of step @i. */
static gboolean
get_size (JsonObject *o, guint i, const char *where, int *out, GError **error)
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

static gboolean
get_threshold (JsonObject *o, guint i, const char *where, double *out, GError **error)
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
static gboolean
check_members (JsonObject *o, guint i, const char *op, const char *const *allowed, const char *where,
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

static gboolean
parse_step (JsonNode *n, guint i, const char *where, CtrPrepStep *st, GError **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (n))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u is not an object with an “op”", where, i + 1);
      return FALSE;
    }
  JsonObject *o = json_node_get_object (n);
  JsonNode *opn = json_object_get_member (o, "op");
  const char *op = opn != NULL && JSON_NODE_HOLDS_VALUE (opn) && json_node_get_value_type (opn) == G_TYPE_STRING
                   ? json_node_get_string (opn) : NULL;
  if (op == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u has no “op” string (outliers, rings or beam-hardening)", where, i + 1);
      return FALSE;
    }
  if (g_str_equal (op, op_names[CTR_PREP_OUTLIERS]))
    {
      static const char *const allowed[] = { "threshold", "size", NULL };
      *st = (CtrPrepStep) { CTR_PREP_OUTLIERS, CTR_OUTLIERS_DEFAULT_THRESHOLD, CTR_OUTLIERS_DEFAULT_SIZE };
      return check_members (o, i, op, allowed, where, error)
             && get_threshold (o, i, where, &st->threshold, error) && get_size (o, i, where, &st->size, error);
    }
  if (g_str_equal (op, op_names[CTR_PREP_RINGS]))
    {
      static const char *const allowed[] = { "size", NULL };
      *st = (CtrPrepStep) { CTR_PREP_RINGS, 0, CTR_RINGS_DEFAULT_SIZE };
      return check_members (o, i, op, allowed, where, error) && get_size (o, i, where, &st->size, error);
    }
  if (g_str_equal (op, op_names[CTR_PREP_BEAM_HARDENING]))
    {
      g_autofree char *what = g_strdup_printf ("%s: “preprocess” step %u (“%s”)", where, i + 1, op);
      *st = (CtrPrepStep) { CTR_PREP_BEAM_HARDENING, 0, 0, NULL };
      st->bh = ctr_beamhard_from_json (o, what, error);
      return st->bh != NULL;
    }
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
               "%s: “preprocess” step %u: unknown op “%s” (outliers, rings or beam-hardening)", where, i + 1, op);
  return FALSE;
}

CtrPipeline *
ctr_pipeline_from_json (JsonNode *node, const char *where, GError **error)
{
  g_autoptr (CtrPipeline) pl = g_new0 (CtrPipeline, 1);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      node = json_object_get_member (json_node_get_object (node), "preprocess");
      if (node == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: expected a list of preprocessing steps or an object with “preprocess”", where);
          return NULL;
        }
    }
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_steal_pointer (&pl);
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” must be a list of steps ({\"op\": \"outliers\"}, {\"op\": \"rings\"}, {\"op\": \"beam-hardening\", …})", where);
      return NULL;
    }
  JsonArray *a = json_node_get_array (node);
  pl->n_steps = json_array_get_length (a);
  pl->steps = g_new0 (CtrPrepStep, MAX (pl->n_steps, 1));
  for (guint i = 0; i < pl->n_steps; i++)
    if (!parse_step (json_array_get_element (a, i), i, where, &pl->steps[i], error))
      return NULL;
  return g_steal_pointer (&pl);
}

static char *
run_step (const CtrPrepStep *st, CtrProjections *p, GError **error)
{
  const double total = (double) p->n_views * p->n_rows * p->n_cols;
  if (st->op == CTR_PREP_OUTLIERS)
    {
      guint64 n = 0;
      if (!ctr_outliers_remove (p, st->threshold, st->size, &n, error))
        return NULL;
      return g_strdup_printf ("outliers: %" G_GUINT64_FORMAT " pixels replaced (%.2f %%; threshold %g SD, %d × %d)",
                              n, 100.0 * (double) n / total, st->threshold, st->size, st->size);
    }
  if (st->op == CTR_PREP_BEAM_HARDENING)
    return ctr_beamhard_run (st->bh, p, error);
  guint64 n = 0;
  guint columns = 0;
  double rms = 0;
  if (!ctr_rings_remove (p, st->size, &n, &columns, &rms, error))
    return NULL;
  return g_strdup_printf ("rings: %u detector columns found striped (in at least half of the %u rows), "
                          "%" G_GUINT64_FORMAT " stripes in all row sinograms; RMS change %.3g (size %d)",
                          columns, p->n_rows, n, rms, st->size);
}

gboolean
ctr_pipeline_apply (const CtrPipeline *pl, CtrProjections *p, GPtrArray *notes, GError **error)
{
  g_return_val_if_fail (pl != NULL && p != NULL, FALSE);
  for (guint i = 0; i < pl->n_steps; i++)
    {
      char *note = run_step (&pl->steps[i], p, error);
      if (note == NULL)
        {
          g_prefix_error (error, "“preprocess” step %u: ", i + 1);
          return FALSE;
        }
      if (notes != NULL)
        g_ptr_array_add (notes, note);
      else
        g_free (note);
    }
  return TRUE;
}

void
ctr_pipeline_free (CtrPipeline *pl)
{
  if (pl == NULL)
    return;
  for (guint i = 0; i < pl->n_steps; i++)
    ctr_beamhard_free (pl->steps[i].bh);
  g_free (pl->steps);
  g_free (pl);
}
