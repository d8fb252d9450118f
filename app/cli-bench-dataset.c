/* cli-bench-dataset.c — `ctrecon-cli bench dataset` (see cli-bench-dataset.h). */
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cli-bench-dataset.h"
#include "cli-common.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Per-iteration reports, as `reconstruct` takes them (they make the driver
 * compute the residual and the metrics): counted, not printed. */
static void
on_iter (const CtrIterStats *s, gpointer data)
{
  (*(guint *) data)++;
}

int
ctr_cli_bench_dataset (int argc, char **argv)
{
  g_autofree char *method = NULL;
  int iterations = 0, repeats = 3;
  GOptionEntry entries[] = {
    { "method", 'm', 0, G_OPTION_ARG_STRING, &method, "method (default: FDK for a circular cone beam, else FBP)", "M" },
    { "iterations", 'n', 0, G_OPTION_ARG_INT, &iterations, "iterations (default: the method's)", "K" },
    { "repeats", 'r', 0, G_OPTION_ARG_INT, &repeats, "timed reconstructions (default 3)", "R" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("GEOMETRY.json|DICOM — one reconstruction timed in-process");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 2 || repeats < 1 || repeats > 1000 || iterations < 0)
    {
      fprintf (stderr, "ctrecon-cli bench dataset: give one dataset; --repeats 1 to 1000, --iterations >= 1\n");
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (argv[1], NULL, NULL, &error);
  if (d == NULL)
    return ctr_cli_fail (error);
  CtrMethod m = d->geometry->beam == CTR_BEAM_CONE && !ctr_helix_applies (d->geometry) ? CTR_METHOD_FDK
                                                                                        : CTR_METHOD_FBP;
  if (method != NULL && !ctr_method_from_name (method, &m, &error))
    return ctr_cli_fail (error);
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  if (iterations > 0)
    o.iterations = (guint) iterations;
  o.metrics_radius_mm = ctr_geometry_fov_radius_mm (d->geometry);
  const CtrGrid grid = ctr_dataset_default_grid (d);
  g_autoptr (JsonArray) walls = json_array_new ();
  double *t = g_new (double, repeats);
  for (int r = 0; r < repeats; r++)
    {
      const gint64 t0 = g_get_monotonic_time ();
      guint reports = 0;
      g_autoptr (CtrVolume) v = ctr_reconstruct (d->geometry, d->projections, &grid, &o, d->reference, on_iter,
                                                 &reports, NULL, &error);
      t[r] = (g_get_monotonic_time () - t0) * 1e-6;
      if (v == NULL)
        {
          g_free (t);
          return ctr_cli_fail (error);
        }
      json_array_add_double_element (walls, t[r]);
      fprintf (stderr, "  %s %u iterations: %.4f s (%u reports)\n", ctr_method_name (m), o.iterations, t[r],
               reports);
    }
  qsort (t, (size_t) repeats, sizeof (double), cmp_double);
  const double median = repeats % 2 ? t[repeats / 2] : 0.5 * (t[repeats / 2 - 1] + t[repeats / 2]);
  g_free (t);
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, ctr_method_name (m));
  json_builder_set_member_name (b, "iterations");
  json_builder_add_int_value (b, o.iterations);
  json_builder_set_member_name (b, "wall_s");
  json_builder_add_value (b, json_node_init_array (json_node_alloc (), walls));
  json_builder_set_member_name (b, "median_s");
  json_builder_add_double_value (b, median);
  json_builder_set_member_name (b, "peak_rss_mb");
  json_builder_add_double_value (b, ru.ru_maxrss / 1024.0);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree char *text = json_to_string (root, FALSE);
  printf ("%s\n", text);
  return 0;
}
