/* ctr-session-preprocess.c — CtrSession: the "preprocess" list and the
 * detector tilt of the window's runs (see ctr_session_set_preprocess and
 * ctr_session_set_detector_tilt in the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The list is the one the Projections page edits.  When it is not the
 * dataset's own, a run reads the data again with it
 * (ctr_dataset_load_preprocessed, the path of `ctrecon-cli reconstruct
 * --preprocess`), so the window never preprocesses on its own; the data so
 * read are kept (one set, with the list's text as key) for the next run
 * with the same list, and dropped with the dataset.
 */
#define G_LOG_DOMAIN "ctr-session"

#include <math.h>

#include "ctr-session-private.h"

void
ctr_session_set_preprocess (CtrSession *self, JsonNode *steps, gboolean own)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  g_return_if_fail (steps == NULL || JSON_NODE_HOLDS_ARRAY (steps));
  g_clear_pointer (&self->preprocess, json_node_unref);
  if (steps != NULL)
    {
      /* a copy of its own: json_node_copy() would share the step objects */
      g_autofree char *text = json_to_string (steps, FALSE);
      self->preprocess = json_from_string (text, NULL);
    }
  self->preprocess_own = steps == NULL || own;
}

JsonNode *
ctr_session_get_preprocess (CtrSession *self, gboolean *own)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NULL);
  if (own != NULL)
    *own = self->preprocess_own;
  return self->preprocess;
}

void
_ctr_session_drop_preprocessed (CtrSession *self)
{
  g_clear_pointer (&self->prep_projections, ctr_projections_unref);
  g_clear_pointer (&self->prep_key, g_free);
}

void
ctr_session_set_detector_tilt (CtrSession *self, double tilt_rad)
{
  g_return_if_fail (CTR_IS_SESSION (self));
  self->detector_tilt = tilt_rad;
}

double
ctr_session_get_detector_tilt (CtrSession *self)
{
  g_return_val_if_fail (CTR_IS_SESSION (self), NAN);
  return self->detector_tilt;
}

gboolean
_ctr_session_preprocess_job (CtrSession *self, const CtrGeometry *geometry, gboolean *reread,
                             CtrPipeline **pipeline, char **key, CtrProjections **kept, GError **error)
{
  const CtrDataset *d = self->dataset;
  const gboolean list = self->preprocess != NULL && !self->preprocess_own;
  const gboolean tilt = isfinite (self->detector_tilt);
  g_autofree char *text = NULL;

  *reread = FALSE;
  *pipeline = NULL;
  *key = NULL;
  *kept = NULL;
  if (!list && !tilt)
    return TRUE;   /* the data as loaded */
  if (d->path == NULL || d->projection_spec != NULL || (tilt && !g_str_has_suffix (d->path, ".json")))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "%s needs the dataset's geometry.json: save the "
                   "geometry and open it, or %s", tilt ? "A detector tilt" : "The preprocessing pipeline",
                   tilt ? "open the dataset again" : "remove the steps on the Projections page");
      return FALSE;
    }
  if (list && (*pipeline = ctr_pipeline_from_json (self->preprocess, "the Projections page's pipeline", error)) == NULL)
    return FALSE;
  *reread = TRUE;
  text = list ? json_to_string (self->preprocess, FALSE) : g_strdup ("the file's own");
  /* the data's key, also the run's note: a tilt is undone in the file's
   * detector coordinates, so the offset is part of it */
  *key = tilt ? g_strdup_printf ("\"preprocess\" %s, detector_tilt_rad %.17g (Calibrate…, offset u %.17g)", text,
                                 self->detector_tilt, geometry->offset_u)
              : g_strdup_printf ("\"preprocess\" %s", text);
  if (self->prep_projections != NULL && g_strcmp0 (self->prep_key, *key) == 0)
    *kept = ctr_projections_ref (self->prep_projections);
  return TRUE;
}

void
_ctr_session_keep_preprocessed (CtrSession *self, const char *key, CtrProjections *p)
{
  _ctr_session_drop_preprocessed (self);
  self->prep_key = g_strdup (key);
  self->prep_projections = ctr_projections_ref (p);
}
