/* ctr-iq-panel.h — the image-quality panel: the NPS and TTF of the open
 * dataset's runs overlaid, with noise, f_avg, f50/f10 per insert and d′ of
 * a task the user sets (AAPM TG-233; issue 33).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The user ticks the runs (the newest two at first), picks the NPS region
 * (a drawn circle ROI on a uniform region, or the iq phantom's centre
 * disc) and the inserts (the drawn circles other than the NPS one, or the
 * iq phantom's six, placed for a phantom radius the user gives), and the
 * task (disc diameter in mm, contrast in HU).  Every change measures again
 * in a worker thread (ctr-iq-measure.h); the numbers are core's.
 */
#pragma once

#include <gtk/gtk.h>
#include "ctr-session.h"
#include "ctr-roi-set.h"
#include "ctr-iq-measure.h"

G_BEGIN_DECLS

#define CTR_TYPE_IQ_PANEL (ctr_iq_panel_get_type ())

G_DECLARE_FINAL_TYPE (CtrIqPanel, ctr_iq_panel, CTR, IQ_PANEL, GtkWidget)

GtkWidget   *ctr_iq_panel_new          (CtrSession *session,
                                        CtrRoiSet  *roi_set);
/* Whether a measurement is running (property "busy"). */
gboolean     ctr_iq_panel_get_busy     (CtrIqPanel *self);
/* (transfer none): the last measurement's results (CtrIqResult), one per
 * ticked run in the runs' order; empty before the first. */
GPtrArray   *ctr_iq_panel_get_results  (CtrIqPanel *self);
/* (transfer full): the setup of the next measurement. */
CtrIqSetup  *ctr_iq_panel_get_setup    (CtrIqPanel *self);
/* Ticks exactly the runs numbered @numbers (ctr_run_get_number). */
void         ctr_iq_panel_choose_runs  (CtrIqPanel  *self,
                                        const guint *numbers,
                                        guint        n);

/* The panel in a window of its own over @parent (one per @parent: shown
 * again when open); destroyed with @parent.  (transfer none): the panel. */
CtrIqPanel  *ctr_iq_panel_present      (GtkWindow  *parent,
                                        CtrSession *session,
                                        CtrRoiSet  *roi_set);

G_END_DECLS
