/* test-gpu-vecops.c — device-resident iterations (issue 37): the vector
 * operations of the GPU's cone-beam operator (gpu/ctr-cuda-cone-vecops.c,
 * gpu/ctr-cuda-vecops.cu) against the host's (core/solve/ctr-vec-host.c),
 * CGLS, PWLS and ASD-POCS through the plan on "cuda" against "cpu", and
 * what crosses PCIe per iteration.  Built on the emulation harness only
 * (the transfers are the harness's count: ctr_emu_copies).
 *
 * Problem: a 32² × 8 volume, 20 views of a 40 × 12 flat panel (tiny: the
 * harness runs a fiber per CUDA thread).
 *
 * Tolerances, max |GPU − CPU| / max |CPU|:
 *   element-wise operations 1e-6 (the device rounds each operation as the
 *     host does: __fadd_rn/__fmul_rn, no contraction; 0 expected);
 *     reductions 1e-12 relative (double sums of the same float terms in
 *     another order); products 1e-5 (tests/test-gpu-cone.c);
 *     penalty gradients 1e-5 (the CPU's interior loop forms the same terms
 *     with masks, and its vectorised copies may contract into FMAs).
 *   CGLS, PWLS (4 iterations) 1e-3: as tests/test-gpu-cone.c (step sizes
 *     are quotients of inner products, which amplify rounding).
 *   ASD-POCS (4 iterations) 1e-2: its adaptive TV step and the normalised
 *     TV descent amplify rounding (tests/test-gpu.c's ASD-POCS bound).
 *
 * Transfers: an unreported iteration moves no image and no data between
 * host and device, only the inner products' doubles: at most
 * XFER_PER_ITERATION bytes each way (an eighth of one image; before issue
 * 37 every product moved the image up and a result down); a reported one
 * also brings the image back once (the driver's sync) and nothing more
 * than one image.  A report of one slice (CTR_REPORT_SLICE; CGLS through
 * the vector table, SIRT through the device pass) brings back exactly that
 * slice (NX² floats) more than a report of the metrics alone
 * (CTR_REPORT_NONE), which brings back nothing of the image; the last
 * report and the result are the whole image, the CPU's within the method's
 * tolerance.
 *
 * Metrics against a reference (issue 37: computed where the image is,
 * gpu/ctr-cuda-quality.cu): each report's RMSE, PSNR and SSIM equal
 * ctr_quality_compute of the image that report carries (the whole volume)
 * within METRICS_TOL relative (measured 0 for RMSE and PSNR, ~1e-16 for
 * SSIM: the same double sums of the same float terms in another order), and
 * the CPU backend's metrics of the same run within the methods' image
 * tolerances (the images differ by that much); with a reference, a report
 * of one slice brings back that slice and 2 doubles a slice, not the
 * volume (before: the whole image every report).
 * A report of the three planes through a voxel
 * (CTR_REPORT_PLANES) brings back exactly those planes (NX² + 2·NX·NZ
 * floats, three pitched copies) instead of the volume; when the caller
 * moves the voxel during the run (CtrReconOptions.report_cursor, the
 * window's crosshair), the next reports bring the planes through the new
 * one.
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "plan/ctr-backend.h"
#include "plan/ctr-recon-plan.h"
#include "sim/ctr-phantom3d.h"
#include "sysmat/ctr-cone-op.h"
#include "base/ctr-random.h"
#include "ctr-cuda.h"
#include "ctr-cuda-cone.h"
#include "ctr-emu.h"
#include "solve/ctr-vec.h"

#define NX 32
#define NZ 8
#define VIEWS 20

static CtrGeometry *
make_geometry (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_CONE, VIEWS);
  g->sod_mm = 100.0;
  g->sdd_mm = 160.0;
  g->n_cols = 40;
  g->n_rows = 12;
  g->pitch_u = 2.3;
  g->pitch_v_mm = 2.1;
  ctr_geometry_set_uniform_angles (g, 0.3, 2.0 * G_PI / VIEWS);
  return g;
}

static CtrGrid
make_grid (void)
{
  CtrGrid grid = { NX, NX, NZ, 1.6, 1.6, 1.9, 0.3, -0.2, 0.1 };
  return grid;
}

static CtrProjections *
make_data (const CtrGeometry *g, const CtrGrid *grid)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (CtrPhantom3d) ph = ctr_phantom3d_new_cylinder (0.5, -0.5, 0.2, 0.3 * NX * grid->dx,
                                                            0.35 * NZ * grid->dz, 0.02);
  CtrProjections *p = ctr_phantom3d_project (ph, g, 1, &e);
  g_assert_no_error (e);
  return p;
}

static double
max_rel_diff (const float *a, const float *b, gsize n)
{
  double d = 0, m = 0;
  for (gsize i = 0; i < n; i++)
    {
      g_assert_true (isfinite (a[i]));
      d = MAX (d, fabs ((double) a[i] - b[i]));
      m = MAX (m, fabs ((double) b[i]));
    }
  return m > 0 ? d / m : d;
}

/* The reference of the metrics' tests (NULL: none) and their disc's
 * radius (<= 0: every pixel). */
static CtrVolume *reference;
static double metrics_radius = 20.0;
#define METRICS_TOL 1e-9
/* Each report's metrics (CtrQuality) when non-NULL; metrics_diff: the
 * largest relative difference between a report's metrics and
 * ctr_quality_compute of its image, over the reports carrying the volume. */
static GArray *metrics;
static double metrics_diff;

static double
rel (double a, double b)
{
  return fabs (a - b) / MAX (fabs (b), 1e-300);
}

static guint n_reports;
/* What the reports carry (CtrReconOptions.report_image, .report_slice) and,
 * when non-NULL, a copy of each report's image (NULL: none), by iteration. */
static CtrReportImage report_image = CTR_REPORT_VOLUME;
#define REPORT_SLICE 5
static GPtrArray *reported;

/* CTR_REPORT_PLANES: the voxel (REPORT_X, REPORT_Y, REPORT_SLICE), and
 * when non-NULL a copy of each report's three planes (NULL: none). */
#define REPORT_X 3
#define REPORT_Y 20
static GPtrArray *reported_planes;
/* when non-NULL, the run's planes follow this cursor (the window's
 * crosshair): it starts at the voxel above and moves to MOVED after the
 * second report */
static CtrReportCursor *follow;
static const guint MOVED[3] = { NX - 5, 7, NZ - 1 };

/* The voxel report @n (0-based) of a run with the cursor passes through. */
static void
voxel_of_report (guint n, guint at[3])
{
  const guint start[3] = { REPORT_X, REPORT_Y, REPORT_SLICE };
  memcpy (at, follow != NULL && n >= 2 ? MOVED : start, sizeof start);
}

static void
count_reports (const CtrIterStats *s, gpointer data)
{
  n_reports++;
  if (metrics != NULL)
    {
      const CtrQuality q = { s->rmse, s->psnr, s->ssim };
      g_assert_true (s->has_reference);
      g_array_append_val (metrics, q);
      if (s->image != NULL && s->image->grid.nz == NZ)
        {
          CtrQuality h;
          g_autoptr (GError) e = NULL;
          g_assert_true (ctr_quality_compute (s->image, reference, metrics_radius, &h, &e));
          g_assert_no_error (e);
          metrics_diff = MAX (metrics_diff, MAX (rel (q.rmse, h.rmse), MAX (rel (q.psnr, h.psnr), rel (q.ssim, h.ssim))));
        }
    }
  if (reported != NULL)
    g_ptr_array_add (reported, s->image != NULL ? ctr_volume_copy (s->image) : NULL);
  for (guint k = 0; reported_planes != NULL && k < 3; k++)
    g_ptr_array_add (reported_planes, s->planes[k] != NULL ? ctr_volume_copy (s->planes[k]) : NULL);
  if (follow != NULL && n_reports == 2)
    ctr_report_cursor_set (follow, MOVED[0], MOVED[1], MOVED[2]);
}

/* One run through the plan; @copies (nullable): the copies it made. */
static CtrVolume *
run_plan (const char *backend, CtrMethod m, guint iterations, gboolean report, CtrEmuCopies *copies)
{
  g_autoptr (CtrGeometry) g = make_geometry ();
  CtrGrid grid = make_grid ();
  g_autoptr (CtrProjections) p = make_data (g, &grid);
  g_autoptr (GError) e = NULL;
  CtrReconOptions o;
  ctr_recon_options_init (&o, m);
  o.iterations = iterations;
  o.backend = backend;
  o.tv_iterations = 10;
  o.report_image = report_image;
  o.report_slice = REPORT_SLICE;
  o.metrics_radius_mm = metrics_radius;
  o.report_x = REPORT_X;
  o.report_y = REPORT_Y;
  if (follow != NULL)
    {
      ctr_report_cursor_set (follow, REPORT_X, REPORT_Y, REPORT_SLICE);
      o.report_cursor = follow;
    }
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
  g_assert_no_error (e);
  g_assert_cmpstr (ctr_recon_plan_get_backend (plan), ==, backend);
  CtrPlanInfo info;
  ctr_recon_plan_get_info (plan, FALSE, &info);
  g_assert_cmpstr (info.operator_name, ==, strcmp (backend, "cpu") == 0 ? "cpu-cone" : "cuda-cone");
  CtrEmuCopies before, after;
  ctr_emu_copies (&before);
  n_reports = 0;
  CtrVolume *v = ctr_recon_plan_execute (plan, p, reference, report ? count_reports : NULL, NULL, NULL, &e);
  ctr_emu_copies (&after);
  g_assert_no_error (e);
  g_assert_nonnull (v);
  if (report)
    g_assert_cmpuint (n_reports, ==, iterations);
  /* a CPU fall-back would say so in the plan's notes */
  for (const char *const *n = ctr_recon_plan_get_notes (plan); *n; n++)
    g_assert_null (strstr (*n, "instead"));
  if (copies != NULL)
    *copies = (CtrEmuCopies) {
      after.h2d_calls - before.h2d_calls, after.h2d_bytes - before.h2d_bytes,
      after.d2h_calls - before.d2h_calls, after.d2h_bytes - before.d2h_bytes,
      after.d2d_calls - before.d2d_calls, after.d2d_bytes - before.d2d_bytes,
    };
  return v;
}

static const struct { CtrMethod m; double tol; } methods[] = {
  { CTR_METHOD_CGLS, 1e-3 }, { CTR_METHOD_PWLS, 1e-3 }, { CTR_METHOD_ASD_POCS, 1e-2 },
};

/* The methods whose reports of one slice are tested: the vector table's
 * (CGLS) and the device passes' (SIRT, CtrOperatorPass); tolerances as
 * tests/test-gpu-cone.c. */
static const struct { CtrMethod m; double tol; } slice_methods[] = {
  { CTR_METHOD_CGLS, 1e-3 }, { CTR_METHOD_SIRT, 1e-4 },
};

/* Each method device-resident equals the CPU backend's. */
static void
test_methods (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  g_autoptr (CtrVolume) cpu = run_plan ("cpu", methods[k].m, 4, TRUE, NULL);
  g_autoptr (CtrVolume) gpu = run_plan ("cuda", methods[k].m, 4, TRUE, NULL);
  const double d = max_rel_diff (gpu->data, cpu->data, ctr_grid_size (&cpu->grid));
  g_test_message ("%s (4 iterations, reported): GPU vs CPU %.2e (tolerance %.0e)", ctr_method_name (methods[k].m),
                  d, methods[k].tol);
  g_assert_cmpfloat (d, <=, methods[k].tol);
}

/* An eighth of an image (4 KiB here): what an iteration may move each way
 * besides a report's image. */
#define IMAGE_BYTES ((guint64) NX * NX * NZ * sizeof (float))
#define XFER_PER_ITERATION (IMAGE_BYTES / 8)

/* The image is not moved per product: the copies of 5 iterations minus
 * those of 2, per iteration, unreported and reported. */
static void
test_transfers (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  for (int report = 0; report < 2; report++)
    {
      CtrEmuCopies c2, c5;
      g_autoptr (CtrVolume) v2 = run_plan ("cuda", methods[k].m, 2, report, &c2);
      g_autoptr (CtrVolume) v5 = run_plan ("cuda", methods[k].m, 5, report, &c5);
      const double up = (c5.h2d_bytes - (double) c2.h2d_bytes) / 3, down = (c5.d2h_bytes - (double) c2.d2h_bytes) / 3;
      const double d2d = (c5.d2d_bytes - (double) c2.d2d_bytes) / 3;
      g_test_message ("%s, %s: per iteration %.0f bytes up (%.1f calls), %.0f down (%.1f calls), %.0f within the "
                      "device; image %" G_GUINT64_FORMAT " bytes; the run's set-up and end %.0f up, %.0f down",
                      ctr_method_name (methods[k].m), report ? "reported" : "unreported", up,
                      (c5.h2d_calls - (double) c2.h2d_calls) / 3, down, (c5.d2h_calls - (double) c2.d2h_calls) / 3,
                      d2d, IMAGE_BYTES, c2.h2d_bytes - 2 * up, c2.d2h_bytes - 2 * down);
      g_assert_cmpfloat (up, <=, XFER_PER_ITERATION);
      g_assert_cmpfloat (down, <=, (report ? IMAGE_BYTES : 0) + XFER_PER_ITERATION);
    }
}

#define SLICE_BYTES ((guint64) NX * NX * sizeof (float))

static void
volume_unref0 (gpointer v)
{
  if (v != NULL)
    ctr_volume_unref (v);
}

/* Device→host bytes per iteration (5 iterations minus 2, over 3) of runs
 * whose reports carry @mode; @last (nullable): the 5-iteration run's image,
 * @images (nullable): its reports' images; @up (nullable): host→device
 * bytes per iteration. */
static double
transfers_per_iteration (CtrMethod m, CtrReportImage mode, gboolean report, CtrVolume **last, GPtrArray **images,
                         double *up)
{
  CtrEmuCopies c2, c5;
  report_image = mode;
  g_autoptr (CtrVolume) v2 = run_plan ("cuda", m, 2, report, &c2);
  reported = g_ptr_array_new_with_free_func (volume_unref0);
  CtrVolume *v5 = run_plan ("cuda", m, 5, report, &c5);
  report_image = CTR_REPORT_VOLUME;
  if (images != NULL)
    *images = reported;
  else
    g_ptr_array_unref (reported);
  reported = NULL;
  if (last != NULL)
    *last = v5;
  else
    ctr_volume_unref (v5);
  if (up != NULL)
    *up = (c5.h2d_bytes - (double) c2.h2d_bytes) / 3;
  return (c5.d2h_bytes - (double) c2.d2h_bytes) / 3;
}


static double
down_per_iteration (CtrMethod m, CtrReportImage mode, gboolean report, CtrVolume **last, GPtrArray **images)
{
  return transfers_per_iteration (m, mode, report, last, images, NULL);
}

#define PLANES_BYTES ((guint64) (NX * NX + 2 * NX * NZ) * sizeof (float))

/* The planes of report @n (voxel_of_report) of natural volume @v. */
static void
assert_planes_of (const CtrVolume *const *planes, guint n, const CtrVolume *v, double tol)
{
  const CtrGrid *g = &v->grid;
  guint at[3];
  voxel_of_report (n, at);
  const guint i = at[0], j = at[1], k = at[2];
  g_assert_true (planes[0] != NULL && planes[1] != NULL && planes[2] != NULL);
  g_assert_true (planes[0]->grid.nx == NX && planes[0]->grid.ny == NX && planes[0]->grid.nz == 1);
  g_assert_true (planes[1]->grid.nx == NX && planes[1]->grid.ny == 1 && planes[1]->grid.nz == NZ);
  g_assert_true (planes[2]->grid.nx == 1 && planes[2]->grid.ny == NX && planes[2]->grid.nz == NZ);
  g_assert_cmpfloat (planes[0]->grid.cz, ==, ctr_grid_z (g, k));
  g_assert_cmpfloat (planes[1]->grid.cy, ==, ctr_grid_y (g, j));
  g_assert_cmpfloat (planes[2]->grid.cx, ==, ctr_grid_x (g, i));
  double d = 0, m = 0;
  for (guint y = 0; y < NX; y++)
    for (guint x = 0; x < NX; x++)
      {
        d = MAX (d, fabs (planes[0]->data[x + NX * y] - v->data[x + NX * (y + NX * k)]));
        m = MAX (m, fabs (v->data[x + NX * (y + NX * k)]));
      }
  for (guint z = 0; z < NZ; z++)
    for (guint q = 0; q < NX; q++)
      {
        d = MAX (d, fabs (planes[1]->data[q + NX * z] - v->data[q + NX * (j + NX * z)]));
        d = MAX (d, fabs (planes[2]->data[q + NX * z] - v->data[i + NX * (q + NX * z)]));
        m = MAX (m, fabs (v->data[q + NX * (j + NX * z)]));
      }
  g_assert_cmpfloat (m, >, 0);
  g_assert_cmpfloat (d, <=, tol * m);
}

/* A report of the three planes (CTR_REPORT_PLANES) copies back those planes
 * (three pitched copies) and the metrics, not the volume (@volume: the
 * bytes per iteration of volume reports, @vols their images); each report's
 * planes are the volume report's planes of that iteration (the device's
 * within 1e-5, another run; the last report's exactly its own result; the
 * CPU's exactly), and the CPU's within the method's tolerance @tol.
 * Returns: the CPU's 5-iteration result. */
static CtrVolume *
check_plane_reports (CtrMethod m, double tol, double volume, GPtrArray *vols)
{
  g_autoptr (GPtrArray) planes = g_ptr_array_new_with_free_func (volume_unref0);
  g_autoptr (GPtrArray) cpu_vols = g_ptr_array_new_with_free_func (volume_unref0);
  g_autoptr (GPtrArray) cpu_planes = g_ptr_array_new_with_free_func (volume_unref0);
  CtrEmuCopies c2, c5;
  CtrReportCursor cursor;
  /* the planes follow a cursor moved after the second report, as the
   * window's crosshair moves them: the three planes copied back are the new
   * ones from the third report on */
  follow = &cursor;
  report_image = CTR_REPORT_PLANES;
  g_autoptr (CtrVolume) v2 = run_plan ("cuda", m, 2, TRUE, &c2);
  reported_planes = planes;
  g_autoptr (CtrVolume) v5 = run_plan ("cuda", m, 5, TRUE, &c5);
  reported_planes = cpu_planes;
  reported = cpu_vols;
  CtrVolume *cpu = run_plan ("cpu", m, 5, TRUE, NULL);
  reported_planes = reported = NULL;
  report_image = CTR_REPORT_VOLUME;
  const double down = (c5.d2h_bytes - (double) c2.d2h_bytes) / 3;
  const double calls = (c5.d2h_calls - (double) c2.d2h_calls) / 3;
  g_test_message ("%s, device-to-host bytes per reported iteration (emulated device, the harness's copy count): "
                  "three planes %.0f (%.1f copies), the volume %.0f (planes %" G_GUINT64_FORMAT
                  ", volume %" G_GUINT64_FORMAT " bytes; the rest: the metrics)",
                  ctr_method_name (m), down, calls, volume, PLANES_BYTES, IMAGE_BYTES);
  /* the same metrics; the planes instead of the volume */
  g_assert_cmpfloat (volume - down, ==, (double) (IMAGE_BYTES - PLANES_BYTES));
  double worst = 0;
  g_assert_cmpuint (planes->len, ==, 3 * 5);
  g_assert_cmpuint (cpu_planes->len, ==, 3 * 5);
  for (guint i = 0; i < 5; i++)
    {
      /* the device's planes: its volume run's of that iteration (another
       * run: the device's atomic sums may round otherwise, 1e-5 as the
       * slice reports); the CPU's: its own volume's, exactly */
      assert_planes_of ((const CtrVolume *const *) planes->pdata + 3 * i, i, vols->pdata[i], 1e-5);
      const CtrVolume *cv = cpu_vols->pdata[i];
      g_assert_cmpuint (cv->grid.nz, ==, i < 4 ? 1 : NZ);   /* the axial plane, the whole image at the end */
      if (i == 4)
        assert_planes_of ((const CtrVolume *const *) cpu_planes->pdata + 3 * i, i, cv, 0.0);
      /* device against CPU, plane by plane */
      for (guint k = 0; k < 3; k++)
        {
          const CtrVolume *a = planes->pdata[3 * i + k], *b = cpu_planes->pdata[3 * i + k];
          g_assert_true (ctr_grid_equal (&a->grid, &b->grid));
          worst = MAX (worst, max_rel_diff (a->data, b->data, ctr_grid_size (&a->grid)));
        }
    }
  g_test_message ("%s (5 iterations, planes reported): GPU vs CPU planes %.2e (tolerance %.0e)", ctr_method_name (m),
                  worst, tol);
  g_assert_cmpfloat (worst, <=, tol);
  assert_planes_of ((const CtrVolume *const *) planes->pdata + 12, 4, v5, 0.0);
  follow = NULL;
  return cpu;
}

/* A report of one slice (CTR_REPORT_SLICE) copies back that slice and the
 * metrics, not the volume; the last report and the result are the whole
 * image, equal to the CPU's; each slice reported is the volume report's.
 * Reports of three planes likewise (check_plane_reports). */
static void
test_slice_reports (gconstpointer data)
{
  const CtrMethod m = slice_methods[GPOINTER_TO_UINT (data)].m;
  const double tol = slice_methods[GPOINTER_TO_UINT (data)].tol;
  g_autoptr (GPtrArray) vols = NULL, slices = NULL;
  g_autoptr (CtrVolume) gpu = NULL;
  const double unreported = down_per_iteration (m, CTR_REPORT_VOLUME, FALSE, NULL, NULL);
  const double none = down_per_iteration (m, CTR_REPORT_NONE, TRUE, NULL, NULL);
  const double volume = down_per_iteration (m, CTR_REPORT_VOLUME, TRUE, NULL, &vols);
  const double slice = down_per_iteration (m, CTR_REPORT_SLICE, TRUE, &gpu, &slices);
  g_test_message ("%s, device-to-host bytes per iteration (emulated device, the harness's copy count): "
                  "unreported %.0f, reported metrics only %.0f, one slice %.0f, the volume %.0f "
                  "(slice %" G_GUINT64_FORMAT ", volume %" G_GUINT64_FORMAT " bytes)",
                  ctr_method_name (m), unreported, none, slice, volume, SLICE_BYTES, IMAGE_BYTES);
  /* the metrics: the residual's doubles, nothing of the image */
  g_assert_cmpfloat (none - unreported, <, 64);
  g_assert_cmpfloat (slice - none, ==, (double) SLICE_BYTES);
  g_assert_cmpfloat (volume - none, ==, (double) IMAGE_BYTES);
  /* what the reports carry */
  CtrGrid grid = make_grid ();
  g_assert_cmpuint (slices->len, ==, 5);
  g_assert_cmpuint (vols->len, ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      const CtrVolume *s = slices->pdata[i], *v = vols->pdata[i];
      g_assert_nonnull (s);
      g_assert_cmpuint (v->grid.nz, ==, NZ);
      g_assert_cmpuint (s->grid.nz, ==, i < 4 ? 1 : NZ);
      g_assert_cmpfloat (s->grid.cz, ==, i < 4 ? ctr_grid_z (&grid, REPORT_SLICE) : grid.cz);
      const gsize off = i < 4 ? REPORT_SLICE * (gsize) NX * NX : 0;
      const double d = max_rel_diff (s->data, v->data + off, ctr_grid_size (&s->grid));
      g_assert_cmpfloat (d, <=, 1e-5);
    }
  /* reports of three planes; the CPU's run reports them too */
  g_autoptr (CtrVolume) cpu = check_plane_reports (m, tol, volume, vols);
  /* the result: the whole image, the CPU's within the method's tolerance */
  const double d = max_rel_diff (gpu->data, cpu->data, ctr_grid_size (&cpu->grid));
  g_test_message ("%s (5 iterations, one slice reported): GPU vs CPU %.2e (tolerance %.0e)", ctr_method_name (m),
                  d, tol);
  g_assert_cmpfloat (d, <=, tol);
}

/* A reference on the grid: the cylinder of make_data through every slice
 * (voxel centres inside: 0.02; no slice empty, so no image matches one
 * exactly and every PSNR is finite) with a rod of 0.03 in it. */
static CtrVolume *
make_reference (void)
{
  CtrGrid grid = make_grid ();
  CtrVolume *v = ctr_volume_new (&grid, NULL);
  g_assert_nonnull (v);
  const double r = 0.3 * NX * grid.dx;
  for (guint z = 0; z < NZ; z++)
    for (guint y = 0; y < NX; y++)
      for (guint x = 0; x < NX; x++)
        {
          const double dx = ctr_grid_x (&grid, x) - 0.5, dy = ctr_grid_y (&grid, y) + 0.5;
          const double ex = dx - 4.0, ey = dy - 2.0 + 0.5 * z;
          v->data[((gsize) z * NX + y) * NX + x] = ex * ex + ey * ey <= 16.0 ? 0.03f : dx * dx + dy * dy <= r * r ? 0.02f : 0.f;
        }
  return v;
}

/* The reports' metrics of a run with the reference (CtrQuality by report);
 * *@diff: the largest relative difference between a report's metrics and
 * ctr_quality_compute of its image. */
static GArray *
run_metrics (const char *backend, CtrMethod m, guint iterations, double *diff)
{
  metrics = g_array_new (FALSE, FALSE, sizeof (CtrQuality));
  metrics_diff = 0;
  g_autoptr (CtrVolume) v = run_plan (backend, m, iterations, TRUE, NULL);
  *diff = metrics_diff;
  GArray *a = metrics;
  metrics = NULL;
  g_assert_cmpuint (a->len, ==, iterations);
  return a;
}

/* The metrics measured on the device: each report's equal ctr_quality_compute
 * of the image it carries (the last: the result), and the CPU backend's.
 * CGLS within the disc, PWLS over every pixel. */
static void
test_metrics (gconstpointer data)
{
  const guint k = GPOINTER_TO_UINT (data);
  const CtrMethod m = methods[k].m;
  metrics_radius = m == CTR_METHOD_CGLS ? 20.0 : 0.0;
  reference = make_reference ();
  double d_gpu, d_cpu;
  g_autoptr (GArray) gpu = run_metrics ("cuda", m, 4, &d_gpu);
  g_autoptr (GArray) cpu = run_metrics ("cpu", m, 4, &d_cpu);
  g_clear_pointer (&reference, ctr_volume_unref);
  metrics_radius = 20.0;
  double d_rmse = 0, d_psnr = 0, d_ssim = 0;
  for (guint i = 0; i < 4; i++)
    {
      const CtrQuality *g = &g_array_index (gpu, CtrQuality, i), *c = &g_array_index (cpu, CtrQuality, i);
      g_test_message ("%s iteration %u: RMSE %.6g / %.6g, PSNR %.6g / %.6g, SSIM %.6g / %.6g (device / CPU)",
                      ctr_method_name (m), i + 1, g->rmse, c->rmse, g->psnr, c->psnr, g->ssim, c->ssim);
      g_assert_true (isfinite (g->rmse) && isfinite (g->psnr) && isfinite (g->ssim));
      g_assert_true (isfinite (c->rmse) && isfinite (c->psnr) && isfinite (c->ssim));
      d_rmse = MAX (d_rmse, rel (g->rmse, c->rmse));
      d_psnr = MAX (d_psnr, rel (g->psnr, c->psnr));
      d_ssim = MAX (d_ssim, rel (g->ssim, c->ssim));
    }
  g_test_message ("%s (disc of %g mm): device metrics vs ctr_quality_compute of the same image %.2e (CPU backend's: %.2e; "
                  "tolerance %.0e); vs the CPU backend's run: RMSE %.2e, PSNR %.2e, SSIM %.2e relative (tolerance %.0e)",
                  ctr_method_name (m), m == CTR_METHOD_CGLS ? 20.0 : 0.0, d_gpu, d_cpu, METRICS_TOL, d_rmse, d_psnr, d_ssim, methods[k].tol);
  g_assert_cmpfloat (d_gpu, <=, METRICS_TOL);
  g_assert_cmpfloat (d_cpu, <=, METRICS_TOL);
  g_assert_cmpfloat (MAX (d_rmse, MAX (d_psnr, d_ssim)), <=, methods[k].tol);
}

/* With a reference, a report of one slice brings back that slice and the
 * metrics' 2 doubles a slice, not the volume (before issue 37's device
 * metrics: the whole image every report); the reference goes up once a
 * run, not per iteration. */
static void
test_metric_transfers (void)
{
  const CtrMethod m = CTR_METHOD_CGLS;
  double up, up_ref;
  const double slice = transfers_per_iteration (m, CTR_REPORT_SLICE, TRUE, NULL, NULL, &up);
  reference = make_reference ();
  const double slice_ref = transfers_per_iteration (m, CTR_REPORT_SLICE, TRUE, NULL, NULL, &up_ref);
  const double none_ref = down_per_iteration (m, CTR_REPORT_NONE, TRUE, NULL, NULL);
  g_clear_pointer (&reference, ctr_volume_unref);
  const double none = slice - SLICE_BYTES;   /* /ctr/gpu-vecops/slice-reports/cgls */
  g_test_message ("CGLS, device-to-host bytes per reported iteration (emulated device, the harness's copy count): "
                  "one slice %.0f, with a reference %.0f; nothing of the image %.0f, with a reference %.0f (slice %"
                  G_GUINT64_FORMAT ", volume %" G_GUINT64_FORMAT " bytes); host-to-device %.0f, with a reference %.0f",
                  slice, slice_ref, none, none_ref, SLICE_BYTES, IMAGE_BYTES, up, up_ref);
  g_assert_cmpfloat (slice_ref - slice, ==, 2.0 * NZ * sizeof (double));
  g_assert_cmpfloat (none_ref - none, ==, 2.0 * NZ * sizeof (double));
  g_assert_cmpfloat (up_ref, ==, up);
}

/* A cone plan made for the device is not kept for options that ask for
 * the CPU (the window keeps its plan between runs: before, its "CPU" run
 * after a device run still ran on the device), and the other way round;
 * the same backend with other iterations is kept. */
static void
test_plan_backend (void)
{
  g_autoptr (CtrGeometry) g = make_geometry ();
  CtrGrid grid = make_grid ();
  g_autoptr (GError) e = NULL;
  const char *made[] = { "cuda", "best", "cpu" }, *asked[] = { "cpu", "cpu", "cuda" };
  for (guint k = 0; k < G_N_ELEMENTS (made); k++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, CTR_METHOD_SIRT);
      o.backend = made[k];
      g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &e);
      g_assert_no_error (e);
      o.iterations = 3;
      g_assert_true (ctr_recon_plan_set_options (plan, &o, &e));
      g_assert_no_error (e);
      o.backend = asked[k];
      g_assert_false (ctr_recon_plan_set_options (plan, &o, &e));
      g_assert_error (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
      g_clear_error (&e);
    }
}

/* ---- each operation of the device's table against the host's ---- */

typedef struct {
  CtrOperator *op[2];   /* cpu-cone (the host's table), cuda-cone (the device's) */
  CtrVecs vs[2];
  float *img[4], *dat[4];   /* random host images and data */
  gsize ni, nd;
} Pair;

static void
fill_random (float *x, gsize n, guint64 seed, double lo, double hi)
{
  CtrRng r;
  ctr_rng_init (&r, seed, 0);
  for (gsize i = 0; i < n; i++)
    x[i] = (float) (lo + (hi - lo) * ctr_rng_uniform (&r));
}

static void
pair_init (Pair *p)
{
  g_autoptr (CtrGeometry) g = make_geometry ();
  CtrGrid grid = make_grid ();
  g_autoptr (GError) e = NULL;
  CtrConeProjector *cp = ctr_cone_projector_new (g, &grid, &e);
  g_assert_no_error (e);
  p->op[0] = ctr_cone_op_new (cp, &e);
  g_assert_no_error (e);
  p->op[1] = ctr_cuda_cone_op_new (g, &grid, NULL, &e);
  g_assert_no_error (e);
  for (int b = 0; b < 2; b++)
    {
      g_assert_true (ctr_vecs_init (&p->vs[b], p->op[b], &e));
      g_assert_no_error (e);
    }
  g_assert_true (ctr_vecs_on_host (&p->vs[0]));
  g_assert_false (ctr_vecs_on_host (&p->vs[1]));
  g_assert_cmpstr (p->vs[1].ops->name, ==, "cuda-cone");
  p->ni = p->op[0]->image_size;
  p->nd = p->op[0]->data_size;
  for (int k = 0; k < 4; k++)
    {
      p->img[k] = g_new (float, p->ni);
      p->dat[k] = g_new (float, p->nd);
      fill_random (p->img[k], p->ni, 100 + k, k == 3 ? -0.5 : 0.0, 1.0);
      fill_random (p->dat[k], p->nd, 200 + k, 0.0, 1.0);
    }
  /* dat[3]: a validity 1/0 */
  for (gsize i = 0; i < p->nd; i++)
    p->dat[3][i] = (i * 7 + 3) % 5 != 0 ? 1.f : 0.f;
}

static void
pair_clear (Pair *p)
{
  for (int b = 0; b < 2; b++)
    {
      ctr_vecs_clear (&p->vs[b]);
      ctr_operator_unref (p->op[b]);
    }
  for (int k = 0; k < 4; k++)
    {
      g_free (p->img[k]);
      g_free (p->dat[k]);
    }
}

/* Vectors of both tables bound to the same host arrays (the host's wraps
 * a copy, so that its operations do not change the array). */
static void
bind2 (Pair *p, CtrVecKind kind, const float *host, CtrVec *v[2])
{
  const gsize n = kind == CTR_VEC_IMAGE ? p->ni : p->nd;
  for (int b = 0; b < 2; b++)
    {
      g_autoptr (GError) e = NULL;
      v[b] = p->vs[b].ops->alloc (&p->vs[b], kind, &e);
      g_assert_no_error (e);
      if (b == 0)
        memcpy (v[0]->host, host, n * sizeof (float));
      else
        {
          CtrVec *t = p->vs[1].ops->bind (&p->vs[1], kind, host, &e);
          g_assert_no_error (e);
          g_assert_true (p->vs[1].ops->copy (&p->vs[1], v[1], t, &e));
          p->vs[1].ops->free (&p->vs[1], t);
        }
    }
}

/* max |device − host| / max |host| of a vector pair. */
static double
diff2 (Pair *p, CtrVec *v[2])
{
  g_autofree float *d = g_new (float, v[0]->n);
  g_autoptr (GError) e = NULL;
  g_assert_true (p->vs[1].ops->download (&p->vs[1], v[1], d, &e));
  g_assert_no_error (e);
  return max_rel_diff (d, v[0]->host, v[0]->n);
}

static void
free2 (Pair *p, CtrVec *v[2])
{
  for (int b = 0; b < 2; b++)
    p->vs[b].ops->free (&p->vs[b], v[b]);
}

static void
test_ops (void)
{
  Pair p;
  pair_init (&p);
  g_autoptr (GError) e = NULL;
  CtrVec *x[2], *y[2], *z[2], *w[2], *B[2], *Y[2], *W[2], *V[2];
  bind2 (&p, CTR_VEC_IMAGE, p.img[0], x);
  bind2 (&p, CTR_VEC_IMAGE, p.img[1], y);
  bind2 (&p, CTR_VEC_IMAGE, p.img[2], z);
  bind2 (&p, CTR_VEC_IMAGE, p.img[3], w);
  bind2 (&p, CTR_VEC_DATA, p.dat[0], B);
  bind2 (&p, CTR_VEC_DATA, p.dat[1], Y);
  bind2 (&p, CTR_VEC_DATA, p.dat[2], W);
  bind2 (&p, CTR_VEC_DATA, p.dat[3], V);
  double s[2], n3[2][3];
  /* element-wise */
  for (int b = 0; b < 2; b++)
    {
      CtrVecs *vs = &p.vs[b];
      g_assert_true (vs->ops->axpby (vs, y[b], 0.7f, x[b], -1.3f, &e) && vs->ops->axpby (vs, y[b], 1.f, z[b], 0.4f, &e)
                     && vs->ops->axpby (vs, y[b], -0.3f, w[b], 1.f, &e) && vs->ops->mul (vs, Y[b], V[b], &e)
                     && vs->ops->extrapolate (vs, z[b], x[b], w[b], 0.6f, &e)
                     && vs->ops->sqs_step (vs, w[b], x[b], y[b], z[b], x[b], y[b], 3.f, 0.5f, TRUE, &e));
      g_assert_no_error (e);
    }
  const double d_el = MAX (MAX (diff2 (&p, y), diff2 (&p, Y)), MAX (diff2 (&p, z), diff2 (&p, w)));
  /* reductions */
  double d_red = 0;
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->dot (&p.vs[b], x[b], y[b], &s[b], &e));
  d_red = MAX (d_red, rel (s[1], s[0]));
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->dot (&p.vs[b], B[b], Y[b], &s[b], &e));
  d_red = MAX (d_red, rel (s[1], s[0]));
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->diff_dot (&p.vs[b], x[b], y[b], z[b], w[b], &s[b], &e));
  d_red = MAX (d_red, rel (s[1], s[0]));
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->data_norms (&p.vs[b], Y[b], B[b], W[b], V[b], n3[b], &e));
  for (int k = 0; k < 3; k++)
    d_red = MAX (d_red, rel (n3[1][k], n3[0][k]));
  g_assert_no_error (e);
  /* the penalties, every potential, and the TV descent */
  double d_pen = 0, d_val = 0;
  for (CtrPenalty kind = CTR_PENALTY_HYPERBOLA; kind <= CTR_PENALTY_ISOTROPIC; kind++)
    {
      for (int b = 0; b < 2; b++)
        g_assert_true (p.vs[b].ops->penalty_gradient (&p.vs[b], kind, 0.05, x[b], y[b], z[b], &e)
                       && p.vs[b].ops->penalty_value (&p.vs[b], kind, 0.05, x[b], &s[b], &e));
      g_assert_no_error (e);
      d_pen = MAX (d_pen, MAX (diff2 (&p, y), diff2 (&p, z)));
      d_val = MAX (d_val, rel (s[1], s[0]));
    }
  g_autofree float *before = g_memdup2 (x[0]->host, x[0]->n * sizeof (float));
  for (int b = 0; b < 2; b++)
    g_assert_true (p.vs[b].ops->tv_descent (&p.vs[b], x[b], 5, 0.01, &e));
  const double d_tv = diff2 (&p, x);
  /* the descent moved the image (else equality above proves nothing) */
  g_assert_cmpfloat (max_rel_diff (x[0]->host, before, x[0]->n), >, 1e-4);
  /* products and subset steps */
  for (int b = 0; b < 2; b++)
    {
      CtrVecs *vs = &p.vs[b];
      g_assert_true (vs->ops->forward (vs, CTR_SUBSET_ALL, x[b], Y[b], &e) && vs->ops->adjoint (vs, CTR_SUBSET_ALL, B[b], y[b], &e)
                     && vs->ops->update (vs, 3, z[b], B[b], W[b], 0.8f, NULL, CTR_UPDATE_COLUMN_SCALE | CTR_UPDATE_NONNEG, &e)
                     && vs->ops->fill (vs, w[b], 0.f, &e) && vs->ops->update (vs, 5, x[b], B[b], W[b], 1.f, w[b], 0, &e)
                     && vs->ops->update (vs, 6, x[b], B[b], W[b], 1.f, w[b], 0, &e) && vs->ops->reduce (vs, w[b], &e));
      g_assert_no_error (e);
    }
  const double d_prod = MAX (MAX (diff2 (&p, Y), diff2 (&p, y)), MAX (diff2 (&p, z), diff2 (&p, w)));
  g_assert_false (p.vs[1].ops->update (&p.vs[1], 0, x[1], B[1], W[1], 1.f, NULL, CTR_UPDATE_SEQUENTIAL, &e));
  g_assert_error (e, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
  g_test_message ("device vs host: element-wise %.2e, reductions %.2e, penalty gradients %.2e, values %.2e, "
                  "TV descent %.2e, products and steps %.2e", d_el, d_red, d_pen, d_val, d_tv, d_prod);
  g_assert_cmpfloat (d_el, <=, 1e-6);
  g_assert_cmpfloat (d_red, <=, 1e-12);
  g_assert_cmpfloat (d_pen, <=, 1e-5);
  g_assert_cmpfloat (d_val, <=, 1e-12);
  g_assert_cmpfloat (d_tv, <=, 1e-5);
  g_assert_cmpfloat (d_prod, <=, 1e-5);
  CtrVec **all[] = { x, y, z, w, B, Y, W, V };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    free2 (&p, all[i]);
  pair_clear (&p);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) e = NULL;
  if (!ctr_cuda_probe (NULL, &e))
    {
      g_print ("no CUDA device (%s): skipped\n", e->message);
      return 77;
    }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/gpu-vecops/ops", test_ops);
  g_test_add_func ("/ctr/gpu-vecops/plan-backend", test_plan_backend);
  for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
    {
      g_autofree char *p1 = g_strdup_printf ("/ctr/gpu-vecops/methods/%s", ctr_method_name (methods[k].m));
      g_autofree char *p2 = g_strdup_printf ("/ctr/gpu-vecops/transfers/%s", ctr_method_name (methods[k].m));
      g_test_add_data_func (p1, GUINT_TO_POINTER (k), test_methods);
      g_test_add_data_func (p2, GUINT_TO_POINTER (k), test_transfers);
    }
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *p = g_strdup_printf ("/ctr/gpu-vecops/metrics/%s", ctr_method_name (methods[k].m));
      g_test_add_data_func (p, GUINT_TO_POINTER (k), test_metrics);
    }
  g_test_add_func ("/ctr/gpu-vecops/metric-transfers", test_metric_transfers);
  for (guint k = 0; k < G_N_ELEMENTS (slice_methods); k++)
    {
      g_autofree char *p = g_strdup_printf ("/ctr/gpu-vecops/slice-reports/%s", ctr_method_name (slice_methods[k].m));
      g_test_add_data_func (p, GUINT_TO_POINTER (k), test_slice_reports);
    }
  return g_test_run ();
}
