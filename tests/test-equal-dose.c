/* test-equal-dose.c — the equal-d′ dose (core/study/ctr-equal-dose.h) on
 * hand-made rows with known answers: d′ linear in ln(dose) crosses the
 * target where the line says, its standard error is the delta method's
 * (checked against a finite-difference gradient of the interpolation written
 * here); a method that stays below is "not reached", one above at every
 * dose "below the lowest dose"; one realisation gives the same dose and no
 * uncertainty; rows in any order, NaN d′ skipped, the NPWE column read for
 * NPWE and the pooled-TTF columns for the pooled observers; no d′ at dose 1
 * for the reference: "no target". */
#include <math.h>
#include "ctrecon.h"

#define DOSES 3
static const double dose[DOSES] = { 1.0, 0.5, 0.25 };

static void
add (GArray *rows, guint m, double d, double npw)
{
  CtrStudyRow r = { 0 };
  r.dose = d;
  r.method_index = m;
  r.dprime_npw = npw;
  r.dprime_npwe = 0.5 * npw;
  /* with the pooled TTF: the reference's 1 lower, the others' as NPW */
  r.dprime_npw_pooled = m == 0 ? npw - 1 : npw;
  r.dprime_npwe_pooled = 0.5 * r.dprime_npw_pooled;
  g_array_append_val (rows, r);
}

/* Realisations y − δ, y, y + δ (mean y, s = δ, se = δ/√3); one: y. */
static void
add_line (GArray *rows, guint m, double a, double b, double delta, gboolean three)
{
  for (guint k = 0; k < DOSES; k++)
    {
      const double y = a + b * log (dose[k]);
      if (three)
        {
          add (rows, m, dose[k], y - delta);
          add (rows, m, dose[k], y + delta);
        }
      add (rows, m, dose[k], y);
    }
}

/* The crossing in ln(dose) of the segment (x0, y0)–(x1, y1) with level T. */
static double
cross_x (double x0, double y0, double x1, double y1, double T)
{
  return x0 + (T - y0) / (y1 - y0) * (x1 - x0);
}

int
main (void)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (CtrStudyRow));
  /* 0: the reference, d′ 10 ± 0.1 at dose 1 (three realisations), 10 + 3 ln D */
  add_line (rows, 0, 10, 3, 0.1, TRUE);
  /* 1: 12 + 4 ln D, ±0.2: crosses 10 at ln D = −0.5, between 0.5 and 1 */
  add_line (rows, 1, 12, 4, 0.2, TRUE);
  /* 2: never reaches (d′ 5 flat); 3: above at every dose (d′ 20 + ln D) */
  add_line (rows, 2, 5, 0, 0.1, TRUE);
  add_line (rows, 3, 20, 1, 0.1, TRUE);
  /* 4: as 1 with one realisation */
  add_line (rows, 4, 12, 4, 0, FALSE);
  add (rows, 1, 0.5, NAN);  /* a failed measurement: skipped */
  /* shuffle: reverse the rows */
  for (guint i = 0, j = rows->len - 1; i < j; i++, j--)
    {
      CtrStudyRow t = g_array_index (rows, CtrStudyRow, i);
      g_array_index (rows, CtrStudyRow, i) = g_array_index (rows, CtrStudyRow, j);
      g_array_index (rows, CtrStudyRow, j) = t;
    }
  const CtrStudyRow *r = &g_array_index (rows, CtrStudyRow, 0);
  g_autoptr (GError) error = NULL;
  CtrEqualDose e[5];
  g_assert_true (ctr_equal_dose_compute (r, rows->len, 5, 0, CTR_EQUAL_DOSE_NPW, e, &error));
  g_assert_no_error (error);

  /* the target */
  const double se_T = 0.1 / sqrt (3), se = 0.2 / sqrt (3);
  g_assert_cmpfloat (fabs (e[0].target - 10), <, 1e-12);
  g_assert_cmpfloat (fabs (e[0].target_se - se_T), <, 1e-12);
  g_assert_cmpint (e[0].status, ==, CTR_EQUAL_DOSE_REACHED);
  g_assert_cmpfloat (e[0].dose, ==, 1.0);
  g_assert_cmpfloat (e[0].dose_se, ==, 0.0);
  g_assert_cmpstr (ctr_equal_dose_status_name (&e[0], TRUE), ==, "reference");

  /* the crossing of method 1: exact */
  g_assert_cmpint (e[1].status, ==, CTR_EQUAL_DOSE_REACHED);
  g_assert_cmpfloat (fabs (e[1].dose - exp (-0.5)), <, 1e-12);
  g_assert_cmpfloat (e[1].dose_low, ==, 0.5);
  g_assert_cmpfloat (e[1].dose_high, ==, 1.0);
  g_assert_cmpuint (e[1].n_min, ==, 3);
  /* its standard error: gradient of D* = exp(x*) by central differences
   * with respect to y_a (dose 0.5), y_b (dose 1) and T, combined in
   * quadrature with their standard errors */
  const double xa = log (0.5), xb = 0.0, ya = 12 + 4 * xa, yb = 12.0, h = 1e-6;
  const double ga = (exp (cross_x (xa, ya + h, xb, yb, 10)) - exp (cross_x (xa, ya - h, xb, yb, 10))) / (2 * h);
  const double gb = (exp (cross_x (xa, ya, xb, yb + h, 10)) - exp (cross_x (xa, ya, xb, yb - h, 10))) / (2 * h);
  const double gT = (exp (cross_x (xa, ya, xb, yb, 10 + h)) - exp (cross_x (xa, ya, xb, yb, 10 - h))) / (2 * h);
  const double want = sqrt (ga * ga * se * se + gb * gb * se * se + gT * gT * se_T * se_T);
  g_assert_cmpfloat (fabs (e[1].dose_se / want - 1), <, 1e-5);
  g_assert_cmpstr (ctr_equal_dose_status_name (&e[1], FALSE), ==, "reached");

  /* never reached / above everywhere */
  g_assert_cmpint (e[2].status, ==, CTR_EQUAL_DOSE_NOT_REACHED);
  g_assert_false (e[2].above);
  g_assert_true (isnan (e[2].dose) && isnan (e[2].dose_se));
  g_assert_cmpstr (ctr_equal_dose_status_name (&e[2], FALSE), ==, "not reached");
  g_assert_cmpint (e[3].status, ==, CTR_EQUAL_DOSE_NOT_REACHED);
  g_assert_true (e[3].above);
  g_assert_cmpstr (ctr_equal_dose_status_name (&e[3], FALSE), ==, "below the lowest dose");

  /* one realisation: the same dose, no uncertainty */
  g_assert_cmpint (e[4].status, ==, CTR_EQUAL_DOSE_REACHED);
  g_assert_cmpfloat (fabs (e[4].dose - exp (-0.5)), <, 1e-12);
  g_assert_true (isnan (e[4].dose_se));
  g_assert_cmpuint (e[4].n_min, ==, 1);

  /* NPWE reads its own column (half of NPW here: the same crossing) */
  CtrEqualDose w[5];
  g_assert_true (ctr_equal_dose_compute (r, rows->len, 5, 0, CTR_EQUAL_DOSE_NPWE, w, &error));
  g_assert_cmpfloat (fabs (w[0].target - 5), <, 1e-12);
  g_assert_cmpfloat (fabs (w[1].dose - exp (-0.5)), <, 1e-12);
  g_assert_cmpfloat (fabs (w[1].dose_se / e[1].dose_se - 1), <, 1e-9);  /* a common scale cancels */

  /* the pooled observers read the pooled columns: target 9, so method 1
   * (12 + 4 ln D) crosses at ln D = −0.75, between doses 0.25 and 0.5 */
  const CtrEqualDoseObserver pooled[] = { CTR_EQUAL_DOSE_NPW_POOLED, CTR_EQUAL_DOSE_NPWE_POOLED };
  for (guint k = 0; k < G_N_ELEMENTS (pooled); k++)
    {
      g_assert_true (ctr_equal_dose_compute (r, rows->len, 5, 0, pooled[k], w, &error));
      g_assert_cmpfloat (fabs (w[0].target - (k == 0 ? 9 : 4.5)), <, 1e-12);
      g_assert_cmpint (w[1].status, ==, CTR_EQUAL_DOSE_REACHED);
      g_assert_cmpfloat (fabs (w[1].dose - exp (-0.75)), <, 1e-12);
      g_assert_cmpfloat (w[1].dose_low, ==, 0.25);
      g_assert_cmpfloat (w[1].dose_high, ==, 0.5);
    }
  g_assert_cmpstr (ctr_equal_dose_observer_name (CTR_EQUAL_DOSE_NPW_POOLED), ==, "npw_pooled");
  g_assert_cmpstr (ctr_equal_dose_observer_name (CTR_EQUAL_DOSE_NPWE_POOLED), ==, "npwe_pooled");

  /* another reference: method 1 (target 12), which method 0 (10 + 3 ln D) never reaches */
  g_assert_true (ctr_equal_dose_compute (r, rows->len, 5, 1, CTR_EQUAL_DOSE_NPW, e, &error));
  g_assert_cmpfloat (fabs (e[1].target - 12), <, 1e-12);
  g_assert_cmpint (e[0].status, ==, CTR_EQUAL_DOSE_NOT_REACHED);
  g_assert_false (e[0].above);

  /* no d′ at dose 1 for the reference: no target */
  g_autoptr (GArray) low = g_array_new (FALSE, TRUE, sizeof (CtrStudyRow));
  add (low, 0, 0.5, 3.0);
  add (low, 1, 0.5, 4.0);
  g_assert_true (ctr_equal_dose_compute (&g_array_index (low, CtrStudyRow, 0), low->len, 2, 0,
                                         CTR_EQUAL_DOSE_NPW, e, &error));
  g_assert_cmpint (e[1].status, ==, CTR_EQUAL_DOSE_NO_TARGET);
  g_assert_cmpstr (ctr_equal_dose_status_name (&e[1], FALSE), ==, "no target");

  /* a reference out of range is an error */
  g_assert_false (ctr_equal_dose_compute (r, rows->len, 5, 5, CTR_EQUAL_DOSE_NPW, e, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_print ("equal-d' dose exp(-0.5) = %.6f ± %.6f (delta method = finite differences)\n", exp (-0.5), want);
  return 0;
}
