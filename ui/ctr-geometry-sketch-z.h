/* ctr-geometry-sketch-z.h — the z side of a helical scan on the geometry
 * sketch: a vertical bar (z up, mm) with the source's path along z (the
 * current view's focal spot marked), the z range the scan samples fully
 * (ctr_helix_z_coverage, 180LI) and the slices of the reconstruction grid,
 * labelled in the scan's table coordinate (ctr_geometry_table_mm).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/* Width (px) the bar takes at the right of the sketch. */
#define CTR_SKETCH_Z_WIDTH 110

/* Draws the bar of @g (helical: ctr_geometry_is_helical) into the
 * rectangle @x0 … @x0 + CTR_SKETCH_Z_WIDTH × @height of @cr; @grid
 * (nullable) the slices; @view the view shown; @fg the text colour;
 * @widget makes the Pango layouts. */
void ctr_sketch_draw_z (GtkWidget         *widget,
                        cairo_t           *cr,
                        const CtrGeometry *g,
                        const CtrGrid     *grid,
                        guint              view,
                        double             x0,
                        double             height,
                        const GdkRGBA     *fg);

G_END_DECLS
