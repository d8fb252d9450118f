/* ctr-settings.h — the window's settings (GSettings schema
 * org.ctrecon.CtRecon) and the names it shows for backends.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define CTR_SETTINGS_SCHEMA_ID "org.ctrecon.CtRecon"

/* The schema: the installed one (or $GSETTINGS_SCHEMA_DIR's), else the one
 * compiled in the build folder beside an uninstalled program
 * (EXE_DIR/../resources/gschemas.compiled: build/app/ctrecon as the README
 * runs it).  Returns: (transfer full) (nullable): NULL when neither has it. */
GSettingsSchema *ctr_settings_schema (void);

/* Settings on ctr_settings_schema(); (transfer full) (nullable): NULL
 * without a schema (nothing is kept). */
GSettings       *ctr_settings_new    (void);

/* The name the window shows for backend @name ("best", "cpu", "cuda",
 * "cusparse"; another name is shown as it is): one name on the Run page
 * and in Preferences. */
const char      *ctr_backend_label   (const char *name);

G_END_DECLS
