/* test-io.c — TIFF I/O, geometry.json datasets, counts → line integrals.
 *
 * Temporary files live in a g_dir_make_tmp() folder that is removed at the
 * end.  Real-data cases are registered only when $CTR_SHARED_DATA exists.
 */
#include "io/ctr-tiff.h"
#include "io/ctr-dataset.h"
#include "base/ctr-error.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <tiffio.h>

static char *tmp_dir;       /* per-process scratch folder */
static const char *data_dir; /* $CTR_SHARED_DATA when it exists */

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      if (dir != NULL)
        g_dir_close (dir);
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static void
write_text (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static void
truncate_file (const char *path, gsize new_size)
{
  g_autofree char *contents = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (new_size, <, len);
  g_assert_true (g_file_set_contents (path, contents, new_size, NULL));
}

/* A TIFF written by libtiff directly (not by the code under test): @pages
 * pages of @h × @w samples of the given type, values[i] cast to the type,
 * strips of @rps lines, or tiles of @tile × @tile when @tile > 0. */
static void
write_raw_tiff (const char *path, guint w, guint h, guint pages, guint16 bps, guint16 fmt,
                guint rps, guint tile, guint16 compression, const double *values)
{
  TIFF *tif = TIFFOpen (path, "w");
  g_assert_nonnull (tif);
  const gsize bytes = bps / 8;
  for (guint p = 0; p < pages; p++)
    {
      TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (guint32) w);
      TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (guint32) h);
      TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, bps);
      TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (guint16) 1);
      TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, fmt);
      TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_MINISBLACK);
      TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (guint16) PLANARCONFIG_CONTIG);
      TIFFSetField (tif, TIFFTAG_COMPRESSION, compression);
      /* the sample as stored */
      g_autofree guint8 *img = g_malloc0 ((gsize) w * h * bytes);
      for (gsize i = 0; i < (gsize) w * h; i++)
        {
          double v = values[p * (gsize) w * h + i];
          guint8 *dst = img + i * bytes;
          switch (fmt * 100 + bps)
            {
            case 108: { guint8 x = (guint8) v; memcpy (dst, &x, 1); break; }
            case 208: { gint8 x = (gint8) v; memcpy (dst, &x, 1); break; }
            case 116: { guint16 x = (guint16) v; memcpy (dst, &x, 2); break; }
            case 216: { gint16 x = (gint16) v; memcpy (dst, &x, 2); break; }
            case 132: { guint32 x = (guint32) v; memcpy (dst, &x, 4); break; }
            case 232: { gint32 x = (gint32) v; memcpy (dst, &x, 4); break; }
            case 332: { float x = (float) v; memcpy (dst, &x, 4); break; }
            case 364: { double x = v; memcpy (dst, &x, 8); break; }
            default: g_assert_not_reached ();
            }
        }
      if (tile > 0)
        {
          TIFFSetField (tif, TIFFTAG_TILEWIDTH, (guint32) tile);
          TIFFSetField (tif, TIFFTAG_TILELENGTH, (guint32) tile);
          g_autofree guint8 *buf = g_malloc0 ((gsize) tile * tile * bytes);
          for (guint y0 = 0; y0 < h; y0 += tile)
            for (guint x0 = 0; x0 < w; x0 += tile)
              {
                memset (buf, 0, (gsize) tile * tile * bytes);
                for (guint y = y0; y < MIN (h, y0 + tile); y++)
                  memcpy (buf + ((gsize) (y - y0) * tile) * bytes, img + ((gsize) y * w + x0) * bytes,
                          MIN (tile, w - x0) * bytes);
                g_assert_cmpint (TIFFWriteTile (tif, buf, x0, y0, 0, 0), >, 0);
              }
        }
      else
        {
          TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, (guint32) rps);
          for (guint y = 0; y < h; y++)
            g_assert_cmpint (TIFFWriteScanline (tif, img + (gsize) y * w * bytes, y, 0), ==, 1);
        }
      g_assert_true (TIFFWriteDirectory (tif));
    }
  TIFFClose (tif);
}

static void
write_float_tiff (const char *path, const float *data, guint w, guint h, guint pages)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_tiff_write_float (path, data, w, h, pages, &error));
  g_assert_no_error (error);
}

static gboolean
has_temp_files (const char *dir_path)
{
  GDir *dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  gboolean found = FALSE;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (name[0] == '.')
      found = TRUE;
  if (dir != NULL)
    g_dir_close (dir);
  return found;
}

/* ------------------------------------------------------------------------ */
/* TIFF                                                                      */

static void
test_tiff_roundtrip_float (void)
{
  const guint w = 7, h = 5, pages = 3;
  g_autofree float *data = g_new (float, w * h * pages);
  for (guint i = 0; i < w * h * pages; i++)
    data[i] = (float) (sin (i * 0.37) * pow (10.0, (int) (i % 9) - 4));
  data[0] = -0.0f;
  data[1] = 1e-42f;   /* denormal */
  data[2] = 3.4e38f;
  data[3] = -INFINITY; /* the writer stores any float */
  g_autofree char *path = tmp_path ("roundtrip.tif");
  write_float_tiff (path, data, w, h, pages);

  g_autoptr (GError) error = NULL;
  CtrTiffInfo info;
  g_assert_true (ctr_tiff_probe (path, &info, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (info.width, ==, w);
  g_assert_cmpuint (info.height, ==, h);
  g_assert_cmpuint (info.pages, ==, pages);
  g_assert_cmpuint (info.bits_per_sample, ==, 32);
  g_assert_cmpuint (info.sample_format, ==, 3);

  g_autofree float *back = ctr_tiff_read (path, &info, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  g_assert_cmpmem (back, w * h * pages * sizeof (float), data, w * h * pages * sizeof (float));

  float page[7 * 5];
  g_assert_true (ctr_tiff_read_page (path, 2, w, h, page, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (page, sizeof page, data + 2 * w * h, sizeof page);

  g_assert_false (ctr_tiff_read_page (path, 3, w, h, page, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);
  g_assert_false (ctr_tiff_read_page (path, 0, h, w, page, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "expected 7 × 5"));
  g_clear_error (&error);

  /* Overwriting an existing file works and leaves no temporary behind. */
  data[5] = 42.0f;
  write_float_tiff (path, data, w, h, pages);
  g_autofree float *again = ctr_tiff_read (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (again[5], ==, 42.0f);
  g_assert_false (has_temp_files (tmp_dir));
}

typedef struct {
  guint16 bps, fmt;
  guint tile;
  guint16 compression;
  double lo, hi;
} RawCase;

static void
test_tiff_read_types (void)
{
  const RawCase cases[] = {
    { 16, SAMPLEFORMAT_UINT, 0, COMPRESSION_NONE, 0, 65535 },
    { 16, SAMPLEFORMAT_UINT, 0, COMPRESSION_ADOBE_DEFLATE, 0, 65535 },
    { 16, SAMPLEFORMAT_UINT, 16, COMPRESSION_NONE, 0, 65535 },
    { 8, SAMPLEFORMAT_UINT, 0, COMPRESSION_LZW, 0, 255 },
    { 8, SAMPLEFORMAT_INT, 0, COMPRESSION_NONE, -128, 127 },
    { 16, SAMPLEFORMAT_INT, 16, COMPRESSION_ADOBE_DEFLATE, -32768, 32767 },
    { 32, SAMPLEFORMAT_UINT, 0, COMPRESSION_NONE, 0, 16777216 },
    { 32, SAMPLEFORMAT_INT, 0, COMPRESSION_NONE, -16777216, 16777216 },
    { 32, SAMPLEFORMAT_IEEEFP, 32, COMPRESSION_NONE, -1e6, 1e6 },
    { 64, SAMPLEFORMAT_IEEEFP, 0, COMPRESSION_ADOBE_DEFLATE, -1e6, 1e6 },
  };
  const guint w = 37, h = 21, pages = 2;  /* not multiples of the tile size */
  g_autofree double *values = g_new (double, w * h * pages);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const RawCase *rc = &cases[c];
      for (guint i = 0; i < w * h * pages; i++)
        {
          double t = fmod (i * 0.6180339887, 1.0);
          values[i] = rc->fmt == SAMPLEFORMAT_IEEEFP ? rc->lo + t * (rc->hi - rc->lo)
                                                     : floor (rc->lo + t * (rc->hi - rc->lo + 1));
        }
      values[0] = rc->lo;
      values[1] = rc->hi;
      g_autofree char *name = g_strdup_printf ("raw-%u.tif", c);
      g_autofree char *path = tmp_path (name);
      write_raw_tiff (path, w, h, pages, rc->bps, rc->fmt, 4, rc->tile, rc->compression, values);

      g_autoptr (GError) error = NULL;
      CtrTiffInfo info;
      g_autofree float *back = ctr_tiff_read (path, &info, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (info.width, ==, w);
      g_assert_cmpuint (info.height, ==, h);
      g_assert_cmpuint (info.pages, ==, pages);
      g_assert_cmpuint (info.bits_per_sample, ==, rc->bps);
      g_assert_cmpuint (info.sample_format, ==, rc->fmt);
      for (guint i = 0; i < w * h * pages; i++)
        if (back[i] != (float) values[i])
          g_error ("case %u (%u-bit, format %u, tile %u): sample %u is %g, expected %g",
                   c, rc->bps, rc->fmt, rc->tile, i, back[i], values[i]);

      g_autofree float *page = g_new (float, w * h);
      g_assert_true (ctr_tiff_read_page (path, 1, w, h, page, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (page, w * h * sizeof (float), back + w * h, w * h * sizeof (float));
    }
}

static void
test_tiff_bad_pages (void)
{
  g_autofree char *path = tmp_path ("pages.tif");
  g_autoptr (GError) error = NULL;
  TIFF *tif = TIFFOpen (path, "w");
  for (guint p = 0; p < 2; p++)
    {
      guint32 w = p == 0 ? 4 : 5, h = 3;
      TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, w);
      TIFFSetField (tif, TIFFTAG_IMAGELENGTH, h);
      TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (guint16) 16);
      TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (guint16) 1);
      TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_MINISBLACK);
      TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, h);
      guint16 line[5] = { 1, 2, 3, 4, 5 };
      for (guint y = 0; y < h; y++)
        TIFFWriteScanline (tif, line, y, 0);
      TIFFWriteDirectory (tif);
    }
  TIFFClose (tif);
  g_assert_null (ctr_tiff_read (path, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "same size"));
  g_clear_error (&error);
  g_assert_false (ctr_tiff_probe (path, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);

  /* RGB: more than one sample per pixel. */
  g_autofree char *rgb = tmp_path ("rgb.tif");
  tif = TIFFOpen (rgb, "w");
  TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (guint32) 2);
  TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (guint32) 2);
  TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (guint16) 8);
  TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (guint16) 3);
  TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_RGB);
  TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (guint16) PLANARCONFIG_CONTIG);
  guint8 px[6] = { 0 };
  TIFFWriteScanline (tif, px, 0, 0);
  TIFFWriteScanline (tif, px, 1, 0);
  TIFFClose (tif);
  g_assert_null (ctr_tiff_read (rgb, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "samples per pixel"));
}

static void
test_tiff_missing (void)
{
  g_autofree char *path = tmp_path ("does-not-exist.tif");
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_tiff_read (path, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  g_assert_false (ctr_tiff_probe (path, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  float out[4];
  g_assert_false (ctr_tiff_read_page (path, 0, 2, 2, out, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  g_assert_null (ctr_tiff_read (tmp_dir, NULL, &error));  /* a folder */
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
}

static void
test_tiff_not_tiff (void)
{
  const char *contents[] = { "", "hello, world\n", "II*\0", "MM\0*\0\0\0\x08garbage" };
  const gsize lengths[] = { 0, 13, 4, 15 };
  for (guint i = 0; i < G_N_ELEMENTS (contents); i++)
    {
      g_autofree char *path = tmp_path ("not.tif");
      g_assert_true (g_file_set_contents (path, contents[i], lengths[i], NULL));
      g_autoptr (GError) error = NULL;
      g_assert_null (ctr_tiff_read (path, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, path));
    }
}

/* A hand-made little-endian TIFF whose one strip points past the end of the
 * file: the IFD is intact, the pixel data is cut short. */
static void
write_short_strip_tiff (const char *path, guint w, guint h)
{
  const guint16 n = 9;
  const guint32 data_off = 8 + 2 + n * 12 + 4;
  GByteArray *b = g_byte_array_new ();
  const guint8 hdr[8] = { 'I', 'I', 42, 0, 8, 0, 0, 0 };
  g_byte_array_append (b, hdr, 8);
  g_byte_array_append (b, (const guint8 *) &n, 2);
  struct { guint16 tag, type; guint32 count, value; } e[9] = {
    { 256, 4, 1, w },            /* ImageWidth */
    { 257, 4, 1, h },            /* ImageLength */
    { 258, 3, 1, 32 },           /* BitsPerSample */
    { 259, 3, 1, 1 },            /* Compression none */
    { 262, 3, 1, 1 },            /* Photometric min-is-black */
    { 273, 4, 1, data_off },     /* StripOffsets */
    { 278, 4, 1, h },            /* RowsPerStrip */
    { 279, 4, 1, w * h * 4 },    /* StripByteCounts */
    { 339, 3, 1, 3 },            /* SampleFormat IEEE */
  };
  for (guint i = 0; i < n; i++)
    {
      g_byte_array_append (b, (const guint8 *) &e[i].tag, 2);
      g_byte_array_append (b, (const guint8 *) &e[i].type, 2);
      g_byte_array_append (b, (const guint8 *) &e[i].count, 4);
      g_byte_array_append (b, (const guint8 *) &e[i].value, 4);
    }
  const guint32 next = 0;
  g_byte_array_append (b, (const guint8 *) &next, 4);
  for (guint i = 0; i < w * h / 2; i++)   /* half of the pixels */
    {
      float v = i;
      g_byte_array_append (b, (const guint8 *) &v, 4);
    }
  g_assert_true (g_file_set_contents (path, (const char *) b->data, b->len, NULL));
  g_byte_array_unref (b);
}

static void
test_tiff_truncated (void)
{
  const guint w = 64, h = 32, pages = 3;
  g_autofree float *data = g_new (float, w * h * pages);
  for (guint i = 0; i < w * h * pages; i++)
    data[i] = (float) i;
  g_autofree char *path = tmp_path ("truncated.tif");
  g_autoptr (GError) error = NULL;

  gsize sizes[] = { 8, 100, 0 /* set below: inside the last page */ };
  write_float_tiff (path, data, w, h, pages);
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  sizes[2] = st.st_size - 20;
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      write_float_tiff (path, data, w, h, pages);
      truncate_file (path, sizes[i]);
      g_assert_null (ctr_tiff_read (path, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, path));
      /* cut inside the pixels: said in words, not libtiff's "Read error
       * at scanline 4294967295" */
      if (i == 2)
        {
          g_test_message ("%s", error->message);
          g_assert_nonnull (strstr (error->message, "the file is truncated"));
          g_assert_null (strstr (error->message, "4294967295"));
        }
      g_clear_error (&error);
    }

  write_short_strip_tiff (path, w, h);
  CtrTiffInfo info;
  g_assert_true (ctr_tiff_probe (path, &info, &error));  /* the header is fine */
  g_assert_no_error (error);
  g_assert_cmpuint (info.width, ==, w);
  g_assert_null (ctr_tiff_read (path, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);
  g_autofree float *page = g_new (float, w * h);
  g_assert_false (ctr_tiff_read_page (path, 0, w, h, page, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
}

static void
test_tiff_atomic_write (void)
{
  const float original[4] = { 1, 2, 3, 4 }, other[4] = { 5, 6, 7, 8 };
  g_autofree char *dir = tmp_path ("atomic");
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_autofree char *path = g_build_filename (dir, "image.tif", NULL);
  write_float_tiff (path, original, 2, 2, 1);
  g_autofree char *before = NULL;
  gsize before_len = 0;
  g_assert_true (g_file_get_contents (path, &before, &before_len, NULL));
  g_autoptr (GError) error = NULL;

  /* A path in a missing folder: an I/O error naming the path. */
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "image.tif", NULL);
  g_assert_false (ctr_tiff_write_float (missing, other, 2, 2, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  /* The rename fails (the target is a non-empty folder): the temporary file
   * is removed and the folder untouched. */
  g_autofree char *folder = g_build_filename (dir, "folder.tif", NULL);
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  g_autofree char *inside = g_build_filename (folder, "keep", NULL);
  write_text (inside, "keep");
  g_assert_false (ctr_tiff_write_float (folder, other, 2, 2, 1, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_clear_error (&error);
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  g_assert_false (has_temp_files (dir));

  /* A folder we may not write to (meaningless for root, who may). */
  if (geteuid () != 0)
    {
      g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
      g_assert_false (ctr_tiff_write_float (path, other, 2, 2, 1, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
      g_clear_error (&error);
      g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
    }

  g_autofree char *after = NULL;
  gsize after_len = 0;
  g_assert_true (g_file_get_contents (path, &after, &after_len, NULL));
  g_assert_cmpmem (after, after_len, before, before_len);
  g_assert_false (has_temp_files (dir));
}

static void
test_tiff_volume (void)
{
  CtrGrid grid = { 4, 3, 2, 0.5, 0.5, 1.0, 0, 0, 0 };
  g_autoptr (CtrVolume) v = ctr_volume_new (&grid, NULL);
  for (gsize i = 0; i < ctr_grid_size (&grid); i++)
    v->data[i] = (float) i * 0.25f;
  g_autofree char *path = tmp_path ("volume.tif");
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_tiff_write_volume (path, v, &error));
  g_assert_no_error (error);
  CtrTiffInfo info;
  g_autofree float *back = ctr_tiff_read (path, &info, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info.width, ==, 4);
  g_assert_cmpuint (info.height, ==, 3);
  g_assert_cmpuint (info.pages, ==, 2);
  g_assert_cmpmem (back, 24 * sizeof (float), v->data, 24 * sizeof (float));
}

/* ------------------------------------------------------------------------ */
/* Preprocessing                                                             */

static void
test_preprocess_flat_dark (void)
{
  /* 2 views × 2 rows × 5 columns. */
  g_autoptr (CtrProjections) p = ctr_projections_new (2, 2, 5, CTR_PROJ_COUNTS, NULL);
  const float flat[10] = { 1000, 1000, 500, 1000, 1000,   10, 900, 900, 900, 1000 };
  const float dark[10] = { 10, 10, 10, 10, 10,            10, 20, 20, 20, 20 };
  const float raw[20] = { 500, 400, 300, 5, 1000,         0, 100, 200, 300, 400,
                          800, 700, 600, 500, 400,        0, 300, 600, 900, 1000 };
  p->flat = g_memdup2 (flat, sizeof flat);
  p->dark = g_memdup2 (dark, sizeof dark);
  memcpy (p->data, raw, sizeof raw);
  p->data[3] = 5;  /* I - dark < 0: the log safeguard */

  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_projections_to_line_integrals (p, &error));
  g_assert_no_error (error);
  g_assert_cmpint (p->kind, ==, CTR_PROJ_LINE_INTEGRALS);
  g_assert_nonnull (p->mask);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpint (p->mask[i], ==, i == 5 ? 0 : 1);  /* flat - dark = 0 at row 1, col 0 */

  for (guint v = 0; v < 2; v++)
    for (guint i = 0; i < 10; i++)
      {
        if (i == 5)
          continue;
        double num = raw[v * 10 + i] - dark[i];
        if (v == 0 && i == 3)
          num = 0.5;
        double want = -log (num / (flat[i] - dark[i]));
        g_assert_cmpfloat_with_epsilon (p->data[v * 10 + i], want, 1e-5 * MAX (1.0, fabs (want)));
      }
  /* the dead pixel at the start of its row takes its right neighbour's value */
  g_assert_cmpfloat (p->data[5], ==, p->data[6]);
  g_assert_cmpfloat (p->data[15], ==, p->data[16]);
  g_assert_true (ctr_projections_check_finite (p, NULL));
}

static void
test_preprocess_i0 (void)
{
  g_autoptr (CtrProjections) p = ctr_projections_new (3, 1, 4, CTR_PROJ_COUNTS, NULL);
  for (guint i = 0; i < 12; i++)
    p->data[i] = 100.0f * (i + 1);
  p->data[7] = 0;  /* no photon: clamped to half a count */
  p->i0 = 2000;
  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_projections_to_line_integrals (p, &error));
  g_assert_no_error (error);
  g_assert_null (p->mask);
  for (guint i = 0; i < 12; i++)
    {
      double want = -log ((i == 7 ? 0.5 : 100.0 * (i + 1)) / 2000.0);
      g_assert_cmpfloat_with_epsilon (p->data[i], want, 1e-5);
    }
  g_assert_cmpfloat (p->i0, ==, 2000);

  /* line integrals are left alone */
  g_autofree float *copy = g_memdup2 (p->data, 12 * sizeof (float));
  g_assert_true (ctr_projections_to_line_integrals (p, &error));
  g_assert_cmpmem (copy, 12 * sizeof (float), p->data, 12 * sizeof (float));
}

static void
test_preprocess_fill (void)
{
  /* 1 view × 3 rows × 7 columns; dead: a middle run, both ends, a row but
   * its first column (a whole dead row is refused: below). */
  g_autoptr (CtrProjections) p = ctr_projections_new (1, 3, 7, CTR_PROJ_COUNTS, NULL);
  const float e = (float) M_E;
  float flat[21];
  for (guint i = 0; i < 21; i++)
    flat[i] = 1.0f;
  const guint dead[] = { 2, 3, 4, 7, 13, 15, 16, 17, 18, 19, 20 };
  for (guint k = 0; k < G_N_ELEMENTS (dead); k++)
    flat[dead[k]] = 0.0f;
  flat[9] = NAN;  /* a non-finite flat is dead too */
  p->flat = g_memdup2 (flat, sizeof flat);
  /* row 0: line integrals 1, 2, ?, ?, ?, 6, 7 */
  for (guint j = 0; j < 7; j++)
    p->data[j] = powf (e, -(float) (j + 1));
  /* row 1: ?, 1, ?, 3, 4, 5, ? */
  for (guint j = 0; j < 7; j++)
    p->data[7 + j] = powf (e, -(float) j);
  for (guint j = 0; j < 7; j++)
    p->data[14 + j] = 1.0f;

  g_autoptr (GError) error = NULL;
  g_assert_true (ctr_projections_to_line_integrals (p, &error));
  g_assert_no_error (error);
  const float want[21] = { 1, 2, 3, 4, 5, 6, 7,
                           1, 1, 2, 3, 4, 5, 5,
                           0, 0, 0, 0, 0, 0, 0 };
  for (guint i = 0; i < 21; i++)
    g_assert_cmpfloat_with_epsilon (p->data[i], want[i], 1e-5);
  for (guint i = 0; i < 21; i++)
    g_assert_cmpint (p->mask[i], ==,
                     (i >= 2 && i <= 4) || i == 7 || i == 9 || (i >= 13 && i != 14) ? 0 : 1);
  g_assert_cmpfloat_with_epsilon (ctr_projections_masked_fraction (p), 12.0 / 21, 1e-9);

  /* A whole row without an open beam: its slice would be filled from
   * nothing (issue 38). */
  g_autoptr (CtrProjections) q = ctr_projections_new (1, 3, 7, CTR_PROJ_COUNTS, NULL);
  flat[14] = 0.0f;
  q->flat = g_memdup2 (flat, sizeof flat);
  for (guint i = 0; i < 21; i++)
    q->data[i] = 0.5f;
  g_assert_false (ctr_projections_to_line_integrals (q, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "detector row 2"));
}

static void
test_preprocess_bad (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrProjections) p = ctr_projections_new (2, 2, 3, CTR_PROJ_COUNTS, NULL);
  for (guint i = 0; i < 12; i++)
    p->data[i] = 10;
  /* neither flat nor I0 */
  g_assert_false (ctr_projections_to_line_integrals (p, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);

  p->i0 = 100;
  p->data[10] = NAN;
  g_assert_false (ctr_projections_check_finite (p, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "view 1, row 1, column 1"));
  g_clear_error (&error);
  g_assert_false (ctr_projections_to_line_integrals (p, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
  g_clear_error (&error);
  p->data[10] = INFINITY;
  g_assert_false (ctr_projections_check_finite (p, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
}

/* ------------------------------------------------------------------------ */
/* Datasets                                                                  */

enum { V = 8, R = 1, C = 6 };

/* A small valid fan-beam geometry.json whose sinogram is "sino.tif". */
static JsonObject *
base_geometry (void)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "name", "tiny");
  json_object_set_string_member (o, "type", "fan");
  json_object_set_string_member (o, "detector_shape", "flat");
  json_object_set_string_member (o, "kind", "line_integrals");
  json_object_set_int_member (o, "views", V);
  json_object_set_int_member (o, "detector_cols", C);
  json_object_set_int_member (o, "detector_rows", R);
  json_object_set_double_member (o, "source_to_isocenter_mm", 100.0);
  json_object_set_double_member (o, "source_to_detector_mm", 200.0);
  json_object_set_double_member (o, "detector_pitch_u_mm", 0.5);
  json_object_set_double_member (o, "detector_pitch_v_mm", 0.5);
  json_object_set_double_member (o, "detector_offset_u_mm", 0.25);
  json_object_set_string_member (o, "some_unknown_key", "ignored");
  JsonArray *a = json_array_new ();
  for (guint k = 0; k < V; k++)
    json_array_add_double_element (a, k * G_PI / 4);
  json_object_set_array_member (o, "angles_rad", a);
  JsonObject *proj = json_object_new ();
  json_object_set_string_member (proj, "layout", "sinogram");
  json_object_set_string_member (proj, "file", "sino.tif");
  json_object_set_object_member (o, "projections", proj);
  return o;
}

static JsonObject *
projections_of (JsonObject *o)
{
  return json_object_get_object_member (o, "projections");
}

static float sino_value (guint v, guint r, guint c) { return 0.01f * (v * 100 + r * 10 + c); }

/* Writes @o as <tmp>/@name.json and a matching sino.tif (V × C, R pages). */
static char *
write_dataset (JsonObject *o, const char *name)
{
  float sino[R * V * C];
  for (guint r = 0; r < R; r++)
    for (guint v = 0; v < V; v++)
      for (guint c = 0; c < C; c++)
        sino[(r * V + v) * C + c] = sino_value (v, r, c);
  g_autofree char *sino_path = tmp_path ("sino.tif");
  write_float_tiff (sino_path, sino, C, V, R);

  JsonNode *node = json_node_init_object (json_node_alloc (), o);
  g_autofree char *text = json_to_string (node, TRUE);
  json_node_unref (node);
  g_autofree char *file = g_strdup_printf ("%s.json", name);
  char *path = tmp_path (file);
  write_text (path, text);
  return path;
}

static void
expect_load_error (JsonObject *o, GQuark domain, gint code, const char *in_message)
{
  g_autofree char *path = write_dataset (o, "bad");
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_null (d);
  g_assert_error (error, domain, code);
  g_assert_nonnull (strstr (error->message, path));
  if (in_message != NULL && strstr (error->message, in_message) == NULL)
    g_error ("error message “%s” does not mention “%s”", error->message, in_message);
  json_object_unref (o);
}

static void
test_dataset_good (void)
{
  JsonObject *o = base_geometry ();
  g_autofree char *path = write_dataset (o, "good");
  json_object_unref (o);
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  g_assert_cmpstr (d->name, ==, "tiny");
  g_assert_true (g_path_is_absolute (d->path));
  g_assert_null (d->reference);
  g_assert_null (d->variants);
  g_assert_null (d->variant);
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_FLAT);
  g_assert_cmpuint (g->n_views, ==, V);
  g_assert_cmpuint (g->n_rows, ==, R);
  g_assert_cmpuint (g->n_cols, ==, C);
  g_assert_cmpfloat (g->sod_mm, ==, 100.0);
  g_assert_cmpfloat (g->sdd_mm, ==, 200.0);
  g_assert_cmpfloat (g->pitch_u, ==, 0.5);
  g_assert_cmpfloat (g->offset_u, ==, 0.25);
  g_assert_cmpfloat (g->offset_v_mm, ==, 0.0);
  g_assert_true (g->rows_increase_with_v);
  g_assert_true (g->pixel_size_known);
  g_assert_cmpfloat_with_epsilon (g->angles[3], 3 * G_PI / 4, 1e-12);
  const CtrProjections *p = d->projections;
  g_assert_cmpint (p->kind, ==, CTR_PROJ_LINE_INTEGRALS);
  g_assert_cmpuint (p->n_views, ==, V);
  for (guint v = 0; v < V; v++)
    for (guint c = 0; c < C; c++)
      g_assert_cmpfloat (ctr_projections_view (p, v)[c], ==, sino_value (v, 0, c));
}

static void
test_dataset_layouts (void)
{
  const guint nv = 4, nr = 3, nc = 5;
  g_autofree float *stack = g_new (float, nv * nr * nc);   /* [view][row][col] */
  for (guint v = 0; v < nv; v++)
    for (guint r = 0; r < nr; r++)
      for (guint c = 0; c < nc; c++)
        stack[(v * nr + r) * nc + c] = v * 100 + r * 10 + c;

  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "type", "parallel");
  json_object_set_string_member (o, "kind", "line_integrals");
  json_object_set_int_member (o, "views", nv);
  json_object_set_int_member (o, "detector_cols", nc);
  json_object_set_int_member (o, "detector_rows", nr);
  json_object_set_double_member (o, "detector_pitch_u_mm", 1.0);
  json_object_set_double_member (o, "detector_pitch_v_mm", 2.0);
  json_object_set_boolean_member (o, "rows_increase_with_v", FALSE);
  json_object_set_double_member (o, "angle_start_rad", 0.5);
  json_object_set_double_member (o, "angle_step_rad", 0.25);

  /* sinogram: a page per row, line = view */
  g_autofree float *sino = g_new (float, nv * nr * nc);
  for (guint v = 0; v < nv; v++)
    for (guint r = 0; r < nr; r++)
      memcpy (sino + (r * nv + v) * nc, stack + (v * nr + r) * nc, nc * sizeof (float));
  g_autofree char *sino_path = tmp_path ("multirow-sino.tif");
  write_float_tiff (sino_path, sino, nc, nv, nr);
  /* view_pages: a page per view, line = row */
  g_autofree char *pages_path = tmp_path ("multirow-pages.tif");
  write_float_tiff (pages_path, stack, nc, nr, nv);
  /* one_file_per_view: float64 files by libtiff, indices 7.. (integer
   * samples are counts, refused as line integrals) */
  g_autofree char *sub = tmp_path ("per-view");
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  for (guint v = 0; v < nv; v++)
    {
      g_autofree char *name = g_strdup_printf ("p_%03u%%.tif", v + 7);
      g_autofree char *file = g_build_filename (sub, name, NULL);
      g_autofree double *vals = g_new (double, nr * nc);
      for (guint i = 0; i < nr * nc; i++)
        vals[i] = stack[v * nr * nc + i];
      write_raw_tiff (file, nc, nr, 1, 64, SAMPLEFORMAT_IEEEFP, 1, 0, COMPRESSION_NONE, vals);
    }

  const char *specs[][3] = {
    { "sinogram", "file", "multirow-sino.tif" },
    { "view_pages", "file", "multirow-pages.tif" },
    { "one_file_per_view", "pattern", "per-view/p_%03d%%.tif" },
  };
  for (guint s = 0; s < G_N_ELEMENTS (specs); s++)
    {
      JsonObject *proj = json_object_new ();
      json_object_set_string_member (proj, "layout", specs[s][0]);
      json_object_set_string_member (proj, specs[s][1], specs[s][2]);
      json_object_set_int_member (proj, "first_index", 7);
      json_object_set_int_member (proj, "count", nv);
      json_object_set_object_member (o, "projections", proj);
      JsonNode *node = json_node_init_object (json_node_alloc (), o);
      g_autofree char *text = json_to_string (node, FALSE);
      json_node_unref (node);
      g_autofree char *path = tmp_path ("layout.json");
      write_text (path, text);

      g_autoptr (GError) error = NULL;
      g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (d->name, ==, "layout.json");
      g_assert_cmpint (d->geometry->beam, ==, CTR_BEAM_PARALLEL);
      g_assert_false (d->geometry->rows_increase_with_v);
      g_assert_cmpfloat (d->geometry->pitch_v_mm, ==, 2.0);
      g_assert_cmpfloat_with_epsilon (d->geometry->angles[3], 0.5 + 3 * 0.25, 1e-12);
      g_assert_cmpuint (d->projections->n_rows, ==, nr);
      if (memcmp (d->projections->data, stack, nv * nr * nc * sizeof (float)) != 0)
        g_error ("layout %s: projections differ", specs[s][0]);
    }
  json_object_unref (o);
}

/* Counts with flat and dark from files, and with I0. */
static void
test_dataset_counts (void)
{
  const guint nv = 3, nr = 2, nc = 4;
  g_autofree double *flat = g_new (double, nr * nc), *dark = g_new (double, nr * nc);
  g_autofree double *raw = g_new (double, nv * nr * nc);
  for (guint i = 0; i < nr * nc; i++)
    {
      flat[i] = 4000 + 100 * i;
      dark[i] = 100 + i;
    }
  flat[5] = dark[5];  /* dead */
  for (guint i = 0; i < nv * nr * nc; i++)
    raw[i] = 500 + 97 * i;
  g_autofree char *flat_path = tmp_path ("flat.tif"), *dark_path = tmp_path ("dark.tif");
  g_autofree char *raw_path = tmp_path ("raw.tif");
  write_raw_tiff (flat_path, nc, nr, 1, 32, SAMPLEFORMAT_IEEEFP, nr, 0, COMPRESSION_NONE, flat);
  write_raw_tiff (dark_path, nc, nr, 1, 32, SAMPLEFORMAT_IEEEFP, nr, 0, COMPRESSION_NONE, dark);
  write_raw_tiff (raw_path, nc, nr, nv, 16, SAMPLEFORMAT_UINT, nr, 0, COMPRESSION_NONE, raw);

  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "type", "parallel");
  json_object_set_string_member (o, "kind", "counts");
  json_object_set_string_member (o, "flat", "flat.tif");
  json_object_set_string_member (o, "dark", "dark.tif");
  json_object_set_int_member (o, "views", nv);
  json_object_set_int_member (o, "detector_cols", nc);
  json_object_set_int_member (o, "detector_rows", nr);
  json_object_set_double_member (o, "detector_pitch_u_mm", 1.0);
  json_object_set_double_member (o, "detector_pitch_v_mm", 1.0);
  json_object_set_boolean_member (o, "pixel_size_known", FALSE);
  json_object_set_double_member (o, "angle_start_rad", 0);
  json_object_set_double_member (o, "angle_step_rad", 1);
  JsonObject *proj = json_object_new ();
  json_object_set_string_member (proj, "layout", "view_pages");
  json_object_set_string_member (proj, "file", "raw.tif");
  json_object_set_object_member (o, "projections", proj);
  JsonNode *node = json_node_init_object (json_node_alloc (), o);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autofree char *path = tmp_path ("counts.json");
  write_text (path, text);

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  const CtrProjections *p = d->projections;
  g_assert_cmpint (p->kind, ==, CTR_PROJ_LINE_INTEGRALS);
  g_assert_false (d->geometry->pixel_size_known);
  g_assert_nonnull (p->mask);
  g_assert_nonnull (p->flat);
  g_assert_nonnull (p->dark);
  for (guint v = 0; v < nv; v++)
    for (guint i = 0; i < nr * nc; i++)
      {
        float got = p->data[v * nr * nc + i];
        g_assert_cmpint (p->mask[i], ==, i == 5 ? 0 : 1);
        if (i == 5)
          {
            /* row 1 = pixels 4..7: interpolated between columns 0 and 2 */
            float want = 0.5f * (p->data[v * nr * nc + 4] + p->data[v * nr * nc + 6]);
            g_assert_cmpfloat_with_epsilon (got, want, 1e-6);
            continue;
          }
        double want = -log ((raw[v * nr * nc + i] - dark[i]) / (flat[i] - dark[i]));
        g_assert_cmpfloat_with_epsilon (got, want, 1e-5);
      }

  /* The same with I0 and no flat/dark. */
  json_object_remove_member (o, "flat");
  json_object_remove_member (o, "dark");
  json_object_set_double_member (o, "I0", 60000);
  g_free (text);
  text = json_to_string (node, FALSE);
  write_text (path, text);
  g_autoptr (CtrDataset) d2 = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (d2->projections->mask);
  g_assert_cmpfloat (d2->projections->i0, ==, 60000);
  for (guint i = 0; i < nv * nr * nc; i++)
    g_assert_cmpfloat_with_epsilon (d2->projections->data[i], -log (raw[i] / 60000), 1e-5);

  /* counts with neither */
  json_object_remove_member (o, "I0");
  g_free (text);
  text = json_to_string (node, FALSE);
  write_text (path, text);
  g_autoptr (CtrDataset) d3 = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_null (d3);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_clear_error (&error);

  /* a flat of the wrong size */
  json_object_set_string_member (o, "flat", "flat-small.tif");
  g_free (text);
  text = json_to_string (node, FALSE);
  write_text (path, text);
  g_autofree float *tiny = g_new0 (float, 6);
  g_autofree char *small_path = tmp_path ("flat-small.tif");
  write_float_tiff (small_path, tiny, 3, 2, 1);
  g_assert_null (ctr_dataset_load (path, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "flat-small.tif"));
  g_assert_nonnull (strstr (error->message, "“flat”"));
  json_node_unref (node);
  json_object_unref (o);
}

static void
test_dataset_variants_reference (void)
{
  JsonObject *o = base_geometry ();
  JsonObject *variants = json_object_new ();
  JsonObject *alt = json_object_new ();
  json_object_set_string_member (alt, "layout", "sinogram");
  json_object_set_string_member (alt, "file", "alt.tif");
  json_object_set_object_member (variants, "noisy", alt);
  JsonObject *alt2 = json_object_new ();
  json_object_set_string_member (alt2, "layout", "sinogram");
  json_object_set_string_member (alt2, "file", "sino.tif");
  json_object_set_object_member (variants, "clean", alt2);
  json_object_set_object_member (o, "variants", variants);
  JsonObject *ref = json_object_new ();
  json_object_set_string_member (ref, "file", "ref.tif");
  json_object_set_double_member (ref, "pixel_size_mm", 0.75);
  JsonArray *centre = json_array_new ();
  json_array_add_double_element (centre, 1.5);
  json_array_add_double_element (centre, -2.0);
  json_object_set_array_member (ref, "center_mm", centre);
  json_object_set_object_member (o, "reference", ref);
  g_autofree char *path = write_dataset (o, "variants");

  g_autofree float *alt_data = g_new (float, V * C);
  for (guint i = 0; i < V * C; i++)
    alt_data[i] = 7.0f + i;
  g_autofree char *alt_path = tmp_path ("alt.tif");
  write_float_tiff (alt_path, alt_data, C, V, 1);
  float ref_data[3 * 4];
  for (guint i = 0; i < 12; i++)
    ref_data[i] = i * 0.001f;
  g_autofree char *ref_path = tmp_path ("ref.tif");
  write_float_tiff (ref_path, ref_data, 4, 3, 1);

  g_autoptr (GError) error = NULL;
  g_autoptr (CtrDataset) d = ctr_dataset_load (path, "noisy", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (d->variant, ==, "noisy");
  g_assert_nonnull (d->variants);
  g_assert_cmpuint (g_strv_length (d->variants), ==, 2);
  g_assert_true (g_strv_contains ((const char * const *) d->variants, "noisy"));
  g_assert_true (g_strv_contains ((const char * const *) d->variants, "clean"));
  g_assert_cmpmem (d->projections->data, V * C * sizeof (float), alt_data, V * C * sizeof (float));
  const CtrVolume *r = d->reference;
  g_assert_nonnull (r);
  g_assert_cmpuint (r->grid.nx, ==, 4);
  g_assert_cmpuint (r->grid.ny, ==, 3);
  g_assert_cmpuint (r->grid.nz, ==, 1);
  g_assert_cmpfloat (r->grid.dx, ==, 0.75);
  g_assert_cmpfloat (r->grid.dy, ==, 0.75);
  g_assert_cmpfloat (r->grid.dz, ==, 0.5);   /* the row pitch */
  g_assert_cmpfloat (r->grid.cx, ==, 1.5);
  g_assert_cmpfloat (r->grid.cy, ==, -2.0);
  g_assert_cmpstr (r->unit, ==, "1/mm");
  g_assert_cmpmem (r->data, sizeof ref_data, ref_data, sizeof ref_data);

  /* the default projections */
  g_autoptr (CtrDataset) d0 = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (d0->variant);
  g_assert_cmpfloat (d0->projections->data[C + 1], ==, sino_value (1, 0, 1));

  /* an unknown variant lists the valid ones */
  g_assert_null (ctr_dataset_load (path, "quarter", NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "quarter"));
  g_assert_nonnull (strstr (error->message, "noisy"));
  g_assert_nonnull (strstr (error->message, "clean"));
  g_clear_error (&error);

  /* 3-D reference with shape_zyx / spacing_xyz_mm, and an explicit unit */
  float vol[2 * 3 * 4] = { 0 };
  write_float_tiff (ref_path, vol, 4, 3, 2);
  JsonObject *ref3 = json_object_new ();
  json_object_set_string_member (ref3, "file", "ref.tif");
  json_object_set_string_member (ref3, "unit", "HU");
  JsonArray *shape = json_array_new ();
  json_array_add_int_element (shape, 2);
  json_array_add_int_element (shape, 3);
  json_array_add_int_element (shape, 4);
  json_object_set_array_member (ref3, "shape_zyx", shape);
  JsonArray *spacing = json_array_new ();
  json_array_add_double_element (spacing, 0.1);
  json_array_add_double_element (spacing, 0.2);
  json_array_add_double_element (spacing, 0.3);
  json_object_set_array_member (ref3, "spacing_xyz_mm", spacing);
  json_object_set_object_member (o, "reference", ref3);
  g_free (path);
  path = write_dataset (o, "variants");
  g_autoptr (CtrDataset) d3 = ctr_dataset_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d3->reference->grid.nz, ==, 2);
  g_assert_cmpfloat (d3->reference->grid.dx, ==, 0.1);
  g_assert_cmpfloat (d3->reference->grid.dy, ==, 0.2);
  g_assert_cmpfloat (d3->reference->grid.dz, ==, 0.3);
  g_assert_cmpstr (d3->reference->unit, ==, "HU");

  /* shape_zyx that disagrees with the file */
  json_array_remove_element (shape, 0);
  json_array_add_int_element (shape, 5);
  g_free (path);
  path = write_dataset (o, "variants");
  g_assert_null (ctr_dataset_load (path, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "shape_zyx"));
  g_clear_error (&error);

  /* a reference that cannot be read is an error, not silently dropped */
  g_unlink (ref_path);
  g_assert_null (ctr_dataset_load (path, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "ref.tif"));
  g_clear_error (&error);
  json_object_unref (o);
}

static void
test_dataset_parse_geometry (void)
{
  const char *text =
    "{ \"type\": \"fan\", \"detector_shape\": \"curved\", \"kind\": \"line_integrals\","
    "  \"views\": 4, \"detector_cols\": 10,"
    "  \"source_to_isocenter_mm\": 500, \"source_to_detector_mm\": 1000,"
    "  \"detector_pitch_u_rad\": 0.001, \"detector_offset_u_rad\": -0.0005,"
    "  \"detector_pitch_u_mm\": 1.0, \"detector_offset_u_mm\": 3.0,"
    "  \"angles_rad\": [0, 1, 2, 3.5] }";
  g_autoptr (GError) error = NULL;
  g_autoptr (CtrGeometry) g = ctr_dataset_parse_geometry (text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_CURVED);
  g_assert_cmpfloat (g->pitch_u, ==, 0.001);     /* the _rad keys, not _mm */
  g_assert_cmpfloat (g->offset_u, ==, -0.0005);
  g_assert_cmpuint (g->n_rows, ==, 1);
  g_assert_cmpfloat (g->angles[3], ==, 3.5);

  const struct { const char *json; gint code; } bad[] = {
    { "{ \"type\": \"cone\" }", CTR_ERROR_FORMAT },  /* cone is read now: no views */
    { "{ \"type\": \"helix\" }", CTR_ERROR_FORMAT },
    { "{ \"type\": \"parallel\", \"views\": \"eight\" }", CTR_ERROR_FORMAT },
    { "{ \"type\": \"parallel\", \"views\": 2.5 }", CTR_ERROR_FORMAT },
    { "{ \"type\": \"parallel\", \"views\": -3 }", CTR_ERROR_INVALID_GEOMETRY },
    { "{ \"type\": \"parallel\", \"views\": 2, \"detector_cols\": 4, \"detector_pitch_u_mm\": 1 }",
      CTR_ERROR_FORMAT },  /* no angles */
    { "{ \"type\": \"parallel\", \"views\": 2, \"detector_cols\": 4, \"detector_pitch_u_mm\": 0,"
      "  \"angles_rad\": [0, 1] }", CTR_ERROR_INVALID_GEOMETRY },
    { "{ \"type\": \"parallel\", \"views\": 2, \"detector_cols\": 4, \"detector_pitch_u_mm\": 1,"
      "  \"angles_rad\": [0, \"x\"] }", CTR_ERROR_FORMAT },
    { "{ \"type\": \"parallel\", \"views\": 2, \"detector_cols\": 4, \"detector_rows\": 3,"
      "  \"detector_pitch_u_mm\": 1, \"angles_rad\": [0, 1] }", CTR_ERROR_FORMAT },  /* no pitch_v */
    { "{ \"type\": \"fan\", \"views\": 2, \"detector_cols\": 4, \"detector_pitch_u_mm\": 1,"
      "  \"angles_rad\": [0, 1] }", CTR_ERROR_FORMAT },  /* no detector_shape */
    { "{ \"type\": \"fan\", \"detector_shape\": \"curved\", \"views\": 2, \"detector_cols\": 4,"
      "  \"source_to_isocenter_mm\": 5, \"source_to_detector_mm\": 10,"
      "  \"detector_pitch_u_mm\": 1, \"angles_rad\": [0, 1] }", CTR_ERROR_FORMAT },  /* no _rad */
    { "{ \"type\": \"fan\", \"detector_shape\": \"curved\", \"views\": 2, \"detector_cols\": 4000,"
      "  \"source_to_isocenter_mm\": 5, \"source_to_detector_mm\": 10,"
      "  \"detector_pitch_u_rad\": 1, \"angles_rad\": [0, 1] }", CTR_ERROR_INVALID_GEOMETRY },
    { "[]", CTR_ERROR_FORMAT },
    { "", CTR_ERROR_FORMAT },
    { "{", CTR_ERROR_FORMAT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (CtrGeometry) b = ctr_dataset_parse_geometry (bad[i].json, -1, &error);
      g_assert_null (b);
      if (!g_error_matches (error, CTR_ERROR, bad[i].code))
        g_error ("case %u (%s): expected code %d, got %s", i, bad[i].json, bad[i].code,
                 error != NULL ? error->message : "no error");
      g_clear_error (&error);
    }
}

static void
test_dataset_bad_missing_file (void)
{
  g_autofree char *path = tmp_path ("no-such-geometry.json");
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_dataset_load (path, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_IO);
  g_assert_nonnull (strstr (error->message, path));
}

static void
test_dataset_bad_json (void)
{
  const char *texts[] = { "{ \"views\": 8, ", "not json at all", "[1, 2, 3]", "42", "", "\"text\"" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *path = tmp_path ("broken.json");
      write_text (path, texts[i]);
      g_autoptr (GError) error = NULL;
      g_assert_null (ctr_dataset_load (path, NULL, NULL, &error));
      g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, path));
    }
}

static void
test_dataset_bad_views (void)
{
  JsonObject *o = base_geometry ();
  json_object_remove_member (o, "views");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "views");

  o = base_geometry ();
  json_object_set_int_member (o, "views", 0);
  json_object_set_array_member (o, "angles_rad", json_array_new ());
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "views");

  o = base_geometry ();
  json_object_set_int_member (o, "views", V + 1);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "angles_rad");

  o = base_geometry ();
  json_object_remove_member (o, "angles_rad");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "angles_rad");

  o = base_geometry ();
  json_object_set_string_member (o, "views", "8");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "views");
}

static void
test_dataset_bad_distances (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_double_member (o, "source_to_isocenter_mm", -100);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "source_to_isocenter_mm");

  o = base_geometry ();
  json_object_set_double_member (o, "source_to_detector_mm", 100);  /* = SOD */
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "source_to_detector_mm");

  o = base_geometry ();
  json_object_set_double_member (o, "source_to_detector_mm", 50);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, "source_to_detector_mm");

  o = base_geometry ();
  json_object_remove_member (o, "source_to_detector_mm");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "source_to_detector_mm");

  /* Cone beam is read (FDK landed): the fan geometry relabelled cone loads
   * as a cone geometry. */
  o = base_geometry ();
  json_object_set_string_member (o, "type", "cone");
  {
    g_autofree char *path = write_dataset (o, "cone");
    g_autoptr (GError) error = NULL;
    g_autoptr (CtrDataset) d = ctr_dataset_load (path, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpint (d->geometry->beam, ==, CTR_BEAM_CONE);
    json_object_unref (o);
  }

  o = base_geometry ();
  json_object_set_string_member (o, "kind", "transmission");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "kind");
}

static void
test_dataset_bad_nan (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "file", "nan.tif");
  float sino[V * C];
  for (guint i = 0; i < V * C; i++)
    sino[i] = 1.0f;
  sino[2 * C + 3] = NAN;
  g_autofree char *nan_path = tmp_path ("nan.tif");
  write_float_tiff (nan_path, sino, C, V, 1);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_INVALID_DATA, "view 2, row 0, column 3");
}

static void
test_dataset_bad_size (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "file", "small.tif");
  float sino[(V - 1) * C] = { 0 };
  g_autofree char *small = tmp_path ("small.tif");
  write_float_tiff (small, sino, C, V - 1, 1);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "small.tif holds 1 page(s) of 7 lines × 6 samples, "
                     "expected 1 page(s) of 8 × 6");

  /* a sinogram with more pages than detector rows */
  o = base_geometry ();
  json_object_set_string_member (projections_of (o), "file", "pages.tif");
  float two[2 * V * C] = { 0 };
  g_autofree char *pages = tmp_path ("pages2.tif");
  write_float_tiff (pages, two, C, V, 2);
  g_autofree char *renamed = tmp_path ("pages.tif");
  g_assert_cmpint (g_rename (pages, renamed), ==, 0);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "expected 1 page(s)");
}

static void
test_dataset_bad_missing_projections (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "file", "absent.tif");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_IO, "absent.tif");

  o = base_geometry ();
  json_object_remove_member (o, "projections");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "projections");

  o = base_geometry ();
  json_object_set_string_member (projections_of (o), "layout", "one_file_per_view");
  json_object_set_string_member (projections_of (o), "pattern", "none/v_%d.tif");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_IO, "v_0.tif");
}

static void
test_dataset_bad_truncated (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "file", "cut.tif");
  float sino[V * C];
  for (guint i = 0; i < V * C; i++)
    sino[i] = i;
  g_autofree char *cut = tmp_path ("cut.tif");
  write_float_tiff (cut, sino, C, V, 1);
  GStatBuf st;
  g_assert_cmpint (g_stat (cut, &st), ==, 0);
  truncate_file (cut, st.st_size / 2);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "cut.tif");
}

static void
test_dataset_bad_layout (void)
{
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "layout", "hologram");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "hologram");

  o = base_geometry ();
  json_object_set_string_member (projections_of (o), "layout", "dicom");
  json_object_set_string_member (projections_of (o), "folder", "dicom");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_IO, "dicom");

  o = base_geometry ();
  json_object_remove_member (projections_of (o), "layout");
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "layout");
}

static void
test_dataset_bad_pattern (void)
{
  const char *patterns[] = { "raw_%s.tif", "raw_%n.tif", "raw_%d_%d.tif", "raw.tif", "raw_%x.tif",
                             "raw_%-5d.tif", "raw_%5.2d.tif", "raw_%ld.tif", "raw_%", "%999999d",
                             "raw_%*d.tif", "raw_%1$d.tif" };
  for (guint i = 0; i < G_N_ELEMENTS (patterns); i++)
    {
      JsonObject *o = base_geometry ();
      json_object_set_string_member (projections_of (o), "layout", "one_file_per_view");
      json_object_set_string_member (projections_of (o), "pattern", patterns[i]);
      expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "pattern");
    }
  /* count that disagrees with views */
  JsonObject *o = base_geometry ();
  json_object_set_string_member (projections_of (o), "layout", "one_file_per_view");
  json_object_set_string_member (projections_of (o), "pattern", "v_%d.tif");
  json_object_set_int_member (projections_of (o), "count", V - 1);
  expect_load_error (o, CTR_ERROR, CTR_ERROR_FORMAT, "count");
}

static void
test_dataset_bad_variant (void)
{
  JsonObject *o = base_geometry ();
  g_autofree char *path = write_dataset (o, "novariants");
  json_object_unref (o);
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_dataset_load (path, "full_dose", NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "full_dose"));
}

static void
test_dataset_cancelled (void)
{
  JsonObject *o = base_geometry ();
  g_autofree char *path = write_dataset (o, "cancel");
  json_object_unref (o);
  g_autoptr (GCancellable) c = g_cancellable_new ();
  g_cancellable_cancel (c);
  g_autoptr (GError) error = NULL;
  g_assert_null (ctr_dataset_load (path, NULL, c, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* ------------------------------------------------------------------------ */
/* Real data (shared/data)                                                   */

static CtrDataset *
load_real (const char *rel, const char *variant)
{
  g_autofree char *path = g_build_filename (data_dir, rel, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_autofree char *msg = g_strdup_printf ("%s is missing", path);
      g_test_skip (msg);
      return NULL;
    }
  g_autoptr (GError) error = NULL;
  CtrDataset *d = ctr_dataset_load (path, variant, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (d);
  g_assert_true (ctr_geometry_validate (d->geometry, NULL));
  g_assert_true (ctr_projections_check_finite (d->projections, NULL));
  return d;
}

static void
test_real_gel_fan (void)
{
  g_autoptr (CtrDataset) d = load_real ("gel-fan/geometry.json", NULL);
  if (d == NULL)
    return;
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_FAN);
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_FLAT);
  g_assert_cmpuint (g->n_views, ==, 72);
  g_assert_cmpuint (g->n_rows, ==, 1);
  g_assert_cmpuint (g->n_cols, ==, 282);
  g_assert_cmpfloat_with_epsilon (g->sod_mm, 99.9995, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->sdd_mm, 299.99926, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (g->angles[71], 6.195919, 1e-6);
  g_assert_cmpstr (d->name, ==, "gel-fan");
  const CtrProjections *p = d->projections;
  g_assert_cmpuint (p->n_views * p->n_rows * p->n_cols, ==, 72 * 282);
  float lo = G_MAXFLOAT, hi = -G_MAXFLOAT;
  for (guint i = 0; i < 72 * 282; i++)
    {
      lo = MIN (lo, p->data[i]);
      hi = MAX (hi, p->data[i]);
    }
  g_assert_cmpfloat (hi, >, 1.0);   /* README: largest value 1.1427 */
  g_assert_cmpfloat (hi, <, 1.2);
  g_assert_cmpfloat (lo, >, -0.1);
  const CtrVolume *r = d->reference;
  g_assert_nonnull (r);
  g_assert_cmpuint (r->grid.nx, ==, 256);
  g_assert_cmpuint (r->grid.ny, ==, 256);
  g_assert_cmpuint (r->grid.nz, ==, 1);
  g_assert_cmpfloat_with_epsilon (r->grid.dx, 0.1333, 1e-4);
  g_assert_cmpfloat (r->grid.cx, ==, 0.0);
  g_assert_cmpstr (r->unit, ==, "1/mm");
}

static void
test_real_savu (void)
{
  g_autoptr (CtrDataset) d = load_real ("savu-parallel-tiff/geometry.json", NULL);
  if (d == NULL)
    return;
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->beam, ==, CTR_BEAM_PARALLEL);
  g_assert_cmpuint (g->n_views, ==, 91);
  g_assert_cmpuint (g->n_rows, ==, 135);
  g_assert_cmpuint (g->n_cols, ==, 160);
  g_assert_false (g->rows_increase_with_v);
  g_assert_false (g->pixel_size_known);
  g_assert_cmpfloat_with_epsilon (g->offset_u, -6.35, 1e-12);
  const CtrProjections *p = d->projections;
  g_assert_cmpint (p->kind, ==, CTR_PROJ_LINE_INTEGRALS);
  g_assert_nonnull (p->mask);
  g_assert_cmpint (p->mask[0], ==, 0);   /* README: (0, 0) is 0 in raw, flat and dark */
  guint dead = 0;
  for (guint i = 0; i < 135 * 160; i++)
    dead += !p->mask[i];
  g_assert_cmpuint (dead, ==, 1);
  for (guint v = 0; v < 91; v++)
    g_assert_cmpfloat (ctr_projections_view (p, v)[0], ==, ctr_projections_view (p, v)[1]);
  /* README: the open-beam columns at both edges read about 0.37 */
  double sum = 0;
  guint n = 0;
  for (guint v = 0; v < 91; v++)
    for (guint r = 0; r < 135; r++)
      for (guint c = 0; c < 160; c++)
        if (c < 10 || c >= 150)
          {
            sum += ctr_projections_view (p, v)[r * 160 + c];
            n++;
          }
  double mean = sum / n;
  g_test_message ("savu open-beam mean %.4f", mean);
  g_assert_cmpfloat (mean, >, 0.32);
  g_assert_cmpfloat (mean, <, 0.42);
  g_assert_null (d->reference);
}

static void
test_real_head_noiseless (void)
{
  g_autoptr (CtrDataset) d = load_real ("head-fan-lowdose/geometry.json", "noiseless");
  if (d == NULL)
    return;
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_CURVED);
  g_assert_cmpuint (g->n_views, ==, 720);
  g_assert_cmpuint (g->n_cols, ==, 736);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 0.000593, 1e-12);
  g_assert_cmpfloat (g->offset_u, ==, 0.0);
  g_assert_cmpfloat_with_epsilon (g->sod_mm, 595.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->sdd_mm, 1085.6, 1e-9);
  g_assert_cmpfloat_with_epsilon (g->angles[719], 719 * 0.008726646259971648, 1e-9);
  g_assert_cmpstr (d->variant, ==, "noiseless");
  g_assert_true (g_strv_contains ((const char * const *) d->variants, "quarter_dose"));
  g_assert_nonnull (d->reference);
  g_assert_cmpfloat_with_epsilon (d->reference->grid.dx, 0.95703125, 1e-12);
  g_assert_cmpuint (d->reference->grid.nx, ==, 256);

  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (data_dir, "head-fan-lowdose/geometry.json", NULL);
  g_assert_null (ctr_dataset_load (path, "half_dose", NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "full_dose"));
}

static void
test_real_shepp_logan_equilinear (void)
{
  g_autoptr (CtrDataset) d = load_real ("shepp-logan-fan/equilinear/geometry.json", NULL);
  if (d == NULL)
    return;
  const CtrGeometry *g = d->geometry;
  g_assert_cmpint (g->shape, ==, CTR_DETECTOR_FLAT);
  g_assert_cmpuint (g->n_views, ==, 360);
  g_assert_cmpuint (g->n_cols, ==, 368);
  g_assert_cmpfloat_with_epsilon (g->offset_u, -0.7272168002321728, 1e-12);
  g_assert_cmpfloat_with_epsilon (g->pitch_u, 1.4544336004643457, 1e-12);
  g_assert_cmpfloat_with_epsilon (g->angles[0], G_PI, 1e-12);
  g_assert_nonnull (d->reference);
  g_assert_cmpfloat_with_epsilon (d->reference->grid.dx, 0.71875, 1e-12);
}

static void
test_real_shepp_logan_curved (void)
{
  g_autoptr (CtrDataset) d = load_real ("shepp-logan-fan/equiangular/geometry.json", NULL);
  if (d == NULL)
    return;
  g_assert_cmpint (d->geometry->shape, ==, CTR_DETECTOR_CURVED);
  g_assert_cmpfloat_with_epsilon (d->geometry->pitch_u, 0.0012212157618603317, 1e-15);
  g_autoptr (CtrDataset) w1 = load_real ("shepp-logan-fan-w1/equiangular/geometry.json", NULL);
  if (w1 == NULL)
    return;
  g_assert_cmpuint (w1->geometry->n_views, ==, 720);
  g_assert_cmpuint (w1->geometry->n_cols, ==, 1024);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_autoptr (GError) error = NULL;
  tmp_dir = g_dir_make_tmp ("ctr-test-io-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/ctr/io/tiff/roundtrip-float", test_tiff_roundtrip_float);
  g_test_add_func ("/ctr/io/tiff/read-types", test_tiff_read_types);
  g_test_add_func ("/ctr/io/tiff/bad/page-sizes", test_tiff_bad_pages);
  g_test_add_func ("/ctr/io/tiff/bad/missing-file", test_tiff_missing);
  g_test_add_func ("/ctr/io/tiff/bad/not-tiff", test_tiff_not_tiff);
  g_test_add_func ("/ctr/io/tiff/bad/truncated", test_tiff_truncated);
  g_test_add_func ("/ctr/io/tiff/atomic-write", test_tiff_atomic_write);
  g_test_add_func ("/ctr/io/tiff/volume", test_tiff_volume);

  g_test_add_func ("/ctr/io/preprocess/flat-dark", test_preprocess_flat_dark);
  g_test_add_func ("/ctr/io/preprocess/i0", test_preprocess_i0);
  g_test_add_func ("/ctr/io/preprocess/dead-pixel-fill", test_preprocess_fill);
  g_test_add_func ("/ctr/io/preprocess/bad", test_preprocess_bad);

  g_test_add_func ("/ctr/io/dataset/good", test_dataset_good);
  g_test_add_func ("/ctr/io/dataset/layouts", test_dataset_layouts);
  g_test_add_func ("/ctr/io/dataset/counts", test_dataset_counts);
  g_test_add_func ("/ctr/io/dataset/variants-reference", test_dataset_variants_reference);
  g_test_add_func ("/ctr/io/dataset/parse-geometry", test_dataset_parse_geometry);
  g_test_add_func ("/ctr/io/dataset/cancelled", test_dataset_cancelled);
  g_test_add_func ("/ctr/io/dataset/bad/missing-file", test_dataset_bad_missing_file);
  g_test_add_func ("/ctr/io/dataset/bad/json", test_dataset_bad_json);
  g_test_add_func ("/ctr/io/dataset/bad/views", test_dataset_bad_views);
  g_test_add_func ("/ctr/io/dataset/bad/distances", test_dataset_bad_distances);
  g_test_add_func ("/ctr/io/dataset/bad/nan", test_dataset_bad_nan);
  g_test_add_func ("/ctr/io/dataset/bad/size", test_dataset_bad_size);
  g_test_add_func ("/ctr/io/dataset/bad/missing-projections", test_dataset_bad_missing_projections);
  g_test_add_func ("/ctr/io/dataset/bad/truncated", test_dataset_bad_truncated);
  g_test_add_func ("/ctr/io/dataset/bad/layout", test_dataset_bad_layout);
  g_test_add_func ("/ctr/io/dataset/bad/pattern", test_dataset_bad_pattern);
  g_test_add_func ("/ctr/io/dataset/bad/variant", test_dataset_bad_variant);

  const char *env = g_getenv ("CTR_SHARED_DATA");
  if (env != NULL && g_file_test (env, G_FILE_TEST_IS_DIR))
    {
      data_dir = env;
      g_test_add_func ("/ctr/io/real/gel-fan", test_real_gel_fan);
      g_test_add_func ("/ctr/io/real/savu-parallel-tiff", test_real_savu);
      g_test_add_func ("/ctr/io/real/head-fan-lowdose-noiseless", test_real_head_noiseless);
      g_test_add_func ("/ctr/io/real/shepp-logan-equilinear", test_real_shepp_logan_equilinear);
      g_test_add_func ("/ctr/io/real/shepp-logan-curved", test_real_shepp_logan_curved);
    }

  int rc = g_test_run ();
  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return rc;
}
