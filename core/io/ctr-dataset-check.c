/* ctr-dataset-check.c — a loaded dataset checked against what its files
 * claim (see ctr_dataset_check_claims in ctr-dataset.h).  The loaders refuse
 * what cannot be a scan (ctr-projections.h, ctr-geometry.h, ctr-json.h);
 * what may still be one but probably is not becomes a warning here, with
 * the figure that gave it away, once for every loader (geometry.json,
 * DICOM, the window's drafts). */
#include "io/ctr-dataset.h"
#include "base/ctr-hu.h"

#include <math.h>
#include <stdlib.h>

/* Pixels with flat − dark ≤ 0 are filled from their row's neighbours: a few
 * are dead pixels, more than this fraction a flat field that is wrong. */
#define MASKED_WARN_FRACTION 0.01

static void
check_masked (CtrDataset *d)
{
  const double f = ctr_projections_masked_fraction (d->projections);
  if (f > MASKED_WARN_FRACTION)
    ctr_dataset_add_warning (d, "%.1f %% of the detector pixels (%.0f of %u × %u) have an open beam (flat − dark) "
                             "≤ 0 and are filled from their neighbours along the row; is the flat field right?",
                             100 * f, f * d->projections->n_rows * d->projections->n_cols,
                             d->projections->n_rows, d->projections->n_cols);
}

/* Line integrals below this are a transmission of more than e^0.5 = 1.65×
 * the open beam: not a measurement of an object (noise in air stays far
 * above it at any dose that reconstructs). */
#define LOWEST_PLAUSIBLE -0.5
/* Above this a transmission of e^-20 = 2·10⁻⁹: no detector counts that. */
#define HIGHEST_MEASURABLE 20.0
/* At most this many samples are sorted for the percentiles. */
#define MAX_SAMPLES 262144

static int
cmp_float (const void *a, const void *b)
{
  const float x = *(const float *) a, y = *(const float *) b;
  return (x > y) - (x < y);
}

/* The 1st and 99th percentiles of the line integrals (a strided sample of
 * at most MAX_SAMPLES finite values; the masked pixels left out). */
static gboolean
percentiles (const CtrProjections *p, double *p1, double *p99)
{
  const gsize plane = (gsize) p->n_rows * p->n_cols, n = (gsize) p->n_views * plane;
  const gsize stride = MAX (1, n / MAX_SAMPLES);
  g_autofree float *v = g_new (float, n / stride + 1);
  gsize m = 0;
  for (gsize i = 0; i < n; i += stride)
    if (isfinite (p->data[i]) && (p->mask == NULL || p->mask[i % plane]))
      v[m++] = p->data[i];
  if (m < 100)
    return FALSE;
  qsort (v, m, sizeof (float), cmp_float);
  *p1 = v[m / 100];
  *p99 = v[m - 1 - m / 100];
  return TRUE;
}

/* Line integrals the scanned object cannot give: mostly negative (negated
 * data, a flat field too low) or beyond any measurable transmission and the
 * object's path length × μ (counts stated as line integrals, a scale). */
static void
check_plausible (CtrDataset *d)
{
  double p1, p99;
  if (!percentiles (d->projections, &p1, &p99))
    return;
  if (p1 < LOWEST_PLAUSIBLE)
    ctr_dataset_add_warning (d, "1 %% of the line integrals are below %g (1st percentile %.3g, 99th %.3g): the "
                             "detector would have measured %.3g× the open beam there; are the line integrals "
                             "negated, or the flat field (open beam) too low?", LOWEST_PLAUSIBLE, p1 + 0.0, p99 + 0.0,
                             exp (-p1));
  /* the longest path through the field of view, through bone (3 μ_water) */
  const double mu = d->mu_water > 0 ? d->mu_water : CTR_MU_WATER_PER_MM;
  const double fov = ctr_geometry_fov_radius_mm (d->geometry);
  const double path_bound = d->geometry->pixel_size_known && isfinite (fov) && fov > 0 ? 3 * mu * 2 * fov : 0;
  const double bound = MAX (HIGHEST_MEASURABLE, path_bound);
  if (p99 > bound)
    ctr_dataset_add_warning (d, "1 %% of the line integrals exceed %.3g (99th percentile %.4g): a transmission "
                             "below e^-%.3g, and more than a path of %.0f mm through bone (3 × μ_water) gives; "
                             "are these detector counts, or line integrals scaled (×1000)?", bound, p99, bound,
                             MAX (2 * fov, 0));
}

void
ctr_dataset_check_claims (CtrDataset *d)
{
  g_return_if_fail (d != NULL);
  if (d->projections == NULL || d->geometry == NULL)
    return;
  check_masked (d);
  if (d->projections->kind == CTR_PROJ_LINE_INTEGRALS)
    check_plausible (d);
}
