/* ctr-cone-projector.h — matched on-the-fly cone-beam projector pair:
 * ray-driven Joseph forward projection and its exact adjoint.
 *
 * Joseph (1982), "An improved algorithm for reprojecting rays through pixel
 * images", IEEE TMI 1(3): a ray is sampled where it crosses the planes
 * perpendicular to its dominant in-plane axis (x or y); each sample is the
 * bilinear interpolation of the four voxels around the crossing point (in the
 * other in-plane axis and z), weighted by the step length between planes,
 * voxel size / |direction component| (mm).  Voxels outside the grid count
 * as 0.
 *
 * The adjoint applies the transpose of exactly the same weights (same
 * arithmetic, shared code), so <A x, y> = <x, Aᵀ y> to float rounding
 * (tested).  It is ray-driven too, and race-free without atomics: within one
 * view the rays of each dominant axis are scattered block of planes by block
 * of planes, every OpenMP thread owning whole blocks (each ray clipped to the
 * block).  Along a ray the planes where all four neighbours lie inside the
 * grid (the interior run) go through a kernel with precomputed strides, eight
 * planes at a time in AVX2 where the CPU has it (CTR_CONE_SIMD=generic: the
 * scalar kernel); the edge planes keep the checked stencil.  Nothing is
 * stored but per-view ray parameters, so any volume size works (one object
 * per geometry and grid, like FFTW's plans: made once, applied many times,
 * thread-safe to apply).
 */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"

G_BEGIN_DECLS

typedef struct _CtrConeProjector CtrConeProjector;

/**
 * ctr_cone_projector_new:
 * @g: cone geometry (copied): flat or curved detector, circular or helical
 *   source path (source_z_mm), flying focal spot (focal_shift); the rays are
 *   ctr_cone_ray's.
 * @grid: volume grid (copied), any size, voxel size and centre (a helical
 *   slab: the grid's z centre where the slab is).
 * Returns: (transfer full): the projector, or NULL with
 *   CTR_ERROR_INVALID_GEOMETRY (not a valid cone geometry) or
 *   CTR_ERROR_INVALID_ARGUMENT (bad grid).
 */
CtrConeProjector *ctr_cone_projector_new (const CtrGeometry *g, const CtrGrid *grid,
                                          GError **error);
void ctr_cone_projector_free (CtrConeProjector *cp);

const CtrGeometry *ctr_cone_projector_geometry (const CtrConeProjector *cp);
const CtrGrid *ctr_cone_projector_grid (const CtrConeProjector *cp);

/**
 * ctr_cone_projector_forward_view:
 * @vol: grid volume, [z][y][x] floats (1/mm).
 * @out: (out caller-allocates): n_rows·n_cols line integrals of view @view,
 *   [row][col], overwritten.  OpenMP over detector rows.
 */
void ctr_cone_projector_forward_view (const CtrConeProjector *cp, const float *vol,
                                      guint view, float *out);
/* As ctr_cone_projector_forward_view, 0 (and no work) for the rays whose
 * @mask entry (n_rows·n_cols bytes, [row][col]; NULL: every ray) is 0. */
void ctr_cone_projector_forward_view_masked (const CtrConeProjector *cp, const float *vol, guint view,
                                             const guint8 *mask, float *out);

/**
 * ctr_cone_projector_adjoint_view:
 * @proj: n_rows·n_cols values of view @view, [row][col].
 * @vol: (inout): [z][y][x]; Aᵥᵀ·proj is added to it.
 * @weights: (inout) (nullable): [z][y][x]; Aᵥᵀ·1 (the view's column sums)
 *   is added to it.
 * OpenMP over blocks of voxel planes (race-free, see above).  The view's
 * rays are set up once into tables (49 bytes a ray); when those cannot be
 * allocated each block sets them up again (slower, the same sums): no
 * allocation failure aborts.
 */
void ctr_cone_projector_adjoint_view (const CtrConeProjector *cp, const float *proj,
                                      guint view, float *vol, float *weights);
/* As ctr_cone_projector_adjoint_view over the rays whose @mask entry
 * (n_rows·n_cols bytes of the view, [row][col]; NULL: every ray) is not 0:
 * the adjoint of the forward projection with the other rays set to 0. */
void ctr_cone_projector_adjoint_view_masked (const CtrConeProjector *cp, const float *proj, guint view,
                                             const guint8 *mask, float *vol, float *weights);

/**
 * ctr_cone_projector_forward_views_masked:
 * @v0, @n_views: the views [v0, v0 + n_views) (within the geometry's).
 * @mask: (nullable): n_views·n_rows·n_cols bytes, [view][row][col], as
 *   ctr_cone_projector_forward_view_masked's for each view.
 * @out: (out caller-allocates): [view][row][col] of the block, overwritten.
 * The same values as ctr_cone_projector_forward_view_masked view by view,
 * bit for bit, in one OpenMP loop over all the block's rows (one thread
 * join a block instead of one a view).
 */
void ctr_cone_projector_forward_views_masked (const CtrConeProjector *cp, const float *vol, guint v0,
                                              guint n_views, const guint8 *mask, float *out);
/* As ctr_cone_projector_forward_views_masked, the x-dominant rays reading
 * @vol_xt (nullable: @vol with x and y swapped, as for
 * ctr_cone_projector_forward_rays_xt). */
void ctr_cone_projector_forward_views_xt (const CtrConeProjector *cp, const float *vol, const float *vol_xt,
                                          guint v0, guint n_views, const guint8 *mask, float *out);
/**
 * ctr_cone_projector_adjoint_views_masked:
 * As ctr_cone_projector_adjoint_view_masked for the views [v0, v0 + n_views)
 * together: @proj and @mask are [view][row][col] of the block.  The rays of
 * all the block's views go through one pass of plane blocks per dominant
 * axis (each plane block reused from cache across the views; three thread
 * joins a block instead of three a view).  The sums are the per-view ones
 * in another order (float rounding).  Ray tables of 49 bytes a ray; when
 * they cannot be allocated it goes view by view: no allocation failure
 * aborts.
 */
void ctr_cone_projector_adjoint_views_masked (const CtrConeProjector *cp, const float *proj, guint v0,
                                              guint n_views, const guint8 *mask, float *vol, float *weights);

/**
 * CtrConeRays:
 * The rays of a block of views set up once (49 bytes a ray: their plane
 * ranges, interpolation steps and dominant axis) for a forward and an
 * adjoint pass over the same views (an update: the forward's residual
 * back-projected), so each ray is set up once instead of twice.  Products
 * through a table equal the untabled ones bit for bit.
 *
 * ctr_cone_rays_new: a table for up to @max_views views of @cp (which must
 * outlive it), or NULL when it cannot be allocated (the caller falls back
 * to the untabled calls; no allocation aborts).
 * ctr_cone_rays_fill: sets the table up for the views [@v0, @v0 + @n_views)
 * (n_views ≤ max_views) with @mask as ctr_cone_projector_forward_views_masked's
 * (nullable).  OpenMP over rays.
 * ctr_cone_projector_forward_rays: @out ([view][row][col] of the block,
 * overwritten) as ctr_cone_projector_forward_views_masked.
 * ctr_cone_projector_adjoint_rays: adds the block's adjoint of @proj
 * ([view][row][col] of the block) to @vol (and its column sums to @weights,
 * nullable) as ctr_cone_projector_adjoint_views_masked, bit for bit.
 */
typedef struct _CtrConeRays CtrConeRays;
CtrConeRays *ctr_cone_rays_new (const CtrConeProjector *cp, guint max_views);
/* The bytes ctr_cone_rays_new holds for up to @max_views views of @g (the
 * rays, their dominant axis and the scatter order), for the plan's
 * estimate before anything is built. */
guint64 ctr_cone_rays_estimate_bytes (const CtrGeometry *g, guint max_views);
void ctr_cone_rays_free (CtrConeRays *t);
void ctr_cone_rays_fill (const CtrConeProjector *cp, CtrConeRays *t, guint v0, guint n_views, const guint8 *mask);
void ctr_cone_projector_forward_rays (const CtrConeProjector *cp, const CtrConeRays *t, const float *vol,
                                      float *out);
void ctr_cone_projector_adjoint_rays (const CtrConeProjector *cp, CtrConeRays *t, const float *proj, float *vol,
                                      float *weights);

/**
 * ctr_cone_projector_forward_rays_xt:
 * ctr_cone_projector_adjoint_rays_xt:
 * As ctr_cone_projector_forward_rays and ctr_cone_projector_adjoint_rays,
 * with the x-dominant rays (|d_x| ≥ |d_y|) in @vol_xt: the same volume with
 * x and y swapped, [z][x][y] (y fastest; ctr_cone_volume_swap_xy), so their
 * two transverse neighbours are adjacent in memory as the y-dominant rays'
 * are in @vol (two 8-byte accesses a plane instead of four 4-byte ones).
 * The forward reads @vol_xt (a swapped copy of @vol); the adjoint adds the
 * x-dominant rays to @vol_xt (fold it back with
 * ctr_cone_volume_add_swapped_xy) and the others to @vol.  @vol_xt NULL:
 * the plain calls.  The adjoint takes no @weights with a @vol_xt (nullable
 * otherwise).  The same system matrix; the sums differ in float rounding.
 *
 * ctr_cone_volume_swap_xy: @vol_xt[z][x][y] = @vol[z][y][x] for @grid
 * (both nx·ny·nz floats, not overlapping).  OpenMP over z.
 * ctr_cone_volume_add_swapped_xy: @vol[z][y][x] += @vol_xt[z][x][y], then
 * @vol_xt = 0 (ready for the next adjoint).  OpenMP over z.
 */
void ctr_cone_projector_forward_rays_xt (const CtrConeProjector *cp, const CtrConeRays *t, const float *vol,
                                         const float *vol_xt, float *out);
void ctr_cone_projector_adjoint_rays_xt (const CtrConeProjector *cp, CtrConeRays *t, const float *proj, float *vol,
                                         float *vol_xt, float *weights);
void ctr_cone_volume_swap_xy (const CtrGrid *grid, const float *vol, float *vol_xt);
void ctr_cone_volume_add_swapped_xy (const CtrGrid *grid, float *vol_xt, float *vol);

/* All views: @out is [view][row][col] (overwritten); the adjoint adds to @vol. */
void ctr_cone_projector_forward (const CtrConeProjector *cp, const float *vol, float *out);
void ctr_cone_projector_adjoint (const CtrConeProjector *cp, const float *proj, float *vol);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrConeProjector, ctr_cone_projector_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrConeRays, ctr_cone_rays_free)

G_END_DECLS
