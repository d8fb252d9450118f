/* ctr-dicom-open.h — opening DICOM in the window: which series, which
 * geometry, and the dialogs that ask the user.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ctr_dicom_open_resolve() runs in the window's loading thread and turns a
 * file, a folder or a dropped list of files into one of three outcomes: a
 * dataset (with the series' one-line report for the summary), a list of
 * projection series to choose from, or X-ray angiography frames whose
 * geometry the file lacks.  The two dialogs (main thread) ask for the
 * series or the missing values; the window then loads again with the answer.
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"
#include "io/ctr-dicom.h"

G_BEGIN_DECLS

typedef struct {
  CtrDataset          *dataset;   /* the loaded dataset, or NULL */
  char                *report;    /* the series' report (+ source description), or NULL */
  GPtrArray           *choices;   /* CtrDicomSeries*: several projection series, pick one */
  CtrDicomProjections *xa;        /* XA frames with ->missing != 0: ask for the geometry */
  char                *path;      /* absolute: the file or folder the outcome belongs to */
} CtrDicomOpenResult;

void ctr_dicom_open_result_free (CtrDicomOpenResult *r);

/**
 * ctr_dicom_open_resolve:
 * @path: (nullable): a DICOM file or folder; NULL when @files is given.
 * @files: (nullable) (array zero-terminated=1): dropped files (the first
 *   one's folder names the dataset).
 * @series_uid: (nullable): the series the user chose.
 * Worker thread.  Returns NULL with CTR_ERROR_FORMAT (no projection series;
 * the message lists what the folder holds), CTR_ERROR_INVALID_DATA
 * (duplicate views: the series report), the errors of ctr_dicom_scan /
 * ctr_dicom_ctpd_load / ctr_dicom_xa_load, G_IO_ERROR_CANCELLED.
 */
CtrDicomOpenResult *ctr_dicom_open_resolve (const char *path, const char *const *files,
                                            const char *series_uid, GCancellable *cancellable,
                                            GError **error);

/* @chosen gets the chosen series' UID (transfer full), or NULL when the user
 * cancelled. */
typedef void (*CtrDicomSeriesChosen) (GtkWindow *parent, char *chosen, gpointer user_data);

/* A dialog listing @series (CtrDicomSeries*: description and report), one to
 * pick.  Returns the dialog (already presented). */
GtkWidget *ctr_dicom_series_dialog (GtkWindow *parent, GPtrArray *series,
                                    CtrDicomSeriesChosen callback, gpointer user_data);
/* Series @index of a series dialog, or NULL past the end (tests). */
const CtrDicomSeries *ctr_dicom_series_dialog_get_series (GtkWidget *dialog, guint index);
/* Selects row @index of a series dialog and confirms it (tests). */
void ctr_dicom_series_dialog_choose (GtkWidget *dialog, guint index);

/* @p completed (->missing == 0), or NULL when the user cancelled; transfer full. */
typedef void (*CtrDicomXaCompleted) (GtkWindow *parent, CtrDicomProjections *p, gpointer user_data);

/* A dialog asking for the fields @p->missing names (SOD, SDD in mm, detector
 * pitches in mm, first angle and step in degrees), validated as typed with
 * the reason beside the field; Load stays disabled until all are valid.
 * Takes ownership of @p. */
GtkWidget *ctr_dicom_xa_dialog (GtkWindow *parent, CtrDicomProjections *p,
                                CtrDicomXaCompleted callback, gpointer user_data);
/* Types @text into field @name ("sod", "sdd", "pitch-u", "pitch-v", "start",
 * "step") of an XA dialog; returns the reason shown ("" when valid) (tests). */
const char *ctr_dicom_xa_dialog_set_text (GtkWidget *dialog, const char *name, const char *text);
/* Whether Load is enabled; ctr_dicom_xa_dialog_confirm() presses it (tests). */
gboolean ctr_dicom_xa_dialog_can_load (GtkWidget *dialog);
void ctr_dicom_xa_dialog_confirm (GtkWidget *dialog);

G_END_DECLS
