/* test-residual-report.c — the data residual every method reports is the
 * exact ||b − A x|| / ||b|| of the image it reports, recomputed here from the
 * reported image with the reference CSR matrix (ctr_sysmat_apply, not the
 * run's operator) over the valid rays: for every iterative method, with the
 * stored matrix and on the fly, after every iteration (CTR_RESIDUAL_EVERY)
 * and after the last (CTR_RESIDUAL_FINAL, where the others are NaN unless
 * the method has them at no cost).  The images of both reports are the same
 * bit for bit: the report changes what is computed beside the iteration,
 * never the iteration. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-sysmat.h"

#define N 40
#define ITERATIONS 4
#define DEAD_COL 17

static CtrGeometry *
fan_geometry (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 60);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 250;
  g->sdd_mm = 500;
  g->n_cols = 64;
  g->n_rows = 1;
  g->pitch_u = 2 * asin (36.0 / 250) / 64;   /* radians: ±36 mm at the isocentre */
  ctr_geometry_set_uniform_angles (g, 0.1, 2 * G_PI / 60);
  return g;
}

/* A disc with an off-centre blob, and a little deterministic noise on its
 * projections (so that no method reaches a zero residual), a dead column
 * holding garbage (its rays count nowhere). */
static CtrProjections *
scan (const CtrGeometry *g, const CtrGrid *grid)
{
  g_autoptr (CtrVolume) x = ctr_volume_new (grid, NULL);
  for (guint iy = 0; iy < grid->ny; iy++)
    for (guint ix = 0; ix < grid->nx; ix++)
      {
        const double px = ctr_grid_x (grid, ix), py = ctr_grid_y (grid, iy);
        x->data[iy * grid->nx + ix] = (float) ((px * px + py * py < 28.0 * 28.0 ? 0.02 : 0.0)
                                               + 0.01 * exp (-((px - 7) * (px - 7) + (py + 5) * (py + 5)) / 32.0));
      }
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, grid, CTR_RAY_MODEL_JOSEPH, NULL, NULL);
  CtrProjections *p = ctr_projections_new (g->n_views, 1, g->n_cols, CTR_PROJ_LINE_INTEGRALS, NULL);
  ctr_sysmat_apply (a, x->data, p->data, 1);
  GRand *r = g_rand_new_with_seed (36);
  for (gsize q = 0; q < (gsize) g->n_views * g->n_cols; q++)
    p->data[q] += (float) (0.01 * (g_rand_double (r) - 0.5));
  g_rand_free (r);
  p->mask = g_new (guint8, g->n_cols);
  memset (p->mask, 1, g->n_cols);
  p->mask[DEAD_COL] = 0;
  for (guint v = 0; v < g->n_views; v++)
    ctr_projections_view (p, v)[DEAD_COL] = 1000.f;
  return p;
}

typedef struct {
  guint n;
  double residual[ITERATIONS];
  float *image[ITERATIONS];
} Reports;

static void
on_iter (const CtrIterStats *s, gpointer data)
{
  Reports *r = data;
  g_assert_cmpuint (s->iteration, ==, r->n + 1);
  g_assert_cmpuint (r->n, <, ITERATIONS);
  r->residual[r->n] = s->residual;
  r->image[r->n] = g_memdup2 (s->image->data, ctr_grid_size (&s->image->grid) * sizeof (float));
  r->n++;
}

static void
reports_clear (Reports *r)
{
  for (guint i = 0; i < r->n; i++)
    g_free (r->image[i]);
}

/* ||b − A x|| / ||b|| over the live detector pixels, in double. */
static double
independent_residual (const CtrSysmat *a, const CtrProjections *p, const float *x)
{
  const gsize n = (gsize) p->n_views * p->n_cols;
  g_autofree float *ax = g_new (float, n);
  ctr_sysmat_apply (a, x, ax, 1);
  double num = 0, den = 0;
  for (gsize q = 0; q < n; q++)
    if (p->mask[q % p->n_cols])
      {
        const double d = (double) p->data[q] - ax[q];
        num += d * d;
        den += (double) p->data[q] * p->data[q];
      }
  return sqrt (num / den);
}

/* SIRT on the host keeps A x between iterations and CGLS its residual
 * vector: their residuals are free, so reported also when not asked for
 * (1).  PWLS has it when it watches its objective (small subsets: maybe,
 * -1).  The others pay a forward projection for it, so report NaN (0). */
static int
residual_free (CtrMethod m)
{
  return m == CTR_METHOD_SIRT || m == CTR_METHOD_CGLS ? 1 : m == CTR_METHOD_PWLS ? -1 : 0;
}

typedef struct {
  CtrMethod method;
  CtrMatrixFormat matrix;
} Case;

static void
test_residual (gconstpointer data)
{
  const Case *c = data;
  g_autoptr (CtrGeometry) g = fan_geometry ();
  CtrGrid grid = ctr_grid_square (N, 64.0 / N, 1, 1);
  g_autoptr (CtrProjections) p = scan (g, &grid);
  Reports rep[2] = { { 0 }, { 0 } };
  g_autoptr (CtrSysmat) a = NULL;
  for (guint k = 0; k < 2; k++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, c->method);
      o.iterations = ITERATIONS;
      o.matrix = c->matrix;
      o.backend = "cpu";
      o.residual = k == 0 ? CTR_RESIDUAL_EVERY : CTR_RESIDUAL_FINAL;
      if (a == NULL)
        a = ctr_sysmat_build (g, &grid, o.ray_model, NULL, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrVolume) x = ctr_reconstruct (g, p, &grid, &o, NULL, on_iter, &rep[k], NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (x);
      g_assert_cmpuint (rep[k].n, ==, ITERATIONS);
      g_assert_cmpmem (x->data, ctr_grid_size (&grid) * sizeof (float), rep[k].image[ITERATIONS - 1],
                       ctr_grid_size (&grid) * sizeof (float));
    }
  for (guint i = 0; i < ITERATIONS; i++)
    {
      /* the same images, whichever report */
      g_assert_cmpmem (rep[0].image[i], ctr_grid_size (&grid) * sizeof (float), rep[1].image[i],
                       ctr_grid_size (&grid) * sizeof (float));
      const double want = independent_residual (a, p, rep[0].image[i]);
      g_test_message ("%s iteration %u: reported %.7g / %.7g, recomputed %.7g", ctr_method_name (c->method), i + 1,
                      rep[0].residual[i], rep[1].residual[i], want);
      g_assert_cmpfloat (want, >, 1e-3);   /* the noise keeps it well above rounding */
      g_assert_cmpfloat_with_epsilon (rep[0].residual[i], want, 1e-4 * want);
      const int free = residual_free (c->method);
      if (i == ITERATIONS - 1 || free == 1 || (free == -1 && !isnan (rep[1].residual[i])))
        g_assert_cmpfloat_with_epsilon (rep[1].residual[i], want, 1e-4 * want);
      else
        g_assert_true (isnan (rep[1].residual[i]));
    }
  reports_clear (&rep[0]);
  reports_clear (&rep[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  static const CtrMethod methods[] = { CTR_METHOD_ART, CTR_METHOD_PART, CTR_METHOD_SART, CTR_METHOD_SIRT,
                                       CTR_METHOD_CGLS, CTR_METHOD_PWLS, CTR_METHOD_ASD_POCS };
  static const CtrMatrixFormat matrices[] = { CTR_MATRIX_AUTO, CTR_MATRIX_NONE };
  static Case cases[G_N_ELEMENTS (methods) * G_N_ELEMENTS (matrices)];
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    for (guint j = 0; j < G_N_ELEMENTS (matrices); j++)
      {
        cases[n] = (Case) { methods[i], matrices[j] };
        g_autofree char *path = g_strdup_printf ("/ctr/core/residual/%s/%s", ctr_method_name (methods[i]),
                                                 matrices[j] == CTR_MATRIX_NONE ? "on-the-fly" : "stored");
        g_test_add_data_func (path, &cases[n], test_residual);
        n++;
      }
  return g_test_run ();
}
