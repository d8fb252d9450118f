/* ctr-montage.c — images side by side in HU as a PNG (see ctr-montage.h). */
#include "study/ctr-montage.h"
#include "study/ctr-study-private.h"
#include "base/ctr-error.h"
#include "base/ctr-hu.h"

#include <math.h>

#define MAX_SIDE 4096u
#define MAX_FIGURE 16000.0
#define PAD 12.0
#define FONT_SIZE 15.0
#define TITLE_SIZE 17.0
#define LINE (FONT_SIZE * 1.45)

static gboolean
check (const CtrMontageTile *tiles, guint n, double mu_water, guint zoom, GError **error)
{
  if (n == 0 || tiles == NULL)
    return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "a montage needs at least one image"), FALSE;
  if (!(mu_water > 0) || !isfinite (mu_water))
    return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                        "μ_water %g /mm: it must be a positive number", mu_water), FALSE;
  if (zoom < 1 || zoom > 8)
    return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT, "zoom %u: it must be 1 to 8", zoom), FALSE;
  double total_w = PAD, max_h = 0;
  for (guint i = 0; i < n; i++)
    {
      const CtrMontageTile *t = &tiles[i];
      if (t->data == NULL || t->width < 1 || t->height < 1 || t->width > MAX_SIDE || t->height > MAX_SIDE)
        return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                            "image %u of the montage: %u × %u pixels (1 to %u each, with data)",
                            i + 1, t->width, t->height, MAX_SIDE), FALSE;
      if (!(t->window_hu > 0) || !isfinite (t->window_hu) || !isfinite (t->level_hu))
        return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                            "image %u of the montage: window %g HU at level %g HU (the width must be positive)",
                            i + 1, t->window_hu, t->level_hu), FALSE;
      total_w += (double) t->width * zoom + PAD;
      max_h = MAX (max_h, (double) t->height * zoom);
    }
  if (total_w > MAX_FIGURE || max_h + 4 * LINE + 3 * PAD > MAX_FIGURE)
    return g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                        "a montage of %.0f × %.0f pixels: at most %.0f each", total_w, max_h, MAX_FIGURE), FALSE;
  return TRUE;
}

/* The tile as grey levels through its window. */
static cairo_surface_t *
tile_surface (const CtrMontageTile *t, double mu_water)
{
  cairo_surface_t *img = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) t->width, (int) t->height);
  cairo_surface_flush (img);
  unsigned char *px = cairo_image_surface_get_data (img);
  const int stride = cairo_image_surface_get_stride (img);
  const double lo = t->level_hu - t->window_hu / 2;
  for (guint y = 0; y < t->height; y++)
    {
      guint32 *row = (guint32 *) (px + (gsize) y * stride);
      for (guint x = 0; x < t->width; x++)
        {
          const double mu = t->data[(gsize) y * t->width + x];
          const double hu = t->difference ? 1000.0 * mu / mu_water : ctr_hu_from_mu (mu, mu_water);
          double g = isfinite (hu) ? (hu - lo) / t->window_hu : 0;
          const guint32 v = (guint32) lround (CLAMP (g, 0.0, 1.0) * 255.0);
          row[x] = (v << 16) | (v << 8) | v;
        }
    }
  cairo_surface_mark_dirty (img);
  return img;
}

static void
text_centred (cairo_t *cr, const char *text, double cx, double y)
{
  cairo_text_extents_t e;
  cairo_text_extents (cr, text, &e);
  cairo_move_to (cr, cx - e.width / 2 - e.x_bearing, y - e.y_bearing);
  cairo_show_text (cr, text);
}

gboolean
ctr_montage_write_png (const CtrMontageTile *tiles, guint n_tiles, double mu_water, guint zoom,
                       const char *title, const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  if (!check (tiles, n_tiles, mu_water, zoom, error))
    return FALSE;
  double width = PAD, max_h = 0;
  for (guint i = 0; i < n_tiles; i++)
    {
      width += (double) tiles[i].width * zoom + PAD;
      max_h = MAX (max_h, (double) tiles[i].height * zoom);
    }
  const double top = PAD + (title != NULL && *title ? TITLE_SIZE * 1.6 : 0);
  const double height = top + max_h + PAD / 2 + 2 * LINE + PAD;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) ceil (width), (int) ceil (height));
  cairo_t *cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  if (title != NULL && *title)
    {
      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_set_font_size (cr, TITLE_SIZE);
      text_centred (cr, title, width / 2, PAD);
    }
  double x = PAD;
  for (guint i = 0; i < n_tiles; i++)
    {
      const CtrMontageTile *t = &tiles[i];
      const double w = (double) t->width * zoom, h = (double) t->height * zoom;
      cairo_surface_t *img = tile_surface (t, mu_water);
      cairo_save (cr);
      cairo_translate (cr, x, top);
      cairo_scale (cr, zoom, zoom);
      cairo_set_source_surface (cr, img, 0, 0);
      cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
      cairo_paint (cr);
      cairo_restore (cr);
      cairo_surface_destroy (img);

      cairo_set_source_rgb (cr, 0, 0, 0);
      cairo_set_font_size (cr, FONT_SIZE);
      if (t->caption != NULL)
        text_centred (cr, t->caption, x + w / 2, top + h + PAD / 2);
      g_autofree char *window = g_strdup_printf ("%sW %g / L %g HU", t->difference ? "difference, " : "",
                                                 t->window_hu, t->level_hu);
      cairo_set_source_rgb (cr, 0.3, 0.3, 0.3);
      text_centred (cr, window, x + w / 2, top + h + PAD / 2 + LINE);
      x += w + PAD;
    }
  cairo_destroy (cr);
  gboolean ok = ctr_study_write_surface_png (surface, path, error);
  cairo_surface_destroy (surface);
  return ok;
}
