/* ctr-compare-page.h — the Compare page: any runs and the reference side
 * by side, with a difference image; the runs' RMSE/SSIM on their tiles;
 * zoom, pan, window/level and the pointer read-out linked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"
#include "ctr-roi-set.h"
#include "ctr-slice-plane.h"

G_BEGIN_DECLS

#define CTR_TYPE_COMPARE_PAGE (ctr_compare_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrComparePage, ctr_compare_page, CTR, COMPARE_PAGE, GtkWidget)

/* The most runs shown at once (the session keeps as many results). */
#define CTR_COMPARE_MAX_RUNS 6

/* The session shown (property "session"); nullable. */
void  ctr_compare_page_set_session (CtrComparePage *self,
                                    CtrSession     *session);
/* Follows the Run page's window preset @name (ctr-hu-preset.h): a
 * Hounsfield preset sets every image tile's window and shows HU, the
 * difference and the tiles' RMSE in HU; "auto" returns to the shared
 * automatic window. */
void  ctr_compare_page_set_preset  (CtrComparePage *self,
                                    const char     *name);
/* The plane and position (@mm = {x, y, z}, mm) at which volume tiles are
 * shown: the Run page's (ctr_run_page_get_place); each tile shows its slice
 * nearest that position.  The page's Plane and Slice controls (shown with
 * volume tiles) change it and emit "place-changed".  get: FALSE before any. */
void      ctr_compare_page_set_place (CtrComparePage      *self,
                                      CtrSliceOrientation  plane,
                                      const double         mm[3]);
gboolean  ctr_compare_page_get_place (CtrComparePage      *self,
                                      CtrSliceOrientation *plane,
                                      double               mm[3]);
/**
 * ctr_compare_page_choose_runs:
 * @numbers: (array length=n) (nullable): the runs to show, by their number
 *   (ctr_run_get_number), in this order; runs without a result are skipped;
 *   at most CTR_COMPARE_MAX_RUNS.  NULL returns to the default: the three
 *   newest results of the open dataset (any variant) not hidden
 *   (ctr_run_get_hidden), following new runs.
 * @reference: show the dataset's reference (when it has one).
 * What the "Runs" menu of the page sets; a deleted run leaves the choice.
 */
void  ctr_compare_page_choose_runs (CtrComparePage *self,
                                    const guint    *numbers,
                                    guint           n,
                                    gboolean        reference);
/* The difference tile: run @a minus run @b (@b 0: minus the reference).
 * @a 0: automatic (the two newest results, else the newest minus the
 * reference); @a G_MAXUINT: no difference tile.  What the "Difference"
 * drop-downs set.  A difference of images on different grids is not
 * drawn (the page says so). */
void  ctr_compare_page_choose_difference (CtrComparePage *self,
                                          guint           a,
                                          guint           b);
/* The window's ROIs, ruler and μ_water, shown on every tile. */
void  ctr_compare_page_set_roi_set (CtrComparePage *self,
                                    CtrRoiSet      *set);
/* Tiles shown (property "n-tiles"): runs, reference, difference. */
guint ctr_compare_page_get_n_tiles (CtrComparePage *self);

G_END_DECLS
