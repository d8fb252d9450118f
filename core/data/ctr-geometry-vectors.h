/* ctr-geometry-vectors.h — per-view vector geometry: for each view the
 * source position, the detector centre and the detector's column (u) and row
 * (v) step vectors, in mm, in FORMAT.md's world frame.
 *
 * This is ASTRA's `fanflat_vec` / `cone_vec` convention (Palenstijn et al.,
 * J. Struct. Biol. 2011 §2; ASTRA's documentation "3D geometries"), written in
 * our terms:
 *
 *        detector centre D          pixel (row i, col j) at
 *        ──────────●──────── u →       D + (j − (cols−1)/2)·u + (i − (rows−1)/2)·v
 *                 / \                (v: one row step, mm; for fan beam the
 *                /   \ rays            rows are the slices of a stack and v is
 *               /     \                not used by the rays)
 *              S  source
 *
 * Each view is 12 doubles, [view][12]:
 *   S_x S_y S_z  D_x D_y D_z  u_x u_y u_z  v_x v_y v_z
 * (ASTRA's cone_vec row order).  Fan beam uses the x and y components (ASTRA's
 * fanflat_vec row S_x S_y D_x D_y u_x u_y maps to z components 0).  The
 * detector is flat (a curved detector has no vector form).
 *
 * A circular geometry converts to vectors exactly (ctr_geometry_view_vectors:
 * source R(sin β, −cos β, 0), detector centre S + SDD·d0 + offset_u·e_u +
 * offset_v·e_z, u = pitch_u·e_u, v = ±pitch_v·e_z).  Vectors convert back to a
 * circular description only when they are one (ctr_geometry_circular_from_vectors):
 * FBP and FDK need that; the projectors and iterative methods take any vectors.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/* Largest deviation (mm) between given vectors and their circular
 * description at which FBP/FDK still accept them as circular: a thousandth
 * of the detector pitch, far below what changes an image. */
#define CTR_GEOMETRY_CIRCULAR_TOL 1e-3

/**
 * ctr_geometry_new_from_vectors:
 * @beam: CTR_BEAM_FAN or CTR_BEAM_CONE (parallel-beam vectors are not supported).
 * @n_views, @n_rows, @n_cols: sizes (> 0).
 * @vectors: (array length=n_views*12): [view][12] as above, mm; copied.
 * @error: CTR_ERROR_INVALID_GEOMETRY naming the view and the fault (a
 *   non-finite number, a zero u or v step, u parallel to v, a source on the
 *   detector plane, distances beyond CTR_GEOMETRY_MAX_DISTANCE_MM, a fan-beam
 *   view with z components), CTR_ERROR_UNSUPPORTED for parallel beam,
 *   CTR_ERROR_OUT_OF_MEMORY for sizes beyond the machine.
 *
 * Makes a flat-detector geometry whose rays come from @vectors.  The circular
 * fields are filled with their per-view means as a summary (for the default
 * grid, the field of view and descriptions): angles[k] = atan2(S_x, −S_y)
 * unwrapped, SOD = |S_xy|, SDD = the source's distance to the detector plane,
 * pitch_u = |u|, pitch_v = |v|, offsets of D from the foot of the
 * perpendicular from S; rows_increase_with_v = (v_z >= 0).  For fan beam,
 * set pitch_v_mm / offset_v_mm afterwards for a multi-row slice stack.
 * Returns: (transfer full) (nullable): the geometry.
 */
CtrGeometry *ctr_geometry_new_from_vectors (CtrBeam beam, guint n_views, guint n_rows, guint n_cols,
                                            const double *vectors, GError **error);

/* TRUE when @g carries per-view vectors. */
gboolean ctr_geometry_has_vectors (const CtrGeometry *g);

/**
 * ctr_geometry_view_vectors:
 * @out: (out caller-allocates) (array fixed-size=12): view @view's vectors:
 *   the stored ones, or those of the circular flat geometry @g (exact,
 *   see above; a helical source z moves the source and the detector centre,
 *   a flying focal spot the source alone).  A curved detector has none: @out is then the vectors of
 *   the flat detector tangent at the central column (FALSE returned).
 * Returns: TRUE when @out describes @g's rays exactly.
 */
gboolean ctr_geometry_view_vectors (const CtrGeometry *g, guint view, double out[12]);

/**
 * ctr_geometry_to_vectors:
 * The vector form of a flat fan or cone geometry (a copy for one that has
 * vectors already).  Returns NULL with CTR_ERROR_UNSUPPORTED for parallel
 * beam and curved detectors.  (transfer full)
 */
CtrGeometry *ctr_geometry_to_vectors (const CtrGeometry *g, GError **error);

/**
 * ctr_geometry_circular_from_vectors:
 * @max_dev_mm: (out) (optional): the largest distance (mm) between a given
 *   source or detector corner and the circular description's.
 * The circular description of @g (a copy when @g has no vectors): the summary
 * fields of ctr_geometry_new_from_vectors, accepted when every view's source
 * and four detector corners lie within CTR_GEOMETRY_CIRCULAR_TOL·pitch_u of
 * it.  Otherwise NULL with CTR_ERROR_UNSUPPORTED saying which view deviates,
 * by how much, and in what (source off the orbit circle or out of the
 * central plane, detector shifted or tilted).  (transfer full)
 */
CtrGeometry *ctr_geometry_circular_from_vectors (const CtrGeometry *g, double *max_dev_mm, GError **error);

/**
 * ctr_geometry_as_circular:
 * @owned: (out) (transfer full): set to the circular description made here
 *   (free it after use), or NULL when @g is returned itself.
 * What FBP and FDK run on: @g when it has no vectors, else its circular
 * description (ctr_geometry_circular_from_vectors).  Returns NULL with that
 * function's CTR_ERROR_UNSUPPORTED when the vectors are not circular.
 */
const CtrGeometry *ctr_geometry_as_circular (const CtrGeometry *g, CtrGeometry **owned, GError **error);

G_END_DECLS
