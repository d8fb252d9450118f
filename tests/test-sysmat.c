/* test-sysmat.c — the slice system matrix: adjointness, orientation, path
 * lengths, and the race-free schedules giving the serial result. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-sysmat.h"
#include "sysmat/ctr-ray-private.h"

typedef struct {
  const char *name;
  CtrBeam beam;
  CtrDetectorShape shape;
  guint n;        /* image n × n */
  guint cols;
  double offset;  /* detector offset in columns */
} Case;

static const Case cases[] = {
  { "parallel-even", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 64, 96, 0 },
  { "parallel-odd-offset", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 63, 91, 2.5 },
  { "fan-flat", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 64, 128, 0 },
  { "fan-flat-offset", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 65, 127, -3.25 },
  { "fan-curved", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 64, 128, 0 },
  { "fan-curved-odd", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 57, 99, 1.5 },
};

static CtrGeometry *
make_geometry (const Case *c, guint views)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, views);
  g->n_cols = c->cols;
  g->shape = c->shape;
  const double fov = 70.0;  /* mm radius the detector must cover */
  if (c->beam == CTR_BEAM_PARALLEL)
    g->pitch_u = 2 * fov / c->cols;
  else
    {
      g->sod_mm = 300;
      g->sdd_mm = 600;
      double gmax = asin (fov / g->sod_mm);
      g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 2 * gmax / c->cols
                                                   : 2 * g->sdd_mm * tan (gmax) / c->cols;
    }
  g->offset_u = c->offset * g->pitch_u;
  /* non-uniform angles on purpose */
  for (guint k = 0; k < views; k++)
    g->angles[k] = 2 * G_PI * k / views + 0.01 * sin (k);
  return g;
}

static void
fill_random (float *a, gsize n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  for (gsize i = 0; i < n; i++)
    a[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
}

static void
test_adjoint (gconstpointer data)
{
  const Case *c = data;
  for (int model = CTR_RAY_MODEL_JOSEPH; model <= CTR_RAY_MODEL_AREA; model++)
    for (guint ns = 1; ns <= 3; ns += 2)
      {
        g_autoptr (CtrGeometry) g = make_geometry (c, 45);
        CtrGrid grid = ctr_grid_square (c->n, 140.0 / c->n, ns, 1);
        g_autoptr (GError) error = NULL;
        g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, model, NULL, &error);
        g_assert_no_error (error);
        const guint64 nr = ctr_sysmat_n_rays (a), np = ctr_sysmat_n_pixels (a);
        g_autofree float *x = g_new (float, np * ns), *y = g_new (float, nr * ns);
        g_autofree float *ax = g_new (float, nr * ns), *aty = g_new (float, np * ns);
        fill_random (x, np * ns, 1);
        fill_random (y, nr * ns, 2);
        ctr_sysmat_apply (a, x, ax, ns);
        ctr_sysmat_apply_adjoint (a, y, aty, ns);
        double lhs = 0, rhs = 0, scale = 0;
        for (gsize i = 0; i < nr * ns; i++)
          {
            lhs += (double) ax[i] * y[i];
            scale += fabs ((double) ax[i] * y[i]);
          }
        for (gsize j = 0; j < np * ns; j++)
          rhs += (double) x[j] * aty[j];
        double rel = fabs (lhs - rhs) / scale;
        g_test_message ("%s model %d slices %u: <Ax,y> = %.9g, <x,A'y> = %.9g, rel %.2e",
                        c->name, model, ns, lhs, rhs, rel);
        g_assert_cmpfloat (rel, <, 1e-5);

        /* The per-view coloured schedule gives the serial (whole-matrix) result. */
        g_autofree float *acc = g_new0 (float, np * ns);
        for (guint v = 0; v < g->n_views; v++)
          ctr_sysmat_apply_adjoint_rows (a, (guint64) v * g->n_cols, (guint64) (v + 1) * g->n_cols,
                                         y, acc, ns);
        double maxdiff = 0, maxval = 0;
        for (gsize j = 0; j < np * ns; j++)
          {
            maxdiff = MAX (maxdiff, fabs (acc[j] - aty[j]));
            maxval = MAX (maxval, fabs (aty[j]));
          }
        g_assert_cmpfloat (maxdiff, <=, 1e-5 * maxval);
      }
}

/* A ray through the middle of the grid along a grid axis has length n·dx;
 * a diagonal one √2·n·dx; both models must agree on that. */
static void
test_path_length (void)
{
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_PARALLEL, 2);
  g->n_cols = 1;
  g->pitch_u = 1;
  g->offset_u = 0.3;   /* off the pixel boundaries */
  g->angles[0] = 0;
  g->angles[1] = G_PI / 4;
  CtrGrid grid = ctr_grid_square (50, 0.8, 1, 1);
  for (int model = CTR_RAY_MODEL_JOSEPH; model <= CTR_RAY_MODEL_AREA; model++)
    {
      g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, model, NULL, NULL);
      float sums[2];
      ctr_sysmat_row_sums (a, NULL, sums);
      g_assert_cmpfloat_with_epsilon (sums[0], 40.0, 1e-4);
      /* Diagonal through (near) the centre: Siddon exact, Joseph n·dx·√2 too. */
      g_assert_cmpfloat (fabs (sums[1] - 40.0 * G_SQRT2), <, 0.8 * G_SQRT2 + 1e-3);
    }
}

/* Orientation (FORMAT.md): a single bright pixel right of the centre (x > 0)
 * is seen at u > 0 for beta = 0; a pixel at the top (y > 0) at u > 0 for beta = pi/2
 * in parallel beam (u along (cos b, sin b)). */
static void
test_orientation (void)
{
  for (int beam = CTR_BEAM_PARALLEL; beam <= CTR_BEAM_FAN; beam++)
    {
      Case c = { "o", beam, CTR_DETECTOR_FLAT, 41, 121, 0 };
      g_autoptr (CtrGeometry) g = make_geometry (&c, 4);
      ctr_geometry_set_uniform_angles (g, 0, G_PI / 2);
      CtrGrid grid = ctr_grid_square (41, 140.0 / 41, 1, 1);
      g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_SIDDON, NULL, NULL);
      g_autofree float *x = g_new0 (float, 41 * 41), *y = g_new0 (float, 4 * 121);
      x[5 * 41 + 30] = 1;   /* row 5 (y > 0, top), column 30 (x > 0, right) */
      ctr_sysmat_apply (a, x, y, 1);
      for (guint v = 0; v < 2; v++)
        {
          double m = 0, s = 0;
          for (guint col = 0; col < 121; col++)
            {
              m += y[v * 121 + col] * ctr_geometry_col_u (g, col);
              s += y[v * 121 + col];
            }
          g_assert_cmpfloat (s, >, 0);
          g_assert_cmpfloat (m / s, >, 5.0);  /* both views: u > 0 */
        }
    }
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 4);
  g->sod_mm = 100;
  g->sdd_mm = 200;
  ctr_geometry_set_uniform_angles (g, 0, G_PI / 2);  /* distinct: a valid geometry, refused for its beam */
  CtrGrid grid = ctr_grid_square (8, 1, 1, 1);
  g_assert_null (ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g->beam = CTR_BEAM_FAN;
  grid.nx = 0;
  g_assert_null (ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  grid.nx = 8;
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  g_assert_null (ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_JOSEPH, cancel, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* The area model's closed form (the trapezoidal tail of a rectangle beyond
 * each edge line) gives the weights of clipping each pixel by the strip:
 * every case above, plus a source close enough that pixels lie behind it
 * (the clipping path) and one whose bins are wider than 45° (also). */
static void
area_rows_agree (const CtrGeometry *g, const CtrGrid *grid)
{
  CtrRayGrid gi;
  ctr_ray_grid_init (&gi, grid);
  const gsize np = (gsize) grid->nx * grid->ny;
  g_autofree float *d1 = g_new (float, np), *d2 = g_new (float, np);
  CtrRowBuf a = { 0 }, b = { 0 };
  double worst = 0, total = 0;
  for (guint v = 0; v < g->n_views; v++)
    for (guint c = 0; c < g->n_cols; c++)
      {
        a.len = b.len = 0;
        ctr_ray_weights (g, &gi, CTR_RAY_MODEL_AREA, v, c, &a);
        ctr_ray_weights_area_clipped (g, &gi, v, c, &b);
        memset (d1, 0, np * sizeof (float));
        memset (d2, 0, np * sizeof (float));
        for (gsize e = 0; e < a.len; e++)
          d1[a.col[e]] += a.val[e];
        for (gsize e = 0; e < b.len; e++)
          d2[b.col[e]] += b.val[e];
        for (gsize q = 0; q < np; q++)
          {
            worst = MAX (worst, fabs ((double) d1[q] - d2[q]));
            total += d2[q];
          }
        /* The same pixels in the same order (the ray's), up to slivers. */
        g_assert_cmpuint (a.len, <=, b.len + 2);
        g_assert_cmpuint (b.len, <=, a.len + 2);
      }
  g_test_message ("area closed form vs clipping: largest difference %.3g mm (pixel %.3g mm)", worst, grid->dx);
  g_assert_cmpfloat (total, >, 0);
  g_assert_cmpfloat (worst, <, 2e-6 * grid->dx);
  ctr_rowbuf_clear (&a);
  ctr_rowbuf_clear (&b);
}

static void
test_area_closed_form (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CtrGeometry) g = make_geometry (&cases[i], 23);
      CtrGrid grid = ctr_grid_square (cases[i].n, 140.0 / cases[i].n, 1, 1);
      area_rows_agree (g, &grid);
    }
  /* The source 60 mm from the centre of a 140 mm grid: pixels behind it. */
  g_autoptr (CtrGeometry) g = make_geometry (&cases[2], 11);
  g->sod_mm = 60;
  g->sdd_mm = 120;
  CtrGrid grid = ctr_grid_square (48, 140.0 / 48, 1, 1);
  area_rows_agree (g, &grid);
  /* Three bins of 40°: edge lines along the slabs. */
  g->sod_mm = 300;
  g->sdd_mm = 600;
  g->n_cols = 3;
  g->shape = CTR_DETECTOR_CURVED;
  g->pitch_u = 40 * G_PI / 180;
  g->offset_u = 0;
  area_rows_agree (g, &grid);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ctr/core/sysmat/adjoint/%s", cases[i].name);
      g_test_add_data_func (path, &cases[i], test_adjoint);
    }
  g_test_add_func ("/ctr/core/sysmat/path-length", test_path_length);
  g_test_add_func ("/ctr/core/sysmat/orientation", test_orientation);
  g_test_add_func ("/ctr/core/sysmat/errors", test_errors);
  g_test_add_func ("/ctr/core/sysmat/area-closed-form", test_area_closed_form);
  return g_test_run ();
}
