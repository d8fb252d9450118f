/* ctr-fly-op-private.h — what the on-the-fly fan/parallel pair's files share
 * (ctr-fly-op.c: the products and updates; ctr-fly-sums.c: the row sums
 * and the subsets' overlaps κ): the operator's state and how a subset's
 * rays are walked, one computed row ("unit") at a time.  Not installed.
 */
#pragma once

#include "sysmat/ctr-fly-op.h"
#include "sysmat/ctr-ray-private.h"
#include "sysmat/ctr-area-sweep.h"

G_BEGIN_DECLS

/* Elements of the rows of one round that fall in one band. */
typedef struct {
  guint32 *pix;
  float *w;
  guint32 *ray;   /* ray number within one slice's data (view·n_cols + col) */
  gsize len, cap;
  gboolean failed;   /* could not grow: elements dropped, the product fails */
} Bucket;

typedef struct {
  CtrOperator parent;
  CtrRayModel model;
  CtrRayGrid gi;
  CtrSymmetry *orbits;  /* NULL: one view per subset */
  guint K;              /* views per subset (1 without orbits) */
  guint ns, nc, nv;
  guint64 nr, np;
  guint nt;             /* threads of every parallel region */
  guint *band_row;      /* [nt + 1] first image row of each band */
  guint *row_band;      /* [ny] band of each image row */
  CtrRowBuf *rows;      /* [nt] per-thread row buffers */
  Bucket *buckets;      /* [thread][band] */
  float *acc;           /* [thread][slice][pixel] image accumulators, made on first use; NULL: none */
  gboolean acc_failed;  /* they could not be had: the buckets serve */
  float *r;             /* [slice][ray] scratch: residual weights */
  float *upd;           /* [slice][pixel] scratch: the update of a scaled step */
  float *cs;            /* [pixel] scratch: one subset's column sums */
  float *ones;          /* [ray] 1 */
  float *kappa;         /* [subset] κ, made on first use */
  gboolean no_kappa;    /* the run asks for no κ (ctr_fly_op_skip_overlaps) */
  CtrAreaSweep *sweep;  /* the area model's pixel sweep; NULL: ray-driven products */
} FlyOp;

/* ------------------------------------------------------------ subsets -- */

/* The views of @subset into @views (at most 8); CTR_SUBSET_ALL: none, and
 * the callers walk every view. */
static inline guint
subset_views (const FlyOp *c, guint subset, gint32 *views)
{
  if (subset == CTR_SUBSET_ALL)
    return 0;
  if (c->orbits == NULL)
    {
      views[0] = (gint32) subset;
      return 1;
    }
  return ctr_symmetry_orbit_views (c->orbits, subset, views);
}

/* A set of rays.  With orbits: the orbits [o0, o1), each computed as the
 * rows of its canonical view and mapped to its other views (as the SCSR
 * matrix stores them, cuART §3); without: @n_views of @views (NULL: every
 * view). */
typedef struct {
  const gint32 *views;
  guint n_views;
  guint o0, o1;
} RaySet;

static inline RaySet
ray_set (const FlyOp *c, guint subset, gint32 views[8])
{
  RaySet rs = { NULL, c->nv, 0, 0 };
  if (c->orbits != NULL)
    {
      rs.o0 = subset == CTR_SUBSET_ALL ? 0 : subset;
      rs.o1 = subset == CTR_SUBSET_ALL ? c->orbits->n_orbits : subset + 1;
      rs.views = subset == CTR_SUBSET_ALL ? NULL : views;
      rs.n_views = subset == CTR_SUBSET_ALL ? c->nv : subset_views (c, subset, views);
    }
  else if (subset != CTR_SUBSET_ALL)
    {
      rs.views = views;
      rs.n_views = subset_views (c, subset, views);
    }
  return rs;
}

/* Units of work of @rs: one computed row each. */
static inline gint64
ray_set_units (const FlyOp *c, const RaySet *rs)
{
  return (gint64) (c->orbits != NULL ? rs->o1 - rs->o0 : rs->n_views) * c->nc;
}

/* Computes the row of unit @q of @rs into @b; the rays it stands for (ray
 * number view·n_cols + col) into @ray and their lanes (the symmetry element
 * that maps the computed row onto theirs; 0: itself) into @lane.  Returns
 * how many. */
static inline guint
unit_row (const FlyOp *c, const RaySet *rs, gint64 q, CtrRowBuf *b, guint32 ray[8], guint lane[8])
{
  const guint k0 = (guint) (q / c->nc), j = (guint) (q % c->nc);
  b->len = 0;
  if (c->orbits == NULL)
    {
      const guint v = rs->views != NULL ? (guint) rs->views[k0] : k0;
      ctr_ray_weights (c->parent.geometry, &c->gi, c->model, v, j, b);
      ray[0] = (guint32) (v * c->nc + j);
      lane[0] = 0;
      return 1;
    }
  const CtrSymmetry *sy = c->orbits;
  const guint o = rs->o0 + k0;
  ctr_ray_weights (c->parent.geometry, &c->gi, c->model, sy->orbit_view[o], j, b);
  guint n = 0;
  for (guint k = 0; k < c->K; k++)
    {
      const gint32 v = sy->lane_view[(gsize) o * c->K + k];
      if (v < 0)
        continue;
      ray[n] = (guint32) ((guint) v * c->nc + ctr_symmetry_lane_col (sy, k, j));
      lane[n++] = k;
    }
  return n;
}

/* TRUE when every thread's row buffer could grow (the flags cleared); else
 * FALSE with CTR_ERROR_OUT_OF_MEMORY (ctr-fly-op.c). */
gboolean ctr_fly_rows_ok (FlyOp *c, GError **error);

/* CtrOperatorClass.row_sums and .subset_overlap (ctr-fly-sums.c). */
void ctr_fly_row_sums (CtrOperator *op, float *sq, float *sum);
gboolean ctr_fly_subset_overlap (CtrOperator *op, guint subset, double *kappa, GError **error);

G_END_DECLS
