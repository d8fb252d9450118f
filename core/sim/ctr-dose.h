/* ctr-dose.h — a scan at a lower dose, simulated from the data themselves.
 *
 * A scan at a fraction F of the dose delivers F times the photons: every
 * detector bin's open beam O becomes F·O.  Two exact ways to get there:
 *
 *  - Binomial thinning of measured counts.  If N ~ Poisson(λ) and each
 *    detected photon is kept with probability F, the kept count
 *    N' | N ~ Binomial(N, F) is exactly Poisson(F·λ) (the thinning property
 *    of the Poisson distribution).  Simulating a lower dose from raw data by
 *    adding noise goes back to e.g. Massoumzadeh et al. 2009 (Med. Phys.
 *    36(1)), who add it in a Gaussian approximation; thinning is its exact,
 *    integer form.  This needs the measured counts: raw counts with
 *    flat/dark (N = I − dark, rounded to a whole count), or line integrals b
 *    of a Poisson scan at a known I0 (N = I0·exp(−b), rounded; exact when
 *    the file kept enough digits).
 *
 *  - Poisson re-sampling of noiseless line integrals at a known I0:
 *    N' ~ Poisson(F·I0·exp(−b)).  Exact when b are the expected values
 *    (a simulation without noise); on data that already carry noise the
 *    result carries that noise too, so AUTO uses it only for data whose
 *    sinogram looks noiseless.
 *
 * Either way the new line integrals are b' = −ln(N'/(F·O)), with the same rule
 * as the loader (ctr_projections_to_line_integrals) for a bin left without a
 * count: N' <= 0 counts as half a photon, b' = −ln(0.5/(F·O)).  Optional
 * Gaussian electronic noise of σₑ counts is added to N' before the logarithm
 * (on top of whatever electronic noise the data already hold).
 * Deterministic for a given seed (one random stream per view, whatever the
 * number of threads).
 */
#pragma once

#include <glib.h>
#include "data/ctr-projections.h"

G_BEGIN_DECLS

typedef enum {
  /* Thinning when the data hold counts (flat/dark fields, whole counts
   * behind the line integrals, or a sinogram whose noise matches I0 — see
   * ctr_dose_simulate), else Poisson re-sampling. */
  CTR_DOSE_MODEL_AUTO,
  CTR_DOSE_MODEL_THIN,      /* binomial thinning of the (recovered) counts */
  CTR_DOSE_MODEL_RESAMPLE   /* Poisson re-sampling of the line integrals */
} CtrDoseModel;

/**
 * CtrDoseOptions:
 * @fraction: F, the new dose over the data's dose: (0, 1] for thinning; any
 *   F > 0 for re-sampling (F > 1 simulates a higher dose of a noiseless scan).
 * @electronic_sd: σₑ, standard deviation of Gaussian electronic noise added
 *   to every simulated count, in counts (>= 0).
 * @seed: random seed.
 * @i0: open-beam photons per bin of the input, for data that state none
 *   (line integrals without "I0"); 0 = use what the data state.
 * @model: see #CtrDoseModel.
 */
typedef struct {
  double fraction;
  double electronic_sd;
  guint64 seed;
  double i0;
  CtrDoseModel model;
} CtrDoseOptions;

/* F = 1, σₑ = 0, seed 1, i0 0, AUTO. */
void ctr_dose_options_init (CtrDoseOptions *o);

/**
 * CtrDoseReport:
 * @model: the model used (never AUTO).
 * @i0_in: mean open-beam photons per bin of the input (over valid pixels).
 * @i0_out: F·@i0_in.
 * @i0_sinogram: the input's effective I0 estimated from its sinogram
 *   (ctr_noise_estimate_i0; NaN when it cannot be computed).
 * @n_zero: rays left with no count (N' <= 0).
 * @reason: (transfer full): one sentence: why this model.
 * @warning: (transfer full) (nullable): set when the sinogram's noise
 *   disagrees with the stated counts by more than a factor 2 (@i0_sinogram
 *   vs @i0_in) although the model assumes them: counts that are not photons
 *   (a detector gain other than 1) or a wrong I0 make the new dose only
 *   approximately F × the old one.
 * Free the strings with ctr_dose_report_clear().
 */
typedef struct {
  CtrDoseModel model;
  double i0_in;
  double i0_out;
  double i0_sinogram;
  gsize n_zero;
  char *reason;
  char *warning;
} CtrDoseReport;

void ctr_dose_report_clear (CtrDoseReport *r);

/* "auto", "thin", "resample". */
const char *ctr_dose_model_name (CtrDoseModel m);
/* CTR_ERROR_INVALID_ARGUMENT naming the choices. */
gboolean ctr_dose_model_from_name (const char *name, CtrDoseModel *out, GError **error);

/**
 * ctr_dose_simulate:
 * @p: the data as ctr_dataset_load() returns them: line integrals
 *   [view][row][col] with the statistics they state (->flat, ->dark, ->i0,
 *   ->mask); raw counts are converted on a copy first.  Not modified.
 * @options: see #CtrDoseOptions.
 * @report: (out) (optional): what was done; clear with ctr_dose_report_clear().
 * @counts_out: (out) (optional) (transfer full): the simulated counts N'
 *   (after electronic noise, before the half-count rule), float
 *   [view][row][col] (g_free); 0 for dead pixels.
 *
 * AUTO chooses, in this order: (1) thinning when the data came as raw counts
 * (a flat or a dark field is present); (2) thinning when I0·exp(−b) is a
 * whole number (within float32 rounding) for at least 99.9 % of the valid
 * rays: the line integrals of a Poisson scan kept with full precision;
 * (3) thinning of the rounded counts when the sinogram's effective I0
 * (ctr_noise_estimate_i0) is below 2·I0: the data carry the noise of a scan
 * at I0 (e.g. DICOM values quantised by a rescale slope); (4) otherwise
 * Poisson re-sampling: the sinogram is far less noisy than I0 implies, i.e.
 * noiseless.
 *
 * Returns: (transfer full): line integrals at F × the dose with the
 *   statistics a later step needs: ->i0 = F·I0 (when an I0 is known), ->flat
 *   = F·(flat − dark) and no dark (when the data have a flat), ->mask
 *   copied; or NULL with CTR_ERROR_INVALID_ARGUMENT (F or σₑ out of range,
 *   F > 1 for thinning, @options->i0 disagreeing with the data's I0),
 *   CTR_ERROR_INVALID_DATA (neither counts nor I0 known: the dose of the data
 *   is unknown, so no lower dose can be simulated; or non-finite values),
 *   CTR_ERROR_OUT_OF_MEMORY.
 */
CtrProjections *ctr_dose_simulate (const CtrProjections *p, const CtrDoseOptions *options,
                                   CtrDoseReport *report, float **counts_out, GError **error);

G_END_DECLS
