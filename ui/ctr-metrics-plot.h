/* ctr-metrics-plot.h — convergence plot: residual, RMSE, PSNR, SSIM per
 * iteration of every run of a session (a GListModel of CtrRun).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_METRICS_PLOT (ctr_metrics_plot_get_type ())

G_DECLARE_FINAL_TYPE (CtrMetricsPlot, ctr_metrics_plot, CTR, METRICS_PLOT, GtkDrawingArea)

GtkWidget *ctr_metrics_plot_new           (void);
void       ctr_metrics_plot_set_runs      (CtrMetricsPlot *self,
                                           GListModel     *runs);
void       ctr_metrics_plot_set_reference (CtrMetricsPlot *self,
                                           gboolean        has_reference,
                                           const char     *unit);
/* The mask of the RMSE and SSIM ("FOV disc"), named beside their titles;
 * NULL names none. */
void       ctr_metrics_plot_set_mask      (CtrMetricsPlot *self,
                                           const char     *mask);
guint      ctr_metrics_plot_get_n_runs    (CtrMetricsPlot *self);

G_END_DECLS
