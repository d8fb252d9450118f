/* ctr-dataset-correct.c — geometry.json's corrections of a loaded dataset
 * (see ctr-dataset-correct.h), and ctr_dataset_apply_pipeline. */
#include "io/ctr-dataset-correct.h"
#include "io/ctr-json-get.h"
#include "data/ctr-detector-tilt.h"

/* The pipeline of @root's "preprocess" (or @replace) run on the line
 * integrals, each step's effect a warning of @d. */
static gboolean
preprocess (CtrDataset *d, JsonObject *root, const CtrPipeline *replace, const char *where, GError **error)
{
  g_autoptr (CtrPipeline) own = ctr_pipeline_from_json (json_object_get_member (root, "preprocess"), where, error);
  if (own == NULL)
    return FALSE;
  if (ctr_dataset_apply_pipeline (d, replace != NULL ? replace : own, error))
    return TRUE;
  g_prefix_error (error, "%s: ", where);
  return FALSE;
}

/* geometry.json's "detector_tilt_rad" (data/ctr-detector-tilt.h): the
 * projections resampled onto an untilted detector, after the pipeline (whose
 * steps work on the detector's own pixels). */
static gboolean
untilt (CtrDataset *d, JsonObject *root, const char *where, GError **error)
{
  double tilt = 0;
  if (!ctr_json_get_double (root, "detector_tilt_rad", FALSE, 0, &tilt, where, error))
    return FALSE;
  if (tilt == 0)
    return TRUE;
  if (!ctr_projections_untilt (d->projections, d->geometry, tilt, error))
    {
      g_prefix_error (error, "%s: ", where);
      return FALSE;
    }
  if (d->projections->n_rows < 2)
    ctr_dataset_add_warning (d, "detector_tilt_rad %.4g° ignored: one detector row (a 2-D scan has no rows to "
                             "resample)", tilt * 180 / G_PI);
  else
    ctr_dataset_add_warning (d, "detector tilt %.4g°: the projections resampled onto an untilted detector "
                             "(cubic)", tilt * 180 / G_PI);
  return TRUE;
}

gboolean
ctr_dataset_apply_pipeline (CtrDataset *d, const CtrPipeline *pl, GError **error)
{
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  if (!ctr_pipeline_apply (pl, d->projections, d->geometry, notes, error))
    return FALSE;
  for (guint i = 0; i < notes->len; i++)
    ctr_dataset_add_warning (d, "%s", (const char *) notes->pdata[i]);
  return TRUE;
}


gboolean
ctr_dataset_correct (CtrDataset *d, JsonObject *root, const CtrPipeline *replace, const char *where,
                     GError **error)
{
  return preprocess (d, root, replace, where, error) && untilt (d, root, where, error);
}
