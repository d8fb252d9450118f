/* test-dataset-part.c — a part of a dataset's projections
 * (ctr_dataset_load_part, ctr_tiff_read_part): the rows or views of the
 * whole read, bit for bit, from only the strips and tiles that hold them,
 * in every TIFF layout; the claims check's samples of parts that cover the
 * scan once are the whole read's; a pipeline falls back to the whole read;
 * a part outside the scan is refused.  The files are written by libtiff
 * directly (strips of 3 lines, tiles of 16 × 16), not by the code under
 * test.
 */
#include "io/ctr-tiff.h"
#include "io/ctr-dataset.h"
#include "base/ctr-error.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <tiffio.h>

#define NV 6
#define NR 40
#define NC 32

static char *tmp_dir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* Counts of view v, row r, column c: smooth, below the flat. */
static guint16
count_at (guint v, guint r, guint c)
{
  return (guint16) (2000 + 37 * v + 11 * r + 5 * c + (r * c + v) % 17);
}

/* uint16 pages of @h × @w (@img: pages × h × w) in strips of 3 lines, or
 * tiles of 16 × 16 when @tiled; deflate when @deflate. */
static void
write_u16 (const char *path, const guint16 *img, guint w, guint h, guint pages, gboolean tiled, gboolean deflate)
{
  TIFF *tif = TIFFOpen (path, "w");
  g_assert_nonnull (tif);
  for (guint p = 0; p < pages; p++)
    {
      const guint16 *page = img + (gsize) p * w * h;
      TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (guint32) w);
      TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (guint32) h);
      TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (guint16) 16);
      TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (guint16) 1);
      TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, (guint16) SAMPLEFORMAT_UINT);
      TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_MINISBLACK);
      TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (guint16) PLANARCONFIG_CONTIG);
      TIFFSetField (tif, TIFFTAG_COMPRESSION, (guint16) (deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE));
      if (tiled)
        {
          TIFFSetField (tif, TIFFTAG_TILEWIDTH, (guint32) 16);
          TIFFSetField (tif, TIFFTAG_TILELENGTH, (guint32) 16);
          guint16 buf[16 * 16];
          for (guint y0 = 0; y0 < h; y0 += 16)
            for (guint x0 = 0; x0 < w; x0 += 16)
              {
                memset (buf, 0, sizeof buf);
                for (guint y = y0; y < MIN (h, y0 + 16); y++)
                  memcpy (buf + (y - y0) * 16, page + (gsize) y * w + x0, MIN (16, w - x0) * sizeof (guint16));
                g_assert_cmpint (TIFFWriteTile (tif, buf, x0, y0, 0, 0), >, 0);
              }
        }
      else
        {
          TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, (guint32) 3);
          for (guint y = 0; y < h; y++)
            g_assert_cmpint (TIFFWriteScanline (tif, (void *) (page + (gsize) y * w), y, 0), ==, 1);
        }
      g_assert_true (TIFFWriteDirectory (tif));
    }
  TIFFClose (tif);
}

/* The dataset in @layout ("sinogram", "view_pages", "one_file_per_view"),
 * counts with a flat (three dead pixels) and a dark; @preprocess: a
 * pipeline step ("outliers") or NULL.  Returns the JSON's path. */
static char *
write_dataset (const char *layout, const char *preprocess)
{
  g_autofree guint16 *views = g_new (guint16, NV * NR * NC), *sino = g_new (guint16, NV * NR * NC);
  for (guint v = 0; v < NV; v++)
    for (guint r = 0; r < NR; r++)
      for (guint c = 0; c < NC; c++)
        views[((gsize) v * NR + r) * NC + c] = sino[((gsize) r * NV + v) * NC + c] = count_at (v, r, c);
  guint16 flat[NR * NC], dark[NR * NC];
  for (guint i = 0; i < NR * NC; i++)
    {
      flat[i] = 4000;
      dark[i] = 100;
    }
  flat[5 * NC + 3] = flat[22 * NC + 30] = flat[39 * NC + 0] = 50;   /* flat − dark ≤ 0 */
  g_autofree char *flat_path = tmp_path ("flat.tif"), *dark_path = tmp_path ("dark.tif");
  write_u16 (flat_path, flat, NC, NR, 1, FALSE, FALSE);
  write_u16 (dark_path, dark, NC, NR, 1, FALSE, FALSE);

  g_autoptr (GString) spec = g_string_new (NULL);
  if (g_str_equal (layout, "one_file_per_view"))
    {
      for (guint v = 0; v < NV; v++)
        {
          g_autofree char *name = g_strdup_printf ("view_%02u.tif", v);
          g_autofree char *file = tmp_path (name);
          write_u16 (file, views + (gsize) v * NR * NC, NC, NR, 1, TRUE, TRUE);
        }
      g_string_printf (spec, "{\"layout\": \"one_file_per_view\", \"pattern\": \"view_%%02d.tif\"}");
    }
  else
    {
      const gboolean s = g_str_equal (layout, "sinogram");
      g_autofree char *file = tmp_path (s ? "sino.tif" : "pages.tif");
      write_u16 (file, s ? sino : views, NC, s ? NV : NR, s ? NR : NV, FALSE, !s);
      g_string_printf (spec, "{\"layout\": \"%s\", \"file\": \"%s\"}", layout, s ? "sino.tif" : "pages.tif");
    }
  g_autofree char *text = g_strdup_printf (
    "{\"name\": \"part\", \"type\": \"cone\", \"detector_shape\": \"flat\", \"kind\": \"counts\", \"views\": %d, \"detector_rows\": %d, "
    "\"detector_cols\": %d, \"source_to_isocenter_mm\": 500, \"source_to_detector_mm\": 800, "
    "\"detector_pitch_u_mm\": 1, \"detector_pitch_v_mm\": 1, \"angle_start_rad\": 0, \"angle_step_rad\": 1, "
    "\"flat\": \"flat.tif\", \"dark\": \"dark.tif\", \"projections\": %s%s%s%s}",
    NV, NR, NC, spec->str, preprocess ? ", \"preprocess\": [{\"op\": \"" : "", preprocess ? preprocess : "",
    preprocess ? "\"}]" : "");
  g_autofree char *name = g_strdup_printf ("%s%s.json", layout, preprocess ? "-pre" : "");
  char *path = tmp_path (name);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static CtrDataset *
load (const char *path, const CtrDatasetPart *part)
{
  g_autoptr (GError) error = NULL;
  CtrDataset *d = ctr_dataset_load_part (path, NULL, NULL, part, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  return d;
}

/* @d's projections are @part of @w's, bit for bit (mask and flat too). */
static void
assert_part_of (const CtrDataset *d, const CtrDataset *w, const CtrDatasetPart *part)
{
  const CtrProjections *p = d->projections, *q = w->projections;
  const gboolean rows = part->axis == CTR_DATASET_ROWS;
  g_assert_cmpuint (p->n_views, ==, rows ? NV : part->count);
  g_assert_cmpuint (p->n_rows, ==, rows ? part->count : NR);
  g_assert_cmpuint (p->n_cols, ==, NC);
  for (guint v = 0; v < p->n_views; v++)
    for (guint r = 0; r < p->n_rows; r++)
      {
        const guint wv = rows ? v : v + part->first, wr = rows ? r + part->first : r;
        g_assert_cmpmem (ctr_projections_view (p, v) + (gsize) r * NC, NC * sizeof (float),
                         ctr_projections_view (q, wv) + (gsize) wr * NC, NC * sizeof (float));
        g_assert_nonnull (p->mask);
        g_assert_cmpmem (p->mask + (gsize) r * NC, NC, q->mask + (gsize) wr * NC, NC);
      }
}

static int
cmp_float (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

static void
test_layouts (void)
{
  const char *layouts[] = { "sinogram", "view_pages", "one_file_per_view" };
  const CtrDatasetPart parts[] = { { CTR_DATASET_ROWS, 13, 10 }, { CTR_DATASET_ROWS, 0, NR },
                                   { CTR_DATASET_VIEWS, 2, 3 }, { CTR_DATASET_VIEWS, 5, 1 } };
  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++)
    {
      g_autofree char *path = write_dataset (layouts[l], NULL);
      g_autoptr (CtrDataset) w = load (path, NULL);
      g_assert_false (w->partial);
      g_assert_cmpuint (w->bytes_read, >, 0);
      for (guint k = 0; k < G_N_ELEMENTS (parts); k++)
        {
          g_autoptr (CtrDataset) d = load (path, &parts[k]);
          g_assert_true (d->partial && d->split && d->claims_pending);
          assert_part_of (d, w, &parts[k]);
          g_assert_cmpfloat (d->masked_fraction, ==, 3.0 / (NR * NC));
          g_assert_nonnull (strstr (d->read_note, parts[k].axis == CTR_DATASET_ROWS ? "read rows" : "read views"));
          /* fewer bytes than the whole, unless the part is all rows, or
           * views of a sinogram whose pages are read across every view */
          const gboolean all = parts[k].count == NR || (parts[k].axis == CTR_DATASET_VIEWS
                                                         && g_str_equal (layouts[l], "sinogram"));
          if (!all)
            g_assert_cmpuint (d->bytes_read, <, w->bytes_read);
          g_assert_cmpuint (d->bytes_read, <=, w->bytes_read);
        }
    }
}

/* The claims check's samples of two parts that cover the scan once, put
 * together, are the whole read's sample (as a multiset). */
static void
test_claims_sample (void)
{
  g_autofree char *path = write_dataset ("sinogram", NULL);
  g_autoptr (CtrDataset) w = load (path, NULL);
  gsize n = 0;
  g_autofree float *whole = ctr_dataset_claims_sample (w, 0, G_MAXUINT, &n);
  g_assert_cmpuint (n, ==, NV * NR * NC - NV * 3);   /* every sample but the masked pixels' */
  for (int axis = 0; axis < 2; axis++)
    {
      const guint n_along = axis == CTR_DATASET_ROWS ? NR : NV, cut = n_along / 2 + 1;
      /* overlapping parts (as cone slabs with halos), each sampling what it alone holds */
      const CtrDatasetPart a = { axis, 0, cut + 1 }, b = { axis, cut - 1, n_along - cut + 1 };
      g_autoptr (CtrDataset) da = load (path, &a), db = load (path, &b);
      gsize na = 0, nb = 0;
      g_autofree float *sa = ctr_dataset_claims_sample (da, 0, cut + 1, &na);
      g_autofree float *sb = ctr_dataset_claims_sample (db, cut + 1, n_along - cut - 1, &nb);
      g_assert_cmpuint (na + nb, ==, n);
      g_autofree float *both = g_new (float, n);
      memcpy (both, sa, na * sizeof (float));
      memcpy (both + na, sb, nb * sizeof (float));
      qsort (both, n, sizeof (float), cmp_float);
      qsort (whole, n, sizeof (float), cmp_float);
      g_assert_cmpmem (both, n * sizeof (float), whole, n * sizeof (float));
    }
}

/* A pipeline step needs every row and view: the whole is read, corrected,
 * checked and cut; a part of count 0 reads no pixels; a part outside the
 * scan is refused. */
static void
test_fallback_and_bad (void)
{
  g_autofree char *path = write_dataset ("view_pages", "outliers");
  g_autoptr (CtrDataset) w = load (path, NULL);
  const CtrDatasetPart rows = { CTR_DATASET_ROWS, 7, 20 };
  g_autoptr (CtrDataset) d = load (path, &rows);
  g_assert_true (d->partial);
  g_assert_false (d->split || d->claims_pending);
  g_assert_cmpuint (d->bytes_read, ==, w->bytes_read);
  g_assert_nonnull (strstr (d->read_note, "read the whole dataset (the preprocessing pipeline"));
  assert_part_of (d, w, &rows);

  const CtrDatasetPart none = { CTR_DATASET_ROWS, 0, 0 };
  g_autoptr (CtrDataset) g = load (path, &none);
  g_assert_null (g->projections);
  g_assert_cmpuint (g->bytes_read, ==, 0);
  gboolean named = FALSE;
  for (guint i = 0; g->inputs[i] != NULL; i++)
    named |= g_str_has_suffix (g->inputs[i], "pages.tif");
  g_assert_true (named);

  const CtrDatasetPart outside[] = { { CTR_DATASET_ROWS, 35, 6 }, { CTR_DATASET_VIEWS, 0, NV + 1 } };
  g_autofree char *plain = write_dataset ("sinogram", NULL);
  for (guint k = 0; k < G_N_ELEMENTS (outside); k++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_null (ctr_dataset_load_part (plain, NULL, NULL, &outside[k], NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
    }
}

/* ctr_tiff_read_part on tiles and compressed strips: the lines and pages
 * of the whole read. */
static void
test_tiff_part (void)
{
  g_autofree guint16 *img = g_new (guint16, 3 * NR * NC);
  for (guint i = 0; i < 3 * NR * NC; i++)
    img[i] = (guint16) (i * 7 % 5003);
  for (int tiled = 0; tiled < 2; tiled++)
    {
      g_autofree char *path = tmp_path (tiled ? "t-tiled.tif" : "t-strips.tif");
      write_u16 (path, img, NC, NR, 3, tiled, TRUE);
      g_autoptr (GError) error = NULL;
      CtrTiffInfo info;
      g_autofree float *whole = ctr_tiff_read (path, &info, &error);
      g_assert_no_error (error);
      const CtrTiffRange pages = { 1, 2 }, lines = { 17, 9 };
      guint64 bytes = 0;
      g_autofree float *part = ctr_tiff_read_part (path, &pages, &lines, NULL, &bytes, &error);
      g_assert_no_error (error);
      for (guint p = 0; p < 2; p++)
        g_assert_cmpmem (part + (gsize) p * 9 * NC, 9 * NC * sizeof (float),
                         whole + ((gsize) (p + 1) * NR + 17) * NC, 9 * NC * sizeof (float));
      g_assert_cmpuint (bytes, >, 0);
      const CtrTiffRange bad = { 35, 6 };
      g_assert_null (ctr_tiff_read_part (path, NULL, &bad, NULL, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ctr-test-part-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  g_test_add_func ("/ctr/io/dataset-part/layouts", test_layouts);
  g_test_add_func ("/ctr/io/dataset-part/claims-sample", test_claims_sample);
  g_test_add_func ("/ctr/io/dataset-part/fallback-and-bad", test_fallback_and_bad);
  g_test_add_func ("/ctr/io/dataset-part/tiff", test_tiff_part);
  int rc = g_test_run ();
  GDir *dir = g_dir_open (tmp_dir, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = tmp_path (name);
      g_unlink (p);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
