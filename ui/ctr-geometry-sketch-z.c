/* ctr-geometry-sketch-z.c — see ctr-geometry-sketch-z.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-geometry-sketch"

#include <math.h>

#include "ctr-geometry-sketch-z.h"

static void
label (GtkWidget *widget, cairo_t *cr, const GdkRGBA *fg, double x, double y, const char *markup)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  int lw, lh;

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_size (layout, &lw, &lh);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.85);
  cairo_move_to (cr, x, y - lh / 2.0);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

void
ctr_sketch_draw_z (GtkWidget *widget, cairo_t *cr, const CtrGeometry *g, const CtrGrid *grid, guint view,
                   double x0, double height, const GdkRGBA *fg)
{
  double s_lo = INFINITY, s_hi = -INFINITY, c_lo, c_hi, z_lo, z_hi;
  gboolean covered = ctr_helix_z_coverage (g, TRUE, &c_lo, &c_hi);
  const double top = 44, bottom = height - 20, bx = x0 + 14, bw = 16;

  for (guint k = 0; k < g->n_views; k++)
    {
      s_lo = MIN (s_lo, ctr_geometry_source_z (g, k));
      s_hi = MAX (s_hi, ctr_geometry_source_z (g, k));
    }
  z_lo = s_lo;
  z_hi = s_hi;
  if (grid != NULL)
    {
      z_lo = MIN (z_lo, grid->cz - 0.5 * grid->nz * grid->dz);
      z_hi = MAX (z_hi, grid->cz + 0.5 * grid->nz * grid->dz);
    }
  if (!(z_hi > z_lo) || bottom - top < 40)
    return;
#define Y(z) (bottom - ((z) - z_lo) / (z_hi - z_lo) * (bottom - top))

  cairo_save (cr);
  /* the source's path along z, the focal spot of this view */
  cairo_set_source_rgba (cr, 0.90, 0.38, 0.0, 0.9);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, bx + bw / 2, Y (s_lo));
  cairo_line_to (cr, bx + bw / 2, Y (s_hi));
  cairo_stroke (cr);
  cairo_arc (cr, bx + bw / 2, Y (ctr_geometry_source_z (g, MIN (view, g->n_views - 1))), 4, 0, 2 * G_PI);
  cairo_fill (cr);
  /* fully sampled range */
  if (covered)
    {
      cairo_set_source_rgba (cr, 0.11, 0.44, 0.85, 0.35);
      cairo_rectangle (cr, bx, Y (c_hi), bw, Y (c_lo) - Y (c_hi));
      cairo_fill (cr);
    }
  /* the grid's slices */
  if (grid != NULL)
    {
      double g_lo = grid->cz - 0.5 * (grid->nz - 1) * grid->dz, g_hi = grid->cz + 0.5 * (grid->nz - 1) * grid->dz;
      gboolean inside = covered && g_lo >= c_lo - 1e-6 && g_hi <= c_hi + 1e-6;
      g_autofree char *a = g_strdup_printf ("<small>%.1f</small>", ctr_geometry_table_mm (g, g_hi));
      g_autofree char *b = g_strdup_printf ("<small>%.1f</small>", ctr_geometry_table_mm (g, g_lo));

      if (inside)
        cairo_set_source_rgba (cr, 0.15, 0.64, 0.41, 0.9);
      else
        cairo_set_source_rgba (cr, 0.88, 0.11, 0.14, 0.9);   /* slices the scan does not cover fully */
      cairo_set_line_width (cr, 3);
      cairo_rectangle (cr, bx - 3, Y (g_hi) - 1, bw + 6, MAX (2.0, Y (g_lo) - Y (g_hi) + 2));
      cairo_stroke (cr);
      label (widget, cr, fg, bx + bw + 8, Y (g_hi), a);
      label (widget, cr, fg, bx + bw + 8, Y (g_lo), b);
    }
  label (widget, cr, fg, x0 + 4, top - 18,
         "<small>z (table, mm)\n<span foreground='#1c71d8'>■</span> fully sampled</small>");
  cairo_restore (cr);
#undef Y
}
