/* ctr-pipeline-form.h — a small form of the preprocessing pipeline
 * (core/preprocess/ctr-preprocess.h): the outlier step with its threshold
 * and the ring step with its method, size and SNR, each switched on or
 * off, over the dataset's own "preprocess" list.  The form writes the
 * steps as geometry.json's "preprocess" JSON and the core reads them
 * (ctr_pipeline_from_json), so its checks and defaults are the CLI's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include <json-glib/json-glib.h>

#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_PIPELINE_FORM (ctr_pipeline_form_get_type ())
G_DECLARE_FINAL_TYPE (CtrPipelineForm, ctr_pipeline_form, CTR, PIPELINE_FORM, AdwBin)

/* Signal "changed": a step switched or a parameter edited. */
GtkWidget   *ctr_pipeline_form_new        (void);

/* The dataset's own steps (@steps: geometry.json's "preprocess" array,
 * nullable: none): its "outliers" and "rings" steps fill the form (the
 * form's defaults when absent), the others are kept as they are.  Emits
 * "changed". */
void         ctr_pipeline_form_set_steps  (CtrPipelineForm *self,
                                           JsonNode        *steps);

/* Switches the ring step on or off with @method ("sorting", "large",
 * "dead") and @size; emits "changed". */
void         ctr_pipeline_form_set_rings  (CtrPipelineForm *self,
                                           gboolean         on,
                                           const char      *method,
                                           guint            size);
/* Switches the outlier step on or off with @threshold (robust SDs). */
void         ctr_pipeline_form_set_outliers (CtrPipelineForm *self,
                                           gboolean         on,
                                           double           threshold);

/* The steps as "preprocess" JSON: the dataset's flux steps, then outliers
 * and rings as the form has them, then the dataset's other steps (the
 * order ctr-preprocess.h's steps are meant for).  Transfer full. */
JsonNode    *ctr_pipeline_form_to_json    (CtrPipelineForm *self);

/* The pipeline of ctr_pipeline_form_to_json(), or NULL with
 * ctr_pipeline_from_json()'s CTR_ERROR_FORMAT. */
CtrPipeline *ctr_pipeline_form_build      (CtrPipelineForm *self,
                                           GError         **error);

G_END_DECLS
