/* ctr-pipeline-form.h — the preprocessing pipeline as an editable list
 * (core/preprocess/ctr-preprocess.h): geometry.json's "preprocess" steps
 * ("flux", "outliers", "rings" with its four methods, "beam-hardening",
 * "truncation") in their order; the user adds, removes, moves and switches
 * steps and sets their parameters.  Each step is kept as the JSON object it
 * will be written as: a parameter the user never set stays absent, so the
 * core's parser gives its default (the form shows that default), and a
 * parameter the form has no field for (a beam-hardening step's stated
 * spectrum) is kept as it is.  The core reads the list
 * (ctr_pipeline_from_json), so its checks and defaults are the CLI's.
 *
 * Widget names (for the tests): each step's AdwExpanderRow is named by its
 * op ("rings"), its switch is the row's enable switch, its buttons "up",
 * "down", "remove"; the parameter fields are named by their key ("size",
 * "threshold", "method", …); the op chooser "add-op", the button "add-step".
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

/* Signal "changed": a step added, removed, moved, switched or edited. */
GtkWidget   *ctr_pipeline_form_new        (void);

/* The dataset's own steps (@steps: geometry.json's "preprocess" array,
 * nullable: none): the list shown, and the list ctr_pipeline_form_is_own()
 * compares with.  Emits "changed". */
void         ctr_pipeline_form_set_steps  (CtrPipelineForm *self,
                                           JsonNode        *steps);
/* Replaces the list shown by @steps (nullable: none; a saved session's),
 * the dataset's own kept.  Emits "changed". */
void         ctr_pipeline_form_edit_steps (CtrPipelineForm *self,
                                           JsonNode        *steps);

/* Appends a step of @op ("flux", "outliers", "rings", "beam-hardening",
 * "truncation"), switched on, its parameters absent (the core's defaults;
 * "beam-hardening" states the built-in "120kvp" spectrum, as it needs
 * coefficients or a spectrum), as the Add Step button does.  Emits
 * "changed".  Returns: (transfer none): the step's row. */
GtkWidget   *ctr_pipeline_form_add_step   (CtrPipelineForm *self,
                                           const char      *op);
/* Sets parameter @key of step @index (0-based, in the list shown) to
 * @value (copied; NULL removes it: the default), as its field does, and
 * shows it; emits "changed".  FALSE for an index out of range. */
gboolean     ctr_pipeline_form_set_param  (CtrPipelineForm *self,
                                           guint            index,
                                           const char      *key,
                                           JsonNode        *value);
/* Moves step @index one place up (@up) or down, as its buttons do; FALSE
 * when it cannot move. */
gboolean     ctr_pipeline_form_move_step  (CtrPipelineForm *self,
                                           guint            index,
                                           gboolean         up);
/* Removes step @index, as its button does. */
gboolean     ctr_pipeline_form_remove_step (CtrPipelineForm *self,
                                           guint            index);
guint        ctr_pipeline_form_get_n_steps (CtrPipelineForm *self);

/* The steps switched on, in order, as "preprocess" JSON (a new array,
 * transfer full). */
JsonNode    *ctr_pipeline_form_to_json    (CtrPipelineForm *self);
/* Whether ctr_pipeline_form_to_json() is the dataset's own list (the data
 * as loaded went through it). */
gboolean     ctr_pipeline_form_is_own     (CtrPipelineForm *self);

/* The pipeline of ctr_pipeline_form_to_json(), or NULL with
 * ctr_pipeline_from_json()'s CTR_ERROR_FORMAT. */
CtrPipeline *ctr_pipeline_form_build      (CtrPipelineForm *self,
                                           GError         **error);

G_END_DECLS
