/* bench-fbp.c — one slice of FBP (ctr_fbp_run) as the Projections page's
 * preview runs it (issue 34: "FBP on one slice, under a second"): a
 * sinogram shaped like head-fan-lowdose's (720 views × 736 columns, curved
 * detector, 0.000593 rad, SOD 595 mm, SDD 1085.6 mm; full scan), its flat
 * and parallel-beam counterparts, each on the default grid of 256² (the
 * preview's largest) and 512² pixels.  The sinogram is a smooth synthetic
 * one: FBP's cost does not depend on the values.
 *
 * Per repeat, interleaved, every (geometry, size) case once.  Reports the
 * median and minimum wall time and the median CPU time of the process (all
 * threads) per slice, and the peak resident memory.  The machine is the
 * main noise: compare builds only side by side in one run.
 *
 * Usage: bench-fbp [--repeats 5] (OMP_NUM_THREADS sets the threads).
 * Prints a table and one JSON line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "ctrecon.h"
#include "analytic/ctr-fbp.h"

enum { N_SIZES = 2, N_GEOMS = 3 };
static const guint sizes[N_SIZES] = { 256, 512 };
static const char *geom_name[N_GEOMS] = { "fan-curved", "fan-flat", "parallel" };

static CtrGeometry *
make_geometry (guint k)
{
  CtrGeometry *g = ctr_geometry_new (k == 2 ? CTR_BEAM_PARALLEL : CTR_BEAM_FAN, 720);
  g->n_cols = 736;
  g->sod_mm = 595.0;
  g->sdd_mm = 1085.6;
  g->shape = k == 1 ? CTR_DETECTOR_FLAT : CTR_DETECTOR_CURVED;
  /* the same field: 0.000593 rad, its arc on the detector, or at the isocentre */
  g->pitch_u = k == 0 ? 0.000593 : k == 1 ? 0.000593 * g->sdd_mm : 0.000593 * g->sod_mm;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / 720);
  return g;
}

static double
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int
main (int argc, char **argv)
{
  gint repeats = 5;
  GOptionEntry entries[] = {
    { "repeats", 0, 0, G_OPTION_ARG_INT, &repeats, "interleaved repeats (default 5)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— one-slice FBP, 720 views × 736 columns");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || repeats < 1)
    {
      fprintf (stderr, "%s\n", error != NULL ? error->message : "--repeats must be >= 1");
      return 2;
    }

  CtrGeometry *g[N_GEOMS];
  CtrProjections *p[N_GEOMS];
  for (guint k = 0; k < N_GEOMS; k++)
    {
      g[k] = make_geometry (k);
      p[k] = ctr_projections_new (g[k]->n_views, 1, g[k]->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      for (guint v = 0; v < g[k]->n_views; v++)
        for (guint c = 0; c < g[k]->n_cols; c++)
          {
            double u = (c - 367.5) / 367.5;
            p[k]->data[(gsize) v * g[k]->n_cols + c] =
              (float) (u * u < 0.8 ? 4.0 * sqrt (0.8 - u * u) * (1.0 + 0.1 * sin (v * 0.05)) : 0.0);
          }
    }

  double *wall = g_new (double, (gsize) N_GEOMS * N_SIZES * repeats);
  double *cpu = g_new (double, (gsize) N_GEOMS * N_SIZES * repeats);
  for (gint r = 0; r < repeats; r++)
    for (guint k = 0; k < N_GEOMS; k++)
      for (guint s = 0; s < N_SIZES; s++)
        {
          CtrGrid grid = ctr_grid_default (g[k], sizes[s], 0.0);
          grid.nz = 1;
          double c0 = cpu_seconds ();
          gint64 t0 = g_get_monotonic_time ();
          CtrVolume *vol = ctr_fbp_run (g[k], p[k], &grid, CTR_FILTER_RAM_LAK, 1.0, NULL, &error);
          gsize i = ((gsize) k * N_SIZES + s) * repeats + r;
          wall[i] = (g_get_monotonic_time () - t0) * 1e-6;
          cpu[i] = cpu_seconds () - c0;
          g_assert_no_error (error);
          ctr_volume_unref (vol);
        }

  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  GString *json = g_string_new ("{\"bench\": \"fbp-slice\", \"views\": 720, \"cols\": 736");
  g_string_append_printf (json, ", \"repeats\": %d, \"peak_rss_mib\": %.1f, \"cases\": [", repeats,
                          ru.ru_maxrss / 1024.0);
  printf ("%-11s %5s  %12s %12s %12s\n", "geometry", "size", "wall median", "wall min", "cpu median");
  for (guint k = 0; k < N_GEOMS; k++)
    for (guint s = 0; s < N_SIZES; s++)
      {
        double *w = wall + ((gsize) k * N_SIZES + s) * repeats, *c = cpu + ((gsize) k * N_SIZES + s) * repeats;
        double wmed = median (w, repeats), wmin = w[0], cmed = median (c, repeats);
        printf ("%-11s %5u  %9.1f ms %9.1f ms %9.1f ms\n", geom_name[k], sizes[s], 1e3 * wmed, 1e3 * wmin,
                1e3 * cmed);
        g_string_append_printf (json, "%s{\"geometry\": \"%s\", \"size\": %u, \"wall_median_ms\": %.2f, "
                                "\"wall_min_ms\": %.2f, \"cpu_median_ms\": %.2f}",
                                k + s > 0 ? ", " : "", geom_name[k], sizes[s], 1e3 * wmed, 1e3 * wmin, 1e3 * cmed);
      }
  g_string_append (json, "]}");
  printf ("peak resident memory %.1f MiB\n%s\n", ru.ru_maxrss / 1024.0, json->str);
  g_string_free (json, TRUE);
  for (guint k = 0; k < N_GEOMS; k++)
    {
      ctr_projections_unref (p[k]);
      ctr_geometry_free (g[k]);
    }
  g_free (wall);
  g_free (cpu);
  return 0;
}
