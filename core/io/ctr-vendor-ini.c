/* ctr-vendor-ini.c — the key files of lab scanners read with GKeyFile, the
 * numbers in them, and one TIFF per view (ctr-vendor.h). */
#include "io/ctr-vendor.h"

#include <math.h>
#include <string.h>
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"
#include "io/ctr-tiff.h"

void
ctr_vendor_ini_free (CtrVendorIni *ini)
{
  if (ini == NULL)
    return;
  if (ini->kf != NULL)
    g_key_file_unref (ini->kf);
  g_free (ini->path);
  g_free (ini);
}

/* Keeps only what GKeyFile reads: [sections], comments, key=value lines
 * (with a non-empty key, its brackets made parentheses: GKeyFile reads
 * "key[x]" as a translation); counts the sections.  @text is made valid
 * UTF-8 first (a Latin-1 "µ" becomes U+FFFD). */
static char *
keep_key_lines (const char *raw, guint *sections)
{
  g_autofree char *text = g_utf8_make_valid (raw, -1);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_new (NULL);
  *sections = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_strstrip (lines[i]);
      const char *l = lines[i];
      const char *eq = strchr (l, '=');
      if (l[0] == '[' && l[strlen (l) - 1] == ']')
        (*sections)++;
      else if (!(l[0] == '#' || l[0] == ';' || (eq != NULL && eq != l)))
        continue;
      if (*sections == 0 && l[0] != '#')
        continue;   /* GKeyFile wants a group before any key */
      for (char *c = lines[i]; l[0] != '[' && eq != NULL && c < eq; c++)
        *c = *c == '[' ? '(' : *c == ']' ? ')' : *c;
      g_string_append (out, l[0] == ';' ? "#" : "");
      g_string_append (out, l);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

CtrVendorIni *
ctr_vendor_ini_load (const char *path, GError **error)
{
  g_autoptr (CtrVendorIni) ini = g_new0 (CtrVendorIni, 1);
  ini->path = g_canonicalize_filename (path, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) local = NULL;
  if (!ctr_file_check_regular (ini->path, error))
    return NULL;
  if (!g_file_get_contents (ini->path, &text, NULL, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot read %s: %s", ini->path, local->message);
      return NULL;
    }
  guint sections;
  g_autofree char *kept = keep_key_lines (text, &sections);
  ini->kf = g_key_file_new ();
  if (sections == 0 || !g_key_file_load_from_data (ini->kf, kept, -1, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: not a scan description of [sections] and "
                   "key=value lines%s%s", ini->path, local != NULL ? ": " : "",
                   local != NULL ? local->message : " (no [section] found)");
      return NULL;
    }
  return g_steal_pointer (&ini);
}

/* The group of @ini named @name without regard to case, or NULL. */
static char *
find_group (const CtrVendorIni *ini, const char *name)
{
  g_auto (GStrv) groups = g_key_file_get_groups (ini->kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++)
    if (g_ascii_strcasecmp (g_strstrip (groups[i]), name) == 0)
      return g_strdup (groups[i]);
  return NULL;
}

/* The raw value of @key in the group named exactly @group, or NULL. */
static char *
value_in (const CtrVendorIni *ini, const char *group, const char *key)
{
  g_auto (GStrv) keys = g_key_file_get_keys (ini->kf, group, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *k = g_strstrip (g_strdup (keys[i]));
      if (g_ascii_strcasecmp (k, key) == 0)
        {
          char *v = g_key_file_get_value (ini->kf, group, keys[i], NULL);
          return v != NULL ? g_strstrip (v) : NULL;
        }
    }
  return NULL;
}

char *
ctr_vendor_ini_value (const CtrVendorIni *ini, const char *group, const char *key)
{
  if (group != NULL)
    {
      g_autofree char *g = find_group (ini, group);
      return g != NULL ? value_in (ini, g, key) : NULL;
    }
  g_auto (GStrv) groups = g_key_file_get_groups (ini->kf, NULL);
  for (guint i = 0; groups[i] != NULL; i++)
    {
      char *v = value_in (ini, groups[i], key);
      if (v != NULL)
        return v;
    }
  return NULL;
}

gboolean
ctr_vendor_ini_number (const CtrVendorIni *ini, const char *group, const char *key,
                       gboolean required, double fallback, double *out, GError **error)
{
  g_autofree char *v = ctr_vendor_ini_value (ini, group, key);
  if (v == NULL)
    {
      if (required)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s”%s%s%s is missing", ini->path, key,
                       group != NULL ? " (section [" : "", group != NULL ? group : "", group != NULL ? "])" : "");
          return FALSE;
        }
      *out = fallback;
      return TRUE;
    }
  char *end = NULL;
  double x = g_ascii_strtod (v, &end);
  if (end == v || !isfinite (x))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” is “%s”, not a number", ini->path, key, v);
      return FALSE;
    }
  *out = x;
  return TRUE;
}

gboolean
ctr_vendor_ini_count (const CtrVendorIni *ini, const char *group, const char *key,
                      gboolean required, guint fallback, guint max, guint *out, GError **error)
{
  double x;
  if (!ctr_vendor_ini_number (ini, group, key, required, fallback, &x, error))
    return FALSE;
  if (!(x >= 1 && x <= max && x == floor (x)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: the key “%s” must be a whole number from 1 to %u, "
                   "got %g", ini->path, key, max, x);
      return FALSE;
    }
  *out = (guint) x;
  return TRUE;
}

char **
ctr_vendor_view_paths (const CtrVendorIni *ini, const char *stem, guint digits, guint first, guint views,
                       GError **error)
{
  g_autofree char *dir = g_path_get_dirname (ini->path);
  /* the view count is the file's: its names are checked against the memory
   * before they are made (the array was a g_new0 that aborted) */
  const guint64 name = strlen (dir) + strlen (stem) + MAX (digits, 10) + sizeof ("/.tif") + 2 * sizeof (gsize);
  g_autofree char *what = g_strdup_printf ("the file names of %u views", views);
  if (!ctr_memory_check (ctr_memory_mul (views, sizeof (char *) + name), what, error))
    return NULL;
  char **paths = ctr_memory_try_new ((gsize) views + 1, sizeof (char *), TRUE, what, error);
  if (paths == NULL)
    return NULL;
  for (guint v = 0; v < views; v++)
    {
      g_autofree char *file = g_strdup_printf ("%s%0*u.tif", stem, (int) digits, first + v);
      paths[v] = g_build_filename (dir, file, NULL);
    }
  return paths;
}

CtrProjections *
ctr_vendor_read_views (char **paths, guint n_views, guint n_rows, guint n_cols, double i0,
                       const char *where, GCancellable *cancellable, GError **error)
{
  g_autoptr (CtrProjections) p = ctr_projections_new (n_views, n_rows, n_cols, CTR_PROJ_COUNTS, error);
  if (p == NULL)
    return NULL;
  p->i0 = i0;
  for (guint v = 0; v < n_views; v++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      CtrTiffInfo info;
      g_autoptr (GError) local = NULL;
      if (!g_file_test (paths[v], G_FILE_TEST_EXISTS))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "%s: view %u of %u: %s is missing", where, v + 1, n_views,
                       paths[v]);
          return NULL;
        }
      g_autofree float *img = ctr_tiff_read (paths[v], &info, &local);
      if (img == NULL)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: view %u: ", where, v + 1);
          return NULL;
        }
      if (info.width != n_cols || info.height != n_rows || info.pages != 1)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: view %u: %s is %u × %u pixels on %u page(s); the scan file states %u columns × %u rows "
                       "on one page", where, v + 1, paths[v], info.width, info.height, info.pages, n_cols, n_rows);
          return NULL;
        }
      memcpy (ctr_projections_view (p, v), img, (gsize) n_rows * n_cols * sizeof (float));
    }
  return g_steal_pointer (&p);
}

CtrDataset *
ctr_vendor_dataset (const char *where, const char *name, CtrGeometry *g, CtrProjections *p, char **paths,
                    GError **error)
{
  g_autoptr (CtrDataset) d = g_new0 (CtrDataset, 1);
  d->geometry = g;
  d->projections = p;
  d->path = g_strdup (where);
  d->name = g_strdup (name);
  ctr_dataset_add_input (d, where);
  for (guint v = 0; paths != NULL && paths[v] != NULL; v++)
    ctr_dataset_add_input (d, paths[v]);
  if (!ctr_geometry_validate (g, error) || !ctr_projections_check_finite (p, error)
      || !ctr_projections_to_line_integrals (p, error))
    {
      g_prefix_error (error, "%s: ", where);
      return NULL;
    }
  return g_steal_pointer (&d);
}
