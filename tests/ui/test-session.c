/* test-session.c — the window's model without a display: a simulated scan
 * loaded, reconstructed, cancelled and replaced through CtrSession, every
 * property change observed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The dataset is written by `ctrecon-cli simulate` ($CTR_CLI) into a
 * temporary folder; without it the tests skip.  The result of a session run
 * must equal ctr_reconstruct() on the same geometry, grid and options (the
 * session adds threads and messages, never numbers).
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/resource.h>

#include "ctr-test-memory.h"
#include "ctr-session.h"

static char *dataset_path;   /* geometry.json of the simulated scan, or NULL */
static char *cone_path;      /* a simulated cone-beam scan (8 rows), or NULL */
static char *tmp_dir;

/* ---- waiting and recording ---------------------------------------------- */

static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Iterates the main context until *@flag or @timeout_s; fails on timeout. */
static void
wait_for (const gboolean *flag, double timeout_s, const char *what)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  guint id = g_timeout_add (20, wake, NULL);

  while (!*flag)
    {
      if (g_get_monotonic_time () > end)
        g_error ("timed out after %.0f s waiting for %s", timeout_s, what);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
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

/* While the caller's callback runs, the session is held by the caller
 * (@before references) and by the caller's task only: no worker thread's
 * task holds it, so the caller's last unref always ends the session on
 * the main thread (its spill folder removed there and then). */
static void
assert_no_worker_holds (const Async *a, guint before)
{
  g_assert_cmpuint (a->refs, ==, before + 1);
}

/* Every notification of the session, as "name" strings in order. */
typedef struct {
  GPtrArray *names;
  guint      busy_true;       /* notify::busy seen with busy TRUE */
  guint      busy_false;
  guint      stats_with_image;
  double     last_fraction;
  gboolean   saw_indeterminate;
} Recorder;

static void
on_notify (CtrSession *session, GParamSpec *pspec, Recorder *r)
{
  g_ptr_array_add (r->names, g_strdup (pspec->name));
  if (g_str_equal (pspec->name, "busy"))
    {
      if (ctr_session_get_busy (session))
        r->busy_true++;
      else
        r->busy_false++;
    }
  else if (g_str_equal (pspec->name, "fraction"))
    {
      r->last_fraction = ctr_session_get_fraction (session);
      if (r->last_fraction < 0)
        r->saw_indeterminate = TRUE;
    }
  else if (g_str_equal (pspec->name, "latest-stats"))
    {
      const CtrIterStats *s = ctr_session_get_latest_stats (session);
      if (s != NULL && s->image != NULL)
        r->stats_with_image++;
    }
}

static guint
count (Recorder *r, const char *name)
{
  guint n = 0;
  for (guint i = 0; i < r->names->len; i++)
    if (g_str_equal (r->names->pdata[i], name))
      n++;
  return n;
}

static Recorder *
record (CtrSession *session)
{
  Recorder *r = g_new0 (Recorder, 1);
  r->names = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (session, "notify", G_CALLBACK (on_notify), r);
  return r;
}

static void
recorder_free (CtrSession *session, Recorder *r)
{
  g_signal_handlers_disconnect_by_data (session, r);
  g_ptr_array_unref (r->names);
  g_free (r);
}

/* ---- helpers -------------------------------------------------------------- */

static CtrSession *
loaded_session (void)
{
  CtrSession *session = ctr_session_new ();
  Async a = { 0 };
  g_autoptr(GError) error = NULL;
  CtrDicomResolution *question = NULL;
  guint before = G_OBJECT (session)->ref_count;

  ctr_session_load_async (session, dataset_path, NULL, NULL, NULL, async_done, &a);
  wait_for (&a.done, 60, "the dataset");
  assert_no_worker_holds (&a, before);
  g_assert_true (ctr_session_load_finish (session, a.result, &question, &error));
  g_assert_no_error (error);
  g_assert_null (question);
  g_object_unref (a.result);
  return session;
}

static void
sirt_options (CtrReconOptions *o, guint iterations)
{
  ctr_recon_options_init (o, CTR_METHOD_SIRT);
  o->iterations = iterations;
  o->backend = "cpu";
}

static CtrGrid
small_grid (CtrSession *session)
{
  return ctr_grid_default (ctr_session_get_dataset (session)->geometry, 64, 0);
}

/* ---- tests --------------------------------------------------------------- */

static void
test_load (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(GError) error = NULL;
  Async a = { 0 };
  Recorder *r;
  guint w = 0, h = 0;
  double lo, hi;
  GBytes *preview;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = ctr_session_new ();
  g_assert_false (ctr_session_get_busy (session));
  g_assert_null (ctr_session_get_dataset (session));
  r = record (session);

  ctr_session_load_async (session, dataset_path, NULL, NULL, NULL, async_done, &a);
  g_assert_true (ctr_session_get_busy (session) && ctr_session_get_loading (session));
  g_assert_cmpfloat (ctr_session_get_fraction (session), <, 0);
  g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "Loading…");
  wait_for (&a.done, 60, "the dataset");
  g_assert_true (ctr_session_load_finish (session, a.result, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&a.result);

  g_assert_nonnull (ctr_session_get_dataset (session));
  g_assert_nonnull (ctr_session_get_dataset (session)->reference);
  g_assert_false (ctr_session_get_busy (session));
  g_assert_cmpstr (ctr_session_get_status (session), ==, "Dataset loaded");
  g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "Idle");
  g_assert_cmpuint (count (r, "dataset"), ==, 1);
  g_assert_cmpuint (r->busy_true, ==, 1);
  g_assert_cmpuint (r->busy_false, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 0);

  /* the sinogram preview: views down, columns across, at most 320 wide */
  preview = ctr_session_get_preview (session, &w, &h);
  g_assert_nonnull (preview);
  g_assert_cmpuint (w, ==, ctr_session_get_dataset (session)->projections->n_cols);
  g_assert_cmpuint (h, ==, ctr_session_get_dataset (session)->projections->n_views);
  g_assert_cmpuint (g_bytes_get_size (preview), ==, (gsize) w * h * 3);
  ctr_session_get_data_range (session, &lo, &hi);
  g_assert_true (isfinite (lo) && isfinite (hi) && hi > lo);
  recorder_free (session, r);
}

static void
test_reconstruct (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = NULL;
  g_autoptr(CtrVolume) direct = NULL;
  CtrReconOptions o;
  CtrGrid grid;
  CtrDataset *d;
  Async a = { 0 };
  Recorder *r;
  const CtrIterStats *latest;
  double diff = 0, norm = 0;
  guint before;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  d = ctr_session_get_dataset (session);
  grid = small_grid (session);
  sirt_options (&o, 4);
  r = record (session);
  before = G_OBJECT (session)->ref_count;

  ctr_session_reconstruct_async (session, d->geometry, &grid, &o, NULL, async_done, &a);
  g_assert_true (ctr_session_get_running (session));
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 1);
  g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "Preparing SIRT: the system matrix (kept, cached or built)…");
  wait_for (&a.done, 120, "the run");
  assert_no_worker_holds (&a, before);
  run = ctr_session_reconstruct_finish (session, a.result, &error);
  g_clear_object (&a.result);
  g_assert_no_error (error);
  g_assert_nonnull (run);

  /* the run: numbers of every iteration, the result, its label */
  g_assert_cmpint (ctr_run_get_state (run), ==, CTR_RUN_FINISHED);
  g_assert_cmpuint (ctr_run_get_number (run), ==, 1);
  g_assert_cmpstr (ctr_run_get_label (run), ==, "1 · SIRT · 4 it · λ 1");
  g_assert_true (g_str_has_prefix (ctr_run_get_derivation (run), "SIRT: iterations 4"));
  g_assert_cmpuint (ctr_run_get_n_stats (run), ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const CtrIterStats *s = ctr_run_get_stats (run, i);
      g_assert_cmpuint (s->iteration, ==, i + 1);
      g_assert_null (s->image);
      g_assert_true (s->has_reference && isfinite (s->rmse) && isfinite (s->residual));
    }
  /* SIRT's residual falls */
  g_assert_cmpfloat (ctr_run_get_stats (run, 3)->residual, <, ctr_run_get_stats (run, 0)->residual);
  g_assert_true (ctr_session_get_latest_result (session) == run);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_results (session)), ==, 1);

  /* the session's texts and properties at the end */
  g_assert_false (ctr_session_get_busy (session));
  g_assert_cmpfloat (ctr_session_get_fraction (session), ==, 1.0);
  g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "iteration 4 / 4");
  g_assert_true (g_str_has_prefix (ctr_session_get_status (session), "Finished: 4 iterations of SIRT"));
  latest = ctr_session_get_latest_stats (session);
  g_assert_nonnull (latest);
  g_assert_cmpuint (latest->iteration, ==, 4);
  g_assert_cmpuint (count (r, "latest-stats"), ==, 4);       /* one per report */
  g_assert_cmpuint (r->stats_with_image, >=, 1);              /* at least the last one carries its slice */
  g_assert_true (r->saw_indeterminate);
  g_assert_cmpuint (r->busy_true, ==, 1);
  g_assert_cmpuint (r->busy_false, ==, 1);

  /* the plan's notes: what ran where */
  g_assert_nonnull (ctr_run_get_notes (run));
  g_assert_true (g_strv_contains (ctr_run_get_notes (run), "backend: cpu"));
  g_assert_cmpuint (count (r, "notes"), ==, 0);   /* the run's, not the session's */

  /* the session adds threads, not numbers: the same as ctr_reconstruct */
  direct = ctr_reconstruct (d->geometry, d->projections, &grid, &o, d->reference, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    {
      diff = MAX (diff, fabs (direct->data[i] - ctr_run_get_result (run)->data[i]));
      norm = MAX (norm, fabs (direct->data[i]));
    }
  g_test_message ("session vs ctr_reconstruct: max |difference| %.3g of max %.3g", diff, norm);
  g_assert_cmpfloat (diff, <=, 1e-5 * norm);

  /* metrics CSV: a header and one row per iteration */
  {
    g_autofree char *csv = g_build_filename (tmp_dir, "metrics.csv", NULL);
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;

    g_assert_true (ctr_session_write_metrics (session, csv, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    g_assert_cmpstr (lines[0], ==, "run,label,iteration,residual,rmse,psnr_db,ssim");
    g_assert_cmpuint (g_strv_length (lines), ==, 1 + 4 + 1);
    g_assert_true (g_str_has_prefix (lines[4], "1,1 · SIRT · 4 it · λ 1,4,"));
  }
  recorder_free (session, r);
}

static void
on_first_report (CtrSession *session, GParamSpec *pspec, gpointer data)
{
  const CtrIterStats *s = ctr_session_get_latest_stats (session);
  if (s != NULL && s->iteration >= 1)
    {
      g_signal_handlers_disconnect_by_func (session, on_first_report, data);
      ctr_session_cancel (session);
      g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "Cancelling…");
    }
}

static void
test_cancel (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = NULL;
  CtrReconOptions o;
  CtrGrid grid;
  Async a = { 0 };

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  grid = small_grid (session);
  sirt_options (&o, 400);
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_first_report), NULL);
  ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, &grid, &o, NULL,
                                 async_done, &a);
  wait_for (&a.done, 120, "the cancelled run");
  g_assert_null (ctr_session_reconstruct_finish (session, a.result, &error));
  g_clear_object (&a.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  run = g_list_model_get_item (ctr_session_get_runs (session), 0);
  g_assert_cmpint (ctr_run_get_state (run), ==, CTR_RUN_CANCELLED);
  g_assert_null (ctr_run_get_result (run));
  g_assert_true (g_str_has_suffix (ctr_run_get_label (run), "(cancelled)"));
  g_assert_cmpuint (ctr_run_get_n_stats (run), >=, 1);
  g_assert_cmpuint (ctr_run_get_n_stats (run), <, 400);
  g_assert_null (ctr_session_get_latest_result (session));
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_results (session)), ==, 0);
  g_assert_false (ctr_session_get_busy (session));
  g_assert_cmpstr (ctr_session_get_status (session), ==, "Cancelled");
  g_assert_cmpstr (ctr_session_get_progress_text (session), ==, "Cancelled");
}

/* A volume run's reports carry the whole iterate; cancelled after its
 * second report it keeps its newest iterate as a volume (a 2-D run keeps
 * none: test_cancel), among the results, equal to ctr_reconstruct of as
 * many iterations; the live copy is let go when the run ends.  A run whose
 * reports carry the three planes (CTR_REPORT_PLANES, the window's choice)
 * shows them in a volume of the grid and keeps, when cancelled, the whole
 * image the core's extra report brings: iteration k's exactly, or, when the
 * cancellation came during iteration k + 1, iteration k's or k + 1's (SIRT
 * changes the image at the end of an iteration only). */
typedef struct {
  CtrGrid  grid;
  guint    reports;
  guint    whole;     /* reports whose image is the whole grid */
} VolumeReports;

static void
on_volume_report (CtrSession *session, GParamSpec *pspec, VolumeReports *r)
{
  const CtrIterStats *s = ctr_session_get_latest_stats (session);

  if (s == NULL || !ctr_session_get_running (session))
    return;
  r->reports++;
  if (s->image != NULL && ctr_grid_equal (&s->image->grid, &r->grid))
    r->whole++;
  if (s->iteration == 2)
    ctr_session_cancel (session);
}

static void
cancel_volume (CtrReportImage mode)
{
  g_autoptr(CtrSession) session = ctr_session_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = NULL;
  g_autoptr(CtrVolume) direct = NULL;
  CtrDicomResolution *question = NULL;
  VolumeReports r = { 0 };
  const CtrVolume *kept;
  CtrDataset *d;
  CtrReconOptions o;
  Async a = { 0 }, load = { 0 };
  guint k;
  gboolean partial;
  double diff = 0, norm = 0;

  if (cone_path == NULL)
    {
      g_test_skip ("no simulated cone-beam dataset ($CTR_CLI simulate)");
      return;
    }
  ctr_session_load_async (session, cone_path, NULL, NULL, NULL, async_done, &load);
  wait_for (&load.done, 60, "the cone-beam dataset");
  g_assert_true (ctr_session_load_finish (session, load.result, &question, &error));
  g_assert_no_error (error);
  g_clear_object (&load.result);
  d = ctr_session_get_dataset (session);
  r.grid = ctr_grid_default (d->geometry, 32, 0);
  g_assert_cmpuint (r.grid.nz, ==, 8);
  sirt_options (&o, 400);
  o.report_image = mode;
  o.report_x = 3;
  o.report_y = 30;
  o.report_slice = 5;
  g_signal_connect (session, "notify::latest-stats", G_CALLBACK (on_volume_report), &r);
  ctr_session_reconstruct_async (session, d->geometry, &r.grid, &o, NULL, async_done, &a);
  wait_for (&a.done, 120, "the cancelled volume run");
  g_signal_handlers_disconnect_by_data (session, &r);
  g_assert_null (ctr_session_reconstruct_finish (session, a.result, &error));
  g_clear_object (&a.result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* the live reports: the whole iterate, not one slice */
  g_assert_cmpuint (r.reports, >=, 2);
  g_assert_cmpuint (r.whole, >=, 1);
  g_assert_null (ctr_session_get_latest_stats (session)->image);

  run = g_list_model_get_item (ctr_session_get_runs (session), 0);
  g_assert_cmpint (ctr_run_get_state (run), ==, CTR_RUN_CANCELLED);
  kept = ctr_run_get_result (run);
  g_assert_nonnull (kept);
  g_assert_true (ctr_grid_equal (&kept->grid, &r.grid));
  g_assert_true (ctr_session_get_latest_result (session) == run);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_results (session)), ==, 1);
  k = ctr_run_get_stats (run, ctr_run_get_n_stats (run) - 1)->iteration;
  g_assert_cmpuint (k, >=, 2);
  partial = g_str_has_prefix (ctr_session_get_status (session), "Cancelled during iteration");
  g_test_message ("%s", ctr_session_get_status (session));
  if (mode == CTR_REPORT_VOLUME)
    g_assert_true (g_str_has_prefix (ctr_session_get_status (session), "Cancelled: the 32 × 32 × 8 volume of iteration"));
  else
    {
      /* the live view: a volume of the grid (the planes in it) */
      g_assert_cmpuint (r.whole, >=, 1);
      g_assert_true (partial || g_str_has_prefix (ctr_session_get_status (session),
                                                  "Cancelled: the 32 × 32 × 8 volume of iteration"));
    }

  /* its values: SIRT of as many iterations (or of one more, when the
   * cancellation came during the next) */
  for (guint extra = 0; extra <= (partial ? 1u : 0u); extra++)
    {
      g_clear_pointer (&direct, ctr_volume_unref);
      sirt_options (&o, k + extra);
      direct = ctr_reconstruct (d->geometry, d->projections, &r.grid, &o, d->reference, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      diff = norm = 0;
      for (gsize i = 0; i < ctr_grid_size (&r.grid); i++)
        {
          diff = MAX (diff, fabs (direct->data[i] - kept->data[i]));
          norm = MAX (norm, fabs (direct->data[i]));
        }
      g_test_message ("kept iterate vs ctr_reconstruct of %u iterations: max |difference| %.3g of max %.3g",
                      k + extra, diff, norm);
      if (diff <= 1e-5 * norm)
        break;
    }
  g_assert_cmpfloat (diff, <=, 1e-5 * norm);
}

static void
test_cancel_volume (void)
{
  cancel_volume (CTR_REPORT_VOLUME);
}

static void
test_cancel_planes (void)
{
  cancel_volume (CTR_REPORT_PLANES);
}

/* A new dataset while a run goes on: the run ends cancelled, the new
 * dataset starts without runs. */
static CtrRun *run_sirt (CtrSession *session, const CtrGrid *grid, guint iterations);

static void
test_replace (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CtrRun) run = NULL;
  CtrReconOptions o;
  CtrGrid grid;
  Async recon = { 0 }, load = { 0 };
  CtrDataset *before;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  before = ctr_session_get_dataset (session);
  grid = small_grid (session);
  sirt_options (&o, 400);
  ctr_session_reconstruct_async (session, before->geometry, &grid, &o, NULL, async_done, &recon);
  run = g_list_model_get_item (ctr_session_get_runs (session), 0);
  ctr_session_load_async (session, dataset_path, NULL, NULL, NULL, async_done, &load);
  g_assert_cmpint (ctr_run_get_state (run), ==, CTR_RUN_CANCELLED);
  g_assert_true (ctr_session_get_loading (session) && !ctr_session_get_running (session));
  wait_for (&load.done, 60, "the new dataset");
  wait_for (&recon.done, 60, "the replaced run");
  g_assert_true (ctr_session_load_finish (session, load.result, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (ctr_session_reconstruct_finish (session, recon.result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_object (&load.result);
  g_clear_object (&recon.result);
  g_assert_true (ctr_session_get_dataset (session) != before);
  g_assert_false (ctr_session_get_busy (session));
  /* the cancelled run stays, naming its data; its number goes on */
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 1);
  g_assert_cmpstr (ctr_run_get_dataset (run), ==, ctr_session_get_dataset (session)->name);
  g_clear_object (&run);
  run = run_sirt (session, &grid, 1);
  g_assert_cmpuint (ctr_run_get_number (run), ==, 2);
  ctr_session_clear_runs (session);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_results (session)), ==, 0);

  /* a session that keeps no runs empties them on a new dataset */
  g_clear_object (&run);
  run = run_sirt (session, &grid, 1);
  ctr_session_set_keep_runs (session, FALSE);
  load.done = FALSE;
  ctr_session_load_async (session, dataset_path, NULL, NULL, NULL, async_done, &load);
  wait_for (&load.done, 60, "the new dataset");
  g_assert_true (ctr_session_load_finish (session, load.result, NULL, &error));
  g_clear_object (&load.result);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 0);

  /* variants: the default reloads; an unknown one is refused, the
   * dataset kept */
  before = ctr_session_get_dataset (session);
  load.done = FALSE;
  ctr_session_load_variant_async (session, NULL, NULL, async_done, &load);
  wait_for (&load.done, 60, "the default variant");
  g_assert_true (ctr_session_load_finish (session, load.result, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&load.result);
  g_assert_true (ctr_session_get_dataset (session) != before && ctr_session_get_dataset (session)->variant == NULL);
  before = ctr_session_get_dataset (session);
  load.done = FALSE;
  ctr_session_load_variant_async (session, "no-such-dose", NULL, async_done, &load);
  wait_for (&load.done, 60, "the unknown variant");
  g_assert_false (ctr_session_load_finish (session, load.result, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_object (&load.result);
  g_assert_true (ctr_session_get_dataset (session) == before);
}

static CtrRun *
run_options (CtrSession *session, const CtrGrid *grid, const CtrReconOptions *options)
{
  g_autoptr(GError) error = NULL;
  CtrReconOptions o = *options;
  CtrRun *run;
  Async a = { 0 };

  ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, grid, &o, NULL,
                                 async_done, &a);
  wait_for (&a.done, 120, "a run");
  run = ctr_session_reconstruct_finish (session, a.result, &error);
  g_clear_object (&a.result);
  g_assert_no_error (error);
  return run;
}

static CtrRun *
run_sirt (CtrSession *session, const CtrGrid *grid, guint iterations)
{
  CtrReconOptions o;

  sirt_options (&o, iterations);
  return run_options (session, grid, &o);
}

/* Plan once, execute many: the same geometry and grid run on the kept plan
 * while the options need no other operator (other iterations, another
 * method on the same matrix); another matrix or grid makes a new plan; a
 * new dataset forgets it.  Both executes of one plan give the same image. */
static void
test_plan (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(CtrRun) a = NULL, b = NULL, c = NULL, d = NULL;
  CtrReconPlan *first;
  CtrGrid grid, other;
  Async load = { 0 };

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  g_assert_null (ctr_session_get_plan (session));
  grid = small_grid (session);
  a = run_sirt (session, &grid, 3);
  first = ctr_session_get_plan (session);
  g_assert_nonnull (first);
  g_assert_true (ctr_grid_equal (ctr_recon_plan_get_grid (first), &grid));

  b = run_sirt (session, &grid, 3);
  g_assert_true (ctr_session_get_plan (session) == first);
  g_assert_cmpmem (ctr_run_get_result (a)->data, ctr_grid_size (&grid) * sizeof (float),
                   ctr_run_get_result (b)->data, ctr_grid_size (&grid) * sizeof (float));
  g_assert_true (g_strv_equal (ctr_run_get_notes (a), ctr_run_get_notes (b)));

  c = run_sirt (session, &grid, 4);
  g_assert_true (ctr_session_get_plan (session) == first);
  g_assert_cmpuint (ctr_recon_plan_get_options (ctr_session_get_plan (session))->iterations, ==, 4);

  {
    g_autoptr(CtrRun) e = NULL, f = NULL;
    CtrReconOptions o;

    ctr_recon_options_init (&o, CTR_METHOD_PART);
    o.iterations = 2;
    o.backend = "cpu";
    e = run_options (session, &grid, &o);       /* another method, the same SCSR matrix */
    g_assert_true (ctr_session_get_plan (session) == first);
    o.matrix = CTR_MATRIX_CSR;
    g_autoptr(CtrReconPlan) kept = ctr_recon_plan_ref (first);  /* no address reuse */
    f = run_options (session, &grid, &o);       /* another matrix: a new plan */
    g_assert_true (ctr_session_get_plan (session) != kept);
    first = ctr_session_get_plan (session);
  }

  other = ctr_grid_default (ctr_session_get_dataset (session)->geometry, 48, 0);
  d = run_sirt (session, &other, 4);
  g_assert_true (ctr_grid_equal (ctr_recon_plan_get_grid (ctr_session_get_plan (session)), &other));

  ctr_session_load_async (session, dataset_path, NULL, NULL, NULL, async_done, &load);
  wait_for (&load.done, 60, "the dataset again");
  g_assert_true (ctr_session_load_finish (session, load.result, NULL, NULL));
  g_clear_object (&load.result);
  g_assert_null (ctr_session_get_plan (session));
}

/* Seven runs: the run store keeps every image (issue 31: the newest six
 * only, before).  With a memory budget of two images, the five least
 * recently used go to the session's folder under the user's cache, are
 * read back identical, and the folder goes with the session; a deleted
 * run's file goes with it. */
static void
test_results (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autoptr(CtrRun) first = NULL;
  g_autoptr(GPtrArray) copies = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_volume_unref);
  g_autofree char *folder = NULL;
  CtrReconOptions o;
  CtrGrid grid;
  GListModel *results;
  guint n_images;
  guint64 in_memory, on_disk, image;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  grid = small_grid (session);
  image = ctr_grid_size (&grid) * sizeof (float);
  ctr_session_set_memory_budget (session, 2 * image);
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  for (guint i = 0; i < 7; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CtrRun) run = NULL;
      Async a = { 0 };

      /* seven different images: the cut-off changes */
      o.cutoff = 1.0 - 0.1 * i;
      ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, &grid, &o, NULL,
                                     async_done, &a);
      wait_for (&a.done, 60, "an FBP run");
      run = ctr_session_reconstruct_finish (session, a.result, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (ctr_run_get_number (run), ==, i + 1);
      g_assert_cmpstr (ctr_run_get_label (run), ==, i == 0 ? "1 · FBP · Ram-Lak · cut-off 1" : ctr_run_get_label (run));
      g_ptr_array_add (copies, ctr_volume_copy (ctr_run_get_result (run)));
      g_clear_object (&a.result);
    }
  results = ctr_session_get_results (session);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 7);
  g_assert_cmpuint (g_list_model_get_n_items (results), ==, 7);
  ctr_session_get_store_usage (session, &n_images, &in_memory, &on_disk);
  g_assert_cmpuint (n_images, ==, 7);
  g_assert_cmpuint (in_memory, <=, 2 * image);
  g_assert_cmpuint (in_memory + on_disk, ==, 7 * image);
  g_assert_cmpuint (on_disk, >=, 5 * image);
  folder = g_strdup (ctr_session_get_spill_folder (session));
  g_assert_nonnull (folder);
  g_assert_true (g_str_has_prefix (folder, g_get_user_cache_dir ()));
  g_assert_true (g_file_test (folder, G_FILE_TEST_IS_DIR));
  g_assert_nonnull (strstr (ctr_session_get_store_summary (session), "on disk"));
  first = g_list_model_get_item (ctr_session_get_runs (session), 0);
  for (guint i = 0; i < 7; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      CtrVolume *v = ctr_run_get_result (run);
      CtrVolume *copy = g_ptr_array_index (copies, i);

      g_assert_cmpuint (ctr_run_get_number (run), ==, i + 1);
      g_assert_nonnull (v);
      g_assert_true (ctr_grid_equal (&v->grid, &copy->grid));
      g_assert_cmpstr (v->unit, ==, copy->unit);
      g_assert_cmpmem (v->data, image, copy->data, image);
      g_assert_cmpuint (ctr_run_get_n_stats (run), ==, 1);
    }
  /* the read-backs are balanced out again once the main loop runs */
  for (guint k = 0; k < 20; k++)
    g_main_context_iteration (NULL, FALSE);
  ctr_session_get_store_usage (session, NULL, &in_memory, NULL);
  g_assert_cmpuint (in_memory, <=, 2 * image);
  /* deleting the first run deletes its image file */
  {
    g_autofree char *file = g_build_filename (folder, "run-1.f32", NULL);
    g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
    g_assert_true (ctr_session_remove_run (session, first, NULL));
    g_assert_false (g_file_test (file, G_FILE_TEST_IS_REGULAR));
    g_assert_false (ctr_run_has_image (first));
  }
  g_clear_object (&session);
  g_assert_false (g_file_test (folder, G_FILE_TEST_EXISTS));
}

/* The cache cannot hold a folder (a file stands where it would go): the
 * images stay in memory, over the budget, and the session says so; none
 * is dropped. */
static void
test_spill_error (void)
{
  g_autoptr(CtrSession) session = NULL;
  g_autofree char *blocker = g_build_filename (g_get_user_cache_dir (), "ctrecon", NULL);
  CtrReconOptions o;
  CtrGrid grid;
  guint n_images;
  guint64 in_memory, on_disk;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  g_assert_true (g_mkdir_with_parents (g_get_user_cache_dir (), 0700) == 0);
  g_assert_true (g_file_set_contents (blocker, "not a folder", -1, NULL));
  session = loaded_session ();
  grid = small_grid (session);
  ctr_session_set_memory_budget (session, 1);
  ctr_recon_options_init (&o, CTR_METHOD_FBP);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(CtrRun) run = NULL;
      Async a = { 0 };

      ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, &grid, &o, NULL,
                                     async_done, &a);
      wait_for (&a.done, 60, "an FBP run");
      run = ctr_session_reconstruct_finish (session, a.result, &error);
      g_assert_no_error (error);
      g_clear_object (&a.result);
    }
  ctr_session_get_store_usage (session, &n_images, &in_memory, &on_disk);
  g_assert_cmpuint (n_images, ==, 3);
  g_assert_cmpuint (on_disk, ==, 0);
  g_assert_cmpuint (in_memory, ==, 3 * ctr_grid_size (&grid) * sizeof (float));
  g_assert_null (ctr_session_get_spill_folder (session));
  g_assert_nonnull (strstr (ctr_session_get_store_summary (session), "over the budget"));
  g_assert_nonnull (strstr (ctr_session_get_status (session), "could not be moved to disk"));
  g_clear_object (&session);
  g_assert_true (g_unlink (blocker) == 0);
}

static void
test_errors (void)
{
  g_autoptr(CtrSession) session = ctr_session_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *missing = g_build_filename (tmp_dir, "no-such", "geometry.json", NULL);
  CtrReconOptions o;
  CtrGrid grid = ctr_grid_square (32, 1.0, 1, 1);
  g_autoptr(CtrGeometry) g = ctr_geometry_new (CTR_BEAM_PARALLEL, 10);
  Async a = { 0 };

  /* nothing loaded: no run starts */
  sirt_options (&o, 2);
  ctr_session_reconstruct_async (session, g, &grid, &o, NULL, async_done, &a);
  wait_for (&a.done, 10, "the refusal");
  g_assert_null (ctr_session_reconstruct_finish (session, a.result, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_clear_object (&a.result);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 0);

  /* nothing loaded: no variant to load */
  a.done = FALSE;
  ctr_session_load_variant_async (session, "full_dose", NULL, async_done, &a);
  wait_for (&a.done, 10, "the refused variant");
  g_assert_false (ctr_session_load_finish (session, a.result, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  g_clear_object (&a.result);
  g_assert_false (ctr_session_get_busy (session));

  /* a file that is not there: an error, the status says so */
  a.done = FALSE;
  ctr_session_load_async (session, missing, NULL, NULL, NULL, async_done, &a);
  wait_for (&a.done, 10, "the failed load");
  g_assert_false (ctr_session_load_finish (session, a.result, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  g_clear_object (&a.result);
  g_assert_cmpstr (ctr_session_get_status (session), ==, "The dataset could not be opened");
  g_assert_null (ctr_session_get_dataset (session));
  g_assert_false (ctr_session_get_busy (session));

  if (dataset_path == NULL)
    return;
  /* options out of range: refused before any run starts */
  g_clear_object (&session);
  session = loaded_session ();
  grid = small_grid (session);
  sirt_options (&o, 2);
  o.relaxation = 5;
  a.done = FALSE;
  ctr_session_reconstruct_async (session, ctr_session_get_dataset (session)->geometry, &grid, &o, NULL,
                                 async_done, &a);
  g_assert_false (ctr_session_get_busy (session));
  wait_for (&a.done, 10, "the refusal");
  g_assert_null (ctr_session_reconstruct_finish (session, a.result, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_object (&a.result);
  g_assert_cmpuint (g_list_model_get_n_items (ctr_session_get_runs (session)), ==, 0);
}

/* A run asked for a geometry of 2²⁰ views (its angles: 8 MiB) under an
 * address-space limit 4 MiB above what the process holds: the session's
 * copy of the geometry fails, and the run ends with CTR_ERROR_OUT_OF_MEMORY
 * naming the angles (GLib's allocator aborted the window before). */
static void
test_geometry_out_of_memory (void)
{
  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI)");
      return;
    }
  if (g_getenv ("CTR_SANITIZED") != NULL)
    {
      g_test_skip ("an address-space limit stops the sanitizers");
      return;
    }
  if (g_test_subprocess ())
    {
      g_autoptr(CtrSession) session = loaded_session ();
      g_autoptr(GError) error = NULL;
      CtrGrid grid = small_grid (session);
      CtrReconOptions o;
      Async a = { 0 };
      g_autoptr(CtrGeometry) big = ctr_geometry_copy (ctr_session_get_dataset (session)->geometry);
      g_free (big->angles);
      big->n_views = 1u << 20;
      big->angles = g_new0 (double, big->n_views);
      sirt_options (&o, 2);
      struct rlimit rl;
      rl.rlim_cur = rl.rlim_max = test_vm_size () + (4u << 20);
      g_assert_cmpint (setrlimit (RLIMIT_AS, &rl), ==, 0);
      ctr_session_reconstruct_async (session, big, &grid, &o, NULL, async_done, &a);
      wait_for (&a.done, 10, "the refusal");
      g_assert_null (ctr_session_reconstruct_finish (session, a.result, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
      g_printerr ("%s\n", error->message);
      g_clear_object (&a.result);
      g_assert_false (ctr_session_get_busy (session));
      return;
    }
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*angles of 1048576 views*");
}

static void
on_finalized (gpointer data, GObject *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

/* The session ends with its last reference once its jobs are done (a
 * worker thread drops its task, and with it the session, just after the
 * result reached the main thread). */
static void
test_finalize (void)
{
  CtrSession *session;
  gboolean gone = FALSE;

  if (dataset_path == NULL)
    {
      g_test_skip ("no simulated dataset ($CTR_CLI simulate)");
      return;
    }
  session = loaded_session ();
  g_object_weak_ref (G_OBJECT (session), on_finalized, &gone);
  g_object_unref (session);
  wait_for (&gone, 10, "the session to be finalized");
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (path, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        remove_tree (p);
      else
        g_unlink (p);
    }
  g_rmdir (path);
}

int
main (int argc, char **argv)
{
  const char *cli = g_getenv ("CTR_CLI");
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctrecon-session-XXXXXX", NULL);
  if (tmp_dir != NULL)
    {
      /* the run store's spilled images go under the user's cache: here */
      g_autofree char *cache = g_build_filename (tmp_dir, "cache", NULL);
      g_setenv ("XDG_CACHE_HOME", cache, TRUE);
    }
  if (cli != NULL && tmp_dir != NULL)
    {
      g_autofree char *out = g_build_filename (tmp_dir, "sim", NULL);
      const char *args[] = { cli, "simulate", "--views", "90", "--cols", "128", "--size", "64",
                             "--output", out, NULL };
      int wait = 0;
      if (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &wait, NULL) &&
          g_spawn_check_wait_status (wait, NULL))
        dataset_path = g_build_filename (out, "geometry.json", NULL);
    }
  if (cli != NULL && tmp_dir != NULL)
    {
      g_autofree char *out = g_build_filename (tmp_dir, "sim-cone", NULL);
      const char *args[] = { cli, "simulate", "--geometry", "cone-flat", "--rows", "8", "--views", "60",
                             "--cols", "64", "--size", "32", "--i0", "0", "--output", out, NULL };
      int wait = 0;
      if (g_spawn_sync (NULL, (char **) args, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &wait, NULL) &&
          g_spawn_check_wait_status (wait, NULL))
        cone_path = g_build_filename (out, "geometry.json", NULL);
    }

  g_test_add_func ("/ui/session/load", test_load);
  g_test_add_func ("/ui/session/reconstruct", test_reconstruct);
  g_test_add_func ("/ui/session/cancel", test_cancel);
  g_test_add_func ("/ui/session/cancel-volume", test_cancel_volume);
  g_test_add_func ("/ui/session/cancel-planes", test_cancel_planes);
  g_test_add_func ("/ui/session/replace", test_replace);
  g_test_add_func ("/ui/session/spill-error", test_spill_error);
  g_test_add_func ("/ui/session/results", test_results);
  g_test_add_func ("/ui/session/plan", test_plan);
  g_test_add_func ("/ui/session/errors", test_errors);
  g_test_add_func ("/ui/session/geometry-out-of-memory", test_geometry_out_of_memory);
  g_test_add_func ("/ui/session/finalize", test_finalize);
  status = g_test_run ();

  if (tmp_dir != NULL)
    remove_tree (tmp_dir);
  g_free (tmp_dir);
  g_free (dataset_path);
  g_free (cone_path);
  return status;
}
