/* ctr-calib-conjugate.c — the central-ray column of a fan- or cone-beam
 * scan from the consistency of conjugate rays (ctr-calib.h). */
#include "calib/ctr-calib-private.h"
#include "calib/ctr-calib-curve.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <stdlib.h>

#define CONJ_MAX_ROWS 4
#define CONJ_MAX_BLOCKS 8
#define CONJ_FINE_STEP 0.05

typedef struct {
  const CtrGeometry *g;
  guint nv, n, n_sino;
  float *sino;            /* [n_sino][nv][n] the rows used */
  double *sa;             /* [nv] view angles mod 2π, sorted */
  guint *sv;              /* [nv] their views */
  double max_gap;         /* the widest gap interpolated across, rad */
  guint nb;               /* view blocks */
} Conj;

typedef struct {
  double angle;           /* mod 2π */
  guint view;
} ViewAngle;

/* By angle, then view (the order a stable sort by angle gives). */
static int
cmp_view_angle (const void *a, const void *b)
{
  const ViewAngle *x = a, *y = b;
  if (x->angle != y->angle)
    return (x->angle > y->angle) - (x->angle < y->angle);
  return (x->view > y->view) - (x->view < y->view);
}

/* The value of sinogram @s at angle @beta and continuous column @col, or
 * FALSE where the views or the row do not reach. */
static gboolean
sample (const Conj *w, const float *s, double beta, double col, double *value)
{
  if (!(col >= 0 && col <= w->n - 1))
    return FALSE;
  double t = fmod (beta, 2 * G_PI);
  t = t < 0 ? t + 2 * G_PI : t;
  guint lo = 0, hi = w->nv;
  while (lo < hi)
    {
      const guint mid = (lo + hi) / 2;
      if (w->sa[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  const guint b = lo % w->nv, a = (lo + w->nv - 1) % w->nv;
  double gap = w->sa[b] - w->sa[a], off = t - w->sa[a];
  gap = gap < 0 ? gap + 2 * G_PI : gap;
  off = off < 0 ? off + 2 * G_PI : off;
  if (w->nv < 2 || gap > w->max_gap || off > gap)
    return FALSE;
  const double f = gap > 0 ? off / gap : 0.0;
  const guint j0 = MIN ((guint) floor (col), w->n - 2);
  const double u = col - j0;
  const float *va = s + (gsize) w->sv[a] * w->n, *vb = s + (gsize) w->sv[b] * w->n;
  const double xa = (1 - u) * va[j0] + u * va[j0 + 1], xb = (1 - u) * vb[j0] + u * vb[j0 + 1];
  *value = (1 - f) * xa + f * xb;
  return TRUE;
}

/* The fan angle γ of column @j when u = 0 lies at column @c. */
static double
gamma_of (const CtrGeometry *g, double j, double c)
{
  const double u = (j - c) * g->pitch_u;
  return g->shape == CTR_DETECTOR_CURVED ? u : atan (u / g->sdd_mm);
}

/* Block @b's sums at candidate @c: Σ(p − q)² into @num, the pairs into
 * @den; with @corr (5 doubles: Σp, Σq, Σp², Σq², Σpq) also those. */
static void
conj_cost (const Conj *w, double c, double *num, double *den, double *corr)
{
  for (guint b = 0; b < w->nb; b++)
    num[b] = den[b] = 0;
  for (guint r = 0; r < w->n_sino; r++)
    {
      const float *s = w->sino + (gsize) r * w->nv * w->n;
      for (guint k = 0; k < w->nv; k++)
        {
          const guint b = k * w->nb / w->nv;
          for (guint j = 0; j < w->n; j++)
            {
              const double gam = gamma_of (w->g, j, c);
              double q;
              if (!sample (w, s, w->g->angles[k] + G_PI - 2 * gam, 2 * c - j, &q))
                continue;
              const double v = s[(gsize) k * w->n + j];
              num[b] += (v - q) * (v - q);
              den[b] += 1;
              if (corr != NULL)
                {
                  corr[0] += v;
                  corr[1] += q;
                  corr[2] += v * v;
                  corr[3] += q * q;
                  corr[4] += v * q;
                }
            }
        }
    }
}

static void
conj_fill (const Conj *w, CtrCalibCurve *curve)
{
#pragma omp parallel for schedule(dynamic)
  for (guint i = 0; i < curve->n_points; i++)
    {
      double num[CONJ_MAX_BLOCKS], den[CONJ_MAX_BLOCKS];
      conj_cost (w, curve->x0 + i * curve->dx, num, den, NULL);
      for (guint b = 0; b < w->nb; b++)
        {
          curve->num[(gsize) b * curve->n_points + i] = num[b];
          curve->den[(gsize) b * curve->n_points + i] = den[b];
        }
    }
}

/* The rows used: up to CONJ_MAX_ROWS of a fan stack, the central row v = 0
 * of a cone beam. */
static gboolean
conj_load (Conj *w, const CtrProjections *p, GError **error)
{
  const CtrGeometry *g = w->g;
  guint rows[CONJ_MAX_ROWS];
  w->n_sino = g->beam == CTR_BEAM_CONE ? 1 : ctr_calib_pick_rows (p->n_rows, CONJ_MAX_ROWS, rows);
  const gsize size = (gsize) w->n_sino * w->nv * w->n;
  w->sino = g_try_new (float, size);
  if (w->sino == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "%zu sinogram samples do not fit in memory", size);
      return FALSE;
    }
  if (g->beam == CTR_BEAM_CONE)
    ctr_calib_row_sinogram (p, ctr_calib_central_row (g), w->sino);
  else
    for (guint r = 0; r < w->n_sino; r++)
      ctr_calib_row_sinogram (p, rows[r], w->sino + (gsize) r * w->nv * w->n);
  /* sorted with qsort, which allocates nothing it cannot do without
   * (g_qsort_with_data's merge buffer is a g_malloc of the whole array) */
  w->sv = ctr_memory_try_new (w->nv, sizeof (guint), FALSE, "the views' order by angle", error);
  w->sa = w->sv == NULL ? NULL : ctr_memory_try_new (w->nv, sizeof (double), FALSE, "the views' sorted angles", error);
  g_autofree ViewAngle *va = w->sa == NULL ? NULL : ctr_memory_try_new (w->nv, sizeof (ViewAngle), FALSE,
                                                                        "the views' angles modulo 360°", error);
  if (va == NULL)
    return FALSE;
  for (guint k = 0; k < w->nv; k++)
    {
      const double t = fmod (g->angles[k], 2 * G_PI);
      va[k] = (ViewAngle) { t < 0 ? t + 2 * G_PI : t, k };
    }
  qsort (va, w->nv, sizeof *va, cmp_view_angle);
  for (guint k = 0; k < w->nv; k++)
    {
      w->sv[k] = va[k].view;
      w->sa[k] = va[k].angle;
    }
  g_clear_pointer (&va, g_free);
  double step;
  if (!ctr_calib_median_step (g, &step, error))
    return FALSE;
  w->max_gap = 2.5 * step;
  w->nb = MIN (CONJ_MAX_BLOCKS, MAX (1u, w->nv / 4));
  return TRUE;
}

static void
conj_clear (Conj *w)
{
  g_free (w->sino);
  g_free (w->sa);
  g_free (w->sv);
}

/* The correlation of the rays with their conjugates at @c. */
static double
conj_quality (const Conj *w, double c)
{
  double num[CONJ_MAX_BLOCKS], den[CONJ_MAX_BLOCKS], s[5] = { 0 };
  conj_cost (w, c, num, den, s);
  double n = 0;
  for (guint b = 0; b < w->nb; b++)
    n += den[b];
  if (n < 2)
    return 0;
  const double vp = s[2] - s[0] * s[0] / n, vq = s[3] - s[1] * s[1] / n, cpq = s[4] - s[0] * s[1] / n;
  return vp > 0 && vq > 0 ? CLAMP (cpq / sqrt (vp * vq), 0.0, 1.0) : 0.0;
}

gboolean
ctr_calib_conjugate (const CtrGeometry *g, const CtrProjections *p, const CtrCalibOptions *opt,
                     CtrCalibEstimate *out, GCancellable *cancellable, GError **error)
{
  *out = (CtrCalibEstimate) { .method = CTR_CALIB_CONJUGATE, .centre_col = NAN, .sigma_col = NAN, .slope = NAN,
                              .sigma_slope = NAN };
  Conj w = { .g = g, .nv = g->n_views, .n = g->n_cols };
  if (!conj_load (&w, p, error))
    {
      conj_clear (&w);
      return FALSE;
    }
  double lo, hi;
  ctr_calib_search_range (g, opt, &lo, &hi);
  const double coarse = MAX (0.5, ceil ((hi - lo) / 128 * 2) / 2);
  const double cx0 = ceil (lo / coarse) * coarse;
  const guint n_coarse = (guint) floor ((hi - cx0) / coarse) + 1;
  g_autoptr (CtrCalibCurve) cc = ctr_calib_curve_new (w.nb, n_coarse, cx0, coarse, TRUE, error);
  if (cc == NULL)
    {
      conj_clear (&w);
      return FALSE;
    }
  conj_fill (&w, cc);
  const int k0 = ctr_calib_curve_argmin (cc, -1);
  g_autoptr (CtrCalibCurve) fc = NULL;
  gboolean failed = g_cancellable_set_error_if_cancelled (cancellable, error);
  if (!failed && k0 > 0 && k0 < (int) n_coarse - 1)
    {
      const double half = 1.5 * coarse;
      fc = ctr_calib_curve_new (w.nb, (guint) lround (2 * half / CONJ_FINE_STEP) + 1, cx0 + k0 * coarse - half,
                                CONJ_FINE_STEP, TRUE, error);
      failed = fc == NULL;
      if (fc != NULL)
        conj_fill (&w, fc);
    }
  if (failed)
    {
      conj_clear (&w);
      return FALSE;
    }
  const double c = fc != NULL ? ctr_calib_curve_minimum (fc, -1) : NAN;
  if (!isfinite (c))
    {
      conj_clear (&w);
      if (k0 < 0)
        ctr_calib_fail (out, CTR_CALIB_CONJUGATE, "no ray has a measured conjugate: the views cover too little of "
                        "the turn (a scan of 180° plus the fan at least)");
      else
        {
          ctr_calib_fail (out, CTR_CALIB_CONJUGATE, "the best consistency lies at the edge of the search (columns "
                          "%.1f to %.1f)", lo, hi);
          out->used = (guint64) w.n_sino * w.nv * w.n;   /* rays looked at */
          ctr_calib_curve_export (cc, 1.0, 0.0, out);
        }
      return TRUE;
    }
  out->ok = TRUE;
  out->centre_col = c;
  out->sigma_col = ctr_calib_curve_jackknife (fc);
  out->quality = conj_quality (&w, c);
  ctr_calib_curve_export (cc, 1.0, 0.0, out);
  double num[CONJ_MAX_BLOCKS], den[CONJ_MAX_BLOCKS];
  conj_cost (&w, c, num, den, NULL);
  for (guint b = 0; b < w.nb; b++)
    out->used += (guint64) den[b];
  conj_clear (&w);
  return TRUE;
}
