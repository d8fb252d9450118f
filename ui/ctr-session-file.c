/* ctr-session-file.c — a session folder read and written (the format:
 * docs/session-format.md).  Thread-safe: no session, no widget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-session"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ctr-session-file-private.h"
#include "io/ctr-file.h"
#include "io/ctr-json.h"
#include "io/ctr-json-get.h"
#include "io/ctr-output-set.h"
#include "io/ctr-temp.h"

void
_ctr_session_run_record_free (gpointer data)
{
  CtrSessionRunRecord *r = data;

  g_free (r->label);
  g_free (r->dataset);
  g_free (r->dataset_path);
  g_free (r->color);
  if (r->stats != NULL)
    g_array_unref (r->stats);
  g_strfreev (r->notes);
  g_clear_pointer (&r->image, ctr_volume_unref);
  g_free (r);
}

CtrSessionFile *
_ctr_session_file_new (void)
{
  CtrSessionFile *f = g_new0 (CtrSessionFile, 1);

  f->runs = g_ptr_array_new_with_free_func (_ctr_session_run_record_free);
  f->rois = g_array_new (FALSE, TRUE, sizeof (CtrRoi));
  f->roi_names = g_ptr_array_new_with_free_func (g_free);
  f->background = -1;
  f->mu_water = CTR_MU_WATER_PER_MM;
  f->study_rows = g_ptr_array_new_with_free_func (g_object_unref);
  return f;
}

void
ctr_session_file_free (CtrSessionFile *f)
{
  if (f == NULL)
    return;
  g_free (f->path);
  g_free (f->dataset_path);
  g_free (f->variant);
  g_ptr_array_unref (f->runs);
  g_array_unref (f->rois);
  g_ptr_array_unref (f->roi_names);
  g_ptr_array_unref (f->study_rows);
  g_clear_pointer (&f->study_form, ctr_study_form_free);
  g_clear_pointer (&f->preprocess, json_node_unref);
  g_free (f);
}

char *
ctr_session_file_with_suffix (const char *path)
{
  g_autofree char *trimmed = g_strdup (path);

  for (gsize n = strlen (trimmed); n > 1 && trimmed[n - 1] == G_DIR_SEPARATOR; n--)
    trimmed[n - 1] = '\0';
  if (g_str_has_suffix (trimmed, CTR_SESSION_FILE_SUFFIX))
    return g_steal_pointer (&trimmed);
  return g_strconcat (trimmed, CTR_SESSION_FILE_SUFFIX, NULL);
}

gboolean
ctr_session_file_is_session (const char *path)
{
  g_autofree char *manifest = NULL;

  if (path == NULL)
    return FALSE;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      manifest = g_build_filename (path, CTR_SESSION_FILE_MANIFEST, NULL);
      return g_file_test (manifest, G_FILE_TEST_IS_REGULAR);
    }
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *dir = g_path_get_dirname (path);
    return g_str_equal (base, CTR_SESSION_FILE_MANIFEST) && g_str_has_suffix (dir, CTR_SESSION_FILE_SUFFIX);
  }
}

/* ---- writing ------------------------------------------------------------------- */

void
_ctr_session_file_add_number (JsonBuilder *b, const char *key, double v)
{
  json_builder_set_member_name (b, key);
  if (isfinite (v))
    json_builder_add_double_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_string (JsonBuilder *b, const char *key, const char *v)
{
  json_builder_set_member_name (b, key);
  if (v != NULL)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

static void
add_grid (JsonBuilder *b, const char *key, const CtrGrid *g)
{
  json_builder_set_member_name (b, key);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "nx");
  json_builder_add_int_value (b, g->nx);
  json_builder_set_member_name (b, "ny");
  json_builder_add_int_value (b, g->ny);
  json_builder_set_member_name (b, "nz");
  json_builder_add_int_value (b, g->nz);
  _ctr_session_file_add_number (b, "dx_mm", g->dx);
  _ctr_session_file_add_number (b, "dy_mm", g->dy);
  _ctr_session_file_add_number (b, "dz_mm", g->dz);
  _ctr_session_file_add_number (b, "cx_mm", g->cx);
  _ctr_session_file_add_number (b, "cy_mm", g->cy);
  _ctr_session_file_add_number (b, "cz_mm", g->cz);
  json_builder_end_object (b);
}

/* The method and every parameter of the table that applies to it: numbers
 * as numbers, switches as booleans, choices by name. */
void
_ctr_session_file_add_options (JsonBuilder *b, const CtrReconOptions *o)
{
  guint n = 0;
  const CtrParam *params = ctr_params_list (&n);

  add_string (b, "method", ctr_method_name (o->method));
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_object (b);
  for (guint i = 0; i < n; i++)
    {
      const CtrParam *p = &params[i];
      double v = ctr_param_get (p, o);

      if (!ctr_param_applies (p, o->method))
        continue;
      json_builder_set_member_name (b, p->name);
      if (p->type == CTR_PARAM_BOOL)
        json_builder_add_boolean_value (b, v != 0);
      else if (p->type == CTR_PARAM_CHOICE)
        json_builder_add_string_value (b, p->choices[(guint) v]);
      else if (p->type == CTR_PARAM_INT)
        json_builder_add_int_value (b, (gint64) v);
      else
        json_builder_add_double_value (b, v);
    }
  json_builder_end_object (b);
  add_string (b, "backend", o->backend);
  add_string (b, "rebin", ctr_rebin_mode_name (o->rebin));
  _ctr_session_file_add_number (b, "metrics_radius_mm", o->metrics_radius_mm);
}

static void
add_stats (JsonBuilder *b, GArray *stats)
{
  json_builder_set_member_name (b, "iterations");
  json_builder_begin_array (b);
  for (guint i = 0; stats != NULL && i < stats->len; i++)
    {
      const CtrIterStats *s = &g_array_index (stats, CtrIterStats, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "iteration");
      json_builder_add_int_value (b, s->iteration);
      json_builder_set_member_name (b, "n_iterations");
      json_builder_add_int_value (b, s->n_iterations);
      _ctr_session_file_add_number (b, "elapsed_s", s->elapsed_s);
      _ctr_session_file_add_number (b, "iteration_s", s->iteration_s);
      _ctr_session_file_add_number (b, "residual", s->residual);
      _ctr_session_file_add_number (b, "data_sq", s->data_sq);
      _ctr_session_file_add_number (b, "residual_s", s->residual_s);
      json_builder_set_member_name (b, "has_reference");
      json_builder_add_boolean_value (b, s->has_reference);
      _ctr_session_file_add_number (b, "rmse", s->rmse);
      _ctr_session_file_add_number (b, "psnr_db", s->psnr);
      _ctr_session_file_add_number (b, "ssim", s->ssim);
      json_builder_set_member_name (b, "stopped");
      json_builder_add_boolean_value (b, s->stopped);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

char *
_ctr_session_run_image_name (const CtrSessionRunRecord *r)
{
  return g_strdup_printf ("run-%u.tif", r->number);
}

static void
add_run (JsonBuilder *b, const CtrSessionRunRecord *r)
{
  GEnumClass *states = g_type_class_ref (CTR_TYPE_RUN_STATE);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "number");
  json_builder_add_int_value (b, r->number);
  add_string (b, "label", r->label);
  add_string (b, "dataset", r->dataset);
  add_string (b, "dataset_path", r->dataset_path);
  add_string (b, "state", g_enum_get_value (states, r->state)->value_nick);
  add_string (b, "color", r->color);
  json_builder_set_member_name (b, "hidden");
  json_builder_add_boolean_value (b, r->hidden);
  _ctr_session_file_add_number (b, "wall_s", r->wall_s);
  _ctr_session_file_add_options (b, &r->options);
  add_grid (b, "grid", &r->grid);
  json_builder_set_member_name (b, "notes");
  json_builder_begin_array (b);
  for (guint i = 0; r->notes != NULL && r->notes[i] != NULL; i++)
    json_builder_add_string_value (b, r->notes[i]);
  json_builder_end_array (b);
  add_stats (b, r->stats);
  if (r->image != NULL)
    {
      g_autofree char *name = _ctr_session_run_image_name (r);
      json_builder_set_member_name (b, "image");
      json_builder_begin_object (b);
      add_string (b, "file", name);
      add_string (b, "unit", r->image->unit);
      add_grid (b, "grid", &r->image->grid);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  g_type_class_unref (states);
}

static void
add_rois (JsonBuilder *b, const CtrSessionFile *f)
{
  json_builder_set_member_name (b, "rois");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->rois->len; i++)
    {
      const CtrRoi *r = &g_array_index (f->rois, CtrRoi, i);
      json_builder_begin_object (b);
      add_string (b, "name", f->roi_names->pdata[i]);
      add_string (b, "shape", r->shape == CTR_ROI_CIRCLE ? "circle" : "rectangle");
      _ctr_session_file_add_number (b, "x_mm", r->x_mm);
      _ctr_session_file_add_number (b, "y_mm", r->y_mm);
      if (r->shape == CTR_ROI_CIRCLE)
        _ctr_session_file_add_number (b, "radius_mm", r->radius_mm);
      else
        {
          _ctr_session_file_add_number (b, "width_mm", r->width_mm);
          _ctr_session_file_add_number (b, "height_mm", r->height_mm);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "background_roi");
  if (f->background >= 0)
    json_builder_add_int_value (b, f->background);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "ruler_mm");
  if (f->have_ruler)
    {
      json_builder_begin_array (b);
      for (guint k = 0; k < 4; k++)
        json_builder_add_double_value (b, f->ruler[k]);
      json_builder_end_array (b);
    }
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "water");
  json_builder_begin_object (b);
  _ctr_session_file_add_number (b, "mu_water_per_mm", f->mu_water);
  json_builder_set_member_name (b, "calibrated");
  json_builder_add_boolean_value (b, f->calibrated);
  json_builder_end_object (b);
}

char *
_ctr_session_file_manifest (const CtrSessionFile *f)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *saved = g_date_time_format_iso8601 (now);

  json_builder_begin_object (b);
  add_string (b, "format", CTR_SESSION_FILE_FORMAT);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, CTR_SESSION_FILE_VERSION);
  add_string (b, "program", "ctrecon " CTR_VERSION);
  add_string (b, "saved", saved);
  json_builder_set_member_name (b, "dataset");
  json_builder_begin_object (b);
  add_string (b, "path", f->dataset_path);
  add_string (b, "variant", f->variant);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->runs->len; i++)
    add_run (b, f->runs->pdata[i]);
  json_builder_end_array (b);
  add_rois (b, f);
  _ctr_session_file_add_study (b, f);
  if (f->preprocess != NULL)
    {
      json_builder_set_member_name (b, "preprocess");
      json_builder_add_value (b, json_node_copy (f->preprocess));
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

/* Whether the existing folder @path is a session of ours: its session.json
 * says so and it holds nothing but what we write. */
static gboolean
is_our_folder (const char *path, GError **error)
{
  g_autofree char *manifest = g_build_filename (path, CTR_SESSION_FILE_MANIFEST, NULL);
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GDir) dir = NULL;
  JsonNode *root;
  const char *name;
  gboolean ours = FALSE;

  if (g_file_test (manifest, G_FILE_TEST_IS_REGULAR) && (parser = ctr_json_parse_file (manifest, NULL)) != NULL &&
      (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root))
    ours = g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (root), "format", ""),
                      CTR_SESSION_FILE_FORMAT) == 0;
  dir = ours ? g_dir_open (path, 0, NULL) : NULL;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, CTR_SESSION_FILE_MANIFEST) &&
        !(g_str_has_prefix (name, "run-") && g_str_has_suffix (name, ".tif")))
      ours = FALSE;
  if (!ours)
    g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                 "%s exists and is not a CT Recon session: it is left as it is; choose another name", path);
  return ours;
}

/* The folder @stage filled: every run image, then session.json. */
static gboolean
fill_stage (const CtrSessionFile *f, const char *stage, GCancellable *cancellable, GError **error)
{
  g_autofree char *manifest = NULL;
  g_autofree char *manifest_path = NULL;

  for (guint i = 0; i < f->runs->len; i++)
    {
      const CtrSessionRunRecord *r = f->runs->pdata[i];
      g_autofree char *name = _ctr_session_run_image_name (r);
      g_autofree char *file = g_build_filename (stage, name, NULL);

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      if (r->image != NULL && !ctr_tiff_write_volume (file, r->image, error))
        return FALSE;
    }
  manifest = _ctr_session_file_manifest (f);
  manifest_path = g_build_filename (stage, CTR_SESSION_FILE_MANIFEST, NULL);
  return ctr_output_write_file (manifest_path, manifest, -1, error);
}

gboolean
_ctr_session_file_write (const CtrSessionFile *f, const char *path, GCancellable *cancellable, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf (".%s.new-XXXXXX", base);
  g_autofree char *stage = g_build_filename (dir, name, NULL);
  gboolean exists = g_file_test (path, G_FILE_TEST_EXISTS);
  gboolean ok;
  int e;

  if (exists && (!g_file_test (path, G_FILE_TEST_IS_DIR) || !is_our_folder (path, NULL)))
    return is_our_folder (path, error);   /* sets the error */
  ctr_temp_lock ();
  ok = g_mkdtemp_full (stage, 0755) != NULL;
  e = errno;
  if (ok)
    ctr_temp_register (stage, TRUE);
  ctr_temp_unlock ();
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: cannot create a folder in %s: %s", path, dir,
                   g_strerror (e));
      return FALSE;
    }
  ok = fill_stage (f, stage, cancellable, error);
  ctr_temp_lock ();
  /* decided again: a folder put there meanwhile is not ours to replace */
  if (ok && g_file_test (path, G_FILE_TEST_EXISTS) && !is_our_folder (path, error))
    ok = FALSE;
  ok = ok && ctr_output_swap_in (stage, path, g_file_test (path, G_FILE_TEST_EXISTS), error);
  if (!ok)
    ctr_file_remove_folder (stage);
  ctr_temp_forget (stage);
  ctr_temp_unlock ();
  if (!ok && error != NULL && *error != NULL && strstr ((*error)->message, stage) != NULL)
    {
      /* name the session, not its temporary folder */
      g_auto(GStrv) parts = g_strsplit ((*error)->message, stage, -1);
      g_free ((*error)->message);
      (*error)->message = g_strjoinv (path, parts);
    }
  return ok;
}
