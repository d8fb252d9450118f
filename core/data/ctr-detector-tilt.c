/* ctr-detector-tilt.c — resampling a tilted detector (see ctr-detector-tilt.h). */
#include "data/ctr-detector-tilt.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
  guint32 rows[4], cols[4]; /* the 4 × 4 neighbourhood's rows and columns (edges repeated) */
  float wr[4], wc[4];       /* Keys's cubic weights along each */
  guint32 nearest;          /* the nearest sample, row·cols + col */
} Tap;

/* Keys's cubic convolution weights (a = −1/2) of the samples at −1, 0, 1,
 * 2 for a point at fraction @x in [0, 1) past sample 0 (Keys 1981, "Cubic
 * convolution interpolation for digital image processing", IEEE Trans.
 * ASSP 29(6):1153-1160). */
static void
keys_weights (double x, float w[4])
{
  const double x2 = x * x, x3 = x2 * x;
  w[0] = (float) (-0.5 * x3 + x2 - 0.5 * x);
  w[1] = (float) (1.5 * x3 - 2.5 * x2 + 1);
  w[2] = (float) (-1.5 * x3 + 2 * x2 + 0.5 * x);
  w[3] = (float) (0.5 * x3 - 0.5 * x2);
}

static gboolean
check (const CtrProjections *p, const CtrGeometry *g, double t, GError **error)
{
  if (!isfinite (t) || fabs (t) > CTR_DETECTOR_MAX_TILT_RAD)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "detector_tilt_rad = %g: a tilt must be a finite angle within ±%g rad (%g°)", t,
                   CTR_DETECTOR_MAX_TILT_RAD, CTR_DETECTOR_MAX_TILT_RAD * 180 / G_PI);
      return FALSE;
    }
  if (g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "detector_tilt_rad: a curved detector cannot be turned in a plane (flat detectors and parallel "
                   "beam only)");
      return FALSE;
    }
  if (g->vectors != NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "detector_tilt_rad with per-view vectors: turn the vectors' u and v steps instead");
      return FALSE;
    }
  if (p->n_views != g->n_views || p->n_rows != g->n_rows || p->n_cols != g->n_cols)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "detector tilt: the projections (%u × %u × %u) are not the geometry's (%u × %u × %u)",
                   p->n_views, p->n_rows, p->n_cols, g->n_views, g->n_rows, g->n_cols);
      return FALSE;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "detector tilt: the data are counts, not line integrals");
      return FALSE;
    }
  return TRUE;
}

/* The taps of every untilted pixel [row][col]. */
static void
make_taps (const CtrGeometry *g, double t, Tap *taps)
{
  const guint R = g->n_rows, C = g->n_cols;
  const double c = cos (t), s = sin (t);
  const double u0 = ctr_geometry_col_u (g, 0), du = ctr_geometry_col_u (g, 1) - u0;
  const double v0 = ctr_geometry_row_v (g, 0), dv = ctr_geometry_row_v (g, 1) - v0;
  for (guint i = 0; i < R; i++)
    for (guint j = 0; j < C; j++)
      {
        const double u = ctr_geometry_col_u (g, j), v = ctr_geometry_row_v (g, i);
        const double col = CLAMP ((u * c + v * s - u0) / du, 0.0, C - 1.0);
        const double row = CLAMP ((-u * s + v * c - v0) / dv, 0.0, R - 1.0);
        const guint c0 = MIN ((guint) col, C - 2), r0 = MIN ((guint) row, R - 2);
        Tap *t = &taps[(gsize) i * C + j];
        for (int k = 0; k < 4; k++)
          {
            t->rows[k] = (guint32) CLAMP ((int) r0 - 1 + k, 0, (int) R - 1);
            t->cols[k] = (guint32) CLAMP ((int) c0 - 1 + k, 0, (int) C - 1);
          }
        keys_weights (row - r0, t->wr);
        keys_weights (col - c0, t->wc);
        t->nearest = (guint32) ((guint) lround (row) * C + (guint) lround (col));
      }
}

gboolean
ctr_projections_untilt (CtrProjections *p, const CtrGeometry *g, double tilt_rad, GError **error)
{
  g_return_val_if_fail (p != NULL && g != NULL, FALSE);
  if (!check (p, g, tilt_rad, error))
    return FALSE;
  if (tilt_rad == 0 || p->n_rows < 2 || p->n_cols < 2)
    return TRUE;
  const guint C = p->n_cols;
  const gsize plane = (gsize) p->n_rows * C;
#ifdef _OPENMP
  const int n_threads = omp_get_max_threads ();
#else
  const int n_threads = 1;
#endif
  g_autofree Tap *taps = g_try_new (Tap, plane);
  g_autofree float *scratch = g_try_new (float, plane * n_threads);
  g_autofree float *flat = p->flat != NULL ? g_try_new (float, plane) : NULL;
  g_autofree float *dark = p->dark != NULL ? g_try_new (float, plane) : NULL;
  g_autofree guint8 *mask = p->mask != NULL ? g_try_new (guint8, plane) : NULL;
  if (taps == NULL || scratch == NULL || (p->flat != NULL && flat == NULL) || (p->dark != NULL && dark == NULL)
      || (p->mask != NULL && mask == NULL))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "detector tilt: no memory for %u × %u resampling taps and %d "
                   "views' copies", p->n_rows, C, n_threads);
      return FALSE;
    }
  make_taps (g, tilt_rad, taps);
#pragma omp parallel for schedule(static) num_threads(n_threads)
  for (guint v = 0; v < p->n_views; v++)
    {
#ifdef _OPENMP
      float *in = scratch + plane * omp_get_thread_num ();
#else
      float *in = scratch;
#endif
      float *s = ctr_projections_view (p, v);
      memcpy (in, s, plane * sizeof (float));
      for (gsize k = 0; k < plane; k++)
        {
          const Tap *t = &taps[k];
          float sum = 0;
          for (int a = 0; a < 4; a++)
            {
              const float *line = in + (gsize) t->rows[a] * C;
              sum += t->wr[a] * (t->wc[0] * line[t->cols[0]] + t->wc[1] * line[t->cols[1]]
                                 + t->wc[2] * line[t->cols[2]] + t->wc[3] * line[t->cols[3]]);
            }
          s[k] = sum;
        }
    }
  if (flat != NULL)
    for (gsize k = 0; k < plane; k++)
      flat[k] = p->flat[taps[k].nearest];
  if (dark != NULL)
    for (gsize k = 0; k < plane; k++)
      dark[k] = p->dark[taps[k].nearest];
  if (mask != NULL)
    for (gsize k = 0; k < plane; k++)
      mask[k] = p->mask[taps[k].nearest];
  ctr_projections_take_planes (p, g_steal_pointer (&flat), g_steal_pointer (&dark), g_steal_pointer (&mask));
  return TRUE;
}
