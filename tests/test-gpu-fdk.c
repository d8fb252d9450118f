/* test-gpu-fdk.c — the GPU FDK (gpu/ctr-cuda-fdk.cu) against the CPU's
 * ctr_fdk_run on analytic 3-D phantoms (exact cone-beam line integrals,
 * ctr-phantom3d.c).  Exit 77 (skipped) without a CUDA build or a device.
 *
 * Tolerances (relative L2 ‖gpu − cpu‖ / ‖cpu‖ over the whole volume, and
 * the largest voxel difference over the largest |cpu| voxel):
 *   L1-Tran  1e-3, 1e-2.  Same weights (ctr_fdk_weights), the same filter
 *            taps (the CPU filter's impulse response) and the same bilinear
 *            arithmetic; differences come from float rounding only: cuFFT vs
 *            FFTW (~1e-6 relative per sample), and the detector coordinates,
 *            which the GPU computes in float from a float P_grid (the CPU in
 *            double): ~1e-4 pixel, times the filtered data's gradient.
 *   Texture  1e-2, 5e-2.  The texture unit interpolates with 8-bit fixed
 *            point weights (1/256), i.e. up to 0.2 % of a neighbour
 *            difference per sample, averaged over the views.
 * A real error (a half-pixel shift, a wrong weight, a missing view) gives a
 * relative L2 difference of 0.1 or more on these phantoms.
 * Slabs: the volume split into z slabs of 7 slices equals the unsplit one
 * exactly when the z-mirror is off (same arithmetic per voxel and view
 * order).  With it (the unsplit run), the mirrored slice samples row
 * (nr−1) − r, which rounds differently from the direct row:
 *   L1-Tran  1e-5, 1e-4: float rounding of the row coordinate only.
 *   Texture  4e-4, 4e-3: the texture unit keeps the row weight in 8
 *            fractional bits, so the two rows' weights may differ by one
 *            step of 1/256 (rounded to nearest or truncated: the hardware's
 *            rounding is not documented), i.e. a sample by up to 1/256 of a
 *            neighbour difference, which is at most the largest value: 4e-3
 *            of the maximum, no averaging over views credited.  Emulated at
 *            8-bit weights (tests/gpu-emu): 3.6e-5 / 3.4e-4 (nearest),
 *            4.0e-5 / 4.2e-4 (truncated) — the former 1e-5 / 1e-4 held only
 *            for L1-Tran.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "sim/ctr-phantom3d.h"
#include "plan/ctr-backend.h"
#include "analytic/ctr-fdk.h"
#ifdef CTR_HAVE_CUDA
#include "ctr-cuda.h"
#include "ctr-cuda-fdk.h"
#endif
#ifdef CTR_EMU_BUILD
#include "ctr-emu.h"
#endif

#ifdef CTR_HAVE_CUDA

#define MU 0.02

static CtrGeometry *
make_cone (guint views, double range, guint cols, guint rows, double pitch)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, views);
  g->shape = CTR_DETECTOR_FLAT;
  g->sod_mm = 1000.0;
  g->sdd_mm = 1536.0;
  g->n_cols = cols;
  g->n_rows = rows;
  g->pitch_u = pitch;
  g->pitch_v_mm = pitch;
  ctr_geometry_set_uniform_angles (g, 0.3, range / views);
  return g;
}

static void
compare (const CtrVolume *gpu, const CtrVolume *cpu, double tol_l2, double tol_max, const char *what)
{
  g_assert_true (ctr_grid_equal (&gpu->grid, &cpu->grid));
  const gsize n = (gsize) cpu->grid.nx * cpu->grid.ny * cpu->grid.nz;
  double d2 = 0, c2 = 0, dmax = 0, cmax = 0;
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (gpu->data[i]));
      const double d = (double) gpu->data[i] - cpu->data[i];
      d2 += d * d;
      c2 += (double) cpu->data[i] * cpu->data[i];
      dmax = MAX (dmax, fabs (d));
      cmax = MAX (cmax, fabs (cpu->data[i]));
    }
  const double rel = sqrt (d2 / c2), relmax = dmax / cmax;
  g_test_message ("%s: relative L2 %.3e (tol %.0e), max %.3e (tol %.0e)", what, rel, tol_l2,
                  relmax, tol_max);
  g_assert_cmpfloat (c2, >, 0.0);
  g_assert_cmpfloat (rel, <=, tol_l2);
  g_assert_cmpfloat (relmax, <=, tol_max);
}

static CtrVolume *
gpu_fdk (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid, CtrCudaFdkKernel k,
         guint max_slab)
{
  g_autoptr (GError) error = NULL;
  CtrCudaFdkOptions o = { k, max_slab, 0 };
  CtrCudaFdkTimes t;
  CtrVolume *v = ctr_cuda_fdk_run (g, p, grid, CTR_FILTER_RAM_LAK, 1.0, &o, &t, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (v);
  g_test_message ("  %s kernel, %u slab(s): filter %.4f s, back-projection %.4f s, transfers %.4f s, total %.4f s",
                  t.kernel == CTR_CUDA_FDK_TEXTURE ? "texture" : "L1-Tran", t.n_slabs, t.filter_s,
                  t.backproject_s, t.transfer_s, t.total_s);
  if (max_slab > 0)
    g_assert_cmpuint (t.n_slabs, ==, (grid->nz + max_slab - 1) / max_slab);
  return v;
}

/* Both kernels against the CPU on one scan. */
static void
check_both (const CtrGeometry *g, const CtrPhantom3d *ph, const CtrGrid *grid, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) cpu = ctr_fdk_run (g, p, grid, CTR_FILTER_RAM_LAK, 1.0, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) l1 = gpu_fdk (g, p, grid, CTR_CUDA_FDK_L1TRAN, 0);
  g_autofree char *w1 = g_strdup_printf ("%s, L1-Tran", what);
  compare (l1, cpu, 1e-3, 1e-2, w1);
  g_autoptr (CtrVolume) tx = gpu_fdk (g, p, grid, CTR_CUDA_FDK_TEXTURE, 0);
  g_autofree char *w2 = g_strdup_printf ("%s, texture", what);
  compare (tx, cpu, 1e-2, 5e-2, w2);
}

static void
test_cylinder (void)
{
  /* 96 × 64 panel of 3.2 mm (200 × 133 mm at the isocentre), full scan */
  g_autoptr (CtrGeometry) g = make_cone (120, 2 * G_PI, 96, 64, 3.2);
  CtrGrid grid = ctr_grid_square (64, 3.0, 40, 3.0);
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0, 0, 0, 80.0, 40.0, MU);
  check_both (g, ph, &grid, "cylinder, full scan, centred (z-mirror)");
}

static void
test_shepp_logan (void)
{
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  /* full scan, centred */
  g_autoptr (CtrGeometry) g = make_cone (120, 2 * G_PI, 96, 96, 3.2);
  CtrGrid grid = ctr_grid_square (64, 3.0, 48, 3.0);
  check_both (g, ph, &grid, "Shepp-Logan, full scan");
  /* short scan (Parker), detector offsets, shifted grid (no z-mirror) */
  g_autoptr (CtrGeometry) gs = make_cone (100, G_PI + 2 * atan (0.5 * 96 * 3.2 / 1536.0) + 0.05, 96, 96, 3.2);
  gs->offset_u = 1.3 * gs->pitch_u;
  gs->offset_v_mm = -2.1 * gs->pitch_v_mm;
  CtrGrid gridsh = ctr_grid_square (56, 3.0, 41, 3.0);
  gridsh.cx = 4.0;
  gridsh.cz = -5.0;
  check_both (gs, ph, &gridsh, "Shepp-Logan, short scan, offsets, shifted grid");
}

/* Slabs of 7 slices equal the unsplit volume; the backend route equals a
 * direct call. */
static void
test_slabs (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (CtrGeometry) g = make_cone (90, 2 * G_PI, 96, 96, 3.2);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  for (int shifted = 0; shifted < 2; shifted++)
    for (int k = CTR_CUDA_FDK_L1TRAN; k <= CTR_CUDA_FDK_TEXTURE; k++)
      {
        CtrGrid grid = ctr_grid_square (48, 3.5, 45, 3.0);
        grid.cz = shifted ? 3.0 : 0.0;
        g_autoptr (CtrVolume) whole = gpu_fdk (g, p, &grid, (CtrCudaFdkKernel) k, 0);
        g_autoptr (CtrVolume) split = gpu_fdk (g, p, &grid, (CtrCudaFdkKernel) k, 7);
        if (shifted)
          g_assert_cmpmem (whole->data, sizeof (float) * 48 * 48 * 45, split->data, sizeof (float) * 48 * 48 * 45);
        else
          compare (split, whole, k == CTR_CUDA_FDK_TEXTURE ? 4e-4 : 1e-5, k == CTR_CUDA_FDK_TEXTURE ? 4e-3 : 1e-4,
                   k == CTR_CUDA_FDK_TEXTURE ? "texture: slabs of 7 vs one (z-mirror in the unsplit run)"
                                              : "L1-Tran: slabs of 7 vs one (z-mirror in the unsplit run)");
      }

  /* ctr_reconstruct with backend "cuda" runs the GPU FDK */
  CtrGrid grid = ctr_grid_square (48, 3.5, 45, 3.0);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  o.backend = "cuda";
  g_autoptr (CtrVolume) routed = ctr_reconstruct (g, p, &grid, &o, NULL, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) direct = gpu_fdk (g, p, &grid, CTR_CUDA_FDK_AUTO, 0);
  g_assert_nonnull (routed);
  compare (routed, direct, 1e-6, 1e-5, "ctr_reconstruct, backend cuda vs ctr_cuda_fdk_run");
}

static CtrVolume *
gpu_fdk_batch (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid, CtrCudaFdkKernel k,
               guint max_slab, guint view_batch, CtrCudaFdkTimes *t, GError **error)
{
  CtrCudaFdkOptions o = { k, max_slab, view_batch };
  return ctr_cuda_fdk_run (g, p, grid, CTR_FILTER_RAM_LAK, 1.0, &o, t, NULL, error);
}

/* View batches that do not divide the views: the last batch's cuFFT plans
 * are its own size (they transformed stale rows of a full-size batch: on
 * the harness, reading never-written memory aborts); the image does not
 * depend on the batch size.  A batch that is not a power of two up to 64
 * is an invalid argument (it was clamped silently above 64, and "backend
 * unavailable" when it did not divide 1024). */
static void
test_batches (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (CtrGeometry) g = make_cone (45, 2 * G_PI, 64, 48, 4.0);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_square (32, 5.0, 24, 5.0);
  for (int k = CTR_CUDA_FDK_L1TRAN; k <= CTR_CUDA_FDK_TEXTURE; k++)
    {
      g_autoptr (CtrVolume) ref = gpu_fdk_batch (g, p, &grid, (CtrCudaFdkKernel) k, 0, 64, NULL, &error);
      g_assert_no_error (error);
      static const guint batches[] = { 4, 16, 32 };   /* 45 views: last batches of 1, 13, 13 */
      for (guint i = 0; i < G_N_ELEMENTS (batches); i++)
        {
          g_autoptr (CtrVolume) v = gpu_fdk_batch (g, p, &grid, (CtrCudaFdkKernel) k, 0, batches[i], NULL, &error);
          g_assert_no_error (error);
          g_autofree char *what = g_strdup_printf ("%s, batches of %u vs 64", k == CTR_CUDA_FDK_TEXTURE ? "texture" : "L1-Tran",
                                                   batches[i]);
          compare (v, ref, 1e-6, 1e-5, what);
        }
    }
  static const guint bad[] = { 100, 48, 65, 3 };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (CtrVolume) v = gpu_fdk_batch (g, p, &grid, CTR_CUDA_FDK_L1TRAN, 0, bad[i], NULL, &error);
      g_assert_null (v);
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_test_message ("view batch %u: %s", bad[i], error->message);
      g_clear_error (&error);
    }
}

/* One MPI rank's share (mpi/ctr-mpi-fdk.c): ctr_cuda_fdk_run_views of
 * consecutive view parts into z-slabs, summed over the parts and stacked
 * over the slabs, is the whole run.  A short scan (Parker weights, Δβ of
 * the ends), so that a part weighted as a scan of its own (the part's Δβ
 * and redundancy) would be wrong by far more than the tolerance: the
 * slabs' tolerance above (L1-Tran, no z-mirror in the slabs).  Views
 * outside the scan are an invalid argument. */
static void
test_view_parts (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (CtrGeometry) g = make_cone (45, G_PI + 0.5, 64, 48, 4.0);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_square (32, 5.0, 24, 5.0);
  g_autoptr (CtrVolume) whole = gpu_fdk (g, p, &grid, CTR_CUDA_FDK_L1TRAN, 0);
  g_autoptr (CtrVolume) sum = ctr_volume_new (&grid, &error);
  g_assert_no_error (error);
  const CtrCudaFdkOptions o = { CTR_CUDA_FDK_L1TRAN, 0, 0 };
  static const guint view_first[] = { 0, 16, 30, 45 }, slab_first[] = { 0, 10, 24 };
  const gsize view_size = (gsize) g->n_rows * g->n_cols, slice = (gsize) grid.nx * grid.ny;
  for (guint i = 0; i + 1 < G_N_ELEMENTS (view_first); i++)
    {
      const guint nv = view_first[i + 1] - view_first[i];
      g_autoptr (CtrProjections) part = ctr_projections_new (nv, g->n_rows, g->n_cols, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      memcpy (part->data, p->data + view_first[i] * view_size, nv * view_size * sizeof (float));
      for (guint k = 0; k + 1 < G_N_ELEMENTS (slab_first); k++)
        {
          CtrGrid slab = grid;
          slab.nz = slab_first[k + 1] - slab_first[k];
          slab.cz = ctr_grid_z (&grid, slab_first[k] + (slab.nz - 1) * 0.5);
          g_autoptr (CtrVolume) v = ctr_cuda_fdk_run_views (g, view_first[i], part, &slab, CTR_FILTER_RAM_LAK, 1.0, &o,
                                                            NULL, NULL, &error);
          g_assert_no_error (error);
          for (gsize j = 0; j < slab.nz * slice; j++)
            sum->data[slab_first[k] * slice + j] += v->data[j];
        }
      /* the same part weighted as a scan of its own is far off: the test can fail */
      if (i == 0)
        {
          g_autoptr (CtrGeometry) own = ctr_geometry_select_views (g, 0, nv, &error);
          g_assert_no_error (error);
          g_autoptr (CtrVolume) a = ctr_cuda_fdk_run_views (g, 0, part, &grid, CTR_FILTER_RAM_LAK, 1.0, &o, NULL, NULL, &error);
          g_autoptr (CtrVolume) b = ctr_cuda_fdk_run (own, part, &grid, CTR_FILTER_RAM_LAK, 1.0, &o, NULL, NULL, &error);
          g_assert_no_error (error);
          double d2 = 0, a2 = 0;
          for (gsize j = 0; j < ctr_grid_size (&grid); j++)
            {
              d2 += ((double) a->data[j] - b->data[j]) * ((double) a->data[j] - b->data[j]);
              a2 += (double) a->data[j] * a->data[j];
            }
          g_test_message ("views 0-%u weighted as their own scan: relative L2 %.3e from the whole scan's weights",
                          nv - 1, sqrt (d2 / a2));
          g_assert_cmpfloat (sqrt (d2 / a2), >, 1e-2);
        }
    }
  compare (sum, whole, 1e-5, 1e-4, "3 view parts x 2 z-slabs vs the whole run");
  g_autoptr (CtrVolume) bad = ctr_cuda_fdk_run_views (g, 40, p, &grid, CTR_FILTER_RAM_LAK, 1.0, &o, NULL, NULL, &error);
  g_assert_null (bad);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

#ifdef CTR_EMU_BUILD
/* The free-memory check counts what the run then holds at its peak: the
 * texture arrays as the device pads them and the cuFFT work areas were
 * missing (on the harness: arrays charged in 2 MiB granules, work areas of
 * batch·n·8 bytes).  Slabs of one slice, so that the slice the check
 * counts is the slab. */
static void
test_memory_check (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (CtrGeometry) g = make_cone (40, 2 * G_PI, 64, 48, 4.0);
  g_autoptr (CtrProjections) p = ctr_phantom3d_project (ph, g, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_square (32, 5.0, 24, 5.0);
  for (int k = CTR_CUDA_FDK_L1TRAN; k <= CTR_CUDA_FDK_TEXTURE; k++)
    {
      CtrCudaFdkTimes t = { 0 };
      CtrEmuLive live;
      ctr_emu_live (&live);
      const size_t base = live.device_bytes + live.array_bytes;
      ctr_emu_reset_peak ();
      g_autoptr (CtrVolume) v = gpu_fdk_batch (g, p, &grid, (CtrCudaFdkKernel) k, 1, 16, &t, &error);
      g_assert_no_error (error);
      const size_t peak = ctr_emu_peak_device_bytes () - base;
      g_test_message ("%s: checked %zu bytes, peak %zu bytes", k == CTR_CUDA_FDK_TEXTURE ? "texture" : "L1-Tran",
                      t.device_bytes, peak);
      g_assert_cmpuint (peak, <=, t.device_bytes);
    }
}
#endif

/* Two FDK runs at once from two host threads, different scans: each equals
 * its run alone (the matrices lived in one __constant__ array per process,
 * so one run's views could be back-projected with the other's). */
typedef struct {
  const CtrGeometry *g;
  const CtrProjections *p;
  CtrGrid grid;
  CtrCudaFdkKernel k;
  CtrVolume *out[16];
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;
  for (guint r = 0; r < G_N_ELEMENTS (j->out); r++)
    {
      g_autoptr (GError) error = NULL;
      j->out[r] = gpu_fdk_batch (j->g, j->p, &j->grid, j->k, 0, 8, NULL, &error);
      g_assert_no_error (error);
    }
  return NULL;
}

static void
test_concurrent (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_shepp_logan (90.0, MU);
  g_autoptr (CtrGeometry) g1 = make_cone (16, 2 * G_PI, 32, 24, 8.0);
  g_autoptr (CtrGeometry) g2 = make_cone (16, 2 * G_PI, 32, 24, 8.0);
  ctr_geometry_set_uniform_angles (g2, 1.1, 2 * G_PI / 16);   /* another start angle */
  g_autoptr (CtrProjections) p1 = ctr_phantom3d_project (ph, g1, 1, &error);
  g_autoptr (CtrProjections) p2 = ctr_phantom3d_project (ph, g2, 1, &error);
  g_assert_no_error (error);
  CtrGrid grid = ctr_grid_square (16, 10.0, 12, 10.0);
  for (int k = CTR_CUDA_FDK_L1TRAN; k <= CTR_CUDA_FDK_TEXTURE; k++)
    {
      g_autoptr (CtrVolume) alone1 = gpu_fdk_batch (g1, p1, &grid, (CtrCudaFdkKernel) k, 0, 8, NULL, &error);
      g_autoptr (CtrVolume) alone2 = gpu_fdk_batch (g2, p2, &grid, (CtrCudaFdkKernel) k, 0, 8, NULL, &error);
      g_assert_no_error (error);
      Job j1 = { g1, p1, grid, (CtrCudaFdkKernel) k, { NULL } }, j2 = { g2, p2, grid, (CtrCudaFdkKernel) k, { NULL } };
#ifdef CTR_EMU_BUILD
      ctr_emu_host_jitter (1);   /* the two threads' CUDA calls interleave in many orders */
#endif
      GThread *t1 = g_thread_new ("fdk-1", run_job, &j1), *t2 = g_thread_new ("fdk-2", run_job, &j2);
      g_thread_join (t1);
      g_thread_join (t2);
#ifdef CTR_EMU_BUILD
      ctr_emu_host_jitter (0);
#endif
      const gsize bytes = ctr_grid_size (&grid) * sizeof (float);
      for (guint r = 0; r < G_N_ELEMENTS (j1.out); r++)
        {
          g_assert_cmpmem (j1.out[r]->data, bytes, alone1->data, bytes);
          g_assert_cmpmem (j2.out[r]->data, bytes, alone2->data, bytes);
          ctr_volume_unref (j1.out[r]);
          ctr_volume_unref (j2.out[r]);
        }
    }
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
  g_assert_nonnull (ctr_backend_fdk (ctr_backend_by_name ("cuda", NULL)));
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/gpu-fdk/cylinder", test_cylinder);
  g_test_add_func ("/ctr/gpu-fdk/shepp-logan", test_shepp_logan);
  g_test_add_func ("/ctr/gpu-fdk/slabs", test_slabs);
  g_test_add_func ("/ctr/gpu-fdk/batches", test_batches);
  g_test_add_func ("/ctr/gpu-fdk/view-parts", test_view_parts);
  g_test_add_func ("/ctr/gpu-fdk/concurrent", test_concurrent);
#ifdef CTR_EMU_BUILD
  g_test_add_func ("/ctr/gpu-fdk/memory-check", test_memory_check);
#endif
  return g_test_run ();
#endif
}
