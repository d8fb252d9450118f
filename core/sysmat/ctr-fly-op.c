/* ctr-fly-op.c — the fan and parallel-beam projector pair on the fly
 * (see ctr-fly-op.h).
 *
 * Forward: OpenMP over the rays of the subset; a thread computes a ray's
 * row into its own buffer (ctr_ray_weights) and dots it with every slice,
 * summing in the row's order as ctr_sysmat_apply_rows does, so one slice's
 * product is the CSR matrix's to the last bit.
 *
 * Adjoint, area model: the pixel sweep of ctr-area-sweep.h — each thread
 * owns a band of image rows and gathers into its pixels the weights of the
 * bins they project onto (the same closed form, to the bit, as the rows of
 * the forward product), four bins at a time with AVX2; no buckets.  It
 * applies wherever the closed form does (a grid in front of the source,
 * bins narrower than 45°, no per-view vectors); elsewhere, and for the
 * Joseph and Siddon models, the buckets below.  CTR_FLY_SWEEP=0 keeps the
 * buckets for side-by-side timing.
 *
 * Adjoint of orbit subsets and of other large products (elements at
 * least ACC_AMORTISE times the accumulators' floats: all views): each
 * thread adds its rays' rows into its own image accumulator, which are
 * then summed in thread order into the product (threads × image × slices
 * floats, ACC_MAX_BYTES at most, made on first use; an orbit's eight views
 * of rows amortise the clearing and the sum).  It replaces the buckets'
 * 12-byte write and read of every element by one addition in cache
 * (PWLS at 512², Joseph: an iteration 2× faster).  CTR_FLY_ACC=0 keeps
 * the buckets (side-by-side timing).
 *
 * Adjoint, otherwise: race-free without atomics and without per-thread
 * image copies, by pixel-row bands.  The rays are taken in rounds of CHUNK
 * rays per thread.  In a round each thread computes its rays' rows and sorts their
 * elements (pixel, weight, ray) into one bucket per band of image rows
 * (band b = rows [band_row[b], band_row[b + 1]), one band per thread); after
 * a barrier thread b applies every thread's bucket b to its own band, for
 * every slice.  Chosen over per-thread image accumulators because those
 * cost threads × image × slices of memory (what an on-the-fly operator is
 * for is saving memory) and a reduction of that size per product, which a
 * one-view subset (SART, parallel ART) would pay once per view; the bands
 * cost O(threads × CHUNK × row length) and no reduction.  The rows are
 * dealt to the threads statically and the buckets applied in thread order,
 * so every call sums each pixel in the same order: the same bits each time.
 *
 * With orbit subsets the operator uses the symmetry as the SCSR matrix does
 * (cuART §3, Eq. 2): it computes the rows of each orbit's canonical view
 * only and maps each to the orbit's other views (lane k: column
 * ctr_symmetry_lane_col, pixel elem[k](p) through the rep/slot tables), so
 * under D4 one row in eight is computed, and the rows are the SCSR
 * matrix's.
 *
 * The sequential update (ART, Kaczmarz; cuART Eq. 1) computes a ray's row
 * once and runs it over the slices one after another.
 *
 * The row sums and the subsets' overlaps κ: ctr-fly-sums.c; the state both
 * files share: ctr-fly-op-private.h.
 */
#include "sysmat/ctr-fly-op-private.h"
#include "base/ctr-error.h"
#include "base/ctr-format.h"
#include "base/ctr-memory.h"

#include <omp.h>
#include <math.h>
#include <string.h>

/* Rays per thread in one round of the adjoint, at least; and the elements
 * a round holds, about (12 bytes each: 24 MiB). */
#define CHUNK 128
#define ROUND_ELEMENTS 2.0e6
/* The per-thread image accumulators: at most this many bytes in all, used
 * for a product of at least ACC_AMORTISE elements a float of them. */
#define ACC_MAX_BYTES ((guint64) 64 << 20)
#define ACC_AMORTISE 4.0


static void
fly_op_finalize (CtrOperator *op)
{
  FlyOp *c = (FlyOp *) op;
  if (c->orbits)
    ctr_symmetry_free (c->orbits);
  for (guint t = 0; c->rows != NULL && t < c->nt; t++)
    ctr_rowbuf_clear (&c->rows[t]);
  for (guint q = 0; c->buckets != NULL && q < c->nt * c->nt; q++)
    {
      g_free (c->buckets[q].pix);
      g_free (c->buckets[q].w);
      g_free (c->buckets[q].ray);
    }
  g_free (c->rows);
  g_free (c->buckets);
  g_free (c->acc);
  g_free (c->band_row);
  g_free (c->row_band);
  g_free (c->r);
  g_free (c->upd);
  g_free (c->cs);
  g_free (c->ones);
  g_free (c->kappa);
  ctr_area_sweep_free (c->sweep);
  ctr_operator_clear (op);
  g_free (c);
}

/* Doubles @b's room; FALSE (b->failed set, @b as it was) when that cannot
 * be had. */
static gboolean
bucket_grow (Bucket *b)
{
  const gsize cap = MAX (1024, b->cap * 2);
  guint32 *pix = g_try_realloc_n (b->pix, cap, sizeof (guint32));
  if (pix != NULL)
    b->pix = pix;
  float *w = pix != NULL ? g_try_realloc_n (b->w, cap, sizeof (float)) : NULL;
  if (w != NULL)
    b->w = w;
  guint32 *ray = w != NULL ? g_try_realloc_n (b->ray, cap, sizeof (guint32)) : NULL;
  if (ray == NULL)
    {
      b->failed = TRUE;
      return FALSE;
    }
  b->ray = ray;
  b->cap = cap;
  return TRUE;
}

static inline void
bucket_push (Bucket *b, guint32 pix, float w, guint32 ray)
{
  if (G_UNLIKELY (b->len == b->cap) && !bucket_grow (b))
    return;
  b->pix[b->len] = pix;
  b->w[b->len] = w;
  b->ray[b->len] = ray;
  b->len++;
}

/* The computed row's pixels p rewritten in place as their place in the
 * pixel orbits, rep·K + slot (rep pixel_rep[p], slot pixel_slot[p]; K the
 * group's order, a power of two): two table reads an element, made once for
 * all the lanes instead of once a lane. */
static void
row_to_orbit_places (const FlyOp *c, CtrRowBuf *b)
{
  const CtrSymmetry *sy = c->orbits;
  guint32 *ci = b->col;
  for (gsize k = 0; k < b->len; k++)
    ci[k] = sy->pixel_rep[ci[k]] * c->K + sy->pixel_slot[ci[k]];
}

/* The pixel that lane @k (@cmp = compose[k]) sees at orbit place @q
 * (row_to_orbit_places): elem[k] of the place's pixel, rep_pixel[rep·K +
 * compose[k][slot]], one table read (the lanes of one place share its
 * 32-byte run of rep_pixel). */
static inline guint32
lane_pixel (const FlyOp *c, const guint8 *cmp, guint32 q)
{
  const guint32 m = c->K - 1;
  return c->orbits->rep_pixel[(q & ~m) | cmp[q & m]];
}

/* ------------------------------------------------------------ products -- */

/* Y[s][ray[r]] = the computed row's product with X[s] for each of its
 * @n_rays lanes, slices [0, ns): its pixels as they are, or, with orbits,
 * as row_to_orbit_places left them.  Sums in the row's order. */
static inline void
row_dots (const FlyOp *c, const CtrRowBuf *b, guint n_rays, const guint32 *ray, const guint *lane, const float *X,
          float *Y, guint ns)
{
  const guint64 np = c->np, nr = c->nr;
  const guint32 *ci = b->col;
  const float *va = b->val;
  const gint64 len = (gint64) b->len;
  for (guint r = 0; r < n_rays; r++)
    {
      const guint8 *cmp = c->orbits != NULL ? c->orbits->group.compose[lane[r]] : NULL;
      for (guint s = 0; s < ns; s++)
        {
          const float *x = X + (gsize) s * np;
          float acc = 0.f;
          if (cmp == NULL)
            for (gint64 k = 0; k < len; k++)
              acc += va[k] * x[ci[k]];
          else
            for (gint64 k = 0; k < len; k++)
              acc += va[k] * x[lane_pixel (c, cmp, ci[k])];
          Y[(gsize) s * nr + ray[r]] = acc;
        }
    }
}

/* Y[s][i] = a_i · X[s] for the rays i of @rs, slices [0, ns). */
static void
fly_forward_rays (FlyOp *c, const RaySet *rs, const float *X, float *Y, guint ns)
{
  const gint64 n = ray_set_units (c, rs);
#pragma omp parallel num_threads(c->nt)
  {
    CtrRowBuf *b = &c->rows[omp_get_thread_num ()];
#pragma omp for schedule(dynamic, 16)
    for (gint64 q = 0; q < n; q++)
      {
        guint32 ray[8];
        guint lane[8];
        const guint n_rays = unit_row (c, rs, q, b, ray, lane);
        if (c->orbits != NULL)
          row_to_orbit_places (c, b);
        row_dots (c, b, n_rays, ray, lane, X, Y, ns);
      }
  }
}

/* A forward product made in the adjoint's traversal (fly_adjoint_rays):
 * each row's products with @X into @Y (NULL: the scratch c->r), then the
 * adjoint's weights W = @step · @coef ∘ (@B − Y) into c->r, ray by ray,
 * before the row is scattered: the row computed once for both. */
typedef struct {
  const float *X, *B, *coef;
  float step;
  float *Y;
} FusedForward;

/* TRUE when no bucket failed to grow (the flags cleared); else FALSE with
 * CTR_ERROR_OUT_OF_MEMORY. */
static gboolean
buckets_ok (FlyOp *c, GError **error)
{
  gboolean failed = FALSE;
  gsize room = 0;
  for (gsize q = 0; q < (gsize) c->nt * c->nt; q++)
    {
      failed = failed || c->buckets[q].failed;
      c->buckets[q].failed = FALSE;
      room += c->buckets[q].cap;
    }
  if (failed)
    {
      g_autofree char *what = g_strdup_printf ("the on-the-fly adjoint's element buckets (%u threads × %u bands, "
                                               "%" G_GSIZE_FORMAT " elements held)", c->nt, c->nt, room);
      ctr_memory_set_error (error, ctr_memory_mul (room, 2 * 12), what);
    }
  return !failed;
}

/* TRUE when no thread's row buffer failed to grow (the flags cleared);
 * else FALSE with CTR_ERROR_OUT_OF_MEMORY: a row that could not grow lost
 * elements, so the product that used it is wrong and must not be used. */
gboolean
ctr_fly_rows_ok (FlyOp *c, GError **error)
{
  gboolean failed = FALSE;
  gsize room = 0;
  for (guint t = 0; t < c->nt; t++)
    {
      failed = failed || c->rows[t].failed;
      c->rows[t].failed = FALSE;
      room += c->rows[t].cap;
    }
  if (failed)
    {
      g_autofree char *what = g_strdup_printf ("the on-the-fly projector's row buffers (%u threads, %" G_GSIZE_FORMAT
                                               " elements held)", c->nt, room);
      ctr_memory_set_error (error, ctr_memory_mul (room, 2 * 8), what);
    }
  return !failed;
}

/* An adjoint's unit @q: its row in @b (as orbit places with orbit
 * subsets), its rays and lanes; with @fused, the rays' forward products
 * and residual weights c->r first (FusedForward).  Returns the rays. */
static inline guint
adjoint_row (FlyOp *c, const RaySet *rs, gint64 q, CtrRowBuf *b, guint32 ray[8], guint lane[8],
             const FusedForward *fused, guint ns)
{
  const guint n_rays = unit_row (c, rs, q, b, ray, lane);
  if (c->orbits != NULL)
    row_to_orbit_places (c, b);
  if (fused != NULL)
    {
      float *Y = fused->Y != NULL ? fused->Y : c->r;
      row_dots (c, b, n_rays, ray, lane, fused->X, Y, ns);
      for (guint r = 0; r < n_rays; r++)
        for (guint s = 0; s < ns; s++)
          {
            const gsize i = (gsize) s * c->nr + ray[r];
            c->r[i] = fused->step * fused->coef[i] * (fused->B[i] - Y[i]);
          }
    }
  return n_rays;
}

/* The accumulators' bytes for @nt threads of @np pixels and @ns slices;
 * 0 when they are not to be had (over ACC_MAX_BYTES, one thread, or
 * CTR_FLY_ACC=0). */
static guint64
acc_bytes (guint64 nt, guint64 np, guint64 ns)
{
  const guint64 bytes = ctr_memory_mul (ctr_memory_mul (nt, np), ctr_memory_mul (ns, sizeof (float)));
  if (nt < 2 || bytes > ACC_MAX_BYTES || g_strcmp0 (g_getenv ("CTR_FLY_ACC"), "0") == 0)
    return 0;
  return bytes;
}

/* The accumulators for a product of @units rows of about @row_len
 * elements: every product of orbit subsets (the memory plan counts them
 * alone there), else one whose elements (each applied to every slice) are
 * at least ACC_AMORTISE times the floats the threads clear and add (a
 * slice's each: all views, not one); made on first use; NULL: the buckets
 * serve. */
static float *
acc_for (FlyOp *c, gint64 units, double row_len)
{
  const guint64 bytes = acc_bytes (c->nt, c->np, c->ns);
  if (bytes == 0 || c->acc_failed
      || (c->orbits == NULL && (double) units * row_len < ACC_AMORTISE * (double) c->nt * c->np))
    return NULL;
  if (c->acc == NULL && (c->acc = g_try_malloc (bytes)) == NULL)
    c->acc_failed = TRUE;
  return c->acc;
}

/* fly_adjoint_rays with the accumulators @acc (see the top of the file):
 * each thread adds its rows into its own image, which are then added to
 * D in thread order, so every call gives the same bits. */
static gboolean
fly_adjoint_acc (FlyOp *c, const RaySet *rs, const float *W, float *D, guint ns, const FusedForward *fused,
                 float *acc, GError **error)
{
  const gint64 n = ray_set_units (c, rs);
  const guint nt = c->nt;
  const guint64 np = c->np, nr = c->nr;
  const gsize span = (gsize) np * ns;
#pragma omp parallel num_threads(nt)
  {
    const guint t = (guint) omp_get_thread_num ();
    CtrRowBuf *b = &c->rows[t];
    float *mine = acc + span * t;
    memset (mine, 0, span * sizeof (float));
#pragma omp for schedule(static, 8)
    for (gint64 q = 0; q < n; q++)
      {
        guint32 ray[8];
        guint lane[8];
        const guint n_rays = adjoint_row (c, rs, q, b, ray, lane, fused, ns);
        for (guint r = 0; r < n_rays; r++)
          {
            const guint8 *cmp = c->orbits != NULL ? c->orbits->group.compose[lane[r]] : NULL;
            for (guint s = 0; s < ns; s++)
              {
                const float wr = W[(gsize) s * nr + ray[r]];
                float *restrict a = mine + (gsize) s * np;
                if (cmp != NULL)
                  for (gsize k = 0; k < b->len; k++)
                    a[lane_pixel (c, cmp, b->col[k])] += b->val[k] * wr;
                else
                  for (gsize k = 0; k < b->len; k++)
                    a[b->col[k]] += b->val[k] * wr;
              }
          }
      }
    /* (the barrier of the loop above) */
#pragma omp for schedule(static)
    for (gint64 j = 0; j < (gint64) span; j++)
      {
        float v = D[j];
        for (guint u = 0; u < nt; u++)
          v += acc[span * u + (gsize) j];
        D[j] = v;
      }
  }
  return ctr_fly_rows_ok (c, error);
}

/* D[s] += Σ_i a_i W[s][i] over the rays i of @rs, slices [0, ns), by
 * pixel-row bands (see the top of the file).  The buckets grow on the
 * first products and keep their room: FALSE with CTR_ERROR_OUT_OF_MEMORY
 * (@D then incomplete) when one could not grow. */
/* D[s] += Σ_i W[s][i] a_i over the rays of @rs, slices [0, ns).  With
 * @fused (the bucket adjoint only, W = c->r, D not X): the rows' forward
 * products and weights first, in the same traversal (FusedForward). */
static gboolean
fly_adjoint_rays (FlyOp *c, const RaySet *rs, const float *W, float *D, guint ns, const FusedForward *fused,
                  GError **error)
{
  g_return_val_if_fail (fused == NULL || (c->sweep == NULL && W == c->r), FALSE);
  if (c->sweep != NULL)
    {
      ctr_area_sweep_adjoint (c->sweep, rs->views, rs->n_views, ns, W, D);
      return TRUE;
    }
  const gint64 n = ray_set_units (c, rs);
  const guint nt = c->nt, nx = c->gi.nx;
  const guint64 np = c->np, nr = c->nr;
  /* Rounds of at least CHUNK rays a thread, or of about ROUND_ELEMENTS
   * elements (12 bytes each) when that is more: every round costs two
   * barriers, which a loaded machine makes expensive (a descheduled thread
   * keeps the others spinning). */
  const double row_len = (c->model == CTR_RAY_MODEL_AREA ? 3.0 : 2.0) * MAX (c->gi.nx, c->gi.ny);
  float *acc = acc_for (c, n, row_len);
  if (acc != NULL)
    return fly_adjoint_acc (c, rs, W, D, ns, fused, acc, error);
  const gint64 round = MAX ((gint64) CHUNK * nt / MAX (c->K, 1u) + 1,
                            (gint64) (ROUND_ELEMENTS / (row_len * MAX (c->K, 1u))));
#pragma omp parallel num_threads(nt)
  {
    const guint t = (guint) omp_get_thread_num ();
    CtrRowBuf *b = &c->rows[t];
    Bucket *mine = c->buckets + (gsize) t * nt;
    for (gint64 r0 = 0; r0 < n; r0 += round)
      {
        const gint64 r1 = MIN (n, r0 + round);
        /* Static: the same thread takes the same rows every call, so each
         * pixel's sum runs in one order and the product is reproducible. */
#pragma omp for schedule(static, 8)
        for (gint64 q = r0; q < r1; q++)
          {
            guint32 ray[8];
            guint lane[8];
            const guint n_rays = adjoint_row (c, rs, q, b, ray, lane, fused, ns);
            for (guint r = 0; r < n_rays; r++)
              {
                const guint8 *cmp = c->orbits != NULL ? c->orbits->group.compose[lane[r]] : NULL;
                for (gsize k = 0; k < b->len; k++)
                  {
                    const guint32 p = cmp != NULL ? lane_pixel (c, cmp, b->col[k]) : b->col[k];
                    bucket_push (&mine[c->row_band[p / nx]], p, b->val[k], ray[r]);
                  }
              }
          }
        /* (the barrier of the loop above) */
#pragma omp for schedule(static, 1)
        for (guint band = 0; band < nt; band++)
          for (guint u = 0; u < nt; u++)
            {
              Bucket *bk = &c->buckets[(gsize) u * nt + band];
              for (gsize k = 0; k < bk->len; k++)
                {
                  const guint32 j = bk->pix[k], i = bk->ray[k];
                  const float w = bk->w[k];
                  for (guint s = 0; s < ns; s++)
                    D[(gsize) s * np + j] += w * W[(gsize) s * nr + i];
                }
              bk->len = 0;
            }
      }
  }
  const gboolean rows = ctr_fly_rows_ok (c, error);
  return buckets_ok (c, rows ? error : NULL) && rows;
}

static gboolean
fly_forward (CtrOperator *op, guint subset, const float *X, float *Y, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  gint32 views[8];
  const RaySet rs = ray_set (c, subset, views);
  fly_forward_rays (c, &rs, X, Y, c->ns);
  return ctr_fly_rows_ok (c, error);
}

static gboolean
adjoint_add (FlyOp *c, guint subset, const float *Y, float *D, GError **error)
{
  gint32 views[8];
  const RaySet rs = ray_set (c, subset, views);
  return fly_adjoint_rays (c, &rs, Y, D, c->ns, NULL, error);
}

static gboolean
fly_adjoint (CtrOperator *op, guint subset, const float *Y, float *D, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  memset (D, 0, op->image_size * sizeof (float));
  return adjoint_add (c, subset, Y, D, error);
}

/* ------------------------------------------------------------- updates -- */

static void
clip (float *x, gsize n)
{
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    x[q] = x[q] > 0.f ? x[q] : 0.f;
}

static void
fly_image_copy (CtrOperator *op, const float *from, float *to)
{
  if (from != to)
    memcpy (to, from, op->image_size * sizeof (float));
}

static void
fly_data_gather (CtrOperator *op, const float *proj, float *Y)
{
  FlyOp *c = (FlyOp *) op;
  const CtrGeometry *g = op->geometry;
  const gsize per_view = (gsize) g->n_rows * g->n_cols;
  for (guint s = 0; s < c->ns; s++)
    {
      const guint row = ctr_geometry_slice_row (g, s);
      for (guint v = 0; v < c->nv; v++)
        memcpy (Y + (gsize) s * c->nr + (gsize) v * c->nc, proj + (gsize) v * per_view + (gsize) row * c->nc,
                c->nc * sizeof (float));
    }
}

/* r = step · coef ∘ (B − r) on the rays of @rs, every slice. */
static void
residual_weights (FlyOp *c, const RaySet *rs, const float *B, const float *coef, float step)
{
  for (guint k = 0; k < rs->n_views; k++)
    {
      const guint64 b = (guint64) (rs->views ? (guint) rs->views[k] : k) * c->nc, e = b + c->nc;
      for (guint s = 0; s < c->ns; s++)
        {
          float *r = c->r + (gsize) s * c->nr;
          const float *bb = B + (gsize) s * c->nr, *cc = coef + (gsize) s * c->nr;
          for (guint64 i = b; i < e; i++)
            r[i] = step * cc[i] * (bb[i] - r[i]);
        }
    }
}

/* Kaczmarz over the rays of view @v (ART, cuART Eq. 1): each row computed
 * once, then x_s += λ coef_i (b_i − a_i·x_s) a_i for every slice s. */
static void
art_view (FlyOp *c, guint v, float *X, const float *B, const float *coef, float lambda, gboolean nonneg)
{
  CtrRowBuf *b = &c->rows[0];
  for (guint col = 0; col < c->nc; col++)
    {
      const guint64 i = (guint64) v * c->nc + col;
      b->len = 0;
      ctr_ray_weights (c->parent.geometry, &c->gi, c->model, v, col, b);
      for (guint s = 0; s < c->ns; s++)
        {
          const float cc = coef[(gsize) s * c->nr + i];
          if (cc == 0.f)
            continue;
          float *x = X + (gsize) s * c->np;
          float dot = 0.f;
          for (gsize k = 0; k < b->len; k++)
            dot += b->val[k] * x[b->col[k]];
          const float step = lambda * cc * (B[(gsize) s * c->nr + i] - dot);
          for (gsize k = 0; k < b->len; k++)
            {
              const float nx = x[b->col[k]] + step * b->val[k];
              x[b->col[k]] = nonneg && nx < 0.f ? 0.f : nx;
            }
        }
    }
}

/* X += upd ÷ cs where cs > 0 (every slice), then the clip. */
static void
apply_scaled (FlyOp *c, float *X, const float *scale, gboolean nonneg)
{
  for (guint s = 0; s < c->ns; s++)
    {
      float *x = X + (gsize) s * c->np;
      const float *u = c->upd + (gsize) s * c->np;
#pragma omp parallel for schedule(static)
      for (guint64 j = 0; j < c->np; j++)
        if (scale == NULL || scale[j] > 0.f)
          x[j] += scale ? u[j] / scale[j] : u[j];
    }
  if (nonneg)
    clip (X, c->parent.image_size);
}

static gboolean
fly_update (CtrOperator *op, guint subset, float *X, const float *B, const float *coef, float step, float *D,
            CtrUpdateFlags flags, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  const gboolean nonneg = (flags & CTR_UPDATE_NONNEG) != 0;
  gint32 views[8];
  const RaySet rs = ray_set (c, subset, views);
  if (flags & CTR_UPDATE_SEQUENTIAL)
    {
      g_return_val_if_fail (subset != CTR_SUBSET_ALL && D == NULL, FALSE);
      for (guint k = 0; k < rs.n_views; k++)
        art_view (c, (guint) rs.views[k], X, B, coef, step, nonneg);
      return ctr_fly_rows_ok (c, error);
    }
  /* All forward products of the subset before any update (cuART Eq. 9):
   * where the adjoint goes to another array than X and computes rows
   * (buckets), in its own traversal, each row computed once. */
  const FusedForward fused = { X, B, coef, step, NULL };
  const gboolean fuse = c->sweep == NULL && (D != NULL || (flags & CTR_UPDATE_COLUMN_SCALE));
  if (!fuse)
    {
      fly_forward_rays (c, &rs, X, c->r, c->ns);
      residual_weights (c, &rs, B, coef, step);
    }
  if (D != NULL)
    return fly_adjoint_rays (c, &rs, c->r, D, c->ns, fuse ? &fused : NULL, error);
  if (!(flags & CTR_UPDATE_COLUMN_SCALE))
    {
      if (!fly_adjoint_rays (c, &rs, c->r, X, c->ns, NULL, error))
        return FALSE;
      if (nonneg)
        clip (X, op->image_size);
      return TRUE;
    }
  /* SART: the update divided by the subset's column sums, made on the fly. */
  memset (c->upd, 0, op->image_size * sizeof (float));
  memset (c->cs, 0, c->np * sizeof (float));
  if (!fly_adjoint_rays (c, &rs, c->r, c->upd, c->ns, fuse ? &fused : NULL, error)
      || !fly_adjoint_rays (c, &rs, c->ones, c->cs, 1, NULL, error))
    return FALSE;
  apply_scaled (c, X, c->cs, nonneg);
  return TRUE;
}

/* Y = A X on every ray and D += Aᵀ (coef ∘ (B − Y)) (CtrOperatorClass.
 * forward_update): with the bucket adjoint in one traversal, each row
 * computed once for both (the reported SIRT's iteration: a third of the
 * rows computed before); with the area sweep, the products and then the
 * sweep.  The same Y and D as forward, then adjoint, bit for bit. */
static gboolean
fly_forward_update (CtrOperator *op, const float *X, const float *B, const float *coef, float *Y, float *D,
                    GError **error)
{
  FlyOp *c = (FlyOp *) op;
  gint32 views[8];
  const RaySet rs = ray_set (c, CTR_SUBSET_ALL, views);
  if (X != NULL && c->sweep == NULL)
    {
      const FusedForward fused = { X, B, coef, 1.0f, Y };
      return fly_adjoint_rays (c, &rs, c->r, D, c->ns, &fused, error);   /* its rows checked there */
    }
  if (X != NULL)
    fly_forward_rays (c, &rs, X, Y, c->ns);
  else
    memset (Y, 0, op->data_size * sizeof (float));
#pragma omp parallel for schedule(static) num_threads(c->nt)
  for (gint64 i = 0; i < (gint64) op->data_size; i++)
    c->r[i] = coef[i] * (B[i] - Y[i]);
  return ctr_fly_rows_ok (c, error) && fly_adjoint_rays (c, &rs, c->r, D, c->ns, NULL, error);
}

static gboolean
fly_finish (CtrOperator *op, float *X, float *D, const float *scale, CtrUpdateFlags flags, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  for (guint s = 0; s < c->ns; s++)
    {
      float *x = X + (gsize) s * c->np, *d = D + (gsize) s * c->np;
#pragma omp parallel for schedule(static)
      for (guint64 j = 0; j < c->np; j++)
        {
          const float nv = x[j] + (scale ? scale[j] * d[j] : d[j]);
          x[j] = (flags & CTR_UPDATE_NONNEG) && nv < 0.f ? 0.f : nv;
          d[j] = 0.f;
        }
    }
  return TRUE;
}

static gboolean
fly_column_sums (CtrOperator *op, guint subset, float *out, GError **error)
{
  FlyOp *c = (FlyOp *) op;
  gint32 views[8];
  const RaySet rs = ray_set (c, subset, views);
  memset (out, 0, c->np * sizeof (float));
  return fly_adjoint_rays (c, &rs, c->ones, out, 1, NULL, error);
}

static guint64
fly_subset_rays (CtrOperator *op, guint subset)
{
  FlyOp *c = (FlyOp *) op;
  gint32 views[8];
  return (guint64) subset_views (c, subset, views) * c->nc;
}

static const CtrOperatorClass fly_class = {
  .name = "cpu-fly",
  .finalize = fly_op_finalize,
  .image_to_native = fly_image_copy,
  .image_from_native = fly_image_copy,
  .data_gather = fly_data_gather,
  .data_scatter = ctr_operator_stack_data_scatter,
  .forward = fly_forward,
  .adjoint = fly_adjoint,
  .update = fly_update,
  .forward_update = fly_forward_update,
  .finish = fly_finish,
  .column_sums = fly_column_sums,
  .row_sums = ctr_fly_row_sums,
  .subset_overlap = ctr_fly_subset_overlap,
  .subset_rays = fly_subset_rays,
};

static const char *
model_name (CtrRayModel m)
{
  return m == CTR_RAY_MODEL_AREA ? "area" : m == CTR_RAY_MODEL_JOSEPH ? "Joseph" : "Siddon";
}

/* The bands: nt runs of image rows of near-equal size.  FALSE with
 * CTR_ERROR_OUT_OF_MEMORY when their tables (a guint an image row) cannot
 * be allocated. */
static gboolean
make_bands (FlyOp *c, GError **error)
{
  const guint ny = c->gi.ny, nt = c->nt;
  g_autofree char *what = g_strdup_printf ("the on-the-fly operator's bands of %u image rows", ny);
  if ((c->band_row = ctr_memory_try_new ((gsize) nt + 1, sizeof (guint), FALSE, what, error)) == NULL
      || (c->row_band = ctr_memory_try_new (ny, sizeof (guint), FALSE, what, error)) == NULL)
    return FALSE;
  for (guint b = 0; b <= nt; b++)
    c->band_row[b] = (guint) ((guint64) ny * b / nt);
  for (guint b = 0; b < nt; b++)
    for (guint y = c->band_row[b]; y < c->band_row[b + 1]; y++)
      c->row_band[y] = b;
  return TRUE;
}

/* Threads of every parallel region of an operator on @grid. */
static guint
fly_threads (const CtrGrid *grid)
{
  return (guint) CLAMP (omp_get_max_threads (), 1, (int) MAX (1u, grid->ny));
}

/* Whether the area model's adjoint runs as the pixel sweep. */
static gboolean
fly_sweep_wanted (CtrRayModel model)
{
  /* CTR_FLY_SWEEP=0 keeps the ray-driven products (side-by-side timing) */
  return model == CTR_RAY_MODEL_AREA && g_strcmp0 (g_getenv ("CTR_FLY_SWEEP"), "0") != 0;
}

/* Elements in one thread's row buffer at most: a ray crosses at most
 * nx + ny pixels, three a step for the area model. */
static guint64
row_room (const CtrGrid *grid, CtrRayModel model)
{
  return (guint64) (model == CTR_RAY_MODEL_AREA ? 3 : 2) * (grid->nx + grid->ny);
}

guint64
ctr_fly_op_estimate_bytes (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, gboolean orbits,
                           gboolean overlaps)
{
  const guint64 nt = fly_threads (grid), ns = grid->nz;
  const guint64 np = (guint64) grid->nx * grid->ny, nr = (guint64) g->n_views * g->n_cols;
  /* r (data), upd (image), cs (pixels), ones (rays) */
  guint64 bytes = ctr_memory_mul (ctr_memory_add (ctr_memory_mul (nr, ns + 1), ctr_memory_mul (np, ns + 1)), 4);
  /* the threads' row buffers (column and weight an element) */
  bytes = ctr_memory_add (bytes, ctr_memory_mul (nt, row_room (grid, model) * 8));
  const guint64 acc = acc_bytes (nt, np, ns);
  if (fly_sweep_wanted (model))
    bytes = ctr_memory_add (bytes, ctr_area_sweep_bytes (g->n_cols, grid->nx, (guint) nt));
  else
    {
      /* the threads' image accumulators (every product of orbit subsets,
       * and those of all views), and one round's elements in the buckets
       * (12 bytes each) where the subsets are single views or no
       * accumulators are to be had */
      bytes = ctr_memory_add (bytes, acc);
      if (acc == 0 || !orbits)
        bytes = ctr_memory_add (bytes, (guint64) (ROUND_ELEMENTS * 12));
    }
  if (orbits)   /* pixel_rep, pixel_slot, rep_pixel (≈ one a pixel), rep_stabilised */
    bytes = ctr_memory_add (bytes, ctr_memory_mul (np, 10));
  if (overlaps)
    bytes = ctr_memory_add (bytes, ctr_memory_mul (ctr_memory_mul (nt, np), 4));
  return bytes;
}

void
ctr_fly_op_skip_overlaps (CtrOperator *op)
{
  g_return_if_fail (op != NULL && op->klass == &fly_class);
  ((FlyOp *) op)->no_kappa = TRUE;
}

CtrOperator *
ctr_fly_op_new (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, CtrSymmetry *orbits,
                GError **error)
{
  g_return_val_if_fail (g != NULL && grid != NULL, NULL);
  if (!ctr_ray_check_inputs (g, grid, model, error) || grid->nz != g->n_rows
      || (guint64) g->n_views * g->n_cols >= G_MAXUINT32)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                     "the on-the-fly projector needs one slice per detector row (%u slices, %u rows) and "
                     "fewer than 2³² rays a slice", grid->nz, g->n_rows);
      if (orbits)
        ctr_symmetry_free (orbits);
      return NULL;
    }
  FlyOp *c = g_new0 (FlyOp, 1);
  CtrOperator *op = &c->parent;
  c->orbits = orbits;
  if (!ctr_operator_init (op, &fly_class, g, grid, grid->nz, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  c->model = model;
  ctr_ray_grid_init (&c->gi, grid);
  c->K = orbits ? orbits->group.order : 1;
  c->ns = grid->nz;
  c->nc = g->n_cols;
  c->nv = g->n_views;
  c->nr = (guint64) c->nv * c->nc;
  c->np = (guint64) grid->nx * grid->ny;
  c->nt = fly_threads (grid);
  op->image_size = (gsize) c->np * c->ns;
  op->data_size = (gsize) c->nr * c->ns;
  op->scale_size = c->np;
  op->n_subsets = orbits ? orbits->n_orbits : c->nv;
  op->can_update_sequential = orbits == NULL;
  if (!make_bands (c, error))
    {
      ctr_operator_unref (op);
      return NULL;
    }
  c->rows = g_new0 (CtrRowBuf, c->nt);
  c->buckets = g_new0 (Bucket, (gsize) c->nt * c->nt);
  c->r = g_try_new0 (float, op->data_size);
  c->upd = g_try_new0 (float, op->image_size);
  c->cs = g_try_new0 (float, c->np);
  c->ones = g_try_new (float, c->nr);
  if (!c->r || !c->upd || !c->cs || !c->ones)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY,
                   "cannot allocate the on-the-fly operator's work space (%u slices × %" G_GUINT64_FORMAT
                   " rays, %.1f MiB)", c->ns, c->nr,
                   ((op->data_size + op->image_size + c->np + c->nr) * 4.0) / 1048576.0);
      ctr_operator_unref (op);
      return NULL;
    }
  for (guint64 i = 0; i < c->nr; i++)
    c->ones[i] = 1.f;
  if (fly_sweep_wanted (model))
    {
      GError *local = NULL;
      c->sweep = ctr_area_sweep_new (op->geometry, &c->gi, c->ns, c->nt, &local);
      if (local != NULL)
        {
          g_propagate_error (error, local);
          ctr_operator_unref (op);
          return NULL;
        }
    }
  g_autofree char *work = ctr_format_bytes ((op->data_size + op->image_size + c->np + c->nr) * 4
                                            + (c->sweep ? ctr_area_sweep_bytes (c->nc, c->gi.nx, c->nt) : 0));
  const char *how = c->sweep ? "pixel sweep" : "ray by ray";
  op->description = orbits
    ? g_strdup_printf ("on the fly (no stored matrix, %s), %s model, %u orbit subsets (%s); work space %s", how,
                       model_name (model), orbits->n_orbits, orbits->reason, work)
    : g_strdup_printf ("on the fly (no stored matrix, %s), %s model, one view per subset; work space %s", how,
                       model_name (model), work);
  return op;
}
