/* ctr-run.c — one reconstruction of a session.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-run"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ctr-run-private.h"

struct _CtrRun
{
  GObject          parent_instance;

  guint            number;
  char            *label;
  char            *derivation;
  CtrReconOptions  options;
  CtrGrid          grid;
  CtrRunState      state;
  CtrVolume       *result;
  GArray          *stats;      /* CtrIterStats, ->image NULL */
  double           wall_s;
  char           **notes;
  char            *dataset;    /* "gel-fan", "head-fan-lowdose · full_dose" */
  char            *dataset_path;
  char            *color;      /* "#rrggbb" the user picked, or NULL */
  gboolean         hidden;
  /* the run store (ctr-session-store.c): the result's image on disk while
   * it is not in memory, and when it was last asked for */
  char            *spill_path;  /* nullable: the image's file, kept until the run ends */
  char            *result_unit; /* the result's unit and grid, for reading it back */
  CtrGrid          result_grid;
  guint64          last_used;
  CtrRunReloaded   reloaded;    /* told when the image is read back */
  gpointer         reloaded_data;
};

static guint64 use_clock;   /* main thread only */

G_DEFINE_FINAL_TYPE (CtrRun, ctr_run, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE (CtrRunState, ctr_run_state,
                    G_DEFINE_ENUM_VALUE (CTR_RUN_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (CTR_RUN_FINISHED, "finished"),
                    G_DEFINE_ENUM_VALUE (CTR_RUN_CANCELLED, "cancelled"),
                    G_DEFINE_ENUM_VALUE (CTR_RUN_FAILED, "failed"))

/* A boxed name of its own: CtrIterStats belongs to core. */
typedef CtrIterStats CtrRunStats;
G_DEFINE_BOXED_TYPE (CtrRunStats, ctr_run_stats, ctr_run_stats_copy, ctr_run_stats_free)

enum {
  PROP_0,
  PROP_NUMBER,
  PROP_LABEL,
  PROP_STATE,
  PROP_N_STATS,
  PROP_HAS_RESULT,
  PROP_NOTES,
  PROP_COLOR,
  PROP_HIDDEN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

CtrIterStats *
ctr_run_stats_copy (const CtrIterStats *stats)
{
  CtrIterStats *copy = g_memdup2 (stats, sizeof *stats);
  memset (copy->planes, 0, sizeof copy->planes);   /* borrowed from the core: not kept */
  if (copy->image != NULL)
    copy->image = ctr_volume_ref ((CtrVolume *) copy->image);
  return copy;
}

void
ctr_run_stats_free (CtrIterStats *stats)
{
  if (stats == NULL)
    return;
  if (stats->image != NULL)
    ctr_volume_unref ((CtrVolume *) stats->image);
  g_free (stats);
}

/* "Parallel ART: iterations 3, relaxation 1, ..." from the parameter table. */
static char *
describe_options (const CtrReconOptions *o)
{
  GString *s = g_string_new (ctr_method_label (o->method));
  guint n = 0;
  const CtrParam *params = ctr_params_list (&n);
  const char *sep = ": ";

  for (guint i = 0; i < n; i++)
    if (ctr_param_applies (&params[i], o->method))
      {
        g_autofree char *value = ctr_param_format (&params[i], o);
        g_string_append_printf (s, "%s%s %s", sep, params[i].name, value);
        sep = ", ";
      }
  return g_string_free (s, FALSE);
}

CtrRun *
_ctr_run_new_for_data (guint                  number,
                       const CtrReconOptions *options,
                       const CtrGrid         *grid,
                       const char            *dataset_name,
                       const char            *data_label,
                       const char            *dataset_path)
{
  CtrRun *self = g_object_new (CTR_TYPE_RUN, NULL);

  self->number = number;
  self->options = *options;
  self->grid = *grid;
  {
    /* what tells this run apart: its parameters (core's description) and
     * the data it ran on when that is not the dataset's default */
    g_autofree char *what = ctr_recon_options_describe (options);
    self->label = data_label != NULL && *data_label != '\0'
      ? g_strdup_printf ("%u · %s · %s", number, what, data_label)
      : g_strdup_printf ("%u · %s", number, what);
  }
  self->derivation = describe_options (options);
  self->dataset = data_label != NULL && *data_label != '\0'
    ? g_strdup_printf ("%s · %s", dataset_name ? dataset_name : "dataset", data_label)
    : g_strdup (dataset_name ? dataset_name : "dataset");
  self->dataset_path = g_strdup (dataset_path);
  return self;
}

CtrRun *
_ctr_run_new (guint                  number,
              const CtrReconOptions *options,
              const CtrGrid         *grid,
              const CtrDataset      *dataset)
{
  return _ctr_run_new_for_data (number, options, grid, dataset->name, dataset->variant, dataset->path);
}

CtrRun *
_ctr_run_new_restored (guint                  number,
                       const CtrReconOptions *options,
                       const CtrGrid         *grid,
                       const char            *dataset,
                       const char            *dataset_path)
{
  CtrRun *self = g_object_new (CTR_TYPE_RUN, NULL);
  g_autofree char *what = ctr_recon_options_describe (options);

  self->number = number;
  self->options = *options;
  self->grid = *grid;
  self->label = g_strdup_printf ("%u · %s", number, what);
  self->derivation = describe_options (options);
  self->dataset = g_strdup (dataset != NULL ? dataset : "dataset");
  self->dataset_path = g_strdup (dataset_path);
  return self;
}

const char *
ctr_run_get_dataset_path (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return self->dataset_path;
}

gboolean
ctr_run_is_of (CtrRun *self, const CtrDataset *dataset)
{
  g_return_val_if_fail (CTR_IS_RUN (self), FALSE);
  return dataset != NULL && g_strcmp0 (self->dataset_path, dataset->path) == 0;
}

const char *
ctr_run_get_dataset (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return self->dataset;
}

void
_ctr_run_add_stats (CtrRun             *self,
                    const CtrIterStats *stats)
{
  CtrIterStats s = *stats;

  g_return_if_fail (CTR_IS_RUN (self));
  s.image = NULL;
  if (!s.has_reference)
    s.rmse = s.psnr = s.ssim = NAN;
  g_array_append_val (self->stats, s);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_STATS]);
}

void
_ctr_run_finish (CtrRun      *self,
                 CtrRunState  state,
                 CtrVolume   *result,
                 double       wall_s)
{
  g_return_if_fail (CTR_IS_RUN (self));
  g_return_if_fail (self->state == CTR_RUN_RUNNING);

  self->wall_s = wall_s;
  if (result != NULL)
    self->result = ctr_volume_ref (result);
  if (state == CTR_RUN_CANCELLED || state == CTR_RUN_FAILED)
    {
      char *label = g_strdup_printf ("%s (%s)", self->label, state == CTR_RUN_FAILED ? "failed" : "cancelled");
      g_free (self->label);
      self->label = label;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LABEL]);
    }
  if (result != NULL)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RESULT]);
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
_ctr_run_set_notes (CtrRun *self, const char *const *notes)
{
  g_return_if_fail (CTR_IS_RUN (self));
  if (notes != NULL && self->notes != NULL && g_strv_equal (notes, (const char *const *) self->notes))
    return;
  g_strfreev (self->notes);
  self->notes = g_strdupv ((char **) notes);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NOTES]);
}

const char *const *
ctr_run_get_notes (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return (const char *const *) self->notes;
}

static void
forget_spill (CtrRun *self)
{
  if (self->spill_path != NULL)
    g_unlink (self->spill_path);
  g_clear_pointer (&self->spill_path, g_free);
}

void
_ctr_run_drop_result (CtrRun *self)
{
  g_return_if_fail (CTR_IS_RUN (self));
  if (self->result == NULL && self->spill_path == NULL)
    return;
  g_clear_pointer (&self->result, ctr_volume_unref);
  forget_spill (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RESULT]);
}

guint
ctr_run_get_number (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), 0);
  return self->number;
}

void
ctr_run_set_label (CtrRun *self, const char *label)
{
  g_autofree char *clean = NULL;

  g_return_if_fail (CTR_IS_RUN (self));
  clean = g_strstrip (g_strdup (label != NULL ? label : ""));
  if (*clean == '\0' || g_strcmp0 (clean, self->label) == 0)
    return;
  g_free (self->label);
  self->label = g_steal_pointer (&clean);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LABEL]);
}

void
ctr_run_set_color (CtrRun *self, const char *color)
{
  g_return_if_fail (CTR_IS_RUN (self));
  if (color != NULL)
    {
      /* "#rrggbb" only */
      gboolean ok = strlen (color) == 7 && color[0] == '#';
      for (guint i = 1; ok && i < 7; i++)
        ok = g_ascii_isxdigit (color[i]);
      g_return_if_fail (ok);
    }
  if (g_strcmp0 (color, self->color) == 0)
    return;
  g_free (self->color);
  self->color = color ? g_ascii_strdown (color, -1) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLOR]);
}

const char *
ctr_run_get_color (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return self->color;
}

void
ctr_run_set_hidden (CtrRun *self, gboolean hidden)
{
  g_return_if_fail (CTR_IS_RUN (self));
  if (self->hidden == !!hidden)
    return;
  self->hidden = !!hidden;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDDEN]);
}

gboolean
ctr_run_get_hidden (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), FALSE);
  return self->hidden;
}

const char *
ctr_run_get_label (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return self->label;
}

const char *
ctr_run_get_derivation (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return self->derivation;
}

const CtrReconOptions *
ctr_run_get_options (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return &self->options;
}

const CtrGrid *
ctr_run_get_grid (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  return &self->grid;
}

CtrRunState
ctr_run_get_state (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), CTR_RUN_FAILED);
  return self->state;
}

guint
ctr_run_get_n_iterations (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), 1);
  return ctr_method_is_iterative (self->options.method) ? MAX (self->options.iterations, 1) : 1;
}

/* The spilled image read back (NULL when its file is unreadable). */
static CtrVolume *
read_back (CtrRun *self)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  CtrVolume *v;

  if (!g_file_get_contents (self->spill_path, &bytes, &len, NULL) ||
      len != ctr_grid_size (&self->result_grid) * sizeof (float))
    return NULL;
  v = ctr_volume_new (&self->result_grid, NULL);
  if (v == NULL)
    return NULL;
  memcpy (v->data, bytes, len);
  ctr_volume_set_unit (v, self->result_unit);
  return v;
}

CtrVolume *
ctr_run_get_result (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  self->last_used = ++use_clock;
  if (self->result == NULL && self->spill_path != NULL)
    {
      self->result = read_back (self);
      if (self->result != NULL && self->reloaded != NULL)
        self->reloaded (self, self->reloaded_data);
    }
  return self->result;
}

gboolean
ctr_run_has_image (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), FALSE);
  return self->result != NULL || self->spill_path != NULL;
}

gboolean
_ctr_run_in_memory (CtrRun *self)
{
  return self->result != NULL;
}

guint64
_ctr_run_get_last_used (CtrRun *self)
{
  return self->last_used;
}

guint64
_ctr_run_image_bytes (CtrRun *self)
{
  if (self->result != NULL)
    return (guint64) ctr_grid_size (&self->result->grid) * sizeof (float);
  return self->spill_path != NULL ? (guint64) ctr_grid_size (&self->result_grid) * sizeof (float) : 0;
}

gboolean
_ctr_run_is_spilled (CtrRun *self)
{
  return self->spill_path != NULL;
}

void
_ctr_run_set_reloaded (CtrRun *self, CtrRunReloaded func, gpointer data)
{
  self->reloaded = func;
  self->reloaded_data = data;
}

gboolean
_ctr_run_spill (CtrRun *self, const char *folder, GError **error)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (CTR_IS_RUN (self), FALSE);
  if (self->result == NULL)
    return TRUE;
  if (self->spill_path == NULL)
    {
      name = g_strdup_printf ("run-%u.f32", self->number);
      path = g_build_filename (folder, name, NULL);
      if (!g_file_set_contents_full (path, (const char *) self->result->data,
                                     (gssize) (ctr_grid_size (&self->result->grid) * sizeof (float)),
                                     G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
        return FALSE;
      self->result_grid = self->result->grid;
      g_free (self->result_unit);
      self->result_unit = g_strdup (self->result->unit);
      self->spill_path = g_steal_pointer (&path);
    }
  /* the file holds the image: memory lets go of it (has-result stays) */
  g_clear_pointer (&self->result, ctr_volume_unref);
  return TRUE;
}

guint
ctr_run_get_n_stats (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), 0);
  return self->stats->len;
}

const CtrIterStats *
ctr_run_get_stats (CtrRun *self,
                   guint   index)
{
  g_return_val_if_fail (CTR_IS_RUN (self), NULL);
  g_return_val_if_fail (index < self->stats->len, NULL);
  return &g_array_index (self->stats, CtrIterStats, index);
}

double
ctr_run_get_wall_s (CtrRun *self)
{
  g_return_val_if_fail (CTR_IS_RUN (self), 0);
  return self->wall_s;
}

static void
ctr_run_finalize (GObject *object)
{
  CtrRun *self = CTR_RUN (object);

  g_free (self->label);
  g_free (self->derivation);
  g_clear_pointer (&self->result, ctr_volume_unref);
  forget_spill (self);
  g_free (self->result_unit);
  g_array_unref (self->stats);
  g_strfreev (self->notes);
  g_free (self->dataset);
  g_free (self->dataset_path);
  g_free (self->color);

  G_OBJECT_CLASS (ctr_run_parent_class)->finalize (object);
}

static void
ctr_run_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  CtrRun *self = CTR_RUN (object);

  switch (prop_id)
    {
    case PROP_NUMBER:
      g_value_set_uint (value, self->number);
      break;
    case PROP_LABEL:
      g_value_set_string (value, self->label);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_N_STATS:
      g_value_set_uint (value, self->stats->len);
      break;
    case PROP_HAS_RESULT:
      g_value_set_boolean (value, self->result != NULL || self->spill_path != NULL);
      break;
    case PROP_NOTES:
      g_value_set_boxed (value, self->notes);
      break;
    case PROP_COLOR:
      g_value_set_string (value, self->color);
      break;
    case PROP_HIDDEN:
      g_value_set_boolean (value, self->hidden);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_run_class_init (CtrRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ctr_run_finalize;
  object_class->get_property = ctr_run_get_property;

  properties[PROP_NUMBER] =
    g_param_spec_uint ("number", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LABEL] =
    g_param_spec_string ("label", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, CTR_TYPE_RUN_STATE, CTR_RUN_RUNNING,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_STATS] =
    g_param_spec_uint ("n-stats", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HAS_RESULT] =
    g_param_spec_boolean ("has-result", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NOTES] =
    g_param_spec_boxed ("notes", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COLOR] =
    g_param_spec_string ("color", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_HIDDEN] =
    g_param_spec_boolean ("hidden", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ctr_run_init (CtrRun *self)
{
  self->stats = g_array_new (FALSE, FALSE, sizeof (CtrIterStats));
  self->state = CTR_RUN_RUNNING;
}
