/* ctr-run-page.h — the Run page: dataset, method, progress and the latest
 * numbers beside the live slice and the convergence of every run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-method-panel.h"
#include "ctr-roi-panel.h"
#include "ctr-session.h"
#include "ctr-slice-plane.h"

G_BEGIN_DECLS

#define CTR_TYPE_RUN_PAGE (ctr_run_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrRunPage, ctr_run_page, CTR, RUN_PAGE, GtkWidget)

/* The session shown (property "session"); nullable. */
void            ctr_run_page_set_session      (CtrRunPage *self,
                                               CtrSession *session);
/* The method form: the window reads the options for a run and binds the
 * preferences to it. */
CtrMethodPanel *ctr_run_page_get_method_panel (CtrRunPage *self);
/* The window's ROIs, ruler and μ_water (ctr-roi-set.h): shown on the
 * slice, measured in the sidebar's ROI panel. */
void            ctr_run_page_set_roi_set      (CtrRunPage *self,
                                               CtrRoiSet  *set);
CtrRoiPanel    *ctr_run_page_get_roi_panel    (CtrRunPage *self);
/* Shows @run's result (finished, or a cancelled volume run's kept
 * iterate) as when it ended: a run opened from a saved session. */
void            ctr_run_page_show_run         (CtrRunPage *self,
                                               CtrRun     *run);
/* The geometry edited on the Geometry page (nullable: a field is invalid),
 * copied: the dataset summary describes it, as the geometry a run uses,
 * instead of the loaded one (a bare TIFF's draft), and the method list
 * follows its beam.  Called by the window on the Geometry page's
 * ::changed; a new dataset forgets it until called again. */
void            ctr_run_page_set_geometry     (CtrRunPage        *self,
                                               const CtrGeometry *g);
/* The slice toolbar's window preset (property "preset"): a name of
 * ctr-hu-preset.h, "auto" when none; "custom" after a drag moved a
 * Hounsfield preset's window. */
const char     *ctr_run_page_get_preset       (CtrRunPage *self);
/* The window of the slice shown, @window = {lo, hi} in the image's unit
 * (what a DICOM export writes as WindowCenter/WindowWidth); FALSE when no
 * image is shown. */
gboolean        ctr_run_page_get_window       (CtrRunPage *self,
                                               double      window[2]);

/* The crosshair voxel (i, j, k) of the volume shown when it has @grid's
 * shape (a run on @grid reports the planes through it); else @grid's centre
 * voxel, where the views start for a new shape. */
void            ctr_run_page_get_voxel        (CtrRunPage          *self,
                                               const CtrGrid       *grid,
                                               guint                voxel[3]);
/* Where a volume is looked at: the main view's plane and the crosshair's
 * position @mm = {x, y, z} (mm, the volume's frame, voxel centres); FALSE
 * when no volume is shown.  Signal "place-changed" tells when it moved
 * (plane, slice, a click, a new volume). */
gboolean        ctr_run_page_get_place        (CtrRunPage          *self,
                                               CtrSliceOrientation *plane,
                                               double               mm[3]);
/* Moves the plane and the crosshair to the voxel nearest @mm (another
 * page's plane and slice control); nothing without a volume. */
void            ctr_run_page_set_place        (CtrRunPage          *self,
                                               CtrSliceOrientation  plane,
                                               const double         mm[3]);

/* Steps the main view @delta slices (Page Down: +1, Page Up: −1; kept
 * inside the volume); nothing for a single slice. */
void            ctr_run_page_step_slice       (CtrRunPage *self,
                                               int         delta);
/* The views back to fitting their frames: zoom 1, no pan (Ctrl+0). */
void            ctr_run_page_zoom_fit         (CtrRunPage *self);

G_END_DECLS
