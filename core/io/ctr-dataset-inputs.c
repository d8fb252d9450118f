/* ctr-dataset-inputs.c — the files a geometry.json names, without loading them. */
#include "io/ctr-dataset.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"
#include "io/ctr-json.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* Keys whose string value names a file or a folder (FORMAT.md): the
 * projections' "file", "folder" and "pattern", "flat", "dark", the
 * reference's "file"; in every variant. */
static gboolean
names_a_file (const char *key)
{
  static const char *const keys[] = { "file", "folder", "pattern", "flat", "dark", NULL };
  return g_strv_contains (keys, key);
}

/* The existing files of a one-file-per-view @pattern ("views/p%04d.tif"):
 * the names of its folder made of the text before the conversion, digits,
 * and the text after it. */
static void
add_pattern (GPtrArray *out, const char *path)
{
  const char *pc = strchr (path, '%');
  while (pc != NULL && pc[1] == '%')
    pc = strchr (pc + 2, '%');
  if (pc == NULL)
    return;
  const char *conv = pc + 1 + strspn (pc + 1, "0123456789");
  if (*conv != 'd' && *conv != 'i' && *conv != 'u')
    return;
  g_autofree char *before = g_strndup (path, pc - path);
  g_autofree char *dir = g_path_get_dirname (before);
  g_autofree char *prefix = g_str_has_suffix (before, G_DIR_SEPARATOR_S) ? g_strdup ("")
                                                                         : g_path_get_basename (before);
  const char *suffix = conv + 1;
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      const gsize n = strlen (name), a = strlen (prefix), b = strlen (suffix);
      if (n <= a + b || strncmp (name, prefix, a) != 0 || strcmp (name + n - b, suffix) != 0)
        continue;
      if (strspn (name + a, "0123456789") != n - a - b)
        continue;
      g_ptr_array_add (out, g_build_filename (dir, name, NULL));
    }
}

static void
walk (JsonNode *node, const char *key, const char *base_dir, GPtrArray *out, guint depth)
{
  if (node == NULL || depth > 64)
    return;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter it;
      const char *k;
      JsonNode *v;
      json_object_iter_init (&it, json_node_get_object (node));
      while (json_object_iter_next (&it, &k, &v))
        walk (v, k, base_dir, out, depth + 1);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (a); i++)
        walk (json_array_get_element (a, i), key, base_dir, out, depth + 1);
    }
  else if (key != NULL && names_a_file (key) && JSON_NODE_HOLDS_VALUE (node)
           && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      if (s == NULL || *s == '\0')
        return;
      g_autofree char *path = g_path_is_absolute (s) ? g_strdup (s) : g_build_filename (base_dir, s, NULL);
      if (g_str_equal (key, "pattern"))
        add_pattern (out, path);
      else
        g_ptr_array_add (out, g_steal_pointer (&path));
    }
}

char **
ctr_dataset_named_files (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *abs = g_canonicalize_filename (path, NULL);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_autoptr (GError) local = NULL;
  if (!ctr_file_check_regular (abs, error))
    return NULL;
  if (!g_file_get_contents (abs, &text, &length, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", abs, local->message);
      return NULL;
    }
  g_autoptr (GPtrArray) out = g_ptr_array_new ();
  g_ptr_array_add (out, g_strdup (abs));
  /* Not JSON (or nested beyond the bound, ctr-json.h): only the file
   * itself (the loader says what is wrong). */
  g_autoptr (JsonParser) parser = ctr_json_parse (text, (gssize) length, abs, NULL);
  g_autofree char *base_dir = g_path_get_dirname (abs);
  if (parser != NULL)
    walk (json_parser_get_root (parser), NULL, base_dir, out, 0);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}
