/* ctr-plot-draw.h — what the window's cairo plots (convergence, profile)
 * share: axis steps and anchored text. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The 1, 2, 5 × 10^k step at or above @raw (> 0). */
double ctr_plot_nice_step (double raw);

/* The colour of run @index (0-based, in the session's order): the GNOME
 * HIG palette blue 4, orange 4, green 5, purple 3, red 3, brown 3, repeated.
 * The convergence and profile plots draw a run in the same colour. */
void ctr_plot_run_color (guint index, GdkRGBA *color);

/* Draws Pango @markup with its anchor (@x_align, @y_align in [0, 1]) at
 * (@x, @y) in the current source colour; returns the logical width (px). */
int ctr_plot_draw_text (cairo_t *cr, GtkWidget *widget, const char *markup,
                        double x, double y, double x_align, double y_align);

G_END_DECLS
