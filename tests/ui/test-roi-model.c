/* test-roi-model.c — the window's ROI model without a display: CtrRoiSet
 * (positions, background and selection after removals, hit testing,
 * μ_water), ctr_roi_table_measure (ROI-major rows, statistics against a
 * direct sum over the pixel centres, CNR against the background), the ROI
 * CSV (quoting, numbers read back) and the per-dataset water calibrations
 * (round trip, forgetting, odd paths, a damaged file).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ctr-roi-set.h"
#include "ctr-roi-table.h"
#include "ctr-water-store.h"

static char *tmp_dir;

/* 64 × 64 pixels of 0.5 mm: a disc of 0.03 /mm (radius 8 mm at (5, 5))
 * on 0.02 /mm with a deterministic ripple of ±0.002. */
static CtrVolume *
phantom (void)
{
  CtrGrid g = ctr_grid_square (64, 0.5, 1, 0.5);
  CtrVolume *v = ctr_volume_new (&g, NULL);

  for (guint iy = 0; iy < g.ny; iy++)
    for (guint ix = 0; ix < g.nx; ix++)
      {
        double x = ctr_grid_x (&g, ix), y = ctr_grid_y (&g, iy);
        v->data[iy * g.nx + ix] = hypot (x - 5, y - 5) <= 8 ? 0.03f : 0.02f + 0.001f * (float) ((int) ((ix * 7 + iy * 3) % 5) - 2);
      }
  ctr_volume_set_unit (v, "1/mm");
  return v;
}

/* Whether the centre of pixel (@ix, @iy) lies inside @r (the edge counts). */
static gboolean
inside (const CtrVolume *v, const CtrRoi *r, guint ix, guint iy)
{
  double x = ctr_grid_x (&v->grid, ix) - r->x_mm, y = ctr_grid_y (&v->grid, iy) - r->y_mm;

  if (r->shape == CTR_ROI_CIRCLE)
    return x * x + y * y <= r->radius_mm * r->radius_mm;
  return fabs (x) <= r->width_mm / 2 && fabs (y) <= r->height_mm / 2;
}

/* Mean and sample SD over the pixel centres inside @r, summed here (two
 * passes: the mean, then the deviations). */
static void
direct_stats (const CtrVolume *v, const CtrRoi *r, double *mean, double *sd, guint *n)
{
  double sum[2] = { 0, 0 };

  *n = 0;
  *mean = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      for (guint iy = 0; iy < v->grid.ny; iy++)
        for (guint ix = 0; ix < v->grid.nx; ix++)
          if (inside (v, r, ix, iy))
            {
              double d = v->data[iy * v->grid.nx + ix] - *mean;
              sum[pass] += pass == 0 ? d : d * d;
              *n += pass == 0;
            }
      if (pass == 0)
        *mean = sum[0] / *n;
    }
  *sd = sqrt (sum[1] / (*n - 1));
}

static void
test_set (void)
{
  g_autoptr(CtrRoiSet) set = ctr_roi_set_new ();
  CtrRoi a = ctr_roi_circle (5, 5, 4), b = ctr_roi_rectangle (-8, -8, 6, 4), c = ctr_roi_circle (10, -10, 2);
  gboolean calibrated = TRUE;
  guint changes = 0;

  g_signal_connect_swapped (set, "items-changed", G_CALLBACK (g_atomic_int_inc), &changes);
  g_assert_cmpuint (ctr_roi_set_add (set, &a), ==, 0);
  g_assert_cmpuint (ctr_roi_set_add (set, &b), ==, 1);
  g_assert_cmpuint (ctr_roi_set_add (set, &c), ==, 2);
  g_assert_cmpuint (changes, ==, 3);
  g_assert_cmpint (ctr_roi_set_get_selected (set), ==, 2);
  g_assert_cmpint (ctr_roi_set_find (set, 5, 8.9), ==, 0);
  g_assert_cmpint (ctr_roi_set_find (set, -5.1, -8), ==, 1);   /* on the rectangle's edge */
  g_assert_cmpint (ctr_roi_set_find (set, -4.9, -8), ==, -1);
  ctr_roi_set_set_background (set, 1);
  ctr_roi_set_set_selected (set, 0);
  ctr_roi_set_remove (set, 0);
  g_assert_cmpint (ctr_roi_set_get_background (set), ==, 0);   /* the same ROI, one place up */
  g_assert_cmpint (ctr_roi_set_get_selected (set), ==, -1);    /* it was removed */
  ctr_roi_set_remove (set, 0);
  g_assert_cmpint (ctr_roi_set_get_background (set), ==, -1);
  {
    g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (set), 0);
    g_assert_cmpstr (ctr_roi_item_get_name (item), ==, "ROI 3");   /* names are not reused */
  }
  ctr_roi_set_set_background (set, 7);
  g_assert_cmpint (ctr_roi_set_get_background (set), ==, -1);

  ctr_roi_set_set_mu_water (set, 0.021, TRUE);
  g_assert_cmpfloat (ctr_roi_set_get_mu_water (set, &calibrated), ==, 0.021);
  g_assert_true (calibrated);
  ctr_roi_set_set_mu_water (set, NAN, TRUE);
  g_assert_cmpfloat (ctr_roi_set_get_mu_water (set, &calibrated), ==, CTR_MU_WATER_PER_MM);
  g_assert_false (calibrated);
  {
    g_autofree char *text = ctr_roi_set_describe_mu_water (set);
    g_assert_cmpstr (text, ==, "μ_water 0.0192/mm (default)");
  }
}

static void
test_table (void)
{
  g_autoptr(CtrRoiSet) set = ctr_roi_set_new ();
  CtrVolume *v = phantom ();
  CtrDataset d = { .name = "phantom", .path = "/nowhere/geometry.json", .reference = v };
  CtrRoi disc = ctr_roi_circle (5, 5, 4), bg = ctr_roi_rectangle (-8, -8, 6, 4), tiny = ctr_roi_circle (30.1, 30.1, 0.1);
  g_autoptr(GPtrArray) rows = NULL;
  double m0, s0, m1, s1;
  guint n0, n1;

  ctr_roi_set_add (set, &disc);
  ctr_roi_set_add (set, &bg);
  ctr_roi_set_add (set, &tiny);   /* outside the image: no statistics, no crash */
  ctr_roi_set_set_background (set, 1);
  ctr_roi_set_set_mu_water (set, 0.02, TRUE);
  rows = ctr_roi_table_measure (set, NULL, &d);
  g_assert_cmpuint (rows->len, ==, 3);

  direct_stats (v, &disc, &m0, &s0, &n0);
  direct_stats (v, &bg, &m1, &s1, &n1);
  {
    CtrRoiRow *r0 = rows->pdata[0], *r1 = rows->pdata[1], *r2 = rows->pdata[2];
    g_assert_cmpstr (r0->image, ==, "reference");
    g_assert_true (r0->ok && r1->ok && !r2->ok && r2->error != NULL);
    g_assert_cmpuint (r0->stats.n_pixels, ==, n0);
    g_assert_cmpuint (r1->stats.n_pixels, ==, n1);
    g_assert_cmpfloat_with_epsilon (r0->stats.mean_mu, m0, 1e-12);
    g_assert_cmpfloat_with_epsilon (r1->stats.sd_mu, s1, 1e-12);
    g_assert_cmpfloat_with_epsilon (r0->stats.mean_hu, 1000 * (m0 - 0.02) / 0.02, 1e-9);
    /* CNR in HU: |Δmean| / SD(background), the μ_water cancels */
    g_assert_cmpfloat_with_epsilon (r0->cnr, fabs (m0 - m1) / s1, 1e-9 * fabs (m0 - m1) / s1);
    g_assert_true (isnan (r1->cnr) && r1->background);
    g_assert_true (isnan (r2->cnr));
  }

  /* the CSV: quoted names, numbers read back, a missing statistic empty */
  {
    g_autofree char *path = g_build_filename (tmp_dir, "roi.csv", NULL);
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    CtrRoiRow *r0 = rows->pdata[0];
    GError *error = NULL;

    g_free (r0->image);
    r0->image = g_strdup ("FBP, \"soft\"");
    g_assert_true (ctr_roi_table_write_csv (rows, 0.02, TRUE, path, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    lines = g_strsplit (text, "\n", -1);
    g_assert_cmpuint (g_strv_length (lines), ==, 5);   /* header, 3 rows, "" */
    g_assert_true (g_str_has_prefix (lines[1], "\"FBP, \"\"soft\"\"\",ROI 1,circle,5,5,8,8,"));
    {
      g_auto(GStrv) f = g_strsplit (strstr (lines[1], ",ROI 1") + 1, ",", -1);
      g_assert_cmpuint (g_ascii_strtoull (f[6], NULL, 10), ==, n0);
      g_assert_cmpfloat_with_epsilon (g_ascii_strtod (f[9], NULL), m0, 1e-10 * m0);
      g_assert_cmpstr (f[13], ==, "0.02");
      g_assert_cmpstr (f[14], ==, "yes");
    }
    g_assert_true (g_str_has_prefix (lines[3], "reference,ROI 3,circle,30.1,30.1,0.2,0.2,,,,,,,no,0.02,yes"));
    /* a folder that is not there: an error, no crash */
    g_assert_false (ctr_roi_table_write_csv (rows, 0.02, TRUE, "/nonexistent/dir/roi.csv", &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
  g_assert_true (ctr_roi_water_suspect (v, CTR_MU_WATER_PER_MM / 2, NULL));   /* the object reads ~ +1,100 HU */
  g_assert_false (ctr_roi_water_suspect (v, 0.021, NULL));
  ctr_volume_unref (v);
}

static void
test_water_store (void)
{
  const char *odd = "/data/scan [1]=x;y#z/geometry.json", *other = "/data/other/geometry.json";
  g_autofree char *file = g_build_filename (g_get_user_state_dir (), "ctrecon", "water-calibration.ini", NULL);
  GError *error = NULL;
  double mu = 0;

  g_assert_true (g_str_has_prefix (file, tmp_dir));
  g_assert_false (ctr_water_store_lookup (odd, &mu));
  g_assert_true (ctr_water_store_save (odd, 0.0364473, &error));
  g_assert_no_error (error);
  g_assert_true (ctr_water_store_save (other, 0.019, &error));
  g_assert_true (ctr_water_store_lookup (odd, &mu));
  g_assert_cmpfloat (mu, ==, 0.0364473);
  g_assert_true (ctr_water_store_save (odd, 0, &error));   /* forget */
  g_assert_false (ctr_water_store_lookup (odd, &mu));
  g_assert_true (ctr_water_store_lookup (other, &mu));
  g_assert_cmpfloat (mu, ==, 0.019);
  /* a damaged file: nothing found, and a new calibration replaces it */
  g_assert_true (g_file_set_contents (file, "[\x01 not a key file", -1, NULL));
  g_assert_false (ctr_water_store_lookup (other, &mu));
  g_assert_true (ctr_water_store_save (other, 0.02, &error));
  g_assert_no_error (error);
  g_assert_true (ctr_water_store_lookup (other, &mu));
  g_assert_cmpfloat (mu, ==, 0.02);
}

/* ROIs belong to the dataset they were drawn on (issue 31, item 8: they
 * were carried by mm position onto unrelated datasets). */
static void
count_changes (GListModel *m, guint pos, guint removed, guint added, guint *calls)
{
  (*calls)++;
}

static void
test_dataset (void)
{
  g_autoptr(CtrRoiSet) set = ctr_roi_set_new ();
  CtrRoi a = ctr_roi_circle (1, 2, 3), b = ctr_roi_circle (-4, 5, 6), c = ctr_roi_circle (7, 8, 2);
  const double ruler[4] = { 0, 0, 10, 0 };
  double got[4];
  guint calls = 0;

  ctr_roi_set_add (set, &a);
  ctr_roi_set_set_dataset (set, "/data/head/geometry.json");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (set)), ==, 1);   /* the first keeps them */
  ctr_roi_set_add (set, &b);
  ctr_roi_set_set_background (set, 1);
  ctr_roi_set_set_ruler (set, ruler);
  g_signal_connect (set, "items-changed", G_CALLBACK (count_changes), &calls);

  ctr_roi_set_set_dataset (set, "/data/head/geometry.json");   /* a dose variant: the same path */
  g_assert_cmpuint (calls, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (set)), ==, 2);

  ctr_roi_set_set_dataset (set, "/data/gel/geometry.json");
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (set)), ==, 0);
  g_assert_false (ctr_roi_set_get_ruler (set, got));
  g_assert_cmpint (ctr_roi_set_get_background (set), ==, -1);
  ctr_roi_set_add (set, &c);
  g_autoptr(CtrRoiItem) first = g_list_model_get_item (G_LIST_MODEL (set), 0);
  g_assert_cmpstr (ctr_roi_item_get_name (first), ==, "ROI 1");

  ctr_roi_set_set_dataset (set, "/data/head/geometry.json");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (set)), ==, 2);
  g_autoptr(CtrRoiItem) back0 = g_list_model_get_item (G_LIST_MODEL (set), 0);
  g_autoptr(CtrRoiItem) back1 = g_list_model_get_item (G_LIST_MODEL (set), 1);
  g_assert_cmpstr (ctr_roi_item_get_name (back0), ==, "ROI 1");
  g_assert_cmpstr (ctr_roi_item_get_name (back1), ==, "ROI 2");
  g_assert_true (memcmp (ctr_roi_item_get_roi (back1), &b, sizeof b) == 0);
  g_assert_cmpint (ctr_roi_set_get_background (set), ==, 1);
  g_assert_true (ctr_roi_set_get_ruler (set, got) && got[2] == 10);
  ctr_roi_set_add (set, &c);   /* numbered after the head's own */
  g_autoptr(CtrRoiItem) third = g_list_model_get_item (G_LIST_MODEL (set), 2);
  g_assert_cmpstr (ctr_roi_item_get_name (third), ==, "ROI 3");

  ctr_roi_set_set_dataset (set, "/data/gel/geometry.json");   /* the gel's one ROI comes back */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (set)), ==, 1);
  g_autoptr(CtrRoiItem) gel = g_list_model_get_item (G_LIST_MODEL (set), 0);
  g_assert_true (memcmp (ctr_roi_item_get_roi (gel), &c, sizeof c) == 0);
}

int
main (int argc, char **argv)
{
  int status;

  tmp_dir = g_dir_make_tmp ("ctrecon-roi-model-XXXXXX", NULL);
  g_setenv ("XDG_STATE_HOME", tmp_dir, TRUE);   /* before GLib reads it */
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/roi/set", test_set);
  g_test_add_func ("/ui/roi/dataset", test_dataset);
  g_test_add_func ("/ui/roi/table", test_table);
  g_test_add_func ("/ui/roi/water-store", test_water_store);
  status = g_test_run ();
  {
    g_autofree char *csv = g_build_filename (tmp_dir, "roi.csv", NULL);
    g_autofree char *dir = g_build_filename (tmp_dir, "ctrecon", NULL);
    g_autofree char *ini = g_build_filename (dir, "water-calibration.ini", NULL);
    g_remove (csv);
    g_remove (ini);
    g_rmdir (dir);
    g_rmdir (tmp_dir);
  }
  return status;
}
