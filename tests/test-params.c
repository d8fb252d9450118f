/* test-params.c — the parameter table agrees with ctr-recon's defaults and
 * validation: every default passes ctr_recon_options_validate, every value
 * ctr_param_set refuses is one the validator would refuse too, and text
 * round-trips through ctr_param_format / ctr_param_parse.
 */
#include "recon/ctr-params.h"
#include "base/ctr-error.h"

#include <math.h>

static void
test_defaults_valid (void)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  g_assert_cmpuint (n, >, 0);
  for (guint m = 0; m < CTR_N_METHODS; m++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, m);
      g_assert_true (ctr_recon_options_validate (&o, NULL));
      for (guint i = 0; i < n; i++)
        {
          double d = ctr_param_default (&params[i], m);
          g_assert_cmpfloat (d, ==, ctr_param_get (&params[i], &o));
          /* the default is inside the parameter's own range */
          g_assert_true (ctr_param_set (&params[i], &o, d, NULL));
        }
    }
  /* every method has at least one parameter, iterations belongs to the iterative ones */
  const CtrParam *it = ctr_param_find ("iterations");
  g_assert_nonnull (it);
  for (guint m = 0; m < CTR_N_METHODS; m++)
    g_assert_cmpint (ctr_param_applies (it, m), ==, ctr_method_is_iterative (m));
  g_assert_null (ctr_param_find ("no-such-param"));
}

/* The range edges: inside accepted by both the table and the validator,
 * outside refused by the table with the parameter's name in the message. */
static void
test_ranges_match_validator (void)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  for (guint i = 0; i < n; i++)
    {
      const CtrParam *p = &params[i];
      CtrMethod m = CTR_N_METHODS;
      for (guint k = 0; k < CTR_N_METHODS && m == CTR_N_METHODS; k++)
        if (ctr_param_applies (p, k))
          m = k;
      g_assert_cmpint (m, <, CTR_N_METHODS);
      if (p->type != CTR_PARAM_INT && p->type != CTR_PARAM_DOUBLE)
        continue;
      double eps = p->type == CTR_PARAM_INT ? 1 : 1e-9;
      double lo = p->min_open ? p->min + eps : p->min;
      double hi = p->max_open ? p->max - eps : p->max;
      double bad_lo = p->min_open ? p->min : p->min - eps;
      double bad_hi = p->max_open ? p->max : p->max + eps;
      CtrReconOptions o;
      g_autoptr (GError) error = NULL;
      ctr_recon_options_init (&o, m);
      g_assert_true (ctr_param_set (p, &o, lo, NULL));
      g_assert_true (ctr_recon_options_validate (&o, NULL));
      g_assert_true (ctr_param_set (p, &o, hi, NULL));
      g_assert_true (ctr_recon_options_validate (&o, NULL));
      g_assert_false (ctr_param_set (p, &o, bad_lo, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (g_strstr_len (error->message, -1, p->name));
      g_clear_error (&error);
      g_assert_false (ctr_param_set (p, &o, bad_hi, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      g_assert_false (ctr_param_set (p, &o, NAN, &error));
      g_clear_error (&error);
      /* what the table refused, the validator refuses too */
      CtrReconOptions raw;
      ctr_recon_options_init (&raw, m);
      if (g_str_equal (p->name, "iterations"))
        raw.iterations = 0;
      else if (g_str_equal (p->name, "relaxation"))
        raw.relaxation = bad_hi;
      else if (g_str_equal (p->name, "cutoff"))
        raw.cutoff = bad_lo;
      else
        continue;
      g_assert_false (ctr_recon_options_validate (&raw, NULL));
    }
}

static void
test_text_round_trip (void)
{
  guint n;
  const CtrParam *params = ctr_params_list (&n);
  for (guint i = 0; i < n; i++)
    {
      const CtrParam *p = &params[i];
      CtrReconOptions a, b;
      ctr_recon_options_init (&a, CTR_METHOD_PART);
      ctr_recon_options_init (&b, CTR_METHOD_FBP);
      /* a non-default value */
      if (p->type == CTR_PARAM_CHOICE)
        g_assert_true (ctr_param_set (p, &a, ctr_param_n_choices (p) - 1, NULL));
      else if (p->type == CTR_PARAM_BOOL)
        g_assert_true (ctr_param_set (p, &a, 1 - ctr_param_get (p, &a), NULL));
      else if (p->type == CTR_PARAM_INT)
        g_assert_true (ctr_param_set (p, &a, 7, NULL));
      else
        g_assert_true (ctr_param_set (p, &a, 0.3 * (p->max - p->min) + p->min + 0.123456789, NULL));
      g_autofree char *text = ctr_param_format (p, &a);
      g_assert_true (ctr_param_parse (p, &b, text, NULL));
      g_assert_cmpfloat (ctr_param_get (p, &a), ==, ctr_param_get (p, &b));
    }
  CtrReconOptions o;
  g_autoptr (GError) error = NULL;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  g_assert_true (ctr_param_parse (ctr_param_find ("window"), &o, "hann", NULL));
  g_assert_cmpint (o.window, ==, CTR_FILTER_HANN);
  g_assert_false (ctr_param_parse (ctr_param_find ("window"), &o, "gauss", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_param_parse (ctr_param_find ("iterations"), &o, "12x", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_param_parse (ctr_param_find ("nonnegative"), &o, "maybe", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/params/defaults", test_defaults_valid);
  g_test_add_func ("/ctr/core/params/ranges", test_ranges_match_validator);
  g_test_add_func ("/ctr/core/params/text", test_text_round_trip);
  return g_test_run ();
}
