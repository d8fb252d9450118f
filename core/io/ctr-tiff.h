/* ctr-tiff.h — TIFF input and output through libtiff.
 *
 * Reading accepts 8/16/32-bit unsigned and 16/32-bit signed integers and 32/64-bit
 * IEEE float, one sample per pixel, strips or tiles, any number of pages
 * (directories), every page the same size.  Values come back as float32.
 * libtiff's own warning/error handlers are replaced so nothing is printed; its
 * messages end up in the GError.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-volume.h"

G_BEGIN_DECLS

/**
 * CtrTiffInfo:
 * Shape of a TIFF: @pages directories of @height lines × @width samples,
 * @bits_per_sample and @sample_format (1 = uint, 2 = int, 3 = IEEE float, as in
 * the TIFF tag SampleFormat).
 */
typedef struct {
  guint width, height, pages;
  guint bits_per_sample;
  guint sample_format;
} CtrTiffInfo;

/* Shape of the file without reading its pixels.  CTR_ERROR_IO (missing,
 * unreadable), CTR_ERROR_FORMAT (not a TIFF, pages of different size, more than
 * one sample per pixel, unsupported sample type). */
gboolean ctr_tiff_probe (const char *path, CtrTiffInfo *info, GError **error);

/* Whether @path is a regular file that starts like a TIFF ("II*\0",
 * "MM\0*", or BigTIFF's 43). */
gboolean ctr_tiff_is_tiff (const char *path);

/**
 * ctr_tiff_read:
 * Reads every page of @path into a new float32 array [page][line][sample]
 * (g_free).  @info (out, optional) receives the shape.  Errors as
 * ctr_tiff_probe, plus CTR_ERROR_OUT_OF_MEMORY.
 */
float *ctr_tiff_read (const char *path, CtrTiffInfo *info, GError **error);

/* A range of pages or lines: @first .. @first + @count − 1. */
typedef struct {
  guint first, count;
} CtrTiffRange;

/**
 * ctr_tiff_read_part:
 * Reads pages @pages (NULL: all) and, of each, lines @lines (NULL: all) of
 * @path into a new float32 array [page][line][sample] (g_free): the stored
 * strips (or tiles) that hold those lines are the only pixel data decoded
 * (a page stored as one strip is decoded whole, the lines kept).  @info
 * (out, optional): the whole file's shape, set before any range check.
 * @bytes (inout, nullable): adds the stored bytes of the strips or tiles
 * decoded.  Errors as ctr_tiff_read; CTR_ERROR_FORMAT when a range is empty
 * or lies outside the file.
 */
float *ctr_tiff_read_part (const char *path, const CtrTiffRange *pages, const CtrTiffRange *lines,
                           CtrTiffInfo *info, guint64 *bytes, GError **error);

/**
 * ctr_tiff_read_page:
 * Reads page @page (0-based) into @out, which holds info.width·info.height floats.
 * CTR_ERROR_FORMAT if the page does not exist or is not @expect_width × @expect_height.
 */
gboolean ctr_tiff_read_page (const char *path, guint page, guint expect_width,
                             guint expect_height, float *out, GError **error);

/**
 * ctr_tiff_write_float:
 * Writes @pages pages of @height × @width float32 (SampleFormat IEEE, one
 * strip per page, deflate) from @data ([page][line][sample]), with ImageJ's
 * header (ImageDescription "ImageJ=...\nimages=N\nslices=N\n...min/max") so
 * ImageJ/Fiji opens it as a float32 stack.  The file is
 * written to a temporary name in the same folder and renamed over @path, so a
 * failure never leaves a half-written or clobbered file.  CTR_ERROR_IO.
 */
gboolean ctr_tiff_write_float (const char *path, const float *data, guint width,
                               guint height, guint pages, GError **error);

/* A volume as a float32 multi-page TIFF, one page per z slice from the lowest z
 * up, row 0 = +y (FORMAT.md).  ImageJ-compatible as ctr_tiff_write_float and
 * calibrated: X/YResolution = 1/dx, 1/dy pixels per mm and "unit=mm",
 * "spacing=dz" in the description (not for volumes in 1/pixel).  Atomic as
 * ctr_tiff_write_float. */
gboolean ctr_tiff_write_volume (const char *path, const CtrVolume *v, GError **error);

/**
 * ctr_tiff_write_volume_pages:
 * As ctr_tiff_write_volume, with the pages from the last slice down when
 * @reverse (a stack in another order than z, e.g. a helical scan's
 * increasing table coordinate when that runs along −z), and @page_texts
 * (nullable; one per written page, in the written order) added to each
 * page's ImageDescription — on page 0 after ImageJ's header, so they should
 * be "key=value
" lines ImageJ ignores ("z_mm=81
").  Atomic as
 * ctr_tiff_write_float.  CTR_ERROR_IO, CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_tiff_write_volume_pages (const char *path, const CtrVolume *v, gboolean reverse,
                                      const char *const *page_texts, GError **error);

G_END_DECLS
