/* ctr-scsr-private.h — the orbit kernels of SCSR (ctr-scsr-kernels.c) and
 * the matrix's internals, shared by ctr-scsr.c (build, stores, products),
 * the CPU operator (ctr-scsr-op.c), the sums (ctr-scsr-sums.c) and the
 * cache (ctr-matrix-cache.c). */
#pragma once

#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

/* The matrix's fields: read and written only by the two files that
 * implement it (ctr-scsr.c, ctr-scsr-kernels.c); everyone else goes through
 * the functions of ctr-scsr.h and of this header. */
struct _CtrScsr {
  gint ref_count;
  CtrRayModel model;
  CtrSymmetry *sym;
  guint K, P, n_orbits, n_views, n_cols;
  guint64 np, nnz, nnz_expanded;
  gint64 *seg_ptr;
  /* The elements, in one of two stores or both: elems (8 bytes each), or
   * the compact store of ctr_scsr_compact, rep16 and w32 (6 bytes: the
   * rep as 16 bits counted from the first rep of the segment's part, the
   * weight as stored), which the CPU's one-slice K = 8 kernels stream.
   * elems is made again from it (lock) when asked for. */
  CtrScsrElem *elems;
  guint16 *rep16;
  float *w32;
  GMutex lock;
  float *row_sq, *row_sum;
};

/* The 8-byte elements, or NULL while only the compact store holds them.
 * The multi-slice kernels (and every kernel of K ≠ 8, whose matrices are
 * never compact) read them: whoever runs those makes them first with
 * ctr_scsr_expand, which fails with CTR_ERROR_OUT_OF_MEMORY where an
 * allocation inside a kernel could only abort. */
static inline const CtrScsrElem *
ctr_scsr_elems (const CtrScsr *m)
{
  return g_atomic_pointer_get (&((CtrScsr *) m)->elems);
}

/* Lane-ordered data of one orbit: [j][s][K] for stored column j, slice s,
 * lane k (gathered from [s][view][col] with ctr_symmetry_lane_col). */

/* Rows are stored per (part, slot) segment: seg_ptr[(row·P + p)·K + h]
 * (P = ctr_scsr_n_parts, the symmetry's rep partition).  One orbit's parallel
 * ART update runs in two phases, each thread on its own parts (no two threads
 * write one rep, no atomics, no per-thread images):
 *   1. ctr_scsr_orbit_forward for the thread's parts into its own acc
 *      (lane-ordered [j][s][K]); the accs are summed into the residuals v;
 *   2. ctr_scsr_orbit_adjoint for the same parts into the shared target
 *      (the image itself for parallel ART, an update image for SART/SIRT),
 *      then ctr_scsr_finish_part for those parts. */

/* acc[j][s][g] += (A_lane X) over the elements of @part. */
void ctr_scsr_orbit_forward (const CtrScsr *m, guint o, guint part, guint ns,
                             const float *X, float *acc);
/* T[rep][s][slot] += (A_laneᵀ v) over the elements of @part. */
void ctr_scsr_orbit_adjoint (const CtrScsr *m, guint o, guint part, guint ns,
                             const float *v, float *T);
/* Floats ctr_scsr_save_stabilised writes for @part (reps on a symmetry axis). */
gsize ctr_scsr_stabilised_size (const CtrScsr *m, guint part, guint ns);
void ctr_scsr_save_stabilised (const CtrScsr *m, guint part, guint ns, const float *X, float *saved);
/**
 * ctr_scsr_finish_part:
 * Completes an update of the reps of @part.  With @D: X += @scale ∘ D (scale
 * packed [rep][K] or NULL), D zeroed.  Without (the adjoint went into X):
 * slots that are one pixel get the sum of their updates, from @saved (the
 * values before, ctr_scsr_save_stabilised).  Both share the updates of such
 * slots and clip at 0 when @nonneg.
 */
void ctr_scsr_finish_part (const CtrScsr *m, guint part, guint ns, float *X, float *D,
                           const float *scale, gboolean nonneg, const float *saved);

/* Makes the slots of @part's reps that are one pixel (reps on a symmetry
 * axis) hold the sum of their raw accumulations in @D (the adjoint of a
 * pixel that sits in two slots lands half in each). */
void ctr_scsr_reduce_part (const CtrScsr *m, guint part, guint ns, float *D);

/* The most reps a part may hold for the compact store's 16-bit reps. */
#define CTR_SCSR_COMPACT_PART_REPS 65536u

/**
 * ctr_scsr_compact:
 * Moves the elements of a one-slice-ready K = 8 matrix whose parts hold at
 * most CTR_SCSR_COMPACT_PART_REPS reps each into the compact store: the rep
 * as 16 bits (relative to the first rep of its part: every element of a
 * segment belongs to the segment's part) and the weight as stored
 * (float32), in two arrays, 6 bytes an element instead of CtrScsrElem's 8.
 * Lossless: the products are bit for bit those of the 8-byte elements.  The
 * one-slice K = 8 orbit kernels then stream 25 % fewer bytes (W1's parallel
 * ART is bound by the forward pass's matrix stream, README).  The weights
 * move in place, so the conversion needs 2 bytes an element more, not 6;
 * ctr_scsr_arrays (and the multi-slice kernels) make the 8-byte elements
 * again when asked (kept from then on, so a caller's pointer stays valid).
 * Not thread-safe against other users of @m: call it before the matrix is
 * shared (the CPU operator does, when it is made).
 * Returns: TRUE when the compact store is in use (made now or before);
 *   FALSE when @m does not qualify or the memory is missing (nothing changed).
 */
gboolean ctr_scsr_compact (CtrScsr *m);

/* Whether a matrix of @sym (partitioned), used for @n_slices slices, goes
 * into the compact store: K = 8, one slice, every part at most
 * CTR_SCSR_COMPACT_PART_REPS reps.  The build and the cache loader make
 * such matrices in it directly. */
gboolean ctr_scsr_compact_applies (const CtrSymmetry *sym, guint n_slices);

/* The parts a matrix of order @K with @n_reps reps is built or loaded with:
 * one per thread (ctr_scsr_default_parts) and, with two threads or more, as
 * many more as a K = 8 matrix needs for parts of at most
 * CTR_SCSR_COMPACT_PART_REPS reps, rounded up to a multiple of the threads
 * so that each thread takes as many parts in the transposed product (a
 * 1024² fan scan: 4 parts on 2 threads, 24 % less matrix; 3 parts left one
 * thread two thirds of the work: PART 0.71–0.84× their time per iteration,
 * README).  One thread keeps one part: 3 parts there cost 1.27–1.45 s per
 * iteration against 1.08–1.21 (each row's lanes permuted and stored once
 * per part). */
guint ctr_scsr_parts_for (guint K, guint n_reps);

/* Copies elements [@e0, @e0 + @n) as CtrScsrElem into @out (@n of them,
 * caller-allocated) from either store, without making the 8-byte array:
 * for the cache writer, chunk by chunk. */
void ctr_scsr_read_elems (const CtrScsr *m, guint64 e0, guint64 n, CtrScsrElem *out);

/* count_rep[rep·K + slot] = the elements of orbit @o's rows at (rep, slot)
 * (n_reps·K counts, overwritten), from either element store. */
void ctr_scsr_count_reps (const CtrScsr *m, guint o, guint32 *count_rep);

/* Assembles a matrix from arrays (taken over, g_free'd) that were checked
 * against @sym by the caller (the cache loader). */
CtrScsr *ctr_scsr_new_from_arrays (CtrSymmetry *sym, CtrRayModel model, guint n_views,
                                   guint64 n_pixels, guint64 nnz, gint64 *seg_ptr,
                                   CtrScsrElem *elems, float *row_sq, float *row_sum);
/* The same with the elements in the compact store (@rep16, @w32: nnz
 * each, taken over); @sym must qualify (ctr_scsr_compact_applies). */
CtrScsr *ctr_scsr_new_from_compact (CtrSymmetry *sym, CtrRayModel model, guint n_views,
                                    guint64 n_pixels, guint64 nnz, gint64 *seg_ptr,
                                    guint16 *rep16, float *w32, float *row_sq, float *row_sum);

/**
 * ctr_scsr_repartition:
 * Regroups @m (transfer full; its only reference) for the partition of @sym
 * (transfer full): the symmetry of the same geometry and grid, partitioned
 * into any number of parts.  Every element gets its rep's new id, and each
 * row's elements are regrouped stably by (new part, slot) inside the row's
 * range: O(nnz), in place but for the segment pointers (in the compact
 * store when @m has one); the products are those of @m up to the order of
 * the sums.  Returns: @m; NULL with CTR_ERROR_OUT_OF_MEMORY (both @m and
 * @sym freed) when the new segment pointers, the rep maps or the 8-byte
 * elements (a compact store the new parts do not fit) cannot be allocated.
 */
CtrScsr *ctr_scsr_repartition (CtrScsr *m, CtrSymmetry *sym, GError **error);

G_END_DECLS
