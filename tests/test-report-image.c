/* test-report-image.c — what an iterative run's reports carry
 * (CtrReconOptions.report_image, issue 37): the whole image, one slice, or
 * none before the last report, on the CPU's fan-beam slice stack (its
 * native image is not the natural one: the slice comes out of the whole
 * image).  Every slice reported is, bit for bit, that slice of the image
 * the volume report of the same iteration carries, on the slice's plane
 * (nz = 1, its z); the last report and the result are the whole image, the
 * same bit for bit in every mode; the residuals are the same (the report
 * changes what is copied, never the iteration).  The device's side (only
 * the slice copied back) is tests/test-gpu-vecops.c's. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"

#define N 32
#define SLICES 3
#define ITERATIONS 3

static CtrGeometry *
fan_stack (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 40);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 250;
  g->sdd_mm = 500;
  g->n_cols = 48;
  g->n_rows = SLICES;
  g->pitch_u = 2 * asin (30.0 / 250) / 48;
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / 40);
  return g;
}

/* Smooth line integrals, a different pattern in each row (slice): the
 * property tested is what the reports carry, not the image's accuracy. */
static CtrProjections *
scan (const CtrGeometry *g)
{
  CtrProjections *p = ctr_projections_new (g->n_views, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  for (guint v = 0; v < g->n_views; v++)
    for (guint r = 0; r < g->n_rows; r++)
      for (guint c = 0; c < g->n_cols; c++)
        {
          const double u = (c - 0.5 * g->n_cols) / (0.4 * g->n_cols);
          ctr_projections_view (p, v)[r * g->n_cols + c] =
            fabs (u) < 1.0 ? (float) ((r + 1) * sqrt (1.0 - u * u) * (1.0 + 0.2 * sin (0.3 * v + r))) : 0.f;
        }
  return p;
}

typedef struct {
  GPtrArray *images;   /* a copy of each report's image (NULL: none) */
  GArray *residuals;
} Reports;

static void
on_report (const CtrIterStats *s, gpointer data)
{
  Reports *r = data;
  g_ptr_array_add (r->images, s->image != NULL ? ctr_volume_copy (s->image) : NULL);
  g_array_append_val (r->residuals, s->residual);
}

static void
volume_unref0 (gpointer v)
{
  if (v != NULL)
    ctr_volume_unref (v);
}

static CtrVolume *
run (CtrReportImage mode, guint slice, Reports *r)
{
  g_autoptr (CtrGeometry) g = fan_stack ();
  CtrGrid grid = { N, N, SLICES, 1.2, 1.2, 1.0, 0.4, -0.3, 0.0 };
  g_autoptr (CtrProjections) p = scan (g);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = ITERATIONS;
  o.backend = "cpu";
  o.report_image = mode;
  o.report_slice = slice;
  r->images = g_ptr_array_new_with_free_func (volume_unref0);
  r->residuals = g_array_new (FALSE, FALSE, sizeof (double));
  CtrVolume *v = ctr_reconstruct (g, p, &grid, &o, NULL, on_report, r, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpuint (r->images->len, ==, ITERATIONS);
  return v;
}

static void
reports_clear (Reports *r)
{
  g_ptr_array_unref (r->images);
  g_array_unref (r->residuals);
}

static void
test_modes (void)
{
  Reports vol, sl, far, none;
  g_autoptr (CtrVolume) v = run (CTR_REPORT_VOLUME, 0, &vol);
  g_autoptr (CtrVolume) s = run (CTR_REPORT_SLICE, 1, &sl);
  g_autoptr (CtrVolume) f = run (CTR_REPORT_SLICE, 99, &far);   /* clamped: the last slice */
  g_autoptr (CtrVolume) n = run (CTR_REPORT_NONE, 0, &none);
  const CtrGrid *grid = &v->grid;
  const gsize plane = (gsize) grid->nx * grid->ny;
  g_assert_cmpuint (grid->nz, ==, SLICES);
  for (guint i = 0; i < ITERATIONS; i++)
    {
      const gboolean last = i + 1 == ITERATIONS;
      const CtrVolume *w = vol.images->pdata[i];
      g_assert_nonnull (w);
      g_assert_true (ctr_grid_equal (&w->grid, grid));
      const struct { Reports *r; guint z; } cases[] = { { &sl, 1 }, { &far, SLICES - 1 } };
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        {
          const CtrVolume *x = cases[c].r->images->pdata[i];
          g_assert_nonnull (x);
          g_assert_cmpstr (x->unit, ==, w->unit);
          if (last)
            {
              g_assert_true (ctr_grid_equal (&x->grid, grid));
              g_assert_cmpmem (x->data, plane * SLICES * sizeof (float), w->data, plane * SLICES * sizeof (float));
              continue;
            }
          g_assert_cmpuint (x->grid.nz, ==, 1);
          g_assert_cmpuint (x->grid.nx, ==, grid->nx);
          g_assert_cmpfloat (x->grid.cz, ==, ctr_grid_z (grid, cases[c].z));
          g_assert_cmpfloat (x->grid.cx, ==, grid->cx);
          /* that slice of the whole image, and not another */
          g_assert_cmpmem (x->data, plane * sizeof (float), w->data + cases[c].z * plane, plane * sizeof (float));
          g_assert_true (memcmp (x->data, w->data + ((cases[c].z + 1) % SLICES) * plane, plane * sizeof (float)) != 0);
        }
      g_assert_true (last ? none.images->pdata[i] != NULL : none.images->pdata[i] == NULL);
      const double r = g_array_index (vol.residuals, double, i);
      g_assert_true (isfinite (r));
      g_assert_cmpfloat (g_array_index (sl.residuals, double, i), ==, r);
      g_assert_cmpfloat (g_array_index (none.residuals, double, i), ==, r);
    }
  const gsize bytes = plane * SLICES * sizeof (float);
  g_assert_cmpmem (s->data, bytes, v->data, bytes);
  g_assert_cmpmem (f->data, bytes, v->data, bytes);
  g_assert_cmpmem (n->data, bytes, v->data, bytes);
  reports_clear (&vol);
  reports_clear (&sl);
  reports_clear (&far);
  reports_clear (&none);
}

/* An unknown mode is refused with the option's name. */
static void
test_invalid (void)
{
  CtrReconOptions o;
  g_autoptr (GError) e = NULL;
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.report_image = (CtrReportImage) 7;
  g_assert_false (ctr_recon_options_validate (&o, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (e->message, "report image"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/report-image/modes", test_modes);
  g_test_add_func ("/report-image/invalid", test_invalid);
  return g_test_run ();
}
