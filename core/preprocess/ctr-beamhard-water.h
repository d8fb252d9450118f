/* ctr-beamhard-water.h — beam-hardening coefficients measured from a scan
 * of a water cylinder (the water-scan calibration of Herman 1979, "Correction
 * for beam hardening in computed tomography", Phys. Med. Biol. 24(1):81-106,
 * sec. 3; as used for cupping correction by Kachelrieß, Sourbelle & Kalender
 * 2006, "Empirical cupping correction", Med. Phys. 33(5):1269-1274, with the
 * ideal data of a known water object instead of their image-based basis).
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-projections.h"

G_BEGIN_DECLS

/**
 * CtrWaterFit:
 * What ctr_beamhard_fit_water_scan() measured: the cylinder's centre in the
 * plane of rotation (x, y, mm, FORMAT.md's world frame) and radius (mm),
 * the RMS distance of the shadow's edge rays from its circle over its
 * radius (@edge_spread; 0 when the cylinder was stated), the rays used
 * (those through the cylinder), the RMS and largest residual
 * |Σ aₖpᵏ − μL| over them (line-integral units), the largest line integral.
 */
typedef struct {
  double centre_mm[2], radius_mm, edge_spread, rms_residual, max_residual, p_max;
  guint64 n_rays;
} CtrWaterFit;

/**
 * ctr_beamhard_fit_water_scan:
 * @g: the scan's geometry: parallel beam, fan beam (flat or curved
 *   detector), cone beam (circular orbit, flat or curved; per-view vectors
 *   too): every geometry data/ctr-ray-cylinder.h serves.
 * @p: its line integrals ([view][row][col], float, the scan of one water
 *   cylinder standing along z, centred or not, nothing else in the beam;
 *   in cone beam the cylinder reaches beyond every ray, its caps unseen).
 * @mu_per_mm: μ of water at the reference energy (1/mm, e.g.
 *   CTR_MU_WATER_PER_MM).
 * @degree: 1 to CTR_BEAMHARD_MAX_DEGREE.
 * @cylinder: (array fixed-size=3) (nullable): the cylinder stated, its
 *   centre x, y and radius in mm; NULL: found from the data.
 * @coefficients: (out caller-allocates) (array length=degree): a₁…a_d.
 * @fit: (out) (optional): the measured figures.
 *
 * The cylinder, unless stated: in every view and row its shadow is where p
 * exceeds 2 % of the scan's largest line integral (edges to a fraction of a
 * column by linear interpolation); the two edge rays (their traces in the
 * plane of rotation, ctr_geometry_ray_xy) touch the cylinder's circle, so
 * its centre (x, y) and radius r minimise Σ (side(x, y) − σr)² over all
 * edges, side the signed distance from the edge ray, σ the side the shadow
 * lies on (a linear least-squares problem; for parallel beam the middle of
 * the shadow is then the projected centre and r its half-width, as before).
 * The threshold cuts the shadow where the chord is 2 % p_max/μ: r is
 * widened by that chord² / 8r.  The ideal monochromatic line integral of
 * every ray is μ·L, L its exact path through the fitted cylinder in the
 * ray's own geometry (ctr_geometry_cylinder_path), and a₁…a_d minimise
 * Σ (Σₖ aₖ pᵏ − μL)² over the rays through the cylinder (through the
 * origin, as ctr_beamhard_fit()).
 * Returns: FALSE with CTR_ERROR_INVALID_DATA when there is no water in the
 *   scan (largest line integral below that of 5 mm of water), counts
 *   instead of line integrals, a shadow that is missing or touches the
 *   detector's border, edges more than 3 % of the radius (RMS) off the best
 *   circle (not one cylinder), or a singular fit; CTR_ERROR_INVALID_ARGUMENT
 *   for a stated cylinder without a finite centre or a positive radius;
 *   CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_beamhard_fit_water_scan (const CtrGeometry *g, const CtrProjections *p, double mu_per_mm, int degree,
                                      const double *cylinder, double *coefficients, CtrWaterFit *fit,
                                      GError **error);

G_END_DECLS
