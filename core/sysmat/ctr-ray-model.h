/* ctr-ray-model.h — how a ray's weights over the pixels are modelled (the
 * vocabulary of the system matrix, sysmat/ctr-sysmat.h; kept apart so the
 * options of ctr-recon-types.h can name it without the matrix module).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  /* Joseph 1982: step one pixel along the ray's major axis, linear
   * interpolation between the two nearest pixel centres of the minor axis;
   * weight = step length × interpolation weight. */
  CTR_RAY_MODEL_JOSEPH,
  /* Siddon 1985: exact intersection length of the ray with each pixel. */
  CTR_RAY_MODEL_SIDDON,
  /* Area-integral model (cuART §2.1, Fig. 2): weight = area of the strip
   * between the rays through the two edges of the detector bin, over the
   * pixel, divided by the pixel area (times the pixel side, so A·x keeps
   * line-integral units). */
  CTR_RAY_MODEL_AREA
} CtrRayModel;

G_END_DECLS
