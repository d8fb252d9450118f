/* ctr-metrics-plot.c — convergence plot: residual, RMSE and SSIM per iteration.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stacked panels sharing the iteration axis: the relative data residual
 * ||b - Ax||/||b|| on a logarithmic axis, and, when the dataset has a
 * reference image, RMSE, PSNR and SSIM on linear axes.  Several runs are
 * overlaid, each in its own colour (legend at the top; one-pass methods,
 * FBP and FDK, as a dashed horizontal reference line); each panel shows the
 * latest value of the newest run, and hovering shows every run's values at
 * the iteration under the pointer.  The plot is a view of a session's runs
 * (a GListModel of CtrRun): the numbers are the CtrIterStats the solver
 * reported, kept by each run; nothing is computed or stored here.
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
#include "ctr-run.h"

/* A run's report: rmse, psnr, ssim are NaN without a reference. */
typedef CtrIterStats Point;

typedef enum {
  SERIES_RESIDUAL,
  SERIES_RMSE,
  SERIES_PSNR,
  SERIES_SSIM,
  N_SERIES
} Series;

struct _CtrMetricsPlot
{
  GtkDrawingArea  parent_instance;

  GListModel     *runs;          /* CtrRun, oldest first; nullable */
  gboolean        has_reference;
  char           *unit;
  char           *mask;      /* "FOV disc", or NULL */

  double          hover_x;       /* widget x of the pointer, or -1 */
};

G_DEFINE_FINAL_TYPE (CtrMetricsPlot, ctr_metrics_plot, GTK_TYPE_DRAWING_AREA)

/* The runs as drawn: references, and each run's colour index. */
typedef struct {
  GPtrArray *runs;   /* CtrRun*, owned */
} Snapshot;

static void
snapshot_take (CtrMetricsPlot *self, Snapshot *snap)
{
  guint n = self->runs ? g_list_model_get_n_items (self->runs) : 0;

  snap->runs = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    {
      CtrRun *run = g_list_model_get_item (self->runs, i);
      if (ctr_run_get_hidden (run))
        g_object_unref (run);   /* the user hid it */
      else
        g_ptr_array_add (snap->runs, run);
    }
}

static void
snapshot_clear (Snapshot *snap)
{
  g_clear_pointer (&snap->runs, g_ptr_array_unref);
}

static CtrRun *
snap_run (const Snapshot *snap, guint r)
{
  return g_ptr_array_index (snap->runs, r);
}

static const Point *
run_point (CtrRun *run, guint i)
{
  return ctr_run_get_stats (run, i);
}

/* A run's colour follows its number, as on the Profile page, so that it
 * keeps its colour when an earlier run is deleted. */
static GdkRGBA
run_rgba (const Snapshot *snap, guint r)
{
  GdkRGBA c;
  if (r < snap->runs->len)
    ctr_plot_color_of_run (snap_run (snap, r), &c);
  else
    ctr_plot_run_color (0, &c);
  return c;
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

/* FBP and FDK report once: their value is a level, not a curve. */
static gboolean
run_is_one_pass (CtrRun *run)
{
  return !ctr_method_is_iterative (ctr_run_get_options (run)->method);
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
  double m = v / pow (10, e);
  GString *s = g_string_new (NULL);

  if (e >= -3 && e <= 3)
    g_string_printf (s, "%.3g", v);
  else
    {
      if (fabs (m - 1) > 1e-6)
        g_string_append_printf (s, "%.3g×", m);
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
 * that moves within one decade still fills the panel).  Ticks from
 * ctr_plot_log_ticks (three or more per decade, three or more labelled);
 * a label that would collide with the previous one is left out. */
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
  f->ymin = lo;
  f->ymax = hi;

  double last_label_y = INFINITY;
  double values[128];
  gboolean labelled[128];
  guint n = ctr_plot_log_ticks (lo, hi, values, labelled, G_N_ELEMENTS (values));

  for (guint i = 0; i < n; i++)
    {
      double v = values[i];
      int e = (int) floor (log10 (v) + 1e-9);
      gboolean major = fabs (v - pow (10, e)) < 1e-9 * v;
      double y = round (frame_y (f, v)) + 0.5;

      set_fg (ctx, major ? 0.14 : 0.06);
      cairo_move_to (ctx->cr, f->x0, y);
      cairo_line_to (ctx->cr, f->x0 + f->w, y);
      cairo_stroke (ctx->cr);

      if (labelled[i] && last_label_y - y >= 16)
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
axis_iterations (const Snapshot *snap)
{
  guint n = 1;
  for (guint r = 0; r < snap->runs->len; r++)
    {
      CtrRun *run = snap_run (snap, r);
      if (r + 1 == snap->runs->len && ctr_run_get_state (run) != CTR_RUN_CANCELLED)
        n = MAX (n, ctr_run_get_n_iterations (run));
      for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
        n = MAX (n, run_point (run, i)->iteration);
    }
  return n;
}

/* A series' range over every run's usable values (*vmin, *vmax) and the
 * newest run's latest usable point (*latest, NULL when it has none);
 * returns how many values are usable. */
static guint
series_range (const Snapshot *snap,
              Series          series,
              gboolean        log_axis,
              double         *vmin_out,
              double         *vmax_out,
              const Point   **latest_out)
{
  double vmin = INFINITY, vmax = -INFINITY;
  const Point *latest = NULL;
  guint n_usable = 0;

  for (guint r = 0; r < snap->runs->len; r++)
    {
      CtrRun *run = snap_run (snap, r);
      for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
        {
          const Point *p = run_point (run, i);
          double v = point_value (p, series);

          if (!value_usable (v, log_axis))
            continue;
          vmin = MIN (vmin, v);
          vmax = MAX (vmax, v);
          if (r + 1 == snap->runs->len)
            latest = p;
          n_usable++;
        }
    }

  *vmin_out = vmin;
  *vmax_out = vmax;
  *latest_out = latest;
  return n_usable;
}

/* A panel's legend line: the newest run's swatch, the series' name (the
 * RMSE with the image unit) and, at the right, its latest value. */
static void
draw_panel_legend (CtrMetricsPlot *self,
                   const Snapshot *snap,
                   DrawCtx        *ctx,
                   Series          series,
                   const Point    *latest,
                   double          x0,
                   double          y0,
                   double          w)
{
  static const char *names[N_SERIES] = {
    "Residual ‖b − Ax‖ / ‖b‖",
    "RMSE vs reference",
    "PSNR vs reference (dB)",
    "SSIM vs reference",
  };
  GdkRGBA newest = run_rgba (snap, snap->runs->len > 0 ? snap->runs->len - 1 : 0);
  const GdkRGBA *color = &newest;
  cairo_t *cr = ctx->cr;
  const double ly = y0 + 9;
  g_autofree char *title = NULL;
  g_autofree char *value = latest ? format_value (point_value (latest, series)) : NULL;

  if ((series == SERIES_RMSE && self->unit != NULL) || (series == SERIES_SSIM && self->mask != NULL))
    {
      /* the unit and the mask the figures were computed over */
      g_autofree char *text = series == SERIES_RMSE && self->mask != NULL
                                ? g_strdup_printf ("%s, %s", self->unit, self->mask)
                                : g_strdup (series == SERIES_RMSE ? self->unit : self->mask);
      g_autofree char *unit = g_markup_escape_text (text, -1);
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

/* A panel's plot area: the background, the value grid and its labels
 * fitted to [vmin, vmax] (sets f's value range; a note instead when no
 * value is usable), the iteration grid and the axes. */
static void
draw_panel_axes (DrawCtx        *ctx,
                 const Snapshot *snap,
                 Frame          *f,
                 Series          series,
                 guint           n_usable,
                 double          vmin,
                 double          vmax,
                 gboolean        last)
{
  cairo_t *cr = ctx->cr;

  /* plot background */
  set_fg (ctx, 0.025);
  cairo_rectangle (cr, f->x0, f->y0, f->w, f->h);
  cairo_fill (cr);

  cairo_set_line_width (cr, 1);
  if (n_usable == 0)
    {
      f->ymin = 0;
      f->ymax = 1;
      draw_text (ctx,
                 snap->runs->len == 0 || ctr_run_get_n_stats (snap_run (snap, snap->runs->len - 1)) == 0
                   ? "<small>No data yet</small>"
                                        : "<small>Not reported by this method</small>",
                 f->x0 + f->w / 2, f->y0 + f->h / 2, 0.5, 0.5, 0.5);
    }
  else if (f->log_axis)
    draw_y_ticks_log (ctx, f, vmin, vmax);
  else
    {
      if (series == SERIES_SSIM)
        vmax = MIN (1.0, vmax);
      draw_y_ticks_linear (ctx, f, vmin, vmax);
    }

  draw_x_ticks (ctx, f, last);

  /* axes */
  set_fg (ctx, 0.55);
  cairo_move_to (cr, f->x0 + 0.5, f->y0);
  cairo_line_to (cr, f->x0 + 0.5, f->y0 + f->h + 0.5);
  cairo_line_to (cr, f->x0 + f->w, f->y0 + f->h + 0.5);
  cairo_stroke (cr);
}

/* A one-pass run (FBP, FDK): one value, drawn across the panel as a dashed
 * reference line (a dot at iteration 1 would hide under others). */
static void
draw_run_level (cairo_t     *cr,
                CtrRun      *run,
                const Frame *f,
                Series       series)
{
  guint n_points = ctr_run_get_n_stats (run);

  for (guint i = 0; i < n_points; i++)
    {
      double v = point_value (run_point (run, i), series);
      double y;

      if (!value_usable (v, f->log_axis))
        continue;
      y = round (frame_y (f, v)) + 0.5;
      cairo_save (cr);
      cairo_set_dash (cr, (double[]) { 7, 4 }, 2, 0);
      cairo_move_to (cr, f->x0, y);
      cairo_line_to (cr, f->x0 + f->w, y);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
}

/* An iterative run: its values joined by a line, broken where a value is
 * unusable, and a dot on each value when there are at most 60. */
static void
draw_run_curve (cairo_t     *cr,
                CtrRun      *run,
                const Frame *f,
                Series       series)
{
  guint n_points = ctr_run_get_n_stats (run);
  gboolean pen_down = FALSE;
  guint n_run = 0;

  for (guint i = 0; i < n_points; i++)
    {
      const Point *p = run_point (run, i);
      double v = point_value (p, series);

      if (!value_usable (v, f->log_axis))
        {
          pen_down = FALSE;
          continue;
        }
      n_run++;
      if (pen_down)
        cairo_line_to (cr, frame_x (f, p->iteration), frame_y (f, v));
      else
        cairo_move_to (cr, frame_x (f, p->iteration), frame_y (f, v));
      pen_down = TRUE;
    }
  cairo_stroke (cr);

  if (n_run <= 60)
    for (guint i = 0; i < n_points; i++)
      {
        const Point *p = run_point (run, i);
        double v = point_value (p, series);

        if (!value_usable (v, f->log_axis))
          continue;
        cairo_arc (cr, frame_x (f, p->iteration), frame_y (f, v),
                   n_run <= 20 ? 3.0 : 2.0, 0, 2 * G_PI);
        cairo_fill (cr);
      }
}

/* The series: one line per run, in the run's colour. */
static void
draw_panel_curves (DrawCtx        *ctx,
                   const Snapshot *snap,
                   const Frame    *f,
                   Series          series)
{
  cairo_t *cr = ctx->cr;

  for (guint r = 0; r < snap->runs->len; r++)
    {
      CtrRun *run = snap_run (snap, r);
      GdkRGBA rgba = run_rgba (snap, r);

      gdk_cairo_set_source_rgba (cr, &rgba);
      if (run_is_one_pass (run))
        draw_run_level (cr, run, f, series);
      else
        draw_run_curve (cr, run, f, series);
    }
}

/* The hover read-out: @markup in a light box at the top of the plot area,
 * right of x and kept inside the area. */
static void
draw_hover_box (DrawCtx     *ctx,
                const Frame *f,
                double       x,
                const char  *markup)
{
  cairo_t *cr = ctx->cr;
  PangoLayout *layout = gtk_widget_create_pango_layout (ctx->widget, NULL);
  int tw, th;
  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  double tx = MIN (x + 6, f->x0 + f->w - tw - 4);
  cairo_set_source_rgba (cr, 0.98, 0.98, 0.98, 0.92);
  cairo_rectangle (cr, tx - 3, f->y0 + 2, tw + 6, th + 2);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, 0.1, 0.1, 0.1, 1);
  cairo_move_to (cr, tx, f->y0 + 3);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* Hover: a vertical line at the iteration nearest the pointer (widget x
 * hover_x, inside the plot area), a ring on every run's value there and
 * the values in a read-out box. */
static void
draw_panel_hover (DrawCtx        *ctx,
                  const Snapshot *snap,
                  const Frame    *f,
                  Series          series,
                  double          hover_x)
{
  cairo_t *cr = ctx->cr;
  double it = f->xmin + (hover_x - f->x0 - 6) / (f->w - 12) * (f->xmax - f->xmin);
  guint k = (guint) MAX (1, round (it));
  double x = round (frame_x (f, k)) + 0.5;
  GString *text = g_string_new (NULL);

  set_fg (ctx, 0.5);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, x, f->y0);
  cairo_line_to (cr, x, f->y0 + f->h);
  cairo_stroke (cr);
  g_string_append_printf (text, "<small>it %u", k);
  for (guint r = 0; r < snap->runs->len; r++)
    {
      CtrRun *run = snap_run (snap, r);
      GdkRGBA rgba = run_rgba (snap, r);
      for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
        {
          const Point *p = run_point (run, i);
          if ((p->iteration != k && !run_is_one_pass (run)) || !value_usable (point_value (p, series), f->log_axis))
            continue;
          g_autofree char *v = format_value (point_value (p, series));
          g_string_append_printf (text, "  <span foreground='#%02x%02x%02x'>●</span> %s",
                                  (int) (rgba.red * 255), (int) (rgba.green * 255),
                                  (int) (rgba.blue * 255), v);
          cairo_arc (cr, x, frame_y (f, point_value (p, series)), 4, 0, 2 * G_PI);
          gdk_cairo_set_source_rgba (cr, &rgba);
          cairo_stroke (cr);
        }
    }
  g_string_append (text, "</small>");
  draw_hover_box (ctx, f, x, text->str);
  g_string_free (text, TRUE);
}

/* One panel of a series: legend, plot area and axes, the runs' curves and
 * the hover read-out, in the rectangle (x0, y0, w, h); @last panel carries
 * the iteration axis' title. */
static void
draw_panel (CtrMetricsPlot *self,
            const Snapshot *snap,
            DrawCtx        *ctx,
            Series          series,
            double          x0,
            double          y0,
            double          w,
            double          h,
            gboolean        last)
{
  gboolean log_axis = series == SERIES_RESIDUAL;
  cairo_t *cr = ctx->cr;
  double vmin, vmax;
  const Point *latest;
  guint n_usable = series_range (snap, series, log_axis, &vmin, &vmax, &latest);

  draw_panel_legend (self, snap, ctx, series, latest, x0, y0, w);

  Frame f = {
    .x0 = x0 + 58, .y0 = y0 + 24,
    .w = w - 58, .h = h - 24 - (last ? 40 : 20),
    .xmin = 1, .xmax = MAX (axis_iterations (snap), 1),
    .log_axis = log_axis,
  };

  if (f.w < 20 || f.h < 20)
    return;
  if (f.xmax <= f.xmin)
    {
      f.xmin = 0.5;
      f.xmax = 1.5;
    }

  draw_panel_axes (ctx, snap, &f, series, n_usable, vmin, vmax, last);

  if (n_usable == 0)
    return;

  cairo_save (cr);
  cairo_rectangle (cr, f.x0, f.y0 - 4, f.w + 4, f.h + 8);
  cairo_clip (cr);
  cairo_set_line_width (cr, 2);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  draw_panel_curves (ctx, snap, &f, series);
  if (self->hover_x >= f.x0 && self->hover_x <= f.x0 + f.w)
    draw_panel_hover (ctx, snap, &f, series, self->hover_x);
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
  Snapshot snap;
  Series shown[N_SERIES];
  guint n_shown = 0;
  gboolean has_reference = self->has_reference;
  const double margin = 14, gap = 14;

  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &ctx.fg);
  snapshot_take (self, &snap);

  for (guint r = 0; r < snap.runs->len && !has_reference; r++)
    {
      CtrRun *run = snap_run (&snap, r);
      for (guint i = 0; i < ctr_run_get_n_stats (run); i++)
        has_reference = has_reference || run_point (run, i)->has_reference;
    }
  shown[n_shown++] = SERIES_RESIDUAL;
  if (has_reference)
    {
      shown[n_shown++] = SERIES_RMSE;
      shown[n_shown++] = SERIES_PSNR;
      shown[n_shown++] = SERIES_SSIM;
    }

  /* run legend */
  double top = margin;
  if (snap.runs->len > 0)
    {
      double x = margin;
      for (guint r = 0; r < snap.runs->len; r++)
        {
          g_autofree char *label = g_markup_printf_escaped ("<small>%s</small>",
                                                            ctr_run_get_label (snap_run (&snap, r)));
          PangoLayout *layout = gtk_widget_create_pango_layout (ctx.widget, NULL);
          GdkRGBA rgba = run_rgba (&snap, r);
          int tw, th;
          pango_layout_set_markup (layout, label, -1);
          pango_layout_get_pixel_size (layout, &tw, &th);
          g_object_unref (layout);
          if (x + 22 + tw > width - margin && x > margin)
            {
              x = margin;
              top += 18;
            }
          gdk_cairo_set_source_rgba (cr, &rgba);
          cairo_set_line_width (cr, 3);
          if (run_is_one_pass (snap_run (&snap, r)))
            cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
          cairo_move_to (cr, x, top + 8);
          cairo_line_to (cr, x + 16, top + 8);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
          draw_text (&ctx, label, x + 20, top + 8, 0, 0.5, 0.9);
          x += 20 + tw + 14;
        }
      top += 22;
    }

  double panel_h = (height - top - margin - gap * (n_shown - 1)) / n_shown;
  for (guint i = 0; i < n_shown; i++)
    draw_panel (self, &snap, &ctx, shown[i], margin, top + i * (panel_h + gap),
                width - 2 * margin, panel_h, i + 1 == n_shown);
  snapshot_clear (&snap);
}

static void
ctr_metrics_plot_dispose (GObject *object)
{
  CtrMetricsPlot *self = CTR_METRICS_PLOT (object);

  ctr_metrics_plot_set_runs (self, NULL);
  G_OBJECT_CLASS (ctr_metrics_plot_parent_class)->dispose (object);
}

static void
ctr_metrics_plot_finalize (GObject *object)
{
  CtrMetricsPlot *self = CTR_METRICS_PLOT (object);

  g_free (self->unit);
  g_free (self->mask);
  G_OBJECT_CLASS (ctr_metrics_plot_parent_class)->finalize (object);
}

static void
ctr_metrics_plot_class_init (CtrMetricsPlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ctr_metrics_plot_dispose;
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

/* A run's label, state or numbers changed: draw again. */
static void
watch_runs (CtrMetricsPlot *self, guint position, guint removed, guint added, GListModel *runs)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, i);
      g_signal_connect_object (run, "notify", G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * ctr_metrics_plot_set_runs:
 * @runs: (nullable): a GListModel of CtrRun (a session's), oldest first.
 *
 * Overlays every run of @runs, run number n in ctr_plot_run_color (n − 1), and follows
 * the model: new runs, new numbers, a run's new label.
 */
void
ctr_metrics_plot_set_runs (CtrMetricsPlot *self,
                           GListModel     *runs)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  g_return_if_fail (runs == NULL || G_IS_LIST_MODEL (runs));

  if (self->runs == runs)
    return;
  if (self->runs != NULL)
    {
      guint n = g_list_model_get_n_items (self->runs);
      g_signal_handlers_disconnect_by_data (self->runs, self);
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(CtrRun) run = g_list_model_get_item (self->runs, i);
          g_signal_handlers_disconnect_by_data (run, self);
        }
      g_clear_object (&self->runs);
    }
  if (runs != NULL)
    {
      self->runs = g_object_ref (runs);
      g_signal_connect_object (runs, "items-changed", G_CALLBACK (watch_runs), self, G_CONNECT_SWAPPED);
      watch_runs (self, 0, 0, g_list_model_get_n_items (runs), runs);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * ctr_metrics_plot_set_reference:
 * @has_reference: whether the RMSE, PSNR and SSIM panels are shown (they are
 *   also shown as soon as a run reports them).
 * @unit: (nullable): the image unit, for the RMSE axis ("1/mm").
 */
void
ctr_metrics_plot_set_reference (CtrMetricsPlot *self,
                                gboolean        has_reference,
                                const char     *unit)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));

  self->has_reference = has_reference;
  g_free (self->unit);
  self->unit = g_strdup (unit);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_metrics_plot_set_mask (CtrMetricsPlot *self,
                           const char     *mask)
{
  g_return_if_fail (CTR_IS_METRICS_PLOT (self));
  g_free (self->mask);
  self->mask = g_strdup (mask);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The runs overlaid (hidden ones left out). */
guint
ctr_metrics_plot_get_n_runs (CtrMetricsPlot *self)
{
  guint n = 0;

  g_return_val_if_fail (CTR_IS_METRICS_PLOT (self), 0);
  for (guint i = 0; self->runs != NULL && i < g_list_model_get_n_items (self->runs); i++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (self->runs, i);
      n += !ctr_run_get_hidden (run);
    }
  return n;
}
