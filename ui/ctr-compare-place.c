/* ctr-compare-place.c — the Compare page's plane and slice of volumes:
 * every volume tile shows the same plane at the same position (mm), the
 * Run page's (ctr_run_page_get_place) or the one chosen in the page's own
 * Plane and Slice controls, which move the Run page in turn (the window
 * links the two by "place-changed").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-compare-page"

#include <string.h>

#include "ctr-compare-page-private.h"
#include "ctr-slice-view.h"

/* The position along @o's axis in @mm = {x, y, z}. */
static double
along (const double mm[3], CtrSliceOrientation o)
{
  return o == CTR_SLICE_AXIAL ? mm[2] : o == CTR_SLICE_CORONAL ? mm[1] : mm[0];
}

guint
_ctr_compare_place_slice (CtrComparePage *self, const CtrVolume *image)
{
  if (image->grid.nz <= 1)
    return 0;
  if (!self->have_place)
    return ctr_slice_plane_count (image, self->plane) / 2;
  return ctr_slice_plane_index_at (&image->grid, self->plane, along (self->place_mm, self->plane));
}

/* The first tile showing a volume, or NULL. */
static CtrSliceView *
first_volume_tile (CtrComparePage *self)
{
  for (guint i = 0; i < self->views->len; i++)
    {
      CtrVolume *v = ctr_slice_view_get_image (g_ptr_array_index (self->views, i));
      if (v != NULL && v->grid.nz > 1)
        return g_ptr_array_index (self->views, i);
    }
  return NULL;
}

void
_ctr_compare_place_sync (CtrComparePage *self)
{
  CtrSliceView *first = first_volume_tile (self);

  gtk_widget_set_visible (self->place_bar, first != NULL);
  if (first == NULL)
    return;
  self->setting_place = TRUE;
  gtk_drop_down_set_selected (self->plane_drop, self->plane);
  gtk_adjustment_configure (self->slice_adj, ctr_slice_view_get_slice (first) + 1, 1,
                            MAX (ctr_slice_view_get_n_slices (first), 1), 1, 10, 0);
  self->setting_place = FALSE;
}

/* Every volume tile to the page's plane and position. */
static void
show_place (CtrComparePage *self)
{
  for (guint i = 0; i < self->views->len; i++)
    {
      CtrSliceView *view = g_ptr_array_index (self->views, i);
      CtrVolume *v = ctr_slice_view_get_image (view);
      if (v == NULL || v->grid.nz <= 1)
        continue;
      if (ctr_slice_view_get_orientation (view) != self->plane)
        ctr_slice_view_set_orientation (view, self->plane);
      ctr_slice_view_set_slice (view, _ctr_compare_place_slice (self, v));
    }
  _ctr_compare_page_update_captions (self);
  _ctr_compare_place_sync (self);
}

void
ctr_compare_page_set_place (CtrComparePage *self, CtrSliceOrientation plane, const double mm[3])
{
  g_return_if_fail (CTR_IS_COMPARE_PAGE (self));
  if (self->have_place && self->plane == plane && memcmp (self->place_mm, mm, sizeof self->place_mm) == 0)
    return;
  self->have_place = TRUE;
  self->plane = plane;
  memcpy (self->place_mm, mm, sizeof self->place_mm);
  show_place (self);
}

gboolean
ctr_compare_page_get_place (CtrComparePage *self, CtrSliceOrientation *plane, double mm[3])
{
  g_return_val_if_fail (CTR_IS_COMPARE_PAGE (self), FALSE);
  if (!self->have_place)
    return FALSE;
  *plane = self->plane;
  memcpy (mm, self->place_mm, sizeof self->place_mm);
  return TRUE;
}

/* The page's own controls: the new plane (at the same point) or slice (of
 * the first volume tile's grid), told to the Run page. */
static void
on_place_control (CtrComparePage *self)
{
  CtrSliceView *first = first_volume_tile (self);
  CtrSliceOrientation plane = gtk_drop_down_get_selected (self->plane_drop);
  const CtrGrid *g;
  double pos;

  if (self->setting_place || first == NULL)
    return;
  g = &ctr_slice_view_get_image (first)->grid;
  if (!self->have_place)
    {
      self->place_mm[0] = g->cx;
      self->place_mm[1] = g->cy;
      self->place_mm[2] = g->cz;
      self->have_place = TRUE;
    }
  if (plane == self->plane)
    {
      pos = ctr_slice_plane_position (g, plane, (guint) gtk_adjustment_get_value (self->slice_adj) - 1);
      self->place_mm[plane == CTR_SLICE_AXIAL ? 2 : plane == CTR_SLICE_CORONAL ? 1 : 0] = pos;
    }
  self->plane = plane;
  show_place (self);
  _ctr_compare_page_place_changed (self);
}

void
_ctr_compare_place_init (CtrComparePage *self)
{
  g_signal_connect_swapped (self->plane_drop, "notify::selected", G_CALLBACK (on_place_control), self);
  g_signal_connect_swapped (self->slice_adj, "value-changed", G_CALLBACK (on_place_control), self);
  gtk_widget_set_visible (self->place_bar, FALSE);
}
