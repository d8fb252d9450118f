/* ctr-calibrate-plot.c — a calibration's cost curves against the centre
 * column (see ctr-calibrate-plot.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * x: the centre column (0-based detector column); the search plot spans
 * the searches' candidates, the cross-check plot the entropy candidates.
 * y: each curve scaled to its own minimum … maximum over the x range
 * shown, so that every method's minimum sits at 0 (the costs are a
 * correlation, a Fourier metric, a squared difference and an entropy).
 * The colours are the run palette's (ctr_plot_run_color), by method.
 */
#define G_LOG_DOMAIN "ctr-calibrate-plot"

#include <math.h>

#include "ctr-calibrate-plot.h"
#include "ctr-plot-draw.h"

struct _CtrCalibratePlot
{
  GtkDrawingArea  parent_instance;
  gboolean        cross_check;
  gboolean        has_result;
  CtrCalibResult  result;
};

G_DEFINE_FINAL_TYPE (CtrCalibratePlot, ctr_calibrate_plot, GTK_TYPE_DRAWING_AREA)

typedef struct {
  double x0, y0, pw, ph, xlo, xhi;
} Axes;

#define PX(a_, v_) ((a_)->x0 + ((v_) - (a_)->xlo) / ((a_)->xhi - (a_)->xlo) * (a_)->pw)
#define PY(a_, v_) ((a_)->y0 + (a_)->ph - (v_) * (a_)->ph)

/* What each method's curve is, for the legend. */
static const char *
curve_name (CtrCalibMethod m)
{
  switch (m)
    {
    case CTR_CALIB_MIRROR:
      return "mirror: 1 − correlation of the 180° pairs";
    case CTR_CALIB_VO:
      return "Vo 2014: Fourier metric of the 360° sinogram";
    case CTR_CALIB_CONJUGATE:
      return "conjugate rays: mean squared difference";
    case CTR_CALIB_ENTROPY:
      return "entropy of the FBP slices";
    default:
      return "";
    }
}

static gboolean
shown (const CtrCalibratePlot *self, const CtrCalibEstimate *e)
{
  return e->curve_n > 1 && e->cross_check == self->cross_check;
}

static void
method_color (CtrCalibMethod m, GdkRGBA *color)
{
  ctr_plot_run_color ((guint) m, color);
}

/* The x range of the curves shown; FALSE when there is none. */
static gboolean
x_range (const CtrCalibratePlot *self, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (guint i = 0; i < self->result.n_estimates; i++)
    {
      const CtrCalibEstimate *e = &self->result.estimates[i];
      if (!shown (self, e))
        continue;
      *lo = MIN (*lo, e->curve_x0);
      *hi = MAX (*hi, e->curve_x0 + (e->curve_n - 1) * e->curve_dx);
    }
  return *hi > *lo;
}

static void
draw_axes (CtrCalibratePlot *self, cairo_t *cr, const Axes *a, const GdkRGBA *fg)
{
  GtkWidget *w = GTK_WIDGET (self);
  const double xstep = ctr_plot_nice_step ((a->xhi - a->xlo) / 6);
  cairo_set_line_width (cr, 1);
  for (double t = ceil (a->xlo / xstep) * xstep; t <= a->xhi + 1e-9; t += xstep)
    {
      const double xx = round (PX (a, t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%g</small>", t);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.08);
      cairo_move_to (cr, xx, a->y0);
      cairo_line_to (cr, xx, a->y0 + a->ph);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.75);
      ctr_plot_draw_text (cr, w, label, xx, a->y0 + a->ph + 4, 0.5, 0);
    }
  for (int k = 0; k <= 4; k++)
    {
      const double y = round (PY (a, k / 4.0)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%g</small>", k / 4.0);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.08);
      cairo_move_to (cr, a->x0, y);
      cairo_line_to (cr, a->x0 + a->pw, y);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.75);
      ctr_plot_draw_text (cr, w, label, a->x0 - 6, y, 1, 0.5);
    }
  ctr_plot_draw_text (cr, w, "<small>Centre column (0-based detector column)</small>", a->x0 + a->pw / 2,
                      a->y0 + a->ph + 22, 0.5, 0);
  cairo_save (cr);
  cairo_translate (cr, 14, a->y0 + a->ph / 2);
  cairo_rotate (cr, -G_PI / 2);
  ctr_plot_draw_text (cr, w, "<small>cost, scaled (least is best)</small>", 0, 0, 0.5, 0);
  cairo_restore (cr);
  ctr_plot_draw_frame (cr, a->x0, a->y0, a->pw, a->ph, fg);
}

/* @e's curve scaled to its minimum … maximum over the x range shown. */
static void
draw_curve (cairo_t *cr, const Axes *a, const CtrCalibEstimate *e)
{
  double lo = INFINITY, hi = -INFINITY;
  for (guint k = 0; k < e->curve_n; k++)
    {
      const double x = e->curve_x0 + k * e->curve_dx;
      if (isfinite (e->curve_y[k]) && x >= a->xlo - 1e-9 && x <= a->xhi + 1e-9)
        {
          lo = MIN (lo, e->curve_y[k]);
          hi = MAX (hi, e->curve_y[k]);
        }
    }
  if (!(hi > lo))
    return;
  GdkRGBA c;
  method_color (e->method, &c);
  gdk_cairo_set_source_rgba (cr, &c);
  cairo_set_line_width (cr, 2);
  gboolean down = FALSE;
  for (guint k = 0; k < e->curve_n; k++)
    {
      const double x = e->curve_x0 + k * e->curve_dx, y = (e->curve_y[k] - lo) / (hi - lo);
      if (!isfinite (e->curve_y[k]))
        {
          down = FALSE;
          continue;
        }
      if (down)
        cairo_line_to (cr, PX (a, x), PY (a, y));
      else
        cairo_move_to (cr, PX (a, x), PY (a, y));
      down = TRUE;
    }
  cairo_stroke (cr);
}

/* A vertical line at column @x with @label at its top. */
static void
draw_mark (CtrCalibratePlot *self, cairo_t *cr, const Axes *a, double x, const char *label, double width,
           const double *dash, int n_dash, double label_row)
{
  if (!isfinite (x) || x < a->xlo || x > a->xhi)
    return;
  const double xx = round (PX (a, x)) + 0.5;
  cairo_set_line_width (cr, width);
  cairo_set_dash (cr, dash, n_dash, 0);
  cairo_move_to (cr, xx, a->y0);
  cairo_line_to (cr, xx, a->y0 + a->ph);
  cairo_stroke (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  if (label != NULL)
    ctr_plot_draw_text (cr, GTK_WIDGET (self), label, xx + (xx > a->x0 + 0.7 * a->pw ? -4 : 4), a->y0 + label_row,
                        xx > a->x0 + 0.7 * a->pw ? 1 : 0, 0);
}

/* The legend from (x, @top), wrapped at @width; returns its bottom. */
static double
draw_legend (CtrCalibratePlot *self, cairo_t *cr, int width, double top, const GdkRGBA *fg)
{
  GtkWidget *w = GTK_WIDGET (self);
  double x = 14;
  for (guint i = 0; i < self->result.n_estimates; i++)
    {
      const CtrCalibEstimate *e = &self->result.estimates[i];
      if (!shown (self, e))
        continue;
      g_autofree char *label = g_markup_printf_escaped ("<small>%s</small>", curve_name (e->method));
      GdkRGBA c;
      method_color (e->method, &c);
      ctr_plot_draw_legend_entry (cr, w, &c, FALSE, label, fg, 14, width - 10, &x, &top);
    }
  return top + 18;
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CtrCalibratePlot *self = CTR_CALIBRATE_PLOT (area);
  GtkWidget *w = GTK_WIDGET (area);
  GdkRGBA fg;
  Axes a;

  gtk_style_context_get_color (gtk_widget_get_style_context (w), &fg);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
  ctr_plot_draw_text (cr, w, self->cross_check ? "<b>Cross-check around the answer</b>" : "<b>Centre search</b>",
                      14, 6, 0, 0);
  if (!self->has_result || !x_range (self, &a.xlo, &a.xhi))
    {
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
      ctr_plot_draw_text (cr, w, self->has_result ? "No curve (the method did not run)" : "Not calibrated yet",
                          width / 2.0, height / 2.0, 0.5, 0.5);
      return;
    }
  const double top = draw_legend (self, cr, width, 26, &fg) + 8;
  a.x0 = 56;
  a.y0 = top;
  a.pw = MAX (10, width - a.x0 - 16);
  a.ph = MAX (10, height - top - 44);
  draw_axes (self, cr, &a, &fg);

  cairo_save (cr);
  cairo_rectangle (cr, a.x0, a.y0 - 2, a.pw + 2, a.ph + 4);
  cairo_clip (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  for (guint i = 0; i < self->result.n_estimates; i++)
    if (shown (self, &self->result.estimates[i]))
      draw_curve (cr, &a, &self->result.estimates[i]);
  cairo_restore (cr);

  /* marks: the stated column, each estimate, the answer */
  const double dots[] = { 2, 3 }, dashes[] = { 6, 4 };
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.6);
  g_autofree char *stated = g_strdup_printf ("<small>stated %.2f</small>", self->result.stated_centre_col);
  draw_mark (self, cr, &a, self->result.stated_centre_col, stated, 1, dots, 2, a.ph - 18);
  for (guint i = 0; i < self->result.n_estimates; i++)
    {
      const CtrCalibEstimate *e = &self->result.estimates[i];
      if (!e->ok)
        continue;
      GdkRGBA c;
      method_color (e->method, &c);
      gdk_cairo_set_source_rgba (cr, &c);
      draw_mark (self, cr, &a, e->centre_col, NULL, 1.5, dashes, 2, 0);
    }
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.95);
  g_autofree char *chosen = g_strdup_printf ("<small><b>chosen %.3f</b></small>", self->result.centre_col);
  draw_mark (self, cr, &a, self->result.centre_col, chosen, 2, NULL, 0, 4);
}

/* ---- public ----------------------------------------------------------------- */

GtkWidget *
ctr_calibrate_plot_new (gboolean cross_check)
{
  CtrCalibratePlot *self = g_object_new (CTR_TYPE_CALIBRATE_PLOT, NULL);
  self->cross_check = cross_check;
  gtk_widget_set_name (GTK_WIDGET (self), cross_check ? "calibrate_cross_check_plot" : "calibrate_search_plot");
  return GTK_WIDGET (self);
}

void
ctr_calibrate_plot_set_result (CtrCalibratePlot *self, const CtrCalibResult *r)
{
  g_return_if_fail (CTR_IS_CALIBRATE_PLOT (self));
  self->has_result = r != NULL;
  if (r != NULL)
    self->result = *r;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_calibrate_plot_get_n_curves (CtrCalibratePlot *self)
{
  g_return_val_if_fail (CTR_IS_CALIBRATE_PLOT (self), 0);
  guint n = 0;
  for (guint i = 0; self->has_result && i < self->result.n_estimates; i++)
    n += shown (self, &self->result.estimates[i]);
  return n;
}

/* ---- GObject ---------------------------------------------------------------- */

static void
ctr_calibrate_plot_class_init (CtrCalibratePlotClass *klass)
{
}

static void
ctr_calibrate_plot_init (CtrCalibratePlot *self)
{
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self), 420);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self), 300);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
}
