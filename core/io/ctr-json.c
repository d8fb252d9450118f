/* ctr-json.c — json-glib with a nesting bound and no duplicate keys
 * (see ctr-json.h). */
#include "io/ctr-json.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"

#include <string.h>

/* Whether the integer literal @t (@n bytes, an optional '-' then digits)
 * lies outside gint64: json-glib wraps such a number silently
 * (18446744073709551688 reads as -1, -18446744073709551615 as 1). */
static gboolean
integer_overflows (const char *t, gsize n)
{
  const gboolean neg = n > 0 && t[0] == '-';
  const char *d = t + neg;
  gsize nd = n - neg;
  while (nd > 1 && *d == '0')
    d++, nd--;
  const char *lim = neg ? "9223372036854775808" : "9223372036854775807";
  return nd > 19 || (nd == 19 && strncmp (d, lim, 19) > 0);
}

/* One pass over the text before json-glib sees it: nesting deeper than
 * CTR_JSON_MAX_DEPTH (json-glib recurses once per level) and integers that
 * json-glib would wrap are refused, with the line and the key they belong
 * to.  Brackets inside strings do not count; the rest of the syntax is left
 * to the parser. */
static gboolean
scan (const char *text, gsize length, const char *where, GError **error)
{
  guint depth = 0, line = 1;
  gboolean in_string = FALSE;
  gsize str_start = 0, key_start = 0, key_len = 0;
  gsize last_start = 0, last_len = 0;
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
            {
              in_string = FALSE;
              last_start = str_start;
              last_len = i - str_start;
            }
          continue;
        }
      if (c == '"')
        {
          in_string = TRUE;
          str_start = i + 1;
        }
      else if (c == ':')
        {
          key_start = last_start;
          key_len = MIN (last_len, 64);
        }
      else if (c == '[' || c == '{')
        {
          if (++depth > CTR_JSON_MAX_DEPTH)
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                           "%s: not valid JSON: objects and lists nested more than %d deep (line %u)",
                           where, CTR_JSON_MAX_DEPTH, line);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
      else if (c == '-' || g_ascii_isdigit (c))
        {
          gsize j = i + 1;
          gboolean integer = TRUE;
          for (; j < length && (g_ascii_isdigit (text[j]) || strchr (".eE+-", text[j]) != NULL); j++)
            if (!g_ascii_isdigit (text[j]))
              integer = FALSE;
          if (integer && integer_overflows (text + i, j - i))
            {
              g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                           "%s: line %u%s%.*s%s: the number %.*s is beyond the range of a 64-bit integer "
                           "(±9223372036854775807)", where, line, key_len > 0 ? ", the key “" : "",
                           (int) key_len, text + key_start, key_len > 0 ? "”" : "",
                           (int) MIN (j - i, 40), text + i);
              return FALSE;
            }
          i = j - 1;
        }
    }
  return TRUE;
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
  if (!scan (text, n, where, error))
    return NULL;
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
