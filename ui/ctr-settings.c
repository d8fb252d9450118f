/* ctr-settings.c — see ctr-settings.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-settings"

#include "ctr-settings.h"

/* EXE_DIR/../resources, where the build compiles the schema; NULL when the
 * program does not run from a build folder. */
static char *
build_schema_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  if (exe == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (exe);
  g_autofree char *res = g_build_filename (dir, "..", "resources", NULL);
  g_autofree char *compiled = g_build_filename (res, "gschemas.compiled", NULL);
  return g_file_test (compiled, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&res) : NULL;
}

GSettingsSchema *
ctr_settings_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  GSettingsSchema *schema = source != NULL ? g_settings_schema_source_lookup (source, CTR_SETTINGS_SCHEMA_ID, TRUE)
                                           : NULL;
  if (schema != NULL)
    return schema;
  g_autofree char *dir = build_schema_dir ();
  if (dir == NULL)
    return NULL;
  g_autoptr(GSettingsSchemaSource) built = g_settings_schema_source_new_from_directory (dir, source, FALSE, NULL);
  return built != NULL ? g_settings_schema_source_lookup (built, CTR_SETTINGS_SCHEMA_ID, FALSE) : NULL;
}

GSettings *
ctr_settings_new (void)
{
  g_autoptr(GSettingsSchema) schema = ctr_settings_schema ();
  return schema != NULL ? g_settings_new_full (schema, NULL, NULL) : NULL;
}

const char *
ctr_backend_label (const char *name)
{
  static const char *const names[] = { "best", "cpu", "cuda", "cusparse" };
  static const char *const labels[] = { "Best available", "CPU (OpenMP)", "CUDA", "cuSPARSE" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      return labels[i];
  return name;
}
