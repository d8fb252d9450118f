/* ctr-projection-image.c — a pane of the Projections page (see the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>

#include <pango/pangocairo.h>

#include "ctr-projection-image.h"

struct _CtrProjectionImage
{
  GtkWidget        parent_instance;

  GtkLabel        *caption;
  GtkDrawingArea  *area;
  GtkLabel        *readout;
  float           *data;          /* [height][width], owned; NULL when cleared */
  guint            width, height;
  CtrImageScale    scale;
  float            lo, hi;        /* the colour range */
  char            *x_name, *y_name, *unit;
  gboolean         keep_aspect;
  int              marker;        /* line marked, -1 none */
  cairo_surface_t *surface;       /* the image in colour, width × height */
  char            *range_text;    /* the readout when the pointer is away */
  char            *message;       /* drawn in place of a cleared image */
};

G_DEFINE_FINAL_TYPE (CtrProjectionImage, ctr_projection_image, GTK_TYPE_WIDGET)

/* The image's rectangle in the area: its origin and the pixel's size. */
static void
placement (CtrProjectionImage *self, int aw, int ah, double *x0, double *y0, double *sx, double *sy)
{
  *sx = (double) aw / self->width;
  *sy = (double) ah / self->height;
  if (self->keep_aspect)
    *sx = *sy = MIN (*sx, *sy);
  *x0 = floor ((aw - *sx * self->width) / 2);
  *y0 = floor ((ah - *sy * self->height) / 2);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int aw, int ah, gpointer data)
{
  CtrProjectionImage *self = data;
  double x0, y0, sx, sy;

  cairo_set_source_rgb (cr, 0.12, 0.12, 0.12);
  cairo_paint (cr);
  if (self->surface == NULL)
    {
      if (self->message != NULL)
        {
          PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), self->message);
          int tw, th;

          pango_layout_set_width (layout, MAX (aw - 16, 1) * PANGO_SCALE);
          pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
          pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
          pango_layout_get_pixel_size (layout, &tw, &th);
          cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
          cairo_move_to (cr, 8, (ah - th) / 2.0);
          pango_cairo_show_layout (cr, layout);
          g_object_unref (layout);
        }
      return;
    }
  placement (self, aw, ah, &x0, &y0, &sx, &sy);
  cairo_save (cr);
  cairo_translate (cr, x0, y0);
  cairo_scale (cr, sx, sy);
  cairo_set_source_surface (cr, self->surface, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  if (self->marker >= 0 && (guint) self->marker < self->height)
    {
      double y = y0 + (self->marker + 0.5) * sy;
      cairo_set_source_rgba (cr, 1.0, 0.8, 0.0, 0.8);
      cairo_set_line_width (cr, 1.0);
      cairo_move_to (cr, x0, floor (y) + 0.5);
      cairo_line_to (cr, x0 + sx * self->width, floor (y) + 0.5);
      cairo_stroke (cr);
    }
}

static guint32
colour (CtrProjectionImage *self, float v)
{
  double t;
  guint8 r, g, b;

  if (!isfinite (v))
    return 0xff808080u;
  if (self->scale == CTR_IMAGE_GREY)
    {
      t = self->hi > self->lo ? (v - self->lo) / (self->hi - self->lo) : 0.5;
      r = g = b = (guint8) lround (255 * CLAMP (t, 0.0, 1.0));
    }
  else
    {
      /* white at 0, saturated blue at −max, red at +max */
      t = self->hi > 0 ? CLAMP (v / self->hi, -1.0, 1.0) : 0.0;
      guint8 fade = (guint8) lround (255 * (1.0 - fabs (t)));
      r = t > 0 ? 255 : fade;
      b = t < 0 ? 255 : fade;
      g = fade;
    }
  return 0xff000000u | ((guint32) r << 16) | ((guint32) g << 8) | b;
}

static void
build_surface (CtrProjectionImage *self)
{
  int stride;
  guchar *pixels;

  g_clear_pointer (&self->surface, cairo_surface_destroy);
  self->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, self->width, self->height);
  if (cairo_surface_status (self->surface) != CAIRO_STATUS_SUCCESS)
    {
      g_clear_pointer (&self->surface, cairo_surface_destroy);
      return;
    }
  cairo_surface_flush (self->surface);
  stride = cairo_image_surface_get_stride (self->surface);
  pixels = cairo_image_surface_get_data (self->surface);
  for (guint y = 0; y < self->height; y++)
    {
      guint32 *line = (guint32 *) (pixels + (gsize) y * stride);
      const float *in = self->data + (gsize) y * self->width;
      for (guint x = 0; x < self->width; x++)
        line[x] = colour (self, in[x]);
    }
  cairo_surface_mark_dirty (self->surface);
}

static void
on_motion (GtkEventControllerMotion *motion, double px, double py, CtrProjectionImage *self)
{
  double x0, y0, sx, sy;
  g_autofree char *text = NULL;

  if (self->data == NULL)
    return;
  placement (self, gtk_widget_get_width (GTK_WIDGET (self->area)), gtk_widget_get_height (GTK_WIDGET (self->area)),
             &x0, &y0, &sx, &sy);
  double fx = floor ((px - x0) / sx), fy = floor ((py - y0) / sy);
  if (fx < 0 || fy < 0 || fx >= self->width || fy >= self->height)
    {
      gtk_label_set_text (self->readout, self->range_text);
      return;
    }
  guint x = (guint) fx, y = (guint) fy;
  text = g_strdup_printf ("%s %u, %s %u: %.4g%s%s", self->y_name, y, self->x_name, x,
                          self->data[(gsize) y * self->width + x], self->unit ? " " : "", self->unit ? self->unit : "");
  gtk_label_set_text (self->readout, text);
}

static void
on_leave (GtkEventControllerMotion *motion, CtrProjectionImage *self)
{
  gtk_label_set_text (self->readout, self->range_text != NULL ? self->range_text : "");
}

void
ctr_projection_image_set_data (CtrProjectionImage *self, const float *data, guint width, guint height,
                               CtrImageScale scale, const char *x_name, const char *y_name, const char *unit,
                               gboolean keep_aspect)
{
  gsize n = (gsize) width * height;
  float lo = INFINITY, hi = -INFINITY;

  g_return_if_fail (CTR_IS_PROJECTION_IMAGE (self));
  g_return_if_fail (data != NULL && width > 0 && height > 0);

  g_free (self->data);
  self->data = g_memdup2 (data, n * sizeof (float));
  self->width = width;
  self->height = height;
  self->scale = scale;
  self->keep_aspect = keep_aspect;
  g_free (self->x_name);
  g_free (self->y_name);
  g_free (self->unit);
  self->x_name = g_strdup (x_name);
  self->y_name = g_strdup (y_name);
  self->unit = g_strdup (unit);
  for (gsize i = 0; i < n; i++)
    if (isfinite (data[i]))
      {
        lo = MIN (lo, data[i]);
        hi = MAX (hi, data[i]);
      }
  if (lo > hi)
    lo = hi = 0;
  g_free (self->range_text);
  if (scale == CTR_IMAGE_SIGNED)
    {
      self->hi = MAX (fabsf (lo), fabsf (hi));
      self->lo = -self->hi;
      self->range_text = g_strdup_printf ("%u × %u, from %.3g to %.3g (colours ±%.3g)", width, height, lo, hi,
                                          self->hi);
    }
  else
    {
      self->lo = lo;
      self->hi = hi;
      self->range_text = g_strdup_printf ("%u × %u, %.4g to %.4g%s%s", width, height, lo, hi, unit ? " " : "",
                                          unit ? unit : "");
    }
  build_surface (self);
  g_clear_pointer (&self->message, g_free);
  gtk_label_set_text (self->readout, self->range_text);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

void
ctr_projection_image_set_window (CtrProjectionImage *self, float lo, float hi)
{
  g_return_if_fail (CTR_IS_PROJECTION_IMAGE (self));
  if (self->data == NULL || self->scale != CTR_IMAGE_GREY || !(hi > lo))
    return;
  self->lo = lo;
  self->hi = hi;
  build_surface (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

gboolean
ctr_projection_image_get_window (CtrProjectionImage *self, float *lo, float *hi)
{
  g_return_val_if_fail (CTR_IS_PROJECTION_IMAGE (self), FALSE);
  *lo = self->lo;
  *hi = self->hi;
  return self->data != NULL;
}

void
ctr_projection_image_clear (CtrProjectionImage *self, const char *message)
{
  g_return_if_fail (CTR_IS_PROJECTION_IMAGE (self));
  g_clear_pointer (&self->data, g_free);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->range_text, g_free);
  g_free (self->message);
  self->message = g_strdup (message);
  self->width = self->height = 0;
  gtk_label_set_text (self->readout, "");
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

void
ctr_projection_image_set_marker (CtrProjectionImage *self, int line)
{
  g_return_if_fail (CTR_IS_PROJECTION_IMAGE (self));
  if (self->marker == line)
    return;
  self->marker = line;
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

void
ctr_projection_image_set_caption (CtrProjectionImage *self, const char *caption)
{
  g_return_if_fail (CTR_IS_PROJECTION_IMAGE (self));
  gtk_label_set_text (self->caption, caption);
}

const float *
ctr_projection_image_peek (CtrProjectionImage *self, guint *width, guint *height)
{
  g_return_val_if_fail (CTR_IS_PROJECTION_IMAGE (self), NULL);
  *width = self->width;
  *height = self->height;
  return self->data;
}

const char *
ctr_projection_image_get_readout (CtrProjectionImage *self)
{
  g_return_val_if_fail (CTR_IS_PROJECTION_IMAGE (self), NULL);
  return gtk_label_get_text (self->readout);
}

static void
ctr_projection_image_dispose (GObject *object)
{
  CtrProjectionImage *self = CTR_PROJECTION_IMAGE (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->data, g_free);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_pointer (&self->range_text, g_free);
  g_clear_pointer (&self->message, g_free);
  g_clear_pointer (&self->x_name, g_free);
  g_clear_pointer (&self->y_name, g_free);
  g_clear_pointer (&self->unit, g_free);
  G_OBJECT_CLASS (ctr_projection_image_parent_class)->dispose (object);
}

static void
ctr_projection_image_class_init (CtrProjectionImageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ctr_projection_image_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BOX_LAYOUT);
}

static void
ctr_projection_image_init (CtrProjectionImage *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 2);
  self->marker = -1;
  self->caption = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->caption, 0);
  gtk_label_set_ellipsize (self->caption, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (self->caption), "heading");
  self->area = GTK_DRAWING_AREA (gtk_drawing_area_new ());
  gtk_drawing_area_set_content_width (self->area, 120);
  gtk_drawing_area_set_content_height (self->area, 120);
  gtk_widget_set_hexpand (GTK_WIDGET (self->area), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->area), TRUE);
  gtk_drawing_area_set_draw_func (self->area, draw, self, NULL);
  self->readout = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->readout, 0);
  gtk_label_set_ellipsize (self->readout, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (self->readout), "caption");
  gtk_widget_add_css_class (GTK_WIDGET (self->readout), "numeric");
  gtk_widget_set_parent (GTK_WIDGET (self->caption), GTK_WIDGET (self));
  gtk_widget_set_parent (GTK_WIDGET (self->area), GTK_WIDGET (self));
  gtk_widget_set_parent (GTK_WIDGET (self->readout), GTK_WIDGET (self));
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self->area), motion);
}

GtkWidget *
ctr_projection_image_new (const char *name, const char *caption)
{
  CtrProjectionImage *self = g_object_new (CTR_TYPE_PROJECTION_IMAGE, NULL);

  gtk_widget_set_name (GTK_WIDGET (self), name);
  gtk_label_set_text (self->caption, caption);
  return GTK_WIDGET (self);
}
