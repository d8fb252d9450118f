/* ctr-profile-plot.c — values along a line, several images on one plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The line-profile figure of cuART (Fig. 15): distance along the segment in
 * mm on x, the image value on y, one curve per open reconstruction and the
 * reference dashed.  The samples come from core's ctr_profile_sample
 * (bilinear); this widget only draws them and writes them as CSV.  Hovering
 * shows every curve's value at the pointer's distance.
 */
#define G_LOG_DOMAIN "ctr-profile-plot"

#include <math.h>

#include "ctr-profile-plot.h"
#include "ctr-plot-draw.h"

typedef struct {
  char    *name;
  GdkRGBA  color;
  gboolean dashed;
  guint    n;
  double  *s;
  float   *v;
} Curve;

struct _CtrProfilePlot
{
  GtkDrawingArea  parent_instance;
  GPtrArray      *curves;
  char           *unit;
  double          hover_x;
};

G_DEFINE_FINAL_TYPE (CtrProfilePlot, ctr_profile_plot, GTK_TYPE_DRAWING_AREA)

static void
curve_free (gpointer data)
{
  Curve *c = data;
  g_free (c->name);
  g_free (c->s);
  g_free (c->v);
  g_free (c);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CtrProfilePlot *self = CTR_PROFILE_PLOT (area);
  GtkWidget *w = GTK_WIDGET (area);
  GdkRGBA fg;
  double smax = 0, vmin = INFINITY, vmax = -INFINITY;

  gtk_style_context_get_color (gtk_widget_get_style_context (w), &fg);
  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      smax = MAX (smax, c->n ? c->s[c->n - 1] : 0);
      for (guint k = 0; k < c->n; k++)
        if (isfinite (c->v[k]))
          {
            vmin = MIN (vmin, c->v[k]);
            vmax = MAX (vmax, c->v[k]);
          }
    }
  if (self->curves->len == 0 || !(smax > 0) || !isfinite (vmin))
    {
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
      ctr_plot_draw_text (cr, w, "<small>Drag a line across the image on the left</small>", width / 2.0, height / 2.0, 0.5, 0.5);
      return;
    }
  if (!(vmax > vmin))
    {
      vmin -= 0.5;
      vmax += 0.5;
    }

  /* legend */
  double top = 12, x = 14;
  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      g_autofree char *label = g_markup_printf_escaped ("<small>%s</small>", c->name);
      gdk_cairo_set_source_rgba (cr, &c->color);
      cairo_set_line_width (cr, 2.5);
      if (c->dashed)
        cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
      cairo_move_to (cr, x, top + 8);
      cairo_line_to (cr, x + 18, top + 8);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
      PangoLayout *layout = gtk_widget_create_pango_layout (w, NULL);
      int tw, th;
      pango_layout_set_markup (layout, label, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      g_object_unref (layout);
      if (x + 24 + tw > width - 10)
        {
          x = 14;
          top += 18;
        }
      ctr_plot_draw_text (cr, w, label, x + 22, top + 8, 0, 0.5);
      x += 22 + tw + 14;
    }

  /* the unit has a line of its own between the legend and the plot */
  double x0 = 66, y0 = top + 44, pw = width - x0 - 16, ph = height - y0 - 44;
  if (pw < 40 || ph < 40)
    return;
  double vstep = ctr_plot_nice_step ((vmax - vmin) / 5), lo = floor (vmin / vstep) * vstep, hi = ceil (vmax / vstep) * vstep;
  double sstep = ctr_plot_nice_step (smax / 6);
#define PX(s_) (x0 + (s_) / smax * pw)
#define PY(v_) (y0 + ph - ((v_) - lo) / (hi - lo) * ph)

  cairo_set_line_width (cr, 1);
  for (double t = lo; t <= hi + vstep / 2; t += vstep)
    {
      double y = round (PY (t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%.*f</small>", MAX (0, (int) -floor (log10 (vstep) + 1e-9)), t);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.1);
      cairo_move_to (cr, x0, y);
      cairo_line_to (cr, x0 + pw, y);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.75);
      ctr_plot_draw_text (cr, w, label, x0 - 6, y, 1, 0.5);
    }
  for (double t = 0; t <= smax + 1e-9; t += sstep)
    {
      double xx = round (PX (t)) + 0.5;
      g_autofree char *label = g_strdup_printf ("<small>%g</small>", t);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.06);
      cairo_move_to (cr, xx, y0);
      cairo_line_to (cr, xx, y0 + ph);
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.75);
      ctr_plot_draw_text (cr, w, label, xx, y0 + ph + 4, 0.5, 0);
    }
  {
    g_autofree char *xt = g_strdup ("<small>Distance along the line (mm)</small>");
    g_autofree char *yt = g_markup_printf_escaped ("<small>%s</small>", self->unit ? self->unit : "value");
    ctr_plot_draw_text (cr, w, xt, x0 + pw / 2, y0 + ph + 22, 0.5, 0);
    ctr_plot_draw_text (cr, w, yt, 14, top + 22, 0, 0);
  }
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.55);
  cairo_move_to (cr, x0 + 0.5, y0);
  cairo_line_to (cr, x0 + 0.5, y0 + ph + 0.5);
  cairo_line_to (cr, x0 + pw, y0 + ph + 0.5);
  cairo_stroke (cr);

  cairo_save (cr);
  cairo_rectangle (cr, x0, y0 - 2, pw + 2, ph + 4);
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
          if (!isfinite (c->v[k]))
            {
              down = FALSE;
              continue;
            }
          if (down)
            cairo_line_to (cr, PX (c->s[k]), PY (c->v[k]));
          else
            cairo_move_to (cr, PX (c->s[k]), PY (c->v[k]));
          down = TRUE;
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
    }
  cairo_restore (cr);

  /* hover read-out */
  if (self->hover_x >= x0 && self->hover_x <= x0 + pw)
    {
      double sh = (self->hover_x - x0) / pw * smax;
      g_autoptr(GString) t = g_string_new (NULL);
      g_string_append_printf (t, "<small>%.1f mm", sh);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
      cairo_move_to (cr, round (self->hover_x) + 0.5, y0);
      cairo_line_to (cr, round (self->hover_x) + 0.5, y0 + ph);
      cairo_stroke (cr);
      for (guint i = 0; i < self->curves->len; i++)
        {
          Curve *c = g_ptr_array_index (self->curves, i);
          if (c->n < 2)
            continue;
          guint k = (guint) CLAMP (round (sh / c->s[c->n - 1] * (c->n - 1)), 0, c->n - 1);
          g_string_append_printf (t, "  <span foreground='#%02x%02x%02x'>●</span> %.4g",
                                  (int) (c->color.red * 255), (int) (c->color.green * 255),
                                  (int) (c->color.blue * 255), c->v[k]);
        }
      g_string_append (t, "</small>");
      PangoLayout *layout = gtk_widget_create_pango_layout (w, NULL);
      int tw, th;
      pango_layout_set_markup (layout, t->str, -1);
      pango_layout_get_pixel_size (layout, &tw, &th);
      double tx = MIN (self->hover_x + 6, x0 + pw - tw - 4);
      cairo_set_source_rgba (cr, 0.98, 0.98, 0.98, 0.92);
      cairo_rectangle (cr, tx - 3, y0 + 2, tw + 6, th + 2);
      cairo_fill (cr);
      cairo_set_source_rgba (cr, 0.1, 0.1, 0.1, 1);
      cairo_move_to (cr, tx, y0 + 3);
      pango_cairo_show_layout (cr, layout);
      g_object_unref (layout);
    }
#undef PX
#undef PY
}

static void
on_motion (GtkEventControllerMotion *c, double x, double y, CtrProfilePlot *self)
{
  self->hover_x = x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_leave (GtkEventControllerMotion *c, CtrProfilePlot *self)
{
  self->hover_x = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
ctr_profile_plot_finalize (GObject *object)
{
  CtrProfilePlot *self = CTR_PROFILE_PLOT (object);
  g_ptr_array_unref (self->curves);
  g_free (self->unit);
  G_OBJECT_CLASS (ctr_profile_plot_parent_class)->finalize (object);
}

static void
ctr_profile_plot_class_init (CtrProfilePlotClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_profile_plot_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "ctrprofileplot");
}

static void
ctr_profile_plot_init (CtrProfilePlot *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  self->curves = g_ptr_array_new_with_free_func (curve_free);
  self->hover_x = -1;
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (self), 360);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self), 300);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
}

GtkWidget *
ctr_profile_plot_new (void)
{
  return g_object_new (CTR_TYPE_PROFILE_PLOT, NULL);
}

void
ctr_profile_plot_clear (CtrProfilePlot *self)
{
  g_return_if_fail (CTR_IS_PROFILE_PLOT (self));
  g_ptr_array_set_size (self->curves, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_profile_plot_add_curve (CtrProfilePlot *self, const char *name, const GdkRGBA *color,
                            gboolean dashed, guint n, const double *s, const float *values)
{
  Curve *c;

  g_return_if_fail (CTR_IS_PROFILE_PLOT (self));
  c = g_new0 (Curve, 1);
  c->name = g_strdup (name);
  c->color = *color;
  c->dashed = dashed;
  c->n = n;
  c->s = g_memdup2 (s, n * sizeof (double));
  c->v = g_memdup2 (values, n * sizeof (float));
  g_ptr_array_add (self->curves, c);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_profile_plot_set_unit (CtrProfilePlot *self, const char *unit)
{
  g_return_if_fail (CTR_IS_PROFILE_PLOT (self));
  g_free (self->unit);
  self->unit = g_strdup (unit);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_profile_plot_get_n_curves (CtrProfilePlot *self)
{
  g_return_val_if_fail (CTR_IS_PROFILE_PLOT (self), 0);
  return self->curves->len;
}

gboolean
ctr_profile_plot_write_csv (CtrProfilePlot *self, const char *path, GError **error)
{
  g_autoptr(GString) csv = g_string_new ("s_mm");
  guint n = 0;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (CTR_IS_PROFILE_PLOT (self), FALSE);
  for (guint i = 0; i < self->curves->len; i++)
    {
      Curve *c = g_ptr_array_index (self->curves, i);
      /* the curve's label and the values' unit: "1 · FBP · Hann · cut-off 1 [HU …]" */
      g_autofree char *name = self->unit ? g_strdup_printf ("%s [%s]", c->name, self->unit) : g_strdup (c->name);
      g_strdelimit (name, ",\"\n", ' ');
      g_string_append_printf (csv, ",%s", name);
      n = MAX (n, c->n);
    }
  g_string_append_c (csv, '\n');
  for (guint k = 0; k < n; k++)
    {
      Curve *c0 = self->curves->len ? g_ptr_array_index (self->curves, 0) : NULL;
      g_string_append (csv, g_ascii_dtostr (buf, sizeof buf, c0 && k < c0->n ? c0->s[k] : NAN));
      for (guint i = 0; i < self->curves->len; i++)
        {
          Curve *c = g_ptr_array_index (self->curves, i);
          g_string_append_c (csv, ',');
          if (k < c->n)
            g_string_append (csv, g_ascii_formatd (buf, sizeof buf, "%.9g", c->v[k]));
        }
      g_string_append_c (csv, '\n');
    }
  return g_file_set_contents (path, csv->str, (gssize) csv->len, error);
}
