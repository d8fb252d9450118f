/* ctr-iq-panel-private.h — what the image-quality panel's files share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-iq-panel.h"
#include "ctr-iq-plot.h"

G_BEGIN_DECLS

struct _CtrIqPanel
{
  GtkWidget      parent_instance;

  CtrSession    *session;
  CtrRoiSet     *roi_set;
  GCancellable  *cancellable;   /* the measurement running; NULL when none */
  GPtrArray     *results;       /* CtrIqResult */
  guint          queued;        /* idle source of the next measurement */
  gboolean       chosen;        /* the user ticked runs: keep their choice */

  GtkWidget     *box;
  GtkWidget     *runs_box;      /* a GtkCheckButton per run, name "iq-run-N" */
  GtkDropDown   *nps_drop;      /* 0: the phantom's centre disc, then circle ROIs */
  GtkDropDown   *inserts_drop;  /* 0: the phantom's inserts, 1: drawn circles */
  GtkSpinButton *radius_spin;   /* the iq phantom's radius, mm */
  GtkCheckButton *task_check;
  GtkSpinButton *diameter_spin; /* mm */
  GtkSpinButton *contrast_spin; /* HU */
  GtkDropDown   *ttf_drop;      /* the insert whose TTF is plotted */
  GtkLabel      *status_label;
  CtrIqPlot     *nps_plot;
  CtrIqPlot     *ttf_plot;
  GtkGrid       *table;         /* the numbers, labels named "iq-noise-N" … */
};

/* ctr-iq-panel-show.c: the results into the plots and the table. */
void _ctr_iq_panel_show (CtrIqPanel *self);
/* The TTF plot for the insert chosen in ttf_drop. */
void _ctr_iq_panel_show_ttf (CtrIqPanel *self);

G_END_DECLS
