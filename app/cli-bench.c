/* cli-bench.c — `ctrecon-cli bench art|fdk|cone|dataset ...`: the benchmarks of the
 * product's targets (docs/design.md §14), one JSON object as the last line of
 * standard output, progress on stderr.
 *
 * bench art: a synthetic fan-beam scan (W1: --image 512 --views 720 --cols
 * 1024) of the Shepp-Logan phantom (exact line integrals), a plan
 * (ctr-recon-plan.h) whose system matrix is built afresh in the chosen
 * format (the disk cache is off: the build is measured), then K full
 * parallel-ART iterations (cuART Eq. 9; orbit subsets with SCSR, view
 * subsets with CSR unless --subsets says otherwise).  iteration_s is the median over the K iterations of the update
 * alone; gbps is the matrix bytes streamed per iteration (SCSR: once, forward
 * and back-projection fused per row; CSR: twice) over that time.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "cli-common.h"
#include "cli-bench-fdk.h"
#include "cli-bench-cone.h"
#include "cli-bench-dataset.h"
#include "cli-params.h"
#include "plan/ctr-backend.h"

typedef struct {
  GArray *times;
  double rmse, ssim;
} BenchProgress;

static void
on_iter (const CtrIterStats *s, gpointer data)
{
  BenchProgress *bp = data;
  g_array_append_val (bp->times, s->iteration_s);
  bp->rmse = s->rmse;
  bp->ssim = s->ssim;
  fprintf (stderr, "  iteration %u: %.4f s  residual %.4e  RMSE %.4e  SSIM %.4f\n", s->iteration,
           s->iteration_s, s->residual, s->rmse, s->ssim);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static int
bench_art (int argc, char **argv)
{
  /* NULL defaults: GOption replaces a string without freeing the old one,
   * so a g_strdup'd default would leak whenever the option is given. */
  g_autofree char *geometry_opt = NULL, *backend_opt = NULL, *method = NULL;
  int image = 512, views = 720, cols = 1024, slices = 1;
  GOptionEntry entries[] = {
    { "geometry", 0, 0, G_OPTION_ARG_STRING, &geometry_opt, "fan-flat or fan-curved (default)", "G" },
    { "method", 'm', 0, G_OPTION_ARG_STRING, &method, "the iterative method timed: part (default), art, sart, sirt, cgls, pwls, asd-pocs", "M" },
    { "image", 0, 0, G_OPTION_ARG_INT, &image, "image of N × N pixels covering the field of view (512)", "N" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views, uniform over 360° (720)", "V" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "detector columns (1024)", "C" },
    { "slices", 0, 0, G_OPTION_ARG_INT, &slices, "slices reconstructed together (1)", "S" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend_opt, "cpu (default), cuda (SCSR kernel) or cusparse (CSR SpMV baseline); GPU ones need --matrix scsr", "B" },
    { NULL }
  };
  static const char *const method_params[] = { "matrix", "ray-model", "subsets", "iterations", "relaxation",
                                               "part-step", NULL };
  g_autoptr (CtrCliParams) params = ctr_cli_params_new (method_params);
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- time an iterative method (parallel ART by default) on a synthetic fan-beam scan");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_main_entries (ctx, ctr_cli_params_entries (params), NULL);
  g_option_context_set_description (ctx, "Defaults: --method part, --matrix scsr, --iterations 5, the method's ray model (area; Joseph for pwls) and relaxation.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  const char *geometry = geometry_opt != NULL ? geometry_opt : "fan-curved";
  const char *backend = backend_opt != NULL ? backend_opt : "cpu";
  if (image < 8 || views < 1 || cols < 2 || slices < 1)
    {
      fprintf (stderr, "ctrecon-cli bench art: --image >= 8, --views >= 1, --cols >= 2, --slices >= 1\n");
      return 2;
    }
  gboolean curved = g_str_equal (geometry, "fan-curved");
  if (!curved && !g_str_equal (geometry, "fan-flat"))
    {
      fprintf (stderr, "ctrecon-cli bench art: unknown --geometry '%s' (fan-flat or fan-curved)\n", geometry);
      return 2;
    }
  CtrMethod m = CTR_METHOD_PART;
  g_autoptr (GError) error = NULL;
  if (method != NULL && !ctr_method_from_name (method, &m, &error))
    return ctr_cli_fail (error);
  if (!ctr_method_is_iterative (m))
    {
      fprintf (stderr, "ctrecon-cli bench art: --method %s is not iterative\n", method);
      return 2;
    }
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = 5;
  if (!ctr_cli_params_apply (params, &o, "bench art"))
    return 2;
  const int iterations = (int) o.iterations;
  if (o.matrix == CTR_MATRIX_AUTO)
    o.matrix = CTR_MATRIX_SCSR;   /* the benchmark measures a stored matrix unless told otherwise */
  const char *matrix = ctr_param_find ("matrix")->choices[o.matrix];
  const char *model = ctr_param_find ("ray-model")->choices[o.ray_model];
  if (!ctr_recon_options_validate (&o, &error))
    return ctr_cli_fail (error);
  /* No silent fallback in a benchmark: the backend named runs or the bench fails. */
  const CtrBackend *be = ctr_backend_by_name (backend, &error);
  if (be == NULL)
    return ctr_cli_fail (error);
  if (be != ctr_backend_cpu () && o.matrix != CTR_MATRIX_SCSR)
    {
      fprintf (stderr, "ctrecon-cli bench art: --backend %s runs on --matrix scsr (cusparse expands it to CSR itself)\n", backend);
      return 2;
    }

  /* Synthetic geometry: SOD 500 mm, SDD 1000 mm, field of view of radius
   * 125 mm filled by the detector; the image square circumscribes it. */
  const double fov = 125.0;
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (CTR_BEAM_FAN, (guint) views, &error);
  if (g == NULL)
    return ctr_cli_fail (error);
  g->shape = curved ? CTR_DETECTOR_CURVED : CTR_DETECTOR_FLAT;
  g->sod_mm = 500;
  g->sdd_mm = 1000;
  g->n_cols = (guint) cols;
  g->n_rows = (guint) slices;
  g->pitch_v_mm = 1.0;
  double gmax = asin (fov / g->sod_mm);
  g->pitch_u = curved ? 2 * gmax / cols : 2 * g->sdd_mm * tan (gmax) / cols;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / views);
  CtrGrid grid = ctr_grid_square ((guint) image, 2 * fov / image, (guint) slices, 1.0);

  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (0.95 * fov, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 1, &error);
  if (p == NULL)
    return ctr_cli_fail (error);
  CtrGrid one = grid;
  one.nz = 1;
  g_autoptr (CtrVolume) ref1 = ctr_phantom_rasterize (ph, &one, 4, &error);
  g_autoptr (CtrVolume) ref = ctr_volume_new (&grid, &error);
  if (ref1 == NULL || ref == NULL)
    return ctr_cli_fail (error);
  for (int s = 0; s < slices; s++)
    memcpy (ctr_volume_slice (ref, s), ref1->data, ctr_grid_slice_size (&one) * sizeof (float));

  fprintf (stderr, "bench art: %s, %d² image, %d views × %d columns, %s (%s model), %d slice(s), %d thread(s)\n",
           geometry, image, views, cols, matrix, model, slices, omp_get_max_threads ());
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  json_builder_begin_object (jb);
  json_builder_set_member_name (jb, "benchmark"); json_builder_add_string_value (jb, "art");
  json_builder_set_member_name (jb, "method"); json_builder_add_string_value (jb, ctr_method_name (m));
  json_builder_set_member_name (jb, "geometry"); json_builder_add_string_value (jb, geometry);
  json_builder_set_member_name (jb, "image"); json_builder_add_int_value (jb, image);
  json_builder_set_member_name (jb, "views"); json_builder_add_int_value (jb, views);
  json_builder_set_member_name (jb, "cols"); json_builder_add_int_value (jb, cols);
  json_builder_set_member_name (jb, "slices"); json_builder_add_int_value (jb, slices);
  json_builder_set_member_name (jb, "matrix"); json_builder_add_string_value (jb, matrix);
  json_builder_set_member_name (jb, "ray_model"); json_builder_add_string_value (jb, model);
  json_builder_set_member_name (jb, "threads"); json_builder_add_int_value (jb, omp_get_max_threads ());
  json_builder_set_member_name (jb, "backend"); json_builder_add_string_value (jb, be->name);
  g_autofree char *device = be->device_name ? be->device_name (be) : NULL;
  const double peak_gbs = be->peak_bandwidth_gbs ? be->peak_bandwidth_gbs (be) : 0.0;
  if (device)
    {
      fprintf (stderr, "  backend %s on %s (peak %.0f GB/s)\n", be->name, device, peak_gbs);
      json_builder_set_member_name (jb, "device"); json_builder_add_string_value (jb, device);
      json_builder_set_member_name (jb, "peak_gbps"); json_builder_add_double_value (jb, peak_gbs);
    }

  BenchProgress bp = { g_array_new (FALSE, FALSE, sizeof (double)), NAN, NAN };
  o.backend = be->name;
  g_setenv ("CTR_MATRIX_CACHE", "0", TRUE);
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  if (plan == NULL)
    return ctr_cli_fail (error);
  if (!g_str_equal (ctr_recon_plan_get_backend (plan), be->name))
    {
      /* No silent fallback in a benchmark. */
      for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
        fprintf (stderr, "  %s\n", *n);
      fprintf (stderr, "ctrecon-cli bench art: backend %s cannot run this case\n", be->name);
      return 1;
    }
  CtrPlanInfo info;
  /* The blocked layouts' padding concerns the GPU kernels; on the CPU it
   * would only add their copies of the matrix to the peak memory. */
  ctr_recon_plan_get_info (plan, be != ctr_backend_cpu (), &info);
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    fprintf (stderr, "  %s\n", *n);
  fprintf (stderr, "  %s: %u stored views of %d, %.1f MiB, built in %.2f s\n", info.operator_name,
           info.stored_views, views, info.matrix_bytes / 1048576.0, info.setup_s);
  json_builder_set_member_name (jb, "operator"); json_builder_add_string_value (jb, info.operator_name);
  json_builder_set_member_name (jb, "build_s"); json_builder_add_double_value (jb, info.setup_s);
  json_builder_set_member_name (jb, "matrix_bytes"); json_builder_add_int_value (jb, (gint64) info.matrix_bytes);
  json_builder_set_member_name (jb, "nnz"); json_builder_add_int_value (jb, (gint64) info.nnz);
  json_builder_set_member_name (jb, "nnz_expanded"); json_builder_add_int_value (jb, (gint64) info.nnz_expanded);
  json_builder_set_member_name (jb, "stored_views"); json_builder_add_int_value (jb, info.stored_views);
  json_builder_set_member_name (jb, "symmetry"); json_builder_add_string_value (jb, info.symmetry);
  json_builder_set_member_name (jb, "padding"); json_builder_add_double_value (jb, isnan (info.padding_view) ? 0.0 : info.padding_view);
  if (!isnan (info.padding_global))
    {
      json_builder_set_member_name (jb, "padding_global"); json_builder_add_double_value (jb, info.padding_global);
    }
  /* Bytes streamed per iteration: SCSR once (forward and back-projection
   * fused per row); CSR (8 B per element + row pointers) twice. */
  double bytes_per_iteration = (double) info.matrix_bytes;
  if (g_str_equal (info.operator_name, "cusparse-csr"))
    bytes_per_iteration = 2.0 * (info.nnz_expanded * 8.0 + ((double) views * cols + 1) * 4.0);
  else if (g_str_equal (info.operator_name, "cpu-csr"))
    bytes_per_iteration = 2.0 * info.matrix_bytes;
  g_autoptr (CtrVolume) x = ctr_recon_plan_execute (plan, p, ref, on_iter, &bp, NULL, &error);
  if (x == NULL)
    return ctr_cli_fail (error);
  double *t = (double *) bp.times->data;
  qsort (t, bp.times->len, sizeof (double), cmp_double);
  double med = bp.times->len % 2 ? t[bp.times->len / 2] : 0.5 * (t[bp.times->len / 2 - 1] + t[bp.times->len / 2]);
  json_builder_set_member_name (jb, "iterations"); json_builder_add_int_value (jb, iterations);
  json_builder_set_member_name (jb, "iteration_s"); json_builder_add_double_value (jb, med);
  json_builder_set_member_name (jb, "iteration_s_min"); json_builder_add_double_value (jb, t[0]);
  json_builder_set_member_name (jb, "gbps"); json_builder_add_double_value (jb, bytes_per_iteration / med / 1e9);
  json_builder_set_member_name (jb, "rmse"); json_builder_add_double_value (jb, bp.rmse);
  json_builder_set_member_name (jb, "ssim"); json_builder_add_double_value (jb, bp.ssim);
  json_builder_end_object (jb);
  g_array_free (bp.times, TRUE);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (jb);
  json_generator_set_root (gen, root);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  return 0;
}

int
ctr_cli_bench (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "art") == 0)
    {
      g_set_prgname ("ctrecon-cli bench art");  /* GOption's usage line */
      return bench_art (argc - 1, argv + 1);
    }
  if (argc >= 2 && strcmp (argv[1], "fdk") == 0)
    {
      g_set_prgname ("ctrecon-cli bench fdk");
      return ctr_cli_bench_fdk (argc - 1, argv + 1);
    }
  if (argc >= 2 && strcmp (argv[1], "cone") == 0)
    {
      g_set_prgname ("ctrecon-cli bench cone");
      return ctr_cli_bench_cone (argc - 1, argv + 1);
    }
  if (argc >= 2 && strcmp (argv[1], "dataset") == 0)
    {
      g_set_prgname ("ctrecon-cli bench dataset");
      return ctr_cli_bench_dataset (argc - 1, argv + 1);
    }
  fprintf (stderr, "Usage: ctrecon-cli bench art|fdk|cone|dataset [OPTION…]   ('ctrecon-cli bench art --help')\n");
  return 2;
}
