/* ctr-preprocess-private.h — the readers of the "preprocess" steps'
 * parameters (ctr-preprocess-params.c).  Each returns TRUE and leaves *@out
 * alone when the key is absent (the default stays), and FALSE with
 * CTR_ERROR_FORMAT naming @where, the step's number @i + 1 and the key when
 * the value is mistyped or out of range. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* "size": an odd integer of at least 3 (at most 4096). */
gboolean ctr_prep_get_size (JsonObject *o, guint i, const char *where, int *out, GError **error);
/* "threshold": a positive finite number. */
gboolean ctr_prep_get_threshold (JsonObject *o, guint i, const char *where, double *out, GError **error);
/* Every member of @o is "op" or one of @allowed (NULL-terminated). */
gboolean ctr_prep_check_members (JsonObject *o, guint i, const char *op, const char *const *allowed,
                                 const char *where, GError **error);
/* @key: an integer from @lo to @hi (a JSON number). */
gboolean ctr_prep_get_integer (JsonObject *o, const char *key, guint i, const char *op, double lo, double hi,
                               const char *where, guint *out, GError **error);
/* @key: a positive finite number. */
gboolean ctr_prep_get_positive (JsonObject *o, const char *key, guint i, const char *op, const char *where,
                                double *out, GError **error);
/* @key: true or false. */
gboolean ctr_prep_get_boolean (JsonObject *o, const char *key, guint i, const char *op, const char *where,
                               gboolean *out, GError **error);
/* "columns" of a "flux" step: 1 to CTR_FLUX_MAX_RANGES pairs [first, last]
 * of non-negative integers, first ≤ last; *@ranges (g_free) holds
 * 2·*@n_ranges guints. */
gboolean ctr_prep_get_columns (JsonObject *o, guint i, const char *where, guint **ranges, guint *n_ranges,
                               GError **error);

G_END_DECLS
