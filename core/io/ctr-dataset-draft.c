/* ctr-dataset-draft.c — a geometry.json whose geometry is wrong: every
 * problem in words, and the dataset with the file's geometry as a draft to
 * edit (see ctr-dataset.h).  Only the geometry keys are read leniently
 * here; the projections, reference and the rest go through
 * ctr_dataset_load() unchanged. */
#include "io/ctr-dataset.h"
#include "base/ctr-error.h"
#include "io/ctr-json.h"
#include "io/ctr-geometry-json.h"

#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

/* The number at @key: TRUE with *@out; FALSE (and a problem) when it is
 * missing and @required, or not a number. */
static gboolean
number (JsonObject *o, const char *key, gboolean required, double *out, GPtrArray *problems)
{
  JsonNode *n = json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;

  if (n == NULL)
    {
      if (required)
        g_ptr_array_add (problems, g_strdup_printf ("“%s” is missing", key));
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_VALUE (n) || (json_node_get_value_type (n) != G_TYPE_DOUBLE &&
                                     json_node_get_value_type (n) != G_TYPE_INT64))
    {
      g_ptr_array_add (problems, g_strdup_printf ("“%s” is not a number", key));
      return FALSE;
    }
  *out = json_node_get_double (n);
  return TRUE;
}

static void
positive (JsonObject *o, const char *key, const char *what, gboolean required, double *out, GPtrArray *problems)
{
  if (number (o, key, required, out, problems) && !(*out > 0 && isfinite (*out)))
    g_ptr_array_add (problems, g_strdup_printf ("%s (“%s”) must be positive, got %g", what, key, *out));
}

/* The geometry as the file states it, however wrong, and every problem
 * found; NULL when views or columns are unusable (nothing can be loaded),
 * or with CTR_ERROR_OUT_OF_MEMORY when its angles cannot be allocated. */
/* The string at @key, or @def when missing or not a string. */
static const char *
string (JsonObject *o, const char *key, const char *def)
{
  JsonNode *n = json_object_has_member (o, key) ? json_object_get_member (o, key) : NULL;
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
    ? json_node_get_string (n) : def;
}

static CtrGeometry *
draft_geometry (JsonObject *o, GPtrArray *problems, GError **error)
{
  const char *type = string (o, "type", "");
  const char *shape = string (o, "detector_shape", "flat");
  CtrBeam beam = g_str_equal (type, "parallel") ? CTR_BEAM_PARALLEL : g_str_equal (type, "cone") ? CTR_BEAM_CONE
                                                                                                 : CTR_BEAM_FAN;
  double views = 0, cols = 0, rows = 1;
  g_autoptr(CtrGeometry) g = NULL;

  if (!g_str_equal (type, "parallel") && !g_str_equal (type, "fan") && !g_str_equal (type, "cone"))
    g_ptr_array_add (problems, g_strdup_printf ("“type” is “%s”; expected “parallel”, “fan” or “cone”", type));
  positive (o, "views", "the number of views", TRUE, &views, problems);
  positive (o, "detector_cols", "the number of detector columns", TRUE, &cols, problems);
  positive (o, "detector_rows", "the number of detector rows", FALSE, &rows, problems);
  if (!(views >= 1 && views <= 1e7 && cols >= 1 && cols <= 1e6 && rows >= 1 && rows <= 1e6) || views != floor (views) ||
      cols != floor (cols) || rows != floor (rows))
    return NULL;
  if ((g = ctr_geometry_try_new (beam, (guint) views, error)) == NULL)
    return NULL;
  g->n_cols = (guint) cols;
  g->n_rows = (guint) rows;
  g->shape = g_str_equal (shape, "curved") ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT;
  if (beam != CTR_BEAM_PARALLEL)
    {
      if (!g_str_equal (shape, "flat") && !g_str_equal (shape, "curved"))
        g_ptr_array_add (problems, g_strdup_printf ("“detector_shape” is “%s”; expected “flat” or “curved”", shape));
      positive (o, "source_to_isocenter_mm", "the source to isocentre distance", TRUE, &g->sod_mm, problems);
      if (number (o, "source_to_detector_mm", TRUE, &g->sdd_mm, problems) && !(g->sdd_mm > g->sod_mm))
        g_ptr_array_add (problems,
                         g_strdup_printf ("the source to detector distance (“source_to_detector_mm”, %g) must exceed "
                                          "the source to isocentre distance (%g)", g->sdd_mm, g->sod_mm));
    }
  {
    const char *pitch_key = g->shape == CTR_DETECTOR_CURVED ? "detector_pitch_u_rad" : "detector_pitch_u_mm";
    const char *offset_key = g->shape == CTR_DETECTOR_CURVED ? "detector_offset_u_rad" : "detector_offset_u_mm";
    positive (o, pitch_key, "the column pitch", TRUE, &g->pitch_u, problems);
    number (o, offset_key, FALSE, &g->offset_u, problems);
  }
  g->pitch_v_mm = 1;
  positive (o, "detector_pitch_v_mm", "the row pitch", g->n_rows > 1, &g->pitch_v_mm, problems);
  number (o, "detector_offset_v_mm", FALSE, &g->offset_v_mm, problems);
  if (json_object_has_member (o, "angles_rad"))
    {
      JsonNode *n = json_object_get_member (o, "angles_rad");
      JsonArray *a = JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
      if (a == NULL || json_array_get_length (a) != g->n_views)
        g_ptr_array_add (problems, g_strdup_printf ("“angles_rad” has %u entries but “views” is %u",
                                                    a ? json_array_get_length (a) : 0, g->n_views));
      else
        for (guint k = 0; k < g->n_views; k++)
          {
            JsonNode *e = json_array_get_element (a, k);
            g->angles[k] = JSON_NODE_HOLDS_VALUE (e) && (json_node_get_value_type (e) == G_TYPE_DOUBLE ||
                                                         json_node_get_value_type (e) == G_TYPE_INT64)
              ? json_node_get_double (e) : NAN;
          }
      if (a == NULL || json_array_get_length (a) != g->n_views)
        ctr_geometry_set_uniform_angles (g, 0, 2 * G_PI / g->n_views);
    }
  else
    {
      double start = 0, step = 0;
      gboolean ok = number (o, "angle_start_rad", TRUE, &start, problems);
      ok = number (o, "angle_step_rad", TRUE, &step, problems) && ok;
      ctr_geometry_set_uniform_angles (g, ok ? start : 0, ok ? step : 2 * G_PI / g->n_views);
    }
  /* core's own check for what the keys alone do not show */
  if (problems->len == 0)
    {
      g_autoptr(GError) error = NULL;
      if (!ctr_geometry_validate (g, &error))
        g_ptr_array_add (problems, g_strdup (error->message));
    }
  return g_steal_pointer (&g);
}

static JsonParser *
read_object (const char *path, JsonObject **root)
{
  g_autoptr(JsonParser) parser = ctr_json_parse_file (path, NULL);

  if (parser == NULL || json_parser_get_root (parser) == NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return NULL;
  *root = json_node_get_object (json_parser_get_root (parser));
  return g_steal_pointer (&parser);
}

char **
ctr_dataset_geometry_problems (const char *path)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  JsonObject *root = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(CtrGeometry) g = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  parser = read_object (path, &root);
  /* per-view vectors are checked by the loader alone (ctr-geometry-vectors.h) */
  if (parser == NULL || json_object_has_member (root, "vectors"))
    return NULL;
  g_autoptr(GError) error = NULL;
  g = draft_geometry (root, problems, &error);
  if (error != NULL)
    g_ptr_array_add (problems, g_strdup (error->message));
  if (problems->len == 0)
    return NULL;
  g_ptr_array_add (problems, NULL);
  return (char **) g_ptr_array_steal (problems, NULL);
}

/* @g with each refused field replaced by a value that passes, so that the
 * file's data can be read through ctr_dataset_load(); NULL with
 * CTR_ERROR_OUT_OF_MEMORY when @g cannot be copied. */
static CtrGeometry *
placeholder (const CtrGeometry *g, GError **error)
{
  CtrGeometry *p = ctr_geometry_try_copy (g, error);
  if (p == NULL)
    return NULL;

  if (p->beam != CTR_BEAM_PARALLEL)
    {
      p->sod_mm = 1000;
      p->sdd_mm = 2000;
    }
  p->pitch_u = p->shape == CTR_DETECTOR_CURVED ? 1e-4 : 0.1;
  p->pitch_v_mm = 1;
  p->offset_u = p->offset_v_mm = 0;
  ctr_geometry_set_uniform_angles (p, 0, 2 * G_PI / p->n_views);
  return p;
}

CtrDataset *
ctr_dataset_load_draft (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  JsonObject *root = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(CtrGeometry) draft = NULL;
  g_autoptr(CtrGeometry) stand_in = NULL;
  g_autoptr(CtrDataset) d = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *abs = NULL;
  GError *local = NULL;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  parser = read_object (path, &root);
  if (parser == NULL || json_object_has_member (root, "vectors"))
    return ctr_dataset_load (path, NULL, cancellable, error);   /* its error says why */
  draft = draft_geometry (root, problems, &local);
  if (draft == NULL && local != NULL)
    {
      g_propagate_prefixed_error (error, local, "%s: ", path);
      return NULL;
    }
  if (draft == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "%s: the views and detector columns must be known to read the projections: %s", path,
                   problems->len > 0 ? (char *) problems->pdata[0] : "they are not");
      return NULL;
    }
  /* the data through the normal loader, from a copy of the file with a
   * stand-in geometry (its file names made absolute) */
  stand_in = placeholder (draft, error);
  if (stand_in == NULL)
    return NULL;
  fd = g_file_open_tmp ("ctrecon-draft-XXXXXX.json", &tmp, &local);
  if (fd < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write a temporary file: %s", local->message);
      g_error_free (local);
      return NULL;
    }
  close (fd);
  if (ctr_geometry_json_write (stand_in, NULL, path, tmp, error))
    d = ctr_dataset_load (tmp, NULL, cancellable, error);
  g_unlink (tmp);
  if (d == NULL)
    return NULL;

  abs = g_canonicalize_filename (path, NULL);
  g_free (d->path);
  d->path = g_strdup (abs);
  for (guint i = 0; d->inputs != NULL && d->inputs[i] != NULL; i++)
    if (g_str_equal (d->inputs[i], tmp))
      {
        g_free (d->inputs[i]);
        d->inputs[i] = g_strdup (abs);
      }
  ctr_geometry_free (d->geometry);
  d->geometry = g_steal_pointer (&draft);
  d->geometry_missing = TRUE;
  return g_steal_pointer (&d);
}
