/* bench-scsr-kernels.c — where a W1 parallel-ART iteration's time goes in
 * the CPU orbit kernels (core/sysmat/ctr-scsr.c), apart from the solver
 * around them (issue 18).  The SCSR matrix of a fan-beam workload (default
 * W1: 512² image, 720 views × 1024 curved-detector columns, area model;
 * docs/design.md §14) comes from the matrix cache, built and saved when it
 * is not there.  Each OpenMP thread owns parts of the reps as in the
 * operator (core/sysmat/ctr-scsr-op.c: thread t the parts t, t + T, …).
 *
 * Per repeat, interleaved, four timed passes:
 *   - streamed forward: ctr_scsr_orbit_forward over every orbit (the
 *     stored rows read from memory, as in an iteration's forward half);
 *   - streamed adjoint: ctr_scsr_orbit_adjoint over every orbit (in an
 *     iteration the adjoint re-reads the orbit the forward just read);
 *   - resident forward / adjoint: the middle orbit n_orbits times (its ~7 MB
 *     of rows stay in the last-level cache after the first pass).
 * The matrix is first moved into the compact store the CPU operator uses
 * (ctr_scsr_compact: 6 bytes an element where it qualifies, else 8).
 * Reports nanoseconds per stored element (one 8-lane FMA each), the matrix
 * bytes per second of the streamed passes, and the
 * kernels' share of one iteration: 2 × nnz × streamed ns / threads.  Times
 * are medians (and minima) over the repeats; the machine, not the code, is
 * the main noise: compare builds only side by side in one run.
 *
 * Usage: bench-scsr-kernels [--image 512] [--views 720] [--cols 1024] [--repeats 5]
 * (OMP_NUM_THREADS sets the threads).  Prints a table and one JSON line.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctrecon.h"
#include "sysmat/ctr-matrix-cache.h"
#include "sysmat/ctr-scsr-private.h"

enum { STREAM_FWD, STREAM_ADJ, RES_FWD, RES_ADJ, N_PASS };
static const char *pass_name[N_PASS] = { "forward, streamed", "adjoint, streamed",
                                         "forward, in cache", "adjoint, in cache" };

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* One pass: orbits [o0, o1) (or orbit o0 @times times when @times > 0). */
static double
run_pass (const CtrScsr *m, gboolean adjoint, guint o0, guint o1, guint times,
          const float *X, float *T, float **acc, const float *lanes, gsize lane_size)
{
  const guint P = ctr_scsr_n_parts (m);
  const guint n = times > 0 ? times : o1 - o0;
  const gint64 t0 = g_get_monotonic_time ();
#pragma omp parallel
  {
    const guint t = (guint) omp_get_thread_num (), nt = (guint) omp_get_num_threads ();
    for (guint k = 0; k < n; k++)
      {
        const guint o = times > 0 ? o0 : o0 + k;
        for (guint p = t; p < P; p += nt)
          if (adjoint)
            ctr_scsr_orbit_adjoint (m, o, p, 1, lanes + (gsize) o * lane_size, T);
          else
            ctr_scsr_orbit_forward (m, o, p, 1, X, acc[t]);
      }
  }
  return (g_get_monotonic_time () - t0) / 1e6;
}

int
main (int argc, char **argv)
{
  gint image = 512, views = 720, cols = 1024, repeats = 5;
  GOptionEntry entries[] = {
    { "image", 0, 0, G_OPTION_ARG_INT, &image, "image side in pixels (512)", "N" },
    { "views", 0, 0, G_OPTION_ARG_INT, &views, "views over 360° (720)", "N" },
    { "cols", 0, 0, G_OPTION_ARG_INT, &cols, "detector columns (1024)", "N" },
    { "repeats", 0, 0, G_OPTION_ARG_INT, &repeats, "interleaved repeats (5)", "N" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— CPU SCSR kernel timings (W1 by default)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-scsr-kernels: %s\n", error->message);
      return 2;
    }
  if (image < 8 || image > 8192 || views < 8 || views > 100000 || cols < 8 || cols > 100000
      || repeats < 1 || repeats > 1000)
    {
      fprintf (stderr, "bench-scsr-kernels: --image 8…8192, --views and --cols 8…100000, --repeats 1…1000\n");
      return 2;
    }

  /* The geometry of `ctrecon-cli bench art` (app/cli-bench.c): SOD 500 mm,
   * SDD 1000 mm, a curved detector filling a field of view of radius 125 mm. */
  const double fov = 125.0;
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, (guint) views);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 500;
  g->sdd_mm = 1000;
  g->n_cols = (guint) cols;
  g->n_rows = 1;
  g->pitch_v_mm = 1.0;
  g->pitch_u = 2 * asin (fov / g->sod_mm) / cols;
  ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / views);
  const CtrGrid grid = ctr_grid_square ((guint) image, 2 * fov / image, 1, 1.0);

  gboolean loaded = FALSE;
  g_autofree char *note = NULL;
  const gint64 tb = g_get_monotonic_time ();
  CtrScsr *m = ctr_matrix_cache_get_scsr_full (g, &grid, CTR_RAY_MODEL_AREA, &loaded, &note, NULL, &error);
  if (m == NULL)
    {
      fprintf (stderr, "bench-scsr-kernels: %s\n", error->message);
      return 1;
    }
  const guint no = ctr_scsr_n_orbits (m), K = ctr_scsr_order (m), P = ctr_scsr_n_parts (m);
  const guint T = (guint) omp_get_max_threads ();
  const gsize lane_size = ctr_scsr_lane_size (m, 1) / no, psize = ctr_scsr_packed_size (m, 1);
  /* The store the CPU operator streams (ctr-scsr-op.c): the compact one
   * where the matrix qualifies. */
  const gboolean compact = ctr_scsr_compact (m);
  const double elem_bytes = compact ? 6.0 : (double) sizeof (CtrScsrElem);
  const gint64 *seg_ptr;
  g_assert_true (ctr_scsr_arrays (m, &seg_ptr, NULL, NULL));
  const guint om = no / 2;
  const gsize per_orbit = (gsize) g->n_cols * K * P;
  const double nnz = (double) ctr_scsr_nnz (m);
  const double nnz_mid = (double) (seg_ptr[(gsize) (om + 1) * per_orbit] - seg_ptr[(gsize) om * per_orbit]);
  printf ("bench-scsr-kernels: fan %d², %d views × %d columns, K = %u, %u stored views, %u parts, "
          "%.0f stored elements (%.1f MiB, %.0f bytes each), %u thread(s); matrix %s in %.2f s%s%s\n",
          image, views, cols, K, no, P, nnz, ctr_scsr_bytes (m) / 1048576.0, elem_bytes, T,
          loaded ? "loaded" : "built", (g_get_monotonic_time () - tb) / 1e6, note ? "; " : "", note ? note : "");

  float *X = g_new (float, psize), *D = g_new0 (float, psize);
  float *lanes = g_new (float, lane_size * no);
  float **acc = g_new (float *, T);
  for (gsize i = 0; i < psize; i++)
    X[i] = 1e-3f * (float) (i % 101);
  for (gsize i = 0; i < lane_size * no; i++)
    lanes[i] = 1e-4f * (float) (i % 89);
  for (guint t = 0; t < T; t++)
    acc[t] = g_new0 (float, lane_size);

  double *ns[N_PASS];
  for (guint k = 0; k < N_PASS; k++)
    ns[k] = g_new (double, repeats);
  /* One uncounted pass of each: first touch of the buffers. */
  run_pass (m, FALSE, 0, no, 0, X, D, acc, lanes, lane_size);
  run_pass (m, TRUE, 0, no, 0, X, D, acc, lanes, lane_size);
  for (gint r = 0; r < repeats; r++)
    {
      ns[STREAM_FWD][r] = run_pass (m, FALSE, 0, no, 0, X, D, acc, lanes, lane_size) / nnz * 1e9;
      ns[STREAM_ADJ][r] = run_pass (m, TRUE, 0, no, 0, X, D, acc, lanes, lane_size) / nnz * 1e9;
      ns[RES_FWD][r] = run_pass (m, FALSE, om, om + 1, no, X, D, acc, lanes, lane_size) / (nnz_mid * no) * 1e9;
      ns[RES_ADJ][r] = run_pass (m, TRUE, om, om + 1, no, X, D, acc, lanes, lane_size) / (nnz_mid * no) * 1e9;
    }
  double med[N_PASS], lo[N_PASS];
  printf ("%-20s %12s %12s %14s\n", "pass", "wall ns/elem", "(min)", "matrix GB/s");
  for (guint k = 0; k < N_PASS; k++)
    {
      qsort (ns[k], (gsize) repeats, sizeof (double), cmp_double);
      med[k] = ns[k][repeats / 2];
      lo[k] = ns[k][0];
      printf ("%-20s %12.3f %12.3f %14.2f\n", pass_name[k], med[k], lo[k], elem_bytes / med[k]);
    }
  /* Per element the time of all threads together: one iteration reads every
   * element twice (forward, adjoint). */
  const double iter_s = nnz * (med[STREAM_FWD] + med[STREAM_ADJ]) * 1e-9;
  printf ("kernels of one parallel-ART iteration: %.3f s (median streamed forward + adjoint, %u thread(s))\n",
          iter_s, T);
  printf ("{\"benchmark\":\"scsr-kernels\",\"image\":%d,\"views\":%d,\"cols\":%d,\"threads\":%u,\"parts\":%u,"
          "\"nnz\":%.0f,\"repeats\":%d,\"forward_ns\":%.4f,\"adjoint_ns\":%.4f,\"forward_cached_ns\":%.4f,"
          "\"adjoint_cached_ns\":%.4f,\"kernels_iteration_s\":%.4f}\n",
          image, views, cols, T, P, nnz, repeats, med[STREAM_FWD], med[STREAM_ADJ], med[RES_FWD],
          med[RES_ADJ], iter_s);

  for (guint k = 0; k < N_PASS; k++)
    g_free (ns[k]);
  for (guint t = 0; t < T; t++)
    g_free (acc[t]);
  g_free (acc);
  g_free (lanes);
  g_free (X);
  g_free (D);
  ctr_scsr_unref (m);
  return 0;
}
