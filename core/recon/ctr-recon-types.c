/* ctr-recon-types.c — the method table and the options' defaults and checks
 * (see ctr-recon-types.h). */
#include "recon/ctr-recon-types.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

static const struct {
  const char *name;
  const char *label;
  const char *description;
  guint iterations;
  double relaxation;
} methods[CTR_N_METHODS] = {
  [CTR_METHOD_FBP] = { "fbp", "FBP", "Filtered back-projection (Kak & Slaney ch. 3): one pass, ramp filter with a window", 1, 1.0 },
  [CTR_METHOD_ART] = { "art", "ART (Kaczmarz)", "Algebraic reconstruction, ray by ray (cuART Eq. 1)", 10, 0.25 },
  /* λ 1.5: the orbit subsets of SCSR (8 views 45° apart) take a step of
   * 1/κ_S per view; 1.5 reached SSIM 0.991 at iteration 3 on the W1
   * Shepp-Logan and the best quarter-dose RMSE by iteration 4. */
  [CTR_METHOD_PART] = { "part", "Parallel ART", "All rays of a symmetry orbit's views at once (cuART Eq. 9)", 10, 1.5 },
  [CTR_METHOD_SART] = { "sart", "SART", "Simultaneous ART, one subset of views at a time (Andersen & Kak 1984)", 10, 0.5 },
  [CTR_METHOD_SIRT] = { "sirt", "SIRT", "All rays at once, row- and column-sum normalised (Gilbert 1972)", 100, 1.0 },
  [CTR_METHOD_FDK] = { "fdk", "FDK", "Feldkamp-Davis-Kress cone-beam filtered back-projection (iFDK Algorithms 1 and 4)", 1, 1.0 },
  [CTR_METHOD_CGLS] = { "cgls", "CGLS", "Conjugate gradients on the normal equations AᵀA x = Aᵀb (Hestenes & Stiefel 1952)", 20, 1.0 },
  [CTR_METHOD_PWLS] = { "pwls", "PWLS", "Penalised weighted least squares with an edge-preserving penalty, ordered subsets with momentum (Kim, Ramani & Fessler 2015)", 12, 1.0 },
  /* λ 1.9 and 100 iterations: ASD-POCS steps with SART (ctr-asd-pocs.c). */
  [CTR_METHOD_ASD_POCS] = { "asd-pocs", "ASD-POCS", "SART data steps and adaptive TV steepest descent (Sidky & Pan 2008)", 100, 1.9 },
};

const char *
ctr_method_name (CtrMethod m)
{
  g_return_val_if_fail (m < CTR_N_METHODS, NULL);
  return methods[m].name;
}

const char *
ctr_method_label (CtrMethod m)
{
  g_return_val_if_fail (m < CTR_N_METHODS, NULL);
  return methods[m].label;
}

const char *
ctr_method_description (CtrMethod m)
{
  g_return_val_if_fail (m < CTR_N_METHODS, NULL);
  return methods[m].description;
}

gboolean
ctr_method_is_iterative (CtrMethod m)
{
  return m != CTR_METHOD_FBP && m != CTR_METHOD_FDK && m < CTR_N_METHODS;
}

char *
ctr_method_names_joined (guint mask, const char *conjunction)
{
  GString *s = g_string_new (NULL);
  guint n = 0, total = 0;
  for (guint m = 0; m < CTR_N_METHODS; m++)
    total += mask == 0 || (mask & (1u << m)) != 0;
  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (mask == 0 || (mask & (1u << m)) != 0)
      {
        if (n > 0)
          g_string_append (s, n + 1 == total ? " " : ", ");
        if (n > 0 && n + 1 == total)
          g_string_append_printf (s, "%s ", conjunction != NULL ? conjunction : "or");
        g_string_append (s, methods[m].name);
        n++;
      }
  return g_string_free (s, FALSE);
}

gboolean
ctr_method_from_name (const char *name, CtrMethod *out, GError **error)
{
  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (name != NULL && g_ascii_strcasecmp (name, methods[m].name) == 0)
      {
        *out = m;
        return TRUE;
      }
  g_autofree char *names = ctr_method_names_joined (0, "or");
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "unknown method '%s' (choose %s)",
               name ? name : "", names);
  return FALSE;
}

gboolean
ctr_residual_report_from_name (const char *name, CtrResidualReport *out, GError **error)
{
  static const char *const names[] = { [CTR_RESIDUAL_EVERY] = "every", [CTR_RESIDUAL_FINAL] = "final" };
  for (guint r = 0; r < G_N_ELEMENTS (names); r++)
    if (name != NULL && g_ascii_strcasecmp (name, names[r]) == 0)
      {
        *out = r;
        return TRUE;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "unknown residual report '%s' (choose every: after "
               "every iteration, or final: after the last, and the others where it costs nothing)",
               name ? name : "");
  return FALSE;
}

void
ctr_report_cursor_set (CtrReportCursor *c, guint i, guint j, guint k)
{
  g_atomic_int_set (&c->voxel[0], (gint) MIN (i, G_MAXINT));
  g_atomic_int_set (&c->voxel[1], (gint) MIN (j, G_MAXINT));
  g_atomic_int_set (&c->voxel[2], (gint) MIN (k, G_MAXINT));
}

void
ctr_report_cursor_get (const CtrReportCursor *c, guint voxel[3])
{
  for (guint a = 0; a < 3; a++)
    voxel[a] = (guint) MAX (g_atomic_int_get ((gint *) &c->voxel[a]), 0);
}

void
ctr_recon_options_init (CtrReconOptions *o, CtrMethod method)
{
  g_return_if_fail (method < CTR_N_METHODS);
  memset (o, 0, sizeof *o);
  o->method = method;
  o->iterations = methods[method].iterations;
  o->relaxation = methods[method].relaxation;
  o->nonnegative = TRUE;
  /* PWLS: Joseph's linear interpolation (ctr-pwls.c says why); the rest
   * the area integral of cuART §2.1. */
  o->ray_model = method == CTR_METHOD_PWLS ? CTR_RAY_MODEL_JOSEPH : CTR_RAY_MODEL_AREA;
  o->part_step = CTR_PART_STEP_SPARSITY;
  o->matrix = CTR_MATRIX_AUTO;
  o->backend = "best";
  o->window = CTR_FILTER_RAM_LAK;
  o->cutoff = 1.0;
  o->metrics_radius_mm = 0.0;
  o->stop = CTR_STOP_NONE;
  o->residual = CTR_RESIDUAL_EVERY;
  o->penalty = CTR_PENALTY_ISOTROPIC;
  o->momentum = TRUE;
  o->tv_iterations = 20;  /* Sidky & Pan 2008, N_grad */
  o->rebin = CTR_REBIN_180LI;
}

gboolean
ctr_recon_options_validate (const CtrReconOptions *o, GError **error)
{
#define FAIL(...) do { g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, __VA_ARGS__); return FALSE; } while (0)
  if (o->method >= CTR_N_METHODS)
    FAIL ("unknown method %d", (int) o->method);
  if (ctr_method_is_iterative (o->method))
    {
      if (o->iterations < 1 || o->iterations > 100000)
        FAIL ("iterations must be between 1 and 100000, got %u", o->iterations);
      if (!(isfinite (o->relaxation) && o->relaxation > 0.0 && o->relaxation < 2.0))
        FAIL ("relaxation must lie in (0, 2), got %g", o->relaxation);
      if (o->ray_model != CTR_RAY_MODEL_JOSEPH && o->ray_model != CTR_RAY_MODEL_SIDDON
          && o->ray_model != CTR_RAY_MODEL_AREA)
        FAIL ("unknown ray model %d", (int) o->ray_model);
      if (o->backend != NULL && strcmp (o->backend, "best") != 0 && strcmp (o->backend, "cpu") != 0
          && strcmp (o->backend, "cuda") != 0 && strcmp (o->backend, "cusparse") != 0)
        FAIL ("unknown backend '%s' (choose best, cpu, cuda or cusparse)", o->backend);
      if (o->matrix > CTR_MATRIX_NONE)
        FAIL ("unknown matrix format %d", (int) o->matrix);
      if (o->subsets > CTR_SUBSETS_ORBIT)
        FAIL ("unknown subsets %d", (int) o->subsets);
      if (o->stop > CTR_STOP_AUTO)
        FAIL ("unknown stopping rule %d", (int) o->stop);
      if (o->residual > CTR_RESIDUAL_FINAL)
        FAIL ("unknown residual report %d", (int) o->residual);
      if (o->report_image > CTR_REPORT_PLANES)
        FAIL ("unknown report image %d", (int) o->report_image);
      if (!(isfinite (o->beta) && o->beta >= 0.0 && o->beta <= 1e6))
        FAIL ("beta must be 0 (the default) or a positive strength up to 1e6, got %g", o->beta);
      /* Below 1e-9 /mm, 1/δ² overflows float in the penalty's weights
       * (1/δ² > 3.4e38 from δ ≈ 5e-20 on, and a flat pair then gives
       * 0 · ∞ = NaN); TV is reached long before. */
      if (!(isfinite (o->delta) && (o->delta == 0.0 || (o->delta >= CTR_DELTA_MIN && o->delta <= 1.0))))
        FAIL ("delta must be 0 (automatic) or an edge scale from %g to 1 /mm, got %g", CTR_DELTA_MIN, o->delta);
      if (o->penalty > CTR_PENALTY_ISOTROPIC)
        FAIL ("unknown penalty %d", (int) o->penalty);
      if (o->n_subsets > 4096)
        FAIL ("subsets must be 0 (automatic) to 4096, got %u", o->n_subsets);
      if (o->tv_iterations < 1 || o->tv_iterations > 10000)
        FAIL ("tv-iterations must be between 1 and 10000, got %u", o->tv_iterations);
      if (!(isfinite (o->epsilon) && o->epsilon >= 0.0 && o->epsilon <= 1e6))
        FAIL ("epsilon must be 0 (automatic) or a positive data tolerance up to 1e6, got %g", o->epsilon);
    }
  else
    {
      if (o->window >= CTR_N_FILTERS)
        FAIL ("unknown filter window %d", (int) o->window);
      if (!(isfinite (o->cutoff) && o->cutoff > 0.0 && o->cutoff <= 1.0))
        FAIL ("filter cut-off must lie in (0, 1] of Nyquist, got %g", o->cutoff);
    }
  if (!isfinite (o->metrics_radius_mm))
    FAIL ("metrics radius must be finite");
  if (o->rebin >= CTR_N_REBIN)
    FAIL ("unknown rebinning %d", (int) o->rebin);
  return TRUE;
#undef FAIL
}

char *
ctr_recon_options_describe (const CtrReconOptions *o)
{
  g_return_val_if_fail (o != NULL && o->method < CTR_N_METHODS, NULL);

  g_autofree char *name = g_ascii_strup (methods[o->method].name, -1);
  GString *s = g_string_new (name);

  switch (o->method)
    {
    case CTR_METHOD_FBP:
    case CTR_METHOD_FDK:
      {
        /* as the window's method panel names them (ctr-params.c) */
        static const char *const windows[CTR_N_FILTERS] = { "Ram-Lak", "Shepp-Logan", "Cosine", "Hamming", "Hann" };
        g_string_append_printf (s, " · %s · cut-off %g", o->window < CTR_N_FILTERS ? windows[o->window] : "?",
                                o->cutoff);
      }
      break;
    case CTR_METHOD_PWLS:
      g_string_append_printf (s, " · %u it", o->iterations);
      if (o->beta > 0)
        g_string_append_printf (s, " · β %g", o->beta);
      else
        g_string_append (s, " · β default");
      break;
    case CTR_METHOD_CGLS:
      g_string_append_printf (s, " · %u it", o->iterations);
      break;
    default:
      g_string_append_printf (s, " · %u it · λ %g", o->iterations, o->relaxation);
      break;
    }
  if (ctr_method_is_iterative (o->method) && o->stop == CTR_STOP_AUTO && o->method != CTR_METHOD_PWLS &&
      o->method != CTR_METHOD_ASD_POCS)
    g_string_append (s, " · auto stop");
  return g_string_free (s, FALSE);
}
