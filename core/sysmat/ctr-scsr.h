/* ctr-scsr.h — the symmetry-compressed system matrix (SCSR; Yu et al. 2018,
 * cuART §3, ../shared/papers/cuart-scsr-2018.txt).
 *
 * Only the rows of one canonical view per orbit are stored (ctr-symmetry.h):
 * 720 uniform views under D4 → 91 stored views, 7.9× less than CSR.  Row
 * (orbit o, column j) holds, for every pixel q the canonical ray (o, j)
 * crosses, the pair (rep r, weight w) with q = slot h of r, grouped into K
 * segments by h and in ray order inside a segment.  The same row serves the K
 * rays (lane view k, column j or its mirror): in lane k the pixel is
 * slot compose[k][h] of r (cuART Eq. 2 in general form).
 *
 * Images are used in a packed layout X[rep][slice][K]: X[r][s][k] = x[s][slot
 * k of r].  One stored element then reads or writes K contiguous floats — one
 * SIMD vector serving the K symmetric rays at once — so each element read from
 * memory serves K views × S slices (MemXCT's SpMM idea and cuART's symmetry
 * together).  Pixels on a symmetry axis occupy several slots of their rep;
 * those slots are kept equal (ctr_scsr_reduce sums their updates).
 *
 * Transposed product without atomics: the reps are split into P angular
 * parts (ctr_symmetry_partition) and each row is stored part by part, so a
 * thread that owns whole parts writes pixels no other thread writes (the
 * per-thread partitions of docs/design.md §5); no per-thread image copies.  The round-robin column permutation of cuART §3.2 is a GPU
 * device for warps; it lives in the blocked layout (ctr-blocking.h).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include "sysmat/ctr-sysmat.h"
#include "sysmat/ctr-symmetry.h"

G_BEGIN_DECLS

typedef struct _CtrScsr CtrScsr;

typedef struct {
  guint32 rep;
  float w;     /* mm, as in ctr-sysmat.h */
} CtrScsrElem;

/**
 * ctr_scsr_build:
 * @g: fan or parallel geometry; @grid: slice grid; @model: ray model.
 * @allowed: CTR_SYM_* mask (CTR_SYM_ALL for the largest group).
 *
 * Finds the symmetry (ctr_symmetry_find) and computes the stored rows, OpenMP
 * over orbits.  A geometry without symmetry gives K = 1 (one orbit per view:
 * the rows of plain CSR in this layout).
 * Returns: (transfer full): NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT, CTR_ERROR_OUT_OF_MEMORY, G_IO_ERROR_CANCELLED.
 */
CtrScsr *ctr_scsr_build (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                         guint allowed, GCancellable *cancellable, GError **error);
/**
 * ctr_scsr_estimate_bytes:
 * The bytes ctr_scsr_build's matrix of @g, @grid, @model will hold
 * (ctr_scsr_bytes, with the compact store where it applies), estimated
 * without building it: the view orbits (ctr_symmetry_count_orbits) times
 * the columns times the mean non-zeros of a ray (ctr_sysmat_mean_row_nnz),
 * plus the segment tables.  Milliseconds; never fails.
 */
guint64 ctr_scsr_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model);
CtrScsr *ctr_scsr_ref (CtrScsr *m);
void ctr_scsr_unref (CtrScsr *m);

const CtrSymmetry *ctr_scsr_symmetry (const CtrScsr *m);
CtrRayModel ctr_scsr_model (const CtrScsr *m);
guint ctr_scsr_order (const CtrScsr *m);          /* K */
guint ctr_scsr_n_parts (const CtrScsr *m);        /* P, see ctr_symmetry_partition */
/* Parts a new matrix gets: the OpenMP thread count. */
guint ctr_scsr_default_parts (void);
guint ctr_scsr_n_orbits (const CtrScsr *m);       /* stored views */
guint ctr_scsr_n_views (const CtrScsr *m);
guint ctr_scsr_n_cols (const CtrScsr *m);
guint64 ctr_scsr_n_pixels (const CtrScsr *m);
guint64 ctr_scsr_nnz (const CtrScsr *m);          /* stored elements */
/* Non-zeros of the equivalent CSR matrix (every acquired ray's row). */
guint64 ctr_scsr_nnz_expanded (const CtrScsr *m);
/* Bytes of the stored arrays (segment pointers, elements, row norms). */
guint64 ctr_scsr_bytes (const CtrScsr *m);

/* Stored arrays, borrowed: @seg_ptr has n_orbits·n_cols·P·K + 1 entries; the
 * elements of part p, slot h of row (o, j) are
 * elems[seg_ptr[((o·n_cols + j)·P + p)·K + h] .. seg_ptr[... + 1]).  Valid
 * while @m lives.  A matrix whose CPU operator moved its elements into the
 * compact store (ctr-scsr-private.h, ctr_scsr_compact) makes @elems again on
 * the first call that asks for them (ctr_scsr_expand: n_nonzero·8 bytes;
 * thread-safe).  Either pointer may be NULL.
 * Returns: TRUE; FALSE with CTR_ERROR_OUT_OF_MEMORY when the 8-byte elements
 *   cannot be allocated (*@elems NULL, *@seg_ptr set). */
gboolean ctr_scsr_arrays (const CtrScsr *m, const gint64 **seg_ptr, const CtrScsrElem **elems, GError **error);
/* Makes the 8-byte elements of a compact matrix now (what
 * ctr_scsr_arrays' @elems would), without aborting: FALSE with
 * CTR_ERROR_OUT_OF_MEMORY when n_nonzero·8 bytes cannot be allocated.
 * TRUE at once when they exist.  Thread-safe. */
gboolean ctr_scsr_expand (const CtrScsr *m, GError **error);
/* Σ_j w² and Σ_j w of stored row (o, j): n_orbits·n_cols floats, borrowed. */
const float *ctr_scsr_row_sq (const CtrScsr *m);
const float *ctr_scsr_row_sum (const CtrScsr *m);

/**
 * ctr_scsr_expand_row:
 * Writes the dense row of acquired ray (@view, @col) into @dense (n_pixels
 * floats, overwritten) as the stored row maps it: for tests and for checking
 * a cache file against the direct computation.
 */
void ctr_scsr_expand_row (const CtrScsr *m, guint view, guint col, float *dense);

/* Packed layout (see top): @X has n_reps·n_slices·K floats. */
gsize ctr_scsr_packed_size (const CtrScsr *m, guint n_slices);
void ctr_scsr_pack (const CtrScsr *m, const float *x, float *X, guint n_slices);
void ctr_scsr_unpack (const CtrScsr *m, const float *X, float *x, guint n_slices);

/* Lane order of the orbit kernels: [orbit][stored column j][slice][lane k]
 * (n_orbits·n_cols·n_slices·K floats, ctr_scsr_lane_size) ↔ rays
 * [slice][view·n_cols + col].  rays_to_lanes writes 0 in masked lanes;
 * lanes_to_rays writes every acquired ray once. */
gsize ctr_scsr_lane_size (const CtrScsr *m, guint n_slices);
void ctr_scsr_rays_to_lanes (const CtrScsr *m, const float *rays, float *lanes, guint n_slices);
void ctr_scsr_lanes_to_rays (const CtrScsr *m, const float *lanes, float *rays, guint n_slices);

/* y[s][view·n_cols + col] = (A x)[s] for every acquired ray (overwrites y);
 * x[s][pixel] = (Aᵀ y)[s] (overwrites x).  Standard layouts as ctr-sysmat.h. */
/* FALSE with CTR_ERROR_OUT_OF_MEMORY when the packed images and lanes
 * (or a compact matrix's 8-byte elements, several slices) cannot be had. */
gboolean ctr_scsr_apply (const CtrScsr *m, const float *x, float *y, guint n_slices, GError **error);
gboolean ctr_scsr_apply_adjoint (const CtrScsr *m, const float *y, float *x, guint n_slices, GError **error);

/* Column sums A_oᵀ1 of orbit @orbit (or of every orbit) over its acquired
 * lanes, for one slice, in the packed layout ([rep][K], slots that are one
 * pixel hold the pixel's sum): ctr_scsr_packed_size (m, 1) floats. */
/* Each FALSE with CTR_ERROR_OUT_OF_MEMORY (naming the buffer) when its
 * scratch (a packed image and a lane mask of the orbits summed) cannot be
 * allocated; @out is then undefined. */
gboolean ctr_scsr_column_sums_orbit (const CtrScsr *m, guint orbit, float *out, GError **error);
gboolean ctr_scsr_column_sums_all (const CtrScsr *m, float *out, GError **error);
/* 1 / the column sums of every orbit (0 where a pixel is not seen):
 * [orbit][rep][K], n_orbits · ctr_scsr_packed_size (m, 1) floats.  FALSE
 * with CTR_ERROR_OUT_OF_MEMORY as above. */
gboolean ctr_scsr_inverse_column_sums (const CtrScsr *m, float *out, GError **error);
/* κ of every orbit: the largest number of the orbit's rays that cross one
 * pixel (the sparsity bound of Censor, Gordon & Gordon 2001, which parallel
 * ART divides its step by); n_orbits floats.  Each thread counts per pixel:
 * FALSE with CTR_ERROR_OUT_OF_MEMORY when those counts cannot be had. */
gboolean ctr_scsr_orbit_overlaps (const CtrScsr *m, float *kappa, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrScsr, ctr_scsr_unref)

G_END_DECLS
