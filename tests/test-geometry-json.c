/* test-geometry-json.c — geometry.json writer: round trips through the reader.
 *
 * Every geometry written by ctr_geometry_json_write() must come back from
 * ctr_dataset_parse_geometry() / ctr_dataset_load() field for field, angles
 * bit for bit; the data keys of a source file are carried over and still load.
 */
#include "io/ctr-geometry-json.h"
#include "io/ctr-dataset.h"
#include "io/ctr-tiff.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

static char *tmp_dir;

static void
assert_same_geometry (const CtrGeometry *a, const CtrGeometry *b)
{
  g_assert_cmpint (a->beam, ==, b->beam);
  if (a->beam != CTR_BEAM_PARALLEL)
    g_assert_cmpint (a->shape, ==, b->shape);
  g_assert_cmpuint (a->n_views, ==, b->n_views);
  g_assert_cmpuint (a->n_rows, ==, b->n_rows);
  g_assert_cmpuint (a->n_cols, ==, b->n_cols);
  g_assert_cmpfloat (a->sod_mm, ==, b->sod_mm);
  g_assert_cmpfloat (a->sdd_mm, ==, b->sdd_mm);
  g_assert_cmpfloat (a->pitch_u, ==, b->pitch_u);
  g_assert_cmpfloat (a->pitch_v_mm, ==, b->pitch_v_mm);
  g_assert_cmpfloat (a->offset_u, ==, b->offset_u);
  g_assert_cmpfloat (a->offset_v_mm, ==, b->offset_v_mm);
  g_assert_cmpint (!!a->rows_increase_with_v, ==, !!b->rows_increase_with_v);
  g_assert_cmpint (!!a->pixel_size_known, ==, !!b->pixel_size_known);
  for (guint k = 0; k < a->n_views; k++)
    g_assert_cmpfloat (a->angles[k], ==, b->angles[k]);
}

static CtrGeometry *
round_trip (const CtrGeometry *g, const char *file)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (tmp_dir, file, NULL);
  g_autofree char *text = NULL;

  g_assert_true (ctr_geometry_json_write (g, "rt", NULL, path, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  CtrGeometry *back = ctr_dataset_parse_geometry (text, -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  return back;
}

static void
test_fan_curved (void)
{
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, 37);
  g->shape = CTR_DETECTOR_CURVED;
  g->sod_mm = 595.0 + 1.0 / 3.0;
  g->sdd_mm = 1085.6;
  g->n_rows = 3;
  g->n_cols = 101;
  g->pitch_u = 0.0012271846303085129;
  g->pitch_v_mm = 1.2;
  g->offset_u = -0.1 * g->pitch_u;
  g->offset_v_mm = 0.3;
  g->rows_increase_with_v = FALSE;
  /* irregular, unsorted angles with full double precision */
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] = fmod (k * G_PI * 0.7137 + 1e-9 * k * k, 2 * G_PI) - 0.3;
  g_autoptr (CtrGeometry) back = round_trip (g, "fan-curved.json");
  assert_same_geometry (g, back);
}

static void
test_fan_flat_and_parallel (void)
{
  g_autoptr (CtrGeometry) f = ctr_geometry_new (CTR_BEAM_FAN, 72);
  f->shape = CTR_DETECTOR_FLAT;
  f->sod_mm = 99.9995;
  f->sdd_mm = 299.99926;
  f->n_rows = 1;
  f->n_cols = 282;
  f->pitch_u = 0.4;
  f->pitch_v_mm = 0.4;
  f->pixel_size_known = FALSE;
  ctr_geometry_set_uniform_angles (f, 0, 2 * G_PI / 72);
  g_autoptr (CtrGeometry) fb = round_trip (f, "fan-flat.json");
  assert_same_geometry (f, fb);

  g_autoptr (CtrGeometry) p = ctr_geometry_new (CTR_BEAM_PARALLEL, 180);
  p->n_rows = 2;
  p->n_cols = 64;
  p->pitch_u = 0.5;
  p->pitch_v_mm = 0.5;
  p->offset_u = 0.125;
  ctr_geometry_set_uniform_angles (p, 0.1, G_PI / 180);
  g_autoptr (CtrGeometry) pb = round_trip (p, "parallel.json");
  assert_same_geometry (p, pb);
}

static void
test_invalid_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = ctr_geometry_new (CTR_BEAM_FAN, 8);
  g->n_cols = 16;
  g->pitch_u = 1;
  g->pitch_v_mm = 1;
  g->sod_mm = 500;
  g->sdd_mm = 400; /* SDD < SOD */
  ctr_geometry_set_uniform_angles (g, 0, 0.1);
  g_autofree char *path = g_build_filename (tmp_dir, "bad.json", NULL);
  g_assert_false (ctr_geometry_json_write (g, NULL, NULL, path, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* an unwritable place: an error naming the path, no crash */
  g_clear_error (&error);
  g->sdd_mm = 1000;
  g_assert_false (ctr_geometry_json_write (g, NULL, NULL, "/nonexistent-dir/x/geometry.json", &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/x/geometry.json"));
}

/* A dataset with its sinogram in another folder: the rewritten geometry.json
 * (edited SOD, new folder) still loads the same projections. */
static void
test_carry_data_keys (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *src_dir = g_build_filename (tmp_dir, "src", NULL);
  g_autofree char *dst_dir = g_build_filename (tmp_dir, "dst", NULL);
  g_mkdir_with_parents (src_dir, 0755);
  g_mkdir_with_parents (dst_dir, 0755);

  const guint views = 12, cols = 9;
  g_autofree float *sino = g_new (float, views * cols);
  for (guint i = 0; i < views * cols; i++)
    sino[i] = 0.01f * i;
  g_autofree char *tif = g_build_filename (src_dir, "sino.tif", NULL);
  CtrVolume *vol;
  {
    CtrGrid grid = { .nx = cols, .ny = views, .nz = 1, .dx = 1, .dy = 1, .dz = 1 };
    vol = ctr_volume_new (&grid, NULL);
    memcpy (vol->data, sino, sizeof (float) * views * cols);
    g_assert_true (ctr_tiff_write_volume (tif, vol, &error));
    g_assert_no_error (error);
    ctr_volume_unref (vol);
  }
  g_autofree char *src = g_build_filename (src_dir, "geometry.json", NULL);
  g_autofree char *json = g_strdup_printf (
    "{\"name\": \"carry\", \"type\": \"fan\", \"detector_shape\": \"flat\", \"kind\": \"line_integrals\","
    " \"views\": %u, \"detector_cols\": %u, \"detector_rows\": 1,"
    " \"source_to_isocenter_mm\": 100, \"source_to_detector_mm\": 200,"
    " \"detector_pitch_u_mm\": 1.0, \"angle_start_rad\": 0, \"angle_step_rad\": 0.5,"
    " \"projections\": {\"layout\": \"sinogram\", \"file\": \"sino.tif\", \"dtype\": \"float32\"},"
    " \"notes\": \"kept\"}", views, cols);
  g_assert_true (g_file_set_contents (src, json, -1, NULL));

  g_autoptr (CtrDataset) d = ctr_dataset_load (src, NULL, NULL, &error);
  g_assert_no_error (error);
  d->geometry->sod_mm = 120;

  g_autofree char *dst = g_build_filename (dst_dir, "edited.json", NULL);
  g_assert_true (ctr_geometry_json_write (d->geometry, NULL, src, dst, &error));
  g_assert_no_error (error);

  g_autoptr (CtrDataset) e = ctr_dataset_load (dst, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (e->name, ==, "carry");
  assert_same_geometry (d->geometry, e->geometry);
  g_assert_cmpfloat (e->geometry->sod_mm, ==, 120);
  g_assert_cmpmem (e->projections->data, sizeof (float) * views * cols,
                   d->projections->data, sizeof (float) * views * cols);

  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (dst, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\"notes\""));
  g_assert_null (strstr (text, "angle_step_rad")); /* replaced by the explicit list */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctr-geometry-json-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/ctr/io/geometry-json/round-trip/fan-curved", test_fan_curved);
  g_test_add_func ("/ctr/io/geometry-json/round-trip/flat-and-parallel", test_fan_flat_and_parallel);
  g_test_add_func ("/ctr/io/geometry-json/invalid", test_invalid_refused);
  g_test_add_func ("/ctr/io/geometry-json/carry-data-keys", test_carry_data_keys);
  int status = g_test_run ();

  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", tmp_dir);
  return status;
}
