/* ctr-water-store.h — water calibrations kept per dataset in the user's
 * state folder ($XDG_STATE_HOME/ctrecon/water-calibration.ini), keyed by
 * the dataset's path; never written beside the dataset.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The μ_water (1/mm) stored for @dataset_path; FALSE when none (or the
 * file is unreadable: a calibration is a convenience, never an error). */
gboolean ctr_water_store_lookup (const char  *dataset_path,
                                 double      *mu_water);
/* Stores @mu_water (1/mm) for @dataset_path, or forgets it when @mu_water
 * is not positive; the file is replaced through a temporary file.
 * Returns: FALSE with a G_FILE_ERROR or G_KEY_FILE_ERROR. */
gboolean ctr_water_store_save   (const char  *dataset_path,
                                 double       mu_water,
                                 GError     **error);

G_END_DECLS
