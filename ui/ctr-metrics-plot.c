/* ctr-metrics-plot.c — convergence plot: residual, RMSE and SSIM per iteration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stacked panels sharing the iteration axis: the relative data residual
 * ||b - Ax||/||b|| on a logarithmic axis, and, when the dataset has a
 * reference image, RMSE, PSNR and SSIM on linear axes.  Several runs are
 * overlaid, each in its own colour (legend at the top); each panel shows the
 * latest value of the newest run, and hovering shows every run's values at
 * the iteration under the pointer.  The numbers come from CtrIterStats as
 * the solver reported them, nothing is computed here.
 *
 * Why hand-drawn cairo and not PLplot's extcairo driver: PLplot keeps its
 * state in process-wide streams (plsstrm/plinit) that are not thread-safe and
 * must be re-initialised around every draw into the cairo context a
 * GtkDrawingArea hands us; it draws a whole plot per call with its own fonts
 * and cannot follow GTK's theme colours or Pango text, and hover read-out
 * would still need our own coordinate mapping.  The plot needs only a linear
 * and a log axis with nice ticks, which this file does in a few hundred
 * lines with no new dependency.
 */
#define G_LOG_DOMAIN "ctr-metrics-plot"

#include <math.h>

#include "ctr-metrics-plot.h"
#include "ctr-plot-draw.h"

typedef struct {
  guint  iteration;
  double residual;
  double rmse;
  double psnr;
  double ssim;
} Point;

typedef enum {
  SERIES_RESIDUAL,
  SERIES_RMSE,
  SERIES_PSNR,
  SERIES_SSIM,
  N_SERIES
} Series;

typedef struct {
  char    *label;
  GArray  *points;   /* Point */
  guint    color;    /* index into run_color */
} Run;

struct _CtrMetricsPlot
{
  GtkDrawingArea  parent_instance;

  GPtrArray      *runs;          /* Run*, oldest first */
  GArray         *points;        /* the newest run's points (borrowed) */
  guint           n_iterations;
  gboolean        has_reference;
  char           *unit;
  guint           next_color;

  double          hover_x;       /* widget x of the pointer, or -1 */
};

G_DEFINE_FINAL_TYPE (CtrMetricsPlot, ctr_metrics_plot, GTK_TYPE_DRAWING_AREA)

/* GNOME HIG palette, one colour per run: blue 4, orange 4, green 5,
 * purple 3, red 3, brown 3. */
#define N_RUN_COLORS 6
static const GdkRGBA run_color[N_RUN_COLORS] = {
  { 0x1c / 255., 0x71 / 255., 0xd8 / 255., 1 },
  { 0xe6 / 255., 0x61 / 255., 0x00 / 255., 1 },
  { 0x26 / 255., 0xa2 / 255., 0x69 / 255., 1 },
  { 0x91 / 255., 0x41 / 255., 0xac / 255., 1 },
  { 0xe0 / 255., 0x1b / 255., 0x24 / 255., 1 },
  { 0x98 / 255., 0x6a / 255., 0x44 / 255., 1 },
};

static void
run_free (gpointer data)
{
  Run *r = data;
  g_free (r->label);
  g_array_unref (r->points);
  g_free (r);
}

static double
point_value (const Point *p,
             Series       s)
{
  switch (s)
    {
    case SERIES_RESIDUAL: return p->residual;
    case SERIES_RMSE:     return p->rmse;
    case SERIES_PSNR:     return p->psnr;
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
  cairo_save (ctx->cr);
  cairo_set_source_rgba (ctx->cr, ctx->fg.red, ctx->fg.green, ctx->fg.blue, ctx->fg.alpha * alpha);
  int w = ctr_plot_draw_text (ctx->cr, ctx->widget, markup, x, y, x_align, y_align);
  cairo_restore (ctx->cr);
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

  double step = ctr_plot_nice_step ((vmax - vmin) / 4);
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
  double step = MAX (1.0, ctr_plot_nice_step (MAX (span, 1.0) / 5));
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

/* The iteration axis: what the newest run plans, or the furthest any run
 * reached (a cancelled 400-iteration run does not squeeze the others). */
static guint
axis_iterations (CtrMetricsPlot *self)
{
  guint n = self->n_iterations;
  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = g_ptr_array_index (self->runs, r);
      for (guint i = 0; i < run->points->len; i++)
        n = MAX (n, g_array_index (run->points, Point, i).iteration);
    }
  return n;
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
    "PSNR vs reference (dB)",
    "SSIM vs reference",
  };
  gboolean log_axis = series == SERIES_RESIDUAL;
  const GdkRGBA *color = self->runs->len > 0
    ? &run_color[((Run *) g_ptr_array_index (self->runs, self->runs->len - 1))->color]
    : &run_color[0];
  cairo_t *cr = ctx->cr;
  double vmin = INFINITY, vmax = -INFINITY;
  const Point *latest = NULL;
  guint n_usable = 0;

  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = g_ptr_array_index (self->runs, r);
      for (guint i = 0; i < run->points->len; i++)
        {
          const Point *p = &g_array_index (run->points, Point, i);
          double v = point_value (p, series);

          if (!value_usable (v, log_axis))
            continue;
          vmin = MIN (vmin, v);
          vmax = MAX (vmax, v);
          if (r + 1 == self->runs->len)
            latest = p;
          n_usable++;
        }
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
    .xmin = 1, .xmax = MAX (axis_iterations (self), 1),
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
                 self->points == NULL || self->points->len == 0 ? "<small>No data yet</small>"
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

  /* the series: one line per run, in the run's colour */
  cairo_save (cr);
  cairo_rectangle (cr, f.x0, f.y0 - 4, f.w + 4, f.h + 8);
  cairo_clip (cr);
  cairo_set_line_width (cr, 2);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);

  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = g_ptr_array_index (self->runs, r);
      GArray *points = run->points;
      gboolean pen_down = FALSE;
      guint n_run = 0;

      gdk_cairo_set_source_rgba (cr, &run_color[run->color]);
      for (guint i = 0; i < points->len; i++)
        {
          const Point *p = &g_array_index (points, Point, i);
          double v = point_value (p, series);

          if (!value_usable (v, log_axis))
            {
              pen_down = FALSE;
              continue;
            }
          n_run++;
          if (pen_down)
            cairo_line_to (cr, frame_x (&f, p->iteration), frame_y (&f, v));
          else
            cairo_move_to (cr, frame_x (&f, p->iteration), frame_y (&f, v));
          pen_down = TRUE;
        }
      cairo_stroke (cr);

      if (n_run <= 60)
        for (guint i = 0; i < points->len; i++)
          {
            const Point *p = &g_array_index (points, Point, i);
            double v = point_value (p, series);

            if (!value_usable (v, log_axis))
              continue;
            cairo_arc (cr, frame_x (&f, p->iteration), frame_y (&f, v),
                       n_run <= 20 ? 3.0 : 2.0, 0, 2 * G_PI);
            cairo_fill (cr);
          }
    }

  /* hover: a vertical line at the nearest iteration and every run's value */
  if (self->hover_x >= f.x0 && self->hover_x <= f.x0 + f.w)
    {
      double it = f.xmin + (self->hover_x - f.x0 - 6) / (f.w - 12) * (f.xmax - f.xmin);
      guint k = (guint) MAX (1, round (it));
      double x = round (frame_x (&f, k)) + 0.5;
      GString *text = g_string_new (NULL);

      set_fg (ctx, 0.5);
      cairo_set_line_width (cr, 1);
      cairo_move_to (cr, x, f.y0);
      cairo_line_to (cr, x, f.y0 + f.h);
      cairo_stroke (cr);
      g_string_append_printf (text, "<small>it %u", k);
      for (guint r = 0; r < self->runs->len; r++)
        {
          Run *run = g_ptr_array_index (self->runs, r);
          for (guint i = 0; i < run->points->len; i++)
            {
              const Point *p = &g_array_index (run->points, Point, i);
              if (p->iteration != k || !value_usable (point_value (p, series), log_axis))
                continue;
              g_autofree char *v = format_value (point_value (p, series));
              g_string_append_printf (text, "  <span foreground='#%02x%02x%02x'>●</span> %s",
                                      (int) (run_color[run->color].red * 255),
                                      (int) (run_color[run->color].green * 255),
                                      (int) (run_color[run->color].blue * 255), v);
              cairo_arc (cr, x, frame_y (&f, point_value (p, series)), 4, 0, 2 * G_PI);
              gdk_cairo_set_source_rgba (cr, &run_color[run->color]);
              cairo_stroke (cr);
            }
        }
      g_string_append (text, "</small>");
      {
        PangoLayout *layout = gtk_widget_create_pango_layout (ctx->widget, NULL);
        int tw, th;
        pango_layout_set_markup (layout, text->str, -1);
        pango_layout_get_pixel_size (layout, &tw, &th);
        double tx = MIN (x + 6, f.x0 + f.w - tw - 4);
        cairo_set_source_rgba (cr, 0.98, 0.98, 0.98, 0.92);
        cairo_rectangle (cr, tx - 3, f.y0 + 2, tw + 6, th + 2);
        cairo_fill (cr);
        cairo_set_source_rgba (cr, 0.1, 0.1, 0.1, 1);
        cairo_move_to (cr, tx, f.y0 + 3);
        pango_cairo_show_layout (cr, layout);
        g_object_unref (layout);
      }
      g_string_free (text, TRUE);
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
      shown[n_shown++] = SERIES_PSNR;
      shown[n_shown++] = SERIES_SSIM;
    }

  /* run legend */
  double top = margin;
  if (self->runs->len > 0)
    {
      double x = margin;
      for (guint r = 0; r < self->runs->len; r++)
        {
          Run *run = g_ptr_array_index (self->runs, r);
          g_autofree char *label = g_markup_printf_escaped ("<small>%s</small>", run->label);
          PangoLayout *layout = gtk_widget_create_pango_layout (ctx.widget, NULL);
          int tw, th;
          pango_layout_set_markup (layout, label, -1);
          pango_layout_get_pixel_size (layout, &tw, &th);
          g_object_unref (layout);
          if (x + 22 + tw > width - margin && x > margin)
            {
              x = margin;
              top += 18;
            }
          gdk_cairo_set_source_rgba (cr, &run_color[run->color]);
          cairo_set_line_width (cr, 3);
          cairo_move_to (cr, x, top + 8);
          cairo_line_to (cr, x + 16, top + 8);
          cairo_stroke (cr);
          draw_text (&ctx, label, x + 20, top + 8, 0, 0.5, 0.9);
          x += 20 + tw + 14;
        }
      top += 22;
    }

  double panel_h = (height - top - margin - gap * (n_shown - 1)) / n_shown;
  for (guint i = 0; i < n_shown; i++)
    draw_panel (self, &ctx, shown[i], margin, top + i * (panel_h + gap),
                width - 2 * margin, panel_h, i + 1 == n_shown);
}

static void
ctr_metrics_plot_finalize (GObject *object)
{
  CtrMetricsPlot *self = CTR_METRICS_PLOT (object);

  g_ptr_array_unref (self->runs);
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
on_motion (GtkEventControllerMotion *controller, double x, double y, CtrMetricsPlot *self)
{
  self->hover_x = x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_leave (GtkEventControllerMotion *controller, CtrMetricsPlot *self)
{
  self->hover_x = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
ctr_metrics_plot_init (CtrMetricsPlot *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  self->runs = g_ptr_array_new_with_free_func (run_free);
  self->points = NULL;
  self->n_iterations = 1;
  self->hover_x = -1;
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

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
 * Forgets all runs and prepares the axes for new ones.
 */
void
ctr_metrics_plot_reset (CtrMetricsPlot *self,
                        guint           n_iterations,
                        gboolean        has_reference,
                        const char     *unit)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));

  g_ptr_array_set_size (self->runs, 0);
  self->points = NULL;
  self->next_color = 0;
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

  if (self->points == NULL)
    ctr_metrics_plot_begin_run (self, ctr_method_label (stats->method), stats->n_iterations);
  p.iteration = stats->iteration;
  p.residual = stats->residual;
  p.rmse = stats->has_reference ? stats->rmse : NAN;
  p.psnr = stats->has_reference ? stats->psnr : NAN;
  p.ssim = stats->has_reference ? stats->ssim : NAN;
  g_array_append_val (self->points, p);

  if (stats->n_iterations > self->n_iterations)
    self->n_iterations = stats->n_iterations;
  if (stats->has_reference)
    self->has_reference = TRUE;

  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Points of the newest run. */
guint
ctr_metrics_plot_get_n_points (CtrMetricsPlot *self)
{
  g_return_val_if_fail (CTR_IS_METRICS_PLOT (self), 0);
  return self->points != NULL ? self->points->len : 0;
}

/**
 * ctr_metrics_plot_begin_run:
 * @label: the legend text ("SIRT · 8 it").
 * @n_iterations: the run's planned iterations (widens the axis if larger).
 *
 * Starts a new overlaid run in the next colour; later ctr_metrics_plot_add()
 * calls go to it.  Older runs stay until ctr_metrics_plot_reset().
 */
void
ctr_metrics_plot_begin_run (CtrMetricsPlot *self,
                            const char     *label,
                            guint           n_iterations)
{
  Run *run;

  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  run = g_new0 (Run, 1);
  run->label = g_strdup (label ? label : "run");
  run->points = g_array_new (FALSE, FALSE, sizeof (Point));
  run->color = self->next_color++ % N_RUN_COLORS;
  g_ptr_array_add (self->runs, run);
  self->points = run->points;
  self->n_iterations = MAX (n_iterations, 1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Drops the newest run (a cancelled one that reported nothing). */
void
ctr_metrics_plot_drop_run (CtrMetricsPlot *self)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  if (self->runs->len == 0)
    return;
  g_ptr_array_remove_index (self->runs, self->runs->len - 1);
  self->points = self->runs->len > 0 ? ((Run *) g_ptr_array_index (self->runs, self->runs->len - 1))->points : NULL;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Renames the newest run (e.g. "… (cancelled)"). */
void
ctr_metrics_plot_set_run_label (CtrMetricsPlot *self, const char *label)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  if (self->runs->len == 0)
    return;
  Run *run = g_ptr_array_index (self->runs, self->runs->len - 1);
  g_free (run->label);
  run->label = g_strdup (label);
  /* a stopped run no longer stretches the axis to its plan */
  self->n_iterations = 1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_metrics_plot_get_n_runs (CtrMetricsPlot *self)
{
  g_return_val_if_fail (CTR_IS_METRICS_PLOT (self), 0);
  return self->runs->len;
}

/* The colour of run @index (for matching curves elsewhere). */
void
ctr_metrics_plot_get_run_color (CtrMetricsPlot *self, guint index, GdkRGBA *color)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  *color = run_color[index < self->runs->len ? ((Run *) g_ptr_array_index (self->runs, index))->color
                                              : index % N_RUN_COLORS];
}

/**
 * ctr_metrics_plot_write_csv:
 * Writes every run's numbers as CSV (run, label, iteration, residual, rmse,
 * psnr_db, ssim; empty where not reported), atomically (temp file + rename).
 * Returns FALSE with the GFileError of the write.
 */
gboolean
ctr_metrics_plot_write_csv (CtrMetricsPlot *self, const char *path, GError **error)
{
  g_autoptr(GString) csv = g_string_new ("run,label,iteration,residual,rmse,psnr_db,ssim\n");

  g_return_val_if_fail (CTR_IS_METRICS_PLOT (self), FALSE);
  for (guint r = 0; r < self->runs->len; r++)
    {
      Run *run = g_ptr_array_index (self->runs, r);
      g_autofree char *label = g_strdup (run->label);
      g_strdelimit (label, ",\"\n", ' ');
      for (guint i = 0; i < run->points->len; i++)
        {
          const Point *p = &g_array_index (run->points, Point, i);
          double v[4] = { p->residual, p->rmse, p->psnr, p->ssim };
          g_string_append_printf (csv, "%u,%s,%u", r + 1, label, p->iteration);
          for (guint k = 0; k < 4; k++)
            {
              char buf[G_ASCII_DTOSTR_BUF_SIZE];
              g_string_append_c (csv, ',');
              if (isfinite (v[k]))
                g_string_append (csv, g_ascii_dtostr (buf, sizeof buf, v[k]));
            }
          g_string_append_c (csv, '\n');
        }
    }
  return g_file_set_contents (path, csv->str, (gssize) csv->len, error);
}
