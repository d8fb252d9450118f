/* ctr-projection-image.h — one pane of the Projections page: a float image
 * (a projection, a sinogram, a difference or a preview slice) drawn pixel
 * for pixel, with its caption above and, below, its range or the value
 * under the pointer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum {
  CTR_IMAGE_GREY,     /* black at the minimum, white at the maximum */
  CTR_IMAGE_SIGNED    /* a difference: blue below 0, white at 0, red above, symmetric */
} CtrImageScale;

#define CTR_TYPE_PROJECTION_IMAGE (ctr_projection_image_get_type ())
G_DECLARE_FINAL_TYPE (CtrProjectionImage, ctr_projection_image, CTR, PROJECTION_IMAGE, GtkWidget)

/* A pane captioned @caption; its widget name is @name (tests find it). */
GtkWidget   *ctr_projection_image_new        (const char         *name,
                                              const char         *caption);
void         ctr_projection_image_set_caption (CtrProjectionImage *self,
                                              const char         *caption);

/**
 * ctr_projection_image_set_data:
 * @data: float [@height][@width], x fastest (copied); NaN is drawn grey.
 * @scale: how values become colours (the range is the data's finite
 *   minimum and maximum, for CTR_IMAGE_SIGNED ± the largest magnitude).
 * @x_name, @y_name: what a column and a line of @data are ("col", "view",
 *   "row", "x"), named in the pointer's readout.
 * @unit: (nullable): the values' unit, e.g. "1/mm"; NULL for line integrals.
 * @keep_aspect: square pixels (a slice) rather than filling the pane (a
 *   sinogram of few views).
 */
void         ctr_projection_image_set_data   (CtrProjectionImage *self,
                                              const float        *data,
                                              guint               width,
                                              guint               height,
                                              CtrImageScale       scale,
                                              const char         *x_name,
                                              const char         *y_name,
                                              const char         *unit,
                                              gboolean            keep_aspect);
/* The grey range of the image (black at @lo, white at @hi), e.g. another
 * pane's so that two images compare; the readout keeps the image's own
 * range.  get: FALSE without an image. */
void         ctr_projection_image_set_window (CtrProjectionImage *self,
                                              float               lo,
                                              float               hi);
gboolean     ctr_projection_image_get_window (CtrProjectionImage *self,
                                              float              *lo,
                                              float              *hi);
/* No image: @message (nullable) in its place. */
void         ctr_projection_image_clear      (CtrProjectionImage *self,
                                              const char         *message);
/* A thin line across line @line of the image (-1: none), e.g. the view
 * or the row shown elsewhere. */
void         ctr_projection_image_set_marker (CtrProjectionImage *self,
                                              int                 line);
/* The image shown: float [*height][*width] owned by the pane, NULL when
 * cleared. */
const float *ctr_projection_image_peek       (CtrProjectionImage *self,
                                              guint              *width,
                                              guint              *height);
/* The readout under the image: the range, or the value under the pointer. */
const char  *ctr_projection_image_get_readout (CtrProjectionImage *self);

G_END_DECLS
