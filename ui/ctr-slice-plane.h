/* ctr-slice-plane.h — the plane of a volume that a slice view shows, and
 * its mapping to grey: orientation, robust automatic window, Hounsfield
 * presets.  No widget state: CtrSliceView draws what these compute.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

typedef enum {
  CTR_SLICE_AXIAL,     /* z fixed: the stored slices */
  CTR_SLICE_CORONAL,   /* y fixed: x right, z up */
  CTR_SLICE_SAGITTAL   /* x fixed: y right, z up */
} CtrSliceOrientation;

/**
 * CtrSlicePlane:
 * @grid: the plane as a 2-D grid: x right, "y" up, nz = 1 (mm as the
 *   volume's; for coronal x/z, for sagittal y/z).
 * @data: nx × ny floats, row 0 at the top (the plane's +y); borrowed from
 *   the volume (axial) or @copy.
 * @index: the slice along the orientation's axis (clamped).
 */
typedef struct {
  CtrGrid      grid;
  const float *data;
  float       *copy;
  guint        index;
} CtrSlicePlane;

/* Slices along @o's axis of @v (a 2-D image: 1 in every orientation). */
guint       ctr_slice_plane_count        (const CtrVolume     *v,
                                          CtrSliceOrientation  o);
/* Fills @plane with slice @index along @o of @v (kept alive by the caller
 * while @plane is used); frees what @plane held before.  A coronal or
 * sagittal plane is a copy (nx × nz or ny × nz floats), allocated with the
 * non-aborting allocator: FALSE with CTR_ERROR_OUT_OF_MEMORY when it does
 * not fit (@plane's grid and index set, its data NULL). */
gboolean    ctr_slice_plane_extract      (CtrSlicePlane       *plane,
                                          const CtrVolume     *v,
                                          CtrSliceOrientation  o,
                                          guint                index,
                                          GError             **error);
void        ctr_slice_plane_clear        (CtrSlicePlane       *plane);
/* The automatic window: the 0.1st and 99.9th percentiles of the finite
 * values (0, 0 without any). */
void        ctr_slice_plane_robust_range (const CtrSlicePlane *plane,
                                          double              *lo,
                                          double              *hi);
/* The position (mm, the volume's frame) of slice @index along @o's axis:
 * z of an axial slice, y of a coronal row, x of a sagittal column. */
double      ctr_slice_plane_position     (const CtrGrid       *g,
                                          CtrSliceOrientation  o,
                                          guint                index);
/* The slice along @o's axis nearest to position @mm (clamped): how pages
 * showing other grids of one scan find the same place. */
guint       ctr_slice_plane_index_at     (const CtrGrid       *g,
                                          CtrSliceOrientation  o,
                                          double               mm);
/* The automatic window of a whole image (every slice of a volume), so that
 * one window serves every slice and plane: the 0.1st and 99.9th
 * percentiles of its finite values, read from about max (2¹⁸, nx·ny) of
 * them: whole rows, every k-th row of the [z][y][x] array (a 2-D image
 * whole). */
void        ctr_slice_plane_volume_range (const CtrVolume     *v,
                                          double              *lo,
                                          double              *hi);
/* The plane in 8-bit grey, 0 at @lo and 255 at @hi (NaN black); its
 * pixels (3 bytes each) allocated with the non-aborting allocator: NULL with
 * CTR_ERROR_OUT_OF_MEMORY when they do not fit or @plane has no data.
 * (GTK's own copies of the texture, for the screen, may still abort.) */
GdkTexture *ctr_slice_plane_texture      (const CtrSlicePlane *plane,
                                          double               lo,
                                          double               hi,
                                          GError             **error);

/* μ_water (1/mm) of the HU read-out and presets: the project's one value (core/base/ctr-hu.h). */
#define CTR_SLICE_VIEW_MU_WATER CTR_MU_WATER_PER_MM
/* HU = 1000 (μ − μ_water) / μ_water for @mu in 1/mm. */
double      ctr_slice_view_to_hu         (double               mu);
G_END_DECLS
