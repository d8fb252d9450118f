/* ctr-ray-private.h — the weights of one ray (one matrix row), shared by the
 * CSR builder (ctr-sysmat.c) and the SCSR builder (ctr-scsr.c).  Internal to
 * core/sysmat. */
#pragma once

#include <glib.h>
#include "data/ctr-geometry.h"
#include "data/ctr-volume.h"
#include <math.h>
#include "sysmat/ctr-ray-model.h"
#include "sysmat/ctr-ray-area.h"

G_BEGIN_DECLS

/* Growing list of (pixel, weight) pairs; pixel = iy·nx + ix (row 0 = +y).
 * @failed: set when the list could not grow (out of memory); the pairs
 * pushed after that are dropped, and the owner must fail. */
typedef struct {
  guint32 *col;
  float *val;
  gsize len, cap;
  gboolean failed;
} CtrRowBuf;

static inline void
ctr_rowbuf_push (CtrRowBuf *b, guint32 c, float v)
{
  if (G_UNLIKELY (b->len == b->cap))
    {
      /* once it could not grow it takes nothing more until cleared (its
       * owner reports the failure): no new attempt per element */
      if (b->failed)
        return;
      const gsize cap = MAX (256, b->cap * 2);
      guint32 *col = g_try_realloc_n (b->col, cap, sizeof (guint32));
      if (col != NULL)
        b->col = col;
      float *val = col != NULL ? g_try_realloc_n (b->val, cap, sizeof (float)) : NULL;
      if (val == NULL)
        {
          b->failed = TRUE;
          return;
        }
      b->val = val;
      b->cap = cap;
    }
  b->col[b->len] = c;
  b->val[b->len] = v;
  b->len++;
}

static inline void
ctr_rowbuf_clear (CtrRowBuf *b)
{
  g_free (b->col);
  g_free (b->val);
  b->col = NULL;
  b->val = NULL;
  b->len = b->cap = 0;
  b->failed = FALSE;
}

/* One slice of a CtrGrid with its bounding box (mm). */
typedef struct {
  guint nx, ny;
  double dx, dy, cx, cy;
  double xmin, xmax, ymin, ymax;
} CtrRayGrid;

void ctr_ray_grid_init (CtrRayGrid *gi, const CtrGrid *grid);

/* The checks every slice-matrix builder makes: valid fan or parallel
 * geometry (CTR_ERROR_INVALID_GEOMETRY), valid slice grid and known model
 * (CTR_ERROR_INVALID_ARGUMENT), pixel indices that fit 32 bits. */
gboolean ctr_ray_check_inputs (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model,
                               GError **error);

/* Appends the weights of ray (view, col) of @g on @gi under @model to @b
 * (pixels in the order the ray meets them).  Weights in mm (see CtrRayModel). */
void ctr_ray_weights (const CtrGeometry *g, const CtrRayGrid *gi, CtrRayModel model,
                      guint view, guint col, CtrRowBuf *b);

/* The area model by clipping each pixel against the strip's two half-planes
 * (Sutherland-Hodgman), as ctr_ray_weights did before the closed form: the
 * reference the tests hold the closed form to. */
void ctr_ray_weights_area_clipped (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col,
                                   CtrRowBuf *b);

/* The closed form of the area model (ctr-ray-area.h) for ray (@view, @col)
 * of @g on @gi into @out; FALSE when it does not hold for that ray (a pixel
 * of the grid behind the source, or an edge line along the slabs: a bin
 * wider than 45°), and the ray-driven row then clips polygons instead. */
gboolean ctr_area_ray_init (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, CtrAreaRay *out);

/* ctr_area_ray_init, and the slab walk's edge lines as minor = @icpt[i] −
 * @slope[i]·major (major = x when |dm_x| >= |dm_y|, else y; both nullable):
 * what ray_area's closed form walks, for a device that walks it the same
 * way (ctr-fly-rays.h). */
gboolean ctr_area_ray_init_walk (const CtrGeometry *g, const CtrRayGrid *gi, guint view, guint col, CtrAreaRay *out,
                                 double slope[2], double icpt[2]);

/* Whether the area model's closed form runs four lanes at a time: AVX2 on
 * this CPU, and the environment's CTR_AREA_SIMD not "generic" (read at
 * each call; the rows read it once per process).  The same bits either
 * way. */
gboolean ctr_area_use_avx2 (void);

G_END_DECLS
