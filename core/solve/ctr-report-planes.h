/* ctr-report-planes.h — the three orthogonal planes a report carries under
 * CTR_REPORT_PLANES (ctr-recon-types.h; CtrIterStats.planes in
 * ctr-progress.h): where they lie in a natural image (the strided parts a
 * device copies back, CtrImageRuns) and reading them out of it.
 */
#pragma once

#include <glib.h>
#include "data/ctr-volume.h"
#include "sysmat/ctr-operator.h"

G_BEGIN_DECLS

typedef enum {
  CTR_REPORT_PLANE_AXIAL,      /* nx × ny × 1 at slice k */
  CTR_REPORT_PLANE_CORONAL,    /* nx × 1 × nz at row j */
  CTR_REPORT_PLANE_SAGITTAL,   /* 1 × ny × nz at column i */
  CTR_REPORT_N_PLANES
} CtrReportPlane;

/**
 * CtrReportPlanes:
 * @grid: the run's grid (nx, ny, nz voxels).
 * @voxel: the voxel (i, j, k) the planes pass through, within @grid.
 * @plane: the planes, each a one-voxel slab of @grid on its own grid (same
 *   voxel sizes; its centre moved to the slab's: cz of slice k, cy of row j,
 *   cx of column i); floats x fastest, then y, then z.  Owned.
 */
typedef struct {
  CtrGrid grid;
  guint voxel[3];
  CtrVolume *plane[CTR_REPORT_N_PLANES];
} CtrReportPlanes;

/**
 * ctr_report_planes_new:
 * @grid: the run's grid.
 * @i, @j, @k: the voxel, each clamped to @grid (column, row, slice).
 * @unit: (nullable): the planes' unit ("1/mm").
 * Returns: (transfer full): the planes (zeros), or NULL with
 *   CTR_ERROR_OUT_OF_MEMORY.  Free with ctr_report_planes_free.
 */
CtrReportPlanes *ctr_report_planes_new (const CtrGrid *grid, guint i, guint j, guint k, const char *unit,
                                        GError **error);
void ctr_report_planes_free (CtrReportPlanes *rp);

/**
 * ctr_report_planes_move:
 * @rp: the planes.
 * @i, @j, @k: the new voxel, each clamped to rp->grid (column, row, slice).
 * Moves the planes to the voxel: their grids' centres (cz, cy, cx) follow,
 * their values are left as they are (read them again,
 * ctr_report_planes_read).  Allocates nothing.
 * Returns: TRUE when the voxel changed.
 */
gboolean ctr_report_planes_move (CtrReportPlanes *rp, guint i, guint j, guint k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CtrReportPlanes, ctr_report_planes_free)

/* Where plane @which lies in a natural image of rp->grid (x fastest, then
 * y, then z): axial one run of nx·ny floats, coronal nz runs of nx floats
 * (stride nx·ny), sagittal ny·nz single floats (stride nx). */
CtrImageRuns ctr_report_planes_runs (const CtrReportPlanes *rp, CtrReportPlane which);

/* Reads the planes out of @x, a natural image of rp->grid (nx·ny·nz floats;
 * only the floats of the planes' runs are read). */
void ctr_report_planes_read (CtrReportPlanes *rp, const float *x);

/**
 * ctr_report_planes_paste:
 * @planes: the three planes of a report (CtrIterStats.planes: axial,
 *   coronal, sagittal).
 * @vol: a volume on the run's grid; the planes' voxels are written into it.
 * @voxel: (out) (optional): the voxel (i, j, k) the planes pass through.
 * Finds where the planes lie from their grids (centres within a thousandth
 * of a voxel of one of @vol's).
 * Returns: FALSE (nothing written) when a plane is NULL or does not lie on
 *   @vol's grid.
 */
gboolean ctr_report_planes_paste (const CtrVolume *const planes[3], CtrVolume *vol, guint voxel[3]);

G_END_DECLS
