/* ctr-hu-preset.c — Hounsfield window presets (see ctr-hu-preset.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Window widths and levels are the usual radiological ones (brain W 80
 * L 40, soft tissue W 400 L 40, bone W 1800 L 400, lung W 1500 L −600).
 */
#include "ctr-hu-preset.h"

#include <math.h>

#include "ctrecon.h"

static const struct {
  const char *name;
  const char *label;
  double      width_hu;
  double      level_hu;
} presets[] = {
  { "auto", "Automatic", NAN, NAN },
  { "soft-tissue", "Soft tissue (W 400, L 40)", 400, 40 },
  { "brain", "Brain (W 80, L 40)", 80, 40 },
  { "bone", "Bone (W 1800, L 400)", 1800, 400 },
  { "lung", "Lung (W 1500, L −600)", 1500, -600 },
  { "hu", "HU (W 2000, L 0)", 2000, 0 },    /* air (−1000 HU) to dense bone (+1000 HU) */
  { "custom", "Custom (HU)", NAN, NAN },
};

guint
ctr_hu_preset_count (void)
{
  return G_N_ELEMENTS (presets);
}

const char *
ctr_hu_preset_name (guint i)
{
  return i < G_N_ELEMENTS (presets) ? presets[i].name : NULL;
}

const char *
ctr_hu_preset_label (guint i)
{
  return i < G_N_ELEMENTS (presets) ? presets[i].label : NULL;
}

int
ctr_hu_preset_find (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    if (g_strcmp0 (name, presets[i].name) == 0)
      return (int) i;
  return -1;
}

gboolean
ctr_hu_preset_is_hu (const char *name)
{
  return ctr_hu_preset_find (name) > 0;
}

gboolean
ctr_hu_preset_window (const char *name, double mu_water, double *lo, double *hi)
{
  int i = ctr_hu_preset_find (name);

  if (i < 0 || !isfinite (presets[i].width_hu) || !(mu_water > 0))
    return FALSE;
  *lo = ctr_mu_from_hu (presets[i].level_hu - presets[i].width_hu / 2, mu_water);
  *hi = ctr_mu_from_hu (presets[i].level_hu + presets[i].width_hu / 2, mu_water);
  return TRUE;
}
