/* ctr-study-form.h — the Dose Study page's form as data: what the user set
 * up (doses, I0, seed, realisations, image size, the method
 * configurations listed, the ROIs and the d′ task), saved in a session
 * (docs/session-format.md, "study.form") and put back on the page when the
 * session is opened.  GLib only: no widget, thread-safe as plain data.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/**
 * CtrStudyForm:
 * @doses: the Doses row as typed ("1, 0.5, 0.25"; owned, never NULL).
 * @i0: the I0 row, photons per bin at the data's dose (0: the data's own,
 *   stated or estimated).
 * @seed: the noise seed.
 * @realisations: noise realisations per dose (>= 1).
 * @size: the image size, pixels across (0: the dataset's default grid).
 * @methods: CtrReconOptions, the configurations listed, in order.
 * @noise_roi, @background_roi, @measure_roi: the ROI rows as typed
 *   (ctr_roi_parse's syntax, "circle:X,Y,R" in mm; "" for none; owned).
 * @iq_task, @iq_nps, @iq_insert: the d′ task's rows as typed (the task
 *   "disc:DIAMETER_MM,CONTRAST_HU", the NPS region, the TTF's insert; ""
 *   for none; owned).
 */
typedef struct {
  char    *doses;
  double   i0;
  guint64  seed;
  guint    realisations;
  guint    size;
  GArray  *methods;
  char    *noise_roi;
  char    *background_roi;
  char    *measure_roi;
  char    *iq_task;
  char    *iq_nps;
  char    *iq_insert;
} CtrStudyForm;

/* An empty form: no dose, no method, one realisation, every text "". */
CtrStudyForm *ctr_study_form_new   (void);
CtrStudyForm *ctr_study_form_copy  (const CtrStudyForm *form);
void          ctr_study_form_free  (CtrStudyForm       *form);
/* Whether @a and @b hold the same values (texts, numbers, and every
 * option of every configuration, ctr-params.h's table). */
gboolean      ctr_study_form_equal (const CtrStudyForm *a,
                                    const CtrStudyForm *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrStudyForm, ctr_study_form_free)

G_END_DECLS
