/* ctr-geometry.c — see ctr-geometry.h for the conventions (FORMAT.md). */
#include "data/ctr-geometry.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

CtrGeometry *
ctr_geometry_new (CtrBeam beam, guint n_views)
{
  CtrGeometry *g = g_new0 (CtrGeometry, 1);
  g->beam = beam;
  g->shape = CTR_DETECTOR_FLAT;
  g->n_views = n_views;
  g->n_rows = 1;
  g->n_cols = 1;
  g->pitch_u = 1.0;
  g->pitch_v_mm = 1.0;
  g->rows_increase_with_v = TRUE;
  g->pixel_size_known = TRUE;
  g->angles = g_new0 (double, MAX (n_views, 1));
  return g;
}

CtrGeometry *
ctr_geometry_try_new (CtrBeam beam, guint n_views, GError **error)
{
  g_autofree char *what = g_strdup_printf ("the angles of %u views", n_views);
  double *angles = ctr_memory_try_new (MAX (n_views, 1), sizeof (double), TRUE, what, error);
  if (angles == NULL)
    return NULL;
  CtrGeometry *g = ctr_geometry_new (beam, 0);
  g_free (g->angles);
  g->angles = angles;
  g->n_views = n_views;
  return g;
}

/* @n doubles of @src, or NULL (also when @src is NULL, without an error)
 * with CTR_ERROR_OUT_OF_MEMORY naming the per-view @what of @n_views. */
static double *
try_dup (const double *src, gsize n, const char *what, guint n_views, GError **error)
{
  if (src == NULL)
    return NULL;
  g_autofree char *name = g_strdup_printf ("the geometry's %s of %u views", what, n_views);
  double *d = ctr_memory_try_new (n, sizeof (double), FALSE, name, error);
  if (d != NULL)
    memcpy (d, src, n * sizeof (double));
  return d;
}

/* Views @first .. @first+@count−1 of @g (at least one angle, as
 * ctr_geometry_new), or NULL with CTR_ERROR_OUT_OF_MEMORY. */
static CtrGeometry *
copy_views (const CtrGeometry *g, guint first, guint count, GError **error)
{
  g_autoptr (CtrGeometry) s = g_memdup2 (g, sizeof *g);
  s->angles = s->source_z_mm = s->focal_shift = s->vectors = NULL;
  s->n_views = count;
  const gsize n = count, vl = CTR_GEOMETRY_VECTOR_LEN;
  if ((s->angles = try_dup (g->angles + first, MAX (n, 1), "angles", count, error)) == NULL)
    return NULL;
  if (n == 0)
    return g_steal_pointer (&s);
  if ((g->source_z_mm != NULL
       && (s->source_z_mm = try_dup (g->source_z_mm + first, n, "source z", count, error)) == NULL)
      || (g->focal_shift != NULL
          && (s->focal_shift = try_dup (g->focal_shift + 3 * (gsize) first, 3 * n, "focal-spot shifts", count,
                                        error)) == NULL)
      || (g->vectors != NULL
          && (s->vectors = try_dup (g->vectors + vl * first, vl * n, "vectors", count, error)) == NULL))
    return NULL;
  return g_steal_pointer (&s);
}

CtrGeometry *
ctr_geometry_try_copy (const CtrGeometry *g, GError **error)
{
  g_return_val_if_fail (g != NULL, NULL);
  return copy_views (g, 0, g->n_views, error);
}

CtrGeometry *
ctr_geometry_select_views (const CtrGeometry *g, guint first, guint count, GError **error)
{
  g_return_val_if_fail (g != NULL && count > 0 && first <= g->n_views && count <= g->n_views - first, NULL);
  return copy_views (g, first, count, error);
}

CtrGeometry *
ctr_geometry_copy (const CtrGeometry *g)
{
  g_return_val_if_fail (g != NULL, NULL);
  CtrGeometry *c = g_memdup2 (g, sizeof *g);
  c->angles = g_memdup2 (g->angles, sizeof (double) * MAX (g->n_views, 1));
  c->source_z_mm = g->source_z_mm ? g_memdup2 (g->source_z_mm, sizeof (double) * g->n_views) : NULL;
  c->focal_shift = g->focal_shift ? g_memdup2 (g->focal_shift, sizeof (double) * 3 * g->n_views) : NULL;
  if (g->vectors != NULL)
    c->vectors = g_memdup2 (g->vectors, sizeof (double) * CTR_GEOMETRY_VECTOR_LEN * g->n_views);
  return c;
}

void
ctr_geometry_free (CtrGeometry *g)
{
  if (g == NULL)
    return;
  g_free (g->angles);
  g_free (g->source_z_mm);
  g_free (g->focal_shift);
  g_free (g->vectors);
  g_free (g);
}

void
ctr_geometry_set_uniform_angles (CtrGeometry *g, double start_rad, double step_rad)
{
  for (guint k = 0; k < g->n_views; k++)
    g->angles[k] = start_rad + k * step_rad;
}

gboolean
ctr_geometry_set_source_z (CtrGeometry *g, double start_mm, double step_mm, GError **error)
{
  g_return_val_if_fail (g != NULL, FALSE);
  if (g->source_z_mm == NULL)
    {
      g_autofree char *what = g_strdup_printf ("the geometry's source z of %u views", g->n_views);
      if ((g->source_z_mm = ctr_memory_try_new (MAX (g->n_views, 1), sizeof (double), FALSE, what, error)) == NULL)
        return FALSE;
    }
  for (guint k = 0; k < g->n_views; k++)
    g->source_z_mm[k] = start_mm + k * step_mm;
  return TRUE;
}

static gboolean
positive_finite (double v)
{
  return isfinite (v) && v > 0.0;
}

static gboolean
in_range (double v, double lo, double hi)
{
  return v >= lo && v <= hi;  /* FALSE for NaN */
}

static int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* Two views at exactly the same angle: the first such pair (indices into
 * @g->angles), or FALSE. */
static gboolean
find_duplicate_angle (const CtrGeometry *g, guint *first, guint *second)
{
  if (g->n_views < 2)
    return FALSE;
  /* Sorted copy of (angle, index) pairs as doubles: the index rides in a
   * second array ordered by the angle. */
  g_autofree double *sorted = g_try_new (double, g->n_views);
  if (sorted == NULL)
    return FALSE;
  memcpy (sorted, g->angles, g->n_views * sizeof (double));
  qsort (sorted, g->n_views, sizeof (double), cmp_double);
  for (guint k = 1; k < g->n_views; k++)
    if (sorted[k] == sorted[k - 1])
      {
        const double a = sorted[k];
        *first = *second = G_MAXUINT;
        for (guint v = 0; v < g->n_views && *second == G_MAXUINT; v++)
          if (g->angles[v] == a)
            {
              if (*first == G_MAXUINT)
                *first = v;
              else
                *second = v;
            }
        return TRUE;
      }
  return FALSE;
}

/* ---- per-view vectors (ctr-geometry-vectors.h) ---- */

static double dot3 (const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void
cross3 (const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3 (const double a[3]) { return sqrt (dot3 (a, a)); }

void
ctr_geometry_vectors_normal (CtrBeam beam, const double *w, double n[3])
{
  double sd[3] = { w[3] - w[0], w[4] - w[1], w[5] - w[2] };
  if (beam == CTR_BEAM_FAN)
    {
      n[0] = -w[7];
      n[1] = w[6];
      n[2] = 0.0;
    }
  else
    cross3 (w + 6, w + 9, n);
  double len = norm3 (n);
  double s = dot3 (sd, n) < 0 ? -1.0 : 1.0;
  for (int k = 0; k < 3; k++)
    n[k] = s * n[k] / len;
}

static gboolean
vectors_validate (const CtrGeometry *g, GError **error)
{
#define FAIL(...) do { g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, __VA_ARGS__); return FALSE; } while (0)
  if (g->beam == CTR_BEAM_PARALLEL)
    FAIL ("per-view vectors describe fan or cone beam, not parallel beam");
  if (g->shape != CTR_DETECTOR_FLAT)
    FAIL ("per-view vectors describe a flat detector, not a curved one");
  for (guint k = 0; k < g->n_views; k++)
    {
      const double *w = g->vectors + (gsize) k * CTR_GEOMETRY_VECTOR_LEN;
      for (int i = 0; i < CTR_GEOMETRY_VECTOR_LEN; i++)
        if (!isfinite (w[i]))
          FAIL ("view %u: vector component %d is not a finite number", k, i);
      for (int i = 0; i < 6; i++)
        if (fabs (w[i]) > CTR_GEOMETRY_MAX_DISTANCE_MM)
          FAIL ("view %u: the %s lies %g mm from the isocentre; beyond %g km is implausible", k,
                i < 3 ? "source" : "detector centre", fabs (w[i]), CTR_GEOMETRY_MAX_DISTANCE_MM / 1e6);
      if (g->beam == CTR_BEAM_FAN && (w[2] != 0.0 || w[5] != 0.0 || w[8] != 0.0))
        FAIL ("view %u: fan-beam vectors lie in the plane z = 0 (source z %g, detector z %g, u z %g mm); "
              "use cone beam for a tilted orbit", k, w[2], w[5], w[8]);
      const double lu = norm3 (w + 6), lv = norm3 (w + 9);
      if (!(lu >= CTR_GEOMETRY_MIN_PITCH_MM && lu <= CTR_GEOMETRY_MAX_PITCH_MM))
        FAIL ("view %u: the column step u is %g mm long; a detector's pitch lies between %g and %g mm", k, lu,
              CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM);
      if (g->beam == CTR_BEAM_CONE)
        {
          if (!(lv >= CTR_GEOMETRY_MIN_PITCH_MM && lv <= CTR_GEOMETRY_MAX_PITCH_MM))
            FAIL ("view %u: the row step v is %g mm long; a detector's pitch lies between %g and %g mm", k, lv,
                  CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM);
          double c[3];
          cross3 (w + 6, w + 9, c);
          if (norm3 (c) < 1e-6 * lu * lv)
            FAIL ("view %u: the column step u and the row step v are parallel; they must span the detector plane", k);
        }
      double n[3];
      ctr_geometry_vectors_normal (g->beam, w, n);
      const double sd[3] = { w[3] - w[0], w[4] - w[1], w[5] - w[2] };
      const double sdd = dot3 (sd, n);
      if (!(sdd >= CTR_GEOMETRY_MIN_DISTANCE_MM))
        FAIL ("view %u: the source lies %g mm from the detector plane; it must lie in front of it "
              "(at least %g mm)", k, sdd, CTR_GEOMETRY_MIN_DISTANCE_MM);
    }
  return TRUE;
#undef FAIL
}

gboolean
ctr_geometry_validate (const CtrGeometry *g, GError **error)
{
#define FAIL(...) do { g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_GEOMETRY, __VA_ARGS__); return FALSE; } while (0)
  if (g == NULL)
    FAIL ("no geometry given");
  if (g->n_views == 0)
    FAIL ("the geometry has zero views");
  if (g->n_cols == 0 || g->n_rows == 0)
    FAIL ("the detector has %u rows x %u columns; both must be at least 1", g->n_rows, g->n_cols);
  if ((guint64) g->n_views * g->n_cols * g->n_rows > G_MAXUINT32 * (guint64) 4)
    FAIL ("%u views x %u rows x %u columns is too large", g->n_views, g->n_rows, g->n_cols);
  if (g->beam != CTR_BEAM_PARALLEL && g->beam != CTR_BEAM_FAN && g->beam != CTR_BEAM_CONE)
    FAIL ("unknown beam type %d", (int) g->beam);
  const gboolean curved = g->beam != CTR_BEAM_PARALLEL && g->shape == CTR_DETECTOR_CURVED;
  if (!positive_finite (g->pitch_u))
    FAIL ("detector column pitch must be positive, got %g", g->pitch_u);
  if (curved && !in_range (g->pitch_u, CTR_GEOMETRY_MIN_PITCH_RAD, G_PI_2))
    FAIL ("detector column pitch %g rad is implausible (a curved detector's pitch lies between %g and "
          "pi/2 rad)", g->pitch_u, CTR_GEOMETRY_MIN_PITCH_RAD);
  if (!curved && !in_range (g->pitch_u, CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM))
    FAIL ("detector column pitch %g mm is implausible (a detector's pitch lies between %g and %g mm)",
          g->pitch_u, CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM);
  if (!positive_finite (g->pitch_v_mm))
    FAIL ("detector row pitch must be positive, got %g mm", g->pitch_v_mm);
  if (!in_range (g->pitch_v_mm, CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM))
    FAIL ("detector row pitch %g mm is implausible (a detector's pitch lies between %g and %g mm)",
          g->pitch_v_mm, CTR_GEOMETRY_MIN_PITCH_MM, CTR_GEOMETRY_MAX_PITCH_MM);
  if (!isfinite (g->offset_u) || !isfinite (g->offset_v_mm))
    FAIL ("detector offsets must be finite numbers");
  if (fabs (g->offset_v_mm) > CTR_GEOMETRY_MAX_DISTANCE_MM
      || (!curved && fabs (g->offset_u) > CTR_GEOMETRY_MAX_DISTANCE_MM))
    FAIL ("detector offsets of %g and %g mm are implausible (at most %g mm)", g->offset_u, g->offset_v_mm,
          CTR_GEOMETRY_MAX_DISTANCE_MM);
  for (guint k = 0; k < g->n_views; k++)
    {
      if (!isfinite (g->angles[k]))
        FAIL ("view %u has a non-finite angle", k);
      if (fabs (g->angles[k]) > CTR_GEOMETRY_MAX_ANGLE_RAD)
        FAIL ("view %u has the angle %g rad; angles beyond ±%g rad (%.0f turns) are implausible", k,
              g->angles[k], CTR_GEOMETRY_MAX_ANGLE_RAD, CTR_GEOMETRY_MAX_ANGLE_RAD / (2 * G_PI));
    }
  if (g->vectors != NULL && (g->source_z_mm != NULL || g->focal_shift != NULL))
    FAIL ("a geometry has either per-view vectors or a helical source path (source z, flying focal spot), "
          "not both; write the helix into the vectors' sources and detector centres instead");
  if (g->vectors != NULL)  /* no circular orbit to check: the vectors' own checks */
    return vectors_validate (g, error);
  guint k1, k2;
  if (find_duplicate_angle (g, &k1, &k2))
    FAIL ("views %u and %u have the same angle (%.17g rad); every view must have its own angle "
          "(is the angle step 0?)", k1, k2, g->angles[k1]);
  if (g->source_z_mm == NULL && g->n_views > 1)
    {
      /* One circular orbit at one z: more than two turns is not an
       * acquisition but angles in degrees (72 views over 20,626.5 "rad"). */
      double lo = g->angles[0], hi = lo;
      for (guint k = 1; k < g->n_views; k++)
        {
          lo = MIN (lo, g->angles[k]);
          hi = MAX (hi, g->angles[k]);
        }
      if (hi - lo > CTR_GEOMETRY_MAX_CIRCULAR_TURNS * 2 * G_PI * (1 + 1e-9))
        FAIL ("the view angles span %g rad (%.1f turns) on a circular orbit; more than %d turns is not a scan: "
              "are they in degrees? Angles are in radians (%g° = %g rad)", hi - lo, (hi - lo) / (2 * G_PI),
              CTR_GEOMETRY_MAX_CIRCULAR_TURNS, hi - lo, (hi - lo) * G_PI / 180);
    }
  if (g->beam != CTR_BEAM_PARALLEL)
    {
      if (!positive_finite (g->sod_mm))
        FAIL ("source to isocentre distance must be positive, got %g mm", g->sod_mm);
      if (!positive_finite (g->sdd_mm))
        FAIL ("source to detector distance must be positive, got %g mm", g->sdd_mm);
      if (!in_range (g->sod_mm, CTR_GEOMETRY_MIN_DISTANCE_MM, CTR_GEOMETRY_MAX_DISTANCE_MM))
        FAIL ("source to isocentre distance %g mm is implausible (between %g mm and %g km)", g->sod_mm,
              CTR_GEOMETRY_MIN_DISTANCE_MM, CTR_GEOMETRY_MAX_DISTANCE_MM / 1e6);
      if (!in_range (g->sdd_mm, CTR_GEOMETRY_MIN_DISTANCE_MM, CTR_GEOMETRY_MAX_DISTANCE_MM))
        FAIL ("source to detector distance %g mm is implausible (between %g mm and %g km)", g->sdd_mm,
              CTR_GEOMETRY_MIN_DISTANCE_MM, CTR_GEOMETRY_MAX_DISTANCE_MM / 1e6);
      if (g->sdd_mm <= g->sod_mm)
        FAIL ("source to detector distance (%g mm) must exceed source to isocentre distance (%g mm)",
              g->sdd_mm, g->sod_mm);
      double umax = MAX (fabs (ctr_geometry_col_u (g, -0.5)), fabs (ctr_geometry_col_u (g, g->n_cols - 0.5)));
      if (g->shape == CTR_DETECTOR_CURVED && umax >= G_PI_2)
        FAIL ("a curved detector's fan reaches %g rad from the central ray; it must stay below pi/2 "
              "(is the column pitch in radians?)", umax);
      double gamma = g->shape == CTR_DETECTOR_CURVED ? umax : atan (umax / g->sdd_mm);
      if (g->sod_mm * sin (gamma) <= 0.0)
        FAIL ("the fan covers no field of view");
    }
  if ((g->source_z_mm != NULL || g->focal_shift != NULL) && g->beam != CTR_BEAM_CONE)
    FAIL ("a source z per view or a flying focal spot needs cone beam (several detector rows or a helix)");
  for (guint k = 0; g->source_z_mm != NULL && k < g->n_views; k++)
    if (!isfinite (g->source_z_mm[k]) || fabs (g->source_z_mm[k]) > CTR_GEOMETRY_MAX_DISTANCE_MM)
      FAIL ("view %u has the source z %g mm; it must be finite and within %g km", k, g->source_z_mm[k],
            CTR_GEOMETRY_MAX_DISTANCE_MM / 1e6);
  for (guint k = 0; g->focal_shift != NULL && k < g->n_views; k++)
    {
      const double *f = g->focal_shift + 3 * k;
      if (!isfinite (f[0]) || !isfinite (f[1]) || !isfinite (f[2]))
        FAIL ("view %u has a non-finite focal-spot shift", k);
      if (fabs (f[0]) >= G_PI_2 || fabs (f[2]) >= 0.5 * g->sod_mm)
        FAIL ("view %u: the focal spot is shifted by %g rad and %g mm radially; at most pi/2 and half "
              "the source to isocentre distance", k, f[0], f[2]);
    }
  if (ctr_geometry_is_helical (g) && g->n_views > 1)
    {
      const double dir = g->angles[g->n_views - 1] > g->angles[0] ? 1.0 : -1.0;
      for (guint k = 1; k < g->n_views; k++)
        if (!(dir * (g->angles[k] - g->angles[k - 1]) > 0.0))
          FAIL ("a helical scan's view angles must increase (or decrease) from view to view; view %u "
                "is at %g rad after %g rad", k, g->angles[k], g->angles[k - 1]);
    }
  return TRUE;
#undef FAIL
}

double
ctr_geometry_col_u (const CtrGeometry *g, double col)
{
  return (col - (g->n_cols - 1) * 0.5) * g->pitch_u + g->offset_u;
}

double
ctr_geometry_u_col (const CtrGeometry *g, double u)
{
  return (u - g->offset_u) / g->pitch_u + (g->n_cols - 1) * 0.5;
}

double
ctr_geometry_row_v (const CtrGeometry *g, double row)
{
  double v = (row - (g->n_rows - 1) * 0.5) * g->pitch_v_mm;
  if (!g->rows_increase_with_v)
    v = -v;
  return v + g->offset_v_mm;
}

guint
ctr_geometry_slice_row (const CtrGeometry *g, guint slice)
{
  g_return_val_if_fail (slice < g->n_rows, 0);
  return g->rows_increase_with_v ? slice : g->n_rows - 1 - slice;
}

void
ctr_geometry_ray (const CtrGeometry *g, guint view, double col,
                  double origin[2], double dir[2])
{
  if (g->vectors != NULL)
    {
      double o[3], d[3];
      ctr_cone_ray (g, view, col, (g->n_rows - 1) * 0.5, o, d);
      const double n = hypot (d[0], d[1]);
      origin[0] = o[0];
      origin[1] = o[1];
      dir[0] = d[0] / n;
      dir[1] = d[1] / n;
      return;
    }
  const double b = g->angles[view];
  const double sb = sin (b), cb = cos (b);
  /* d0: central ray direction (source → isocentre); eu: detector u axis. */
  const double d0[2] = { -sb, cb };
  const double eu[2] = { cb, sb };
  const double u = ctr_geometry_col_u (g, col);

  if (g->beam == CTR_BEAM_PARALLEL)
    {
      origin[0] = u * eu[0];
      origin[1] = u * eu[1];
      dir[0] = d0[0];
      dir[1] = d0[1];
      return;
    }

  origin[0] = g->sod_mm * sb;
  origin[1] = -g->sod_mm * cb;
  double cg, sg;
  if (g->shape == CTR_DETECTOR_CURVED)
    {
      cg = cos (u);
      sg = sin (u);
    }
  else
    {
      double n = hypot (g->sdd_mm, u);
      cg = g->sdd_mm / n;
      sg = u / n;
    }
  dir[0] = cg * d0[0] + sg * eu[0];
  dir[1] = cg * d0[1] + sg * eu[1];
}

/* ---- helical scans (ctr-helix.h has the frame) ---- */

gboolean
ctr_geometry_is_helical (const CtrGeometry *g)
{
  if (g == NULL || g->beam != CTR_BEAM_CONE || g->source_z_mm == NULL || g->n_views < 2)
    return FALSE;
  double lo = g->source_z_mm[0], hi = lo;
  for (guint k = 1; k < g->n_views; k++)
    {
      lo = MIN (lo, g->source_z_mm[k]);
      hi = MAX (hi, g->source_z_mm[k]);
    }
  return hi - lo > 1e-3;
}

void
ctr_geometry_source (const CtrGeometry *g, guint view, double s[3])
{
  if (g->vectors != NULL)
    {
      memcpy (s, g->vectors + (gsize) view * CTR_GEOMETRY_VECTOR_LEN, 3 * sizeof (double));
      return;
    }
  double b = g->angles[view], r = g->sod_mm, z = ctr_geometry_source_z (g, view);
  if (g->focal_shift != NULL)
    {
      const double *f = g->focal_shift + 3 * (gsize) view;
      b += f[0];
      z += f[1];
      r += f[2];
    }
  s[0] = r * sin (b);
  s[1] = -r * cos (b);
  s[2] = z;
}

/* The detector point of (@col, @row) of circular-orbit @view (detector
 * centred on the focal centre, flat or curved). */
static void
detector_point (const CtrGeometry *g, guint view, double col, double row, double p[3])
{
  const double b = g->angles[view], sb = sin (b), cb = cos (b);
  const double u = ctr_geometry_col_u (g, col), v = ctr_geometry_row_v (g, row);
  double a, t;  /* along c (towards the isocentre) and along e */
  if (g->shape == CTR_DETECTOR_CURVED)
    {
      a = g->sdd_mm * cos (u);
      t = g->sdd_mm * sin (u);
    }
  else
    {
      a = g->sdd_mm;
      t = u;
    }
  /* F + a·c + t·e + v·ẑ, c = (−sin b, cos b), e = (cos b, sin b). */
  p[0] = g->sod_mm * sb - a * sb + t * cb;
  p[1] = -g->sod_mm * cb + a * cb + t * sb;
  p[2] = ctr_geometry_source_z (g, view) + v;
}

double
ctr_geometry_slice_width_mm (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_CONE)
    return g->pitch_v_mm * g->sod_mm / g->sdd_mm;
  return g->pitch_v_mm;
}

double
ctr_helix_feed_mm (const CtrGeometry *g)
{
  if (!ctr_geometry_is_helical (g))
    return 0.0;
  const guint n = g->n_views - 1;
  const double db = fabs (g->angles[n] - g->angles[0]);
  if (!(db > 0))
    return 0.0;
  return (g->source_z_mm[n] - g->source_z_mm[0]) * 2.0 * G_PI / db;
}

double
ctr_helix_pitch (const CtrGeometry *g)
{
  const double w = ctr_geometry_slice_width_mm (g) * g->n_rows;
  return w > 0 ? fabs (ctr_helix_feed_mm (g)) / w : 0.0;
}

void
ctr_cone_ray_ends (const CtrGeometry *g, guint view, double col, double row,
                   double origin[3], double point[3])
{
  if (g->vectors != NULL)
    {
      /* detector point = D + a·u + b·v */
      const double *w = g->vectors + (gsize) view * CTR_GEOMETRY_VECTOR_LEN;
      const double a = col - (g->n_cols - 1) * 0.5;
      const double b = g->beam == CTR_BEAM_CONE ? row - (g->n_rows - 1) * 0.5 : 0.0;
      for (guint k = 0; k < 3; k++)
        {
          origin[k] = w[k];
          point[k] = w[3 + k] + a * w[6 + k] + b * w[9 + k];
        }
      return;
    }
  /* The frame of ctr-helix.h: detector centred on the focal centre, the
   * ray from the (possibly shifted) source to the detector point. */
  ctr_geometry_source (g, view, origin);
  detector_point (g, view, col, row, point);
}

void
ctr_cone_ray (const CtrGeometry *g, guint view, double col, double row,
              double origin[3], double dir[3])
{
  double d[3];
  if (g->vectors != NULL)
    {
      /* detector point − source = D − S + a·u + b·v */
      const double *w = g->vectors + (gsize) view * CTR_GEOMETRY_VECTOR_LEN;
      const double a = col - (g->n_cols - 1) * 0.5;
      const double b = g->beam == CTR_BEAM_CONE ? row - (g->n_rows - 1) * 0.5 : 0.0;
      for (guint k = 0; k < 3; k++)
        {
          origin[k] = w[k];
          d[k] = w[3 + k] - w[k] + a * w[6 + k] + b * w[9 + k];
        }
    }
  else
    {
      /* The frame of ctr-helix.h: detector centred on the focal centre,
       * the ray from the (possibly shifted) source to the detector point. */
      double p[3];
      ctr_geometry_source (g, view, origin);
      detector_point (g, view, col, row, p);
      for (guint k = 0; k < 3; k++)
        d[k] = p[k] - origin[k];
    }
  const double n = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  for (guint k = 0; k < 3; k++)
    dir[k] = d[k] / n;
}

/* Pinhole matrix of a view given by vectors: with M = [u v (D − S)] (as
 * columns), X − S = λ·M·(a, b, 1)ᵀ for the detector point (a, b) (in steps
 * from D) that X projects to, so (λa, λb, λ) = M⁻¹(X − S).  Scaled by the
 * source's distance to the detector plane, λ becomes the depth along the
 * detector normal in mm (the circular h2); then column = a + (cols−1)/2 and
 * row = b + (rows−1)/2. */
static void
projection_matrix_vectors (const CtrGeometry *g, guint view, double P[12])
{
  const double *w = g->vectors + (gsize) view * CTR_GEOMETRY_VECTOR_LEN;
  const double m[3][3] = { { w[6], w[9], w[3] - w[0] },
                           { w[7], w[10], w[4] - w[1] },
                           { w[8], w[11], w[5] - w[2] } };
  double inv[3][3];
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                     - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                     + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      {
        /* adjugate: cofactor of m[c][r] */
        const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
        inv[r][c] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
      }
  /* depth scale: |D − S| projected on the normal, i.e. 1/‖third row of M⁻¹‖ */
  const double scale = 1.0 / sqrt (inv[2][0] * inv[2][0] + inv[2][1] * inv[2][1] + inv[2][2] * inv[2][2]);
  const double c0 = (g->n_cols - 1) * 0.5, r0 = (g->n_rows - 1) * 0.5;
  for (int c = 0; c < 3; c++)
    {
      P[c] = scale * (inv[0][c] + c0 * inv[2][c]);
      P[4 + c] = scale * (inv[1][c] + r0 * inv[2][c]);
      P[8 + c] = scale * inv[2][c];
    }
  for (int r = 0; r < 3; r++)
    P[4 * r + 3] = -(P[4 * r] * w[0] + P[4 * r + 1] * w[1] + P[4 * r + 2] * w[2]);
}

void
ctr_geometry_projection_matrix (const CtrGeometry *g, guint view, double P[12])
{
  g_return_if_fail (g != NULL && view < g->n_views);
  if (g->vectors != NULL)
    {
      projection_matrix_vectors (g, view, P);
      return;
    }
  /* iFDK Eqs. 1-3 (M1 · M_rot · M0) in the FORMAT.md frame: source
   * S = R (sin b, -cos b, 0), d0 = (-sin b, cos b, 0), e_u = (cos b, sin b, 0),
   * e_v = +z.  Depth h2 = (X - S)·d0 = -x sin b + y cos b + R; the flat panel
   * at SDD gives u = SDD (X·e_u) / h2 and v = SDD z / h2; column and row then
   * follow the affine index maps of ctr_geometry_u_col / ctr_geometry_row_v. */
  const double b = g->angles[view], sb = sin (b), cb = cos (b), r = g->sod_mm;
  const double sv = g->rows_increase_with_v ? 1.0 : -1.0;
  const double c0 = ctr_geometry_u_col (g, 0.0);
  const double r0 = (g->n_rows - 1) * 0.5 - sv * g->offset_v_mm / g->pitch_v_mm;
  const double ku = g->sdd_mm / g->pitch_u, kv = sv * g->sdd_mm / g->pitch_v_mm;
  const double d[4] = { -sb, cb, 0.0, r };
  const double eu[4] = { cb, sb, 0.0, 0.0 };
  const double ez[4] = { 0.0, 0.0, 1.0, 0.0 };
  for (guint k = 0; k < 4; k++)
    {
      P[k] = ku * eu[k] + c0 * d[k];
      P[4 + k] = kv * ez[k] + r0 * d[k];
      P[8 + k] = d[k];
    }
}

static double
edge_radius (const CtrGeometry *g, double u)
{
  u = fabs (u);
  switch (g->beam)
    {
    case CTR_BEAM_PARALLEL:
      return u;
    case CTR_BEAM_FAN:
    case CTR_BEAM_CONE:
    default:
      if (g->shape == CTR_DETECTOR_CURVED)
        return g->sod_mm * sin (MIN (u, G_PI_2));
      return g->sod_mm * sin (atan (u / g->sdd_mm));
    }
}

/* Per-view vectors: the smallest disc about the axis that every view's
 * outer column edges enclose (the signed distance of each edge ray from the
 * axis; an edge pair on one side of the axis counts with its larger one, as
 * below). */
static double
fov_radius_vectors (const CtrGeometry *g)
{
  double r = G_MAXDOUBLE;
  for (guint k = 0; k < g->n_views; k++)
    {
      double o[2], d[2], e[2];
      for (int s = 0; s < 2; s++)
        {
          ctr_geometry_ray (g, k, s ? g->n_cols - 0.5 : -0.5, o, d);
          e[s] = o[0] * d[1] - o[1] * d[0];
        }
      const double here = (e[0] > 0) == (e[1] > 0) ? MAX (fabs (e[0]), fabs (e[1])) : MIN (fabs (e[0]), fabs (e[1]));
      r = MIN (r, here);
    }
  return r;
}

double
ctr_geometry_fov_radius_mm (const CtrGeometry *g)
{
  if (g->vectors != NULL)
    return fov_radius_vectors (g);
  double u0 = ctr_geometry_col_u (g, -0.5);
  double u1 = ctr_geometry_col_u (g, g->n_cols - 0.5);
  /* An offset detector that does not straddle the axis covers no centred disc;
   * report the larger side then (a half-fan scan covers that disc in 360°). */
  if (u0 > 0 || u1 < 0)
    return MAX (edge_radius (g, u0), edge_radius (g, u1));
  return MIN (edge_radius (g, u0), edge_radius (g, u1));
}

double
ctr_geometry_pitch_at_iso_mm (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_PARALLEL)
    return g->pitch_u;
  if (g->shape == CTR_DETECTOR_CURVED)
    return g->pitch_u * g->sod_mm;
  return g->pitch_u * g->sod_mm / g->sdd_mm;
}

double
ctr_geometry_angular_range (const CtrGeometry *g)
{
  if (g->n_views < 2)
    return 0.0;
  double lo = g->angles[0], hi = g->angles[0];
  for (guint k = 1; k < g->n_views; k++)
    {
      lo = MIN (lo, g->angles[k]);
      hi = MAX (hi, g->angles[k]);
    }
  double span = hi - lo;
  return span + span / (g->n_views - 1);
}

double
ctr_geometry_half_fan_angle (const CtrGeometry *g)
{
  if (g->beam == CTR_BEAM_PARALLEL)
    return 0.0;
  double u = MAX (fabs (ctr_geometry_col_u (g, -0.5)), fabs (ctr_geometry_col_u (g, g->n_cols - 0.5)));
  return g->shape == CTR_DETECTOR_CURVED ? u : atan (u / g->sdd_mm);
}

char *
ctr_geometry_coverage_note (const CtrGeometry *g)
{
  if (g == NULL || g->n_views < 2 || g->vectors != NULL || ctr_geometry_is_helical (g))
    return NULL;
  const double range = ctr_geometry_angular_range (g);
  const double step = range / g->n_views;
  const double fan = 2.0 * ctr_geometry_half_fan_angle (g);
  const double need = G_PI + fan;
  if (range + step >= need)
    return NULL;
  if (g->beam == CTR_BEAM_PARALLEL)
    return g_strdup_printf ("the views cover %.1f° of the 180° complete parallel-beam data need: a limited-angle "
                            "scan; analytic images will show streaks along the missing directions, iterative ones "
                            "fewer", range * 180 / G_PI);
  return g_strdup_printf ("the views cover %.1f° of the %.1f° (180° + the %.1f° fan) complete data need: a "
                          "limited-angle scan; analytic images will show streaks along the missing directions, "
                          "iterative ones fewer", range * 180 / G_PI, need * 180 / G_PI, fan * 180 / G_PI);
}

char *
ctr_geometry_describe (const CtrGeometry *g)
{
  const char *beam = g->beam == CTR_BEAM_PARALLEL ? "parallel" : g->beam == CTR_BEAM_FAN ? "fan" : "cone";
  const char *shape = g->beam == CTR_BEAM_PARALLEL ? "" : g->shape == CTR_DETECTOR_CURVED ? ", curved detector" : ", flat detector";
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%s beam%s, %u views over %.1f°, %u rows × %u columns",
                          beam, shape, g->n_views, ctr_geometry_angular_range (g) * 180.0 / G_PI,
                          g->n_rows, g->n_cols);
  if (g->beam != CTR_BEAM_PARALLEL)
    g_string_append_printf (s, ", SOD %.1f mm, SDD %.1f mm%s", g->sod_mm, g->sdd_mm,
                            g->vectors != NULL ? " (means of per-view vectors)" : "");
  g_string_append_printf (s, ", field of view Ø %.1f mm", 2.0 * ctr_geometry_fov_radius_mm (g));
  if (ctr_geometry_is_helical (g))
    {
      const double z0 = g->source_z_mm[0], z1 = g->source_z_mm[g->n_views - 1];
      g_string_append_printf (s, "; helical, table feed %.3g mm per rotation (pitch %.3g), slice width %.3g mm, "
                              "source at table %.2f … %.2f mm",
                              fabs (ctr_helix_feed_mm (g)), ctr_helix_pitch (g), ctr_geometry_slice_width_mm (g),
                              ctr_geometry_table_mm (g, z0), ctr_geometry_table_mm (g, z1));
    }
  if (g->focal_shift != NULL)
    g_string_append (s, "; flying focal spot");
  return g_string_free (s, FALSE);
}
