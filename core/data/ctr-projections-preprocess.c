/* ctr-projections-preprocess.c — counts → line integrals, dead-pixel mask and
 * fill, finiteness check (see ctr-projections.h). */
#include "data/ctr-projections.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

gboolean
ctr_projections_check_finite (const CtrProjections *p, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  const gsize plane = (gsize) p->n_rows * p->n_cols;
  /* First offending view; each view is scanned independently. */
  guint first = G_MAXUINT;
#pragma omp parallel for schedule(static) reduction(min:first)
  for (guint v = 0; v < p->n_views; v++)
    {
      const float *d = p->data + (gsize) v * plane;
      for (gsize i = 0; i < plane; i++)
        if (!isfinite (d[i]))
          {
            first = MIN (first, v);
            break;
          }
    }
  if (first == G_MAXUINT)
    return TRUE;

  const float *d = ctr_projections_view (p, first);
  gsize i = 0;
  while (i < plane && isfinite (d[i]))
    i++;
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
               "projection value %g at view %u, row %u, column %u is not a finite number",
               (double) d[i], first, (guint) (i / p->n_cols), (guint) (i % p->n_cols));
  return FALSE;
}

void
ctr_projections_fill_row (float *row, const guint8 *mask, guint n)
{
  guint prev = G_MAXUINT;  /* last valid index seen */
  guint j = 0;
  while (j < n)
    {
      if (mask[j])
        {
          prev = j++;
          continue;
        }
      guint next = j;
      while (next < n && !mask[next])
        next++;
      for (guint k = j; k < next; k++)
        {
          if (prev == G_MAXUINT && next == n)
            row[k] = 0.0f;
          else if (prev == G_MAXUINT)
            row[k] = row[next];
          else if (next == n)
            row[k] = row[prev];
          else
            {
              double t = (double) (k - prev) / (double) (next - prev);
              row[k] = (float) ((1.0 - t) * row[prev] + t * row[next]);
            }
        }
      j = next;
    }
}

/* The open beam must be above the dark somewhere in every detector row:
 * otherwise whole rows (or the whole scan) would be filled from nothing and
 * reconstruct as exactly 0. */
static gboolean
check_open_beam (const CtrProjections *p, const guint8 *mask, gsize n_dead, GError **error)
{
  const char *what = p->flat != NULL ? "the flat field" : "the open-beam count I0";
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  if (n_dead == plane)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "%s is not above the dark current in any of the %" G_GSIZE_FORMAT " detector pixels "
                   "(flat − dark ≤ 0 everywhere: an empty flat, or flat and dark swapped?)", what, plane);
      return FALSE;
    }
  for (guint r = 0; r < p->n_rows; r++)
    {
      guint alive = 0;
      for (guint c = 0; c < p->n_cols; c++)
        alive += mask[(gsize) r * p->n_cols + c];
      if (alive == 0)
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       "%s is not above the dark current anywhere in detector row %u (all %u columns): "
                       "that row's slice would be empty", what, r, p->n_cols);
          return FALSE;
        }
    }
  return TRUE;
}

CtrProjections *
ctr_projections_filled (const CtrProjections *p, GError **error)
{
  g_return_val_if_fail (p != NULL, NULL);
  if (p->mask == NULL)
    return ctr_projections_ref ((CtrProjections *) p);
  CtrProjections *q = ctr_projections_copy (p, error);
  if (q == NULL)
    return NULL;
  for (gsize i = 0; i < (gsize) q->n_views * q->n_rows; i++)
    ctr_projections_fill_row (q->data + i * q->n_cols, q->mask + (i % q->n_rows) * q->n_cols, q->n_cols);
  return q;
}

double
ctr_projections_masked_fraction (const CtrProjections *p)
{
  g_return_val_if_fail (p != NULL, 0.0);
  if (p->mask == NULL)
    return 0.0;
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  gsize n = 0;
  for (gsize i = 0; i < plane; i++)
    n += p->mask[i] == 0;
  return (double) n / (double) plane;
}

double *
ctr_projections_open_beam (const CtrProjections *p, GError **error)
{
  g_return_val_if_fail (p != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  const gboolean have_i0 = isfinite (p->i0) && p->i0 > 0.0;
  if (p->flat == NULL && !have_i0)
    return NULL;
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  g_autofree char *what = g_strdup_printf ("the open-beam counts of %u rows × %u columns", p->n_rows, p->n_cols);
  double *open = ctr_memory_try_new (plane, sizeof (double), FALSE, what, error);
  if (open == NULL)
    return NULL;
  for (gsize i = 0; i < plane; i++)
    {
      double dark = p->dark != NULL ? p->dark[i] : 0.0;
      double o = (p->flat != NULL ? (double) p->flat[i] : p->i0) - dark;
      gboolean ok = isfinite (o) && o > 0.0 && (p->mask == NULL || p->mask[i]);
      open[i] = ok ? o : 0.0;
    }
  return open;
}

gboolean
ctr_projections_to_line_integrals (CtrProjections *p, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (p->kind == CTR_PROJ_LINE_INTEGRALS)
    return TRUE;
  if (!ctr_projections_check_finite (p, error))
    return FALSE;

  const gsize plane = (gsize) p->n_rows * p->n_cols;
  const gboolean have_i0 = isfinite (p->i0) && p->i0 > 0.0;
  if (p->flat == NULL && !have_i0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "raw counts need an open-beam image (flat) or the open-beam photon count I0 "
                   "to become line integrals");
      return FALSE;
    }

  /* Open-beam signal per pixel, flat - dark (FORMAT.md), or I0 - dark; dead
   * where it is not a positive finite number. */
  g_autofree double *open = ctr_projections_open_beam (p, error);
  if (open == NULL)
    return FALSE;
  g_autofree guint8 *mask = ctr_memory_try_new (plane, 1, FALSE, "the dead-pixel mask of one detector plane", error);
  if (mask == NULL)
    return FALSE;
  gsize n_dead = 0;
  for (gsize i = 0; i < plane; i++)
    {
      mask[i] = open[i] > 0.0;
      if (!mask[i])
        {
          open[i] = 1.0;
          n_dead++;
        }
    }
  if (!check_open_beam (p, mask, n_dead, error))
    return FALSE;

#pragma omp parallel for schedule(static)
  for (guint v = 0; v < p->n_views; v++)
    {
      float *d = p->data + (gsize) v * plane;
      for (gsize i = 0; i < plane; i++)
        {
          if (!mask[i])
            {
              d[i] = 0.0f;
              continue;
            }
          double num = (double) d[i] - (p->dark != NULL ? p->dark[i] : 0.0);
          /* log safeguard: no transmission measured → half a count */
          if (!(num > 0.0))
            num = 0.5;
          d[i] = (float) -log (num / open[i]);
        }
      if (n_dead > 0)
        for (guint r = 0; r < p->n_rows; r++)
          ctr_projections_fill_row (d + (gsize) r * p->n_cols, mask + (gsize) r * p->n_cols, p->n_cols);
    }

  g_free (p->mask);
  p->mask = n_dead > 0 ? g_steal_pointer (&mask) : NULL;
  p->kind = CTR_PROJ_LINE_INTEGRALS;
  return TRUE;
}
