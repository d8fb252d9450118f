/* ctr-spectrum.h — a stated X-ray spectrum and water's attenuation over it:
 * polychromatic line integrals of water (beam hardening) for the simulator
 * and for the beam-hardening water pre-correction (preprocess/ctr-beamhard.h).
 *
 * A spectrum is a handful of energies E_k (keV) with relative photon
 * fluences w_k (normalised here to Σ w_k = 1; detector response taken as
 * photon counting, i.e. constant).  A water path of L mm then gives the
 * polychromatic line integral
 *
 *     p(L) = −ln Σ_k w_k exp(−μ_water(E_k) · L),
 *
 * which bends below the straight line μ̄·L (μ̄ = Σ w_k μ_water(E_k)) as L
 * grows: the low energies are absorbed first.  That is the cupping of a
 * water cylinder (Brooks & Di Chiro 1976; Herman 1979).
 *
 * μ_water(E): NIST X-Ray Mass Attenuation Coefficients, water (liquid),
 * total μ/ρ with coherent scattering, as XCOM computes it (Hubbell &
 * Seltzer, NISTIR 5632, 1995), at 10, 15, 20, 30, 40, 50, 60, 80, 100 and
 * 150 keV, density 1.0 g/cm³; interpolated log-log in between.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The energy range (keV) of the water table: spectra must lie inside it. */
#define CTR_SPECTRUM_MIN_KEV 10.0
#define CTR_SPECTRUM_MAX_KEV 150.0
#define CTR_SPECTRUM_MAX_BINS 256

/**
 * CtrSpectrum:
 * @name: (owned) a built-in name or "stated" for a spectrum given inline or in a file.
 * @n: number of energies (1 to CTR_SPECTRUM_MAX_BINS).
 * @energy_kev: (owned) @n energies in keV, each in [10, 150].
 * @weight: (owned) @n relative photon fluences, ≥ 0, normalised to sum 1.
 */
typedef struct {
  char *name;
  guint n;
  double *energy_kev;
  double *weight;
} CtrSpectrum;

void ctr_spectrum_free (CtrSpectrum *s);

/* μ of water (1/mm) at @kev (10 to 150 keV; clamped outside), NIST table
 * interpolated log-log (see the file comment). */
double ctr_water_mu_per_mm (double kev);

/**
 * ctr_spectrum_builtin:
 * @name: "120kvp": an approximate 120 kVp tube spectrum at 20, 30, …, 110 keV
 *   (10 keV bins): Kramers' thick-target law, photon fluence ∝ (120 − E)/E,
 *   filtered by 2.5 mm of aluminium (NIST μ/ρ of Al, ρ 2.699 g/cm³);
 *   characteristic lines and the anode's self-filtration are left out.  Not
 *   a measured spectrum: a plausible shape for a beam-hardening test.
 * Returns: (transfer full): the spectrum, or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT naming the built-in spectra.
 */
CtrSpectrum *ctr_spectrum_builtin (const char *name, GError **error);

/**
 * ctr_spectrum_new:
 * @name: the name kept in the spectrum ("stated" for one given by the user).
 * @n: 1 to CTR_SPECTRUM_MAX_BINS energies; @energy_kev each in [10, 150];
 *   @fluence each ≥ 0, not all 0 (copied, then normalised).
 * Returns: (transfer full): the spectrum, or NULL with
 *   CTR_ERROR_INVALID_ARGUMENT naming the offending value ("energies_kev" or
 *   "fluence", the keys of the JSON form, preprocess/ctr-beamhard.h).
 */
CtrSpectrum *ctr_spectrum_new (const char *name, guint n, const double *energy_kev, const double *fluence,
                               GError **error);

/* μ̄ = Σ w_k μ_water(E_k) (1/mm): the slope of p(L) at L = 0. */
double ctr_spectrum_mean_mu_water (const CtrSpectrum *s);

/* p(L) = −ln Σ w_k exp(−μ_water(E_k)·L) for a water path of @length_mm ≥ 0. */
double ctr_spectrum_water_line_integral (const CtrSpectrum *s, double length_mm);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrSpectrum, ctr_spectrum_free)

G_END_DECLS
