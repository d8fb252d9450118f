/* ctr-wavelet.c — Daubechies DWT with symmetric extension (see ctr-wavelet.h). */
#include "preprocess/ctr-wavelet.h"

#include <stdlib.h>
#include <string.h>

/* Daubechies' scaling filters h (Σ h = √2), db1 … db10: Daubechies 1992,
 * table 6.1, to double precision. */
static const double db1[] = { 0.7071067811865476, 0.7071067811865476 };
static const double db2[] = { 0.48296291314453416, 0.8365163037378079, 0.2241438680420134, -0.12940952255126037 };
static const double db3[] = { 0.33267055295008263, 0.8068915093110925, 0.45987750211849154, -0.13501102001025458,
                              -0.08544127388202666, 0.03522629188570953 };
static const double db4[] = { 0.2303778133088965, 0.7148465705529157, 0.6308807679298589, -0.027983769416859854,
                              -0.18703481171909309, 0.030841381835560764, 0.0328830116668852,
                              -0.010597401785069032 };
static const double db5[] = { 0.16010239797419293, 0.6038292697971896, 0.7243085284377729, 0.13842814590132074,
                              -0.24229488706638203, -0.032244869584638375, 0.07757149384004572,
                              -0.006241490212798274, -0.012580751999081999, 0.0033357252854737712 };
static const double db6[] = { 0.11154074335010947, 0.49462389039845306, 0.7511339080210954, 0.31525035170919763,
                              -0.22626469396543983, -0.12976686756726194, 0.09750160558732304,
                              0.027522865530305727, -0.03158203931748603, 0.0005538422011614961,
                              0.004777257510945511, -0.0010773010853084796 };
static const double db7[] = { 0.07785205408500918, 0.3965393194819173, 0.7291320908462351, 0.4697822874051931,
                              -0.14390600392856498, -0.22403618499387498, 0.07130921926683026,
                              0.08061260915108308, -0.03802993693501441, -0.01657454163066688,
                              0.01255099855609984, 0.0004295779729213665, -0.0018016407040474908,
                              0.00035371379997452024 };
static const double db8[] = { 0.05441584224310401, 0.31287159091429995, 0.6756307362972898, 0.5853546836542067,
                              -0.015829105256349306, -0.2840155429615469, 0.0004724845739132828,
                              0.12874742662047847, -0.017369301001807547, -0.044088253930794755,
                              0.013981027917398282, 0.008746094047405777, -0.004870352993451574,
                              -0.00039174037337694705, 0.0006754494064505693, -0.00011747678412476953 };
static const double db9[] = { 0.038077947363878345, 0.24383467461259034, 0.6048231236901112, 0.6572880780513005,
                              0.13319738582500756, -0.2932737832791749, -0.09684078322297646,
                              0.14854074933810638, 0.03072568147933338, -0.06763282906132997,
                              0.00025094711483145197, 0.022361662123679096, -0.004723204757751397,
                              -0.00428150368246343, 0.0018476468830562265, 0.00023038576352319597,
                              -0.0002519631889427101, 3.93473203162716e-05 };
static const double db10[] = { 0.026670057900555554, 0.1881768000776915, 0.5272011889317256, 0.6884590394536035,
                               0.2811723436605775, -0.24984642432731538, -0.19594627437737705,
                               0.12736934033579325, 0.09305736460357235, -0.07139414716639708,
                               -0.029457536821875813, 0.033212674059341, 0.0036065535669561697,
                               -0.010733175483330575, 0.001395351747052901, 0.001992405295185056,
                               -0.0006858566949597116, -0.00011646685512928545, 9.358867032006959e-05,
                               -1.3264202894521244e-05 };
static const double *const scaling[] = { db1, db2, db3, db4, db5, db6, db7, db8, db9, db10 };

gboolean
ctr_wavelet_init (const char *name, CtrWavelet *w)
{
  g_return_val_if_fail (w != NULL, FALSE);
  if (name == NULL)
    return FALSE;
  int order = 0;
  if (g_str_equal (name, "haar"))
    order = 1;
  else if (g_str_has_prefix (name, "db") && name[2] >= '1' && name[2] <= '9')
    {
      char *end = NULL;
      const long k = strtol (name + 2, &end, 10);
      order = *end == '\0' && k >= 1 && k <= 10 ? (int) k : 0;
    }
  if (order == 0)
    return FALSE;
  const guint F = 2 * (guint) order;
  memset (w, 0, sizeof *w);
  g_snprintf (w->name, sizeof w->name, "db%d", order);
  w->length = F;
  for (guint k = 0; k < F; k++)
    {
      w->rlo[k] = scaling[order - 1][k];
      w->hi[k] = (k % 2 == 0 ? -1.0 : 1.0) * w->rlo[k];
    }
  for (guint k = 0; k < F; k++)
    {
      w->lo[k] = w->rlo[F - 1 - k];
      w->rhi[k] = w->hi[F - 1 - k];
    }
  return TRUE;
}

gsize
ctr_dwt_length (gsize n, const CtrWavelet *w)
{
  return (n + w->length - 1) / 2;
}

/* The index of sample @i (any integer) of @n samples extended by half-sample
 * symmetry, repeated: period 2n, mirrored in its second half. */
static inline gsize
mirror (gssize i, gsize n)
{
  gssize k = i % (gssize) (2 * n);
  if (k < 0)
    k += (gssize) (2 * n);
  return (gsize) k < n ? (gsize) k : 2 * n - 1 - (gsize) k;
}

void
ctr_dwt (const double *x, gsize n, gsize xs, const CtrWavelet *w, double *a, double *d, gsize os)
{
  const gsize F = w->length, m = ctr_dwt_length (n, w);
  for (gsize o = 0; o < m; o++)
    {
      const gssize i = (gssize) (2 * o + 1);
      double sa = 0, sd = 0;
      /* inside the signal (2o + 1 − j in [0, n)) without the mirror */
      const gboolean inside = i >= (gssize) F - 1 && i < (gssize) n;
      for (gsize j = 0; j < F; j++)
        {
          const double v = x[(inside ? (gsize) (i - (gssize) j) : mirror (i - (gssize) j, n)) * xs];
          sa += w->lo[j] * v;
          sd += w->hi[j] * v;
        }
      a[o * os] = sa;
      d[o * os] = sd;
    }
}

void
ctr_idwt (const double *a, const double *d, gsize m, gsize cs, const CtrWavelet *w, double *y, gsize n, gsize ys)
{
  const gsize F = w->length;
  for (gsize p = 0; p < n; p++)
    {
      /* y[p] = Σ_k c[k] f[p + F − 2 − 2k] over 0 ≤ p + F − 2 − 2k < F */
      const gsize q = p + F - 2;
      const gsize k_hi = MIN (q / 2, m - 1);
      const gsize k_lo = q >= F ? (q - F) / 2 + 1 : 0;
      double s = 0;
      for (gsize k = k_lo; k <= k_hi; k++)
        s += a[k * cs] * w->rlo[q - 2 * k] + d[k * cs] * w->rhi[q - 2 * k];
      y[p * ys] = s;
    }
}

void
ctr_dwt2 (const double *x, gsize rows, gsize cols, const CtrWavelet *w, double *a, double *h, double *v,
          double *dd, double *scratch)
{
  const gsize mr = ctr_dwt_length (rows, w), mc = ctr_dwt_length (cols, w);
  double *lo0 = scratch, *hi0 = scratch + mr * cols;
  /* along axis 0 (down each column), then along axis 1 (each row) */
  for (gsize c = 0; c < cols; c++)
    ctr_dwt (x + c, rows, cols, w, lo0 + c, hi0 + c, cols);
  for (gsize r = 0; r < mr; r++)
    {
      ctr_dwt (lo0 + r * cols, cols, 1, w, a + r * mc, v + r * mc, 1);
      ctr_dwt (hi0 + r * cols, cols, 1, w, h + r * mc, dd + r * mc, 1);
    }
}

void
ctr_idwt2 (const double *a, const double *h, const double *v, const double *dd, gsize m_rows, gsize m_cols,
           const CtrWavelet *w, double *y, gsize rows, gsize cols, double *scratch)
{
  double *lo0 = scratch, *hi0 = scratch + m_rows * cols;
  for (gsize r = 0; r < m_rows; r++)
    {
      ctr_idwt (a + r * m_cols, v + r * m_cols, m_cols, 1, w, lo0 + r * cols, cols, 1);
      ctr_idwt (h + r * m_cols, dd + r * m_cols, m_cols, 1, w, hi0 + r * cols, cols, 1);
    }
  for (gsize c = 0; c < cols; c++)
    ctr_idwt (lo0 + c, hi0 + c, m_rows, cols, w, y + c, rows, cols);
}
