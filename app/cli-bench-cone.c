/* cli-bench-cone.c — `ctrecon-cli bench cone` (see cli-bench-cone.h): an
 * iterative method on the cone-beam projector pair, timed per iteration.
 * The reconstruction's value in the cylinder's centre is printed beside the
 * true one (a sanity check, not a metric).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cli-bench-cone.h"
#include "cli-bench-fdk.h"
#include "cli-common.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-recon-plan.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Per reported iteration: the wall time since the previous report (all the
 * iteration's work: update, residual, the image brought back), the update's
 * time (device time on a GPU) and the residual's. */
typedef struct {
  GArray *wall, *update, *residual;
  double last_elapsed;
} ConeProgress;

static void
on_iter (const CtrIterStats *s, gpointer data)
{
  ConeProgress *cp = data;
  const double wall = s->elapsed_s - cp->last_elapsed;
  cp->last_elapsed = s->elapsed_s;
  if (s->iteration > 1)   /* the first one's wall time holds the method's set-up */
    g_array_append_val (cp->wall, wall);
  g_array_append_val (cp->update, s->iteration_s);
  g_array_append_val (cp->residual, s->residual_s);
  fprintf (stderr, "  iteration %u: wall %.4f s, update %.4f s, residual %.4f s (%.4e)\n", s->iteration, wall,
           s->iteration_s, s->residual_s, s->residual);
}

static double
median (GArray *a)
{
  double *t = (double *) a->data;
  const guint k = a->len;
  if (k == 0)
    return NAN;
  qsort (t, k, sizeof (double), cmp_double);
  return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}


static double
peak_rss_mib (void)
{
  struct rusage ru;
  return getrusage (RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024.0 : 0.0;
}

int
ctr_cli_bench_cone (int argc, char **argv)
{
  g_autofree char *volume = NULL, *backend_opt = NULL, *method = NULL;
  int views = 360, rows = 256, cols = 256, iterations = 5;
  double device_mb = 0.0, voxel_z = 0.0;
  GOptionEntry entries[] = {
    { "volume", 0, 0, G_OPTION_ARG_STRING, &volume, "volume of N³ or NX × NY × NZ voxels (default 256x256x108)", "N|NXxNYxNZ" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views over 360° (360)", "V" },
    { "rows", 0, 0, G_OPTION_ARG_INT, &rows, "detector rows (256)", "R" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "detector columns (256)", "C" },
    { "method", 'm', 0, G_OPTION_ARG_STRING, &method, "sirt (default), sart, cgls, pwls or asd-pocs", "M" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &iterations, "iterations timed (5)", "K" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_opt, "cpu (default) or cuda", "B" },
    { "voxel-z", 0, 0, G_OPTION_ARG_DOUBLE, &voxel_z,
      "voxel size along z, mm (default: the in-plane size, 245 mm / NX; W4's head grid: 1.5)", "MM" },
    { "device-memory-mb", 0, 0, G_OPTION_ARG_DOUBLE, &device_mb,
      "cuda: the most device memory the cone-beam pair may hold, MiB (as CTR_CUDA_CONE_MEMORY_MB; less than "
      "the whole needs: the pair runs out of core, in z-slabs)", "MB" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— time an iterative method on a synthetic cone-beam scan");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "Prints one JSON object as the last line of standard output.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 1)
    {
      fprintf (stderr, "ctrecon-cli bench cone: unexpected argument '%s'\n", argv[1]);
      return 2;
    }
  if (voxel_z < 0.0 || voxel_z > 1000.0 || !isfinite (voxel_z))
    {
      fprintf (stderr, "ctrecon-cli bench cone: --voxel-z takes a positive size in mm (at most 1000)\n");
      return 2;
    }
  if (device_mb < 0.0 || !isfinite (device_mb))
    {
      fprintf (stderr, "ctrecon-cli bench cone: --device-memory-mb takes a positive number of MiB\n");
      return 2;
    }
  if (device_mb > 0.0)
    {
      char v[G_ASCII_DTOSTR_BUF_SIZE];
      g_setenv ("CTR_CUDA_CONE_MEMORY_MB", g_ascii_dtostr (v, sizeof v, device_mb), TRUE);
    }
  guint n[3] = { 256, 256, 108 };
  if (volume != NULL && !ctr_cli_bench_parse_volume (volume, n))
    {
      fprintf (stderr, "ctrecon-cli bench cone: --volume takes N or NXxNYxNZ, got '%s'\n", volume);
      return 2;
    }
  if (views < 1 || views > 100000 || rows < 1 || rows > 16384 || cols < 2 || cols > 16384 || iterations < 1
      || iterations > 1000)
    {
      fprintf (stderr, "ctrecon-cli bench cone: --views 1..100000, --rows 1..16384, --cols 2..16384, "
                       "--iterations 1..1000\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  CtrMethod m = CTR_METHOD_SIRT;
  if (method != NULL && !ctr_method_from_name (method, &m, &error))
    return ctr_cli_fail (error);
  if (!ctr_method_is_iterative (m) || m == CTR_METHOD_ART || m == CTR_METHOD_PART)
    {
      fprintf (stderr, "ctrecon-cli bench cone: --method %s does not run on cone beam (sirt, sart, cgls, pwls, "
                       "asd-pocs)\n", method);
      return 2;
    }
  const char *backend = backend_opt != NULL ? backend_opt : "cpu";
  const CtrBackend *be = ctr_backend_by_name (backend, &error);
  if (be == NULL)
    return ctr_cli_fail (error);

  CtrGrid grid;
  CtrGeometry *g0 = NULL;
  fprintf (stderr, "bench cone: projecting a water cylinder, %d views of %d × %d…\n", views, rows, cols);
  g_autoptr (CtrProjections) p = ctr_cli_bench_cylinder_scan ((guint) views, (guint) rows, (guint) cols, n, voxel_z,
                                                              &g0, &grid, &error);
  g_autoptr (CtrGeometry) g = g0;
  if (p == NULL)
    return ctr_cli_fail (error);
  const double voxel = grid.dx;

  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = (guint) iterations;
  o.backend = be->name;
  const gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  if (plan == NULL)
    return ctr_cli_fail (error);
  for (const char *const *k = ctr_recon_plan_get_notes (plan); *k; k++)
    fprintf (stderr, "  %s\n", *k);
  if (!g_str_equal (ctr_recon_plan_get_backend (plan), be->name))
    {
      fprintf (stderr, "ctrecon-cli bench cone: backend %s cannot run this case\n", be->name);
      return 1;
    }
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  ConeProgress cp = { g_array_new (FALSE, FALSE, sizeof (double)), g_array_new (FALSE, FALSE, sizeof (double)),
                      g_array_new (FALSE, FALSE, sizeof (double)), 0.0 };
  g_autoptr (CtrVolume) x = ctr_recon_plan_execute (plan, p, NULL, on_iter, &cp, NULL, &error);
  const double total_s = (g_get_monotonic_time () - t0) / 1e6;
  const guint k = cp.update->len;
  const double wall = median (cp.wall), update = median (cp.update), resid = median (cp.residual);
  g_array_free (cp.wall, TRUE);
  g_array_free (cp.update, TRUE);
  g_array_free (cp.residual, TRUE);
  if (x == NULL)
    return ctr_cli_fail (error);
  const double updates = 2.0 * n[0] * n[1] * n[2] * (double) views / 1073741824.0;
  const float centre = ctr_volume_slice (x, n[2] / 2)[(gsize) (n[1] / 2) * n[0] + n[0] / 2];
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  g_autofree char *dev = be->device_name ? be->device_name (be) : g_strdup ("host CPU");
  g_autofree char *dev_json = g_strescape (dev, NULL);
  g_autofree char *desc_json = g_strescape (info.operator_name ? info.operator_name : "", NULL);
  /* iteration_s: the wall time of a reported iteration (the median from the
   * second on: NaN with one iteration), the figure to compare backends by */
  printf ("{\"benchmark\": \"cone\", \"backend\": \"%s\", \"device\": \"%s\", \"threads\": %d, \"operator\": \"%s\", "
          "\"method\": \"%s\", \"volume\": [%u, %u, %u], \"voxel_mm\": %.6g, \"voxel_z_mm\": %.6g, \"views\": %d, "
          "\"detector\": [%d, %d], "
          "\"iterations\": %u, \"iteration_s\": %.6f, \"update_s\": %.6f, \"residual_s\": %.6f, \"gups\": %.4f, "
          "\"total_s\": %.3f, \"peak_rss_mib\": %.1f, \"device_memory_cap_mib\": %.3f, "
          "\"centre_value_per_mm\": %.6f, \"true_value_per_mm\": %.6f}\n",
          be->name, dev_json, threads, desc_json, ctr_method_name (m), n[0], n[1], n[2], voxel, grid.dz, views, rows,
          cols, k,
          wall, update, resid, updates / wall, total_s, peak_rss_mib (), device_mb, centre, CTR_MU_WATER_PER_MM);
  return 0;
}
