/* ctr-profile-plot.h — values along a line, several images on one plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_PROFILE_PLOT (ctr_profile_plot_get_type ())

G_DECLARE_FINAL_TYPE (CtrProfilePlot, ctr_profile_plot, CTR, PROFILE_PLOT, GtkDrawingArea)

GtkWidget *ctr_profile_plot_new          (void);
void       ctr_profile_plot_clear        (CtrProfilePlot *self);
/* Adds a curve: @n samples at distances @s (mm from the start) with @values
 * (copied); @dashed for the reference. */
void       ctr_profile_plot_add_curve    (CtrProfilePlot *self,
                                          const char     *name,
                                          const GdkRGBA  *color,
                                          gboolean        dashed,
                                          guint           n,
                                          const double   *s,
                                          const float    *values);
void       ctr_profile_plot_set_unit     (CtrProfilePlot *self,
                                          const char     *unit);
guint      ctr_profile_plot_get_n_curves (CtrProfilePlot *self);
/* CSV: s_mm, then one column per curve; atomic write. GFileError on failure. */
gboolean   ctr_profile_plot_write_csv    (CtrProfilePlot *self,
                                          const char     *path,
                                          GError        **error);

G_END_DECLS
