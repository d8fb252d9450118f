/* ctr-hu.h — Hounsfield units: the one definition of μ_water.
 *
 * HU = 1000 · (μ − μ_water) / μ_water (docs/design.md §3), μ in 1/mm.  The
 * project's default μ_water is 0.0192 /mm (water at about 70 keV; the value
 * ../shared/data/FORMAT.md uses to turn the head CT's HU into attenuation).
 * Every HU conversion in the code uses CTR_MU_WATER_PER_MM unless the data's
 * calibration or the user gives another μ_water.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define CTR_MU_WATER_PER_MM 0.0192

/* HU of attenuation @mu (1/mm) with @mu_water (1/mm, > 0). */
static inline double
ctr_hu_from_mu (double mu, double mu_water)
{
  return 1000.0 * (mu - mu_water) / mu_water;
}

/* Attenuation (1/mm) of @hu with @mu_water (1/mm). */
static inline double
ctr_mu_from_hu (double hu, double mu_water)
{
  return mu_water * (1.0 + hu / 1000.0);
}

G_END_DECLS
