/* ctr-projection-preview.h — the Projections page's work on one detector
 * row, in a thread: the row's sinogram through a preprocessing pipeline
 * (ctr_pipeline_apply, core/preprocess/ctr-preprocess.h) and the FBP
 * (ctr_fbp_run, core/analytic/ctr-fbp.h) of it before and after.  GIO only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "ctrecon.h"

G_BEGIN_DECLS

/* The largest preview slice, pixels a side (a smaller grid over the same
 * field of view beyond it: a preview, not the reconstruction). */
#define CTR_PREVIEW_MAX_SIZE 256

typedef struct {
  guint       row;            /* the detector row */
  guint       n_views, n_cols;
  float      *before;         /* [view][col] line integrals before the pipeline */
  float      *after;          /* [view][after_cols] after it */
  guint       after_cols;     /* n_cols, or more when "truncation" widened the detector */
  float      *difference;     /* [view][col] after − before; NULL when the columns differ */
  CtrVolume  *slice_before;   /* FBP of @before (1/mm); NULL: see @slice_note */
  CtrVolume  *slice_after;    /* FBP of @after */
  char       *slice_note;     /* why there is no slice, or how it was made; nullable */
  char      **notes;          /* each step's effect (NULL-terminated) */
  double      pipeline_s;     /* wall time of the pipeline on the row, s */
  double      fbp_s;          /* wall time of the after slice's FBP, s */
  double      cpu_s;          /* CPU time of the process (every thread) over the pipeline and that FBP, s */
} CtrProjectionPreview;

void ctr_projection_preview_free (CtrProjectionPreview *pv);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrProjectionPreview, ctr_projection_preview_free)

/**
 * ctr_projection_preview_async:
 * @p: line integrals [view][row][col] (only row @row is read, here, before
 *   the thread starts: @p may change afterwards).
 * @g: the geometry of @p.  Parallel and fan beam reconstruct the row as
 *   the slice it is; a circular cone beam as a fan beam (exact for the
 *   central row, an approximation elsewhere: said in ->slice_note); a
 *   helical scan or per-view vectors give no slice.
 * @pipeline: (transfer full) (nullable): the steps run on the row (NULL:
 *   none, after = before).
 * @with_before: also reconstruct the row before the pipeline.
 * Finishes with ctr_projection_preview_finish().
 */
void ctr_projection_preview_async (const CtrProjections *p, const CtrGeometry *g, guint row,
                                   CtrPipeline *pipeline, gboolean with_before, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);

/* Returns: (transfer full): the preview, or NULL with the pipeline's error
 * (ctr_pipeline_apply), CTR_ERROR_OUT_OF_MEMORY or G_IO_ERROR_CANCELLED. */
CtrProjectionPreview *ctr_projection_preview_finish (GAsyncResult *result, GError **error);

G_END_DECLS
