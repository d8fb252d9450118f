/* ctr-slice-view.c — one slice of a float image, shown in grey with window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The slice is mapped to 8-bit grey through a linear window [lo, hi] and
 * uploaded once per image (or window change) as a GdkMemoryTexture; drawing
 * only scales that texture.  The window starts at the slice's robust minimum
 * and maximum (0.1st and 99.9th percentiles) and follows every new image
 * until the user drags it (horizontal:
 * width, vertical: level); a double click returns to the automatic window.
 * The display keeps the physical aspect ratio (nx·dx by ny·dy).  Row 0 of the
 * slice is +y and is drawn at the top (FORMAT.md), so no flip is needed.
 */
#define G_LOG_DOMAIN "ctr-slice-view"

#include <math.h>
#include <stdlib.h>

#include "ctr-slice-view.h"

#define MARGIN 12.0

struct _CtrSliceView
{
  GtkWidget   parent_instance;

  CtrVolume  *image;
  guint       slice;
  GdkTexture *texture;

  /* display window: grey 0 at lo, 255 at hi */
  double      lo;
  double      hi;
  double      data_min;
  double      data_max;
  gboolean    manual_window;

  /* drag state */
  double      drag_center;
  double      drag_width;

  char       *caption;
  char       *placeholder;
  char       *pointer_info;
};

enum {
  PROP_0,
  PROP_CAPTION,
  PROP_PLACEHOLDER,
  PROP_POINTER_INFO,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (CtrSliceView, ctr_slice_view, GTK_TYPE_WIDGET)

/* g_set_str() is GLib 2.76. */
static gboolean
replace_str (char       **ptr,
             const char  *value)
{
  if (g_strcmp0 (*ptr, value) == 0)
    return FALSE;
  g_free (*ptr);
  *ptr = g_strdup (value);
  return TRUE;
}

static const float *
current_slice (CtrSliceView *self)
{
  if (self->image == NULL)
    return NULL;
  return ctr_volume_slice (self->image, self->slice);
}

static int
compare_floats (gconstpointer a,
                gconstpointer b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* The automatic window: the 0.1st to 99.9th percentile of the finite values,
 * i.e. min/max made robust against a handful of hot pixels (reconstruction
 * corners, dead detector rays) that would otherwise grey out the whole slice.
 * Large slices are subsampled to at most 2^18 values for the sort. */
#define AUTO_WINDOW_TAIL 0.001

static void
compute_data_range (CtrSliceView *self)
{
  const float *s = current_slice (self);
  gsize n = ctr_grid_slice_size (&self->image->grid);
  gsize step = MAX ((gsize) 1, n / (1u << 18));
  g_autofree float *values = g_new (float, n / step + 1);
  gsize m = 0;

  for (gsize i = 0; i < n; i += step)
    if (isfinite (s[i]))
      values[m++] = s[i];

  if (m == 0)
    {
      self->data_min = self->data_max = 0.0;
      return;
    }

  qsort (values, m, sizeof (float), compare_floats);
  self->data_min = values[(gsize) (AUTO_WINDOW_TAIL * (m - 1))];
  self->data_max = values[(gsize) ((1.0 - AUTO_WINDOW_TAIL) * (m - 1) + 0.5)];
}

static void
apply_auto_window (CtrSliceView *self)
{
  self->lo = self->data_min;
  self->hi = self->data_max;
  if (!(self->hi > self->lo))
    {
      double pad = fabs (self->lo) > 0 ? fabs (self->lo) * 0.5 : 1.0;
      self->lo -= pad;
      self->hi += pad;
    }
}

static void
rebuild_texture (CtrSliceView *self)
{
  g_clear_object (&self->texture);

  if (self->image == NULL)
    return;

  const CtrGrid *g = &self->image->grid;
  const float *s = current_slice (self);
  gsize stride = (gsize) g->nx * 3;
  guint8 *pixels = g_malloc (stride * g->ny);
  double scale = 255.0 / (self->hi - self->lo);

  for (guint y = 0; y < g->ny; y++)
    {
      const float *row = s + (gsize) y * g->nx;
      guint8 *out = pixels + (gsize) y * stride;

      for (guint x = 0; x < g->nx; x++)
        {
          double t = (row[x] - self->lo) * scale;
          guint8 grey;

          if (!(t > 0.0))          /* also catches NaN */
            grey = 0;
          else if (t >= 255.0)
            grey = 255;
          else
            grey = (guint8) (t + 0.5);
          out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = grey;
        }
    }

  g_autoptr(GBytes) bytes = g_bytes_new_take (pixels, stride * g->ny);
  self->texture = gdk_memory_texture_new (g->nx, g->ny, GDK_MEMORY_R8G8B8,
                                          bytes, stride);
}

/* Where the image lies in widget coordinates (physical aspect kept). */
static gboolean
image_rect (CtrSliceView    *self,
            graphene_rect_t *rect)
{
  if (self->image == NULL)
    return FALSE;

  const CtrGrid *g = &self->image->grid;
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - 2 * MARGIN;
  double h = gtk_widget_get_height (GTK_WIDGET (self)) - 2 * MARGIN;
  double iw = g->nx * (g->dx > 0 ? g->dx : 1.0);
  double ih = g->ny * (g->dy > 0 ? g->dy : 1.0);

  if (w <= 1 || h <= 1)
    return FALSE;

  double s = MIN (w / iw, h / ih);
  double dw = floor (iw * s), dh = floor (ih * s);

  graphene_rect_init (rect,
                      floor (MARGIN + (w - dw) / 2),
                      floor (MARGIN + (h - dh) / 2),
                      dw, dh);
  return TRUE;
}

static void
draw_text (CtrSliceView *self,
           GtkSnapshot  *snapshot,
           const char   *markup,
           double        x,
           double        y,
           double        x_align,
           double        y_align,
           gboolean      backdrop)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  PangoRectangle ink, logical;
  GdkRGBA fg = { 0.93, 0.93, 0.93, 1.0 };
  GdkRGBA bg = { 0.0, 0.0, 0.0, 0.55 };

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_extents (layout, &ink, &logical);

  double tx = floor (x - x_align * logical.width);
  double ty = floor (y - y_align * logical.height);

  if (backdrop)
    {
      GskRoundedRect r;

      gsk_rounded_rect_init_from_rect (&r,
                                       &GRAPHENE_RECT_INIT (tx - 6, ty - 3,
                                                            logical.width + 12,
                                                            logical.height + 6),
                                       4);
      gtk_snapshot_push_rounded_clip (snapshot, &r);
      gtk_snapshot_append_color (snapshot, &bg, &r.bounds);
      gtk_snapshot_pop (snapshot);
    }

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (tx, ty));
  gtk_snapshot_append_layout (snapshot, layout, &fg);
  gtk_snapshot_restore (snapshot);

  g_object_unref (layout);
}

static void
ctr_slice_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  CtrSliceView *self = CTR_SLICE_VIEW (widget);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  graphene_rect_t rect;

  if (self->texture == NULL || !image_rect (self, &rect))
    {
      if (self->placeholder != NULL)
        {
          g_autofree char *escaped = g_markup_escape_text (self->placeholder, -1);
          g_autofree char *markup =
            g_strdup_printf ("<span alpha='60%%'>%s</span>", escaped);
          draw_text (self, snapshot, markup, w / 2, h / 2, 0.5, 0.5, FALSE);
        }
      return;
    }

  gtk_snapshot_append_texture (snapshot, self->texture, &rect);

  if (self->caption != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (self->caption, -1);
      g_autofree char *markup = g_strdup_printf ("<small>%s</small>", escaped);
      draw_text (self, snapshot, markup, MARGIN + 8, MARGIN + 6, 0, 0, TRUE);
    }

  {
    const CtrGrid *g = &self->image->grid;
    g_autofree char *markup =
      g_strdup_printf ("<small><span font_features='tnum'>"
                       "%u × %u px · %.3g mm\n"
                       "W %.4g  L %.4g%s</span></small>",
                       g->nx, g->ny, g->dx,
                       self->hi - self->lo, 0.5 * (self->hi + self->lo),
                       self->manual_window ? "" : " (auto)");
    draw_text (self, snapshot, markup, MARGIN + 8, h - MARGIN - 6, 0, 1, TRUE);
  }

  if (self->pointer_info != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (self->pointer_info, -1);
      g_autofree char *markup =
        g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>",
                         escaped);
      draw_text (self, snapshot, markup, w - MARGIN - 8, h - MARGIN - 6, 1, 1, TRUE);
    }
}

static void
set_pointer_info (CtrSliceView *self,
                  char         *info)   /* takes ownership */
{
  if (g_strcmp0 (info, self->pointer_info) == 0)
    {
      g_free (info);
      return;
    }
  g_free (self->pointer_info);
  self->pointer_info = info;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POINTER_INFO]);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           CtrSliceView             *self)
{
  graphene_rect_t rect;

  if (!image_rect (self, &rect) || !graphene_rect_contains_point (&rect, &GRAPHENE_POINT_INIT (x, y)))
    {
      set_pointer_info (self, NULL);
      return;
    }

  const CtrGrid *g = &self->image->grid;
  guint ix = MIN (g->nx - 1, (guint) ((x - rect.origin.x) / rect.size.width * g->nx));
  guint iy = MIN (g->ny - 1, (guint) ((y - rect.origin.y) / rect.size.height * g->ny));
  float v = current_slice (self)[(gsize) iy * g->nx + ix];

  set_pointer_info (self,
                    g_strdup_printf ("x %+.1f mm  y %+.1f mm   %.5g %s",
                                     ctr_grid_x (g, ix), ctr_grid_y (g, iy), v,
                                     self->image->unit ? self->image->unit : ""));
}

static void
on_leave (GtkEventControllerMotion *controller,
          CtrSliceView             *self)
{
  set_pointer_info (self, NULL);
}

static void
on_drag_begin (GtkGestureDrag *gesture,
               double          x,
               double          y,
               CtrSliceView   *self)
{
  self->drag_center = 0.5 * (self->lo + self->hi);
  self->drag_width = self->hi - self->lo;
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                CtrSliceView   *self)
{
  if (self->image == NULL)
    return;

  /* Radiology convention: horizontal drag changes the width (contrast),
   * vertical drag moves the level; both relative to the current width. */
  double width = self->drag_width * exp (dx / 250.0);
  double center = self->drag_center + dy / 400.0 * self->drag_width;

  self->lo = center - 0.5 * width;
  self->hi = center + 0.5 * width;
  self->manual_window = TRUE;
  rebuild_texture (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_pressed (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            CtrSliceView    *self)
{
  if (n_press == 2)
    ctr_slice_view_reset_window (self);
}

static void
ctr_slice_view_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  *minimum = 160;
  *natural = 512;
}

static void
ctr_slice_view_dispose (GObject *object)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  g_clear_pointer (&self->image, ctr_volume_unref);
  g_clear_object (&self->texture);

  G_OBJECT_CLASS (ctr_slice_view_parent_class)->dispose (object);
}

static void
ctr_slice_view_finalize (GObject *object)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  g_free (self->caption);
  g_free (self->placeholder);
  g_free (self->pointer_info);

  G_OBJECT_CLASS (ctr_slice_view_parent_class)->finalize (object);
}

static void
ctr_slice_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  switch (prop_id)
    {
    case PROP_CAPTION:
      g_value_set_string (value, self->caption);
      break;
    case PROP_PLACEHOLDER:
      g_value_set_string (value, self->placeholder);
      break;
    case PROP_POINTER_INFO:
      g_value_set_string (value, self->pointer_info);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_slice_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  switch (prop_id)
    {
    case PROP_CAPTION:
      ctr_slice_view_set_caption (self, g_value_get_string (value));
      break;
    case PROP_PLACEHOLDER:
      ctr_slice_view_set_placeholder (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ctr_slice_view_class_init (CtrSliceViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_slice_view_dispose;
  object_class->finalize = ctr_slice_view_finalize;
  object_class->get_property = ctr_slice_view_get_property;
  object_class->set_property = ctr_slice_view_set_property;

  widget_class->snapshot = ctr_slice_view_snapshot;
  widget_class->measure = ctr_slice_view_measure;

  properties[PROP_CAPTION] =
    g_param_spec_string ("caption", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PLACEHOLDER] =
    g_param_spec_string ("placeholder", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* "x … mm  y … mm  value unit" of the pixel under the pointer, or NULL. */
  properties[PROP_POINTER_INFO] =
    g_param_spec_string ("pointer-info", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "ctrsliceview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
ctr_slice_view_init (CtrSliceView *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self),
                               "Drag to change window (horizontal) and level (vertical); "
                               "double-click for the automatic window");
}

GtkWidget *
ctr_slice_view_new (void)
{
  return g_object_new (CTR_TYPE_SLICE_VIEW, NULL);
}

/**
 * ctr_slice_view_set_image:
 * @image: (nullable) (transfer none): a volume; the view keeps a reference.
 * @slice: the slice of @image to show (clamped to nz - 1).
 *
 * Shows @slice of @image.  Unless the user has set a window by dragging, the
 * window follows the new slice's minimum and maximum.
 */
void
ctr_slice_view_set_image (CtrSliceView *self,
                          CtrVolume    *image,
                          guint         slice)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  if (image != NULL)
    ctr_volume_ref (image);
  g_clear_pointer (&self->image, ctr_volume_unref);
  self->image = image;
  self->slice = image != NULL ? MIN (slice, image->grid.nz - 1) : 0;

  if (image != NULL)
    {
      compute_data_range (self);
      if (!self->manual_window)
        apply_auto_window (self);
    }
  else
    self->manual_window = FALSE;

  rebuild_texture (self);
  set_pointer_info (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * ctr_slice_view_get_image:
 * Returns: (transfer none) (nullable): the volume shown.
 */
CtrVolume *
ctr_slice_view_get_image (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  return self->image;
}

/* Back to the automatic window (robust min/max of the slice). */
void
ctr_slice_view_reset_window (CtrSliceView *self)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  self->manual_window = FALSE;
  if (self->image == NULL)
    return;
  apply_auto_window (self);
  rebuild_texture (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_slice_view_set_caption (CtrSliceView *self,
                            const char   *caption)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  if (replace_str (&self->caption, caption))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAPTION]);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

void
ctr_slice_view_set_placeholder (CtrSliceView *self,
                                const char   *placeholder)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  if (replace_str (&self->placeholder, placeholder))
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLACEHOLDER]);
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}
