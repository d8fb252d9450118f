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
check_masked (CtrDataset *d, double f)
{
  const guint R = d->partial ? d->geometry->n_rows : d->projections->n_rows;
  const guint C = d->partial ? d->geometry->n_cols : d->projections->n_cols;
  if (f > MASKED_WARN_FRACTION)
    ctr_dataset_add_warning (d, "%.1f %% of the detector pixels (%.0f of %u × %u) have an open beam (flat − dark) "
                             "≤ 0 and are filled from their neighbours along the row; is the flat field right?",
                             100 * f, f * R * C, R, C);
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

float *
ctr_dataset_claims_sample (const CtrDataset *d, guint own_first, guint own_count, gsize *n)
{
  g_return_val_if_fail (d != NULL && n != NULL, NULL);
  *n = 0;
  const CtrProjections *p = d->projections;
  if (p == NULL || d->geometry == NULL)
    return NULL;
  /* Indices of the whole scan [view][row][col]: a part of rows or views
   * holds those from part.first on along its axis. */
  const CtrGeometry *g = d->geometry;
  const gboolean rows = d->partial && d->part.axis == CTR_DATASET_ROWS;
  const guint first = d->partial ? d->part.first : 0;
  const gsize C = p->n_cols, plane = (gsize) (d->partial ? g->n_rows : p->n_rows) * C;
  const gsize total = (gsize) (d->partial ? g->n_views : p->n_views) * plane;
  const gsize stride = MAX (1, total / MAX_SAMPLES);
  float *v = g_try_new (float, total / stride + 1);
  if (v == NULL)
    return NULL;
  gsize m = 0;
  for (gsize i = 0; i < total; i += stride)
    {
      const guint view = (guint) (i / plane), row = (guint) (i % plane / C);
      const guint along = rows ? row : view;
      if (along < own_first || along - own_first >= own_count || along < first
          || along - first >= (rows ? p->n_rows : p->n_views))
        continue;
      const gsize pv = rows ? view : view - first, pr = rows ? row - first : row;
      const gsize local = pr * C + i % C;
      const float x = p->data[pv * p->n_rows * C + local];
      if (isfinite (x) && (p->mask == NULL || p->mask[local]))
        v[m++] = x;
    }
  *n = m;
  return v;
}

/* The 1st and 99th percentiles of @m sampled line integrals (sorted here). */
static gboolean
percentiles (float *v, gsize m, double *p1, double *p99)
{
  if (v == NULL || m < 100)
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
check_plausible (CtrDataset *d, float *sample, gsize n)
{
  double p1, p99;
  if (!percentiles (sample, n, &p1, &p99))
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
ctr_dataset_claims_judge (CtrDataset *d, float *sample, gsize n)
{
  g_return_if_fail (d != NULL);
  if (d->geometry == NULL)
    return;
  check_masked (d, d->masked_fraction);
  if (d->projections == NULL || d->projections->kind == CTR_PROJ_LINE_INTEGRALS)
    check_plausible (d, sample, n);
}

void
ctr_dataset_check_claims (CtrDataset *d)
{
  g_return_if_fail (d != NULL);
  if (d->projections == NULL || d->geometry == NULL)
    return;
  if (!d->partial)
    d->masked_fraction = ctr_projections_masked_fraction (d->projections);
  gsize n = 0;
  g_autofree float *sample = ctr_dataset_claims_sample (d, 0, G_MAXUINT, &n);
  ctr_dataset_claims_judge (d, sample, n);
}
