/* ctr-output-set.c — the outputs of one run (see ctr-output-set.h). */
#define _GNU_SOURCE   /* renameat2 (glibc >= 2.28) */
#include "io/ctr-output-set.h"
#include "base/ctr-error.h"
#include "io/ctr-dicom.h"
#include "io/ctr-file.h"
#include "io/ctr-temp.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  char *path;    /* as given, trailing "/" removed */
  CtrOutputKind kind;
  char *option;
  char *stage;   /* NULL until staged; NULL again once committed */
} Output;

struct _CtrOutputSet {
  const CtrDataset *dataset;
  GPtrArray *inputs;   /* char * */
  GArray *outputs;     /* Output */
};

static void
output_clear (gpointer p)
{
  Output *o = p;
  if (o->stage != NULL)
    {
      if (o->kind == CTR_OUTPUT_FILE)
        g_unlink (o->stage);
      else
        ctr_file_remove_folder (o->stage);
      ctr_temp_forget (o->stage);
    }
  g_free (o->stage);
  g_free (o->path);
  g_free (o->option);
}

CtrOutputSet *
ctr_output_set_new (const CtrDataset *dataset)
{
  CtrOutputSet *s = g_new0 (CtrOutputSet, 1);
  s->dataset = dataset;
  s->inputs = g_ptr_array_new_with_free_func (g_free);
  s->outputs = g_array_new (FALSE, TRUE, sizeof (Output));
  g_array_set_clear_func (s->outputs, output_clear);
  return s;
}

void
ctr_output_set_free (CtrOutputSet *s)
{
  if (s == NULL)
    return;
  g_ptr_array_unref (s->inputs);
  g_array_unref (s->outputs);
  g_free (s);
}

void
ctr_output_set_add_input (CtrOutputSet *s, const char *path)
{
  g_return_if_fail (s != NULL);
  if (path != NULL && *path != '\0')
    g_ptr_array_add (s->inputs, g_strdup (path));
}

gboolean
ctr_output_set_add_geometry (CtrOutputSet *s, const char *path, GError **error)
{
  g_auto (GStrv) files = ctr_dataset_named_files (path, error);
  if (files == NULL)
    return FALSE;
  for (guint i = 0; files[i] != NULL; i++)
    ctr_output_set_add_input (s, files[i]);
  return TRUE;
}

guint
ctr_output_set_add (CtrOutputSet *s, const char *path, CtrOutputKind kind, const char *option)
{
  Output o = { g_strdup (path), kind, g_strdup (option), NULL };
  for (gsize n = strlen (o.path); n > 1 && o.path[n - 1] == G_DIR_SEPARATOR; n--)
    o.path[n - 1] = '\0';
  g_array_append_val (s->outputs, o);
  return s->outputs->len - 1;
}

static gboolean
set_errno (GError **error, int e, const char *what, const char *path)
{
  g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot %s %s: %s", what, path, g_strerror (e));
  return FALSE;
}

/* A file can be created in @dir (permissions, a read-only file system). */
static gboolean
probe_writable (const char *dir, const char *path, GError **error)
{
  g_autofree char *probe = g_build_filename (dir, ".ctrecon-probe-XXXXXX", NULL);
  ctr_temp_lock ();
  int fd = g_mkstemp_full (probe, O_RDWR | O_CLOEXEC, 0600);
  const int e = errno;
  if (fd >= 0)
    {
      close (fd);
      g_unlink (probe);
    }
  ctr_temp_unlock ();
  if (fd < 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: the folder %s: %s", path, dir, g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_one (CtrOutputSet *s, guint i, GError **error)
{
  const Output *o = &g_array_index (s->outputs, Output, i);
  g_autoptr (GPtrArray) others = g_ptr_array_new ();
  for (guint k = 0; k < s->inputs->len; k++)
    g_ptr_array_add (others, s->inputs->pdata[k]);
  for (guint k = 0; k < s->outputs->len; k++)
    if (k != i)
      g_ptr_array_add (others, g_array_index (s->outputs, Output, k).path);
  g_ptr_array_add (others, NULL);
  if (!ctr_output_path_check (o->path, o->kind, s->dataset, (const char *const *) others->pdata, error))
    return FALSE;
  /* A folder output may go below folders still to be made (at staging):
   * the nearest existing one must be writable.  Nothing is created here. */
  g_autofree char *parent = g_path_get_dirname (o->path);
  while (o->kind != CTR_OUTPUT_FILE && !g_file_test (parent, G_FILE_TEST_IS_DIR))
    {
      char *up = g_path_get_dirname (parent);
      const gboolean top = g_str_equal (up, parent);
      g_free (parent);
      parent = up;
      if (top)
        break;
    }
  if (!probe_writable (parent, o->path, error))
    return FALSE;
  if (o->kind == CTR_OUTPUT_FOLDER)
    return ctr_dicom_export_check_folder (o->path, error);
  if (o->kind == CTR_OUTPUT_DATASET)
    return ctr_file_check_new_folder (o->path, error);
  return TRUE;
}

gboolean
ctr_output_set_check (CtrOutputSet *s, GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  for (guint i = 0; i < s->outputs->len; i++)
    if (!check_one (s, i, error))
      {
        const char *option = g_array_index (s->outputs, Output, i).option;
        if (option != NULL)
          g_prefix_error (error, "%s: ", option);
        return FALSE;
      }
  return TRUE;
}

const char *
ctr_output_set_stage (CtrOutputSet *s, guint i, GError **error)
{
  g_return_val_if_fail (s != NULL && i < s->outputs->len, NULL);
  Output *o = &g_array_index (s->outputs, Output, i);
  if (o->stage != NULL)
    return o->stage;
  g_autofree char *dir = g_path_get_dirname (o->path);
  g_autofree char *base = g_path_get_basename (o->path);
  if (o->kind != CTR_OUTPUT_FILE && g_mkdir_with_parents (dir, 0777) != 0)
    {
      set_errno (error, errno, "create the folder", dir);
      return NULL;
    }
  g_autofree char *name = g_strdup_printf (".%s.new-XXXXXX", base);
  char *stage = g_build_filename (dir, name, NULL);
  ctr_temp_lock ();
  if (o->kind == CTR_OUTPUT_FILE)
    {
      int fd = g_mkstemp_full (stage, O_RDWR | O_CLOEXEC, 0666);
      if (fd >= 0)
        close (fd);
      else
        g_clear_pointer (&stage, g_free);
    }
  else if (g_mkdtemp_full (stage, 0755) == NULL)
    g_clear_pointer (&stage, g_free);
  const int e = errno;
  if (stage != NULL)
    ctr_temp_register (stage, o->kind != CTR_OUTPUT_FILE);
  ctr_temp_unlock ();
  if (stage == NULL)
    {
      set_errno (error, e, "create a file in", dir);
      g_prefix_error (error, "cannot write %s: ", o->path);
      return NULL;
    }
  o->stage = stage;
  return stage;
}

/* Writes @n bytes of @text to the file @target (opened, truncated) and
 * fsyncs it; errors name @path. */
static gboolean
write_all (const char *target, const char *path, const char *text, gsize n, GError **error)
{
  int fd = g_open (target, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  if (fd < 0)
    return set_errno (error, errno, "write", path);
  gsize done = 0;
  while (done < n)
    {
      const ssize_t w = write (fd, text + done, n - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          const int e = w < 0 ? errno : ENOSPC;
          close (fd);
          return set_errno (error, e, "write", path);
        }
      done += (gsize) w;
    }
  if (fsync (fd) != 0 && errno != EINVAL)
    {
      const int e = errno;
      close (fd);
      return set_errno (error, e, "write", path);
    }
  if (close (fd) != 0)
    return set_errno (error, errno, "write", path);
  return TRUE;
}

gboolean
ctr_output_set_write_text (CtrOutputSet *s, guint i, const char *text, gssize length, GError **error)
{
  const char *stage = ctr_output_set_stage (s, i, error);
  if (stage == NULL)
    return FALSE;
  return write_all (stage, g_array_index (s->outputs, Output, i).path, text,
                    length < 0 ? strlen (text) : (gsize) length, error);
}

gboolean
ctr_output_write_file (const char *path, const char *text, gssize length, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *name = g_strdup_printf (".%s.XXXXXX", base);
  g_autofree char *tmp = g_build_filename (dir, name, NULL);
  ctr_temp_lock ();
  int fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  const int e = errno;
  if (fd >= 0)
    ctr_temp_register (tmp, FALSE);
  ctr_temp_unlock ();
  if (fd < 0)
    return set_errno (error, e, "write", path);
  close (fd);
  gboolean ok = write_all (tmp, path, text, length < 0 ? strlen (text) : (gsize) length, error);
  ctr_temp_lock ();
  ok = ok && (g_rename (tmp, path) == 0 || set_errno (error, errno, "replace", path));
  if (!ok)
    g_unlink (tmp);
  ctr_temp_forget (tmp);
  ctr_temp_unlock ();
  return ok;
}

void
ctr_output_set_explain (CtrOutputSet *s, GError *error)
{
  if (s == NULL || error == NULL)
    return;
  for (guint i = 0; i < s->outputs->len; i++)
    {
      const Output *o = &g_array_index (s->outputs, Output, i);
      if (o->stage == NULL || strstr (error->message, o->stage) == NULL)
        continue;
      g_auto (GStrv) parts = g_strsplit (error->message, o->stage, -1);
      g_free (error->message);
      error->message = g_strjoinv (o->path, parts);
    }
}

gboolean
ctr_output_swap_in (const char *tmp, const char *folder, gboolean exists, GError **error)
{
  if (!exists)
    return g_rename (tmp, folder) == 0 || set_errno (error, errno, "rename the new folder to", folder);
  if (renameat2 (AT_FDCWD, tmp, AT_FDCWD, folder, RENAME_EXCHANGE) == 0)
    {
      ctr_file_remove_folder (tmp);   /* the old content, now at the temporary name */
      return TRUE;
    }
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    return set_errno (error, errno, "put the new content in place of", folder);
  /* No atomic exchange here: the old folder steps aside, then the new one
   * takes its name; on failure the old one comes back. */
  g_autofree char *parent = g_path_get_dirname (folder);
  g_autofree char *base = g_path_get_basename (folder);
  g_autofree char *old_name = g_strdup_printf (".%s.old-%d", base, (int) getpid ());
  g_autofree char *old = g_build_filename (parent, old_name, NULL);
  if (g_rename (folder, old) != 0)
    return set_errno (error, errno, "move aside the old content of", folder);
  if (g_rename (tmp, folder) != 0)
    {
      const int e = errno;
      g_rename (old, folder);
      return set_errno (error, e, "rename the new folder to", folder);
    }
  ctr_file_remove_folder (old);
  return TRUE;
}

static gboolean
commit_one (Output *o, GError **error)
{
  gboolean ok;
  if (o->kind == CTR_OUTPUT_FOLDER)
    {
      /* decided again: files put there during the run are not ours to remove */
      GStatBuf st;
      ok = ctr_dicom_export_check_folder (o->path, error)
           && ctr_output_swap_in (o->stage, o->path, g_stat (o->path, &st) == 0, error);
    }
  else
    {
      /* a file replaces a file; a dataset folder replaces only an empty one */
      if (o->kind == CTR_OUTPUT_DATASET)
        g_chmod (o->stage, 0755);
      ok = g_rename (o->stage, o->path) == 0 || set_errno (error, errno, "move the new output into", o->path);
    }
  if (ok)
    {
      ctr_temp_forget (o->stage);
      g_clear_pointer (&o->stage, g_free);
    }
  return ok;
}

gboolean
ctr_output_set_commit (CtrOutputSet *s, GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  gboolean ok = TRUE;
  ctr_temp_lock ();
  for (guint i = 0; i < s->outputs->len && ok; i++)
    {
      Output *o = &g_array_index (s->outputs, Output, i);
      if (o->stage != NULL)
        ok = commit_one (o, error);
    }
  ctr_temp_unlock ();
  return ok;  /* what was not renamed is removed by ctr_output_set_free() */
}
