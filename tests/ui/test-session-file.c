/* test-session-file.c — a session saved and opened again without a display
 * (ui/ctr-session-file.h, docs/session-format.md).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * /ui/session-file/round-trip: two runs of a simulated scan (FBP renamed
 * and coloured, SIRT hidden), two ROIs, a background, the ruler and a
 * water calibration saved, read back and restored into a new session:
 * every number, name and image value identical (bitwise), no temporary
 * left beside the folder, the runs saved, the next run numbered after
 * them; saving again replaces the folder.
 * /ui/session-file/volume: an FDK volume of a simulated cone-beam scan
 * saved and restored, its slices in order, bitwise.
 * /ui/session-file/errors: an existing file or folder that is not a
 * session is never replaced; a missing folder, a folder without
 * session.json, another format, a newer version, an image missing, of
 * another shape or named outside the folder, a bad parameter are refused
 * with a message naming the file.
 * /ui/session-file/study: the Dose Study's table (session.json "study",
 * version 2): a reconstruction added as a run (ctr_session_add_result) and
 * its row saved, read back and restored with every figure bitwise and the
 * row naming its run; a version-1 file (none) still opens, without rows;
 * a row naming a run the file lacks is refused.
 *
 * The dataset is written by `ctrecon-cli simulate` ($CTR_CLI); without it
 * the round trip skips.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ctr-session-file.h"
#include "ctr-study-row.h"

static char *dataset_path;
static char *cone_path;   /* a simulated cone-beam scan (8 rows), or NULL */
static char *tmp_dir;

static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

typedef struct {
  gboolean      done;
  GAsyncResult *result;
  guint         refs;    /* the session's references while the callback ran */
} Async;

static void
async_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Async *a = data;
  a->result = g_object_ref (result);
  a->refs = source != NULL ? g_atomic_int_get ((gint *) &source->ref_count) : 0;
  a->done = TRUE;
}

static void
wait_for (Async *a, const char *what)
{
  gint64 end = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  guint id = g_timeout_add (20, wake, NULL);

  while (!a->done)
    {
      if (g_get_monotonic_time () > end)
        g_error ("timed out waiting for %s", what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
}

static CtrSession *
loaded_session_of (const char *path)
{
  CtrSession *session = ctr_session_new ();
  Async a = { 0 };
  g_autoptr(GError) error = NULL;

  ctr_session_load_async (session, path, NULL, NULL, NULL, async_done, &a);
  wait_for (&a, "the dataset");
  g_assert_true (ctr_session_load_finish (session, a.result, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (a.result);
  return session;
}

static CtrSession *
loaded_session (void)
{
  return loaded_session_of (dataset_path);
}

static CtrRun *
run_shifted (CtrSession *session, const CtrReconOptions *o, gboolean z_shift)
{
  CtrGrid grid = ctr_grid_default (ctr_session_get_dataset (session)->geometry, 48, 0);
  g_autoptr(GError) error = NULL;
  Async a = { 0 };
  CtrRun *r;

  if (z_shift)
    {
      /* the lower nz − 1 slices: not symmetric in z */
      grid.nz -= 1;
      grid.cz -= 0.5 * grid.dz;
    }
  ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, &grid, o, NULL, async_done,
                                 &a);
  wait_for (&a, "a run");
  r = ctr_session_reconstruct_finish (session, a.result, &error);
  g_assert_no_error (error);
  g_object_unref (a.result);
  return r;
}

static CtrRun *
run (CtrSession *session, const CtrReconOptions *o)
{
  return run_shifted (session, o, FALSE);
}

static int
save (CtrSession *session, CtrRoiSet *rois, const char *path, GError **error)
{
  Async a = { 0 };
  int n;
  guint before = G_OBJECT (session)->ref_count;

  ctr_session_save_async (session, rois, path, NULL, async_done, &a);
  wait_for (&a, "the save");
  /* held by the caller and its task only, never by the writing thread:
   * the caller's last unref ends the session on the main thread */
  g_assert_cmpuint (a.refs, ==, before + 1);
  n = ctr_session_save_finish (session, a.result, error);
  g_object_unref (a.result);
  return n;
}

/* Two doubles equal bit for bit (NaN equals NaN). */
static gboolean
same (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0 || (isnan (a) && isnan (b));
}

static void
assert_same_run (CtrRun *a, CtrRun *b)
{
  const CtrReconOptions *oa = ctr_run_get_options (a), *ob = ctr_run_get_options (b);
  CtrVolume *va = ctr_run_get_result (a);
  CtrVolume *vb;

  g_assert_cmpuint (ctr_run_get_number (a), ==, ctr_run_get_number (b));
  g_assert_cmpstr (ctr_run_get_label (a), ==, ctr_run_get_label (b));
  g_assert_cmpstr (ctr_run_get_dataset (a), ==, ctr_run_get_dataset (b));
  g_assert_cmpstr (ctr_run_get_dataset_path (a), ==, ctr_run_get_dataset_path (b));
  g_assert_cmpstr (ctr_run_get_color (a), ==, ctr_run_get_color (b));
  g_assert_cmpint (ctr_run_get_hidden (a), ==, ctr_run_get_hidden (b));
  g_assert_cmpint (ctr_run_get_state (a), ==, ctr_run_get_state (b));
  g_assert_cmpstr (ctr_run_get_derivation (a), ==, ctr_run_get_derivation (b));
  g_assert_true (same (ctr_run_get_wall_s (a), ctr_run_get_wall_s (b)));
  g_assert_cmpint (oa->method, ==, ob->method);
  g_assert_cmpuint (oa->iterations, ==, ob->iterations);
  g_assert_true (same (oa->relaxation, ob->relaxation) && same (oa->cutoff, ob->cutoff));
  g_assert_cmpint (oa->window, ==, ob->window);
  g_assert_cmpstr (oa->backend, ==, ob->backend);
  g_assert_true (same (oa->metrics_radius_mm, ob->metrics_radius_mm));
  g_assert_true (ctr_grid_equal (ctr_run_get_grid (a), ctr_run_get_grid (b)));
  g_assert_true (g_strv_equal (ctr_run_get_notes (a), ctr_run_get_notes (b)));
  g_assert_cmpuint (ctr_run_get_n_stats (a), ==, ctr_run_get_n_stats (b));
  for (guint i = 0; i < ctr_run_get_n_stats (a); i++)
    {
      const CtrIterStats *sa = ctr_run_get_stats (a, i), *sb = ctr_run_get_stats (b, i);
      g_assert_cmpuint (sa->iteration, ==, sb->iteration);
      g_assert_true (same (sa->residual, sb->residual) && same (sa->rmse, sb->rmse) && same (sa->psnr, sb->psnr) &&
                     same (sa->ssim, sb->ssim) && same (sa->elapsed_s, sb->elapsed_s));
    }
  g_assert_nonnull (va);
  va = ctr_volume_ref (va);
  vb = ctr_run_get_result (b);
  g_assert_nonnull (vb);
  g_assert_true (ctr_grid_equal (&va->grid, &vb->grid));
  g_assert_cmpstr (va->unit, ==, vb->unit);
  g_assert_cmpmem (va->data, ctr_grid_size (&va->grid) * sizeof (float), vb->data,
                   ctr_grid_size (&vb->grid) * sizeof (float));
  ctr_volume_unref (va);
}

static void
assert_no_temporary (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_assert_false (name[0] == '.');
}

static void
make_rois (CtrRoiSet *rois)
{
  CtrRoi c = ctr_roi_circle (1.25, -2.5, 3.0 / 7.0 * 10);
  CtrRoi r = ctr_roi_rectangle (-4.1, 3.3, 5.5, 2.0 / 3.0);
  double ruler[4] = { -9, -6.1, 3.7, 10.0 / 3.0 };

  ctr_roi_set_add (rois, &c);
  ctr_roi_set_add (rois, &c);
  ctr_roi_set_add (rois, &r);
  ctr_roi_set_remove (rois, 1);   /* "ROI 1" and "ROI 3" are left */
  ctr_roi_set_set_background (rois, 1);
  ctr_roi_set_set_ruler (rois, ruler);
  ctr_roi_set_set_mu_water (rois, 0.0201234567, TRUE);
}

static void
assert_same_rois (CtrRoiSet *a, CtrRoiSet *b)
{
  double ra[4], rb[4];
  gboolean ca, cb;

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (a)), ==, g_list_model_get_n_items (G_LIST_MODEL (b)));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (a)); i++)
    {
      g_autoptr(CtrRoiItem) ia = g_list_model_get_item (G_LIST_MODEL (a), i);
      g_autoptr(CtrRoiItem) ib = g_list_model_get_item (G_LIST_MODEL (b), i);
      g_assert_cmpstr (ctr_roi_item_get_name (ia), ==, ctr_roi_item_get_name (ib));
      const CtrRoi *a1 = ctr_roi_item_get_roi (ia), *b1 = ctr_roi_item_get_roi (ib);
      /* field by field: the struct has padding */
      g_assert_cmpint (a1->shape, ==, b1->shape);
      g_assert_true (same (a1->x_mm, b1->x_mm) && same (a1->y_mm, b1->y_mm));
      if (a1->shape == CTR_ROI_CIRCLE)
        g_assert_true (same (a1->radius_mm, b1->radius_mm));
      else
        g_assert_true (same (a1->width_mm, b1->width_mm) && same (a1->height_mm, b1->height_mm));
    }
  g_assert_cmpint (ctr_roi_set_get_background (a), ==, ctr_roi_set_get_background (b));
  g_assert_true (ctr_roi_set_get_ruler (a, ra) && ctr_roi_set_get_ruler (b, rb));
  g_assert_cmpmem (ra, sizeof ra, rb, sizeof rb);
  g_assert_true (same (ctr_roi_set_get_mu_water (a, &ca), ctr_roi_set_get_mu_water (b, &cb)));
  g_assert_cmpint (ca, ==, cb);
}

static void
test_round_trip (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(CtrSession) again = NULL;
  g_autoptr(CtrRoiSet) rois = ctr_roi_set_new ();
  g_autoptr(CtrRoiSet) rois2 = ctr_roi_set_new ();
  g_autoptr(CtrSessionFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_build_filename (tmp_dir, "saved", NULL);
  g_autofree char *path = g_build_filename (dir, "study" CTR_SESSION_FILE_SUFFIX, NULL);
  g_autoptr(CtrRun) fbp = NULL;
  g_autoptr(CtrRun) sirt = NULL;
  CtrReconOptions o;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  g_mkdir_with_parents (dir, 0700);
  session = loaded_session ();
  g_assert_false (ctr_session_get_unsaved (session));
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  o.window = CTR_FILTER_HANN;
  o.cutoff = 0.8;
  fbp = run (session, &o);
  ctr_recon_options_init (&o, CTR_METHOD_SIRT);
  o.iterations = 3;
  o.backend = "cpu";
  sirt = run (session, &o);
  ctr_run_set_label (fbp, "FBP, Hann 0.8");
  ctr_run_set_color (fbp, "#12ab34");
  ctr_run_set_hidden (sirt, TRUE);
  make_rois (rois);
  g_assert_true (ctr_session_get_unsaved (session));

  g_assert_cmpint (save (session, rois, path, &error), ==, 2);
  g_assert_no_error (error);
  g_assert_false (ctr_session_get_unsaved (session));
  assert_no_temporary (dir);
  {
    g_autofree char *m = g_build_filename (path, "session.json", NULL);
    g_autofree char *t1 = g_build_filename (path, "run-1.tif", NULL);
    g_autofree char *t2 = g_build_filename (path, "run-2.tif", NULL);
    g_assert_true (g_file_test (m, G_FILE_TEST_IS_REGULAR) && ctr_tiff_is_tiff (t1) && ctr_tiff_is_tiff (t2));
    g_assert_true (ctr_session_file_is_session (path) && ctr_session_file_is_session (m));
  }

  file = ctr_session_file_read (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (file->dataset_path, ==, ctr_session_get_dataset (session)->path);
  again = ctr_session_new ();
  g_assert_true (ctr_session_restore (again, file, rois2, &error));
  g_assert_no_error (error);
  g_assert_false (ctr_session_get_unsaved (again));
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (again)), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_results (again)), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(CtrRun) a = g_list_model_get_item (ctr_session_get_runs (session), i);
      g_autoptr(CtrRun) b = g_list_model_get_item (ctr_session_get_runs (again), i);
      assert_same_run (a, b);
    }
  assert_same_rois (rois, rois2);
  {
    /* a ROI drawn after the restore is named after the largest */
    CtrRoi c = ctr_roi_circle (0, 0, 1);
    g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (rois2), ctr_roi_set_add (rois2, &c));
    g_assert_cmpstr (ctr_roi_item_get_name (item), ==, "ROI 4");
  }

  /* the restored session goes on: its dataset loads, the next run is 3 */
  {
    Async a = { 0 };
    g_autoptr(CtrRun) third = NULL;
    ctr_session_load_async (again, file->dataset_path, NULL, NULL, NULL, async_done, &a);
    wait_for (&a, "the dataset");
    g_assert_true (ctr_session_load_finish (again, a.result, NULL, &error));
    g_object_unref (a.result);
    g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_open_results (again)), ==, 2);
    ctr_recon_options_init (&o, CTR_METHOD_FBP);
    third = run (again, &o);
    g_assert_cmpuint (ctr_run_get_number (third), ==, 3);
    g_assert_true (ctr_session_get_unsaved (again));
    /* saving again replaces the folder (ours) */
    g_assert_cmpint (save (again, rois2, path, &error), ==, 3);
    g_assert_no_error (error);
    assert_no_temporary (dir);
    g_clear_pointer (&file, ctr_session_file_free);
    file = ctr_session_file_read (path, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (file->runs->len, ==, 3);
  }

  /* an image spilled to the cache and lost there: the save fails, says so
   * and writes nothing (never a session silently without an image) */
  {
    g_autofree char *lost = g_build_filename (dir, "lost" CTR_SESSION_FILE_SUFFIX, NULL);
    g_autofree char *spilled = NULL;
    ctr_session_set_memory_budget (session, 1);
    g_assert_nonnull (ctr_session_get_spill_folder (session));
    spilled = g_build_filename (ctr_session_get_spill_folder (session), "run-1.f32", NULL);
    g_assert_cmpint (g_unlink (spilled), ==, 0);
    g_assert_cmpint (save (session, rois, lost, &error), <, 0);
    g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
    g_assert_nonnull (strstr (error->message, "FBP, Hann 0.8"));
    g_assert_false (g_file_test (lost, G_FILE_TEST_EXISTS));
    assert_no_temporary (dir);
  }
}

/* A volume (FDK of a cone-beam scan): its slices saved as TIFF pages from
 * the lowest z and read back in the same order, bitwise. */
static void
test_volume (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(CtrSession) again = NULL;
  g_autoptr(CtrSessionFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) fdk = NULL;
  g_autoptr(CtrRun) back = NULL;
  g_autofree char *path = g_build_filename (tmp_dir, "volume" CTR_SESSION_FILE_SUFFIX, NULL);
  CtrReconOptions o;

  if (cone_path == NULL)
    {
      g_test_skip ("no simulated cone-beam dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session_of (cone_path);
  ctr_recon_options_init (&o, CTR_METHOD_FDK);
  o.backend = "cpu";
  /* a grid off the centre in z: the volume is not symmetric in z */
  fdk = run_shifted (session, &o, TRUE);
  {
    /* the slices differ, so that a reversed order could not pass */
    CtrVolume *v = ctr_run_get_result (fdk);
    gsize plane = ctr_grid_slice_size (&v->grid);
    g_assert_cmpuint (v->grid.nz, >, 1);
    g_assert_true (memcmp (v->data, v->data + (v->grid.nz - 1) * plane, plane * sizeof (float)) != 0);
  }
  g_assert_cmpint (save (session, NULL, path, &error), ==, 1);
  g_assert_no_error (error);
  file = ctr_session_file_read (path, NULL, &error);
  g_assert_no_error (error);
  again = ctr_session_new ();
  g_assert_true (ctr_session_restore (again, file, NULL, &error));
  back = g_list_model_get_item (ctr_session_get_runs (again), 0);
  assert_same_run (fdk, back);
}

/* Writes @text as PATH/session.json of a new folder @name in the errors'
 * folder; returns the folder. */
static char *
session_with (const char *name, const char *text)
{
  char *folder = g_build_filename (tmp_dir, name, NULL);
  g_autofree char *manifest = g_build_filename (folder, "session.json", NULL);

  g_mkdir_with_parents (folder, 0700);
  g_assert_true (g_file_set_contents (manifest, text, -1, NULL));
  return folder;
}

static void
assert_refused (const char *name, const char *text, int code, const char *needle)
{
  g_autofree char *folder = session_with (name, text);
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrSessionFile) f = ctr_session_file_read (folder, NULL, &error);

  g_assert_null (f);
  g_assert_error (error, CTR_ERROR, code);
  g_test_message ("%s: %s", name, error->message);
  g_assert_nonnull (strstr (error->message, needle));
}

#define HEAD "{\"format\": \"ctrecon-session\", \"version\": 1, \"dataset\": {\"path\": null}, "
#define RUN(image) "{\"number\": 1, \"label\": \"1 · FBP\", \"dataset\": \"d\", \"dataset_path\": \"/x\", " \
  "\"state\": \"finished\", \"method\": \"fbp\", \"parameters\": {\"window\": \"hann\"}, " \
  "\"grid\": {\"nx\": 4, \"ny\": 4, \"nz\": 1, \"dx_mm\": 1, \"dy_mm\": 1, \"dz_mm\": 1, \"cx_mm\": 0, " \
  "\"cy_mm\": 0, \"cz_mm\": 0}, \"iterations\": []" image "}"
#define IMAGE(file, nx) ", \"image\": {\"file\": \"" file "\", \"unit\": \"1/mm\", \"grid\": {\"nx\": " nx ", " \
  "\"ny\": 4, \"nz\": 1, \"dx_mm\": 1, \"dy_mm\": 1, \"dz_mm\": 1, \"cx_mm\": 0, \"cy_mm\": 0, \"cz_mm\": 0}}"

static void
test_errors (void)
{
  g_autoptr(CtrSession) session = ctr_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrSessionFile) f = NULL;
  g_autofree char *notes = g_build_filename (tmp_dir, "notes.ctrsession", NULL);
  g_autofree char *other = g_build_filename (tmp_dir, "other.ctrsession", NULL);
  g_autofree char *other_file = g_build_filename (other, "mine.txt", NULL);
  g_autofree char *text = NULL;

  /* never over what is not ours: a file, a folder of other files */
  g_assert_true (g_file_set_contents (notes, "my notes", -1, NULL));
  g_assert_cmpint (save (session, NULL, notes, &error), <, 0);
  g_assert_nonnull (error);
  g_test_message ("a file: %s", error->message);
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (notes, &text, NULL, NULL) && g_str_equal (text, "my notes"));
  g_mkdir_with_parents (other, 0700);
  g_assert_true (g_file_set_contents (other_file, "mine", -1, NULL));
  g_assert_cmpint (save (session, NULL, other, &error), <, 0);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "not a CT Recon session"));
  g_clear_error (&error);
  g_assert_true (g_file_test (other_file, G_FILE_TEST_IS_REGULAR));
  assert_no_temporary (tmp_dir);

  /* reading */
  {
    g_autofree char *missing = g_build_filename (tmp_dir, "missing.ctrsession", NULL);
    f = ctr_session_file_read (missing, NULL, &error);
    g_assert_null (f);
    g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
    g_clear_error (&error);
    f = ctr_session_file_read (other, NULL, &error);
    g_assert_null (f);
    g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "holds no session.json"));
    g_clear_error (&error);
  }
  assert_refused ("not-json", "PNG", CTR_ERROR_FORMAT, "not valid JSON");
  assert_refused ("format", "{\"format\": \"something\", \"version\": 1}", CTR_ERROR_FORMAT, "not a CT Recon session");
  assert_refused ("version", "{\"format\": \"ctrecon-session\", \"version\": 99, \"runs\": []}", CTR_ERROR_FORMAT,
                  "version 99");
  assert_refused ("no-runs", HEAD "\"runs\": 3}", CTR_ERROR_FORMAT, "“runs”");
  assert_refused ("method", HEAD "\"runs\": [{\"number\": 1, \"label\": \"l\", \"dataset\": \"d\", \"dataset_path\": \"/x\", "
                  "\"state\": \"finished\", \"method\": \"magic\", \"parameters\": {}}]}", CTR_ERROR_FORMAT, "magic");
  {
    /* a parameter the method does not have */
    g_autofree char *bad = g_strdup (HEAD "\"runs\": [" RUN ("") "]}");
    g_auto(GStrv) parts = g_strsplit (bad, "\"window\": \"hann\"", 2);
    g_autofree char *fixed = g_strjoinv ("\"window\": \"hann\", \"speed\": 3", parts);
    assert_refused ("param", fixed, CTR_ERROR_FORMAT, "“speed”");
  }
  {
    /* a parameter out of its range */
    g_autofree char *bad = g_strdup (HEAD "\"runs\": [" RUN ("") "]}");
    g_autofree char *fixed = NULL;
    g_auto(GStrv) parts = g_strsplit (bad, "\"window\": \"hann\"", 2);
    fixed = g_strjoinv ("\"window\": \"hann\", \"cutoff\": 7", parts);
    assert_refused ("cutoff", fixed, CTR_ERROR_FORMAT, "cutoff");
  }
  assert_refused ("image-missing", HEAD "\"runs\": [" RUN (IMAGE ("run-1.tif", "4")) "]}", CTR_ERROR_IO, "run-1.tif");
  assert_refused ("image-outside", HEAD "\"runs\": [" RUN (IMAGE ("../notes.ctrsession", "4")) "]}", CTR_ERROR_FORMAT,
                  "not a file name in the session folder");
  {
    /* an image of another shape than the manifest states */
    g_autofree char *folder = session_with ("image-shape", HEAD "\"runs\": [" RUN (IMAGE ("run-1.tif", "5")) "]}");
    g_autofree char *tif = g_build_filename (folder, "run-1.tif", NULL);
    float px[16] = { 0 };
    g_assert_true (ctr_tiff_write_float (tif, px, 4, 4, 1, NULL));
    f = ctr_session_file_read (folder, NULL, &error);
    g_assert_null (f);
    g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "4 × 4 × 1"));
    g_clear_error (&error);
    /* the same image where the manifest states it: read */
    assert_refused ("dup", HEAD "\"runs\": [" RUN ("") ", " RUN ("") "]}", CTR_ERROR_FORMAT, "two runs");
  }
  {
    g_autofree char *folder = session_with ("good", HEAD "\"runs\": [" RUN (IMAGE ("run-1.tif", "4")) "], "
                                            "\"rois\": [{\"name\": \"ROI 2\", \"shape\": \"circle\", \"x_mm\": 1, "
                                            "\"y_mm\": 2, \"radius_mm\": 3}], \"background_roi\": 0}");
    g_autofree char *tif = g_build_filename (folder, "run-1.tif", NULL);
    float px[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16.5f };
    g_assert_true (ctr_tiff_write_float (tif, px, 4, 4, 1, NULL));
    f = ctr_session_file_read (folder, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (f->runs->len, ==, 1);
    g_assert_cmpmem (((CtrSessionRunRecord *) f->runs->pdata[0])->image->data, sizeof px, px, sizeof px);
    g_assert_cmpuint (f->rois->len, ==, 1);
    g_assert_cmpint (f->background, ==, 0);
  }
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (path);
}

static void
test_study (void)
{
  g_autoptr(CtrSession) session = ctr_session_new ();
  g_autoptr(CtrSession) back = ctr_session_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "study.ctrsession", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrSessionFile) f = NULL;
  CtrGrid grid = ctr_grid_square (4, 1, 1, 1);
  g_autoptr(CtrVolume) image = ctr_volume_new (&grid, NULL);
  CtrDataset d = { .name = (char *) "phantom", .path = (char *) "/data/phantom/geometry.json" };
  CtrStudyRow row = { .dose = 0.25, .i0 = 2500, .method = CTR_METHOD_FBP, .label = "fbp window=hann",
                      .rmse = 1.0 / 3, .psnr = 27.5, .ssim = 0.7, .hu_rmse = 17.25, .noise_sd_hu = NAN,
                      .iterations = 1, .best_iteration = 1, .best_rmse = 1.0 / 3, .seconds = 0.125,
                      .nps_noise_hu = NAN, .nps_f_peak = NAN, .nps_f_avg = NAN, .dprime_npw = NAN,
                      .dprime_npwe = NAN };
  CtrReconOptions o;
  CtrRun *run;
  g_autoptr(CtrStudyRowItem) item = NULL;

  for (guint i = 0; i < ctr_grid_size (&grid); i++)
    image->data[i] = (float) i / 7;
  ctr_volume_set_unit (image, "1/mm");
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  run = ctr_session_add_result (session, &d, "study 0.25 × dose", &o, image, NULL, 0.125);
  g_assert_nonnull (run);
  g_assert_true (ctr_run_is_of (run, &d));
  g_assert_nonnull (strstr (ctr_run_get_label (run), "study 0.25 × dose"));
  item = ctr_study_row_item_new (&row, 2.5);
  ctr_study_row_item_set_run_number (item, ctr_run_get_number (run));
  g_list_store_append (ctr_session_get_study_table (session), item);
  g_assert_cmpint (save (session, NULL, path, &error), ==, 1);
  g_assert_no_error (error);

  f = ctr_session_file_read (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (f->study_rows->len, ==, 1);
  g_assert_true (ctr_session_restore (back, f, NULL, &error));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (ctr_session_get_study_table (back))), ==, 1);
  {
    g_autoptr(CtrStudyRowItem) got = g_list_model_get_item (G_LIST_MODEL (ctr_session_get_study_table (back)), 0);
    const CtrStudyRow *r = ctr_study_row_item_get (got);
    g_autoptr(CtrRun) restored = g_list_model_get_item (ctr_session_get_runs (back), 0);
    CtrVolume *img = ctr_run_get_result (restored);

    g_assert_true (same (r->dose, row.dose) && same (r->i0, row.i0) && same (r->rmse, row.rmse) &&
                   same (r->psnr, row.psnr) && same (r->ssim, row.ssim) && same (r->hu_rmse, row.hu_rmse) &&
                   same (r->noise_sd_hu, row.noise_sd_hu) && same (r->best_rmse, row.best_rmse) &&
                   same (r->seconds, row.seconds) && same (ctr_study_row_item_get_cnr (got), 2.5));
    g_assert_cmpint (r->method, ==, CTR_METHOD_FBP);
    g_assert_cmpstr (r->label, ==, row.label);
    g_assert_cmpuint (r->iterations, ==, 1);
    g_assert_cmpuint (ctr_study_row_item_get_run_number (got), ==, ctr_run_get_number (restored));
    g_assert_cmpstr (ctr_run_get_label (restored), ==, ctr_run_get_label (run));
    g_assert_nonnull (img);
    g_assert_cmpmem (img->data, ctr_grid_size (&grid) * sizeof (float), image->data,
                     ctr_grid_size (&grid) * sizeof (float));
  }
  remove_tree (path);

  /* version 1: no "study"; it opens, without rows */
  {
    g_autofree char *v1 = session_with ("v1", HEAD "\"runs\": [" RUN ("") "]}");
    g_autoptr(CtrSessionFile) old = ctr_session_file_read (v1, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (old->runs->len, ==, 1);
    g_assert_cmpuint (old->study_rows->len, ==, 0);
  }
  assert_refused ("study-run", "{\"format\": \"ctrecon-session\", \"version\": 2, \"runs\": [" RUN ("") "], "
                  "\"study\": {\"rows\": [{\"run\": 7, \"dose\": 0.5, \"realisation\": 0, \"method_index\": 0, "
                  "\"method\": \"fbp\", \"label\": \"fbp\", \"iterations\": 1, \"best_iteration\": 1}]}}",
                  CTR_ERROR_FORMAT, "the run 7");
}

/* The Dose Study page's form: saved, read back equal, restored into the
 * session; a file without one (version 2 as written before) restores none;
 * a bad value in it is refused with its key. */
static void
test_study_form (void)
{
  g_autoptr(CtrSession) session = ctr_session_new ();
  g_autoptr(CtrSession) back = ctr_session_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "form.ctrsession", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrSessionFile) f = NULL;
  g_autoptr(CtrStudyForm) form = ctr_study_form_new ();
  CtrReconOptions o;

  g_free (form->doses);
  form->doses = g_strdup ("1, 0.5, 0.125");
  form->i0 = 12345.5;
  form->seed = 77;
  form->realisations = 3;
  form->size = 96;
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  o.window = CTR_FILTER_HANN;
  g_array_append_val (form->methods, o);
  ctr_recon_options_init (&o, CTR_METHOD_PWLS);
  o.iterations = 7;
  o.beta = 0.0625;
  g_array_append_val (form->methods, o);
  g_free (form->noise_roi);
  form->noise_roi = g_strdup ("rect:40,-5,15,15");
  g_free (form->measure_roi);
  form->measure_roi = g_strdup ("circle:-17,-42,4");
  g_free (form->iq_task);
  form->iq_task = g_strdup ("disc:5,120");
  g_free (form->iq_nps);
  form->iq_nps = g_strdup ("circle:0,0,40");
  g_free (form->iq_insert);
  form->iq_insert = g_strdup ("circle:-60,0,10");
  ctr_session_set_study_form (session, form);
  g_assert_false (ctr_session_get_unsaved (session));
  g_assert_cmpint (save (session, NULL, path, &error), ==, 0);
  g_assert_no_error (error);

  f = ctr_session_file_read (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (f->study_form);
  g_assert_true (ctr_study_form_equal (f->study_form, form));
  g_assert_true (ctr_session_restore (back, f, NULL, &error));
  g_assert_nonnull (ctr_session_get_study_form (back));
  g_assert_true (ctr_study_form_equal (ctr_session_get_study_form (back), form));
  {
    /* one field changed is seen: equal is no constant */
    g_autoptr(CtrStudyForm) other = ctr_study_form_copy (form);
    g_array_index (other->methods, CtrReconOptions, 1).beta = 0.125;
    g_assert_false (ctr_study_form_equal (other, form));
  }
  remove_tree (path);

  /* a version-2 file without a form: none restored */
  {
    g_autofree char *v2 = session_with ("v2-no-form", "{\"format\": \"ctrecon-session\", \"version\": 2, "
                                        "\"runs\": [], \"study\": {\"rows\": []}}");
    g_autoptr(CtrSessionFile) old = ctr_session_file_read (v2, NULL, &error);
    g_assert_no_error (error);
    g_assert_null (old->study_form);
    g_assert_true (ctr_session_restore (back, old, NULL, &error));
    g_assert_null (ctr_session_get_study_form (back));
  }
  assert_refused ("form-realisations", "{\"format\": \"ctrecon-session\", \"version\": 2, \"runs\": [], "
                  "\"study\": {\"rows\": [], \"form\": {\"doses\": \"1\", \"realisations\": 0}}}",
                  CTR_ERROR_FORMAT, "realisations");
  assert_refused ("form-method", "{\"format\": \"ctrecon-session\", \"version\": 2, \"runs\": [], "
                  "\"study\": {\"rows\": [], \"form\": {\"methods\": [{\"method\": \"pwls\", "
                  "\"parameters\": {\"iterations\": -3}}]}}}",
                  CTR_ERROR_FORMAT, "study.form: method 1");
}

int
main (int argc, char **argv)
{
  const char *cli = g_getenv ("CTR_CLI");
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctrecon-session-file-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  {
    g_autofree char *cache = g_build_filename (tmp_dir, "cache", NULL);
    g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  }
  if (cli != NULL)
    {
      g_autofree char *out = g_build_filename (tmp_dir, "sim", NULL);
      const char *args[] = { cli, "simulate", "--views", "60", "--cols", "64", "--size", "48", "--output", out, NULL };
      int wait = 0;
      if (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                        NULL, NULL, NULL, &wait, NULL) &&
          g_spawn_check_wait_status (wait, NULL))
        dataset_path = g_build_filename (out, "geometry.json", NULL);
    }
  if (cli != NULL)
    {
      g_autofree char *out = g_build_filename (tmp_dir, "sim-cone", NULL);
      const char *args[] = { cli, "simulate", "--geometry", "cone-flat", "--rows", "8", "--views", "60",
                             "--cols", "64", "--size", "32", "--i0", "0", "--output", out, NULL };
      int wait = 0;
      if (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                        NULL, NULL, NULL, &wait, NULL) &&
          g_spawn_check_wait_status (wait, NULL))
        cone_path = g_build_filename (out, "geometry.json", NULL);
    }
  g_test_add_func ("/ui/session-file/round-trip", test_round_trip);
  g_test_add_func ("/ui/session-file/volume", test_volume);
  g_test_add_func ("/ui/session-file/errors", test_errors);
  g_test_add_func ("/ui/session-file/study", test_study);
  g_test_add_func ("/ui/session-file/study-form", test_study_form);
  status = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (dataset_path);
  g_free (cone_path);
  return status;
}
