/* test-phantom.c — analytic phantoms: chords, projections, images. */
#include <math.h>
#include <string.h>
#include "ctrecon.h"

/* Chord of a disc against 2√(r² - d²), d = distance of the line from the centre. */
static void
test_chord_disc (void)
{
  const double cx = 12.5, cy = -7.0, r = 40.0;
  CtrEllipse e = { cx, cy, r, r, 0.3, 1.0 };
  guint n_hit = 0;
  for (guint i = 0; i < 2000; i++)
    {
      double th = 2.0 * G_PI * i / 2000.0 + 0.01;
      double d = -50.0 + 100.0 * ((i * 37) % 2000) / 2000.0;   /* signed distance */
      double dir[2] = { cos (th), sin (th) };
      double nrm[2] = { -dir[1], dir[0] };
      double along = -300.0 + (i % 7) * 50.0;  /* origin anywhere on the line */
      double origin[2] = { cx + d * nrm[0] + along * dir[0], cy + d * nrm[1] + along * dir[1] };
      double want = fabs (d) < r ? 2.0 * sqrt (r * r - d * d) : 0.0;
      double got = ctr_ellipse_chord (&e, origin, dir);
      /* near tangency the chord is √(tiny): allow 1e-6 r absolute */
      g_assert_cmpfloat_with_epsilon (got, want, 1e-6 * r);
      n_hit += want > 0;
    }
  g_assert_cmpuint (n_hit, >, 1000);
}

/* A rotated ellipse against the analytic projection (Kak & Slaney Eq. 17):
 * for a centred ellipse with semi-axes A, B rotated by φ, the chord of the
 * line at distance t from the centre with normal angle θ is
 * 2AB √(a² - t²)/a², a² = A² cos²(θ-φ) + B² sin²(θ-φ). */
static void
test_chord_ellipse_rotated (void)
{
  const double A = 30.0, B = 12.0, phi = 0.7, cx = 5.0, cy = 9.0;
  CtrEllipse e = { cx, cy, A, B, phi, 1.0 };
  for (guint i = 0; i < 500; i++)
    {
      double th = G_PI * i / 500.0;
      double t = -35.0 + 70.0 * ((i * 13) % 500) / 500.0;
      double nrm[2] = { cos (th), sin (th) };
      double dir[2] = { -sin (th), cos (th) };
      double origin[2] = { cx + t * nrm[0] - 100 * dir[0], cy + t * nrm[1] - 100 * dir[1] };
      double a2 = A * A * cos (th - phi) * cos (th - phi) + B * B * sin (th - phi) * sin (th - phi);
      double want = t * t < a2 ? 2.0 * A * B * sqrt (a2 - t * t) / a2 : 0.0;
      double got = ctr_ellipse_chord (&e, origin, dir);
      g_assert_cmpfloat_with_epsilon (got, want, 1e-9 * A + (want > 0 ? 1e-7 : 0));
    }
}

static CtrGeometry *
parallel_geometry (guint n_views, guint n_cols, double pitch)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_PARALLEL, n_views);
  g->n_cols = n_cols;
  g->pitch_u = pitch;
  ctr_geometry_set_uniform_angles (g, 0.1, G_PI / n_views);
  return g;
}

/* Parallel projection of an off-centre disc = 2 mu √(r² - (u - u0)²),
 * u0 = x0 cos β + y0 sin β (FORMAT.md: u along (cos β, sin β)). */
static void
test_project_disc_parallel (void)
{
  const double x0 = 20.0, y0 = -10.0, r = 30.0, mu = 0.02;
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (x0, y0, r, mu);
  g_autoptr (CtrGeometry) g = parallel_geometry (36, 201, 0.5);
  g->n_rows = 2;
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (p->n_rows, ==, 2);
  for (guint v = 0; v < g->n_views; v++)
    {
      const float *row = ctr_projections_view (p, v);
      double u0 = x0 * cos (g->angles[v]) + y0 * sin (g->angles[v]);
      for (guint c = 0; c < g->n_cols; c++)
        {
          double d = ctr_geometry_col_u (g, c) - u0;
          double want = d * d < r * r ? 2.0 * mu * sqrt (r * r - d * d) : 0.0;
          g_assert_cmpfloat_with_epsilon (row[c], want, 1e-5);
          g_assert_cmpfloat (row[c + g->n_cols], ==, row[c]);  /* every row the same */
        }
    }
}

/* Σ_c P(c) · pitch = ∫ μ over the plane, for every view (mass conservation). */
static void
test_project_mass (void)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (80.0, 0.02);
  double mass = 0.0;
  for (guint i = 0; i < ph->n; i++)
    mass += G_PI * ph->e[i].a_mm * ph->e[i].b_mm * ph->e[i].value;
  g_autoptr (CtrGeometry) g = parallel_geometry (45, 2000, 0.1);
  ctr_geometry_set_uniform_angles (g, 0.0, 2.0 * G_PI / 45);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 4, &error);
  g_assert_no_error (error);
  double worst = 0.0;
  for (guint v = 0; v < g->n_views; v++)
    {
      const float *row = ctr_projections_view (p, v);
      double s = 0.0;
      for (guint c = 0; c < g->n_cols; c++)
        s += row[c];
      s *= g->pitch_u;
      worst = MAX (worst, fabs (s / mass - 1.0));
    }
  g_test_message ("mass conservation: worst relative error %.2e", worst);
  g_assert_cmpfloat (worst, <, 1e-3);
}

/* FORMAT.md orientation: at β = 0 the source is at (0, -SOD) and u runs
 * along +x, so a disc at x = +30 mm lands on columns with u > 0, at
 * u = SDD·30/SOD (flat) or γ = atan (30/SOD) (curved); a quarter turn
 * later (β = π/2: source at (SOD, 0), u along +y) it is on the central ray. */
static void
test_project_fan_orientation (void)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (30.0, 0.0, 3.0, 0.02);
  for (int curved = 0; curved <= 1; curved++)
    {
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, 4);
      g->shape = curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT;
      g->sod_mm = 500;
      g->sdd_mm = 1000;
      g->n_cols = 401;
      g->pitch_u = curved ? 0.0005 : 0.5;
      ctr_geometry_set_uniform_angles (g, 0.0, G_PI_2);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 4, &error);
      g_assert_no_error (error);

      double want_u = curved ? atan (30.0 / 500.0) : 1000.0 * 30.0 / 500.0;
      const double want[4] = { ctr_geometry_u_col (g, want_u), ctr_geometry_u_col (g, 0.0),
                               ctr_geometry_u_col (g, -want_u), ctr_geometry_u_col (g, 0.0) };
      for (guint v = 0; v < 4; v++)
        {
          const float *row = ctr_projections_view (p, v);
          guint best = 0;
          double num = 0, den = 0;
          for (guint c = 0; c < g->n_cols; c++)
            {
              if (row[c] > row[best])
                best = c;
              num += c * row[c];
              den += row[c];
            }
          g_assert_cmpfloat (row[best], >, 0.0);
          g_assert_cmpfloat (fabs (num / den - want[v]), <, 1.0);
          if (v == 0)
            g_assert_cmpfloat (ctr_geometry_col_u (g, best), >, 0.0);
        }
    }
}

/* Sub-bin rays: a bin's value is the mean over its width, so a wide bin on a
 * disc edge sees a fraction of the chord, and the n-ray mean converges. */
static void
test_project_rays_per_bin (void)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (0.0, 0.0, 10.0, 1.0);
  g_autoptr (CtrGeometry) g = parallel_geometry (1, 3, 20.0);  /* bins [-30,-10],[-10,10],[10,30] */
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 2000, &error);
  g_assert_no_error (error);
  /* mean of 2√(100 - u²) over [-10, 10] = π·100/20 */
  g_assert_cmpfloat_with_epsilon (p->data[1], G_PI * 100.0 / 20.0, 1e-3);
  g_assert_cmpfloat (p->data[0], ==, 0.0);
  g_assert_cmpfloat (p->data[2], ==, 0.0);
}

static void
test_project_errors (void)
{
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (0.0, 0.0, 10.0, 1.0);
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_CONE, 4);
  g->sod_mm = 500;
  g->sdd_mm = 1000;
  g->n_cols = 10;
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_phantom_project (ph, g, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  g->beam = CTR_BEAM_FAN;
  g->sdd_mm = 100;  /* SDD < SOD */
  g_assert_null (ctr_phantom_project (ph, g, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
}

/* The mean over pixels inside a disc equals mu within 1 %; orientation of
 * the image: row 0 is +y, column 0 is -x. */
static void
test_rasterize_disc (void)
{
  const double x0 = 20.0, y0 = 30.0, r = 25.0, mu = 0.02;
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_disc (x0, y0, r, mu);
  CtrGrid grid = ctr_grid_square (128, 1.0, 2, 1.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrVolume) v = ctr_phantom_rasterize (ph, &grid, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (v->unit, ==, "1/mm");
  double sum_in = 0.0, total = 0.0, mx = 0.0, my = 0.0;
  guint n_in = 0;
  for (guint iy = 0; iy < grid.ny; iy++)
    for (guint ix = 0; ix < grid.nx; ix++)
      {
        double x = ctr_grid_x (&grid, ix), y = ctr_grid_y (&grid, iy);
        float val = v->data[iy * grid.nx + ix];
        g_assert_cmpfloat (v->data[grid.nx * grid.ny + iy * grid.nx + ix], ==, val);
        total += val;
        mx += val * x;
        my += val * y;
        if (hypot (x - x0, y - y0) < r - 1.0)
          {
            sum_in += val;
            n_in++;
          }
      }
  g_assert_cmpfloat (fabs (sum_in / n_in / mu - 1.0), <, 0.01);
  /* area × mu within 1 % (edge pixels are partial) */
  g_assert_cmpfloat (fabs (total / (G_PI * r * r * mu) - 1.0), <, 0.01);
  g_assert_cmpfloat (fabs (mx / total - x0), <, 0.05);
  g_assert_cmpfloat (fabs (my / total - y0), <, 0.05);
  /* (x0, y0) = (20, 30) lies right of centre and above it: column > 63.5, row < 63.5 */
  g_assert_cmpfloat (v->data[(guint) (63.5 - 30) * grid.nx + (guint) (63.5 + 20)], ==, (float) mu);
}

/* Shepp-Logan and head: plausible values in the right places. */
static void
test_named_phantoms (void)
{
  g_autoptr (CtrPhantom) sl = ctr_phantom_new_shepp_logan (100.0, 0.02);
  g_assert_cmpuint (sl->n, ==, 10);
  g_assert_cmpfloat_with_epsilon (sl->e[0].b_mm, 92.0, 1e-9);
  g_autoptr (CtrPhantom) head = ctr_phantom_new_head (100.0);
  CtrGrid grid = ctr_grid_square (200, 1.0, 1, 1.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrVolume) v = ctr_phantom_rasterize (head, &grid, 1, &error);
  g_assert_no_error (error);
  /* sample helper: value at (x, y) mm */
#define AT(x, y) v->data[(guint) lround (99.5 - (y)) * 200 + (guint) lround (99.5 + (x))]
  g_assert_cmpfloat_with_epsilon (AT (0.5, 40.5), 0.0202, 1e-6);     /* brain */
  g_assert_cmpfloat_with_epsilon (AT (0.5, -91.5), 0.038, 1e-6);     /* occipital bone */
  g_assert_cmpfloat_with_epsilon (AT (0.5, 89.5), 0.0, 1e-6);        /* frontal sinus: air */
  g_assert_cmpfloat_with_epsilon (AT (0.5, -16.5), 0.03, 1e-6);      /* calcification */
  g_assert_cmpfloat_with_epsilon (AT (9.5, 8.5), 0.0194, 1e-6);      /* ventricle */
  g_assert_cmpfloat_with_epsilon (AT (0.5, 99.5), 0.0, 1e-6);        /* outside */
  g_assert_cmpfloat_with_epsilon (AT (-34.5, 35.5), 0.0202 + 0.000192, 1e-6);  /* lesion */
#undef AT
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/phantom/chord/disc", test_chord_disc);
  g_test_add_func ("/ctr/core/phantom/chord/ellipse-rotated", test_chord_ellipse_rotated);
  g_test_add_func ("/ctr/core/phantom/project/disc-parallel", test_project_disc_parallel);
  g_test_add_func ("/ctr/core/phantom/project/mass", test_project_mass);
  g_test_add_func ("/ctr/core/phantom/project/fan-orientation", test_project_fan_orientation);
  g_test_add_func ("/ctr/core/phantom/project/rays-per-bin", test_project_rays_per_bin);
  g_test_add_func ("/ctr/core/phantom/project/errors", test_project_errors);
  g_test_add_func ("/ctr/core/phantom/rasterize/disc", test_rasterize_disc);
  g_test_add_func ("/ctr/core/phantom/named", test_named_phantoms);
  return g_test_run ();
}
