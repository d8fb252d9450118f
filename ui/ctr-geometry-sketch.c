/* ctr-geometry-sketch.c — a to-scale drawing of the acquisition for one view.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Draws, in the plane of rotation and in the FORMAT.md frame (x right, y up,
 * beta counter-clockwise from +z), for the chosen view:
 *   - the source S = (R sin b, -R cos b) and the fan of rays to the outer
 *     edges of the detector (fan beam), or the band of parallel rays;
 *   - the detector: a segment perpendicular to the central ray at SDD (flat),
 *     an arc of radius SDD around the source (curved), its first column
 *     marked so the direction of u is visible;
 *   - the field-of-view disc (ctr_geometry_fov_radius_mm) and the
 *     reconstruction grid (its outline and every n-th pixel line);
 *   - the isocentre and the x/y axes.
 * The scale is fixed over all views (the largest distance from the isocentre
 * any drawn point reaches at any angle), so moving the view slider rotates
 * the picture without zooming.  Every coordinate comes from core's geometry
 * functions (ctr_geometry_col_u, ctr_geometry_view_vectors: a per-view
 * vector geometry is drawn from its own source and detector, tilted or
 * shifted as it is); nothing here re-derives the conventions.
 */
#define G_LOG_DOMAIN "ctr-geometry-sketch"

#include <math.h>

#include "ctr-geometry-sketch.h"
#include "ctr-geometry-sketch-z.h"

struct _CtrGeometrySketch
{
  GtkDrawingArea  parent_instance;
  CtrGeometry    *geometry;
  CtrGrid         grid;
  gboolean        have_grid;
  guint           view;
};

G_DEFINE_FINAL_TYPE (CtrGeometrySketch, ctr_geometry_sketch, GTK_TYPE_DRAWING_AREA)

typedef struct { double x, y; } P2;

/* Source of @view (mm, world; fan and cone beam), from core's vectors for a
 * flat detector or per-view vectors. */
static P2
source_point (const CtrGeometry *g, guint view)
{
  double w[CTR_GEOMETRY_VECTOR_LEN];
  ctr_geometry_view_vectors (g, view, w);
  return (P2) { w[0], w[1] };
}

/* Detector point of continuous column @col (mm, world) of @view. */
static P2
detector_point (const CtrGeometry *g, guint view, double col, double parallel_dist)
{
  const double b = g->angles[view];
  double u = ctr_geometry_col_u (g, col);
  P2 d0 = { -sin (b), cos (b) }, eu = { cos (b), sin (b) };

  if (g->beam == CTR_BEAM_PARALLEL)
    return (P2) { parallel_dist * d0.x + u * eu.x, parallel_dist * d0.y + u * eu.y };

  if (g->shape == CTR_DETECTOR_CURVED)
    {
      P2 s = source_point (g, view);
      return (P2) { s.x + g->sdd_mm * (cos (u) * d0.x + sin (u) * eu.x),
                    s.y + g->sdd_mm * (cos (u) * d0.y + sin (u) * eu.y) };
    }
  /* flat, circular or per-view vectors: D + (col − (cols−1)/2)·u */
  double w[CTR_GEOMETRY_VECTOR_LEN];
  ctr_geometry_view_vectors (g, view, w);
  const double a = col - (g->n_cols - 1) * 0.5;
  return (P2) { w[3] + a * w[6], w[4] + a * w[7] };
}

static double
grid_half_diagonal (const CtrGrid *grid)
{
  double hx = 0.5 * grid->nx * grid->dx, hy = 0.5 * grid->ny * grid->dy;
  return hypot (fabs (grid->cx) + hx, fabs (grid->cy) + hy);
}

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  CtrGeometrySketch *self = CTR_GEOMETRY_SKETCH (area);
  const CtrGeometry *g = self->geometry;
  GdkRGBA fg;
  /* gtk_widget_get_color () is GTK 4.10 */
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &fg);

  if (g == NULL || g->n_views == 0 || !ctr_geometry_validate (g, NULL))
    {
      PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self),
        g == NULL ? "No geometry" : "The geometry is not valid: see the fields marked in red");
      int lw, lh;
      pango_layout_get_pixel_size (layout, &lw, &lh);
      cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.6);
      cairo_move_to (cr, (width - lw) / 2.0, (height - lh) / 2.0);
      pango_cairo_show_layout (cr, layout);
      g_object_unref (layout);
      return;
    }

  guint view = MIN (self->view, g->n_views - 1);
  double b = g->angles[view];
  double fov = ctr_geometry_fov_radius_mm (g);
  double par = 1.25 * MAX (fov, self->have_grid ? grid_half_diagonal (&self->grid) : 0);

  /* fixed scale: the farthest point any view reaches */
  double reach = MAX (fov, self->have_grid ? grid_half_diagonal (&self->grid) : 0);
  if (g->beam == CTR_BEAM_PARALLEL)
    {
      double u0 = fabs (ctr_geometry_col_u (g, -0.5)), u1 = fabs (ctr_geometry_col_u (g, g->n_cols - 0.5));
      reach = MAX (reach, hypot (par, MAX (u0, u1)));
    }
  else
    {
      /* every view of a vector geometry (orbits need not be circles);
       * view 0 of a circular one */
      const guint views = ctr_geometry_has_vectors (g) ? g->n_views : 1;
      for (guint v = 0; v < views; v += MAX (1u, views / 90))
        {
          P2 s = source_point (g, v);
          reach = MAX (reach, hypot (s.x, s.y));
          for (double c = -0.5; c <= g->n_cols - 0.5; c += MAX (1.0, g->n_cols / 16.0))
            {
              P2 p = detector_point (g, v, c, par);
              reach = MAX (reach, hypot (p.x, p.y));
            }
          P2 p = detector_point (g, v, g->n_cols - 0.5, par);
          reach = MAX (reach, hypot (p.x, p.y));
        }
    }
  double margin = 24;
  /* a helical scan: its z side in a bar at the right */
  const int zbar = ctr_geometry_is_helical (g) && width > 2 * CTR_SKETCH_Z_WIDTH ? CTR_SKETCH_Z_WIDTH : 0;
  double scale = (MIN (width - zbar, height) / 2.0 - margin) / (reach * 1.05);
  if (!(scale > 0))
    return;
  if (zbar > 0)
    ctr_sketch_draw_z (GTK_WIDGET (self), cr, g, self->have_grid ? &self->grid : NULL, view, width - zbar, height,
                       &fg);

  cairo_save (cr);
  cairo_translate (cr, (width - zbar) / 2.0, height / 2.0);
  cairo_scale (cr, scale, -scale); /* world mm, y up */
  double px = 1.0 / scale;         /* one device pixel in mm */
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);

  /* axes */
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.25);
  cairo_set_line_width (cr, px);
  cairo_move_to (cr, -reach, 0); cairo_line_to (cr, reach, 0);
  cairo_move_to (cr, 0, -reach); cairo_line_to (cr, 0, reach);
  cairo_stroke (cr);

  /* reconstruction grid: outline and every n-th pixel line */
  if (self->have_grid)
    {
      const CtrGrid *gr = &self->grid;
      double x0 = gr->cx - 0.5 * gr->nx * gr->dx, y0 = gr->cy - 0.5 * gr->ny * gr->dy;
      guint step = MAX (1u, (guint) ceil (MAX (gr->nx, gr->ny) / 16.0));
      cairo_set_source_rgba (cr, 0.15, 0.64, 0.41, 0.35); /* green 5 */
      cairo_set_line_width (cr, px);
      for (guint i = step; i < gr->nx; i += step)
        {
          cairo_move_to (cr, x0 + i * gr->dx, y0);
          cairo_line_to (cr, x0 + i * gr->dx, y0 + gr->ny * gr->dy);
        }
      for (guint j = step; j < gr->ny; j += step)
        {
          cairo_move_to (cr, x0, y0 + j * gr->dy);
          cairo_line_to (cr, x0 + gr->nx * gr->dx, y0 + j * gr->dy);
        }
      cairo_stroke (cr);
      cairo_set_source_rgba (cr, 0.15, 0.64, 0.41, 0.9);
      cairo_set_line_width (cr, 1.5 * px);
      cairo_rectangle (cr, x0, y0, gr->nx * gr->dx, gr->ny * gr->dy);
      cairo_stroke (cr);
    }

  /* field of view */
  cairo_set_source_rgba (cr, 0.11, 0.44, 0.85, 1.0); /* blue 4 */
  cairo_set_line_width (cr, 2 * px);
  cairo_arc (cr, 0, 0, fov, 0, 2 * G_PI);
  cairo_stroke (cr);

  /* rays */
  P2 first = detector_point (g, view, -0.5, par), last = detector_point (g, view, g->n_cols - 0.5, par);
  cairo_set_source_rgba (cr, 0.90, 0.38, 0.0, 0.18); /* orange 4 */
  if (g->beam == CTR_BEAM_PARALLEL)
    {
      P2 d0 = { -sin (b), cos (b) };
      cairo_move_to (cr, first.x - 2 * par * d0.x, first.y - 2 * par * d0.y);
      cairo_line_to (cr, first.x, first.y);
      cairo_line_to (cr, last.x, last.y);
      cairo_line_to (cr, last.x - 2 * par * d0.x, last.y - 2 * par * d0.y);
      cairo_close_path (cr);
    }
  else
    {
      P2 s = source_point (g, view);
      cairo_move_to (cr, s.x, s.y);
      guint n = 48;
      for (guint k = 0; k <= n; k++)
        {
          P2 p = detector_point (g, view, -0.5 + (double) k / n * g->n_cols, par);
          cairo_line_to (cr, p.x, p.y);
        }
      cairo_close_path (cr);
    }
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, 0.90, 0.38, 0.0, 0.6);
  cairo_set_line_width (cr, px);
  cairo_stroke (cr);

  /* central ray */
  {
    P2 d0 = { -sin (b), cos (b) };
    P2 a = g->beam == CTR_BEAM_PARALLEL ? (P2) { -par * d0.x, -par * d0.y } : source_point (g, view);
    /* to the detector's centre for vectors, to u = 0 otherwise */
    P2 e = detector_point (g, view, ctr_geometry_has_vectors (g) ? (g->n_cols - 1) * 0.5 : ctr_geometry_u_col (g, 0), par);
    double dash[] = { 4 * px, 3 * px };
    cairo_set_dash (cr, dash, 2, 0);
    cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
    cairo_move_to (cr, a.x, a.y);
    cairo_line_to (cr, e.x, e.y);
    cairo_stroke (cr);
    cairo_set_dash (cr, NULL, 0, 0);
  }

  /* detector (thick), first column marked */
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
  cairo_set_line_width (cr, 4 * px);
  {
    guint n = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED ? 48 : 1;
    for (guint k = 0; k <= n; k++)
      {
        P2 p = detector_point (g, view, -0.5 + (double) k / n * g->n_cols, par);
        if (k == 0)
          cairo_move_to (cr, p.x, p.y);
        else
          cairo_line_to (cr, p.x, p.y);
      }
    cairo_stroke (cr);
  }
  cairo_set_source_rgba (cr, 0.88, 0.11, 0.14, 1.0); /* red 3: column 0 */
  cairo_arc (cr, first.x, first.y, 4 * px, 0, 2 * G_PI);
  cairo_fill (cr);

  /* source */
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      P2 s = source_point (g, view);
      cairo_set_source_rgba (cr, 0.90, 0.38, 0.0, 1.0);
      cairo_arc (cr, s.x, s.y, 6 * px, 0, 2 * G_PI);
      cairo_fill (cr);
    }

  /* isocentre */
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 1.0);
  cairo_arc (cr, 0, 0, 3 * px, 0, 2 * G_PI);
  cairo_fill (cr);
  cairo_restore (cr);

  /* legend */
  {
    g_autofree char *markup = g_strdup_printf (
      "<small>view %u of %u · β = %.2f°\n"
      "<span foreground='#e66100'>●</span> source and rays   "
      "<span foreground='#1c71d8'>○</span> field of view Ø %.1f mm\n"
      "<span foreground='#26a269'>□</span> reconstruction grid   "
      "<span foreground='#e01b24'>●</span> column 0</small>",
      view + 1, g->n_views, b * 180 / G_PI, 2 * fov);
    PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
    pango_layout_set_markup (layout, markup, -1);
    cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.85);
    cairo_move_to (cr, 8, 6);
    pango_cairo_show_layout (cr, layout);
    g_object_unref (layout);
  }
}

static void
ctr_geometry_sketch_finalize (GObject *object)
{
  CtrGeometrySketch *self = CTR_GEOMETRY_SKETCH (object);
  g_clear_pointer (&self->geometry, ctr_geometry_free);
  G_OBJECT_CLASS (ctr_geometry_sketch_parent_class)->finalize (object);
}

static void
ctr_geometry_sketch_class_init (CtrGeometrySketchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_geometry_sketch_finalize;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "ctrgeometrysketch");
}

static void
ctr_geometry_sketch_init (CtrGeometrySketch *self)
{
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw, NULL, NULL);
  gtk_widget_set_size_request (GTK_WIDGET (self), 320, 320);
}

GtkWidget *
ctr_geometry_sketch_new (void)
{
  return g_object_new (CTR_TYPE_GEOMETRY_SKETCH, NULL);
}

void
ctr_geometry_sketch_set (CtrGeometrySketch *self, const CtrGeometry *g, const CtrGrid *grid)
{
  g_return_if_fail (CTR_IS_GEOMETRY_SKETCH (self));
  g_clear_pointer (&self->geometry, ctr_geometry_free);
  /* a copy that cannot be had draws no geometry (the panel that holds it
   * says so; ctr_geometry_copy aborted) */
  if (g != NULL)
    self->geometry = ctr_geometry_try_copy (g, NULL);
  self->have_grid = grid != NULL;
  if (grid != NULL)
    self->grid = *grid;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ctr_geometry_sketch_set_view (CtrGeometrySketch *self, guint view)
{
  g_return_if_fail (CTR_IS_GEOMETRY_SKETCH (self));
  self->view = view;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
ctr_geometry_sketch_get_view (CtrGeometrySketch *self)
{
  g_return_val_if_fail (CTR_IS_GEOMETRY_SKETCH (self), 0);
  return self->view;
}
