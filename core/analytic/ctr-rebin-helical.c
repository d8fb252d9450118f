/* ctr-rebin-helical.c — helical cone-beam data to fan-beam slices, 360LI
 * and 180LI (see ctr-rebin-helical.h).
 *
 * One output line (β_t, γ_j) at a time (OpenMP over β_t):
 *
 *     z ^   · direct rays of turn m+1, rows 0…R−1     ○ conjugate rays
 *       |   ·                                         ○
 *   z_s +---·-----○---  ← the two samples that bracket the slice z_s
 *       |   ·     ○        are interpolated linearly
 *       |   ·     ○
 *       |   direct, turn m
 *       +----------------------------------------------▶
 *
 * Each sample is the measured value of one detector row at the view
 * position where the line is seen (linear between the two views around it,
 * and between two columns for a fractional column), placed at its ray's z
 * (z_src + t*·v, ctr-helix.h).  Samples are sorted by z; slices are filled
 * by linear interpolation between the nearest samples below and above (the
 * nearest sample beyond the ends).
 */
#include "analytic/ctr-rebin-helical.h"
#include "data/ctr-helix.h"
#include "analytic/ctr-fbp.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static const char *const mode_names[CTR_N_REBIN] = { "180li", "360li", "none" };

const char *
ctr_rebin_mode_name (CtrRebinMode m)
{
  g_return_val_if_fail (m < CTR_N_REBIN, NULL);
  return mode_names[m];
}

gboolean
ctr_rebin_mode_from_name (const char *name, CtrRebinMode *out, GError **error)
{
  for (guint m = 0; m < CTR_N_REBIN; m++)
    if (name != NULL && g_ascii_strcasecmp (name, mode_names[m]) == 0)
      {
        *out = m;
        return TRUE;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
               "unknown rebinning '%s' (choose 180li, 360li or none)", name ? name : "");
  return FALSE;
}

struct _CtrRebinPlan
{
  CtrGeometry *g;        /* the cone geometry (copy) */
  CtrGeometry *fan;      /* the output stack */
  CtrRebinMode mode;
  guint V, R, C, S;      /* views, rows, columns of the input; slices */
  double *z;             /* [S] slice z, increasing */
  /* Views grouped by their focal-spot position (one group without a flying
   * focal spot): group q is order[first[q] … first[q+1]), in acquisition
   * order, each a helix of its own; ang holds dir · the effective view angle
   * (focal-spot shift included) at the same positions, increasing within a
   * group. */
  guint n_groups;
  guint *first;          /* [n_groups + 1] */
  guint *order;          /* [V] */
  double *ang;           /* [V] */
  double dir;            /* +1: angles increase with the view index, −1: decrease */
  double *zsrc;          /* [V] source z (no focal-spot shift) */
  double *tstar;         /* [C] closest-approach fraction (no focal-spot shift) */
  double *za, *zb;       /* [V·C] with a flying focal spot: ray z = za + zb·v */
  double *warp;          /* [V·C] with a flying focal spot: the detector column read for nominal column j */
  double *v;             /* [R] row coordinates, mm */
  double *gamma;         /* [C] fan angle of each column */
  double *mirror;        /* [C] the column of −γ_j (continuous), NaN when off the detector */
  double reach;          /* largest |ray z − source z|, mm */
  double feed;           /* |feed| per rotation, mm */
  guint n_extrapolated;
};

void
ctr_rebin_plan_free (CtrRebinPlan *r)
{
  if (r == NULL)
    return;
  ctr_geometry_free (r->g);
  ctr_geometry_free (r->fan);
  g_free (r->z);
  g_free (r->first);
  g_free (r->order);
  g_free (r->ang);
  g_free (r->zsrc);
  g_free (r->tstar);
  g_free (r->za);
  g_free (r->zb);
  g_free (r->warp);
  g_free (r->v);
  g_free (r->gamma);
  g_free (r->mirror);
  g_free (r);
}

const CtrGeometry *
ctr_rebin_plan_get_geometry (const CtrRebinPlan *r)
{
  return r->fan;
}

guint
ctr_rebin_plan_n_extrapolated (const CtrRebinPlan *r)
{
  return r->n_extrapolated;
}

/* The in-plane direction angle θ of a ray: its direction is (−sin θ, cos θ)
 * (a nominal ray (β, γ) has θ = β − γ). */
static double
ray_theta (const CtrGeometry *g, guint view, double col)
{
  double o[3], d[3];
  ctr_cone_ray (g, view, col, 0.0, o, d);
  return atan2 (-d[0], d[1]);
}

/* With a flying focal spot: for every view the detector column whose ray
 * from the shifted source runs along the nominal line (β + Δβ, γ_j), and
 * that ray's z as za + zb·v (see ctr-rebin-helical.h).  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY when the three tables cannot be had. */
static gboolean
focal_spot_tables (CtrRebinPlan *r, GError **error)
{
  const CtrGeometry *g = r->g;
  const guint V = r->V, C = r->C;
  g_autofree char *what = g_strdup_printf ("the flying focal spot's rebinning tables of %u views × %u columns", V, C);
  const guint64 n = ctr_memory_mul (V, C);
  if (!ctr_memory_check (ctr_memory_mul (n, 3 * sizeof (double)), what, error)
      || (r->za = ctr_memory_try_new (n, sizeof (double), FALSE, what, error)) == NULL
      || (r->zb = ctr_memory_try_new (n, sizeof (double), FALSE, what, error)) == NULL
      || (r->warp = ctr_memory_try_new (n, sizeof (double), FALSE, what, error)) == NULL)
    return FALSE;
#pragma omp parallel for schedule(static)
  for (gint64 k = 0; k < (gint64) V; k++)
    {
      const double *f = g->focal_shift + 3 * k;
      const double beta = g->angles[k] + f[0];
      for (guint j = 0; j < C; j++)
        {
          /* Newton on θ(c) = β' − γ_j, dθ/dc ≈ −dγ/dc. */
          const double target = beta - r->gamma[j];
          double c = j;
          for (int it = 0; it < 4; it++)
            {
              const double e = remainder (ray_theta (g, (guint) k, c) - target, 2 * G_PI);
              const double h = 0.5;
              const double slope = remainder (ray_theta (g, (guint) k, c + h) - ray_theta (g, (guint) k, c - h),
                                              2 * G_PI) / (2 * h);
              if (slope == 0)
                break;
              c -= e / slope;
              c = CLAMP (c, -1.0, (double) C);
            }
          const gsize q = (gsize) k * C + j;
          r->warp[q] = CLAMP (c, 0.0, (double) (C - 1));
          /* z = S_z + t*·(P_z − S_z), P_z = z_k + v, S_z = z_k + Δz: za + zb·v. */
          const double z0 = ctr_helix_ray_z (g, (guint) k, 0.0, c), z1 = ctr_helix_ray_z (g, (guint) k, 1.0, c);
          const double v0 = ctr_geometry_row_v (g, 0.0), v1 = ctr_geometry_row_v (g, 1.0);
          r->zb[q] = g->n_rows > 1 ? (z1 - z0) / (v1 - v0) : ctr_helix_closest_fraction (g, c);
          r->za[q] = z0 - r->zb[q] * v0;
        }
    }
  return TRUE;
}

/* Views whose focal spot sits at another z (or radius) form helices of
 * their own: at most this many; more (a jitter) are interpolated across.
 * An angular shift only moves a view's angle (interpolation between views
 * takes any spacing), so views that differ only in it stay together and
 * keep the full angular sampling. */
#define MAX_FOCAL_GROUPS 16

/* Groups the views by focal-spot position (see CtrRebinPlan); FALSE with
 * CTR_ERROR_UNSUPPORTED when a group's angles do not progress. */
static gboolean
group_views (CtrRebinPlan *r, GError **error)
{
  const CtrGeometry *g = r->g;
  const guint V = r->V;
  g_autofree char *what = g_strdup_printf ("the rebinning's view tables of %u views", V);
  g_autofree guint *label = ctr_memory_try_new (V, sizeof (guint), TRUE, what, error);
  if (label == NULL)
    return FALSE;
  double keys[MAX_FOCAL_GROUPS][3];
  guint n = 0;
  gboolean jitter = g->focal_shift == NULL;
  for (guint k = 0; !jitter && k < V; k++)
    {
      const double *f = g->focal_shift + 3 * k;
      guint q = 0;
      while (q < n && (fabs (f[1] - keys[q][1]) > 1e-6 || fabs (f[2] - keys[q][2]) > 1e-6))
        q++;
      if (q == n)
        {
          if (n == MAX_FOCAL_GROUPS)
            {
              jitter = TRUE;   /* too many positions: one group, interpolated across */
              break;
            }
          memcpy (keys[n++], f, sizeof keys[0]);
        }
      label[k] = q;
    }
  if (jitter)
    {
      memset (label, 0, V * sizeof (guint));
      n = 1;
    }
  r->n_groups = n;
  r->first = g_new0 (guint, n + 1);   /* n ≤ MAX_FOCAL_GROUPS */
  if ((r->order = ctr_memory_try_new (V, sizeof (guint), FALSE, what, error)) == NULL
      || (r->ang = ctr_memory_try_new (V, sizeof (double), FALSE, what, error)) == NULL
      || (r->zsrc = ctr_memory_try_new (V, sizeof (double), FALSE, what, error)) == NULL)
    return FALSE;
  for (guint k = 0; k < V; k++)
    r->first[label[k] + 1]++;
  for (guint q = 0; q < n; q++)
    r->first[q + 1] += r->first[q];
  g_autofree guint *fill = g_memdup2 (r->first, n * sizeof (guint));
  for (guint k = 0; k < V; k++)
    {
      const guint at = fill[label[k]]++;
      r->order[at] = k;
      r->ang[at] = r->dir * (g->angles[k] + (g->focal_shift ? g->focal_shift[3 * k] : 0.0));
      r->zsrc[k] = ctr_geometry_source_z (g, k);
      if (at > r->first[label[k]] && !(r->ang[at] > r->ang[at - 1]))
        {
          g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                       "rebinning needs view angles that progress steadily; view %u (%g rad, focal-spot "
                       "shift included) does not follow view %u (%g rad)", k, r->dir * r->ang[at],
                       r->order[at - 1], r->dir * r->ang[at - 1]);
          return FALSE;
        }
    }
  for (guint q = 0; q < n; q++)
    if (r->first[q + 1] - r->first[q] < 2)
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                     "a focal-spot position is used by fewer than two views; the data do not form a helix for it");
        return FALSE;
      }
  return TRUE;
}

CtrRebinPlan *
ctr_rebin_plan_new (const CtrGeometry *g, CtrRebinMode mode, const double *z_mm, guint n_slices,
                    GError **error)
{
  g_return_val_if_fail (g != NULL, NULL);
  if (!ctr_geometry_validate (g, error))
    return NULL;
  if (g->beam != CTR_BEAM_CONE)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "rebinning to slices needs cone-beam data (a helical or multi-row scan)");
      return NULL;
    }
  if (mode != CTR_REBIN_180LI && mode != CTR_REBIN_360LI)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "rebinning mode %d is not 180li or 360li",
                   (int) mode);
      return NULL;
    }
  if (n_slices == 0 || z_mm == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "rebinning needs at least one slice");
      return NULL;
    }
  for (guint s = 0; s < n_slices; s++)
    if (!isfinite (z_mm[s]) || (s > 0 && !(z_mm[s] > z_mm[s - 1])))
      {
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "the slices' z must be finite and increase; slice %u is at %g mm", s, z_mm[s]);
        return NULL;
      }
  const guint V = g->n_views;
  if (V < 2)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED, "rebinning needs more than one view");
      return NULL;
    }

  g_autoptr (CtrRebinPlan) r = g_new0 (CtrRebinPlan, 1);
  if ((r->g = ctr_geometry_try_copy (g, error)) == NULL)
    return NULL;
  r->mode = mode;
  r->V = V;
  r->R = g->n_rows;
  r->C = g->n_cols;
  r->S = n_slices;
  r->dir = g->angles[V - 1] >= g->angles[0] ? 1.0 : -1.0;
  /* the slices' z, each row's v, each column's t*, γ and mirror column */
  g_autofree char *what = g_strdup_printf ("the rebinning's tables of %u slices, %u rows and %u columns", n_slices,
                                           r->R, r->C);
  if ((r->z = ctr_memory_try_new (MAX (n_slices, 1), sizeof (double), FALSE, what, error)) == NULL
      || (r->v = ctr_memory_try_new (r->R, sizeof (double), FALSE, what, error)) == NULL
      || (r->tstar = ctr_memory_try_new (r->C, sizeof (double), FALSE, what, error)) == NULL
      || (r->gamma = ctr_memory_try_new (r->C, sizeof (double), FALSE, what, error)) == NULL
      || (r->mirror = ctr_memory_try_new (r->C, sizeof (double), FALSE, what, error)) == NULL)
    return NULL;
  memcpy (r->z, z_mm, sizeof (double) * n_slices);
  if (!group_views (r, error))
    return NULL;
  for (guint i = 0; i < r->R; i++)
    r->v[i] = ctr_geometry_row_v (g, i);
  double tmax = 0, vmax = 0;
  for (guint i = 0; i < r->R; i++)
    vmax = MAX (vmax, fabs (r->v[i]));
  for (guint j = 0; j < r->C; j++)
    {
      const double u = ctr_geometry_col_u (g, j);
      r->tstar[j] = ctr_helix_closest_fraction (g, j);
      tmax = MAX (tmax, r->tstar[j]);
      r->gamma[j] = g->shape == CTR_DETECTOR_CURVED ? u : atan (u / g->sdd_mm);
      const double m = ctr_geometry_u_col (g, -u);
      r->mirror[j] = m >= -1e-9 && m <= r->C - 1 + 1e-9 ? CLAMP (m, 0.0, r->C - 1.0) : NAN;
    }
  r->reach = vmax * tmax;
  if (g->focal_shift != NULL)
    {
      if (!focal_spot_tables (r, error))
        return NULL;
      double dz = 0;
      for (guint k = 0; k < V; k++)
        dz = MAX (dz, fabs (g->focal_shift[3 * k + 1]));
      r->reach += 2 * dz;
    }
  const double span = fabs (g->angles[V - 1] - g->angles[0]);
  r->feed = fabs (ctr_helix_feed_mm (g));

  /* The output fan: V views per rotation at the data's phase. */
  const double step = span / (V - 1);
  const guint nv = (guint) MAX (1.0, round (2.0 * G_PI / step));
  const double width = 2.0 * G_PI / nv;
  double phase = fmod (g->angles[0], width);
  if (phase < 0)
    phase += width;
  if (phase < 1e-3 * width || width - phase < 1e-3 * width)
    phase = 0.0;
  const double need = mode == CTR_REBIN_360LI ? 2.0 * G_PI - 1.5 * step
                                              : G_PI + 2.0 * ctr_geometry_half_fan_angle (g) - 1.5 * step;
  if (span < need)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the scan covers %.1f° of view angle; %s rebinning needs %.1f° (every direction of the "
                   "plane seen at least once)", span * 180 / G_PI, ctr_rebin_mode_name (mode), need * 180 / G_PI);
      return NULL;
    }
  if ((r->fan = ctr_geometry_try_new (CTR_BEAM_FAN, nv, error)) == NULL)
    return NULL;
  ctr_geometry_set_uniform_angles (r->fan, phase, width);
  r->fan->shape = g->shape;
  r->fan->sod_mm = g->sod_mm;
  r->fan->sdd_mm = g->sdd_mm;
  r->fan->n_rows = n_slices;
  r->fan->n_cols = g->n_cols;
  r->fan->pitch_u = g->pitch_u;
  r->fan->offset_u = g->offset_u;
  r->fan->pitch_v_mm = n_slices > 1 ? (z_mm[n_slices - 1] - z_mm[0]) / (n_slices - 1)
                                    : ctr_geometry_slice_width_mm (g);
  r->fan->rows_increase_with_v = TRUE;
  r->fan->pixel_size_known = g->pixel_size_known;
  r->fan->table_reversed = g->table_reversed;

  double lo, hi;
  const double tol = 1e-6;
  if (ctr_helix_z_coverage (g, mode == CTR_REBIN_180LI, &lo, &hi))
    {
      for (guint s = 0; s < n_slices; s++)
        r->n_extrapolated += z_mm[s] < lo - tol || z_mm[s] > hi + tol;
    }
  else
    r->n_extrapolated = n_slices;
  return g_steal_pointer (&r);
}

CtrRebinPlan *
ctr_rebin_plan_new_for_grid (const CtrGeometry *g, CtrRebinMode mode, const CtrGrid *grid, GError **error)
{
  g_autofree double *z = ctr_memory_try_new (grid->nz, sizeof (double), FALSE, "the slices' positions", error);
  if (z == NULL)
    return NULL;
  for (guint s = 0; s < grid->nz; s++)
    z[s] = ctr_grid_z (grid, s);
  return ctr_rebin_plan_new (g, mode, z, grid->nz, error);
}

typedef struct {
  double z;
  float value;
} Sample;

/* A continuous column (>= 0) as its column j0 and the fraction f towards
 * j0 + 1 (0 at the last column). */
static inline guint
split_col (guint n_cols, double col, double *f)
{
  guint j0 = (guint) col;
  *f = col - j0;
  if (j0 >= n_cols - 1)
    {
      j0 = n_cols - 1;
      *f = 0.0;
    }
  return j0;
}

/* The value of nominal column @col (continuous) of row @i of view @k. */
static inline double
value_at (const CtrRebinPlan *r, const float *data, guint k, guint i, double col)
{
  const float *row = data + ((gsize) k * r->R + i) * r->C;
  double f;
  const guint j0 = split_col (r->C, col, &f);
  if (r->warp == NULL)
    return f > 0.0 ? (1.0 - f) * row[j0] + f * row[j0 + 1] : row[j0];
  double acc = 0.0;
  for (guint t = 0; t < 2; t++)
    {
      const double wt = t == 0 ? 1.0 - f : f;
      if (wt == 0.0)
        continue;
      double e;
      const guint c0 = split_col (r->C, r->warp[(gsize) k * r->C + j0 + t], &e);
      acc += wt * (e > 0.0 ? (1.0 - e) * row[c0] + e * row[c0 + 1] : row[c0]);
    }
  return acc;
}

/* The z of the ray of row @i, nominal column @col of view @k. */
static inline double
z_at (const CtrRebinPlan *r, guint k, guint i, double col)
{
  double f;
  const guint j0 = split_col (r->C, col, &f);
  if (r->za == NULL)
    {
      const double t = f > 0.0 ? (1.0 - f) * r->tstar[j0] + f * r->tstar[j0 + 1] : r->tstar[j0];
      return r->zsrc[k] + t * r->v[i];
    }
  const gsize q = (gsize) k * r->C + j0;
  const double z0 = r->za[q] + r->zb[q] * r->v[i];
  return f > 0.0 ? (1.0 - f) * z0 + f * (r->za[q + 1] + r->zb[q + 1] * r->v[i]) : z0;
}

/* Appends the samples of every row on the line seen at angle position @x
 * (dir · angle) + 2πn for every turn n and every focal-spot group, column
 * @col; returns the new count. */
static guint
add_samples (const CtrRebinPlan *r, const float *data, double x, double col, double zmin, double zmax,
             Sample *buf, guint n)
{
  for (guint q = 0; q < r->n_groups; q++)
    {
      const guint first = r->first[q], last = r->first[q + 1] - 1;
      const double a0 = r->ang[first], a1 = r->ang[last];
      const gint64 n_lo = (gint64) ceil ((a0 - x) / (2 * G_PI)), n_hi = (gint64) floor ((a1 - x) / (2 * G_PI));
      for (gint64 m = n_lo; m <= n_hi; m++)
        {
          const double xm = x + 2 * G_PI * m;
          /* The views around xm: ang[lo] <= xm <= ang[hi], hi = lo + 1. */
          guint lo = first, hi = last;
          while (hi - lo > 1)
            {
              const guint mid = (lo + hi) / 2;
              if (r->ang[mid] <= xm)
                lo = mid;
              else
                hi = mid;
            }
          const double w = CLAMP ((xm - r->ang[lo]) / (r->ang[hi] - r->ang[lo]), 0.0, 1.0);
          const guint ka = r->order[lo], kb = r->order[hi];
          const double zs = (1.0 - w) * r->zsrc[ka] + w * r->zsrc[kb];
          if (zs + r->reach < zmin - r->feed || zs - r->reach > zmax + r->feed)
            continue;  /* a turn far from every slice */
          for (guint i = 0; i < r->R; i++)
            {
              buf[n].z = (1.0 - w) * z_at (r, ka, i, col) + w * z_at (r, kb, i, col);
              buf[n].value = (float) ((1.0 - w) * value_at (r, data, ka, i, col)
                                      + w * value_at (r, data, kb, i, col));
              n++;
            }
        }
    }
  return n;
}

static void
sort_samples (Sample *s, guint n)
{
  for (guint i = 1; i < n; i++)
    {
      Sample t = s[i];
      guint j = i;
      while (j > 0 && s[j - 1].z > t.z)
        {
          s[j] = s[j - 1];
          j--;
        }
      s[j] = t;
    }
}

CtrProjections *
ctr_rebin_run (const CtrRebinPlan *r, const CtrProjections *p, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (r != NULL && p != NULL, NULL);
  if (p->n_views != r->V || p->n_rows != r->R || p->n_cols != r->C)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "the projections (%u views × %u rows × %u columns) do not fit the rebinning's geometry "
                   "(%u × %u × %u)", p->n_views, p->n_rows, p->n_cols, r->V, r->R, r->C);
      return NULL;
    }
  if (p->kind != CTR_PROJ_LINE_INTEGRALS)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "rebinning needs line integrals; convert the counts first");
      return NULL;
    }
  /* dead pixels: filled along their rows, whatever value they hold */
  g_autoptr (CtrProjections) filled = ctr_projections_filled (p, error);
  if (filled == NULL)
    return NULL;
  p = filled;
  const CtrGeometry *fan = r->fan;
  g_autoptr (CtrProjections) out = ctr_projections_new (fan->n_views, r->S, r->C, CTR_PROJ_LINE_INTEGRALS, error);
  if (out == NULL)
    return NULL;
  out->i0 = p->i0;
  if (p->flat != NULL)
    {
      out->flat = ctr_memory_try_new ((gsize) r->S * r->C, sizeof (float), TRUE, "the rebinned flat field", error);
      if (out->flat == NULL)
        return NULL;
      for (guint j = 0; j < r->C; j++)
        {
          double acc = 0;
          for (guint i = 0; i < r->R; i++)
            acc += p->flat[(gsize) i * r->C + j];
          for (guint s = 0; s < r->S; s++)
            out->flat[(gsize) s * r->C + j] = (float) (acc / r->R);
        }
    }

  const double turns = fabs (r->g->angles[r->V - 1] - r->g->angles[0]) / (2 * G_PI) + 2.0;
  /* turns come from the angles: bounded before they become a count */
  const guint64 cap64 = ctr_memory_add (ctr_memory_mul (ctr_memory_mul (2 * (guint64) r->n_groups,
                                                                         (guint64) ceil (MIN (turns, 1e15))),
                                                        r->R),
                                        2);
  const guint cap = (guint) MIN (cap64, G_MAXUINT);
  const double zmin = r->z[0], zmax = r->z[r->S - 1];
  const gboolean conj = r->mode == CTR_REBIN_180LI;
  gint cancelled = 0, empty = 0;
  /* per thread: the samples of one fan-beam ray along z (their number
   * grows with the turns and rows the scan has) */
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  g_autofree char *what = g_strdup_printf ("the rebinning's samples of %" G_GUINT64_FORMAT " per ray × %d threads", cap64, threads);
  g_autofree Sample *bufs = NULL;
  if (cap64 > G_MAXUINT)
    ctr_memory_set_error (error, ctr_memory_mul (ctr_memory_mul (cap64, threads), sizeof (Sample)), what);
  else
    bufs = ctr_memory_try_new (ctr_memory_mul (cap, threads), sizeof (Sample), FALSE, what, error);
  if (bufs == NULL)
    return NULL;

#pragma omp parallel num_threads(threads)
  {
    int th = 0;
#ifdef _OPENMP
    th = omp_get_thread_num ();
#endif
    Sample *buf = bufs + (gsize) cap * th;
#pragma omp for schedule(dynamic, 4)
    for (gint64 t = 0; t < (gint64) fan->n_views; t++)
      {
        if (g_atomic_int_get (&cancelled) || g_atomic_int_get (&empty))
          continue;
        if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
          {
            g_atomic_int_set (&cancelled, 1);
            continue;
          }
        const double beta = fan->angles[t];
        float *dst = ctr_projections_view (out, (guint) t);
        for (guint j = 0; j < r->C; j++)
          {
            guint n = add_samples (r, p->data, r->dir * beta, j, zmin, zmax, buf, 0);
            if (conj && !isnan (r->mirror[j]))
              n = add_samples (r, p->data, r->dir * (beta + G_PI - 2.0 * r->gamma[j]), r->mirror[j], zmin, zmax,
                               buf, n);
            if (n == 0)
              {
                g_atomic_int_set (&empty, 1);
                break;
              }
            sort_samples (buf, n);
            guint q = 0;
            for (guint s = 0; s < r->S; s++)
              {
                const double z = r->z[s];
                while (q + 1 < n && buf[q + 1].z <= z)
                  q++;
                double val;
                if (z <= buf[0].z)
                  val = buf[0].value;
                else if (q + 1 >= n)
                  val = buf[n - 1].value;
                else
                  {
                    const double dz = buf[q + 1].z - buf[q].z;
                    const double w = dz > 0 ? (z - buf[q].z) / dz : 0.5;
                    val = (1.0 - w) * buf[q].value + w * buf[q + 1].value;
                  }
                dst[(gsize) s * r->C + j] = (float) val;
              }
          }
      }
  }
  if (cancelled)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "rebinning cancelled");
      return NULL;
    }
  if (empty)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "some direction of the plane has no measured ray near the slices (the scan misses part "
                   "of the circle there)");
      return NULL;
    }
  return g_steal_pointer (&out);
}

CtrVolume *
ctr_rebin_fbp (const CtrGeometry *g, const CtrProjections *p, const CtrGrid *grid, CtrRebinMode mode,
               CtrFilterWindow window, double cutoff, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (g != NULL && p != NULL && grid != NULL, NULL);
  if (!ctr_grid_validate (grid, error))
    return NULL;
  g_autofree double *z = ctr_memory_try_new (grid->nz, sizeof (double), FALSE, "the slices' positions", error);
  if (z == NULL)
    return NULL;
  for (guint s = 0; s < grid->nz; s++)
    z[s] = ctr_grid_z (grid, s);
  g_autoptr (CtrRebinPlan) r = ctr_rebin_plan_new (g, mode, z, grid->nz, error);
  if (r == NULL)
    return NULL;
  g_autoptr (CtrProjections) fan = ctr_rebin_run (r, p, cancellable, error);
  if (fan == NULL)
    return NULL;
  CtrGrid flat = *grid;
  flat.cz = 0.0;   /* a fan stack's slices are its rows */
  CtrVolume *v = ctr_fbp_run (ctr_rebin_plan_get_geometry (r), fan, &flat, window, cutoff, cancellable, error);
  if (v != NULL)
    v->grid = *grid;
  return v;
}
