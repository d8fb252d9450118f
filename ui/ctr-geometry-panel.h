/* ctr-geometry-panel.h — the geometry editor: fields, validation, sketch.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_GEOMETRY_PANEL (ctr_geometry_panel_get_type ())

G_DECLARE_FINAL_TYPE (CtrGeometryPanel, ctr_geometry_panel, CTR, GEOMETRY_PANEL, GtkWidget)

/* @g: (nullable): the file's geometry (copied); @projections: (nullable): its
 * data, whose views × rows × columns the edited geometry must keep; @grid: the
 * initial reconstruction grid. */
void               ctr_geometry_panel_load       (CtrGeometryPanel     *self,
                                                  const CtrGeometry    *g,
                                                  const CtrProjections *projections,
                                                  const CtrGrid        *grid);
/* The edited geometry, or NULL while a field is invalid (transfer none). */
const CtrGeometry *ctr_geometry_panel_get_geometry (CtrGeometryPanel   *self);
/* The grid of the image size and pixel size fields; FALSE while invalid. */
gboolean           ctr_geometry_panel_get_grid   (CtrGeometryPanel     *self,
                                                  CtrGrid              *grid);
gboolean           ctr_geometry_panel_is_valid   (CtrGeometryPanel     *self);
/* Field names: "sod", "sdd", "cols", "rows", "pitch-u", "pitch-v",
 * "offset-u", "offset-v", "angle-start", "angle-step", "views",
 * "image-size", "pixel-size".  For tests and scripting: set a field's text as
 * if typed, read the reason shown beside it ("" when valid). */
gboolean           ctr_geometry_panel_set_text   (CtrGeometryPanel     *self,
                                                  const char           *field,
                                                  const char           *text);
const char        *ctr_geometry_panel_get_reason (CtrGeometryPanel     *self,
                                                  const char           *field);
void               ctr_geometry_panel_set_beam   (CtrGeometryPanel     *self,
                                                  CtrBeam               beam,
                                                  CtrDetectorShape      shape);
void               ctr_geometry_panel_set_view   (CtrGeometryPanel     *self,
                                                  guint                 view);
/* The file's values again (the Revert button); emits "reverted". */
void               ctr_geometry_panel_revert     (CtrGeometryPanel     *self);
/* The geometry of an ASTRA proj_geom (JSON) or an RTK geometry (.xml; the
 * detector's size from the data, its pitch from the fields shown), as the
 * Import… button does (core/io/ctr-geometry-import.h); FALSE with the
 * importer's GError, or CTR_ERROR_INVALID_GEOMETRY when its sizes are not
 * the projections'. */
gboolean           ctr_geometry_panel_import     (CtrGeometryPanel     *self,
                                                  const char           *path,
                                                  GError              **error);

G_END_DECLS
