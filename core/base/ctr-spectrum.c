/* ctr-spectrum.c — stated spectra and water's attenuation (see ctr-spectrum.h). */
#include "base/ctr-spectrum.h"
#include "base/ctr-error.h"

#include <math.h>

/* NIST X-Ray Mass Attenuation Coefficients (Hubbell & Seltzer, NISTIR 5632),
 * water (liquid): μ/ρ in cm²/g with coherent scattering. */
static const double water_kev[] = { 10, 15, 20, 30, 40, 50, 60, 80, 100, 150 };
static const double water_mu_rho[] = { 5.329, 1.673, 0.8096, 0.3756, 0.2683, 0.2269, 0.2059, 0.1837, 0.1707, 0.1505 };
#define WATER_N G_N_ELEMENTS (water_kev)
#define WATER_DENSITY_G_CM3 1.0

/* "120kvp": Kramers (120 − E)/E × exp(−μ_Al(E)·0.25 cm), μ_Al from the same
 * NIST tables (aluminium, ρ 2.699 g/cm³) interpolated log-log, normalised;
 * rounded to 4 decimals.  Its mean μ_water is 0.0295 /mm. */
static const double kvp120_kev[] = { 20, 30, 40, 50, 60, 70, 80, 90, 100, 110 };
static const double kvp120_w[] = { 0.0724, 0.2068, 0.2011, 0.1612, 0.1224, 0.0900, 0.0644, 0.0434, 0.0263, 0.0120 };

void
ctr_spectrum_free (CtrSpectrum *s)
{
  if (s == NULL)
    return;
  g_free (s->name);
  g_free (s->energy_kev);
  g_free (s->weight);
  g_free (s);
}

double
ctr_water_mu_per_mm (double kev)
{
  kev = CLAMP (kev, CTR_SPECTRUM_MIN_KEV, CTR_SPECTRUM_MAX_KEV);
  guint i = 0;
  while (i + 2 < WATER_N && kev > water_kev[i + 1])
    i++;
  const double t = (log (kev) - log (water_kev[i])) / (log (water_kev[i + 1]) - log (water_kev[i]));
  const double lm = (1 - t) * log (water_mu_rho[i]) + t * log (water_mu_rho[i + 1]);
  return exp (lm) * WATER_DENSITY_G_CM3 / 10.0;   /* 1/cm → 1/mm */
}

CtrSpectrum *
ctr_spectrum_new (const char *name, guint n, const double *e, const double *w, GError **error)
{
  if (n < 1 || n > CTR_SPECTRUM_MAX_BINS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "“energies_kev” must hold 1 to %d energies, got %u", CTR_SPECTRUM_MAX_BINS, n);
      return NULL;
    }
  double sum = 0;
  for (guint k = 0; k < n; k++)
    {
      if (!(e[k] >= CTR_SPECTRUM_MIN_KEV && e[k] <= CTR_SPECTRUM_MAX_KEV))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "“energies_kev” %g is outside the water table's %g to %g keV",
                       e[k], CTR_SPECTRUM_MIN_KEV, CTR_SPECTRUM_MAX_KEV);
          return NULL;
        }
      if (!(w[k] >= 0) || !isfinite (w[k]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "“fluence” %g is not a finite number ≥ 0", w[k]);
          return NULL;
        }
      sum += w[k];
    }
  if (!(sum > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "every “fluence” is 0");
      return NULL;
    }
  CtrSpectrum *s = g_new0 (CtrSpectrum, 1);
  s->name = g_strdup (name);
  s->n = n;
  s->energy_kev = g_memdup2 (e, n * sizeof (double));
  s->weight = g_memdup2 (w, n * sizeof (double));
  for (guint k = 0; k < n; k++)
    s->weight[k] /= sum;
  return s;
}

CtrSpectrum *
ctr_spectrum_builtin (const char *name, GError **error)
{
  if (name != NULL && g_str_equal (name, "120kvp"))
    return ctr_spectrum_new ("120kvp", G_N_ELEMENTS (kvp120_kev), kvp120_kev, kvp120_w, error);
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "unknown built-in spectrum “%s” (120kvp)", name ? name : "");
  return NULL;
}

double
ctr_spectrum_mean_mu_water (const CtrSpectrum *s)
{
  double m = 0;
  for (guint k = 0; k < s->n; k++)
    m += s->weight[k] * ctr_water_mu_per_mm (s->energy_kev[k]);
  return m;
}

double
ctr_spectrum_water_line_integral (const CtrSpectrum *s, double length_mm)
{
  /* factor out the least attenuated energy so the sum never underflows */
  double mu_min = INFINITY;
  for (guint k = 0; k < s->n; k++)
    if (s->weight[k] > 0)
      mu_min = MIN (mu_min, ctr_water_mu_per_mm (s->energy_kev[k]));
  double sum = 0;
  for (guint k = 0; k < s->n; k++)
    sum += s->weight[k] * exp (-(ctr_water_mu_per_mm (s->energy_kev[k]) - mu_min) * length_mm);
  return mu_min * length_mm - log (sum);
}
