/* ctr-application.h — the GUI application: windows and accelerators.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CTR_TYPE_APPLICATION (ctr_application_get_type ())

G_DECLARE_FINAL_TYPE (CtrApplication, ctr_application, CTR, APPLICATION, AdwApplication)

CtrApplication *ctr_application_new (void);

G_END_DECLS
