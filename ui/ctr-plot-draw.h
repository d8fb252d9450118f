/* ctr-plot-draw.h — what the window's cairo plots (convergence, profile)
 * share: axis steps and anchored text. */
#pragma once

#include <gtk/gtk.h>
#include "ctr-run.h"

G_BEGIN_DECLS

/* The 1, 2, 5 × 10^k step at or above @raw (> 0). */
double ctr_plot_nice_step (double raw);

/**
 * ctr_plot_log_ticks:
 * The ticks of a log axis from 10^@lo to 10^@hi (@lo < @hi, log10 units):
 * up to @max values (ascending, in data units) in @values, each with
 * @labelled[i] saying whether it carries a number.  Every decade shown has
 * at least three ticks (1, 2, 5 × 10^e; all of 1…9 over 1.2 decades or
 * less), and the axis at least three labelled ticks: decades over many
 * decades, then 1-2-5, then every m; an axis within one decade gets
 * 1-2-5 × 10^k steps of its own (0.022, 0.024, …).
 * Returns: the number of ticks written.
 */
guint ctr_plot_log_ticks (double lo, double hi, double *values, gboolean *labelled, guint max);

/* The colour of run @index (0-based, in the session's order): the GNOME
 * HIG palette blue 4, orange 4, green 5, purple 3, red 3, brown 3, repeated.
 * The convergence and profile plots draw a run in the same colour. */
void ctr_plot_run_color (guint index, GdkRGBA *color);
/* The colour @run is drawn in: the one the user picked (ctr_run_get_color),
 * else the palette's by its number (so it keeps its colour when an earlier
 * run is deleted). */
void ctr_plot_color_of_run (CtrRun *run, GdkRGBA *color);

/* Draws Pango @markup with its anchor (@x_align, @y_align in [0, 1]) at
 * (@x, @y) in the current source colour; returns the logical width (px). */
int ctr_plot_draw_text (cairo_t *cr, GtkWidget *widget, const char *markup,
                        double x, double y, double x_align, double y_align);

/* The axes' frame: the left and bottom edges of the plot area (@x0, @y0,
 * @pw × @ph px) in @fg at 55 % opacity. */
void ctr_plot_draw_frame (cairo_t *cr, double x0, double y0, double pw, double ph, const GdkRGBA *fg);

/* One legend entry: an 18 px line in @color (dashed when @dashed) at
 * (*@x, *@top + 8) and the Pango @markup after it in @fg; the entry moves
 * to a new row (*@top + 18, from @left) when it would pass @right.  *@x is
 * left after the entry, with a 14 px gap. */
void ctr_plot_draw_legend_entry (cairo_t *cr, GtkWidget *widget, const GdkRGBA *color, gboolean dashed,
                                 const char *markup, const GdkRGBA *fg, double left, double right,
                                 double *x, double *top);

G_END_DECLS
