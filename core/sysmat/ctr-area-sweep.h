/* ctr-area-sweep.h — the area model's back-projection (the adjoint of the
 * projector) by a sweep over the pixels: for each view, each pixel finds the
 * detector bins its square projects onto and takes each bin's weight from
 * the closed form of that bin's strip (ctr-ray-area.h), the same function,
 * to the bit, that the ray-driven rows and the stored matrices use; so it is
 * the exact transpose of the ray-driven forward product.  Internal to
 * core/sysmat: the on-the-fly operator (ctr-fly-op.c) uses it for its
 * adjoint products when it applies.
 *
 * Why pixel-driven: the adjoint of a ray-driven pass scatters every element
 * into the image, which threads may only do with atomics, per-thread images
 * or a sort (the operator's element buckets); the sweep gathers instead —
 * each thread owns a band of image rows and sums into its own pixels, in a
 * fixed order (views, then bins), so it needs no buckets and gives the same
 * bits on every call and for every thread count.  The forward product stays
 * ray-driven: with symmetry orbits it computes one row in eight.
 *
 * Model: Yu et al. (2018), cuART, §2.1 (strip area over strip width);
 * pixel-driven traversal as in the distance-driven pair of De Man & Basu
 * (2004), here with the exact strip weights rather than overlap lengths.
 *
 * Layouts (natural, as ctr-fly-op.h): images X[slice][pixel] (pixel =
 * iy·nx + ix, row 0 = +y), data [slice][view·n_cols + col].
 */
#pragma once

#include <glib.h>
#include "sysmat/ctr-ray-private.h"

G_BEGIN_DECLS

typedef struct CtrAreaSweep CtrAreaSweep;

/**
 * ctr_area_sweep_new:
 * @g: validated fan or parallel geometry (borrowed: it must outlive the
 *   sweep).
 * @gi: the slice grid.
 * @n_slices: slices of every product (a stack sharing the rows).
 * @n_threads: threads of every product (>= 1).
 * @error: CTR_ERROR_OUT_OF_MEMORY when its tables cannot be had (with their
 *   size).
 *
 * Returns: (transfer full) (nullable): the sweep; NULL without @error set
 * when it does not apply (per-view vectors, a detector whose bins do not
 * increase along u, or a ray for which the closed form does not hold: a
 * grid corner behind the source, a bin wider than 45°), and the caller keeps
 * its ray-driven products.
 */
CtrAreaSweep *ctr_area_sweep_new (const CtrGeometry *g, const CtrRayGrid *gi, guint n_slices, guint n_threads,
                                  GError **error);

void ctr_area_sweep_free (CtrAreaSweep *s);

/* Bytes ctr_area_sweep_new allocates for these sizes (the memory plan). */
guint64 ctr_area_sweep_bytes (guint n_cols, guint nx, guint n_threads);

/**
 * ctr_area_sweep_adjoint:
 * @W: data [n_slices][n_views_total·n_cols]; only the rays of @views are read.
 * @D: images [n_slices][ny·nx]; D[s][p] += Σ_i a_ip W[s][i] over the rays i
 *   of @views.  Each pixel sums views in the order given, bins in increasing
 *   order: the same bits on every call and thread count.
 */
void ctr_area_sweep_adjoint (CtrAreaSweep *s, const gint32 *views, guint n_views, guint n_slices, const float *W,
                             float *D);

G_END_DECLS
