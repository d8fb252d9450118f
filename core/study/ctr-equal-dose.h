/* ctr-equal-dose.h — the equal-d′ dose of a dose study: the dose at which a
 * method's detectability index d′ equals the reference method's at full
 * dose (dose 1).
 *
 * The measure is the one the literature on iterative reconstruction uses
 * for dose reduction (AAPM TG-233, Samei et al., Med. Phys. 46(11) e735,
 * 2019, for d′ of the non-prewhitening observers NPW and NPWE): a method
 * "saves" dose when it reaches the reference's d′ at a lower dose.
 *
 * Method, for one method configuration m and one observer:
 *  - The rows of every dose are averaged over their noise realisations:
 *    mean d̄(D) and standard error se(D) = s/√n (sample SD s, n >= 2
 *    realisations; unknown for n = 1).  Rows whose d′ is NaN are skipped.
 *  - The target T is the reference's mean d′ at dose 1, with its standard
 *    error se_T.  When the reference has a single realisation at dose 1
 *    (the data as they are, ctr-study.h) T is taken as a fixed number,
 *    se_T = 0: the question is then "at what dose does m match this
 *    scan's d′".
 *  - The doses of m are sorted in ascending order and the first pair of
 *    consecutive doses (D_a < D_b) whose means bracket T
 *    (d̄_a <= T <= d̄_b, or the reverse) gives the crossing, by linear
 *    interpolation of d̄ against x = ln D:
 *      t = (T − d̄_a) / (d̄_b − d̄_a),  x* = x_a + t (x_b − x_a),  D* = e^{x*}.
 *    A pair with equal means is skipped; a dose whose mean equals T
 *    exactly and that no pair brackets is its own crossing, se NaN.
 *  - Uncertainty: the standard error propagated through the interpolation
 *    to first order (delta method), treating the three means as
 *    independent:
 *      se(x*)² = (Δx/Δd)² [se_T² + (1 − t)² se_a² + t² se_b²],
 *      se(D*) = D* · se(x*),  Δx = x_b − x_a, Δd = d̄_b − d̄_a.
 *    Methods reconstruct the same noise realisations, so their d′ are
 *    positively correlated and ignoring the covariance overstates se for
 *    T against d̄; it is a first-order figure, not a confidence interval.
 *    se(D*) is NaN when a bracketing dose has a single realisation.
 *  - The reference itself crosses at dose 1 exactly, se 0.
 *  - "Not reached": no pair brackets T (m's d′ stays below the target
 *    over the doses studied; or above it at every dose, "below the lowest
 *    dose" — both are reported as CTR_EQUAL_DOSE_NOT_REACHED with
 *    @above set accordingly).
 */
#pragma once

#include <glib.h>
#include "study/ctr-study.h"

G_BEGIN_DECLS

typedef enum {
  CTR_EQUAL_DOSE_REACHED,       /* @dose is the crossing */
  CTR_EQUAL_DOSE_NOT_REACHED,   /* no pair of doses brackets the target */
  CTR_EQUAL_DOSE_NO_TARGET      /* the reference has no finite d′ at dose 1 */
} CtrEqualDoseStatus;

/* Which d′ of a row: each run's own (its TTF from its one slice), or with
 * the TTF pooled over the method and dose's realisations (the row's
 * dprime_npw_pooled, dprime_npwe_pooled; ctr_ttf_pooled).  The pooled
 * rows still differ by their own NPS, so their spread gives the pooled
 * equal-d′ dose its standard error the same way. */
typedef enum {
  CTR_EQUAL_DOSE_NPW,
  CTR_EQUAL_DOSE_NPWE,
  CTR_EQUAL_DOSE_NPW_POOLED,
  CTR_EQUAL_DOSE_NPWE_POOLED
} CtrEqualDoseObserver;

#define CTR_EQUAL_DOSE_N_OBSERVERS 4

/**
 * CtrEqualDose:
 * The equal-d′ dose of one method configuration for one observer.
 * @status: see #CtrEqualDoseStatus.
 * @target, @target_se: T and se_T (d′, dimensionless; se_T 0 for a single
 *   realisation).
 * @dose: D*, a fraction of the data's dose (NaN unless REACHED).
 * @dose_se: se(D*) (same unit; NaN when a bracketing dose has one
 *   realisation, or unless REACHED).
 * @dose_low, @dose_high: the bracketing doses D_a <= D_b (NaN unless
 *   REACHED; equal when a dose hits T exactly).
 * @above: with NOT_REACHED, TRUE when m's mean d′ exceeds T at every dose
 *   (the equal dose lies below the lowest dose studied), FALSE when it
 *   stays below T.
 * @n_min: the fewest realisations at any of m's doses (0 without rows).
 */
typedef struct {
  CtrEqualDoseStatus status;
  double target, target_se;
  double dose, dose_se;
  double dose_low, dose_high;
  gboolean above;
  guint n_min;
} CtrEqualDose;

/**
 * ctr_equal_dose_compute:
 * @rows: (array length=n_rows): a study's rows (ctr_study_get_rows); only
 *   ->dose, ->method_index and @observer's d′ (->dprime_npw, ->dprime_npwe,
 *   ->dprime_npw_pooled or ->dprime_npwe_pooled) are read, in any order.
 * @n_methods: configurations 0 … n_methods−1 (rows of others are ignored).
 * @reference: the reference configuration (< @n_methods).
 * @out: (out caller-allocates) (array length=n_methods): one result per
 *   configuration.
 * Pure, no allocation visible to the caller, prints nothing.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT when @reference >=
 *   @n_methods or @n_methods is 0.
 */
gboolean ctr_equal_dose_compute (const CtrStudyRow *rows, guint n_rows, guint n_methods, guint reference,
                                 CtrEqualDoseObserver observer, CtrEqualDose *out, GError **error);

/**
 * ctr_equal_dose_status_name:
 * "reference" (@is_reference), "reached", "not reached" (d′ below the
 * target at every dose pair), "below the lowest dose" (NOT_REACHED with
 * ->above), "no target".
 */
const char *ctr_equal_dose_status_name (const CtrEqualDose *e, gboolean is_reference);

/**
 * ctr_study_equal_dose:
 * ctr_equal_dose_compute on the study's rows with its reference
 * (ctr_study_get_reference).  @out: n_methods entries.  Not while the
 * study runs.  FALSE with the errors of ctr_study_get_reference.
 */
gboolean ctr_study_equal_dose (const CtrStudy *s, CtrEqualDoseObserver observer, CtrEqualDose *out,
                               GError **error);

/**
 * ctr_study_write_equal_dose_csv:
 * The equal-d′ dose of every configuration for NPW, NPWE, then the same
 * two with the pooled TTF (npw_pooled, npwe_pooled: additional lines after
 * the first two observers') as CSV (a header line; numbers with 6
 * significant digits, empty for NaN):
 * observer, method_index, label, reference (the reference's label),
 * target_dprime, target_se, equal_dose, equal_dose_se, dose_low, dose_high,
 * min_realisations, status (ctr_equal_dose_status_name).  Written through
 * ctr_output_write_file (temporary file, renamed).  FALSE with
 * CTR_ERROR_IO or the errors of ctr_study_get_reference.
 */
gboolean ctr_study_write_equal_dose_csv (const CtrStudy *s, const char *path, GError **error);

/* "npw", "npwe", "npw_pooled", "npwe_pooled" (the study.csv column is
 * "dprime_" and this name). */
const char *ctr_equal_dose_observer_name (CtrEqualDoseObserver o);

G_END_DECLS
