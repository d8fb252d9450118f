/* ctr-session-file-read.c — a session folder read and checked
 * (docs/session-format.md).  Thread-safe: no session, no widget.  Every
 * failure is a CTR_ERROR_FORMAT or CTR_ERROR_IO message naming the file and
 * the key; nothing is half-read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>
#include <string.h>

#include "ctr-session-file-private.h"
#include "io/ctr-json.h"
#include "io/ctr-json-get.h"

static gboolean
fail (GError **error, const char *where, const char *format, ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (GError **error, const char *where, const char *format, ...)
{
  va_list args;
  g_autofree char *text = NULL;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s", where, text);
  return FALSE;
}

static gboolean
read_grid (JsonObject *o, const char *key, CtrGrid *g, const char *where, GError **error)
{
  JsonObject *go = ctr_json_get_object (o, key, TRUE, where, error);
  g_autoptr(GError) local = NULL;

  if (go == NULL)
    return FALSE;
  if (!ctr_json_get_size (go, "nx", TRUE, 0, &g->nx, where, error) ||
      !ctr_json_get_size (go, "ny", TRUE, 0, &g->ny, where, error) ||
      !ctr_json_get_size (go, "nz", TRUE, 0, &g->nz, where, error) ||
      !ctr_json_get_double (go, "dx_mm", TRUE, 0, &g->dx, where, error) ||
      !ctr_json_get_double (go, "dy_mm", TRUE, 0, &g->dy, where, error) ||
      !ctr_json_get_double (go, "dz_mm", TRUE, 0, &g->dz, where, error) ||
      !ctr_json_get_double (go, "cx_mm", TRUE, 0, &g->cx, where, error) ||
      !ctr_json_get_double (go, "cy_mm", TRUE, 0, &g->cy, where, error) ||
      !ctr_json_get_double (go, "cz_mm", TRUE, 0, &g->cz, where, error))
    return FALSE;
  if (!ctr_grid_validate (g, &local))
    return fail (error, where, "the grid “%s”: %s", key, local->message);
  return TRUE;
}

/* One parameter of the table, by the type the table gives it. */
static gboolean
read_param (CtrReconOptions *o, const char *name, JsonNode *node, const char *where, GError **error)
{
  const CtrParam *p = ctr_param_find_for (name, o->method);
  g_autoptr(GError) local = NULL;
  gboolean ok;

  if (p == NULL || !ctr_param_applies (p, o->method))
    return fail (error, where, "the parameter “%s” is not one of %s's", name, ctr_method_name (o->method));
  if (p->type == CTR_PARAM_BOOL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    ok = ctr_param_set (p, o, json_node_get_boolean (node) ? 1 : 0, &local);
  else if (p->type == CTR_PARAM_CHOICE && JSON_NODE_HOLDS_VALUE (node) &&
           json_node_get_value_type (node) == G_TYPE_STRING)
    ok = ctr_param_parse (p, o, json_node_get_string (node), &local);
  else if ((p->type == CTR_PARAM_INT || p->type == CTR_PARAM_DOUBLE) && JSON_NODE_HOLDS_VALUE (node) &&
           (json_node_get_value_type (node) == G_TYPE_INT64 || json_node_get_value_type (node) == G_TYPE_DOUBLE))
    ok = ctr_param_set (p, o, json_node_get_double (node), &local);
  else
    return fail (error, where, "the parameter “%s” has the wrong type", name);
  if (!ok)
    return fail (error, where, "%s", local->message);
  return TRUE;
}

gboolean
_ctr_session_file_read_options (JsonObject *ro, CtrReconOptions *o, const char *where, GError **error)
{
  const char *method = NULL, *backend = NULL, *rebin = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *params;
  CtrMethod m;
  g_autoptr(GList) names = NULL;

  if (!ctr_json_get_string (ro, "method", TRUE, &method, where, error))
    return FALSE;
  if (!ctr_method_from_name (method, &m, &local))
    return fail (error, where, "%s", local->message);
  ctr_recon_options_init (o, m);
  if ((params = ctr_json_get_object (ro, "parameters", TRUE, where, error)) == NULL)
    return FALSE;
  names = json_object_get_members (params);
  for (GList *l = names; l != NULL; l = l->next)
    if (!read_param (o, l->data, json_object_get_member (params, l->data), where, error))
      return FALSE;
  if (!ctr_json_get_string (ro, "backend", FALSE, &backend, where, error) ||
      !ctr_json_get_string (ro, "rebin", FALSE, &rebin, where, error) ||
      !ctr_json_get_double (ro, "metrics_radius_mm", FALSE, o->metrics_radius_mm, &o->metrics_radius_mm, where,
                            error))
    return FALSE;
  /* a static string, as CtrReconOptions.backend is */
  o->backend = backend != NULL ? g_intern_string (backend) : NULL;
  if (rebin != NULL && !ctr_rebin_mode_from_name (rebin, &o->rebin, &local))
    return fail (error, where, "%s", local->message);
  return TRUE;
}

static gboolean
read_stats (JsonObject *ro, CtrSessionRunRecord *r, const char *where, GError **error)
{
  JsonArray *a = json_object_has_member (ro, "iterations") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (ro, "iterations"))
                   ? json_object_get_array_member (ro, "iterations") : NULL;

  r->stats = g_array_new (FALSE, TRUE, sizeof (CtrIterStats));
  if (a == NULL)
    return fail (error, where, "the key “iterations” must be a list");
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      JsonObject *so = JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      CtrIterStats s = { 0 };
      gint64 it = 0, n_it = 0;

      if (so == NULL)
        return fail (error, where, "iteration %u is not an object", i + 1);
      s.method = r->options.method;
      if (!ctr_json_get_int (so, "iteration", TRUE, 0, &it, where, error) ||
          !ctr_json_get_int (so, "n_iterations", TRUE, 0, &n_it, where, error) ||
          !ctr_json_get_double (so, "elapsed_s", FALSE, NAN, &s.elapsed_s, where, error) ||
          !ctr_json_get_double (so, "iteration_s", FALSE, NAN, &s.iteration_s, where, error) ||
          !ctr_json_get_double (so, "residual", FALSE, NAN, &s.residual, where, error) ||
          !ctr_json_get_double (so, "data_sq", FALSE, NAN, &s.data_sq, where, error) ||
          !ctr_json_get_double (so, "residual_s", FALSE, 0, &s.residual_s, where, error) ||
          !ctr_json_get_bool (so, "has_reference", FALSE, &s.has_reference, where, error) ||
          !ctr_json_get_double (so, "rmse", FALSE, NAN, &s.rmse, where, error) ||
          !ctr_json_get_double (so, "psnr_db", FALSE, NAN, &s.psnr, where, error) ||
          !ctr_json_get_double (so, "ssim", FALSE, NAN, &s.ssim, where, error) ||
          !ctr_json_get_bool (so, "stopped", FALSE, &s.stopped, where, error))
        return FALSE;
      if (it < 0 || it > G_MAXUINT || n_it < 0 || n_it > G_MAXUINT)
        return fail (error, where, "iteration %u: a count out of range", i + 1);
      s.iteration = (guint) it;
      s.n_iterations = (guint) n_it;
      g_array_append_val (r->stats, s);
    }
  return TRUE;
}

/* The run's image: a float32 TIFF in the folder named by the manifest,
 * of the grid it states. */
static gboolean
read_image (JsonObject *ro, CtrSessionRunRecord *r, const char *folder, const char *where, GError **error)
{
  JsonObject *io = ctr_json_get_object (ro, "image", FALSE, where, error);
  const char *file = NULL, *unit = NULL;
  g_autofree char *path = NULL;
  g_autofree float *data = NULL;
  CtrTiffInfo info;
  CtrGrid g;

  if (io == NULL)
    return error == NULL || *error == NULL;
  if (!ctr_json_get_string (io, "file", TRUE, &file, where, error) ||
      !ctr_json_get_string (io, "unit", FALSE, &unit, where, error) || !read_grid (io, "grid", &g, where, error))
    return FALSE;
  /* a name in the folder, nothing else */
  if (*file == '\0' || strchr (file, '/') != NULL || strchr (file, '\\') != NULL || file[0] == '.')
    return fail (error, where, "run %u: the image “%s” is not a file name in the session folder", r->number, file);
  path = g_build_filename (folder, file, NULL);
  if (!ctr_tiff_probe (path, &info, error))
    return FALSE;
  if (info.width != g.nx || info.height != g.ny || info.pages != g.nz || info.bits_per_sample != 32 ||
      info.sample_format != 3)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: %u × %u × %u of %u-bit samples (format %u), where the session states a float32 image of "
                   "%u × %u × %u",
                   path, info.width, info.height, info.pages, info.bits_per_sample, info.sample_format, g.nx, g.ny,
                   g.nz);
      return FALSE;
    }
  if ((data = ctr_tiff_read (path, NULL, error)) == NULL || (r->image = ctr_volume_new (&g, error)) == NULL)
    return FALSE;
  memcpy (r->image->data, data, ctr_grid_size (&g) * sizeof (float));
  ctr_volume_set_unit (r->image, unit);
  return TRUE;
}

static gboolean
read_notes (JsonObject *ro, CtrSessionRunRecord *r, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (ro, "notes");
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();
  JsonArray *a;

  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return fail (error, where, "run %u: the key “notes” must be a list of texts", r->number);
  a = json_node_get_array (n);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
        return fail (error, where, "run %u: the key “notes” must be a list of texts", r->number);
      g_strv_builder_add (b, json_node_get_string (e));
    }
  r->notes = g_strv_builder_end (b);
  return TRUE;
}

static CtrSessionRunRecord *
read_run (JsonNode *node, const char *folder, const char *where, GCancellable *cancellable, GError **error)
{
  GEnumClass *states = g_type_class_ref (CTR_TYPE_RUN_STATE);
  CtrSessionRunRecord *r = g_new0 (CtrSessionRunRecord, 1);
  JsonObject *ro = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *label = NULL, *dataset = NULL, *dataset_path = NULL, *state = NULL, *color = NULL;
  gint64 number = 0;
  GEnumValue *sv = NULL;
  gboolean ok;

  ok = ro != NULL || fail (error, where, "a run is not an object");
  ok = ok && ctr_json_get_int (ro, "number", TRUE, 0, &number, where, error) &&
       ((number >= 1 && number <= G_MAXINT32) || fail (error, where, "a run's number %" G_GINT64_FORMAT " is out of range", number)) &&
       ctr_json_get_string (ro, "label", TRUE, &label, where, error) &&
       ctr_json_get_string (ro, "dataset", TRUE, &dataset, where, error) &&
       ctr_json_get_string (ro, "dataset_path", TRUE, &dataset_path, where, error) &&
       ctr_json_get_string (ro, "state", TRUE, &state, where, error) &&
       ctr_json_get_string (ro, "color", FALSE, &color, where, error) &&
       ctr_json_get_bool (ro, "hidden", FALSE, &r->hidden, where, error) &&
       ctr_json_get_double (ro, "wall_s", FALSE, 0, &r->wall_s, where, error);
  r->number = (guint) number;
  ok = ok && (((sv = g_enum_get_value_by_nick (states, state)) != NULL && sv->value != CTR_RUN_RUNNING) ||
              fail (error, where, "run %u: the state “%s” is not finished, cancelled or failed", r->number, state));
  if (ok)
    r->state = sv->value;
  g_type_class_unref (states);
  ok = ok && (color == NULL || (strlen (color) == 7 && color[0] == '#' && strspn (color + 1, "0123456789abcdefABCDEF") == 6) ||
              fail (error, where, "run %u: the colour “%s” is not #rrggbb", r->number, color));
  ok = ok && _ctr_session_file_read_options (ro, &r->options, where, error) && read_grid (ro, "grid", &r->grid, where, error) &&
       read_notes (ro, r, where, error) && read_stats (ro, r, where, error) &&
       !g_cancellable_set_error_if_cancelled (cancellable, error) && read_image (ro, r, folder, where, error);
  if (!ok)
    {
      _ctr_session_run_record_free (r);
      return NULL;
    }
  r->label = g_strdup (label);
  r->dataset = g_strdup (dataset);
  r->dataset_path = g_strdup (dataset_path);
  r->color = color != NULL ? g_ascii_strdown (color, -1) : NULL;
  return r;
}

static gboolean
read_roi (JsonObject *o, CtrSessionFile *f, const char *where, GError **error)
{
  const char *name = NULL, *shape = NULL;
  CtrRoi roi = { 0 };
  g_autoptr(GError) local = NULL;

  if (!ctr_json_get_string (o, "name", TRUE, &name, where, error) ||
      !ctr_json_get_string (o, "shape", TRUE, &shape, where, error) ||
      !ctr_json_get_double (o, "x_mm", TRUE, 0, &roi.x_mm, where, error) ||
      !ctr_json_get_double (o, "y_mm", TRUE, 0, &roi.y_mm, where, error))
    return FALSE;
  if (g_str_equal (shape, "circle"))
    {
      roi.shape = CTR_ROI_CIRCLE;
      if (!ctr_json_get_double (o, "radius_mm", TRUE, 0, &roi.radius_mm, where, error))
        return FALSE;
    }
  else if (g_str_equal (shape, "rectangle"))
    {
      roi.shape = CTR_ROI_RECTANGLE;
      if (!ctr_json_get_double (o, "width_mm", TRUE, 0, &roi.width_mm, where, error) ||
          !ctr_json_get_double (o, "height_mm", TRUE, 0, &roi.height_mm, where, error))
        return FALSE;
    }
  else
    return fail (error, where, "the ROI “%s” has the shape “%s”, not circle or rectangle", name, shape);
  if (!ctr_roi_validate (&roi, &local))
    return fail (error, where, "the ROI “%s”: %s", name, local->message);
  g_array_append_val (f->rois, roi);
  g_ptr_array_add (f->roi_names, g_strdup (name));
  return TRUE;
}

static gboolean
read_measurements (JsonObject *root, CtrSessionFile *f, const char *where, GError **error)
{
  JsonNode *rois = json_object_get_member (root, "rois");
  JsonNode *ruler = json_object_get_member (root, "ruler_mm");
  JsonObject *water;
  gint64 bg = -1;

  if (rois != NULL && !JSON_NODE_HOLDS_NULL (rois))
    {
      JsonArray *a = JSON_NODE_HOLDS_ARRAY (rois) ? json_node_get_array (rois) : NULL;
      if (a == NULL)
        return fail (error, where, "the key “rois” must be a list");
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *n = json_array_get_element (a, i);
          if (!JSON_NODE_HOLDS_OBJECT (n))
            return fail (error, where, "ROI %u is not an object", i + 1);
          if (!read_roi (json_node_get_object (n), f, where, error))
            return FALSE;
        }
    }
  if (!ctr_json_get_int (root, "background_roi", FALSE, -1, &bg, where, error))
    return FALSE;
  if (bg < -1 || bg >= (gint64) f->rois->len)
    return fail (error, where, "the background ROI %" G_GINT64_FORMAT " is not one of the %u ROIs", bg, f->rois->len);
  f->background = (int) bg;
  if (ruler != NULL && !JSON_NODE_HOLDS_NULL (ruler))
    {
      g_autofree double *ends = NULL;
      guint n = 0;
      if (!ctr_json_get_numbers (root, "ruler_mm", &ends, &n, where, error))
        return FALSE;
      if (n != 4)
        return fail (error, where, "the key “ruler_mm” must hold 4 numbers (x0, y0, x1, y1), not %u", n);
      memcpy (f->ruler, ends, sizeof f->ruler);
      f->have_ruler = TRUE;
    }
  water = ctr_json_get_object (root, "water", FALSE, where, error);
  if (water == NULL)
    return error == NULL || *error == NULL;
  if (!ctr_json_get_double (water, "mu_water_per_mm", TRUE, 0, &f->mu_water, where, error) ||
      !ctr_json_get_bool (water, "calibrated", FALSE, &f->calibrated, where, error))
    return FALSE;
  if (!(f->mu_water > 0))
    return fail (error, where, "μ_water %g /mm is not positive", f->mu_water);
  return TRUE;
}

static gboolean
read_header (JsonObject *root, CtrSessionFile *f, const char *where, GError **error)
{
  const char *format = NULL, *dpath = NULL, *variant = NULL;
  gint64 version = 0;
  JsonObject *d;

  if (!ctr_json_get_string (root, "format", FALSE, &format, where, error))
    return FALSE;
  if (g_strcmp0 (format, CTR_SESSION_FILE_FORMAT) != 0)
    return fail (error, where, "not a CT Recon session (its “format” is not “%s”)", CTR_SESSION_FILE_FORMAT);
  if (!ctr_json_get_int (root, "version", TRUE, 0, &version, where, error))
    return FALSE;
  if (version < 1 || version > CTR_SESSION_FILE_VERSION)
    return fail (error, where, "a session of version %" G_GINT64_FORMAT ", which this CT Recon (reads version %d) "
                 "does not know", version, CTR_SESSION_FILE_VERSION);
  d = ctr_json_get_object (root, "dataset", FALSE, where, error);
  if (d == NULL)
    return error == NULL || *error == NULL;
  if (!ctr_json_get_string (d, "path", FALSE, &dpath, where, error) ||
      !ctr_json_get_string (d, "variant", FALSE, &variant, where, error))
    return FALSE;
  f->dataset_path = g_strdup (dpath);
  f->variant = g_strdup (variant);
  if (json_object_has_member (root, "preprocess"))
    {
      /* the list's steps are checked where they are used (ctr_pipeline_from_json) */
      JsonNode *steps = json_object_get_member (root, "preprocess");
      if (!JSON_NODE_HOLDS_ARRAY (steps))
        return fail (error, where, "“preprocess” is not a list of steps");
      f->preprocess = json_node_copy (steps);
    }
  return TRUE;
}

static gboolean
read_runs (JsonObject *root, CtrSessionFile *f, GCancellable *cancellable, const char *where, GError **error)
{
  JsonNode *runs = json_object_get_member (root, "runs");
  g_autoptr(GHashTable) numbers = g_hash_table_new (NULL, NULL);
  JsonArray *a;

  if (runs == NULL || !JSON_NODE_HOLDS_ARRAY (runs))
    return fail (error, where, "the key “runs” must be a list");
  a = json_node_get_array (runs);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      CtrSessionRunRecord *r = read_run (json_array_get_element (a, i), f->path, where, cancellable, error);
      if (r == NULL)
        return FALSE;
      g_ptr_array_add (f->runs, r);
      if (!g_hash_table_add (numbers, GUINT_TO_POINTER (r->number)))
        return fail (error, where, "two runs have the number %u", r->number);
    }
  return TRUE;
}

CtrSessionFile *
ctr_session_file_read (const char *path, GCancellable *cancellable, GError **error)
{
  g_autoptr(CtrSessionFile) f = _ctr_session_file_new ();
  g_autofree char *manifest = NULL;
  g_autoptr(JsonParser) parser = NULL;
  JsonNode *root;

  g_return_val_if_fail (path != NULL, NULL);
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      f->path = g_strdup (path);
      manifest = g_build_filename (path, CTR_SESSION_FILE_MANIFEST, NULL);
      if (!g_file_test (manifest, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s is not a CT Recon session: it holds no %s", path,
                       CTR_SESSION_FILE_MANIFEST);
          return NULL;
        }
    }
  else
    {
      f->path = g_path_get_dirname (path);
      manifest = g_strdup (path);
    }
  if ((parser = ctr_json_parse_file (manifest, error)) == NULL)
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      fail (error, manifest, "not a CT Recon session (not a JSON object)");
      return NULL;
    }
  if (!read_header (json_node_get_object (root), f, manifest, error) ||
      !read_runs (json_node_get_object (root), f, cancellable, manifest, error) ||
      !read_measurements (json_node_get_object (root), f, manifest, error) ||
      !_ctr_session_file_read_study (json_node_get_object (root), f, manifest, error))
    return NULL;
  return g_steal_pointer (&f);
}
