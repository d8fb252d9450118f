/* ctr-output-path.c — may a run write here? (see ctr-output-path.h) */
#include "io/ctr-output-path.h"
#include "base/ctr-error.h"
#include "io/ctr-file.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  dev_t dev;
  ino_t ino;
} FileId;

static gboolean
same_id (const FileId *a, const struct stat *b)
{
  return a->dev == b->st_dev && a->ino == b->st_ino;
}

/* @path made absolute with every symbolic link resolved; for a path that
 * does not exist (yet), its resolved parent and its own name. */
static char *
resolve (const char *path)
{
  char buf[PATH_MAX];
  if (realpath (path, buf) != NULL)
    return g_strdup (buf);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  if (realpath (dir, buf) != NULL)
    return g_build_filename (buf, base, NULL);
  return g_canonicalize_filename (path, NULL);
}

/* The (device, inode) of @resolved (when it exists) and of every folder
 * above it up to the root. */
static GArray *
ancestors (const char *resolved)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (FileId));
  g_autofree char *p = g_strdup (resolved);
  for (;;)
    {
      struct stat st;
      if (stat (p, &st) == 0)
        {
          FileId id = { st.st_dev, st.st_ino };
          g_array_append_val (ids, id);
        }
      char *up = g_path_get_dirname (p);
      const gboolean top = g_str_equal (up, p);
      g_free (p);
      p = up;
      if (top)
        break;
    }
  return ids;
}

static gboolean
has_id (GArray *ids, const struct stat *st)
{
  for (guint i = 0; i < ids->len; i++)
    if (same_id (&g_array_index (ids, FileId, i), st))
      return TRUE;
  return FALSE;
}

#define REFUSE(...)                                                                  \
  do {                                                                               \
    g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, __VA_ARGS__);         \
    return FALSE;                                                                    \
  } while (0)

/* @path against one input or other path @p (@label says which). */
static gboolean
check_one (const char *path, CtrOutputKind kind, const struct stat *out, gboolean exists,
           const char *resolved, GArray *out_ancestors, const char *p, const char *label,
           GError **error)
{
  struct stat in;
  if (stat (p, &in) != 0)
    {
      /* Neither needs to exist yet (two outputs of one run): by name. */
      g_autofree char *rp = resolve (p);
      if (g_str_equal (rp, resolved) && g_str_equal (p, path))
        REFUSE ("%s is named twice: it is also %s; choose another output", path, label);
      if (g_str_equal (rp, resolved))
        REFUSE ("%s is %s, %s; choose another output", path, p, label);
      return TRUE;
    }
  if (exists && out->st_dev == in.st_dev && out->st_ino == in.st_ino)
    {
      if (g_str_equal (path, p))
        REFUSE ("%s is %s; writing there would destroy it: choose another output", path, label);
      REFUSE ("%s is %s (through a link), %s; writing there would destroy it: choose another output",
              path, p, label);
    }
  if (S_ISDIR (in.st_mode) && has_id (out_ancestors, &in))
    REFUSE ("%s lies inside the folder %s, %s; choose an output outside it", path, p, label);
  if (kind == CTR_OUTPUT_FOLDER && exists && S_ISDIR (out->st_mode))
    {
      g_autofree char *rp = resolve (p);
      g_autoptr (GArray) up = ancestors (rp);
      if (has_id (up, out))
        REFUSE ("the folder %s holds %s, %s; the new series would replace the folder's content: "
                "choose another folder", path, p, label);
    }
  return TRUE;
}

gboolean
ctr_output_path_check (const char *path_arg, CtrOutputKind kind, const CtrDataset *dataset,
                       const char *const *others, GError **error)
{
  g_return_val_if_fail (path_arg != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (*path_arg == '\0')
    REFUSE ("no output path given");
  /* "series/" is the folder "series". */
  g_autofree char *trimmed = g_strdup (path_arg);
  for (gsize n = strlen (trimmed); n > 1 && trimmed[n - 1] == G_DIR_SEPARATOR; n--)
    trimmed[n - 1] = '\0';
  const char *path = trimmed;
  if (kind == CTR_OUTPUT_DATASET)
    kind = CTR_OUTPUT_FOLDER;  /* the same rules; emptiness is the writer's check */

  struct stat out;
  gboolean exists = stat (path, &out) == 0;
  if (!exists && errno != ENOENT)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return FALSE;
    }
  if (exists && kind == CTR_OUTPUT_FILE && !S_ISREG (out.st_mode))
    REFUSE ("%s exists and is not a regular file (it is %s); refusing to replace it", path,
            ctr_file_kind_name (out.st_mode));
  if (exists && kind == CTR_OUTPUT_FOLDER && !S_ISDIR (out.st_mode))
    REFUSE ("%s exists and is not a folder (it is %s); refusing to replace it", path, ctr_file_kind_name (out.st_mode));
  if (!exists)
    {
      /* A file goes into an existing folder; a series folder may create the
       * folders above it (ctr_dicom_export_series does), below an existing one. */
      g_autofree char *dir = g_path_get_dirname (path);
      struct stat ds;
      while (kind == CTR_OUTPUT_FOLDER && stat (dir, &ds) != 0 && errno == ENOENT)
        {
          char *up = g_path_get_dirname (dir);
          const gboolean top = g_str_equal (up, dir);
          g_free (dir);
          dir = up;
          if (top)
            break;
        }
      if (stat (dir, &ds) != 0 || !S_ISDIR (ds.st_mode))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: the folder %s does not exist",
                       path, dir);
          return FALSE;
        }
    }

  g_autofree char *resolved = resolve (path);
  g_autoptr (GArray) up = ancestors (resolved);
  if (dataset != NULL && dataset->inputs != NULL)
    for (guint i = 0; dataset->inputs[i] != NULL; i++)
      if (!check_one (path, kind, &out, exists, resolved, up, dataset->inputs[i],
                      "an input of this run (a file of the dataset)", error))
        return FALSE;
  if (others != NULL)
    for (guint i = 0; others[i] != NULL; i++)
      if (*others[i] != '\0'
          && !check_one (path, kind, &out, exists, resolved, up, others[i],
                         "an input or another output of this run", error))
        return FALSE;
  return TRUE;
}
