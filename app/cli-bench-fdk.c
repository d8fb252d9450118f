/* cli-bench-fdk.c — `ctrecon-cli bench fdk` (see cli-bench-fdk.h).
 *
 * The scan: a water cylinder (μ 0.0192 /mm) of radius 0.4 × the volume's
 * width and height 0.6 × its height, projected with exact line integrals
 * (ctr-phantom3d.c), so the JSON can also state the reconstructed value in
 * the cylinder's centre beside the true one (a sanity check, not a metric).
 * Projection time is not counted.  --backend cuda (a build with CUDA and a
 * device; else CTR_ERROR_BACKEND_UNAVAILABLE) times both GPU back-projection
 * kernels (L1-Tran and texture, gpu/ctr-cuda-fdk.cu) and reports the faster
 * at the top level, both under "kernels"; its seconds are device time
 * (cudaEvent) for filtering, back-projection and transfers, wall clock for
 * the total.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-bench-fdk.h"
#include "cli-common.h"
#include "sim/ctr-phantom3d.h"
#include "analytic/ctr-fdk.h"
#include "plan/ctr-backend.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define MU_WATER CTR_MU_WATER_PER_MM

gboolean
ctr_cli_bench_parse_volume (const char *text, guint n[3])
{
  g_auto (GStrv) parts = g_strsplit_set (text, "xX", -1);
  guint k = g_strv_length (parts);
  if (k != 1 && k != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (parts[k == 1 ? 0 : i], &end, 10);
      if (end == parts[k == 1 ? 0 : i] || *end != '\0' || v == 0 || v > 16384)
        return FALSE;
      n[i] = (guint) v;
    }
  return TRUE;
}

CtrProjections *
ctr_cli_bench_cylinder_scan (guint views, guint rows, guint cols, const guint n[3], double voxel_z,
                             CtrGeometry **g_out, CtrGrid *grid, GError **error)
{
  /* Panel 409.6 mm wide (the W4 set-up: 256 × 1.6 mm), square pixels; the
   * volume fills 245 mm of the field of view (W4: 256 × 0.957 mm). */
  CtrGeometry *g = ctr_geometry_try_new (CTR_BEAM_CONE, views, error);
  if (g == NULL)
    return NULL;
  g->sod_mm = 1000.0;
  g->sdd_mm = 1536.0;
  g->n_rows = rows;
  g->n_cols = cols;
  g->pitch_u = g->pitch_v_mm = 409.6 / cols;
  ctr_geometry_set_uniform_angles (g, 0.0, 2.0 * G_PI / views);
  const double voxel = 245.0 / MAX (n[0], n[1]), dz = voxel_z > 0.0 ? voxel_z : voxel;
  *grid = (CtrGrid) { n[0], n[1], n[2], voxel, voxel, dz, 0, 0, 0 };
  const double radius = 0.4 * MIN (n[0], n[1]) * voxel, half_h = 0.3 * n[2] * dz;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0, 0, 0, radius, half_h, MU_WATER);
  CtrProjections *p = ctr_phantom3d_project (ph, g, 1, error);
  if (p == NULL)
    {
      ctr_geometry_free (g);
      return NULL;
    }
  *g_out = g;
  return p;
}

int
ctr_cli_bench_fdk (int argc, char **argv)
{
  /* "--detector R C" takes two values: take them out before GOption. */
  guint det_rows = 0, det_cols = 0;
  g_autofree char **args = g_new0 (char *, argc + 1);
  int nargs = 0;
  for (int i = 0; i < argc; i++)
    {
      if (i > 0 && strcmp (argv[i], "--detector") == 0)
        {
          if (i + 2 >= argc)
            {
              fprintf (stderr, "ctrecon-cli bench fdk: --detector takes two numbers, ROWS COLS\n");
              return 2;
            }
          char *e1 = NULL, *e2 = NULL;
          guint64 r = g_ascii_strtoull (argv[i + 1], &e1, 10), c = g_ascii_strtoull (argv[i + 2], &e2, 10);
          if (*e1 != '\0' || *e2 != '\0' || r == 0 || c == 0 || r > 16384 || c > 16384)
            {
              fprintf (stderr, "ctrecon-cli bench fdk: --detector takes two positive numbers, got '%s %s'\n",
                       argv[i + 1], argv[i + 2]);
              return 2;
            }
          det_rows = (guint) r;
          det_cols = (guint) c;
          i += 2;
          continue;
        }
      args[nargs++] = argv[i];
    }

  g_autofree char *volume = NULL, *backend = NULL;
  int views = 0, repeat = 1;
  GOptionEntry entries[] = {
    { "volume", 0, 0, G_OPTION_ARG_STRING, &volume, "volume of N³ or NX × NY × NZ voxels (default 256)", "N|NXxNYxNZ" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views over 360° (default 360)", "V" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "cpu (default) or cuda", "B" },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "runs; the fastest is reported (default 1)", "K" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— time FDK on a synthetic cone-beam scan");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "--detector ROWS COLS: the flat panel (default 256 256).\n"
      "Prints one JSON object as the last line of standard output.");
  char **pargv = args;
  if (!ctr_cli_parse (ctx, &nargs, &pargv))
    return 2;
  if (nargs != 1)
    {
      fprintf (stderr, "ctrecon-cli bench fdk: unexpected argument '%s'\n", pargv[1]);
      return 2;
    }
  guint n[3] = { 256, 256, 256 };
  if (volume != NULL && !ctr_cli_bench_parse_volume (volume, n))
    {
      fprintf (stderr, "ctrecon-cli bench fdk: --volume takes N or NXxNYxNZ, got '%s'\n", volume);
      return 2;
    }
  if (views == 0)
    views = 360;
  if (det_rows == 0)
    det_rows = det_cols = 256;
  if (views < 1 || views > 100000 || repeat < 1 || repeat > 100)
    {
      fprintf (stderr, "ctrecon-cli bench fdk: --views must be in 1..100000 and --repeat in 1..100\n");
      return 2;
    }
  const gboolean on_gpu = backend != NULL && g_ascii_strcasecmp (backend, "cuda") == 0;
  if (backend != NULL && !on_gpu && g_ascii_strcasecmp (backend, "cpu") != 0 && g_ascii_strcasecmp (backend, "auto") != 0)
    {
      g_autoptr (GError) error = g_error_new (CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                                              "unknown FDK backend '%s' (cpu or cuda)", backend);
      return ctr_cli_fail (error);
    }
  if (on_gpu)
    {
      g_autoptr (GError) error = NULL;
      const CtrBackend *b = ctr_backend_by_name ("cuda", &error);
      if (b == NULL)
        return ctr_cli_fail (error);
    }

  g_autoptr (GError) error = NULL;
  CtrGrid grid;
  CtrGeometry *g0 = NULL;
  fprintf (stderr, "bench fdk: projecting a water cylinder, %d views of %u × %u…\n", views, det_rows, det_cols);
  g_autoptr (CtrProjections) p = ctr_cli_bench_cylinder_scan ((guint) views, det_rows, det_cols, n, 0.0, &g0, &grid,
                                                              &error);
  g_autoptr (CtrGeometry) g = g0;
  if (p == NULL)
    return ctr_cli_fail (error);
  const double voxel = grid.dx;

  const double updates = (double) n[0] * n[1] * n[2] * views / 1073741824.0;
  if (on_gpu)
    {
      /* both kernels through the backend's FDK (CTR_CUDA_FDK_KERNEL picks
       * one, gpu/README.md), the fastest of @repeat runs each */
      const CtrBackend *cb = ctr_backend_by_name ("cuda", &error);
      CtrBackendRunFdk fdk = cb != NULL ? ctr_backend_fdk (cb) : NULL;
      if (fdk == NULL)
        {
          if (error == NULL)
            g_set_error (&error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "this build has no GPU FDK");
          return ctr_cli_fail (error);
        }
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_FDK);
      o.window = CTR_FILTER_RAM_LAK;
      o.cutoff = 1.0;
      const char *const kernels[2] = { "l1tran", "texture" };
      CtrFdkTimings kb[2];
      float centre_gpu = 0;
      g_autofree char *saved = g_strdup (g_getenv ("CTR_CUDA_FDK_KERNEL"));
      for (int kk = 0; kk < 2; kk++)
        {
          kb[kk].total_s = INFINITY;
          g_setenv ("CTR_CUDA_FDK_KERNEL", kernels[kk], TRUE);
          for (int k = 0; k < repeat; k++)
            {
              CtrFdkTimings t;
              g_autoptr (CtrVolume) v = fdk (cb, g, 0, p, &grid, &o, &t, NULL, &error);
              if (v == NULL)
                return ctr_cli_fail (error);
              fprintf (stderr, "%s run %d: filter %.4f s, back-projection %.4f s, total %.4f s\n",
                       kernels[kk], k + 1, t.filter_s, t.backproject_s, t.total_s);
              if (t.total_s < kb[kk].total_s)
                kb[kk] = t;
              centre_gpu = ctr_volume_slice (v, n[2] / 2)[(gsize) (n[1] / 2) * n[0] + n[0] / 2];
            }
        }
      if (saved != NULL)
        g_setenv ("CTR_CUDA_FDK_KERNEL", saved, TRUE);
      else
        g_unsetenv ("CTR_CUDA_FDK_KERNEL");
      g_autofree char *dev = cb->device_name ? cb->device_name (cb) : g_strdup ("unknown");
      const int f = kb[1].backproject_s < kb[0].backproject_s ? 1 : 0;
      g_autofree char *dev_json = g_strescape (dev, NULL);
      /* other_s: transfers and set-up (total minus filter and back-projection) */
      printf ("{\"benchmark\": \"fdk\", \"backend\": \"cuda\", \"device\": \"%s\", \"kernel\": \"%s\", "
              "\"volume\": [%u, %u, %u], \"voxel_mm\": %.6g, \"views\": %d, \"detector\": [%u, %u], "
              "\"filter_s\": %.6f, \"backproject_s\": %.6f, \"other_s\": %.6f, \"total_s\": %.6f, "
              "\"gups\": %.4f, \"backproject_gups\": %.4f, "
              "\"kernels\": {\"l1tran\": {\"backproject_s\": %.6f, \"backproject_gups\": %.4f, \"total_s\": %.6f}, "
              "\"texture\": {\"backproject_s\": %.6f, \"backproject_gups\": %.4f, \"total_s\": %.6f}}, "
              "\"centre_value_per_mm\": %.6f, \"true_value_per_mm\": %.6f}\n",
              dev_json, kernels[f], n[0], n[1], n[2], voxel, views, det_rows, det_cols,
              kb[f].filter_s, kb[f].backproject_s, kb[f].total_s - kb[f].filter_s - kb[f].backproject_s,
              kb[f].total_s, updates / kb[f].total_s, updates / kb[f].backproject_s,
              kb[0].backproject_s, updates / kb[0].backproject_s, kb[0].total_s,
              kb[1].backproject_s, updates / kb[1].backproject_s, kb[1].total_s,
              centre_gpu, MU_WATER);
      return 0;
    }
  CtrFdkTimings best = { INFINITY, INFINITY, INFINITY };
  g_autoptr (CtrVolume) vol = NULL;
  for (int k = 0; k < repeat; k++)
    {
      CtrFdkTimings t;
      g_clear_pointer (&vol, ctr_volume_unref);
      vol = ctr_fdk_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, &t, NULL, &error);
      if (vol == NULL)
        return ctr_cli_fail (error);
      fprintf (stderr, "run %d: filter %.3f s, back-projection %.3f s, total %.3f s\n",
               k + 1, t.filter_s, t.backproject_s, t.total_s);
      if (t.total_s < best.total_s)
        best = t;
    }
  const float centre = ctr_volume_slice (vol, n[2] / 2)[(gsize) (n[1] / 2) * n[0] + n[0] / 2];
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  printf ("{\"benchmark\": \"fdk\", \"backend\": \"cpu\", \"threads\": %d, "
          "\"volume\": [%u, %u, %u], \"voxel_mm\": %.6g, \"views\": %d, \"detector\": [%u, %u], "
          "\"filter_s\": %.6f, \"backproject_s\": %.6f, \"transfer_s\": 0, \"total_s\": %.6f, "
          "\"gups\": %.4f, \"backproject_gups\": %.4f, "
          "\"centre_value_per_mm\": %.6f, \"true_value_per_mm\": %.6f}\n",
          threads, n[0], n[1], n[2], voxel, views, det_rows, det_cols,
          best.filter_s, best.backproject_s, best.total_s,
          updates / best.total_s, updates / best.backproject_s, centre, MU_WATER);
  return 0;
}
