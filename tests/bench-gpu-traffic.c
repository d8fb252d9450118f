/* bench-gpu-traffic.c — the traffic model of one parallel-ART iteration of
 * W1 (fan beam, 512² image, 720 views × 1024 columns; docs/design.md §14)
 * or W2 (1024²), per kernel variant of the CUDA backend: the stored rows
 * walked by 1, 2, 4 or 8 warps per row, and the orbit-level blocked layout
 * walked by one thread per blocked row.  Runs on the harness built with
 * CTR_EMU_TRAFFIC (tests/gpu-emu/emu-traffic.cc): every global load, store
 * and atomic of a CUDA thread is counted.  MODELLED figures, not measured
 * on a GPU.
 *
 * For each variant: requested bytes (Σ over warp requests of the distinct
 * 32-byte sectors: L1↔L2 traffic without L1 hits) and the DRAM lower bound
 * (Σ over launches of the distinct sectors read plus written), per
 * iteration, and that bound at 3.35 TB/s (H100 SXM).  Every --sample-th
 * launch of each kernel runs (odd, so that the blocked variant's forward
 * and solve launches both are sampled; the orbits sampled spread over the
 * angles); the totals are scaled by launches seen / run.  The residual's
 * pass (one forward product over all orbits, one launch) is measured apart
 * with every --sample-th block of it run, scaled likewise
 * (CTR_TRAFFIC_RESIDUAL=0 skips it).
 *
 * Usage: bench-gpu-traffic [--image 512|1024] [--sample 9] [--variants rows1,rows2,rows4,rows8,blocked]
 * Prints a Markdown table and one JSON line per variant.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ctrecon.h"
#include "ctr-cuda.h"
#include "ctr-emu.h"
#include "sysmat/ctr-matrix-cache.h"
#include "solve/ctr-iterate.h"
#include "solve/ctr-solvers.h"

#define PEAK_BPS 3.35e12

typedef struct {
  double requested, unique;   /* bytes */
  double launches;
} Totals;

static Totals
collect (void)
{
  CtrEmuTraffic rows[64];
  const unsigned n = ctr_emu_traffic_get (rows, 64);
  Totals t = { 0, 0, 0 };
  for (unsigned i = 0; i < n && i < 64; i++)
    {
      const double scale = (rows[i].executed ? (double) rows[i].launches / rows[i].executed : 0)
                           * (rows[i].blocks_run ? (double) rows[i].blocks / rows[i].blocks_run : 1);
      t.requested += 32.0 * rows[i].sectors * scale;
      t.unique += 32.0 * rows[i].unique_sectors * scale;
      if (strcmp (rows[i].kernel, "cudaMemsetAsync") != 0)
        t.launches += rows[i].launches;
      g_printerr ("    %-26s seen %5llu run %5llu: %.3g requests, %.3g MB requested, %.3g MB unique, %llu atomics (sampled)\n",
                  rows[i].kernel, rows[i].launches, rows[i].executed, (double) rows[i].requests,
                  32e-6 * rows[i].sectors, 32e-6 * rows[i].unique_sectors, rows[i].atomics);
    }
  return t;
}

int
main (int argc, char **argv)
{
  gint image = 512, sample = 9, views = 720, cols = 1024;
  g_autofree char *variants = g_strdup ("rows1,rows2,rows4,rows8,blocked");
  GOptionEntry entries[] = {
    { "image", 0, 0, G_OPTION_ARG_INT, &image, "image size (512: W1, 1024: W2)", "N" },
    { "sample", 0, 0, G_OPTION_ARG_INT, &sample, "run every N-th launch of each kernel (odd)", "N" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views (720)", "N" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "detector columns (1024)", "N" },
    { "variants", 0, 0, G_OPTION_ARG_STRING, &variants, "comma-separated list", "LIST" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— the modelled memory traffic of one parallel-ART iteration");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (!ctr_emu_traffic_enabled ())
    {
      g_printerr ("this harness was built without the traffic model\n");
      return 77;
    }
  /* the geometry of ctrecon-cli bench art */
  const double fov = 125.0;
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, views);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 500;
  g->sdd_mm = 1000;
  g->n_cols = cols;
  g->n_rows = 1;
  g->pitch_v_mm = 1.0;
  g->pitch_u = 2 * asin (fov / g->sod_mm) / cols;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / views);
  CtrGrid grid = ctr_grid_square ((guint) image, 2 * fov / image, 1, 1.0);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (CtrScsr) m = ctr_matrix_cache_get_scsr (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
  if (m == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  g_printerr ("matrix: %u orbits, K = %u, %.1f M stored elements (%.1f s)\n", ctr_scsr_n_orbits (m), ctr_scsr_order (m),
              ctr_scsr_nnz (m) / 1e6, (g_get_monotonic_time () - t0) / 1e6);
  g_autoptr (CtrPhantom) ph = ctr_phantom_new_shepp_logan (0.95 * fov, 0.02);
  g_autoptr (CtrProjections) p = ctr_phantom_project (ph, g, 1, &error);
  if (p == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  const double matrix_bytes = (double) ctr_scsr_nnz (m) * 8;
  printf ("| variant (%s, %d², %d × %d) | requested per iteration | DRAM lower bound per iteration | at 3.35 TB/s | residual pass (lower bound) | launches |\n",
          image == 512 && views == 720 && cols == 1024 ? "W1" : image == 1024 && views == 720 && cols == 1024 ? "W2" : "scaled",
          image, views, cols);
  printf ("|---|---|---|---|---|---|\n");
  g_auto (GStrv) list = g_strsplit (variants, ",", -1);
  for (guint v = 0; list[v]; v++)
    {
      const gboolean blocked = g_str_equal (list[v], "blocked");
      g_setenv ("CTR_CUDA_KERNEL", blocked ? "blocked" : "rows", TRUE);
      if (!blocked)
        g_setenv ("CTR_CUDA_WARPS_PER_ROW", list[v] + 4, TRUE);
      g_printerr ("%s:\n", list[v]);
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_PART);
      o.iterations = 1;
      o.nonnegative = TRUE;
      /* the update, sampled */
      ctr_emu_traffic_reset ();
      ctr_emu_traffic_sample ((guint) sample);
      g_autoptr (CtrOperator) op = ctr_cuda_op_new (m, FALSE, g, &grid, &error);
      g_autoptr (CtrVolume) x = op ? ctr_iterate_run (op, ctr_solver_class (o.method), NULL, NULL, p, &o, NULL, NULL,
                                                      NULL, NULL, NULL, &error) : NULL;
      if (x == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      const Totals up = collect ();
      /* the residual's pass: one forward product over every orbit (one
       * launch, unsampled) on the operator's own session */
      Totals res = { 0, 0, 0 };
      if (!g_str_equal (g_getenv ("CTR_TRAFFIC_RESIDUAL") ? g_getenv ("CTR_TRAFFIC_RESIDUAL") : "1", "0"))
        {
          ctr_emu_traffic_reset ();
          ctr_emu_traffic_sample (1);
          ctr_emu_traffic_sample_blocks ((guint) sample);
          g_autofree float *X = g_new (float, op->image_size), *Y = g_new (float, op->data_size);
          op->klass->image_to_native (op, x->data, X);
          if (!op->klass->forward (op, CTR_SUBSET_ALL, X, Y, &error))
            {
              g_printerr ("%s\n", error->message);
              return 1;
            }
          res = collect ();
          ctr_emu_traffic_sample_blocks (1);
        }
      printf ("| %s | %.1f MB | %.1f MB | %.3f ms | %.1f MB | %.0f |\n", list[v], up.requested / 1e6, up.unique / 1e6,
              up.unique / PEAK_BPS * 1e3, res.unique / 1e6, up.launches);
      fflush (stdout);
      g_printerr ("{\"variant\": \"%s\", \"image\": %d, \"requested_bytes\": %.0f, \"dram_bytes\": %.0f, "
                  "\"modelled_ms\": %.4f, \"residual_dram_bytes\": %.0f, \"matrix_bytes\": %.0f}\n",
                  list[v], image, up.requested, up.unique, up.unique / PEAK_BPS * 1e3, res.unique, matrix_bytes);
      g_unsetenv ("CTR_CUDA_WARPS_PER_ROW");
      g_unsetenv ("CTR_CUDA_KERNEL");
    }
  return 0;
}
