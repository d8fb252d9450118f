/* ctr-area-sweep.c — the area model's back-projection by a sweep over the
 * pixels (see ctr-area-sweep.h).
 *
 * Views are taken in blocks of BLOCK.  For a block the threads first make
 * the closed form of every ray (ctr_area_ray_init), then each thread sweeps
 * its own band of image rows, view by view (that view's rays stay in cache).
 * In a row, the detector coordinate φ of every pixel corner is computed once
 * (the bottom edge of a row is the top of the next): φ = u for parallel beam
 * and a flat detector, φ = tan γ for a curved one, so that φ is a ratio of
 * linear functions of the point and a pixel's square projects onto
 * [min φ, max φ] of its corners.  The bins whose strips it meets are found
 * against the bins' edges in φ (B[j] = φ of column j − ½), walking from the
 * previous pixel's.
 */
#include "sysmat/ctr-area-sweep.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <string.h>

#ifdef CTR_AREA_HAVE_AVX2
#define SWEEP_HAVE_AVX2 1
#endif

/* Views of one block. */
#define BLOCK 8
/* Bins weighed at once for one pixel. */
#define WCHUNK 8

/* The parameters of a CtrAreaRay, one array each (structure of arrays) for
 * the four-bins-at-a-time weights. */
enum {
  P_NX0, P_NY0, P_K0, P_A0, P_B0, P_I80, P_I20,
  P_NX1, P_NY1, P_K1, P_A1, P_B1, P_I81, P_I21,
  P_S0, P_S1, P_DM0, P_DM1, P_W0, P_WPM, N_PARAM
};

struct CtrAreaSweep {
  const CtrGeometry *g;
  CtrRayGrid gi;
  guint nc, nv, ns, nt;
  guint64 np, nr;
  double full, min_side, hx, hy;
  double eps;            /* φ margin: a millionth of the narrowest bin */
  double *edge;          /* [nc + 1] B[j]: φ of column j − ½, increasing */
  CtrAreaRay *rays;      /* [BLOCK][nc] the block's rays */
  double *phi;           /* [nt][2][nx + 1] two rows of corners a thread */
  float *w_rows;         /* [nt][nc + 8] a view's data, padded with zeros */
  double *soa;           /* [BLOCK][N_PARAM][nc + 4] the block's rays, by parameter */
  gboolean avx2;         /* the weights four bins at a time */
};

guint64
ctr_area_sweep_bytes (guint n_cols, guint nx, guint n_threads)
{
  return (guint64) (n_cols + 1) * sizeof (double) + (guint64) BLOCK * n_cols * sizeof (CtrAreaRay)
         + (guint64) BLOCK * N_PARAM * (n_cols + 4) * sizeof (double)
         + (guint64) n_threads * 2 * (nx + 1) * sizeof (double)
         + (guint64) n_threads * (n_cols + 8) * sizeof (float);
}

void
ctr_area_sweep_free (CtrAreaSweep *s)
{
  if (s == NULL)
    return;
  g_free (s->edge);
  g_free (s->rays);
  g_free (s->phi);
  g_free (s->w_rows);
  g_free (s->soa);
  g_free (s);
}

/* φ of continuous column @col (see the top of the file). */
static double
col_phi (const CtrGeometry *g, double col)
{
  const double u = ctr_geometry_col_u (g, col);
  return g->beam == CTR_BEAM_FAN && g->shape == CTR_DETECTOR_CURVED ? tan (u) : u;
}

/* TRUE when every corner of the grid is in front of every view's source
 * (fan beam), so that φ is finite and monotone over the grid. */
static gboolean
grid_in_front (const CtrAreaSweep *s)
{
  const CtrGeometry *g = s->g;
  if (g->beam != CTR_BEAM_FAN)
    return TRUE;
  const double xs[2] = { s->gi.xmin, s->gi.xmax }, ys[2] = { s->gi.ymin, s->gi.ymax };
  for (guint v = 0; v < s->nv; v++)
    {
      const double sb = sin (g->angles[v]), cb = cos (g->angles[v]);
      for (int i = 0; i < 4; i++)
        if (-(xs[i & 1] - g->sod_mm * sb) * sb + (ys[i >> 1] + g->sod_mm * cb) * cb <= 1e-9 * g->sod_mm)
          return FALSE;
    }
  return TRUE;
}

/* TRUE when every ray has the closed form. */
static gboolean
all_rays_closed (const CtrAreaSweep *s)
{
  const gint64 n = (gint64) s->nr;
  gboolean ok = TRUE;
#pragma omp parallel for num_threads(s->nt) schedule(static) reduction(&& : ok)
  for (gint64 i = 0; i < n; i++)
    {
      CtrAreaRay r;
      ok = ok && ctr_area_ray_init (s->g, &s->gi, (guint) (i / s->nc), (guint) (i % s->nc), &r);
    }
  return ok;
}

CtrAreaSweep *
ctr_area_sweep_new (const CtrGeometry *g, const CtrRayGrid *gi, guint n_slices, guint n_threads, GError **error)
{
  g_return_val_if_fail (g != NULL && gi != NULL && n_threads >= 1, NULL);
  if (g->vectors != NULL || (g->beam != CTR_BEAM_FAN && g->beam != CTR_BEAM_PARALLEL))
    return NULL;
  if (g->beam == CTR_BEAM_FAN && g->shape == CTR_DETECTOR_CURVED
      && (fabs (ctr_geometry_col_u (g, -0.5)) >= G_PI_2 * 0.99 || fabs (ctr_geometry_col_u (g, g->n_cols - 0.5)) >= G_PI_2 * 0.99))
    return NULL;
  const guint64 bytes = ctr_area_sweep_bytes (g->n_cols, gi->nx, n_threads);
  CtrAreaSweep *s = g_new0 (CtrAreaSweep, 1);
  s->g = g;
  s->gi = *gi;
  s->nc = g->n_cols;
  s->nv = g->n_views;
  s->ns = n_slices;
  s->nt = n_threads;
  s->np = (guint64) gi->nx * gi->ny;
  s->nr = (guint64) s->nv * s->nc;
  s->hx = 0.5 * gi->dx;
  s->hy = 0.5 * gi->dy;
  s->full = gi->dx * gi->dy;
  s->min_side = MIN (gi->dx, gi->dy);
  s->edge = g_try_new (double, (gsize) s->nc + 1);
  s->rays = g_try_new (CtrAreaRay, (gsize) BLOCK * s->nc);
  s->phi = g_try_new (double, (gsize) n_threads * 2 * (gi->nx + 1));
  s->w_rows = g_try_new0 (float, (gsize) n_threads * (s->nc + 8));
  s->soa = g_try_new0 (double, (gsize) BLOCK * N_PARAM * (s->nc + 4));
  if (!s->edge || !s->rays || !s->phi || !s->w_rows || !s->soa)
    {
      ctr_memory_set_error (error, bytes, "the on-the-fly pixel sweep's tables");
      ctr_area_sweep_free (s);
      return NULL;
    }
  double gap = G_MAXDOUBLE;
  for (guint j = 0; j <= s->nc; j++)
    {
      s->edge[j] = col_phi (g, j - 0.5);
      if (j > 0)
        gap = MIN (gap, s->edge[j] - s->edge[j - 1]);
    }
  s->eps = 1e-6 * gap;
#ifdef SWEEP_HAVE_AVX2
  s->avx2 = ctr_area_use_avx2 ();
#endif
  if (!(gap > 0) || !grid_in_front (s) || !all_rays_closed (s))
    {
      ctr_area_sweep_free (s);
      return NULL;
    }
  return s;
}

/* ------------------------------------------------------------ the sweep -- */

/* What one view of a block needs to project a point: φ(x, y). */
typedef struct {
  double cb, sb;      /* the view's angle */
  double sx, sy;      /* fan: the source */
  double sdd;         /* flat fan: φ = sdd·t/a; curved: φ = t/a */
  gboolean fan;
} ViewFrame;

static void
view_frame (const CtrGeometry *g, guint v, ViewFrame *f)
{
  f->sb = sin (g->angles[v]);
  f->cb = cos (g->angles[v]);
  f->fan = g->beam == CTR_BEAM_FAN;
  f->sx = g->sod_mm * f->sb;
  f->sy = -g->sod_mm * f->cb;
  f->sdd = g->shape == CTR_DETECTOR_CURVED ? 1.0 : g->sdd_mm;
}

/* φ of the corners of one edge (y) of a pixel row: out[0..nx]. */
static void
row_phi (const CtrAreaSweep *s, const ViewFrame *f, double y, double *out)
{
  const CtrRayGrid *gi = &s->gi;
  if (!f->fan)
    {
      for (guint i = 0; i <= gi->nx; i++)
        out[i] = (gi->xmin + i * gi->dx) * f->cb + y * f->sb;
      return;
    }
  const double qy = y - f->sy;
  for (guint i = 0; i <= gi->nx; i++)
    {
      const double qx = gi->xmin + i * gi->dx - f->sx;
      const double a = -qx * f->sb + qy * f->cb, t = qx * f->cb + qy * f->sb;
      out[i] = f->sdd * t / a;
    }
}

/* The column j with B[j] <= φ < B[j + 1] by bisection; −1 below the
 * detector, nc above it. */
static long
locate_bisect (const CtrAreaSweep *s, double phi)
{
  if (phi < s->edge[0])
    return -1;
  long lo = 0, hi = s->nc;     /* B[lo] <= φ; answer < hi */
  if (phi >= s->edge[hi])
    return hi;
  while (hi - lo > 1)
    {
      const long mid = (lo + hi) / 2;
      if (phi >= s->edge[mid])
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* The same, walking from @j (the previous pixel's). */
static inline long
locate (const CtrAreaSweep *s, double phi, long j)
{
  const long nc = s->nc;
  j = CLAMP (j, 0, nc - 1);
  while (j >= 0 && phi < s->edge[j])
    j--;
  if (j < 0)
    return -1;
  while (j < nc && phi >= s->edge[j + 1])
    j++;
  return j;
}

/* Packs ray @r as bin @j of the block's view @k into the parameter arrays. */
static void
pack_ray (CtrAreaSweep *s, guint k, guint j, const CtrAreaRay *r)
{
  double *P = s->soa + (gsize) k * N_PARAM * (s->nc + 4) + j;
  const gsize n = s->nc + 4;
  for (int e = 0; e < 2; e++)
    {
      const CtrAreaEdge *d = &r->e[e];
      const int b = e ? P_NX1 : P_NX0;
      P[(b + 0) * n] = d->nx;
      P[(b + 1) * n] = d->ny;
      P[(b + 2) * n] = d->k;
      P[(b + 3) * n] = d->a;
      P[(b + 4) * n] = d->b;
      P[(b + 5) * n] = d->inv_8ab;
      P[(b + 6) * n] = d->inv_2a;
    }
  P[P_S0 * n] = r->s[0];
  P[P_S1 * n] = r->s[1];
  P[P_DM0 * n] = r->dm[0];
  P[P_DM1 * n] = r->dm[1];
  P[P_W0 * n] = r->width0;
  P[P_WPM * n] = r->width_per_mm;
}

/* The weights of bins j0 … j0 + n − 1 of the block's view @k for the pixel
 * centred at (xc, yc) into w[0 … n) (ctr_area_ray_weight each). */
static void
weights_scalar (const CtrAreaSweep *s, guint k, long j0, long n, double xc, double yc, float *w)
{
  const CtrAreaRay *rays = s->rays + (gsize) k * s->nc;
  for (long q = 0; q < n; q++)
    w[q] = ctr_area_ray_weight (&rays[j0 + q], s->full, s->min_side, xc, yc);
}

#ifdef SWEEP_HAVE_AVX2
/* Four bins' weights (float) for the pixel centred at (x, y): bins j0 …
 * j0 + 3 of the block's view @k, lanes at or beyond @n zero. */
__attribute__ ((target ("avx2"), always_inline)) static inline __m128
weights4 (const CtrAreaSweep *s, guint k, long j0, long n, __m256d x, __m256d y)
{
  const gsize stride = s->nc + 4;
  const double *P = s->soa + (gsize) k * N_PARAM * stride + j0;
#define LD(i) _mm256_loadu_pd (P + (gsize) (i) * stride)
  const CtrAreaRay4 r = {
    { { LD (P_NX0), LD (P_NY0), LD (P_K0), LD (P_A0), LD (P_B0), LD (P_I80), LD (P_I20) },
      { LD (P_NX1), LD (P_NY1), LD (P_K1), LD (P_A1), LD (P_B1), LD (P_I81), LD (P_I21) } },
    LD (P_S0), LD (P_S1), LD (P_DM0), LD (P_DM1), LD (P_W0), LD (P_WPM)
  };
#undef LD
  const __m256d w = ctr_area_ray_weight4 (&r, _mm256_set1_pd (s->full), _mm256_set1_pd (1e-6 * s->min_side), x, y);
  const __m256d lane = _mm256_cmp_pd (_mm256_set_pd (3, 2, 1, 0), _mm256_set1_pd ((double) n), _CMP_LT_OQ);
  return _mm256_cvtpd_ps (_mm256_and_pd (w, lane));
}
#endif

/* The bins [j0, j1] pixel @ix of a row meets, from the φ of its corners on
 * the row's @top and @bot edges; @j_lo, @j_hi: the previous pixel's, walked
 * on. */
static inline void
pixel_range (const CtrAreaSweep *s, const double *top, const double *bot, guint ix, long *j_lo, long *j_hi,
             long *j0, long *j1)
{
  const double lo = MIN (MIN (top[ix], top[ix + 1]), MIN (bot[ix], bot[ix + 1]));
  const double hi = MAX (MAX (top[ix], top[ix + 1]), MAX (bot[ix], bot[ix + 1]));
  *j_lo = ix == 0 ? locate_bisect (s, lo - s->eps) : locate (s, lo - s->eps, *j_lo);
  *j_hi = ix == 0 ? locate_bisect (s, hi + s->eps) : locate (s, hi + s->eps, *j_hi);
  *j0 = MAX (*j_lo, 0);
  *j1 = MIN (*j_hi, (long) s->nc - 1);
}

/* One image row, one view (the block's @k-th, data view @v), any number of
 * slices: D[sl][p] += Σ_j w_j W[sl][v·nc + j], bins in increasing order. */
static void
row_generic (const CtrAreaSweep *s, guint k, guint v, guint row, const double *top, const double *bot, guint ns,
             const float *W, float *D)
{
  const CtrRayGrid *gi = &s->gi;
  const double yc = gi->ymax - row * gi->dy - s->hy;
  long j_lo = 0, j_hi = 0, j0, j1;
  for (guint ix = 0; ix < gi->nx; ix++)
    {
      pixel_range (s, top, bot, ix, &j_lo, &j_hi, &j0, &j1);
      if (j0 > j1)
        continue;
      const double xc = gi->xmin + ix * gi->dx + s->hx;
      const gsize p = (gsize) row * gi->nx + ix;
      float wt[WCHUNK];
      for (long c0 = j0; c0 <= j1; c0 += WCHUNK)
        {
          const long n = MIN (WCHUNK, j1 + 1 - c0);
          weights_scalar (s, k, c0, n, xc, yc, wt);
          for (guint sl = 0; sl < ns; sl++)
            {
              const float *w_in = W + sl * s->nr + (gsize) v * s->nc + c0;
              float acc = 0.f;
              for (long q = 0; q < n; q++)
                acc += wt[q] * w_in[q];
              D[sl * s->np + p] += acc;
            }
        }
    }
}

#ifdef SWEEP_HAVE_AVX2
/* row_generic for one slice, four bins at a time; @w_row: the view's data,
 * padded with zeros to n_cols + 8. */
__attribute__ ((target ("avx2"))) static void
row_avx2 (const CtrAreaSweep *s, guint k, guint row, const double *top, const double *bot, const float *w_row,
          float *D)
{
  const CtrRayGrid *gi = &s->gi;
  const __m256d y = _mm256_set1_pd (gi->ymax - row * gi->dy - s->hy);
  long j_lo = 0, j_hi = 0, j0, j1;
  float *d = D + (gsize) row * gi->nx;
  for (guint ix = 0; ix < gi->nx; ix++)
    {
      pixel_range (s, top, bot, ix, &j_lo, &j_hi, &j0, &j1);
      if (j0 > j1)
        continue;
      const __m256d x = _mm256_set1_pd (gi->xmin + ix * gi->dx + s->hx);
      __m128 acc = _mm_setzero_ps ();
      for (long c0 = j0; c0 <= j1; c0 += 4)
        acc = _mm_add_ps (acc, _mm_mul_ps (weights4 (s, k, c0, j1 + 1 - c0, x, y), _mm_loadu_ps (w_row + c0)));
      acc = _mm_add_ps (acc, _mm_movehl_ps (acc, acc));
      acc = _mm_add_ss (acc, _mm_shuffle_ps (acc, acc, 1));
      d[ix] += _mm_cvtss_f32 (acc);
    }
}
#endif

/* Whether a product of @ns slices runs row_avx2 (one slice, AVX2). */
static inline gboolean
four_lanes (const CtrAreaSweep *s, guint ns)
{
  return s->avx2 && ns == 1;
}

/* The block's view @k (data view @v) over image rows [r0, r1), with the
 * thread's scratch: two rows of corner φ and a padded data row. */
static void
sweep_view (const CtrAreaSweep *s, guint k, guint v, guint r0, guint r1, double *phi, float *w_row, guint ns,
            const float *W, float *D)
{
  const CtrRayGrid *gi = &s->gi;
  ViewFrame f;
  view_frame (s->g, v, &f);
  double *top = phi, *bot = phi + gi->nx + 1;
  row_phi (s, &f, gi->ymax - r0 * gi->dy, top);
#ifdef SWEEP_HAVE_AVX2
  const gboolean vec = four_lanes (s, ns);
  if (vec)
    memcpy (w_row, W + (gsize) v * s->nc, s->nc * sizeof (float));
#endif
  for (guint row = r0; row < r1; row++)
    {
      row_phi (s, &f, gi->ymax - (row + 1) * gi->dy, bot);
#ifdef SWEEP_HAVE_AVX2
      if (vec)
        row_avx2 (s, k, row, top, bot, w_row, D);
      else
#endif
        row_generic (s, k, v, row, top, bot, ns, W, D);
      double *t = top;
      top = bot;
      bot = t;
    }
}

void
ctr_area_sweep_adjoint (CtrAreaSweep *s, const gint32 *views, guint n_views, guint ns, const float *W, float *D)
{
  g_return_if_fail (ns >= 1 && ns <= s->ns);
  const guint nc = s->nc, nt = s->nt;
  /* the four-lane rows read the rays by parameter, the others whole */
  const gboolean by_parameter = four_lanes (s, ns);
#pragma omp parallel num_threads(nt)
  {
    const guint t = (guint) omp_get_thread_num ();
    /* the thread's band of rows: the same every call */
    const guint r0 = (guint) ((guint64) s->gi.ny * t / nt), r1 = (guint) ((guint64) s->gi.ny * (t + 1) / nt);
    double *phi = s->phi + (gsize) t * 2 * (s->gi.nx + 1);
    float *w_row = s->w_rows + (gsize) t * (nc + 8);
    for (guint b0 = 0; b0 < n_views; b0 += BLOCK)
      {
        const guint nb = MIN (BLOCK, n_views - b0);
#define VIEW(k) (views != NULL ? (guint) views[b0 + (k)] : b0 + (k))
#pragma omp for schedule(static)
        for (gint64 q = 0; q < (gint64) nb * nc; q++)
          {
            CtrAreaRay *r = &s->rays[q];
            ctr_area_ray_init (s->g, &s->gi, VIEW (q / nc), (guint) (q % nc), r);
            if (by_parameter)
              pack_ray (s, (guint) (q / nc), (guint) (q % nc), r);
          }
        for (guint k = 0; k < nb; k++)
          sweep_view (s, k, VIEW (k), r0, r1, phi, w_row, ns, W, D);
#undef VIEW
#pragma omp barrier
      }
  }
}
