/* test-hostile.c — the library against hostile and careless input (issue 14):
 * outputs kept off the inputs (ctr_output_path_check), sizes from files
 * checked against the machine's memory before allocating (ctr-memory.h),
 * implausible geometry refused, the default grid saturating instead of
 * wrapping, SSIM never above 1, runs that fail instead of handing back a
 * non-finite image, empty system matrices, DICOM InstanceNumbers out of
 * range or with huge gaps, the DICOM export all or nothing, and TIFF strips
 * that point outside the file.  Each test
 * failed before its fix (the CLI side is tests/cli/test_hostile.py). */
#include "ctrecon.h"
#include "sysmat/ctr-scsr.h"
#include "sysmat/ctr-symmetry.h"
#include "sysmat/ctr-sysmat.h"
#include "io/ctr-dicom-shim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <tiffio.h>

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      if (dir != NULL)
        g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
write_text (const char *path, const char *text)
{
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

/* ------------------------------------------------------------------------ */
/* Output paths (defect 1)                                                   */

static void
test_output_path (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = tmp_path ("out");
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_assert_cmpint (g_mkdir_with_parents (data, 0755), ==, 0);
  g_autofree char *sino = g_build_filename (data, "sino.tif", NULL);
  g_autofree char *json = g_build_filename (data, "geometry.json", NULL);
  write_text (sino, "pixels");
  write_text (json, "{}");
  CtrDataset d = { 0 };
  ctr_dataset_add_input (&d, json);
  ctr_dataset_add_input (&d, sino);
  ctr_dataset_add_input (&d, sino);  /* recorded once */
  g_assert_cmpuint (g_strv_length (d.inputs), ==, 2);

  /* A new file beside the inputs is fine; the inputs themselves are not. */
  g_autofree char *fresh = g_build_filename (dir, "image.tif", NULL);
  g_assert_true (ctr_output_path_check (fresh, CTR_OUTPUT_FILE, &d, NULL, &error));
  g_assert_false (ctr_output_path_check (sino, CTR_OUTPUT_FILE, &d, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "an input of this run"));
  g_clear_error (&error);
  /* Through a symbolic link, a relative path and a hard link. */
  g_autofree char *sym = g_build_filename (dir, "link.tif", NULL);
  g_assert_cmpint (symlink (sino, sym), ==, 0);
  g_assert_false (ctr_output_path_check (sym, CTR_OUTPUT_FILE, &d, NULL, &error));
  g_assert_nonnull (strstr (error->message, "through a link"));
  g_clear_error (&error);
  g_autofree char *hard = g_build_filename (dir, "hard.json", NULL);
  g_assert_cmpint (link (json, hard), ==, 0);
  g_assert_false (ctr_output_path_check (hard, CTR_OUTPUT_FILE, &d, NULL, &error));
  g_clear_error (&error);
  g_autofree char *cwd = g_get_current_dir ();
  g_assert_cmpint (g_chdir (data), ==, 0);
  g_assert_false (ctr_output_path_check ("./sino.tif", CTR_OUTPUT_FILE, &d, NULL, &error));
  g_clear_error (&error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);

  /* Existing special files, and a folder where a file is asked for. */
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (ctr_output_path_check (fifo, CTR_OUTPUT_FILE, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file (it is a FIFO)"));
  g_clear_error (&error);
  g_assert_false (ctr_output_path_check ("/dev/null", CTR_OUTPUT_FILE, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "character device"));
  g_clear_error (&error);
  g_assert_false (ctr_output_path_check (data, CTR_OUTPUT_FILE, NULL, NULL, &error));
  g_clear_error (&error);
  g_assert_false (ctr_output_path_check (sino, CTR_OUTPUT_FOLDER, NULL, NULL, &error));
  g_clear_error (&error);
  /* A folder that does not exist. */
  g_autofree char *nowhere = g_build_filename (dir, "no", "such", "x.tif", NULL);
  g_assert_false (ctr_output_path_check (nowhere, CTR_OUTPUT_FILE, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);

  /* Folders: one that holds an input, and a file inside an input folder. */
  g_assert_false (ctr_output_path_check (data, CTR_OUTPUT_FOLDER, &d, NULL, &error));
  g_assert_nonnull (strstr (error->message, "holds"));
  g_clear_error (&error);
  g_assert_false (ctr_output_path_check (dir, CTR_OUTPUT_FOLDER, &d, NULL, &error));
  g_clear_error (&error);
  g_autofree char *series = g_build_filename (dir, "series", NULL);
  g_assert_true (ctr_output_path_check (series, CTR_OUTPUT_FOLDER, &d, NULL, &error));
  CtrDataset folder_input = { 0 };
  ctr_dataset_add_input (&folder_input, data);
  g_autofree char *inside = g_build_filename (data, "new.tif", NULL);
  g_assert_false (ctr_output_path_check (inside, CTR_OUTPUT_FILE, &folder_input, NULL, &error));
  g_assert_nonnull (strstr (error->message, "lies inside"));
  g_clear_error (&error);

  /* Other paths of the run: by inode when they exist, by name when not. */
  const char *others[] = { fresh, NULL };
  g_assert_false (ctr_output_path_check (fresh, CTR_OUTPUT_FILE, NULL, others, &error));
  g_assert_nonnull (strstr (error->message, "named twice"));
  g_clear_error (&error);
  const char *others2[] = { "", sym, NULL };
  g_assert_false (ctr_output_path_check (sino, CTR_OUTPUT_FILE, NULL, others2, &error));
  g_clear_error (&error);

  /* Nothing was created or changed. */
  g_assert_false (g_file_test (fresh, G_FILE_TEST_EXISTS));
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (sino, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "pixels");
  g_strfreev (d.inputs);
  g_strfreev (folder_input.inputs);
}

/* ------------------------------------------------------------------------ */
/* Memory (defect 4)                                                         */

static void
test_memory (void)
{
  g_autoptr (GError) error = NULL;
  /* main() sets CTR_MEMORY_LIMIT_MB=512. */
  g_assert_cmpuint (ctr_memory_limit_bytes (), ==, 512u << 20);
  g_assert_true (ctr_memory_check (512u << 20, "x", &error));
  g_assert_false (ctr_memory_check ((512u << 20) + 1, NULL, NULL));
  g_assert_false (ctr_memory_check (600u << 20, "the projections of 3 views", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "the projections of 3 views need 600.0\u00a0MiB of memory; "
                                            "512.0\u00a0MiB available (CTR_MEMORY_LIMIT_MB)"));
  g_clear_error (&error);
  g_assert_cmpuint (ctr_memory_mul (G_MAXUINT64 / 2, 3), ==, G_MAXUINT64);
  g_assert_cmpuint (ctr_memory_add (G_MAXUINT64 - 1, 3), ==, G_MAXUINT64);
  g_assert_null (ctr_memory_try_new (G_MAXSIZE / 2, 4, FALSE, "a block", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_assert_null (ctr_geometry_try_new (CTR_BEAM_FAN, G_MAXUINT32, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  g_autoptr (CtrProjections) p = ctr_projections_new (100000, 100, 1000, CTR_PROJ_LINE_INTEGRALS, &error);
  g_assert_null (p);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);

  /* A geometry.json whose sizes alone exceed the memory: refused before
   * anything is allocated (it used to allocate 8 GB of angles, or abort in
   * GLib's allocator for 2³¹ − 1 views). */
  const double views[] = { 1e9, 2147483647.0 };
  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    {
      g_autofree char *path = tmp_path ("huge.json");
      g_autofree char *json = g_strdup_printf (
        "{\"type\": \"parallel\", \"kind\": \"line_integrals\", \"views\": %.0f, \"detector_cols\": 736,"
        " \"detector_pitch_u_mm\": 1, \"angle_start_rad\": 0, \"angle_step_rad\": 1e-6,"
        " \"projections\": {\"layout\": \"sinogram\", \"file\": \"none.tif\"}}", views[i]);
      write_text (path, json);
      const gint64 t0 = g_get_monotonic_time ();
      g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
      g_assert_null (d);
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      g_assert_nonnull (strstr (error->message, "views × 1 rows × 736 columns need"));
      g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
      g_clear_error (&error);
    }

  /* A TIFF that claims 20000 × 20000 floats (1.5 GiB) in a few bytes. */
  g_autofree char *tif = tmp_path ("claims.tif");
  TIFF *t = TIFFOpen (tif, "w");
  g_assert_nonnull (t);
  TIFFSetField (t, TIFFTAG_IMAGEWIDTH, (guint32) 20000);
  TIFFSetField (t, TIFFTAG_IMAGELENGTH, (guint32) 20000);
  TIFFSetField (t, TIFFTAG_BITSPERSAMPLE, (guint16) 32);
  TIFFSetField (t, TIFFTAG_SAMPLESPERPIXEL, (guint16) 1);
  TIFFSetField (t, TIFFTAG_SAMPLEFORMAT, (guint16) SAMPLEFORMAT_IEEEFP);
  TIFFSetField (t, TIFFTAG_ROWSPERSTRIP, (guint32) 1);
  TIFFSetField (t, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_MINISBLACK);
  float row[20000] = { 0 };
  g_assert_cmpint (TIFFWriteScanline (t, row, 0, 0), ==, 1);
  TIFFClose (t);
  CtrTiffInfo info;
  g_assert_true (ctr_tiff_probe (tif, &info, NULL));
  g_assert_null (ctr_tiff_read (tif, &info, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "1 pages of 20000 × 20000 samples need 1.5\u00a0GiB"));
}

/* ------------------------------------------------------------------------ */
/* Geometry plausibility (defect 5) and the default grid (defect 6)          */

static CtrGeometry *
fan (void)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_FAN, 90);
  g->sod_mm = 500;
  g->sdd_mm = 900;
  g->n_cols = 128;
  g->pitch_u = 2.0;
  ctr_geometry_set_uniform_angles (g, 0, 2 * G_PI / 90);
  return g;
}

static void
expect_invalid (CtrGeometry *g, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_assert_false (ctr_geometry_validate (g, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not name “%s”", error->message, needle);
}

static void
test_plausible (void)
{
  g_autoptr (CtrGeometry) g = fan ();
  g_assert_true (ctr_geometry_validate (g, NULL));
  g->sdd_mm = 1e300;
  expect_invalid (g, "source to detector distance 1e+300 mm is implausible");
  g->sdd_mm = 900;
  g->sod_mm = 1e-9;
  expect_invalid (g, "source to isocentre distance");
  g->sod_mm = 500;
  g->pitch_u = 1e-300;
  expect_invalid (g, "column pitch 1e-300 mm");
  g->pitch_u = 2.0;
  g->pitch_v_mm = 1e9;
  expect_invalid (g, "row pitch");
  g->pitch_v_mm = 1.0;
  g->offset_u = 1e12;
  expect_invalid (g, "offsets");
  g->offset_u = 0;
  g->angles[7] = 1e300;
  expect_invalid (g, "view 7 has the angle 1e+300 rad");
  g->angles[7] = g->angles[3];
  expect_invalid (g, "views 3 and 7 have the same angle");
  ctr_geometry_set_uniform_angles (g, 0.3, 0.0);   /* "angle_step_rad": 0 */
  expect_invalid (g, "same angle");
  ctr_geometry_set_uniform_angles (g, 0, 2 * G_PI / 90);
  g->shape = CTR_DETECTOR_CURVED;
  g->pitch_u = 1e-12;
  expect_invalid (g, "column pitch 1e-12 rad");
  g->pitch_u = 0.002;
  g_assert_true (ctr_geometry_validate (g, NULL));
}

static void
test_grid_default_overflow (void)
{
  g_autoptr (CtrGeometry) g = fan ();
  /* 8.6e-9 mm over a field of view of about 140 mm: 1.6e10 pixels across,
   * beyond guint; the old cast wrapped round to a plausible size. */
  CtrGrid grid = ctr_grid_default (g, 0, 8.6e-9);
  g_assert_cmpuint (grid.nx, ==, G_MAXUINT);
  g_autoptr (GError) error = NULL;
  g_assert_false (ctr_grid_validate (&grid, &error));
  g_assert_nonnull (strstr (error->message, "more than 4294967295"));
  g_clear_error (&error);
  grid = ctr_grid_default (g, 0, 1e-4);   /* 1.4 million pixels: fits guint, still refused */
  g_assert_false (ctr_grid_validate (&grid, &error));
  g_assert_nonnull (strstr (error->message, "is the pixel size right?"));
  g_clear_error (&error);
  grid = ctr_grid_default (g, 0, 0);
  g_assert_true (ctr_grid_validate (&grid, NULL));
}

/* ------------------------------------------------------------------------ */
/* SSIM and the run's checks (defect 6, 5)                                   */

static guint32
xorshift (guint32 *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* SSIM of one 11 × 11 window at (ox, oy), moments about the window's own
 * means, in long double: the oracle. */
static double
ssim_reference (const float *a, const float *b, guint nx, guint ny, double L)
{
  long double w[11], sw = 0;
  for (int k = -5; k <= 5; k++)
    sw += w[k + 5] = expl (-0.5L * k * k / (1.5L * 1.5L));
  long double total = 0;
  for (guint oy = 5; oy + 5 < ny; oy++)
    for (guint ox = 5; ox + 5 < nx; ox++)
      {
        long double ma = 0, mb = 0;
        for (int j = -5; j <= 5; j++)
          for (int i = -5; i <= 5; i++)
            {
              const long double ww = w[j + 5] * w[i + 5] / (sw * sw);
              ma += ww * a[(oy + j) * nx + ox + i];
              mb += ww * b[(oy + j) * nx + ox + i];
            }
        long double va = 0, vb = 0, vab = 0;
        for (int j = -5; j <= 5; j++)
          for (int i = -5; i <= 5; i++)
            {
              const long double ww = w[j + 5] * w[i + 5] / (sw * sw);
              const long double da = a[(oy + j) * nx + ox + i] - ma, db = b[(oy + j) * nx + ox + i] - mb;
              va += ww * da * da;
              vb += ww * db * db;
              vab += ww * da * db;
            }
        const long double c1 = (0.01L * L) * (0.01L * L), c2 = (0.03L * L) * (0.03L * L);
        total += (2 * ma * mb + c1) * (2 * vab + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      }
  return (double) (total / ((nx - 10) * (ny - 10)));
}

static void
test_ssim_bounded (void)
{
  /* An image of 1000 1/mm with a contrast of one float32 step (6.1e-5) and
   * a copy with 1 pixel in 8 one step off: E[x²] − E[x]² cancels to
   * rounding noise of the size of C2, and the old code reported 1.53. */
  enum { N = 20 };
  float img[N * N], ref[N * N];
  guint32 s = 766u * 2654435761u + 1;
  const float c = 1000.f, up = nextafterf (c, INFINITY);
  for (guint i = 0; i < N * N; i++)
    {
      ref[i] = xorshift (&s) & 1 ? up : c;
      img[i] = ref[i];
      const guint r = xorshift (&s) % 16;
      if (r == 0)
        img[i] = nextafterf (ref[i], INFINITY);
      else if (r == 1)
        img[i] = nextafterf (ref[i], -INFINITY);
    }
  const double L = (double) up - c;
  const double ssim = ctr_metrics_ssim (img, ref, N, N, L);
  const double oracle = ssim_reference (img, ref, N, N, L);
  g_test_message ("SSIM %.6f, long-double oracle %.6f", ssim, oracle);
  g_assert_cmpfloat (ssim, <=, 1.0);
  g_assert_cmpfloat_with_epsilon (ssim, oracle, 1e-3);
  /* Undefined: a constant reference (data range 0). */
  g_assert_true (isnan (ctr_metrics_ssim (img, ref, N, N, 0.0)));
}

static CtrGeometry *
parallel (guint views, guint cols)
{
  CtrGeometry *g = ctr_geometry_new (CTR_BEAM_PARALLEL, views);
  g->n_cols = cols;
  g->pitch_u = 1.0;
  ctr_geometry_set_uniform_angles (g, 0, G_PI / views);
  return g;
}

static void
count_reports (const CtrIterStats *s, gpointer data)
{
  (*(guint *) data)++;
}

static void
test_run_not_finite (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = parallel (60, 48);
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1);
  g_autoptr (CtrProjections) p = ctr_projections_new (60, 1, 48, CTR_PROJ_LINE_INTEGRALS, NULL);
  /* Finite values whose filtered sum overflows float32. */
  for (gsize i = 0; i < 60 * 48; i++)
    p->data[i] = (i % 2) ? 3e38f : -3e38f;
  g_assert_true (ctr_projections_check_finite (p, NULL));
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_assert_no_error (error);
  guint reports = 0;
  g_autoptr (CtrVolume) v = ctr_recon_plan_execute (plan, p, NULL, count_reports, &reports, NULL, &error);
  g_assert_null (v);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "not finite"));
  g_assert_cmpuint (reports, ==, 0);
  g_clear_error (&error);

  /* Iterative: SIRT diverges to infinity on the same data. */
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 3;
  o.matrix = CTR_MATRIX_CSR;
  o.subsets = CTR_SUBSETS_VIEW;
  g_autoptr (CtrReconPlan) plan2 = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_assert_no_error (error);
  g_autoptr (CtrVolume) v2 = ctr_recon_plan_execute (plan2, p, NULL, count_reports, &reports, NULL, &error);
  g_assert_null (v2);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_cmpuint (reports, ==, 0);
}

static void
test_reference_unmeasurable (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = parallel (60, 48);
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1);
  g_autoptr (CtrProjections) p = ctr_projections_new (60, 1, 48, CTR_PROJ_LINE_INTEGRALS, NULL);
  CtrReconOptions o;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  g_autoptr (CtrReconPlan) plan = ctr_recon_plan_new (g, &grid, &o, NULL, &error);
  g_autoptr (CtrVolume) ref = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    ref->data[i] = 0.02f;   /* constant: PSNR and SSIM undefined */
  g_autoptr (CtrVolume) v = ctr_recon_plan_execute (plan, p, ref, NULL, NULL, NULL, &error);
  g_assert_null (v);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "constant"));
  g_clear_error (&error);
  ref->data[5] = NAN;
  g_assert_null (ctr_recon_plan_execute (plan, p, ref, NULL, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "non-finite"));
  g_clear_error (&error);
  /* An image smaller than one pixel's field of view. */
  CtrGrid coarse = ctr_grid_square (4, 100.0, 1, 1);
  g_assert_null (ctr_recon_plan_new (g, &coarse, &o, NULL, &error));
  g_assert_nonnull (strstr (error->message, "smaller than one pixel"));
}

/* ------------------------------------------------------------------------ */
/* Empty system matrices (defect 8: memcpy from NULL, caught by UBSan)       */

static void
test_empty_matrix (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = parallel (8, 4);
  g->offset_u = 500;   /* every ray passes 500 mm from the axis */
  CtrGrid grid = ctr_grid_square (16, 1.0, 1, 1);
  g_autoptr (CtrSysmat) a = ctr_sysmat_build (g, &grid, CTR_RAY_MODEL_AREA, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_sysmat_nnz (a), ==, 0);
  g_autoptr (CtrScsr) m = ctr_scsr_build (g, &grid, CTR_RAY_MODEL_AREA, CTR_SYM_ALL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ctr_scsr_nnz (m), ==, 0);
}

/* ------------------------------------------------------------------------ */
/* DICOM (defects 3 and 2)                                                   */

static void
put (CtrDcm *d, guint16 g, guint16 e, const char *vr, const char *v)
{
  g_assert_true (ctr_dcm_put_string (d, g, e, vr, v, NULL));
}

static void
write_ctpd (const char *folder, const char *const *instances)
{
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  const guint n = g_strv_length ((char **) instances);
  for (guint k = 0; k < n; k++)
    {
      g_autoptr (CtrDcm) d = ctr_dcm_new ();
      g_autofree char *uid = ctr_dcm_new_uid ();
      put (d, 0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2");
      put (d, 0x0008, 0x0018, "UI", uid);
      put (d, 0x0008, 0x0060, "CS", "CT");
      put (d, 0x0020, 0x000e, "UI", "1.2.3.4.14");
      put (d, 0x0020, 0x0013, "IS", instances[k]);
      put (d, 0x0028, 0x0004, "CS", "MONOCHROME2");
      put (d, 0x0028, 0x1053, "DS", "0.001");
      const guint16 us[][2] = { { 0x0002, 1 }, { 0x0010, 8 }, { 0x0011, 1 }, { 0x0100, 16 }, { 0x0101, 16 },
                                { 0x0102, 15 }, { 0x0103, 0 } };
      for (guint i = 0; i < G_N_ELEMENTS (us); i++)
        g_assert_true (ctr_dcm_put_u16 (d, 0x0028, us[i][0], "US", us[i][1], NULL));
      put (d, 0x7029, 0x0010, "LO", "DetectorSystemArrangementModule");
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1010, "US", 1, NULL));
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1011, "US", 8, NULL));
      const float tsp = 0.5f, rho = 500, sdd = 900, central[2] = { 4.5f, 1.0f }, z = 0;
      const float phi = (float) fmod (G_PI + k * 2 * G_PI / n, 2 * G_PI);
      g_assert_true (ctr_dcm_put_floats (d, 0x7029, 0x1002, &tsp, 1, NULL));
      put (d, 0x7029, 0x100b, "CS", "FLAT");
      put (d, 0x7031, 0x0010, "LO", "DetectorDynamicsModule");
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1001, &phi, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1002, &z, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1003, &rho, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1031, &sdd, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1033, central, 2, NULL));
      guint16 pix[8] = { 100, 110, 120, 130, 140, 150, 160, 170 };
      g_assert_true (ctr_dcm_put_pixels16 (d, pix, 8, NULL));
      g_autofree char *name = g_strdup_printf ("v%02u.dcm", k);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_assert_true (ctr_dcm_save (d, path, NULL));
    }
}

static void
test_dicom_instance_numbers (void)
{
  g_autoptr (GError) error = NULL;
  struct { const char *name; const char *inst[3]; GQuark domain; int code; const char *needle; } cases[] = {
    { "i9e18", { "1", "9000000000000000000" }, CTR_ERROR, CTR_ERROR_FORMAT, "“9000000000000000000” is not an integer" },
    { "i2p31", { "1", "2147483648" }, CTR_ERROR, CTR_ERROR_FORMAT, "“2147483648” is not an integer" },
    { "ifrac", { "1", "2.5" }, CTR_ERROR, CTR_ERROR_FORMAT, "not an integer" },
    { "ispan", { "1", "2147483647" }, CTR_ERROR, CTR_ERROR_INVALID_DATA, "2147483645 missing" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *folder = tmp_path (cases[i].name);
      write_ctpd (folder, cases[i].inst);
      const gint64 t0 = g_get_monotonic_time ();
      g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
      g_assert_null (d);
      g_assert_error (error, cases[i].domain, cases[i].code);
      if (strstr (error->message, cases[i].needle) == NULL)
        g_error ("%s: “%s” lacks “%s”", cases[i].name, error->message, cases[i].needle);
      /* Counted, not walked: the gap of 2³¹ took 4 s, one of 9·10¹⁸ hung. */
      g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
      g_clear_error (&error);
    }
  /* A small gap loads, with the gap as a warning and the files as inputs. */
  g_autofree char *folder = tmp_path ("igap");
  const char *inst[] = { "1", "2", "4", "5", NULL };
  write_ctpd (folder, inst);
  g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d->warnings);
  g_assert_nonnull (strstr (d->warnings[0], "1 missing (instance number 3)"));
  g_assert_cmpuint (g_strv_length (d->inputs), ==, 4);
}

static void
test_dicom_save_full_disk (void)
{
  /* /dev/full answers every write with ENOSPC. */
  int fd = g_open ("/dev/full", O_WRONLY, 0);
  if (fd < 0)
    {
      g_test_skip ("no /dev/full");
      return;
    }
  g_autoptr (CtrDcm) d = ctr_dcm_new ();
  put (d, 0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2");
  put (d, 0x0008, 0x0018, "UI", "1.2.3.4.5");
  guint16 pix[4096] = { 0 };
  g_assert_true (ctr_dcm_put_pixels16 (d, pix, G_N_ELEMENTS (pix), NULL));
  g_autoptr (GError) error = NULL;
  g_assert_false (ctr_dcm_save_fd (d, fd, "CT0001.dcm", NULL, &error));
  close (fd);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "CT0001.dcm: No space left on device"));
}

static void
test_dicom_export_whole (void)
{
  g_autoptr (GError) error = NULL;
  CtrGrid grid = ctr_grid_square (16, 1.0, 3, 1.0);
  g_autoptr (CtrVolume) v = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    v->data[i] = 0.0192f * (1 + (i % 7) * 0.1f);
  g_autofree char *parent = tmp_path ("export");
  g_autofree char *folder = g_build_filename (parent, "series", NULL);
  g_assert_true (ctr_dicom_export_series (v, folder, NULL, &error));
  g_assert_no_error (error);
  /* A second export replaces the first as a whole (new files, same names). */
  g_autofree char *first = g_build_filename (folder, "CT0002.dcm", NULL);
  GStatBuf s1, s2;
  g_assert_cmpint (g_stat (first, &s1), ==, 0);
  g_assert_true (ctr_dicom_export_series (v, folder, NULL, &error));
  g_assert_cmpint (g_stat (first, &s2), ==, 0);
  g_assert_true (s1.st_ino != s2.st_ino);
  g_autoptr (GDir) dir = g_dir_open (parent, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_assert_cmpuint (n, ==, 1);   /* no temporary folder left beside it */
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (series->len, ==, 1);
  g_assert_cmpuint (((CtrDicomSeries *) series->pdata[0])->n_files, ==, 3);

  /* A folder with the user's own files is refused, the files kept. */
  g_autofree char *notes = g_build_filename (folder, "notes.txt", NULL);
  write_text (notes, "mine");
  g_assert_false (ctr_dicom_export_series (v, folder, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "notes.txt"));
  g_assert_true (g_file_test (notes, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (first, G_FILE_TEST_EXISTS));
}

/* A 484-byte TIFF (found by the one-hour fuzz run) that claims 4,194,309
 * lines in 838,862 strips but gives one strip offset: libtiff fills the
 * rest with offset 0, and the reader used to return the file's own header,
 * read over and over, as a 7 × 4,194,309 image.  It must be refused. */
static void
test_tiff_strips_outside_file (void)
{
  const char *dir = g_getenv ("CTR_TESTS_DIR");
  if (dir == NULL)
    {
      g_test_skip ("CTR_TESTS_DIR is not set");
      return;
    }
  /* and a 262-byte file whose first strip claims 67 MB, and a 428-byte file
   * claiming 168 MB of floats in three strips of 140 bytes, and a 1,320-byte
   * file of 20 × 20 pixels in one tile of 201 MB: refused before the reader
   * allocates what they claim */
  static const char *const names[] = { "strips-outside-file.tif", "strip-larger-than-file.tif",
                                       "pixels-beyond-strips.tif", "tile-larger-than-file.tif" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, "fuzz", "reproducers", "tiff", names[i], NULL);
      g_autoptr (GError) error = NULL;
      CtrTiffInfo info;
      g_autofree float *data = ctr_tiff_read (path, &info, &error);
      g_assert_null (data);
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, i < 2 ? "lies outside the file" : "truncated or damaged"));
    }
}

int
main (int argc, char **argv)
{
  /* Before the first ctr_memory_limit_bytes(): a known limit for the tests. */
  g_setenv ("CTR_MEMORY_LIMIT_MB", "512", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_autoptr (GError) error = NULL;
  tmp_dir = g_dir_make_tmp ("ctr-test-hostile-XXXXXX", &error);
  g_assert_no_error (error);
  g_test_add_func ("/ctr/hostile/output-path", test_output_path);
  g_test_add_func ("/ctr/hostile/tiff/strips-outside-file", test_tiff_strips_outside_file);
  g_test_add_func ("/ctr/hostile/memory", test_memory);
  g_test_add_func ("/ctr/hostile/geometry/plausible", test_plausible);
  g_test_add_func ("/ctr/hostile/grid-default-overflow", test_grid_default_overflow);
  g_test_add_func ("/ctr/hostile/ssim-bounded", test_ssim_bounded);
  g_test_add_func ("/ctr/hostile/run/not-finite", test_run_not_finite);
  g_test_add_func ("/ctr/hostile/run/reference-unmeasurable", test_reference_unmeasurable);
  g_test_add_func ("/ctr/hostile/sysmat/empty", test_empty_matrix);
  g_test_add_func ("/ctr/hostile/dicom/instance-numbers", test_dicom_instance_numbers);
  g_test_add_func ("/ctr/hostile/dicom/save-full-disk", test_dicom_save_full_disk);
  g_test_add_func ("/ctr/hostile/dicom/export-whole", test_dicom_export_whole);
  int status = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
