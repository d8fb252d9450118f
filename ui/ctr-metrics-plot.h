/* ctr-metrics-plot.h — convergence plot: residual, RMSE and SSIM per iteration.
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

G_END_DECLS
