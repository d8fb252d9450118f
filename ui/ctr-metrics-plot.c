/* ctr-metrics-plot.c — convergence plot: residual, RMSE and SSIM per iteration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stacked panels sharing the iteration axis: the relative data residual
 * ||b - Ax||/||b|| on a logarithmic axis, and, when the dataset has a
 * reference image, RMSE and SSIM on linear axes.  Each panel carries its own
 * legend entry (colour, name, latest value).  Drawn by hand with cairo; the
 * numbers come from CtrIterStats as the solver reported them, nothing is
 * computed here.
 */
#define G_LOG_DOMAIN "ctr-metrics-plot"

#include <math.h>

#include "ctr-metrics-plot.h"

typedef struct {
  guint  iteration;
  double residual;
  double rmse;
  double ssim;
} Point;

typedef enum {
  SERIES_RESIDUAL,
  SERIES_RMSE,
  SERIES_SSIM,
  N_SERIES
} Series;

struct _CtrMetricsPlot
{
  GtkDrawingArea  parent_instance;

  GArray         *points;        /* Point */
  guint           n_iterations;
  gboolean        has_reference;
  char           *unit;
};

G_DEFINE_FINAL_TYPE (CtrMetricsPlot, ctr_metrics_plot, GTK_TYPE_DRAWING_AREA)

/* GNOME HIG palette: blue 4, orange 4, green 5. */
static const GdkRGBA series_color[N_SERIES] = {
  { 0x1c / 255., 0x71 / 255., 0xd8 / 255., 1 },
  { 0xe6 / 255., 0x61 / 255., 0x00 / 255., 1 },
  { 0x26 / 255., 0xa2 / 255., 0x69 / 255., 1 },
};

static double
point_value (const Point *p,
             Series       s)
{
  switch (s)
    {
    case SERIES_RESIDUAL: return p->residual;
    case SERIES_RMSE:     return p->rmse;
    case SERIES_SSIM:     return p->ssim;
    default:              g_assert_not_reached ();
    }
}

static gboolean
value_usable (double v,
              gboolean log_axis)
{
  return isfinite (v) && (!log_axis || v > 0);
}

/* ---- number formatting ---------------------------------------------- */

static void
append_superscript (GString *s,
                    int      e)
{
  static const char *digits[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };
  char buf[16];

  if (e < 0)
    g_string_append (s, "⁻");
  g_snprintf (buf, sizeof buf, "%d", ABS (e));
  for (const char *c = buf; *c; c++)
    g_string_append (s, digits[*c - '0']);
}

/* 0.02, 0.5, 10⁻⁴, 2×10⁻⁵ */
static char *
format_log_tick (double v)
{
  int e = (int) floor (log10 (v) + 1e-9);
  int m = (int) round (v / pow (10, e));
  GString *s = g_string_new (NULL);

  if (e >= -3 && e <= 3)
    g_string_printf (s, "%g", v);
  else
    {
      if (m != 1)
        g_string_append_printf (s, "%d×", m);
      g_string_append (s, "10");
      append_superscript (s, e);
    }
  return g_string_free (s, FALSE);
}

/* Latest-value text for a legend: 3 significant digits, ×10ⁿ for small ones. */
static char *
format_value (double v)
{
  if (!isfinite (v))
    return g_strdup ("–");
  if (v == 0 || (fabs (v) >= 1e-3 && fabs (v) < 1e4))
    return g_strdup_printf ("%.4g", v);

  int e = (int) floor (log10 (fabs (v)));
  GString *s = g_string_new (NULL);
  g_string_printf (s, "%.3g×10", v / pow (10, e));
  append_superscript (s, e);
  return g_string_free (s, FALSE);
}

static double
nice_step (double raw)
{
  double e = pow (10, floor (log10 (raw)));
  double f = raw / e;

  if (f <= 1)
    return e;
  if (f <= 2)
    return 2 * e;
  if (f <= 5)
    return 5 * e;
  return 10 * e;
}

/* ---- drawing helpers ------------------------------------------------ */

typedef struct {
  cairo_t     *cr;
  GtkWidget   *widget;
  GdkRGBA      fg;
} DrawCtx;

/* Draws @markup with its anchor (x_align, y_align in [0,1]) at (x, y);
 * returns the logical width. */
static int
draw_text (DrawCtx    *ctx,
           const char *markup,
           double      x,
           double      y,
           double      x_align,
           double      y_align,
           double      alpha)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (ctx->widget, NULL);
  int w, h;

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_save (ctx->cr);
  cairo_set_source_rgba (ctx->cr, ctx->fg.red, ctx->fg.green, ctx->fg.blue, ctx->fg.alpha * alpha);
  cairo_move_to (ctx->cr, round (x - x_align * w), round (y - y_align * h));
  pango_cairo_show_layout (ctx->cr, layout);
  cairo_restore (ctx->cr);
  g_object_unref (layout);
  return w;
}

static void
set_fg (DrawCtx *ctx,
        double   alpha)
{
  cairo_set_source_rgba (ctx->cr, ctx->fg.red, ctx->fg.green, ctx->fg.blue,
                         ctx->fg.alpha * alpha);
}

typedef struct {
  double x0, y0, w, h;   /* plot area, pixels */
  double xmin, xmax;     /* iterations */
  double ymin, ymax;     /* data units, log10 of them on a log axis */
  gboolean log_axis;
} Frame;

static double
frame_x (const Frame *f,
         double       it)
{
  const double pad = 6;
  return f->x0 + pad + (it - f->xmin) / (f->xmax - f->xmin) * (f->w - 2 * pad);
}

static double
frame_y (const Frame *f,
         double       v)
{
  double t = f->log_axis ? log10 (v) : v;
  const double pad = 4;
  return f->y0 + f->h - pad - (t - f->ymin) / (f->ymax - f->ymin) * (f->h - 2 * pad);
}

static void
draw_y_ticks_linear (DrawCtx *ctx,
                     Frame   *f,
                     double   vmin,
                     double   vmax)
{
  if (!(vmax > vmin))
    {
      double pad = vmin != 0 ? fabs (vmin) * 0.05 : 0.5;
      vmin -= pad;
      vmax += pad;
    }

  double step = nice_step ((vmax - vmin) / 4);
  double lo = floor (vmin / step) * step;
  double hi = ceil (vmax / step) * step;
  int decimals = MAX (0, (int) -floor (log10 (step) + 1e-9));

  f->ymin = lo;
  f->ymax = hi;

  for (double t = lo; t <= hi + step * 0.5; t += step)
    {
      double y = round (frame_y (f, t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%.*f</small>", decimals, fabs (t) < step * 1e-6 ? 0.0 : t);

      set_fg (ctx, 0.10);
      cairo_move_to (ctx->cr, f->x0, y);
      cairo_line_to (ctx->cr, f->x0 + f->w, y);
      cairo_stroke (ctx->cr);
      draw_text (ctx, label, f->x0 - 6, y, 1, 0.5, 0.75);
    }
}

/* Log axis fitted to the data (not widened to whole decades, so a residual
 * that moves within one decade still fills the panel).  Gridlines at
 * m·10^e; labels at decades, at 1-2-5, 1-2-3-5 or every m by the span,
 * skipping any that would collide with the previous one. */
static void
draw_y_ticks_log (DrawCtx *ctx,
                  Frame   *f,
                  double   vmin,
                  double   vmax)
{
  double lo = log10 (vmin), hi = log10 (vmax);
  double span = hi - lo;
  const double min_span = 0.3;

  if (span < min_span)
    {
      double mid = 0.5 * (lo + hi);
      lo = mid - min_span / 2;
      hi = mid + min_span / 2;
      span = min_span;
    }
  lo -= 0.04 * span;
  hi += 0.04 * span;
  span = hi - lo;
  f->ymin = lo;
  f->ymax = hi;

  double last_label_y = INFINITY;

  for (int e = (int) floor (lo); e <= (int) ceil (hi); e++)
    for (int m = 1; m <= 9; m++)
      {
        double v = m * pow (10, e);
        double t = log10 (v);
        gboolean major = m == 1;
        gboolean labelled;
        double y;

        if (t < lo - 1e-9 || t > hi + 1e-9)
          continue;
        if (!major && span > 4)
          continue;           /* no minor lines over many decades */

        if (span > 2.5)
          labelled = major;
        else if (span > 1.2)
          labelled = major || m == 2 || m == 5;
        else if (span > 0.5)
          labelled = major || m == 2 || m == 3 || m == 5;
        else
          labelled = TRUE;

        y = round (frame_y (f, v)) + 0.5;
        set_fg (ctx, major ? 0.14 : 0.06);
        cairo_move_to (ctx->cr, f->x0, y);
        cairo_line_to (ctx->cr, f->x0 + f->w, y);
        cairo_stroke (ctx->cr);

        if (labelled && last_label_y - y >= 22)
          {
            g_autofree char *tick = format_log_tick (v);
            g_autofree char *label = g_strdup_printf ("<small>%s</small>", tick);

            draw_text (ctx, label, f->x0 - 6, y, 1, 0.5, major ? 0.8 : 0.65);
            last_label_y = y;
          }
      }
}

static void
draw_x_ticks (DrawCtx     *ctx,
              const Frame *f,
              gboolean     with_title)
{
  double span = f->xmax - f->xmin;
  double step = MAX (1.0, nice_step (MAX (span, 1.0) / 5));
  double first = ceil (f->xmin / step) * step;
  double ybase = f->y0 + f->h;

  if (first < f->xmin + 0.5 && f->xmin >= 1)
    first = MAX (first, 1);

  for (double t = first; t <= f->xmax + 1e-9; t += step)
    {
      double x = round (frame_x (f, t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%.0f</small>", t);

      set_fg (ctx, 0.06);
      cairo_move_to (ctx->cr, x, f->y0);
      cairo_line_to (ctx->cr, x, ybase);
      cairo_stroke (ctx->cr);
      set_fg (ctx, 0.6);
      cairo_move_to (ctx->cr, x, ybase);
      cairo_line_to (ctx->cr, x, ybase + 4);
      cairo_stroke (ctx->cr);
      draw_text (ctx, label, x, ybase + 5, 0.5, 0, 0.75);
    }

  if (with_title)
    draw_text (ctx, "<small>Iteration</small>", f->x0 + f->w / 2, ybase + 22, 0.5, 0, 0.85);
}

static void
draw_panel (CtrMetricsPlot *self,
            DrawCtx        *ctx,
            Series          series,
            double          x0,
            double          y0,
            double          w,
            double          h,
            gboolean        last)
{
  static const char *names[N_SERIES] = {
    "Residual ‖b − Ax‖ / ‖b‖",
    "RMSE vs reference",
    "SSIM vs reference",
  };
  gboolean log_axis = series == SERIES_RESIDUAL;
  const GdkRGBA *color = &series_color[series];
  cairo_t *cr = ctx->cr;
  double vmin = INFINITY, vmax = -INFINITY;
  const Point *latest = NULL;
  guint n_usable = 0;

  for (guint i = 0; i < self->points->len; i++)
    {
      const Point *p = &g_array_index (self->points, Point, i);
      double v = point_value (p, series);

      if (!value_usable (v, log_axis))
        continue;
      vmin = MIN (vmin, v);
      vmax = MAX (vmax, v);
      latest = p;
      n_usable++;
    }

  /* Legend: swatch, name, latest value. */
  {
    const double ly = y0 + 9;
    g_autofree char *title = NULL;
    g_autofree char *value = latest ? format_value (point_value (latest, series)) : NULL;

    if (series == SERIES_RMSE && self->unit != NULL)
      {
        g_autofree char *unit = g_markup_escape_text (self->unit, -1);
        title = g_strdup_printf ("<b>%s</b> <span alpha='70%%'>(%s)</span>", names[series], unit);
      }
    else
      title = g_strdup_printf ("<b>%s</b>", names[series]);

    cairo_set_line_width (cr, 2.5);
    gdk_cairo_set_source_rgba (cr, color);
    cairo_move_to (cr, x0 + 2, ly);
    cairo_line_to (cr, x0 + 20, ly);
    cairo_stroke (cr);
    cairo_arc (cr, x0 + 11, ly, 3, 0, 2 * G_PI);
    cairo_fill (cr);
    draw_text (ctx, title, x0 + 26, ly, 0, 0.5, 0.9);
    if (value != NULL)
      {
        g_autofree char *markup =
          g_strdup_printf ("<span font_features='tnum'>%s</span>", value);
        draw_text (ctx, markup, x0 + w, ly, 1, 0.5, 1.0);
      }
  }

  Frame f = {
    .x0 = x0 + 58, .y0 = y0 + 24,
    .w = w - 58, .h = h - 24 - (last ? 40 : 20),
    .xmin = 1, .xmax = MAX (self->n_iterations, 1),
    .log_axis = log_axis,
  };

  if (f.w < 20 || f.h < 20)
    return;
  if (f.xmax <= f.xmin)
    {
      f.xmin = 0.5;
      f.xmax = 1.5;
    }

  /* plot background */
  set_fg (ctx, 0.025);
  cairo_rectangle (cr, f.x0, f.y0, f.w, f.h);
  cairo_fill (cr);

  cairo_set_line_width (cr, 1);
  if (n_usable == 0)
    {
      f.ymin = 0;
      f.ymax = 1;
      draw_text (ctx,
                 self->points->len == 0 ? "<small>No data yet</small>"
                                        : "<small>Not reported by this method</small>",
                 f.x0 + f.w / 2, f.y0 + f.h / 2, 0.5, 0.5, 0.5);
    }
  else if (log_axis)
    draw_y_ticks_log (ctx, &f, vmin, vmax);
  else
    {
      if (series == SERIES_SSIM)
        vmax = MIN (1.0, vmax);
      draw_y_ticks_linear (ctx, &f, vmin, vmax);
    }

  draw_x_ticks (ctx, &f, last);

  /* axes */
  set_fg (ctx, 0.55);
  cairo_move_to (cr, f.x0 + 0.5, f.y0);
  cairo_line_to (cr, f.x0 + 0.5, f.y0 + f.h + 0.5);
  cairo_line_to (cr, f.x0 + f.w, f.y0 + f.h + 0.5);
  cairo_stroke (cr);

  if (n_usable == 0)
    return;

  /* the series */
  cairo_save (cr);
  cairo_rectangle (cr, f.x0, f.y0 - 4, f.w + 4, f.h + 8);
  cairo_clip (cr);
  gdk_cairo_set_source_rgba (cr, color);
  cairo_set_line_width (cr, 2);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);

  gboolean pen_down = FALSE;
  for (guint i = 0; i < self->points->len; i++)
    {
      const Point *p = &g_array_index (self->points, Point, i);
      double v = point_value (p, series);

      if (!value_usable (v, log_axis))
        {
          pen_down = FALSE;
          continue;
        }
      if (pen_down)
        cairo_line_to (cr, frame_x (&f, p->iteration), frame_y (&f, v));
      else
        cairo_move_to (cr, frame_x (&f, p->iteration), frame_y (&f, v));
      pen_down = TRUE;
    }
  cairo_stroke (cr);

  if (n_usable <= 60)
    for (guint i = 0; i < self->points->len; i++)
      {
        const Point *p = &g_array_index (self->points, Point, i);
        double v = point_value (p, series);

        if (!value_usable (v, log_axis))
          continue;
        cairo_arc (cr, frame_x (&f, p->iteration), frame_y (&f, v),
                   n_usable <= 20 ? 3.0 : 2.0, 0, 2 * G_PI);
        cairo_fill (cr);
      }
  cairo_restore (cr);
}

static void
ctr_metrics_plot_draw (GtkDrawingArea *area,
                       cairo_t        *cr,
                       int             width,
                       int             height,
                       gpointer        user_data)
{
  CtrMetricsPlot *self = CTR_METRICS_PLOT (area);
  DrawCtx ctx = { cr, GTK_WIDGET (area), { 0, 0, 0, 1 } };
  Series shown[N_SERIES];
  guint n_shown = 0;
  const double margin = 14, gap = 14;

  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &ctx.fg);

  shown[n_shown++] = SERIES_RESIDUAL;
  if (self->has_reference)
    {
      shown[n_shown++] = SERIES_RMSE;
      shown[n_shown++] = SERIES_SSIM;
    }

  double panel_h = (height - 2 * margin - gap * (n_shown - 1)) / n_shown;
  for (guint i = 0; i < n_shown; i++)
    draw_panel (self, &ctx, shown[i], margin, margin + i * (panel_h + gap),
                width - 2 * margin, panel_h, i + 1 == n_shown);
}

static void
ctr_metrics_plot_finalize (GObject *object)
{
  CtrMetricsPlot *self = CTR_METRICS_PLOT (object);

  g_array_unref (self->points);
  g_free (self->unit);

  G_OBJECT_CLASS (ctr_metrics_plot_parent_class)->finalize (object);
}

static void
ctr_metrics_plot_class_init (CtrMetricsPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ctr_metrics_plot_finalize;

  gtk_widget_class_set_css_name (widget_class, "ctrmetricsplot");
}

static void
ctr_metrics_plot_init (CtrMetricsPlot *self)
{
  self->points = g_array_new (FALSE, FALSE, sizeof (Point));
  self->n_iterations = 1;

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self), 360);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self), 300);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self),
                                  ctr_metrics_plot_draw, NULL, NULL);
}

GtkWidget *
ctr_metrics_plot_new (void)
{
  return g_object_new (CTR_TYPE_METRICS_PLOT, NULL);
}

/**
 * ctr_metrics_plot_reset:
 * @n_iterations: length of the iteration axis (>= 1).
 * @has_reference: whether RMSE and SSIM panels are shown.
 * @unit: (nullable): the image unit, for the RMSE axis ("1/mm").
 *
 * Forgets all points and prepares the axes for a new run.
 */
void
ctr_metrics_plot_reset (CtrMetricsPlot *self,
                        guint           n_iterations,
                        gboolean        has_reference,
                        const char     *unit)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));

  g_array_set_size (self->points, 0);
  self->n_iterations = MAX (n_iterations, 1);
  self->has_reference = has_reference;
  g_free (self->unit);
  self->unit = g_strdup (unit);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Appends the numbers of one report (stats->image is not used). */
void
ctr_metrics_plot_add (CtrMetricsPlot     *self,
                      const CtrIterStats *stats)
{
  Point p;

  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  g_return_if_fail (stats != NULL);

  p.iteration = stats->iteration;
  p.residual = stats->residual;
  p.rmse = stats->has_reference ? stats->rmse : NAN;
  p.ssim = stats->has_reference ? stats->ssim : NAN;
  g_array_append_val (self->points, p);

  if (stats->n_iterations > self->n_iterations)
    self->n_iterations = stats->n_iterations;
  if (stats->has_reference)
    self->has_reference = TRUE;

  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_metrics_plot_get_n_points (CtrMetricsPlot *self)
{
  g_return_val_if_fail (CTR_IS_METRICS_PLOT (self), 0);
  return self->points->len;
}
