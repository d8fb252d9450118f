/* ctr-study-json.c — STUDY.json → CtrStudy (format: README.md, "Dose
 * studies").  Every key is known or refused, so a typo is an error rather
 * than a silently different study. */
#include "study/ctr-study.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"
#include "io/ctr-json.h"
#include "base/ctr-hu.h"
#include "recon/ctr-params.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

static gboolean
fail (GError **error, const char *where, const char *key, const char *what)
{
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” %s", where, key, what);
  return FALSE;
}

static gboolean
is_number (JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  GType t = json_node_get_value_type (n);
  return (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE) && isfinite (json_node_get_double (n));
}

/* @n holds exactly @count finite numbers, into @out. */
static gboolean
numbers (JsonNode *n, guint count, double *out)
{
  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n) || json_array_get_length (json_node_get_array (n)) != count)
    return FALSE;
  for (guint i = 0; i < count; i++)
    {
      JsonNode *e = json_array_get_element (json_node_get_array (n), i);
      if (!is_number (e))
        return FALSE;
      out[i] = json_node_get_double (e);
    }
  return TRUE;
}

/* A parameter value as the text ctr_param_parse reads. */
static char *
value_text (JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NULL;
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_STRING)
    return g_strdup (json_node_get_string (n));
  if (t == G_TYPE_BOOLEAN)
    return g_strdup (json_node_get_boolean (n) ? "yes" : "no");
  if (t == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (n));
  if (t == G_TYPE_DOUBLE)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      return g_strdup (g_ascii_dtostr (buf, sizeof buf, json_node_get_double (n)));
    }
  return NULL;
}

typedef struct {
  const CtrParam *param;
  GPtrArray *values;   /* char *, the texts to try */
} Axis;

/* One "methods" entry: every combination of its parameter values. */
static gboolean
parse_method (CtrStudy *s, JsonObject *o, const char *where, GError **error)
{
  JsonNode *mn = json_object_get_member (o, "method");
  if (mn == NULL || !JSON_NODE_HOLDS_VALUE (mn) || json_node_get_value_type (mn) != G_TYPE_STRING)
    return fail (error, where, "method", "must name a method (fbp, part, ...)");
  CtrMethod method;
  if (!ctr_method_from_name (json_node_get_string (mn), &method, error))
    {
      g_prefix_error (error, "%s: ", where);
      return FALSE;
    }

  g_autoptr (GArray) axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  GList *keys = json_object_get_members (o);
  gboolean ok = TRUE;
  for (GList *l = keys; l != NULL && ok; l = l->next)
    {
      const char *key = l->data;
      if (g_str_equal (key, "method"))
        continue;
      const CtrParam *p = ctr_param_find_for (key, method);
      if (p == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: “%s” is not a reconstruction parameter (see ctrecon-cli reconstruct --help)",
                       where, key);
          ok = FALSE;
          break;
        }
      if (!ctr_param_applies (p, method))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the parameter “%s” does not apply to %s",
                       where, key, ctr_method_name (method));
          ok = FALSE;
          break;
        }
      Axis a = { p, g_ptr_array_new_with_free_func (g_free) };
      g_array_append_val (axes, a);
      JsonNode *v = json_object_get_member (o, key);
      if (JSON_NODE_HOLDS_ARRAY (v) && json_array_get_length (json_node_get_array (v)) > 0)
        {
          JsonArray *arr = json_node_get_array (v);
          for (guint i = 0; i < json_array_get_length (arr); i++)
            g_ptr_array_add (a.values, value_text (json_array_get_element (arr, i)));
        }
      else
        g_ptr_array_add (a.values, value_text (v));
      for (guint i = 0; i < a.values->len; i++)
        if (g_ptr_array_index (a.values, i) == NULL)
          {
            ok = fail (error, where, key, "must be a value or a list of values (numbers, names, true/false)");
            break;
          }
    }
  g_list_free (keys);

  /* Odometer over the axes: the first key varies slowest. */
  g_autofree guint *idx = g_new0 (guint, axes->len + 1);
  gboolean done = FALSE;
  while (ok && !done)
    {
      CtrReconOptions opt;
      ctr_recon_options_init (&opt, method);
      g_autoptr (GString) params = g_string_new (NULL);
      for (guint a = 0; a < axes->len && ok; a++)
        {
          const Axis *ax = &g_array_index (axes, Axis, a);
          const char *text = g_ptr_array_index (ax->values, idx[a]);
          if (!ctr_param_parse (ax->param, &opt, text, error))
            {
              g_prefix_error (error, "%s: ", where);
              ok = FALSE;
              break;
            }
          /* The label shows the value as a person writes it (0.6, not 0.59999999999999998). */
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          g_autofree char *canon = ax->param->type == CTR_PARAM_DOUBLE
            ? g_strdup (g_ascii_formatd (buf, sizeof buf, "%.6g", ctr_param_get (ax->param, &opt)))
            : ctr_param_format (ax->param, &opt);
          g_string_append_printf (params, "%s%s=%s", a ? ";" : "", ax->param->name, canon);
        }
      if (ok && !ctr_study_add_method (s, &opt, params->str, error))
        {
          g_prefix_error (error, "%s: ", where);
          ok = FALSE;
        }
      done = TRUE;
      for (guint a = axes->len; a-- > 0;)
        {
          if (++idx[a] < g_array_index (axes, Axis, a).values->len)
            {
              done = FALSE;
              break;
            }
          idx[a] = 0;
        }
    }
  for (guint a = 0; a < axes->len; a++)
    g_ptr_array_unref (g_array_index (axes, Axis, a).values);
  return ok;
}

static gboolean
parse_roi (CtrStudy *s, JsonObject *o, const char *where, GError **error)
{
  static const char *const known[] = { "name", "shape", "center_mm", "radius_mm", "size_mm", "role" };
  GList *keys = json_object_get_members (o);
  for (GList *l = keys; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: unknown key “%s” (name, shape, center_mm, radius_mm, size_mm, role)",
                     where, (const char *) l->data);
        g_list_free (keys);
        return FALSE;
      }
  g_list_free (keys);
  const char *name = json_object_has_member (o, "name") ? json_object_get_string_member_with_default (o, "name", NULL) : NULL;
  const char *shape = json_object_get_string_member_with_default (o, "shape", "circle");
  const char *role_s = json_object_get_string_member_with_default (o, "role", "measure");
  double c[2], size[2];
  if (name == NULL)
    return fail (error, where, "name", "must be a text");
  if (!numbers (json_object_get_member (o, "center_mm"), 2, c))
    return fail (error, where, "center_mm", "must be [x, y] in mm");
  CtrRoi roi;
  if (g_str_equal (shape, "circle"))
    {
      JsonNode *r = json_object_get_member (o, "radius_mm");
      if (!is_number (r))
        return fail (error, where, "radius_mm", "must be a number (mm)");
      roi = ctr_roi_circle (c[0], c[1], json_node_get_double (r));
    }
  else if (g_str_equal (shape, "rectangle"))
    {
      if (!numbers (json_object_get_member (o, "size_mm"), 2, size))
        return fail (error, where, "size_mm", "must be [width, height] in mm");
      roi = ctr_roi_rectangle (c[0], c[1], size[0], size[1]);
    }
  else
    return fail (error, where, "shape", "must be “circle” or “rectangle”");
  CtrStudyRoiRole role;
  if (g_str_equal (role_s, "measure"))
    role = CTR_STUDY_ROI_MEASURE;
  else if (g_str_equal (role_s, "background"))
    role = CTR_STUDY_ROI_BACKGROUND;
  else if (g_str_equal (role_s, "noise"))
    role = CTR_STUDY_ROI_NOISE;
  else
    return fail (error, where, "role", "must be “measure”, “background” or “noise”");
  if (!ctr_study_add_roi (s, name, &roi, role, error))
    {
      g_prefix_error (error, "%s: ", where);
      return FALSE;
    }
  return TRUE;
}

/* A list of objects under @key, each handed to @each. */
static gboolean
each_object (CtrStudy *s, JsonObject *root, const char *key, gboolean required, const char *where,
             gboolean (*each) (CtrStudy *, JsonObject *, const char *, GError **), GError **error)
{
  JsonNode *n = json_object_get_member (root, key);
  if (n == NULL)
    return required ? fail (error, where, key, "is missing") : TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n) || (required && json_array_get_length (json_node_get_array (n)) == 0))
    return fail (error, where, key, required ? "must be a non-empty list of objects" : "must be a list of objects");
  JsonArray *a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      g_autofree char *w = g_strdup_printf ("%s, %s[%u]", where, key, i);
      if (!JSON_NODE_HOLDS_OBJECT (e))
        return fail (error, w, key, "entries must be objects");
      if (!each (s, json_node_get_object (e), w, error))
        return FALSE;
    }
  return TRUE;
}

/* An optional number member within [@lo, +Inf) (> @lo when @open). */
static gboolean
opt_number (JsonObject *o, const char *key, double lo, gboolean open, double *out, const char *where,
            GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  if (n == NULL)
    return TRUE;
  if (!is_number (n) || (open ? !(json_node_get_double (n) > lo) : !(json_node_get_double (n) >= lo)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a number %s %g",
                   where, key, open ? ">" : ">=", lo);
      return FALSE;
    }
  *out = json_node_get_double (n);
  return TRUE;
}

/* One "iq" insert: {"name", "center_mm": [x, y], "radius_mm"}. */
static gboolean
parse_insert (CtrStudy *s, JsonObject *o, const char *where, GError **error)
{
  static const char *const known[] = { "name", "center_mm", "radius_mm" };
  GList *keys = json_object_get_members (o);
  for (GList *l = keys; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: unknown key “%s” (name, center_mm, radius_mm)",
                     where, (const char *) l->data);
        g_list_free (keys);
        return FALSE;
      }
  g_list_free (keys);
  const char *name = json_object_get_string_member_with_default (o, "name", NULL);
  double c[2];
  JsonNode *r = json_object_get_member (o, "radius_mm");
  if (name == NULL)
    return fail (error, where, "name", "must be a text");
  if (!numbers (json_object_get_member (o, "center_mm"), 2, c))
    return fail (error, where, "center_mm", "must be [x, y] in mm");
  if (!is_number (r))
    return fail (error, where, "radius_mm", "must be a number (mm)");
  if (!ctr_study_add_iq_insert (s, name, c[0], c[1], json_node_get_double (r), error))
    {
      g_prefix_error (error, "%s: ", where);
      return FALSE;
    }
  return TRUE;
}

/* A string member or NULL; FALSE (CTR_ERROR_FORMAT) when present but not a string. */
static gboolean
opt_string (JsonObject *o, const char *key, const char **out, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fail (error, where, key, "must be a text");
  *out = json_node_get_string (n);
  return TRUE;
}

/* "iq": {"nps_roi": "circle:X,Y,R", "nps_size": N, "inserts": [...],
 * "task": "disc:D,C", "task_insert": NAME}. */
static gboolean
parse_iq (CtrStudy *s, JsonObject *root, const char *abs, GError **error)
{
  JsonNode *n = json_object_get_member (root, "iq");
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return fail (error, abs, "iq", "must be an object {\"nps_roi\", \"inserts\", \"task\", …}");
  JsonObject *o = json_node_get_object (n);
  g_autofree char *where = g_strdup_printf ("%s, iq", abs);
  static const char *const known[] = { "nps_roi", "nps_size", "inserts", "task", "task_insert" };
  GList *keys = json_object_get_members (o);
  for (GList *l = keys; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: unknown key “%s” (nps_roi, nps_size, inserts, task, task_insert)", where,
                     (const char *) l->data);
        g_list_free (keys);
        return FALSE;
      }
  g_list_free (keys);
  const char *roi_text, *task_text, *task_insert;
  double size = 32;
  if (!opt_string (o, "nps_roi", &roi_text, where, error) || !opt_string (o, "task", &task_text, where, error)
      || !opt_string (o, "task_insert", &task_insert, where, error)
      || !opt_number (o, "nps_size", 4, FALSE, &size, where, error))
    return FALSE;
  if (size != floor (size) || size > 4096)
    return fail (error, where, "nps_size", "must be a whole number of pixels (4 to 4096)");
  if (roi_text == NULL)
    return fail (error, where, "nps_roi", "must name the uniform region: circle:X,Y,R or rect:X,Y,W,H (mm)");
  CtrRoi roi;
  if (!ctr_roi_parse (roi_text, &roi, error) || !ctr_study_set_iq_nps (s, &roi, (guint) size, error))
    {
      g_prefix_error (error, "%s: the key “nps_roi”: ", where);
      return FALSE;
    }
  if (!each_object (s, o, "inserts", FALSE, where, parse_insert, error))
    return FALSE;
  if (task_text == NULL)
    return task_insert == NULL ? TRUE : fail (error, where, "task_insert", "needs a “task”");
  CtrTask task;
  if (!ctr_task_parse (task_text, &task, error) || !ctr_study_set_iq_task (s, &task, task_insert, error))
    {
      g_prefix_error (error, "%s: the key “task”: ", where);
      return FALSE;
    }
  return TRUE;
}

/* The study of a parsed STUDY.json (@rn, its root), @abs naming it in
 * messages, relative dataset paths resolved against @dir. */
/* "realisations": N (whole, 1 to 1000) and "reference": a method label or
 * name (checked against the methods, which are parsed before). */
static gboolean
parse_realisations (CtrStudy *s, JsonObject *root, const char *abs, GError **error)
{
  double n = 1;
  if (!opt_number (root, "realisations", 1, FALSE, &n, abs, error))
    return FALSE;
  if (n != floor (n) || n > 1000)
    return fail (error, abs, "realisations", "must be a whole number of noise realisations, 1 to 1000");
  if (!ctr_study_set_realisations (s, (guint) n, error))
    return FALSE;
  JsonNode *rn = json_object_get_member (root, "reference");
  if (rn == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (rn) || json_node_get_value_type (rn) != G_TYPE_STRING)
    return fail (error, abs, "reference", "must be a method's label or name, e.g. \"fbp window=hann\"");
  ctr_study_set_reference (s, json_node_get_string (rn));
  guint index;
  if (!ctr_study_get_reference (s, &index, error))
    {
      g_prefix_error (error, "%s: the key “reference”: ", abs);
      return FALSE;
    }
  return TRUE;
}

static CtrStudy *
study_from_root (JsonNode *rn, const char *abs, const char *dir, GError **error)
{
  if (rn == NULL || !JSON_NODE_HOLDS_OBJECT (rn))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the file must hold one JSON object", abs);
      return NULL;
    }
  JsonObject *root = json_node_get_object (rn);
  static const char *const known[] = {
    "dataset", "variant", "doses", "seed", "electronic_noise", "i0", "dose_model", "grid",
    "metrics_radius_mm", "mu_water", "rois", "methods", "iq", "realisations", "reference",
    "description", "notes",
  };
  GList *keys = json_object_get_members (root);
  for (GList *l = keys; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_autofree char *list = g_strjoinv (", ", (char **) known);
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: unknown key “%s” (known: %s)", abs,
                     (const char *) l->data, list);
        g_list_free (keys);
        return NULL;
      }
  g_list_free (keys);

  g_autoptr (CtrStudy) s = ctr_study_new ();
  const char *dataset = json_object_get_string_member_with_default (root, "dataset", NULL);
  if (dataset == NULL || *dataset == '\0')
    {
      fail (error, abs, "dataset", "must name a geometry.json or a DICOM file or folder");
      return NULL;
    }
  s->dataset = g_path_is_absolute (dataset) ? g_strdup (dataset) : g_build_filename (dir, dataset, NULL);
  if (json_object_has_member (root, "variant"))
    s->variant = g_strdup (json_object_get_string_member_with_default (root, "variant", ""));

  JsonNode *dn = json_object_get_member (root, "doses");
  if (dn == NULL || !JSON_NODE_HOLDS_ARRAY (dn) || json_array_get_length (json_node_get_array (dn)) == 0)
    {
      fail (error, abs, "doses", "must be a non-empty list of dose fractions, e.g. [1, 0.5, 0.25]");
      return NULL;
    }
  JsonArray *da = json_node_get_array (dn);
  for (guint i = 0; i < json_array_get_length (da); i++)
    {
      JsonNode *e = json_array_get_element (da, i);
      if (!is_number (e))
        {
          fail (error, abs, "doses", "must hold numbers only");
          return NULL;
        }
      if (!ctr_study_add_dose (s, json_node_get_double (e), error))
        {
          g_prefix_error (error, "%s: the key “doses”: ", abs);
          return NULL;
        }
    }

  double seed = 1, mu = CTR_MU_WATER_PER_MM, radius = -1, size = 0, pixel = 0;
  if (!opt_number (root, "seed", 0, FALSE, &seed, abs, error)
      || !opt_number (root, "electronic_noise", 0, FALSE, &s->dose.electronic_sd, abs, error)
      || !opt_number (root, "i0", 0, TRUE, &s->dose.i0, abs, error)
      || !opt_number (root, "metrics_radius_mm", 0, FALSE, &radius, abs, error)
      || !opt_number (root, "mu_water", 0, TRUE, &mu, abs, error))
    return NULL;
  if (seed != floor (seed) || seed > 9.0e15)
    {
      fail (error, abs, "seed", "must be a whole number");
      return NULL;
    }
  s->dose.seed = (guint64) seed;
  if (json_object_has_member (root, "mu_water"))
    ctr_study_set_mu_water (s, mu);
  s->metrics_radius_mm = radius;
  if (json_object_has_member (root, "dose_model")
      && !ctr_dose_model_from_name (json_object_get_string_member_with_default (root, "dose_model", ""),
                                    &s->dose.model, error))
    {
      g_prefix_error (error, "%s: the key “dose_model”: ", abs);
      return NULL;
    }
  JsonNode *gn = json_object_get_member (root, "grid");
  if (gn != NULL)
    {
      g_autofree char *w = g_strdup_printf ("%s, grid", abs);
      if (!JSON_NODE_HOLDS_OBJECT (gn))
        {
          fail (error, abs, "grid", "must be an object {\"size\": N, \"pixel_size_mm\": MM}");
          return NULL;
        }
      JsonObject *go = json_node_get_object (gn);
      if (!opt_number (go, "size", 8, FALSE, &size, w, error)
          || !opt_number (go, "pixel_size_mm", 0, TRUE, &pixel, w, error))
        return NULL;
      if (size != floor (size) || size > 65536 || json_object_get_size (go) != (guint) (json_object_has_member (go, "size") + json_object_has_member (go, "pixel_size_mm")))
        {
          fail (error, abs, "grid", "takes a whole “size” (8 to 65536) and “pixel_size_mm”, nothing else");
          return NULL;
        }
      s->grid_size = (guint) size;
      s->grid_pixel_mm = pixel;
    }
  if (!each_object (s, root, "rois", FALSE, abs, parse_roi, error)
      || !each_object (s, root, "methods", TRUE, abs, parse_method, error)
      || !parse_iq (s, root, abs, error)
      || !parse_realisations (s, root, abs, error))
    return NULL;
  return g_steal_pointer (&s);
}

CtrStudy *
ctr_study_new_from_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  g_autoptr (JsonParser) parser = ctr_json_parse_file (abs, error);
  if (parser == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (abs);
  return study_from_root (json_parser_get_root (parser), abs, dir, error);
}

CtrStudy *
ctr_study_new_from_json (const char *text, gssize length, const char *base_dir, GError **error)
{
  g_return_val_if_fail (text != NULL && base_dir != NULL, NULL);
  g_autoptr (JsonParser) parser = ctr_json_parse (text, length, "study", error);
  if (parser == NULL)
    return NULL;
  return study_from_root (json_parser_get_root (parser), "study", base_dir, error);
}
