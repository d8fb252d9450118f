/* ctr-slice-view.h — one slice of a float image, shown in grey with window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"
#include "ctr-slice-plane.h"
#include "ctr-roi-set.h"

G_BEGIN_DECLS

#define CTR_TYPE_SLICE_VIEW (ctr_slice_view_get_type ())

/* How values of an image in 1/mm are shown (colour bar, W/L, read-out):
 * in 1/mm, in Hounsfield units, or as a difference of two images in HU
 * (1000 Δμ / μ_water, no offset). */
typedef enum {
  CTR_SLICE_HU_OFF,
  CTR_SLICE_HU_VALUES,
  CTR_SLICE_HU_DIFFERENCE
} CtrSliceHu;

G_DECLARE_FINAL_TYPE (CtrSliceView, ctr_slice_view, CTR, SLICE_VIEW, GtkWidget)

GtkWidget  *ctr_slice_view_new             (void);
void        ctr_slice_view_set_image       (CtrSliceView *self,
                                            CtrVolume    *image,
                                            guint         slice);
CtrVolume  *ctr_slice_view_get_image       (CtrSliceView *self);
/* Why the image is not drawn: its plane or its 8-bit picture did not fit
 * in memory (CTR_ERROR_OUT_OF_MEMORY's message, shown in the view in place
 * of the image); NULL when it is drawn.  Owned by the view. */
const char *ctr_slice_view_get_problem     (CtrSliceView *self);
void        ctr_slice_view_reset_window    (CtrSliceView *self);
void        ctr_slice_view_set_caption     (CtrSliceView *self,
                                            const char   *caption);
void        ctr_slice_view_set_placeholder (CtrSliceView *self,
                                            const char   *placeholder);
guint       ctr_slice_view_get_slice       (CtrSliceView *self);
void        ctr_slice_view_set_slice       (CtrSliceView *self,
                                            guint         slice);
guint       ctr_slice_view_get_n_slices    (CtrSliceView *self);
void        ctr_slice_view_set_orientation (CtrSliceView *self,
                                            CtrSliceOrientation orientation);
char       *ctr_slice_view_describe_window (CtrSliceView *self);
char       *ctr_slice_view_describe_pixel  (CtrSliceView *self,
                                            guint         ix,
                                            guint         iy);
/* Window preset @name of ctr-hu-preset.h: "auto" returns to the automatic
 * window in the image's unit; a Hounsfield preset sets its window and shows
 * HU; "custom" keeps the window and shows HU.  FALSE (nothing changed) for
 * an unknown name, or a Hounsfield one on an image not in 1/mm.  Emits
 * "window-changed" when the window changed. */
gboolean    ctr_slice_view_apply_preset    (CtrSliceView *self,
                                            const char   *name);
/* Shows the values of an image in 1/mm in HU (see CtrSliceHu); ignored for
 * other units. */
void        ctr_slice_view_set_hu          (CtrSliceView *self,
                                            CtrSliceHu    hu);
CtrSliceHu  ctr_slice_view_get_hu          (CtrSliceView *self);
/* What the pointer at widget point (@x, @y) shows (the read-out), as a
 * pointer motion does; outside the image it clears it.  For linked cursors
 * and tests. */
void        ctr_slice_view_point_at        (CtrSliceView *self,
                                            double        x,
                                            double        y);
/* Where the pointer read-out was last asked for (widget coordinates):
 * TRUE while the read-out is shown (the point lies on the image). */
gboolean    ctr_slice_view_get_pointer     (CtrSliceView *self,
                                            double       *x,
                                            double       *y);
/* Where the last frame drew the pointer read-out and the size/W/L label
 * (widget coordinates); FALSE for a box not drawn. */
gboolean    ctr_slice_view_get_overlay_boxes (CtrSliceView    *self,
                                            graphene_rect_t *readout,
                                            graphene_rect_t *window_label);
void        ctr_slice_view_get_zoom_pan    (CtrSliceView *self,
                                            double       *zoom,
                                            double       *pan_x,
                                            double       *pan_y);
void        ctr_slice_view_set_zoom_pan    (CtrSliceView *self,
                                            double        zoom,
                                            double        pan_x,
                                            double        pan_y);
/* The size the view asks for, both ways (default 512 px; at least its
 * minimum, 160): a small view beside a large one. */
void        ctr_slice_view_set_natural_size (CtrSliceView *self,
                                            int           size);
/* A small view (the other planes of a volume): no colour bar and no size
 * and window label (the main view shows them); caption, slice and pointer
 * read-outs and the crosshair stay. */
void        ctr_slice_view_set_compact     (CtrSliceView *self,
                                            gboolean      compact);
/* Whether the window is the automatic one (no drag, preset or
 * ctr_slice_view_set_window since the last reset). */
gboolean    ctr_slice_view_get_window_auto (CtrSliceView *self);
void        ctr_slice_view_get_window      (CtrSliceView *self,
                                            double       *lo,
                                            double       *hi);
void        ctr_slice_view_set_window      (CtrSliceView *self,
                                            double        lo,
                                            double        hi);
void        ctr_slice_view_set_profile_tool (CtrSliceView *self,
                                            gboolean      enabled);
gboolean    ctr_slice_view_get_segment     (CtrSliceView *self,
                                            double        segment[4]);
void        ctr_slice_view_set_segment     (CtrSliceView *self,
                                            const double  segment[4]);

/* ---- crosshair and slice read-out of a volume (ctr-slice-view-cross.c) ---- */

/* Voxel indices of a volume, i (column, x), j (row, y; row 0 at +y) and k
 * (slice, z), and the point of the shown plane they fall on.  Axial planes
 * show (i, j) at slice k; coronal (i, k) at row j, z up; sagittal (j, k) at
 * column i, y to the right and z up (ctr-slice-plane.c). */

/* The crosshair at voxel @voxel (i, j, k) of the image shown, drawn as two
 * lines through that voxel's centre in this view's plane; NULL hides it. */
void        ctr_slice_view_set_crosshair   (CtrSliceView *self,
                                            const guint   voxel[3]);
/* What a primary click at widget point (@x, @y) does: on a volume's plane
 * it emits "voxel-picked" with the voxel under the point (the plane's two
 * axes from the point, the third from the view's slice) and returns TRUE;
 * off the image, or on a 2-D image, FALSE and nothing.  For tests. */
gboolean    ctr_slice_view_click_at        (CtrSliceView *self,
                                            double        x,
                                            double        y);
/* The widget point of voxel @voxel's centre projected onto this view's
 * plane; FALSE without an image or room. */
gboolean    ctr_slice_view_voxel_to_point  (CtrSliceView *self,
                                            const guint   voxel[3],
                                            double       *x,
                                            double       *y);
/* Which slice of a volume is shown: "Axial 27 / 54 · z -1.5 mm",
 * "Coronal 21 / 64 · y +38.3 mm", "Sagittal 33 / 64 · x +1.9 mm" (1-based
 * index; the position of the slice's centre in the volume's frame, mm, or
 * px when the pixel size is unknown); NULL for a 2-D image or none.
 * Transfer full.  Drawn under the caption. */
char       *ctr_slice_view_describe_slice  (CtrSliceView *self);
CtrSliceOrientation ctr_slice_view_get_orientation (CtrSliceView *self);

/* ---- ROIs, ruler, μ_water (ctr-slice-view-overlay.c) ---- */

/* Attaches the window's ROIs, ruler and μ_water (nullable; the view keeps a
 * reference): the view draws them on axial planes, lets the set's tool draw
 * and move them, and shows HU with the set's μ_water. */
void        ctr_slice_view_set_roi_set     (CtrSliceView *self,
                                            CtrRoiSet    *set);
CtrRoiSet  *ctr_slice_view_get_roi_set     (CtrSliceView *self);
/* μ_water (1/mm) of the HU this view shows. */
double      ctr_slice_view_get_mu_water    (CtrSliceView *self);
/* The widget point of image point (@x_mm, @y_mm); FALSE without an image. */
gboolean    ctr_slice_view_mm_to_point     (CtrSliceView *self,
                                            double        x_mm,
                                            double        y_mm,
                                            double       *x,
                                            double       *y);
/* A primary drag from widget point (@x0, @y0) to (@x1, @y1) under the set's
 * ROI or ruler tool, through the same code as the pointer's; FALSE (nothing
 * done) when no tool takes it.  For scripted use and tests. */
gboolean    ctr_slice_view_tool_drag       (CtrSliceView *self,
                                            double        x0,
                                            double        y0,
                                            double        x1,
                                            double        y1);
/* The ruler's length as drawn: "42.31 mm", or "84.6 px" when the pixel size
 * is unknown; NULL without a ruler.  Transfer full. */
char       *ctr_slice_view_describe_ruler  (CtrSliceView *self);

G_END_DECLS
