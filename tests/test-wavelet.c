/* test-wavelet.c — the Daubechies DWT (core/preprocess/ctr-wavelet.h) and
 * the wavelet-FFT ring removal (ctr-rings-wavelet.h) on made-up data; the
 * comparison with PyWavelets is tests/cli/test_wavelet_fft.py.
 *
 * Exact properties:
 *   - every filter db1 … db10 is Daubechies' orthonormal scaling filter:
 *     Σ h = √2, Σ_k h[k] h[k + 2m] = δ_m (1e-12), and N vanishing moments
 *     of the high pass, Σ_k k^p g[k] = 0 for p < N (1e-8 relative);
 *   - perfect reconstruction, 1-D and 2-D, one level and many, for lengths
 *     shorter and longer than the filter, odd and even: the round trip of
 *     random data within 1e-5 of its largest value (measured ~1e-15);
 *   - a constant has no detail coefficients (symmetric
 *     extension keeps a constant constant): |d| < 1e-12;
 *   - wavelet-fft removes a one-column stripe of 0.3 but for its low pass
 *     across the columns, spread over about 2^level columns: at most
 *     1/2^(level−1) of it stays at its column (levels 1, 3, 5); it is
 *     linear (f(object + stripe) = f(object) + f(stripe), 1e-5); it leaves a
 *     constant sinogram (no stripe) unchanged (< 1e-5), and refuses bad
 *     arguments (the data then unchanged).
 */
#include <math.h>
#include <string.h>
#include "ctrecon.h"
#include "preprocess/ctr-wavelet.h"
#include "preprocess/ctr-rings-wavelet.h"

static void
test_filters (void)
{
  for (int n = 1; n <= 10; n++)
    {
      g_autofree char *name = g_strdup_printf ("db%d", n);
      CtrWavelet w;
      g_assert_true (ctr_wavelet_init (name, &w));
      g_assert_cmpuint (w.length, ==, 2 * (guint) n);
      double sum = 0;
      for (guint k = 0; k < w.length; k++)
        sum += w.rlo[k];
      g_assert_cmpfloat_with_epsilon (sum, G_SQRT2, 1e-12);
      for (guint m = 0; 2 * m < w.length; m++)
        {
          double dot = 0;
          for (guint k = 0; k + 2 * m < w.length; k++)
            dot += w.rlo[k] * w.rlo[k + 2 * m];
          g_assert_cmpfloat_with_epsilon (dot, m == 0 ? 1.0 : 0.0, 1e-12);
        }
      for (int p = 0; p < n; p++)
        {
          double mom = 0, scale = 0;
          for (guint k = 0; k < w.length; k++)
            {
              mom += pow (k, p) * w.hi[k];
              scale += pow (k, p) * fabs (w.hi[k]);
            }
          g_assert_cmpfloat (fabs (mom), <, 1e-8 * scale);
        }
    }
  CtrWavelet w;
  g_assert_true (ctr_wavelet_init ("haar", &w));
  g_assert_cmpstr (w.name, ==, "db1");
  g_assert_false (ctr_wavelet_init ("db11", &w));
  g_assert_false (ctr_wavelet_init ("db0", &w));
  g_assert_false (ctr_wavelet_init ("db5x", &w));
  g_assert_false (ctr_wavelet_init ("sym4", &w));
  g_assert_false (ctr_wavelet_init (NULL, &w));
}

static void
test_round_trip_1d (void)
{
  static const gsize lengths[] = { 1, 2, 3, 5, 9, 10, 17, 64, 91, 160 };
  g_autoptr (GRand) rand = g_rand_new_with_seed (34);
  for (int n = 1; n <= 10; n++)
    {
      g_autofree char *name = g_strdup_printf ("db%d", n);
      CtrWavelet w;
      g_assert_true (ctr_wavelet_init (name, &w));
      for (guint t = 0; t < G_N_ELEMENTS (lengths); t++)
        {
          const gsize N = lengths[t], M = ctr_dwt_length (N, &w);
          g_assert_cmpuint (M, ==, (N + w.length - 1) / 2);
          g_autofree double *x = g_new (double, N), *y = g_new (double, N);
          g_autofree double *a = g_new (double, M), *d = g_new (double, M);
          for (gsize i = 0; i < N; i++)
            x[i] = g_rand_double_range (rand, -1, 1);
          ctr_dwt (x, N, 1, &w, a, d, 1);
          ctr_idwt (a, d, M, 1, &w, y, N, 1);
          for (gsize i = 0; i < N; i++)
            g_assert_cmpfloat (fabs (y[i] - x[i]), <, 1e-5);
          for (gsize i = 0; i < N; i++)
            x[i] = 2.5;
          ctr_dwt (x, N, 1, &w, a, d, 1);
          for (gsize i = 0; i < M; i++)
            g_assert_cmpfloat (fabs (d[i]), <, 1e-12);
        }
    }
}

/* @levels of ctr_dwt2 and back on random @rows × @cols. */
static void
round_trip_2d (const char *name, gsize rows, gsize cols, guint levels, GRand *rand)
{
  CtrWavelet w;
  g_assert_true (ctr_wavelet_init (name, &w));
  gsize r[17] = { rows }, c[17] = { cols };
  for (guint l = 1; l <= levels; l++)
    {
      r[l] = ctr_dwt_length (r[l - 1], &w);
      c[l] = ctr_dwt_length (c[l - 1], &w);
    }
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  double *x = g_new (double, rows * cols);
  g_ptr_array_add (keep, x);
  for (gsize i = 0; i < rows * cols; i++)
    x[i] = g_rand_double_range (rand, -1, 1);
  double *img[17] = { x }, *bands[17][3];
  for (guint l = 1; l <= levels; l++)
    {
      double *s = g_new (double, 2 * r[l] * c[l - 1]);
      g_ptr_array_add (keep, s);
      img[l] = g_new (double, r[l] * c[l]);
      g_ptr_array_add (keep, img[l]);
      for (int b = 0; b < 3; b++)
        g_ptr_array_add (keep, bands[l][b] = g_new (double, r[l] * c[l]));
      ctr_dwt2 (img[l - 1], r[l - 1], c[l - 1], &w, img[l], bands[l][0], bands[l][1], bands[l][2], s);
    }
  double *cur = img[levels];
  for (guint l = levels; l >= 1; l--)
    {
      double *s = g_new (double, 2 * r[l] * c[l - 1]), *y = g_new (double, r[l - 1] * c[l - 1]);
      g_ptr_array_add (keep, s);
      g_ptr_array_add (keep, y);
      ctr_idwt2 (cur, bands[l][0], bands[l][1], bands[l][2], r[l], c[l], &w, y, r[l - 1], c[l - 1], s);
      cur = y;
    }
  double worst = 0;
  for (gsize i = 0; i < rows * cols; i++)
    worst = MAX (worst, fabs (cur[i] - x[i]));
  g_assert_cmpfloat (worst, <, 1e-5);
}

static void
test_round_trip_2d (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (35);
  round_trip_2d ("db5", 91, 160, 1, rand);
  round_trip_2d ("db5", 91, 160, 8, rand);
  round_trip_2d ("db1", 64, 32, 6, rand);
  round_trip_2d ("db2", 7, 3, 4, rand);
  round_trip_2d ("db10", 40, 57, 9, rand);
}

#define V 96
#define R 2
#define C 48
#define AT(d, v, r, c) ((d)[((gsize) (v) * R + (r)) * C + (c)])

/* @p's data set to @src, filtered at @level (db5, sigma 2, unpadded). */
static void
filtered (CtrProjections *p, const float *src, guint level, guint *columns)
{
  g_autoptr (GError) error = NULL;
  memcpy (p->data, src, sizeof (float) * V * R * C);
  g_assert_true (ctr_rings_remove_wavelet (p, level, NULL, 2.0, FALSE, NULL, columns, NULL, &error));
  g_assert_no_error (error);
}

static void
test_rings_wavelet (void)
{
  g_autoptr (CtrProjections) p = ctr_projections_new (V, R, C, CTR_PROJ_LINE_INTEGRALS, NULL);
  g_autofree float *object = g_new (float, V * R * C), *stripe = g_new0 (float, V * R * C);
  g_autofree float *both = g_new (float, V * R * C), *f_object = g_new (float, V * R * C);
  for (int v = 0; v < V; v++)
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++)
        {
          AT (object, v, r, c) = (float) (1.0 + 0.5 * sin (2 * G_PI * (c / 24.0 + v / (double) V)));
          AT (stripe, v, r, c) = c == 20 ? 0.3f : 0.0f;
          AT (both, v, r, c) = AT (object, v, r, c) + AT (stripe, v, r, c);
        }
  static const guint levels[] = { 1, CTR_RINGS_WAVELET_DEFAULT_LEVEL, 5 };
  for (guint k = 0; k < G_N_ELEMENTS (levels); k++)
    {
      /* the stripe alone: what stays is its low pass across the columns,
       * spread over about 2^level columns; at most 1/2^(level − 1) of it at
       * its own column */
      filtered (p, stripe, levels[k], NULL);
      double left = 0;
      for (int v = 0; v < V; v++)
        for (int r = 0; r < R; r++)
          left += AT (p->data, v, r, 20) / (V * R);
      g_test_message ("level %u: a stripe of 0.3 alone leaves %.4f at its column", levels[k], left);
      g_assert_cmpfloat (fabs (left), <, 0.3 / (1 << (levels[k] - 1)));
      /* linear: f(object + stripe) = f(object) + f(stripe) */
      g_autofree float *f_stripe = g_memdup2 (p->data, sizeof (float) * V * R * C);
      filtered (p, object, levels[k], NULL);
      memcpy (f_object, p->data, sizeof (float) * V * R * C);
      filtered (p, both, levels[k], NULL);
      double worst = 0;
      for (gsize i = 0; i < (gsize) V * R * C; i++)
        worst = MAX (worst, fabs (p->data[i] - f_object[i] - f_stripe[i]));
      g_assert_cmpfloat (worst, <, 1e-5);
    }
  g_autoptr (GError) error = NULL;
  guint64 n = 0;
  guint columns = 0;
  double rms = 0;

  /* a constant: nothing to remove */
  for (gsize i = 0; i < (gsize) V * R * C; i++)
    p->data[i] = 1.5f;
  g_assert_true (ctr_rings_remove_wavelet (p, 4, "db3", 1.0, FALSE, &n, &columns, &rms, &error));
  for (gsize i = 0; i < (gsize) V * R * C; i++)
    g_assert_cmpfloat (fabs (p->data[i] - 1.5f), <, 1e-5);
  g_assert_cmpuint (columns, ==, 0);

  /* bad arguments leave the data as it was */
  p->data[7] = 2.0f;
  g_assert_false (ctr_rings_remove_wavelet (p, 17, NULL, 2.0, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_rings_remove_wavelet (p, 0, NULL, 2.0, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_rings_remove_wavelet (p, 3, NULL, 0.0, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (ctr_rings_remove_wavelet (p, 3, "coif2", 2.0, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpfloat (p->data[7], ==, 2.0f);
  g_assert_cmpfloat (p->data[8], ==, 1.5f);
  p->kind = CTR_PROJ_COUNTS;
  g_assert_false (ctr_rings_remove_wavelet (p, 3, NULL, 2.0, TRUE, NULL, NULL, NULL, &error));
  g_assert_error (error, CTR_ERROR, CTR_ERROR_INVALID_DATA);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctr/core/wavelet/filters", test_filters);
  g_test_add_func ("/ctr/core/wavelet/round-trip-1d", test_round_trip_1d);
  g_test_add_func ("/ctr/core/wavelet/round-trip-2d", test_round_trip_2d);
  g_test_add_func ("/ctr/core/wavelet/rings", test_rings_wavelet);
  return g_test_run ();
}
