/* ctr-compare-page.c — the Compare page, a view of a CtrSession.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Up to three newest results and the reference (four images) in a grid of
 * CtrSliceViews, then the difference of the two newest results (else the
 * newest minus the reference) on a window symmetric about 0.  A tile the
 * user zooms or pans moves the others ("view-changed"); window/level is
 * linked between the images but not the difference, whose values are
 * centred on 0.  The tiles are rebuilt when the results change.
 */
#define G_LOG_DOMAIN "ctr-compare-page"

#include <math.h>

#include "ctr-compare-page.h"
#include "ctr-slice-view.h"

struct _CtrComparePage
{
  GtkWidget   parent_instance;

  CtrSession *session;
  GPtrArray  *views;      /* CtrSliceView*, in the grid's order */
  gboolean    linking;

  /* template children */
  GtkWidget  *content;
  GtkLabel   *compare_label;
  GtkGrid    *compare_grid;
};

G_DEFINE_FINAL_TYPE (CtrComparePage, ctr_compare_page, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_N_TILES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

static CtrSliceView *
add_tile (CtrComparePage *self, CtrVolume *image, const char *caption, gboolean difference)
{
  CtrSliceView *view = CTR_SLICE_VIEW (ctr_slice_view_new ());
  guint i = self->views->len;

  gtk_widget_set_hexpand (GTK_WIDGET (view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (view), TRUE);
  ctr_slice_view_set_image (view, image, image->grid.nz / 2);
  ctr_slice_view_set_caption (view, caption);
  if (difference)
    g_object_set_data (G_OBJECT (view), "ctr-difference", GINT_TO_POINTER (1));
  g_signal_connect (view, "view-changed", G_CALLBACK (link_view), self);
  g_signal_connect (view, "window-changed", G_CALLBACK (link_window), self);
  gtk_grid_attach (self->compare_grid, GTK_WIDGET (view), i % 3, i / 3, 1, 1);
  g_ptr_array_add (self->views, view);
  return view;
}

/* a − b on the same grid (the shown slice), or NULL when the grids differ. */
static CtrVolume *
difference_image (const CtrVolume *a, const CtrVolume *b)
{
  CtrGrid g;
  CtrVolume *d;
  const float *sa, *sb;

  if (a->grid.nx != b->grid.nx || a->grid.ny != b->grid.ny ||
      fabs (a->grid.dx - b->grid.dx) > 1e-9 * a->grid.dx ||
      fabs (a->grid.cx - b->grid.cx) > 1e-6 || fabs (a->grid.cy - b->grid.cy) > 1e-6)
    return NULL;
  g = a->grid;
  g.nz = 1;
  d = ctr_volume_new (&g, NULL);
  if (d == NULL)
    return NULL;
  sa = ctr_volume_slice (a, a->grid.nz / 2);
  sb = ctr_volume_slice (b, b->grid.nz / 2);
  for (gsize i = 0; i < ctr_grid_slice_size (&g); i++)
    d->data[i] = sa[i] - sb[i];
  ctr_volume_set_unit (d, a->unit);
  return d;
}

static void
add_difference (CtrComparePage *self, CtrRun *a, CtrRun *b, CtrVolume *ref)
{
  g_autoptr(CtrVolume) diff = NULL;
  g_autofree char *caption = NULL;
  CtrSliceView *v;
  double m = 0;

  if (b != NULL)
    {
      diff = difference_image (ctr_run_get_result (a), ctr_run_get_result (b));
      caption = g_strdup_printf ("difference: %s − %s", ctr_run_get_label (a), ctr_run_get_label (b));
    }
  if (diff == NULL && ref != NULL)
    {
      g_clear_pointer (&caption, g_free);
      diff = difference_image (ctr_run_get_result (a), ref);
      caption = g_strdup_printf ("difference: %s − reference", ctr_run_get_label (a));
    }
  if (diff == NULL)
    return;
  v = add_tile (self, diff, caption, TRUE);
  for (gsize i = 0; i < ctr_grid_slice_size (&diff->grid); i++)
    if (isfinite (diff->data[i]))
      m = MAX (m, fabs (diff->data[i]));
  if (m > 0)
    ctr_slice_view_set_window (v, -m, m);
}

static void
refresh (CtrComparePage *self)
{
  GListModel *results = ctr_session_get_results (self->session);
  CtrDataset *d = ctr_session_get_dataset (self->session);
  CtrVolume *ref = d ? d->reference : NULL;
  guint n = g_list_model_get_n_items (results);
  guint first = n > 3 ? n - 3 : 0;
  double lo = 0, hi = 0;
  gboolean have_window = FALSE;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->compare_grid))) != NULL)
    gtk_grid_remove (self->compare_grid, child);
  g_ptr_array_set_size (self->views, 0);

  /* up to three newest results and the reference: four images; the linked
   * window starts as the reference's automatic one (else the newest run's) */
  for (guint i = first; i < n; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (results, i);
      CtrSliceView *v = add_tile (self, ctr_run_get_result (run), ctr_run_get_label (run), FALSE);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (ref != NULL)
    {
      CtrSliceView *v = add_tile (self, ref, "reference", FALSE);
      ctr_slice_view_get_window (v, &lo, &hi);
      have_window = TRUE;
    }
  if (have_window)
    for (guint i = 0; i < self->views->len; i++)
      ctr_slice_view_set_window (g_ptr_array_index (self->views, i), lo, hi);

  /* the difference of the two newest results, else newest minus reference */
  if (n >= 1)
    {
      g_autoptr(CtrRun) a = g_list_model_get_item (results, n - 1);
      g_autoptr(CtrRun) b = n >= 2 ? g_list_model_get_item (results, n - 2) : NULL;
      add_difference (self, a, b, ref);
    }
  gtk_label_set_label (self->compare_label, n == 0
    ? "Reconstruct to compare: each finished run appears here beside the reference."
    : "Newest runs and the reference side by side, with a difference image; zoom (scroll), pan (Shift+drag) and window/level (drag) are linked.");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_TILES]);
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
      g_signal_handlers_disconnect_by_data (self->session, self);
      g_signal_handlers_disconnect_by_data (ctr_session_get_results (self->session), self);
      g_clear_object (&self->session);
    }
  if (session != NULL)
    {
      self->session = g_object_ref (session);
      g_signal_connect_object (session, "notify::dataset", G_CALLBACK (refresh), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (ctr_session_get_results (session), "items-changed", G_CALLBACK (refresh), self,
                               G_CONNECT_SWAPPED);
      refresh (self);
    }
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
  gtk_widget_dispose_template (GTK_WIDGET (self), CTR_TYPE_COMPARE_PAGE);
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
  gtk_widget_class_bind_template_child (widget_class, CtrComparePage, compare_grid);
}

static void
ctr_compare_page_init (CtrComparePage *self)
{
  self->views = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
}
