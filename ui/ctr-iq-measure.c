/* ctr-iq-measure.c — task-based image quality of the window's runs (see
 * ctr-iq-measure.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-iq-measure"

#include <math.h>
#include <string.h>

#include "base/ctr-memory.h"
#include "ctr-iq-measure.h"
#include "ctr-plot-draw.h"

CtrIqSetup *
ctr_iq_setup_new (void)
{
  CtrIqSetup *s = g_new0 (CtrIqSetup, 1);
  s->inserts = g_array_new (FALSE, TRUE, sizeof (CtrIqInsertSpec));
  return s;
}

void
ctr_iq_setup_add_insert (CtrIqSetup *setup, const char *name, const CtrRoi *roi)
{
  CtrIqInsertSpec in = { g_strdup (name), *roi };
  g_array_append_val (setup->inserts, in);
}

void
ctr_iq_setup_free (CtrIqSetup *setup)
{
  if (setup == NULL)
    return;
  for (guint i = 0; i < setup->inserts->len; i++)
    g_free (g_array_index (setup->inserts, CtrIqInsertSpec, i).name);
  g_array_unref (setup->inserts);
  g_free (setup);
}

static CtrIqSetup *
setup_copy (const CtrIqSetup *setup)
{
  CtrIqSetup *c = ctr_iq_setup_new ();
  c->nps_roi = setup->nps_roi;
  c->nps_size = setup->nps_size;
  c->has_task = setup->has_task;
  c->task = setup->task;
  for (guint i = 0; i < setup->inserts->len; i++)
    {
      const CtrIqInsertSpec *in = &g_array_index (setup->inserts, CtrIqInsertSpec, i);
      ctr_iq_setup_add_insert (c, in->name, &in->roi);
    }
  return c;
}

void
ctr_iq_result_free (CtrIqResult *r)
{
  if (r == NULL)
    return;
  g_free (r->label);
  g_free (r->unit);
  g_clear_pointer (&r->nps, ctr_nps_free);
  g_free (r->nps_problem);
  g_clear_pointer (&r->ttf, g_ptr_array_unref);
  g_clear_pointer (&r->ttf_problems, g_ptr_array_unref);
  g_free (r->dprime_problem);
  g_free (r);
}

float *
ctr_iq_slice_hu (const CtrVolume *v, guint z, double mu_water, gboolean *hu, GError **error)
{
  const gsize n = (gsize) v->grid.nx * v->grid.ny;
  const float *src = ctr_volume_slice (v, MIN (z, v->grid.nz - 1));
  g_autofree char *what = g_strdup_printf ("the measured slice of %u × %u pixels", v->grid.nx, v->grid.ny);
  float *out = ctr_memory_try_new (n, sizeof (float), FALSE, what, error);
  if (out == NULL)
    return NULL;

  *hu = g_strcmp0 (v->unit, "1/mm") == 0 && mu_water > 0;
  for (gsize i = 0; i < n; i++)
    out[i] = *hu ? (float) (1000.0 * (src[i] - mu_water) / mu_water) : src[i];
  return out;
}

guint
ctr_iq_nps_size (const guint8 *mask, guint nx, guint ny, guint *count)
{
  static const guint sizes[] = { 64, 32, 16, 8 }, wanted[] = { 4, 1 };

  for (guint w = 0; w < G_N_ELEMENTS (wanted); w++)
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
      {
        const guint64 n = ctr_nps_tile_count (mask, nx, ny, sizes[i]);
        if (n >= wanted[w])
          {
            *count = (guint) MIN (n, G_MAXUINT);
            return sizes[i];
          }
      }
  *count = 0;
  return 0;
}

/* The NPS over the squares of setup->nps_size (0: ctr_iq_nps_size). */
static void
measure_nps (const CtrIqSetup *setup, const float *slice, const CtrGrid *grid, CtrIqResult *r)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *mask = ctr_roi_mask (grid, &setup->nps_roi, NULL, &error);
  g_autofree guint *corners = NULL;
  guint count = 0, size = setup->nps_size;

  if (mask == NULL)
    {
      r->nps_problem = g_strdup (error->message);
      return;
    }
  if (size == 0)
    size = ctr_iq_nps_size (mask, grid->nx, grid->ny, &count);
  if (size > 0)
    corners = ctr_nps_tile (mask, grid->nx, grid->ny, size, &count, &error);
  if (error != NULL)
    {
      r->nps_problem = g_strdup (error->message);
      return;
    }
  if (count == 0)
    {
      r->nps_problem = size > 0
        ? g_strdup_printf ("the NPS ROI holds no %u × %u pixel square (draw it larger)", size, size)
        : g_strdup ("the NPS ROI holds no 8 × 8 pixel square (draw it larger)");
      return;
    }
  const float *slices[1] = { slice };
  r->nps = ctr_nps_compute (slices, 1, grid->nx, grid->ny, grid->dx, corners, count, size, CTR_NPS_DETREND_MEAN,
                            1.0, &error);
  if (r->nps == NULL)
    r->nps_problem = g_strdup (error->message);
  r->nps_size = size;
  r->nps_squares = count;
}

/* Each insert's TTF (the centre in pixels as the dose study computes it). */
static void
measure_ttf (const CtrIqSetup *setup, const float *slice, const CtrGrid *g, CtrIqResult *r)
{
  const float *slices[1] = { slice };

  r->ttf = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_ttf_free);
  r->ttf_problems = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < setup->inserts->len; i++)
    {
      const CtrIqInsertSpec *in = &g_array_index (setup->inserts, CtrIqInsertSpec, i);
      const double cx = (in->roi.x_mm - g->cx) / g->dx + (g->nx - 1) * 0.5;
      const double cy = (g->ny - 1) * 0.5 - (in->roi.y_mm - g->cy) / g->dy;
      g_autoptr(GError) error = NULL;
      CtrTtf *t = ctr_ttf_insert (slices, 1, g->nx, g->ny, g->dx, cx, cy, in->roi.radius_mm / g->dx, &error);
      g_ptr_array_add (r->ttf, t);
      g_ptr_array_add (r->ttf_problems, t == NULL ? g_strdup (error->message) : NULL);
    }
}

/* d′ with the TTF of the insert whose contrast is nearest the task's. */
static void
measure_dprime (const CtrIqSetup *setup, CtrIqResult *r)
{
  g_autoptr(GError) error = NULL;
  double best = INFINITY;

  r->task_insert = -1;
  if (!setup->has_task)
    return;
  for (guint i = 0; i < r->ttf->len; i++)
    {
      const CtrTtf *t = r->ttf->pdata[i];
      if (t != NULL && fabs (t->contrast - setup->task.contrast) < best)
        {
          best = fabs (t->contrast - setup->task.contrast);
          r->task_insert = (int) i;
        }
    }
  if (r->nps == NULL || r->task_insert < 0)
    {
      r->dprime_problem = g_strdup (r->nps == NULL ? "no NPS" : "no insert's TTF");
      return;
    }
  CtrEyeFilter eye = ctr_eye_filter_default ();
  r->has_dprime = ctr_dprime_measured (&setup->task, r->ttf->pdata[r->task_insert], r->nps, &eye, &r->dprime,
                                       &error);
  if (!r->has_dprime)
    r->dprime_problem = g_strdup (error->message);
}

CtrIqResult *
ctr_iq_measure_slice (const CtrIqSetup *setup, const float *slice, const CtrGrid *grid, const char *unit)
{
  CtrIqResult *r = g_new0 (CtrIqResult, 1);

  r->unit = g_strdup (unit);
  measure_nps (setup, slice, grid, r);
  measure_ttf (setup, slice, grid, r);
  measure_dprime (setup, r);
  return r;
}

/* ---- the worker ----------------------------------------------------------- */

typedef struct {
  guint   number;
  char   *label;
  GdkRGBA color;
  float  *slice;
  CtrGrid grid;
  gboolean hu;
} Input;

typedef struct {
  CtrIqSetup *setup;
  GArray     *inputs;   /* Input */
} Request;

static void
request_free (gpointer data)
{
  Request *q = data;
  for (guint i = 0; i < q->inputs->len; i++)
    {
      Input *in = &g_array_index (q->inputs, Input, i);
      g_free (in->label);
      g_free (in->slice);
    }
  g_array_unref (q->inputs);
  ctr_iq_setup_free (q->setup);
  g_free (q);
}

static void
measure_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request *q = task_data;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_iq_result_free);

  for (guint i = 0; i < q->inputs->len; i++)
    {
      const Input *in = &g_array_index (q->inputs, Input, i);
      if (g_cancellable_is_cancelled (cancellable))
        break;
      CtrIqResult *r = ctr_iq_measure_slice (q->setup, in->slice, &in->grid, in->hu ? "HU" : "image unit");
      r->number = in->number;
      r->label = g_strdup (in->label);
      r->color = in->color;
      g_ptr_array_add (out, r);
    }
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_ptr_array_unref (out);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
      return;
    }
  g_task_return_pointer (task, out, (GDestroyNotify) g_ptr_array_unref);
}

void
ctr_iq_measure_async (const CtrIqSetup *setup, GPtrArray *runs, double mu_water, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer data)
{
  Request *q = g_new0 (Request, 1);
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, data);
  g_autoptr(GError) error = NULL;

  q->setup = setup_copy (setup);
  q->inputs = g_array_new (FALSE, TRUE, sizeof (Input));
  for (guint i = 0; i < runs->len; i++)
    {
      CtrRun *run = runs->pdata[i];
      CtrVolume *v = ctr_run_get_result (run);
      Input in = { 0 };
      if (v == NULL)
        continue;
      in.number = ctr_run_get_number (run);
      in.label = g_strdup (ctr_run_get_label (run));
      ctr_plot_color_of_run (run, &in.color);
      in.grid = v->grid;
      in.slice = ctr_iq_slice_hu (v, v->grid.nz / 2, mu_water, &in.hu, &error);
      g_array_append_val (q->inputs, in);
      if (in.slice == NULL)
        break;
    }
  g_task_set_source_tag (task, ctr_iq_measure_async);
  g_task_set_task_data (task, q, request_free);
  if (error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_run_in_thread (task, measure_thread);
}

GPtrArray *
ctr_iq_measure_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
