/* ctr-variant-row.h — the Run page's "Projections" row: which of a
 * dataset's sinograms is loaded (its "projections" or one of its
 * "variants", e.g. the noiseless, full- and quarter-dose scans of
 * head-fan-lowdose).  Choosing one activates "win.open-variant" (s), which
 * reloads the dataset with it; the runs made so far stay.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>
#include "ctrecon.h"

G_BEGIN_DECLS

/* Connects @row's choice to "win.open-variant" (once, at init). */
void ctr_variant_row_init (AdwComboRow      *row);
/* Lists @dataset's variants on @row and selects the loaded one; hides the
 * row for a dataset without variants (or NULL). */
void ctr_variant_row_sync (AdwComboRow      *row,
                           const CtrDataset *dataset);

G_END_DECLS
