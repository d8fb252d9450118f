/* ctr-calib-output.h — a calibration written as a new geometry.json: the
 * input geometry.json with the detector offset along u (and a significant
 * tilt) replaced, every other key kept (ctr-calib.h, FORMAT.md).  What
 * `ctrecon-cli calibrate --output` and the window's Calibrate… Save As
 * share. */
#pragma once

#include <glib.h>
#include "calib/ctr-calib.h"
#include "io/ctr-output-set.h"

G_BEGIN_DECLS

/**
 * ctr_calib_stated_tilt:
 * The "detector_tilt_rad" of the geometry.json @source (radians; 0 when
 * absent or not a number) into @tilt.
 * Returns: FALSE with CTR_ERROR_IO or CTR_ERROR_FORMAT when @source cannot
 *   be read as a JSON file.
 */
gboolean ctr_calib_stated_tilt (const char *source, double *tilt, GError **error);

/* The least tilt written: the axis's image moves by this many columns
 * between the middle row and the outermost (less is not worth the blur of
 * resampling every view). */
#define CTR_CALIB_TILT_MIN_COLS 0.25

/* How many columns the tilt @tilt (radians) moves the axis's image by
 * between the middle row of @g and the outermost. */
double ctr_calib_tilt_columns (const CtrGeometry *g, double tilt);

/**
 * ctr_calib_written_tilt:
 * The "detector_tilt_rad" a calibrated geometry gets: @stated_tilt (the
 * input's, radians, already undone by the loader) plus @r's measured
 * tilt when that exceeds twice its uncertainty and moves the axis's image
 * of @g by CTR_CALIB_TILT_MIN_COLS or more (ctr_calib_tilt_columns); NaN
 * otherwise (the key is then left as it was).
 */
double ctr_calib_written_tilt (const CtrGeometry *g, const CtrCalibResult *r, double stated_tilt);

/**
 * ctr_calib_stage_geometry:
 * @outputs: a checked output set (ctr_output_set_check) in which @source
 *   is an input (ctr_output_set_add_geometry), so that it is never
 *   replaced.
 * @index: the output (a CTR_OUTPUT_FILE) to write.
 * @source: the geometry.json @g and @r come from.
 * @written_tilt: (out) (optional): ctr_calib_written_tilt's value (NaN:
 *   not written).
 * Writes into @index's staging file (ctr_output_set_stage; the caller
 * commits) @source with "detector_offset_u_mm" ("_rad" for a curved
 * detector) = @r->offset_u and, when significant, "detector_tilt_rad";
 * relative file names made absolute when the output lies in another
 * folder (ctr_geometry_json_write_offset_u).
 * Returns: FALSE with the output set's errors, CTR_ERROR_IO or
 *   CTR_ERROR_FORMAT (@source unreadable or not a JSON object).
 */
gboolean ctr_calib_stage_geometry (CtrOutputSet *outputs, guint index, const char *source, const CtrGeometry *g,
                                   const CtrCalibResult *r, double *written_tilt, GError **error);

G_END_DECLS
