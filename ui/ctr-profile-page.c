/* ctr-profile-page.c — the Profile page, a view of a CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The slice view shows the newest result (else the reference) with the
 * profile tool: a drag draws a segment in mm.  Every result of the session
 * and the reference are sampled along it (ctr_profile_sample, 512 points)
 * and drawn on one plot, each result in its run's colour (ctr_plot_run_color,
 * as on the convergence plot), the reference dashed grey.  A new dataset
 * gets a default line through the centre.  Of volumes, one plane is shown
 * and sampled, the Run page's (its plane through its crosshair; each
 * volume's slice nearest that position) or the one chosen in the page's
 * own Plane and Slice controls, which move the Run page in turn; the line
 * lies in that plane (mm of the plane: x/y, x/z or y/z).
 */
#define G_LOG_DOMAIN "ctr-profile-page"

#include <math.h>
#include <string.h>

#include "ctr-profile-page.h"
#include "ctr-hu-preset.h"
#include "ctr-plot-draw.h"
#include "ctr-profile-plot.h"
#include "ctr-slice-view.h"

#define PROFILE_SAMPLES 512

struct _CtrProfilePage
{
  GtkWidget       parent_instance;

  CtrSession     *session;
  char           *preset;       /* the Run page's window preset (ctr-hu-preset.h) */
  double          mu_water;     /* of the curves in HU (ctr-roi-set.h) */
  gboolean        have_place;   /* the place of volumes is known: ... */
  CtrSliceOrientation plane;    /* ... this plane ... */
  double          place_mm[3];  /* ... through this point (x, y, z mm) */
  gboolean        setting_place;

  /* template children */
  GtkWidget      *paned;
  CtrSliceView   *profile_view;
  CtrProfilePlot *profile_plot;
  GtkWidget      *place_bar;
  GtkDropDown    *plane_drop;
  GtkAdjustment  *slice_adj;
};

G_DEFINE_FINAL_TYPE (CtrProfilePage, ctr_profile_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_N_CURVES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const GdkRGBA reference_color = { 0.35, 0.35, 0.35, 1 };

static guint signals_place_changed;

/* The slice of @v along the page's plane that the page shows and samples. */
static guint
slice_of (CtrProfilePage *self, const CtrVolume *v)
{
  CtrSliceOrientation o = self->plane;

  if (v->grid.nz <= 1)
    return 0;
  if (!self->have_place)
    return ctr_slice_plane_count (v, o) / 2;
  return ctr_slice_plane_index_at (&v->grid, o,
                                   self->place_mm[o == CTR_SLICE_AXIAL ? 2 : o == CTR_SLICE_CORONAL ? 1 : 0]);
}

/* @n samples along the segment (mm of the page's plane) of @v's plane
 * shown: a 2-D image as it is, a volume's plane as a 2-D image. */
static void
sample (CtrProfilePage *self, const CtrVolume *v, const double seg[4], guint n, float *out, double *out_s)
{
  CtrSlicePlane plane = { 0 };
  CtrGrid g;
  CtrVolume *image;

  if (v->grid.nz <= 1 || self->plane == CTR_SLICE_AXIAL)
    {
      ctr_profile_sample (v, slice_of (self, v), seg[0], seg[1], seg[2], seg[3], n, out, out_s);
      return;
    }
  image = NULL;
  if (ctr_slice_plane_extract (&plane, v, self->plane, slice_of (self, v), NULL))
    {
      g = plane.grid;
      g.cz = 0;
      g.dz = 1;
      image = ctr_volume_new (&g, NULL);
    }
  if (image != NULL)
    {
      memcpy (image->data, plane.data, ctr_grid_slice_size (&g) * sizeof (float));
      ctr_profile_sample (image, 0, seg[0], seg[1], seg[2], seg[3], n, out, out_s);
      ctr_volume_unref (image);
    }
  else
    memset (out, 0, n * sizeof (float));
  ctr_slice_plane_clear (&plane);
}

static void
to_hu (float *v, guint n, double mu_water)
{
  for (guint k = 0; k < n; k++)
    v[k] = (float) ctr_hu_from_mu (v[k], mu_water);
}

/* The curves along the segment: every result, then the reference. */
static void
update_profile (CtrProfilePage *self)
{
  CtrDataset *d = self->session ? ctr_session_get_dataset (self->session) : NULL;
  double seg[4];
  double s[PROFILE_SAMPLES];
  float v[PROFILE_SAMPLES];

  const char *unit = self->session ? ctr_session_get_image_unit (self->session) : NULL;
  /* under a Hounsfield preset the curves are in HU, as the images are */
  gboolean hu = ctr_hu_preset_is_hu (self->preset) && g_strcmp0 (unit, "1/mm") == 0;
  CtrRoiSet *set = ctr_slice_view_get_roi_set (self->profile_view);
  gboolean calibrated = FALSE;
  double mu = set != NULL ? ctr_roi_set_get_mu_water (set, &calibrated) : CTR_MU_WATER_PER_MM;
  g_autofree char *hu_unit = g_strdup_printf ("HU (%sμ_water %.4g /mm)", calibrated ? "calibrated " : "", mu);

  ctr_profile_plot_clear (self->profile_plot);
  ctr_profile_plot_set_unit (self->profile_plot, hu ? hu_unit : unit);
  if (self->session != NULL && ctr_slice_view_get_segment (self->profile_view, seg) &&
      hypot (seg[2] - seg[0], seg[3] - seg[1]) > 0)
    {
      GListModel *results = ctr_session_get_open_results (self->session);

      for (guint i = 0; i < g_list_model_get_n_items (results); i++)
        {
          g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
          CtrVolume *volume;
          GdkRGBA color;

          /* a renamed, recoloured, hidden or shown run: drawn anew */
          g_signal_handlers_disconnect_by_data (run, self);
          g_signal_connect_object (run, "notify::label", G_CALLBACK (update_profile), self, G_CONNECT_SWAPPED);
          g_signal_connect_object (run, "notify::color", G_CALLBACK (update_profile), self, G_CONNECT_SWAPPED);
          g_signal_connect_object (run, "notify::hidden", G_CALLBACK (update_profile), self, G_CONNECT_SWAPPED);
          if (!ctr_run_is_of (run, d) || ctr_run_get_hidden (run))
            continue;   /* a run of another dataset kept in the list, or hidden */
          if ((volume = ctr_run_get_result (run)) == NULL)
            continue;   /* its image on disk could not be read back */

          ctr_plot_color_of_run (run, &color);
          sample (self, volume, seg, PROFILE_SAMPLES, v, s);
          if (hu)
            to_hu (v, PROFILE_SAMPLES, mu);
          ctr_profile_plot_add_curve (self->profile_plot, ctr_run_get_label (run), &color, FALSE, PROFILE_SAMPLES,
                                      s, v);
        }
      if (d != NULL && d->reference != NULL)
        {
          CtrVolume *ref = d->reference;
          sample (self, ref, seg, PROFILE_SAMPLES, v, s);
          if (hu)
            to_hu (v, PROFILE_SAMPLES, mu);
          ctr_profile_plot_add_curve (self->profile_plot, "reference", &reference_color, TRUE, PROFILE_SAMPLES, s,
                                      v);
        }
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_CURVES]);
}

/* A line across the middle of the plane shown (mm of the plane). */
static void
default_segment (CtrProfilePage *self)
{
  CtrVolume *v = ctr_slice_view_get_image (self->profile_view);
  CtrSlicePlane plane = { 0 };
  double half, seg[4];

  if (v == NULL)
    return;
  /* the plane's grid is set even when its copy does not fit */
  ctr_slice_plane_extract (&plane, v, ctr_slice_view_get_orientation (self->profile_view), 0, NULL);
  half = 0.45 * plane.grid.nx * plane.grid.dx;
  seg[0] = plane.grid.cx - half;
  seg[1] = seg[3] = plane.grid.cy;
  seg[2] = plane.grid.cx + half;
  ctr_slice_plane_clear (&plane);
  ctr_slice_view_set_segment (self->profile_view, seg);   /* segment-changed: the curves */
}

/* The Plane and Slice controls from the image shown (volumes only). */
static void
sync_place_bar (CtrProfilePage *self)
{
  CtrVolume *v = ctr_slice_view_get_image (self->profile_view);
  gboolean volume = v != NULL && v->grid.nz > 1;

  gtk_widget_set_visible (self->place_bar, volume);
  if (!volume)
    return;
  self->setting_place = TRUE;
  gtk_drop_down_set_selected (self->plane_drop, self->plane);
  gtk_adjustment_configure (self->slice_adj, ctr_slice_view_get_slice (self->profile_view) + 1, 1,
                            MAX (ctr_slice_view_get_n_slices (self->profile_view), 1), 1, 10, 0);
  self->setting_place = FALSE;
}

/* Shows @image at the page's plane and slice. */
static void
show_image (CtrProfilePage *self, CtrVolume *image)
{
  if (image != NULL && image->grid.nz > 1 && ctr_slice_view_get_orientation (self->profile_view) != self->plane)
    ctr_slice_view_set_orientation (self->profile_view, self->plane);
  ctr_slice_view_set_image (self->profile_view, image, image != NULL ? slice_of (self, image) : 0);
}

/* A new dataset or a new set of results: the newest image under the tool. */
static void
refresh (CtrProfilePage *self)
{
  CtrDataset *d = ctr_session_get_dataset (self->session);
  GListModel *open = ctr_session_get_open_results (self->session);
  guint n_open = g_list_model_get_n_items (open);
  g_autoptr(CtrRun) latest = n_open > 0 ? g_list_model_get_item (open, n_open - 1) : NULL;
  double seg[4];

  if (latest != NULL)
    {
      CtrVolume *volume = ctr_run_get_result (latest);
      if (volume != NULL)
        show_image (self, volume);
      ctr_slice_view_set_caption (self->profile_view, ctr_run_get_label (latest));
    }
  else if (d != NULL && d->reference != NULL)
    {
      show_image (self, d->reference);
      ctr_slice_view_set_caption (self->profile_view, "reference");
    }
  else
    ctr_slice_view_set_image (self->profile_view, NULL, 0);
  sync_place_bar (self);

  /* a new dataset: a default line through the centre (segment-changed
   * updates the curves) */
  if (!ctr_slice_view_get_segment (self->profile_view, seg) && ctr_slice_view_get_image (self->profile_view) != NULL)
    default_segment (self);
  else
    update_profile (self);
}

void
ctr_profile_page_set_session (CtrProfilePage *self, CtrSession *session)
{
  g_return_if_fail (CTR_IS_PROFILE_PAGE (self));
  g_return_if_fail (session == NULL || CTR_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_open_results (self->session), self);
      g_clear_object (&self->session);
    }
  if (session != NULL)
    {
      self->session = g_object_ref (session);
      g_signal_connect_object (session, "notify::dataset", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (ctr_session_get_open_results (session), "items-changed", G_CALLBACK (refresh), self,
                               G_CONNECT_SWAPPED);
      refresh (self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

/* Moves the plane shown: another plane gets a new default line (the old
 * one's mm are another plane's); another slice keeps the line. */
static void
show_place (CtrProfilePage *self, gboolean new_plane)
{
  CtrVolume *shown = ctr_slice_view_get_image (self->profile_view);

  if (shown == NULL || shown->grid.nz <= 1)
    return;
  if (new_plane)
    ctr_slice_view_set_orientation (self->profile_view, self->plane);
  ctr_slice_view_set_slice (self->profile_view, slice_of (self, shown));
  sync_place_bar (self);
  if (new_plane)
    default_segment (self);
  else
    update_profile (self);
}

void
ctr_profile_page_set_place (CtrProfilePage *self, CtrSliceOrientation plane, const double mm[3])
{
  gboolean new_plane;

  g_return_if_fail (CTR_IS_PROFILE_PAGE (self));
  if (self->have_place && self->plane == plane && memcmp (self->place_mm, mm, sizeof self->place_mm) == 0)
    return;
  new_plane = self->plane != plane;
  self->have_place = TRUE;
  self->plane = plane;
  memcpy (self->place_mm, mm, sizeof self->place_mm);
  show_place (self, new_plane);
}

gboolean
ctr_profile_page_get_place (CtrProfilePage *self, CtrSliceOrientation *plane, double mm[3])
{
  g_return_val_if_fail (CTR_IS_PROFILE_PAGE (self), FALSE);
  if (!self->have_place)
    return FALSE;
  *plane = self->plane;
  memcpy (mm, self->place_mm, sizeof self->place_mm);
  return TRUE;
}

/* The page's own Plane and Slice: the new place, told to the Run page. */
static void
on_place_control (CtrProfilePage *self)
{
  CtrVolume *v = ctr_slice_view_get_image (self->profile_view);
  CtrSliceOrientation plane = gtk_drop_down_get_selected (self->plane_drop);
  gboolean new_plane = plane != self->plane;

  if (self->setting_place || v == NULL || v->grid.nz <= 1)
    return;
  if (!self->have_place)
    {
      self->place_mm[0] = v->grid.cx;
      self->place_mm[1] = v->grid.cy;
      self->place_mm[2] = v->grid.cz;
      self->have_place = TRUE;
    }
  if (!new_plane)
    self->place_mm[plane == CTR_SLICE_AXIAL ? 2 : plane == CTR_SLICE_CORONAL ? 1 : 0] =
      ctr_slice_plane_position (&v->grid, plane, (guint) gtk_adjustment_get_value (self->slice_adj) - 1);
  self->plane = plane;
  show_place (self, new_plane);
  g_signal_emit (self, signals_place_changed, 0);
}

/* Follows the Run page's window preset @name: the image under the tool gets
 * it, the curves are in HU under a Hounsfield preset. */
void
ctr_profile_page_set_preset (CtrProfilePage *self, const char *name)
{
  g_return_if_fail (CTR_IS_PROFILE_PAGE (self));
  if (g_strcmp0 (self->preset, name) == 0)
    return;
  g_free (self->preset);
  self->preset = g_strdup (name);
  if (!ctr_slice_view_apply_preset (self->profile_view, name))
    ctr_slice_view_apply_preset (self->profile_view, "auto");
  update_profile (self);
}

static void
on_roi_set_changed (CtrProfilePage *self, CtrRoiSet *set)
{
  double mu = ctr_roi_set_get_mu_water (set, NULL);

  if (mu != self->mu_water)
    {
      self->mu_water = mu;
      update_profile (self);
    }
}

/* The window's ROIs and μ_water (ctr-roi-set.h): the image under the tool
 * shows them, the curves in HU follow a water calibration. */
void
ctr_profile_page_set_roi_set (CtrProfilePage *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_PROFILE_PAGE (self));
  ctr_slice_view_set_roi_set (self->profile_view, set);
  self->mu_water = ctr_roi_set_get_mu_water (set, NULL);
  g_signal_connect_object (set, "changed", G_CALLBACK (on_roi_set_changed), self, G_CONNECT_SWAPPED);
}

guint
ctr_profile_page_get_n_curves (CtrProfilePage *self)
{
  g_return_val_if_fail (CTR_IS_PROFILE_PAGE (self), 0);
  return ctr_profile_plot_get_n_curves (self->profile_plot);
}

gboolean
ctr_profile_page_write_csv (CtrProfilePage *self, const char *path, GError **error)
{
  g_return_val_if_fail (CTR_IS_PROFILE_PAGE (self), FALSE);
  return ctr_profile_plot_write_csv (self->profile_plot, path, error);
}

static void
ctr_profile_page_dispose (GObject *object)
{
  CtrProfilePage *self = CTR_PROFILE_PAGE (object);

  ctr_profile_page_set_session (self, NULL);
  g_clear_pointer (&self->preset, g_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_PROFILE_PAGE);
  G_OBJECT_CLASS (ctr_profile_page_parent_class)->dispose (object);
}

static void
ctr_profile_page_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CtrProfilePage *self = CTR_PROFILE_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_N_CURVES:
      g_value_set_uint (value, ctr_profile_page_get_n_curves (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_profile_page_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CtrProfilePage *self = CTR_PROFILE_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ctr_profile_page_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_profile_page_class_init (CtrProfilePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_profile_page_dispose;
  object_class->get_property = ctr_profile_page_get_property;
  object_class->set_property = ctr_profile_page_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, CTR_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_CURVES] =
    g_param_spec_uint ("n-curves", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (CTR_TYPE_SLICE_VIEW);
  g_type_ensure (CTR_TYPE_PROFILE_PLOT);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/ctrecon/CtRecon/ui/ctr-profile-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, paned);
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, profile_view);
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, profile_plot);
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, place_bar);
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, plane_drop);
  gtk_widget_class_bind_template_child (widget_class, CtrProfilePage, slice_adj);
  /* The page's Plane or Slice control moved the plane shown
   * (ctr_profile_page_get_place). */
  signals_place_changed = g_signal_new ("place-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                        NULL, NULL, G_TYPE_NONE, 0);
}

static void
ctr_profile_page_init (CtrProfilePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ctr_slice_view_set_profile_tool (self->profile_view, TRUE);
  g_signal_connect_swapped (self->profile_view, "segment-changed", G_CALLBACK (update_profile), self);
  g_signal_connect_swapped (self->plane_drop, "notify::selected", G_CALLBACK (on_place_control), self);
  g_signal_connect_swapped (self->slice_adj, "value-changed", G_CALLBACK (on_place_control), self);
  gtk_widget_set_visible (self->place_bar, FALSE);
}
