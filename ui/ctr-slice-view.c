/* ctr-slice-view.c — one slice of a float image, shown in grey with window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The slice is mapped to 8-bit grey through a linear window [lo, hi] and
 * uploaded once per image (or window change) as a GdkMemoryTexture; drawing
 * only scales that texture.  The window starts at the image's robust minimum
 * and maximum (0.1st and 99.9th percentiles of the whole volume, so that
 * paging slices and planes keeps one window) and follows every new image
 * until the user drags it (horizontal:
 * width, vertical: level); a double click returns to the automatic window.
 * Images in 1/mm can be shown in Hounsfield units (a window preset of
 * ctr-hu-preset.h, or ctr_slice_view_set_hu): the colour bar's ends, the
 * window label and the pointer read-out then read HU with the μ_water used.
 * The read-out sits above the size and window label at the bottom left,
 * both wrapped within the view; their text is ctr-slice-view-text.c's.
 * The display keeps the physical aspect ratio (nx·dx by ny·dy).  Row 0 of the
 * slice is +y and is drawn at the top (FORMAT.md), so no flip is needed.
 *
 * Zoom (scroll wheel, about the pointer) and pan (middle or Shift+drag) are
 * one state (zoom, pan) that ctr_slice_view_set_zoom_pan() can set from
 * outside, so several views can be linked (the comparison view): every view
 * emits "view-changed" and "window-changed" when the user moves it.  With the
 * profile tool on, a primary drag draws a segment (in mm, the image's own
 * frame) and emits "segment-changed"; a colour bar with the window's ends is
 * drawn at the right edge.  What is drawn over the image (segment, the
 * window's ROIs and ruler, colour bar), the widget/mm mapping and the ROI
 * and ruler tools are ctr-slice-view-overlay.c's.  The crosshair, the voxel
 * a click picks and the slice read-out of a volume are
 * ctr-slice-view-cross.c's.
 */
#define G_LOG_DOMAIN "ctr-slice-view"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctr-slice-view-private.h"

enum { DRAG_WINDOW, DRAG_SEGMENT, DRAG_PAN, DRAG_TOOL };

enum {
  SIGNAL_VIEW_CHANGED,
  SIGNAL_WINDOW_CHANGED,
  SIGNAL_SEGMENT_CHANGED,
  SIGNAL_VOXEL_PICKED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

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

static void
update_plane (CtrSliceView *self)
{
  if (self->image == NULL)
    {
      ctr_slice_plane_clear (&self->plane);
      return;
    }
  g_autoptr(GError) error = NULL;
  g_clear_pointer (&self->memory_error, g_free);
  if (!ctr_slice_plane_extract (&self->plane, self->image, self->orientation, self->slice, &error))
    self->memory_error = g_strdup (error->message);
  self->slice = self->plane.index;
}

/* The automatic window is the whole image's (every slice of a volume):
 * one window for every slice and plane, computed once per image. */
static void
compute_data_range (CtrSliceView *self)
{
  ctr_slice_plane_volume_range (self->image, &self->data_min, &self->data_max);
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
  g_autoptr(GError) error = NULL;
  g_clear_object (&self->texture);
  if (self->image != NULL && self->plane.data != NULL)
    {
      g_clear_pointer (&self->memory_error, g_free);
      self->texture = ctr_slice_plane_texture (&self->plane, self->lo, self->hi, &error);
      if (self->texture == NULL)
        self->memory_error = g_strdup (error->message);
    }
}

/* Draws @markup anchored at (@x, @y); wrapped within @max_width pixels
 * when > 0; its box (backdrop included) in @box when given. */
static void
draw_text_in (CtrSliceView    *self,
              GtkSnapshot     *snapshot,
              const char      *markup,
              double           x,
              double           y,
              double           x_align,
              double           y_align,
              gboolean         backdrop,
              double           max_width,
              graphene_rect_t *box)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  PangoRectangle ink, logical;
  GdkRGBA fg = { 0.93, 0.93, 0.93, 1.0 };
  GdkRGBA bg = { 0.0, 0.0, 0.0, 0.55 };

  pango_layout_set_markup (layout, markup, -1);
  if (max_width > 0)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  pango_layout_get_pixel_extents (layout, &ink, &logical);

  double tx = floor (x - x_align * logical.width);
  double ty = floor (y - y_align * logical.height);

  if (box != NULL)
    graphene_rect_init (box, tx - 6, ty - 3, logical.width + 12, logical.height + 6);

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
draw_text (CtrSliceView *self,
           GtkSnapshot  *snapshot,
           const char   *markup,
           double        x,
           double        y,
           double        x_align,
           double        y_align,
           gboolean      backdrop)
{
  draw_text_in (self, snapshot, markup, x, y, x_align, y_align, backdrop, 0, NULL);
}

static void
ctr_slice_view_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  CtrSliceView *self = CTR_SLICE_VIEW (widget);
  double w = gtk_widget_get_width (widget);
  double h = gtk_widget_get_height (widget);
  graphene_rect_t rect;

  if (self->texture == NULL || !_ctr_slice_view_image_rect (self, &rect))
    {
      if (self->image != NULL && self->memory_error != NULL)
        {
          /* out of memory for the plane or its picture: say so, in place of the image */
          g_autofree char *escaped = g_markup_escape_text (self->memory_error, -1);
          g_autofree char *markup = g_strdup_printf ("<b>Cannot show this image</b>\n%s", escaped);
          draw_text_in (self, snapshot, markup, w / 2, h / 2, 0.5, 0.5, TRUE, 0.9 * w, NULL);
        }
      else if (self->placeholder != NULL)
        {
          g_autofree char *escaped = g_markup_escape_text (self->placeholder, -1);
          g_autofree char *markup =
            g_strdup_printf ("<span alpha='60%%'>%s</span>", escaped);
          draw_text (self, snapshot, markup, w / 2, h / 2, 0.5, 0.5, FALSE);
        }
      return;
    }

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_snapshot_append_texture (snapshot, self->texture, &rect);
  _ctr_slice_view_draw_crosshair (self, snapshot, &rect);
  gtk_snapshot_pop (snapshot);

  {
    cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
    _ctr_slice_view_draw_overlay (self, cr, &rect, w, h);
    cairo_destroy (cr);
  }
  if (!self->compact)
  {
    double bh = MIN (200, h / 2.5), by = MARGIN + 28, bx = w - MARGIN - 14;
    g_autofree char *hi_text = _ctr_slice_view_format_value (self, self->hi);
    g_autofree char *lo_text = _ctr_slice_view_format_value (self, self->lo);
    g_autofree char *hi = g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>", hi_text);
    g_autofree char *lo = g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>", lo_text);
    draw_text (self, snapshot, hi, bx - 8, by, 1, 0.3, TRUE);
    draw_text (self, snapshot, lo, bx - 8, by + bh, 1, 0.7, TRUE);
  }

  {
    /* top left: the caption, and under it which slice of a volume this is */
    g_autofree char *where = ctr_slice_view_describe_slice (self);
    graphene_rect_t box = GRAPHENE_RECT_INIT (0, MARGIN, 0, 0);
    double max_w = w - 2 * MARGIN - 16 - (self->compact ? 0 : 60);

    if (self->caption != NULL)
      {
        g_autofree char *escaped = g_markup_escape_text (self->caption, -1);
        g_autofree char *markup = g_strdup_printf ("<small>%s</small>", escaped);
        draw_text_in (self, snapshot, markup, MARGIN + 8, MARGIN + 6, 0, 0, TRUE, MAX (max_w, 40), &box);
      }
    if (where != NULL)
      {
        g_autofree char *escaped = g_markup_escape_text (where, -1);
        g_autofree char *markup = g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>", escaped);
        draw_text_in (self, snapshot, markup, MARGIN + 8, box.origin.y + box.size.height + 9, 0, 0, TRUE,
                      MAX (max_w, 40), NULL);
      }
  }

  /* bottom left: size and window; the pointer read-out above them, both
   * wrapped within the view so that neither covers the other nor is cut */
  {
    double max_w = w - 2 * MARGIN - 16 - (self->compact ? 0 : 60);   /* clear of the colour bar's labels */
    g_autofree char *text = ctr_slice_view_describe_window (self);
    g_autofree char *escaped = g_markup_escape_text (text, -1);
    g_autofree char *markup = g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>", escaped);

    /* a compact view leaves the size and window to the main view's label */
    if (!self->compact)
      draw_text_in (self, snapshot, markup, MARGIN + 8, h - MARGIN - 6, 0, 1, TRUE, MAX (max_w, 40), &self->label_box);
    else
      graphene_rect_init (&self->label_box, MARGIN + 8, h - MARGIN, 0, 0);
    graphene_rect_init (&self->readout_box, 0, 0, 0, 0);
    if (self->pointer_info != NULL)
      {
        g_autofree char *info = g_markup_escape_text (self->pointer_info, -1);
        g_autofree char *info_markup =
          g_strdup_printf ("<small><span font_features='tnum'>%s</span></small>", info);
        draw_text_in (self, snapshot, info_markup, MARGIN + 8, self->label_box.origin.y - 6, 0, 1, TRUE,
                      MAX (max_w, 40), &self->readout_box);
      }
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

void
ctr_slice_view_point_at (CtrSliceView *self,
                         double        x,
                         double        y)
{
  graphene_rect_t rect;

  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  self->pointer_x = x;
  self->pointer_y = y;
  if (!_ctr_slice_view_image_rect (self, &rect) || !graphene_rect_contains_point (&rect, &GRAPHENE_POINT_INIT (x, y)))
    {
      set_pointer_info (self, NULL);
      return;
    }

  const CtrGrid *g = &self->plane.grid;
  guint ix = MIN (g->nx - 1, (guint) ((x - rect.origin.x) / rect.size.width * g->nx));
  guint iy = MIN (g->ny - 1, (guint) ((y - rect.origin.y) / rect.size.height * g->ny));

  set_pointer_info (self, ctr_slice_view_describe_pixel (self, ix, iy));
}

gboolean
ctr_slice_view_get_pointer (CtrSliceView *self,
                            double       *x,
                            double       *y)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  *x = self->pointer_x;
  *y = self->pointer_y;
  return self->pointer_info != NULL;
}

static void
on_motion (GtkEventControllerMotion *controller,
           double                    x,
           double                    y,
           CtrSliceView             *self)
{
  ctr_slice_view_point_at (self, x, y);
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
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));
  graphene_rect_t rect;

  self->drag_center = 0.5 * (self->lo + self->hi);
  self->drag_width = self->hi - self->lo;
  self->drag_x = x;
  self->drag_y = y;
  self->drag_pan_x = self->pan_x;
  self->drag_pan_y = self->pan_y;
  if (button == GDK_BUTTON_MIDDLE || (mods & GDK_SHIFT_MASK))
    self->drag_mode = DRAG_PAN;
  else if (self->profile_tool && _ctr_slice_view_image_rect (self, &rect))
    {
      self->drag_mode = DRAG_SEGMENT;
      _ctr_slice_view_widget_to_mm (self, &rect, x, y, &self->segment[0], &self->segment[1]);
      self->segment[2] = self->segment[0];
      self->segment[3] = self->segment[1];
    }
  else if (_ctr_slice_view_tool_begin (self, x, y))
    self->drag_mode = DRAG_TOOL;   /* an ROI or the ruler (ctr-slice-view-overlay.c) */
  else
    self->drag_mode = DRAG_WINDOW;
}

static void
on_drag_update (GtkGestureDrag *gesture,
                double          dx,
                double          dy,
                CtrSliceView   *self)
{
  if (self->image == NULL)
    return;

  if (self->drag_mode == DRAG_PAN)
    {
      graphene_rect_t rect;
      if (_ctr_slice_view_image_rect (self, &rect))
        {
          self->pan_x = self->drag_pan_x + dx / rect.size.width;
          self->pan_y = self->drag_pan_y + dy / rect.size.height;
          gtk_widget_queue_draw (GTK_WIDGET (self));
          g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
        }
      return;
    }
  if (self->drag_mode == DRAG_TOOL)
    {
      _ctr_slice_view_tool_update (self, self->drag_x + dx, self->drag_y + dy);
      return;
    }
  if (self->drag_mode == DRAG_SEGMENT)
    {
      graphene_rect_t rect;
      if (_ctr_slice_view_image_rect (self, &rect))
        {
          _ctr_slice_view_widget_to_mm (self, &rect, self->drag_x + dx, self->drag_y + dy, &self->segment[2], &self->segment[3]);
          self->have_segment = TRUE;
          gtk_widget_queue_draw (GTK_WIDGET (self));
          g_signal_emit (self, signals[SIGNAL_SEGMENT_CHANGED], 0);
        }
      return;
    }

  /* Radiology convention: horizontal drag changes the width (contrast),
   * vertical drag moves the level; both relative to the current width. */
  double width = self->drag_width * exp (dx / 250.0);
  double center = self->drag_center + dy / 400.0 * self->drag_width;

  self->lo = center - 0.5 * width;
  self->hi = center + 0.5 * width;
  self->manual_window = TRUE;
  rebuild_texture (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_WINDOW_CHANGED], 0);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double                    dx,
           double                    dy,
           CtrSliceView             *self)
{
  graphene_rect_t before, after;
  double px, py, xm, ym, nx, ny;

  if (!_ctr_slice_view_image_rect (self, &before))
    return FALSE;
  /* keep the image point under the pointer where it is */
  px = self->pointer_x;
  py = self->pointer_y;
  _ctr_slice_view_widget_to_mm (self, &before, px, py, &xm, &ym);
  self->zoom = CLAMP (self->zoom * exp (-0.15 * dy), 0.25, 32.0);
  _ctr_slice_view_image_rect (self, &after);
  _ctr_slice_view_mm_to_widget (self, &after, xm, ym, &nx, &ny);
  self->pan_x += (px - nx) / after.size.width;
  self->pan_y += (py - ny) / after.size.height;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_VIEW_CHANGED], 0);
  return TRUE;
}

static void
on_pressed (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            CtrSliceView    *self)
{
  if (n_press == 2)
    ctr_slice_view_apply_preset (self, "auto");
}

/* A primary click that neither drew nor moved anything picks the voxel
 * under it (the linked crosshair). */
static void
on_released (GtkGestureClick *gesture,
             int              n_press,
             double           x,
             double           y,
             CtrSliceView    *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (n_press == 1 && self->drag_mode == DRAG_WINDOW && !(mods & GDK_SHIFT_MASK))
    ctr_slice_view_click_at (self, x, y);
}

void
_ctr_slice_view_voxel_picked (CtrSliceView *self, const guint voxel[3])
{
  g_signal_emit (self, signals[SIGNAL_VOXEL_PICKED], 0, voxel[0], voxel[1], voxel[2]);
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
  CtrSliceView *self = CTR_SLICE_VIEW (widget);

  *minimum = 160;
  *natural = MAX (self->natural_size, 160);
}

static void
ctr_slice_view_dispose (GObject *object)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  ctr_slice_view_set_roi_set (self, NULL);
  g_clear_pointer (&self->image, ctr_volume_unref);
  ctr_slice_plane_clear (&self->plane);
  g_clear_object (&self->texture);

  G_OBJECT_CLASS (ctr_slice_view_parent_class)->dispose (object);
}

static void
ctr_slice_view_finalize (GObject *object)
{
  CtrSliceView *self = CTR_SLICE_VIEW (object);

  g_free (self->caption);
  g_free (self->placeholder);
  g_free (self->memory_error);
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

  /* The user zoomed or panned (ctr_slice_view_get_zoom_pan). */
  signals[SIGNAL_VIEW_CHANGED] =
    g_signal_new ("view-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* The user changed window/level (ctr_slice_view_get_window). */
  signals[SIGNAL_WINDOW_CHANGED] =
    g_signal_new ("window-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* The profile segment moved (ctr_slice_view_get_segment). */
  signals[SIGNAL_SEGMENT_CHANGED] =
    g_signal_new ("segment-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  /* A click picked voxel (i, j, k) = (column, row, slice) of the volume
   * shown (ctr_slice_view_click_at). */
  signals[SIGNAL_VOXEL_PICKED] =
    g_signal_new ("voxel-picked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_UINT);

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
  g_signal_connect (click, "released", G_CALLBACK (on_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));

  {
    GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
    gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  }
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), 0);
  self->zoom = 1.0;
  self->natural_size = 512;

  /* no tooltip: resting on the image would cover it (the Run page's slice
   * toolbar holds the hints) */
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
}

GtkWidget *
ctr_slice_view_new (void)
{
  return g_object_new (CTR_TYPE_SLICE_VIEW, NULL);
}

/**
 * ctr_slice_view_set_image:
 * @image: (nullable) (transfer none): a volume; the view keeps a reference.
 * @slice: the slice of @image to show along the view's orientation (the
 *   axial slice z, the coronal row y, the sagittal column x; clamped).
 *
 * Shows @slice of @image.  Unless a window was set (a drag, a preset), the
 * window follows the new image's robust minimum and maximum — the whole
 * image's, so that paging slices and planes keeps it.
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
  self->slice = slice;
  update_plane (self);

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

const char *
ctr_slice_view_get_problem (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  return self->image != NULL ? self->memory_error : NULL;
}

void
ctr_slice_view_set_natural_size (CtrSliceView *self, int size)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  self->natural_size = size;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
ctr_slice_view_set_compact (CtrSliceView *self, gboolean compact)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  self->compact = !!compact;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ctr_slice_view_get_window_auto (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), TRUE);
  return !self->manual_window;
}

/* Back to the automatic window (robust min/max of the image). */
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

/* ---- zoom, pan, window, profile segment -------------------------------- */

void
ctr_slice_view_get_zoom_pan (CtrSliceView *self, double *zoom, double *pan_x, double *pan_y)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  *zoom = self->zoom;
  *pan_x = self->pan_x;
  *pan_y = self->pan_y;
}

/* Sets zoom (1 = fit, clamped to [0.25, 32]) and pan (fractions of the shown
 * image size); emits nothing, so linked views can call it on each other. */
void
ctr_slice_view_set_zoom_pan (CtrSliceView *self, double zoom, double pan_x, double pan_y)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  self->zoom = CLAMP (zoom, 0.25, 32.0);
  self->pan_x = pan_x;
  self->pan_y = pan_y;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_slice_view_get_window (CtrSliceView *self, double *lo, double *hi)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  *lo = self->lo;
  *hi = self->hi;
}

/* A fixed window [lo, hi] (in the image's unit) that new images keep; emits
 * nothing. */
void
ctr_slice_view_set_window (CtrSliceView *self, double lo, double hi)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  if (!(hi > lo) || !isfinite (lo) || !isfinite (hi))
    return;
  self->lo = lo;
  self->hi = hi;
  self->manual_window = TRUE;
  rebuild_texture (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* With @enabled, a primary drag draws the profile segment instead of
 * changing the window. */
void
ctr_slice_view_set_profile_tool (CtrSliceView *self, gboolean enabled)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  self->profile_tool = !!enabled;
}

/* The segment in mm (x0, y0, x1, y1; image frame); FALSE when none. */
gboolean
ctr_slice_view_get_segment (CtrSliceView *self, double segment[4])
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (!self->have_segment)
    return FALSE;
  memcpy (segment, self->segment, sizeof self->segment);
  return TRUE;
}

/* Sets (or with NULL clears) the segment, and emits "segment-changed". */
void
ctr_slice_view_set_segment (CtrSliceView *self, const double segment[4])
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  self->have_segment = segment != NULL;
  if (segment != NULL)
    memcpy (self->segment, segment, sizeof self->segment);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_SEGMENT_CHANGED], 0);
}

guint
ctr_slice_view_get_slice (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), 0);
  return self->slice;
}

/* ---- orientation and slice of volumes ---------------------------------- */

/* Axial, coronal or sagittal plane of a volume (nz > 1); a 2-D image is
 * always shown as it is.  The slice moves to the middle of the new axis. */
void
ctr_slice_view_set_orientation (CtrSliceView *self, CtrSliceOrientation orientation)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  if (self->orientation == (int) orientation)
    return;
  self->orientation = orientation;
  if (self->image != NULL)
    {
      const CtrGrid *g = &self->image->grid;
      self->slice = orientation == CTR_SLICE_AXIAL ? g->nz / 2 : orientation == CTR_SLICE_CORONAL ? g->ny / 2 : g->nx / 2;
      update_plane (self);   /* the window is the image's: it stays */
      rebuild_texture (self);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Slices along the current orientation's axis (0 without an image). */
guint
ctr_slice_view_get_n_slices (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), 0);
  return ctr_slice_plane_count (self->image, self->orientation);
}

void
ctr_slice_view_set_slice (CtrSliceView *self, guint slice)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  if (self->image == NULL)
    return;
  self->slice = MIN (slice, MAX (ctr_slice_view_get_n_slices (self), 1) - 1);
  update_plane (self);   /* the window is the image's: it stays */
  rebuild_texture (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
_ctr_slice_view_window_changed (CtrSliceView *self)
{
  g_signal_emit (self, signals[SIGNAL_WINDOW_CHANGED], 0);
}
