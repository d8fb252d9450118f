/* ctr-recon-cone.h — the cone-beam branch of ctr_reconstruct() (ctr-recon.h):
 * FDK (analytic/ctr-fdk.h) or SART/SIRT with the on-the-fly projector pair
 * (solve/ctr-cone-solve.h).  Internal to libctrecon; callers use
 * ctr_reconstruct(). */
#pragma once

#include "ctr-recon.h"

G_BEGIN_DECLS

/**
 * ctr_reconstruct_cone:
 * As ctr_reconstruct() for a validated CTR_BEAM_CONE geometry; @grid is any
 * 3-D grid (nz independent of the detector rows).  The reference, when
 * given, is resampled trilinearly onto @grid (0 outside its own grid).
 * Methods: fdk, sart, sirt; others give CTR_ERROR_UNSUPPORTED.
 */
CtrVolume *ctr_reconstruct_cone (const CtrGeometry *g, const CtrProjections *p,
                                 const CtrGrid *grid, const CtrReconOptions *o,
                                 const CtrVolume *reference, CtrIterFunc callback,
                                 gpointer user_data, GCancellable *cancellable,
                                 GError **error);

G_END_DECLS
