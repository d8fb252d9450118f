/* ctr-calib-tilt.c — the detector's in-plane tilt from the views 180°
 * apart, registered in two dimensions (ctr-calib-private.h).
 *
 * On a detector turned in its plane by t (data/ctr-detector-tilt.h), the
 * view at θ + 180° is the view at θ reflected about the axis's image, a
 * line leaning by t from the detector's v direction: pixel x of the
 * second view holds what the first holds at x″ = 2 (x·d) d − x, with x
 * measured from a point of the axis's image and d = (sin t, cos t) in mm.
 * Row r of the one is then not row r of the other but a line sloped by
 * 2t, so registering row by row (the centre per row, then a line through
 * them) compares different slices of an object that changes along z and
 * pulls the tilt towards 0.  Here the whole views are compared instead:
 * the centre c (the axis's column on the middle row) and t minimise
 * Σ (a(x″) − b(x))² / N over the pairs' pixels whose mirror lies on the
 * detector (both views smoothed by a binomial, a read bilinearly), found
 * on a grid of t, then by quadratic
 * fits to 3 × 3 stencils of (c, t).  Its uncertainty: the delete-one-block
 * jackknife over blocks of rows of the final stencil's quadratic fits. */
#include "calib/ctr-calib-private.h"
#include "base/ctr-memory.h"
#include "data/ctr-detector-tilt.h"

#include <math.h>

#define TILT_MAX_PAIRS 8
#define TILT_MAX_ROWS 64
#define TILT_MAX_COLS 512
#define TILT_BLOCKS 4
#define TILT_GRID_STEP (0.25 * G_PI / 180)    /* the first search's step in t */
#define TILT_GRID_HALF (5.0 * G_PI / 180)     /* … and its half width at least */
#define TILT_MIN_STEP_T (0.05 * G_PI / 180)   /* the final stencil's steps */
#define TILT_MIN_STEP_C 0.25
#define TILT_MAX_ITER 16

typedef struct {
  const CtrProjections *p;
  float *views;             /* the pairs' views smoothed, [2 · n_pairs][row][col] */
  guint pairs[2 * TILT_MAX_PAIRS], n_pairs;
  guint rows[TILT_MAX_ROWS], n_rows;
  guint col_step;
  double row_mid, pu, pv;   /* pv carries the sign of the rows' direction along v */
} Tilt;

/* The cost's sums per row block at (c, t): @sum[b] and @count[b]. */
static void
tilt_sums (const Tilt *w, double c, double t, double *sum, double *count)
{
  const guint n = w->p->n_cols, nr = w->p->n_rows;
  const double st = sin (t), ct = cos (t);
  for (guint b = 0; b < TILT_BLOCKS; b++)
    sum[b] = count[b] = 0;
  for (guint ri = 0; ri < w->n_rows; ri++)
    {
      const guint blk = ri * TILT_BLOCKS / w->n_rows;
      const double dv = (w->rows[ri] - w->row_mid) * w->pv;
      for (guint j = 0; j < n; j += w->col_step)
        {
          const double du = (j - c) * w->pu, s = du * st + dv * ct;
          const double x = c + (2 * s * st - du) / w->pu, y = w->row_mid + (2 * s * ct - dv) / w->pv;
          if (!(x >= 0 && x <= n - 1.0 && y >= 0 && y <= nr - 1.0))
            continue;
          const guint x0 = MIN ((guint) x, n - 2), y0 = MIN ((guint) y, nr - 2);
          const double fx = x - x0, fy = y - y0;
          for (guint q = 0; q < w->n_pairs; q++)
            {
              const float *a = w->views + (2 * q) * (gsize) nr * n + (gsize) y0 * n + x0;
              const float *bv = w->views + (2 * q + 1) * (gsize) nr * n;
              const double v = (1 - fy) * ((1 - fx) * a[0] + fx * a[1]) + fy * ((1 - fx) * a[n] + fx * a[n + 1]);
              const double d = v - bv[(gsize) w->rows[ri] * n + j];
              sum[blk] += d * d;
            }
          count[blk] += w->n_pairs;
        }
    }
}

static double
tilt_cost (const Tilt *w, double c, double t)
{
  double sum[TILT_BLOCKS], count[TILT_BLOCKS], s = 0, k = 0;
  tilt_sums (w, c, t, sum, count);
  for (guint b = 0; b < TILT_BLOCKS; b++)
    {
      s += sum[b];
      k += count[b];
    }
  return k > 0 ? s / k : INFINITY;
}

/* The minimum (x, y) ∈ stencil units of the least-squares quadratic through
 * the 3 × 3 values @f[ix][iy] (ix, iy = 0, 1, 2 for −1, 0, +1); FALSE when
 * the quadratic has no minimum. */
static gboolean
quad_min (const double f[3][3], double *x, double *y)
{
  double sx[3] = { 0, 0, 0 }, sy[3] = { 0, 0, 0 };
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      {
        sx[i] += f[i][k];
        sy[k] += f[i][k];
      }
  const double bx = (sx[2] - sx[0]) / 6, by = (sy[2] - sy[0]) / 6;
  const double dxx = (sx[2] + sx[0] - 2 * sx[1]) / 3, dyy = (sy[2] + sy[0] - 2 * sy[1]) / 3;   /* second derivatives */
  const double dxy = (f[2][2] - f[2][0] - f[0][2] + f[0][0]) / 4;
  const double det = dxx * dyy - dxy * dxy;
  if (!(dxx > 0 && det > 0))
    return FALSE;
  *x = (-bx * dyy + by * dxy) / det;
  *y = (-by * dxx + bx * dxy) / det;
  return isfinite (*x) && isfinite (*y);
}

/* The stencil's quadratic minimum without block @skip (−1: all). */
static gboolean
stencil_min (double sum[3][3][TILT_BLOCKS], double count[3][3][TILT_BLOCKS], int skip, double *x, double *y)
{
  double f[3][3];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      {
        double s = 0, n = 0;
        for (int b = 0; b < TILT_BLOCKS; b++)
          if (b != skip)
            {
              s += sum[i][k][b];
              n += count[i][k][b];
            }
        if (!(n > 0))
          return FALSE;
        f[i][k] = s / n;
      }
  return quad_min (f, x, y);
}

/* @src [rows][cols] smoothed by the binomial (1 4 6 4 1)/16 along both
 * axes (edges repeated) into @dst, @tmp scratch of the same size: noise
 * read by bilinear interpolation loses more variance half-way between
 * pixels than on them, which would pull the cost's minimum towards
 * samples falling between pixels; smoothed first, the noise is correlated
 * over a pixel and the interpolation changes its variance far less. */
static void
smooth (const float *src, guint rows, guint cols, float *tmp, float *dst)
{
  static const double k[5] = { 1 / 16.0, 4 / 16.0, 6 / 16.0, 4 / 16.0, 1 / 16.0 };
  for (guint i = 0; i < rows; i++)
    for (guint j = 0; j < cols; j++)
      {
        double v = 0;
        for (int d = -2; d <= 2; d++)
          v += k[d + 2] * src[(gsize) i * cols + CLAMP ((int) j + d, 0, (int) cols - 1)];
        tmp[(gsize) i * cols + j] = (float) v;
      }
  for (guint i = 0; i < rows; i++)
    for (guint j = 0; j < cols; j++)
      {
        double v = 0;
        for (int d = -2; d <= 2; d++)
          v += k[d + 2] * tmp[(gsize) CLAMP ((int) i + d, 0, (int) rows - 1) * cols + j];
        dst[(gsize) i * cols + j] = (float) v;
      }
}

static void
tilt_setup (Tilt *w, const CtrGeometry *g, const CtrProjections *p, const guint *pairs, guint n_pairs)
{
  w->p = p;
  w->n_pairs = MIN (n_pairs, TILT_MAX_PAIRS);
  for (guint i = 0; i < w->n_pairs; i++)
    {
      const guint q = (guint) (((2 * i + 1) * (guint64) n_pairs) / (2 * w->n_pairs));
      w->pairs[2 * i] = pairs[2 * q];
      w->pairs[2 * i + 1] = pairs[2 * q + 1];
    }
  w->n_rows = ctr_calib_pick_rows (p->n_rows, TILT_MAX_ROWS, w->rows);
  w->col_step = (p->n_cols + TILT_MAX_COLS - 1) / TILT_MAX_COLS;
  w->row_mid = (p->n_rows - 1) / 2.0;
  w->pu = g->pitch_u;
  w->pv = g->pitch_v_mm * (g->rows_increase_with_v ? 1.0 : -1.0);
}

gboolean
ctr_calib_tilt_fit (const CtrGeometry *g, const CtrProjections *p, const guint *pairs, guint n_pairs,
                    double centre, double tilt0, double *tilt, double *sigma_tilt, double *centre_out)
{
  *tilt = *sigma_tilt = *centre_out = NAN;
  if (p->n_rows < 3 || n_pairs == 0 || !isfinite (centre))
    return FALSE;
  Tilt w;
  tilt_setup (&w, g, p, pairs, n_pairs);
  const gsize plane = (gsize) p->n_rows * p->n_cols;
  g_autofree float *tmp = g_try_malloc (sizeof (float) * plane);
  g_autofree float *views = tmp == NULL ? NULL : g_try_malloc (sizeof (float) * plane * 2 * w.n_pairs);
  if (views == NULL)
    return FALSE;
  for (guint v = 0; v < 2 * w.n_pairs; v++)
    smooth (ctr_projections_view (p, w.pairs[v]), p->n_rows, p->n_cols, tmp, views + v * plane);
  w.views = views;
  /* a grid of t at the registered centre */
  tilt0 = isfinite (tilt0) ? CLAMP (tilt0, -CTR_DETECTOR_MAX_TILT_RAD, CTR_DETECTOR_MAX_TILT_RAD) : 0.0;
  const double half = MIN (MAX (TILT_GRID_HALF, fabs (tilt0) + 3 * TILT_GRID_STEP), CTR_DETECTOR_MAX_TILT_RAD);
  const int ng = (int) floor (half / TILT_GRID_STEP);
  double t = 0, best = INFINITY;
  for (int i = -ng; i <= ng; i++)
    {
      const double f = tilt_cost (&w, centre, i * TILT_GRID_STEP);
      if (f < best)
        {
          best = f;
          t = i * TILT_GRID_STEP;
        }
    }
  if (!isfinite (best))
    return FALSE;
  /* 3 × 3 stencils, moved to their quadratic's minimum, shrunk as it settles */
  double c = centre, hc = 2 * TILT_MIN_STEP_C, ht = TILT_GRID_STEP / 2;
  double sum[3][3][TILT_BLOCKS], count[3][3][TILT_BLOCKS];
  for (guint it = 0; it < TILT_MAX_ITER; it++)
    {
      double f[3][3];
      int bi = 1, bk = 1;
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
          {
            tilt_sums (&w, c + (i - 1) * hc, t + (k - 1) * ht, sum[i][k], count[i][k]);
            double s = 0, n = 0;
            for (int b = 0; b < TILT_BLOCKS; b++)
              {
                s += sum[i][k][b];
                n += count[i][k][b];
              }
            f[i][k] = n > 0 ? s / n : INFINITY;
            if (f[i][k] < f[bi][bk])
              {
                bi = i;
                bk = k;
              }
          }
      double x, y;
      const gboolean at_min_step = hc <= TILT_MIN_STEP_C && ht <= TILT_MIN_STEP_T;
      if (!quad_min (f, &x, &y) || fabs (x) > 1 || fabs (y) > 1)
        {
          if (bi == 1 && bk == 1)   /* no quadratic minimum, yet the middle is the least: the cost is flat */
            return FALSE;
          c += (bi - 1) * hc;
          t += (bk - 1) * ht;
          continue;
        }
      if (at_min_step && fabs (x) <= 0.5 && fabs (y) <= 0.5)
        {
          /* the answer, and its jackknife over the row blocks of this stencil */
          double xs[TILT_BLOCKS], ys[TILT_BLOCKS], mean = 0;
          for (int b = 0; b < TILT_BLOCKS; b++)
            {
              if (!stencil_min (sum, count, b, &xs[b], &ys[b]))
                return FALSE;
              mean += ys[b] / TILT_BLOCKS;
            }
          double ss = 0;
          for (int b = 0; b < TILT_BLOCKS; b++)
            ss += (ys[b] - mean) * (ys[b] - mean);
          *tilt = t + y * ht;
          *centre_out = c + x * hc;
          *sigma_tilt = sqrt ((TILT_BLOCKS - 1.0) / TILT_BLOCKS * ss) * ht;
          return fabs (*tilt) <= CTR_DETECTOR_MAX_TILT_RAD;
        }
      c += x * hc;
      t += y * ht;
      if (fabs (x) <= 0.5 && fabs (y) <= 0.5)
        {
          hc = MAX (hc / 2, TILT_MIN_STEP_C);
          ht = MAX (ht / 2, TILT_MIN_STEP_T);
        }
    }
  return FALSE;
}
