/* ctr-params.c — the reconstruction parameters as data (see ctr-params.h). */
#include "recon/ctr-params.h"
#include "base/ctr-error.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define BIT(m) CTR_PARAM_METHOD_BIT (CTR_METHOD_##m)
/* The algebraic methods (ART family), every iterative method, the analytic ones. */
#define ALGEBRAIC (BIT (ART) | BIT (PART) | BIT (SART) | BIT (SIRT))
#define ITERATIVE (ALGEBRAIC | BIT (CGLS) | BIT (PWLS) | BIT (ASD_POCS))
#define ANALYTIC (BIT (FBP) | BIT (FDK))
#define AT(field) offsetof (CtrReconOptions, field)

static const char *const window_labels[] = { "Ram-Lak (none)", "Shepp-Logan", "Cosine", "Hamming", "Hann", NULL };
/* CtrMatrixFormat order */
static const char *const matrix_choices[] = { "auto", "scsr", "csr", "none", NULL };
static const char *const matrix_labels[] = { "Automatic", "SCSR (symmetry-compressed)", "CSR", "None (on the fly)", NULL };
/* CtrRayModel order */
static const char *const ray_choices[] = { "joseph", "siddon", "area", NULL };
static const char *const ray_labels[] = { "Joseph (interpolating)", "Siddon (line length)", "Area integral", NULL };
/* CtrSubsets order */
static const char *const subsets_choices[] = { "auto", "view", "orbit", NULL };
static const char *const subsets_labels[] = { "Automatic (orbits with SCSR)", "One view", "Symmetry orbit", NULL };
/* CtrPartStep order */
static const char *const step_choices[] = { "sparsity", "cuart", NULL };
static const char *const step_labels[] = { "Sparsity bound (Censor 2001)", "cuART Eq. 9 (M′)", NULL };
/* CtrPenalty order */
static const char *const penalty_choices[] = { "hyperbola", "huber", "quadratic", "isotropic", NULL };
static const char *const penalty_labels[] = { "Hyperbola (edge-preserving)", "Huber (edge-preserving)", "Quadratic", "Isotropic (edge-preserving)", NULL };
/* CtrStop order */
static const char *const stop_choices[] = { "none", "auto", NULL };
static const char *const stop_labels[] = { "After the iterations", "At the noise level (discrepancy principle)", NULL };

G_STATIC_ASSERT (G_N_ELEMENTS (window_labels) == CTR_N_FILTERS + 1);

static const CtrParam params[] = {
  { "window", "Filter window",
    "Apodisation of the ramp filter (Kak & Slaney ch. 3); Ram-Lak is the plain ramp",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, ctr_filter_window_names, window_labels, ANALYTIC, AT (window) },
  { "cutoff", "Cut-off",
    "Window cut-off as a fraction of the Nyquist frequency, in (0, 1]",
    CTR_PARAM_DOUBLE, 0, 1, TRUE, FALSE, 2, 0.05, NULL, NULL, ANALYTIC, AT (cutoff) },
  { "iterations", "Iterations",
    "Full passes over all views, 1 to 100000",
    CTR_PARAM_INT, 1, 100000, FALSE, FALSE, 0, 1, NULL, NULL, ITERATIVE, AT (iterations) },
  { "relaxation", "Relaxation λ",
    "Step length of every update, in (0, 2) (cuART Eq. 1 and 9; ASD-POCS: its SART steps)",
    CTR_PARAM_DOUBLE, 0, 2, TRUE, TRUE, 3, 0.05, NULL, NULL, ALGEBRAIC | BIT (ASD_POCS), AT (relaxation) },
  { "nonnegative", "Non-negativity",
    "Clip the image at 0 after every update (attenuation is never negative)",
    CTR_PARAM_BOOL, 0, 1, FALSE, FALSE, 0, 1, NULL, NULL, ALGEBRAIC | BIT (PWLS) | BIT (ASD_POCS), AT (nonnegative) },
  { "matrix", "Matrix format",
    "How the system matrix is stored: auto stores it when the run fits in memory and otherwise computes on the fly, "
    "SCSR keeps rows of canonical views only (cuART §3), CSR every row, "
    "none computes the rows on the fly at every product (least memory, the same image)",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, matrix_choices, matrix_labels, ITERATIVE, AT (matrix) },
  { "ray-model", "Ray model",
    "Weights of the system matrix: Joseph interpolation, Siddon line length or the area integral (cuART §2.1)",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, ray_choices, ray_labels, ITERATIVE, AT (ray_model) },
  { "subsets", "Subsets",
    "Ordered subsets of the view-by-view solvers: one view, or the views of one symmetry orbit (read once from SCSR)",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, subsets_choices, subsets_labels,
    CTR_PARAM_METHOD_BIT (CTR_METHOD_PART) | CTR_PARAM_METHOD_BIT (CTR_METHOD_SART), AT (subsets) },
  { "part-step", "Parallel ART step",
    "Normalisation of the rays of one view in parallel ART",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, step_choices, step_labels,
    CTR_PARAM_METHOD_BIT (CTR_METHOD_PART), AT (part_step) },
  { "stop", "Stop",
    "When to stop: after the iterations, or when the data residual reaches the noise level estimated from the data (discrepancy principle, Morozov 1966)",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, stop_choices, stop_labels, ALGEBRAIC | BIT (CGLS), AT (stop) },
  { "beta", "Penalty strength",
    "Strength b of the edge-preserving penalty, dimensionless: the penalty's weight is β = b/δ²; 0 = the default 0.085",
    CTR_PARAM_DOUBLE, 0, 1e6, FALSE, FALSE, 4, 0.01, NULL, NULL, BIT (PWLS), AT (beta) },
  { "delta", "Edge scale δ",
    "Differences between neighbours above δ (1/mm) count as edges and are kept; 0 = 0.8 % of the object's attenuation",
    CTR_PARAM_DOUBLE, 0, 1, FALSE, FALSE, 6, 0.0001, NULL, NULL, BIT (PWLS), AT (delta) },
  { "penalty", "Penalty",
    "Edge-preserving potential: isotropic (the default) of the gradient's magnitude, isotropic TV as δ → 0; hyperbola and Huber of each 8-neighbour difference keep edges too, quadratic smooths them",
    CTR_PARAM_CHOICE, 0, 0, FALSE, FALSE, 0, 1, penalty_choices, penalty_labels, BIT (PWLS), AT (penalty) },
  { "subsets", "Ordered subsets",
    "Subsets of views per iteration (groups of symmetry orbits spread over the angles); 0 = automatic",
    CTR_PARAM_INT, 0, 4096, FALSE, FALSE, 0, 1, NULL, NULL, BIT (PWLS), AT (n_subsets) },
  { "momentum", "Momentum",
    "Nesterov's momentum on the ordered subsets (Kim, Ramani & Fessler 2015); without it each iteration lowers the objective",
    CTR_PARAM_BOOL, 0, 1, FALSE, FALSE, 0, 1, NULL, NULL, BIT (PWLS), AT (momentum) },
  { "tv-iterations", "TV steps",
    "Steepest-descent steps on the total variation after every data pass (N_grad of Sidky & Pan 2008)",
    CTR_PARAM_INT, 1, 10000, FALSE, FALSE, 0, 1, NULL, NULL, BIT (ASD_POCS), AT (tv_iterations) },
  { "epsilon", "Data tolerance ε",
    "The data residual ||A x − b|| that ASD-POCS may keep (Sidky & Pan 2008); 0 = from the noise level",
    CTR_PARAM_DOUBLE, 0, 1e6, FALSE, FALSE, 4, 0.1, NULL, NULL, BIT (ASD_POCS), AT (epsilon) },
};

const CtrParam *
ctr_params_list (guint *n_params)
{
  if (n_params != NULL)
    *n_params = G_N_ELEMENTS (params);
  return params;
}

const CtrParam *
ctr_param_find (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (params); i++)
    if (g_str_equal (params[i].name, name))
      return &params[i];
  return NULL;
}

const CtrParam *
ctr_param_find_for (const char *name, CtrMethod method)
{
  const CtrParam *first = NULL;
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (params); i++)
    if (g_str_equal (params[i].name, name))
      {
        if (ctr_param_applies (&params[i], method))
          return &params[i];
        first = first ? first : &params[i];
      }
  return first;
}

gboolean
ctr_param_applies (const CtrParam *p, CtrMethod method)
{
  g_return_val_if_fail (p != NULL, FALSE);
  return method < CTR_N_METHODS && (p->methods & CTR_PARAM_METHOD_BIT (method)) != 0;
}

guint
ctr_param_n_choices (const CtrParam *p)
{
  guint n = 0;
  if (p == NULL || p->type != CTR_PARAM_CHOICE)
    return 0;
  while (p->choices[n] != NULL)
    n++;
  return n;
}

double
ctr_param_get (const CtrParam *p, const CtrReconOptions *o)
{
  g_return_val_if_fail (p != NULL && o != NULL, NAN);
  const char *field = (const char *) o + p->offset;
  switch (p->type)
    {
    case CTR_PARAM_INT:
      return *(const guint *) field;
    case CTR_PARAM_DOUBLE:
      return *(const double *) field;
    case CTR_PARAM_BOOL:
      return *(const gboolean *) field ? 1 : 0;
    case CTR_PARAM_CHOICE:
      return *(const int *) field;
    }
  g_return_val_if_reached (NAN);
}

static gboolean
check_range (const CtrParam *p, double value, GError **error)
{
  gboolean ok = isfinite (value);
  switch (p->type)
    {
    case CTR_PARAM_INT:
      ok = ok && value == floor (value) && value >= p->min && value <= p->max;
      if (!ok)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "%s must be a whole number from %g to %g, got %g", p->name, p->min, p->max, value);
      break;
    case CTR_PARAM_DOUBLE:
      ok = ok && (p->min_open ? value > p->min : value >= p->min)
              && (p->max_open ? value < p->max : value <= p->max);
      if (!ok)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "%s must lie in %c%g, %g%c, got %g", p->name, p->min_open ? '(' : '[', p->min,
                     p->max, p->max_open ? ')' : ']', value);
      break;
    case CTR_PARAM_BOOL:
      ok = ok && (value == 0 || value == 1);
      if (!ok)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s must be yes or no, got %g", p->name, value);
      break;
    case CTR_PARAM_CHOICE:
      ok = ok && value == floor (value) && value >= 0 && value < ctr_param_n_choices (p);
      if (!ok)
        {
          g_autofree char *names = g_strjoinv (", ", (char **) p->choices);
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "%s must be one of %s, got index %g", p->name, names, value);
        }
      break;
    }
  return ok;
}

gboolean
ctr_param_set (const CtrParam *p, CtrReconOptions *o, double value, GError **error)
{
  g_return_val_if_fail (p != NULL && o != NULL, FALSE);
  if (!check_range (p, value, error))
    return FALSE;
  char *field = (char *) o + p->offset;
  switch (p->type)
    {
    case CTR_PARAM_INT:
      *(guint *) field = (guint) value;
      break;
    case CTR_PARAM_DOUBLE:
      *(double *) field = value;
      break;
    case CTR_PARAM_BOOL:
      *(gboolean *) field = value != 0;
      break;
    case CTR_PARAM_CHOICE:
      *(int *) field = (int) value;
      break;
    }
  return TRUE;
}

double
ctr_param_default (const CtrParam *p, CtrMethod method)
{
  CtrReconOptions o;
  g_return_val_if_fail (p != NULL && method < CTR_N_METHODS, NAN);
  ctr_recon_options_init (&o, method);
  return ctr_param_get (p, &o);
}

gboolean
ctr_param_parse (const CtrParam *p, CtrReconOptions *o, const char *text, GError **error)
{
  g_return_val_if_fail (p != NULL && o != NULL, FALSE);
  if (text == NULL)
    text = "";
  double value = NAN;
  if (p->type == CTR_PARAM_CHOICE)
    {
      for (guint i = 0; p->choices[i] != NULL; i++)
        if (g_ascii_strcasecmp (text, p->choices[i]) == 0)
          value = i;
      if (isnan (value))
        {
          g_autofree char *names = g_strjoinv (", ", (char **) p->choices);
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "%s: unknown choice “%s” (choose %s)", p->name, text, names);
          return FALSE;
        }
    }
  else if (p->type == CTR_PARAM_BOOL)
    {
      if (!g_ascii_strcasecmp (text, "yes") || !g_ascii_strcasecmp (text, "true") || !g_strcmp0 (text, "1")
          || !g_ascii_strcasecmp (text, "on"))
        value = 1;
      else if (!g_ascii_strcasecmp (text, "no") || !g_ascii_strcasecmp (text, "false") || !g_strcmp0 (text, "0")
               || !g_ascii_strcasecmp (text, "off"))
        value = 0;
      else
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "%s: expected yes or no, got “%s”", p->name, text);
          return FALSE;
        }
    }
  else
    {
      char *end = NULL;
      value = g_ascii_strtod (text, &end);
      if (end == text || *end != '\0')
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                       "%s: “%s” is not a number", p->name, text);
          return FALSE;
        }
    }
  return ctr_param_set (p, o, value, error);
}

char *
ctr_param_format (const CtrParam *p, const CtrReconOptions *o)
{
  g_return_val_if_fail (p != NULL && o != NULL, NULL);
  double v = ctr_param_get (p, o);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  switch (p->type)
    {
    case CTR_PARAM_INT:
      return g_strdup_printf ("%.0f", v);
    case CTR_PARAM_DOUBLE:
      return g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
    case CTR_PARAM_BOOL:
      return g_strdup (v != 0 ? "yes" : "no");
    case CTR_PARAM_CHOICE:
      return g_strdup (v >= 0 && v < ctr_param_n_choices (p) ? p->choices[(guint) v] : "");
    }
  return NULL;
}
