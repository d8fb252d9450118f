/* ctr-dose.c — lower-dose scans by binomial thinning or Poisson re-sampling
 * (see ctr-dose.h for the model and the sources). */
#include "sim/ctr-dose.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "data/ctr-noise.h"
#include "base/ctr-random.h"

#include <math.h>
#include <string.h>

/* AUTO rule (3): a sinogram whose effective I0 is below this multiple of
 * the stated I0 carries the noise of a scan at I0 (its estimate lands within
 * a few per cent of I0, ctr-noise.h); a noiseless one lands orders of
 * magnitude above. */
#define NOISY_I0_RATIO 2.0
/* AUTO rule (2): share of valid rays whose I0·exp(−b) must be whole. */
#define WHOLE_SHARE 0.999

void
ctr_dose_options_init (CtrDoseOptions *o)
{
  g_return_if_fail (o != NULL);
  memset (o, 0, sizeof *o);
  o->fraction = 1.0;
  o->seed = 1;
  o->model = CTR_DOSE_MODEL_AUTO;
}

void
ctr_dose_report_clear (CtrDoseReport *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->reason, g_free);
  g_clear_pointer (&r->warning, g_free);
}

static const char *const model_names[] = { "auto", "thin", "resample" };

const char *
ctr_dose_model_name (CtrDoseModel m)
{
  return (guint) m < G_N_ELEMENTS (model_names) ? model_names[m] : "unknown";
}

gboolean
ctr_dose_model_from_name (const char *name, CtrDoseModel *out, GError **error)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (model_names); i++)
    if (g_str_equal (name, model_names[i]))
      {
        *out = (CtrDoseModel) i;
        return TRUE;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "unknown dose model “%s” (auto, thin or resample)", name ? name : "");
  return FALSE;
}

/* Share of the valid rays whose recovered count open·exp(−b) is a whole
 * number within the rounding of a float32 b (|δb| <= |b|·2⁻²⁴, doubled). */
static double
whole_share (const CtrProjections *p, const double *open)
{
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  gsize n = 0, whole = 0;
#pragma omp parallel for schedule(static) reduction(+:n, whole)
  for (guint v = 0; v < p->n_views; v++)
    {
      const float *b = ctr_projections_view (p, v);
      for (gsize i = 0; i < plane; i++)
        {
          if (!(open[i] > 0))
            continue;
          double nb = open[i] * exp (-(double) b[i]);
          double tol = 0.01 + nb * fabs ((double) b[i]) * 0x1p-23;
          n++;
          whole += fabs (nb - nearbyint (nb)) <= tol;
        }
    }
  return n > 0 ? (double) whole / n : 0.0;
}

/* Picks the model for AUTO; @reason gets one sentence. */
static CtrDoseModel
choose_model (const CtrProjections *p, const double *open, gboolean raw_counts, double i0_in,
              double i0_sinogram, char **reason)
{
  if (raw_counts)
    {
      *reason = g_strdup ("the data are raw counts (flat/dark fields): binomial thinning of the "
                          "measured counts");
      return CTR_DOSE_MODEL_THIN;
    }
  double share = whole_share (p, open);
  if (share >= WHOLE_SHARE)
    {
      *reason = g_strdup_printf ("I0·exp(−b) is a whole count on %.2f %% of the rays: the line "
                                 "integrals of measured counts at I0 = %g, thinned binomially",
                                 100 * share, i0_in);
      return CTR_DOSE_MODEL_THIN;
    }
  if (isfinite (i0_sinogram) && i0_sinogram < NOISY_I0_RATIO * i0_in)
    {
      *reason = g_strdup_printf ("the sinogram's noise (effective I0 %.4g) is that of a scan at "
                                 "I0 = %g: binomial thinning of the rounded counts I0·exp(−b)",
                                 i0_sinogram, i0_in);
      return CTR_DOSE_MODEL_THIN;
    }
  *reason = g_strdup_printf ("the sinogram is far less noisy (effective I0 %.4g) than I0 = %g "
                             "implies, i.e. noiseless: Poisson re-sampling at F·I0",
                             i0_sinogram, i0_in);
  return CTR_DOSE_MODEL_RESAMPLE;
}

CtrProjections *
ctr_dose_simulate (const CtrProjections *p, const CtrDoseOptions *options, CtrDoseReport *report,
                   float **counts_out, GError **error)
{
  g_return_val_if_fail (p != NULL && options != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  const CtrDoseOptions o = *options;
  if (report != NULL)
    memset (report, 0, sizeof *report);
  if (counts_out != NULL)
    *counts_out = NULL;

  if (!(isfinite (o.fraction) && o.fraction > 0) || !(isfinite (o.electronic_sd) && o.electronic_sd >= 0)
      || !(isfinite (o.i0) && o.i0 >= 0) || (guint) o.model > CTR_DOSE_MODEL_RESAMPLE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "dose fraction %g, electronic noise %g counts, I0 %g: the fraction must be "
                   "positive, the electronic noise and I0 at least 0",
                   o.fraction, o.electronic_sd, o.i0);
      return NULL;
    }

  /* Line integrals with their statistics; the option's I0 where the data state none. */
  g_autoptr (CtrProjections) in = ctr_projections_copy (p, error);
  if (in == NULL)
    return NULL;
  const gboolean raw_counts = p->flat != NULL || p->dark != NULL || p->kind == CTR_PROJ_COUNTS;
  const gboolean data_i0 = isfinite (p->i0) && p->i0 > 0;
  if (o.i0 > 0 && data_i0 && fabs (o.i0 - p->i0) > 1e-9 * p->i0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the data state I0 = %g photons per bin; the given I0 = %g disagrees", p->i0, o.i0);
      return NULL;
    }
  if (o.i0 > 0 && !data_i0)
    in->i0 = o.i0;
  if (!ctr_projections_to_line_integrals (in, error) || !ctr_projections_check_finite (in, error))
    return NULL;
  g_autoptr (GError) open_error = NULL;
  g_autofree double *open = ctr_projections_open_beam (in, &open_error);
  if (open_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&open_error));
      return NULL;
    }
  if (open == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "the dose of these data is unknown: they hold line integrals without the open-beam "
                   "photon count I0 and no raw counts (flat/dark), so a lower dose cannot be simulated; "
                   "state I0 (the \"I0\" key of geometry.json, or the I0 of the dose options)");
      return NULL;
    }
  const gsize plane = (gsize) in->n_rows * in->n_cols;
  double i0_sum = 0;
  gsize n_valid = 0;
  for (gsize i = 0; i < plane; i++)
    if (open[i] > 0)
      {
        i0_sum += open[i];
        n_valid++;
      }
  if (n_valid == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "no detector pixel has a positive open beam (flat − dark or I0)");
      return NULL;
    }
  const double i0_in = i0_sum / n_valid;
  const double i0_sinogram = ctr_noise_estimate_i0 (in, NULL);

  g_autofree char *reason = NULL;
  CtrDoseModel model = o.model;
  if (model == CTR_DOSE_MODEL_AUTO)
    model = choose_model (in, open, raw_counts, i0_in, i0_sinogram, &reason);
  else
    reason = g_strdup_printf ("%s, as asked", model == CTR_DOSE_MODEL_THIN
                              ? "binomial thinning of the counts" : "Poisson re-sampling at F·I0");
  if (model == CTR_DOSE_MODEL_THIN && o.fraction > 1.0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "dose fraction %g: thinning the measured counts can only lower the dose "
                   "(a fraction in (0, 1]); only a noiseless scan can be re-sampled at a higher dose",
                   o.fraction);
      return NULL;
    }

  g_autoptr (CtrProjections) out = ctr_projections_new (in->n_views, in->n_rows, in->n_cols,
                                                        CTR_PROJ_LINE_INTEGRALS, error);
  if (out == NULL)
    return NULL;
  g_autofree float *counts = counts_out != NULL ? g_try_malloc_n (plane * in->n_views, sizeof (float)) : NULL;
  if (counts_out != NULL && counts == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate the simulated counts");
      return NULL;
    }
  /* the new scan's open beam (raw counts) and dead-pixel mask: a plane each */
  if (raw_counts
      && (out->flat = ctr_memory_try_new (plane, sizeof (float), FALSE, "the new scan's flat field", error)) == NULL)
    return NULL;
  if (in->mask != NULL)
    {
      if ((out->mask = ctr_memory_try_new (plane, 1, FALSE, "the new scan's dead-pixel mask", error)) == NULL)
        return NULL;
      memcpy (out->mask, in->mask, plane);
    }

  const double F = o.fraction, sigma_e = o.electronic_sd;
  gsize n_zero = 0;
#pragma omp parallel for schedule(static) reduction(+:n_zero)
  for (guint v = 0; v < in->n_views; v++)
    {
      CtrRng rng;
      ctr_rng_init (&rng, o.seed, v);
      const float *b = ctr_projections_view (in, v);
      float *d = ctr_projections_view (out, v);
      float *c = counts != NULL ? counts + (gsize) v * plane : NULL;
      for (gsize i = 0; i < plane; i++)
        {
          if (!(open[i] > 0))
            {
              d[i] = b[i];   /* dead pixel: kept as filled, ignored by the solvers */
              if (c != NULL)
                c[i] = 0.0f;
              continue;
            }
          const double expected = open[i] * exp (-(double) b[i]);
          double n = model == CTR_DOSE_MODEL_THIN
            ? ctr_rng_binomial (&rng, nearbyint (expected), F)
            : ctr_rng_poisson (&rng, F * expected);
          if (sigma_e > 0)
            n += sigma_e * ctr_rng_normal (&rng);
          if (c != NULL)
            c[i] = (float) n;
          if (!(n > 0))
            {
              n_zero++;
              n = 0.5;   /* the loader's rule: half a photon */
            }
          d[i] = (float) -log (n / (F * open[i]));
        }
    }

  /* The statistics of the new scan: raw counts keep a per-pixel open beam
   * (the dark is subtracted: the new flat is F·(flat − dark)). */
  if (raw_counts)
    for (gsize i = 0; i < plane; i++)
      out->flat[i] = (float) (F * open[i]);
  if (isfinite (in->i0) && in->i0 > 0)
    out->i0 = F * in->i0;

  if (report != NULL)
    {
      report->model = model;
      report->i0_in = i0_in;
      report->i0_out = F * i0_in;
      report->i0_sinogram = i0_sinogram;
      report->n_zero = n_zero;
      report->reason = g_steal_pointer (&reason);
      /* Thinning trusts the counts to be photons: say so when the sinogram disagrees. */
      if (model == CTR_DOSE_MODEL_THIN && isfinite (i0_sinogram)
          && (i0_sinogram > NOISY_I0_RATIO * i0_in || i0_sinogram < i0_in / NOISY_I0_RATIO))
        report->warning = g_strdup_printf ("the sinogram's noise is that of I0 ≈ %.4g photons per bin, "
                                           "not the stated %.6g: if the counts are not photons "
                                           "(detector gain ≠ 1) or I0 is wrong, the new scan is only "
                                           "approximately at %g × the dose", i0_sinogram, i0_in, F);
    }
  if (counts_out != NULL)
    *counts_out = g_steal_pointer (&counts);
  return g_steal_pointer (&out);
}
