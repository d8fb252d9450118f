/* ctr-roi-table.c — every ROI measured on every run, and the ROI CSV.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-roi-table"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctr-roi-table.h"
#include "ctr-run.h"

void
ctr_roi_row_free (CtrRoiRow *row)
{
  if (row == NULL)
    return;
  g_free (row->image);
  g_free (row->roi_name);
  g_free (row->error);
  g_free (row);
}

/* One image's rows: every ROI, then the CNRs against the background's. */
static void
measure_image (CtrRoiSet *set, const char *image, CtrVolume *v, GPtrArray *rows)
{
  GListModel *list = G_LIST_MODEL (set);
  double mu = ctr_roi_set_get_mu_water (set, NULL);
  int background = ctr_roi_set_get_background (set);
  guint first = rows->len;

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (list, i);
      g_autoptr(GError) error = NULL;
      CtrRoiRow *row = g_new0 (CtrRoiRow, 1);

      row->image = g_strdup (image);
      row->roi_name = g_strdup (ctr_roi_item_get_name (item));
      row->roi = *ctr_roi_item_get_roi (item);
      row->position = i;
      row->background = (int) i == background;
      row->cnr = NAN;
      row->ok = ctr_roi_stats (v, v->grid.nz / 2, &row->roi, mu, &row->stats, &error);
      if (!row->ok)
        row->error = g_strdup (error->message);
      g_ptr_array_add (rows, row);
    }
  if (background < 0)
    return;
  {
    CtrRoiRow *bg = g_ptr_array_index (rows, first + background);
    for (guint i = first; i < rows->len; i++)
      {
        CtrRoiRow *row = g_ptr_array_index (rows, i);
        if (!row->background && row->ok && bg->ok)
          row->cnr = ctr_roi_cnr (&row->stats, &bg->stats);
      }
  }
}

static int
roi_major (gconstpointer a, gconstpointer b)
{
  const CtrRoiRow *x = *(const CtrRoiRow **) a, *y = *(const CtrRoiRow **) b;
  return x->position < y->position ? -1 : x->position > y->position;
}

GPtrArray *
ctr_roi_table_measure (CtrRoiSet *set, GListModel *runs, const CtrDataset *dataset)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) ctr_roi_row_free);

  g_return_val_if_fail (CTR_IS_ROI_SET (set), NULL);

  for (guint r = 0; runs != NULL && r < g_list_model_get_n_items (runs); r++)
    {
      g_autoptr(CtrRun) run = g_list_model_get_item (runs, r);
      if (ctr_run_get_result (run) != NULL && ctr_run_is_of (run, dataset))
        measure_image (set, ctr_run_get_label (run), ctr_run_get_result (run), rows);
    }
  if (dataset != NULL && dataset->reference != NULL)
    measure_image (set, "reference", dataset->reference, rows);
  /* stable (GLib ≥ 2.32): images keep their order within an ROI */
  g_ptr_array_sort (rows, roi_major);
  return g_steal_pointer (&rows);
}

/* A CSV field: quoted when it holds a comma, quote or line break. */
static void
append_field (GString *s, const char *text)
{
  if (strpbrk (text, ",\"\n\r") == NULL)
    {
      g_string_append (s, text);
      return;
    }
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p);
    }
  g_string_append_c (s, '"');
}

static void
append_number (GString *s, double v)
{
  g_string_append_c (s, ',');
  if (isfinite (v))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.10g", v));
    }
}

gboolean
ctr_roi_table_write_csv (GPtrArray *rows, double mu_water, gboolean calibrated, const char *path, GError **error)
{
  g_autoptr(GString) s = g_string_new ("image,roi,shape,x_mm,y_mm,width_mm,height_mm,n_pixels,mean_hu,sd_hu,"
                                       "mean_per_mm,sd_per_mm,cnr,background,mu_water_per_mm,calibrated\n");

  g_return_val_if_fail (rows != NULL && path != NULL, FALSE);

  for (guint i = 0; i < rows->len; i++)
    {
      const CtrRoiRow *row = g_ptr_array_index (rows, i);
      const CtrRoi *r = &row->roi;
      gboolean circle = r->shape == CTR_ROI_CIRCLE;

      append_field (s, row->image);
      g_string_append_c (s, ',');
      append_field (s, row->roi_name);
      g_string_append (s, circle ? ",circle" : ",rectangle");
      append_number (s, r->x_mm);
      append_number (s, r->y_mm);
      append_number (s, circle ? 2 * r->radius_mm : r->width_mm);
      append_number (s, circle ? 2 * r->radius_mm : r->height_mm);
      if (row->ok)
        {
          g_string_append_printf (s, ",%" G_GSIZE_FORMAT, row->stats.n_pixels);
          append_number (s, row->stats.mean_hu);
          append_number (s, row->stats.sd_hu);
          append_number (s, row->stats.mean_mu);
          append_number (s, row->stats.sd_mu);
        }
      else
        g_string_append (s, ",,,,,");
      append_number (s, row->cnr);
      g_string_append (s, row->background ? ",yes" : ",no");
      append_number (s, mu_water);
      g_string_append (s, calibrated ? ",yes\n" : ",no\n");
    }
  return g_file_set_contents (path, s->str, s->len, error);
}

static int
cmp_float (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;
  return x < y ? -1 : x > y;
}

gboolean
ctr_roi_water_suspect (const CtrVolume *v, double mu_water, double *median_hu)
{
  gsize n_xy, n = 0;
  const float *slice;
  g_autofree float *inside = NULL;
  double median;

  if (v == NULL || !(mu_water > 0))
    return FALSE;
  n_xy = (gsize) v->grid.nx * v->grid.ny;
  slice = v->data + (gsize) (v->grid.nz / 2) * n_xy;
  inside = g_try_new (float, n_xy);   /* no room: no check (a warning only) */
  if (inside == NULL)
    return FALSE;
  for (gsize i = 0; i < n_xy; i++)
    if (slice[i] > 0.25 * mu_water)
      inside[n++] = slice[i];
  if (n == 0 || n < n_xy / 100)
    return FALSE;
  qsort (inside, n, sizeof *inside, cmp_float);
  median = ctr_hu_from_mu (inside[n / 2], mu_water);
  if (median_hu != NULL)
    *median_hu = median;
  return fabs (median) > 300;
}
