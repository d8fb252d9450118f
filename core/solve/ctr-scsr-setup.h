/* ctr-scsr-setup.h — what every SCSR solver (CPU: ctr-scsr-solve.c; GPU:
 * gpu/ctr-cuda.c) prepares once before iterating: the data, the per-ray step
 * coefficients and the column-sum scales in the lane order of the orbit
 * kernels ([orbit][stored column j][slice][lane k], see ctr-scsr.h).
 *
 *   parallel ART (cuART Eq. 9): coef = λ / (κ_o Σ_j w_ij²), κ_o the orbit's
 *     sparsity bound (or M' = rays of the subset for CTR_PART_STEP_CUART);
 *   SART (Andersen & Kak 1984, Eq. 5), SIRT: coef = 1 / Σ_j w_ij, scale =
 *     λ / column sums of each orbit (SART, [o][rep][K]) or of all rays
 *     (SIRT, [rep][K]);
 * coef = 0 for dead detector pixels and masked lanes.
 */
#pragma once

#include <glib.h>
#include "ctr-geometry.h"
#include "ctr-projections.h"
#include "ctr-recon-types.h"
#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

typedef struct {
  guint K, nc, no, ns;
  gsize lane_size;      /* one orbit: nc·ns·K floats */
  gsize lane_all;       /* all orbits */
  float *b;             /* measured line integrals, lane order */
  float *coef;          /* step coefficient of each ray, lane order */
  float *valid;         /* 1 for an acquired, live ray, else 0, lane order */
  float *scale;         /* SART [o][rep][K], SIRT [rep][K], else NULL */
  gsize scale_n;
} CtrScsrSetup;

/**
 * ctr_scsr_setup_init:
 * @su: zero-initialised; filled (free with ctr_scsr_setup_clear, also after
 *   a failure).
 * @p: line integrals [view][row][col]; slice s is detector row
 *   ctr_geometry_slice_row (@g, s); p->mask marks dead pixels.
 * @o: method (PART, SART or SIRT), relaxation, part_step.
 * @ns: slices (= g->n_rows).
 * Returns: FALSE with CTR_ERROR_OUT_OF_MEMORY.
 */
gboolean ctr_scsr_setup_init (CtrScsrSetup *su, const CtrScsr *m, const CtrGeometry *g,
                              const CtrProjections *p, const CtrReconOptions *o, guint ns,
                              GError **error);
void ctr_scsr_setup_clear (CtrScsrSetup *su);

G_END_DECLS
