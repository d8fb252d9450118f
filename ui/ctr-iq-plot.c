/* ctr-iq-plot.c — curves of frequency of several runs overlaid (see
 * ctr-iq-plot.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * x: spatial frequency in cycles/mm from 0 to the largest x of any curve
 * (the Nyquist frequency); y: from 0 (or the smallest value) to the largest.
 * The legend names each curve in its run's colour above the axes.
 */
#define G_LOG_DOMAIN "ctr-iq-plot"

#include <math.h>

#include "ctr-iq-plot.h"
#include "ctr-plot-draw.h"

typedef struct {
  char    *name;
  GdkRGBA  color;
  gboolean dashed;
  guint    n;
  double  *x, *y;
} Curve;

struct _CtrIqPlot
{
  GtkDrawingArea  parent_instance;
  GPtrArray      *curves;
  char           *title, *y_label, *empty;
  double          guides[4];
  guint           n_guides;
};

G_DEFINE_FINAL_TYPE (CtrIqPlot, ctr_iq_plot, GTK_TYPE_DRAWING_AREA)

static void
curve_free (gpointer data)
{
  Curve *c = data;
  g_free (c->name);
  g_free (c->x);
  g_free (c->y);
  g_free (c);
}

/* The legend from (14, @top), wrapped at @width; returns its bottom. */
static double
draw_legend (CtrIqPlot *self, cairo_t *cr, int width, double top, const GdkRGBA *fg)
{
  GtkWidget *w = GTK_WIDGET (self);
  double x = 14;

  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      g_autofree char *label = g_markup_printf_escaped ("<small>%s</small>", c->name);
      ctr_plot_draw_legend_entry (cr, w, &c->color, c->dashed, label, fg, 14, width - 10, &x, &top);
    }
  return top + 18;
}

typedef struct {
  double x0, y0, pw, ph, xmax, lo, hi;
} Axes;

#define PX(a_, v_) ((a_)->x0 + (v_) / (a_)->xmax * (a_)->pw)
#define PY(a_, v_) ((a_)->y0 + (a_)->ph - ((v_) - (a_)->lo) / ((a_)->hi - (a_)->lo) * (a_)->ph)

static void
draw_axes (CtrIqPlot *self, cairo_t *cr, const Axes *a, const GdkRGBA *fg)
{
  GtkWidget *w = GTK_WIDGET (self);
  double vstep = ctr_plot_nice_step ((a->hi - a->lo) / 5), xstep = ctr_plot_nice_step (a->xmax / 6);
  int digits = MAX (0, (int) -floor (log10 (vstep) + 1e-9));

  cairo_set_line_width (cr, 1);
  for (double t = a->lo; t <= a->hi + vstep / 2; t += vstep)
    {
      double y = round (PY (a, t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%.*f</small>", digits, t);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.1);
      cairo_move_to (cr, a->x0, y);
      cairo_line_to (cr, a->x0 + a->pw, y);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.75);
      ctr_plot_draw_text (cr, w, label, a->x0 - 6, y, 1, 0.5);
    }
  for (double t = 0; t <= a->xmax + 1e-9; t += xstep)
    {
      double xx = round (PX (a, t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%g</small>", t);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.06);
      cairo_move_to (cr, xx, a->y0);
      cairo_line_to (cr, xx, a->y0 + a->ph);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.75);
      ctr_plot_draw_text (cr, w, label, xx, a->y0 + a->ph + 4, 0.5, 0);
    }
  ctr_plot_draw_text (cr, w, "<small>Spatial frequency (cycles/mm)</small>", a->x0 + a->pw / 2, a->y0 + a->ph + 22,
                      0.5, 0);
  cairo_set_dash (cr, (double[]) { 2, 3 }, 2, 0);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.45);
  for (guint i = 0; i < self->n_guides; i++)
    if (self->guides[i] > a->lo && self->guides[i] < a->hi)
      {
        double y = round (PY (a, self->guides[i])) + 0.5;
        cairo_move_to (cr, a->x0, y);
        cairo_line_to (cr, a->x0 + a->pw, y);
        cairo_stroke (cr);
      }
  cairo_set_dash (cr, NULL, 0, 0);
  ctr_plot_draw_frame (cr, a->x0, a->y0, a->pw, a->ph, fg);
}

static void
draw_curves (CtrIqPlot *self, cairo_t *cr, const Axes *a)
{
  cairo_save (cr);
  cairo_rectangle (cr, a->x0, a->y0 - 2, a->pw + 2, a->ph + 4);
  cairo_clip (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      gboolean down = FALSE;
      gdk_cairo_set_source_rgba (cr, &c->color);
      cairo_set_line_width (cr, c->dashed ? 1.5 : 2);
      if (c->dashed)
        cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
      for (guint k = 0; k < c->n; k++)
        {
          if (!isfinite (c->y[k]) || !isfinite (c->x[k]))
            {
              down = FALSE;
              continue;
            }
          if (down)
            cairo_line_to (cr, PX (a, c->x[k]), PY (a, c->y[k]));
          else
            cairo_move_to (cr, PX (a, c->x[k]), PY (a, c->y[k]));
          down = TRUE;
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_restore (cr);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CtrIqPlot *self = CTR_IQ_PLOT (area);
  GtkWidget *w = GTK_WIDGET (area);
  GdkRGBA fg;
  Axes a = { .xmax = 0, .lo = 0, .hi = -INFINITY };

  gtk_style_context_get_color (gtk_widget_get_style_context (w), &fg);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
  ctr_plot_draw_text (cr, w, self->title, 14, 6, 0, 0);
  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      for (guint k = 0; k < c->n; k++)
        if (isfinite (c->x[k]) && isfinite (c->y[k]))
          {
            a.xmax = MAX (a.xmax, c->x[k]);
            a.lo = MIN (a.lo, c->y[k]);
            a.hi = MAX (a.hi, c->y[k]);
          }
    }
  if (self->curves->len == 0 || !(a.xmax > 0) || !isfinite (a.hi))
    {
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
      ctr_plot_draw_text (cr, w, self->empty, width / 2.0, height / 2.0, 0.5, 0.5);
      return;
    }
  if (!(a.hi > a.lo))
    a.hi = a.lo + 1;
  double vstep = ctr_plot_nice_step ((a.hi - a.lo) / 5);
  a.lo = floor (a.lo / vstep) * vstep;
  a.hi = ceil (a.hi / vstep) * vstep;

  double top = draw_legend (self, cr, width, 28, &fg);
  g_autofree char *yt = g_strdup_printf ("<small>%s</small>", self->y_label);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
  ctr_plot_draw_text (cr, w, yt, 14, top + 4, 0, 0);
  a.x0 = 66;
  a.y0 = top + 30;
  a.pw = width - a.x0 - 18;
  a.ph = height - a.y0 - 44;
  if (a.pw < 40 || a.ph < 40)
    return;
  draw_axes (self, cr, &a, &fg);
  draw_curves (self, cr, &a);
}

#undef PX
#undef PY

static void
ctr_iq_plot_finalize (GObject *object)
{
  CtrIqPlot *self = CTR_IQ_PLOT (object);

  g_ptr_array_unref (self->curves);
  g_free (self->title);
  g_free (self->y_label);
  g_free (self->empty);
  G_OBJECT_CLASS (ctr_iq_plot_parent_class)->finalize (object);
}

static void
ctr_iq_plot_class_init (CtrIqPlotClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_iq_plot_finalize;
}

static void
ctr_iq_plot_init (CtrIqPlot *self)
{
  self->curves = g_ptr_array_new_with_free_func (curve_free);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
  gtk_widget_set_size_request (GTK_WIDGET (self), 360, 280);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
}

GtkWidget *
ctr_iq_plot_new (const char *title, const char *y_label, const char *empty)
{
  CtrIqPlot *self = g_object_new (CTR_TYPE_IQ_PLOT, NULL);

  self->title = g_strdup (title);
  self->y_label = g_markup_escape_text (y_label, -1);
  self->empty = g_strdup (empty);
  return GTK_WIDGET (self);
}

void
ctr_iq_plot_clear (CtrIqPlot *self)
{
  g_ptr_array_set_size (self->curves, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_iq_plot_add_curve (CtrIqPlot *self, const char *name, const GdkRGBA *color, gboolean dashed, guint n,
                       const double *x, const double *y)
{
  Curve *c = g_new0 (Curve, 1);

  c->name = g_strdup (name);
  c->color = *color;
  c->dashed = dashed;
  c->n = n;
  c->x = g_memdup2 (x, n * sizeof (double));
  c->y = g_memdup2 (y, n * sizeof (double));
  g_ptr_array_add (self->curves, c);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_iq_plot_set_guides (CtrIqPlot *self, const double *y, guint n)
{
  self->n_guides = MIN (n, G_N_ELEMENTS (self->guides));
  for (guint i = 0; i < self->n_guides; i++)
    self->guides[i] = y[i];
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_iq_plot_get_n_curves (CtrIqPlot *self)
{
  return self->curves->len;
}
