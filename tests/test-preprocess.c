/* test-preprocess.c — outlier and ring removal and the pipeline's parser
 * (core/preprocess/) on small made-up sinograms; the real-data targets are
 * in tests/cli/test_preprocess.py.
 *
 * Exact properties: on a constant sinogram with two spikes (σ = 0) exactly
 * the spikes are replaced, by the constant, and nothing else changes; a
 * constant offset of 0.3 on one column of a smooth sinogram whose columns
 * are cyclic shifts (over the views) of one another, so share their sorted
 * values, is removed to float rounding (1e-5; measured 1.2e-7) and
 * reported as one striped column; bad arguments leave the data untouched.
 * The sorting method's damage report: a constant stripe's correction is
 * not counted as damage (< 1e-5 of the range), a small dense disc's edges
 * are (> 0.3 of the range), and the pipeline warns above "warn_change".
 * Flux: a drift on a two-level sinogram is undone and its factors returned
 * (1e-6), the air found is the edge columns less the margin; the tilt
 * resampling reproduces a plane exactly (float rounding, 1e-5; measured
 * 2.7e-7).
 */
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "ctrecon.h"
#include "preprocess/ctr-outliers.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-flux.h"
#include "data/ctr-detector-tilt.h"

#define V 40
#define R 2
#define C 24

static CtrProjections *
constant (float value)
{
  CtrProjections *p = ctr_projections_new (V, R, C, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (gsize i = 0; i < (gsize) V * R * C; i++)
    p->data[i] = value;
  return p;
}

#define AT(p, v, r, c) ((p)->data[((gsize) (v) * R + (r)) * C + (c)])

static void
test_outliers_spikes (void)
{
  g_autoptr (CtrProjections) p = constant (1.0f);
  AT (p, 7, 1, 10) = 3.0f;
  AT (p, 12, 0, 0) = -1.0f;   /* at the edge */
  guint64 n = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_outliers_remove (p, 5, 3, &n, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 2);
  for (gsize i = 0; i < (gsize) V * R * C; i++)
    g_assert_cmpfloat (p->data[i], ==, 1.0f);
}

static void
test_outliers_bad (void)
{
  g_autoptr (CtrProjections) p = constant (1.0f);
  AT (p, 7, 1, 10) = 3.0f;
  const struct { double threshold; int size; } bad[] = { { 0, 3 }, { NAN, 3 }, { -1, 3 }, { 5, 4 }, { 5, 1 },
                                                          { 5, -3 }, { 5, C + 1 } };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (ctr_outliers_remove (p, bad[i].threshold, bad[i].size, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
    }
  g_autoptr (GError) error = NULL;
  p->kind = CTR_PROJ_COUNTS;
  g_assert_false (ctr_outliers_remove (p, 5, 3, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_cmpfloat (AT (p, 7, 1, 10), ==, 3.0f);
}

static void
test_rings_offset (void)
{
  g_autoptr (CtrProjections) p = constant (0);
  g_autoptr (CtrProjections) clean = constant (0);
  for (guint v = 0; v < V; v++)
    for (guint r = 0; r < R; r++)
      for (guint c = 0; c < C; c++)
        AT (clean, v, r, c) = AT (p, v, r, c) = 1.0f + 0.3f * sinf (2 * G_PI * ((v + 3 * c) % V) / V);
  for (guint v = 0; v < V; v++)
    for (guint r = 0; r < R; r++)
      AT (p, v, r, 12) += 0.3f;
  guint64 n = 0;
  guint columns = 0;
  double rms = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_rings_remove (p, 5, &n, &columns, &rms, NULL, &error));
  g_assert_no_error (error);
  double worst = 0;
  for (gsize i = 0; i < (gsize) V * R * C; i++)
    worst = MAX (worst, fabs (p->data[i] - clean->data[i]));
  g_test_message ("largest error left %g of an offset of 0.3; %" G_GUINT64_FORMAT " stripes, %u columns",
                  worst, n, columns);
  g_assert_cmpfloat (worst, <, 1e-5);
  g_assert_cmpuint (columns, ==, 1);
  g_assert_cmpuint (n, ==, R);
  g_assert_cmpfloat (rms, >, 0);

  const int bad[] = { 4, 1, -3, C + 2 };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_assert_false (ctr_rings_remove (p, bad[i], NULL, NULL, NULL, NULL, &e));
      g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
    }
}

static CtrPipeline *parse (const char *text, GError **error);

/* The sinogram of a small dense disc off the axis (parallel beam, its
 * track a sinusoid of 7 columns' amplitude, radius 2 columns, μ·chord up to
 * 2): every row the same. */
static CtrProjections *
dense_disc (void)
{
  CtrProjections *p = ctr_projections_new (V, R, C, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      {
        const double d = c - (C - 1) / 2.0 - 7 * cos (2 * G_PI * v / V);
        for (guint r = 0; r < R; r++)
          AT (p, v, r, c) = (float) (fabs (d) < 2 ? 0.5 * 2 * sqrt (4 - d * d) : 0);
      }
  return p;
}

/* The sorting method's damage report: a constant stripe's correction is its
 * column's offset, reported as (almost) no change beyond it; on the dense
 * disc's sinogram the median mixes columns in and out of the disc and moves
 * single views by a large part of the range.  Through the pipeline the
 * effect names the row and warns above "warn_change" only. */
static void
test_rings_damage (void)
{
  g_autoptr (CtrProjections) striped = ctr_projections_new (V, R, C, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (guint v = 0; v < V; v++)
    for (guint r = 0; r < R; r++)
      for (guint c = 0; c < C; c++)
        AT (striped, v, r, c) = 1.0f + 0.3f * sinf (2 * G_PI * ((v + 3 * c) % V) / V) + (c == 12 ? 0.3f : 0);
  g_autoptr (CtrProjections) dense = dense_disc ();
  double stripe_change[R], dense_change[R];
  g_assert_true (ctr_rings_remove (striped, 5, NULL, NULL, NULL, stripe_change, NULL));
  g_assert_true (ctr_rings_remove (dense, 21, NULL, NULL, NULL, dense_change, NULL));
  g_test_message ("change beyond the columns' offsets over the row's range: stripe %g, dense disc %g",
                  stripe_change[0], dense_change[0]);
  for (guint r = 0; r < R; r++)
    {
      g_assert_cmpfloat (stripe_change[r], <, 1e-5);
      g_assert_cmpfloat (dense_change[r], >, 0.3);
    }

  const char *steps[] = { "[{\"op\": \"rings\"}]", "[{\"op\": \"rings\", \"warn_change\": 1}]" };
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrPipeline) pl = parse (steps[i], &error);
      g_assert_no_error (error);
      g_autoptr (CtrProjections) p = dense_disc ();
      g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
      g_assert_true (ctr_pipeline_apply (pl, p, NULL, notes, &error));
      g_assert_no_error (error);
      const char *note = g_ptr_array_index (notes, 0);
      g_test_message ("%s", note);
      g_assert_true ((strstr (note, "WARNING: 2 of 2 rows changed by more than 30 %") != NULL) == (i == 0));
      g_assert_true ((strstr (note, "largest change in a row") != NULL) == (i == 1));
    }
  const char *bad[] = { "[{\"op\": \"rings\", \"warn_change\": 0}]", "[{\"op\": \"rings\", \"warn_change\": 1.5}]",
                        "[{\"op\": \"rings\", \"method\": \"large\", \"warn_change\": 0.5}]" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrPipeline) none = parse (bad[i], &e);
      g_assert_null (none);
      g_assert_error (e, CTR_ERROR, CTR_ERROR_FORMAT);
    }
}

static CtrPipeline *
parse (const char *text, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  return ctr_pipeline_from_json (json_parser_get_root (parser), "test", error);
}

static void
test_pipeline_parse (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPipeline) pl = parse ("{\"preprocess\": [{\"op\": \"rings\"}, {\"op\": \"outliers\", \"threshold\": 4}]}",
                                      &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pl->n_steps, ==, 2);
  g_assert_cmpint (pl->steps[0].op, ==, CTR_PREP_RINGS);
  g_assert_cmpint (pl->steps[0].size, ==, CTR_RINGS_DEFAULT_SIZE);
  g_assert_cmpint (pl->steps[1].op, ==, CTR_PREP_OUTLIERS);
  g_assert_cmpfloat (pl->steps[1].threshold, ==, 4);
  g_assert_cmpint (pl->steps[1].size, ==, CTR_OUTLIERS_DEFAULT_SIZE);
  g_autoptr (CtrPipeline) more = parse ("[{\"op\": \"flux\", \"columns\": [[0, 4], [20, 23]]}, "
                                        "{\"op\": \"truncation\", \"width\": 12}]", &error);
  g_assert_no_error (error);
  g_assert_cmpint (more->steps[0].op, ==, CTR_PREP_FLUX);
  g_assert_cmpuint (more->steps[0].n_ranges, ==, 2);
  g_assert_cmpuint (more->steps[0].ranges[3], ==, 23);
  g_assert_cmpint (more->steps[1].op, ==, CTR_PREP_TRUNCATION);
  g_assert_cmpuint (more->steps[1].width, ==, 12);
  g_assert_cmpuint (more->steps[1].fit, ==, 8);
  g_autoptr (CtrPipeline) empty = ctr_pipeline_from_json (NULL, "test", &error);
  g_assert_cmpuint (empty->n_steps, ==, 0);

  const char *bad[] = { "[{\"op\": \"sharpen\"}]", "[{\"size\": 3}]", "[3]", "{\"op\": \"rings\"}",
                        "[{\"op\": \"rings\", \"size\": 2.5}]", "[{\"op\": \"rings\", \"size\": \"21\"}]",
                        "[{\"op\": \"rings\", \"threshold\": 3}]", "[{\"op\": \"outliers\", \"threshold\": -1}]",
                        "\"rings\"", "[{\"op\": \"flux\", \"columns\": [[3, 1]]}]",
                        "[{\"op\": \"flux\", \"columns\": [[-1, 4]]}]", "[{\"op\": \"flux\", \"size\": 3}]",
                        "[{\"op\": \"truncation\", \"width\": 0}]", "[{\"op\": \"truncation\", \"fit\": 1.5}]",
                        "[{\"op\": \"truncation\", \"mu_per_mm\": -0.02}]",
                        "[{\"op\": \"truncation\"}, {\"op\": \"flux\"}]" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) e = NULL;
      g_autoptr (CtrPipeline) none = parse (bad[i], &e);
      g_assert_null (none);
      g_assert_error (e, CTR_ERROR, CTR_ERROR_FORMAT);
    }
}

/* Keys's cubic convolution reproduces a linear function exactly: a plane
 * a·u + b·v + c on the detector, resampled for a tilt t, is the same plane
 * seen turned: a(u cos t + v sin t) + b(−u sin t + v cos t) + c, away from
 * the edges (float rounding: 1e-5). */
static void
test_untilt_plane (void)
{
  const guint NR = 24, NC = 32;
  const double t = 0.05, a = 0.02, b = -0.03, c = 1.0;
  g_autoptr (CtrProjections) p = ctr_projections_new (2, NR, NC, CTR_PROJ_LINE_INTEGRALS, NULL);
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_PARALLEL, 2);
  g->n_rows = NR;
  g->n_cols = NC;
  g->pitch_u = 0.5;
  g->pitch_v_mm = 0.7;
  g->offset_u = 0.3;
  for (guint v = 0; v < 2; v++)
    for (guint i = 0; i < NR; i++)
      for (guint j = 0; j < NC; j++)
        ctr_projections_view (p, v)[i * NC + j]
          = (float) (a * ctr_geometry_col_u (g, j) + b * ctr_geometry_row_v (g, i) + c);
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_projections_untilt (p, g, t, &error));
  g_assert_no_error (error);
  double worst = 0;
  for (guint i = 4; i < NR - 4; i++)
    for (guint j = 4; j < NC - 4; j++)
      {
        const double u = ctr_geometry_col_u (g, j), v = ctr_geometry_row_v (g, i);
        const double want = a * (u * cos (t) + v * sin (t)) + b * (-u * sin (t) + v * cos (t)) + c;
        worst = MAX (worst, fabs (ctr_projections_view (p, 1)[i * NC + j] - want));
      }
  g_test_message ("largest error %g", worst);
  g_assert_cmpfloat (worst, <, 1e-5);
  g_assert_false (ctr_projections_untilt (p, g, 0.5, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  ctr_geometry_free (g);
}

/* Flux: a constant sinogram whose views are offset by −ln f_v (a drift
 * f_v) comes back to the constant, the factors f_v exactly (air stated: the
 * first and last 4 columns, at 0 before the drift); the air found is the
 * 8 columns at each edge less the 2-column margin. */
static void
test_flux_factors (void)
{
  g_autoptr (CtrProjections) p = constant (0);
  for (guint v = 0; v < V; v++)
    for (guint r = 0; r < R; r++)
      for (guint c = 8; c < C - 8; c++)
        AT (p, v, r, c) = 0.5f;
  double f[V];
  for (guint v = 0; v < V; v++)
    for (guint k = 0; k < R * C; k++)
      p->data[v * R * C + k] -= (float) log (1 + 0.05 * sin (v));
  const guint ranges[] = { 0, 3, C - 4, C - 1 };
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_flux_normalise (p, ranges, 2, f, &error));
  g_assert_no_error (error);
  for (guint v = 0; v < V; v++)
    {
      g_assert_cmpfloat (fabs (f[v] - (1 + 0.05 * sin (v))), <, 1e-6);
      g_assert_cmpfloat (fabs (AT (p, v, 1, 0)), <, 1e-6);
      g_assert_cmpfloat (fabs (AT (p, v, 0, 12) - 0.5f), <, 1e-6);
    }
  guint found[4], n = 0;
  g_assert_true (ctr_flux_find_air (p, found, &n, &error));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (found[0], ==, 0);
  g_assert_cmpuint (found[3], ==, C - 1);
  g_assert_cmpuint (found[1], ==, 5);
  g_assert_cmpuint (found[2], ==, C - 6);
  const guint bad[] = { 0, C };
  g_assert_false (ctr_flux_normalise (p, bad, 1, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/preprocess/outliers-spikes", test_outliers_spikes);
  g_test_add_func ("/ctr/preprocess/outliers-bad", test_outliers_bad);
  g_test_add_func ("/ctr/preprocess/rings-offset", test_rings_offset);
  g_test_add_func ("/ctr/preprocess/pipeline-parse", test_pipeline_parse);
  g_test_add_func ("/ctr/preprocess/rings-damage", test_rings_damage);
  g_test_add_func ("/ctr/preprocess/flux-factors", test_flux_factors);
  g_test_add_func ("/ctr/preprocess/untilt-plane", test_untilt_plane);
  return g_test_run ();
}
