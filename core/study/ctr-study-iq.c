/* ctr-study-iq.c — task-based image quality in the dose study (AAPM
 * TG-233): the NPS of a uniform region, the TTF of circular inserts and d′
 * of a detection task for every run (see ctr-study.h). */
#include "study/ctr-study.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "quality/ctr-nps.h"
#include "quality/ctr-ttf.h"

#include <math.h>
#include <string.h>

gboolean
ctr_study_set_iq_nps (CtrStudy *s, const CtrRoi *roi, guint size, GError **error)
{
  g_return_val_if_fail (s != NULL && roi != NULL, FALSE);
  if (!ctr_roi_validate (roi, error))
    {
      g_prefix_error (error, "NPS ROI: ");
      return FALSE;
    }
  if (size < 4)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the NPS squares need a side of at least 4 pixels, got %u", size);
      return FALSE;
    }
  s->iq.on = s->iq.has_nps = TRUE;
  s->iq.nps_roi = *roi;
  s->iq.nps_size = size;
  return TRUE;
}

gboolean
ctr_study_add_iq_insert (CtrStudy *s, const char *name, double x_mm, double y_mm, double radius_mm,
                         GError **error)
{
  g_return_val_if_fail (s != NULL, FALSE);
  if (name == NULL || *name == '\0' || strpbrk (name, ",\"\n\r") != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "an insert needs a name without commas, quotes or line breaks, got “%s”", name ? name : "");
      return FALSE;
    }
  CtrRoi roi = ctr_roi_circle (x_mm, y_mm, radius_mm);
  if (!ctr_roi_validate (&roi, error))
    {
      g_prefix_error (error, "insert “%s”: ", name);
      return FALSE;
    }
  for (guint i = 0; i < s->iq.inserts->len; i++)
    if (g_str_equal (g_array_index (s->iq.inserts, StudyInsert, i).name, name))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "two inserts are named “%s”", name);
        return FALSE;
      }
  StudyInsert in = { g_strdup (name), roi };
  g_array_append_val (s->iq.inserts, in);
  s->iq.on = TRUE;
  return TRUE;
}

gboolean
ctr_study_set_iq_task (CtrStudy *s, const CtrTask *task, const char *insert, GError **error)
{
  g_return_val_if_fail (s != NULL && task != NULL, FALSE);
  if (!(isfinite (task->diameter_mm) && task->diameter_mm > 0) || !isfinite (task->contrast)
      || task->contrast == 0 || !(task->designer_n >= 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "a task needs a positive diameter and a non-zero contrast");
      return FALSE;
    }
  for (guint i = 0; i < s->iq.inserts->len; i++)
    if (insert == NULL || g_str_equal (g_array_index (s->iq.inserts, StudyInsert, i).name, insert))
      {
        s->iq.task = *task;
        s->iq.task_insert = i;
        s->iq.has_task = s->iq.on = TRUE;
        return TRUE;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "d′ needs the TTF of an insert: %s", insert != NULL ? "no insert of that name" : "no insert given");
  if (insert != NULL)
    g_prefix_error (error, "task insert “%s”: ", insert);
  return FALSE;
}

gboolean
ctr_study_has_iq_task (const CtrStudy *s)
{
  g_return_val_if_fail (s != NULL, FALSE);
  return s->iq.has_task;
}

guint
ctr_study_get_n_iq_inserts (const CtrStudy *s)
{
  return s->iq.inserts->len;
}

const char *
ctr_study_get_iq_insert_name (const CtrStudy *s, guint i)
{
  g_return_val_if_fail (s != NULL && i < s->iq.inserts->len, NULL);
  return g_array_index (s->iq.inserts, StudyInsert, i).name;
}

/* The NPS of the HU slice @hu, or NULL with CTR_ERROR_INVALID_ARGUMENT (or
 * CTR_ERROR_OUT_OF_MEMORY). */
static CtrNps *
measure_nps (const CtrStudy *s, const CtrGrid *g, const float *hu, GError **error)
{
  g_autofree guint8 *mask = ctr_roi_mask (g, &s->iq.nps_roi, NULL, error);
  if (mask == NULL)
    return NULL;
  guint count = 0;
  g_autoptr (GError) local = NULL;
  g_autofree guint *corners = ctr_nps_tile (mask, g->nx, g->ny, s->iq.nps_size, &count, &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (count == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the NPS ROI holds no %u × %u square of the image (make it larger or nps_size smaller)",
                   s->iq.nps_size, s->iq.nps_size);
      return NULL;
    }
  const float *slices[1] = { hu };
  return ctr_nps_compute (slices, 1, g->nx, g->ny, g->dx, corners, count, s->iq.nps_size,
                          CTR_NPS_DETREND_MEAN, 1.0, error);
}

/* CTR_ERROR_INVALID_DATA (the image's fault, not the study's) becomes NaN. */
static gboolean
data_failure (GError **local)
{
  if (g_error_matches (*local, CTR_ERROR, CTR_ERROR_INVALID_DATA))
    {
      g_clear_error (local);
      return TRUE;
    }
  return FALSE;
}

gboolean
ctr_study_get_iq_insert_cnr (const CtrStudy *s, guint i, double *lo, double *hi)
{
  g_return_val_if_fail (s != NULL && i < s->iq.inserts->len && lo != NULL && hi != NULL, FALSE);
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new ((GMutex *) &s->lock);
  const StudyInsert *in = &g_array_index (s->iq.inserts, StudyInsert, i);
  *lo = in->cnr_lo, *hi = in->cnr_hi;
  return in->cnr_n > 0;
}

/* Adds @cnr to insert @i's range. */
static void
note_cnr (CtrStudy *s, guint i, double cnr)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
  StudyInsert *in = &g_array_index (s->iq.inserts, StudyInsert, i);
  in->cnr_lo = in->cnr_n == 0 ? cnr : MIN (in->cnr_lo, cnr);
  in->cnr_hi = in->cnr_n == 0 ? cnr : MAX (in->cnr_hi, cnr);
  in->cnr_n++;
}

float *
ctr_study_iq_slice (const CtrStudy *s, const CtrVolume *img, GError **error)
{
  const CtrGrid *g = &img->grid;
  const gsize plane = (gsize) g->nx * g->ny;
  const float *mu = ctr_volume_slice (img, g->nz / 2);
  float *hu = ctr_memory_try_new (plane, sizeof (float), FALSE, "the middle slice in HU", error);
  if (hu == NULL)
    return NULL;
  for (gsize i = 0; i < plane; i++)
    hu[i] = (float) (1000.0 * (mu[i] - s->mu_water) / s->mu_water);
  return hu;
}

/* d′ of realisation @k (HU slice @hu, row @row of s->rows) with its own
 * NPS and the pooled TTF @ttf into the row's dprime_*_pooled; NaN where
 * the image cannot be measured; FALSE with the NPS's or d′'s other errors. */
static gboolean
pooled_dprime (CtrStudy *s, const CtrGrid *g, const float *hu, guint row, const CtrTtf *ttf, GError **error)
{
  GError *local = NULL;
  g_autoptr (CtrNps) nps = measure_nps (s, g, hu, &local);
  CtrDprime d = { NAN, NAN };
  if (nps == NULL && !data_failure (&local))
    {
      g_propagate_prefixed_error (error, local, "NPS: ");
      return FALSE;
    }
  CtrEyeFilter eye = ctr_eye_filter_default ();
  if (nps != NULL && !ctr_dprime_measured (&s->iq.task, ttf, nps, &eye, &d, &local))
    {
      if (!data_failure (&local))
        {
          g_propagate_prefixed_error (error, local, "d′ with the pooled TTF: ");
          return FALSE;
        }
      d.npw = d.npwe = NAN;
    }
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
  if (row < s->rows->len)
    {
      CtrStudyRow *r = &g_array_index (s->rows, CtrStudyRow, row);
      r->dprime_npw_pooled = d.npw, r->dprime_npwe_pooled = d.npwe;
    }
  return TRUE;
}

gboolean
ctr_study_pool_iq (CtrStudy *s, const CtrGrid *g, const float *const *slices, guint n, guint first, GError **error)
{
  g_autoptr (CtrTtf) task_ttf = NULL;
  for (guint i = 0; i < s->iq.inserts->len; i++)
    {
      const StudyInsert *in = &g_array_index (s->iq.inserts, StudyInsert, i);
      const double cx = (in->roi.x_mm - g->cx) / g->dx + (g->nx - 1) * 0.5;
      const double cy = (g->ny - 1) * 0.5 - (in->roi.y_mm - g->cy) / g->dy;
      GError *local = NULL;
      g_autoptr (CtrTtf) t = ctr_ttf_pooled (slices, n, g->nx, g->ny, g->dx, cx, cy, in->roi.radius_mm / g->dx,
                                             CTR_TTF_CENTRE_COMMON, &local);
      if (t == NULL && !data_failure (&local))
        {
          if (g_error_matches (local, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY))
            {
              g_propagate_prefixed_error (error, local, "insert “%s”, pooled: ", in->name);
              return FALSE;
            }
          g_clear_error (&local);   /* outside the image: each run has said so already */
          continue;
        }
      if (t == NULL)
        continue;
      g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&s->lock);
      for (guint k = first; k < first + n && k < s->rows->len; k++)
        {
          CtrStudyRow *row = &g_array_index (s->rows, CtrStudyRow, k);
          ((double *) row->ttf_f50_pooled)[i] = t->f50;
          ((double *) row->ttf_cnr_pooled)[i] = t->cnr;
        }
      g_clear_pointer (&locker, g_mutex_locker_free);
      if (s->iq.has_task && i == s->iq.task_insert)
        task_ttf = g_steal_pointer (&t);
    }
  if (s->iq.has_task && s->iq.has_nps && task_ttf != NULL)
    for (guint k = 0; k < n; k++)
      if (!pooled_dprime (s, g, slices[k], first + k, task_ttf, error))
        return FALSE;
  return TRUE;
}

gboolean
ctr_study_measure_iq (CtrStudy *s, const CtrVolume *img, CtrStudyRow *row, GError **error)
{
  const guint n_ins = s->iq.inserts->len;
  double *f50 = g_new (double, MAX (n_ins, 1));
  double *f50_pooled = g_new (double, MAX (n_ins, 1)), *cnr_pooled = g_new (double, MAX (n_ins, 1));
  row->ttf_f50 = f50;
  row->ttf_f50_pooled = f50_pooled, row->ttf_cnr_pooled = cnr_pooled;
  row->nps_noise_hu = row->nps_f_peak = row->nps_f_avg = NAN;
  row->dprime_npw = row->dprime_npwe = NAN;
  row->dprime_npw_pooled = row->dprime_npwe_pooled = NAN;
  for (guint i = 0; i < n_ins; i++)
    f50[i] = f50_pooled[i] = cnr_pooled[i] = NAN;
  if (!s->iq.on)
    return TRUE;

  const CtrGrid *g = &img->grid;
  g_autofree float *hu = ctr_study_iq_slice (s, img, error);
  if (hu == NULL)
    return FALSE;

  GError *local = NULL;
  g_autoptr (CtrNps) nps = NULL;
  if (s->iq.has_nps)
    {
      nps = measure_nps (s, g, hu, &local);
      if (nps == NULL && !data_failure (&local))
        {
          g_propagate_prefixed_error (error, local, "NPS: ");
          return FALSE;
        }
    }
  if (nps != NULL)
    {
      row->nps_noise_hu = nps->noise_sd;
      row->nps_f_peak = nps->f_peak;
      row->nps_f_avg = nps->f_avg;
    }

  g_autoptr (CtrTtf) task_ttf = NULL;
  const float *slices[1] = { hu };
  for (guint i = 0; i < n_ins; i++)
    {
      const StudyInsert *in = &g_array_index (s->iq.inserts, StudyInsert, i);
      const double cx = (in->roi.x_mm - g->cx) / g->dx + (g->nx - 1) * 0.5;
      const double cy = (g->ny - 1) * 0.5 - (in->roi.y_mm - g->cy) / g->dy;
      g_autoptr (CtrTtf) t = ctr_ttf_insert (slices, 1, g->nx, g->ny, g->dx, cx, cy,
                                             in->roi.radius_mm / g->dx, &local);
      if (t == NULL)
        {
          if (data_failure (&local))
            continue;
          g_propagate_prefixed_error (error, local, "insert “%s”: ", in->name);
          return FALSE;
        }
      f50[i] = t->f50;
      note_cnr (s, i, t->cnr);
      if (s->iq.has_task && i == s->iq.task_insert)
        task_ttf = g_steal_pointer (&t);
    }

  if (s->iq.has_task && nps != NULL && task_ttf != NULL)
    {
      CtrEyeFilter eye = ctr_eye_filter_default ();
      CtrDprime d;
      if (ctr_dprime_measured (&s->iq.task, task_ttf, nps, &eye, &d, &local))
        {
          row->dprime_npw = d.npw;
          row->dprime_npwe = d.npwe;
        }
      else if (!data_failure (&local))
        {
          g_propagate_prefixed_error (error, local, "d′: ");
          return FALSE;
        }
    }
  return TRUE;
}
