/* ctr-study-row.h — one finished run of a dose study (CtrStudyRow,
 * core/study/ctr-study.h) as a GObject, for the Dose study page's
 * GListStore and GtkColumnView, and the session's study table
 * (ctr_session_get_study_table, saved with the session).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_STUDY_ROW_ITEM (ctr_study_row_item_get_type ())

G_DECLARE_FINAL_TYPE (CtrStudyRowItem, ctr_study_row_item, CTR, STUDY_ROW_ITEM, GObject)

/* The table's columns, in order. */
typedef enum {
  CTR_STUDY_COLUMN_DOSE,        /* dose fraction F */
  CTR_STUDY_COLUMN_METHOD,      /* the configuration's label */
  CTR_STUDY_COLUMN_RMSE,        /* 1/mm, inside the field of view */
  CTR_STUDY_COLUMN_SSIM,
  CTR_STUDY_COLUMN_HU_RMSE,     /* HU */
  CTR_STUDY_COLUMN_NOISE_SD,    /* HU, the noise ROI's detrended SD */
  CTR_STUDY_COLUMN_CNR,         /* the first measure ROI's CNR against the background */
  CTR_STUDY_COLUMN_DPRIME_NPW,  /* d′ of the study's task (ctr_study_set_iq_task), NPW */
  CTR_STUDY_COLUMN_DPRIME_NPWE, /* the same, NPWE */
  CTR_STUDY_COLUMN_ITERATIONS,
  CTR_STUDY_COLUMN_SECONDS,     /* the method's time */
  CTR_STUDY_N_COLUMNS
} CtrStudyColumn;

/* A copy of @row's figures (the label copied; @cnr the CNR shown, NaN for
 * none).  Called on the main thread with a row copied off the worker. */
CtrStudyRowItem *ctr_study_row_item_new     (const CtrStudyRow *row,
                                             double             cnr);
/* (transfer none): the copy; its ROI arrays are NULL. */
const CtrStudyRow *ctr_study_row_item_get   (CtrStudyRowItem   *self);
double       ctr_study_row_item_get_cnr     (CtrStudyRowItem   *self);
/* The run of the session that holds this row's reconstruction
 * (ctr_run_get_number; ctr_session_add_result), 0 for none. */
void         ctr_study_row_item_set_run_number (CtrStudyRowItem *self,
                                                guint            number);
guint        ctr_study_row_item_get_run_number (CtrStudyRowItem *self);
/* The column's title ("RMSE (HU)") and the item's cell text ("27.0";
 * "–" where not reported); transfer full. */
const char  *ctr_study_column_title         (CtrStudyColumn     column);
char        *ctr_study_row_item_format      (CtrStudyRowItem   *self,
                                             CtrStudyColumn     column);

G_END_DECLS
