/* ctr-iq-plot.h — curves of frequency (the NPS, the TTF) of several runs
 * overlaid, drawn with cairo like the convergence and profile plots.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CTR_TYPE_IQ_PLOT (ctr_iq_plot_get_type ())

G_DECLARE_FINAL_TYPE (CtrIqPlot, ctr_iq_plot, CTR, IQ_PLOT, GtkDrawingArea)

/* A plot titled @title (markup), x in cycles/mm from 0, y labelled
 * @y_label; @empty is shown without curves. */
GtkWidget *ctr_iq_plot_new          (const char *title,
                                     const char *y_label,
                                     const char *empty);
void       ctr_iq_plot_clear        (CtrIqPlot     *self);
/* Adds a curve of @n points (@x cycles/mm, @y; copied), @dashed drawn with
 * dashes (a second insert of the same run). */
void       ctr_iq_plot_add_curve    (CtrIqPlot     *self,
                                     const char    *name,
                                     const GdkRGBA *color,
                                     gboolean       dashed,
                                     guint          n,
                                     const double  *x,
                                     const double  *y);
/* Dotted horizontal guides at these y values (the TTF's 0.5 and 0.1). */
void       ctr_iq_plot_set_guides   (CtrIqPlot     *self,
                                     const double  *y,
                                     guint          n);
guint      ctr_iq_plot_get_n_curves (CtrIqPlot     *self);

G_END_DECLS
