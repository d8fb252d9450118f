/* ctr-tiff.c — TIFF input and output through libtiff (see ctr-tiff.h).
 *
 * Every TIFF handle is opened with TIFFOpenOptions whose error and warning
 * handlers write into a per-call context (libtiff >= 4.5), so messages are
 * thread-safe, never printed, and end up in the GError.  Files are opened
 * without memory mapping ("rm") so a file truncated under our feet gives a
 * read error rather than SIGBUS.
 */
#include "io/ctr-tiff.h"
#include "io/ctr-temp.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"
#include "io/ctr-file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <tiffio.h>

/* ------------------------------------------------------------------------ */
/* libtiff messages                                                          */

typedef struct {
  GString *errors;   /* libtiff error messages, "; "-separated */
} TiffMessages;

static int
on_tiff_error (TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
  TiffMessages *m = user_data;
  if (m != NULL && m->errors->len < 1024)
    {
      if (m->errors->len > 0)
        g_string_append (m->errors, "; ");
      g_string_append_vprintf (m->errors, fmt, ap);
    }
  return 1;  /* handled: do not call the process-wide handler */
}

static int
on_tiff_warning (TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap)
{
  return 1;  /* warnings (unknown tags, ...) are dropped */
}

/* Messages that libtiff still routes through its process-wide handlers (a few
 * code paths have no TIFF handle) are silenced once: a library never prints. */
static void
silence_global_handlers (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once))
    {
      TIFFSetErrorHandler (NULL);
      TIFFSetWarningHandler (NULL);
      g_once_init_leave (&once, 1);
    }
}

typedef struct {
  TIFF *tif;
  TiffMessages msg;
  char *path;
} TiffFile;

static void
tiff_file_close (TiffFile *f)
{
  if (f == NULL)
    return;
  if (f->tif != NULL)
    TIFFClose (f->tif);
  g_string_free (f->msg.errors, TRUE);
  g_free (f->path);
  g_free (f);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (TiffFile, tiff_file_close)

static TiffFile *
tiff_file_new (const char *path)
{
  silence_global_handlers ();
  TiffFile *f = g_new0 (TiffFile, 1);
  f->msg.errors = g_string_new (NULL);
  f->path = g_strdup (path);
  return f;
}

static TIFFOpenOptions *
tiff_options_new (TiffFile *f)
{
  TIFFOpenOptions *opts = TIFFOpenOptionsAlloc ();
  TIFFOpenOptionsSetErrorHandlerExtR (opts, on_tiff_error, &f->msg);
  TIFFOpenOptionsSetWarningHandlerExtR (opts, on_tiff_warning, &f->msg);
  /* libtiff's own buffers (strip offsets, decoded strips) sized from the
   * file's tags stay within what the machine has (ctr-memory.h). */
  TIFFOpenOptionsSetMaxSingleMemAlloc (opts, (tmsize_t) MIN (ctr_memory_limit_bytes (), (guint64) G_MAXSSIZE));
  return opts;
}

/* Sets a CTR_ERROR_FORMAT naming the file, the problem and libtiff's message. */
G_GNUC_PRINTF (3, 4) static void
set_format_error (GError **error, TiffFile *f, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (f->msg.errors->len > 0)
    g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s (libtiff: %s)",
                 f->path, what, f->msg.errors->str);
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s: %s", f->path, what);
}

static TiffFile *
tiff_open_read (const char *path, GError **error)
{
  /* Tell a missing or unreadable file, a folder or a FIFO (CTR_ERROR_IO,
   * opened without blocking: ctr-file.h) from a bad one (FORMAT). */
  int fd = ctr_file_open_regular (path, error);
  if (fd < 0)
    return NULL;
  g_autoptr (TiffFile) f = tiff_file_new (path);
  TIFFOpenOptions *opts = tiff_options_new (f);
  f->tif = TIFFFdOpenExt (fd, path, "rm", opts);   /* TIFFClose closes fd */
  TIFFOpenOptionsFree (opts);
  if (f->tif == NULL)
    {
      close (fd);
      set_format_error (error, f, "not a readable TIFF file");
      return NULL;
    }
  return g_steal_pointer (&f);
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                   */

typedef struct {
  guint32 width, height;
  guint16 bps, format, spp;
} PageShape;

static gboolean
supported_sample (guint16 bps, guint16 format)
{
  switch (format)
    {
    case SAMPLEFORMAT_UINT:
      return bps == 8 || bps == 16 || bps == 32;
    case SAMPLEFORMAT_INT:
      return bps == 8 || bps == 16 || bps == 32;
    case SAMPLEFORMAT_IEEEFP:
      return bps == 32 || bps == 64;
    default:
      return FALSE;
    }
}

/* Shape of the current directory, checked for what we can read. */
/* Where the directory at byte @offset ends (its entry count read from the
 * file: 2 + 12 n + 4 bytes, BigTIFF 8 + 20 n + 8); past the file's end
 * when the count itself is cut off. */
static guint64
directory_end (TiffFile *f, guint64 offset)
{
  gboolean big = TIFFIsBigTIFF (f->tif);
  guint8 b[8] = { 0 };
  guint64 n = 0;
  int fd = g_open (f->path, O_RDONLY, 0);
  ssize_t got = fd >= 0 ? pread (fd, b, big ? 8 : 2, (off_t) offset) : -1;

  if (fd >= 0)
    close (fd);
  if (got != (big ? 8 : 2))
    return G_MAXUINT64;
  for (int i = 0; i < (big ? 8 : 2); i++)
    n |= (guint64) b[TIFFIsBigEndian (f->tif) ? (big ? 7 : 1) - i : i] << (8 * i);
  return big ? offset + 8 + 20 * n + 8 : offset + 2 + 12 * n + 4;
}

static gboolean
read_page_shape (TiffFile *f, guint page, PageShape *s, GError **error)
{
  guint32 w = 0, h = 0;
  guint16 bps = 1, fmt = SAMPLEFORMAT_UINT, spp = 1;
  if (!TIFFGetField (f->tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField (f->tif, TIFFTAG_IMAGELENGTH, &h))
    {
      set_format_error (error, f, "page %u has no image size", page);
      return FALSE;
    }
  TIFFGetFieldDefaulted (f->tif, TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetFieldDefaulted (f->tif, TIFFTAG_SAMPLEFORMAT, &fmt);
  TIFFGetFieldDefaulted (f->tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
  if (w == 0 || h == 0)
    {
      set_format_error (error, f, "page %u is empty (%u × %u)", page, h, w);
      return FALSE;
    }
  if (spp != 1)
    {
      set_format_error (error, f, "page %u has %u samples per pixel; only single-channel images "
                        "(one sample per pixel) are supported", page, spp);
      return FALSE;
    }
  if (!supported_sample (bps, fmt))
    {
      const char *kind = fmt == SAMPLEFORMAT_UINT ? "unsigned integer"
                         : fmt == SAMPLEFORMAT_INT ? "signed integer"
                         : fmt == SAMPLEFORMAT_IEEEFP ? "float" : "unknown";
      set_format_error (error, f, "page %u has %u-bit %s samples (SampleFormat %u); supported are "
                        "8/16/32-bit integers and 32/64-bit floats", page, bps, kind, fmt);
      return FALSE;
    }
  s->width = w;
  s->height = h;
  s->bps = bps;
  s->format = fmt;
  s->spp = spp;
  return TRUE;
}

/* Walks every directory from the first: counts pages, checks they agree. */
/* Every strip (or tile) of the current page must lie inside the file,
 * past its 8-byte header, and hold data: libtiff fills offsets a crafted
 * file leaves out with 0 and estimates their sizes, so without this a
 * 484-byte file that claims 4 million lines reads its own header over and
 * over into a plausible-looking image (found by fuzzing). */
static gboolean
check_chunks (TiffFile *f, guint page, GError **error)
{
  TIFF *tif = f->tif;
  struct stat st;
  if (fstat (TIFFFileno (tif), &st) != 0)
    return TRUE;  /* not a plain file: libtiff's own checks only */
  const guint64 size = (guint64) st.st_size;
  const guint32 n = TIFFIsTiled (tif) ? TIFFNumberOfTiles (tif) : TIFFNumberOfStrips (tif);
  const char *what = TIFFIsTiled (tif) ? "tile" : "strip";
  /* a tile decodes to a whole tile, padding included: the rule below holds
   * per tile (a 1,320-byte file with 20 × 20 pixels in one tile of 201 MB
   * had the reader allocate the tile first; found by fuzzing) */
  const guint64 tile = TIFFIsTiled (tif) ? (guint64) TIFFTileSize64 (tif) : 0;
  guint16 compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted (tif, TIFFTAG_COMPRESSION, &compression);
  guint64 stored = 0;
  for (guint32 k = 0; k < n; k++)
    {
      const guint64 off = TIFFGetStrileOffset (tif, k), len = TIFFGetStrileByteCount (tif, k);
      if (off < 8 || len == 0 || off > size || len > size - off)
        {
          set_format_error (error, f, "page %u: %s %u of %u lies outside the file or holds no data (offset %"
                            G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " bytes; the file has %" G_GUINT64_FORMAT
                            " bytes): the file is truncated or damaged", page, what, k, n, off, len, size);
          return FALSE;
        }
      stored += len;
      if (tile > (compression == COMPRESSION_NONE ? len : len * 4096))
        {
          set_format_error (error, f, "page %u: tile %u of %u decodes to %" G_GUINT64_FORMAT " bytes but holds %"
                            G_GUINT64_FORMAT ": the file is truncated or damaged", page, k, n, tile, len);
          return FALSE;
        }
    }
  /* The pixels the page claims against the bytes that hold them: all of
   * them when uncompressed; at most 4096 : 1 compressed (beyond any codec
   * TIFF float data uses: deflate tops out near 1032 : 1, LZW near 2700 : 1).
   * A 428-byte file claiming 168 MB of floats in three 56-byte strips was
   * found by fuzzing. */
  guint32 w = 0, h = 0;
  guint16 bps = 0, spp = 1;
  TIFFGetField (tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField (tif, TIFFTAG_IMAGELENGTH, &h);
  TIFFGetFieldDefaulted (tif, TIFFTAG_BITSPERSAMPLE, &bps);
  TIFFGetFieldDefaulted (tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
  const guint64 claimed = (guint64) w * h * spp * (bps / 8);
  const guint64 most = compression == COMPRESSION_NONE ? stored : stored * 4096;
  if (claimed > most)
    {
      set_format_error (error, f, "page %u claims %" G_GUINT64_FORMAT " bytes of pixels but its %u %ss hold %"
                        G_GUINT64_FORMAT " bytes%s: the file is truncated or damaged", page, claimed, n, what,
                        stored, compression == COMPRESSION_NONE ? "" : " (compressed beyond 4096 : 1)");
      return FALSE;
    }
  return TRUE;
}

static gboolean
probe_open (TiffFile *f, CtrTiffInfo *info, GError **error)
{
  PageShape first = { 0 }, s;
  guint pages = 0;
  if (!TIFFSetDirectory (f->tif, 0))
    {
      set_format_error (error, f, "cannot read the first page");
      return FALSE;
    }
  do
    {
      if (!read_page_shape (f, pages, &s, error))
        return FALSE;
      if (pages == 0)
        first = s;
      else if (s.width != first.width || s.height != first.height)
        {
          set_format_error (error, f, "page %u is %u × %u but page 0 is %u × %u; every page must "
                            "have the same size", pages, s.height, s.width, first.height, first.width);
          return FALSE;
        }
      pages++;
      g_string_truncate (f->msg.errors, 0);
    }
  while (TIFFReadDirectory (f->tif));
  /* TIFFReadDirectory returns 0 both at the end and on a broken directory; only
   * the latter leaves a message. */
  if (f->msg.errors->len > 0)
    {
      /* a directory cut by the end of the file: a truncated file, said so */
      const char *at = strstr (f->msg.errors->str, "at offset ");
      guint64 offset = at != NULL ? g_ascii_strtoull (at + strlen ("at offset "), NULL, 10) : 0;
      GStatBuf st;

      if (offset > 0 && g_stat (f->path, &st) == 0 && directory_end (f, offset) > (guint64) st.st_size)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: the file is truncated: it has %" G_GUINT64_FORMAT " bytes, but the directory of page %u at byte %"
                     G_GUINT64_FORMAT " runs past its end (an incomplete copy or download?)",
                     f->path, (guint64) st.st_size, pages + 1, offset);
      else
        set_format_error (error, f, "page %u is unreadable", pages);
      return FALSE;
    }
  info->width = first.width;
  info->height = first.height;
  info->pages = pages;
  info->bits_per_sample = first.bps;
  info->sample_format = first.format;
  return TRUE;
}

/* @n samples of the given type from @src to float. */
static void
convert_samples (const guint8 *src, float *dst, gsize n, guint16 bps, guint16 fmt)
{
  switch (fmt * 100 + bps)
    {
    case SAMPLEFORMAT_UINT * 100 + 8:
      for (gsize i = 0; i < n; i++)
        dst[i] = src[i];
      break;
    case SAMPLEFORMAT_INT * 100 + 8:
      for (gsize i = 0; i < n; i++)
        dst[i] = ((const gint8 *) src)[i];
      break;
    case SAMPLEFORMAT_UINT * 100 + 16:
      for (gsize i = 0; i < n; i++)
        {
          guint16 v;
          memcpy (&v, src + 2 * i, 2);
          dst[i] = v;
        }
      break;
    case SAMPLEFORMAT_INT * 100 + 16:
      for (gsize i = 0; i < n; i++)
        {
          gint16 v;
          memcpy (&v, src + 2 * i, 2);
          dst[i] = v;
        }
      break;
    case SAMPLEFORMAT_UINT * 100 + 32:
      for (gsize i = 0; i < n; i++)
        {
          guint32 v;
          memcpy (&v, src + 4 * i, 4);
          dst[i] = (float) v;
        }
      break;
    case SAMPLEFORMAT_INT * 100 + 32:
      for (gsize i = 0; i < n; i++)
        {
          gint32 v;
          memcpy (&v, src + 4 * i, 4);
          dst[i] = (float) v;
        }
      break;
    case SAMPLEFORMAT_IEEEFP * 100 + 32:
      memcpy (dst, src, n * sizeof (float));
      break;
    case SAMPLEFORMAT_IEEEFP * 100 + 64:
      for (gsize i = 0; i < n; i++)
        {
          double v;
          memcpy (&v, src + 8 * i, 8);
          dst[i] = (float) v;
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

/* A strip or tile that cannot be read: when the file ends before the data
 * its offset and byte count point to, says that the file is truncated (in
 * bytes and lines) instead of libtiff's decoder message ("Read error at
 * scanline 4294967295" for a strip). */
static void
set_chunk_error (GError **error, TiffFile *f, guint page, guint32 chunk, gboolean tiled, guint32 first_line,
                 guint32 height)
{
  GStatBuf st;
  guint64 *offsets = NULL, *counts = NULL;
  guint64 end = 0;

  if (TIFFGetField (f->tif, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets) && offsets != NULL &&
      TIFFGetField (f->tif, tiled ? TIFFTAG_TILEBYTECOUNTS : TIFFTAG_STRIPBYTECOUNTS, &counts) && counts != NULL)
    end = offsets[chunk] + counts[chunk];
  if (end > 0 && g_stat (f->path, &st) == 0 && (guint64) st.st_size < end)
    {
      if (tiled)
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: the file is truncated: it has %" G_GUINT64_FORMAT " bytes, but page %u's tile %u "
                     "needs bytes up to %" G_GUINT64_FORMAT " (an incomplete copy or download?)",
                     f->path, (guint64) st.st_size, page, chunk, end);
      else
        g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT,
                     "%s: the file is truncated: it has %" G_GUINT64_FORMAT " bytes, but page %u needs bytes up "
                     "to %" G_GUINT64_FORMAT " for its lines %u to %u of %u (an incomplete copy or download?)",
                     f->path, (guint64) st.st_size, page, end, first_line + 1, height, height);
      return;
    }
  set_format_error (error, f, "page %u: %s %u is unreadable", page, tiled ? "tile" : "strip", chunk);
}

/* Lines @y_first .. @y_first + @y_count − 1 of a page: only the strips or
 * tiles that hold them are decoded; @bytes (nullable) adds their stored
 * sizes. */
typedef struct {
  guint32 y_first, y_count;
  guint64 *bytes;
} LineRange;

/* Reads lines @lr of the current directory (already checked by
 * read_page_shape) into @out (width · lr->y_count floats).  libtiff decodes,
 * un-predicts and byte-swaps. */
static gboolean
read_page_lines (TiffFile *f, guint page, const PageShape *s, const LineRange *lr, float *out, GError **error)
{
  const gsize bytes_per = s->bps / 8;
  TIFF *tif = f->tif;
  if (!check_chunks (f, page, error))
    return FALSE;

  if (TIFFIsTiled (tif))
    {
      guint32 tw = 0, th = 0;
      if (!TIFFGetField (tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField (tif, TIFFTAG_TILELENGTH, &th)
          || tw == 0 || th == 0)
        {
          set_format_error (error, f, "page %u is tiled but has no tile size", page);
          return FALSE;
        }
      tmsize_t tile_bytes = TIFFTileSize (tif);
      if (tile_bytes < (tmsize_t) ((gsize) tw * th * bytes_per))
        {
          set_format_error (error, f, "page %u: inconsistent tile size", page);
          return FALSE;
        }
      g_autofree guint8 *buf = ctr_memory_try_new (tile_bytes, 1, FALSE, "a tile", error);
      if (buf == NULL)
        {
          g_prefix_error (error, "%s: ", f->path);
          return FALSE;
        }
      for (guint32 y0 = lr->y_first / th * th; y0 < lr->y_first + lr->y_count; y0 += th)
        for (guint32 x0 = 0; x0 < s->width; x0 += tw)
          {
            guint32 tile = TIFFComputeTile (tif, x0, y0, 0, 0);
            tmsize_t got = TIFFReadEncodedTile (tif, tile, buf, tile_bytes);
            if (got < (tmsize_t) ((gsize) tw * th * bytes_per))
              {
                set_chunk_error (error, f, page, tile, TRUE, y0, s->height);
                return FALSE;
              }
            if (lr->bytes != NULL)
              *lr->bytes += TIFFGetStrileByteCount (tif, tile);
            guint32 nx = MIN (tw, s->width - x0), ny = MIN (th, s->height - y0);
            for (guint32 y = 0; y < ny; y++)
              if (y0 + y >= lr->y_first && y0 + y < lr->y_first + lr->y_count)
                convert_samples (buf + (gsize) y * tw * bytes_per,
                                 out + (gsize) (y0 + y - lr->y_first) * s->width + x0, nx, s->bps, s->format);
          }
      return TRUE;
    }

  guint32 rps = 0;
  TIFFGetFieldDefaulted (tif, TIFFTAG_ROWSPERSTRIP, &rps);
  if (rps == 0 || rps > s->height)
    rps = s->height;
  const gsize line_bytes = (gsize) s->width * bytes_per;
  tmsize_t strip_bytes = TIFFStripSize (tif);
  if (strip_bytes < (tmsize_t) (line_bytes * rps))
    {
      set_format_error (error, f, "page %u: inconsistent strip size", page);
      return FALSE;
    }
  g_autofree guint8 *buf = ctr_memory_try_new (strip_bytes, 1, FALSE, "a strip", error);
  if (buf == NULL)
    {
      g_prefix_error (error, "%s: ", f->path);
      return FALSE;
    }
  const guint32 y_end = lr->y_first + lr->y_count;
  for (guint32 y0 = lr->y_first / rps * rps; y0 < y_end; y0 += rps)
    {
      guint32 ny = MIN (rps, s->height - y0);
      guint32 strip = TIFFComputeStrip (tif, y0, 0);
      tmsize_t want = (tmsize_t) (line_bytes * ny);
      tmsize_t got = TIFFReadEncodedStrip (tif, strip, buf, want);
      if (got < want)
        {
          set_chunk_error (error, f, page, strip, FALSE, y0, s->height);
          return FALSE;
        }
      if (lr->bytes != NULL)
        *lr->bytes += TIFFGetStrileByteCount (tif, strip);
      const guint32 lo = MAX (y0, lr->y_first), hi = MIN (y0 + ny, y_end);
      convert_samples (buf + (gsize) (lo - y0) * line_bytes, out + (gsize) (lo - lr->y_first) * s->width,
                       (gsize) (hi - lo) * s->width, s->bps, s->format);
    }
  return TRUE;
}

/* The whole page: read_page_lines of every line. */
static gboolean
read_current_page (TiffFile *f, guint page, const PageShape *s, float *out, GError **error)
{
  const LineRange all = { 0, s->height, NULL };
  return read_page_lines (f, page, s, &all, out, error);
}

gboolean
ctr_tiff_probe (const char *path, CtrTiffInfo *info, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autoptr (TiffFile) f = tiff_open_read (path, error);
  if (f == NULL)
    return FALSE;
  CtrTiffInfo tmp;
  return probe_open (f, info != NULL ? info : &tmp, error);
}

float *
ctr_tiff_read (const char *path, CtrTiffInfo *info, GError **error)
{
  return ctr_tiff_read_part (path, NULL, NULL, info, NULL, error);
}

float *
ctr_tiff_read_part (const char *path, const CtrTiffRange *pages, const CtrTiffRange *lines, CtrTiffInfo *info,
                    guint64 *bytes, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  g_autoptr (TiffFile) f = tiff_open_read (path, error);
  if (f == NULL)
    return NULL;
  CtrTiffInfo in;
  if (!probe_open (f, &in, error))
    return NULL;
  if (info != NULL)
    *info = in;
  const CtrTiffRange pr = pages != NULL ? *pages : (CtrTiffRange) { 0, in.pages };
  const CtrTiffRange yr = lines != NULL ? *lines : (CtrTiffRange) { 0, in.height };
  if (pr.first + (guint64) pr.count > in.pages || yr.first + (guint64) yr.count > in.height || pr.count == 0
      || yr.count == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_FORMAT, "%s holds %u page(s) of %u lines; pages %u-%u, lines "
                   "%u-%u were asked for", path, in.pages, in.height, pr.first, pr.first + pr.count - 1, yr.first,
                   yr.first + yr.count - 1);
      return NULL;
    }

  const gsize plane = (gsize) in.width * yr.count;
  g_autofree char *what = g_strdup_printf ("%s: %u pages of %u × %u samples", path, pr.count, yr.count, in.width);
  const guint64 need = ctr_memory_mul (ctr_memory_mul (plane, pr.count), sizeof (float));
  if (!ctr_memory_check (need, what, error))
    return NULL;
  /* Every page's strips inside the file before the pages are allocated. */
  for (guint p = 0; p < pr.first + pr.count; p++)
    if (!(p == 0 ? TIFFSetDirectory (f->tif, 0) : TIFFReadDirectory (f->tif))
        || (p >= pr.first && !check_chunks (f, p, error)))
      {
        if (error != NULL && *error == NULL)
          set_format_error (error, f, "cannot read page %u", p);
        return NULL;
      }
  g_autofree float *data = ctr_memory_try_new (ctr_memory_mul (plane, pr.count), sizeof (float), FALSE, what, error);
  if (data == NULL)
    return NULL;
  if (!TIFFSetDirectory (f->tif, (tdir_t) pr.first))
    {
      set_format_error (error, f, "cannot read page %u", pr.first);
      return NULL;
    }
  const LineRange lr = { yr.first, yr.count, bytes };
  for (guint k = 0; k < pr.count; k++)
    {
      PageShape s;
      if (k > 0 && !TIFFReadDirectory (f->tif))
        {
          set_format_error (error, f, "cannot read page %u", pr.first + k);
          return NULL;
        }
      if (!read_page_shape (f, pr.first + k, &s, error)
          || !read_page_lines (f, pr.first + k, &s, &lr, data + k * plane, error))
        return NULL;
    }
  return g_steal_pointer (&data);
}

gboolean
ctr_tiff_read_page (const char *path, guint page, guint expect_width, guint expect_height,
                    float *out, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_autoptr (TiffFile) f = tiff_open_read (path, error);
  if (f == NULL)
    return FALSE;
  if (!TIFFSetDirectory (f->tif, (tdir_t) page))
    {
      set_format_error (error, f, "has no page %u", page);
      return FALSE;
    }
  PageShape s;
  if (!read_page_shape (f, page, &s, error))
    return FALSE;
  if (s.width != expect_width || s.height != expect_height)
    {
      set_format_error (error, f, "page %u is %u × %u (lines × samples), expected %u × %u",
                        page, s.height, s.width, expect_height, expect_width);
      return FALSE;
    }
  return read_current_page (f, page, &s, out, error);
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */

/* ImageJ's hyperstack header (what ImageJ itself writes for a float32 stack):
 * ImageDescription "ImageJ=1.11a\nimages=N\nslices=N\n[unit=mm\nspacing=dz\n]
 * loop=false\nmin=..\nmax=..\n" on the first page, and the pixel size as
 * X/YResolution (pixels per unit, ResolutionUnit NONE) on every page, so
 * Fiji/ImageJ opens the file as a calibrated z stack with the right contrast. */
typedef struct {
  gboolean calibrated;   /* dx, dy, dz below are valid (mm) */
  double dx, dy, dz;
} ImageJInfo;

static char *
imagej_description (const float *data, gsize n, guint pages, const ImageJInfo *ij)
{
  float lo = G_MAXFLOAT, hi = -G_MAXFLOAT;
  for (gsize i = 0; i < n; i++)
    if (isfinite (data[i]))
      {
        lo = MIN (lo, data[i]);
        hi = MAX (hi, data[i]);
      }
  if (lo > hi)
    lo = hi = 0;
  GString *s = g_string_new ("ImageJ=1.11a\n");
  char b[G_ASCII_DTOSTR_BUF_SIZE];
  if (pages > 1)
    g_string_append_printf (s, "images=%u\nslices=%u\n", pages, pages);
  if (ij != NULL && ij->calibrated)
    {
      g_string_append (s, "unit=mm\n");
      if (pages > 1)
        g_string_append_printf (s, "spacing=%s\n", g_ascii_dtostr (b, sizeof b, ij->dz));
    }
  if (pages > 1)
    g_string_append (s, "loop=false\n");
  g_string_append_printf (s, "min=%s\n", g_ascii_dtostr (b, sizeof b, lo));
  g_string_append_printf (s, "max=%s\n", g_ascii_dtostr (b, sizeof b, hi));
  return g_string_free (s, FALSE);
}

/* Pages in the order of @data, or from the last down when @reverse; @texts
 * (nullable): one more description per written page. */
typedef struct {
  gboolean reverse;
  const char *const *texts;
} PageOrder;

static gboolean
write_pages (TiffFile *f, const float *data, guint width, guint height, guint pages,
             const ImageJInfo *ij, const PageOrder *order, GError **error)
{
  const gsize plane = (gsize) width * height;
  const guint16 compression = TIFFIsCODECConfigured (COMPRESSION_ADOBE_DEFLATE)
                              ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE;
  /* libtiff may encode in place; never touch the caller's const data. */
  g_autofree float *scratch = g_try_malloc_n (plane, sizeof (float));
  if (scratch == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a page of %u × %u",
                   f->path, height, width);
      return FALSE;
    }
  for (guint p = 0; p < pages; p++)
    {
      TIFF *tif = f->tif;
      TIFFSetField (tif, TIFFTAG_IMAGEWIDTH, (guint32) width);
      TIFFSetField (tif, TIFFTAG_IMAGELENGTH, (guint32) height);
      TIFFSetField (tif, TIFFTAG_BITSPERSAMPLE, (guint16) 32);
      TIFFSetField (tif, TIFFTAG_SAMPLESPERPIXEL, (guint16) 1);
      TIFFSetField (tif, TIFFTAG_SAMPLEFORMAT, (guint16) SAMPLEFORMAT_IEEEFP);
      TIFFSetField (tif, TIFFTAG_PHOTOMETRIC, (guint16) PHOTOMETRIC_MINISBLACK);
      TIFFSetField (tif, TIFFTAG_PLANARCONFIG, (guint16) PLANARCONFIG_CONTIG);
      TIFFSetField (tif, TIFFTAG_ROWSPERSTRIP, (guint32) height);
      TIFFSetField (tif, TIFFTAG_COMPRESSION, compression);
      if (pages > 1)
        {
          TIFFSetField (tif, TIFFTAG_SUBFILETYPE, (guint32) FILETYPE_PAGE);
          TIFFSetField (tif, TIFFTAG_PAGENUMBER, (guint16) MIN (p, G_MAXUINT16),
                        (guint16) MIN (pages, G_MAXUINT16));
        }
      TIFFSetField (tif, TIFFTAG_SOFTWARE, "ctrecon");
      const char *text = order != NULL && order->texts != NULL ? order->texts[p] : NULL;
      if (p == 0 || text != NULL)
        {
          g_autofree char *head = p == 0 ? imagej_description (data, plane * pages, pages, ij) : NULL;
          g_autofree char *desc = g_strconcat (head ? head : "", text ? text : "", NULL);
          TIFFSetField (tif, TIFFTAG_IMAGEDESCRIPTION, desc);
        }
      if (ij != NULL && ij->calibrated && ij->dx > 0 && ij->dy > 0)
        {
          TIFFSetField (tif, TIFFTAG_XRESOLUTION, (float) (1.0 / ij->dx));
          TIFFSetField (tif, TIFFTAG_YRESOLUTION, (float) (1.0 / ij->dy));
          TIFFSetField (tif, TIFFTAG_RESOLUTIONUNIT, (guint16) RESUNIT_NONE);
        }
      const guint src = order != NULL && order->reverse ? pages - 1 - p : p;
      memcpy (scratch, data + (gsize) src * plane, plane * sizeof (float));
      if (TIFFWriteEncodedStrip (tif, 0, scratch, (tmsize_t) (plane * sizeof (float))) < 0
          || !TIFFWriteDirectory (tif))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write page %u of %s: %s", p, f->path,
                       f->msg.errors->len > 0 ? f->msg.errors->str : "libtiff write error");
          return FALSE;
        }
    }
  return TRUE;
}

/* The file libtiff writes through, keeping write(2)'s errno: libtiff's
 * own messages ("Error writing TIFF header", "Write error at scanline 0")
 * lose it, and "No space left on device" is what the user needs to read. */
typedef struct {
  int fd;
  int write_errno;
} Sink;

static tmsize_t
sink_read (thandle_t h, void *buf, tmsize_t n)
{
  const Sink *k = (const Sink *) h;
  return (tmsize_t) read (k->fd, buf, (size_t) n);
}

static tmsize_t
sink_write (thandle_t h, void *buf, tmsize_t n)
{
  Sink *k = (Sink *) h;
  tmsize_t done = 0;
  while (done < n)
    {
      const ssize_t w = write (k->fd, (const char *) buf + done, (size_t) (n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          k->write_errno = w < 0 ? errno : ENOSPC;
          return done > 0 ? done : -1;
        }
      done += w;
    }
  return done;
}

static toff_t
sink_seek (thandle_t h, toff_t off, int whence)
{
  const Sink *k = (const Sink *) h;
  const off_t r = lseek (k->fd, (off_t) off, whence);
  return r < 0 ? (toff_t) -1 : (toff_t) r;
}

static int
sink_close (thandle_t h)
{
  (void) h;
  return 0;  /* the descriptor is the caller's */
}

static toff_t
sink_size (thandle_t h)
{
  const Sink *k = (const Sink *) h;
  struct stat st;
  return fstat (k->fd, &st) == 0 ? (toff_t) st.st_size : 0;
}

static int
sink_map (thandle_t h, void **base, toff_t *size)
{
  (void) h, (void) base, (void) size;
  return 0;
}

static void
sink_unmap (thandle_t h, void *base, toff_t size)
{
  (void) h, (void) base, (void) size;
}

/* Writes the pages into the open temporary @fd through @sink; errors name
 * @path and, when a write failed, write(2)'s reason. */
static gboolean
write_through_sink (TiffFile *f, int fd, const char *tmp_path, const char *path, const char *mode,
                    const float *data, guint width, guint height, guint pages, const ImageJInfo *ij,
                    const PageOrder *order, GError **error)
{
  Sink sink = { fd, 0 };
  TIFFOpenOptions *opts = tiff_options_new (f);
  f->tif = TIFFClientOpenExt (tmp_path, mode, (thandle_t) &sink, sink_read, sink_write, sink_seek, sink_close,
                              sink_size, sink_map, sink_unmap, opts);
  TIFFOpenOptionsFree (opts);
  g_autoptr (GError) local = NULL;
  gboolean ok = FALSE;
  if (f->tif == NULL)
    g_set_error (&local, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path,
                 f->msg.errors->len > 0 ? f->msg.errors->str : "libtiff cannot open the file");
  else
    {
      ok = write_pages (f, data, width, height, pages, ij, order, &local);
      TIFFClose (f->tif);
      f->tif = NULL;
    }
  if (sink.write_errno != 0)
    {
      g_clear_error (&local);
      g_set_error (&local, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (sink.write_errno));
      ok = FALSE;
    }
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local));
  return ok;
}

static gboolean
write_float_imagej (const char *path, const float *data, guint width, guint height, guint pages,
                    const ImageJInfo *ij, const PageOrder *order, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (data != NULL, FALSE);
  g_return_val_if_fail (width > 0 && height > 0 && pages > 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Temporary file beside the target, so the final g_rename() is atomic. */
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmpl_name = g_strdup_printf (".%s.XXXXXX", base);
  g_autofree char *tmp_path = g_build_filename (dir, tmpl_name, NULL);
  ctr_temp_lock ();
  int fd = g_mkstemp_full (tmp_path, O_RDWR, 0666);
  const int mk_errno = errno;
  if (fd >= 0)
    ctr_temp_register (tmp_path, FALSE);
  ctr_temp_unlock ();
  if (fd < 0)
    {
      int e = mk_errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: cannot create a file in %s: %s",
                   path, dir, g_strerror (e));
      return FALSE;
    }

  g_autoptr (TiffFile) f = tiff_file_new (path);
  /* BigTIFF once the pixels alone come near the 4 GiB limit of classic TIFF. */
  const double total = (double) width * height * pages * sizeof (float);
  const char *mode = total > 3.5e9 ? "w8" : "w";
  gboolean ok = write_through_sink (f, fd, tmp_path, path, mode, data, width, height, pages, ij, order, error);

  /* fsync before the rename: a crash must leave the old file or the new one. */
  if (ok && fsync (fd) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      ok = FALSE;
    }
  if (close (fd) != 0 && ok)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      ok = FALSE;
    }
  ctr_temp_lock ();
  if (ok && g_rename (tmp_path, path) != 0)
    {
      int e = errno;
      g_set_error (error, CTR_ERROR, CTR_ERROR_IO, "cannot replace %s: %s", path, g_strerror (e));
      ok = FALSE;
    }
  if (!ok)
    g_unlink (tmp_path);
  ctr_temp_forget (tmp_path);
  ctr_temp_unlock ();
  return ok;
}

gboolean
ctr_tiff_write_float (const char *path, const float *data, guint width, guint height,
                      guint pages, GError **error)
{
  return write_float_imagej (path, data, width, height, pages, NULL, NULL, error);
}

gboolean
ctr_tiff_write_volume (const char *path, const CtrVolume *v, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (v != NULL && v->data != NULL, FALSE);
  /* Calibrated in mm unless the volume is in pixel units. */
  ImageJInfo ij = { v->unit == NULL || strstr (v->unit, "pixel") == NULL, v->grid.dx, v->grid.dy, v->grid.dz };
  return write_float_imagej (path, v->data, v->grid.nx, v->grid.ny, v->grid.nz, &ij, NULL, error);
}

gboolean
ctr_tiff_write_volume_pages (const char *path, const CtrVolume *v, gboolean reverse,
                             const char *const *page_texts, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (v != NULL && v->data != NULL, FALSE);
  ImageJInfo ij = { v->unit == NULL || strstr (v->unit, "pixel") == NULL, v->grid.dx, v->grid.dy, v->grid.dz };
  PageOrder order = { reverse, page_texts };
  return write_float_imagej (path, v->data, v->grid.nx, v->grid.ny, v->grid.nz, &ij, &order, error);
}
