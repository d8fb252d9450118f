/* ctr-redundancy.c — how much each view and ray counts in FBP and FDK: the
 * angular spacing Δβ of each view and the redundancy weight of each ray
 * (see ctr-redundancy.h). */
#include "analytic/ctr-redundancy.h"
#include "base/ctr-memory.h"
#include "base/ctr-sort.h"

#include <math.h>
#include <string.h>

/* A scan counts as full when its range reaches 2π within this (radians). */
#define FULL_SCAN_TOLERANCE 1e-3

double
ctr_parker_weight (double beta_rel, double gamma, double delta)
{
  /* Conjugate of (β, γ) in FORMAT.md terms is (β + π - 2γ, -γ): the ray's
   * direction angle is β + π/2 - γ.  Parker's (1982) weights with his γ
   * replaced by -γ; each branch is only reached where its denominator is
   * positive, so incomplete scans (δ < |γ|) just give weights < 1. */
  if (beta_rel < 0.0 || beta_rel > G_PI + 2.0 * delta)
    return 0.0;
  if (beta_rel < 2.0 * (delta + gamma))
    {
      double s = sin (G_PI_4 * beta_rel / (delta + gamma));
      return s * s;
    }
  if (beta_rel <= G_PI + 2.0 * gamma)
    return 1.0;
  double s = sin (G_PI_4 * (G_PI + 2.0 * delta - beta_rel) / (delta - gamma));
  return s * s;
}

static int
cmp_index_by_angle (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const double *ang = user_data;
  double x = ang[*(const guint *) a], y = ang[*(const guint *) b];
  return x < y ? -1 : x > y ? 1 : 0;
}

double *
ctr_view_spacing (const CtrGeometry *g, GError **error)
{
  const guint nv = g->n_views;
  g_autofree char *what = g_strdup_printf ("the angular spacing of %u views", nv);
  g_autofree double *dw = ctr_memory_try_new (MAX (nv, 1), sizeof (double), FALSE, what, error);
  if (dw == NULL)
    return NULL;
  if (nv == 1)
    {
      dw[0] = G_PI;  /* one view: nothing to integrate; keep the image finite */
      return g_steal_pointer (&dw);
    }
  g_autofree guint *order = ctr_memory_try_new (nv, sizeof (guint), FALSE, what, error);
  if (order == NULL)
    return NULL;
  for (guint k = 0; k < nv; k++)
    order[k] = k;
  g_autofree char *sorting = g_strdup_printf ("the order by angle of %u views", nv);
  if (!ctr_sort_stable (order, nv, sizeof (guint), cmp_index_by_angle, g->angles, sorting, error))
    return NULL;
  for (guint i = 0; i < nv; i++)
    {
      double lo = i > 0 ? g->angles[order[i - 1]] : NAN;
      double hi = i + 1 < nv ? g->angles[order[i + 1]] : NAN;
      double here = g->angles[order[i]];
      double w;
      if (i == 0)
        w = hi - here;
      else if (i + 1 == nv)
        w = here - lo;
      else
        w = 0.5 * (hi - lo);
      dw[order[i]] = w;
    }
  return g_steal_pointer (&dw);
}

void
ctr_redundancy_init (CtrRedundancy *r, const CtrGeometry *g)
{
  memset (r, 0, sizeof *r);
  r->g = g;
  r->fan = g->beam != CTR_BEAM_PARALLEL;
  double range = ctr_geometry_angular_range (g);
  if (g->n_views < 2)
    range = G_PI;
  r->lo = r->hi = g->angles[0];
  for (guint k = 1; k < g->n_views; k++)
    {
      r->lo = MIN (r->lo, g->angles[k]);
      r->hi = MAX (r->hi, g->angles[k]);
    }
  r->step = g->n_views > 1 ? (r->hi - r->lo) / (g->n_views - 1) : 0.0;
  r->decreasing = g->angles[g->n_views - 1] < g->angles[0];
  r->full_scan = range >= 2.0 * G_PI - FULL_SCAN_TOLERANCE;
  if (!r->fan)
    r->red_const = G_PI / range;
  else if (r->full_scan)
    r->red_const = 0.5;
  else
    {
      r->red_const = 0.0;  /* Parker */
      r->delta = 0.5 * (range - G_PI);
    }
}

double
ctr_redundancy_weight (const CtrRedundancy *r, guint view, double gamma)
{
  if (!r->fan || r->full_scan)
    return r->red_const;
  /* β measured from the scan's start, in its sense of rotation; the scan's
   * nominal span starts half a step before the first view. */
  double beta = r->g->angles[view];
  double beta_rel;
  if (r->decreasing)
    {
      beta_rel = r->hi - beta + 0.5 * r->step;
      gamma = -gamma;
    }
  else
    beta_rel = beta - r->lo + 0.5 * r->step;
  return ctr_parker_weight (beta_rel, gamma, r->delta);
}

