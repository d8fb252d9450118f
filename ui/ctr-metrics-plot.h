/* ctr-metrics-plot.h — convergence plot: residual, RMSE, PSNR, SSIM per iteration, several runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_METRICS_PLOT (ctr_metrics_plot_get_type ())

G_DECLARE_FINAL_TYPE (CtrMetricsPlot, ctr_metrics_plot, CTR, METRICS_PLOT, GtkDrawingArea)

GtkWidget *ctr_metrics_plot_new          (void);
void       ctr_metrics_plot_reset        (CtrMetricsPlot     *self,
                                          guint               n_iterations,
                                          gboolean            has_reference,
                                          const char         *unit);
void       ctr_metrics_plot_add          (CtrMetricsPlot     *self,
                                          const CtrIterStats *stats);
guint      ctr_metrics_plot_get_n_points (CtrMetricsPlot     *self);
void       ctr_metrics_plot_begin_run    (CtrMetricsPlot     *self,
                                          const char         *label,
                                          guint               n_iterations);
void       ctr_metrics_plot_drop_run     (CtrMetricsPlot     *self);
void       ctr_metrics_plot_set_run_label (CtrMetricsPlot    *self,
                                          const char         *label);
guint      ctr_metrics_plot_get_n_runs   (CtrMetricsPlot     *self);
void       ctr_metrics_plot_get_run_color (CtrMetricsPlot    *self,
                                          guint               index,
                                          GdkRGBA            *color);
gboolean   ctr_metrics_plot_write_csv    (CtrMetricsPlot     *self,
                                          const char         *path,
                                          GError            **error);

G_END_DECLS
