/* ctr-compare-page.c — the Compare page, a view of a CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The runs the user chose ("Runs" menu, ctr-compare-menu.c; by default the
 * three newest results of the open dataset) and the reference in a grid of
 * CtrSliceViews, then one difference image (run − run or run − reference, "Difference"
 * drop-downs; by default the two newest results, else the newest minus the
 * reference) on a window symmetric about 0.  Every run's tile names the run
 * and its RMSE and SSIM against the reference (the run's last report: the
 * solvers' protocol, inside the field of view, ctr-progress.h), in HU under
 * a Hounsfield preset; the difference tile its RMS.  A tile the user zooms
 * or pans moves the others ("view-changed"), the pointer read-out follows
 * the pointer on every tile at the same image point; window/level is linked
 * between the images but not the difference, whose values are centred on 0.
 * The tiles are rebuilt when the results or the choice change.
 */
#define G_LOG_DOMAIN "ctr-compare-page"

#include <math.h>

#include "ctr-compare-page-private.h"
#include "ctr-quality-text.h"
#include "ctr-hu-preset.h"
#include "ctr-slice-view.h"

G_DEFINE_FINAL_TYPE (CtrComparePage, ctr_compare_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_N_TILES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static guint place_signal;

void
_ctr_compare_page_place_changed (CtrComparePage *self)
{
  g_signal_emit (self, place_signal, 0);
}

#define DEFAULT_RUNS 3

static gboolean
is_difference (CtrSliceView *view)
{
  return g_object_get_data (G_OBJECT (view), "ctr-difference") != NULL;
}

static void
link_view (CtrSliceView *source, CtrComparePage *self)
{
  double zoom, px, py;

  if (self->linking)
    return;
  self->linking = TRUE;
  ctr_slice_view_get_zoom_pan (source, &zoom, &px, &py);
  for (guint i = 0; i < self->views->len; i++)
    if (g_ptr_array_index (self->views, i) != source)
      ctr_slice_view_set_zoom_pan (g_ptr_array_index (self->views, i), zoom, px, py);
  self->linking = FALSE;
}

static void
link_window (CtrSliceView *source, CtrComparePage *self)
{
  double lo, hi;

  if (self->linking || is_difference (source))
    return;
  self->linking = TRUE;
  ctr_slice_view_get_window (source, &lo, &hi);
  for (guint i = 0; i < self->views->len; i++)
    {
      CtrSliceView *v = g_ptr_array_index (self->views, i);
      if (v != source && !is_difference (v))
        ctr_slice_view_set_window (v, lo, hi);
    }
  self->linking = FALSE;
}

/* The pointer over one tile reads out the same image point on every tile
 * (the tiles have one size and linked zoom and pan). */
static void
link_pointer (CtrSliceView *source, GParamSpec *pspec, CtrComparePage *self)
{
  double x, y;
  gboolean inside;

  if (self->linking)
    return;
  self->linking = TRUE;
  inside = ctr_slice_view_get_pointer (source, &x, &y);
  for (guint i = 0; i < self->views->len; i++)
    if (g_ptr_array_index (self->views, i) != source)
      ctr_slice_view_point_at (g_ptr_array_index (self->views, i), inside ? x : -1e9, inside ? y : -1e9);
  self->linking = FALSE;
}

/* The window's μ_water (a dataset's water calibration, or the default). */
static double
mu_water (CtrComparePage *self)
{
  return self->roi_set != NULL ? ctr_roi_set_get_mu_water (self->roi_set, NULL) : CTR_MU_WATER_PER_MM;
}

/* "LABEL · RMSE 48.2 HU (9.26e-04 /mm) · SSIM 0.863 · field-of-view disc,
 * r 128.6 mm" from the run's last report against the reference
 * (ctr-quality-text.h: as the Run page and the Dose Study write it); the
 * label alone without one.  Transfer full. */
static char *
run_caption (CtrComparePage *self, CtrRun *run)
{
  const CtrVolume *result = ctr_run_get_result (run);

  for (guint i = ctr_run_get_n_stats (run); i-- > 0;)
    {
      const CtrIterStats *s = ctr_run_get_stats (run, i);
      g_autofree char *rmse = NULL;
      g_autofree char *mask = NULL;
      if (!s->has_reference || !isfinite (s->rmse))
        continue;
      rmse = ctr_quality_text_rmse (s->rmse, result ? result->unit : NULL, mu_water (self));
      mask = ctr_quality_text_mask (ctr_run_get_options (run)->metrics_radius_mm);
      return g_strdup_printf ("%s · RMSE %s · SSIM %.3f · %s", ctr_run_get_label (run), rmse, s->ssim, mask);
    }
  return g_strdup (ctr_run_get_label (run));
}

/* The difference tile's caption: its title and the RMS of the plane shown. */
static char *
difference_caption (CtrComparePage *self, CtrSliceView *view)
{
  CtrVolume *d = ctr_slice_view_get_image (view);
  const char *title = g_object_get_data (G_OBJECT (view), "ctr-title");
  gboolean hu = ctr_hu_preset_is_hu (self->preset) && g_strcmp0 (d->unit, "1/mm") == 0;
  CtrSlicePlane plane = { 0 };
  double sum = 0;
  gsize n = 0;

  /* out of memory for the plane: no RMS (the view says why it shows nothing) */
  if (!ctr_slice_plane_extract (&plane, d, ctr_slice_view_get_orientation (view), ctr_slice_view_get_slice (view),
                                NULL))
    return g_strdup (title);
  for (gsize i = 0; i < ctr_grid_slice_size (&plane.grid); i++)
    if (isfinite (plane.data[i]))
      {
        sum += (double) plane.data[i] * plane.data[i];
        n++;
      }
  ctr_slice_plane_clear (&plane);
  if (n == 0)
    return g_strdup (title);
  if (hu)
    return g_strdup_printf ("%s · RMS %.1f HU", title, 1000.0 * sqrt (sum / n) / mu_water (self));
  return g_strdup_printf ("%s · RMS %.3g %s", title, sqrt (sum / n), d->unit ? d->unit : "");
}

void
_ctr_compare_page_update_captions (CtrComparePage *self)
{
  for (guint i = 0; i < self->views->len; i++)
    {
      CtrSliceView *v = g_ptr_array_index (self->views, i);
      CtrRun *run = g_object_get_data (G_OBJECT (v), "ctr-run");
      g_autofree char *caption = NULL;

      if (is_difference (v))
        caption = difference_caption (self, v);
      else if (run != NULL)
        caption = run_caption (self, run);
      if (caption != NULL)
        ctr_slice_view_set_caption (v, caption);
    }
}

static CtrSliceView *
add_tile (CtrComparePage *self, CtrVolume *image, const char *caption, gboolean difference)
{
  CtrSliceView *view = CTR_SLICE_VIEW (ctr_slice_view_new ());
  guint i = self->views->len;

  gtk_widget_set_hexpand (GTK_WIDGET (view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (view), TRUE);
  /* a volume at the page's plane and position (ctr-compare-place.c) */
  if (image->grid.nz > 1)
    ctr_slice_view_set_orientation (view, self->plane);
  ctr_slice_view_set_image (view, image, _ctr_compare_place_slice (self, image));
  ctr_slice_view_set_caption (view, caption);
  ctr_slice_view_set_roi_set (view, self->roi_set);
  if (difference)
    g_object_set_data (G_OBJECT (view), "ctr-difference", GINT_TO_POINTER (1));
  g_signal_connect (view, "view-changed", G_CALLBACK (link_view), self);
  g_signal_connect (view, "window-changed", G_CALLBACK (link_window), self);
  g_signal_connect (view, "notify::pointer-info", G_CALLBACK (link_pointer), self);
  gtk_grid_attach (self->compare_grid, GTK_WIDGET (view), i % 3, i / 3, 1, 1);
  g_ptr_array_add (self->views, view);
  return view;
}

/* The preset on every image tile (their linked window); "auto" returns to
 * the shared automatic window.  The difference tile always reads in HU
 * differences (1000 Δμ / μ_water, no offset: a difference of 0 is 0 HU). */
static void
apply_preset (CtrComparePage *self)
{
  gboolean hu = ctr_hu_preset_is_hu (self->preset);
  CtrSliceView *first = NULL;

  for (guint i = 0; i < self->views->len; i++)
    {
      CtrSliceView *v = g_ptr_array_index (self->views, i);
      if (is_difference (v))
        ctr_slice_view_set_hu (v, CTR_SLICE_HU_DIFFERENCE);
      else if (hu)
        ctr_slice_view_apply_preset (v, self->preset);
      else if (first == NULL)
        first = v;
    }
  if (!hu && first != NULL)
    {
      /* the automatic window of one image, shared (link_window) */
      ctr_slice_view_apply_preset (first, "auto");
      link_window (first, self);
    }
  _ctr_compare_page_update_captions (self);
}

void
ctr_compare_page_set_preset (CtrComparePage *self, const char *name)
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));
  if (g_strcmp0 (self->preset, name) == 0)
    return;
  g_free (self->preset);
  self->preset = g_strdup (name);
  apply_preset (self);
}

/* a − b on the same grid: every slice when both have the same slices (the
 * tile then pages through it as the others do), else their middle slices;
 * NULL when the grids differ.
 * Pixel sizes equal to 1e-6 (relative) count as one: a reference's size
 * read from a file and the grid made from it may differ in the last
 * digits (0.13333299 against 0.133333 mm), far below a pixel across the
 * image. */
static CtrVolume *
difference_image (const CtrVolume *a, const CtrVolume *b)
{
  CtrGrid g;
  CtrVolume *d;
  const float *sa, *sb;

  if (a == NULL || b == NULL)
    return NULL;   /* an image on disk that could not be read back */
  if (a->grid.nx != b->grid.nx || a->grid.ny != b->grid.ny ||
      fabs (a->grid.dx - b->grid.dx) > 1e-6 * a->grid.dx ||
      fabs (a->grid.cx - b->grid.cx) > 1e-6 || fabs (a->grid.cy - b->grid.cy) > 1e-6)
    return NULL;
  g = a->grid;
  if (a->grid.nz != b->grid.nz || fabs (a->grid.dz - b->grid.dz) > 1e-6 * a->grid.dz ||
      fabs (a->grid.cz - b->grid.cz) > 1e-6)
    g.nz = 1;
  d = ctr_volume_new (&g, NULL);
  if (d == NULL)
    return NULL;
  sa = g.nz > 1 ? a->data : ctr_volume_slice (a, a->grid.nz / 2);
  sb = g.nz > 1 ? b->data : ctr_volume_slice (b, b->grid.nz / 2);
  for (gsize i = 0; i < ctr_grid_size (&g); i++)
    d->data[i] = sa[i] - sb[i];
  ctr_volume_set_unit (d, a->unit);
  return d;
}

/* The difference tile of @a − @b (@b NULL: − the reference).  Returns
 * FALSE when it cannot be drawn (no reference, other grids). */
static gboolean
add_difference (CtrComparePage *self, CtrRun *a, CtrRun *b, CtrVolume *ref)
{
  g_autoptr(CtrVolume) diff = NULL;
  g_autofree char *title = NULL;
  g_autofree char *caption = NULL;
  CtrSliceView *v;
  double m = 0;

  if (b != NULL)
    {
      diff = difference_image (ctr_run_get_result (a), ctr_run_get_result (b));
      title = g_strdup_printf ("difference: %s − %s", ctr_run_get_label (a), ctr_run_get_label (b));
    }
  else if (ref != NULL)
    {
      diff = difference_image (ctr_run_get_result (a), ref);
      title = g_strdup_printf ("difference: %s − reference", ctr_run_get_label (a));
    }
  if (diff == NULL)
    return FALSE;
  v = add_tile (self, diff, title, TRUE);
  g_object_set_data_full (G_OBJECT (v), "ctr-title", g_steal_pointer (&title), g_free);
  caption = difference_caption (self, v);
  ctr_slice_view_set_caption (v, caption);
  /* one symmetric window for every slice and plane */
  for (gsize i = 0; i < ctr_grid_size (&diff->grid); i++)
    if (isfinite (diff->data[i]))
      m = MAX (m, fabs (diff->data[i]));
  if (m > 0)
    ctr_slice_view_set_window (v, -m, m);
  ctr_slice_view_set_hu (v, CTR_SLICE_HU_DIFFERENCE);
  return TRUE;
}

CtrRun *
_ctr_compare_page_find_result (CtrComparePage *self, guint number)
{
  GListModel *results = self->session ? ctr_session_get_open_results (self->session) : NULL;

  for (guint i = 0; results != NULL && i < g_list_model_get_n_items (results); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      if (ctr_run_get_number (run) == number)
        return run;   /* the results list keeps it */
    }
  return NULL;
}

GArray *
_ctr_compare_page_shown_runs (CtrComparePage *self)
{
  GArray *shown = g_array_new (FALSE, FALSE, sizeof (guint));
  GListModel *results = self->session ? ctr_session_get_open_results (self->session) : NULL;
  guint n = results ? g_list_model_get_n_items (results) : 0;

  if (self->chosen == NULL)
    {
      /* the newest of the open dataset (runs of another one stay listed) */
      CtrDataset *d = self->session ? ctr_session_get_dataset (self->session) : NULL;
      for (guint i = n; i-- > 0 && shown->len < DEFAULT_RUNS;)
        {
          g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
          guint number = ctr_run_get_number (run);
          if (ctr_run_is_of (run, d) && !ctr_run_get_hidden (run))
            g_array_prepend_val (shown, number);
        }
    }
  else
    for (guint i = 0; i < self->chosen->len && shown->len < CTR_COMPARE_MAX_RUNS; i++)
      if (_ctr_compare_page_find_result (self, g_array_index (self->chosen, guint, i)) != NULL)
        g_array_append_val (shown, g_array_index (self->chosen, guint, i));
  return shown;
}

/* The difference asked for: (a, b) with b NULL for the reference; FALSE
 * for none. */
static gboolean
chosen_difference (CtrComparePage *self, CtrVolume *ref, CtrRun **a, CtrRun **b)
{
  GListModel *results = ctr_session_get_open_results (self->session);
  guint n = g_list_model_get_n_items (results);

  *a = *b = NULL;
  if (self->diff_a == G_MAXUINT)
    return FALSE;
  if (self->diff_a != 0)
    {
      *a = _ctr_compare_page_find_result (self, self->diff_a);
      *b = self->diff_b != 0 ? _ctr_compare_page_find_result (self, self->diff_b) : NULL;
      return *a != NULL && (self->diff_b == 0 ? ref != NULL : *b != NULL);
    }
  if (n == 0)
    return FALSE;
  /* automatic: the two newest results, else the newest minus the reference */
  {
    g_autoptr(CtrRun) newest = g_list_model_get_item (results, n - 1);
    g_autoptr(CtrRun) second = n >= 2 ? g_list_model_get_item (results, n - 2) : NULL;
    *a = newest;
    *b = second;
  }
  return *b != NULL || ref != NULL;
}

static void
refresh (CtrComparePage *self)
{
  CtrDataset *d = self->session ? ctr_session_get_dataset (self->session) : NULL;
  CtrVolume *ref = d ? d->reference : NULL;
  g_autoptr(GArray) shown = _ctr_compare_page_shown_runs (self);
  double lo = 0, hi = 0;
  gboolean have_window = FALSE, diff_drawn = TRUE;
  CtrRun *a, *b;
  GtkWidget *child;
  GString *text = g_string_new (NULL);

  /* forget the tiles first: a tile's last notifications (its read-out
   * cleared as it leaves) must not reach tiles already removed */
  g_ptr_array_set_size (self->views, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->compare_grid))) != NULL)
    gtk_grid_remove (self->compare_grid, child);
  if (self->session == NULL)
    {
      g_string_free (text, TRUE);
      return;
    }

  /* the chosen runs and the reference; the linked window starts as the
   * reference's automatic one (else the last run's) */
  for (guint i = 0; i < shown->len; i++)
    {
      CtrRun *run = _ctr_compare_page_find_result (self, g_array_index (shown, guint, i));
      g_autofree char *caption = NULL;
      CtrSliceView *v;

      if (ctr_run_get_result (run) == NULL)
        continue;   /* its image on disk could not be read back */
      caption = run_caption (self, run);
      v = add_tile (self, ctr_run_get_result (run), caption, FALSE);

      g_object_set_data_full (G_OBJECT (v), "ctr-run", g_object_ref (run), g_object_unref);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (ref != NULL && self->show_reference)
    {
      CtrSliceView *v = add_tile (self, ref, "reference", FALSE);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (have_window)
    for (guint i = 0; i < self->views->len; i++)
      ctr_slice_view_set_window (g_ptr_array_index (self->views, i), lo, hi);

  if (chosen_difference (self, ref, &a, &b))
    diff_drawn = add_difference (self, a, b, ref);
  if (ctr_hu_preset_is_hu (self->preset))
    apply_preset (self);

  if (g_list_model_get_n_items (ctr_session_get_open_results (self->session)) == 0)
    g_string_append (text, "Reconstruct to compare: each finished run appears here beside the reference.");
  else
    g_string_append (text, "Zoom (scroll), pan (Shift+drag), window/level (drag) and the read-out are linked.");
  if (!diff_drawn)
    g_string_append (text, " The difference needs images on one grid: not drawn.");
  gtk_label_set_label (self->compare_label, text->str);
  g_string_free (text, TRUE);
  _ctr_compare_menu_sync (self);
  _ctr_compare_place_sync (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_TILES]);
}

/* Another dataset: its runs, compared the default way. */
static void
on_dataset (CtrComparePage *self)
{
  g_clear_pointer (&self->chosen, g_array_unref);
  self->show_reference = TRUE;
  self->diff_a = self->diff_b = 0;
  refresh (self);
}

/* A renamed run: new captions, titles and menu entries. */
static void
on_results_changed (CtrComparePage *self, guint position, guint removed, guint added, GListModel *results)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      g_signal_connect_object (run, "notify::label", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (run, "notify::hidden", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
    }
  refresh (self);
}

void
ctr_compare_page_choose_runs (CtrComparePage *self, const guint *numbers, guint n, gboolean reference)
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));

  g_clear_pointer (&self->chosen, g_array_unref);
  if (numbers != NULL)
    {
      self->chosen = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_vals (self->chosen, numbers, MIN (n, CTR_COMPARE_MAX_RUNS));
    }
  self->show_reference = reference;
  refresh (self);
}

void
ctr_compare_page_choose_difference (CtrComparePage *self, guint a, guint b)
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));
  self->diff_a = a;
  self->diff_b = b;
  refresh (self);
}

/* A water calibration: the captions' HU change. */
static void
on_roi_set_changed (CtrComparePage *self)
{
  if (mu_water (self) != self->roi_mu_water)
    {
      self->roi_mu_water = mu_water (self);
      refresh (self);
    }
}

/* The window's ROIs (ctr-roi-set.h), shown on every tile made from now on. */
void
ctr_compare_page_set_roi_set (CtrComparePage *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));
  if (self->roi_set != NULL)
    g_signal_handlers_disconnect_by_data (self->roi_set, self);
  g_set_object (&self->roi_set, set);
  self->roi_mu_water = mu_water (self);
  if (set != NULL)
    g_signal_connect_swapped (set, "changed", G_CALLBACK (on_roi_set_changed), self);
  for (guint i = 0; self->views != NULL && i < self->views->len; i++)
    ctr_slice_view_set_roi_set (g_ptr_array_index (self->views, i), set);
}

void
ctr_compare_page_set_session (CtrComparePage *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));
  g_return_if_fail (session == NULL || CTR_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    {
      GListModel *results = ctr_session_get_open_results (self->session);
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (results, self);
      for (guint i = 0; i < g_list_model_get_n_items (results); i++)
        {
          g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
          g_signal_handlers_disconnect_by_data (run, self);
        }
      g_clear_object (&self->session);
    }
  g_clear_pointer (&self->chosen, g_array_unref);
  self->show_reference = TRUE;
  self->diff_a = self->diff_b = 0;
  if (session != NULL)
    {
      GListModel *results = ctr_session_get_open_results (session);
      self->session = g_object_ref (session);
      g_signal_connect_object (session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (results, "items-changed", G_CALLBACK (on_results_changed), self, G_CONNECT_SWAPPED);
      on_results_changed (self, 0, 0, g_list_model_get_n_items (results), results);
    }
  else
    refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

guint
ctr_compare_page_get_n_tiles (CtrComparePage *self)
{
  g_return_val_if_fail (CTR_IS_COMPARE_PAGE (self), 0);
  return self->views->len;
}

static void
ctr_compare_page_dispose (GObject *object)
{
  CtrComparePage *self = CTR_COMPARE_PAGE (object);

  ctr_compare_page_set_session (self, NULL);
  g_clear_pointer (&self->views, g_ptr_array_unref);
  g_clear_pointer (&self->preset, g_free);
  g_clear_pointer (&self->menu_key, g_free);
  g_clear_pointer (&self->a_numbers, g_array_unref);
  g_clear_pointer (&self->b_numbers, g_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_COMPARE_PAGE);
  ctr_compare_page_set_roi_set (self, NULL);
  G_OBJECT_CLASS (ctr_compare_page_parent_class)->dispose (object);
}

static void
ctr_compare_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtrComparePage *self = CTR_COMPARE_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_N_TILES:
      g_value_set_uint (value, self->views ? self->views->len : 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_compare_page_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CtrComparePage *self = CTR_COMPARE_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ctr_compare_page_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_compare_page_class_init (CtrComparePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_compare_page_dispose;
  object_class->get_property = ctr_compare_page_get_property;
  object_class->set_property = ctr_compare_page_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, CTR_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_TILES] =
    g_param_spec_uint ("n-tiles", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, content);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, compare_label);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, runs_button);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, diff_a_drop);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, diff_b_drop);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, compare_grid);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, place_bar);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, plane_drop);
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, slice_adj);
  /* The page's Plane or Slice control moved the place of volume tiles
   * (ctr_compare_page_get_place). */
  place_signal = g_signal_new ("place-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                               G_TYPE_NONE, 0);
}

static void
ctr_compare_page_init (CtrComparePage *self)
{
  self->views = g_ptr_array_new ();
  self->show_reference = TRUE;
  self->a_numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  self->b_numbers = g_array_new (FALSE, FALSE, sizeof (guint));
  gtk_widget_init_template (GTK_WIDGET (self));
  _ctr_compare_menu_init (self);
  _ctr_compare_place_init (self);
}
