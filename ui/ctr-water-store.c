/* ctr-water-store.c — per-dataset water calibrations in a key file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One group per dataset, named by the SHA-256 of its path (a path may hold
 * characters a group name cannot), with the path itself and the μ_water.
 */
#define G_LOG_DOMAIN "ctr-water-store"

#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>

#include "ctr-water-store.h"

static char *
store_path (void)
{
  return g_build_filename (g_get_user_state_dir (), "ctrecon", "water-calibration.ini", NULL);
}

static char *
group_of (const char *dataset_path)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, dataset_path, -1);
}

gboolean
ctr_water_store_lookup (const char *dataset_path, double *mu_water)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = store_path ();
  g_autofree char *group = NULL;
  g_autofree char *stored = NULL;
  double mu;

  if (dataset_path == NULL || !g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
    return FALSE;
  group = group_of (dataset_path);
  stored = g_key_file_get_string (kf, group, "path", NULL);
  if (g_strcmp0 (stored, dataset_path) != 0)
    return FALSE;
  mu = g_key_file_get_double (kf, group, "mu_water_per_mm", NULL);
  if (!(mu > 0) || !isfinite (mu))
    return FALSE;
  *mu_water = mu;
  return TRUE;
}

gboolean
ctr_water_store_save (const char *dataset_path, double mu_water, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = store_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *group = NULL;

  g_return_val_if_fail (dataset_path != NULL, FALSE);

  /* a missing or unreadable file starts afresh */
  g_key_file_load_from_file (kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  group = group_of (dataset_path);
  if (mu_water > 0 && isfinite (mu_water))
    {
      g_key_file_set_string (kf, group, "path", dataset_path);
      g_key_file_set_double (kf, group, "mu_water_per_mm", mu_water);
    }
  else
    g_key_file_remove_group (kf, group, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "Cannot create %s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  return g_key_file_save_to_file (kf, path, error);
}
