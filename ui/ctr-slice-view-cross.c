/* ctr-slice-view-cross.c — a slice view's place in a volume: the linked
 * crosshair drawn through a voxel, the voxel a click picks, and the slice
 * read-out ("Coronal 21 / 64 · y +38.3 mm").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A voxel (i, j, k) is (column, row, slice) of the volume, row 0 at +y.
 * Its pixel (c, r) in the shown plane follows ctr_slice_plane_extract:
 * axial (i, j); coronal (i, nz-1-k), z up; sagittal (ny-1-j, nz-1-k), y to
 * the right and z up.
 */
#define G_LOG_DOMAIN "ctr-slice-view"

#include <math.h>
#include <string.h>

#include "ctr-slice-view-private.h"

/* A shown volume (nz > 1): what the crosshair and picking work on. */
static const CtrGrid *
volume_grid (CtrSliceView *self)
{
  return self->image != NULL && self->image->grid.nz > 1 ? &self->image->grid : NULL;
}

static void
voxel_to_pixel (CtrSliceView *self, const guint voxel[3], guint *c, guint *r)
{
  const CtrGrid *g = &self->image->grid;
  guint i = MIN (voxel[0], g->nx - 1), j = MIN (voxel[1], g->ny - 1), k = MIN (voxel[2], g->nz - 1);

  switch (self->orientation)
    {
    case CTR_SLICE_CORONAL:
      *c = i;
      *r = g->nz - 1 - k;
      break;
    case CTR_SLICE_SAGITTAL:
      *c = g->ny - 1 - j;
      *r = g->nz - 1 - k;
      break;
    default:
      *c = i;
      *r = j;
    }
}

static void
pixel_to_voxel (CtrSliceView *self, guint c, guint r, guint voxel[3])
{
  const CtrGrid *g = &self->image->grid;

  switch (self->orientation)
    {
    case CTR_SLICE_CORONAL:
      voxel[0] = c;
      voxel[1] = self->slice;
      voxel[2] = g->nz - 1 - r;
      break;
    case CTR_SLICE_SAGITTAL:
      voxel[0] = self->slice;
      voxel[1] = g->ny - 1 - c;
      voxel[2] = g->nz - 1 - r;
      break;
    default:
      voxel[0] = c;
      voxel[1] = r;
      voxel[2] = self->slice;
    }
}

void
ctr_slice_view_set_crosshair (CtrSliceView *self, const guint voxel[3])
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));

  if (voxel == NULL ? !self->have_cross
                    : self->have_cross && memcmp (voxel, self->cross, sizeof self->cross) == 0)
    return;
  self->have_cross = voxel != NULL;
  if (voxel != NULL)
    memcpy (self->cross, voxel, sizeof self->cross);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ctr_slice_view_voxel_to_point (CtrSliceView *self, const guint voxel[3], double *x, double *y)
{
  graphene_rect_t rect;
  guint c, r;

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (volume_grid (self) == NULL || !_ctr_slice_view_image_rect (self, &rect))
    return FALSE;
  voxel_to_pixel (self, voxel, &c, &r);
  *x = rect.origin.x + (c + 0.5) / self->plane.grid.nx * rect.size.width;
  *y = rect.origin.y + (r + 0.5) / self->plane.grid.ny * rect.size.height;
  return TRUE;
}

gboolean
ctr_slice_view_click_at (CtrSliceView *self, double x, double y)
{
  graphene_rect_t rect;
  const CtrGrid *p;
  guint voxel[3];

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (volume_grid (self) == NULL || !_ctr_slice_view_image_rect (self, &rect) ||
      !graphene_rect_contains_point (&rect, &GRAPHENE_POINT_INIT (x, y)))
    return FALSE;
  p = &self->plane.grid;
  pixel_to_voxel (self, MIN (p->nx - 1, (guint) ((x - rect.origin.x) / rect.size.width * p->nx)),
                  MIN (p->ny - 1, (guint) ((y - rect.origin.y) / rect.size.height * p->ny)), voxel);
  _ctr_slice_view_voxel_picked (self, voxel);
  return TRUE;
}

/* Two lines through the crosshair voxel's centre, across the image, with a
 * gap around the voxel so that it stays visible. */
void
_ctr_slice_view_draw_crosshair (CtrSliceView *self, GtkSnapshot *snapshot, const graphene_rect_t *rect)
{
  const GdkRGBA colour = { 1.0, 0.85, 0.2, 0.75 };
  const double gap = 6;
  double x, y;

  if (!self->have_cross || !ctr_slice_view_voxel_to_point (self, self->cross, &x, &y))
    return;
  x = floor (x) + 0.5;
  y = floor (y) + 0.5;
  if (x - gap > rect->origin.x)
    gtk_snapshot_append_color (snapshot, &colour,
                               &GRAPHENE_RECT_INIT (rect->origin.x, y - 0.5, x - gap - rect->origin.x, 1));
  if (rect->origin.x + rect->size.width > x + gap)
    gtk_snapshot_append_color (snapshot, &colour,
                               &GRAPHENE_RECT_INIT (x + gap, y - 0.5, rect->origin.x + rect->size.width - x - gap, 1));
  if (y - gap > rect->origin.y)
    gtk_snapshot_append_color (snapshot, &colour,
                               &GRAPHENE_RECT_INIT (x - 0.5, rect->origin.y, 1, y - gap - rect->origin.y));
  if (rect->origin.y + rect->size.height > y + gap)
    gtk_snapshot_append_color (snapshot, &colour,
                               &GRAPHENE_RECT_INIT (x - 0.5, y + gap, 1, rect->origin.y + rect->size.height - y - gap));
}

char *
ctr_slice_view_describe_slice (CtrSliceView *self)
{
  static const char *names[] = { "Axial", "Coronal", "Sagittal" };
  static const char *axes[] = { "z", "y", "x" };
  const CtrGrid *g;
  gboolean mm;
  double pos;
  guint n;

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  if ((g = volume_grid (self)) == NULL)
    return NULL;
  mm = self->image->unit == NULL || strstr (self->image->unit, "pixel") == NULL;
  n = ctr_slice_plane_count (self->image, self->orientation);
  pos = self->orientation == CTR_SLICE_CORONAL ? ctr_grid_y (g, self->slice)
      : self->orientation == CTR_SLICE_SAGITTAL ? ctr_grid_x (g, self->slice)
                                                : ctr_grid_z (g, self->slice);
  /* −0.0 reads as +0.0 */
  return g_strdup_printf ("%s %u / %u · %s %+.1f %s", names[self->orientation], self->slice + 1, n,
                          axes[self->orientation], fabs (pos) < 0.05 ? 0.0 : pos, mm ? "mm" : "px");
}

CtrSliceOrientation
ctr_slice_view_get_orientation (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), CTR_SLICE_AXIAL);
  return self->orientation;
}
