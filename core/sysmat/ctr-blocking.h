/* ctr-blocking.h — dense column-major sub-matrices of the SCSR rows, the
 * layout a GPU walks one thread per row (cuART §4, Algorithm 1 and 2).
 *
 * Global-level blocking (§4.1, Fig. 5): every stored row's first a elements
 * (a = the shortest row) form Sub_SM1; the remainders are sorted by length
 * and the longest is paired with the shortest (the fold of Fig. 5d-e), each
 * pair one row of Sub_SM2, padded to the longest pair.
 *
 * View-level blocking (§4.2, Algorithm 1, sorting-free): Sub_SM1 as above;
 * then the canonical views are taken in pairs (i, i+1) and the rows of the
 * left and right ramps of view i+1 (rows shorter than its plateau) are
 * appended, in reverse order, to the rows of view i at the same ramp, whose
 * lengths they complement (Algorithm 1 lines 8-30); the plateau rows of view
 * i+1 stay rows of their own.  Each pair is one dense sub-matrix padded to
 * its longest row, so padding follows the pair's own sparsity, not the
 * matrix's worst row.
 *
 * Orbit-level blocking (the view-level scheme fitted to orbit subsets, for
 * the GPU's subset methods): the sub-matrices never mix orbits, so that one
 * subset's update reads only its own.  For each orbit o: Sub_SM1_o holds
 * the first a_o elements of every row of o (a_o = o's shortest row); the
 * remainders, sorted by length, are folded longest with shortest (§4.1's
 * pairing, Fig. 5d-e, within the orbit) into Sub_SM2_o, padded to its
 * longest pair.  orbit_first[o] … orbit_first[o + 1] − 1 are o's blocks.
 *
 * Each blocked row holds at most two stored rows (ray0, then ray1 from the
 * junction on).  Within a sub-matrix, row i is rotated by i columns
 * (round-robin column permutation, cuART §3.2): threads of neighbouring rows
 * at the same step touch different pixels.  Element (row i, column c) of a
 * sub-matrix of R rows is at [c·R + i]; padding has w = 0.
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-scsr.h"

G_BEGIN_DECLS

typedef struct {
  guint orbit;               /* orbit-level blocking: the orbit; else G_MAXUINT */
  guint n_rows, width;
  guint32 *ray0, *ray1;      /* stored row (orbit·n_cols + j); ray1 = G_MAXUINT32: none */
  guint32 *junction;         /* unrotated column where ray1 starts */
  guint32 *rep;              /* [width][n_rows] */
  guint8 *slot;              /* [width][n_rows] segment h of the element */
  float *w;                  /* [width][n_rows] */
} CtrBlock;

typedef struct {
  guint n_blocks;
  CtrBlock *blocks;
  guint64 nnz;               /* stored elements placed */
  guint64 cells;             /* dense cells (nnz + padding) */
  guint *orbit_first;        /* orbit-level: n_orbits + 1 block indices; else NULL */
} CtrBlocked;

typedef enum {
  CTR_BLOCKING_VIEW,         /* §4.2, Algorithm 1 */
  CTR_BLOCKING_GLOBAL,       /* §4.1 */
  CTR_BLOCKING_ORBIT         /* per orbit subset (above) */
} CtrBlockingKind;

/**
 * ctr_blocked_new:
 * @m: the stored matrix.
 * @kind: the blocking.
 * Returns: (transfer full): the blocked layout (ctr_blocked_free()), or NULL
 *   with CTR_ERROR_OUT_OF_MEMORY when its arrays (about the matrix's
 *   elements plus the padding, 9 bytes a cell) cannot be allocated.
 */
CtrBlocked *ctr_blocked_new (const CtrScsr *m, CtrBlockingKind kind, GError **error);
void ctr_blocked_free (CtrBlocked *b);
/* Padded cells over stored elements: cells / nnz − 1. */
double ctr_blocked_padding (const CtrBlocked *b);
guint64 ctr_blocked_bytes (const CtrBlocked *b);

/**
 * ctr_blocked_apply_canonical:
 * Reference walk of the blocked layout (Algorithm 2's SpMV, one "thread" per
 * blocked row): y[o·n_cols + j] = Σ w·x[pixel] for the canonical view of
 * every orbit, @x one slice [pixel].  For checking the layout against
 * ctr_scsr_apply; the CPU solvers use ctr-scsr.h's own kernel.
 */
void ctr_blocked_apply_canonical (const CtrBlocked *b, const CtrScsr *m, const float *x, float *y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrBlocked, ctr_blocked_free)

G_END_DECLS
