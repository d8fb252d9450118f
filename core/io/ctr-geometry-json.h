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
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/**
 * ctr_geometry_to_json_object:
 * @g: the geometry (not validated here).
 *
 * Returns: (transfer full): a new JSON object holding the geometry keys of
 *   FORMAT.md ("type", "detector_shape", "views", "detector_cols",
 *   "detector_rows", distances, pitches, offsets, "rows_increase_with_v",
 *   "pixel_size_known", "angles_rad"; "vectors" for a vector geometry,
 *   whose circular keys are then its summary, ignored on reading; the
 *   helical keys of ctr_geometry_json_add_helix).  Unref with
 *   json_object_unref().
 */
JsonObject *ctr_geometry_to_json_object (const CtrGeometry *g);

/**
 * ctr_geometry_json_read_vectors:
 * @o: a geometry.json object holding "vectors".
 * @beam, @views, @rows, @cols: already read from @o's "type", "views",
 *   "detector_rows", "detector_cols".
 * @where: the file name, for messages.
 * The "vectors" form: one array per view, 12 numbers [S, D, u, v] (mm,
 * ctr-geometry-vectors.h; ASTRA cone_vec order) or, for fan beam, 6 numbers
 * [S_x, S_y, D_x, D_y, u_x, u_y] (ASTRA fanflat_vec).  Fan beam also reads
 * "detector_pitch_v_mm" / "detector_offset_v_mm" for a stack of slices;
 * both read "pixel_size_known".  The circular keys are ignored.
 * Returns: (transfer full): the geometry, or NULL with CTR_ERROR_FORMAT (a
 *   malformed entry), CTR_ERROR_INVALID_GEOMETRY (a wrong count or a
 *   degenerate view, ctr_geometry_new_from_vectors) or CTR_ERROR_UNSUPPORTED
 *   (parallel beam).
 */
CtrGeometry *ctr_geometry_json_read_vectors (JsonObject *o, CtrBeam beam, guint views, guint rows, guint cols,
                                             const char *where, GError **error);

/* Adds @g's per-view vectors to @o as "vectors" (12 numbers per view). */
void ctr_geometry_json_add_vectors (JsonObject *o, const CtrGeometry *g);

/* TRUE when @o holds any of the helical keys below that move the source
 * (source z, feed, pitch factor, focal-spot shifts). */
gboolean ctr_geometry_json_has_helix (JsonObject *o);

/**
 * ctr_geometry_json_read_helix:
 * @o: a geometry.json object; @g: the cone-beam geometry read from its other
 *   keys (views and angles set).  @helical: "type" is "helical" (a source z
 *   is then required).
 * The helical keys (README, "Helical scans"): the source z of every view,
 * mm ("source_z_mm", a list, or "source_z_start_mm" with
 * "source_z_step_mm" per view or "table_feed_per_rotation_mm" per 2π of
 * view angle), the flying focal spot ("focal_shift_angle_rad",
 * "focal_shift_z_mm", "focal_shift_radial_mm", a list each: CtrGeometry's
 * focal_shift) and "table_reversed".  Sets the fields of @g; validation is
 * the caller's (ctr_geometry_validate).
 * Returns: FALSE with CTR_ERROR_FORMAT (a malformed key, a helical type
 *   without a source z) or CTR_ERROR_INVALID_GEOMETRY (a list whose length
 *   is not "views"), CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_geometry_json_read_helix (JsonObject *o, CtrGeometry *g, gboolean helical, const char *where,
                                       GError **error);

/* For "type": "helical": the source z must move, and a stated
 * "table_feed_per_rotation_mm" (1 %) or "pitch_factor" (2 %) must agree with
 * it; else FALSE with CTR_ERROR_INVALID_GEOMETRY ("inconsistent feed"). */
gboolean ctr_geometry_json_check_feed (JsonObject *o, const CtrGeometry *g, const char *where, GError **error);

/* Adds @g's helical keys to @o: "source_z_mm" when set, with
 * "table_feed_per_rotation_mm" and "pitch_factor" for a helix (ctr_helix_feed_mm,
 * ctr_helix_pitch), the three focal-shift lists and "table_reversed" when set. */
void ctr_geometry_json_add_helix (JsonObject *o, const CtrGeometry *g);

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

/**
 * ctr_geometry_json_write_offset_u:
 * @source_path: a geometry.json (circular: not validated here).
 * @curved: the geometry's detector is curved (the offset is in radians).
 * @offset_u: the new detector offset along u (mm, or rad when @curved).
 * @tilt_rad: the new "detector_tilt_rad" (data/ctr-detector-tilt.h), or NaN
 *   to keep the file's own (or none).
 * @path: where to write (a temporary beside it, renamed over it).
 * The file at @source_path with "detector_offset_u_mm" (or, when @curved,
 * "detector_offset_u_rad") set to @offset_u and the other of the two keys
 * removed, and "detector_tilt_rad" set to a finite @tilt_rad; every other
 * key kept as it is, in its order.  Relative file
 * names are made absolute when @path lies in another folder, as
 * ctr_geometry_json_write() does, so the written file loads the same data.
 * Returns: FALSE with CTR_ERROR_IO (unreadable source, unwritable @path) or
 *   CTR_ERROR_FORMAT (the source is not a JSON object).
 */
gboolean ctr_geometry_json_write_offset_u (const char *source_path, gboolean curved, double offset_u,
                                           double tilt_rad, const char *path, GError **error);

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
