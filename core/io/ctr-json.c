/* ctr-json.c — json-glib with a nesting bound and no duplicate keys
 * (see ctr-json.h). */
#include "io/ctr-json.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"

#include <string.h>

/* The line (1-based) where nesting first exceeds CTR_JSON_MAX_DEPTH, 0 when
 * it never does.  Brackets inside strings do not count; the text's syntax is
 * left to the parser. */
static guint
too_deep_line (const char *text, gsize length)
{
  guint depth = 0, line = 1;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < length; i++)
    {
      const char c = text[i];
      if (c == '\n')
        line++;
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > CTR_JSON_MAX_DEPTH)
            return line;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return 0;
}

typedef struct {
  GHashTable *members;   /* JsonObject * → members announced so far */
  char *duplicate;       /* the first key given twice */
  guint line;            /* its line */
} DupCheck;

/* json-glib announces each member after storing it; a key stored again
 * replaces the first, so the object then holds fewer members than were
 * announced. */
static void
on_member (JsonParser *parser, JsonObject *object, const char *name, gpointer user_data)
{
  DupCheck *c = user_data;
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (c->members, object)) + 1;
  g_hash_table_insert (c->members, object, GUINT_TO_POINTER (n));
  if (c->duplicate == NULL && n > json_object_get_size (object))
    {
      c->duplicate = g_strdup (name);
      c->line = json_parser_get_current_line (parser);
    }
}

static void
on_object_end (JsonParser *parser, JsonObject *object, gpointer user_data)
{
  DupCheck *c = user_data;
  g_hash_table_remove (c->members, object);
}

JsonParser *
ctr_json_parse (const char *text, gssize length, const char *where, GError **error)
{
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (where != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  const gsize n = length < 0 ? strlen (text) : (gsize) length;
  const guint deep = too_deep_line (text, n);
  if (deep > 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: not valid JSON: objects and lists nested more than %d deep (line %u)",
                   where, CTR_JSON_MAX_DEPTH, deep);
      return NULL;
    }
  g_autoptr (JsonParser) parser = json_parser_new ();
  DupCheck c = { g_hash_table_new (NULL, NULL), NULL, 0 };
  g_signal_connect (parser, "object-member", G_CALLBACK (on_member), &c);
  g_signal_connect (parser, "object-end", G_CALLBACK (on_object_end), &c);
  g_autoptr (GError) local = NULL;
  const gboolean ok = json_parser_load_from_data (parser, text, (gssize) n, &local);
  g_signal_handlers_disconnect_by_data (parser, &c);
  g_hash_table_destroy (c.members);
  g_autofree char *dup = c.duplicate;
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: not valid JSON: %s", where, local->message);
      return NULL;
    }
  if (dup != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: not valid JSON: the key “%s” is given twice in one object (again on line %u); "
                   "keep one", where, dup, c.line);
      return NULL;
    }
  return g_steal_pointer (&parser);
}

JsonParser *
ctr_json_parse_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!ctr_file_check_regular (path, error))
    return NULL;
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, &length, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", path, local->message);
      return NULL;
    }
  return ctr_json_parse (text, (gssize) length, path, error);
}
