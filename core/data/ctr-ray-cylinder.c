/* ctr-ray-cylinder.c — a ray's trace in the plane of rotation and its path
 * through a cylinder along z (see ctr-ray-cylinder.h). */
#include "data/ctr-ray-cylinder.h"

#include <math.h>

void
ctr_geometry_ray_xy (const CtrGeometry *g, guint view, double col, double row,
                     double origin[2], double dir[2], double *stretch)
{
  double s = 1.0;
  if (g->beam == CTR_BEAM_CONE)
    {
      double o[3], d[3];
      ctr_cone_ray (g, view, col, row, o, d);
      const double n = hypot (d[0], d[1]);
      origin[0] = o[0];
      origin[1] = o[1];
      dir[0] = n > 0 ? d[0] / n : 0;
      dir[1] = n > 0 ? d[1] / n : 0;
      s = n > 0 ? 1 / n : INFINITY;
    }
  else
    ctr_geometry_ray (g, view, col, origin, dir);
  if (stretch != NULL)
    *stretch = s;
}

double
ctr_geometry_cylinder_path (const CtrGeometry *g, guint view, double col, double row,
                            const double centre_mm[2], double radius_mm)
{
  double o[2], d[2], s;
  ctr_geometry_ray_xy (g, view, col, row, o, d, &s);
  if (!isfinite (s))
    return 0;
  return ctr_circle_chord (ctr_line_side (o, d, centre_mm), radius_mm) * s;
}
