/* ctr-study-page.h — the Dose study page: simulate lower doses of the
 * session's dataset, run a list of methods on each in the background, and
 * watch the table and the RMSE/SSIM-against-dose figure fill in
 * (core/study/ctr-study.h, the engine of `ctrecon-cli study`).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Actions (on the page, group "study"): study.run, study.cancel,
 * study.export (a folder: study.csv and study.png, as the CLI writes them),
 * study.add-current (the page's method panel as one configuration),
 * study.add-preset "fbp"|"part"|"pwls" (that method with its defaults),
 * study.use-drawn-rois (the ROI rows from the ROIs drawn on the image:
 * ctr_study_page_set_roi_set).
 * Properties (read-only, notified): "running", "status", "estimating".
 * Every finished run's reconstruction becomes a run of the session
 * (ctr_session_add_result: a run of the studied dataset, its dose in the
 * label), so it is listed in Runs and offered by Compare; activating a row
 * of the table (double-click, Enter) emits "open-run" with that run's
 * number (the window shows it on Compare).
 */
#pragma once

#include <adwaita.h>
#include "ctr-method-panel.h"
#include "ctr-roi-set.h"
#include "ctr-session.h"
#include "ctr-study-form.h"

G_BEGIN_DECLS

#define CTR_TYPE_STUDY_PAGE (ctr_study_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrStudyPage, ctr_study_page, CTR, STUDY_PAGE, GtkWidget)

/* The session whose dataset is studied (property "session"); nullable.
 * Run is disabled while it is busy (loading or reconstructing); a new
 * dataset cancels a running study. */
void            ctr_study_page_set_session      (CtrStudyPage *self,
                                                 CtrSession   *session);
/* The ROIs drawn on the window's images (nullable; the page keeps a
 * reference).  study.use-drawn-rois, enabled while @set holds an ROI,
 * fills the ROI rows from it: Measured ← the ROI picked on the image
 * (ctr_roi_set_get_selected) unless it is the background, else the first
 * other; Background and Noise ← the ROI marked as background
 * (ctr_roi_set_get_background), else the first other than the measured;
 * a row without an ROI is emptied.  The numbers are written exactly (they
 * read back to the same doubles), so the study measures the pixels the
 * Run page's ROI table does. */
void            ctr_study_page_set_roi_set      (CtrStudyPage *self,
                                                 CtrRoiSet    *set);
/* (transfer none): the method panel whose settings study.add-current adds. */
CtrMethodPanel *ctr_study_page_get_method_panel (CtrStudyPage *self);
/* (transfer none): CtrStudyRowItem (ctr-study-row.h), one per finished run,
 * in run order; the table's model: the session's study table
 * (ctr_session_get_study_table, saved with the session). */
GListModel     *ctr_study_page_get_rows         (CtrStudyPage *self);
/* The form as it stands (transfer full): the doses typed, I0, seed,
 * realisations, image size, the configurations listed, the ROI and d′
 * task rows; what a session saves (ctr_session_set_study_form). */
CtrStudyForm   *ctr_study_page_get_form         (CtrStudyPage *self);
/* Fills the form from @form (a session's): every row and the list of
 * configurations replaced; an I0 or image size of 0 leaves the dataset's.
 * The status line is kept. */
void            ctr_study_page_set_form         (CtrStudyPage       *self,
                                                 const CtrStudyForm *form);
/* Number of method configurations listed. */
guint           ctr_study_page_get_n_methods    (CtrStudyPage *self);
gboolean        ctr_study_page_get_running      (CtrStudyPage *self);
/* The status line: what runs, what finished, or why Run was refused. */
const char     *ctr_study_page_get_status       (CtrStudyPage *self);
/* TRUE while the open dataset's I0 (photons per bin) is estimated from its
 * sinogram's noise in a worker thread (data that state no I0 and have no
 * flat field); Run waits for it unless an I0 is typed. */
gboolean        ctr_study_page_get_estimating   (CtrStudyPage *self);

G_END_DECLS
