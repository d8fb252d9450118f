/* ctr-view-trio.c — three slice views of one volume, linked by one
 * crosshair voxel and one window/level (ctr-view-trio.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-view-trio"

#include "ctr-view-trio.h"

/* The slice of the crosshair along @o's axis. */
static guint
slice_of (const CtrViewTrio *trio, CtrSliceOrientation o)
{
  return o == CTR_SLICE_AXIAL ? trio->cross[2] : o == CTR_SLICE_CORONAL ? trio->cross[1] : trio->cross[0];
}

/* The plane of view @index: the main view's, then the other two in order. */
static CtrSliceOrientation
plane_of (const CtrViewTrio *trio, guint index)
{
  guint n = 0;

  if (index == 0)
    return trio->plane;
  for (guint o = CTR_SLICE_AXIAL; o <= CTR_SLICE_SAGITTAL; o++)
    if (o != trio->plane && ++n == index)
      return o;
  return CTR_SLICE_AXIAL;
}

static void sync_window (CtrViewTrio *trio, CtrSliceView *source);

static gboolean
is_volume (const CtrViewTrio *trio)
{
  return trio->image != NULL && trio->image->grid.nz > 1;
}

/* Every view at the crosshair's slice along its axis, crosshair drawn. */
static void
show_cross (CtrViewTrio *trio)
{
  for (guint v = 0; v < 3; v++)
    {
      guint slice = slice_of (trio, plane_of (trio, v));
      if (!is_volume (trio))
        {
          ctr_slice_view_set_crosshair (trio->views[v], NULL);
          continue;
        }
      if (ctr_slice_view_get_slice (trio->views[v]) != slice)
        ctr_slice_view_set_slice (trio->views[v], slice);
      ctr_slice_view_set_crosshair (trio->views[v], trio->cross);
    }
}

void
ctr_view_trio_set_cross (CtrViewTrio *trio, const guint voxel[3])
{
  if (!is_volume (trio))
    return;
  trio->cross[0] = MIN (voxel[0], trio->image->grid.nx - 1);
  trio->cross[1] = MIN (voxel[1], trio->image->grid.ny - 1);
  trio->cross[2] = MIN (voxel[2], trio->image->grid.nz - 1);
  show_cross (trio);
}

void
ctr_view_trio_set_slice (CtrViewTrio *trio, guint slice)
{
  guint voxel[3] = { trio->cross[0], trio->cross[1], trio->cross[2] };

  voxel[trio->plane == CTR_SLICE_AXIAL ? 2 : trio->plane == CTR_SLICE_CORONAL ? 1 : 0] = slice;
  ctr_view_trio_set_cross (trio, voxel);
  if (!is_volume (trio))
    ctr_slice_view_set_slice (trio->views[0], slice);
}

void
ctr_view_trio_set_plane (CtrViewTrio *trio, CtrSliceOrientation plane)
{
  trio->plane = plane;
  for (guint v = 0; v < 3; v++)
    ctr_slice_view_set_orientation (trio->views[v], plane_of (trio, v));
  show_cross (trio);
}

void
ctr_view_trio_set_image (CtrViewTrio *trio, CtrVolume *image)
{
  CtrVolume *old = trio->image;
  gboolean volume = image != NULL && image->grid.nz > 1;

  if (volume && (old == NULL || old->grid.nx != image->grid.nx || old->grid.ny != image->grid.ny ||
                 old->grid.nz != image->grid.nz))
    {
      trio->cross[0] = image->grid.nx / 2;
      trio->cross[1] = image->grid.ny / 2;
      trio->cross[2] = image->grid.nz / 2;
    }
  trio->image = image != NULL ? ctr_volume_ref (image) : NULL;
  g_clear_pointer (&old, ctr_volume_unref);
  for (guint v = 0; v < 3; v++)
    {
      CtrSliceOrientation o = plane_of (trio, v);

      if (v > 0 && !volume)
        {
          ctr_slice_view_set_image (trio->views[v], NULL, 0);
          gtk_widget_set_visible (GTK_WIDGET (trio->views[v]), FALSE);
          continue;
        }
      if (ctr_slice_view_get_orientation (trio->views[v]) != o)
        ctr_slice_view_set_orientation (trio->views[v], o);
      ctr_slice_view_set_image (trio->views[v], image, volume ? slice_of (trio, o) : 0);
      gtk_widget_set_visible (GTK_WIDGET (trio->views[v]), TRUE);
    }
  if (volume)
    sync_window (trio, trio->views[0]);   /* the small views may have shown nothing since */
  show_cross (trio);
}

void
ctr_view_trio_reset_window (CtrViewTrio *trio)
{
  for (guint v = 0; v < 3; v++)
    ctr_slice_view_reset_window (trio->views[v]);
}

/* The window (and HU display) of @source becomes the others' (a view
 * already showing it is left alone: no texture made twice). */
static void
sync_window (CtrViewTrio *trio, CtrSliceView *source)
{
  gboolean automatic = ctr_slice_view_get_window_auto (source);
  double lo, hi, vlo, vhi;

  ctr_slice_view_get_window (source, &lo, &hi);
  for (guint v = 0; v < 3; v++)
    {
      CtrSliceView *view = trio->views[v];
      if (view == source)
        continue;
      ctr_slice_view_set_hu (view, ctr_slice_view_get_hu (source));
      ctr_slice_view_get_window (view, &vlo, &vhi);
      if (automatic && !ctr_slice_view_get_window_auto (view))
        ctr_slice_view_reset_window (view);
      else if (!automatic && (ctr_slice_view_get_window_auto (view) || vlo != lo || vhi != hi))
        ctr_slice_view_set_window (view, lo, hi);
    }
}

void
ctr_view_trio_sync_window (CtrViewTrio *trio)
{
  sync_window (trio, trio->views[0]);
}

static void
on_window_changed (CtrSliceView *view, CtrViewTrio *trio)
{
  if (trio->syncing)
    return;
  trio->syncing = TRUE;
  sync_window (trio, view);
  trio->syncing = FALSE;
  if (trio->window != NULL)
    trio->window (trio->data);
}

static void
on_voxel_picked (CtrSliceView *view, guint i, guint j, guint k, CtrViewTrio *trio)
{
  guint voxel[3] = { i, j, k };

  ctr_view_trio_set_cross (trio, voxel);
  if (trio->moved != NULL)
    trio->moved (trio->data);
}

void
ctr_view_trio_init (CtrViewTrio     *trio,
                    CtrSliceView    *main,
                    CtrSliceView    *a,
                    CtrSliceView    *b,
                    CtrViewTrioFunc  moved,
                    CtrViewTrioFunc  window,
                    gpointer         data)
{
  *trio = (CtrViewTrio) { .views = { main, a, b }, .plane = CTR_SLICE_AXIAL, .moved = moved, .window = window,
                          .data = data };
  for (guint v = 0; v < 3; v++)
    {
      g_signal_connect (trio->views[v], "window-changed", G_CALLBACK (on_window_changed), trio);
      g_signal_connect (trio->views[v], "voxel-picked", G_CALLBACK (on_voxel_picked), trio);
      if (v > 0)
        {
          ctr_slice_view_set_natural_size (trio->views[v], 200);
          ctr_slice_view_set_compact (trio->views[v], TRUE);
          gtk_widget_set_visible (GTK_WIDGET (trio->views[v]), FALSE);
        }
    }
  ctr_view_trio_set_plane (trio, CTR_SLICE_AXIAL);
}

void
ctr_view_trio_clear (CtrViewTrio *trio)
{
  for (guint v = 0; v < 3; v++)
    if (trio->views[v] != NULL)
      g_signal_handlers_disconnect_by_data (trio->views[v], trio);
  g_clear_pointer (&trio->image, ctr_volume_unref);
}
