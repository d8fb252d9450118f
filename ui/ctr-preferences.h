/* ctr-preferences.h — the Preferences window (org.ctrecon.CtRecon).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* A new Preferences window transient for @parent (nullable): the method,
 * iterations and backend a new window starts with (GSettings; without the
 * schema installed the rows say so and are insensitive) and where the
 * system matrices are cached.  Not yet presented. */
GtkWindow *ctr_preferences_window_new (GtkWindow *parent);

G_END_DECLS
