/* test-no-abort.c — buffers sized by the data that are allocated after the
 * data (issue 38): the flats' per-pixel median of a NeXus file, the
 * mirror calibration's whole correlation curve, the NPS squares' corners
 * and the blocked layout's list of blocks run out of memory with
 * CTR_ERROR_OUT_OF_MEMORY naming them, never GLib's abort ("failed to
 * allocate", SIGTRAP, on the old code).  Each in a child under an
 * address-space limit (tests/ctr-test-memory.h); skipped under the
 * sanitizers, which such a limit stops. */
#include "ctrecon.h"
#include "ctr-test-memory.h"
#include "io/ctr-geometry-import.h"
#include "io/ctr-nexus.h"
#include "preprocess/ctr-truncation.h"
#include "sysmat/ctr-blocking.h"

#include <malloc.h>
#include <math.h>
#include <string.h>

#define MiB (G_GUINT64_CONSTANT (1) << 20)

/* The median of every pixel over the planes: odd and even counts. */
static void
test_median (void)
{
  /* 5 planes of 2 pixels, then the first 4 of them */
  const float stack[] = { 3, 10, 1, 40, 5, 20, 2, 30, 4, 50 };
  float out[2] = { 0 };
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_nexus_median_planes (stack, 5, 2, out, "flat frames", &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (out[0], ==, 3.f);
  g_assert_cmpfloat (out[1], ==, 30.f);
  g_assert_true (ctr_nexus_median_planes (stack, 4, 2, out, "flat frames", &error));
  g_assert_cmpfloat (out[0], ==, 2.5f);   /* 1 2 3 5 */
  g_assert_cmpfloat (out[1], ==, 25.f);   /* 10 20 30 40 */
}

/* The NPS squares' corners: counted, then allocated at once. */
static void
test_tile (void)
{
  /* an L of 8 × 4 and 4 × 4 pixels in a 10 × 9 mask */
  guint8 mask[9 * 10] = { 0 };
  for (guint y = 1; y < 9; y++)
    for (guint x = 1; x < 5; x++)
      mask[y * 10 + x] = 1;
  for (guint y = 5; y < 9; y++)
    for (guint x = 5; x < 9; x++)
      mask[y * 10 + x] = 1;
  g_autoptr (GError) error = NULL;
  guint count = 0;
  g_autofree guint *c = ctr_nps_tile (mask, 10, 9, 4, &count, &error);
  g_assert_no_error (error);
  const guint want[] = { 1, 1, 1, 5, 5, 5 };
  g_assert_cmpuint (count, ==, 3);
  g_assert_cmpuint (ctr_nps_tile_count (mask, 10, 9, 4), ==, 3);
  g_assert_cmpmem (c, 6 * sizeof (guint), want, sizeof want);
  /* none fits: NULL, no error */
  g_assert_null (ctr_nps_tile (mask, 10, 9, 5, &count, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count, ==, 0);
}

/* The children: @what fails with CTR_ERROR_OUT_OF_MEMORY, its message on
 * stderr. */
static void
no_abort_child (const char *what)
{
  g_autoptr (GError) error = NULL;
  if (strcmp (what, "nexus-median") == 0)
    {
      /* 2²² flat frames of one pixel (16 MiB): one pixel's samples (16 MiB
       * again) do not fit in 8 */
      const guint n = 1u << 22;
      g_autofree float *stack = g_new (float, n);
      for (guint k = 0; k < n; k++)
        stack[k] = (float) (k % 1000);
      float out = -1;
      test_limit_room (8 * MiB);
      g_assert_false (ctr_nexus_median_planes (stack, n, 1, &out, "flat frames", &error));
      g_assert_cmpfloat (out, ==, -1);
    }
  else if (strcmp (what, "nps-corners") == 0)
    {
      /* a 2048² ROI tiled in 1 × 1 squares: the mask (4 MiB) fits in 16
       * MiB, its 2²² corners (32 MiB) do not */
      const guint side = 2048;
      g_autofree guint8 *mask = g_malloc ((gsize) side * side);
      memset (mask, 1, (gsize) side * side);
      guint count = 7;
      test_limit_room (16 * MiB);
      g_assert_null (ctr_nps_tile (mask, side, side, 1, &count, &error));
      g_assert_cmpuint (count, ==, 0);
    }
  else if (strcmp (what, "blocked-list") == 0)
    {
      /* the view-level blocking of 2¹⁸ views × 1 column on an 8² grid
       * (32,769 orbits: 16,386 blocks, their list 1 MiB).  Under 17 MiB
       * above the matrix the old list, grown by doubling, died in GLib's
       * allocator at 2 MiB (its abort window: 15.5 to 19 MiB; measured);
       * now the list is allocated at once before any block: the layout is
       * made whole, or refused with CTR_ERROR_OUT_OF_MEMORY. */
      const guint V = 1u << 18;
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, V);
      g->n_cols = 1, g->n_rows = 2, g->sod_mm = 250, g->sdd_mm = 450;
      g->pitch_u = 2 * g->sdd_mm * tan (asin (60.0 / g->sod_mm));
      ctr_geometry_set_uniform_angles (g, 0.0, 2 * G_PI / V);
      CtrGrid grid = ctr_grid_square (8, 120.0 / 8, 2, 1);
      g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
      g_assert_no_error (error);
      const guint no = ctr_scsr_n_orbits (m);
      test_limit_room (17 * MiB);
      CtrBlocked *b = ctr_blocked_new (m, CTR_BLOCKING_VIEW, &error);
      if (b != NULL)
        {
          /* Sub_SM1 and one block per pair of views; every element placed */
          g_assert_cmpuint (b->n_blocks, ==, 1 + (no + 1) / 2);
          g_assert_cmpuint (b->nnz, ==, ctr_scsr_nnz (m));
          ctr_blocked_free (b);
          g_printerr ("the blocked layout fits: %u blocks\n", 1 + (no + 1) / 2);
          return;
        }
    }
  else if (strcmp (what, "rtk-projections") == 0)
    {
      /* an RTK document of 2¹⁸ empty <Projection/> elements (3.3 MiB of
       * text): their values (88 bytes each, 22 MiB, grown by doubling) do
       * not fit in 8 MiB */
      GString *xml = g_string_new ("<?xml version=\"1.0\"?>\n<RTKThreeDCircularGeometry version=\"3\">");
      for (guint k = 0; k < 1u << 18; k++)
        g_string_append (xml, "<Projection/>");
      g_string_append (xml, "</RTKThreeDCircularGeometry>\n");
      const CtrRtkDetector det = { 4, 4, 1.0, 1.0, NAN, NAN };
      test_limit_room (8 * MiB);
      g_assert_null (ctr_geometry_import_rtk (xml->str, (gssize) xml->len, &det, &error));
      g_string_free (xml, TRUE);
    }
  else if (strcmp (what, "truncation-totals") == 0)
    {
      /* the consistent truncation correction of 2²⁰ views × 1 row × 2
       * columns, widened by 1 column at each end: the widened data and the
       * views' sums (33 MiB) fit in 35, a row's totals over the views (4
       * MiB a thread) do not */
      const guint V = 1u << 20;
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_PARALLEL, V);
      g->n_cols = 2;
      g_autoptr (CtrProjections) p = ctr_projections_new (V, 1, 2, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      for (gsize i = 0; i < (gsize) 2 * V; i++)
        p->data[i] = 1.f;
      /* the threads started (their stacks reserved) by a small correction */
      g_autoptr (CtrGeometry) g8 = ctr_geometry_new (CTR_BEAM_PARALLEL, 8);
      g8->n_cols = 2;
      g8->n_rows = 64;
      g_autoptr (CtrProjections) p8 = ctr_projections_new (8, 64, 2, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_true (ctr_truncation_extend (p8, g8, 1, 2, 0.02, TRUE, NULL, &error));
      test_limit_room (35 * MiB);
      g_assert_false (ctr_truncation_extend (p, g, 1, 2, 0.02, TRUE, NULL, &error));
      g_assert_cmpuint (p->n_cols, ==, 2);
    }
  else
    {
      /* the mirror of 2 opposite views × 2¹⁷ columns: its curve, FFT
       * buffers and spectra fit; its whole correlation curve (2²¹ points,
       * 16 MiB), allocated last, does not.  Where that lies is measured:
       * one unlimited run's peak (every large block its own mapping,
       * unmapped when freed), then a limit half the curve below it. */
      mallopt (M_MMAP_THRESHOLD, 64 * 1024);
      const guint n = 1u << 17;
      g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_PARALLEL, 2);
      g->n_cols = n;
      g->angles[1] = G_PI;
      g_autoptr (CtrProjections) p = ctr_projections_new (2, 1, n, CTR_PROJ_LINE_INTEGRALS, &error);
      g_assert_no_error (error);
      for (guint j = 0; j < n; j++)
        {
          const double u = (j - 0.4 * n) / (0.05 * n);
          p->data[j] = (float) exp (-u * u);
          p->data[n + (n - 1 - j)] = p->data[j];
        }
      const guint64 curve = (guint64) 8 << 21;
      CtrCalibEstimate est;
      const guint64 base = test_vm_size ();
      g_assert_true (ctr_calib_mirror (g, p, NULL, &est, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (est.ok);
      const guint64 extra = test_vm_status ("VmPeak") - base;
      g_printerr ("the mirror's peak: %.1f MiB above %.1f MiB\n", extra / (double) MiB, base / (double) MiB);
      g_assert_cmpuint (extra, >=, 2 * curve);
      test_limit_room (extra - curve / 2);
      g_assert_false (ctr_calib_mirror (g, p, NULL, &est, NULL, &error));
    }
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_printerr ("%s\n", error->message);
}

static void
test_no_abort (gconstpointer data)
{
  test_no_abort_trap (no_abort_child, data,
                      strcmp (data, "nexus-median") == 0        ? "*the per-pixel median of 4194304 flat frames*"
                      : strcmp (data, "truncation-totals") == 0 ? "*truncation: the totals of 1048576 views * threads*"
                      : strcmp (data, "rtk-projections") == 0   ? "*RTK geometry: room for the values of * projections*"
                      : strcmp (data, "nps-corners") == 0       ? "*the corners of 4194304 NPS squares of 1 * pixels need 32.0*MiB*"
                      : strcmp (data, "blocked-list") == 0      ? "*blocked layout*"
                      : "*mirror's whole correlation curve*");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/median", test_median);
  g_test_add_data_func ("/memory/no-abort/nexus-median", "nexus-median", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/mirror-curve", "mirror-curve", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/truncation-totals", "truncation-totals", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/rtk-projections", "rtk-projections", test_no_abort);
  g_test_add_func ("/memory/nps-tile", test_tile);
  g_test_add_data_func ("/memory/no-abort/nps-corners", "nps-corners", test_no_abort);
  g_test_add_data_func ("/memory/no-abort/blocked-list", "blocked-list", test_no_abort);
  return g_test_run ();
}
