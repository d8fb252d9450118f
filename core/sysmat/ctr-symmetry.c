/* ctr-symmetry.c — symmetry group, view orbits and pixel orbits (see
 * ctr-symmetry.h; cuART §3.1, Eq. 2). */
#include "sysmat/ctr-symmetry.h"

#include "base/ctr-error.h"
#include "base/ctr-memory.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* D4 element e as an integer 2×2 matrix acting on (x, y), y up. */
static void
d4_matrix (guint e, int m[2][2])
{
  static const int rot[4][2][2] = {
    { { 1, 0 }, { 0, 1 } }, { { 0, -1 }, { 1, 0 } }, { { -1, 0 }, { 0, -1 } }, { { 0, 1 }, { -1, 0 } }
  };
  const int (*r)[2] = rot[e & 3];
  int f = e >= 4 ? -1 : 1;  /* reflection y → -y applied first */
  m[0][0] = r[0][0];
  m[0][1] = r[0][1] * f;
  m[1][0] = r[1][0];
  m[1][1] = r[1][1] * f;
}

static guint
d4_compose (guint a, guint b)
{
  int ma[2][2], mb[2][2], p[2][2];
  d4_matrix (a, ma);
  d4_matrix (b, mb);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      p[i][j] = ma[i][0] * mb[0][j] + ma[i][1] * mb[1][j];
  for (guint e = 0; e < 8; e++)
    {
      int m[2][2];
      d4_matrix (e, m);
      if (memcmp (m, p, sizeof m) == 0)
        return e;
    }
  g_assert_not_reached ();
  return 0;
}

static gboolean
grid_admits (const CtrGrid *grid, guint e)
{
  int m[2][2];
  d4_matrix (e, m);
  const double tol = 1e-6 * MIN (grid->dx, grid->dy);
  if (fabs (grid->cx) > tol || fabs (grid->cy) > tol)
    return e == 0;
  if (m[0][0] == 0)  /* swaps the axes */
    return grid->nx == grid->ny && fabs (grid->dx - grid->dy) <= 1e-9 * grid->dx;
  return TRUE;
}

static void
apply (const int m[2][2], const double v[2], double out[2])
{
  out[0] = m[0][0] * v[0] + m[0][1] * v[1];
  out[1] = m[1][0] * v[0] + m[1][1] * v[1];
}

typedef struct {
  double key;
  guint view;
} Key;

static int
key_cmp (const void *a, const void *b)
{
  double d = ((const Key *) a)->key - ((const Key *) b)->key;
  return d < 0 ? -1 : d > 0;
}

/* The direction that identifies a view: source position (fan) or ray
 * direction (parallel). */
static void
view_vector (const CtrGeometry *g, guint v, double out[2])
{
  double o[2], d[2];
  ctr_geometry_ray (g, v, 0.5 * (g->n_cols - 1), o, d);
  if (g->beam == CTR_BEAM_PARALLEL)
    {
      out[0] = d[0];
      out[1] = d[1];
    }
  else
    {
      out[0] = o[0];
      out[1] = o[1];
    }
}

/* How closely a view must coincide with the image of another.  Angles come
 * as float32 more often than not (scanners' files, TIFF datasets, ASTRA and
 * CIL geometries: gel-fan states 90° as 1.5707964): a float's rounding of an
 * angle up to 2π is up to 2.4e-7 rad, so views that are meant to be the
 * images of one another differ by that much.  Within ANGLE_TOL (rad, and
 * ANGLE_TOL·SOD in position) the image is taken for the view: a ray then
 * moves by at most ANGLE_TOL times the grid's half-diagonal (4e-5 mm on a
 * 30 mm grid), far below a pixel and below the angles' own precision. */
#define ANGLE_TOL 1e-6

/* Is view w the image of view v under e?  Checked on three rays. */
static gboolean
rays_match (const CtrGeometry *g, guint v, guint e, guint w)
{
  int m[2][2];
  d4_matrix (e, m);
  const gboolean reflect = e >= 4;
  const double scale = MAX (1.0, g->sod_mm);
  const guint cols[3] = { 0, g->n_cols / 2, g->n_cols - 1 };
  for (int q = 0; q < 3; q++)
    {
      guint j = cols[q], jj = reflect ? g->n_cols - 1 - j : j;
      double o[2], d[2], mo[2], md[2], o2[2], d2[2];
      ctr_geometry_ray (g, v, j, o, d);
      apply (m, o, mo);
      apply (m, d, md);
      ctr_geometry_ray (g, w, jj, o2, d2);
      if (fabs (md[0] - d2[0]) > ANGLE_TOL || fabs (md[1] - d2[1]) > ANGLE_TOL)
        return FALSE;
      double cross = (mo[0] - o2[0]) * d2[1] - (mo[1] - o2[1]) * d2[0];
      if (fabs (cross) > ANGLE_TOL * scale)
        return FALSE;
    }
  return TRUE;
}

/* View that is the image of v under e, or -1. */
static gint32
find_image (const CtrGeometry *g, const Key *keys, guint v, guint e)
{
  int m[2][2];
  double vec[2], mv[2];
  d4_matrix (e, m);
  view_vector (g, v, vec);
  apply (m, vec, mv);
  double k = atan2 (mv[1], mv[0]);
  const guint n = g->n_views;
  const double tol = ANGLE_TOL;
  /* First key >= k - tol (with wrap-around at ±π checked by a second probe). */
  for (int wrap = -1; wrap <= 1; wrap++)
    {
      double kk = k + wrap * 2 * G_PI;
      guint lo = 0, hi = n;
      while (lo < hi)
        {
          guint mid = (lo + hi) / 2;
          if (keys[mid].key < kk - tol)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint i = lo; i < n && keys[i].key <= kk + tol; i++)
        if (rays_match (g, v, e, keys[i].view))
          return (gint32) keys[i].view;
    }
  return -1;
}

static const char *
group_name (guint order, guint mask)
{
  switch (order)
    {
    case 8: return "D4";
    case 4: return mask == 0x0f ? "C4" : "D2";
    case 2: return mask == 0x05 ? "C2" : "reflection";
    default: return "none";
    }
}

/* The group and the view orbits of @s (n_views, n_cols set): O(views · K)
 * time and memory.  @centred: (out): whether the grid is centred.  FALSE
 * with CTR_ERROR_OUT_OF_MEMORY when the view tables cannot be allocated. */
static gboolean
find_views (CtrSymmetry *s, const CtrGeometry *g, const CtrGrid *grid, guint allowed, gboolean *centred_out,
            GError **error)
{
  const guint nv = g->n_views;
  const char *what = "the symmetry's view tables";
  g_autofree Key *keys = ctr_memory_try_new (nv, sizeof (Key), FALSE, what, error);
  if (keys == NULL)
    return FALSE;
  for (guint v = 0; v < nv; v++)
    {
      double vec[2];
      view_vector (g, v, vec);
      keys[v].key = atan2 (vec[1], vec[0]);
      keys[v].view = v;
    }
  qsort (keys, nv, sizeof (Key), key_cmp);

  /* Elements that pair at least two views (probing every view is cheap: 8·V
   * binary searches). */
  guint realised = 1;
  gboolean centred = grid_admits (grid, 2);
  for (guint e = 1; e < 8; e++)
    {
      if (!(allowed & (1u << e)) || !grid_admits (grid, e))
        continue;
      /* A view mapped onto itself (a reflection about its own central ray)
       * saves nothing: only pairs of distinct views count. */
      for (guint v = 0; v < nv && !(realised & (1u << e)); v++)
        {
          gint32 w = find_image (g, keys, v, e);
          if (w >= 0 && (guint) w != v)
            realised |= 1u << e;
        }
    }
  /* Subgroup generated by them. */
  guint h = realised;
  for (gboolean grew = TRUE; grew;)
    {
      grew = FALSE;
      for (guint a = 0; a < 8; a++)
        for (guint b = 0; b < 8; b++)
          if ((h & (1u << a)) && (h & (1u << b)))
            {
              guint c = d4_compose (a, b);
              if (!(h & (1u << c)))
                {
                  h |= 1u << c;
                  grew = TRUE;
                }
            }
    }
  CtrSymGroup *G = &s->group;
  G->order = 0;
  for (guint e = 0; e < 8; e++)
    if (h & (1u << e))
      G->elem[G->order++] = (guint8) e;
  const guint K = G->order;
  for (guint a = 0; a < K; a++)
    {
      G->det[a] = G->elem[a] >= 4 ? -1 : 1;
      for (guint b = 0; b < K; b++)
        {
          guint c = d4_compose (G->elem[a], G->elem[b]);
          for (guint k = 0; k < K; k++)
            if (G->elem[k] == c)
              G->compose[a][b] = (guint8) k;
        }
    }
  G->name = group_name (K, h);

  /* View orbits, greedily from the first unassigned view. */
  if (!(s->view_orbit = ctr_memory_try_new (nv, sizeof (guint), FALSE, what, error))
      || !(s->view_lane = ctr_memory_try_new (nv, sizeof (guint8), FALSE, what, error))
      || !(s->orbit_view = ctr_memory_try_new (nv, sizeof (guint), FALSE, what, error))
      || !(s->lane_view = ctr_memory_try_new ((gsize) nv * K, sizeof (gint32), FALSE, what, error)))
    return FALSE;
  for (guint v = 0; v < nv; v++)
    s->view_orbit[v] = G_MAXUINT;
  for (guint v = 0; v < nv; v++)
    {
      if (s->view_orbit[v] != G_MAXUINT)
        continue;
      guint o = s->n_orbits++;
      s->orbit_view[o] = v;
      gint32 *lanes = s->lane_view + (gsize) o * K;
      for (guint k = 0; k < K; k++)
        {
          gint32 w = k == 0 ? (gint32) v : find_image (g, keys, v, G->elem[k]);
          if (w >= 0 && s->view_orbit[w] != G_MAXUINT)
            w = -1;  /* repeated lane, or already in another orbit */
          lanes[k] = w;
          if (w >= 0)
            {
              s->view_orbit[w] = o;
              s->view_lane[w] = (guint8) k;
            }
        }
    }
  *centred_out = centred;
  return TRUE;
}

guint
ctr_symmetry_count_orbits (const CtrGeometry *g, const CtrGrid *grid, guint allowed, guint *order)
{
  CtrSymmetry s = { 0 };
  s.n_views = g->n_views;
  s.n_cols = g->n_cols;
  gboolean centred;
  /* Out of memory for the view tables: no symmetry (every view stored), the
   * larger estimate. */
  if (!find_views (&s, g, grid, allowed, &centred, NULL))
    {
      s.group.order = 1;
      s.n_orbits = g->n_views;
    }
  if (order != NULL)
    *order = s.group.order;
  g_free (s.view_orbit);
  g_free (s.view_lane);
  g_free (s.orbit_view);
  g_free (s.lane_view);
  return s.n_orbits;
}

CtrSymmetry *
ctr_symmetry_find (const CtrGeometry *g, const CtrGrid *grid, guint allowed, GError **error)
{
  CtrSymmetry *s = g_new0 (CtrSymmetry, 1);
  const guint nv = g->n_views;
  s->n_views = nv;
  s->n_cols = g->n_cols;
  s->nx = grid->nx;
  s->ny = grid->ny;

  gboolean centred = FALSE;
  if (!find_views (s, g, grid, allowed, &centred, error))
    {
      ctr_symmetry_free (s);
      return NULL;
    }
  const CtrSymGroup *G = &s->group;
  const guint K = G->order;

  /* Pixel orbits: doubled centred coordinates are integers. */
  const guint nx = grid->nx, ny = grid->ny;
  const gsize np = (gsize) nx * ny;
  const char *what = "the symmetry's pixel tables";
  if (!(s->pixel_rep = ctr_memory_try_new (np, sizeof (guint32), FALSE, what, error))
      || !(s->pixel_slot = ctr_memory_try_new (np, sizeof (guint8), FALSE, what, error))
      || !(s->rep_pixel = ctr_memory_try_new (np * K, sizeof (guint32), FALSE, what, error))   /* at most np reps */
      || !(s->rep_stabilised = ctr_memory_try_new (np, sizeof (guint8), TRUE, what, error)))
    {
      ctr_symmetry_free (s);
      return NULL;
    }
  memset (s->pixel_rep, 0xff, np * sizeof (guint32));
  int mats[8][2][2];
  for (guint k = 0; k < K; k++)
    d4_matrix (G->elem[k], mats[k]);
  for (gsize q = 0; q < np; q++)
    {
      if (s->pixel_rep[q] != G_MAXUINT32)
        continue;
      guint32 r = s->n_reps++;
      int px = 2 * (int) (q % nx) - (int) (nx - 1), py = (int) (ny - 1) - 2 * (int) (q / nx);
      for (guint k = 0; k < K; k++)
        {
          int (*m)[2] = mats[k];
          int qx = m[0][0] * px + m[0][1] * py, qy = m[1][0] * px + m[1][1] * py;
          guint32 p = (guint32) (((int) (ny - 1) - qy) / 2 * (int) nx + (qx + (int) (nx - 1)) / 2);
          s->rep_pixel[(gsize) r * K + k] = p;
          if (s->pixel_rep[p] == G_MAXUINT32)
            {
              s->pixel_rep[p] = r;
              s->pixel_slot[p] = (guint8) k;
            }
          else
            s->rep_stabilised[r] = 1;
        }
    }
  /* Shrinking: where the allocator cannot, the larger blocks stay. */
  gpointer shrunk = g_try_realloc_n (s->rep_pixel, MAX (s->n_reps, 1), (gsize) K * sizeof (guint32));
  if (shrunk != NULL)
    s->rep_pixel = shrunk;
  shrunk = g_try_realloc (s->rep_stabilised, MAX (s->n_reps, 1));
  if (shrunk != NULL)
    s->rep_stabilised = shrunk;
  s->n_parts = 1;
  s->part_start = g_new (guint32, 2);
  s->part_start[0] = 0;
  s->part_start[1] = s->n_reps;

  if (K == 1)
    s->reason = g_strdup_printf ("no symmetry: %s; %u views stored as %u",
                                 !centred ? "the grid is not centred on the isocentre"
                                 : "no symmetry of the grid maps one acquired view onto another",
                                 nv, s->n_orbits);
  gboolean reflects = FALSE;   /* an element ≥ 4 (a reflection) in the group */
  for (guint k = 0; k < K; k++)
    reflects = reflects || G->elem[k] >= 4;
  if (K != 1)
    s->reason = g_strdup_printf ("%s (%u symmetries)%s: %u views in %u orbits (%.2f× fewer stored views)",
                                 G->name, K,
                                 K == 8 ? ": square grid centred on the isocentre, symmetric detector"
                                 : reflects ? "" : ": reflections do not pair views (detector offset or asymmetric angles)",
                                 nv, s->n_orbits, (double) nv / s->n_orbits);
  return s;
}

typedef struct {
  double angle;
  guint32 rep;
} RepAngle;

static int
rep_angle_cmp (const void *a, const void *b)
{
  const RepAngle *x = a, *y = b;
  if (x->angle != y->angle)
    return x->angle < y->angle ? -1 : 1;
  return x->rep < y->rep ? -1 : x->rep > y->rep;
}

typedef struct {
  guint part;
  guint64 key;
  guint32 rep;
} RepKey;

static int
rep_key_cmp (const void *a, const void *b)
{
  const RepKey *x = a, *y = b;
  if (x->part != y->part)
    return x->part < y->part ? -1 : 1;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->rep < y->rep ? -1 : x->rep > y->rep;
}

/* Index of pixel (x, y) along the Hilbert curve filling the 2^bits square
 * (the classic iterative xy → d conversion, rotating each quadrant). */
static guint64
hilbert_index (guint bits, guint32 x, guint32 y)
{
  guint64 d = 0;
  for (guint32 sq = bits ? 1u << (bits - 1) : 0; sq > 0; sq >>= 1)
    {
      const guint32 rx = (x & sq) != 0, ry = (y & sq) != 0;
      d += (guint64) sq * sq * ((3 * rx) ^ ry);
      if (ry == 0)
        {
          if (rx == 1)
            {
              x = sq - 1 - (x & (sq - 1));
              y = sq - 1 - (y & (sq - 1));
            }
          const guint32 t = x;
          x = y;
          y = t;
        }
      x &= sq - 1;
      y &= sq - 1;
    }
  return d;
}

gboolean
ctr_symmetry_partition (CtrSymmetry *s, guint n_parts, GError **error)
{
  const guint K = s->group.order, nx = s->nx, ny = s->ny;
  const guint32 nr = s->n_reps;
  n_parts = MAX (1, MIN (n_parts, MAX (nr, 1)));
  const char *what = "the symmetry's pixel tables";
  g_autofree RepAngle *ra = ctr_memory_try_new (nr, sizeof (RepAngle), FALSE, what, error);
  g_autofree guint *part = ra ? ctr_memory_try_new (nr, sizeof (guint), FALSE, what, error) : NULL;
  g_autofree RepKey *rk = part ? ctr_memory_try_new (nr, sizeof (RepKey), FALSE, what, error) : NULL;
  g_autofree guint32 *new_id = rk ? ctr_memory_try_new (nr, sizeof (guint32), FALSE, what, error) : NULL;
  g_autofree guint32 *rp = new_id ? ctr_memory_try_new ((gsize) nr * K, sizeof (guint32), FALSE, what, error) : NULL;
  g_autofree guint8 *st = rp ? ctr_memory_try_new (nr, sizeof (guint8), FALSE, what, error) : NULL;
  if (st == NULL)
    return FALSE;
  for (guint32 r = 0; r < nr; r++)
    {
      double best = 10.0;
      for (guint k = 0; k < K; k++)
        {
          guint32 q = s->rep_pixel[(gsize) r * K + k];
          int px = 2 * (int) (q % nx) - (int) (nx - 1), py = (int) (ny - 1) - 2 * (int) (q / nx);
          double a = (px == 0 && py == 0) ? 0.0 : atan2 (py, px);
          if (a < 0)
            a += 2 * G_PI;
          best = MIN (best, a);
        }
      ra[r].angle = best;
      ra[r].rep = r;
    }
  qsort (ra, nr, sizeof (RepAngle), rep_angle_cmp);
  for (guint32 i = 0; i < nr; i++)
    part[ra[i].rep] = (guint) ((guint64) i * n_parts / nr);
  g_clear_pointer (&ra, g_free);
  /* New ids: part by part; inside a part in the order of a Hilbert curve
   * through the reps' first pixels (MemXCT, Hidayetoğlu et al., TPDS 2022,
   * §3.2: pixels near one another in the plane are near one another in
   * memory, so the image gathers of a ray and of its neighbours share cache
   * lines; W1 0.85× the time of scan order here). */
  guint bits = 0;
  while ((1u << bits) < MAX (nx, ny))
    bits++;
  for (guint32 r = 0; r < nr; r++)
    {
      const guint32 q = s->rep_pixel[(gsize) r * K];
      rk[r].part = part[r];
      rk[r].key = hilbert_index (bits, q % nx, q / nx);
      rk[r].rep = r;
    }
  qsort (rk, nr, sizeof (RepKey), rep_key_cmp);
  g_free (s->part_start);
  s->n_parts = n_parts;
  s->part_start = g_new0 (guint32, n_parts + 1);   /* n_parts ≤ the reps: small */
  for (guint32 r = 0; r < nr; r++)
    s->part_start[part[r] + 1]++;
  for (guint p = 0; p < n_parts; p++)
    s->part_start[p + 1] += s->part_start[p];
  g_autofree guint32 *next = g_memdup2 (s->part_start, n_parts * sizeof (guint32));
  for (guint32 i = 0; i < nr; i++)
    new_id[rk[i].rep] = next[rk[i].part]++;
  for (guint32 r = 0; r < nr; r++)
    {
      memcpy (rp + (gsize) new_id[r] * K, s->rep_pixel + (gsize) r * K, K * sizeof (guint32));
      st[new_id[r]] = s->rep_stabilised[r];
    }
  for (gsize q = 0; q < (gsize) nx * ny; q++)
    s->pixel_rep[q] = new_id[s->pixel_rep[q]];
  g_free (s->rep_pixel);
  g_free (s->rep_stabilised);
  s->rep_pixel = g_steal_pointer (&rp);
  s->rep_stabilised = g_steal_pointer (&st);
  return TRUE;
}

void
ctr_symmetry_free (CtrSymmetry *s)
{
  if (s == NULL)
    return;
  g_free (s->orbit_view);
  g_free (s->lane_view);
  g_free (s->view_orbit);
  g_free (s->view_lane);
  g_free (s->pixel_rep);
  g_free (s->pixel_slot);
  g_free (s->rep_pixel);
  g_free (s->rep_stabilised);
  g_free (s->part_start);
  g_free (s->reason);
  g_free (s);
}
