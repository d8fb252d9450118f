/* ctr-geometry-json.h — write a CtrGeometry as a geometry.json (FORMAT.md).
 *
 * The writer is the inverse of ctr_dataset_parse_geometry(): every field of
 * CtrGeometry becomes the FORMAT.md key that ctr_dataset_load() reads back
 * (lengths in mm, angles in radians, a curved detector's column pitch and
 * offset in radians under the *_rad keys), the view angles as the explicit
 * list "angles_rad" in acquisition order, written with round-trip precision.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "ctr-geometry.h"

G_BEGIN_DECLS

/**
 * ctr_geometry_to_json_object:
 * @g: the geometry (not validated here).
 *
 * Returns: (transfer full): a new JSON object holding the geometry keys of
 *   FORMAT.md ("type", "detector_shape", "views", "detector_cols",
 *   "detector_rows", distances, pitches, offsets, "rows_increase_with_v",
 *   "pixel_size_known", "angles_rad"; a helical geometry as "type":
 *   "helical" with "source_z_mm", "table_feed_per_rotation_mm" and
 *   "pitch_factor" (computed from the source z), any geometry with a flying
 *   focal spot "focal_shift_angle_rad", "focal_shift_z_mm",
 *   "focal_shift_radial_mm", and "table_reversed" when set).  Unref with
 *   json_object_unref().
 */
JsonObject *ctr_geometry_to_json_object (const CtrGeometry *g);

/**
 * ctr_geometry_json_write:
 * @g: a geometry; it is validated first (ctr_geometry_validate).
 * @name: (nullable): the dataset's "name"; NULL keeps the source's name or
 *   leaves the key out.
 * @source_path: (nullable): a geometry.json whose other keys ("kind",
 *   "projections", "reference", "variants", "flat", "dark", "I0", "notes",
 *   and any unknown key) are carried over, so that the written file still
 *   loads its data with ctr_dataset_load().  Relative file names inside them
 *   ("file", "pattern", "folder", "flat", "dark") are rewritten as absolute
 *   paths when @path lies in another folder than @source_path.
 * @path: where to write; the text goes to a temporary file in the same folder
 *   that is then renamed over @path (atomic on POSIX file systems).
 *
 * Returns: FALSE with CTR_ERROR_INVALID_GEOMETRY (the validation message),
 *   CTR_ERROR_IO (the source cannot be read, or @path cannot be written, with
 *   the path and the reason) or CTR_ERROR_FORMAT (the source is not a JSON
 *   object).
 */
gboolean ctr_geometry_json_write (const CtrGeometry *g, const char *name,
                                  const char *source_path, const char *path,
                                  GError **error);

/* Copies every member of @src into @dst (deep copies); members @dst already
 * has are kept unless @replace. */
void ctr_json_object_merge (JsonObject *dst, JsonObject *src, gboolean replace);

/**
 * ctr_json_object_write:
 * @o as indented JSON text into @path, through a temporary file beside it
 * that is renamed over @path (readers see the old file or the new one).
 * Returns: FALSE with CTR_ERROR_IO naming the path and the reason.
 */
gboolean ctr_json_object_write (JsonObject *o, const char *path, GError **error);

G_END_DECLS
