/* ctr-report-planes.c — the planes of a CTR_REPORT_PLANES report
 * (ctr-report-planes.h). */
#include "solve/ctr-report-planes.h"
#include "base/ctr-error.h"

#include <math.h>
#include <string.h>

CtrReportPlanes *
ctr_report_planes_new (const CtrGrid *grid, guint i, guint j, guint k, const char *unit, GError **error)
{
  g_autoptr (CtrReportPlanes) rp = g_try_new0 (CtrReportPlanes, 1);
  if (rp == NULL)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY, "cannot allocate a report's planes");
      return NULL;
    }
  rp->grid = *grid;
  CtrGrid g[CTR_REPORT_N_PLANES] = { *grid, *grid, *grid };
  g[CTR_REPORT_PLANE_AXIAL].nz = 1;
  g[CTR_REPORT_PLANE_CORONAL].ny = 1;
  g[CTR_REPORT_PLANE_SAGITTAL].nx = 1;
  for (guint p = 0; p < CTR_REPORT_N_PLANES; p++)
    {
      if ((rp->plane[p] = ctr_volume_new (&g[p], error)) == NULL)
        return NULL;
      ctr_volume_set_unit (rp->plane[p], unit);
    }
  rp->voxel[0] = G_MAXUINT;   /* so that the move places every plane */
  ctr_report_planes_move (rp, i, j, k);
  return g_steal_pointer (&rp);
}

gboolean
ctr_report_planes_move (CtrReportPlanes *rp, guint i, guint j, guint k)
{
  const CtrGrid *grid = &rp->grid;
  const guint v[3] = { MIN (i, grid->nx - 1), MIN (j, grid->ny - 1), MIN (k, grid->nz - 1) };
  if (memcmp (v, rp->voxel, sizeof v) == 0)
    return FALSE;
  memcpy (rp->voxel, v, sizeof v);
  rp->plane[CTR_REPORT_PLANE_AXIAL]->grid.cz = ctr_grid_z (grid, v[2]);
  rp->plane[CTR_REPORT_PLANE_CORONAL]->grid.cy = ctr_grid_y (grid, v[1]);
  rp->plane[CTR_REPORT_PLANE_SAGITTAL]->grid.cx = ctr_grid_x (grid, v[0]);
  return TRUE;
}

void
ctr_report_planes_free (CtrReportPlanes *rp)
{
  if (rp == NULL)
    return;
  for (guint p = 0; p < CTR_REPORT_N_PLANES; p++)
    g_clear_pointer (&rp->plane[p], ctr_volume_unref);
  g_free (rp);
}

CtrImageRuns
ctr_report_planes_runs (const CtrReportPlanes *rp, CtrReportPlane which)
{
  const CtrGrid *g = &rp->grid;
  const gsize nx = g->nx, ny = g->ny, nz = g->nz, slice = nx * ny;
  switch (which)
    {
    case CTR_REPORT_PLANE_AXIAL:
      return (CtrImageRuns) { rp->voxel[2] * slice, slice, 1, slice };
    case CTR_REPORT_PLANE_CORONAL:
      return (CtrImageRuns) { rp->voxel[1] * nx, nx, nz, slice };
    case CTR_REPORT_PLANE_SAGITTAL:
    default:
      return (CtrImageRuns) { rp->voxel[0], 1, ny * nz, nx };
    }
}

/* Between plane @p's floats and their places in natural image @x: run q of
 * the plane is its floats [q·run, (q + 1)·run). */
static void
move_plane (const CtrReportPlanes *rp, CtrReportPlane p, float *plane, float *x, gboolean into_image)
{
  const CtrImageRuns r = ctr_report_planes_runs (rp, p);
  for (gsize q = 0; q < r.count; q++)
    {
      float *in_image = x + r.offset + q * r.stride, *in_plane = plane + q * r.run;
      memcpy (into_image ? in_image : in_plane, into_image ? in_plane : in_image, r.run * sizeof (float));
    }
}

void
ctr_report_planes_read (CtrReportPlanes *rp, const float *x)
{
  for (guint p = 0; p < CTR_REPORT_N_PLANES; p++)
    move_plane (rp, p, rp->plane[p]->data, (float *) x, FALSE);
}

/* The index (< @n) whose centre @at is, on an axis of @n voxels of @d
 * centred at @c (@d < 0: the axis runs against the index, as y does,
 * ctr_grid_y); FALSE when none is within a thousandth of a voxel. */
static gboolean
index_of (double at, double c, double d, guint n, guint *out)
{
  const double f = n == 1 ? 0.0 : (at - c) / d + (n - 1) * 0.5;
  const double r = round (f);
  if (!(r >= 0 && r < n && fabs (f - r) <= 1e-3))
    return FALSE;
  *out = (guint) r;
  return TRUE;
}

gboolean
ctr_report_planes_paste (const CtrVolume *const planes[3], CtrVolume *vol, guint voxel[3])
{
  const CtrGrid *g = &vol->grid;
  const CtrVolume *a = planes[CTR_REPORT_PLANE_AXIAL], *c = planes[CTR_REPORT_PLANE_CORONAL],
                  *s = planes[CTR_REPORT_PLANE_SAGITTAL];
  CtrReportPlanes rp = { .grid = *g };
  if (a == NULL || c == NULL || s == NULL
      || a->grid.nx != g->nx || a->grid.ny != g->ny || a->grid.nz != 1
      || c->grid.nx != g->nx || c->grid.ny != 1 || c->grid.nz != g->nz
      || s->grid.nx != 1 || s->grid.ny != g->ny || s->grid.nz != g->nz
      || !index_of (s->grid.cx, g->cx, g->dx, g->nx, &rp.voxel[0])
      || !index_of (c->grid.cy, g->cy, -g->dy, g->ny, &rp.voxel[1])
      || !index_of (a->grid.cz, g->cz, g->dz, g->nz, &rp.voxel[2]))
    return FALSE;
  for (guint p = 0; p < CTR_REPORT_N_PLANES; p++)
    move_plane (&rp, p, planes[p]->data, vol->data, TRUE);
  if (voxel != NULL)
    memcpy (voxel, rp.voxel, sizeof rp.voxel);
  return TRUE;
}
