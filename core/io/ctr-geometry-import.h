/* ctr-geometry-import.h — geometries from the tools users come from:
 * ASTRA projection geometries and RTK geometry XML, into CtrGeometry (then
 * written as geometry.json with ctr_geometry_json_write).
 *
 * ASTRA (van Aarle et al., Opt. Express 2016; ASTRA's "geometries" pages):
 * the Python `proj_geom` dict written as JSON with the same keys.  ASTRA's
 * frame is FORMAT.md's: `parallel` and `fanflat` angles are β,
 * DetectorWidth the column pitch, DistanceOriginSource the SOD,
 * DistanceOriginDetector = SDD − SOD, column 0 at −u; `cone` has
 * DetectorSpacingX/Y and rows along +z; `fanflat_vec` and `cone_vec` are
 * our per-view vectors (ctr-geometry-vectors.h) verbatim.  `parallel_vec`
 * (ray r, detector centre d, column step u per view) becomes the circular
 * parallel beam with β = atan2 (u_y, u_x) (unwrapped along the views),
 * pitch |u| and offset d·u/|u|, as ASTRA makes `parallel` vectors (r =
 * (sin β, −cos β), d = 0, u = pitch (cos β, sin β)); rays not across the
 * row (|cos (r, u)| > 1e-6) and a pitch or offset that changes between
 * views (by more than 1e-6 of the pitch) are refused (our parallel beam has
 * no per-view vectors).  ASTRA stores cone-beam
 * projections as [row][view][col]; ours are [view][row][col] (the geometry
 * does not change, the data must be transposed).
 *
 * RTK (Rit et al., J. Phys. Conf. Ser. 2014; RTK's "Geometry" page, IEC
 * 61217): `RTKThreeDCircularGeometry` XML as written by
 * rtk::ThreeDCircularProjectionGeometryXMLFileWriter (versions 2 and 3), per
 * projection SID, SDD, GantryAngle, Out-of-plane and In-plane angles (deg),
 * ProjectionOffsetX/Y and SourceOffsetX/Y (mm); values shared by every
 * projection may sit once at the top.  RTK's fixed frame (x_r, y_r, z_r)
 * has the rotation axis y_r and the source at +z_r at gantry angle 0; with
 * R = Rz(−in-plane)·Rx(−out-of-plane)·Ry(−gantry) (ITK's ZXY Euler order):
 *   source          S_r = Rᵀ·(sox, soy, SID)
 *   detector point  X_r = Rᵀ·(u + pox, v + poy, SID − SDD)
 * for detector coordinates (u, v) of the projection image (mm), and
 * ours = (x_r, −z_r, y_r) (right-handed; the gantry angle becomes β).
 * The XML has no detector size: the projection image's columns, rows,
 * spacing and origin come from CtrRtkDetector.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/**
 * ctr_geometry_import_astra:
 * @json_text: an ASTRA projection geometry as a JSON object ("type":
 *   "parallel", "parallel_vec", "fanflat", "fanflat_vec", "cone" or
 *   "cone_vec", and its keys:
 *   DetectorWidth, DetectorCount, ProjectionAngles (rad),
 *   DistanceOriginSource, DistanceOriginDetector, DetectorSpacingX/Y,
 *   DetectorRowCount, DetectorColCount, Vectors).
 * @length: bytes of @json_text, or -1 when NUL-terminated.
 * Returns: (transfer full): the geometry (circular for parallel, fanflat and
 *   cone, and parallel_vec; per-view vectors for fanflat_vec and cone_vec),
 *   or NULL with CTR_ERROR_FORMAT (not JSON, a missing or mistyped key
 *   named), CTR_ERROR_UNSUPPORTED (an ASTRA type we do not read:
 *   parallel3d, parallel3d_vec, …; parallel_vec vectors no circular
 *   parallel beam describes, with the view and the figures) or
 *   CTR_ERROR_INVALID_GEOMETRY (ctr_geometry_validate's message).
 */
CtrGeometry *ctr_geometry_import_astra (const char *json_text, gssize length, GError **error);

/* The RTK projection images' layout (ITK origin and spacing, identity
 * direction): @origin_u/@origin_v are the physical coordinates (mm) of pixel
 * (0, 0); NAN centres the detector (origin = −(n − 1)/2 · spacing). */
typedef struct {
  guint cols, rows;
  double spacing_u_mm, spacing_v_mm;
  double origin_u_mm, origin_v_mm;
} CtrRtkDetector;

/**
 * ctr_geometry_import_rtk:
 * @xml_text: an RTKThreeDCircularGeometry document.
 * @length: bytes, or -1 when NUL-terminated.
 * @det: the projection images' size, spacing and origin.
 * Returns: (transfer full): a cone-beam geometry with per-view vectors (see
 *   above), or NULL with CTR_ERROR_FORMAT (not that XML; the element or value
 *   named), CTR_ERROR_UNSUPPORTED (a cylindrical detector,
 *   RadiusCylindricalDetector ≠ 0; parallel geometry, SDD = 0),
 *   CTR_ERROR_INVALID_GEOMETRY or CTR_ERROR_OUT_OF_MEMORY (the projections'
 *   values, 88 bytes each, or their vectors do not fit).
 */
CtrGeometry *ctr_geometry_import_rtk (const char *xml_text, gssize length, const CtrRtkDetector *det,
                                      GError **error);

G_END_DECLS
