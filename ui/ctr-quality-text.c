/* ctr-quality-text.c — quality figures written the same way on every page.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include "ctr-quality-text.h"

char *
ctr_quality_text_rmse (double rmse, const char *unit, double mu_water)
{
  if (!isfinite (rmse))
    return g_strdup ("–");
  if (g_strcmp0 (unit, "1/mm") == 0 && mu_water > 0)
    return g_strdup_printf ("%.1f HU (%.3g /mm)", 1000.0 * rmse / mu_water, rmse);
  return g_strdup_printf ("%.3g %s", rmse, unit != NULL ? unit : "");
}

char *
ctr_quality_text_mask (double radius_mm)
{
  if (radius_mm > 0)
    return g_strdup_printf ("field-of-view disc, r %.1f mm", radius_mm);
  return g_strdup ("whole image");
}
