/* ctr-profile-page.c — the Profile page, a view of a CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The slice view shows the newest result (else the reference) with the
 * profile tool: a drag draws a segment in mm.  Every result of the session
 * and the reference are sampled along it (ctr_profile_sample, 512 points)
 * and drawn on one plot, each result in its run's colour (ctr_plot_run_color,
 * as on the convergence plot), the reference dashed grey.  A new dataset
 * gets a default line through the centre.  Of volumes, the axial slice at
 * the Run page's crosshair is shown and sampled (each volume's slice nearest
 * its z; the middle one before the Run page shows a volume).
 */
#define G_LOG_DOMAIN "ctr-profile-page"

#include <math.h>

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
  gboolean        have_z;       /* the Run page's crosshair z is known ... */
  double          z_mm;         /* ... and is this */

  /* template children */
  GtkWidget      *paned;
  CtrSliceView   *profile_view;
  CtrProfilePlot *profile_plot;
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

/* The axial slice of @v the page shows and samples. */
static guint
slice_of (CtrProfilePage *self, const CtrVolume *v)
{
  return self->have_z ? ctr_slice_plane_index_at (&v->grid, CTR_SLICE_AXIAL, self->z_mm) : v->grid.nz / 2;
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
          ctr_profile_sample (volume, slice_of (self, volume), seg[0], seg[1], seg[2], seg[3], PROFILE_SAMPLES, v, s);
          if (hu)
            to_hu (v, PROFILE_SAMPLES, mu);
          ctr_profile_plot_add_curve (self->profile_plot, ctr_run_get_label (run), &color, FALSE, PROFILE_SAMPLES,
                                      s, v);
        }
      if (d != NULL && d->reference != NULL)
        {
          CtrVolume *ref = d->reference;
          ctr_profile_sample (ref, slice_of (self, ref), seg[0], seg[1], seg[2], seg[3], PROFILE_SAMPLES, v, s);
          if (hu)
            to_hu (v, PROFILE_SAMPLES, mu);
          ctr_profile_plot_add_curve (self->profile_plot, "reference", &reference_color, TRUE, PROFILE_SAMPLES, s,
                                      v);
        }
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_CURVES]);
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
        ctr_slice_view_set_image (self->profile_view, volume, slice_of (self, volume));
      ctr_slice_view_set_caption (self->profile_view, ctr_run_get_label (latest));
    }
  else if (d != NULL && d->reference != NULL)
    {
      ctr_slice_view_set_image (self->profile_view, d->reference, slice_of (self, d->reference));
      ctr_slice_view_set_caption (self->profile_view, "reference");
    }
  else
    ctr_slice_view_set_image (self->profile_view, NULL, 0);

  /* a new dataset: a default line through the centre (segment-changed
   * updates the curves) */
  if (!ctr_slice_view_get_segment (self->profile_view, seg) && ctr_slice_view_get_image (self->profile_view) != NULL)
    {
      const CtrGrid *g = &ctr_slice_view_get_image (self->profile_view)->grid;
      double half = 0.45 * g->nx * g->dx;
      double def[4] = { g->cx - half, g->cy, g->cx + half, g->cy };
      ctr_slice_view_set_segment (self->profile_view, def);
    }
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

void
ctr_profile_page_set_place (CtrProfilePage *self, CtrSliceOrientation plane, const double mm[3])
{
  CtrVolume *shown;

  g_return_if_fail (CTR_IS_PROFILE_PAGE (self));
  if (self->have_z && self->z_mm == mm[2])
    return;
  self->have_z = TRUE;
  self->z_mm = mm[2];
  shown = ctr_slice_view_get_image (self->profile_view);
  if (shown != NULL && shown->grid.nz > 1)
    ctr_slice_view_set_slice (self->profile_view, slice_of (self, shown));
  update_profile (self);
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
}

static void
ctr_profile_page_init (CtrProfilePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  ctr_slice_view_set_profile_tool (self->profile_view, TRUE);
  g_signal_connect_swapped (self->profile_view, "segment-changed", G_CALLBACK (update_profile), self);
}
