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
 * What ctr_beamhard_fit_water_scan() measured: the cylinder's radius (mm,
 * the mean over views) and the relative spread of its width over the views,
 * the rays used (those through the cylinder), the RMS and largest residual
 * |Σ aₖpᵏ − μL| over them (line-integral units), the largest line integral.
 */
typedef struct {
  double radius_mm, width_spread, rms_residual, max_residual, p_max;
  guint64 n_rays;
} CtrWaterFit;

/**
 * ctr_beamhard_fit_water_scan:
 * @g: the scan's geometry: parallel beam (fan and cone beam are refused).
 * @p: its line integrals ([view][row][col], float, the scan of one water
 *   cylinder, centred or not, nothing else in the beam).
 * @mu_per_mm: μ of water at the reference energy (1/mm, e.g.
 *   CTR_MU_WATER_PER_MM).
 * @degree: 1 to CTR_BEAMHARD_MAX_DEGREE.
 * @coefficients: (out caller-allocates) (array length=degree): a₁…a_d.
 * @fit: (out) (optional): the measured figures.
 *
 * Each view of every row: the cylinder's shadow is found where p exceeds 2 %
 * of the scan's largest line integral (edges to a fraction of a column by
 * linear interpolation); its middle is the projected centre c, and the
 * radius r is the mean half-width over all views (a cylinder has one).
 * The ideal monochromatic line integral of column u is μ·2√(r² − (u − c)²)
 * (the exact chord of the fitted cylinder), and a₁…a_d minimise
 * Σ (Σₖ aₖ pᵏ − μL)² over the rays through the cylinder (through the origin,
 * as ctr_beamhard_fit()).
 * Returns: FALSE with CTR_ERROR_INVALID_DATA when there is no water in the
 *   scan (largest line integral below that of 5 mm of water), when the
 *   shadow's width varies by more than 3 % over the views (not one
 *   cylinder), or the fit is singular; CTR_ERROR_UNSUPPORTED for fan and
 *   cone beam; CTR_ERROR_NO_MEMORY.
 */
gboolean ctr_beamhard_fit_water_scan (const CtrGeometry *g, const CtrProjections *p, double mu_per_mm, int degree,
                                      double *coefficients, CtrWaterFit *fit, GError **error);

G_END_DECLS
