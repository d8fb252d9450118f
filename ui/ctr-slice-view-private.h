/* ctr-slice-view-private.h — what ctr-slice-view.c (the widget: drawing,
 * gestures, window, zoom) and ctr-slice-view-text.c (its words: read-out,
 * window label, HU) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "ctr-slice-view.h"

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
};


/* Emits "window-changed" (the user or a preset changed window/level). */
void     _ctr_slice_view_window_changed (CtrSliceView *self);
/* Whether the values are shown in HU: asked for, on an image in 1/mm. */
gboolean _ctr_slice_view_shows_hu       (CtrSliceView *self);
/* A value of the image (or a window end) as shown: "+40 HU", "0.0192"
 * (transfer full). */
char    *_ctr_slice_view_format_value   (CtrSliceView *self,
                                         double        v);

G_END_DECLS
