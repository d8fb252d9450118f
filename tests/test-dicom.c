/* test-dicom.c — DICOM input and output on files made here with DCMTK (through
 * the shim): synthetic X-ray angiography multi-frame and DICOM-CT-PD series
 * whose geometry and pixel values are known, the CT series export read back,
 * and bad input (corrupted, truncated, missing tags, mixed series, duplicate
 * views), each a clear GError, never a crash; a moving focal centre read as
 * such.  The real
 * DICOM-CT-PD datasets are covered by tests/cli/test_dicom.py.
 */
#include "ctrecon.h"
#include "io/ctr-dicom-shim.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <tiffio.h>

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char *
new_folder (const char *name)
{
  char *p = tmp_path (name);
  g_assert_cmpint (g_mkdir_with_parents (p, 0777), ==, 0);
  return p;
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

#define PUT(d, g, e, v) g_assert_true (ctr_dcm_put_string (d, g, e, NULL, v, NULL))
#define PUT_US(d, g, e, v) g_assert_true (ctr_dcm_put_u16 (d, g, e, NULL, v, NULL))

static void
put_image_pixel_module (CtrDcm *d, guint rows, guint cols, guint frames)
{
  PUT_US (d, 0x0028, 0x0002, 1);
  PUT (d, 0x0028, 0x0004, "MONOCHROME2");
  PUT_US (d, 0x0028, 0x0010, rows);
  PUT_US (d, 0x0028, 0x0011, cols);
  PUT_US (d, 0x0028, 0x0100, 16);
  PUT_US (d, 0x0028, 0x0101, 16);
  PUT_US (d, 0x0028, 0x0102, 15);
  PUT_US (d, 0x0028, 0x0103, 0);
  if (frames > 0)
    {
      g_autofree char *f = g_strdup_printf ("%u", frames);
      PUT (d, 0x0028, 0x0008, f);
    }
}

/* ------------------------------------------------------------------------ */
/* Synthetic XA multi-frame                                                  */

enum { XA_R = 6, XA_C = 8, XA_F = 5 };
static const double XA_I0 = 4000.0;

/* Line integral of frame k, image row r, image column c. */
static double
xa_p (guint k, guint r, guint c)
{
  return 0.01 * k * (c + 1) + 0.001 * r + 0.002 * c * (k > 0);
}

typedef struct {
  gboolean geometry;        /* write DSD, DSP, ImagerPixelSpacing */
  const char *increments;   /* PositionerPrimaryAngleIncrement */
  const char *orientation;  /* PatientOrientation, or NULL */
  const char *series_uid;
} XaSpec;

static void
write_xa (const char *path, const XaSpec *s)
{
  g_autoptr (CtrDcm) d = ctr_dcm_new ();
  g_autofree char *sop = ctr_dcm_new_uid ();
  PUT (d, 0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.12.1");
  PUT (d, 0x0008, 0x0018, sop);
  PUT (d, 0x0008, 0x0060, "XA");
  PUT (d, 0x0008, 0x103e, "synthetic rotational run");
  PUT (d, 0x0020, 0x000e, s->series_uid);
  PUT (d, 0x0020, 0x0013, "1");
  PUT (d, 0x0018, 0x1510, "-60");
  PUT (d, 0x0018, 0x1511, "2");
  PUT (d, 0x0018, 0x1520, s->increments);
  PUT (d, 0x0028, 0x1040, "LIN");
  if (s->orientation != NULL)
    PUT (d, 0x0020, 0x0020, s->orientation);
  if (s->geometry)
    {
      PUT (d, 0x0018, 0x1110, "1200");
      PUT (d, 0x0018, 0x1111, "800");
      PUT (d, 0x0018, 0x1164, "0.3\\0.2");
    }
  put_image_pixel_module (d, XA_R, XA_C, XA_F);
  guint16 pix[XA_F * XA_R * XA_C];
  for (guint k = 0; k < XA_F; k++)
    for (guint r = 0; r < XA_R; r++)
      for (guint c = 0; c < XA_C; c++)
        pix[(k * XA_R + r) * XA_C + c] = (guint16) lround (XA_I0 * exp (-xa_p (k, r, c)));
  g_assert_true (ctr_dcm_put_pixels16 (d, pix, G_N_ELEMENTS (pix), NULL));
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_dcm_save (d, path, &error));
  g_assert_no_error (error);
}

static void
check_xa_values (const CtrProjections *p, gboolean reversed)
{
  g_assert_cmpuint (p->n_views, ==, XA_F);
  g_assert_cmpuint (p->n_rows, ==, XA_R);
  g_assert_cmpuint (p->n_cols, ==, XA_C);
  double worst = 0;
  for (guint k = 0; k < XA_F; k++)
    for (guint r = 0; r < XA_R; r++)
      for (guint c = 0; c < XA_C; c++)
        {
          guint j = reversed ? XA_C - 1 - c : c;
          double got = ctr_projections_view (p, k)[r * XA_C + j];
          /* -ln(round(I0 e^-p) / I0): rounding to a count is at most 0.5/I. */
          double tol = 0.5 / (XA_I0 * exp (-xa_p (k, r, c))) + 1e-6;
          worst = MAX (worst, fabs (got - xa_p (k, r, c)) / tol);
        }
  g_assert_cmpfloat (worst, <=, 1.0);
}

static void
test_xa_synthetic (void)
{
  g_autofree char *path = tmp_path ("xa.dcm");
  XaSpec s = { TRUE, "0\\30\\60\\90\\120", NULL, "1.2.3.4.100" };
  write_xa (path, &s);

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDicomProjections) p = ctr_dicom_xa_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->missing, ==, CTR_DICOM_MISSING_NONE);
  const CtrGeometry *g = p->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_CONE);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_FLAT);
  g_assert_cmpfloat_with_epsilon (g->sod_mm, 800, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->sdd_mm, 1200, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 0.2, 1e-9);    /* column spacing: 2nd value */
  g_assert_cmpfloat_with_epsilon (g->pitch_v_mm, 0.3, 1e-9); /* row spacing: 1st value */
  g_assert_false (g->rows_increase_with_v);
  for (guint k = 0; k < XA_F; k++)  /* offsets from the initial angle, one per frame */
    g_assert_cmpfloat_with_epsilon (g->angles[k], (-60.0 + 30.0 * k) * G_PI / 180, 1e-12);
  /* Radiograph display: image columns run against u. */
  check_xa_values (p->projections, TRUE);

  /* Through the generic entry points too. */
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d->geometry->n_views, ==, XA_F);
  g_assert_cmpstr (d->name, ==, "synthetic rotational run");

  /* One increment = constant step per frame; PatientOrientation R\H keeps the order. */
  g_autofree char *path2 = tmp_path ("xa-step.dcm");
  XaSpec s2 = { TRUE, "15", "R\\H", "1.2.3.4.101" };
  write_xa (path2, &s2);
  g_autoptr (CtrDicomProjections) p2 = ctr_dicom_xa_load (path2, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < XA_F; k++)
    g_assert_cmpfloat_with_epsilon (p2->geometry->angles[k], (-60.0 + 15.0 * k) * G_PI / 180, 1e-12);
  g_assert_true (p2->geometry->rows_increase_with_v);
  check_xa_values (p2->projections, FALSE);
}

/* Enhanced XA: angles per frame in the Positioner Position Sequence, distances
 * in the shared X-Ray Geometry Sequence, pixel spacing in the shared
 * XA/XRF Frame Pixel Data Properties Sequence. */
static void
test_xa_enhanced (void)
{
  g_autoptr (CtrDcm) d = ctr_dcm_new ();
  g_autofree char *sop = ctr_dcm_new_uid ();
  PUT (d, 0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.12.1.1");
  PUT (d, 0x0008, 0x0018, sop);
  PUT (d, 0x0008, 0x0060, "XA");
  PUT (d, 0x0020, 0x000e, "1.2.3.4.110");
  PUT (d, 0x0028, 0x1040, "LIN");
  put_image_pixel_module (d, XA_R, XA_C, XA_F);
  g_autoptr (GError) error = NULL;
  const double angles[XA_F] = { -90, -45.5, 0, 44, 91 };
  for (guint k = 0; k < XA_F; k++)
    {
      g_autofree char *a = g_strdup_printf ("%g", angles[k]);
      g_assert_true (ctr_dcm_put_frame_string (d, k, 0x0018, 0x9405, 0x0018, 0x1510, "DS", a, &error));
      g_assert_true (ctr_dcm_put_frame_string (d, k, 0x0018, 0x9405, 0x0018, 0x1511, "DS", "3", &error));
    }
  g_assert_true (ctr_dcm_put_frame_string (d, -1, 0x0018, 0x9476, 0x0018, 0x9402, "FD", "750", &error));
  g_assert_true (ctr_dcm_put_frame_string (d, -1, 0x0018, 0x9476, 0x0018, 0x1110, "DS", "1150", &error));
  g_assert_true (ctr_dcm_put_frame_string (d, -1, 0x0028, 0x9443, 0x0018, 0x1164, "DS", "0.25\\0.15", &error));
  g_assert_no_error (error);
  guint16 pix[XA_F * XA_R * XA_C];
  for (guint k = 0; k < XA_F; k++)
    for (guint r = 0; r < XA_R; r++)
      for (guint c = 0; c < XA_C; c++)
        pix[(k * XA_R + r) * XA_C + c] = (guint16) lround (XA_I0 * exp (-xa_p (k, r, c)));
  g_assert_true (ctr_dcm_put_pixels16 (d, pix, G_N_ELEMENTS (pix), NULL));
  g_autofree char *path = tmp_path ("enhanced-xa.dcm");
  g_assert_true (ctr_dcm_save (d, path, &error));

  g_autoptr (CtrDicomProjections) p = ctr_dicom_xa_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->missing, ==, CTR_DICOM_MISSING_NONE);
  g_assert_cmpfloat_with_epsilon (p->geometry->sod_mm, 750, 1e-9);
  g_assert_cmpfloat_with_epsilon (p->geometry->sdd_mm, 1150, 1e-9);
  g_assert_cmpfloat_with_epsilon (p->geometry->pitch_v_mm, 0.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (p->geometry->pitch_u, 0.15, 1e-9);
  for (guint k = 0; k < XA_F; k++)
    g_assert_cmpfloat_with_epsilon (p->geometry->angles[k], angles[k] * G_PI / 180, 1e-12);
  check_xa_values (p->projections, TRUE);
  g_assert_nonnull (strstr (p->description, "Enhanced XA"));
}

static void
test_xa_missing_geometry (void)
{
  g_autofree char *path = tmp_path ("xa-nogeo.dcm");
  XaSpec s = { FALSE, "0\\30\\60\\90\\120", NULL, "1.2.3.4.102" };
  write_xa (path, &s);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDicomProjections) p = ctr_dicom_xa_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (p->missing, ==,
                   CTR_DICOM_MISSING_SOD | CTR_DICOM_MISSING_SDD | CTR_DICOM_MISSING_PIXEL_SPACING);
  check_xa_values (p->projections, TRUE);

  /* The dataset path cannot ask: a distinct, explicit error naming the tags. */
  CtrDataset *d = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_null (d);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_assert_nonnull (strstr (error->message, "DistanceSourceToDetector"));
  g_clear_error (&error);

  /* What the window does after asking. */
  g_assert_false (ctr_dicom_xa_complete (p, 800, 700, 0.2, 0.3, 0, 0, &error));  /* SDD < SOD */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_clear_error (&error);
  g_assert_true (ctr_dicom_xa_complete (p, 800, 1200, 0.2, 0.3, 0, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (p->missing, ==, CTR_DICOM_MISSING_NONE);
  g_assert_cmpfloat (p->geometry->sdd_mm, ==, 1200);
  g_assert_cmpfloat_with_epsilon (p->geometry->angles[2], 0.0, 1e-12);  /* -60 + 60: kept from the file */
  g_autoptr (CtrDataset) d2 = ctr_dicom_dataset_from_projections (p, path, NULL);
  g_assert_cmpuint (d2->projections->n_views, ==, XA_F);
  g_assert_cmpstr (d2->name, ==, "xa-nogeo.dcm");
  g_assert_null (p->geometry);
}

/* ------------------------------------------------------------------------ */
/* Synthetic DICOM-CT-PD                                                     */

enum { PD_CH = 10, PD_V = 4 };

typedef struct {
  const char *series_uid;
  gboolean no_central;      /* leave out DetectorCentralElement */
  gboolean helical;         /* move the focal spot along z */
  const gint *instances;    /* PD_V instance numbers, or NULL for 1..PD_V */
  guint n_views;
  guint rows;               /* detector rows, 0 = 1 */
  gboolean counts;          /* LogFlag NO, PhotonStatistics 1000, no rescale */
} PdSpec;

static guint16
pd_stored (guint k, guint ch, guint q)
{
  return (guint16) (500 + 100 * k + 10 * ch + 3 * q);
}

static void
write_ctpd (const char *folder, const PdSpec *s)
{
  const guint n = s->n_views ? s->n_views : PD_V;
  const guint rows = s->rows ? s->rows : 1;
  for (guint k = 0; k < n; k++)
    {
      g_autoptr (CtrDcm) d = ctr_dcm_new ();
      g_autofree char *sop = ctr_dcm_new_uid ();
      g_autofree char *inst = g_strdup_printf ("%d", s->instances ? s->instances[k] : (gint) k + 1);
      PUT (d, 0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.2");
      PUT (d, 0x0008, 0x0018, sop);
      PUT (d, 0x0008, 0x0060, "CT");
      PUT (d, 0x0020, 0x000e, s->series_uid);
      PUT (d, 0x0020, 0x0013, inst);
      PUT (d, 0x0028, 0x1052, s->counts ? "0" : "-0.5");
      PUT (d, 0x0028, 0x1053, s->counts ? "1" : "0.001");
      put_image_pixel_module (d, PD_CH, rows, 0);
      g_assert_true (ctr_dcm_put_string (d, 0x7029, 0x0010, "LO", "DetectorSystemArrangementModule", NULL));
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1010, "US", rows, NULL));
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1011, "US", PD_CH, NULL));
      const float tsp = 0.5f, asp = 1.0f;
      g_assert_true (ctr_dcm_put_floats (d, 0x7029, 0x1002, &tsp, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7029, 0x1006, &asp, 1, NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7029, 0x100b, "CS", "FLAT", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7031, 0x0010, "LO", "DetectorDynamicsModule", NULL));
      /* phi = beta + pi, stored in [0, 2 pi), beta_k = k pi / 2 */
      const float phi = (float) fmod (G_PI + k * G_PI / 2, 2 * G_PI);
      const float z = s->helical ? 2.0f * k : 0.0f, rho = 500, sdd = 900, central[2] = { 6.0f, (rows + 1) / 2.0f };
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1001, &phi, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1002, &z, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1003, &rho, 1, NULL));
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1031, &sdd, 1, NULL));
      if (!s->no_central)
        g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1033, central, 2, NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x0010, "LO", "ProjectionDataDefinitions", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x1009, "CS", "AXIAL", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x100a, "CS", "FANBEAM", NULL));
      if (s->counts)
        {
          float photons[PD_CH];
          for (guint ch = 0; ch < PD_CH; ch++)
            photons[ch] = 1000;
          g_assert_true (ctr_dcm_put_string (d, 0x7033, 0x0010, "LO", "SourceDynamicsModule", NULL));
          g_assert_true (ctr_dcm_put_floats (d, 0x7033, 0x1065, photons, PD_CH, NULL));
          g_assert_true (ctr_dcm_put_string (d, 0x7039, 0x0010, "LO", "PreprocessingFlagsModule", NULL));
          g_assert_true (ctr_dcm_put_string (d, 0x7039, 0x1009, "CS", "NO", NULL));
        }
      guint16 pix[PD_CH * 8];
      g_assert_cmpuint (rows, <=, 8);
      for (guint ch = 0; ch < PD_CH; ch++)  /* image [channel][detector row] */
        for (guint q = 0; q < rows; q++)
          pix[ch * rows + q] = pd_stored (k, ch, q);
      g_assert_true (ctr_dcm_put_pixels16 (d, pix, PD_CH * rows, NULL));
      g_autofree char *name = g_strdup_printf ("view_%02u.dcm", k);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_assert_true (ctr_dcm_save (d, path, NULL));
    }
}

static void
test_ctpd_synthetic (void)
{
  g_autofree char *folder = new_folder ("ctpd");
  PdSpec s = { "1.2.3.4.200", FALSE, FALSE, NULL, 0 };
  write_ctpd (folder, &s);
  g_assert_true (ctr_dicom_is_dicom (folder));

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_FLAT);
  g_assert_cmpuint (g->n_views, ==, PD_V);
  g_assert_cmpuint (g->n_cols, ==, PD_CH);
  g_assert_cmpfloat_with_epsilon (g->sod_mm, 500, 1e-4);
  g_assert_cmpfloat_with_epsilon (g->sdd_mm, 900, 1e-4);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 0.5, 1e-6);
  /* central element 6 (1-based, channel order) = (N + 1)/2 + 0.5 → offset +0.5 pitch */
  g_assert_cmpfloat_with_epsilon (g->offset_u, 0.25, 1e-6);
  for (guint k = 0; k < PD_V; k++)  /* beta = phi - pi, unwrapped */
    g_assert_cmpfloat_with_epsilon (g->angles[k], k * G_PI / 2, 1e-6);
  for (guint k = 0; k < PD_V; k++)
    for (guint ch = 0; ch < PD_CH; ch++)  /* FORMAT column j = N - 1 - channel */
      g_assert_cmpfloat_with_epsilon (ctr_projections_view (d->projections, k)[PD_CH - 1 - ch],
                                      pd_stored (k, ch, 0) * 0.001 - 0.5, 1e-6);

  /* The scan reports the series. */
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (series->len, ==, 1);
  CtrDicomSeries *ser = series->pdata[0];
  g_assert_cmpint (ser->kind, ==, CTR_DICOM_KIND_CTPD);
  g_assert_cmpuint (ser->n_views, ==, PD_V);
  g_assert_cmpuint (ser->n_missing, ==, 0);
  g_assert_cmpuint (ser->n_duplicates, ==, 0);
}

/* Several detector rows: cone beam, or the central row as fan beam; raw counts. */
static void
test_ctpd_rows_counts (void)
{
  enum { ROWS = 3 };
  g_autofree char *folder = new_folder ("ctpd-rows");
  PdSpec s = { "1.2.3.4.210", FALSE, FALSE, NULL, 0, ROWS, TRUE };
  write_ctpd (folder, &s);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert_no_error (error);
  CtrDicomSeries *ser = series->pdata[0];

  g_autoptr (CtrDicomProjections) cone = ctr_dicom_ctpd_load (ser, CTR_DICOM_CTPD_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cone->geometry->beam, ==, CTR_BEAM_CONE);
  g_assert_cmpuint (cone->geometry->n_rows, ==, ROWS);
  g_assert_false (cone->geometry->rows_increase_with_v);  /* z_pd = -z */
  g_assert_cmpfloat_with_epsilon (cone->geometry->offset_v_mm, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (cone->projections->i0, 1000, 1e-9);
  for (guint k = 0; k < PD_V; k++)
    for (guint q = 0; q < ROWS; q++)
      for (guint ch = 0; ch < PD_CH; ch++)
        g_assert_cmpfloat_with_epsilon (ctr_projections_view (cone->projections, k)[q * PD_CH + PD_CH - 1 - ch],
                                        -log (pd_stored (k, ch, q) / 1000.0), 1e-5);

  g_autoptr (CtrDicomProjections) fan = ctr_dicom_ctpd_load (ser, CTR_DICOM_CTPD_CENTRAL_ROW, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fan->geometry->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpuint (fan->geometry->n_rows, ==, 1);
  for (guint ch = 0; ch < PD_CH; ch++)  /* central element row 2 (1-based) = row 1 */
    g_assert_cmpfloat_with_epsilon (ctr_projections_view (fan->projections, 2)[PD_CH - 1 - ch],
                                    -log (pd_stored (2, ch, 1) / 1000.0), 1e-5);
}

static void
test_ctpd_missing_duplicate (void)
{
  g_autofree char *folder = new_folder ("ctpd-dup");
  const gint inst[] = { 1, 2, 4, 4 };
  PdSpec s = { "1.2.3.4.201", FALSE, FALSE, inst, 0 };
  write_ctpd (folder, &s);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert_no_error (error);
  CtrDicomSeries *ser = series->pdata[0];
  g_assert_cmpuint (ser->n_missing, ==, 1);
  g_assert_cmpuint (ser->n_duplicates, ==, 1);
  g_assert_nonnull (strstr (ser->report, "missing (instance number 3)"));
  g_assert_nonnull (strstr (ser->report, "duplicate (instance number 4)"));
  CtrDataset *d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert_null (d);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "duplicate"));
}

static void
test_ctpd_bad (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *f1 = new_folder ("ctpd-notag");
  PdSpec s1 = { "1.2.3.4.202", TRUE, FALSE, NULL, 0 };
  write_ctpd (f1, &s1);
  g_assert_null (ctr_dataset_load (f1, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "DetectorCentralElement (7031,1033)"));
  g_clear_error (&error);

  /* A focal centre that moves along z (tagged AXIAL: a sequence of turns, or
   * a helix whose tag says nothing): read with its source z per view, as cone
   * beam (tests/test-helical-io.c covers helical series). */
  g_autofree char *f2 = new_folder ("ctpd-moving");
  PdSpec s2 = { "1.2.3.4.203", FALSE, TRUE, NULL, 0 };
  write_ctpd (f2, &s2);
  g_autoptr (CtrDataset) d = ctr_dataset_load (f2, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (d->geometry->beam, ==, CTR_BEAM_CONE);
  g_assert_nonnull (d->geometry->source_z_mm);
  for (guint k = 0; k < PD_V; k++)
    g_assert_cmpfloat_with_epsilon (d->geometry->source_z_mm[k], -2.0 * k, 1e-6);
}

static void
test_mixed_series (void)
{
  g_autofree char *folder = new_folder ("mixed");
  PdSpec s = { "1.2.3.4.300", FALSE, FALSE, NULL, 0 };
  write_ctpd (folder, &s);
  g_autofree char *xa = g_build_filename (folder, "run.dcm", NULL);
  XaSpec x = { TRUE, "15", NULL, "1.2.3.4.301" };
  write_xa (xa, &x);

  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) series = ctr_dicom_scan (folder, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (series->len, ==, 2);
  CtrDataset *d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert_null (d);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "several projection series"));
  g_assert_nonnull (strstr (error->message, "1.2.3.4.300"));
  g_assert_nonnull (strstr (error->message, "1.2.3.4.301"));
  g_clear_error (&error);

  /* Choosing one by its UID works. */
  g_autoptr (CtrDataset) d2 = ctr_dicom_load_dataset (folder, "1.2.3.4.301", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d2->geometry->n_views, ==, XA_F);
}

/* ctr_dicom_resolve: the three outcomes, the series a single file stands
 * for, dropped files, and the dataset taken once the XA geometry is given. */
static void
test_resolve (void)
{
  g_autofree char *folder = new_folder ("resolve");
  const gint inst[] = { 1, 2, 4, 5 };
  PdSpec s = { "1.2.3.4.500", FALSE, FALSE, inst, 0 };
  write_ctpd (folder, &s);
  g_autofree char *xa = g_build_filename (folder, "run.dcm", NULL);
  XaSpec x = { FALSE, "0\\30\\60\\90\\120", NULL, "1.2.3.4.501" };
  write_xa (xa, &x);
  g_autoptr (GError) error = NULL;

  /* two projection series: choose */
  g_autoptr (CtrDicomResolution) r = ctr_dicom_resolve (folder, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->outcome, ==, CTR_DICOM_OUTCOME_CHOOSE_SERIES);
  g_assert_cmpuint (r->series->len, ==, 2);
  g_assert_null (r->dataset);
  g_assert_null (ctr_dicom_resolution_take_dataset (r, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "1.2.3.4.501"));
  g_clear_error (&error);

  /* the DICOM-CT-PD series chosen: its dataset, the gap in the report */
  g_autoptr (CtrDicomResolution) pd = ctr_dicom_resolve (folder, NULL, "1.2.3.4.500", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd->outcome, ==, CTR_DICOM_OUTCOME_DATASET);
  g_assert_cmpuint (pd->dataset->geometry->n_views, ==, PD_V);
  g_assert_nonnull (strstr (pd->report, "missing (instance number 3)"));
  g_autofree char *abs = g_canonicalize_filename (folder, NULL);
  g_assert_cmpstr (pd->path, ==, abs);
  g_autoptr (CtrDataset) d = ctr_dicom_resolution_take_dataset (pd, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  g_assert_null (pd->dataset);

  /* one file of the series stands for the series (the XA beside it is
   * not offered) */
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  g_autofree char *pd_file = NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, "run.dcm") && pd_file == NULL)
      pd_file = g_build_filename (folder, name, NULL);
  g_autoptr (CtrDicomResolution) r1 = ctr_dicom_resolve (pd_file, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r1->outcome, ==, CTR_DICOM_OUTCOME_DATASET);
  g_assert_cmpuint (r1->dataset->geometry->n_views, ==, PD_V);

  /* the XA series chosen: its geometry is missing; given, it loads */
  g_autoptr (CtrDicomResolution) rx = ctr_dicom_resolve (folder, NULL, "1.2.3.4.501", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rx->outcome, ==, CTR_DICOM_OUTCOME_GEOMETRY_MISSING);
  g_autofree char *xa_abs = g_canonicalize_filename (xa, NULL);
  g_assert_cmpstr (rx->path, ==, xa_abs);
  g_assert_cmpint (rx->frames->missing, !=, CTR_DICOM_MISSING_NONE);
  g_assert_null (ctr_dicom_resolution_take_dataset (rx, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_assert_nonnull (strstr (error->message, "DistanceSourceToDetector"));
  g_clear_error (&error);
  g_assert_true (ctr_dicom_xa_complete (rx->frames, 800, 1200, 0.2, 0.3, 0, 0, &error));
  g_autoptr (CtrDataset) dx = ctr_dicom_resolution_take_dataset (rx, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (dx->projections->n_views, ==, XA_F);
  g_assert_cmpstr (dx->name, ==, "synthetic rotational run");
  g_assert_cmpstr (dx->path, ==, xa_abs);

  /* dropped files: only the XA file, so no choice */
  const char *files[] = { xa, NULL };
  g_autoptr (CtrDicomResolution) rf = ctr_dicom_resolve (NULL, files, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rf->outcome, ==, CTR_DICOM_OUTCOME_GEOMETRY_MISSING);

  /* a series that is not there */
  g_assert_null (ctr_dicom_resolve (folder, NULL, "1.2.3.4.999", NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "1.2.3.4.999"));
}

static void
test_corrupt_truncated (void)
{
  g_autoptr (GError) error = NULL;
  /* A DICM preamble followed by garbage. */
  g_autofree char *junk = tmp_path ("junk.dcm");
  char buf[600];
  memset (buf, 0, 128);
  memcpy (buf + 128, "DICM", 4);
  for (guint i = 132; i < sizeof buf; i++)
    buf[i] = (char) (i * 37 + 11);
  g_assert_true (g_file_set_contents (junk, buf, sizeof buf, NULL));
  g_assert_true (ctr_dicom_is_dicom (junk));
  g_assert_null (ctr_dataset_load (junk, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "junk.dcm"));
  g_clear_error (&error);

  /* A valid XA cut at several lengths: an error every time, never a crash. */
  g_autofree char *full = tmp_path ("xa-full.dcm");
  XaSpec x = { TRUE, "15", NULL, "1.2.3.4.400" };
  write_xa (full, &x);
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (full, &contents, &len, NULL));
  g_autofree char *cut = tmp_path ("xa-cut.dcm");
  for (gsize n = 140; n < len; n += (len - 140) / 7)
    {
      g_assert_true (g_file_set_contents (cut, contents, n, NULL));
      CtrDataset *d = ctr_dataset_load (cut, NULL, NULL, &error);
      g_assert_null (d);
      g_assert_nonnull (error);
      g_assert_true (error->domain == CTR_ERROR);
      g_assert_nonnull (strstr (error->message, "xa-cut.dcm"));
      g_clear_error (&error);
    }

  g_autofree char *nothing = tmp_path ("does-not-exist.dcm");
  g_assert_null (ctr_dicom_scan (nothing, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  g_autofree char *empty = new_folder ("empty");
  g_assert_null (ctr_dicom_load_dataset (empty, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
}

/* ------------------------------------------------------------------------ */
/* Export                                                                    */

static void
test_export_roundtrip (void)
{
  CtrGrid grid = { 5, 4, 3, 0.5, 0.75, 2.0, 1.0, -2.0, 10.0 };
  g_autoptr (CtrVolume) v = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    v->data[i] = 0.0192f * (0.1f * (float) i);  /* -1000 HU up to +4900 HU */
  g_autofree char *folder = tmp_path ("export");
  CtrDicomExportOptions o;
  ctr_dicom_export_options_init (&o);
  o.derivation = "test derivation";
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_dicom_export_series (v, folder, &o, &error));
  g_assert_no_error (error);

  g_autofree char *series_uid = NULL;
  for (guint z = 0; z < grid.nz; z++)
    {
      g_autofree char *name = g_strdup_printf ("CT%04u.dcm", z + 1);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autoptr (CtrDcm) d = ctr_dcm_open (path, &error);
      g_assert_no_error (error);
      guint r, c, f;
      g_autofree float *hu = ctr_dcm_read_pixels (d, &r, &c, &f, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (r, ==, grid.ny);
      g_assert_cmpuint (c, ==, grid.nx);
      for (gsize i = 0; i < ctr_grid_slice_size (&grid); i++)
        {
          double mu = ctr_volume_slice (v, z)[i];
          g_assert_cmpfloat (fabs (hu[i] - 1000.0 * (mu - 0.0192) / 0.0192), <=, 0.5 + 1e-3);
        }
      double x;
      /* First pixel centre in LPS: (x, -y, -z) of FORMAT's frame. */
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x0032, 0, &x));
      g_assert_cmpfloat_with_epsilon (x, ctr_grid_x (&grid, 0), 1e-6);
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x0032, 1, &x));
      g_assert_cmpfloat_with_epsilon (x, -ctr_grid_y (&grid, 0), 1e-6);
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x0032, 2, &x));
      g_assert_cmpfloat_with_epsilon (x, -ctr_grid_z (&grid, z), 1e-6);
      g_assert_true (ctr_dcm_get_double (d, 0x0028, 0x0030, 0, &x));
      g_assert_cmpfloat_with_epsilon (x, 0.75, 1e-9);  /* row spacing = dy */
      g_assert_true (ctr_dcm_get_double (d, 0x0028, 0x0030, 1, &x));
      g_assert_cmpfloat_with_epsilon (x, 0.5, 1e-9);
      g_autofree char *uid = ctr_dcm_get_string (d, 0x0020, 0x000e);
      if (series_uid == NULL)
        series_uid = g_strdup (uid);
      g_assert_cmpstr (uid, ==, series_uid);
      g_autofree char *deriv = ctr_dcm_get_string (d, 0x0008, 0x2111);
      g_assert_nonnull (strstr (deriv, "test derivation"));
    }
  /* No temporary file left behind. */
  g_autoptr (GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;
  guint n = 0;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_assert_true (name[0] != '.');
      n++;
    }
  g_assert_cmpuint (n, ==, grid.nz);

  o.mu_water = 0;
  g_assert_false (ctr_dicom_export_series (v, folder, &o, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
}

/* 12 of 16 bits stored, signed, with junk in the unused high bits. */
static void
test_pixels_bits_stored (void)
{
  g_autoptr (CtrDcm) d = ctr_dcm_new ();
  put_image_pixel_module (d, 1, 3, 0);
  g_assert_true (ctr_dcm_put_u16 (d, 0x0028, 0x0101, NULL, 12, NULL));
  g_assert_true (ctr_dcm_put_u16 (d, 0x0028, 0x0102, NULL, 11, NULL));
  g_assert_true (ctr_dcm_put_u16 (d, 0x0028, 0x0103, NULL, 1, NULL));
  PUT (d, 0x0028, 0x1053, "2");
  PUT (d, 0x0028, 0x1052, "10");
  const guint16 pix[3] = { 0xA000 | 0x0FFB, 0x07FF, 0x5800 };  /* -5, 2047, -2048 */
  g_assert_true (ctr_dcm_put_pixels16 (d, pix, 3, NULL));
  guint r, c, f;
  g_autoptr (GError) error = NULL;
  g_autofree float *v = ctr_dcm_read_pixels (d, &r, &c, &f, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (v[0], ==, -5 * 2 + 10);
  g_assert_cmpfloat (v[1], ==, 2047 * 2 + 10);
  g_assert_cmpfloat (v[2], ==, -2048 * 2 + 10);
}

static void
test_tiff_imagej (void)
{
  CtrGrid grid = { 4, 3, 3, 0.5, 0.5, 1.25, 0, 0, 0 };
  g_autoptr (CtrVolume) v = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    v->data[i] = (float) i;
  ctr_volume_set_unit (v, "1/mm");
  g_autofree char *path = tmp_path ("stack.tif");
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_tiff_write_volume (path, v, &error));
  g_assert_no_error (error);
  TIFF *tif = TIFFOpen (path, "r");
  g_assert_nonnull (tif);
  char *desc = NULL;
  g_assert_true (TIFFGetField (tif, TIFFTAG_IMAGEDESCRIPTION, &desc));
  g_assert_true (g_str_has_prefix (desc, "ImageJ="));
  g_assert_nonnull (strstr (desc, "\nimages=3\nslices=3\n"));
  g_assert_nonnull (strstr (desc, "\nunit=mm\nspacing=1.25\n"));
  g_assert_nonnull (strstr (desc, "\nmin=0\nmax=35\n"));
  float xres = 0;
  g_assert_true (TIFFGetField (tif, TIFFTAG_XRESOLUTION, &xres));
  g_assert_cmpfloat_with_epsilon (xres, 2.0, 1e-6);
  TIFFClose (tif);
  /* Pixels unchanged. */
  CtrTiffInfo info;
  g_autofree float *back = ctr_tiff_read (path, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info.pages, ==, 3);
  g_assert_cmpmem (back, ctr_grid_size (&grid) * sizeof (float), v->data, ctr_grid_size (&grid) * sizeof (float));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctr-test-dicom-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/ctr/io/dicom/xa/synthetic", test_xa_synthetic);
  g_test_add_func ("/ctr/io/dicom/xa/enhanced", test_xa_enhanced);
  g_test_add_func ("/ctr/io/dicom/xa/missing-geometry", test_xa_missing_geometry);
  g_test_add_func ("/ctr/io/dicom/ctpd/synthetic", test_ctpd_synthetic);
  g_test_add_func ("/ctr/io/dicom/ctpd/rows-counts", test_ctpd_rows_counts);
  g_test_add_func ("/ctr/io/dicom/ctpd/missing-duplicate", test_ctpd_missing_duplicate);
  g_test_add_func ("/ctr/io/dicom/ctpd/bad", test_ctpd_bad);
  g_test_add_func ("/ctr/io/dicom/mixed-series", test_mixed_series);
  g_test_add_func ("/ctr/io/dicom/resolve", test_resolve);
  g_test_add_func ("/ctr/io/dicom/corrupt-truncated", test_corrupt_truncated);
  g_test_add_func ("/ctr/io/dicom/export", test_export_roundtrip);
  g_test_add_func ("/ctr/io/dicom/pixels/bits-stored", test_pixels_bits_stored);
  g_test_add_func ("/ctr/io/tiff/imagej", test_tiff_imagej);
  int status = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
