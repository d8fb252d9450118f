/* ctr-geometry-sketch.h — a to-scale drawing of the acquisition for one view.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_GEOMETRY_SKETCH (ctr_geometry_sketch_get_type ())

G_DECLARE_FINAL_TYPE (CtrGeometrySketch, ctr_geometry_sketch, CTR, GEOMETRY_SKETCH, GtkDrawingArea)

GtkWidget *ctr_geometry_sketch_new      (void);
/* @g: (nullable): copied; NULL draws a placeholder. @grid: (nullable): copied. */
void       ctr_geometry_sketch_set      (CtrGeometrySketch *self,
                                         const CtrGeometry *g,
                                         const CtrGrid     *grid);
void       ctr_geometry_sketch_set_view (CtrGeometrySketch *self,
                                         guint              view);
guint      ctr_geometry_sketch_get_view (CtrGeometrySketch *self);

G_END_DECLS
