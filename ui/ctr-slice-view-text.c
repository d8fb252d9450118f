/* ctr-slice-view-text.c — the slice view's words: the pointer read-out,
 * the size and window label, the colour bar's ends, in the image's unit or
 * in Hounsfield units under a preset (ctr-hu-preset.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "ctr-slice-view"

#include <math.h>
#include <string.h>

#include "ctr-slice-view-private.h"
#include "ctr-hu-preset.h"

gboolean
_ctr_slice_view_shows_hu (CtrSliceView *self)
{
  return self->hu != CTR_SLICE_HU_OFF && self->image != NULL && g_strcmp0 (self->image->unit, "1/mm") == 0;
}

char *
_ctr_slice_view_format_value (CtrSliceView *self, double v)
{
  if (!_ctr_slice_view_shows_hu (self))
    return g_strdup_printf ("%.4g", v);
  if (self->hu == CTR_SLICE_HU_DIFFERENCE)
    return g_strdup_printf ("%+.0f HU", 1000.0 * v / _ctr_slice_view_mu_water (self));
  return g_strdup_printf ("%+.0f HU", ctr_hu_from_mu (v, _ctr_slice_view_mu_water (self)));
}

/* "W 80  L 40 HU · μ_water 0.0192/mm (default)" or "W 0.004  L 0.019 (auto)". */
static char *
format_window (CtrSliceView *self)
{
  double width = self->hi - self->lo, level = 0.5 * (self->hi + self->lo);
  double mu = _ctr_slice_view_mu_water (self);
  g_autofree char *mu_text = _ctr_slice_view_describe_mu_water (self);

  if (!_ctr_slice_view_shows_hu (self))
    return g_strdup_printf ("W %.4g  L %.4g%s", width, level, self->manual_window ? "" : " (auto)");
  if (self->hu == CTR_SLICE_HU_DIFFERENCE)
    return g_strdup_printf ("W %.0f HU, centred on %.0f · %s", 1000.0 * width / mu, 1000.0 * level / mu, mu_text);
  return g_strdup_printf ("W %.0f  L %.0f HU · %s", 1000.0 * width / mu, ctr_hu_from_mu (level, mu), mu_text);
}

/**
 * ctr_slice_view_describe_window:
 * The size and window label at the bottom left: "512 × 512 px · 0.5 mm
 * pixels" (or "pixel size unknown" for an image per pixel), then the
 * window ("W 80  L 40 HU (μ_water 0.0192 /mm)" under a Hounsfield preset).
 * Transfer full; NULL without an image.
 */
char *
ctr_slice_view_describe_window (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  if (self->image == NULL)
    return NULL;

  const CtrGrid *g = &self->plane.grid;
  gboolean pixel_known = self->image->unit == NULL || strstr (self->image->unit, "pixel") == NULL;
  g_autofree char *size = pixel_known ? g_strdup_printf ("%.3g mm pixels", g->dx)
                                      : g_strdup ("pixel size unknown (values per pixel)");
  g_autofree char *window = format_window (self);
  return g_strdup_printf ("%u × %u px · %s\n%s", g->nx, g->ny, size, window);
}

/**
 * ctr_slice_view_describe_pixel:
 * The pointer read-out for pixel (@ix, @iy) of the shown plane: position in
 * mm, value and unit, and for images in 1/mm the value in HU with the
 * μ_water used.  Transfer full; NULL without an image or outside it.
 */
char *
ctr_slice_view_describe_pixel (CtrSliceView *self, guint ix, guint iy)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  if (self->image == NULL || self->plane.data == NULL || ix >= self->plane.grid.nx || iy >= self->plane.grid.ny)
    return NULL;

  const CtrGrid *g = &self->plane.grid;
  float v = self->plane.data[(gsize) iy * g->nx + ix];   /* the shown plane */

  {
    static const char *axes[][2] = { { "x", "y" }, { "x", "z" }, { "y", "z" } };
    guint o = self->image->grid.nz > 1 ? self->orientation : CTR_SLICE_AXIAL;
    /* Images in 1/mm are also shown in Hounsfield units, with the μ_water
     * the presets assume (stated, since a calibrated scanner has its own);
     * under a Hounsfield preset HU come first. */
    gboolean mm = g_strcmp0 (self->image->unit, "1/mm") == 0;
    g_autofree char *hu_text = mm ? _ctr_slice_view_format_value (self, v) : NULL;
    g_autofree char *hu = NULL;
    g_autofree char *value = NULL;
    g_autofree char *mu_text = _ctr_slice_view_describe_mu_water (self);

    if (mm && _ctr_slice_view_shows_hu (self))
      {
        value = g_strdup_printf ("%s", hu_text);
        hu = g_strdup_printf ("  = %.5g 1/mm · %s", v, mu_text);
      }
    else
      {
        value = g_strdup_printf ("%.5g %s", v, self->image->unit ? self->image->unit : "");
        hu = mm ? g_strdup_printf ("  = %+.0f HU · %s", ctr_hu_from_mu (v, _ctr_slice_view_mu_water (self)), mu_text)
                : g_strdup ("");
      }
    return g_strdup_printf ("%s %+.1f mm  %s %+.1f mm   %s%s", axes[o][0], ctr_grid_x (g, ix), axes[o][1],
                            ctr_grid_y (g, iy), value, hu);
  }
}

gboolean
ctr_slice_view_apply_preset (CtrSliceView *self, const char *name)
{
  double lo, hi;

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (g_strcmp0 (name, "auto") == 0)
    {
      self->preset = NULL;
      ctr_slice_view_set_hu (self, CTR_SLICE_HU_OFF);
      ctr_slice_view_reset_window (self);
      _ctr_slice_view_window_changed (self);
      return TRUE;
    }
  if (self->image == NULL || g_strcmp0 (self->image->unit, "1/mm") != 0 || !ctr_hu_preset_is_hu (name))
    return FALSE;
  if (self->hu == CTR_SLICE_HU_OFF)
    ctr_slice_view_set_hu (self, CTR_SLICE_HU_VALUES);
  self->preset = ctr_hu_preset_name (ctr_hu_preset_find (name));   /* static */
  if (!ctr_hu_preset_window (name, _ctr_slice_view_mu_water (self), &lo, &hi))
    {
      /* "custom": the window shown stays, for every slice, plane and image */
      ctr_slice_view_set_window (self, self->lo, self->hi);
      return TRUE;
    }
  ctr_slice_view_set_window (self, lo, hi);
  _ctr_slice_view_window_changed (self);
  return TRUE;
}

void
ctr_slice_view_set_hu (CtrSliceView *self, CtrSliceHu hu)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  if (self->hu == (int) hu)
    return;
  self->hu = hu;
  if (self->pointer_info != NULL)
    ctr_slice_view_point_at (self, self->pointer_x, self->pointer_y);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

CtrSliceHu
ctr_slice_view_get_hu (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), CTR_SLICE_HU_OFF);
  return self->hu;
}

gboolean
ctr_slice_view_get_overlay_boxes (CtrSliceView *self, graphene_rect_t *readout, graphene_rect_t *window_label)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  *readout = self->readout_box;
  *window_label = self->label_box;
  return self->readout_box.size.width > 0 && self->label_box.size.width > 0;
}
