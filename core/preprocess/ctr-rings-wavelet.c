/* ctr-rings-wavelet.c — wavelet-FFT stripe removal, Münch et al. 2009 (see
 * ctr-rings-wavelet.h). */
#include "preprocess/ctr-rings-wavelet.h"
#include "preprocess/ctr-rings.h"
#include "preprocess/ctr-wavelet.h"
#include "base/ctr-error.h"
#include "base/ctr-fft-lock.h"

#include <fftw3.h>
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXL CTR_RINGS_WAVELET_MAX_LEVEL

/* The sizes of one sinogram's decomposition and the FFT plans of its
 * vertical detail bands, shared by the threads (fftwf_execute_dft_* on
 * each thread's own fftwf_malloc'ed arrays). */
typedef struct {
  CtrWavelet w;
  guint levels;
  gsize shift;                       /* zero views before the data */
  gsize r[MAXL + 1], c[MAXL + 1];    /* level l's image is r[l] × c[l]; l = 0 the padded sinogram */
  gsize max_image, max_scratch, max_r, bands;
  double sigma;
  fftwf_plan fwd[MAXL + 1], inv[MAXL + 1];   /* length r[l], l ≥ 1 */
} Layout;

static void
layout_clear (Layout *lay)
{
  ctr_fft_planner_lock ();
  for (guint l = 1; l <= lay->levels; l++)
    {
      if (lay->fwd[l] != NULL)
        fftwf_destroy_plan (lay->fwd[l]);
      if (lay->inv[l] != NULL)
        fftwf_destroy_plan (lay->inv[l]);
    }
  ctr_fft_planner_unlock ();
}

/* The sizes, then the plans; FALSE (out of memory) when FFTW gives none. */
static gboolean
layout_init (Layout *lay, const CtrProjections *p, guint levels, gboolean pad, GError **error)
{
  const gsize extra = pad ? p->n_views / 8 : 0;
  lay->levels = levels;
  lay->shift = extra / 2;
  lay->r[0] = p->n_views + extra;
  lay->c[0] = p->n_cols;
  lay->max_image = lay->r[0] * lay->c[0];
  lay->max_r = 1;
  lay->bands = 0;
  lay->max_scratch = 0;
  for (guint l = 1; l <= levels; l++)
    {
      lay->r[l] = ctr_dwt_length (lay->r[l - 1], &lay->w);
      lay->c[l] = ctr_dwt_length (lay->c[l - 1], &lay->w);
      lay->max_image = MAX (lay->max_image, lay->r[l] * lay->c[l]);
      lay->max_scratch = MAX (lay->max_scratch, 2 * lay->r[l] * lay->c[l - 1]);
      lay->max_r = MAX (lay->max_r, lay->r[l]);
      lay->bands += 3 * lay->r[l] * lay->c[l];
    }
  float *in = fftwf_malloc (sizeof (float) * lay->max_r);
  fftwf_complex *out = fftwf_malloc (sizeof (fftwf_complex) * (lay->max_r / 2 + 1));
  gboolean ok = in != NULL && out != NULL;
  ctr_fft_planner_lock ();
  for (guint l = 1; ok && l <= levels; l++)
    {
      lay->fwd[l] = fftwf_plan_dft_r2c_1d ((int) lay->r[l], in, out, FFTW_ESTIMATE);
      lay->inv[l] = fftwf_plan_dft_c2r_1d ((int) lay->r[l], out, in, FFTW_ESTIMATE);
      ok = lay->fwd[l] != NULL && lay->inv[l] != NULL;
    }
  ctr_fft_planner_unlock ();
  fftwf_free (in);
  fftwf_free (out);
  if (!ok)
    {
      layout_clear (lay);
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "rings: no memory for the FFT plans");
    }
  return ok;
}

/* One thread's arrays. */
typedef struct {
  double *mem;          /* two images, the bands, the transforms' scratch, the column changes, the damping */
  double *img[2], *bands, *scratch, *colchange, *damp;
  float *fin;
  fftwf_complex *fout;
} Work;

static gboolean
work_init (Work *wk, const Layout *lay, gsize cols)
{
  const gsize n = 2 * lay->max_image + lay->bands + lay->max_scratch + cols + lay->max_r / 2 + 1;
  memset (wk, 0, sizeof *wk);
  wk->mem = g_try_new (double, n);
  wk->fin = fftwf_malloc (sizeof (float) * lay->max_r);
  wk->fout = fftwf_malloc (sizeof (fftwf_complex) * (lay->max_r / 2 + 1));
  if (wk->mem == NULL || wk->fin == NULL || wk->fout == NULL)
    return FALSE;
  wk->img[0] = wk->mem;
  wk->img[1] = wk->img[0] + lay->max_image;
  wk->bands = wk->img[1] + lay->max_image;
  wk->scratch = wk->bands + lay->bands;
  wk->colchange = wk->scratch + lay->max_scratch;
  wk->damp = wk->colchange + cols;
  return TRUE;
}

static void
work_clear (Work *wk)
{
  g_free (wk->mem);
  fftwf_free (wk->fin);
  fftwf_free (wk->fout);
}

/* The vertical detail band @v (r × c, level @l) damped along its rows axis:
 * each column's DFT times 1 − exp(−k²/2σ²) (Münch et al. 2009). */
static void
damp_band (const Layout *lay, guint l, double *v, Work *wk)
{
  const gsize r = lay->r[l], c = lay->c[l], nk = r / 2 + 1;
  for (gsize k = 0; k < nk; k++)
    wk->damp[k] = -expm1 (-(double) (k * k) / (2 * lay->sigma * lay->sigma)) / (double) r;
  for (gsize j = 0; j < c; j++)
    {
      for (gsize i = 0; i < r; i++)
        wk->fin[i] = (float) v[i * c + j];
      fftwf_execute_dft_r2c (lay->fwd[l], wk->fin, wk->fout);
      for (gsize k = 0; k < nk; k++)
        {
          wk->fout[k][0] *= (float) wk->damp[k];
          wk->fout[k][1] *= (float) wk->damp[k];
        }
      fftwf_execute_dft_c2r (lay->inv[l], wk->fout, wk->fin);
      for (gsize i = 0; i < r; i++)
        v[i * c + j] = wk->fin[i];
    }
}

/* One detector row: decompose, damp, reconstruct, write back; the stripes
 * found are flagged in @flag [col]; adds Σ change² to *@sq. */
static guint64
filter_row (CtrProjections *p, guint row, const Layout *lay, Work *wk, double *sq, guint8 *flag)
{
  const gsize V = p->n_views, C = p->n_cols, stride = (gsize) p->n_rows * C, L = lay->levels;
  float *s = p->data + (gsize) row * C;
  double *x = wk->img[0];
  memset (x, 0, sizeof (double) * lay->r[0] * C);
  for (gsize v = 0; v < V; v++)
    for (gsize c = 0; c < C; c++)
      x[(v + lay->shift) * C + c] = s[v * stride + c];
  double *band[MAXL + 1][3];   /* H, V, D of level l */
  double *next = wk->bands;
  for (guint l = 1; l <= L; l++)
    for (int b = 0; b < 3; b++, next += lay->r[l] * lay->c[l])
      band[l][b] = next;
  int cur = 0;
  for (guint l = 0; l < L; l++, cur ^= 1)
    ctr_dwt2 (wk->img[cur], lay->r[l], lay->c[l], &lay->w, wk->img[cur ^ 1], band[l + 1][0], band[l + 1][1],
              band[l + 1][2], wk->scratch);
  for (guint l = 1; l <= L; l++)
    damp_band (lay, l, band[l][1], wk);
  for (guint l = L; l >= 1; l--, cur ^= 1)
    ctr_idwt2 (wk->img[cur], band[l][0], band[l][1], band[l][2], lay->r[l], lay->c[l], &lay->w,
               wk->img[cur ^ 1], lay->r[l - 1], lay->c[l - 1], wk->scratch);
  const double *y = wk->img[cur] + lay->shift * C;
  for (gsize c = 0; c < C; c++)
    wk->colchange[c] = 0;
  for (gsize v = 0; v < V; v++)
    for (gsize c = 0; c < C; c++)
      {
        const float nv = (float) y[v * C + c];
        const double d = (double) nv - s[v * stride + c];
        wk->colchange[c] += d / (double) V;
        *sq += d * d;
        s[v * stride + c] = nv;
      }
  return ctr_rings_flag_stripes (wk->colchange, (guint) C, flag);
}

/* The arguments' checks; FALSE with the error. */
static gboolean
check_arguments (const CtrProjections *p, guint level, const char *wavelet, double sigma, CtrWavelet *w,
                 GError **error)
{
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA, "ring removal works on line integrals, not counts");
      return FALSE;
    }
  if (level < 1 || level > MAXL || !(sigma > 0) || !isfinite (sigma))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "rings (wavelet-fft): the level must be 1 to %d and sigma a positive number", MAXL);
      return FALSE;
    }
  if (!ctr_wavelet_init (wavelet != NULL ? wavelet : CTR_RINGS_WAVELET_DEFAULT_NAME, w))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "rings (wavelet-fft): unknown wavelet “%s” (%s)", wavelet, CTR_WAVELET_NAMES);
      return FALSE;
    }
  return TRUE;
}

gboolean
ctr_rings_remove_wavelet (CtrProjections *p, guint level, const char *wavelet, double sigma, gboolean pad,
                          guint64 *n_stripes, guint *n_columns, double *rms_change, GError **error)
{
  g_return_val_if_fail (p != NULL && p->data != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  Layout lay = { .sigma = sigma };
  if (!check_arguments (p, level, wavelet, sigma, &lay.w, error))
    return FALSE;
  if (!layout_init (&lay, p, level, pad, error))
    return FALSE;
  int threads = 1;
#ifdef _OPENMP
  threads = MAX (1, MIN (omp_get_max_threads (), (int) p->n_rows));
#endif
  Work *work = g_try_new0 (Work, threads);
  guint8 *flags = g_try_malloc0 ((gsize) p->n_rows * p->n_cols);
  gboolean ok = work != NULL && flags != NULL;
  for (int t = 0; ok && t < threads; t++)
    ok = work_init (&work[t], &lay, p->n_cols);
  guint64 found = 0;
  double sq = 0;
  if (ok)
    {
#pragma omp parallel for schedule(dynamic) reduction(+:found, sq) num_threads(threads)
      for (guint row = 0; row < p->n_rows; row++)
        {
          int t = 0;
#ifdef _OPENMP
          t = omp_get_thread_num ();
#endif
          found += filter_row (p, row, &lay, &work[t], &sq, flags + (gsize) row * p->n_cols);
        }
    }
  else
    g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                 "rings (wavelet-fft): no memory for %d threads' arrays of a %" G_GSIZE_FORMAT " × %u sinogram's %u levels",
                 threads, lay.r[0], p->n_cols, level);
  for (int t = 0; work != NULL && t < threads; t++)
    work_clear (&work[t]);
  g_free (work);
  layout_clear (&lay);
  if (ok)
    {
      const guint columns = ctr_rings_count_columns (flags, p->n_rows, p->n_cols);
      if (n_stripes != NULL)
        *n_stripes = found;
      if (n_columns != NULL)
        *n_columns = columns;
      if (rms_change != NULL)
        *rms_change = sqrt (sq / ((double) p->n_views * p->n_rows * p->n_cols));
    }
  g_free (flags);
  return ok;
}
