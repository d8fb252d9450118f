/* ctr-projection-preview.c — one row through the pipeline and FBP (see the
 * header).  Everything numeric is the core's: ctr_pipeline_apply and
 * ctr_fbp_run on a one-row copy of the data and geometry.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <string.h>
#include <time.h>

#include "ctr-projection-preview.h"
#include "analytic/ctr-fbp.h"

typedef struct {
  CtrProjections *row;        /* [view][1][col] */
  CtrGeometry    *geometry;   /* one row; NULL: no slice */
  char           *slice_note;
  CtrPipeline    *pipeline;   /* nullable */
  gboolean        with_before;
  guint           index;      /* the row of the data */
} Job;

static void
job_free (Job *job)
{
  g_clear_pointer (&job->row, ctr_projections_unref);
  g_clear_pointer (&job->geometry, ctr_geometry_free);
  g_clear_pointer (&job->pipeline, ctr_pipeline_free);
  g_free (job->slice_note);
  g_free (job);
}

void
ctr_projection_preview_free (CtrProjectionPreview *pv)
{
  if (pv == NULL)
    return;
  g_free (pv->before);
  g_free (pv->after);
  g_free (pv->difference);
  g_clear_pointer (&pv->slice_before, ctr_volume_unref);
  g_clear_pointer (&pv->slice_after, ctr_volume_unref);
  g_free (pv->slice_note);
  g_strfreev (pv->notes);
  g_free (pv);
}

/* Row @r of @p as projections of one row, with its flat, dark and mask
 * rows. */
static CtrProjections *
take_row (const CtrProjections *p, guint r, GError **error)
{
  g_autoptr (CtrProjections) one = ctr_projections_new (p->n_views, 1, p->n_cols, p->kind, error);
  gsize nc = p->n_cols;

  if (one == NULL)
    return NULL;
  for (guint v = 0; v < p->n_views; v++)
    memcpy (one->data + v * nc, ctr_projections_view (p, v) + r * nc, nc * sizeof (float));
  one->i0 = p->i0;
  ctr_projections_take_planes (one, p->flat ? g_memdup2 (p->flat + r * nc, nc * sizeof (float)) : NULL,
                               p->dark ? g_memdup2 (p->dark + r * nc, nc * sizeof (float)) : NULL,
                               p->mask ? g_memdup2 (p->mask + r * nc, nc) : NULL);
  return g_steal_pointer (&one);
}

/* The geometry that reconstructs row @r of @g as a slice, or NULL with the
 * reason in *@note (and, for cone beam, the approximation said there). */
static CtrGeometry *
row_geometry (const CtrGeometry *g, guint r, char **note)
{
  g_autoptr (GError) error = NULL;
  CtrGeometry *one;

  if (g->vectors != NULL)
    {
      *note = g_strdup ("No preview slice: the geometry is given per view (vectors)");
      return NULL;
    }
  if (ctr_helix_applies (g))
    {
      *note = g_strdup ("No preview slice: a helical scan's row is no slice");
      return NULL;
    }
  one = ctr_geometry_try_copy (g, NULL);
  if (one == NULL)
    {
      *note = g_strdup ("No preview slice: out of memory");
      return NULL;
    }
  g_clear_pointer (&one->focal_shift, g_free);
  g_clear_pointer (&one->source_z_mm, g_free);   /* an axial scan away from z = 0: the same slice */
  if (g->beam == CTR_BEAM_CONE)
    {
      one->beam = CTR_BEAM_FAN;
      *note = g_strdup_printf ("Cone beam: row %u reconstructed as a fan beam (exact for the central row only)", r);
    }
  one->n_rows = 1;
  one->offset_v_mm = 0;
  if (!ctr_geometry_validate (one, &error))
    {
      g_free (*note);
      *note = g_strdup_printf ("No preview slice: %s", error->message);
      ctr_geometry_free (one);
      return NULL;
    }
  return one;
}

/* FBP of the one-row @p on @g's default grid (at most CTR_PREVIEW_MAX_SIZE
 * pixels a side). */
static CtrVolume *
slice (const CtrGeometry *g, const CtrProjections *p, GCancellable *cancellable, GError **error)
{
  CtrGrid grid = ctr_grid_default (g, 0, 0);

  if (grid.nx > CTR_PREVIEW_MAX_SIZE || grid.ny > CTR_PREVIEW_MAX_SIZE)
    grid = ctr_grid_default (g, CTR_PREVIEW_MAX_SIZE, 0);
  grid.nz = 1;
  return ctr_fbp_run (g, p, &grid, CTR_FILTER_RAM_LAK, 1.0, cancellable, error);
}

static void
run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  g_autoptr (CtrProjectionPreview) pv = g_new0 (CtrProjectionPreview, 1);
  g_autoptr (CtrProjections) after = NULL;
  g_autoptr (CtrGeometry) g_after = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;
  gsize n = (gsize) job->row->n_views * job->row->n_cols;
  gint64 t0;
  clock_t c0;

  pv->row = job->index;
  pv->n_views = job->row->n_views;
  pv->n_cols = job->row->n_cols;
  pv->slice_note = g_strdup (job->slice_note);
  pv->before = g_memdup2 (job->row->data, n * sizeof (float));
  after = ctr_projections_copy (job->row, &error);
  if (after == NULL)
    goto fail;
  if (job->geometry != NULL && (g_after = ctr_geometry_try_copy (job->geometry, &error)) == NULL)
    goto fail;
  t0 = g_get_monotonic_time ();
  c0 = clock ();
  if (job->pipeline != NULL && !ctr_pipeline_apply (job->pipeline, after, g_after, notes, &error))
    goto fail;
  pv->pipeline_s = (g_get_monotonic_time () - t0) / 1e6;
  pv->cpu_s = (double) (clock () - c0) / CLOCKS_PER_SEC;
  pv->after_cols = after->n_cols;
  pv->after = g_memdup2 (after->data, (gsize) after->n_views * after->n_cols * sizeof (float));
  if (after->n_cols == pv->n_cols)
    {
      pv->difference = g_try_new (float, n);
      if (pv->difference == NULL)
        {
          ctr_memory_set_error (&error, n * sizeof (float), "the difference");
          goto fail;
        }
      for (gsize i = 0; i < n; i++)
        pv->difference[i] = pv->after[i] - pv->before[i];
    }
  g_ptr_array_add (notes, NULL);
  pv->notes = (char **) g_ptr_array_steal (notes, NULL);
  if (job->geometry != NULL)
    {
      if (job->with_before && (pv->slice_before = slice (job->geometry, job->row, cancellable, &error)) == NULL)
        goto no_slice;
      t0 = g_get_monotonic_time ();
      c0 = clock ();
      if ((pv->slice_after = slice (g_after, after, cancellable, &error)) == NULL)
        goto no_slice;
      pv->fbp_s = (g_get_monotonic_time () - t0) / 1e6;
      pv->cpu_s += (double) (clock () - c0) / CLOCKS_PER_SEC;
    }
  g_task_return_pointer (task, g_steal_pointer (&pv), (GDestroyNotify) ctr_projection_preview_free);
  return;

no_slice:
  /* a geometry FBP refuses (a draft still being typed): the sinograms
   * without a slice, the reason in its place */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    goto fail;
  g_clear_pointer (&pv->slice_before, ctr_volume_unref);
  g_free (pv->slice_note);
  pv->slice_note = g_strdup_printf ("No preview slice: %s", error->message);
  g_clear_error (&error);
  g_task_return_pointer (task, g_steal_pointer (&pv), (GDestroyNotify) ctr_projection_preview_free);
  return;

fail:
  g_task_return_error (task, error);
}

void
ctr_projection_preview_async (const CtrProjections *p, const CtrGeometry *g, guint row, CtrPipeline *pipeline,
                              gboolean with_before, GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Job *job = g_new0 (Job, 1);
  GError *error = NULL;

  job->pipeline = pipeline;
  job->with_before = with_before;
  job->index = row;
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_set_source_tag (task, ctr_projection_preview_async);
  if (row >= p->n_rows || p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_task_return_new_error (task, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                               "row %u of %u: no line integrals to preview", row, p->n_rows);
      return;
    }
  job->row = take_row (p, row, &error);
  if (job->row == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  job->geometry = row_geometry (g, row, &job->slice_note);
  g_task_run_in_thread (task, run);
}

CtrProjectionPreview *
ctr_projection_preview_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
