/* ctr-slice-view.h — one slice of a float image, shown in grey with window/level.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

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

G_END_DECLS
