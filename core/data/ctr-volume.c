/* ctr-volume.c — grids and reference-counted float volumes. */
#include "data/ctr-volume.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

CtrGrid
ctr_grid_square (guint n, double pixel_mm, guint nz, double dz_mm)
{
  CtrGrid g = { n, n, MAX (nz, 1), pixel_mm, pixel_mm, dz_mm > 0 ? dz_mm : pixel_mm, 0, 0, 0 };
  return g;
}

gboolean
ctr_grid_validate (const CtrGrid *g, GError **error)
{
  if (g->nx == 0 || g->ny == 0 || g->nz == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "image size %u × %u × %u: every side must be at least 1", g->nx, g->ny, g->nz);
      return FALSE;
    }
  if (!(isfinite (g->dx) && g->dx > 0 && isfinite (g->dy) && g->dy > 0 && isfinite (g->dz) && g->dz > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "pixel size %g × %g × %g mm: must be positive", g->dx, g->dy, g->dz);
      return FALSE;
    }
  if (!(isfinite (g->cx) && isfinite (g->cy) && isfinite (g->cz)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "image centre must be finite");
      return FALSE;
    }
  if ((guint64) g->nx * g->ny > (guint64) 65536 * 65536)
    {
      /* ctr_grid_default saturates a size beyond guint at G_MAXUINT. */
      const gboolean beyond = g->nx == G_MAXUINT || g->ny == G_MAXUINT;
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "an image of %s%u × %u pixels of %g × %g mm is too large (at most 65536 × 65536 "
                   "pixels a slice); is the pixel size right?", beyond ? "more than " : "",
                   g->nx, g->ny, g->dx, g->dy);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_grid_equal (const CtrGrid *a, const CtrGrid *b)
{
  const double tol = 1e-6;
  return a->nx == b->nx && a->ny == b->ny && a->nz == b->nz
         && fabs (a->dx - b->dx) <= tol * a->dx && fabs (a->dy - b->dy) <= tol * a->dy
         && fabs (a->cx - b->cx) <= tol * a->dx && fabs (a->cy - b->cy) <= tol * a->dy;
}

CtrVolume *
ctr_volume_new (const CtrGrid *grid, GError **error)
{
  if (!ctr_grid_validate (grid, error))
    return NULL;
  gsize n = ctr_grid_size (grid);
  g_autofree char *what = g_strdup_printf ("a volume of %u × %u × %u voxels", grid->nx, grid->ny, grid->nz);
  float *data = ctr_memory_try_new (n, sizeof (float), TRUE, what, error);
  if (data == NULL)
    return NULL;
  CtrVolume *v = g_new0 (CtrVolume, 1);
  v->ref_count = 1;
  v->grid = *grid;
  v->data = data;
  return v;
}

CtrVolume *
ctr_volume_copy (const CtrVolume *v)
{
  CtrVolume *c = ctr_volume_new (&v->grid, NULL);
  if (c == NULL)
    return NULL;
  memcpy (c->data, v->data, ctr_grid_size (&v->grid) * sizeof (float));
  c->unit = g_strdup (v->unit);
  return c;
}

CtrVolume *
ctr_volume_ref (CtrVolume *v)
{
  g_return_val_if_fail (v != NULL, NULL);
  g_atomic_int_inc (&v->ref_count);
  return v;
}

void
ctr_volume_unref (CtrVolume *v)
{
  if (v == NULL || !g_atomic_int_dec_and_test (&v->ref_count))
    return;
  g_free (v->data);
  g_free (v->unit);
  g_free (v);
}

void
ctr_volume_set_unit (CtrVolume *v, const char *unit)
{
  g_free (v->unit);
  v->unit = g_strdup (unit);
}

void
ctr_volume_range (const CtrVolume *v, float *min, float *max)
{
  gsize n = ctr_grid_size (&v->grid);
  float lo = n ? v->data[0] : 0, hi = lo;
  for (gsize i = 1; i < n; i++)
    {
      lo = MIN (lo, v->data[i]);
      hi = MAX (hi, v->data[i]);
    }
  if (min) *min = lo;
  if (max) *max = hi;
}

double
ctr_image_sample_bilinear (const float *img, guint nx, guint ny, double fx, double fy)
{
  if (!(fx > -1.0 && fy > -1.0 && fx < nx && fy < ny))
    return 0.0;
  double x0 = floor (fx), y0 = floor (fy);
  double tx = fx - x0, ty = fy - y0;
  double acc = 0.0;
  for (int dy = 0; dy <= 1; dy++)
    for (int dx = 0; dx <= 1; dx++)
      {
        long xi = (long) x0 + dx, yi = (long) y0 + dy;
        if (xi < 0 || yi < 0 || xi >= (long) nx || yi >= (long) ny)
          continue;
        double w = (dx ? tx : 1 - tx) * (dy ? ty : 1 - ty);
        if (w != 0.0)
          acc += w * img[(gsize) yi * nx + xi];
      }
  return acc;
}

/* Bilinear sample of slice @z of @src at world (x, y); 0 outside. */
static double
sample_slice (const CtrVolume *src, guint z, double x, double y)
{
  const CtrGrid *s = &src->grid;
  const double fx = (x - s->cx) / s->dx + (s->nx - 1) * 0.5;
  const double fy = (s->ny - 1) * 0.5 - (y - s->cy) / s->dy;
  return ctr_image_sample_bilinear (ctr_volume_slice (src, z), s->nx, s->ny, fx, fy);
}

CtrVolume *
ctr_volume_resample (const CtrVolume *src, const CtrGrid *grid, CtrResampleMode mode, GError **error)
{
  const CtrGrid *s = &src->grid;
  if (mode == CTR_RESAMPLE_SLICES && s->nz != grid->nz && s->nz != 1)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the reference has %u slices, the reconstruction %u", s->nz, grid->nz);
      return NULL;
    }
  if (ctr_grid_equal (s, grid))
    return ctr_volume_copy (src);
  CtrVolume *out = ctr_volume_new (grid, error);
  if (out == NULL)
    return NULL;
#pragma omp parallel for schedule(static)
  for (gint64 iz = 0; iz < (gint64) grid->nz; iz++)
    {
      /* Source slices z0, z0 + 1 and the weight of the second. */
      gint64 z0 = s->nz == 1 ? 0 : iz;
      double ez = 0.0;
      if (mode == CTR_RESAMPLE_VOLUME && s->nz > 1)
        {
          const double fz = (ctr_grid_z (grid, (double) iz) - s->cz) / s->dz + (s->nz - 1) * 0.5;
          z0 = (gint64) floor (fz);
          ez = fz - (double) z0;
          if (!(fz > -1.0 && fz < s->nz))
            z0 = -2;  /* outside: zero */
        }
      float *dst = ctr_volume_slice (out, (guint) iz);
      for (guint iy = 0; iy < grid->ny; iy++)
        for (guint ix = 0; ix < grid->nx; ix++)
          {
            const double x = ctr_grid_x (grid, ix), y = ctr_grid_y (grid, iy);
            double acc = 0.0;
            if (z0 >= 0 && z0 < (gint64) s->nz && ez < 1.0)
              acc += (1.0 - ez) * sample_slice (src, (guint) z0, x, y);
            if (ez > 0.0 && z0 + 1 >= 0 && z0 + 1 < (gint64) s->nz)
              acc += ez * sample_slice (src, (guint) (z0 + 1), x, y);
            dst[(gsize) iy * grid->nx + ix] = (float) acc;
          }
    }
  ctr_volume_set_unit (out, src->unit);
  return out;
}
