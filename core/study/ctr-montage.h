/* ctr-montage.h — images side by side in Hounsfield units, each with its
 * caption and display window, written as one PNG (drawn with cairo).
 *
 * What a reader compares at a glance: the reference, the reconstructions
 * and a difference image, on one grey scale each stated under the tile
 * ("W 80 / L 40 HU").  No GTK: the CLI writes it; the window's Compare page
 * shows the same images live.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * CtrMontageTile:
 * @data: @height rows × @width columns of float, row-major, row 0 at the
 *   top (+y, FORMAT.md), attenuation μ in 1/mm (borrowed).
 * @width, @height: the image's size in pixels (1 to 4096 each).
 * @caption: (nullable): the first line under the tile.
 * @level_hu, @window_hu: the display window, centre and width in HU
 *   (@window_hu > 0): level − window/2 is black, level + window/2 white.
 * @difference: @data is a difference of two images: its HU are
 *   1000 · Δμ / μ_water (no −1000 offset), the window usually centred on 0.
 */
typedef struct {
  const float *data;
  guint width, height;
  const char *caption;
  double level_hu, window_hu;
  gboolean difference;
} CtrMontageTile;

/**
 * ctr_montage_write_png:
 * @tiles: (array length=n_tiles): the images, left to right.
 * @mu_water: μ_water in 1/mm (> 0) for HU (ctr-hu.h).
 * @zoom: each image pixel drawn as @zoom × @zoom pixels (1 to 8, nearest).
 * @title: (nullable): a line above the tiles.
 * Writes the tiles in one row, each with its caption and its window
 * ("W 80 / L 40 HU") below, on white, to a temporary file beside @path
 * renamed over it.  Non-finite pixels are drawn black.
 * Returns: FALSE with CTR_ERROR_INVALID_ARGUMENT (no tile, a tile without
 *   data, a size out of range, a window ≤ 0 or not finite, μ_water ≤ 0, a
 *   figure wider or taller than 16000 pixels) or CTR_ERROR_IO.
 */
gboolean ctr_montage_write_png (const CtrMontageTile *tiles, guint n_tiles, double mu_water, guint zoom,
                                const char *title, const char *path, GError **error);

G_END_DECLS
