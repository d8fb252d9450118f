/* ctr-detector-tilt.h — a detector turned in its own plane (an in-plane
 * tilt), corrected by resampling its projections onto an untilted one.
 *
 * geometry.json's "detector_tilt_rad" (CT Recon's key, docs/readers.md):
 * the angle t by which the detector is turned in its plane about the point
 * u = 0, v = 0 (where the central ray meets it; for parallel beam, the
 * rotation axis's foot on the middle row when offset_v is 0), counter-
 * clockwise from +u towards +v.  Detector pixel (row i, column j) then lies
 * at R(t)·(u_j, v_i) in the plane, not at (u_j, v_i); the rotation axis's
 * image leans towards +u as v grows by t, the sign `ctrecon-cli calibrate`
 * reports.
 *
 * The loader resamples every view onto the untilted detector: the value at
 * (u, v) is read at R(−t)·(u, v) = (u cos t + v sin t, −u sin t + v cos t)
 * by Keys's cubic convolution (a = −1/2; Keys 1981) over the 4 × 4 pixels
 * around it (positions off the detector take its nearest edge; bilinear
 * interpolation blurs a half-pixel shift as much as the tilt misplaces it).  On a flat detector and in parallel beam the tilted and untilted
 * detectors are the same plane, so this is exact up to the interpolation,
 * and every method and operator sees an untilted geometry.  A single row
 * cannot be resampled (nothing above or below it): such a scan keeps its
 * data and the loader says the tilt is ignored.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

/* The largest tilt accepted, radians (20°): beyond it a degree was typed
 * for a radian, or the scan is not a tilted detector. */
#define CTR_DETECTOR_MAX_TILT_RAD 0.35

/**
 * ctr_projections_untilt:
 * @p: line integrals [view][row][col] of geometry @g; resampled in place
 *   (its mask, flat and dark planes by their nearest pixel).
 * @g: parallel beam, or fan/cone beam with a flat detector; no per-view
 *   vectors (their u and v steps hold any tilt themselves).
 * @tilt_rad: the detector's in-plane tilt (see above), |t| ≤
 *   CTR_DETECTOR_MAX_TILT_RAD; 0 leaves @p as it is.
 * Returns: FALSE with CTR_ERROR_INVALID_GEOMETRY (a tilt out of range or
 *   not finite, a curved detector, per-view vectors, @p's sizes not @g's),
 *   CTR_ERROR_INVALID_DATA (counts) or CTR_ERROR_OUT_OF_MEMORY; @p is then
 *   unchanged.  @p with one row: TRUE, unchanged (nothing to resample).
 */
gboolean ctr_projections_untilt (CtrProjections *p, const CtrGeometry *g, double tilt_rad, GError **error);

G_END_DECLS
