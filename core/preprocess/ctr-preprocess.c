/* ctr-preprocess.c — the "preprocess" pipeline (see ctr-preprocess.h). */
#include "preprocess/ctr-preprocess.h"
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-stripes.h"
#include "preprocess/ctr-rings-wavelet.h"
#include "preprocess/ctr-wavelet.h"
#include "preprocess/ctr-flux.h"
#include "preprocess/ctr-truncation.h"
#include "preprocess/ctr-preprocess-private.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"
#include "io/ctr-json.h"

#include <math.h>

static const char *const op_names[] = { "outliers", "rings", "beam-hardening", "flux", "truncation" };
#define OP_LIST "outliers, rings, beam-hardening, flux or truncation"

/* "wavelet" of a "wavelet-fft" step: a Daubechies filter's name. */
static gboolean
get_wavelet (JsonObject *o, guint i, const char *where, CtrPrepStep *st, GError **error)
{
  JsonNode *n = json_object_get_member (o, "wavelet");
  if (n == NULL)
    return TRUE;
  CtrWavelet w;
  const char *name = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
                     ? json_node_get_string (n) : NULL;
  if (!ctr_wavelet_init (name, &w))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“rings”): “wavelet” must be one of " CTR_WAVELET_NAMES, where, i + 1);
      return FALSE;
    }
  g_strlcpy (st->wavelet, w.name, sizeof st->wavelet);
  return TRUE;
}

/* "warn_change": a positive fraction, at most 1. */
static gboolean
get_warn_change (JsonObject *o, guint i, const char *where, CtrPrepStep *st, GError **error)
{
  if (!ctr_prep_get_positive (o, "warn_change", i, "rings", where, &st->warn_change, error))
    return FALSE;
  if (st->warn_change > 1)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “preprocess” step %u (“rings”): “warn_change” must be a fraction above 0, at most 1",
                   where, i + 1);
      return FALSE;
    }
  return TRUE;
}

/* The sorting method's damage report: the row changed most (its largest
 * pixel change over its range, @change [row]) and the rows above @limit. */
static char *
sorting_damage (const double *change, guint rows, double limit)
{
  guint worst = 0, over = 0;
  for (guint r = 0; r < rows; r++)
    {
      worst = change[r] > change[worst] ? r : worst;
      over += change[r] > limit;
    }
  if (over == 0)
    return g_strdup_printf ("; largest change in a row %.1f %% of its range (row %u)", 100 * change[worst], worst);
  return g_strdup_printf ("; WARNING: %u of %u rows changed by more than %g %% of their range (up to %.1f %%, "
                          "row %u): sorting damages a dense object's edges, check the difference and try a "
                          "smaller size", over, rows, 100 * limit, 100 * change[worst], worst);
}

/* A "rings" step: "method" first, then the parameters that method takes. */
static gboolean
parse_rings (JsonObject *o, guint i, const char *where, CtrPrepStep *st, GError **error)
{
  static const char *const methods[] = { "sorting", "large", "dead", "wavelet-fft", NULL };
  static const char *const sorting[] = { "method", "size", "warn_change", NULL };
  static const char *const large[] = { "method", "size", "snr", "normalise", NULL };
  static const char *const dead[] = { "method", "size", "snr", "residual", "normalise", NULL };
  static const char *const wavelet[] = { "method", "level", "wavelet", "sigma", "pad", NULL };
  static const char *const *const allowed[] = { sorting, large, dead, wavelet };
  *st = (CtrPrepStep) { .op = CTR_PREP_RINGS, .size = CTR_RINGS_DEFAULT_SIZE, .method = CTR_RINGS_SORTING,
                        .residual = TRUE, .level = CTR_RINGS_WAVELET_DEFAULT_LEVEL,
                        .sigma = CTR_RINGS_WAVELET_DEFAULT_SIGMA, .pad = TRUE,
                        .wavelet = CTR_RINGS_WAVELET_DEFAULT_NAME, .warn_change = CTR_RINGS_DEFAULT_WARN_CHANGE };
  JsonNode *m = json_object_get_member (o, "method");
  if (m != NULL)
    {
      const char *name = JSON_NODE_HOLDS_VALUE (m) && json_node_get_value_type (m) == G_TYPE_STRING
                         ? json_node_get_string (m) : NULL;
      int k = 0;
      while (methods[k] != NULL && (name == NULL || !g_str_equal (name, methods[k])))
        k++;
      if (methods[k] == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: “preprocess” step %u (“rings”): “method” must be “sorting” (small stripes), "
                       "“large” (large stripes), “dead” (unresponsive and fluctuating stripes) or "
                       "“wavelet-fft” (wavelet-Fourier filtering)", where, i + 1);
          return FALSE;
        }
      st->method = (CtrRingsMethod) k;
      if (st->method == CTR_RINGS_LARGE || st->method == CTR_RINGS_DEAD)
        st->size = CTR_STRIPES_DEFAULT_SIZE;
      st->snr = st->method == CTR_RINGS_DEAD ? CTR_STRIPES_DEFAULT_SNR_DEAD : CTR_STRIPES_DEFAULT_SNR_LARGE;
    }
  return ctr_prep_check_members (o, i, "rings", allowed[st->method], where, error)
         && ctr_prep_get_size (o, i, where, &st->size, error)
         && ctr_prep_get_positive (o, "snr", i, "rings", where, &st->snr, error)
         && get_warn_change (o, i, where, st, error)
         && ctr_prep_get_boolean (o, "residual", i, "rings", where, &st->residual, error)
         && ctr_prep_get_boolean (o, "normalise", i, "rings", where, &st->normalise, error)
         && ctr_prep_get_integer (o, "level", i, "rings", 1, CTR_RINGS_WAVELET_MAX_LEVEL, where, &st->level, error)
         && ctr_prep_get_positive (o, "sigma", i, "rings", where, &st->sigma, error)
         && ctr_prep_get_boolean (o, "pad", i, "rings", where, &st->pad, error)
         && get_wavelet (o, i, where, st, error);
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
                   "%s: “preprocess” step %u has no “op” string (" OP_LIST ")", where, i + 1);
      return FALSE;
    }
  if (g_str_equal (op, op_names[CTR_PREP_OUTLIERS]))
    {
      static const char *const allowed[] = { "threshold", "size", NULL };
      *st = (CtrPrepStep) { CTR_PREP_OUTLIERS, CTR_OUTLIERS_DEFAULT_THRESHOLD, CTR_OUTLIERS_DEFAULT_SIZE };
      return ctr_prep_check_members (o, i, op, allowed, where, error)
             && ctr_prep_get_threshold (o, i, where, &st->threshold, error) && ctr_prep_get_size (o, i, where, &st->size, error);
    }
  if (g_str_equal (op, op_names[CTR_PREP_RINGS]))
    return parse_rings (o, i, where, st, error);
  if (g_str_equal (op, op_names[CTR_PREP_BEAM_HARDENING]))
    {
      g_autofree char *what = g_strdup_printf ("%s: “preprocess” step %u (“%s”)", where, i + 1, op);
      *st = (CtrPrepStep) { .op = CTR_PREP_BEAM_HARDENING };
      st->bh = ctr_beamhard_from_json (o, what, error);
      return st->bh != NULL;
    }
  if (g_str_equal (op, op_names[CTR_PREP_FLUX]))
    {
      static const char *const allowed[] = { "columns", NULL };
      *st = (CtrPrepStep) { .op = CTR_PREP_FLUX };
      return ctr_prep_check_members (o, i, op, allowed, where, error)
             && ctr_prep_get_columns (o, i, where, &st->ranges, &st->n_ranges, error);
    }
  if (g_str_equal (op, op_names[CTR_PREP_TRUNCATION]))
    {
      static const char *const allowed[] = { "width", "fit", "mu_per_mm", "consistency", NULL };
      *st = (CtrPrepStep) { .op = CTR_PREP_TRUNCATION, .fit = CTR_TRUNCATION_DEFAULT_FIT,
                            .mu_per_mm = CTR_MU_WATER_PER_MM, .consistent = TRUE };
      return ctr_prep_check_members (o, i, op, allowed, where, error)
             && ctr_prep_get_integer (o, "width", i, op, 1, CTR_TRUNCATION_MAX_WIDTH, where, &st->width, error)
             && ctr_prep_get_integer (o, "fit", i, op, 2, 4096, where, &st->fit, error)
             && ctr_prep_get_positive (o, "mu_per_mm", i, op, where, &st->mu_per_mm, error)
             && ctr_prep_get_boolean (o, "consistency", i, op, where, &st->consistent, error);
    }
  g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
               "%s: “preprocess” step %u: unknown op “%s” (" OP_LIST ")", where, i + 1, op);
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
                   "%s: “preprocess” must be a list of steps ({\"op\": \"outliers\"}, {\"op\": \"flux\"}, …; ops: " OP_LIST ")", where);
      return NULL;
    }
  JsonArray *a = json_node_get_array (node);
  pl->n_steps = json_array_get_length (a);
  pl->steps = g_new0 (CtrPrepStep, MAX (pl->n_steps, 1));
  int modelled = -1;   /* the first step that models the transmission */
  for (guint i = 0; i < pl->n_steps; i++)
    {
      CtrPrepStep *st = &pl->steps[i];
      if (!parse_step (json_array_get_element (a, i), i, where, st, error))
        return NULL;
      if (st->op == CTR_PREP_FLUX && modelled >= 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: “preprocess” step %u (“flux”) must come before step %d (“%s”): the flux is "
                       "normalised on the measured transmission, which that step changes",
                       where, i + 1, modelled + 1, op_names[pl->steps[modelled].op]);
          return NULL;
        }
      if (modelled < 0 && (st->op == CTR_PREP_BEAM_HARDENING || st->op == CTR_PREP_TRUNCATION))
        modelled = (int) i;
    }
  return g_steal_pointer (&pl);
}

/* The flux step: air stated or found, then normalised. */
static char *
run_flux (const CtrPrepStep *st, CtrProjections *p, GError **error)
{
  guint found[4], n_found = 0;
  const guint *ranges = st->ranges;
  guint n = st->n_ranges;
  if (n == 0)
    {
      if (!ctr_flux_find_air (p, found, &n_found, error))
        return NULL;
      ranges = found;
      n = n_found;
    }
  g_autofree double *f = g_try_new (double, p->n_views);
  if (f == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "flux: no memory for %u factors", p->n_views);
      return NULL;
    }
  if (!ctr_flux_normalise (p, ranges, n, f, error))
    return NULL;
  double lo = f[0], hi = f[0], mean = 0;
  for (guint v = 0; v < p->n_views; v++)
    {
      lo = MIN (lo, f[v]);
      hi = MAX (hi, f[v]);
      mean += f[v] / p->n_views;
    }
  g_autoptr (GString) cols = g_string_new (NULL);
  for (guint k = 0; k < n; k++)
    g_string_append_printf (cols, "%s%u-%u", k > 0 ? " and " : "", ranges[2 * k], ranges[2 * k + 1]);
  return g_strdup_printf ("flux: air in columns %s (%s); per-view factors %.4f to %.4f (mean %.4f), each "
                          "view's transmission divided by its own", cols->str,
                          st->n_ranges > 0 ? "stated" : "found at the detector's edges", lo, hi, mean);
}

static char *
run_step (const CtrPrepStep *st, CtrProjections *p, CtrGeometry *g, GError **error)
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
  if (st->op == CTR_PREP_FLUX)
    return run_flux (st, p, error);
  if (st->op == CTR_PREP_TRUNCATION)
    {
      const guint cols = p->n_cols;
      guint64 cut = 0;
      if (!ctr_truncation_extend (p, g, st->width, st->fit, st->mu_per_mm, st->consistent, &cut, error))
        return NULL;
      return g_strdup_printf ("truncation: %.1f %% of the row ends cut off (above 0.01); each row extended by a "
                              "fitted water cylinder (μ %g, %u edge columns fitted%s), %u → %u columns",
                              100.0 * (double) cut / (2.0 * p->n_views * p->n_rows), st->mu_per_mm, st->fit,
                              st->consistent ? ", scaled to the views' common total attenuation" : "",
                              cols, p->n_cols);
    }
  guint64 n = 0;
  guint columns = 0;
  double rms = 0;
  gboolean ok;
  g_autofree double *change = NULL;
  if (st->method == CTR_RINGS_LARGE)
    ok = ctr_stripes_remove_large (p, st->size, st->snr, st->normalise, &n, &columns, &rms, error);
  else if (st->method == CTR_RINGS_DEAD)
    ok = ctr_stripes_remove_dead (p, st->size, st->snr, st->residual, st->normalise, &n, &columns, &rms, error);
  else if (st->method == CTR_RINGS_WAVELET_FFT)
    ok = ctr_rings_remove_wavelet (p, st->level, st->wavelet, st->sigma, st->pad, &n, &columns, &rms, error);
  else
    {
      change = g_try_new (double, p->n_rows);
      if (change == NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "rings: no memory for %u rows' changes", p->n_rows);
          return NULL;
        }
      ok = ctr_rings_remove (p, st->size, &n, &columns, &rms, change, error);
    }
  if (!ok)
    return NULL;
  static const char *const what[] = { "sorting", "large stripes", "dead stripes", "wavelet-fft" };
  g_autofree char *detail = NULL;
  if (st->method == CTR_RINGS_WAVELET_FFT)
    detail = g_strdup_printf ("%s, %u levels, sigma %g%s", st->wavelet, st->level, st->sigma,
                              st->pad ? ", views padded" : "");
  else if (st->method == CTR_RINGS_SORTING)
    detail = g_strdup_printf ("size %d", st->size);
  else
    detail = g_strdup_printf ("size %d, snr %g", st->size, st->snr);
  g_autofree char *damage = change != NULL ? sorting_damage (change, p->n_rows, st->warn_change) : NULL;
  return g_strdup_printf ("rings: %u detector columns found striped (in at least half of the %u rows), "
                          "%" G_GUINT64_FORMAT " stripes in all row sinograms; RMS change %.3g (%s, %s)%s",
                          columns, p->n_rows, n, rms, what[st->method], detail, damage != NULL ? damage : "");
}

gboolean
ctr_pipeline_apply (const CtrPipeline *pl, CtrProjections *p, CtrGeometry *g, GPtrArray *notes,
                    GError **error)
{
  g_return_val_if_fail (pl != NULL && p != NULL, FALSE);
  for (guint i = 0; i < pl->n_steps; i++)
    {
      char *note = run_step (&pl->steps[i], p, g, error);
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
    {
      ctr_beamhard_free (pl->steps[i].bh);
      g_free (pl->steps[i].ranges);
    }
  g_free (pl->steps);
  g_free (pl);
}

CtrPipeline *
ctr_pipeline_from_file (const char *path, GError **error)
{
  g_autoptr (JsonParser) parser = ctr_json_parse_file (path, error);
  if (parser == NULL)
    return NULL;
  return ctr_pipeline_from_json (json_parser_get_root (parser), path, error);
}
