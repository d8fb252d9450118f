/* ctr-ttf.c — the task transfer function of a circular insert (see ctr-ttf.h). */
#include "quality/ctr-ttf.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

#define BIN_PX 0.1
#define N_FREQ 101
#define CENTRE_ITERATIONS 5

void
ctr_ttf_free (CtrTtf *ttf)
{
  if (ttf == NULL)
    return;
  g_free (ttf->esf_r);
  g_free (ttf->esf);
  g_free (ttf->f);
  g_free (ttf->ttf);
  g_free (ttf);
}

typedef struct {
  const float *img;
  guint nx, ny;
  double radius, r_max;
  int x_lo, x_hi, y_lo, y_hi;  /* the pixels within r_max of the guess (and the refined centre) */
} Insert;

/* Mean and (population) standard deviation of the pixels with lo < r ≤ hi
 * about (cx, cy); NaN for an empty ring.  @sd may be NULL. */
static double
ring_stats (const Insert *in, double cx, double cy, double lo, double hi, double *sd)
{
  double sum = 0, sum2 = 0;
  gsize n = 0;
  for (int y = in->y_lo; y <= in->y_hi; y++)
    for (int x = in->x_lo; x <= in->x_hi; x++)
      {
        double r = hypot (x - cx, y - cy);
        if (r > lo && r <= hi)
          {
            double v = in->img[(gsize) y * in->nx + x];
            sum += v, sum2 += v * v, n++;
          }
      }
  double mean = n ? sum / n : NAN;
  if (sd != NULL)
    *sd = n ? sqrt (MAX (sum2 / n - mean * mean, 0.0)) : NAN;
  return mean;
}

/* Step 1: the centroid of the contrast fraction, iterated; FALSE without contrast. */
static gboolean
refine_centre (const Insert *in, double *cx, double *cy, double *contrast)
{
  double R = in->radius;
  for (int it = 0; it < CENTRE_ITERATIONS; it++)
    {
      double bg = ring_stats (in, *cx, *cy, 0.5 * (R + in->r_max), in->r_max, NULL);
      double ins = ring_stats (in, *cx, *cy, -1, 0.5 * R, NULL);
      *contrast = ins - bg;
      if (!(fabs (*contrast) > 0) || !isfinite (*contrast))
        return FALSE;
      double sw = 0, sx = 0, sy = 0;
      for (int y = in->y_lo; y <= in->y_hi; y++)
        for (int x = in->x_lo; x <= in->x_hi; x++)
          {
            if (hypot (x - *cx, y - *cy) > R + 3)
              continue;
            double w = (in->img[(gsize) y * in->nx + x] - bg) / *contrast;
            w = CLAMP (w, 0.0, 1.0);
            sw += w, sx += w * x, sy += w * y;
          }
      if (!(sw > 0))
        return FALSE;
      *cx = sx / sw, *cy = sy / sw;
    }
  return TRUE;
}

/* Step 2a: adds the samples of @in about (@cx, @cy) into the ESF bins:
 * the image's own bin means merged into the pooled means @esf (counts
 * @hits) by m += (mean − m)·h/(H + h), so an image identical to those
 * pooled before leaves every bin bit for bit as it was.  @sum and @count
 * are scratch (n each). */
static void
pool_esf (const Insert *in, double cx, double cy, guint n, double *esf, guint *hits, double *sum, guint *count)
{
  memset (sum, 0, n * sizeof (double));
  memset (count, 0, n * sizeof (guint));
  for (int y = in->y_lo; y <= in->y_hi; y++)
    for (int x = in->x_lo; x <= in->x_hi; x++)
      {
        double r = hypot (x - cx, y - cy);
        guint k = (guint) (r / BIN_PX);
        if (k < n)
          sum[k] += in->img[(gsize) y * in->nx + x], count[k]++;
      }
  for (guint k = 0; k < n; k++)
    if (count[k] > 0)
      {
        double mean = sum[k] / count[k];
        esf[k] = hits[k] == 0 ? mean : esf[k] + (mean - esf[k]) * count[k] / (double) (hits[k] + count[k]);
        hits[k] += count[k];
      }
}

/* Step 2b: the empty bins of the pooled ESF filled, linearly between the
 * nearest filled ones (constant before the first and after the last). */
static void
fill_esf (double *esf, const guint *hits, guint n)
{
  int last = -1;
  for (guint k = 0; k < n; k++)
    {
      if (hits[k] == 0)
        continue;
      /* Fill the gap (last, k): linear, or constant before the first hit. */
      for (int j = last + 1; j < (int) k; j++)
        esf[j] = last < 0 ? esf[k] : esf[last] + (esf[k] - esf[last]) * (j - last) / (double) (k - last);
      last = (int) k;
    }
  for (guint j = (guint) (last + 1); j < n; j++)
    esf[j] = last >= 0 ? esf[last] : 0;
}

/* The edge: where the ESF crosses half the contrast, the crossing nearest
 * the nominal radius (pixels); NaN when there is none. */
static double
edge_radius (const double *esf, guint n, double radius, double bg, double contrast)
{
  double best = NAN;
  for (guint k = 1; k < n; k++)
    {
      double a = (esf[k - 1] - bg) / contrast - 0.5, b = (esf[k] - bg) / contrast - 0.5;
      if ((a > 0) == (b > 0))
        continue;
      double r = (k - 0.5 + a / (a - b)) * BIN_PX;
      if (isnan (best) || fabs (r - radius) < fabs (best - radius))
        best = r;
    }
  return best;
}

/* Steps 3–4: the tapered LSF about the edge and its normalised transform;
 * FALSE with CTR_ERROR_OUT_OF_MEMORY when the LSF's bins cannot be had. */
static gboolean
transfer (const double *esf, guint n, double radius, double w_px, double pixel_mm, CtrTtf *t, GError **error)
{
  g_autofree char *what = g_strdup_printf ("the TTF's radial bins (%u)", n);
  g_autofree double *lsf = ctr_memory_try_new (n, sizeof (double), TRUE, what, error);
  if (lsf == NULL)
    return FALSE;
  for (guint k = 1; k + 1 < n; k++)
    {
      double r = (k + 0.5) * BIN_PX, d = fabs (r - radius);
      if (d > w_px)
        continue;
      double taper = d <= 0.5 * w_px ? 1.0 : 0.5 + 0.5 * cos (G_PI * (d - 0.5 * w_px) / (0.5 * w_px));
      lsf[k] = taper * (esf[k + 1] - esf[k - 1]) / (2 * BIN_PX);
    }
  t->n_freq = N_FREQ;
  t->f = g_new (double, N_FREQ);
  t->ttf = g_new (double, N_FREQ);
  double norm = 0;
  for (guint i = 0; i < N_FREQ; i++)
    {
      double f_px = 0.5 * i / (N_FREQ - 1);  /* cycles/pixel */
      double re = 0, im = 0;
      for (guint k = 0; k < n; k++)
        if (lsf[k] != 0)
          {
            double ph = -2 * G_PI * f_px * ((k + 0.5) * BIN_PX - radius);
            re += lsf[k] * cos (ph), im += lsf[k] * sin (ph);
          }
      double mag = hypot (re, im);
      if (i == 0)
        norm = mag;
      t->f[i] = f_px / pixel_mm;
      t->ttf[i] = norm > 0 ? mag / norm : NAN;
    }
  return TRUE;
}

/* Step 5: the first frequency where the TTF falls to @level. */
static double
crossing (const CtrTtf *t, double level)
{
  for (guint i = 1; i < t->n_freq; i++)
    if (t->ttf[i] <= level)
      {
        double a = t->ttf[i - 1], b = t->ttf[i];
        return t->f[i - 1] + (t->f[i] - t->f[i - 1]) * (a - level) / (a - b);
      }
  return NAN;
}

/* The mean of the slices over the box of @in (elsewhere 0), a new image;
 * NULL with CTR_ERROR_OUT_OF_MEMORY when it cannot be had. */
static float *
mean_image (const float *const *slices, guint n_slices, const Insert *in, GError **error)
{
  float *img = ctr_memory_try_new ((gsize) in->nx * in->ny, sizeof (float), TRUE, "the TTF's mean image", error);
  if (img == NULL)
    return NULL;
  for (int y = in->y_lo; y <= in->y_hi; y++)
    for (int x = in->x_lo; x <= in->x_hi; x++)
      {
        double sum = 0;
        gsize i = (gsize) y * in->nx + x;
        for (guint s = 0; s < n_slices; s++)
          sum += slices[s][i];
        img[i] = (float) (sum / n_slices);
      }
  return img;
}

/* Checks the arguments and sets the box of @in (the pixels within r_max
 * of the guess and of a centre moved by up to 2 pixels); FALSE with
 * CTR_ERROR_INVALID_ARGUMENT. */
static gboolean
set_box (Insert *in, guint n_slices, double pixel_mm, double cx_px, double cy_px, GError **error)
{
  double radius_px = in->radius;
  if (n_slices == 0 || !(isfinite (radius_px) && radius_px >= 2) || !isfinite (cx_px) || !isfinite (cy_px)
      || !(isfinite (pixel_mm) && pixel_mm > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "TTF: need a slice, an insert radius of at least 2 pixels, a finite centre and a "
                   "positive pixel size (%u slices, radius %g pixels at (%g, %g), pixel %g mm)", n_slices, radius_px, cx_px, cy_px, pixel_mm);
      return FALSE;
    }
  in->r_max = radius_px + CLAMP (radius_px, 10.0, 30.0);
  double reach = in->r_max + 2;
  if (cx_px - reach < 0 || cy_px - reach < 0 || cx_px + reach > in->nx - 1 || cy_px + reach > in->ny - 1)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "TTF: the insert at column %.1f, row %.1f (radius %.1f pixels) needs %.1f pixels of "
                   "background around its centre inside the %u × %u image", cx_px, cy_px, radius_px, reach, in->nx, in->ny);
      return FALSE;
    }
  in->x_lo = (int) floor (cx_px - reach), in->x_hi = (int) ceil (cx_px + reach);
  in->y_lo = (int) floor (cy_px - reach), in->y_hi = (int) ceil (cy_px + reach);
  return TRUE;
}

/* A running mean that an equal value leaves bit for bit unchanged. */
static inline double
running_mean (double mean, double value, guint i)
{
  if (i == 0 || value == mean)
    return value;
  if (isinf (mean) || isinf (value))
    return INFINITY;
  return mean + (value - mean) / (i + 1);
}

typedef struct {
  double cx, cy;          /* the centre reported: the common one, or the mean of the images' */
  double bg, contrast;    /* pooled background and insert − background */
  double cnr_single;      /* the mean of the images' own CNRs */
} Pooled;

/* Steps 1–2 over the images: each image's samples binned about the common
 * centre (@p->cx, @p->cy on entry) or, with CTR_TTF_CENTRE_EACH, about
 * its own centre refined from it, pooled into @esf (n bins, filled);
 * @p gets the pooled background, contrast and the images' mean CNR.
 * FALSE with CTR_ERROR_INVALID_DATA (an image's centre not found within 2
 * pixels of the guess @gx, @gy) or CTR_ERROR_OUT_OF_MEMORY. */
static gboolean
pool_images (const float *const *slices, guint n_slices, const Insert *in, CtrTtfCentre centre, double gx, double gy,
             guint n, double *esf, Pooled *p, GError **error)
{
  g_autofree char *what = g_strdup_printf ("the TTF's radial bins (%u)", n);
  g_autofree guint *hits = ctr_memory_try_new (n, sizeof (guint), TRUE, what, error);
  g_autofree guint *count = hits == NULL ? NULL : ctr_memory_try_new (n, sizeof (guint), FALSE, what, error);
  g_autofree double *sum = count == NULL ? NULL : ctr_memory_try_new (n, sizeof (double), FALSE, what, error);
  if (sum == NULL)
    return FALSE;
  const double cx0 = p->cx, cy0 = p->cy, R = in->radius;
  double bg = 0, ins = 0, cnr = 0, mx = 0, my = 0;
  for (guint i = 0; i < n_slices; i++)
    {
      Insert one = *in;
      one.img = slices[i];
      double x = cx0, y = cy0, c = 0;
      if (centre == CTR_TTF_CENTRE_EACH && (!refine_centre (&one, &x, &y, &c) || hypot (x - gx, y - gy) > 2))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       "TTF: image %u of %u: the insert of radius %.1f pixels near column %.1f, row %.1f "
                       "not found within 2 pixels (too noisy to centre each image: use the common centre)",
                       i + 1, n_slices, R, gx, gy);
          return FALSE;
        }
      pool_esf (&one, x, y, n, esf, hits, sum, count);
      double sd;
      double b = ring_stats (&one, x, y, 0.5 * (R + in->r_max), in->r_max, &sd);
      double a = ring_stats (&one, x, y, -1, 0.5 * R, NULL);
      double ci = sd > 0 ? fabs (a - b) / sd : INFINITY;
      bg = running_mean (bg, b, i), ins = running_mean (ins, a, i);
      cnr = running_mean (cnr, ci, i);
      mx = running_mean (mx, x, i), my = running_mean (my, y, i);
    }
  fill_esf (esf, hits, n);
  p->cx = mx, p->cy = my;
  p->bg = bg, p->contrast = ins - bg, p->cnr_single = cnr;
  return TRUE;
}

CtrTtf *
ctr_ttf_pooled (const float *const *slices, guint n_slices, guint nx, guint ny, double pixel_mm,
                double cx_px, double cy_px, double radius_px, CtrTtfCentre centre, GError **error)
{
  g_return_val_if_fail (slices != NULL, NULL);
  Insert in = { NULL, nx, ny, radius_px, 0, 0, 0, 0, 0 };
  if (!set_box (&in, n_slices, pixel_mm, cx_px, cy_px, error))
    return NULL;
  g_autofree float *img = mean_image (slices, n_slices, &in, error);
  if (img == NULL)
    return NULL;
  in.img = img;
  for (int y = in.y_lo; y <= in.y_hi; y++)
    for (int x = in.x_lo; x <= in.x_hi; x++)
      if (!isfinite (img[(gsize) y * nx + x]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                       "TTF: a NaN or infinite pixel at column %d, row %d near the insert", x, y);
          return NULL;
        }
  /* The common centre, on the images' mean (its CNR is the pooled one). */
  double cx = cx_px, cy = cy_px, contrast = 0;
  if (!refine_centre (&in, &cx, &cy, &contrast) || hypot (cx - cx_px, cy - cy_px) > 2)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "TTF: no insert of radius %.1f pixels with contrast against its background at "
                   "column %.1f, row %.1f (its centre not found within 2 pixels)", radius_px, cx_px, cy_px);
      return NULL;
    }
  double noise_sd;
  ring_stats (&in, cx, cy, 0.5 * (radius_px + in.r_max), in.r_max, &noise_sd);
  guint n = (guint) ceil (in.r_max / BIN_PX);
  g_autofree char *what = g_strdup_printf ("the TTF's radial bins (%u)", n);
  g_autofree double *esf = ctr_memory_try_new (n, sizeof (double), TRUE, what, error);
  Pooled p = { cx, cy, 0, 0, 0 };
  if (esf == NULL || !pool_images (slices, n_slices, &in, centre, cx_px, cy_px, n, esf, &p, error))
    return NULL;
  if (!(fabs (p.contrast) > 0))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "TTF: no contrast between the insert at column %.1f, row %.1f and its background", cx, cy);
      return NULL;
    }
  double edge = edge_radius (esf, n, radius_px, p.bg, p.contrast);
  if (!(fabs (edge - radius_px) <= MAX (2.0, 0.2 * radius_px)))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA,
                   "TTF: the insert at column %.1f, row %.1f has its edge (half contrast) at a radius of "
                   "%.1f pixels, not near the %.1f pixels given: give the insert's radius", p.cx, p.cy, edge, radius_px);
      return NULL;
    }
  g_autoptr (CtrTtf) t = g_new0 (CtrTtf, 1);
  t->cx_px = p.cx, t->cy_px = p.cy, t->contrast = p.contrast, t->radius_px = edge;
  t->noise_sd = noise_sd;
  t->cnr = noise_sd > 0 ? fabs (p.contrast) / noise_sd : INFINITY;
  t->cnr_single = p.cnr_single;
  t->n_images = n_slices;
  t->esf = g_steal_pointer (&esf);
  t->n_esf = n;
  if ((t->esf_r = ctr_memory_try_new (n, sizeof (double), FALSE, what, error)) == NULL)
    return NULL;
  for (guint k = 0; k < n; k++)
    t->esf_r[k] = (k + 0.5) * BIN_PX * pixel_mm;
  if (!transfer (t->esf, n, edge, MIN (edge, in.r_max - edge) - 2 * BIN_PX, pixel_mm, t, error))
    return NULL;
  t->f50 = crossing (t, 0.5);
  t->f10 = crossing (t, 0.1);
  return g_steal_pointer (&t);
}

CtrTtf *
ctr_ttf_insert (const float *const *slices, guint n_slices, guint nx, guint ny, double pixel_mm,
                double cx_px, double cy_px, double radius_px, GError **error)
{
  return ctr_ttf_pooled (slices, n_slices, nx, ny, pixel_mm, cx_px, cy_px, radius_px, CTR_TTF_CENTRE_COMMON, error);
}

double
ctr_ttf_at (const CtrTtf *ttf, double f)
{
  g_return_val_if_fail (ttf != NULL && ttf->n_freq > 1, NAN);
  if (!(f > 0))
    return ttf->ttf[0];
  double step = ttf->f[1] - ttf->f[0];
  double t = f / step;
  if (t >= ttf->n_freq - 1)
    return ttf->ttf[ttf->n_freq - 1];
  guint k = (guint) t;
  double w = t - k;
  return (1 - w) * ttf->ttf[k] + w * ttf->ttf[k + 1];
}
