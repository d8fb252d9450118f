/* ctr-run-page.c — the Run page, a view of a CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sidebar: the dataset's summary and sinogram preview, the method form
 * (CtrMethodPanel, generated from core/recon/ctr-params), the progress and the
 * latest iteration's numbers.  Beside it the live image (the reference
 * until a run reports, then each reported iterate, then the result) with
 * its toolbar (plane of a volume, slice, window presets): a volume shows in
 * three views linked by a crosshair and one window (ctr-view-trio.h), the
 * chosen plane large, the other two beneath it; and the convergence
 * plot of every run of the session.  Everything shown follows the
 * session's properties; the page starts nothing itself.
 */
#define G_LOG_DOMAIN "ctr-run-page"

#include <math.h>
#include <string.h>

#include "ctr-run-page.h"
#include "ctr-quality-text.h"
#include "ctr-hu-preset.h"
#include "ctr-run-list.h"
#include "ctr-metrics-plot.h"
#include "ctr-roi-panel.h"
#include "ctr-slice-view.h"
#include "ctr-variant-row.h"
#include "ctr-view-trio.h"

struct _CtrRunPage
{
  GtkWidget       parent_instance;

  CtrSession     *session;
  GBinding       *bindings[3];
  guint           pulse_id;
  gboolean        setting_preset;   /* on_preset is changing the window */

  /* template children */
  GtkWidget      *content;
  AdwActionRow   *dataset_row;
  GtkPicture     *sinogram_picture;
  CtrMethodPanel *method_panel;
  GtkProgressBar *progress_bar;
  GtkLabel       *status_label;
  GtkLabel       *notes_label;
  GtkLabel       *latest_label;
  GtkLabel       *residual_label;
  GtkLabel       *rmse_label;
  GtkLabel       *psnr_label;
  GtkLabel       *ssim_label;
  GtkLabel       *elapsed_label;
  CtrSliceView   *slice_view;
  CtrSliceView   *side_view_a;
  CtrSliceView   *side_view_b;
  CtrViewTrio     trio;            /* the three views of a volume */
  gboolean        place_sent;      /* "place-changed" was emitted for ... */
  CtrSliceOrientation sent_plane;  /* ... this plane */
  double          sent_mm[3];      /* ... and this crosshair (x, y, z mm) */
  GtkDropDown    *orientation_dropdown;
  GtkDropDown    *preset_dropdown;
  GtkAdjustment  *slice_adjustment;
  CtrMetricsPlot *metrics_plot;
  GtkPaned       *content_paned;
  GtkWidget      *runs_group;
  AdwComboRow    *variant_row;
  GtkCustomFilter *plot_filter;    /* the runs of the open dataset (any variant) */
  GtkFilterListModel *plot_runs;   /* what the convergence plots show */
  GtkListBox     *runs_list;
  CtrRoiPanel    *roi_panel;

  /* the geometry edited on the Geometry page (ctr_run_page_set_geometry):
   * the one a run uses, so the summary describes it */
  gboolean        edit_known;      /* set_geometry was called for this dataset */
  CtrGeometry    *edited;          /* NULL while a field is invalid */
  char           *edit_error;      /* why no copy of it could be kept (out of memory), or NULL */
  int             method_beam;     /* the beam the method panel was given (-1: none) */
  gboolean        method_helical;
};

G_DEFINE_FINAL_TYPE (CtrRunPage, ctr_run_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_PRESET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_PLACE_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static void
toast (CtrRunPage *self, const char *message)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  AdwToast *t;

  if (overlay == NULL)
    return;
  t = adw_toast_new (message);
  adw_toast_set_timeout (t, 6);
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), t);
}

/* ---- progress -------------------------------------------------------------- */

static gboolean
pulse_cb (gpointer data)
{
  gtk_progress_bar_pulse (GTK_PROGRESS_BAR (data));
  return G_SOURCE_CONTINUE;
}

/* A fraction below 0 means "cannot tell": the bar pulses. */
static void
on_fraction (CtrRunPage *self)
{
  double f = ctr_session_get_fraction (self->session);

  if (f < 0)
    {
      if (self->pulse_id == 0)
        {
          gtk_progress_bar_set_pulse_step (self->progress_bar, 0.08);
          self->pulse_id = g_timeout_add (120, pulse_cb, self->progress_bar);
        }
      return;
    }
  g_clear_handle_id (&self->pulse_id, g_source_remove);
  gtk_progress_bar_set_fraction (self->progress_bar, f);
}

static void
set_number (GtkLabel *label, const char *format, double value)
{
  if (isfinite (value))
    {
      g_autofree char *text = g_strdup_printf (format, value);
      gtk_label_set_label (label, text);
    }
  else
    gtk_label_set_label (label, "–");
}

/* The metrics' mask of the newest run (its options; the session sets the
 * field-of-view disc), 0 without a run. */
static double
metrics_radius (CtrRunPage *self)
{
  GListModel *runs = self->session ? ctr_session_get_runs (self->session) : NULL;
  guint n = runs ? g_list_model_get_n_items (runs) : 0;
  g_autoptr(CtrRun) run = n > 0 ? g_list_model_get_item (runs, n - 1) : NULL;

  return run != NULL ? ctr_run_get_options (run)->metrics_radius_mm : 0;
}

/* The RMSE as every page writes it (ctr-quality-text.h). */
static char *
rmse_text (CtrRunPage *self, const CtrIterStats *stats)
{
  return ctr_quality_text_rmse (stats->has_reference ? stats->rmse : NAN,
                                self->session ? ctr_session_get_image_unit (self->session) : NULL,
                                ctr_slice_view_get_mu_water (self->slice_view));
}

/* The pinned one-line summary under the progress bar: "it 8 / 8 ·
 * residual 0.012 · RMSE 0.0011 · SSIM 0.93 · 3.2 s" (what was reported). */
static void
show_latest (CtrRunPage *self, const CtrIterStats *stats)
{
  g_autoptr(GString) s = NULL;

  if (stats == NULL)
    {
      gtk_label_set_label (self->latest_label, "");
      return;
    }
  s = g_string_new (NULL);
  if (ctr_method_is_iterative (stats->method))
    g_string_append_printf (s, "it %u / %u", stats->iteration, MAX (stats->n_iterations, 1));
  else
    g_string_append (s, ctr_method_label (stats->method));
  if (isfinite (stats->residual))
    g_string_append_printf (s, " · residual %.3g%s", stats->residual,
                            ctr_iter_stats_below_noise (stats) ? " (below the noise level: fitting noise)" : "");
  if (stats->has_reference && isfinite (stats->rmse))
    {
      g_autofree char *rmse = rmse_text (self, stats);
      g_autofree char *mask = ctr_quality_text_mask (metrics_radius (self));
      g_string_append_printf (s, " · RMSE %s · SSIM %.3f (%s)", rmse, stats->ssim, mask);
    }
  g_string_append_printf (s, " · %.1f s", stats->elapsed_s);
  gtk_label_set_label (self->latest_label, s->str);
}

/* The convergence column only when it has something to show (a reference,
 * or a residual some run reported): otherwise the image takes the space. */
static void
update_plot_column (CtrRunPage *self)
{
  CtrDataset *d = self->session ? ctr_session_get_dataset (self->session) : NULL;
  GListModel *runs = self->session ? ctr_session_get_runs (self->session) : NULL;
  gboolean any = d != NULL && d->reference != NULL;

  for (guint r = 0; runs != NULL && !any && r < g_list_model_get_n_items (runs); r++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, r);
      for (guint i = 0; !any && i < ctr_run_get_n_stats (run); i++)
        any = isfinite (ctr_run_get_stats (run, i)->residual);
    }
  if (gtk_widget_get_visible (gtk_paned_get_end_child (self->content_paned)) != any)
    gtk_widget_set_visible (gtk_paned_get_end_child (self->content_paned), any);
}

static void sync_slice_toolbar (CtrRunPage *self);

/* The newest report: its numbers, and its slice when it carries one. */
static void
on_stats (CtrRunPage *self)
{
  const CtrIterStats *stats = ctr_session_get_latest_stats (self->session);
  guint n, k;

  show_latest (self, stats);
  update_plot_column (self);
  if (stats == NULL)
    {
      set_number (self->residual_label, NULL, NAN);
      set_number (self->rmse_label, NULL, NAN);
      set_number (self->psnr_label, NULL, NAN);
      set_number (self->ssim_label, NULL, NAN);
      set_number (self->elapsed_label, NULL, NAN);
      return;
    }
  set_number (self->residual_label, "%.4g", stats->residual);
  {
    g_autofree char *rmse = rmse_text (self, stats);
    g_autofree char *mask = ctr_quality_text_mask (metrics_radius (self));
    g_autofree char *subtitle = g_strdup_printf ("vs reference, %s", mask);
    GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (self->rmse_label), ADW_TYPE_ACTION_ROW);
    gtk_label_set_label (self->rmse_label, rmse);
    if (row != NULL)
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), stats->has_reference ? subtitle : "");
    row = gtk_widget_get_ancestor (GTK_WIDGET (self->ssim_label), ADW_TYPE_ACTION_ROW);
    if (row != NULL)
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), stats->has_reference ? subtitle : "");
  }
  set_number (self->psnr_label, "%.2f dB", stats->has_reference ? stats->psnr : NAN);
  set_number (self->ssim_label, "%.4f", stats->has_reference ? stats->ssim : NAN);
  set_number (self->elapsed_label, "%.2f s", stats->elapsed_s);

  if (stats->image == NULL)
    return;
  n = MAX (stats->n_iterations, 1);
  k = MIN (stats->iteration, n);
  {
    g_autofree char *caption = g_strdup_printf ("%s · iteration %u / %u", ctr_method_name (stats->method), k, n);
    g_autofree char *upper = g_ascii_strup (caption, -1);

    /* the whole current iterate: every view keeps its plane and slice */
    ctr_view_trio_set_image (&self->trio, (CtrVolume *) stats->image);
    ctr_slice_view_set_caption (self->slice_view, upper);
  }
  /* the first live volume (no reference shown before it) starts at its
   * centre: the Slice field says so */
  sync_slice_toolbar (self);
}

/* ---- the place shown: plane and crosshair (Compare and Profile follow) --- */

gboolean
ctr_run_page_get_place (CtrRunPage *self, CtrSliceOrientation *plane, double mm[3])
{
  const CtrVolume *v;

  g_return_val_if_fail (CTR_IS_RUN_PAGE (self), FALSE);
  v = self->trio.image;
  if (v == NULL || v->grid.nz <= 1)
    return FALSE;
  *plane = self->trio.plane;
  mm[0] = ctr_grid_x (&v->grid, self->trio.cross[0]);
  mm[1] = ctr_grid_y (&v->grid, self->trio.cross[1]);
  mm[2] = ctr_grid_z (&v->grid, self->trio.cross[2]);
  return TRUE;
}

void
ctr_run_page_get_voxel (CtrRunPage *self, const CtrGrid *grid, guint voxel[3])
{
  const CtrVolume *v;

  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  v = self->trio.image;
  voxel[0] = grid->nx / 2;
  voxel[1] = grid->ny / 2;
  voxel[2] = grid->nz / 2;
  if (v != NULL && v->grid.nx == grid->nx && v->grid.ny == grid->ny && v->grid.nz == grid->nz)
    memcpy (voxel, self->trio.cross, 3 * sizeof (guint));
}

/* "place-changed" when the plane or the crosshair moved since the last. */
static void
emit_place (CtrRunPage *self)
{
  CtrSliceOrientation plane;
  double mm[3];

  if (!ctr_run_page_get_place (self, &plane, mm) ||
      (self->place_sent && plane == self->sent_plane && memcmp (mm, self->sent_mm, sizeof mm) == 0))
    return;
  self->place_sent = TRUE;
  self->sent_plane = plane;
  memcpy (self->sent_mm, mm, sizeof mm);
  g_signal_emit (self, signals[SIGNAL_PLACE_CHANGED], 0);
}

/* ---- slice toolbar: orientation, slice, window presets ------------------ */

static void
sync_slice_toolbar (CtrRunPage *self)
{
  CtrVolume *v = ctr_slice_view_get_image (self->slice_view);
  gboolean volume = v != NULL && v->grid.nz > 1;
  guint n = ctr_slice_view_get_n_slices (self->slice_view);

  gtk_widget_set_sensitive (GTK_WIDGET (self->orientation_dropdown), volume);
  gtk_adjustment_configure (self->slice_adjustment, ctr_slice_view_get_slice (self->slice_view) + 1,
                            1, MAX (n, 1), 1, 10, 0);
}

void
ctr_run_page_step_slice (CtrRunPage *self, int delta)
{
  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  /* the adjustment keeps the value inside [1, slices]; value-changed moves the view */
  gtk_adjustment_set_value (self->slice_adjustment, gtk_adjustment_get_value (self->slice_adjustment) + delta);
}

void
ctr_run_page_zoom_fit (CtrRunPage *self)
{
  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  ctr_slice_view_set_zoom_pan (self->slice_view, 1.0, 0.0, 0.0);
  ctr_slice_view_set_zoom_pan (self->side_view_a, 1.0, 0.0, 0.0);
  ctr_slice_view_set_zoom_pan (self->side_view_b, 1.0, 0.0, 0.0);
}

static void
on_orientation (CtrRunPage *self)
{
  ctr_view_trio_set_plane (&self->trio, gtk_drop_down_get_selected (self->orientation_dropdown));
  sync_slice_toolbar (self);
  emit_place (self);
}

static void
on_slice_changed (CtrRunPage *self)
{
  guint slice = (guint) gtk_adjustment_get_value (self->slice_adjustment) - 1;
  if (slice != ctr_slice_view_get_slice (self->slice_view))
    ctr_view_trio_set_slice (&self->trio, slice);
  emit_place (self);
}

/* A click moved the crosshair: the main view's slice may have changed. */
static void
on_cross_moved (gpointer data)
{
  sync_slice_toolbar (data);
  emit_place (data);
}

void
ctr_run_page_set_place (CtrRunPage *self, CtrSliceOrientation plane, const double mm[3])
{
  const CtrVolume *v;
  guint voxel[3];

  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  v = self->trio.image;
  if (v == NULL || v->grid.nz <= 1)
    return;
  voxel[0] = ctr_slice_plane_index_at (&v->grid, CTR_SLICE_SAGITTAL, mm[0]);
  voxel[1] = ctr_slice_plane_index_at (&v->grid, CTR_SLICE_CORONAL, mm[1]);
  voxel[2] = ctr_slice_plane_index_at (&v->grid, CTR_SLICE_AXIAL, mm[2]);
  ctr_view_trio_set_cross (&self->trio, voxel);
  if (gtk_drop_down_get_selected (self->orientation_dropdown) != plane)
    gtk_drop_down_set_selected (self->orientation_dropdown, plane);   /* on_orientation */
  sync_slice_toolbar (self);
  emit_place (self);
}

static void
on_preset (CtrRunPage *self)
{
  const char *name = ctr_run_page_get_preset (self);
  gboolean ok;

  self->setting_preset = TRUE;
  ok = ctr_slice_view_apply_preset (self->slice_view, name);
  ctr_view_trio_sync_window (&self->trio);
  self->setting_preset = FALSE;
  if (!ok)
    {
      CtrVolume *v = ctr_slice_view_get_image (self->slice_view);
      g_autofree char *why = v != NULL && v->unit != NULL && strstr (v->unit, "pixel") != NULL
        ? g_strdup ("Hounsfield presets need an image in 1/mm; this dataset’s pixel size is unknown")
        : g_strdup ("Hounsfield presets need an image in 1/mm");
      toast (self, why);
      gtk_drop_down_set_selected (self->preset_dropdown, 0);
      ctr_roi_panel_set_hu (self->roi_panel, FALSE);
      return;
    }
  ctr_roi_panel_set_hu (self->roi_panel, ctr_hu_preset_is_hu (name));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PRESET]);
}

/* A drag on any of the views: a Hounsfield preset becomes "Custom" (still
 * in HU). */
static void
on_window_dragged (gpointer data)
{
  CtrRunPage *self = data;
  const char *name = ctr_run_page_get_preset (self);
  double lo, hi, plo, phi;

  if (self->setting_preset || !ctr_hu_preset_window (name, ctr_slice_view_get_mu_water (self->slice_view), &plo, &phi))
    return;
  ctr_slice_view_get_window (self->slice_view, &lo, &hi);
  if (fabs (lo - plo) > 1e-9 * fabs (phi - plo) + 1e-12 || fabs (hi - phi) > 1e-9 * fabs (phi - plo) + 1e-12)
    gtk_drop_down_set_selected (self->preset_dropdown, ctr_hu_preset_find ("custom"));
}

/* The window's ROIs, ruler and μ_water: the slice shows them, the ROI
 * panel measures them. */
void
ctr_run_page_set_roi_set (CtrRunPage *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  /* every view: one μ_water for the HU they show; ROIs on axial planes */
  for (guint v = 0; v < 3; v++)
    ctr_slice_view_set_roi_set (self->trio.views[v], set);
  ctr_roi_panel_set_roi_set (self->roi_panel, set);
}

CtrRoiPanel *
ctr_run_page_get_roi_panel (CtrRunPage *self)
{
  g_return_val_if_fail (CTR_IS_RUN_PAGE (self), NULL);
  return self->roi_panel;
}

const char *
ctr_run_page_get_preset (CtrRunPage *self)
{
  g_return_val_if_fail (CTR_IS_RUN_PAGE (self), "auto");
  return ctr_hu_preset_name (gtk_drop_down_get_selected (self->preset_dropdown)) ?: "auto";
}

gboolean
ctr_run_page_get_window (CtrRunPage *self, double window[2])
{
  g_return_val_if_fail (CTR_IS_RUN_PAGE (self), FALSE);
  if (ctr_slice_view_get_image (self->slice_view) == NULL)
    return FALSE;
  ctr_slice_view_get_window (self->slice_view, &window[0], &window[1]);
  return window[1] > window[0];
}

/* ---- the session ---------------------------------------------------------- */

static gboolean
run_of_open_dataset (gpointer item, gpointer data)
{
  CtrRunPage *self = data;
  return self->session != NULL && ctr_run_is_of (item, ctr_session_get_dataset (self->session));
}

/* The geometry the summary describes, in words, and its limited-angle
 * note (nullable): the one edited on the Geometry page when known (what a
 * run uses), else the dataset's. */
static char *
describe_geometry (CtrRunPage *self, const CtrDataset *d, char **coverage)
{
  const char *fix = "fix the fields marked in red on the Geometry page";

  *coverage = NULL;
  if (!self->edit_known)
    {
      *coverage = d->geometry_missing ? NULL : ctr_geometry_coverage_note (d->geometry);
      return ctr_geometry_describe (d->geometry);
    }
  if (self->edited == NULL && self->edit_error != NULL)
    return g_strdup_printf ("The geometry edited cannot be shown: %s", self->edit_error);
  if (self->edited == NULL)
    {
      if (d->geometry_missing)
        return g_strdup_printf ("Geometry incomplete: %s", fix);
      {
        g_autofree char *file = ctr_geometry_describe (d->geometry);
        return g_strdup_printf ("The geometry edited is not valid: %s (the file's: %s)", fix, file);
      }
    }
  *coverage = ctr_geometry_coverage_note (self->edited);
  {
    g_autofree char *text = ctr_geometry_describe (self->edited);
    return d->geometry_missing ? g_strdup_printf ("Geometry as typed: %s", text) : g_steal_pointer (&text);
  }
}

/* The dataset row: the geometry a run uses, the data's range, the
 * reference, what the loader noticed. */
static void
show_summary (CtrRunPage *self, CtrDataset *d)
{
  g_autofree char *description = NULL;
  g_autofree char *coverage = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *markup = NULL;
  const char *kind;
  double lo, hi;

  description = describe_geometry (self, d, &coverage);
  kind = d->projections->kind == CTR_PROJ_COUNTS ? "counts" : "line integrals";
  ctr_session_get_data_range (self->session, &lo, &hi);
  if (lo == 0)
    lo = 0;   /* −0 (the log of a full open beam) reads 0 */
  if (d->reference != NULL)
    subtitle = g_strdup_printf ("%s\nProjections: %s from %.4g to %.4g\nReference: %u × %u × %u, %.3g mm pixels",
                                description, kind, lo, hi, d->reference->grid.nx, d->reference->grid.ny,
                                d->reference->grid.nz, d->reference->grid.dx);
  else
    subtitle = g_strdup_printf ("%s\nProjections: %s from %.4g to %.4g\nNo reference image", description, kind, lo,
                                hi);
  {
    /* what the loader noticed, and views that do not cover the object */
    GString *s = g_string_new (subtitle);
    for (guint i = 0; d->warnings != NULL && d->warnings[i] != NULL; i++)
      g_string_append_printf (s, "\nWarning: %s", d->warnings[i]);
    if (coverage != NULL)
      g_string_append_printf (s, "\nLimited angle: %s", coverage);
    g_free (subtitle);
    subtitle = g_string_free (s, FALSE);
  }
  if (ctr_session_get_report (self->session) != NULL)
    {
      char *with = g_strdup_printf ("%s\nDICOM: %s", subtitle, ctr_session_get_report (self->session));
      g_free (subtitle);
      subtitle = with;
    }
  markup = g_markup_escape_text (subtitle, -1);   /* the subtitle is markup */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dataset_row), d->name);
  adw_action_row_set_subtitle (self->dataset_row, markup);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->dataset_row), d->path);
}

/* The method panel lists the methods that fit @g (FDK for cone beam, …);
 * told again only when the beam or the helix changes. */
static void
fit_methods (CtrRunPage *self, const CtrGeometry *g)
{
  self->method_beam = g->beam;
  self->method_helical = ctr_helix_applies (g);
  ctr_method_panel_set_geometry (self->method_panel, g);
}

static void
on_dataset (CtrRunPage *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  guint pw = 0, ph = 0;
  GBytes *preview;

  /* the Geometry page tells its edit of the new data next (the window's
   * notify::dataset handler, connected after this page's, loads it) */
  self->edit_known = FALSE;
  g_clear_pointer (&self->edited, ctr_geometry_free);
  g_clear_pointer (&self->edit_error, g_free);
  ctr_variant_row_sync (self->variant_row, d);
  if (d != NULL)
    fit_methods (self, d->geometry);
  gtk_filter_changed (GTK_FILTER (self->plot_filter), GTK_FILTER_CHANGE_DIFFERENT);
  if (d == NULL)
    return;
  show_summary (self, d);

  preview = ctr_session_get_preview (self->session, &pw, &ph);
  if (preview != NULL)
    {
      g_autoptr(GdkTexture) texture = gdk_memory_texture_new (pw, ph, GDK_MEMORY_R8G8B8, preview, (gsize) pw * 3);
      gtk_picture_set_paintable (self->sinogram_picture, GDK_PAINTABLE (texture));
    }
  gtk_widget_set_visible (GTK_WIDGET (self->sinogram_picture), preview != NULL);

  ctr_metrics_plot_set_reference (self->metrics_plot, d->reference != NULL,
                                  ctr_session_get_image_unit (self->session));
  /* the session's runs count the metrics over the field-of-view disc */
  ctr_metrics_plot_set_mask (self->metrics_plot, "FOV disc");
  update_plot_column (self);
  if (d->reference != NULL)
    {
      ctr_view_trio_reset_window (&self->trio);
      ctr_view_trio_set_image (&self->trio, d->reference);
      ctr_slice_view_set_caption (self->slice_view, "Reference");
      /* a Hounsfield preset stays chosen across datasets when it can */
      if (!g_str_equal (ctr_run_page_get_preset (self), "auto"))
        on_preset (self);
    }
  else
    {
      ctr_view_trio_set_image (&self->trio, NULL);
      ctr_slice_view_set_caption (self->slice_view, NULL);
    }
  ctr_slice_view_set_placeholder (self->slice_view, "Press Reconstruct (Ctrl+R)");
  sync_slice_toolbar (self);
  emit_place (self);
}

/* The newest run's plan notes, one per line, under the status. */
static void
show_notes (CtrRunPage *self, GParamSpec *pspec, CtrRun *run)
{
  GListModel *runs = ctr_session_get_runs (self->session);
  guint n = g_list_model_get_n_items (runs);
  g_autoptr(CtrRun) newest = n > 0 ? g_list_model_get_item (runs, n - 1) : NULL;
  const char *const *notes = run ? ctr_run_get_notes (run) : NULL;
  g_autofree char *text = NULL;

  if (run != newest)
    return;
  text = notes != NULL ? g_strjoinv ("\n", (char **) notes) : NULL;
  gtk_label_set_label (self->notes_label, text ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->notes_label), text != NULL && *text != '\0');
}

/* A run ended: a finished one's result (or a cancelled volume run's kept
 * iterate) replaces the live image; the views keep their planes and slices. */
static void
on_run_state (CtrRunPage *self, GParamSpec *pspec, CtrRun *run)
{
  CtrVolume *volume = ctr_run_get_result (run);
  CtrMethod method = ctr_run_get_options (run)->method;
  CtrRunState state = ctr_run_get_state (run);
  guint n = ctr_run_get_n_iterations (run);
  guint last = ctr_run_get_n_stats (run) > 0 ? ctr_run_get_stats (run, ctr_run_get_n_stats (run) - 1)->iteration : 0;
  g_autofree char *caption = NULL;
  g_autofree char *full = NULL;

  if ((state != CTR_RUN_FINISHED && state != CTR_RUN_CANCELLED) || volume == NULL)
    return;
  caption = state == CTR_RUN_CANCELLED
    ? g_strdup_printf ("%s · iteration %u kept", ctr_run_get_label (run), last)
    : ctr_method_is_iterative (method) && last > 0 && last < n
    ? g_strdup_printf ("%s (stopped at iteration %u)", ctr_run_get_label (run), last)
    : g_strdup (ctr_run_get_label (run));
  if (volume->grid.nz > 1)
    full = g_strdup_printf ("%s · %u × %u × %u volume", caption, volume->grid.nx, volume->grid.ny, volume->grid.nz);
  ctr_view_trio_set_image (&self->trio, volume);
  ctr_slice_view_set_caption (self->slice_view, full ? full : caption);
  sync_slice_toolbar (self);
  emit_place (self);
}

static void
on_runs_changed (CtrRunPage *self, guint position, guint removed, guint added, GListModel *runs)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      g_signal_connect_object (run, "notify::state", G_CALLBACK (on_run_state), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (run, "notify::notes", G_CALLBACK (show_notes), self, G_CONNECT_SWAPPED);
      show_notes (self, NULL, run);
    }
  if (g_list_model_get_n_items (runs) == 0)
    show_notes (self, NULL, NULL);
  gtk_widget_set_visible (self->runs_group, g_list_model_get_n_items (runs) > 0);
  update_plot_column (self);
}

void
ctr_run_page_set_geometry (CtrRunPage *self, const CtrGeometry *g)
{
  CtrDataset *d;
  g_autoptr (GError) error = NULL;

  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  self->edit_known = TRUE;
  g_clear_pointer (&self->edited, ctr_geometry_free);
  g_clear_pointer (&self->edit_error, g_free);
  self->edited = g != NULL ? ctr_geometry_try_copy (g, &error) : NULL;
  if (error != NULL)
    self->edit_error = g_strdup (error->message);
  if (g != NULL && ((int) g->beam != self->method_beam || ctr_helix_applies (g) != self->method_helical))
    fit_methods (self, g);
  d = self->session != NULL ? ctr_session_get_dataset (self->session) : NULL;
  if (d != NULL)
    show_summary (self, d);
}

void
ctr_run_page_show_run (CtrRunPage *self, CtrRun *run)
{
  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  g_return_if_fail (CTR_IS_RUN (run));
  on_run_state (self, NULL, run);
}

/* The run store's total under the runs: what is kept, where. */
static void
on_store (CtrRunPage *self)
{
  g_autofree char *text =
    g_strdup_printf ("Rename a run (Enter) or delete it; its colour is the one on the plots. Runs stay when another "
                     "dataset or dose is opened, until deleted. %s.",
                     ctr_session_get_store_summary (self->session));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->runs_group), text);
}

void
ctr_run_page_set_session (CtrRunPage *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_RUN_PAGE (self));
  g_return_if_fail (session == NULL || CTR_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_runs (self->session), self);
      for (guint i = 0; i < G_N_ELEMENTS (self->bindings); i++)
        g_clear_pointer (&self->bindings[i], g_binding_unbind);
      ctr_metrics_plot_set_runs (self->metrics_plot, NULL);
      g_clear_object (&self->plot_runs);
      ctr_run_list_bind (self->runs_list, NULL);
      ctr_roi_panel_set_session (self->roi_panel, NULL);
      g_clear_object (&self->session);
    }
  if (session != NULL)
    {
      self->session = g_object_ref (session);
      ctr_roi_panel_set_session (self->roi_panel, session);
      g_signal_connect_object (session, "notify::dataset", G_CALLBACK (on_dataset), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::latest-stats", G_CALLBACK (on_stats), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::fraction", G_CALLBACK (on_fraction), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (ctr_session_get_runs (session), "items-changed", G_CALLBACK (on_runs_changed), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::store-summary", G_CALLBACK (on_store), self, G_CONNECT_SWAPPED);
      on_store (self);
      self->bindings[0] = g_object_bind_property (session, "progress-text", self->progress_bar, "text",
                                                  G_BINDING_SYNC_CREATE);
      self->bindings[1] = g_object_bind_property (session, "status", self->status_label, "label",
                                                  G_BINDING_SYNC_CREATE);
      /* the geometry page stays editable during a run: the job owns a copy */
      self->bindings[2] = g_object_bind_property (session, "running", self->method_panel, "sensitive",
                                                  G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
      /* the convergence plots show the runs of the open dataset: runs kept
       * from another one were measured against another reference */
      self->plot_runs = gtk_filter_list_model_new (g_object_ref (ctr_session_get_runs (session)),
                                                   g_object_ref (GTK_FILTER (self->plot_filter)));
      ctr_metrics_plot_set_runs (self->metrics_plot, G_LIST_MODEL (self->plot_runs));
      ctr_run_list_bind (self->runs_list, session);
      on_dataset (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

CtrMethodPanel *
ctr_run_page_get_method_panel (CtrRunPage *self)
{
  g_return_val_if_fail (CTR_IS_RUN_PAGE (self), NULL);
  return self->method_panel;
}

/* ---- GObject ---------------------------------------------------------------- */

static void
ctr_run_page_dispose (GObject *object)
{
  CtrRunPage *self = CTR_RUN_PAGE (object);

  g_clear_handle_id (&self->pulse_id, g_source_remove);
  ctr_run_page_set_session (self, NULL);
  g_clear_pointer (&self->edited, ctr_geometry_free);
  g_clear_pointer (&self->edit_error, g_free);
  ctr_view_trio_clear (&self->trio);
  g_clear_object (&self->plot_filter);
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_RUN_PAGE);
  G_OBJECT_CLASS (ctr_run_page_parent_class)->dispose (object);
}

static void
ctr_run_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtrRunPage *self = CTR_RUN_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_PRESET:
      g_value_set_string (value, ctr_run_page_get_preset (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_run_page_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CtrRunPage *self = CTR_RUN_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ctr_run_page_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_run_page_class_init (CtrRunPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_run_page_dispose;
  object_class->get_property = ctr_run_page_get_property;
  object_class->set_property = ctr_run_page_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, CTR_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The window preset of the slice toolbar (ctr-hu-preset.h names): the
   * Profile and Compare pages follow it. */
  properties[PROP_PRESET] =
    g_param_spec_string ("preset", NULL, NULL, "auto",
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* The plane or the crosshair of the volume shown moved
   * (ctr_run_page_get_place). */
  signals[SIGNAL_PLACE_CHANGED] =
    g_signal_new ("place-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  g_type_ensure (CTR_TYPE_SLICE_VIEW);
  g_type_ensure (CTR_TYPE_METRICS_PLOT);
  g_type_ensure (CTR_TYPE_METHOD_PANEL);
  g_type_ensure (CTR_TYPE_ROI_PANEL);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-run-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, content);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, dataset_row);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, sinogram_picture);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, method_panel);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, notes_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, latest_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, residual_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, rmse_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, psnr_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, ssim_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, slice_view);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, side_view_a);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, side_view_b);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, orientation_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, preset_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, slice_adjustment);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, metrics_plot);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, content_paned);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, runs_group);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, runs_list);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, variant_row);
  gtk_widget_class_bind_template_child (widget_class, CtrRunPage, roi_panel);
  gtk_widget_class_bind_template_callback (widget_class, on_orientation);
  gtk_widget_class_bind_template_callback (widget_class, on_slice_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_preset);
}

static void
ctr_run_page_init (CtrRunPage *self)
{
  g_autoptr(GtkStringList) presets = gtk_string_list_new (NULL);

  gtk_widget_init_template (GTK_WIDGET (self));
  self->method_beam = -1;
  ctr_view_trio_init (&self->trio, self->slice_view, self->side_view_a, self->side_view_b, on_cross_moved,
                      on_window_dragged, self);
  ctr_variant_row_init (self->variant_row);
  self->plot_filter = gtk_custom_filter_new (run_of_open_dataset, self, NULL);
  for (guint i = 0; i < ctr_hu_preset_count (); i++)
    gtk_string_list_append (presets, ctr_hu_preset_label (i));
  gtk_drop_down_set_model (self->preset_dropdown, G_LIST_MODEL (presets));
  gtk_drop_down_set_selected (self->preset_dropdown, 0);
  ctr_roi_panel_set_view (self->roi_panel, self->slice_view);
  sync_slice_toolbar (self);
}
