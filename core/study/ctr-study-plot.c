/* ctr-study-plot.c — RMSE, SSIM and (with a d′ task) d′ NPW against dose,
 * per method, the mean over the noise realisations with error bars of ±
 * its standard error (see ctr-study-plot.h). */
#include "study/ctr-study-plot.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"
#include "io/ctr-temp.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* Okabe & Ito's colour-blind-safe palette (yellow left out: too pale on white). */
static const double palette[][3] = {
  { 0.000, 0.447, 0.698 }, { 0.835, 0.369, 0.000 }, { 0.000, 0.620, 0.451 },
  { 0.800, 0.475, 0.655 }, { 0.902, 0.624, 0.000 }, { 0.337, 0.706, 0.914 },
  { 0.000, 0.000, 0.000 },
};
#define N_COLOURS G_N_ELEMENTS (palette)
#define N_MARKERS 4

/* Configuration @m's style: a colour, a marker and, from the second round of
 * colours on, a dashed line, so that no two of the first
 * N_COLOURS × N_MARKERS configurations look alike (configurations m and
 * m + N_COLOURS share the colour, never the marker). */
static guint
marker_kind (guint m)
{
  return (m + 2 * (m / N_COLOURS)) % N_MARKERS;
}

static void
set_line_style (cairo_t *cr, guint m)
{
  static const double dash[] = { 7.0, 4.0 };
  cairo_set_line_width (cr, 2);
  cairo_set_dash (cr, dash, (m / N_COLOURS) % 2 ? 2 : 0, 0);
}

#define FONT_SIZE 13.0
#define TITLE_SIZE 15.0
#define MARKER 4.5

typedef struct {
  double x, y, w, h;       /* plot area */
  double x0, x1, y0, y1;   /* data range */
  gboolean log_x;
} Axes;

static double
map_x (const Axes *a, double v)
{
  double t = a->log_x ? (log (v) - log (a->x0)) / (log (a->x1) - log (a->x0)) : (v - a->x0) / (a->x1 - a->x0);
  return a->x + t * a->w;
}

static double
map_y (const Axes *a, double v)
{
  return a->y + a->h - (v - a->y0) / (a->y1 - a->y0) * a->h;
}

/* A 1-2-5 step giving about @n intervals over @range. */
static double
nice_step (double range, int n)
{
  double raw = range / n, mag = pow (10, floor (log10 (raw)));
  double f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void
text_at (cairo_t *cr, const char *text, double x, double y, double ax, double ay)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, text, &e);
  cairo_move_to (cr, x - ax * e.width - e.x_bearing, y - ay * e.height - e.y_bearing);
  cairo_show_text (cr, text);
}

static void
marker (cairo_t *cr, guint kind, double x, double y)
{
  const double r = MARKER;
  switch (kind % N_MARKERS)
    {
    case 0:
      cairo_arc (cr, x, y, r, 0, 2 * G_PI);
      break;
    case 1:
      cairo_rectangle (cr, x - r * 0.9, y - r * 0.9, 1.8 * r, 1.8 * r);
      break;
    case 2:
      cairo_move_to (cr, x, y - 1.15 * r);
      cairo_line_to (cr, x + r, y + 0.75 * r);
      cairo_line_to (cr, x - r, y + 0.75 * r);
      cairo_close_path (cr);
      break;
    default:
      cairo_move_to (cr, x, y - 1.2 * r);
      cairo_line_to (cr, x + 1.2 * r, y);
      cairo_line_to (cr, x, y + 1.2 * r);
      cairo_line_to (cr, x - 1.2 * r, y);
      cairo_close_path (cr);
      break;
    }
  cairo_fill (cr);
}

/* What a panel shows. */
typedef enum { Q_RMSE, Q_SSIM, Q_DPRIME } Quantity;

static double
row_value (const CtrStudyRow *r, Quantity q)
{
  return q == Q_SSIM ? r->ssim : q == Q_DPRIME ? r->dprime_npw : r->hu_rmse;
}

/* Method @m's points: [dose, mean, standard error (NaN for one
 * realisation)] per dose with a finite value, sorted by dose. */
static GArray *
method_points (const CtrStudyRow *rows, guint n_rows, guint m, Quantity q)
{
  GArray *pts = g_array_new (FALSE, FALSE, sizeof (double) * 3);
  g_autoptr (GArray) acc = g_array_new (FALSE, TRUE, sizeof (double) * 4);  /* dose, Σ, Σ², n */
  for (guint k = 0; k < n_rows; k++)
    {
      const double v = row_value (&rows[k], q);
      if (rows[k].method_index != m || !isfinite (v))
        continue;
      guint i = 0;
      while (i < acc->len && ((double *) acc->data)[4 * i] != rows[k].dose)
        i++;
      if (i == acc->len)
        {
          double z[4] = { rows[k].dose, 0, 0, 0 };
          g_array_append_vals (acc, z, 1);
        }
      double *a = (double *) acc->data + 4 * i;
      a[1] += v;
      a[2] += v * v;
      a[3] += 1;
    }
  for (guint i = 0; i < acc->len; i++)
    {
      const double *a = (const double *) acc->data + 4 * i;
      const double mean = a[1] / a[3];
      const double se = a[3] >= 2 ? sqrt (MAX (0.0, (a[2] - a[3] * mean * mean) / (a[3] - 1)) / a[3]) : NAN;
      double p[3] = { a[0], mean, se };
      /* insertion by dose: a handful of points */
      guint j = 0;
      while (j < pts->len && ((double *) pts->data)[3 * j] < a[0])
        j++;
      g_array_insert_vals (pts, j, p, 1);
    }
  return pts;
}

/* Every method's polyline through its per-dose means, with error bars. */
static void
draw_curves (const CtrStudy *s, cairo_t *cr, const Axes *a, const CtrStudyRow *rows, guint n_rows, Quantity q)
{
  cairo_save (cr);
  cairo_rectangle (cr, a->x, a->y, a->w, a->h);
  cairo_clip (cr);
  for (guint m = 0; m < s->methods->len; m++)
    {
      const double *c = palette[m % N_COLOURS];
      g_autoptr (GArray) pts = method_points (rows, n_rows, m, q);
      if (pts->len == 0)
        continue;
      const double *xy = (const double *) pts->data;
      cairo_set_source_rgb (cr, c[0], c[1], c[2]);
      set_line_style (cr, m);
      for (guint i = 0; i < pts->len; i++)
        {
          double x = map_x (a, xy[3 * i]), y = map_y (a, xy[3 * i + 1]);
          if (i == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      cairo_set_line_width (cr, 1.5);
      for (guint i = 0; i < pts->len; i++)
        if (isfinite (xy[3 * i + 2]) && xy[3 * i + 2] > 0)
          {
            const double x = map_x (a, xy[3 * i]);
            const double lo = map_y (a, xy[3 * i + 1] - xy[3 * i + 2]), hi = map_y (a, xy[3 * i + 1] + xy[3 * i + 2]);
            cairo_move_to (cr, x, lo);
            cairo_line_to (cr, x, hi);
            cairo_move_to (cr, x - MARKER, lo);
            cairo_line_to (cr, x + MARKER, lo);
            cairo_move_to (cr, x - MARKER, hi);
            cairo_line_to (cr, x + MARKER, hi);
            cairo_stroke (cr);
          }
      for (guint i = 0; i < pts->len; i++)
        marker (cr, marker_kind (m), map_x (a, xy[3 * i]), map_y (a, xy[3 * i + 1]));
    }
  cairo_restore (cr);
}

/* One panel: @q selects the quantity. */
static void
draw_panel (const CtrStudy *s, cairo_t *cr, double px, double py, double pw, double ph, Quantity q)
{
  const gboolean ssim = q == Q_SSIM;
  guint n_rows = 0;
  const CtrStudyRow *rows = ctr_study_get_rows (s, &n_rows);
  Axes a = { px + 72, py + 34, pw - 72 - 16, ph - 34 - 52, 0, 0, 0, 0, FALSE };

  /* Data ranges: x over the study's doses, y over the finite values. */
  a.x0 = INFINITY;
  a.x1 = -INFINITY;
  for (guint i = 0; i < s->doses->len; i++)
    {
      double d = g_array_index (s->doses, double, i);
      a.x0 = MIN (a.x0, d);
      a.x1 = MAX (a.x1, d);
    }
  a.y0 = INFINITY;
  a.y1 = -INFINITY;
  for (guint k = 0; k < n_rows; k++)
    {
      double v = row_value (&rows[k], q);
      if (isfinite (v))
        {
          a.y0 = MIN (a.y0, v);
          a.y1 = MAX (a.y1, v);
        }
    }

  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_font_size (cr, TITLE_SIZE);
  /* Where the metrics count: the field of view, a disc the study set, or
   * the whole image (ctr_study_set_metrics_radius). */
  g_autofree char *where = s->metrics_radius_mm < 0 ? g_strdup ("in the field of view")
                           : s->metrics_radius_mm == 0 ? g_strdup ("over the whole image")
                           : g_strdup_printf ("inside r = %g mm", s->metrics_radius_mm);
  g_autofree char *heading = q == Q_DPRIME ? g_strdup ("d′ NPW (mean ± s.e.)")
                             : g_strdup_printf (ssim ? "SSIM %s" : "RMSE %s (HU)", where);
  text_at (cr, heading, a.x + a.w / 2, py + 6, 0.5, 0);
  cairo_set_font_size (cr, FONT_SIZE);
  if (!isfinite (a.x0))
    return;
  if (!isfinite (a.y0))
    {
      cairo_set_source_rgb (cr, 0.4, 0.4, 0.4);
      text_at (cr, n_rows == 0 ? "no run finished yet"
                   : q == Q_DPRIME ? "no d′ measured" : "no reference: nothing to compare with",
               a.x + a.w / 2, a.y + a.h / 2, 0.5, 0.5);
      return;
    }

  /* x: logarithmic over a factor 3 or more; margins of 6 % either side. */
  a.log_x = a.x0 > 0 && a.x1 / a.x0 >= 3;
  if (a.x1 == a.x0)
    {
      a.x0 *= 0.9;
      a.x1 *= 1.1;
    }
  else if (a.log_x)
    {
      double m = 0.06 * log (a.x1 / a.x0);
      a.x0 *= exp (-m);
      a.x1 *= exp (m);
    }
  else
    {
      double m = 0.06 * (a.x1 - a.x0);
      a.x0 -= m;
      a.x1 += m;
    }
  /* y: at least three 1-2-5 ticks, SSIM never above 1. */
  double span = a.y1 - a.y0;
  if (!(span > 0))
    span = fabs (a.y1) > 0 ? 0.1 * fabs (a.y1) : 1;
  double step = nice_step (span, 4);
  a.y0 = floor ((a.y0 - 0.05 * span) / step) * step;
  a.y1 = ceil ((a.y1 + 0.05 * span) / step) * step;
  if (ssim && a.y1 > 1)
    a.y1 = 1;
  if (!ssim && a.y0 < 0)
    a.y0 = 0;

  /* Grid and ticks. */
  cairo_set_line_width (cr, 1);
  for (double v = a.y0; v <= a.y1 + 1e-9 * step; v += step)
    {
      double y = round (map_y (&a, v)) + 0.5;
      cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
      cairo_move_to (cr, a.x, y);
      cairo_line_to (cr, a.x + a.w, y);
      cairo_stroke (cr);
      char buf[32];
      g_snprintf (buf, sizeof buf, step < 0.01 ? "%.3f" : step < 0.1 ? "%.2f" : step < 1 ? "%.1f" : "%.0f", v);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      text_at (cr, buf, a.x - 6, y, 1, 0.5);
    }
  for (guint i = 0; i < s->doses->len; i++)
    {
      double d = g_array_index (s->doses, double, i);
      double x = round (map_x (&a, d)) + 0.5;
      cairo_set_source_rgb (cr, 0.88, 0.88, 0.88);
      cairo_move_to (cr, x, a.y);
      cairo_line_to (cr, x, a.y + a.h);
      cairo_stroke (cr);
      char buf[32];
      g_snprintf (buf, sizeof buf, "%g", d);
      cairo_set_source_rgb (cr, 0.15, 0.15, 0.15);
      text_at (cr, buf, x, a.y + a.h + 6, 0.5, 0);
    }
  cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
  cairo_rectangle (cr, a.x + 0.5, a.y + 0.5, a.w - 1, a.h - 1);
  cairo_stroke (cr);
  /* Where the photons per bin are known, say what dose 1 is. */
  double i0_full = NAN;
  for (guint k = 0; k < n_rows && !isfinite (i0_full); k++)
    if (isfinite (rows[k].i0))
      i0_full = rows[k].i0 / rows[k].dose;
  g_autofree char *anchor = isfinite (i0_full) ? g_strdup_printf ("; 1 = %.4g photons per bin", i0_full) : g_strdup ("");
  g_autofree char *xlabel = g_strdup_printf ("dose (fraction of the data's%s%s)", anchor, a.log_x ? "; log scale" : "");
  {
    /* a narrow panel (the window's figure): the label shrinks to fit under it */
    cairo_text_extents_t e;
    cairo_matrix_t font;
    cairo_save (cr);
    cairo_text_extents (cr, xlabel, &e);
    cairo_get_font_matrix (cr, &font);
    if (font.yy * a.w / e.width < 7)
      {
        /* too narrow even at 7 px: the label without what dose 1 is */
        g_free (xlabel);
        xlabel = g_strdup_printf ("dose (fraction of the data's%s)", a.log_x ? "; log scale" : "");
        cairo_text_extents (cr, xlabel, &e);
      }
    if (e.width > a.w)
      cairo_set_font_size (cr, MAX (font.yy * a.w / e.width, 7));
    text_at (cr, xlabel, a.x + a.w / 2, a.y + a.h + 28, 0.5, 0);
    cairo_restore (cr);
  }

  draw_curves (s, cr, &a, rows, n_rows, q);
}

/* The legend's height for @width, drawing it at @y when @draw. */
static double
legend (const CtrStudy *s, cairo_t *cr, double width, double y, gboolean draw)
{
  cairo_set_font_size (cr, FONT_SIZE);
  const double pad = 24, swatch = 30, line_h = 22;
  double x = pad, rows = s->methods->len > 0 ? 1 : 0;
  for (guint m = 0; m < s->methods->len; m++)
    {
      const char *label = g_array_index (s->methods, StudyMethod, m).label;
      cairo_text_extents_t e;
      cairo_text_extents (cr, label, &e);
      double w = swatch + 6 + e.x_advance + pad;
      if (x + w > width && x > pad)
        {
          x = pad;
          rows++;
        }
      if (draw)
        {
          const double *c = palette[m % N_COLOURS];
          double cy = y + (rows - 1) * line_h + line_h / 2;
          cairo_set_source_rgb (cr, c[0], c[1], c[2]);
          set_line_style (cr, m);
          cairo_move_to (cr, x, cy);
          cairo_line_to (cr, x + swatch, cy);
          cairo_stroke (cr);
          cairo_set_dash (cr, NULL, 0, 0);
          marker (cr, marker_kind (m), x + swatch / 2, cy);
          cairo_set_source_rgb (cr, 0.1, 0.1, 0.1);
          text_at (cr, label, x + swatch + 6, cy, 0, 0.5);
        }
      x += w;
    }
  return rows * line_h;
}

void
ctr_study_plot_draw (const CtrStudy *s, cairo_t *cr, double width, double height)
{
  g_return_if_fail (s != NULL && cr != NULL);
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new ((GMutex *) &s->lock);
  cairo_save (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  /* Title: the dataset and the dose model's anchor. */
  cairo_set_source_rgb (cr, 0, 0, 0);
  cairo_set_font_size (cr, TITLE_SIZE + 2);
  g_autofree char *title = g_strdup_printf ("Dose study%s%s", *s->title ? ": " : "", s->title);
  text_at (cr, title, width / 2, 10, 0.5, 0);
  const double top = 40;

  double legend_h = legend (s, cr, width, 0, FALSE);
  double panel_h = MAX (height - top - legend_h - 16, 80);
  const guint n_panels = s->iq.has_task ? 3 : 2;
  double panel_w = width / n_panels;
  for (guint i = 0; i < n_panels; i++)
    draw_panel (s, cr, i * panel_w, top, panel_w, panel_h, (Quantity) i);
  legend (s, cr, width, top + panel_h + 4, TRUE);
  cairo_restore (cr);
}

gboolean
ctr_study_plot_write_png (const CtrStudy *s, const char *path, int width, int height, GError **error)
{
  g_return_val_if_fail (s != NULL && path != NULL, FALSE);
  if (width < 200 || height < 200 || width > 8000 || height > 8000)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "a figure of %d × %d pixels: both sides must be 200 to 8000", width, height);
      return FALSE;
    }
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  cairo_t *cr = cairo_create (surface);
  ctr_study_plot_draw (s, cr, width, height);
  cairo_destroy (cr);
  gboolean ok = ctr_study_write_surface_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}

gboolean
ctr_study_write_surface_png (cairo_surface_t *surface, const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  ctr_temp_lock ();
  int fd = g_mkstemp (tmp);
  const int mk_errno = errno;
  if (fd >= 0)
    ctr_temp_register (tmp, FALSE);
  ctr_temp_unlock ();
  if (fd < 0)
    {
      int e = mk_errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot create a file in %s: %s", dir, g_strerror (e));
      return FALSE;
    }
  close (fd);
  cairo_status_t st = cairo_surface_write_to_png (surface, tmp);
  ctr_temp_lock ();
  const gboolean ok = st == CAIRO_STATUS_SUCCESS && g_rename (tmp, path) == 0;
  int e = errno;
  if (!ok)
    g_unlink (tmp);
  ctr_temp_forget (tmp);
  ctr_temp_unlock ();
  if (!ok)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "could not write “%s”: %s", path,
                   st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string (st) : g_strerror (e));
      return FALSE;
    }
  g_chmod (path, 0644);
  return TRUE;
}
