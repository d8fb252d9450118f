/* ctr-ray-cylinder.h — a detector bin's ray seen from above (its trace in
 * the plane of rotation) and its path through a cylinder standing along z,
 * for every geometry the rays of ctr-geometry.h serve: parallel beam, fan
 * beam with a flat or curved detector, circular (or helical) cone beam and
 * per-view vectors.  The water-scan calibration of the beam-hardening step
 * (preprocess/ctr-beamhard-water.h) measures the water path of every ray
 * with it.
 */
#pragma once

#include <glib.h>
#include <math.h>
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/**
 * ctr_geometry_ray_xy:
 * The ray of (@view, continuous column @col, continuous row @row) projected
 * onto the plane z = 0: a point @origin (2 doubles, mm) and the unit
 * direction @dir (2 doubles) of its trace, from ctr_geometry_ray() (parallel
 * and fan beam: every row has the same trace) or ctr_cone_ray() (cone beam,
 * FORMAT.md's conventions).
 * @stretch: (out) (optional): the ray's length per mm of its trace, 1/|d_xy|
 *   for the cone-beam ray's unit direction d (1 for parallel and fan beam).
 *   A ray parallel to z has no trace: @dir is then (0, 0) and @stretch
 *   infinite.
 */
void ctr_geometry_ray_xy (const CtrGeometry *g, guint view, double col, double row,
                          double origin[2], double dir[2], double *stretch);

/**
 * ctr_geometry_cylinder_path:
 * Length (mm) of the ray of (@view, @col, @row) inside the cylinder of
 * radius @radius_mm about the axis through (@centre_mm[0], @centre_mm[1])
 * parallel to z, unbounded along z: its trace's chord 2√(r² − d²) (d the
 * trace's distance from the centre) times the ray's stretch
 * (ctr_geometry_ray_xy); 0 for a ray that misses it (or runs along z).
 */
double ctr_geometry_cylinder_path (const CtrGeometry *g, guint view, double col, double row,
                                   const double centre_mm[2], double radius_mm);

/* The chord (mm) of a line at distance @dist from the centre of a circle
 * of radius @radius (mm): 2√(r² − d²), 0 when it misses. */
static inline double
ctr_circle_chord (double dist, double radius)
{
  const double h = radius * radius - dist * dist;
  return h > 0 ? 2 * sqrt (h) : 0;
}

/* Signed distance (mm) of the point @q (2 doubles) from the line through
 * @origin along the unit @dir: positive on the left of @dir (the side
 * (−dir_y, dir_x) points to). */
static inline double
ctr_line_side (const double origin[2], const double dir[2], const double q[2])
{
  return dir[0] * (q[1] - origin[1]) - dir[1] * (q[0] - origin[0]);
}

G_END_DECLS
