/* ctr-profile-page.h — the Profile page: a line drawn on the newest result,
 * and every result and the reference sampled along it on one plot.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"
#include "ctr-slice-plane.h"
#include "ctr-roi-set.h"

G_BEGIN_DECLS

#define CTR_TYPE_PROFILE_PAGE (ctr_profile_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrProfilePage, ctr_profile_page, CTR, PROFILE_PAGE, GtkWidget)

/* The session shown (property "session"); nullable. */
void     ctr_profile_page_set_session  (CtrProfilePage *self,
                                        CtrSession     *session);
/* Follows the Run page's window preset @name (ctr-hu-preset.h): the image
 * under the tool gets it, and under a Hounsfield preset the curves (and the
 * CSV) are in HU of images in 1/mm. */
/* The window's ROIs and μ_water (ctr-roi-set.h), shown on the image; the
 * curves in HU use the μ_water. */
void     ctr_profile_page_set_roi_set  (CtrProfilePage *self,
                                        CtrRoiSet      *set);
void     ctr_profile_page_set_preset   (CtrProfilePage *self,
                                        const char     *name);
/* The plane of volumes shown and sampled, through point @mm = {x, y, z}
 * (mm): the Run page's (ctr_run_page_get_place); each volume's slice
 * nearest it.  Another plane gets a default line across its middle.  The
 * page's Plane and Slice controls (shown with a volume) change it and emit
 * "place-changed".  get: FALSE before any. */
void     ctr_profile_page_set_place    (CtrProfilePage      *self,
                                        CtrSliceOrientation  plane,
                                        const double         mm[3]);
gboolean ctr_profile_page_get_place    (CtrProfilePage      *self,
                                        CtrSliceOrientation *plane,
                                        double               mm[3]);
/* Curves on the plot (property "n-curves"): 0 until a line is drawn on an
 * image. */
guint    ctr_profile_page_get_n_curves (CtrProfilePage *self);
/* CSV: s_mm, then one column per curve; atomic write. GFileError on failure. */
gboolean ctr_profile_page_write_csv    (CtrProfilePage *self,
                                        const char     *path,
                                        GError        **error);

G_END_DECLS
