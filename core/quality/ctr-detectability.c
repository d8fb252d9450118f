/* ctr-detectability.c — NPW and NPWE detectability (see ctr-detectability.h). */
#include "quality/ctr-detectability.h"
#include "base/ctr-error.h"

#include <math.h>

#define N_STEPS 2000      /* Simpson steps of the frequency integrals (even) */
#define N_HANKEL 400      /* Simpson steps of the designer profile's transform (even) */

gboolean
ctr_task_parse (const char *text, CtrTask *task, GError **error)
{
  g_return_val_if_fail (text != NULL && task != NULL, FALSE);
  gboolean designer = g_str_has_prefix (text, "designer:");
  const char *rest = designer ? text + 9 : g_str_has_prefix (text, "disc:") ? text + 5 : NULL;
  double v[3] = { 0, 0, 0 };
  guint want = designer ? 3 : 2, got = 0;
  gboolean bad = rest == NULL;
  if (!bad)
    {
      g_auto (GStrv) parts = g_strsplit (rest, ",", -1);
      got = g_strv_length (parts);
      for (guint i = 0; i < got && i < 3 && !bad; i++)
        {
          char *end = NULL;
          v[i] = g_ascii_strtod (parts[i], &end);
          bad = end == parts[i] || *end != '\0' || !isfinite (v[i]);
        }
    }
  if (bad || got != want || !(v[0] > 0) || v[1] == 0 || (designer && !(v[2] > 0)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "task '%s': expected disc:DIAMETER_MM,CONTRAST or designer:DIAMETER_MM,CONTRAST,N "
                   "(diameter and N positive, contrast not 0)", text);
      return FALSE;
    }
  task->diameter_mm = v[0], task->contrast = v[1], task->designer_n = designer ? v[2] : 0;
  return TRUE;
}

CtrEyeFilter
ctr_eye_filter_default (void)
{
  CtrEyeFilter e = { 500.0, 1.0, 1.3, 4.0 };
  return e;
}

double
ctr_eye_filter (const CtrEyeFilter *eye, double f)
{
  double n = eye->exponent, p = eye->peak_cycles_per_degree;
  double c = n / (2 * p * p);
  double rho = fabs (f) * eye->viewing_distance_mm * G_PI / (180.0 * eye->magnification);
  /* Divided by its value at the peak: E(p) = p^n e^(−n/2). */
  return pow (rho / p, n) * exp (-c * (rho * rho - p * p));
}

double
ctr_task_function (const CtrTask *task, double f)
{
  double D = task->diameter_mm, C = task->contrast;
  f = fabs (f);
  if (task->designer_n <= 0)
    return f < 1e-12 ? C * G_PI * D * D / 4 : C * 0.5 * D * j1 (G_PI * D * f) / f;
  double a = 0.5 * D, h = a / N_HANKEL, sum = 0;
  for (int i = 0; i <= N_HANKEL; i++)
    {
      double r = i * h, u = r / a;
      double g = C * pow (MAX (0.0, 1 - u * u), task->designer_n) * j0 (2 * G_PI * f * r) * r;
      sum += g * (i == 0 || i == N_HANKEL ? 1 : (i % 2 ? 4 : 2));
    }
  return 2 * G_PI * sum * h / 3;
}

static gboolean
check (const CtrTask *task, double f_max, const CtrEyeFilter *eye, GError **error)
{
  if (!(isfinite (task->diameter_mm) && task->diameter_mm > 0) || !isfinite (task->contrast)
      || task->contrast == 0 || !(isfinite (task->designer_n) && task->designer_n >= 0)
      || !(isfinite (f_max) && f_max > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "detectability: need a task diameter > 0, a finite non-zero contrast, a designer "
                   "exponent >= 0 and a frequency limit > 0 (diameter %g mm, contrast %g, n %g, "
                   "f_max %g cycles/mm)", task->diameter_mm, task->contrast, task->designer_n, f_max);
      return FALSE;
    }
  if (!(eye->viewing_distance_mm > 0 && eye->magnification > 0 && eye->exponent > 0
        && eye->peak_cycles_per_degree > 0) || !isfinite (eye->viewing_distance_mm)
      || !isfinite (eye->magnification))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "detectability: the eye filter needs a positive viewing distance, magnification, "
                   "exponent and peak frequency");
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_dprime (const CtrTask *task, CtrRadialFunc ttf, gconstpointer ttf_data,
            CtrRadialFunc nps, gconstpointer nps_data, double f_max,
            const CtrEyeFilter *eye, CtrDprime *out, GError **error)
{
  g_return_val_if_fail (task != NULL && ttf != NULL && nps != NULL && out != NULL, FALSE);
  CtrEyeFilter def = ctr_eye_filter_default ();
  if (eye == NULL)
    eye = &def;
  if (!check (task, f_max, eye, error))
    return FALSE;
  /* Σ weights · 2π f · g(f): signal and noise integrals of both observers. */
  double s_npw = 0, n_npw = 0, s_npwe = 0, n_npwe = 0, h = f_max / N_STEPS;
  for (int i = 0; i <= N_STEPS; i++)
    {
      double f = i * h;
      double t = ttf (ttf_data, f), p = nps (nps_data, f);
      if (!(t == t) || !(p >= 0))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       "detectability: the TTF or NPS at %g cycles/mm is not a number or negative "
                       "(TTF %g, NPS %g)", f, t, p);
          return FALSE;
        }
      double w = ctr_task_function (task, f);
      double e2 = f > 0 ? pow (ctr_eye_filter (eye, f), 2) : 0;
      double wt2 = w * w * t * t * 2 * G_PI * f * (i == 0 || i == N_STEPS ? 1 : (i % 2 ? 4 : 2));
      s_npw += wt2, n_npw += wt2 * p;
      s_npwe += wt2 * e2, n_npwe += wt2 * e2 * e2 * p;
    }
  if (!(n_npw > 0) || !(n_npwe > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "detectability: the noise integral is zero (an NPS of zero over the task's band)");
      return FALSE;
    }
  /* The Simpson factor h/3 cancels in neither ratio once: [h/3·S]² / (h/3·N). */
  out->npw = sqrt (s_npw * s_npw * h / 3 / n_npw);
  out->npwe = sqrt (s_npwe * s_npwe * h / 3 / n_npwe);
  return TRUE;
}

static double measured_ttf (gconstpointer data, double f) { return ctr_ttf_at (data, f); }
static double measured_nps (gconstpointer data, double f) { return ctr_nps_radial_at (data, f); }

gboolean
ctr_dprime_measured (const CtrTask *task, const CtrTtf *ttf, const CtrNps *nps,
                     const CtrEyeFilter *eye, CtrDprime *out, GError **error)
{
  g_return_val_if_fail (ttf != NULL && nps != NULL, FALSE);
  return ctr_dprime (task, measured_ttf, ttf, measured_nps, nps, 0.5 / nps->pixel_mm, eye, out, error);
}
