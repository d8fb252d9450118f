/* ctr-method-panel.h — method and parameters, generated from core's table.
 * Each parameter's row is named after it (gtk_widget_get_name: "window",
 * "iterations", …); properties "method-name", "iterations" and "backend".
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"

G_BEGIN_DECLS

#define CTR_TYPE_METHOD_PANEL (ctr_method_panel_get_type ())

G_DECLARE_FINAL_TYPE (CtrMethodPanel, ctr_method_panel, CTR, METHOD_PANEL, GtkWidget)

GtkWidget *ctr_method_panel_new         (void);
CtrMethod  ctr_method_panel_get_method  (CtrMethodPanel  *self);
/* Selects @method and puts every parameter to that method's default; the
 * panel then keeps it over the next datasets where it fits.  A new panel
 * (or method-name "auto") follows the dataset instead: each geometry given
 * to set_geometry selects the first single-pass method of core's table
 * that fits it (FDK for a circular cone beam, FBP for fan, parallel and
 * helical scans). */
void       ctr_method_panel_set_method  (CtrMethodPanel  *self,
                                         CtrMethod        method);
/* The geometry of the open dataset: the Algorithm list then offers only
 * the methods that fit it (ctr_method_fits_geometry: no FDK for fan data,
 * no FBP, ART or parallel ART for a circular cone beam; every method until
 * a geometry is given).  While the panel follows the dataset, its fitting
 * method is selected; otherwise a method that does not fit gives way to
 * that method (so does one given to set_method), and rows
 * that do not apply (the system matrix for circular cone beam) are hidden. */
void       ctr_method_panel_set_geometry (CtrMethodPanel    *self,
                                          const CtrGeometry *g);
/* The options the form shows (defaults of the method for what it hides). */
void       ctr_method_panel_get_options (CtrMethodPanel  *self,
                                         CtrReconOptions *options);
/* Sets parameter @name (ctr-params.h) as if the user had; FALSE with
 * CTR_ERROR_INVALID_ARGUMENT when unknown or out of range. */
gboolean   ctr_method_panel_set_param   (CtrMethodPanel  *self,
                                         const char      *name,
                                         double           value,
                                         GError         **error);
gboolean    ctr_method_panel_set_backend (CtrMethodPanel *self,
                                          const char     *name);
const char *ctr_method_panel_get_backend (CtrMethodPanel *self);

G_END_DECLS
