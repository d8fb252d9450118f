/* ctr-geometry-vectors.c — per-view vector geometry (see ctr-geometry-vectors.h). */
#include "data/ctr-geometry-vectors.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <string.h>

#define VL CTR_GEOMETRY_VECTOR_LEN

static double dot3 (const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double norm3 (const double a[3]) { return sqrt (dot3 (a, a)); }

gboolean
ctr_geometry_has_vectors (const CtrGeometry *g)
{
  return g != NULL && g->vectors != NULL;
}

/* Summary (circular) fields of view @w, see the header. */
typedef struct {
  double angle, sod, sdd, pitch_u, pitch_v, offset_u, offset_v, vz;
} Summary;

static Summary
summarise (CtrBeam beam, const double *w)
{
  Summary s;
  double n[3];
  ctr_geometry_vectors_normal (beam, w, n);
  const double sd[3] = { w[3] - w[0], w[4] - w[1], w[5] - w[2] };
  s.sdd = dot3 (sd, n);
  const double foot_to_d[3] = { sd[0] - s.sdd * n[0], sd[1] - s.sdd * n[1], sd[2] - s.sdd * n[2] };
  s.pitch_u = norm3 (w + 6);
  s.offset_u = dot3 (foot_to_d, w + 6) / s.pitch_u;
  s.offset_v = foot_to_d[2];
  s.pitch_v = norm3 (w + 9);
  s.vz = w[11];
  s.sod = hypot (w[0], w[1]);
  s.angle = atan2 (w[0], -w[1]);
  return s;
}

/* Fills @g's circular fields with the per-view means of the summary. */
static void
fill_summary (CtrGeometry *g)
{
  double sod = 0, sdd = 0, pu = 0, pv = 0, ou = 0, ov = 0, vz = 0, prev = 0;
  for (guint k = 0; k < g->n_views; k++)
    {
      Summary s = summarise (g->beam, g->vectors + (gsize) k * VL);
      double a = s.angle;
      if (k > 0)  /* unwrap: each step taken within (−π, π] */
        a = prev + remainder (a - prev, 2 * G_PI);
      g->angles[k] = prev = a;
      sod += s.sod;
      sdd += s.sdd;
      pu += s.pitch_u;
      pv += s.pitch_v;
      ou += s.offset_u;
      ov += s.offset_v;
      vz += s.vz;
    }
  const double n = g->n_views;
  g->sod_mm = sod / n;
  g->sdd_mm = sdd / n;
  g->pitch_u = pu / n;
  g->offset_u = ou / n;
  if (g->beam == CTR_BEAM_CONE)
    {
      g->pitch_v_mm = pv / n;
      g->offset_v_mm = ov / n;
      g->rows_increase_with_v = vz >= 0;
    }
}

CtrGeometry *
ctr_geometry_new_from_vectors (CtrBeam beam, guint n_views, guint n_rows, guint n_cols,
                               const double *vectors, GError **error)
{
  g_return_val_if_fail (vectors != NULL || n_views == 0, NULL);
  if (beam == CTR_BEAM_PARALLEL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "per-view vectors describe fan or cone beam; parallel-beam vectors are not supported");
      return NULL;
    }
  if (n_views == 0 || n_rows == 0 || n_cols == 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY,
                   "a vector geometry needs at least one view, row and column (got %u, %u, %u)", n_views, n_rows,
                   n_cols);
      return NULL;
    }
  g_autoptr (CtrGeometry) g = ctr_geometry_try_new (beam, n_views, error);
  if (g == NULL)
    return NULL;
  g_autofree char *what = g_strdup_printf ("the vectors of %u views", n_views);
  g->vectors = ctr_memory_try_new ((gsize) n_views * VL, sizeof (double), FALSE, what, error);
  if (g->vectors == NULL)
    return NULL;
  memcpy (g->vectors, vectors, (gsize) n_views * VL * sizeof (double));
  g->n_rows = n_rows;
  g->n_cols = n_cols;
  g->shape = CTR_DETECTOR_FLAT;
  if (!ctr_geometry_validate (g, error))
    return NULL;
  fill_summary (g);
  return g_steal_pointer (&g);
}

gboolean
ctr_geometry_view_vectors (const CtrGeometry *g, guint view, double out[12])
{
  g_return_val_if_fail (g != NULL && view < g->n_views, FALSE);
  if (g->vectors != NULL)
    {
      memcpy (out, g->vectors + (gsize) view * VL, VL * sizeof (double));
      return TRUE;
    }
  const double b = g->angles[view], sb = sin (b), cb = cos (b);
  const double sv = g->rows_increase_with_v ? 1.0 : -1.0;
  const gboolean parallel = g->beam == CTR_BEAM_PARALLEL;
  const double r = parallel ? 0.0 : g->sod_mm, sdd = parallel ? 0.0 : g->sdd_mm;
  /* Curved: the tangent plane at the central column, pitch as arc length. */
  const gboolean curved = !parallel && g->shape == CTR_DETECTOR_CURVED;
  const double pu = curved ? g->pitch_u * g->sdd_mm : g->pitch_u;
  const double ou = curved ? g->offset_u * g->sdd_mm : g->offset_u;
  /* The detector is centred on the focal centre F (a helix moves it along
   * z); the source is F, or F moved by a flying focal spot. */
  const double fz = parallel ? 0.0 : ctr_geometry_source_z (g, view);
  out[3] = r * sb - sdd * sb + ou * cb;
  out[4] = -r * cb + sdd * cb + ou * sb;
  out[5] = fz + g->offset_v_mm;
  if (parallel)
    out[0] = out[1] = out[2] = 0.0;
  else
    ctr_geometry_source (g, view, out);
  out[6] = pu * cb;
  out[7] = pu * sb;
  out[8] = 0.0;
  out[9] = out[10] = 0.0;
  out[11] = sv * g->pitch_v_mm;
  if (g->beam == CTR_BEAM_FAN)
    out[5] = 0.0;
  return !parallel && !curved;
}

CtrGeometry *
ctr_geometry_to_vectors (const CtrGeometry *g, GError **error)
{
  g_return_val_if_fail (g != NULL, NULL);
  if (g->vectors != NULL)
    return ctr_geometry_try_copy (g, error);
  if (g->beam == CTR_BEAM_PARALLEL || g->shape == CTR_DETECTOR_CURVED)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "only flat fan- and cone-beam geometries have a vector form (this one is %s)",
                   g->beam == CTR_BEAM_PARALLEL ? "parallel beam" : "a curved detector");
      return NULL;
    }
  g_autofree char *what = g_strdup_printf ("the vectors of %u views", g->n_views);
  g_autofree double *vec = ctr_memory_try_new ((gsize) g->n_views * VL, sizeof (double), FALSE, what, error);
  if (vec == NULL)
    return NULL;
  for (guint k = 0; k < g->n_views; k++)
    ctr_geometry_view_vectors (g, k, vec + (gsize) k * VL);
  CtrGeometry *out = ctr_geometry_new_from_vectors (g->beam, g->n_views, g->n_rows, g->n_cols, vec, error);
  if (out != NULL && g->beam == CTR_BEAM_FAN)
    {
      out->pitch_v_mm = g->pitch_v_mm;
      out->offset_v_mm = g->offset_v_mm;
      out->rows_increase_with_v = g->rows_increase_with_v;
    }
  if (out != NULL)
    out->pixel_size_known = g->pixel_size_known;
  return out;
}

/* Source and the detector's corners (fan: its two ends) of view @w. */
static guint
key_points (CtrBeam beam, guint rows, guint cols, const double *w, double pts[5][3])
{
  memcpy (pts[0], w, 3 * sizeof (double));
  const double hu = cols * 0.5, hv = beam == CTR_BEAM_CONE ? rows * 0.5 : 0.0;
  guint n = 1;
  for (int a = -1; a <= 1; a += 2)
    for (int b = -1; b <= 1; b += 2)
      {
        if (beam == CTR_BEAM_FAN && b > 0)
          continue;
        for (int k = 0; k < 3; k++)
          pts[n][k] = w[3 + k] + a * hu * w[6 + k] + (beam == CTR_BEAM_CONE ? b * hv * w[9 + k] : 0.0);
        n++;
      }
  return n;
}

static const char *
point_name (guint i)
{
  return i == 0 ? "source" : "detector corner";
}

CtrGeometry *
ctr_geometry_circular_from_vectors (const CtrGeometry *g, double *max_dev_mm, GError **error)
{
  g_return_val_if_fail (g != NULL, NULL);
  if (max_dev_mm)
    *max_dev_mm = 0.0;
  if (g->vectors == NULL)
    return ctr_geometry_try_copy (g, error);
  g_autoptr (CtrGeometry) c = ctr_geometry_try_copy (g, error);
  if (c == NULL)
    return NULL;
  g_clear_pointer (&c->vectors, g_free);
  double worst = 0.0;
  guint worst_view = 0, worst_point = 0;
  for (guint k = 0; k < g->n_views; k++)
    {
      double want[12], given_pts[5][3], want_pts[5][3];
      ctr_geometry_view_vectors (c, k, want);
      const guint n = key_points (g->beam, g->n_rows, g->n_cols, g->vectors + (gsize) k * VL, given_pts);
      key_points (g->beam, g->n_rows, g->n_cols, want, want_pts);
      for (guint i = 0; i < n; i++)
        {
          double d[3] = { given_pts[i][0] - want_pts[i][0], given_pts[i][1] - want_pts[i][1],
                          given_pts[i][2] - want_pts[i][2] };
          double e = norm3 (d);
          if (e > worst)
            {
              worst = e;
              worst_view = k;
              worst_point = i;
            }
        }
    }
  if (max_dev_mm)
    *max_dev_mm = worst;
  const double tol = CTR_GEOMETRY_CIRCULAR_TOL * g->pitch_u;
  if (!(worst <= tol))
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the per-view vectors are not a circular orbit: view %u's %s lies %.3g mm from the best "
                   "circular description (SOD %.1f mm, SDD %.1f mm; at most %.2g mm accepted); FBP and FDK need "
                   "a circular orbit with an untilted detector — reconstruct with an iterative method "
                   "(sirt, sart, cgls, pwls)",
                   worst_view, point_name (worst_point), worst, c->sod_mm, c->sdd_mm, tol);
      return NULL;
    }
  return g_steal_pointer (&c);
}

const CtrGeometry *
ctr_geometry_as_circular (const CtrGeometry *g, CtrGeometry **owned, GError **error)
{
  *owned = NULL;
  if (g->vectors == NULL)
    return g;
  *owned = ctr_geometry_circular_from_vectors (g, NULL, error);
  return *owned;
}
