/* ctr-cuda-cone-private.h — what the GLib sides of the cone-beam pair
 * (ctr-cuda-cone.c) and of its out-of-core split (ctr-cuda-cone-split.c)
 * share. */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"

G_BEGIN_DECLS

/* The kernels' tables (ctr-cuda-api.h's CtrCudaConeDesc): per view the
 * source @src [view][3], the detector point of row 0 of every column minus
 * the source @ray0 [view][col][3], and its step per row @drow [view][3],
 * mm; FALSE with CTR_ERROR_UNSUPPORTED when a view's rows are not straight
 * lines. */
gboolean ctr_cuda_cone_ray_tables (const CtrGeometry *g, double *src, double *ray0, double *drow, GError **error);

/* Whether x-dominant rays use the transposed volume (CTR_CUDA_CONE_LAYOUT,
 * gpu/README.md): 1 or 0. */
int ctr_cuda_cone_transposed_layout (void);

G_END_DECLS
