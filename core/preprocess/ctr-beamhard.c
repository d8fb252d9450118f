/* ctr-beamhard.c — beam-hardening water pre-correction (see ctr-beamhard.h). */
#include "preprocess/ctr-beamhard.h"
#include "base/ctr-error.h"
#include "io/ctr-json.h"

#include <math.h>
#include <string.h>

#define FIT_SAMPLES 256

void
ctr_beamhard_free (CtrBeamhard *bh)
{
  if (bh == NULL)
    return;
  g_free (bh->coefficients);
  ctr_spectrum_free (bh->spectrum);
  g_free (bh);
}

/* A JSON number (not a string or boolean), else NaN. */
static double
number (JsonNode *n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return NAN;
  const GType t = json_node_get_value_type (n);
  return t == G_TYPE_DOUBLE || t == G_TYPE_INT64 ? json_node_get_double (n) : NAN;
}

/* The numbers of list @key of @o: @out (g_free), 1 to @max of them. */
static gboolean
number_list (JsonObject *o, const char *key, guint max, const char *where, double **out, guint *n,
             GError **error)
{
  JsonNode *a = json_object_get_member (o, key);
  const guint len = a != NULL && JSON_NODE_HOLDS_ARRAY (a) ? json_array_get_length (json_node_get_array (a)) : 0;
  if (len < 1 || len > max)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “%s” must be a list of 1 to %u numbers",
                   where, key, max);
      return FALSE;
    }
  g_autofree double *v = g_new (double, len);
  for (guint k = 0; k < len; k++)
    if (!isfinite (v[k] = number (json_array_get_element (json_node_get_array (a), k))))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “%s” element %u is not a number", where, key, k + 1);
        return FALSE;
      }
  *out = g_steal_pointer (&v);
  *n = len;
  return TRUE;
}

CtrSpectrum *
ctr_spectrum_from_json (JsonNode *node, const char *where, GError **error)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      CtrSpectrum *s = ctr_spectrum_builtin (json_node_get_string (node), error);
      if (s == NULL)
        {
          g_prefix_error (error, "%s: “spectrum”: ", where);
          if (error != NULL)
            (*error)->code = CTR_ERROR_FORMAT;
        }
      return s;
    }
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “spectrum” must be a built-in name (120kvp) "
                   "or an object with “energies_kev” and “fluence”", where);
      return NULL;
    }
  JsonObject *o = json_node_get_object (node);
  g_autoptr (GList) names = json_object_get_members (o);
  for (GList *l = names; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "energies_kev") && !g_str_equal (l->data, "fluence")
        && !g_str_equal (l->data, "description"))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: “spectrum”: unknown key “%s”; valid: energies_kev, fluence, description",
                     where, (const char *) l->data);
        return NULL;
      }
  g_autofree double *e = NULL, *w = NULL;
  guint ne = 0, nw = 0;
  if (!number_list (o, "energies_kev", CTR_SPECTRUM_MAX_BINS, where, &e, &ne, error)
      || !number_list (o, "fluence", CTR_SPECTRUM_MAX_BINS, where, &w, &nw, error))
    return NULL;
  if (ne != nw)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                   "%s: “spectrum”: “energies_kev” has %u values but “fluence” %u", where, ne, nw);
      return NULL;
    }
  CtrSpectrum *s = ctr_spectrum_new ("stated", ne, e, w, error);
  if (s == NULL)
    {
      g_prefix_error (error, "%s: “spectrum”: ", where);
      if (error != NULL)
        (*error)->code = CTR_ERROR_FORMAT;
    }
  return s;
}

CtrSpectrum *
ctr_spectrum_load (const char *arg, GError **error)
{
  if (arg == NULL || !g_str_has_suffix (arg, ".json"))
    return ctr_spectrum_builtin (arg, error);
  g_autoptr (JsonParser) parser = ctr_json_parse_file (arg, error);
  if (parser == NULL)
    return NULL;
  return ctr_spectrum_from_json (json_parser_get_root (parser), arg, error);
}

CtrBeamhard *
ctr_beamhard_from_json (JsonObject *o, const char *what, GError **error)
{
  g_autoptr (GList) names = json_object_get_members (o);
  for (GList *l = names; l != NULL; l = l->next)
    {
      const char *k = l->data;
      if (!g_str_equal (k, "op") && !g_str_equal (k, "coefficients") && !g_str_equal (k, "spectrum")
          && !g_str_equal (k, "degree") && !g_str_equal (k, "mu_per_mm"))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                       "%s: unknown parameter “%s”; valid: coefficients, spectrum, degree, mu_per_mm", what, k);
          return NULL;
        }
    }
  const gboolean has_c = json_object_has_member (o, "coefficients"), has_s = json_object_has_member (o, "spectrum");
  if (has_c == has_s)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: give either “coefficients” or “spectrum”%s",
                   what, has_c ? ", not both" : "");
      return NULL;
    }
  g_autoptr (CtrBeamhard) bh = g_new0 (CtrBeamhard, 1);
  bh->degree = CTR_BEAMHARD_DEFAULT_DEGREE;
  if (has_c)
    {
      const char *extra = json_object_has_member (o, "degree") ? "degree"
                          : json_object_has_member (o, "mu_per_mm") ? "mu_per_mm" : NULL;
      if (extra != NULL)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “%s” applies to a “spectrum” fit, not to "
                       "stated “coefficients”", what, extra);
          return NULL;
        }
      if (!number_list (o, "coefficients", CTR_BEAMHARD_MAX_DEGREE, what, &bh->coefficients, &bh->n_coefficients, error))
        return NULL;
      return g_steal_pointer (&bh);
    }
  if (json_object_has_member (o, "degree"))
    {
      const double d = number (json_object_get_member (o, "degree"));
      if (!(d >= 1 && d <= CTR_BEAMHARD_MAX_DEGREE && d == floor (d)))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “degree” must be an integer from 1 to %d",
                       what, CTR_BEAMHARD_MAX_DEGREE);
          return NULL;
        }
      bh->degree = (int) d;
    }
  if (json_object_has_member (o, "mu_per_mm"))
    {
      bh->mu_per_mm = number (json_object_get_member (o, "mu_per_mm"));
      if (!(bh->mu_per_mm > 0 && bh->mu_per_mm < 100))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: “mu_per_mm” must be a positive number (1/mm)", what);
          return NULL;
        }
    }
  bh->spectrum = ctr_spectrum_from_json (json_object_get_member (o, "spectrum"), what, error);
  return bh->spectrum != NULL ? g_steal_pointer (&bh) : NULL;
}

gboolean
ctr_beamhard_solve (double *a, double *b, int n)
{
  for (int c = 0; c < n; c++)
    {
      int piv = c;
      for (int r = c + 1; r < n; r++)
        if (fabs (a[r * n + c]) > fabs (a[piv * n + c]))
          piv = r;
      if (!(fabs (a[piv * n + c]) > 1e-300))
        return FALSE;
      for (int k = 0; k < n; k++)
        {
          const double t = a[c * n + k];
          a[c * n + k] = a[piv * n + k];
          a[piv * n + k] = t;
        }
      const double t = b[c];
      b[c] = b[piv];
      b[piv] = t;
      for (int r = c + 1; r < n; r++)
        {
          const double f = a[r * n + c] / a[c * n + c];
          for (int k = c; k < n; k++)
            a[r * n + k] -= f * a[c * n + k];
          b[r] -= f * b[c];
        }
    }
  for (int r = n - 1; r >= 0; r--)
    {
      double s = b[r];
      for (int k = r + 1; k < n; k++)
        s -= a[r * n + k] * b[k];
      b[r] = s / a[r * n + r];
    }
  return TRUE;
}

gboolean
ctr_beamhard_fit (const CtrSpectrum *s, double mu, int degree, double p_max, double *coefficients,
                  double *max_error, GError **error)
{
  g_return_val_if_fail (s != NULL && degree >= 1 && degree <= CTR_BEAMHARD_MAX_DEGREE, FALSE);
  /* L_max by bisection: p(L) rises monotonically */
  double lo = 0, hi = 1e4;
  if (!(p_max > 0) || !(ctr_spectrum_water_line_integral (s, hi) >= p_max))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the largest line integral %g is beyond what water gives through the spectrum", p_max);
      return FALSE;
    }
  for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; it++)
    {
      const double mid = 0.5 * (lo + hi);
      if (ctr_spectrum_water_line_integral (s, mid) < p_max)
        lo = mid;
      else
        hi = mid;
    }
  /* normal equations in x = p/p_max (well scaled on [0, 1]) */
  const int d = degree;
  double ata[CTR_BEAMHARD_MAX_DEGREE * CTR_BEAMHARD_MAX_DEGREE] = { 0 }, atb[CTR_BEAMHARD_MAX_DEGREE] = { 0 };
  double xs[FIT_SAMPLES], ys[FIT_SAMPLES];
  for (int i = 0; i < FIT_SAMPLES; i++)
    {
      const double L = hi * (i + 1) / FIT_SAMPLES;
      xs[i] = ctr_spectrum_water_line_integral (s, L) / p_max;
      ys[i] = mu * L;
      double pw[CTR_BEAMHARD_MAX_DEGREE];
      for (int n = 0; n < d; n++)
        pw[n] = n == 0 ? xs[i] : pw[n - 1] * xs[i];
      for (int r = 0; r < d; r++)
        {
          atb[r] += pw[r] * ys[i];
          for (int c = 0; c < d; c++)
            ata[r * d + c] += pw[r] * pw[c];
        }
    }
  if (!ctr_beamhard_solve (ata, atb, d))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "the beam-hardening fit of degree %d is singular", d);
      return FALSE;
    }
  double worst = 0;
  for (int i = 0; i < FIT_SAMPLES; i++)
    {
      double f = 0, pw = 1;
      for (int n = 0; n < d; n++)
        f += atb[n] * (pw *= xs[i]);
      worst = MAX (worst, fabs (f - ys[i]));
    }
  for (int n = 0; n < d; n++)
    coefficients[n] = atb[n] / pow (p_max, n + 1);
  if (max_error != NULL)
    *max_error = worst;
  return TRUE;
}

static char *
describe (const double *a, guint n)
{
  GString *s = g_string_new ("p' =");
  for (guint k = 0; k < n; k++)
    {
      if (k == 0)
        g_string_append_printf (s, " %.6g·p", a[k]);
      else
        g_string_append_printf (s, " %s %.6g·p", a[k] < 0 ? "−" : "+", fabs (a[k]));
      if (k > 0)
        g_string_append_printf (s, "^%u", k + 1);
    }
  return g_string_free (s, FALSE);
}

char *
ctr_beamhard_run (const CtrBeamhard *bh, CtrProjections *p, GError **error)
{
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "beam-hardening needs line integrals, not counts");
      return NULL;
    }
  const gsize plane = (gsize) p->n_rows * p->n_cols, total = plane * p->n_views;
  double p_max = 0;
  for (gsize i = 0; i < total; i++)
    {
      if (p->mask != NULL && !p->mask[i % plane])
        continue;
      if (!isfinite (p->data[i]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "beam-hardening: a line integral is not finite "
                       "(view %" G_GSIZE_FORMAT ")", i / plane);
          return NULL;
        }
      p_max = MAX (p_max, p->data[i]);
    }
  double a[CTR_BEAMHARD_MAX_DEGREE] = { 0 }, fit_error = 0;
  guint n = bh->n_coefficients;
  g_autofree char *source = NULL;
  if (n > 0)
    {
      memcpy (a, bh->coefficients, n * sizeof (double));
      source = g_strdup ("stated coefficients");
    }
  else
    {
      const double mu = bh->mu_per_mm > 0 ? bh->mu_per_mm : ctr_spectrum_mean_mu_water (bh->spectrum);
      n = (guint) bh->degree;
      if (p_max > 0 && !ctr_beamhard_fit (bh->spectrum, mu, bh->degree, p_max, a, &fit_error, error))
        return NULL;
      if (!(p_max > 0))
        a[0] = 1;
      source = g_strdup_printf ("fitted to water through spectrum '%s' (%u energies) onto %.5g/mm × L, "
                                "degree %d, up to p = %.4g, largest fit error %.3g",
                                bh->spectrum->name, bh->spectrum->n, mu, bh->degree, p_max, fit_error);
    }
  double max_change = 0;
#pragma omp parallel for reduction(max : max_change) schedule(static)
  for (gint64 i = 0; i < (gint64) total; i++)
    {
      if (p->mask != NULL && !p->mask[i % plane])
        continue;
      const double x = p->data[i];
      double y = 0, pw = 1;
      for (guint k = 0; k < n; k++)
        y += a[k] * (pw *= x);
      max_change = MAX (max_change, fabs (y - x));
      p->data[i] = (float) y;
    }
  g_autofree char *poly = describe (a, n);
  return g_strdup_printf ("beam-hardening: %s (%s); largest change %.4g", poly, source, max_change);
}
