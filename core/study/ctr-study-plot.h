/* ctr-study-plot.h — the figure of a dose study, drawn with cairo.
 *
 * Two panels side by side: RMSE in HU and SSIM (both inside the field of
 * view, against the reference) over the dose fraction, one line with markers
 * per method configuration, a shared legend below; with a d′ task
 * (ctr_study_set_iq_task) a third, d′ NPW.  Each point is the mean over a
 * dose's noise realisations, with an error bar of ± its standard error
 * (s/√n) when there are several.  The dose axis is
 * logarithmic when the doses span a factor 3 or more (ticks at the study's
 * doses).  Rows may be partial (a study still running): what exists is
 * drawn.  No GTK: the window draws the same figure into its own cairo
 * context, the CLI writes it as a PNG.
 */
#pragma once

#include <glib.h>
#include <cairo.h>
#include "study/ctr-study.h"

G_BEGIN_DECLS

/* Draws the figure into @cr over (0, 0)–(@width, @height) in @cr's user
 * units (pixels for an image surface at scale 1), white background. */
void ctr_study_plot_draw (const CtrStudy *s, cairo_t *cr, double width, double height);

/**
 * ctr_study_plot_write_png:
 * The figure as a @width × @height PNG (both 200 to 8000 pixels), written
 * to a temporary file beside @path and renamed over it.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (size) or CTR_ERROR_IO.
 */
gboolean ctr_study_plot_write_png (const CtrStudy *s, const char *path, int width, int height,
                                   GError **error);

G_END_DECLS
