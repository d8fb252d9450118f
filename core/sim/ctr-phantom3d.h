/* ctr-phantom3d.h — analytic 3-D phantoms: exact volumes and exact cone-beam
 * line integrals.
 *
 * A 3-D phantom is a sum of uniform solids (value in 1/mm added inside each):
 * ellipsoids and elliptic cylinders with flat ends, each rotated by phi about
 * the z axis.  Line integrals are computed in closed form (the chord of a line
 * through a quadric, clipped by the cylinder's end planes), never by sampling
 * a volume, so they are an independent truth for the cone-beam tests (FDK,
 * the cone projector, cone SART/SIRT).
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"
#include "data/ctr-volume.h"
#include "sim/ctr-phantom.h"

G_BEGIN_DECLS

typedef enum {
  CTR_SOLID_ELLIPSOID,  /* (x'/a)² + (y'/b)² + (z'/c)² <= 1 */
  CTR_SOLID_CYLINDER    /* (x'/a)² + (y'/b)² <= 1 and |z'| <= c (c = half height) */
} CtrSolidKind;

/**
 * CtrSolid:
 * Centre (@x_mm, @y_mm, @z_mm); semi-axes @a_mm, @b_mm along the solid's own
 * x and y axes (rotated by @phi_rad counter-clockwise about +z) and @c_mm
 * along z (half height for a cylinder); @value (1/mm) added inside.
 */
typedef struct {
  CtrSolidKind kind;
  double x_mm, y_mm, z_mm;
  double a_mm, b_mm, c_mm;
  double phi_rad;
  double value;
} CtrSolid;

typedef struct {
  guint n;
  CtrSolid *s;   /* n solids, owned */
} CtrPhantom3d;

CtrPhantom3d *ctr_phantom3d_new (guint n);
void ctr_phantom3d_free (CtrPhantom3d *ph);

/* One uniform circular cylinder of @radius_mm and half height @half_height_mm,
 * axis along z through (x, y, z), attenuation @mu (1/mm). */
CtrPhantom3d *ctr_phantom3d_new_cylinder (double x_mm, double y_mm, double z_mm,
                                          double radius_mm, double half_height_mm,
                                          double mu);

/**
 * ctr_phantom3d_new_shepp_logan:
 * The 3-D Shepp-Logan head (Kak & Slaney 1988, Table 3.2 extents in z; the
 * in-plane ellipses of Table 3.1 with Toft's "modified" contrasts, as in
 * ctr_phantom_new_shepp_logan), scaled to fit in a ball of @radius_mm (outer
 * skull semi-axes 0.69 × 0.92 × 0.81 · radius) with the skull at @mu_scale.
 * The two tilted ellipsoids of the original keep only their rotation about z.
 */
CtrPhantom3d *ctr_phantom3d_new_shepp_logan (double radius_mm, double mu_scale);

/**
 * ctr_phantom3d_new_extruded:
 * The 2-D phantom @ph (ctr-phantom.h) extruded along z: each ellipse an
 * elliptic cylinder of the same centre, semi-axes, rotation and value,
 * centred on z = 0 with half height @half_height_mm.  Every axial slice
 * with |z| < @half_height_mm is @ph; cone-beam line integrals of it are
 * exact (ctr_phantom3d_project).  Free with ctr_phantom3d_free().
 */
CtrPhantom3d *ctr_phantom3d_new_extruded (const CtrPhantom *ph, double half_height_mm);

/* Exact length (mm) of the line origin + t·dir (unit @dir) inside @s. */
double ctr_solid_chord (const CtrSolid *s, const double origin[3], const double dir[3]);

/* Value of the phantom at point (x, y, z), mm. */
double ctr_phantom3d_value (const CtrPhantom3d *ph, double x, double y, double z);

/* Volume on @grid: each voxel the mean of @supersample³ point samples (>= 1).
 * NULL with CTR_ERROR_INVALID_ARGUMENT / CTR_ERROR_OUT_OF_MEMORY. */
CtrVolume *ctr_phantom3d_rasterize (const CtrPhantom3d *ph, const CtrGrid *grid,
                                    guint supersample, GError **error);

/**
 * ctr_phantom3d_project:
 * Exact cone-beam line integrals of @ph for the cone geometry @g (flat or
 * curved detector, circular or helical source path, flying focal spot,
 * per-view vectors: ctr_cone_ray): each detector bin the mean of @rays_per_bin² rays
 * spread uniformly over the bin's area (in column and row index), OpenMP
 * over views.
 * Returns: (transfer full): line integrals [view][row][col], or NULL with
 *   CTR_ERROR_INVALID_GEOMETRY (not a valid cone geometry) /
 *   CTR_ERROR_OUT_OF_MEMORY.
 */
CtrProjections *ctr_phantom3d_project (const CtrPhantom3d *ph, const CtrGeometry *g,
                                       guint rays_per_bin, GError **error);

/**
 * ctr_phantom3d_project_spectrum:
 * As ctr_phantom3d_project(), through the polychromatic @spectrum in the
 * single-material (water) model of ctr_phantom_project_spectrum()
 * (ctr-phantom.h): a ray whose monochromatic line integral is s has the
 * line integral ctr_spectrum_water_line_integral(@spectrum,
 * s/CTR_MU_WATER_PER_MM), before the mean over the bin's rays.
 * Returns: as ctr_phantom3d_project().
 */
CtrProjections *ctr_phantom3d_project_spectrum (const CtrPhantom3d *ph, const CtrGeometry *g, guint rays_per_bin,
                                                const CtrSpectrum *spectrum, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrPhantom3d, ctr_phantom3d_free)

G_END_DECLS
