/* test-helical-io.c — helical scans in and out: synthetic DICOM-CT-PD
 * helical series written here through the DCMTK shim (every tag known: the
 * rows and their axial direction, the per-view focal-centre position, a
 * flying focal spot, photon statistics per column and per column and row,
 * the feed and pitch tags) and their refusals (inconsistent feed, mixed
 * series, a helix that goes back, a HELICAL tag without motion, ...); the
 * helical forms of geometry.json and their writer; the TIFF pages and the
 * DICOM series of a reconstruction in the scan's table coordinate.
 * The real dataset is covered by tests/cli/test_helical.py.
 */
#include "ctrecon.h"
#include "data/ctr-helix.h"
#include "io/ctr-dicom-shim.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <tiffio.h>

static char *tmp_dir;

static char *
new_folder (const char *name)
{
  char *p = g_build_filename (tmp_dir, name, NULL);
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
#define PUT_FL(d, g, e, v) G_STMT_START { const float f_ = (float) (v); \
  g_assert_true (ctr_dcm_put_floats (d, g, e, &f_, 1, NULL)); } G_STMT_END

/* ------------------------------------------------------------------------ */
/* A synthetic helical DICOM-CT-PD series                                    */

enum { HX_CH = 6, HX_ROWS = 3, HX_PER_TURN = 12, HX_V = 24 };
#define HX_FEED 3.0      /* mm per turn: 3 rows of 1 mm at the isocentre, pitch 1 */
#define HX_Z0 10.0       /* z of view 0 (FORMAT); z_pd = -z */

typedef enum {
  HX_OK,
  HX_BAD_FEED_TAG,     /* TableFeedPerRotation 3.5 */
  HX_BAD_PITCH_TAG,    /* SpiralPitchFactor 1.5 */
  HX_BAD_VIEW_Z,       /* the table jumps by 2 mm at view 7 */
  HX_MIXED_ROWS,       /* view 5 with 4 detector rows */
  HX_STATIC,           /* HELICAL, but the focal centre never moves */
  HX_GOES_BACK,        /* the focal centre turns back at view 13 */
  HX_FFS_NO_SHIFTS,    /* FlyingFocalSpotMode FFSZ, no shift given */
  HX_BAD_PHOTONS       /* PhotonStatistics of 5 values */
} HxCase;

typedef struct {
  const char *uid;
  HxCase kase;
  gboolean ffs;        /* alternating shifts: angle ±1 mrad, z_pd ±0.2 mm */
  guint photons;       /* 0: none, 1: per channel, 2: per channel and row */
  gint skip;           /* a missing view (instance number), or -1 */
} HxSpec;

static guint16
hx_stored (guint k, guint ch, guint q)
{
  return (guint16) (500 + 100 * k + 10 * ch + 3 * q);
}

static double
hx_photons (guint ch, guint q, guint kind)
{
  return 1000.0 + 10.0 * ch + (kind == 2 ? q : 0);
}

static void
write_helix (const char *folder, const HxSpec *s)
{
  for (guint k = 0; k < HX_V; k++)
    {
      if ((gint) k == s->skip)
        continue;
      const guint rows = s->kase == HX_MIXED_ROWS && k == 5 ? 4 : HX_ROWS;
      g_autoptr (CtrDcm) d = ctr_dcm_new ();
      g_autofree char *sop = ctr_dcm_new_uid ();
      g_autofree char *inst = g_strdup_printf ("%u", k + 1);
      PUT (d, 0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.2");
      PUT (d, 0x0008, 0x0018, sop);
      PUT (d, 0x0008, 0x0060, "CT");
      PUT (d, 0x0020, 0x000e, s->uid);
      PUT (d, 0x0020, 0x0013, inst);
      PUT (d, 0x0028, 0x1052, "-0.5");
      PUT (d, 0x0028, 0x1053, "0.001");
      PUT (d, 0x0018, 0x9310, s->kase == HX_BAD_FEED_TAG ? "3.5" : "3");
      PUT (d, 0x0018, 0x9311, s->kase == HX_BAD_PITCH_TAG ? "1.5" : "1");
      PUT_US (d, 0x0028, 0x0002, 1);
      PUT (d, 0x0028, 0x0004, "MONOCHROME2");
      PUT_US (d, 0x0028, 0x0010, HX_CH);
      PUT_US (d, 0x0028, 0x0011, rows);
      PUT_US (d, 0x0028, 0x0100, 16);
      PUT_US (d, 0x0028, 0x0101, 16);
      PUT_US (d, 0x0028, 0x0102, 15);
      PUT_US (d, 0x0028, 0x0103, 0);
      g_assert_true (ctr_dcm_put_string (d, 0x7029, 0x0010, "LO", "DetectorSystemArrangementModule", NULL));
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1010, "US", rows, NULL));
      g_assert_true (ctr_dcm_put_u16 (d, 0x7029, 0x1011, "US", HX_CH, NULL));
      PUT_FL (d, 0x7029, 0x1002, 0.9);     /* 1 mrad on a 900 mm cylinder */
      PUT_FL (d, 0x7029, 0x1006, 1.8);     /* 1 mm at the isocentre */
      g_assert_true (ctr_dcm_put_string (d, 0x7029, 0x100b, "CS", "CYLINDRICAL", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7031, 0x0010, "LO", "DetectorDynamicsModule", NULL));
      double z = HX_Z0 + (s->kase == HX_STATIC ? 0.0 : k * HX_FEED / HX_PER_TURN);
      if (s->kase == HX_BAD_VIEW_Z && k >= 7)
        z += 2.0;
      if (s->kase == HX_GOES_BACK && k >= 13)
        z -= 2 * (k - 12) * HX_FEED / HX_PER_TURN;
      PUT_FL (d, 0x7031, 0x1001, fmod (G_PI + k * 2 * G_PI / HX_PER_TURN, 2 * G_PI));
      PUT_FL (d, 0x7031, 0x1002, -z);
      PUT_FL (d, 0x7031, 0x1003, 500.0);
      PUT_FL (d, 0x7031, 0x1031, 900.0);
      const float central[2] = { 3.5f, 2.0f };
      g_assert_true (ctr_dcm_put_floats (d, 0x7031, 0x1033, central, 2, NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7033, 0x0010, "LO", "SourceDynamicsModule", NULL));
      const double sgn = k % 2 ? 1.0 : -1.0;
      PUT_FL (d, 0x7033, 0x100b, s->ffs ? sgn * 0.001 : 0.0);
      PUT_FL (d, 0x7033, 0x100c, s->ffs ? sgn * 0.2 : 0.0);
      PUT_FL (d, 0x7033, 0x100d, 0.0);
      g_assert_true (ctr_dcm_put_string (d, 0x7033, 0x100e, "CS",
                                         s->ffs || s->kase == HX_FFS_NO_SHIFTS ? "FFSZ" : "FFSNONE", NULL));
      if (s->photons > 0 || s->kase == HX_BAD_PHOTONS)
        {
          float ph[HX_CH * HX_ROWS];
          guint n = s->kase == HX_BAD_PHOTONS ? 5 : s->photons == 1 ? HX_CH : HX_CH * HX_ROWS;
          for (guint ch = 0; ch < HX_CH; ch++)
            for (guint q = 0; q < HX_ROWS; q++)
              if (s->photons == 2)
                ph[ch * HX_ROWS + q] = (float) hx_photons (ch, q, 2);   /* the image's order */
              else if (q == 0)
                ph[ch] = (float) hx_photons (ch, 0, 1);
          g_assert_true (ctr_dcm_put_floats (d, 0x7033, 0x1065, ph, n, NULL));
        }
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x0010, "LO", "ProjectionDataDefinitions", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x1009, "CS", "HELICAL", NULL));
      g_assert_true (ctr_dcm_put_string (d, 0x7037, 0x100a, "CS", "FANBEAM", NULL));
      guint16 pix[HX_CH * 4];
      for (guint ch = 0; ch < HX_CH; ch++)  /* image [channel][detector row] */
        for (guint q = 0; q < rows; q++)
          pix[ch * rows + q] = hx_stored (k, ch, q);
      g_assert_true (ctr_dcm_put_pixels16 (d, pix, HX_CH * rows, NULL));
      g_autofree char *name = g_strdup_printf ("proj_%03u.dcm", k);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_assert_true (ctr_dcm_save (d, path, NULL));
    }
}

static void
test_dicom_helix (void)
{
  g_autofree char *folder = new_folder ("helix");
  HxSpec s = { "1.2.3.4.500", HX_OK, TRUE, 2, -1 };
  write_helix (folder, &s);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_CONE);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_CURVED);
  g_assert_cmpuint (g->n_views, ==, HX_V);
  g_assert_cmpuint (g->n_rows, ==, HX_ROWS);
  g_assert_cmpuint (g->n_cols, ==, HX_CH);
  g_assert_true (ctr_geometry_is_helical (g));
  g_assert_true (g->table_reversed);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 0.001, 1e-9);
  g_assert_cmpfloat_with_epsilon (ctr_geometry_slice_width_mm (g), 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (ctr_helix_feed_mm (g), HX_FEED, 1e-4);
  g_assert_cmpfloat_with_epsilon (ctr_helix_pitch (g), 1.0, 1e-4);
  for (guint k = 0; k < HX_V; k++)
    {
      /* beta = phi - pi, unwrapped over the turns; z = -z_pd. */
      g_assert_cmpfloat_with_epsilon (g->angles[k], k * 2 * G_PI / HX_PER_TURN, 1e-6);
      g_assert_cmpfloat_with_epsilon (g->source_z_mm[k], HX_Z0 + k * HX_FEED / HX_PER_TURN, 1e-5);
      g_assert_cmpfloat_with_epsilon (ctr_geometry_table_mm (g, g->source_z_mm[k]),
                                      -(HX_Z0 + k * HX_FEED / HX_PER_TURN), 1e-5);
      /* Flying focal spot: the angle keeps phi's sense, z_pd's shift is −z. */
      const double sgn = k % 2 ? 1.0 : -1.0;
      g_assert_cmpfloat_with_epsilon (g->focal_shift[3 * k], sgn * 0.001, 1e-7);
      g_assert_cmpfloat_with_epsilon (g->focal_shift[3 * k + 1], -sgn * 0.2, 1e-6);
      g_assert_cmpfloat (g->focal_shift[3 * k + 2], ==, 0.0);
    }
  /* Pixels: DICOM-CT-PD row q (1-based q+1) is FORMAT row q of a detector
   * whose rows run along −z; channel ch is FORMAT column N−1−ch. */
  g_assert_false (g->rows_increase_with_v);
  for (guint k = 0; k < HX_V; k++)
    for (guint q = 0; q < HX_ROWS; q++)
      for (guint ch = 0; ch < HX_CH; ch++)
        g_assert_cmpfloat_with_epsilon (ctr_projections_view (d->projections, k)[q * HX_CH + HX_CH - 1 - ch],
                                        hx_stored (k, ch, q) * 0.001 - 0.5, 1e-5);
  /* The axial direction: DICOM-CT-PD row 1 (FORMAT row 0) is the one at the
   * highest z, 1 mm (a row at the isocentre) above the central row. */
  const double zc = ctr_helix_ray_z (g, 4, 1, 2.5), zr0 = ctr_helix_ray_z (g, 4, 0, 2.5);
  g_assert_cmpfloat_with_epsilon (zr0 - zc, 1.0 * cos (ctr_geometry_col_u (g, 2.5)), 1e-3);
  /* The central ray: from the source, shifted 0.2 mm along z, to the
   * detector's centre at the focal centre's z. */
  g_assert_cmpfloat_with_epsilon (g->focal_shift[3 * 4 + 1], 0.2, 1e-6);
  g_assert_cmpfloat_with_epsilon (zc, g->source_z_mm[4] + 0.2 * (1 - 500.0 / 900.0 * cos (ctr_geometry_col_u (g, 2.5))),
                                  1e-4);
  /* Photon statistics per channel and row → open-beam counts per pixel. */
  g_assert_nonnull (d->projections->flat);
  for (guint q = 0; q < HX_ROWS; q++)
    for (guint ch = 0; ch < HX_CH; ch++)
      g_assert_cmpfloat (d->projections->flat[q * HX_CH + HX_CH - 1 - ch], ==, hx_photons (ch, q, 2));
  g_assert_cmpfloat_with_epsilon (d->projections->i0, 1026.0, 1e-3);
  g_autofree char *desc = ctr_geometry_describe (g);
  g_assert_nonnull (strstr (desc, "helical"));
  g_assert_nonnull (strstr (desc, "flying focal spot"));

  /* Per channel only; and a missing view leaves a gap, reported. */
  g_autofree char *f2 = new_folder ("helix-columns");
  HxSpec s2 = { "1.2.3.4.501", HX_OK, FALSE, 1, 9 };
  write_helix (f2, &s2);
  g_autoptr (GPtrArray) series = ctr_dicom_scan (f2, NULL, &error);
  g_assert_no_error (error);
  CtrDicomSeries *ser = series->pdata[0];
  g_assert_cmpuint (ser->n_missing, ==, 1);
  g_assert_nonnull (strstr (ser->report, "missing (instance number 10)"));
  g_autoptr (CtrDataset) d2 = ctr_dataset_load (f2, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d2->geometry->n_views, ==, HX_V - 1);
  g_assert_cmpfloat_with_epsilon (d2->geometry->angles[9], 10 * 2 * G_PI / HX_PER_TURN, 1e-6);
  g_assert_null (d2->geometry->focal_shift);
  for (guint q = 0; q < HX_ROWS; q++)
    g_assert_cmpfloat (d2->projections->flat[q * HX_CH + HX_CH - 1 - 4], ==, hx_photons (4, 0, 1));

  /* The central row of a helix is no slice. */
  g_autoptr (CtrDicomProjections) c = ctr_dicom_ctpd_load (ser, CTR_DICOM_CTPD_CENTRAL_ROW, NULL, &error);
  g_assert_null (c);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED);
}

static void
test_dicom_helix_refused (void)
{
  static const struct {
    HxCase kase;
    int code;
    const char *needle;
  } cases[] = {
    { HX_BAD_FEED_TAG, CTR_ERROR_INVALID_GEOMETRY, "inconsistent feed: TableFeedPerRotation (0018,9310) is 3.5" },
    { HX_BAD_PITCH_TAG, CTR_ERROR_INVALID_GEOMETRY, "inconsistent feed: SpiralPitchFactor (0018,9311) is 1.5" },
    { HX_BAD_VIEW_Z, CTR_ERROR_INVALID_GEOMETRY, "inconsistent feed: the focal centre is" },
    { HX_MIXED_ROWS, CTR_ERROR_FORMAT, "proj_005.dcm: NumberofDetectorRows/Columns (7029,1010/1011) is 4 × 6 but 3 × 6" },
    { HX_STATIC, CTR_ERROR_INVALID_GEOMETRY, "is HELICAL, but the focal centre stays" },
    { HX_GOES_BACK, CTR_ERROR_INVALID_GEOMETRY, "proj_013.dcm: the focal centre moves back along z" },
    { HX_FFS_NO_SHIFTS, CTR_ERROR_UNSUPPORTED, "FlyingFocalSpotMode (7033,100E) is “FFSZ”, but no view states" },
    { HX_BAD_PHOTONS, CTR_ERROR_FORMAT, "PhotonStatistics (7033,1065) has 5 values" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("refused-%u", i);
      g_autofree char *folder = new_folder (name);
      g_autofree char *uid = g_strdup_printf ("1.2.3.4.6%02u", i);
      HxSpec s = { uid, cases[i].kase, FALSE, 0, -1 };
      write_helix (folder, &s);
      g_autoptr (GError) error = NULL;
      g_autoptr (CtrDataset) d = ctr_dataset_load (folder, NULL, NULL, &error);
      g_assert_null (d);
      g_test_message ("case %u: %s", i, error->message);
      g_assert_error (error, CTR_ERROR, cases[i].code);
      g_assert_nonnull (strstr (error->message, cases[i].needle));
    }
}

/* ------------------------------------------------------------------------ */
/* geometry.json                                                             */

static CtrGeometry *
parse (const char *json, GError **error)
{
  return ctr_dataset_parse_geometry (json, -1, error);
}

#define JSON_HEAD "{\"type\": \"helical\", \"detector_shape\": \"curved\", \"views\": 8, \"detector_cols\": 4, " \
  "\"detector_rows\": 2, \"source_to_isocenter_mm\": 500, \"source_to_detector_mm\": 900, " \
  "\"detector_pitch_u_rad\": 0.01, \"detector_pitch_v_mm\": 1.8, \"angle_start_rad\": 0, " \
  "\"angle_step_rad\": 1.5707963267948966, "

static void
test_json_forms (void)
{
  g_autoptr (GError) error = NULL;
  /* Three ways to say z_k = 5 + 0.5 k (feed 2 mm per turn of 4 views). */
  g_autoptr (CtrGeometry) a = parse (JSON_HEAD "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0.5, "
                                     "\"table_feed_per_rotation_mm\": 2, \"pitch_factor\": 1}", &error);
  g_assert_no_error (error);
  g_autoptr (CtrGeometry) b = parse (JSON_HEAD "\"source_z_start_mm\": 5, \"table_feed_per_rotation_mm\": 2}", &error);
  g_assert_no_error (error);
  g_autoptr (CtrGeometry) c = parse (JSON_HEAD "\"source_z_mm\": [5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5], "
                                     "\"table_reversed\": true}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (a->beam, ==, CTR_BEAM_CONE);
  g_assert_true (ctr_geometry_is_helical (a));
  for (guint k = 0; k < 8; k++)
    {
      g_assert_cmpfloat_with_epsilon (a->source_z_mm[k], 5 + 0.5 * k, 1e-12);
      g_assert_cmpfloat_with_epsilon (b->source_z_mm[k], 5 + 0.5 * k, 1e-12);
      g_assert_cmpfloat_with_epsilon (c->source_z_mm[k], 5 + 0.5 * k, 1e-12);
    }
  g_assert_false (a->table_reversed);
  g_assert_true (c->table_reversed);

  /* Refusals: a feed or pitch that disagrees, no z, z lists of the wrong length,
   * a helix beside per-view vectors. */
  static const struct {
    const char *tail;
    int code;
    const char *needle;
  } bad[] = {
    { "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0.5, \"table_feed_per_rotation_mm\": 2.5}",
      CTR_ERROR_INVALID_GEOMETRY, "inconsistent feed: the key “table_feed_per_rotation_mm” is 2.5" },
    { "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0.5, \"pitch_factor\": 0.5}",
      CTR_ERROR_INVALID_GEOMETRY, "inconsistent feed: the key “pitch_factor” is 0.5" },
    { "\"views_per_rotation\": 4}", CTR_ERROR_FORMAT, "a helical geometry needs the source z" },
    { "\"source_z_mm\": [1, 2, 3]}", CTR_ERROR_INVALID_GEOMETRY, "“source_z_mm” has 3 entries" },
    { "\"source_z_start_mm\": 5}", CTR_ERROR_FORMAT, "needs “source_z_step_mm”" },
    { "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0}", CTR_ERROR_INVALID_GEOMETRY, "does not move" },
    { "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0.5, \"focal_shift_z_mm\": [0, 1]}",
      CTR_ERROR_INVALID_GEOMETRY, "“focal_shift_z_mm” has 2 entries" },
    { "\"source_z_start_mm\": 5, \"source_z_step_mm\": 0.5, \"vectors\": []}",
      CTR_ERROR_INVALID_GEOMETRY, "do not go together" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = g_strconcat (JSON_HEAD, bad[i].tail, NULL);
      g_autoptr (CtrGeometry) g = parse (text, &error);
      g_assert_null (g);
      g_test_message ("%s", error->message);
      g_assert_error (error, CTR_ERROR, bad[i].code);
      g_assert_nonnull (strstr (error->message, bad[i].needle));
      g_clear_error (&error);
    }
}

/* The writer's helical form reads back as the same geometry. */
static void
test_json_roundtrip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = parse (JSON_HEAD "\"source_z_start_mm\": -3, \"source_z_step_mm\": -0.25, "
                                     "\"focal_shift_angle_rad\": [0.001, -0.001, 0.001, -0.001, 0.001, -0.001, 0.001, -0.001], "
                                     "\"focal_shift_z_mm\": [0.2, -0.2, 0.2, -0.2, 0.2, -0.2, 0.2, -0.2], "
                                     "\"table_reversed\": true}", &error);
  g_assert_no_error (error);
  g_assert_nonnull (g->focal_shift);
  g_assert_cmpfloat (g->focal_shift[3 * 1 + 1], ==, -0.2);
  g_assert_cmpfloat (g->focal_shift[3 * 2], ==, 0.001);
  g_assert_cmpfloat (g->focal_shift[3 * 2 + 2], ==, 0.0);
  g_autofree char *path = g_build_filename (tmp_dir, "helix.json", NULL);
  g_assert_true (ctr_geometry_json_write (g, "helix", NULL, path, &error));
  g_assert_no_error (error);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"type\" : \"helical\""));
  g_autoptr (CtrGeometry) back = parse (text, &error);
  g_assert_no_error (error);
  g_assert_true (back->table_reversed);
  for (guint k = 0; k < g->n_views; k++)
    {
      g_assert_cmpfloat (back->source_z_mm[k], ==, g->source_z_mm[k]);
      for (guint c = 0; c < 3; c++)
        g_assert_cmpfloat (back->focal_shift[3 * k + c], ==, g->focal_shift[3 * k + c]);
    }
  g_assert_cmpfloat_with_epsilon (ctr_helix_feed_mm (back), -1.0, 1e-9);
}

/* ------------------------------------------------------------------------ */
/* Output in the table coordinate                                            */

static void
test_table_output (void)
{
  CtrGrid grid = { 4, 3, 3, 1.0, 1.0, 1.5, 0, 0, 81.0 };   /* z = 79.5, 81, 82.5 */
  g_autoptr (CtrVolume) v = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    v->data[i] = 0.0192f * (float) (i / ctr_grid_slice_size (&grid));   /* slice s: -1000 + 1000 s HU */
  ctr_volume_set_unit (v, "1/mm");
  g_autoptr (GError) error = NULL;

  /* TIFF: pages from the last slice down, each with its text. */
  g_autofree char *path = g_build_filename (tmp_dir, "table.tif", NULL);
  const char *texts[] = { "table_mm=-82.5\nz_mm=82.5\n", "table_mm=-81\nz_mm=81\n", "table_mm=-79.5\nz_mm=79.5\n" };
  g_assert_true (ctr_tiff_write_volume_pages (path, v, TRUE, texts, &error));
  g_assert_no_error (error);
  TIFF *tif = TIFFOpen (path, "r");
  g_assert_nonnull (tif);
  for (guint p = 0; p < 3; p++)
    {
      char *desc = NULL;
      g_assert_true (TIFFGetField (tif, TIFFTAG_IMAGEDESCRIPTION, &desc));
      if (p == 0)
        g_assert_true (g_str_has_prefix (desc, "ImageJ=") && strstr (desc, "\nslices=3\n") != NULL);
      g_assert_true (g_str_has_suffix (desc, texts[p]));
      if (p < 2)
        g_assert_true (TIFFReadDirectory (tif));
    }
  TIFFClose (tif);
  g_autofree float *page = g_new (float, 12);
  g_assert_true (ctr_tiff_read_page (path, 0, 4, 3, page, &error));
  g_assert_cmpfloat (page[0], ==, v->data[2 * 12]);

  /* DICOM: files in increasing table coordinate (= decreasing z), their
   * SliceLocation the table position, ImagePositionPatient Z = −z. */
  g_autofree char *folder = g_build_filename (tmp_dir, "table-series", NULL);
  CtrDicomExportOptions o;
  ctr_dicom_export_options_init (&o);
  o.table_coordinate = TRUE;
  o.table_reversed = TRUE;
  g_assert_true (ctr_dicom_export_series (v, folder, &o, &error));
  g_assert_no_error (error);
  for (guint n = 0; n < 3; n++)
    {
      g_autofree char *name = g_strdup_printf ("CT%04u.dcm", n + 1);
      g_autofree char *p = g_build_filename (folder, name, NULL);
      g_autoptr (CtrDcm) d = ctr_dcm_open (p, &error);
      g_assert_no_error (error);
      const double z = ctr_grid_z (&grid, 2 - n);
      double x;
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x1041, 0, &x));
      g_assert_cmpfloat_with_epsilon (x, -z, 1e-6);
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x0032, 2, &x));
      g_assert_cmpfloat_with_epsilon (x, -z, 1e-6);
      g_assert_true (ctr_dcm_get_double (d, 0x0020, 0x0013, 0, &x));
      g_assert_cmpfloat (x, ==, n + 1);
      guint r, c, f;
      g_autofree float *hu = ctr_dcm_read_pixels (d, &r, &c, &f, &error);
      g_assert_cmpfloat (hu[0], ==, -1000.0 + 1000.0 * (2 - n));
    }
  /* Table coordinate along +z: SliceLocation = z, files from the lowest z. */
  g_autofree char *folder2 = g_build_filename (tmp_dir, "table-series-z", NULL);
  o.table_reversed = FALSE;
  g_assert_true (ctr_dicom_export_series (v, folder2, &o, &error));
  g_autofree char *p0 = g_build_filename (folder2, "CT0001.dcm", NULL);
  g_autoptr (CtrDcm) d0 = ctr_dcm_open (p0, &error);
  double x;
  g_assert_true (ctr_dcm_get_double (d0, 0x0020, 0x1041, 0, &x));
  g_assert_cmpfloat_with_epsilon (x, 79.5, 1e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctr-test-helical-io-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/ctr/io/helical/dicom", test_dicom_helix);
  g_test_add_func ("/ctr/io/helical/dicom-refused", test_dicom_helix_refused);
  g_test_add_func ("/ctr/io/helical/json-forms", test_json_forms);
  g_test_add_func ("/ctr/io/helical/json-roundtrip", test_json_roundtrip);
  g_test_add_func ("/ctr/io/helical/table-output", test_table_output);
  int status = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
