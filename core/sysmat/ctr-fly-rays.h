/* ctr-fly-rays.h — the on-the-fly fan/parallel pair's rays as a table of
 * numbers, for a device that computes the rows itself (gpu/ctr-cuda-fly.cu)
 * with the ray model of ctr_ray_weights (ctr-ray.c, ctr-fly-op.h): core
 * owns the model, the device gets each ray's parameters and walks it the
 * way ctr-ray.c does.
 *
 * Per ray (view, col), ray number view·n_cols + col, ctr_fly_ray_stride
 * doubles (mm, unit directions):
 *   Joseph, Siddon (Joseph 1982; Siddon 1985): o_x, o_y, d_x, d_y — the ray
 *     of ctr_geometry_ray (a half-line from o on fan beam, a line on
 *     parallel beam);
 *   area (cuART §2.1, closed form of ctr-ray-area.h): the two edges
 *     (nx, ny, k, a, b, inv_8ab, inv_2a each), s_x, s_y, dm_x, dm_y,
 *     width0, width_per_mm (CtrAreaRay), then slope[2], icpt[2] of the slab
 *     walk (ctr_area_ray_init_walk): 24 doubles.
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include "sysmat/ctr-ray-model.h"

G_BEGIN_DECLS

#define CTR_FLY_RAY_LINE_DOUBLES 4
#define CTR_FLY_RAY_AREA_DOUBLES 24

/* Doubles per ray of @model's table. */
guint ctr_fly_ray_stride (CtrRayModel model);

/**
 * ctr_fly_ray_table:
 * @g: fan or parallel geometry (valid).
 * @grid: the slice grid (valid).
 * @model: the ray model.
 * @error: CTR_ERROR_OUT_OF_MEMORY (the table, with its size) or
 *   CTR_ERROR_UNSUPPORTED (area model: a ray for which the closed form does
 *   not hold — a pixel of the grid behind the source, or a bin wider than
 *   45° — named by view and column; the CPU's rows clip polygons there).
 *
 * Returns: (transfer full): n_views·n_cols·ctr_fly_ray_stride (@model)
 *   doubles, [view][col][stride], or NULL with @error.
 */
double *ctr_fly_ray_table (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, GError **error);

G_END_DECLS
