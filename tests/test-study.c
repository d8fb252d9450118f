/* test-study.c — the dose study built in code, as the window builds it
 * (core/study/ctr-study.h): runs, rows, progress, cancellation from the
 * progress callback, refusals, and the figure drawn into a cairo surface.
 * The figures themselves are checked against separate CLI runs in
 * tests/cli/test_study.py. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "study/ctr-study-plot.h"
#include "ctr-test-scan.h"

/* The study's figure drawn 700 × 400 (cairo_surface_destroy). */
static cairo_surface_t *
draw_figure (const CtrStudy *s)
{
  cairo_surface_t *surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 700, 400);
  cairo_t *cr = cairo_create (surf);
  ctr_study_plot_draw (s, cr, 700, 400);
  cairo_destroy (cr);
  cairo_surface_flush (surf);
  return surf;
}

/* A 90-view scan of the head phantom at I0 = 2e4 with its exact image. */
static CtrDataset *
small_dataset (void)
{
  CtrDataset *d = g_new0 (CtrDataset, 1);
  d->name = g_strdup ("small head");
  d->path = g_strdup ("/nowhere/small.json");
  d->geometry = test_fan (90, 96);
  d->projections = test_head (d->geometry, 2);
  ctr_projections_add_poisson_noise (d->projections, 2e4, 3);
  d->projections->i0 = 2e4;
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_head (100);
  CtrGrid grid = ctr_grid_square (64, 230.0 / 64, 1, 1);
  d->reference = ctr_phantom_rasterize (ph, &grid, 2, NULL);
  g_assert_nonnull (d->reference);
  return d;
}

static CtrStudy *
small_study (void)
{
  g_autoptr (GError) error = NULL;
  CtrStudy *s = ctr_study_new ();
  g_assert_true (ctr_study_add_dose (s, 1.0, &error));
  g_assert_true (ctr_study_add_dose (s, 0.25, &error));
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  o.window = CTR_FILTER_HANN;
  g_assert_true (ctr_study_add_method (s, &o, "window=hann", &error));
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 3;
  g_assert_true (ctr_study_add_method (s, &o, "iterations=3", &error));
  CtrRoi lesion = ctr_roi_circle (-35, 35, 5), brain = ctr_roi_circle (-40, 0, 8), flat = ctr_roi_rectangle (40, -10, 16, 16);
  g_assert_true (ctr_study_add_roi (s, "lesion", &lesion, CTR_STUDY_ROI_MEASURE, &error));
  g_assert_true (ctr_study_add_roi (s, "brain", &brain, CTR_STUDY_ROI_BACKGROUND, &error));
  g_assert_true (ctr_study_add_roi (s, "flat", &flat, CTR_STUDY_ROI_NOISE, &error));
  return s;
}

typedef struct {
  guint rows, iterations, notes, stages;
  double last_fraction;
  gboolean monotone;
  GCancellable *cancel_after_first_row;
} Seen;

static void
on_progress (const CtrStudyProgress *p, gpointer data)
{
  Seen *seen = data;
  g_assert_cmpuint (p->n_runs, ==, 4);
  g_assert_cmpuint (p->run, <, 4);
  seen->monotone = seen->monotone && p->fraction >= seen->last_fraction - 1e-12 && p->fraction <= 1 + 1e-12;
  seen->last_fraction = p->fraction;
  if (p->row != NULL)
    {
      seen->rows++;
      g_assert_nonnull (p->row->label);
      if (seen->cancel_after_first_row != NULL)
        g_cancellable_cancel (seen->cancel_after_first_row);
    }
  else if (p->iteration != NULL)
    seen->iterations++;
  else if (p->notes != NULL)
    seen->notes++;
  else
    seen->stages++;
}

static void
test_run (void)
{
  g_autoptr (CtrDataset) d = small_dataset ();
  g_autoptr (CtrStudy) s = small_study ();
  Seen seen = { .monotone = TRUE };
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_study_run (s, d, on_progress, &seen, NULL, &error));
  g_assert_no_error (error);
  /* 2 methods × 2 doses; FBP reports once, SIRT 3 times per dose. */
  g_assert_cmpuint (seen.rows, ==, 4);
  g_assert_cmpuint (seen.iterations, ==, 2 * 1 + 2 * 3);
  g_assert_cmpuint (seen.notes, ==, 2);
  g_assert_true (seen.monotone);
  g_assert_cmpfloat (seen.last_fraction, ==, 1.0);

  guint n = 0;
  const CtrStudyRow *rows = ctr_study_get_rows (s, &n);
  g_assert_cmpuint (n, ==, 4);
  const double doses[] = { 1.0, 0.25, 1.0, 0.25 };
  for (guint k = 0; k < n; k++)
    {
      const CtrStudyRow *r = &rows[k];
      g_assert_cmpfloat (r->dose, ==, doses[k]);
      g_assert_cmpuint (r->method_index, ==, k / 2);
      g_assert_cmpfloat_with_epsilon (r->i0, 2e4 * r->dose, 1e-6);
      g_assert_true (isfinite (r->rmse) && isfinite (r->ssim) && isfinite (r->psnr));
      g_assert_cmpfloat_with_epsilon (r->hu_rmse, 1000 * r->rmse / CTR_MU_WATER_PER_MM, 1e-9 * r->hu_rmse);
      g_assert_cmpuint (r->iterations, ==, k < 2 ? 1 : 3);
      g_assert_true (isfinite (r->roi_mean_hu[0]) && isfinite (r->roi_cnr[0]));
      g_assert_true (isfinite (r->roi_sd_hu[1]) && isnan (r->roi_cnr[1]));   /* background: no CNR */
      g_assert_true (isnan (r->roi_mean_hu[2]) && isfinite (r->noise_sd_hu));   /* noise ROI */
      g_assert_true (isfinite (r->seconds) && r->seconds >= 0);
      g_assert_true (isnan (r->nps_noise_hu) && isnan (r->dprime_npw) && isnan (r->dprime_npwe));   /* no "iq" */
    }
  g_assert_cmpstr (rows[0].label, ==, "fbp window=hann");
  g_assert_cmpstr (rows[2].label, ==, "sirt iterations=3");
  /* A quarter of the dose: more noise in the flat region, for both methods. */
  g_assert_cmpfloat (rows[1].noise_sd_hu, >, rows[0].noise_sd_hu);
  g_assert_cmpfloat (rows[3].noise_sd_hu, >, rows[2].noise_sd_hu);

  /* The figure: drawn, not blank, in the palette's first colour somewhere. */
  cairo_surface_t *surf = draw_figure (s);
  const guint8 *px = cairo_image_surface_get_data (surf);
  const int stride = cairo_image_surface_get_stride (surf);
  gsize drawn = 0, blue = 0;
  for (int y = 0; y < 400; y++)
    for (int x = 0; x < 700; x++)
      {
        const guint8 *c = px + (gsize) y * stride + 4 * x;   /* B, G, R, X */
        drawn += c[0] < 250 || c[1] < 250 || c[2] < 250;
        blue += abs (c[0] - 178) <= 2 && abs (c[1] - 114) <= 2 && c[2] <= 2;
      }
  g_assert_cmpuint (drawn, >, 700 * 400 / 100);
  g_assert_cmpuint (blue, >, 30);

  /* The same study rebuilt from its rows alone (a saved table) draws the
   * same figure, pixel for pixel, and cannot be run. */
  g_autoptr (CtrStudy) back = ctr_study_new_from_rows (rows, n, ctr_study_get_title (s), -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_study_get_n_doses (back), ==, 2);
  g_assert_cmpuint (ctr_study_get_n_methods (back), ==, 2);
  g_assert_cmpstr (ctr_study_get_method_label (back, 1), ==, "sirt iterations=3");
  cairo_surface_t *again = draw_figure (back);
  g_assert_cmpint (memcmp (cairo_image_surface_get_data (again), px, (gsize) stride * 400), ==, 0);
  cairo_surface_destroy (again);
  cairo_surface_destroy (surf);
  g_assert_false (ctr_study_run (back, d, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* Rows made by hand, as a saved session holds them: two configurations,
 * two doses, two realisations, with d′. */
static void
test_from_rows (void)
{
  g_autoptr (GError) error = NULL;
  CtrStudyRow rows[8];
  static const double pooled[1] = { 0.3 };   /* the caller's: never freed by the study */
  guint k = 0;

  memset (rows, 0, sizeof rows);
  for (guint m = 0; m < 2; m++)
    for (guint di = 0; di < 2; di++)
      for (guint r = 0; r < 2; r++, k++)
        {
          rows[k].dose = di == 0 ? 1.0 : 0.25;
          rows[k].realisation = r;
          rows[k].i0 = 2e4 * rows[k].dose;
          rows[k].method_index = m;
          rows[k].method = m == 0 ? CTR_METHOD_FBP : CTR_METHOD_PWLS;
          rows[k].label = m == 0 ? "fbp window=hann" : "pwls";
          rows[k].rmse = rows[k].hu_rmse = rows[k].ssim = rows[k].psnr = NAN;
          /* d′ grows with the dose, PWLS's above FBP's */
          rows[k].dprime_npw = (m == 0 ? 10 : 14) * sqrt (rows[k].dose) + 0.1 * r;
          rows[k].dprime_npwe = rows[k].dprime_npw * 0.8;
          rows[k].ttf_f50 = rows[k].ttf_f50_pooled = rows[k].ttf_cnr_pooled = pooled;
        }
  g_autoptr (CtrStudy) s = ctr_study_new_from_rows (rows, k, "hand", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_study_get_n_doses (s), ==, 2);
  g_assert_cmpfloat (ctr_study_get_dose (s, 1), ==, 0.25);
  g_assert_cmpuint (ctr_study_get_n_methods (s), ==, 2);
  g_assert_cmpstr (ctr_study_get_method_label (s, 0), ==, "fbp window=hann");
  g_assert_cmpuint (ctr_study_get_realisations (s), ==, 2);
  g_assert_true (ctr_study_has_iq_task (s));
  guint n = 0;
  const CtrStudyRow *back = ctr_study_get_rows (s, &n);
  g_assert_cmpuint (n, ==, k);
  g_assert_cmpfloat (back[5].dprime_npw, ==, rows[5].dprime_npw);
  g_assert_true (back[5].roi_cnr == NULL && back[5].ttf_f50 == NULL);
  /* its equal-d′ dose against FBP: PWLS reaches FBP's full-dose d′ (10.05)
   * below full dose, at about (10.05 / 14.05)² ≈ 0.51 */
  CtrEqualDose e[2];
  g_assert_true (ctr_study_equal_dose (s, CTR_EQUAL_DOSE_NPW, e, &error));
  g_assert_no_error (error);
  g_assert_true (e[1].dose > 0.25 && e[1].dose < 1);
  cairo_surface_destroy (draw_figure (s));

  /* refusals: no row, a dose not above 0 */
  g_assert_null (ctr_study_new_from_rows (rows, 0, NULL, -1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  rows[3].dose = 0;
  g_assert_null (ctr_study_new_from_rows (rows, k, NULL, -1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* The task-based image-quality settings refuse what they cannot measure. */
static void
test_iq_refusals (void)
{
  g_autoptr (CtrStudy) s = ctr_study_new ();
  g_autoptr (GError) error = NULL;
  CtrTask task = { 10, 50, 0 };
  CtrRoi roi = ctr_roi_circle (0, 0, 40), bad = ctr_roi_circle (0, 0, -1);
  g_assert_false (ctr_study_set_iq_task (s, &task, NULL, &error));   /* no insert yet */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_study_set_iq_nps (s, &roi, 3, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_study_set_iq_nps (s, &bad, 32, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (ctr_study_set_iq_nps (s, &roi, 32, &error));
  g_assert_true (ctr_study_add_iq_insert (s, "delrin", -30, -52, 12.5, &error));
  const char *names[] = { "delrin", "a,b", "", NULL };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_assert_false (ctr_study_add_iq_insert (s, names[i], 60, 0, 12.5, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  g_assert_false (ctr_study_add_iq_insert (s, "teflon", 60, 0, 0, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_study_set_iq_task (s, &task, "teflon", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CtrTask flat = { 10, 0, 0 };
  g_assert_false (ctr_study_set_iq_task (s, &flat, "delrin", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (ctr_study_set_iq_task (s, &task, "delrin", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_study_get_n_iq_inserts (s), ==, 1);
  g_assert_cmpstr (ctr_study_get_iq_insert_name (s, 0), ==, "delrin");
}

static void
test_cancel_and_refusals (void)
{
  g_autoptr (CtrDataset) d = small_dataset ();
  g_autoptr (CtrStudy) s = small_study ();
  g_autoptr (GCancellable) c = g_cancellable_new ();
  Seen seen = { .monotone = TRUE, .cancel_after_first_row = c };
  g_autoptr (GError) error = NULL;
  g_assert_false (ctr_study_run (s, d, on_progress, &seen, c, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  guint n = 0;
  ctr_study_get_rows (s, &n);
  g_assert_cmpuint (n, ==, 1);   /* the finished run is kept */

  /* Refusals while building. */
  g_assert_false (ctr_study_add_dose (s, 0.25, &error));   /* twice */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_study_add_dose (s, -1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CtrRoi r = ctr_roi_circle (0, 0, 3);
  g_assert_false (ctr_study_add_roi (s, "other", &r, CTR_STUDY_ROI_BACKGROUND, &error));   /* a second background */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_study_add_roi (s, "lesion", &r, CTR_STUDY_ROI_MEASURE, &error));   /* a name twice */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_PART);
  o.relaxation = 3;
  g_assert_false (ctr_study_add_method (s, &o, "relaxation=3", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* An ROI outside the image fails the run with its name. */
  g_autoptr (CtrStudy) s2 = small_study ();
  CtrRoi far = ctr_roi_circle (400, 400, 5);
  g_assert_true (ctr_study_add_roi (s2, "far", &far, CTR_STUDY_ROI_MEASURE, &error));
  g_assert_false (ctr_study_run (s2, d, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "far"));
  g_clear_error (&error);

  /* No dose or no method. */
  g_autoptr (CtrStudy) empty = ctr_study_new ();
  g_assert_false (ctr_study_run (empty, d, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("CTR_MATRIX_CACHE", "0", TRUE);
  g_test_add_func ("/ctr/core/study/run", test_run);
  g_test_add_func ("/ctr/core/study/from-rows", test_from_rows);
  g_test_add_func ("/ctr/core/study/cancel-refusals", test_cancel_and_refusals);
  g_test_add_func ("/ctr/core/study/iq-refusals", test_iq_refusals);
  return g_test_run ();
}
