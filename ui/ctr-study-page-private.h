/* ctr-study-page-private.h — what ctr-study-page.c (running, table,
 * figure, export) and ctr-study-page-form.c (the form and the list of
 * methods) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-study-page.h"
#include "ctr-roi-set.h"

G_BEGIN_DECLS

/* One run of the study, shared by the page and its thread (ctr-study-page.c). */
typedef struct _CtrStudyJob CtrStudyJob;

/* A configuration of the list: options and the parameters that name it. */
typedef struct {
  CtrReconOptions options;
  char           *parameters;   /* "iterations=3;window=hann" */
} Method;

void _ctr_study_page_method_clear (Method *m);

struct _CtrStudyPage
{
  GtkWidget       parent_instance;

  CtrSession     *session;
  CtrStudyJob    *job;          /* the study shown; nullable */
  CtrStudy       *restored;     /* without a job: the study rebuilt from a restored table (its figure); nullable */
  gboolean        running;
  GArray         *methods;      /* Method */
  GListStore     *rows;         /* CtrStudyRowItem */
  char           *status;
  char           *last_folder;  /* where the last export went */
  GCancellable   *dose_cancellable; /* the I0 estimate of the open dataset; nullable */
  gboolean        estimating;   /* that estimate is still running */
  CtrRoiSet      *roi_set;      /* the ROIs drawn on the image; nullable */

  /* template children */
  GtkWidget      *content;
  AdwEntryRow    *doses_row;
  GtkSpinButton  *i0_spin;
  GtkSpinButton  *seed_spin;
  GtkSpinButton  *realisations_spin;
  GtkSpinButton  *size_spin;
  CtrMethodPanel *method_panel;
  GtkListBox     *methods_list;
  AdwEntryRow    *noise_roi_row;
  AdwEntryRow    *background_roi_row;
  AdwEntryRow    *measure_roi_row;
  AdwEntryRow    *iq_task_row;
  AdwEntryRow    *iq_nps_row;
  AdwEntryRow    *iq_insert_row;
  GtkLabel       *equal_dose_label;
  GtkLabel       *status_label;
  GtkProgressBar *progress_bar;
  GtkWidget      *run_button;
  GtkWidget      *cancel_button;
  GtkWidget      *export_button;
  GtkColumnView  *table;
  GtkDrawingArea *plot;
};

/* ctr-study-page.c: the status line; @error styles it as a refusal. */
void      _ctr_study_page_set_status         (CtrStudyPage      *self,
                                              const char        *text,
                                              gboolean           error);

/* ctr-study-page.c: "estimating" changed (Run waits for the estimate
 * unless an I0 is typed). */
void      _ctr_study_page_set_estimating     (CtrStudyPage      *self,
                                              gboolean           estimating);

/* ctr-study-page-dose.c */
/* The I0 row for @d: stated or from the flat field at once, else estimated
 * from the sinogram's noise in a worker thread ("estimating" meanwhile);
 * an estimate still running for an earlier dataset is cancelled. */
void      _ctr_study_page_show_dose          (CtrStudyPage      *self,
                                              const CtrDataset  *d);
/* Cancels the running estimate, if any (its result is then ignored). */
void      _ctr_study_page_stop_dose          (CtrStudyPage      *self);

/* ctr-study-page-form.c */
/* The study the form describes for @d, or NULL with what is wrong in words
 * (CTR_ERROR_INVALID_ARGUMENT); @cnr_roi: the index of the measured ROI
 * whose CNR the table shows, -1 for none. */
CtrStudy *_ctr_study_page_build_study        (CtrStudyPage      *self,
                                              const CtrDataset  *d,
                                              int               *cnr_roi,
                                              GError           **error);
/* study.add-current and study.add-preset "fbp"|"part"|"pwls". */
void      _ctr_study_page_add_current_action (GtkWidget         *widget,
                                              const char        *action_name,
                                              GVariant          *parameter);
void      _ctr_study_page_add_preset_action  (GtkWidget         *widget,
                                              const char        *action_name,
                                              GVariant          *parameter);

/* ctr-study-page-rois.c */
/* study.use-drawn-rois: the ROI rows from the ROIs drawn on the image. */
void      _ctr_study_page_use_drawn_rois_action (GtkWidget      *widget,
                                                 const char     *action_name,
                                                 GVariant       *parameter);
/* Enables study.use-drawn-rois while ROIs are drawn and no study runs. */
void      _ctr_study_page_update_rois_action (CtrStudyPage      *self);

/* ctr-study-page-iq.c */
/* The realisations and the d′ task of the form into @s (reconstructed on
 * @grid); nothing when the task row is empty.  FALSE with what is wrong. */
gboolean  _ctr_study_page_add_iq             (CtrStudyPage      *self,
                                              CtrStudy          *s,
                                              const CtrGrid     *grid,
                                              GError           **error);
/* study.use-iq-phantom: the rows for the iq phantom of radius 100 mm. */
void      _ctr_study_page_use_iq_action      (GtkWidget         *widget,
                                              const char        *action_name,
                                              GVariant          *parameter);
/* The equal-d′ dose of the finished study under the figure (hidden
 * without a task or with one realisation). */
void      _ctr_study_page_show_equal_dose    (CtrStudyPage      *self,
                                              CtrStudy          *study);

G_END_DECLS
