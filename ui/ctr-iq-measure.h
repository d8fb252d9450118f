/* ctr-iq-measure.h — task-based image quality of the window's runs (AAPM
 * TG-233): the NPS of a uniform region, the TTF of circular inserts and d′
 * of a detection task, measured on each run's image in a worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every number comes from core/quality (ctr_roi_mask, ctr_nps_tile,
 * ctr_nps_compute, ctr_ttf_insert, ctr_dprime_measured); this file only
 * copies the runs' middle slices on the main thread, converts them to HU
 * and calls those functions in a GTask's thread.
 */
#pragma once

#include <gio/gio.h>
#include <gtk/gtk.h>
#include "ctrecon.h"
#include "ctr-run.h"

G_BEGIN_DECLS

/**
 * CtrIqSetup:
 * @nps_roi: the uniform region the NPS squares tile (mm, the volume's frame).
 * @nps_size: side of the NPS squares in pixels (≥ 4), or 0 for the largest
 *   of 64, 32, 16 and 8 of which the ROI holds 4 squares (else the largest
 *   it holds once).
 * @inserts: the circular inserts (CtrIqInsertSpec), in order.
 * @has_task, @task: d′'s task (contrast in HU), with the TTF of the insert
 *   whose measured contrast is nearest the task's.
 */
typedef struct {
  char  *name;
  CtrRoi roi;
} CtrIqInsertSpec;

typedef struct {
  CtrRoi   nps_roi;
  guint    nps_size;
  GArray  *inserts;
  gboolean has_task;
  CtrTask  task;
} CtrIqSetup;

/* A setup without inserts (@nps_roi zero), and its copy; free with
 * ctr_iq_setup_free (frees the insert names). */
CtrIqSetup *ctr_iq_setup_new  (void);
void        ctr_iq_setup_add_insert (CtrIqSetup *setup, const char *name, const CtrRoi *roi);
void        ctr_iq_setup_free (CtrIqSetup *setup);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrIqSetup, ctr_iq_setup_free)

/**
 * CtrIqResult:
 * One run's measures.  @number, @label, @color: the run's.  @unit: "HU" or
 * the image unit when the image is not in 1/mm.  @nps (nullable) with
 * @nps_problem otherwise; @nps_size and @nps_squares: the squares used.
 * @ttf: one CtrTtf per insert (NULL where it failed, @ttf_problems[i]
 * says why).  @task_insert: the insert whose TTF d′ used (-1: none), @dprime
 * valid when @has_dprime, else @dprime_problem (nullable).
 */
typedef struct {
  guint       number;
  char       *label;
  GdkRGBA     color;
  char       *unit;
  CtrNps     *nps;
  char       *nps_problem;
  guint       nps_size, nps_squares;
  GPtrArray  *ttf;
  GPtrArray  *ttf_problems;
  int         task_insert;
  gboolean    has_dprime;
  CtrDprime   dprime;
  char       *dprime_problem;
} CtrIqResult;

void ctr_iq_result_free (CtrIqResult *result);

/**
 * ctr_iq_measure_slice:
 * The measures of @setup on one slice @slice (nx·ny floats of @grid,
 * row-major, HU or the image unit @unit), synchronously (the worker's
 * body; also what a test calls).  Never NULL: what fails is in the
 * result's problems.
 */
CtrIqResult *ctr_iq_measure_slice (const CtrIqSetup *setup, const float *slice, const CtrGrid *grid,
                                   const char *unit);

/**
 * ctr_iq_measure_async:
 * Measures @setup (copied) on the middle slice of each of @runs (CtrRun,
 * each with a result image; in μ (1/mm) converted to HU with @mu_water)
 * in a worker thread.  The slices are copied here, on the main thread.
 */
void       ctr_iq_measure_async  (const CtrIqSetup    *setup,
                                  GPtrArray           *runs,
                                  double               mu_water,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             data);
/* (transfer full): a CtrIqResult per run, in order; NULL with
 * G_IO_ERROR_CANCELLED when cancelled. */
GPtrArray *ctr_iq_measure_finish (GAsyncResult        *result,
                                  GError             **error);

/* The side of the NPS squares for the ROI @mask (nx·ny, non-zero inside):
 * the largest of 64, 32, 16 and 8 of which ctr_nps_tile fits 4 squares,
 * else the largest it fits once; 0 when none (*@count: the squares). */
guint      ctr_iq_nps_size       (const guint8        *mask,
                                  guint                nx,
                                  guint                ny,
                                  guint               *count);

/* The HU copy of slice @z of @v when its unit is "1/mm" (else a plain
 * copy; *@hu says which); g_free.  NULL with CTR_ERROR_OUT_OF_MEMORY when
 * the copy (4 bytes a pixel) does not fit. */
float     *ctr_iq_slice_hu       (const CtrVolume     *v,
                                  guint                z,
                                  double               mu_water,
                                  gboolean            *hu,
                                  GError             **error);

G_END_DECLS
