/* ctr-calibrate-plot.h — the centre search of a calibration drawn: each
 * method's cost against the candidate centre column, the chosen column
 * marked (core/calib/ctr-calib.h's curves).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_CALIBRATE_PLOT (ctr_calibrate_plot_get_type ())

G_DECLARE_FINAL_TYPE (CtrCalibratePlot, ctr_calibrate_plot, CTR, CALIBRATE_PLOT, GtkDrawingArea)

/* @cross_check: FALSE: the searches over the whole range (mirror, vo,
 * conjugate); TRUE: the entropy cross-check around the answer. */
GtkWidget *ctr_calibrate_plot_new          (gboolean               cross_check);
/* @r: (nullable): copied; NULL clears the plot.  Each curve is scaled to
 * 0…1 over the x range shown (the methods' costs have different units);
 * vertical lines mark each method's estimate in its colour, the combined
 * answer (solid) and the column the geometry states (dotted). */
void       ctr_calibrate_plot_set_result   (CtrCalibratePlot      *self,
                                            const CtrCalibResult  *r);
/* The number of curves drawn. */
guint      ctr_calibrate_plot_get_n_curves (CtrCalibratePlot      *self);

G_END_DECLS
