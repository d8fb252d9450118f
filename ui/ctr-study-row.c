/* ctr-study-row.c — a dose study's row as a list item (ctr-study-row.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-study-row"

#include <math.h>

#include "ctr-study-row.h"

struct _CtrStudyRowItem
{
  GObject     parent_instance;
  CtrStudyRow row;      /* label owned; ROI arrays and parameters NULL */
  double      cnr;
  guint       run_number; /* the session's run of its image; 0: none */
};

G_DEFINE_FINAL_TYPE (CtrStudyRowItem, ctr_study_row_item, G_TYPE_OBJECT)

static void
ctr_study_row_item_finalize (GObject *object)
{
  CtrStudyRowItem *self = CTR_STUDY_ROW_ITEM (object);

  g_free ((char *) self->row.label);
  G_OBJECT_CLASS (ctr_study_row_item_parent_class)->finalize (object);
}

static void
ctr_study_row_item_class_init (CtrStudyRowItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ctr_study_row_item_finalize;
}

static void
ctr_study_row_item_init (CtrStudyRowItem *self)
{
  self->cnr = NAN;
}

CtrStudyRowItem *
ctr_study_row_item_new (const CtrStudyRow *row, double cnr)
{
  CtrStudyRowItem *self;

  g_return_val_if_fail (row != NULL, NULL);
  self = g_object_new (CTR_TYPE_STUDY_ROW_ITEM, NULL);
  self->row = *row;
  self->row.label = g_strdup (row->label != NULL ? row->label : "");
  self->row.parameters = NULL;
  self->row.roi_mean_hu = self->row.roi_sd_hu = self->row.roi_cnr = NULL;
  self->row.ttf_f50 = self->row.ttf_f50_pooled = self->row.ttf_cnr_pooled = NULL;   /* the study owns its arrays; the row keeps scalars only */
  self->cnr = cnr;
  return self;
}

const CtrStudyRow *
ctr_study_row_item_get (CtrStudyRowItem *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_ROW_ITEM (self), NULL);
  return &self->row;
}

double
ctr_study_row_item_get_cnr (CtrStudyRowItem *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_ROW_ITEM (self), NAN);
  return self->cnr;
}

void
ctr_study_row_item_set_run_number (CtrStudyRowItem *self, guint number)
{
  g_return_if_fail (CTR_IS_STUDY_ROW_ITEM (self));
  self->run_number = number;
}

guint
ctr_study_row_item_get_run_number (CtrStudyRowItem *self)
{
  g_return_val_if_fail (CTR_IS_STUDY_ROW_ITEM (self), 0);
  return self->run_number;
}

const char *
ctr_study_column_title (CtrStudyColumn column)
{
  static const char *const titles[CTR_STUDY_N_COLUMNS] = {
    "Dose", "Method", "RMSE (1/mm, FOV disc)", "SSIM (FOV disc)", "RMSE (HU, FOV disc)", "Noise SD (HU)", "CNR", "d′ NPW", "d′ NPWE",
    "Iterations", "Time",
  };
  g_return_val_if_fail (column < CTR_STUDY_N_COLUMNS, NULL);
  return titles[column];
}

/* @format with @v, or a dash where the run reported none. */
static char *
number (const char *format, double v)
{
  return isfinite (v) ? g_strdup_printf (format, v) : g_strdup ("–");
}

char *
ctr_study_row_item_format (CtrStudyRowItem *self, CtrStudyColumn column)
{
  const CtrStudyRow *r;

  g_return_val_if_fail (CTR_IS_STUDY_ROW_ITEM (self), NULL);
  r = &self->row;
  switch (column)
    {
    case CTR_STUDY_COLUMN_DOSE:       return number ("%g", r->dose);
    case CTR_STUDY_COLUMN_METHOD:     return g_strdup (r->label);
    case CTR_STUDY_COLUMN_RMSE:       return number ("%.3g", r->rmse);   /* as ctr-quality-text.h */
    case CTR_STUDY_COLUMN_SSIM:       return number ("%.4f", r->ssim);
    case CTR_STUDY_COLUMN_HU_RMSE:    return number ("%.1f", r->hu_rmse);
    case CTR_STUDY_COLUMN_NOISE_SD:   return number ("%.1f", r->noise_sd_hu);
    case CTR_STUDY_COLUMN_CNR:        return number ("%.2f", self->cnr);
    case CTR_STUDY_COLUMN_DPRIME_NPW: return number ("%.2f", r->dprime_npw);
    case CTR_STUDY_COLUMN_DPRIME_NPWE: return number ("%.2f", r->dprime_npwe);
    case CTR_STUDY_COLUMN_ITERATIONS: return g_strdup_printf ("%u", r->iterations);
    case CTR_STUDY_COLUMN_SECONDS:    return number ("%.2f s", r->seconds);
    default:
      g_return_val_if_reached (NULL);
    }
}
