/* ctr-fly-rays.c — the on-the-fly pair's rays as numbers (ctr-fly-rays.h). */
#include "sysmat/ctr-fly-rays.h"
#include "sysmat/ctr-ray-private.h"
#include "base/ctr-error.h"
#include "base/ctr-memory.h"

guint
ctr_fly_ray_stride (CtrRayModel model)
{
  return model == CTR_RAY_MODEL_AREA ? CTR_FLY_RAY_AREA_DOUBLES : CTR_FLY_RAY_LINE_DOUBLES;
}

/* The area model's closed form of ray (@v, @j) into @p; FALSE where it does
 * not hold. */
static gboolean
area_params (const CtrGeometry *g, const CtrRayGrid *gi, guint v, guint j, double *p)
{
  CtrAreaRay r;
  double slope[2], icpt[2];
  if (!ctr_area_ray_init_walk (g, gi, v, j, &r, slope, icpt))
    return FALSE;
  for (int i = 0; i < 2; i++)
    {
      const CtrAreaEdge *e = &r.e[i];
      double *q = p + 7 * i;
      q[0] = e->nx;
      q[1] = e->ny;
      q[2] = e->k;
      q[3] = e->a;
      q[4] = e->b;
      q[5] = e->inv_8ab;
      q[6] = e->inv_2a;
    }
  p[14] = r.s[0];
  p[15] = r.s[1];
  p[16] = r.dm[0];
  p[17] = r.dm[1];
  p[18] = r.width0;
  p[19] = r.width_per_mm;
  p[20] = slope[0];
  p[21] = slope[1];
  p[22] = icpt[0];
  p[23] = icpt[1];
  return TRUE;
}

double *
ctr_fly_ray_table (const CtrGeometry *g, const CtrGrid *grid, CtrRayModel model, GError **error)
{
  const guint stride = ctr_fly_ray_stride (model);
  const guint64 n = (guint64) g->n_views * g->n_cols;
  double *t = ctr_memory_try_new (ctr_memory_mul (n, stride), sizeof (double), FALSE,
                                  "the on-the-fly projector's ray table", error);
  if (t == NULL)
    return NULL;
  CtrRayGrid gi;
  ctr_ray_grid_init (&gi, grid);
  gint64 bad = -1;
#pragma omp parallel for schedule(static)
  for (gint64 q = 0; q < (gint64) n; q++)
    {
      const guint v = (guint) (q / g->n_cols), j = (guint) (q % g->n_cols);
      double *p = t + (gsize) q * stride;
      if (model != CTR_RAY_MODEL_AREA)
        ctr_geometry_ray (g, v, j, p, p + 2);
      else if (!area_params (g, &gi, v, j, p))
        {
#pragma omp critical (ctr_fly_ray_bad)
          if (bad < 0 || q < bad)
            bad = q;
        }
    }
  if (bad >= 0)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_UNSUPPORTED,
                   "the area model's closed form does not hold for the ray of view %u, column %u (a pixel of the "
                   "grid behind the source, or a detector bin wider than 45°)",
                   (guint) (bad / g->n_cols), (guint) (bad % g->n_cols));
      g_free (t);
      return NULL;
    }
  return t;
}
