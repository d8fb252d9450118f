/* ctr-plot-draw.h — what the window's cairo plots (convergence, profile)
 * share: axis steps and anchored text. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The 1, 2, 5 × 10^k step at or above @raw (> 0). */
double ctr_plot_nice_step (double raw);

/* Draws Pango @markup with its anchor (@x_align, @y_align in [0, 1]) at
 * (@x, @y) in the current source colour; returns the logical width (px). */
int ctr_plot_draw_text (cairo_t *cr, GtkWidget *widget, const char *markup,
                        double x, double y, double x_align, double y_align);

G_END_DECLS
