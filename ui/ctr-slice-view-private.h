/* ctr-slice-view-private.h — what ctr-slice-view.c (the widget: drawing,
 * gestures, window, zoom) and ctr-slice-view-text.c (its words: read-out,
 * window label, HU) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-slice-view.h"
#include "ctr-roi-set.h"

G_BEGIN_DECLS

#define MARGIN 12.0

struct _CtrSliceView
{
  GtkWidget   parent_instance;

  CtrVolume  *image;
  guint       slice;
  GdkTexture *texture;

  /* display window: grey 0 at lo, 255 at hi */
  double      lo;
  double      hi;
  double      data_min;
  double      data_max;
  gboolean    manual_window;
  int         hu;              /* CtrSliceHu */

  /* where the last frame put the overlays (ctr_slice_view_get_overlay_boxes) */
  graphene_rect_t readout_box;
  graphene_rect_t label_box;

  /* the shown plane (ctr-slice-plane.h) */
  int         orientation;     /* CtrSliceOrientation */
  CtrSlicePlane plane;

  /* drag state */
  double      drag_center;
  double      drag_width;

  char       *caption;
  char       *placeholder;
  char       *memory_error;    /* why the plane or its picture could not be made (shown instead) */
  char       *pointer_info;

  /* zoom about the centre and pan, in units of the fitted image size */
  double      zoom;
  double      pan_x;
  double      pan_y;
  double      drag_pan_x;
  double      drag_pan_y;
  double      drag_x;
  double      drag_y;
  int         drag_mode;       /* DRAG_* */

  gboolean    profile_tool;
  double      pointer_x;       /* last pointer position, widget coordinates */
  double      pointer_y;
  gboolean    have_segment;
  double      segment[4];      /* x0, y0, x1, y1 in mm */

  int         natural_size;    /* pixels, both ways (ctr_slice_view_set_natural_size) */
  gboolean    compact;         /* no colour bar, no size/window label */

  /* the linked crosshair (ctr-slice-view-cross.c): voxel (i, j, k) */
  gboolean    have_cross;
  guint       cross[3];

  /* the window's ROIs, ruler and μ_water (ctr-slice-view-overlay.c) */
  CtrRoiSet  *roi_set;
  gulong      roi_handlers[2];
  double      shown_mu_water;  /* the μ_water the window and read-out use */
  const char *preset;          /* the last Hounsfield preset applied (static) */
  int         tool_mode;       /* TOOL_* of the drag in progress */
  int         tool_index;      /* the ROI drawn or moved, -1 before it exists */
  double      tool_anchor[2];  /* mm where the drag began */
  CtrRoi      tool_start;      /* the moved ROI as it was */
};


/* Emits "window-changed" (the user or a preset changed window/level). */
void     _ctr_slice_view_window_changed (CtrSliceView *self);
/* Whether the values are shown in HU: asked for, on an image in 1/mm. */
gboolean _ctr_slice_view_shows_hu       (CtrSliceView *self);
/* A value of the image (or a window end) as shown: "+40 HU", "0.0192"
 * (transfer full). */
char    *_ctr_slice_view_format_value   (CtrSliceView *self,
                                         double        v);

/* ctr-slice-view-overlay.c: where the image lies in widget coordinates
 * (physical aspect kept; FALSE without an image or room), and widget point
 * <-> image mm (continuous; row 0 at +y). */
gboolean _ctr_slice_view_image_rect     (CtrSliceView          *self,
                                         graphene_rect_t       *rect);
void     _ctr_slice_view_widget_to_mm   (CtrSliceView          *self,
                                         const graphene_rect_t *r,
                                         double                 x,
                                         double                 y,
                                         double                *xm,
                                         double                *ym);
void     _ctr_slice_view_mm_to_widget   (CtrSliceView          *self,
                                         const graphene_rect_t *r,
                                         double                 xm,
                                         double                 ym,
                                         double                *x,
                                         double                *y);
/* Draws the profile segment, the ROIs, the ruler and the colour bar. */
void     _ctr_slice_view_draw_overlay   (CtrSliceView          *self,
                                         cairo_t               *cr,
                                         const graphene_rect_t *rect,
                                         double                 w,
                                         double                 h);
/* A primary drag at widget point (@x, @y) under an ROI or ruler tool:
 * TRUE when the tool takes the drag; then each update with the pointer. */
gboolean _ctr_slice_view_tool_begin     (CtrSliceView          *self,
                                         double                 x,
                                         double                 y);
void     _ctr_slice_view_tool_update    (CtrSliceView          *self,
                                         double                 x,
                                         double                 y);
/* μ_water (1/mm) of the HU shown: the ROI set's, else CTR_MU_WATER_PER_MM;
 * and its words, "μ_water 0.0192/mm (default)" (transfer full). */
double   _ctr_slice_view_mu_water       (CtrSliceView          *self);
char    *_ctr_slice_view_describe_mu_water (CtrSliceView       *self);

/* ctr-slice-view-cross.c: draws the crosshair over the image in @rect. */
void     _ctr_slice_view_draw_crosshair (CtrSliceView          *self,
                                         GtkSnapshot           *snapshot,
                                         const graphene_rect_t *rect);
/* ctr-slice-view.c: emits "voxel-picked". */
void     _ctr_slice_view_voxel_picked   (CtrSliceView          *self,
                                         const guint            voxel[3]);

G_END_DECLS
