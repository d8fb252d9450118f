/* ctr-vendor.h — lab micro-CT scanners' own files: Nikon XTek (.xtekct)
 * and Bruker SkyScan (.log), each an INI-like text of key=value lines beside
 * its TIFF projections, read as a cone-beam dataset.
 *
 * docs/readers.md says what each key becomes in FORMAT.md's geometry (the
 * sign of the detector offset, the sense of rotation, the first angle).
 * The projections are transmitted intensities: line integrals are
 * −ln(I / I0) with I0 the file's white level (Nikon WhiteLevel, SkyScan
 * Reference Intensity), the "I0" of a geometry.json.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-projections.h"
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

/* ---- the shared INI reading (ctr-vendor-ini.c) ---- */

/* A key file as read by GKeyFile; lines that are neither a [section], a
 * comment nor key=value (free text some scanners write) are dropped first. */
typedef struct {
  GKeyFile *kf;
  char *path;    /* absolute */
} CtrVendorIni;

void ctr_vendor_ini_free (CtrVendorIni *ini);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrVendorIni, ctr_vendor_ini_free)

/* Reads @path.  NULL with CTR_ERROR_IO (missing, unreadable, not a regular
 * file) or CTR_ERROR_FORMAT (no [section] at all, or GKeyFile's refusal). */
CtrVendorIni *ctr_vendor_ini_load (const char *path, GError **error);

/* The value of @key (compared without case and surrounding blanks) in the
 * section @group (likewise; NULL: the first section that has it), blanks
 * stripped; NULL when absent.  Transfer full. */
char *ctr_vendor_ini_value (const CtrVendorIni *ini, const char *group, const char *key);

/* The number that starts the value of @key ("13.965 mm" gives 13.965).
 * Absent and not @required: @fallback.  FALSE with CTR_ERROR_FORMAT naming
 * the file and key when it is absent and @required, or not a finite number. */
gboolean ctr_vendor_ini_number (const CtrVendorIni *ini, const char *group, const char *key,
                                gboolean required, double fallback, double *out, GError **error);

/* As ctr_vendor_ini_number() for a whole number within 1 … @max. */
gboolean ctr_vendor_ini_count (const CtrVendorIni *ini, const char *group, const char *key,
                               gboolean required, guint fallback, guint max, guint *out, GError **error);

/* The paths of @views single-page TIFFs beside the scan file @ini,
 * "<@stem><index, @digits wide>.tif" with indices from @first (NULL-ended;
 * g_strfreev), or NULL with CTR_ERROR_OUT_OF_MEMORY when the names (a
 * pointer and a path a view, checked before any is made) do not fit. */
char **ctr_vendor_view_paths (const CtrVendorIni *ini, const char *stem, guint digits, guint first, guint views,
                              GError **error);

/**
 * ctr_vendor_read_views:
 * @paths: (array length=n_views): one single-page TIFF per view, any sample
 *   type (read by ctr_tiff_read()).
 * Returns: (transfer full): counts [view][row][col] with ->i0 = @i0, or NULL
 *   with CTR_ERROR_IO (a missing file, named with its view), ctr_tiff_read()'s
 *   errors, CTR_ERROR_FORMAT (an image that is not @n_rows lines × @n_cols
 *   samples on one page, named with the size the scan file states),
 *   CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrProjections *ctr_vendor_read_views (char **paths, guint n_views, guint n_rows, guint n_cols, double i0,
                                       const char *where, GCancellable *cancellable, GError **error);

/* The dataset's common end: name, path, inputs (the scan file and @paths),
 * @g and @p (both taken), checked (ctr_geometry_validate,
 * ctr_projections_check_finite) and turned into line integrals.  NULL with
 * those functions' errors prefixed by @where; @g and @p freed. */
CtrDataset *ctr_vendor_dataset (const char *where, const char *name, CtrGeometry *g, CtrProjections *p,
                                char **paths, GError **error);

/* ---- Nikon XTek (ctr-xtekct.c) ---- */

/* TRUE when @path is a regular file whose name ends in .xtekct. */
gboolean ctr_xtekct_is_xtekct (const char *path);

/**
 * ctr_xtekct_load_dataset:
 * @path: a Nikon .xtekct file; its projections <Name>_0001.tif … beside it.
 * Returns: (transfer full): a cone-beam dataset (flat detector), or NULL with
 *   CTR_ERROR_IO, CTR_ERROR_FORMAT (a missing or non-numeric key, named; a
 *   projection of another size than DetectorPixelsX × DetectorPixelsY),
 *   CTR_ERROR_INVALID_GEOMETRY, CTR_ERROR_INVALID_DATA,
 *   CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrDataset *ctr_xtekct_load_dataset (const char *path, GCancellable *cancellable, GError **error);

/* ---- Bruker SkyScan (ctr-skyscan.c) ---- */

/* TRUE when @path is a regular file named *.log whose text has an
 * [Acquisition] section with a "Filename Prefix" (a SkyScan scan log). */
gboolean ctr_skyscan_is_log (const char *path);

/**
 * ctr_skyscan_load_dataset:
 * @path: a SkyScan .log; its projections <Filename Prefix><index>.tif beside
 *   it (index from 0, "Filename Index Length" digits, 8 by default).
 * Returns: (transfer full): a cone-beam dataset (flat detector), or NULL with
 *   the errors of ctr_xtekct_load_dataset().
 */
CtrDataset *ctr_skyscan_load_dataset (const char *path, GCancellable *cancellable, GError **error);

G_END_DECLS
