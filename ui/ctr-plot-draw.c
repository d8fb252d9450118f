/* ctr-plot-draw.c — see ctr-plot-draw.h. */
#include "ctr-plot-draw.h"

#include <math.h>

double
ctr_plot_nice_step (double raw)
{
  double e = pow (10, floor (log10 (raw)));
  double f = raw / e;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

void
ctr_plot_run_color (guint index, GdkRGBA *color)
{
  static const GdkRGBA palette[] = {
    { 0x1c / 255., 0x71 / 255., 0xd8 / 255., 1 },
    { 0xe6 / 255., 0x61 / 255., 0x00 / 255., 1 },
    { 0x26 / 255., 0xa2 / 255., 0x69 / 255., 1 },
    { 0x91 / 255., 0x41 / 255., 0xac / 255., 1 },
    { 0xe0 / 255., 0x1b / 255., 0x24 / 255., 1 },
    { 0x98 / 255., 0x6a / 255., 0x44 / 255., 1 },
  };
  *color = palette[index % G_N_ELEMENTS (palette)];
}

int
ctr_plot_draw_text (cairo_t *cr, GtkWidget *widget, const char *markup,
                    double x, double y, double x_align, double y_align)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  int w, h;
  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, round (x - x_align * w), round (y - y_align * h));
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
  return w;
}
