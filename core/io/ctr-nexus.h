/* ctr-nexus.h — NeXus NXtomo scans (HDF5) as projections with their flats
 * and darks.
 *
 * NXtomo (NeXus application definition; manual.nexusformat.org, "NXtomo"):
 * one stack of detector frames [frame][row][col] at /entry/data/data (or
 * /entry/data when that is the dataset itself, or
 * /entry/instrument/detector/data), an image_key per frame
 * (/entry/instrument/detector/image_key or /entry/data/image_key: 0
 * projection, 1 flat field, 2 dark field, 3 invalid; absent: every frame a
 * projection) and the sample's rotation angle per frame
 * (/entry/sample/rotation_angle or /entry/data/rotation_angle; degrees
 * unless its "units" attribute says rad or radians).
 *
 * Reading needs libhdf5; a build without it (meson option "nexus") still
 * recognises the files and refuses them with CTR_ERROR_UNSUPPORTED.
 * docs/readers.md says what each dataset becomes.
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-projections.h"
#include "io/ctr-dataset.h"

G_BEGIN_DECLS

/**
 * CtrNexusScan:
 * @projections: counts [view][row][col] (float32, col fastest) of the frames
 *   with image_key 0 in file order; ->flat is the per-pixel median of the
 *   flat frames (NULL without any), ->dark the median of the dark frames
 *   (NULL without any).  Owned.
 * @angles_rad: (array length=n_views): the projections' rotation angles in
 *   radians, converted from the file's unit, file order.  Owned.
 * @n_flats, @n_darks: how many flat and dark frames the file holds.
 * @data_path: the HDF5 path the frames were read from.
 */
typedef struct {
  CtrProjections *projections;
  double *angles_rad;
  guint n_flats, n_darks;
  char *data_path;
} CtrNexusScan;

void ctr_nexus_scan_free (CtrNexusScan *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrNexusScan, ctr_nexus_scan_free)

/* TRUE when this build reads NeXus files (it was built with libhdf5). */
gboolean ctr_nexus_available (void);

/* TRUE when @path is a regular file that starts with the HDF5 signature, or
 * whose name ends in .nxs, .nx5, .h5, .hdf5 or .hdf (then the reader says
 * when it is not HDF5).  Never fails. */
gboolean ctr_nexus_is_nexus (const char *path);

/**
 * ctr_nexus_read:
 * @path: an HDF5 file holding an NXtomo entry.
 * Reads the frames one at a time (HDF5 converts any numeric type to float);
 * HDF5's own error printing is switched off while it reads.
 * Returns: (transfer full): the scan, or NULL with
 *   CTR_ERROR_UNSUPPORTED (this build has no NeXus support),
 *   CTR_ERROR_IO (missing or unreadable file),
 *   CTR_ERROR_FORMAT (not HDF5; no data set at the paths above; data not of
 *     rank 3; image_key or rotation_angle not of rank 1 or not as long as
 *     the frames; no frame with image_key 0; an image_key outside 0…3;
 *     a rotation angle that is not finite),
 *   CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 *   Every message names @path and the HDF5 path concerned.
 */
CtrNexusScan *ctr_nexus_read (const char *path, GCancellable *cancellable, GError **error);

/**
 * ctr_nexus_load_dataset:
 * @path: an NXtomo file read on its own (`ctrecon-cli reconstruct FILE.nxs`).
 * The dataset of a parallel-beam scan: the rotation angles become the view
 * angles β (FORMAT.md's sense), image line 0 is the top row
 * (rows_increase_with_v FALSE), pitches of one detector pixel
 * (pixel_size_known FALSE: reconstructions in 1/pixel), the rotation axis
 * at the detector's centre column (detector offset 0; a warning says so).
 * Counts become line integrals with the median flat and dark.  No reference.
 * Returns: (transfer full): the dataset, or NULL with ctr_nexus_read()'s
 *   errors, CTR_ERROR_FORMAT when the file has no flat field (a
 *   geometry.json with "layout": "nexus" and "I0" reads such a file),
 *   ctr_projections_to_line_integrals()'s, CTR_ERROR_INVALID_GEOMETRY.
 */
CtrDataset *ctr_nexus_load_dataset (const char *path, GCancellable *cancellable, GError **error);

/**
 * ctr_nexus_median_planes:
 * The per-pixel median of @n planes of @plane floats each, stored one after
 * the other in @stack ([frame][pixel]); the result in @out[plane].  An even
 * count takes the mean of the middle two.  @what names the frames for a
 * message ("the flat frames").
 * Returns: TRUE; FALSE with CTR_ERROR_OUT_OF_MEMORY when one pixel's @n
 *   samples (4·@n bytes) cannot be allocated (@out untouched).
 */
gboolean ctr_nexus_median_planes (const float *stack, guint n, gsize plane, float *out, const char *what,
                                  GError **error);

G_END_DECLS
