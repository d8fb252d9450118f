/* ctr-session-file-study.c — the Dose Study's table in a session folder
 * (session.json's "study", version 2 of docs/session-format.md): written
 * and read back with every figure of its rows, and the page's form
 * ("study.form").  Thread-safe: no session,
 * no widget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>

#include "ctr-session-file-private.h"
#include "ctr-study-row.h"
#include "io/ctr-json-get.h"

static void
add_int (JsonBuilder *b, const char *key, gint64 v)
{
  json_builder_set_member_name (b, key);
  json_builder_add_int_value (b, v);
}

static void
add_row (JsonBuilder *b, CtrStudyRowItem *item)
{
  const CtrStudyRow *r = ctr_study_row_item_get (item);
  guint run = ctr_study_row_item_get_run_number (item);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "run");
  if (run > 0)
    json_builder_add_int_value (b, run);
  else
    json_builder_add_null_value (b);
  _ctr_session_file_add_number (b, "dose", r->dose);
  add_int (b, "realisation", r->realisation);
  _ctr_session_file_add_number (b, "i0", r->i0);
  add_int (b, "method_index", r->method_index);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, ctr_method_name (r->method));
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, r->label != NULL ? r->label : "");
  _ctr_session_file_add_number (b, "rmse", r->rmse);
  _ctr_session_file_add_number (b, "psnr_db", r->psnr);
  _ctr_session_file_add_number (b, "ssim", r->ssim);
  _ctr_session_file_add_number (b, "hu_rmse", r->hu_rmse);
  _ctr_session_file_add_number (b, "noise_sd_hu", r->noise_sd_hu);
  _ctr_session_file_add_number (b, "cnr", ctr_study_row_item_get_cnr (item));
  add_int (b, "iterations", r->iterations);
  add_int (b, "best_iteration", r->best_iteration);
  _ctr_session_file_add_number (b, "best_rmse", r->best_rmse);
  _ctr_session_file_add_number (b, "seconds", r->seconds);
  _ctr_session_file_add_number (b, "nps_noise_hu", r->nps_noise_hu);
  _ctr_session_file_add_number (b, "nps_f_peak", r->nps_f_peak);
  _ctr_session_file_add_number (b, "nps_f_avg", r->nps_f_avg);
  _ctr_session_file_add_number (b, "dprime_npw", r->dprime_npw);
  _ctr_session_file_add_number (b, "dprime_npwe", r->dprime_npwe);
  json_builder_end_object (b);
}

static void
add_text (JsonBuilder *b, const char *key, const char *v)
{
  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, v != NULL ? v : "");
}

/* The page's form: its texts as typed, its numbers, its configurations. */
static void
add_form (JsonBuilder *b, const CtrStudyForm *form)
{
  json_builder_set_member_name (b, "form");
  json_builder_begin_object (b);
  add_text (b, "doses", form->doses);
  _ctr_session_file_add_number (b, "i0", form->i0);
  add_int (b, "seed", (gint64) form->seed);
  add_int (b, "realisations", form->realisations);
  add_int (b, "size", form->size);
  json_builder_set_member_name (b, "methods");
  json_builder_begin_array (b);
  for (guint i = 0; i < form->methods->len; i++)
    {
      json_builder_begin_object (b);
      _ctr_session_file_add_options (b, &g_array_index (form->methods, CtrReconOptions, i));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_text (b, "noise_roi", form->noise_roi);
  add_text (b, "background_roi", form->background_roi);
  add_text (b, "measure_roi", form->measure_roi);
  add_text (b, "task", form->iq_task);
  add_text (b, "nps_roi", form->iq_nps);
  add_text (b, "insert", form->iq_insert);
  json_builder_end_object (b);
}

void
_ctr_session_file_add_study (JsonBuilder *b, const CtrSessionFile *f)
{
  json_builder_set_member_name (b, "study");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < f->study_rows->len; i++)
    add_row (b, f->study_rows->pdata[i]);
  json_builder_end_array (b);
  if (f->study_form != NULL)
    add_form (b, f->study_form);
  json_builder_end_object (b);
}

/* A count that fits a guint (0 allowed). */
static gboolean
get_count (JsonObject *o, const char *key, guint *out, const char *where, guint row, GError **error)
{
  gint64 v = 0;

  if (!ctr_json_get_int (o, key, TRUE, 0, &v, where, error))
    return FALSE;
  if (v < 0 || v > G_MAXINT32)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study row %u: “%s” %" G_GINT64_FORMAT " is out of range",
                   where, row, key, v);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

/* The figures of one row; NaN where absent or null. */
static gboolean
read_figures (JsonObject *o, CtrStudyRow *r, double *cnr, const char *where, GError **error)
{
  struct { const char *key; double *v; } figures[] = {
    { "i0", &r->i0 }, { "rmse", &r->rmse }, { "psnr_db", &r->psnr }, { "ssim", &r->ssim },
    { "hu_rmse", &r->hu_rmse }, { "noise_sd_hu", &r->noise_sd_hu }, { "cnr", cnr },
    { "best_rmse", &r->best_rmse }, { "seconds", &r->seconds }, { "nps_noise_hu", &r->nps_noise_hu },
    { "nps_f_peak", &r->nps_f_peak }, { "nps_f_avg", &r->nps_f_avg }, { "dprime_npw", &r->dprime_npw },
    { "dprime_npwe", &r->dprime_npwe },
  };

  for (guint k = 0; k < G_N_ELEMENTS (figures); k++)
    if (!ctr_json_get_double (o, figures[k].key, FALSE, NAN, figures[k].v, where, error))
      return FALSE;
  return TRUE;
}

/* One row; @runs: the numbers of the file's runs (a row names one of them
 * or none). */
static CtrStudyRowItem *
read_row (JsonNode *node, GHashTable *runs, guint index, const char *where, GError **error)
{
  CtrStudyRow r = { 0 };
  const char *method = NULL, *label = NULL;
  double cnr = NAN;
  gint64 run = 0;
  CtrStudyRowItem *item;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study row %u is not an object", where, index);
      return NULL;
    }
  JsonObject *o = json_node_get_object (node);
  if (!ctr_json_get_int (o, "run", FALSE, 0, &run, where, error) ||
      !ctr_json_get_double (o, "dose", TRUE, 0, &r.dose, where, error) ||
      !get_count (o, "realisation", &r.realisation, where, index, error) ||
      !get_count (o, "method_index", &r.method_index, where, index, error) ||
      !ctr_json_get_string (o, "method", TRUE, &method, where, error) ||
      !ctr_json_get_string (o, "label", TRUE, &label, where, error) ||
      !get_count (o, "iterations", &r.iterations, where, index, error) ||
      !get_count (o, "best_iteration", &r.best_iteration, where, index, error) ||
      !read_figures (o, &r, &cnr, where, error))
    return NULL;
  if (!(r.dose > 0) || !ctr_method_from_name (method, &r.method, NULL) ||
      (run != 0 && !g_hash_table_contains (runs, GUINT_TO_POINTER ((guint) run))))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: study row %u: a dose of %g, the method “%s” or the run %" G_GINT64_FORMAT
                   " is not one the session knows", where, index, r.dose, method, run);
      return NULL;
    }
  r.label = label;
  item = ctr_study_row_item_new (&r, cnr);
  ctr_study_row_item_set_run_number (item, (guint) run);
  return item;
}

/* A text of the form ("" when absent). */
static gboolean
get_text (JsonObject *o, const char *key, char **out, const char *where, GError **error)
{
  const char *v = NULL;

  if (!ctr_json_get_string (o, key, FALSE, &v, where, error))
    return FALSE;
  g_free (*out);
  *out = g_strdup (v != NULL ? v : "");
  return TRUE;
}

/* A whole number of the form within [lo, hi]. */
static gboolean
get_bounded (JsonObject *o, const char *key, gint64 lo, gint64 hi, gint64 fallback, gint64 *out, const char *where,
             GError **error)
{
  if (!ctr_json_get_int (o, key, FALSE, fallback, out, where, error))
    return FALSE;
  if (*out < lo || *out > hi)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study.form: “%s” %" G_GINT64_FORMAT
                   " is outside %" G_GINT64_FORMAT " … %" G_GINT64_FORMAT, where, key, *out, lo, hi);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_form_methods (JsonObject *fo, CtrStudyForm *form, const char *where, GError **error)
{
  JsonNode *methods = json_object_get_member (fo, "methods");

  if (methods == NULL || JSON_NODE_HOLDS_NULL (methods))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (methods))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “study.form.methods” must be a list", where);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (methods)); i++)
    {
      JsonNode *n = json_array_get_element (json_node_get_array (methods), i);
      CtrReconOptions o;
      g_autoptr(GError) local = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study.form: method %u is not an object", where, i + 1);
          return FALSE;
        }
      g_autofree char *at = g_strdup_printf ("%s: study.form: method %u", where, i + 1);

      if (!_ctr_session_file_read_options (json_node_get_object (n), &o, at, error))
        return FALSE;
      if (!ctr_recon_options_validate (&o, &local))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study.form: method %u: %s", where, i + 1,
                       local->message);
          return FALSE;
        }
      g_array_append_val (form->methods, o);
    }
  return TRUE;
}

/* "study.form": absent in files written before it was saved. */
static gboolean
read_form (JsonObject *study, CtrSessionFile *f, const char *where, GError **error)
{
  JsonObject *fo = ctr_json_get_object (study, "form", FALSE, where, error);
  g_autoptr(CtrStudyForm) form = NULL;
  gint64 seed = 0, realisations = 1, size = 0;

  if (fo == NULL)
    return error == NULL || *error == NULL;
  form = ctr_study_form_new ();
  if (!get_text (fo, "doses", &form->doses, where, error) ||
      !ctr_json_get_double (fo, "i0", FALSE, 0, &form->i0, where, error) ||
      !get_bounded (fo, "seed", 0, G_MAXINT32, 0, &seed, where, error) ||
      !get_bounded (fo, "realisations", 1, 1000, 1, &realisations, where, error) ||
      !get_bounded (fo, "size", 0, 65536, 0, &size, where, error) ||
      !read_form_methods (fo, form, where, error) ||
      !get_text (fo, "noise_roi", &form->noise_roi, where, error) ||
      !get_text (fo, "background_roi", &form->background_roi, where, error) ||
      !get_text (fo, "measure_roi", &form->measure_roi, where, error) ||
      !get_text (fo, "task", &form->iq_task, where, error) ||
      !get_text (fo, "nps_roi", &form->iq_nps, where, error) ||
      !get_text (fo, "insert", &form->iq_insert, where, error))
    return FALSE;
  if (!(isfinite (form->i0) && form->i0 >= 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: study.form: the I0 %g is not 0 or above", where,
                   form->i0);
      return FALSE;
    }
  form->seed = (guint64) seed;
  form->realisations = (guint) realisations;
  form->size = (guint) size;
  f->study_form = g_steal_pointer (&form);
  return TRUE;
}

gboolean
_ctr_session_file_read_study (JsonObject *root, CtrSessionFile *f, const char *where, GError **error)
{
  g_autoptr(GHashTable) runs = g_hash_table_new (NULL, NULL);
  JsonObject *study = ctr_json_get_object (root, "study", FALSE, where, error);
  JsonNode *rows;

  /* version 1 has none */
  if (study == NULL)
    return error == NULL || *error == NULL;
  rows = json_object_get_member (study, "rows");
  if (rows == NULL || !JSON_NODE_HOLDS_ARRAY (rows))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “study.rows” must be a list", where);
      return FALSE;
    }
  for (guint i = 0; i < f->runs->len; i++)
    g_hash_table_add (runs, GUINT_TO_POINTER (((CtrSessionRunRecord *) f->runs->pdata[i])->number));
  for (guint i = 0; i < json_array_get_length (json_node_get_array (rows)); i++)
    {
      CtrStudyRowItem *item = read_row (json_array_get_element (json_node_get_array (rows), i), runs, i + 1, where,
                                        error);
      if (item == NULL)
        return FALSE;
      g_ptr_array_add (f->study_rows, item);
    }
  return read_form (study, f, where, error);
}
