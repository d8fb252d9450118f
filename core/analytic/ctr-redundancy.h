/* ctr-redundancy.h — how much each view and each ray counts in analytic
 * reconstruction (FBP, FDK).
 *
 * Δβ_v: the angles may be non-uniform, unsorted or decreasing; each view
 * weighs half the distance to its neighbours in sorted order (the end views
 * the distance to their single neighbour), so Σ Δβ_v = the angular range.
 *
 * Redundancy weight w_red of ray (view, γ): parallel beam π / range; fan and
 * cone beam ½ for a full scan (range >= 2π), else Parker's (1982) short-scan
 * weights for a range π + 2δ (w(β, γ) + w(conjugate) = 1).
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/* Δβ of every view, radians; n_views doubles (g_free), or NULL with
 * CTR_ERROR_OUT_OF_MEMORY (the view count comes from the input). */
double *ctr_view_spacing (const CtrGeometry *g, GError **error);

typedef struct {
  const CtrGeometry *g;
  gboolean fan;          /* fan or cone beam */
  gboolean full_scan;
  double red_const;      /* redundancy weight where no Parker weights are used */
  double delta;          /* Parker: half the excess over π */
  double lo, hi, step;   /* sorted extremes, mean step */
  gboolean decreasing;
} CtrRedundancy;

/* Reads the angular range of @g (borrowed: must outlive @r). */
void ctr_redundancy_init (CtrRedundancy *r, const CtrGeometry *g);
/* w_red of the ray of @view at fan angle @gamma (radians, grows with u;
 * ignored for parallel beam and full scans). */
double ctr_redundancy_weight (const CtrRedundancy *r, guint view, double gamma);

/* Parker (1982) weight of ray (beta_rel, gamma) for a short scan of range
 * pi + 2·delta, where beta_rel is measured from the scan's start in the scan's
 * sense of rotation and gamma grows with u (FORMAT.md).  Full-scan data need none. */
double ctr_parker_weight (double beta_rel, double gamma, double delta);

G_END_DECLS
