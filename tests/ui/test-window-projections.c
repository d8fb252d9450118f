/* test-window-projections.c — /ui/window/projections: the Projections page
 * (ui/ctr-projection-page.c) on real data.
 *
 * savu-parallel-tiff ($CTR_UI_PROJECTIONS): the flat/dark check counts the
 * pixels whose flat is not above the dark as the raw TIFFs do; stepping
 * the view and the row shows exactly that view and that row's sinogram of
 * the loaded data; with no step on, after = before (difference 0); the
 * ring step switched on (its switch, as a user does) gives a non-zero
 * difference whose column means follow the stripes of the row (the column
 * mean less its running median) and equals the loader's pipeline on the
 * whole scan; the preview slice changes, and follows a detector offset
 * typed on the Geometry page: ui-projections.png.
 *
 * gel-fan ($CTR_UI_DATASET) with six stripes added, written by the test
 * with the core's dataset writer with "preprocess": [{"op": "rings"}]: the
 * window's data went through it, the page's "before" is the data as
 * written (read again without the pipeline), the form holds the file's
 * ring step, and the difference is the stripes, removed
 * (its column means at the stripe columns are minus the stripes within
 * 40 % each and 20 % on average — the sorting method leaves part of a
 * stripe that lies on a steep edge of the object — and small elsewhere):
 * ui-projections-fan.png.
 *
 * The preview's pipeline and FBP times are noted (measured, not asserted),
 * also on head-fan-lowdose ($CTR_UI_LOWDOSE, optional: 720 views × 736
 * columns).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "test-window.h"
#include "ctr-projection-page.h"
#include "ctr-projection-image.h"
#include "ctr-geometry-panel.h"

typedef struct {
  CtrProjectionPage *page;
  guint              count;
} Wait;

static gboolean
preview_done (gpointer data)
{
  Wait *w = data;
  return ctr_projection_page_get_previews (w->page, NULL, NULL, NULL, NULL) > w->count;
}

/* Waits for the next preview after the change just made. */
static void
wait_preview (Wait *w, const char *what)
{
  ui_wait (preview_done, w, 120, what);
  w->count = ctr_projection_page_get_previews (w->page, NULL, NULL, NULL, NULL);
}

static const float *
pane_data (CtrProjectionPage *page, const char *name, guint *width, guint *height)
{
  GtkWidget *pane = ui_find (GTK_WIDGET (page), CTR_TYPE_PROJECTION_IMAGE, name);

  g_assert_nonnull (pane);
  return ctr_projection_image_peek (CTR_PROJECTION_IMAGE (pane), width, height);
}

/* Column means of [n_views][n_cols]. */
static double *
column_means (const float *s, guint n_views, guint n_cols)
{
  double *m = g_new0 (double, n_cols);

  for (guint v = 0; v < n_views; v++)
    for (guint c = 0; c < n_cols; c++)
      m[c] += s[(gsize) v * n_cols + c] / n_views;
  return m;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* @m less its running median over @width columns: the stripes. */
static double *
stripes_of (const double *m, guint n, guint width)
{
  double *s = g_new0 (double, n);
  double *win = g_new (double, width);

  for (guint c = 0; c < n; c++)
    {
      guint k = 0;
      for (int j = (int) c - (int) width / 2; j <= (int) c + (int) width / 2; j++)
        win[k++] = m[CLAMP (j, 0, (int) n - 1)];
      qsort (win, k, sizeof (double), cmp_double);
      s[c] = m[c] - win[k / 2];
    }
  g_free (win);
  return s;
}

static double
correlation (const double *a, const double *b, guint n)
{
  double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

  for (guint i = 0; i < n; i++)
    {
      ma += a[i] / n;
      mb += b[i] / n;
    }
  for (guint i = 0; i < n; i++)
    {
      sab += (a[i] - ma) * (b[i] - mb);
      saa += (a[i] - ma) * (a[i] - ma);
      sbb += (b[i] - mb) * (b[i] - mb);
    }
  return saa > 0 && sbb > 0 ? sab / sqrt (saa * sbb) : 0;
}

static double
max_abs (const float *x, gsize n)
{
  double m = 0;
  for (gsize i = 0; i < n; i++)
    m = MAX (m, fabs (x[i]));
  return m;
}

static CtrProjectionPage *
open_page (CtrWindow *window, const char *path, Wait *w)
{
  AdwViewStack *stack;

  w->page = CTR_PROJECTION_PAGE (ui_find (GTK_WIDGET (window), CTR_TYPE_PROJECTION_PAGE, NULL));
  g_assert_nonnull (w->page);
  w->count = ctr_projection_page_get_previews (w->page, NULL, NULL, NULL, NULL);
  if (!ui_open_and_wait (window, path, 120))
    return NULL;
  if (!gtk_widget_get_mapped (GTK_WIDGET (w->page)))
    {
      ui_spin (300);
      CHECK (ctr_projection_page_get_previews (w->page, NULL, NULL, NULL, NULL) == w->count,
             "no preview is made while the page is hidden");
    }
  stack = ADW_VIEW_STACK (ui_find (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK, NULL));
  adw_view_stack_set_visible_child_name (stack, "projections");
  wait_preview (w, "the first preview");
  return w->page;
}

/* The pixels of the raw flat and dark TIFFs with flat ≤ dark. */
static gsize
raw_dead_pixels (const char *folder, gsize *n)
{
  g_autofree char *flat_path = g_build_filename (folder, "flat_00001.tiff", NULL);
  g_autofree char *dark_path = g_build_filename (folder, "dark_00001.tiff", NULL);
  CtrTiffInfo info;
  g_autofree float *flat = ctr_tiff_read (flat_path, &info, NULL);
  g_autofree float *dark = ctr_tiff_read (dark_path, NULL, NULL);
  gsize dead = 0;

  g_assert_nonnull (flat);
  g_assert_nonnull (dark);
  *n = (gsize) info.width * info.height;
  for (gsize i = 0; i < *n; i++)
    dead += flat[i] <= dark[i];
  return dead;
}

static void
switch_step (CtrProjectionPage *page, const char *name, gboolean on)
{
  GtkWidget *row = ui_find (GTK_WIDGET (page), ADW_TYPE_EXPANDER_ROW, name);

  if (row == NULL && on)   /* not in the list: Add Step */
    row = ctr_pipeline_form_add_step (ctr_projection_page_get_form (page), name);
  g_assert_nonnull (row);
  adw_expander_row_set_enable_expansion (ADW_EXPANDER_ROW (row), on);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), on);
}

static void
note_times (CtrProjectionPage *page, const char *what)
{
  double pipeline_s, fbp_s, cpu_s;
  guint row;

  ctr_projection_page_get_previews (page, &pipeline_s, &fbp_s, &cpu_s, &row);
  ui_note ("preview of %s row %u: pipeline %.1f ms, FBP %.1f ms (wall); CPU %.1f ms", what, row, pipeline_s * 1e3,
           fbp_s * 1e3, cpu_s * 1e3);
}

/* The ring step switched on (its switch, as a user does), its preview
 * waited for and timed; the difference pane. */
static const float *
rings_on (Wait *w, const char *what, guint *width, guint *height)
{
  g_autofree char *label = g_strdup_printf ("%s (rings, sorting 21)", what);

  switch_step (w->page, "rings", TRUE);
  wait_preview (w, "the preview with ring removal");
  note_times (w->page, label);
  return pane_data (w->page, "difference", width, height);
}

static void
savu_case (CtrWindow *window, const char *folder)
{
  Wait w = { 0 };
  CtrProjectionPage *page = open_page (window, folder, &w);
  CtrDataset *d = ctr_session_get_dataset (ctr_window_get_session (window));
  const CtrProjections *p = d->projections;
  GtkWidget *label = ui_find (GTK_WIDGET (page), GTK_TYPE_LABEL, "flat-dark");
  gsize n = 0, dead = raw_dead_pixels (folder, &n);
  g_autofree char *expect = g_strdup_printf ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " pixels", dead, n);
  g_autofree float *sino = NULL;
  g_autofree float *slice0 = NULL;
  const float *img, *diff;
  guint width, height, sw, sh;

  CHECK (strstr (gtk_label_get_text (GTK_LABEL (label)), expect) != NULL,
         "flat/dark check: %s (raw TIFFs: %s with flat ≤ dark)", gtk_label_get_text (GTK_LABEL (label)), expect);

  /* step the view and the row */
  ctr_projection_page_show (page, 45, 30);
  wait_preview (&w, "the preview of row 30");
  img = pane_data (page, "projection", &width, &height);
  CHECK (img != NULL && width == p->n_cols && height == p->n_rows &&
           memcmp (img, ctr_projections_view (p, 45), sizeof (float) * width * height) == 0,
         "the projection pane is view 45 of the data (%u × %u)", width, height);
  sino = ctr_projections_sinogram (p, 30, NULL);
  img = pane_data (page, "sinogram-before", &width, &height);
  CHECK (img != NULL && width == p->n_cols && height == p->n_views &&
           memcmp (img, sino, sizeof (float) * width * height) == 0,
         "the sinogram pane is row 30 of the data (%u views × %u columns)", height, width);
  diff = pane_data (page, "difference", &width, &height);
  CHECK (diff != NULL && max_abs (diff, (gsize) width * height) == 0, "no step on: the difference is 0");
  ctr_projection_page_show (page, 10, 67);
  wait_preview (&w, "the preview of row 67");
  g_free (sino);
  sino = ctr_projections_sinogram (p, 67, NULL);
  img = pane_data (page, "sinogram-before", &width, &height);
  CHECK (img != NULL && memcmp (img, sino, sizeof (float) * width * height) == 0, "row 67's sinogram shown");
  img = pane_data (page, "slice-after", &sw, &sh);
  CHECK (img != NULL && sw > 64 && sw == sh, "a preview slice of %u × %u pixels", sw, sh);
  slice0 = g_memdup2 (img, sizeof (float) * sw * sh);
  note_times (page, "savu-parallel-tiff (no step)");

  diff = rings_on (&w, "savu-parallel-tiff", &width, &height);
  {
    g_autofree double *mean_before = column_means (sino, height, width);
    g_autofree double *stripes = stripes_of (mean_before, width, 21);
    g_autofree double *mean_diff = column_means (diff, height, width);
    double r;

    for (guint c = 0; c < width; c++)
      stripes[c] = -stripes[c];
    r = correlation (mean_diff, stripes, width);
    CHECK (max_abs (diff, (gsize) width * height) > 0, "rings on: the difference is not 0 (max |Δ| %.3g)",
           max_abs (diff, (gsize) width * height));
    CHECK (r > 0.5, "the difference's column means follow the row's stripes (correlation with −stripes %.3f)", r);
  }
  {
    /* the page's "after" is the loader's pipeline on the whole scan, row 67 */
    g_autoptr (GError) error = NULL;
    g_autoptr (CtrPipeline) pl = ctr_pipeline_form_build (ctr_projection_page_get_form (page), &error);
    g_autoptr (CtrDataset) whole = pl ? ctr_dataset_load_preprocessed (folder, NULL, pl, NULL, &error) : NULL;
    g_autofree float *row = whole ? ctr_projections_sinogram (whole->projections, 67, NULL) : NULL;
    const float *after = pane_data (page, "sinogram-after", &width, &height);
    double worst = 0;

    g_assert_no_error (error);
    for (gsize i = 0; row != NULL && i < (gsize) width * height; i++)
      worst = MAX (worst, fabs (after[i] - row[i]));
    CHECK (row != NULL && pl->n_steps == 1 && worst <= 1e-6,
           "the after pane is row 67 of the scan loaded with the same pipeline (max |Δ| %.2g)", worst);
  }
  img = pane_data (page, "slice-after", &sw, &sh);
  {
    double change = 0, range = max_abs (slice0, (gsize) sw * sh);
    for (gsize i = 0; i < (gsize) sw * sh; i++)
      change = MAX (change, fabs (img[i] - slice0[i]));
    CHECK (change > 1e-3 * range, "the preview slice changes with the ring step (max |Δ| %.3g of %.3g)", change, range);
  }
  {
    /* the centre of rotation typed on the Geometry page: the slices follow */
    CtrGeometryPanel *gp = ui_child (window, CTR_TYPE_WINDOW, "geometry_panel");
    g_autofree float *before = NULL;
    guint bw, bh;
    double change = 0;

    img = pane_data (page, "slice-before", &bw, &bh);
    before = g_memdup2 (img, sizeof (float) * bw * bh);
    ctr_geometry_panel_set_text (gp, "offset-u", "-2.35");
    wait_preview (&w, "the preview with the edited offset");
    img = pane_data (page, "slice-before", &sw, &sh);
    for (gsize i = 0; sw == bw && sh == bh && i < (gsize) sw * sh; i++)
      change = MAX (change, fabs (img[i] - before[i]));
    CHECK (sw != bw || sh != bh || change > 0.1 * max_abs (before, (gsize) sw * sh),
           "a detector offset typed on the Geometry page makes the preview slice again (%u × %u → %u × %u, "
           "max |Δ| %.3g)", bw, bh, sw, sh, change);
    ctr_geometry_panel_set_text (gp, "offset-u", "-6.35");
    wait_preview (&w, "the preview with the file's offset again");
    img = pane_data (page, "slice-before", &sw, &sh);
    CHECK (sw == bw && sh == bh && memcmp (img, before, sizeof (float) * sw * sh) == 0,
           "the file's offset typed back: the same slice");
  }
  ctr_projection_page_show (page, 45, 67);
  ui_screenshot (GTK_WIDGET (window), "ui-projections.png");
}

/* gel-fan with stripes added at @cols (amplitude @amp each), as a dataset
 * in @dir whose geometry.json declares the ring step
 * ("preprocess": [{"op": "rings"}]).  Returns: (transfer full) (nullable):
 * the striped line integrals written. */
static CtrProjections *
write_striped (const char *fan, const char *dir, const guint *cols, const double *amp, guint n_stripes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (fan, NULL, NULL, &error);
  g_autoptr (JsonObject) extra = json_object_new ();
  JsonArray *steps = json_array_new ();
  JsonObject *rings = json_object_new ();

  g_assert_no_error (error);
  for (guint v = 0; v < d->projections->n_views; v++)
    for (guint k = 0; k < n_stripes; k++)
      ctr_projections_view (d->projections, v)[cols[k]] += amp[k];
  json_object_set_string_member (rings, "op", "rings");
  json_array_add_object_element (steps, rings);
  json_object_set_array_member (extra, "preprocess", steps);
  if (!ctr_dataset_write (dir, "gel-fan-striped", d->geometry, d->projections, NULL, NULL, extra, &error))
    {
      ui_note ("could not write the striped dataset: %s", error->message);
      return NULL;
    }
  return ctr_projections_ref (d->projections);
}

static void
fan_case (CtrWindow *window, const char *fan)
{
  static const guint cols[] = { 60, 95, 130, 160, 190, 225 };
  static const double amp[] = { 0.05, -0.04, 0.06, 0.03, -0.05, 0.04 };
  g_autofree char *tmp = g_dir_make_tmp ("ctrecon-striped-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmp, "gel-fan-striped", NULL);
  g_autofree char *path = g_build_filename (dir, "geometry.json", NULL);
  Wait w = { 0 };
  CtrProjectionPage *page;
  g_autoptr (CtrProjections) striped = NULL;
  const CtrProjections *loaded;
  const float *diff, *before;
  GtkWidget *rings;
  guint width, height;

  g_assert_nonnull (tmp);
  striped = write_striped (fan, dir, cols, amp, G_N_ELEMENTS (cols));
  if (striped == NULL)
    {
      CHECK (FALSE, "the striped gel-fan written");
      return;
    }
  page = open_page (window, path, &w);
  g_assert_nonnull (page);
  note_times (page, "gel-fan (the file's rings step)");
  /* the file's pipeline: the session's data went through it; the page
   * reads them again without it, and its form holds the file's step */
  loaded = ctr_session_get_dataset (ctr_window_get_session (window))->projections;
  before = pane_data (page, "sinogram-before", &width, &height);
  rings = ui_find (GTK_WIDGET (page), ADW_TYPE_EXPANDER_ROW, "rings");
  CHECK (adw_expander_row_get_enable_expansion (ADW_EXPANDER_ROW (rings)), "the form holds the file's ring step");
  CHECK (memcmp (loaded->data, striped->data, sizeof (float) * width * height) != 0,
         "the window's data went through the file's ring step");
  CHECK (before != NULL && width == striped->n_cols && height == striped->n_views &&
           memcmp (before, striped->data, sizeof (float) * width * height) == 0,
         "the before pane is the data as written, without the file's pipeline");
  diff = pane_data (page, "difference", &width, &height);
  {
    g_autofree double *m = column_means (diff, height, width);
    double worst = 0, elsewhere = 0, mean_residual = 0;
    guint n_else = 0;

    for (guint k = 0; k < G_N_ELEMENTS (cols); k++)
      {
        ui_note ("stripe at column %u (%+.3f): column mean of the difference %+.4f (neighbours %+.4f, %+.4f)",
                 cols[k], amp[k], m[cols[k]], m[cols[k] - 1], m[cols[k] + 1]);
        worst = MAX (worst, fabs (m[cols[k]] + amp[k]) / fabs (amp[k]));
        mean_residual += fabs (m[cols[k]] + amp[k]) / fabs (amp[k]);
      }
    for (guint c = 0; c < width; c++)
      {
        gboolean near = FALSE;
        for (guint k = 0; k < G_N_ELEMENTS (cols); k++)
          near |= (guint) ABS ((int) c - (int) cols[k]) <= 1;
        if (!near)
          {
            elsewhere += fabs (m[c]);
            n_else++;
          }
      }
    elsewhere /= MAX (n_else, 1u);
    mean_residual /= G_N_ELEMENTS (cols);
    CHECK (worst < 0.4, "each stripe removed: column mean of the difference = −stripe within %.0f %%", worst * 100);
    CHECK (mean_residual < 0.2, "the stripes' mean residual %.0f %% of the stripe", mean_residual * 100);
    CHECK (elsewhere < 0.003, "away from the stripes the difference is small (mean |column mean| %.2g, stripes ≥ 0.03)",
           elsewhere);
  }
  ui_screenshot (GTK_WIDGET (window), "ui-projections-fan.png");
  {
    GDir *files = g_dir_open (dir, 0, NULL);
    const char *name;

    while (files != NULL && (name = g_dir_read_name (files)) != NULL)
      {
        g_autofree char *file = g_build_filename (dir, name, NULL);
        g_unlink (file);
      }
    if (files != NULL)
      g_dir_close (files);
    g_rmdir (dir);
    g_rmdir (tmp);
  }
}

/* The preview's times on a large scan (720 views × 736 columns), noted. */
static void
big_case (CtrWindow *window, const char *path)
{
  Wait w = { 0 };
  CtrProjectionPage *page = open_page (window, path, &w);
  guint width, height;

  g_assert_nonnull (page);
  note_times (page, "head-fan-lowdose (no step)");
  rings_on (&w, "head-fan-lowdose", &width, &height);
  switch_step (page, "outliers", TRUE);
  wait_preview (&w, "the preview with outliers and rings");
  note_times (page, "head-fan-lowdose (outliers and rings)");
}

void
test_window_projections (void)
{
  const char *savu = g_getenv ("CTR_UI_PROJECTIONS");
  const char *fan = g_getenv ("CTR_UI_DATASET");
  const char *big = g_getenv ("CTR_UI_LOWDOSE");
  CtrWindow *window;

  if (savu == NULL || !g_file_test (savu, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no savu-parallel-tiff ($CTR_UI_PROJECTIONS)");
      return;
    }
  window = ui_new_window ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 860);
  savu_case (window, savu);
  if (fan != NULL && g_file_test (fan, G_FILE_TEST_IS_REGULAR))
    fan_case (window, fan);
  else
    ui_note ("no fan-beam dataset ($CTR_UI_DATASET): the striped case skipped");
  if (big != NULL && g_file_test (big, G_FILE_TEST_IS_REGULAR))
    big_case (window, big);
  ui_close_window (window);
}
