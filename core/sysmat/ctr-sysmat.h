/* ctr-sysmat.h — the system matrix A of one slice (fan and parallel beam).
 *
 * Row i = one ray, i = view·n_cols + col (view-major, so the rays of one view
 * are a contiguous block of rows); column j = one pixel, j = iy·nx + ix of the
 * CtrGrid (row 0 = +y).  a_ij is the length (mm) of ray i inside pixel j
 * under the chosen ray model, so A·x with x in 1/mm gives line integrals.
 *
 * Plan/execute like FFTW (STYLE.md): ctr_sysmat_build() is the expensive
 * step, done once per geometry and grid; ctr_sysmat_apply() and
 * ctr_sysmat_apply_adjoint() are cheap, thread-safe and take any arrays.  The
 * forward and adjoint products come from the same stored matrix, so they are
 * exactly adjoint (tested: <Ax,y> = <x,A^T y> to 1e-5 relative).
 *
 * Batches: every product takes n_slices right-hand sides, x as
 * [slice][pixel] and y as [slice][ray], so each matrix element read serves all
 * slices of a stack (MemXCT / Petascale XCT: SpMM instead of SpMV).
 */
#pragma once

#include <glib.h>
#include <gio/gio.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include "sysmat/ctr-ray-model.h"

G_BEGIN_DECLS

typedef struct _CtrSysmat CtrSysmat;

/**
 * ctr_sysmat_build:
 * @g: fan or parallel geometry (validated here).
 * @grid: image grid; only nx, ny, dx, dy, cx, cy are used (one slice).
 * @model: ray model.
 * @cancellable: (nullable): checked between views.
 *
 * Builds the CSR matrix of (g->n_views·g->n_cols) × (nx·ny), OpenMP over views.
 * Returns: (transfer full): NULL with CTR_ERROR_INVALID_GEOMETRY,
 *   CTR_ERROR_INVALID_ARGUMENT (bad grid, cone beam), CTR_ERROR_OUT_OF_MEMORY
 *   (with the size asked for), G_IO_ERROR_CANCELLED.
 */
CtrSysmat *ctr_sysmat_build (const CtrGeometry *g, const CtrGrid *grid,
                             CtrRayModel model, GCancellable *cancellable,
                             GError **error);
/**
 * ctr_sysmat_mean_row_nnz:
 * @g: fan or parallel geometry, @grid, @model: as ctr_sysmat_build takes
 *   them (checked by the caller).
 * The mean number of pixels a ray of @model crosses (non-zeros per matrix
 * row), from up to 48 views × 64 columns spread evenly over the scan
 * (rays that miss the grid count as 0): a cheap estimate of a stored
 * matrix's size (milliseconds; a few kilobytes).  Never fails (0 when even
 * that scratch cannot be had).
 */
double ctr_sysmat_mean_row_nnz (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model);

/* The bytes ctr_sysmat_build of @g, @grid, @model holds at its peak,
 * estimated by ctr_sysmat_mean_row_nnz (cheap; the non-zeros within a few
 * per cent for scans of evenly spread views): twice the elements of the
 * matrix (ctr_sysmat_bytes), since the build keeps every view's rows in a
 * buffer of its own until all are copied, and the row tables. */
guint64 ctr_sysmat_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model);

CtrSysmat *ctr_sysmat_ref (CtrSysmat *a);
void ctr_sysmat_unref (CtrSysmat *a);

guint64 ctr_sysmat_n_rays (const CtrSysmat *a);
guint64 ctr_sysmat_n_pixels (const CtrSysmat *a);
guint64 ctr_sysmat_nnz (const CtrSysmat *a);
/* Bytes held by the matrix arrays (row pointers, columns, values). */
guint64 ctr_sysmat_bytes (const CtrSysmat *a);
guint ctr_sysmat_n_views (const CtrSysmat *a);
guint ctr_sysmat_n_cols (const CtrSysmat *a);
CtrRayModel ctr_sysmat_model (const CtrSysmat *a);

/**
 * ctr_sysmat_csr:
 * Read-only view of the CSR arrays: @row_ptr (n_rays + 1 entries, int64),
 * @col_idx and @values (nnz entries).  Borrowed; valid while @a lives.
 */
void ctr_sysmat_csr (const CtrSysmat *a, const gint64 **row_ptr,
                     const guint32 **col_idx, const float **values);

/* y[s][i] = sum_j a_ij x[s][j] for rays i in [row_begin, row_end).
 * @y is indexed by absolute ray number (stride n_rays per slice).  Parallel (OpenMP) over rays. */
void ctr_sysmat_apply_rows (const CtrSysmat *a, guint64 row_begin, guint64 row_end,
                            const float *x, float *y, guint n_slices);
/* x[s][j] += sum_i a_ij w[s][i] for rays i in [row_begin, row_end), with @w
 * indexed by absolute ray number.  Race-free: per-thread partial images are
 * reduced, no atomics. */
void ctr_sysmat_apply_adjoint_rows (const CtrSysmat *a, guint64 row_begin, guint64 row_end,
                                    const float *w, float *x, guint n_slices);

/* Whole-matrix products: y = A x (overwrites y), x = A^T y (overwrites x). */
void ctr_sysmat_apply (const CtrSysmat *a, const float *x, float *y, guint n_slices);
void ctr_sysmat_apply_adjoint (const CtrSysmat *a, const float *y, float *x, guint n_slices);

/* Per-ray sums over pixels: sum_j a_ij^2 (@out_sq) and sum_j a_ij (@out_sum),
 * each n_rays floats; either may be NULL. */
void ctr_sysmat_row_sums (const CtrSysmat *a, float *out_sq, float *out_sum);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrSysmat, ctr_sysmat_unref)

G_END_DECLS
