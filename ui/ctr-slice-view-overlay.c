/* ctr-slice-view-overlay.c — what the slice view draws over the image (the
 * profile segment, the window's ROIs and ruler, the colour bar), the
 * mapping between widget points and mm, and the ROI and ruler tools.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A view attached to the window's CtrRoiSet (ctr_slice_view_set_roi_set)
 * draws its ROIs (cyan; the selected one thicker, the background ROI
 * dashed orange) and its ruler (green, with the distance in mm, or in
 * pixels when the pixel size is unknown) on axial planes, and shows HU with
 * the set's μ_water.  Under the circle or rectangle tool a primary drag
 * draws a new ROI (a circle from its centre, a rectangle corner to corner)
 * or, started inside an ROI, moves it; under the ruler tool it measures.
 */
#define G_LOG_DOMAIN "ctr-slice-view"

#include <math.h>
#include <string.h>

#include <pango/pangocairo.h>

#include "ctr-slice-view-private.h"
#include "ctr-hu-preset.h"

enum { TOOL_NEW, TOOL_MOVE, TOOL_RULER };

/* ---- coordinates ----------------------------------------------------------- */

gboolean
_ctr_slice_view_image_rect (CtrSliceView *self, graphene_rect_t *rect)
{
  if (self->image == NULL)
    return FALSE;

  const CtrGrid *g = &self->plane.grid;
  double w = gtk_widget_get_width (GTK_WIDGET (self)) - 2 * MARGIN;
  double h = gtk_widget_get_height (GTK_WIDGET (self)) - 2 * MARGIN;
  double iw = g->nx * (g->dx > 0 ? g->dx : 1.0);
  double ih = g->ny * (g->dy > 0 ? g->dy : 1.0);

  if (w <= 1 || h <= 1)
    return FALSE;

  double s = MIN (w / iw, h / ih) * self->zoom;
  double dw = floor (iw * s), dh = floor (ih * s);

  graphene_rect_init (rect,
                      floor (MARGIN + (w - dw) / 2 + self->pan_x * dw),
                      floor (MARGIN + (h - dh) / 2 + self->pan_y * dh),
                      dw, dh);
  return TRUE;
}

void
_ctr_slice_view_widget_to_mm (CtrSliceView *self, const graphene_rect_t *r, double x, double y, double *xm,
                              double *ym)
{
  const CtrGrid *g = &self->plane.grid;
  double fx = (x - r->origin.x) / r->size.width * g->nx;
  double fy = (y - r->origin.y) / r->size.height * g->ny;
  *xm = ctr_grid_x (g, fx - 0.5);
  *ym = ctr_grid_y (g, fy - 0.5);
}

void
_ctr_slice_view_mm_to_widget (CtrSliceView *self, const graphene_rect_t *r, double xm, double ym, double *x,
                              double *y)
{
  const CtrGrid *g = &self->plane.grid;
  double fx = (xm - g->cx) / g->dx + 0.5 * g->nx;
  double fy = 0.5 * g->ny - (ym - g->cy) / g->dy;
  *x = r->origin.x + fx / g->nx * r->size.width;
  *y = r->origin.y + fy / g->ny * r->size.height;
}

/* ROIs and the ruler live in the volume's x/y frame: only on axial planes. */
static gboolean
shows_rois (CtrSliceView *self)
{
  return self->roi_set != NULL && self->image != NULL &&
         (self->image->grid.nz == 1 || self->orientation == CTR_SLICE_AXIAL);
}

static gboolean
pixel_size_known (CtrSliceView *self)
{
  return self->image == NULL || self->image->unit == NULL || strstr (self->image->unit, "pixel") == NULL;
}

/* ---- μ_water --------------------------------------------------------------- */

double
_ctr_slice_view_mu_water (CtrSliceView *self)
{
  return self->roi_set != NULL ? ctr_roi_set_get_mu_water (self->roi_set, NULL) : CTR_MU_WATER_PER_MM;
}

char *
_ctr_slice_view_describe_mu_water (CtrSliceView *self)
{
  if (self->roi_set != NULL)
    return ctr_roi_set_describe_mu_water (self->roi_set);
  return g_strdup_printf ("μ_water %.4g/mm (default)", CTR_MU_WATER_PER_MM);
}

/* ---- drawing --------------------------------------------------------------- */

/* @text at (@x, @y), moved left to end before @max_x when it would not. */
static void
draw_label (CtrSliceView *self, cairo_t *cr, const char *text, double x, double y, double max_x,
            const double rgb[3])
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  PangoRectangle logical;
  g_autofree char *markup = g_markup_printf_escaped ("<small>%s</small>", text);

  pango_layout_set_markup (layout, markup, -1);
  pango_layout_get_pixel_extents (layout, NULL, &logical);
  if (x + logical.width + 3 > max_x)
    x = MAX (0, max_x - logical.width - 3);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  cairo_rectangle (cr, x - 3, y - 1, logical.width + 6, logical.height + 2);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
  g_object_unref (layout);
}

/* A line in @rgb over a dark halo, @width wide. */
static void
stroke_halo (cairo_t *cr, const double rgb[3], double width)
{
  cairo_set_source_rgba (cr, 0, 0, 0, 0.6);
  cairo_set_line_width (cr, width + 2);
  cairo_stroke_preserve (cr);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, width);
  cairo_stroke (cr);
}

static void
draw_segment (CtrSliceView *self, cairo_t *cr, const graphene_rect_t *rect, const double seg[4],
              const double rgb[3], double *bx, double *by)
{
  double ax, ay;

  _ctr_slice_view_mm_to_widget (self, rect, seg[0], seg[1], &ax, &ay);
  _ctr_slice_view_mm_to_widget (self, rect, seg[2], seg[3], bx, by);
  cairo_move_to (cr, ax, ay);
  cairo_line_to (cr, *bx, *by);
  stroke_halo (cr, rgb, 2);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_arc (cr, ax, ay, 4, 0, 2 * G_PI);
  cairo_fill (cr);
}

static void
draw_rois (CtrSliceView *self, cairo_t *cr, const graphene_rect_t *rect)
{
  static const double cyan[3] = { 0.25, 0.85, 1.0 }, orange[3] = { 1.0, 0.6, 0.2 };
  GListModel *list = G_LIST_MODEL (self->roi_set);
  const CtrGrid *g = &self->plane.grid;
  double sx = rect->size.width / (g->nx * g->dx), sy = rect->size.height / (g->ny * g->dy);  /* px per mm */
  int background = ctr_roi_set_get_background (self->roi_set);
  int selected = ctr_roi_set_get_selected (self->roi_set);

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (list, i);
      const CtrRoi *r = ctr_roi_item_get_roi (item);
      const double *rgb = (int) i == background ? orange : cyan;
      double cx, cy, hw, hh;
      g_autofree char *label = NULL;

      _ctr_slice_view_mm_to_widget (self, rect, r->x_mm, r->y_mm, &cx, &cy);
      hw = (r->shape == CTR_ROI_CIRCLE ? r->radius_mm : 0.5 * r->width_mm) * sx;
      hh = (r->shape == CTR_ROI_CIRCLE ? r->radius_mm : 0.5 * r->height_mm) * sy;
      cairo_new_path (cr);
      if (r->shape == CTR_ROI_CIRCLE)
        {
          cairo_save (cr);
          cairo_translate (cr, cx, cy);
          cairo_scale (cr, MAX (hw, 0.5), MAX (hh, 0.5));
          cairo_arc (cr, 0, 0, 1, 0, 2 * G_PI);
          cairo_restore (cr);
        }
      else
        cairo_rectangle (cr, cx - hw, cy - hh, 2 * hw, 2 * hh);
      if ((int) i == background)
        cairo_set_dash (cr, (double[]) { 5, 3 }, 2, 0);
      stroke_halo (cr, rgb, (int) i == selected ? 2.5 : 1.5);
      cairo_set_dash (cr, NULL, 0, 0);
      label = (int) i == background ? g_strdup_printf ("%s · background", ctr_roi_item_get_name (item))
                                    : g_strdup (ctr_roi_item_get_name (item));
      draw_label (self, cr, label, cx + hw * 0.72 + 3, cy - hh * 0.72 - 16, rect->origin.x + rect->size.width, rgb);
    }
}

static void
draw_ruler (CtrSliceView *self, cairo_t *cr, const graphene_rect_t *rect)
{
  static const double green[3] = { 0.4, 0.95, 0.4 };
  double ruler[4], bx, by;
  g_autofree char *text = NULL;

  if (!ctr_roi_set_get_ruler (self->roi_set, ruler))
    return;
  draw_segment (self, cr, rect, ruler, green, &bx, &by);
  text = ctr_slice_view_describe_ruler (self);
  draw_label (self, cr, text, bx + 8, by - 8, rect->origin.x + rect->size.width, green);
}

void
_ctr_slice_view_draw_overlay (CtrSliceView *self, cairo_t *cr, const graphene_rect_t *rect, double w, double h)
{
  /* the profile segment: yellow, start marked */
  if (self->have_segment)
    {
      static const double yellow[3] = { 0.96, 0.83, 0.18 };
      double bx, by;
      draw_segment (self, cr, rect, self->segment, yellow, &bx, &by);
    }
  if (shows_rois (self))
    {
      cairo_save (cr);
      cairo_rectangle (cr, rect->origin.x, rect->origin.y, rect->size.width, rect->size.height);
      cairo_clip (cr);
      draw_rois (self, cr, rect);
      draw_ruler (self, cr, rect);
      cairo_restore (cr);
    }

  /* colour bar: grey ramp from lo (bottom) to hi (top); none in a compact view */
  if (!self->compact)
  {
    double bw = 10, bh = MIN (200, h / 2.5), bx = w - MARGIN - bw - 2, by = MARGIN + 28;
    cairo_pattern_t *ramp = cairo_pattern_create_linear (0, by + bh, 0, by);
    cairo_pattern_add_color_stop_rgb (ramp, 0, 0, 0, 0);
    cairo_pattern_add_color_stop_rgb (ramp, 1, 1, 1, 1);
    cairo_rectangle (cr, bx, by, bw, bh);
    cairo_set_source (cr, ramp);
    cairo_fill_preserve (cr);
    cairo_pattern_destroy (ramp);
    cairo_set_source_rgba (cr, 0.6, 0.6, 0.6, 1);
    cairo_set_line_width (cr, 1);
    cairo_stroke (cr);
  }
}

/* ---- the ROI and ruler tools ----------------------------------------------- */

gboolean
_ctr_slice_view_tool_begin (CtrSliceView *self, double x, double y)
{
  graphene_rect_t rect;
  CtrRoiTool tool;
  int hit;

  if (!shows_rois (self) || !_ctr_slice_view_image_rect (self, &rect))
    return FALSE;
  tool = ctr_roi_set_get_tool (self->roi_set);
  if (tool == CTR_ROI_TOOL_NONE)
    return FALSE;
  _ctr_slice_view_widget_to_mm (self, &rect, x, y, &self->tool_anchor[0], &self->tool_anchor[1]);
  self->tool_index = -1;
  if (tool == CTR_ROI_TOOL_RULER)
    {
      self->tool_mode = TOOL_RULER;
      return TRUE;
    }
  hit = ctr_roi_set_find (self->roi_set, self->tool_anchor[0], self->tool_anchor[1]);
  self->tool_mode = hit >= 0 ? TOOL_MOVE : TOOL_NEW;
  if (hit >= 0)
    {
      g_autoptr(CtrRoiItem) item = g_list_model_get_item (G_LIST_MODEL (self->roi_set), hit);
      self->tool_index = hit;
      self->tool_start = *ctr_roi_item_get_roi (item);
      ctr_roi_set_set_selected (self->roi_set, hit);
    }
  return TRUE;
}

void
_ctr_slice_view_tool_update (CtrSliceView *self, double x, double y)
{
  graphene_rect_t rect;
  double qx, qy, ax = self->tool_anchor[0], ay = self->tool_anchor[1];
  CtrRoi roi;

  if (!shows_rois (self) || !_ctr_slice_view_image_rect (self, &rect))
    return;
  _ctr_slice_view_widget_to_mm (self, &rect, x, y, &qx, &qy);

  switch (self->tool_mode)
    {
    case TOOL_RULER:
      ctr_roi_set_set_ruler (self->roi_set, (double[4]) { ax, ay, qx, qy });
      return;
    case TOOL_MOVE:
      if (self->tool_index >= (int) g_list_model_get_n_items (G_LIST_MODEL (self->roi_set)))
        return;   /* removed meanwhile */
      roi = self->tool_start;
      roi.x_mm += qx - ax;
      roi.y_mm += qy - ay;
      break;
    default:
      if (ctr_roi_set_get_tool (self->roi_set) == CTR_ROI_TOOL_CIRCLE)
        roi = ctr_roi_circle (ax, ay, hypot (qx - ax, qy - ay));
      else
        roi = ctr_roi_rectangle (0.5 * (ax + qx), 0.5 * (ay + qy), fabs (qx - ax), fabs (qy - ay));
      /* nothing until it is at least a pixel across */
      if (!(MAX (roi.radius_mm, MIN (roi.width_mm, roi.height_mm)) >= 0.5 * self->plane.grid.dx))
        return;
      break;
    }
  if (self->tool_index < 0)
    self->tool_index = ctr_roi_set_add (self->roi_set, &roi);
  else
    ctr_roi_set_update (self->roi_set, self->tool_index, &roi);
}

/* ---- public ---------------------------------------------------------------- */

static void
on_set_changed (CtrSliceView *self)
{
  double mu = _ctr_slice_view_mu_water (self), lo, hi;

  if (mu != self->shown_mu_water)
    {
      /* a Hounsfield preset keeps its HU window under the new μ_water */
      self->shown_mu_water = mu;
      if (_ctr_slice_view_shows_hu (self) && self->hu == CTR_SLICE_HU_VALUES && self->preset != NULL &&
          ctr_hu_preset_window (self->preset, mu, &lo, &hi))
        ctr_slice_view_set_window (self, lo, hi);
      if (self->pointer_info != NULL)
        ctr_slice_view_point_at (self, self->pointer_x, self->pointer_y);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * ctr_slice_view_set_roi_set:
 * @set: (nullable) (transfer none): the window's ROIs, ruler and μ_water;
 *   the view keeps a reference and follows its changes.
 */
void
ctr_slice_view_set_roi_set (CtrSliceView *self, CtrRoiSet *set)
{
  g_return_if_fail (CTR_IS_SLICE_VIEW (self));
  g_return_if_fail (set == NULL || CTR_IS_ROI_SET (set));

  if (self->roi_set == set)
    return;
  if (self->roi_set != NULL)
    {
      g_clear_signal_handler (&self->roi_handlers[0], self->roi_set);
      g_clear_signal_handler (&self->roi_handlers[1], self->roi_set);
      g_clear_object (&self->roi_set);
    }
  if (set != NULL)
    {
      self->roi_set = g_object_ref (set);
      self->roi_handlers[0] = g_signal_connect_swapped (set, "changed", G_CALLBACK (on_set_changed), self);
      self->roi_handlers[1] = g_signal_connect_swapped (set, "items-changed", G_CALLBACK (gtk_widget_queue_draw), self);
    }
  if (!gtk_widget_in_destruction (GTK_WIDGET (self)))
    on_set_changed (self);
}

CtrRoiSet *
ctr_slice_view_get_roi_set (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  return self->roi_set;
}

double
ctr_slice_view_get_mu_water (CtrSliceView *self)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), CTR_MU_WATER_PER_MM);
  return _ctr_slice_view_mu_water (self);
}

gboolean
ctr_slice_view_mm_to_point (CtrSliceView *self, double x_mm, double y_mm, double *x, double *y)
{
  graphene_rect_t rect;

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (!_ctr_slice_view_image_rect (self, &rect))
    return FALSE;
  _ctr_slice_view_mm_to_widget (self, &rect, x_mm, y_mm, x, y);
  return TRUE;
}

gboolean
ctr_slice_view_tool_drag (CtrSliceView *self, double x0, double y0, double x1, double y1)
{
  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), FALSE);
  if (!_ctr_slice_view_tool_begin (self, x0, y0))
    return FALSE;
  _ctr_slice_view_tool_update (self, 0.5 * (x0 + x1), 0.5 * (y0 + y1));
  _ctr_slice_view_tool_update (self, x1, y1);
  return TRUE;
}

char *
ctr_slice_view_describe_ruler (CtrSliceView *self)
{
  double r[4], d;

  g_return_val_if_fail (CTR_IS_SLICE_VIEW (self), NULL);
  if (self->roi_set == NULL || !ctr_roi_set_get_ruler (self->roi_set, r))
    return NULL;
  d = hypot (r[2] - r[0], r[3] - r[1]);
  if (!pixel_size_known (self))
    return g_strdup_printf ("%.1f px", d / (self->plane.grid.dx > 0 ? self->plane.grid.dx : 1.0));
  return g_strdup_printf ("%.2f mm", d);
}
