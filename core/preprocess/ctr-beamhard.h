/* ctr-beamhard.h — beam-hardening water pre-correction: polynomial
 * linearisation of the line integrals (Herman 1979, "Correction for beam
 * hardening in computed tomography", Phys. Med. Biol. 24(1):81-106).
 *
 * A polychromatic beam through water gives line integrals p that grow
 * slower than the water path L (base/ctr-spectrum.h); FBP of them shows a
 * water cylinder darker in its centre than at its edge (cupping).  The
 * correction maps every line integral through a polynomial without a
 * constant term,
 *
 *     p' = a₁ p + a₂ p² + … + a_d p^d,
 *
 * that makes water's line integrals linear in L again: p' ≈ μ·L.  The
 * coefficients are stated, or fitted here from a stated spectrum: least
 * squares of μ·L against p(L) over 256 water paths L evenly spaced from 0 to
 * the path whose p(L) equals the data's largest line integral, μ the
 * spectrum's mean μ_water (then a₁ ≈ 1 and thin objects are left alone) or
 * stated (e.g. CTR_MU_WATER_PER_MM, 0.0192 /mm, for water at 0 HU).
 * Only water is linearised: bone and metal keep their own beam hardening.
 *
 * The step of the "preprocess" pipeline (preprocess/ctr-preprocess.h):
 *   { "op": "beam-hardening", "coefficients": [a1, a2, a3] }
 *   { "op": "beam-hardening", "spectrum": "120kvp" | {"energies_kev": […], "fluence": […]},
 *     "degree": 3, "mu_per_mm": 0.0192 }
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "base/ctr-spectrum.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

#define CTR_BEAMHARD_DEFAULT_DEGREE 3
#define CTR_BEAMHARD_MAX_DEGREE 6

/**
 * CtrBeamhard:
 * Either @n_coefficients > 0 stated @coefficients (a₁…a_d, owned), or a
 * @spectrum (owned) to fit a polynomial of @degree (1 to 6) that maps its
 * water line integrals onto @mu_per_mm·L (@mu_per_mm 0 = the spectrum's
 * mean μ_water).
 */
typedef struct {
  guint n_coefficients;
  double *coefficients;
  CtrSpectrum *spectrum;
  int degree;
  double mu_per_mm;
} CtrBeamhard;

void ctr_beamhard_free (CtrBeamhard *bh);

/**
 * ctr_beamhard_from_json:
 * @o: the step's object ("op" is not looked at; every other member must be
 *   "coefficients", "spectrum", "degree" or "mu_per_mm").
 * @what: how messages name the step, e.g. "geometry.json: “preprocess” step 2 (“beam-hardening”)".
 * Returns: (transfer full): the parameters, or NULL with CTR_ERROR_FORMAT
 *   naming the key: an unknown key, neither or both of "coefficients" and
 *   "spectrum", empty or non-numeric coefficients (1 to 6 of them), a
 *   degree that is not an integer 1 to 6, a "mu_per_mm" that is not a
 *   positive number, "degree" or "mu_per_mm" without "spectrum", a bad
 *   spectrum (ctr_spectrum_from_json).
 */
CtrBeamhard *ctr_beamhard_from_json (JsonObject *o, const char *what, GError **error);

/**
 * ctr_spectrum_from_json:
 * @node: a string (a built-in name, ctr_spectrum_builtin) or an object
 *   {"energies_kev": [E…], "fluence": [w…], "description": "…"}: equal
 *   lengths 1 to 256, energies in [10, 150] keV, relative photon fluences ≥ 0.
 * @where: prefix of messages.
 * Returns: (transfer full): the spectrum, or NULL with CTR_ERROR_FORMAT
 *   naming the key.
 */
CtrSpectrum *ctr_spectrum_from_json (JsonNode *node, const char *where, GError **error);

/* A built-in name, or the path of a .json file holding what
 * ctr_spectrum_from_json() reads.  Errors: the reader's or CTR_ERROR_FORMAT. */
CtrSpectrum *ctr_spectrum_load (const char *arg, GError **error);

/**
 * ctr_beamhard_fit:
 * Fits a₁…a_@degree (written to @coefficients, room for @degree) so that
 * Σ aₙ p(L)ⁿ ≈ @mu_per_mm·L for water paths L in [0, L_max],
 * p(L_max) = @p_max (> 0; the largest line integral to correct).
 * @max_error: (out) (optional): the largest |fit − μL| over the samples, in
 *   line-integral units.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT when @p_max is beyond
 *   what the spectrum can give (its hardest energy's μ·1e4 mm) or the
 *   fit is singular.
 */
gboolean ctr_beamhard_fit (const CtrSpectrum *s, double mu_per_mm, int degree, double p_max,
                           double *coefficients, double *max_error, GError **error);

/**
 * ctr_beamhard_solve:
 * Solves the @n × @n system @a x = @b (row-major) in place by Gaussian
 * elimination with partial pivoting: x is left in @b, @a is overwritten.
 * Returns: FALSE when the system is singular.
 */
gboolean ctr_beamhard_solve (double *a, double *b, int n);

/**
 * ctr_beamhard_run:
 * Corrects the line integrals of @p ([view][row][col], in place) with
 * @bh's stated or fitted polynomial (dead pixels, @p->mask 0, untouched).
 * Returns: (transfer full): one sentence for the dataset's warnings (the
 *   coefficients, where they came from, the largest change), or NULL with
 *   CTR_ERROR_INVALID_DATA (counts, not line integrals; a non-finite value)
 *   or the fit's error.
 */
char *ctr_beamhard_run (const CtrBeamhard *bh, CtrProjections *p, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrBeamhard, ctr_beamhard_free)

G_END_DECLS
