/* ctr-slice-view.h — one slice of a float image, shown in grey with window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"
#include "ctr-slice-plane.h"

G_BEGIN_DECLS

#define CTR_TYPE_SLICE_VIEW (ctr_slice_view_get_type ())

G_DECLARE_FINAL_TYPE (CtrSliceView, ctr_slice_view, CTR, SLICE_VIEW, GtkWidget)

GtkWidget  *ctr_slice_view_new             (void);
void        ctr_slice_view_set_image       (CtrSliceView *self,
                                            CtrVolume    *image,
                                            guint         slice);
CtrVolume  *ctr_slice_view_get_image       (CtrSliceView *self);
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
char       *ctr_slice_view_describe_pixel  (CtrSliceView *self,
                                            guint         ix,
                                            guint         iy);
gboolean    ctr_slice_view_apply_preset    (CtrSliceView *self,
                                            const char   *name);
void        ctr_slice_view_get_zoom_pan    (CtrSliceView *self,
                                            double       *zoom,
                                            double       *pan_x,
                                            double       *pan_y);
void        ctr_slice_view_set_zoom_pan    (CtrSliceView *self,
                                            double        zoom,
                                            double        pan_x,
                                            double        pan_y);
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

G_END_DECLS
