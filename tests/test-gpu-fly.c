/* test-gpu-fly.c — the GPU's on-the-fly fan/parallel projector pair
 * (gpu/ctr-cuda-fly.cu) against the CPU's on-the-fly operator
 * (core/sysmat/ctr-fly-op.c), for the three ray models, with orbit subsets
 * and with one view per subset, and its adjointness.  Exit 77 (skipped)
 * without a CUDA build or a device.  Problems are tiny (the emulation
 * harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |GPU − CPU| / max |CPU| ≤ 1e-5: the same rows (the ray
 * table is the CPU's ray set-up, the walks are ctr-ray.c's in double, each
 * weight rounded to float), summed in float in another order (the CPU's
 * orbit rows are the canonical view's mapped by the symmetry, the device
 * computes every ray; the adjoint's atomics land in any order): a few ulps
 * of the largest term.  A wrong weight, a half-pixel shift or a lost ray
 * gives 1e-2 or more.  The cases avoid rays along pixel sides (Siddon's
 * length may go to either neighbour) and exact 45° rays (Joseph's major
 * axis).  Adjointness on the device: |<A x, y> − <x, Aᵀ y>| ≤ 1e-5 ·
 * |<A x, y>|.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-symmetry.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda.h"
#include "ctr-cuda-fly.h"
#endif

#ifdef CTR_HAVE_CUDA

typedef struct {
  const char *name;
  CtrBeam beam;
  CtrDetectorShape shape;
  guint n;          /* image n × n, pixel side 3.3 mm */
  guint cols;
  double offset;    /* detector offset in columns */
  gboolean uniform; /* uniform angles: symmetry orbits */
} Case;

static const Case cases[] = {
  { "parallel", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 20, 28, 0, TRUE },
  { "parallel-odd-offset", CTR_BEAM_PARALLEL, CTR_DETECTOR_FLAT, 19, 27, 2.5, FALSE },
  { "fan-flat", CTR_BEAM_FAN, CTR_DETECTOR_FLAT, 20, 32, 0, TRUE },
  { "fan-curved-offset", CTR_BEAM_FAN, CTR_DETECTOR_CURVED, 21, 31, -1.25, FALSE },
};

static const CtrRayModel models[] = { CTR_RAY_MODEL_JOSEPH, CTR_RAY_MODEL_SIDDON, CTR_RAY_MODEL_AREA };
static const char *const model_names[] = { "joseph", "siddon", "area" };

enum { VIEWS = 12, ROWS = 2 };

static CtrGeometry *
make_geometry (const Case *c)
{
  CtrGeometry *g = ctr_geometry_new (c->beam, VIEWS);
  g->n_cols = c->cols;
  g->n_rows = ROWS;
  g->pitch_v_mm = 1.0;
  g->shape = c->shape;
  const double fov = 36.0;
  if (c->beam == CTR_BEAM_PARALLEL)
    g->pitch_u = 2 * fov / c->cols;
  else
    {
      g->sod_mm = 300;
      g->sdd_mm = 600;
      const double gmax = asin (fov / g->sod_mm);
      g->pitch_u = c->shape == CTR_DETECTOR_CURVED ? 2 * gmax / c->cols : 2 * g->sdd_mm * tan (gmax) / c->cols;
    }
  g->offset_u = c->offset * g->pitch_u;
  for (guint k = 0; k < VIEWS; k++)
    g->angles[k] = 2 * G_PI * k / VIEWS + (c->uniform ? 0.0 : 0.01 * sin (k + 1.0));
  return g;
}

static CtrGrid
make_grid (const Case *c)
{
  /* uniform cases: centred (the orbits of a symmetry group); others shifted */
  CtrGrid grid = { .nx = c->n, .ny = c->n, .nz = ROWS, .dx = 3.3, .dy = 3.3, .dz = 1.0,
                   .cx = c->uniform ? 0.0 : 0.4, .cy = c->uniform ? 0.0 : -0.3 };
  return grid;
}

static void
fill_random (float *a, gsize n, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  for (gsize i = 0; i < n; i++)
    a[i] = (float) g_rand_double_range (r, -1, 1);
  g_rand_free (r);
}

/* max |a − b| / max |b|. */
static double
rel_diff (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      d = MAX (d, fabs ((double) a[i] - b[i]));
      m = MAX (m, fabs ((double) b[i]));
    }
  return m > 0 ? d / m : d;
}

static double
dot (const float *a, const float *b, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) a[i] * b[i];
  return s;
}

typedef struct {
  const Case *c;
  guint model;
  gboolean orbits;
} Param;

/* Forward and adjoint over every ray and over two subsets, GPU against CPU,
 * and the device's adjointness. */
static void
test_products (gconstpointer data)
{
  const Param *p = data;
  g_autoptr (CtrGeometry) g = make_geometry (p->c);
  const CtrGrid grid = make_grid (p->c);
  const CtrRayModel model = models[p->model];
  g_autoptr (GError) error = NULL;
  CtrSymmetry *s1 = p->orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, &error) : NULL;
  g_assert_no_error (error);
  CtrSymmetry *s2 = p->orbits ? ctr_symmetry_find (g, &grid, CTR_SYM_ALL, &error) : NULL;
  g_assert_no_error (error);
  if (p->orbits && p->c->uniform)
    g_assert_cmpuint (s1->group.order, >, 1);
  CtrCudaFly *f = ctr_cuda_fly_new (g, &grid, model, s1, &error);
  if (s1 != NULL)
    ctr_symmetry_free (s1);
  g_assert_no_error (error);
  g_autoptr (CtrOperator) cpu = ctr_fly_op_new (g, &grid, model, s2, &error);
  g_assert_no_error (error);
  const gsize ni = cpu->image_size, nd = cpu->data_size;
  g_autofree float *x = g_new (float, ni), *y = g_new (float, nd);
  g_autofree float *ag = g_new0 (float, nd), *ac = g_new0 (float, nd);
  g_autofree float *bg = g_new (float, ni), *bc = g_new (float, ni);
  fill_random (x, ni, 7 + p->model);
  fill_random (y, nd, 11 + p->model);
  const guint subsets[] = { CTR_SUBSET_ALL, 1, cpu->n_subsets - 1 };
  for (guint k = 0; k < G_N_ELEMENTS (subsets); k++)
    {
      const guint s = subsets[k];
      memset (ag, 0, nd * sizeof (float));
      memset (ac, 0, nd * sizeof (float));
      g_assert_true (ctr_cuda_fly_forward_host (f, s, x, ag, &error));
      g_assert_no_error (error);
      g_assert_true (cpu->klass->forward (cpu, s, x, ac, &error));
      g_assert_true (ctr_cuda_fly_adjoint_host (f, s, y, bg, &error));
      g_assert_no_error (error);
      g_assert_true (cpu->klass->adjoint (cpu, s, y, bc, &error));
      const double df = rel_diff (ag, ac, nd), da = rel_diff (bg, bc, ni);
      const double ax_y = dot (ag, y, nd), x_aty = dot (x, bg, ni);
      const double adj = fabs (ax_y - x_aty) / fabs (ax_y);
      g_test_message ("subset %d: forward %.2e, adjoint %.2e (of the CPU's maximum), adjointness %.2e",
                      s == CTR_SUBSET_ALL ? -1 : (int) s, df, da, adj);
      g_print ("  %s %s %s subset %d: forward %.2e, adjoint %.2e, adjointness %.2e\n", p->c->name,
               model_names[p->model], p->orbits ? "orbits" : "views", s == CTR_SUBSET_ALL ? -1 : (int) s, df, da,
               adj);
      g_assert_cmpfloat (dot (ac, ac, nd), >, 0.0);
      g_assert_cmpfloat (df, <=, 1e-5);
      g_assert_cmpfloat (da, <=, 1e-5);
      g_assert_cmpfloat (adj, <=, 1e-5);
    }
  ctr_cuda_fly_destroy (f);
}

/* The area model where its closed form does not hold (the grid reaches
 * behind the source): refused with the ray named, not a wrong image. */
static void
test_area_refused (void)
{
  const Case *c = &cases[2];
  g_autoptr (CtrGeometry) g = make_geometry (c);
  g->sod_mm = 30;
  g->sdd_mm = 60;
  const CtrGrid grid = make_grid (c);
  g_autoptr (GError) error = NULL;
  CtrCudaFly *f = ctr_cuda_fly_new (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
  g_assert_null (f);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "closed form"));
  /* the line models take it */
  g_clear_error (&error);
  f = ctr_cuda_fly_new (g, &grid, CTR_RAY_MODEL_JOSEPH, NULL, &error);
  g_assert_no_error (error);
  ctr_cuda_fly_destroy (f);
}

#endif

int
main (int argc, char **argv)
{
#ifndef CTR_HAVE_CUDA
  g_print ("built without CUDA: skipped\n");
  return 77;
#else
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    {
      g_print ("no CUDA device (%s): skipped\n", e->message);
      return 77;
    }
  g_test_init (&argc, &argv, NULL);
  static Param params[G_N_ELEMENTS (cases) * G_N_ELEMENTS (models) * 2];
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint m = 0; m < G_N_ELEMENTS (models); m++)
      for (int o = 0; o < 2; o++)
        {
          params[n] = (Param) { &cases[i], m, o };
          g_autofree char *path = g_strdup_printf ("/ctr/gpu-fly/products/%s/%s/%s", cases[i].name, model_names[m],
                                                   o ? "orbits" : "views");
          g_test_add_data_func (path, &params[n++], test_products);
        }
  g_test_add_func ("/ctr/gpu-fly/area-refused", test_area_refused);
  return g_test_run ();
#endif
}
