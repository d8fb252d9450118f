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

/* Whether tick mantissa @m (1…9) is drawn, and labelled, at @level:
 * 0 decades, 1 one-two-five, 2 one-two-three-five, 3 every m. */
static gboolean
mantissa_in (int m, int level)
{
  switch (level)
    {
    case 0: return m == 1;
    case 1: return m == 1 || m == 2 || m == 5;
    case 2: return m == 1 || m == 2 || m == 3 || m == 5;
    default: return TRUE;
    }
}

static guint
log_ticks_at (double lo, double hi, int drawn, int shown, double *values, gboolean *labelled, guint max,
              guint *n_labelled)
{
  guint n = 0;

  *n_labelled = 0;
  for (int e = (int) floor (lo) - 1; e <= (int) ceil (hi) && n < max; e++)
    for (int m = 1; m <= 9 && n < max; m++)
      {
        double v = m * pow (10, e);
        double t = log10 (v);

        if (t < lo - 1e-9 || t > hi + 1e-9 || !mantissa_in (m, drawn))
          continue;
        values[n] = v;
        labelled[n] = mantissa_in (m, shown);
        *n_labelled += labelled[n];
        n++;
      }
  return n;
}

guint
ctr_plot_log_ticks (double lo, double hi, double *values, gboolean *labelled, guint max)
{
  double span = hi - lo;
  int drawn = span > 1.2 ? 1 : 3;
  guint n = 0, n_labelled = 0;

  g_return_val_if_fail (hi > lo && values != NULL && labelled != NULL, 0);
  for (int shown = span > 2.5 ? 0 : span > 1.2 ? 1 : span > 0.5 ? 2 : 3; shown <= 3; shown++)
    {
      n = log_ticks_at (lo, hi, MAX (drawn, shown), shown, values, labelled, max, &n_labelled);
      if (n_labelled >= 3)
        return n;
    }
  {
    /* within one decade: linear 1-2-5 steps of its own */
    double vlo = pow (10, lo), vhi = pow (10, hi);
    double step = ctr_plot_nice_step ((vhi - vlo) / 4);

    n = 0;
    for (double v = ceil (vlo / step - 1e-9) * step; v <= vhi * (1 + 1e-12) && n < max; v += step)
      {
        values[n] = v;
        labelled[n++] = TRUE;
      }
  }
  return n;
}

void
ctr_plot_color_of_run (CtrRun *run, GdkRGBA *color)
{
  const char *picked = ctr_run_get_color (run);
  if (picked == NULL || !gdk_rgba_parse (color, picked))
    ctr_plot_run_color (ctr_run_get_number (run) - 1, color);
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

void
ctr_plot_draw_legend_entry (cairo_t *cr, GtkWidget *widget, const GdkRGBA *color, gboolean dashed,
                            const char *markup, const GdkRGBA *fg, double left, double right,
                            double *x, double *top)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  int tw, th;
  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  g_object_unref (layout);
  if (*x > left && *x + 24 + tw > right)
    {
      *x = left;
      *top += 18;
    }
  gdk_cairo_set_source_rgba (cr, color);
  cairo_set_line_width (cr, 2.5);
  if (dashed)
    cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
  cairo_move_to (cr, *x, *top + 8);
  cairo_line_to (cr, *x + 18, *top + 8);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
  ctr_plot_draw_text (cr, widget, markup, *x + 22, *top + 8, 0, 0.5);
  *x += 22 + tw + 14;
}

void
ctr_plot_draw_frame (cairo_t *cr, double x0, double y0, double pw, double ph, const GdkRGBA *fg)
{
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.55);
  cairo_move_to (cr, x0 + 0.5, y0);
  cairo_line_to (cr, x0 + 0.5, y0 + ph + 0.5);
  cairo_line_to (cr, x0 + pw, y0 + ph + 0.5);
  cairo_stroke (cr);
}
