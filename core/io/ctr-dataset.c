/* ctr-dataset.c — the dataset itself (see ctr-dataset.h); reading one is
 * ctr-dataset-load.c. */
#include "io/ctr-dataset.h"
#include "data/ctr-grid.h"

#include <stdarg.h>

/* ------------------------------------------------------------------------ */
/* The dataset                                                               */

CtrGrid
ctr_dataset_default_grid (const CtrDataset *d)
{
  /* the one rule (ctr-grid.h); a helical scan that samples no z range
   * fully gets its panel's rows, as ctr_grid_default gives them */
  CtrGrid grid;
  if (!ctr_grid_for_scan (d->geometry, d->reference != NULL ? &d->reference->grid : NULL, NULL, &grid, NULL))
    grid = ctr_grid_default (d->geometry, 0, 0);
  return grid;
}

static void
strv_add (char ***v, char *owned)
{
  const guint n = *v != NULL ? g_strv_length (*v) : 0;
  *v = g_renew (char *, *v, n + 2);
  (*v)[n] = owned;
  (*v)[n + 1] = NULL;
}

void
ctr_dataset_add_input (CtrDataset *d, const char *path)
{
  g_return_if_fail (d != NULL && path != NULL);
  char *abs = g_canonicalize_filename (path, NULL);
  if (d->inputs != NULL && g_strv_contains ((const char *const *) d->inputs, abs))
    g_free (abs);
  else
    strv_add (&d->inputs, abs);
}

void
ctr_dataset_add_warning (CtrDataset *d, const char *format, ...)
{
  g_return_if_fail (d != NULL && format != NULL);
  va_list ap;
  va_start (ap, format);
  strv_add (&d->warnings, g_strdup_vprintf (format, ap));
  va_end (ap);
}

void
ctr_dataset_free (CtrDataset *d)
{
  if (d == NULL)
    return;
  g_strfreev (d->inputs);
  g_strfreev (d->warnings);
  g_free (d->name);
  g_free (d->path);
  ctr_geometry_free (d->geometry);
  if (d->projections != NULL)
    ctr_projections_unref (d->projections);
  if (d->reference != NULL)
    ctr_volume_unref (d->reference);
  g_strfreev (d->variants);
  g_free (d->variant);
  g_free (d->projection_spec);
  g_free (d->read_note);
  g_free (d);
}
