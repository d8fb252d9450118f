/* ctr-json-get.h — typed access to the members of a parsed JSON object
 * (documents come from ctr_json_parse, ctr-json.h), each failure a
 * CTR_ERROR_FORMAT message "WHERE: the key “KEY” …" naming the file (@where)
 * and the key.  Numbers are json-glib's int64 or double values; a JSON null
 * counts as absent. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A finite number; absent: @def when !@required (TRUE), else an error. */
gboolean ctr_json_get_double (JsonObject *o, const char *key, gboolean required, double def, double *out,
                              const char *where, GError **error);
/* A number with an integral value, as gint64; absent as ctr_json_get_double. */
gboolean ctr_json_get_int (JsonObject *o, const char *key, gboolean required, gint64 def, gint64 *out,
                           const char *where, GError **error);
/* A count: an integer from 1 to G_MAXINT32 (outside: CTR_ERROR_INVALID_GEOMETRY
 * with the range). */
gboolean ctr_json_get_size (JsonObject *o, const char *key, gboolean required, guint def, guint *out,
                            const char *where, GError **error);
/* A boolean; absent: @def. */
gboolean ctr_json_get_bool (JsonObject *o, const char *key, gboolean def, gboolean *out, const char *where,
                            GError **error);
/* A string, borrowed from @o; absent and not @required: NULL and TRUE. */
gboolean ctr_json_get_string (JsonObject *o, const char *key, gboolean required, const char **out,
                              const char *where, GError **error);
/* An optional list of finite numbers: *@out (transfer full, g_free) is NULL
 * and TRUE is returned when the key is absent; its length goes to @n_out. */
gboolean ctr_json_get_numbers (JsonObject *o, const char *key, double **out, guint *n_out, const char *where,
                               GError **error);
/* An object member, borrowed from @o; absent and not @required: NULL with no
 * error. */
JsonObject *ctr_json_get_object (JsonObject *o, const char *key, gboolean required, const char *where,
                                 GError **error);

G_END_DECLS
