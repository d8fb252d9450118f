/* ctr-helix.h — the z of rays and the slice grids of a cone-beam geometry
 * whose source moves along z (helical CT) or jumps (flying focal spot).
 * The geometry itself (source z, focal spot, the rays ctr_cone_ray, the
 * feed, pitch and fully sampled z range) is ctr-geometry.h's; this file
 * states the frame they share.
 *
 * Frame and detector of ctr-geometry.h (FORMAT.md), extended along z: view k
 * has its focal centre F_k = (R sin b, −R cos b, z_k), R = SOD, b = β_k,
 * z_k = source_z_mm[k] (0 without it).  The detector is centred on F_k:
 *
 *   flat:    P(u, v) = F_k + SDD·c + u·e + v·ẑ
 *   curved:  P(γ, v) = F_k + SDD·(cos γ·c + sin γ·e) + v·ẑ
 *            (a cylinder about the axis through F_k parallel to z)
 *
 * with c = (−sin b, cos b, 0) towards the isocentre and e = (cos b, sin b, 0).
 * The ray of a detector bin runs from the source S_k to P; S_k = F_k without
 * a flying focal spot, else F_k turned by focal_shift[3k] about the axis,
 * moved by focal_shift[3k+1] along z and focal_shift[3k+2] away from the
 * axis (DICOM-CT-PD's SourceAngular/Axial/RadialDistanceShift).
 *
 *           z ^        detector rows (v) ride with the focal centre
 *             |     ┌──┐            ┌──┐             ┌──┐
 *             |  F₂ •  │         F₁ •  │          F₀ •  │   one turn of the
 *             |     └──┘            └──┘             └──┘   helix = the feed
 *             +────────────────────────────────────────────▶ view k
 *
 * The z where a ray passes closest to the axis ("the ray's z", the z used
 * by helical rebinning, Kalender 2011 §2.3; Hu 1999) is, for a ray from S to
 * P with in-plane parts S', D' = (P − S)':  z = S_z + t*·(P_z − S_z),
 * t* = −S'·D' / |D'|²; for the nominal source this is
 * z_k + v·R·cos γ / SDD (curved) or z_k + v·R·SDD / (SDD² + u²) (flat).
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

/* TRUE for the cone-beam geometries the helical path reconstructs
 * (ctr-recon-plan.h: rebinning to fan-beam slices, or the cone-beam
 * projector on a slab) and FDK does not: a source z per view, a flying focal
 * spot or a curved (clinical multi-row) detector. */
gboolean ctr_helix_applies (const CtrGeometry *g);

/**
 * ctr_helix_ray_z:
 * The z (mm) where the ray of (@view, @row, @col) passes closest to the
 * rotation axis (exact, flying focal spot included; see the top of this file).
 */
double ctr_helix_ray_z (const CtrGeometry *g, guint view, double row, double col);

/* The fraction t* of the way from the focal centre to column @col
 * (continuous) where a ray of the nominal source passes closest to the axis:
 * R·cos γ / SDD (curved), R·SDD / (SDD² + u²) (flat); such a ray of row v
 * has its z at z_k + t*·v. */
double ctr_helix_closest_fraction (const CtrGeometry *g, double col);

/**
 * ctr_helix_z_coverage:
 * The z range (mm, FORMAT frame) that the scan samples fully: every line of
 * the plane of rotation — each direction of the views of one rotation and
 * each detector column — has measured rays at their z (ctr_helix_ray_z) on
 * both sides of every z in [@z_lo, @z_hi].  With @complementary the rays of
 * the opposite direction (the conjugate ray β + π − 2γ, −γ, which 180°
 * rebinning uses) count too, which widens the range by about half a feed at
 * each end.  Lines are taken at the views of one rotation (V = 2π / the mean
 * view step) and the detector columns, by nearest direction. 
 * Returns: FALSE (and leaves the outputs alone) when @g is not a cone-beam
 *   geometry with source z, or no z is fully sampled (a scan of less than a
 *   rotation, or a pitch that leaves gaps), and when its tables (2 × the
 *   views of a rotation × the columns, doubles) cannot be allocated.
 */
gboolean ctr_helix_z_coverage (const CtrGeometry *g, gboolean complementary, double *z_lo, double *z_hi);

G_END_DECLS
