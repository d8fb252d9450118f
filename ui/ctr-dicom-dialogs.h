/* ctr-dicom-dialogs.h — the questions a DICOM folder or file can raise
 * (ctr_dicom_resolve): which projection series, and the acquisition geometry
 * an X-ray angiography file lacks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/* @chosen gets the chosen series' UID (transfer full), or NULL when the user
 * cancelled. */
typedef void (*CtrDicomSeriesChosen) (GtkWindow *parent, char *chosen, gpointer user_data);

/* A dialog listing @series (CtrDicomSeries*: description and report, one
 * check button each, the first chosen), one to pick.  Returns the dialog
 * (already presented). */
GtkWidget *ctr_dicom_series_dialog (GtkWindow *parent, GPtrArray *series,
                                    CtrDicomSeriesChosen callback, gpointer user_data);

/* @completed: (transfer full) (nullable): the resolution with its frames
 * completed (->frames->missing == 0), or NULL when the user cancelled. */
typedef void (*CtrDicomXaCompleted) (GtkWindow *parent, CtrDicomResolution *completed, gpointer user_data);

/* A dialog asking for the fields @r->frames->missing names (SOD, SDD in mm,
 * detector pitches in mm, first angle and step in degrees), validated as
 * typed with the reason beside the field; Load stays disabled until all are
 * valid.  Each entry is named after its field ("sod", "sdd", "pitch-u",
 * "pitch-v", "start", "step"), its reason label "<field>-reason".  Takes
 * ownership of @r (a CTR_DICOM_OUTCOME_GEOMETRY_MISSING resolution). */
GtkWidget *ctr_dicom_xa_dialog (GtkWindow *parent, CtrDicomResolution *r,
                                CtrDicomXaCompleted callback, gpointer user_data);

G_END_DECLS
