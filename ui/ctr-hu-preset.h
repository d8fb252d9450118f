/* ctr-hu-preset.h — Hounsfield window presets: the table the window's
 * drop-downs show and the windows they set on images in 1/mm.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The drop-down's entries, in order: "auto" (Automatic: the slice's robust
 * range, shown in the image's unit), the Hounsfield presets "soft-tissue"
 * (W 400 L 40), "brain" (W 80 L 40), "bone" (W 1800 L 400), "lung"
 * (W 1500 L −600), "hu" (W 2000 L 0), then "custom" (a window the user
 * dragged, still shown in HU). */
guint        ctr_hu_preset_count   (void);
/* The name of entry @i ("auto", …, "custom"); NULL past the end. */
const char  *ctr_hu_preset_name    (guint        i);
/* The label of entry @i ("Brain (W 80, L 40)"); NULL past the end. */
const char  *ctr_hu_preset_label   (guint        i);
/* The entry named @name, or -1. */
int          ctr_hu_preset_find    (const char  *name);
/* Whether entry @name shows values in HU (every entry but "auto"). */
gboolean     ctr_hu_preset_is_hu   (const char  *name);
/**
 * ctr_hu_preset_window:
 * The window [@lo, @hi] in 1/mm of Hounsfield preset @name with
 * μ = μ_water (1 + HU/1000) (core/base/ctr-hu.h), @mu_water in 1/mm (> 0).
 * Returns: FALSE for "auto", "custom" and unknown names (nothing written).
 */
gboolean     ctr_hu_preset_window  (const char  *name,
                                    double       mu_water,
                                    double      *lo,
                                    double      *hi);

G_END_DECLS
