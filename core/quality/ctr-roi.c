/* ctr-roi.c — ROI statistics in HU (see ctr-roi.h). */
#include "quality/ctr-roi.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

CtrRoi
ctr_roi_circle (double x_mm, double y_mm, double radius_mm)
{
  CtrRoi r = { CTR_ROI_CIRCLE, x_mm, y_mm, radius_mm, 0, 0 };
  return r;
}

CtrRoi
ctr_roi_rectangle (double x_mm, double y_mm, double width_mm, double height_mm)
{
  CtrRoi r = { CTR_ROI_RECTANGLE, x_mm, y_mm, 0, width_mm, height_mm };
  return r;
}

gboolean
ctr_roi_validate (const CtrRoi *roi, GError **error)
{
  g_return_val_if_fail (roi != NULL, FALSE);
  gboolean ok = isfinite (roi->x_mm) && isfinite (roi->y_mm);
  if (roi->shape == CTR_ROI_CIRCLE)
    ok = ok && isfinite (roi->radius_mm) && roi->radius_mm > 0;
  else if (roi->shape == CTR_ROI_RECTANGLE)
    ok = ok && isfinite (roi->width_mm) && roi->width_mm > 0 && isfinite (roi->height_mm)
         && roi->height_mm > 0;
  else
    ok = FALSE;
  if (!ok)
    g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                 "ROI at (%g, %g) mm: a circle needs a positive radius, a rectangle a positive width "
                 "and height (radius %g, width %g, height %g mm)",
                 roi->x_mm, roi->y_mm, roi->radius_mm, roi->width_mm, roi->height_mm);
  return ok;
}

gboolean
ctr_roi_parse (const char *text, CtrRoi *roi, GError **error)
{
  g_return_val_if_fail (roi != NULL, FALSE);
  const char *colon = text != NULL ? strchr (text, ':') : NULL;
  if (colon != NULL)
    {
      g_autofree char *shape = g_strstrip (g_strndup (text, colon - text));
      g_auto (GStrv) parts = g_strsplit (colon + 1, ",", -1);
      guint n = g_strv_length (parts), want = g_str_equal (shape, "circle") ? 3 : g_str_equal (shape, "rect") ? 4 : 0;
      double v[4];
      gboolean ok = want > 0 && n == want;
      for (guint i = 0; ok && i < n; i++)
        {
          char *end = NULL;
          const char *p = g_strstrip (parts[i]);
          v[i] = g_ascii_strtod (p, &end);
          ok = *p != '\0' && end != NULL && *end == '\0' && isfinite (v[i]);
        }
      if (ok)
        {
          CtrRoi r = want == 3 ? ctr_roi_circle (v[0], v[1], v[2]) : ctr_roi_rectangle (v[0], v[1], v[2], v[3]);
          if (ctr_roi_validate (&r, NULL))
            {
              *roi = r;
              return TRUE;
            }
        }
    }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "“%s”: expected circle:X,Y,R or rect:X,Y,W,H (mm, positive sizes)", text ? text : "");
  return FALSE;
}

static inline gboolean
inside (const CtrRoi *roi, double x, double y)
{
  double dx = x - roi->x_mm, dy = y - roi->y_mm;
  if (roi->shape == CTR_ROI_CIRCLE)
    return dx * dx + dy * dy <= roi->radius_mm * roi->radius_mm;
  return fabs (dx) <= 0.5 * roi->width_mm && fabs (dy) <= 0.5 * roi->height_mm;
}

guint8 *
ctr_roi_mask (const CtrGrid *grid, const CtrRoi *roi, gsize *n_pixels, GError **error)
{
  g_return_val_if_fail (grid != NULL && roi != NULL, NULL);
  g_autofree char *what = g_strdup_printf ("the ROI's mask of %u × %u pixels", grid->nx, grid->ny);
  guint8 *mask = ctr_memory_try_new (ctr_grid_slice_size (grid), 1, TRUE, what, error);
  if (mask == NULL)
    return NULL;
  gsize n = 0;
  for (guint iy = 0; iy < grid->ny; iy++)
    {
      double y = ctr_grid_y (grid, iy);
      for (guint ix = 0; ix < grid->nx; ix++)
        if (inside (roi, ctr_grid_x (grid, ix), y))
          {
            mask[(gsize) iy * grid->nx + ix] = 1;
            n++;
          }
    }
  if (n_pixels != NULL)
    *n_pixels = n;
  return mask;
}

/* Common checks; the ROI's mask on success. */
static guint8 *
prepare (const CtrVolume *v, guint z, const CtrRoi *roi, double mu_water, gsize min_pixels,
         gsize *n, GError **error)
{
  if (!ctr_roi_validate (roi, error))
    return NULL;
  if (z >= v->grid.nz)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "slice %u does not exist (the volume has %u)", z, v->grid.nz);
      return NULL;
    }
  if (!(isfinite (mu_water) && mu_water > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "μ_water must be a positive attenuation in 1/mm, got %g", mu_water);
      return NULL;
    }
  guint8 *mask = ctr_roi_mask (&v->grid, roi, n, error);
  if (mask == NULL)
    return NULL;
  if (*n < min_pixels)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the ROI at (%g, %g) mm covers %" G_GSIZE_FORMAT " pixel(s) of the image; "
                   "at least %" G_GSIZE_FORMAT " are needed", roi->x_mm, roi->y_mm, *n, min_pixels);
      g_free (mask);
      return NULL;
    }
  /* A NaN inside would make every figure NaN (printed as null): say where. */
  const float *s = ctr_volume_slice (v, z);
  gsize bad = 0, first = 0;
  for (gsize i = 0; i < ctr_grid_slice_size (&v->grid); i++)
    if (mask[i] && !isfinite (s[i]) && bad++ == 0)
      first = i;
  if (bad > 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "the ROI at (%g, %g) mm holds %" G_GSIZE_FORMAT " pixel(s) that are not finite numbers "
                   "(NaN or infinite; the first at column %" G_GSIZE_FORMAT ", row %" G_GSIZE_FORMAT
                   " of slice %u)", roi->x_mm, roi->y_mm, bad, first % v->grid.nx, first / v->grid.nx, z);
      g_free (mask);
      return NULL;
    }
  return mask;
}

gboolean
ctr_roi_stats (const CtrVolume *v, guint z, const CtrRoi *roi, double mu_water, CtrRoiStats *out,
               GError **error)
{
  g_return_val_if_fail (v != NULL && roi != NULL && out != NULL, FALSE);
  gsize n = 0;
  g_autofree guint8 *mask = prepare (v, z, roi, mu_water, 2, &n, error);
  if (mask == NULL)
    return FALSE;
  const float *s = ctr_volume_slice (v, z);
  const gsize np = ctr_grid_slice_size (&v->grid);
  double sum = 0;
  for (gsize i = 0; i < np; i++)
    if (mask[i])
      sum += s[i];
  const double mean = sum / n;
  double ss = 0;
  for (gsize i = 0; i < np; i++)
    if (mask[i])
      ss += (s[i] - mean) * (s[i] - mean);
  out->n_pixels = n;
  out->mean_mu = mean;
  out->sd_mu = sqrt (ss / (n - 1));
  out->mean_hu = ctr_hu_from_mu (mean, mu_water);
  out->sd_hu = 1000.0 * out->sd_mu / mu_water;
  return TRUE;
}

double
ctr_roi_cnr (const CtrRoiStats *roi, const CtrRoiStats *background)
{
  g_return_val_if_fail (roi != NULL && background != NULL, NAN);
  return background->sd_hu > 0 ? fabs (roi->mean_hu - background->mean_hu) / background->sd_hu : NAN;
}

gboolean
ctr_roi_noise_sd (const CtrVolume *v, guint z, const CtrRoi *roi, double mu_water, double *sd_hu,
                  GError **error)
{
  g_return_val_if_fail (v != NULL && roi != NULL && sd_hu != NULL, FALSE);
  gsize n = 0;
  g_autofree guint8 *mask = prepare (v, z, roi, mu_water, 4, &n, error);
  if (mask == NULL)
    return FALSE;
  const CtrGrid *g = &v->grid;
  const float *s = ctr_volume_slice (v, z);

  /* Normal equations of the plane in coordinates centred on the ROI's
   * pixels (well conditioned): [n 0 0; 0 Sxx Sxy; 0 Sxy Syy]·(a b c) = (Sv Sxv Syv). */
  double mx = 0, my = 0, mv = 0;
  for (guint iy = 0; iy < g->ny; iy++)
    for (guint ix = 0; ix < g->nx; ix++)
      if (mask[(gsize) iy * g->nx + ix])
        {
          mx += ctr_grid_x (g, ix);
          my += ctr_grid_y (g, iy);
          mv += s[(gsize) iy * g->nx + ix];
        }
  mx /= n;
  my /= n;
  mv /= n;
  double sxx = 0, sxy = 0, syy = 0, sxv = 0, syv = 0;
  for (guint iy = 0; iy < g->ny; iy++)
    for (guint ix = 0; ix < g->nx; ix++)
      if (mask[(gsize) iy * g->nx + ix])
        {
          double x = ctr_grid_x (g, ix) - mx, y = ctr_grid_y (g, iy) - my;
          double val = s[(gsize) iy * g->nx + ix] - mv;
          sxx += x * x;
          sxy += x * y;
          syy += y * y;
          sxv += x * val;
          syv += y * val;
        }
  double det = sxx * syy - sxy * sxy;
  if (!(det > 1e-12 * sxx * syy))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the ROI at (%g, %g) mm is one pixel wide: no plane can be fitted for the noise",
                   roi->x_mm, roi->y_mm);
      return FALSE;
    }
  double b = (sxv * syy - syv * sxy) / det, c = (syv * sxx - sxv * sxy) / det;
  double ss = 0;
  for (guint iy = 0; iy < g->ny; iy++)
    for (guint ix = 0; ix < g->nx; ix++)
      if (mask[(gsize) iy * g->nx + ix])
        {
          double x = ctr_grid_x (g, ix) - mx, y = ctr_grid_y (g, iy) - my;
          double r = s[(gsize) iy * g->nx + ix] - mv - b * x - c * y;
          ss += r * r;
        }
  *sd_hu = 1000.0 * sqrt (ss / (n - 3)) / mu_water;
  return TRUE;
}

gboolean
ctr_roi_water_calibration (const CtrVolume *v, guint z, const CtrRoi *water, double *mu_water,
                           GError **error)
{
  g_return_val_if_fail (mu_water != NULL, FALSE);
  CtrRoiStats st;
  if (!ctr_roi_stats (v, z, water, CTR_MU_WATER_PER_MM, &st, error))
    return FALSE;
  if (!(st.mean_mu > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "the water ROI at (%g, %g) mm has mean %g, not a positive attenuation",
                   water->x_mm, water->y_mm, st.mean_mu);
      return FALSE;
    }
  *mu_water = st.mean_mu;
  return TRUE;
}
