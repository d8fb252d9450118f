/* ctr-compare-page.h — the Compare page: the newest results and the
 * reference side by side, with a difference image; zoom, pan and
 * window/level linked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctr-session.h"

G_BEGIN_DECLS

#define CTR_TYPE_COMPARE_PAGE (ctr_compare_page_get_type ())

G_DECLARE_FINAL_TYPE (CtrComparePage, ctr_compare_page, CTR, COMPARE_PAGE, GtkWidget)

/* The session shown (property "session"); nullable. */
void  ctr_compare_page_set_session (CtrComparePage *self,
                                    CtrSession     *session);
/* Tiles shown (property "n-tiles"): results, reference, difference. */
guint ctr_compare_page_get_n_tiles (CtrComparePage *self);

G_END_DECLS
